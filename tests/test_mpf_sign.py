"""Negative mpf values keep their sign wherever refacct reads an mpf exactly.

mpmath's ``mpf.man_exp`` is ``_mpf_[1:3]``, the unsigned mantissa: mpf(-40).man_exp is
(5, 3).  Every exact reading of an mpf goes through ``refacct.exact.mpf_parts``; the oracle
here is the exact rational of the literal, -5 * 2^3 = -40 and -3/8.
"""
from fractions import Fraction

import mpmath
import pytest

from refacct.engines.arb import arb_ends, to_arb
from refacct.exact import mpf_parts, rational
from refacct.result import exact_rational
from refacct.sweep import decode, encode
from refacct.validation.verdicts import exact_value

VALUES = [(mpmath.mpf(-40), Fraction(-40)), (mpmath.mpf("-0.375"), Fraction(-3, 8)),
          (mpmath.mpf(0), Fraction(0)), (mpmath.mpf("0.375"), Fraction(3, 8))]


@pytest.mark.parametrize("x, exact", VALUES)
def test_exact_readings_keep_the_sign(x, exact):
    man, exp = mpf_parts(x)
    assert Fraction(man) * Fraction(2) ** exp == exact
    assert rational(x, "x") == exact
    assert exact_rational(x) == exact
    assert exact_value(x) == exact
    low, high = arb_ends(to_arb(x))
    assert exact_rational(low) == exact == exact_rational(high)


@pytest.mark.parametrize("x, exact", VALUES)
def test_sweep_cache_keeps_the_sign(x, exact):
    assert exact_rational(decode(encode(x))) == exact
