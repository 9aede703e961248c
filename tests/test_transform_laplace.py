"""The transform engine on Laplace shifts (``refacct.engines.transform.laplace``): the moment
generating function of the loss in closed form, its decay bound, and proven delta(eps),
eps(delta) at many steps.

Oracles: M(0) = E_P[1] = 1 and M(-1) = E_Q[1] = 1; M at complex z by quadrature of the
pair's densities, split at their kinks (a second method); the T-fold law of the loss
convolved exactly (``engines.quadrature.laplace_shift``: B-splines and atoms, no transform);
a heterogeneous composition by the lattice engine's proven bracket."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from refacct import Gaussian, Laplace, Pair
from refacct.engines.arb import acb, arb, flint, to_arb
from refacct.engines.quadrature.laplace_shift import hockey_laplace
from refacct.engines.transform.laplace import LaplaceShift
from refacct.errors import OutOfReach


def by_quadrature(loc: F, scale: F, z) -> mp.mpc:
    """E_Q[(p / q)^{1 + z}] for P = Lap(loc, scale), Q = Lap(0, scale), loc > 0."""
    b, a = mp.mpf(scale.numerator) / scale.denominator, mp.mpf(loc.numerator) / loc.denominator

    def f(y):
        q = mp.exp(-abs(y) / b) / (2 * b)
        return q * mp.exp((1 + z) * (abs(y) - abs(y - a)) / b)
    return mp.quad(f, [-mp.inf, 0, a, mp.inf])


def at(loss: LaplaceShift, z) -> mp.mpc:
    with flint.ctx.workprec(200):
        m = loss.one_step(acb(to_arb(F(str(z.real))), to_arb(F(str(z.imag)))))
        return mp.mpc(m.real.mid().str(40, radius=False), m.imag.mid().str(40, radius=False))


def test_mgf_is_one_at_zero_and_minus_one():
    loss = LaplaceShift(F(1, 2), 1)
    with flint.ctx.workprec(200):
        for z in (0, -1):
            m = loss.one_step(acb(z))
            assert abs(m - 1) < arb(10) ** -50


@pytest.mark.parametrize("z", [mp.mpc("0.7", "3"), mp.mpc("2", "10"), mp.mpc("0.05", "0.5")])
def test_mgf_matches_quadrature_of_the_densities(z):
    with mp.workdps(30):
        assert abs(at(LaplaceShift(F(1, 2), 1), z) - by_quadrature(F(1), F(2), z)) < 1e-20


def test_decay_bound_lies_above_the_modulus_beyond_it():
    loss = LaplaceShift(F(3, 2), 7)
    with flint.ctx.workprec(128):
        c, t = to_arb(F(3, 10)), to_arb(F(4))
        bound = loss.decay(c, t)
        for s in (4, 5, F(13, 2), 10, 37, 1000):
            assert abs(loss.one_step(acb(c, to_arb(F(s)))) ** 7) < bound


@pytest.mark.parametrize("eps", [150, 250])
def test_delta_at_300_steps_meets_the_exact_convolution(eps):
    """Lap(1, 1) vs Lap(0, 1), T = 300: 20 proven digits whose interval meets the ball
    of the closed form of the 300-fold law."""
    found = refacct.delta(Pair(Laplace(1, 1), Laplace(0, 1)) ** 300, eps, method="transform")
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1), 300, mp.exp(eps), eps=F(eps))
        assert found.proven and found.verified_digits >= 20
        assert found.lower <= value + bound and value - bound <= found.upper


def test_epsilon_at_300_steps_brackets_the_exact_convolution():
    found = refacct.epsilon(Pair(Laplace(1, 2), Laplace(0, 2)) ** 400, "1e-5",
                            method="transform")
    with mp.workdps(40):
        below = hockey_laplace(F(1, 2), 400, mp.exp(found.lower), eps=None)
        above = hockey_laplace(F(1, 2), 400, mp.exp(found.upper), eps=None)
        assert found.verified_digits >= 20
        assert below[0] - below[1] > mp.mpf("1e-5") >= above[0] + above[1]


def test_auto_takes_the_transform_off_the_atoms_and_falls_back_in_their_tail():
    """1000 steps of e0 = 1 (250 steps off the atoms): the transform; 300 steps at eps =
    280, where the top atom dominates: the transform's decay bound cannot reach the
    tolerance, so auto answers by the closed form and the transform method refuses."""
    pair = Pair(Laplace(1, 1), Laplace(0, 1))
    many = refacct.epsilon(pair ** 1000, "1e-10")
    assert many.engine == "transform" and many.verified_digits >= 20
    tail = refacct.delta(pair ** 300, 280)
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1), 300, mp.exp(280), eps=F(280))
        assert tail.engine != "transform" and tail.lower <= value + bound
        assert value - bound <= tail.upper
    with pytest.raises(OutOfReach, match="quadrature"):
        refacct.delta(pair ** 300, 280, method="transform")


def test_few_steps_off_the_atoms_stay_with_the_closed_form():
    """e0 = 1/10, 300 steps: about 14 steps off the atoms, the loss nearly a lattice."""
    route = refacct.api.route(Pair(Laplace(1, 10), Laplace(0, 10)) ** 300)
    assert route.engine.name != "transform"


@pytest.mark.slow
def test_mixed_laplace_and_gaussian_lie_inside_the_lattice_bracket():
    """Two Laplace ratios, one in the other direction, and Gaussian shifts (the bracket
    takes 35 s)."""
    mixed = Pair(Laplace(1, 1), Laplace(0, 1)) ** 120 * Pair(Laplace(0, 2), Laplace(1, 2)) ** 60 \
        * Pair(Gaussian(1, 10), Gaussian(0, 10)) ** 100
    found = refacct.delta(mixed, 60, method="transform")
    bracket = refacct.delta(mixed, 60, method="bracket", width="1e-2")
    assert found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper
