"""mpmath at verified precision: one continuous step in closed form (``onestep``, with the
root isolation of mixed families in ``crossings``), Gaussian shift products in closed form
(``shift``), compositions by nested quadrature (``composed``; ``two_means`` in Arb for
Gaussian pairs with two means) and the two-evaluation error bounds they share
(``verify``)."""
