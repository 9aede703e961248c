"""exact.quotient_mpf: num / den correctly rounded (round half to even) at the working
precision, checked against the exact rational with Fractions: the error is at most half
an ulp, and exact ties go to the even mantissa."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from mpmath import mp

from refacct.exact import quotient_mpf, to_mpf


def _exact(x) -> Fraction:
    sign, man, exp, _ = x._mpf_
    value = Fraction(man) * Fraction(2) ** exp
    return -value if sign else value


def _half_ulp(x) -> Fraction:
    _, _, exp, bc = x._mpf_
    return Fraction(2) ** (exp + bc - mp.prec) / 2


@pytest.mark.parametrize("dps", [15, 30, 60])
def test_error_at_most_half_an_ulp(dps):
    """Random operands from 1 to 3000 bits (mpmath's own mpf(num) / den rounds num first
    when it is wider than the precision, and misses this bound on such operands)."""
    rng = random.Random(dps)
    with mp.workdps(dps):
        for _ in range(1500):
            num = rng.getrandbits(rng.randint(1, 3000)) * rng.choice([1, -1])
            den = rng.getrandbits(rng.randint(1, 3000)) or 1
            got = quotient_mpf(num, den)
            if num == 0:
                assert got == 0
                continue
            assert abs(_exact(got) - Fraction(num, den)) <= _half_ulp(got)
            assert to_mpf(Fraction(num, den)) == got


@pytest.mark.parametrize("dps", [15, 40])
def test_ties_round_to_even(dps):
    """num / den = (2m + 1) / 2 ulp exactly, with wide operands: half to even."""
    rng = random.Random(7)
    with mp.workdps(dps):
        for _ in range(500):
            m = rng.getrandbits(mp.prec) | (1 << (mp.prec - 1))
            shift = rng.randint(0, 800)
            num, den = ((2 * m + 1) << 900) * 3, 3 << (901 + shift)
            got = quotient_mpf(num, den)
            want = Fraction(m + (m & 1), 2 ** shift)
            assert _exact(got) == want
