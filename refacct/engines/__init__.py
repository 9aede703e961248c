"""The five ways refacct computes, one subpackage each:

* ``exact``: exact rationals (discrete pairs, their PLDs and compositions);
* ``quadrature``: mpmath at verified precision (closed-form steps, nested quadrature, error
  bounds from two independent evaluations);
* ``certified``: Arb enclosures (proven one- and two-step values);
* ``lattice``: proven brackets for many compositions;
* ``transform``: proven enclosures for many compositions, by inverting the moment
  generating function of the privacy loss;

and ``arb``, the Arb ball helpers they share."""
