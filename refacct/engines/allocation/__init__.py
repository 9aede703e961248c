"""Random allocation's pair: the Laplace transform of a lognormal (``lognormal``) and the
put on a mean of lognormals by its inversion (``put``)."""
