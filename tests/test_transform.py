"""The transform engine's inversion (``refacct.engines.transform.inversion``): a proven
enclosure of delta_T(eps) from the moment generating function of the privacy loss, every
error term bounded.

Oracle: Gaussian shifts, whose T-fold composition is one shift with m^2 = T m_1^2 (Balle
and Wang 2018, arXiv:1805.06530, Thm 8; conftest.balle_wang), from T = 10^2 to 10^6 steps
of sigma = 10 and delta down to 1e-536.  Each error term is shown to matter: with a step
h too large, or a range too short, the trapezoidal sum alone misses the truth by far more
than its rounding, and the enclosure, widened by its bound, still holds."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest
from mpmath import mp

from conftest import balle_wang, mpq
from refacct.engines.arb import arb_ends, flint
from refacct.engines.transform.inversion import _first_plan, delta_enclosure, enclose
from refacct.engines.transform.mgf import GaussianShifts


def truth(m2: F, eps) -> mp.mpf:
    return balle_wang(eps, mp.sqrt(mpq(m2)))


def ends(enclosure):
    lo, hi = enclosure.ends()
    return arb_ends(lo)[0], arb_ends(hi)[1]


@pytest.mark.parametrize("steps", [10 ** 2, 10 ** 4, 10 ** 6])
@pytest.mark.parametrize("eps", [0, 1, 10])
def test_twenty_proven_digits_contain_the_closed_form(steps, eps):
    m2 = F(steps, 100)   # sigma = 10: m_1 = 1/10
    found, _ = delta_enclosure(GaussianShifts(m2), F(eps), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        value = truth(m2, eps)
        assert lo <= value <= hi
        assert hi - lo <= mp.mpf(10) ** -20 * lo


def test_tiny_delta_keeps_its_relative_digits():
    """m = 1 at eps = 50: delta = 1.37e-536, far below float64."""
    found, _ = delta_enclosure(GaussianShifts(F(1)), F(50), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        value = truth(F(1), 50)
        assert value < mp.mpf(10) ** -535
        assert lo <= value <= hi and hi - lo <= mp.mpf(10) ** -20 * lo


def _misses(found, value) -> bool:
    """Does the trapezoidal sum alone, with its rounding radius, miss the truth?"""
    with flint.ctx.workprec(found.prec):
        lo, hi = arb_ends(found.total)
    return not lo <= value <= hi


@pytest.mark.parametrize("spoil, term", [
    (lambda plan: replace(plan, h=plan.h * 6, n=max(1, plan.n // 6)), "below"),
    (lambda plan: replace(plan, n=max(1, plan.n // 8)), "truncation"),
])
def test_each_bound_catches_its_own_failure(spoil, term):
    loss, eps = GaussianShifts(F(1)), F(1)
    plan = spoil(_first_plan(loss, eps, 20))
    found = enclose(loss, eps, plan)
    with mp.workdps(60):
        value = truth(F(1), 1)
        lo, hi = ends(found)
        assert _misses(found, value)            # the failure is real
        assert lo <= value <= hi                # and its bound covers it
        bound = arb_ends(getattr(found, term))[1]
        assert bound >= abs(arb_ends(found.total)[0] - value) / 2
