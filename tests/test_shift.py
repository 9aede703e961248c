"""Products of Gaussian shift pairs in closed form (refacct.engines.quadrature.shift): against the
Balle-Wang closed form written independently in conftest (002 Sec. 3, Prop. 3.1), with
mu^2 summed by hand, and against the nested quadrature engine (a second method)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

from conftest import balle_wang, mpq
from refacct import Gaussian, Pair, delta, epsilon, hockey_stick, routing
from refacct.engines.quadrature import composed

SHIFT = Pair(Gaussian(1, 1), Gaussian(0, 1))


@pytest.mark.parametrize("k", [2, 3, 10, 1000])
@pytest.mark.parametrize("eps", ["-1", "0", "1", "5/2"])
def test_k_steps_are_one_shift_of_mu_root_k(k, eps):
    """N(1,1)^k vs N(0,1)^k: delta(eps) = Balle-Wang at m = sqrt(k), to the bound."""
    r = delta(SHIFT ** k, eps, digits=25)
    with mp.workdps(60):
        truth = balle_wang(mpq(eps), mp.sqrt(k))
        assert abs(r.value - truth) <= r.abs_error
        assert r.abs_error <= abs(truth) * mp.mpf(10) ** -25
    assert "one Gaussian shift" in r.method


def test_different_shifts_and_scales_add_in_mu_squared():
    """N(0,1) vs N(1,1) (mu = 1, the loss's law does not depend on the sign), twice
    N(2, 1/4) vs N(0, 1/4) (mu = 8 each): mu^2 = 1 + 2 * 64 = 129."""
    pair = Pair(Gaussian(0, 1), Gaussian(1, 1)) * Pair(Gaussian(2, "1/4"), Gaussian(0, "1/4")) ** 2
    for eps in ["1", "40", "80"]:
        r = delta(pair, eps, digits=20)
        with mp.workdps(80):
            truth = balle_wang(mpq(eps), mp.sqrt(129))
            assert abs(r.value - truth) <= r.abs_error <= truth * mp.mpf(10) ** -20


def test_tiny_delta_keeps_its_relative_accuracy():
    """k = 2, eps = 60: delta ~ 1e-400, where Phi(mu/2 - ln(alpha)/mu) and alpha Phi(...)
    cancel to about 2 digits; the result keeps 20 digits relative."""
    r = delta(SHIFT ** 2, 60, digits=20)
    with mp.workdps(120):
        truth = balle_wang(mp.mpf(60), mp.sqrt(2))
        assert truth < mp.mpf(10) ** -350
        assert abs(r.value - truth) <= r.abs_error <= truth * mp.mpf(10) ** -20


def test_closed_form_agrees_with_nested_quadrature():
    """Second method: the nested quadrature engine on the same k = 2 product (each shift
    with its own sigma), at 30 digits, H_alpha for alpha = 1/2, 1, 3."""
    pairs = [Pair(Gaussian(1, 1), Gaussian(0, 1)), Pair(Gaussian(0, "1/2"), Gaussian("1/3", "1/2"))]
    pair = pairs[0] * pairs[1]
    for alpha in [Fraction(1, 2), Fraction(1), Fraction(3)]:
        closed = hockey_stick(pair, alpha=alpha, digits=25)
        with mp.workdps(35):
            quad, known = composed.hockey_composed(pairs, mpq(alpha), alpha, 1)
            assert abs(closed.value - quad) <= closed.abs_error + known + mp.mpf(10) ** -28


def test_epsilon_of_three_steps():
    """eps(delta) of N(1,1)^3: Balle-Wang at m = sqrt 3 recomputes delta at the returned
    eps within its slope times the eps bound."""
    e = epsilon(SHIFT ** 3, "1e-6", digits=20)
    with mp.workdps(50):
        m = mp.sqrt(3)
        slope = mp.exp(e.value) * mp.erfc((e.value / m + m / 2) / mp.sqrt(2)) / 2
        assert abs(balle_wang(e.value, m) - mp.mpf("1e-6")) <= 2 * slope * e.abs_error + \
            mp.mpf(10) ** -30


def test_routing_keeps_shift_products_on_the_closed_form():
    """Gaussian shift products are not sent to the brackets, up to 10^5 steps; a product
    with a pair of two sigmas (not a shift) is, beyond 3 factors."""
    assert not routing.route_pair(SHIFT ** 100000).bracket
    mixed = Pair(Gaussian(0, 1), Gaussian(1, 1)) * Pair(Gaussian(0, 1), Gaussian(0, 2))
    assert not routing.route_pair(mixed).bracket
    assert routing.route_pair(mixed ** 2).bracket
