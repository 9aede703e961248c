"""Arb enclosures (python-flint): certified crossings and one-step values (``arb_onestep``,
exponential sums in ``expsum``) and certified two-step integrals (``arb_composed``)."""
