"""The transform's inner strip (``refacct.engines.transform.inversion``: -1 < c < 0), which
keeps the digits of delta_T(eps) near 1, where eps lies far below the loss's mean.

Oracles: Gaussian shifts (Balle and Wang 2018, arXiv:1805.06530, Thm 8; conftest.balle_wang);
the Laplace mechanism's 100-fold law by exact convolution (``hockey_laplace``); one step of
the subsampled Gaussian by mpmath's quadrature over the whole line; the lattice engine's
proven bracket; and the contour Re z > 0 itself (a second method: other nodes, other
aliasing bounds), which must agree where both reach.  Each error term of the inner strip
is shown to matter: with h too large, or too few nodes, the trapezoidal sum alone misses
the truth, and the enclosure, widened by its bounds, still holds it."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest
from mpmath import mp

from conftest import StoredBracket, balle_wang, mpq
from refacct import api
from refacct.engines.arb import acb, arb, arb_ends, flint, to_arb
from refacct.engines.quadrature.laplace_shift import hockey_laplace
from refacct.engines.transform import inversion
from refacct.engines.transform.inversion import _first_plan, delta_enclosure, enclose
from refacct.engines.transform.laplace import LaplaceShift
from refacct.engines.transform.mgf import GaussianShifts, PoissonGaussian, loss_of
from refacct.mechanisms import build, gaussian


def ends(enclosure):
    lo, hi = enclosure.ends()
    return arb_ends(lo)[0], arb_ends(hi)[1]


@pytest.mark.parametrize("m2, eps", [(F(100), 0), (F(100), 1), (F(400), 1), (F(100), 10)])
def test_delta_near_one_keeps_twenty_digits(m2, eps):
    """m = 10 and 20: 1 - delta from 5e-5 down to 2.5e-23, on the inner strip."""
    found, nodes = delta_enclosure(GaussianShifts(m2), F(eps), 20)
    assert nodes.plan.c < 0
    with mp.workdps(60):
        lo, hi = ends(found)
        value = balle_wang(eps, mp.sqrt(mpq(m2)))
        assert lo <= value <= hi and hi - lo <= mp.mpf(10) ** -20 * lo


@pytest.mark.parametrize("spoil", [
    lambda plan: replace(plan, h=plan.h * 6, n=max(1, plan.n // 6)),      # aliasing, k > 0
    lambda plan: replace(plan, c2=(plan.c + plan.c2) / 2, h=plan.h * 3),  # aliasing, k < 0
    lambda plan: replace(plan, n=max(1, plan.n // 8)),                    # truncation
])
def test_each_bound_of_the_inner_strip_catches_its_own_failure(spoil):
    """m = 3 at eps = 0: delta = 2 Phi(3/2) - 1 = 0.866, 1 - delta = 0.134 (large enough
    for every failure to show)."""
    loss, eps = GaussianShifts(F(9)), F(0)
    plan = _first_plan(loss, eps, 20)
    assert plan.c < 0
    found = enclose(loss, eps, spoil(plan))
    with mp.workdps(60):
        value = balle_wang(0, 3)
        lo, hi = ends(found)
        assert lo <= value <= hi
        with flint.ctx.workprec(found.prec):
            alone = found.total - found.below - found.above   # 1 + S_N
            s_lo, s_hi = arb_ends(alone)
        assert not s_lo <= value <= s_hi                    # the failure is real


def plain_quadrature(direction: str, z) -> mp.mpc:
    """M(z) of one step at sigma 11/10, q = 1/2 by mpmath's quadrature over the whole line
    (Gauss-Legendre on 200 pieces), at 40 digits."""
    with mp.workdps(40):
        s, q = mp.mpf(11) / 10, mp.mpf(1) / 2
        w = 1 + z if direction == "remove" else -z
        return mp.quad(lambda y: mp.npdf(y, 0, s) * mp.exp(
            w * mp.log(1 - q + q * mp.exp((2 * y - 1) / (2 * s * s)))),
            mp.linspace(-30, 40, 200))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("c", [F(-1, 2), F(-9, 10), F(-1, 20)])
def test_subsampled_gaussian_on_the_inner_strip_agrees_with_plain_quadrature(direction, c):
    """M(c + 7i) from the line (whose strip factor and tails take B from above when c < 0)
    and M(c) from Arb's integral against mpmath's quadrature; the decay bound above |M(c +
    it)| beyond t; M(c) <= 1 (Hoelder)."""
    loss = PoissonGaussian(F(11, 10), F(1, 2), 1, direction)
    with flint.ctx.workprec(160):
        x = to_arb(c)
        for t in (0, 7):
            got = loss.one_step(acb(x, t))
            with mp.workdps(40):
                other = plain_quadrature(direction, mp.mpc(mpq(c), t))
                for part, value in ((got.real, other.real), (got.imag, other.imag)):
                    lo, hi = arb_ends(part)
                    assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30
                    assert hi - lo < mp.mpf(10) ** -30
        assert loss.one_step(acb(x)).real < 1
        for t in (1, 10, 100):
            bound = loss.decay(x, arb(t))
            for s in (t, 2 * t, 5 * t):
                assert bound >= abs(loss.one_step(acb(x, s))).lower()


def test_poisson_subsampled_delta_near_one_lies_inside_the_lattice_bracket():
    """sigma 1, q 1/5, 300 steps, remove: delta(1) = 0.909 (eps 1 far below the loss's
    mean) from the inner strip, inside the lattice engine's proven bracket."""
    found, nodes = delta_enclosure(PoissonGaussian(F(1), F(1, 5), 300, "remove"), F(1), 20)
    assert nodes.plan.c < 0
    # refacct.delta(pair, 1, steps=300, method="bracket", width="1e-2") for (4/5) N(0, 1) +
    # (1/5) N(1, 1) against N(0, 1) (17 s)
    bracket = StoredBracket("0.909038", "0.90907")
    with mp.workdps(60):
        lo, hi = ends(found)
        assert hi - lo <= mp.mpf(10) ** -20 * lo
        assert bracket.holds(lo, hi)


def test_laplace_delta_near_one_meets_the_exact_convolution():
    """Lap(1, 1) vs Lap(0, 1), 100 steps, delta(1) = 0.99998 (mean loss 37): 20 proven
    digits whose interval meets the ball of the closed form of the 100-fold law.  At c =
    -1/2, where the closed form's sinh(w e0) / (2 w) is 0 / 0, M is the Bhattacharyya
    coefficient int sqrt(p q) = e^{-e0 / 2} (1 + e0 / 2) (the integrand e^{-(|y| + |y -
    e0|) / 2} / 2 is e^{-e0 / 2} / 2 between 0 and e0)."""
    loss = LaplaceShift(F(1), 100)
    with flint.ctx.workprec(128):
        half = arb(1) / 2
        assert abs(loss.one_step(acb(-half)) - 3 * half * (-half).exp()) < arb(10) ** -30
    found, nodes = delta_enclosure(loss, F(1), 20)
    assert nodes.plan.c < 0 and found.narrow(20)
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1), 100, mp.e, eps=F(1))
        lo, hi = ends(found)
        assert lo <= value + bound and value - bound <= hi


def test_the_two_strips_agree_on_the_maximum_over_orders(monkeypatch):
    """WOR substitution, sigma 1, a batch of 10 of 1000, 10^4 steps: delta(1) = 0.9727
    over the T + 1 orders, from the inner strip and from Re z > 0 (other nodes, other
    aliasing bounds), both to 20 digits and overlapping."""
    wor = build(gaussian(1, 1), "wor", "substitution", n=1000, batch=10)
    way = api.route(wor, steps=10 ** 4)
    loss = loss_of(way.target, way.steps)
    inner, nodes = delta_enclosure(loss, F(1), 20)
    assert nodes.plan.c < 0
    monkeypatch.setattr(inversion, "_inner", lambda loss, eps: False)
    outer, nodes = delta_enclosure(loss, F(1), 20)
    assert nodes.plan.c > 0
    with mp.workdps(60):
        (a, b), (c, d) = ends(inner), ends(outer)
        assert inner.narrow(20) and outer.narrow(20)
        assert a <= d and c <= b
