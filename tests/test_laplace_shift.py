"""Self-compositions of the Laplace mechanism in closed form
(``refacct.engines.quadrature.laplace_shift``).

Oracles: the one-step closed form 1 - e^{(eps - e0) / 2} (below); the two-step values that
the nested Gauss-Legendre quadrature stored in the conformance suite (20 digits); the
Arb enclosures of the certified engine at k = 2; the two terms that reach the top of the
support, integrated by mpmath's quadrature; the lattice engine's proven brackets at T = 10
and 100 (mass on a lattice, no convolution formula)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from conftest import mpq
from refacct import Laplace, Pair
from refacct import routing
from refacct.engines.quadrature.laplace_shift import hockey_laplace, laplace_shift
from refacct.mechanisms import build, laplace


def closed(e0: F, steps: int, eps: F):
    value, bound = hockey_laplace(e0, steps, None, eps=eps)
    return value, bound


@pytest.mark.parametrize("e0, eps", [(F(1), F(1, 2)), (F(1, 2), F(0)), (F(3), F(29, 10))])
def test_one_step_is_the_laplace_closed_form(e0, eps):
    """P-law of the loss: atom e0 (1/2), density e^{(x - e0) / 2} / 4 on (-e0, e0); so
    P(L > eps) = 1 - e^{(eps - e0) / 2} / 2, Q(L > eps) = e^{-(eps + e0) / 2} / 2 and
    delta(eps) = 1 - e^{(eps - e0) / 2} on [0, e0]."""
    with mp.workdps(40):
        value, bound = closed(e0, 1, eps)
        truth = 1 - mp.exp((mpq(eps) - mpq(e0)) / 2)
        assert abs(value - truth) <= bound + truth * mp.mpf(10) ** -35


@pytest.mark.parametrize("pair, eps, stored", [
    # conformance: laplace-none-add-remove-b2-T2, -b1_2-T2 and laplace-none-substitution-b1-T2
    (Pair(Laplace(1, 2), Laplace(0, 2)), F(1, 10), "0.2189055142633277159"),
    (Pair(Laplace(1, F(1, 2)), Laplace(0, F(1, 2))), F(2), "0.44818083824283651761"),
    (Pair(Laplace(1, 1), Laplace(-1, 1)), F(1), "0.60952221974024779937"),
])
def test_two_steps_match_the_nested_quadrature(pair, eps, stored):
    """Two steps, through the door (which now takes the closed form), against the nested
    quadrature's 20 digits stored before it existed."""
    found = refacct.delta(pair, eps, steps=2)
    assert "Laplace mechanism's privacy-loss distribution" in found.method
    with mp.workdps(40):
        assert abs(found.value - mp.mpf(stored)) <= found.abs_error + mp.mpf(10) ** -19


def test_two_steps_lie_in_the_certified_enclosure():
    pair = Pair(Laplace(1, 3), Laplace(0, 3))
    certified = refacct.delta(pair, "1/5", steps=2, method="certified")
    with mp.workdps(40):
        value, bound = closed(F(1, 3), 2, F(1, 5))
        assert certified.lower <= value - bound and value + bound <= certified.upper


def test_the_top_of_the_support():
    """T = 10 steps of e0 = 1/5: L_T <= 2, so delta(2) = 0 exactly.  Just below, at
    eps = 2 - eta, all ten steps on the atom e0 (mass 2^-10) give 2^-10 (1 - e^-eta); a
    term with k >= 1 steps on the continuous part reaches above eps only where those k
    losses sum within eta of their top, where the integrand is below eta: O(eta^2),
    below T 2^-10 eta^2 in all."""
    assert closed(F(1, 5), 10, F(2)) == (0, 0)
    eta = F(1, 10 ** 15)
    with mp.workdps(40):
        value, bound = closed(F(1, 5), 10, 2 - eta)
        atoms = mp.mpf(2) ** -10 * -mp.expm1(-mpq(eta))
        assert abs(value - atoms) <= bound + 10 * mp.mpf(2) ** -10 * mpq(eta) ** 2


@pytest.mark.parametrize("b, steps, eps", [(5, 10, F(1, 10)), (10, 10, F(1, 2)),
                                           (40, 100, F(1)), (10, 100, F(99, 10))])
def test_many_steps_lie_inside_the_lattice_bracket(b, steps, eps):
    """The conformance suite's many-step Laplace queries: the closed form's 20 digits
    inside the lattice engine's proven bracket (delta(9.9) at b 10, T 100 ~ 5e-31, near
    the top of the support, 10)."""
    pair = Pair(Laplace(1, b), Laplace(0, b))
    bracket = refacct.delta(pair, eps, steps=steps, method="bracket", width="1e-3")
    with mp.workdps(40):
        value, bound = closed(F(1, b), steps, eps)
        assert bound <= value * mp.mpf(10) ** -20
        assert bracket.lower <= value - bound and value + bound <= bracket.upper


@pytest.mark.parametrize("steps, eps", [
    (3000, F(2)),      # about 15 steps off the atoms: the transform has 8 proven digits
    (3000, F(11)),     # delta ~ 1e-100: the terms deep in the binomial tail of the atoms
    pytest.param(10 ** 4, F(2), marks=pytest.mark.slow),   # 50 off the atoms: 20 digits
    pytest.param(10 ** 4, F(12), marks=pytest.mark.slow),
])
def test_many_steps_lie_in_the_transforms_enclosure(steps, eps):
    """b = 100: the closed form (k steps on the continuous part walked up to its binomial
    tail, i along the atoms from the mode or the first term above eps) against the
    transform's proven enclosure, an independent method (the inverse Laplace transform of
    M(z)^T on a line, its aliasing and truncation bounded)."""
    pair = Pair(Laplace(1, 100), Laplace(0, 100))
    transform = refacct.delta(pair, eps, steps=steps, method="transform")
    with mp.workdps(40):
        value, bound = closed(F(1, 100), steps, eps)
        assert bound <= value * mp.mpf(10) ** -25
        assert transform.lower <= value + bound and value - bound <= transform.upper


@pytest.mark.parametrize("alpha", [F(1, 3), F(5, 2)])
def test_a_rational_alpha_lies_in_the_transforms_enclosure(alpha):
    """H_alpha at a rational alpha (eps = ln alpha a ball, below 0 at 1/3: the first term
    reaching above it then lies below the binomial mode), 3000 steps of b = 100, against
    the transform's proven enclosure."""
    pair = Pair(Laplace(1, 100), Laplace(0, 100))
    transform = refacct.hockey_stick(pair, alpha=alpha, steps=3000, method="transform")
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1, 100), 3000, mpq(alpha), alpha_exact=alpha)
        assert bound <= value * mp.mpf(10) ** -25
        assert transform.lower <= value + bound and value - bound <= transform.upper


def test_the_two_directions_are_computed_once():
    """Lap(0, b) || Lap(1, b) and Lap(1, b) || Lap(0, b) have one privacy-loss law (the
    reflection y -> 1 - y swaps them): the add-remove entry's two terms share one answer,
    which equals the reversed pair's own (a symmetry identity, by the closed form)."""
    found = refacct.delta(build(laplace("100"), "none", "add-remove"), "1/2", steps=500)
    (_, add), (_, remove) = found.terms
    assert add is remove
    with mp.workdps(40):
        value, bound = closed(F(1, 100), 500, F(1, 2))
        assert abs(found.value - value) <= found.abs_error + bound


def test_only_one_laplace_ratio_is_a_closed_form():
    same = [(Pair(Laplace(1, 2), Laplace(0, 2)), 3), (Pair(Laplace(0, 4), Laplace(2, 4)), 2)]
    assert laplace_shift(same) == (F(1, 2), 5)
    assert laplace_shift(same + [(Pair(Laplace(1, 3), Laplace(0, 3)), 1)]) is None


def test_routing_takes_the_closed_form_up_to_its_limit():
    """A Laplace entry without sampling: the standard engines (the closed form) up to
    ``LAPLACE_MAX_STEPS`` compositions; beyond, the transform (the bracket its fallback)
    from ``LAPLACE_BEYOND_OFF_ATOMS`` steps off the atoms in expectation (T e0 / (2 (1 +
    e0)): 5 at b 1000, 0.05 at b 10^5), else a proven bracket."""
    def make(scale):
        return lambda T: build(laplace(scale), "none", "add-remove", steps=T)
    limit = routing.LAPLACE_MAX_STEPS
    assert routing.route_entry(make("1000"), limit).engine.name == "quadrature"
    beyond = routing.route_entry(make("1000"), limit + 1)
    assert beyond.engine.name == "transform" and beyond.fallback.bracket
    assert routing.route_entry(make("100000"), limit + 1).bracket
