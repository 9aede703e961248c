"""The moments of one epoch of two steps by one integral (``engines.allocation.halves``):
against the integer moments in closed form, the general ray (``moments.EpochMoments``, which
shares no node with it) at complex points, the decay bound it states, a cut integral whose
tail bound must hold, and below sigma = 1 (the ray's reach) the Gaussian part in closed
form with Gauss-Hermite over the rest."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from mpmath import mp

import refacct
from refacct.engines.allocation.halves import TwoStepMoments
from refacct.engines.allocation.moments import EpochMoments
from refacct.engines.arb import arb, flint, to_arb
from refacct.mechanisms import build, gaussian

from test_allocation_moments import _two_steps_over_epochs


def _integer_moment(sigma: Fraction, n: int) -> "arb":
    """E[X^n] = 2^-n sum_k C(n, k) E[Z^k] E[Z^(n-k)], E[Z^j] = e^{b^2 j (j - 1) / 2}."""
    b2 = 1 / to_arb(sigma) ** 2
    return sum((comb(n, k) * (b2 * (k * (k - 1) + (n - k) * (n - k - 1)) / 2).exp()
                for k in range(n + 1)), arb(0)) / arb(2) ** n


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(1), Fraction(3)])
def test_integer_moments_match_their_closed_form(sigma):
    with flint.ctx.workprec(128):
        moments = TwoStepMoments(sigma)
        for n in (0, 1, 2, 3, 5):
            found = moments.at(arb(n), arb(0))
            exact = _integer_moment(sigma, n)
            assert found.real.overlaps(exact) and found.imag.contains(0)
            assert found.real.rad() < 1e-30 * exact


@pytest.mark.parametrize("sigma", [Fraction(1), Fraction(2)])
def test_complex_moments_match_the_ray(sigma):
    """Remove (Re a > 1) and add (Re a < 0) orders' points, against the ray's A(a)."""
    with flint.ctx.workprec(128):
        one, ray = TwoStepMoments(sigma), EpochMoments(sigma, 2)
        for alpha, beta in ((Fraction(3, 2), 2), (Fraction(-1, 2), -5), (Fraction(4), 1),
                            (Fraction(-3), 7)):
            found = one.at(to_arb(alpha), to_arb(beta))
            other = ray.at(to_arb(alpha), to_arb(beta))
            assert found.overlaps(other)
            assert abs(found - other).upper() < 1e-25 * abs(other).upper()


def test_the_decay_bound_holds_beyond_its_point():
    with flint.ctx.workprec(128):
        moments = TwoStepMoments(Fraction(1, 2))
        for alpha in (arb(3), arb(-2)):
            bound = moments.decay(alpha, arb(1))
            for beta in (1, 2, 5):
                assert abs(moments.at(alpha, arb(beta))).upper() <= bound
            assert moments.decay(alpha, arb(2)) < bound


def test_a_cut_integral_is_held_by_its_tail_bound(monkeypatch):
    """V_0 a third as far out: the tail's bound widens the ball (by 10^20 here) and still
    holds the value."""
    with flint.ctx.workprec(128):
        a = (to_arb(Fraction(5, 2)), arb(3))
        fine = TwoStepMoments(Fraction(1, 2)).at(*a)
        reach = TwoStepMoments._reach
        monkeypatch.setattr(TwoStepMoments, "_reach",
                            staticmethod(lambda size, prec: reach(size, prec) / 3))
        short = TwoStepMoments(Fraction(1, 2)).at(*a)
        assert short.rad() > 1e20 * fine.rad()
        assert short.contains(fine)


@pytest.mark.slow
def test_two_epochs_below_sigma_one_match_the_conditioned_gaussian():
    """sigma 1/2, two steps an epoch, two epochs, delta(1) (past ten minutes by the ray, so
    refused before; about 4 s): against the Gaussian part in closed form and Gauss-Hermite
    over the rest, whose 80 and 100 nodes agree to 1e-11 (cosh(2x) is far from a
    polynomial: 60 nodes err by 2e-10, 100 by 8e-13)."""
    entry = build(gaussian("1/2"), "random-allocation", "add-remove", steps=2, epochs=2)
    found = refacct.delta(entry, 1)
    coarse, fine = (max(_two_steps_over_epochs(Fraction(1, 2), 2, Fraction(1), n))
                    for n in (80, 100))
    assert abs(coarse - fine) < fine * mp.mpf(10) ** -10
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert abs(found.value - fine) < fine * mp.mpf(10) ** -10
