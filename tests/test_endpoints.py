"""The part of a subsampled Laplace loss's transform that does not decay, subtracted and
inverted in closed form (``refacct.engines.transform.endpoints``).

Oracles: one step's M(z) by Arb's rigorous integration of the cell (a second method, no
expansion), whose distance from the expansion must lie within the proven remainder; M_T
from the cells' Gauss-Legendre rules against the decay bound of M_T - P; the plain
transform (no subtraction) and the lattice engine's proven bracket, which must hold every
enclosure."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

import refacct
from refacct.engines.arb import acb, arb, flint, to_arb
from refacct.engines.transform import inversion
from refacct.engines.transform.endpoints import Expansion
from refacct.engines.transform.laplace import SubsampledLaplace
from refacct.engines.transform.mgf import Product
from refacct import Laplace, Mixture, Pair
from refacct.errors import OutOfReach
from refacct.mechanisms import build, laplace

Q = F(1, 100)
REMOVE = ([1 - Q, Q], [1, 0])
ADD = ([1, 0], [1 - Q, Q])


def expanded(expansion: Expansion, z: "acb") -> "acb":
    """sum_j (A_j e^{z u_lo} + B_j e^{z u_hi}) X^j, X = 1 / (z + 1)."""
    (_, u_lo), (_, u_hi) = expansion._ends()
    low, high = expansion._one_step()
    x, total = 1 / (z + 1), acb(0)
    for j, (a, b) in enumerate(zip(low, high)):
        total += (a * (z * u_lo).exp() + b * (z * u_hi).exp()) * x ** j
    return total


def by_integration(loss: SubsampledLaplace, z: "acb") -> "acb":
    """M(z): the atoms and the cell by Arb's adaptive integral."""
    total = loss._piece(0, z)
    for mass, log_r in loss._atoms():
        total += mass * ((1 + z) * log_r).exp()
    return total


@pytest.mark.parametrize("weights, against", [REMOVE, ADD])
@pytest.mark.parametrize("s", [2000, 10000])
def test_one_step_lies_within_the_remainder_of_its_expansion(weights, against, s):
    """|M(z) - expansion| <= R X^m at z = 5 + is, and at s = 10^4 the expansion holds M to
    within 1e-10 of it (scale 1, q 1/100, both directions)."""
    loss = SubsampledLaplace(F(1), weights, 100, against)
    expansion = Expansion(loss)
    with flint.ctx.workprec(200):
        c = arb(5)
        z = acb(c, s)
        gap = abs(by_integration(loss, z) - expanded(expansion, z))
        bound = expansion.remainder(c) / abs(z + 1) ** expansion.order
        assert gap.upper() <= bound
        if s == 10000:
            assert gap.upper() < abs(by_integration(loss, z)) * arb(10) ** -10


def test_a_wrong_coefficient_is_caught_by_the_remainder():
    """The same comparison with the density's jump at the low end off by a millionth
    fails at s = 10^4: the remainder bound is tight enough to see it."""
    loss = SubsampledLaplace(F(1), REMOVE[0], 100, REMOVE[1])

    class Wrong(Expansion):
        def _one_step(self):
            low, high = super()._one_step()
            return [low[:1] + [low[1] * (1 + arb(10) ** -6)] + low[2:], high]
    with flint.ctx.workprec(200):
        c, z = arb(5), acb(5, 10000)
        gap = abs(by_integration(loss, z) - expanded(Wrong(loss), z))
        right = Expansion(loss)
        assert gap.lower() > right.remainder(c) / abs(z + 1) ** right.order


@pytest.mark.parametrize("t", [20000, 60000])
def test_the_decay_bound_lies_above_the_difference(t):
    """|M_T - P|(c + it) <= the decay bound at t, M_T from the cells' rules, 100 steps, at
    the contour of delta(33/100) (c about 37.8); and it lies far below the atoms' part W^T
    (the floor of the plain bound, ``SubsampledLaplace._far``)."""
    loss = SubsampledLaplace(F(1), REMOVE[0], 100, REMOVE[1])
    expansion = Expansion(loss)
    with flint.ctx.workprec(200):
        c, s = to_arb(F(378, 10)), arb(t)
        m_t = loss.one_step(acb(c, s)) ** 100
        p = expansion.values(c, s, 2)[1]
        bound = expansion.decay(c, s)
        assert abs(m_t - p).upper() <= bound
        assert bound < loss._far(c)[0] ** 100 * arb(10) ** -8


def test_the_subtracted_sum_meets_the_plain_transform_and_the_bracket():
    """delta(33/100) of scale 1, q 1/100, remove, 100 steps: with the subtraction the 20
    digits asked (the plain sum: 17), inside the plain enclosure and the lattice bracket."""
    loss = Product([SubsampledLaplace(F(1), REMOVE[0], 100, REMOVE[1])])
    found, grid = inversion.delta_enclosure(loss, F(33, 100), 20)
    assert grid.trapezoid == loss.expansion.trapezoid
    assert found.narrow(20)
    lo, hi = found.ends()
    plain = Product([SubsampledLaplace(F(1), REMOVE[0], 100, REMOVE[1])])
    plain.expansion = None
    other_lo, other_hi = inversion.delta_enclosure(plain, F(33, 100), 20)[0].ends()
    assert other_lo <= lo and hi <= other_hi
    pair = Pair(Mixture([(1 - Q, Laplace(0, 1)), (Q, Laplace(1, 1))]), Laplace(0, 1))
    bracket = refacct.delta(pair ** 100, F(33, 100), method="bracket")
    with flint.ctx.workprec(128):
        assert to_arb(bracket.lower) <= lo and hi <= to_arb(bracket.upper)


def test_where_m_t_alone_does_not_reach_the_difference_steers():
    """The add direction at 100 steps of scale 1: steered by M_T the range passes the node
    budget (the atoms' floor); steered by M_T - P it is reached, at least 23 digits,
    inside the lattice bracket."""
    loss = Product([SubsampledLaplace(F(1), ADD[0], 100, ADD[1])])
    plain = Product([SubsampledLaplace(F(1), ADD[0], 100, ADD[1])])
    plain.expansion = None
    with pytest.raises(OutOfReach):
        inversion.delta_enclosure(plain, F(33, 100), 20)
    found = inversion.delta_enclosure(loss, F(33, 100), 20)[0]
    assert found.narrow(23)
    lo, hi = found.ends()
    pair = Pair(Laplace(0, 1), Mixture([(1 - Q, Laplace(0, 1)), (Q, Laplace(1, 1))]))
    bracket = refacct.delta(pair ** 100, F(33, 100), method="bracket")
    with flint.ctx.workprec(128):
        assert to_arb(bracket.lower) <= lo and hi <= to_arb(bracket.upper)


def test_deep_in_the_tail_the_difference_gives_digits():
    """eps(1e-60) of scale 1, q 1/100, add-remove, 100 steps: a 2-digit bracket when M_T
    steered alone, 20 digits now, inside the lattice bracket."""
    entry = build(laplace(1), "poisson", "add-remove", q="1/100")
    found = refacct.epsilon(entry, "1e-60", steps=100)
    bracket = refacct.epsilon(entry, "1e-60", steps=100, method="bracket")
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


@pytest.mark.slow
def test_a_range_steered_by_m_t_is_refined_past_its_budget_where_the_subtraction_is_at_hand():
    """eps(1e-30) of scale 1/2, q 1/100, add-remove, 100 steps: M_T steers the range to
    about 10^4 nodes, whose enclosure had 19 digits and could not be refined past the
    budget of a loss without the subtraction; refined, 20, inside the lattice bracket."""
    entry = build(laplace(F(1, 2)), "poisson", "add-remove", q="1/100")
    found = refacct.epsilon(entry, "1e-30", steps=100)
    bracket = refacct.epsilon(entry, "1e-30", steps=100, method="bracket")
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


@pytest.mark.heavy   # 110 s
def test_eps_1e_100_of_scale_one_half_is_steered_by_the_subtracted_bound():
    """eps(1e-100) of scale 1/2, q 1/100, add-remove, 100 steps: the atom at the loss's
    supremum weighs about 1e-114, so delta is carried by the steps just off it and the
    subtracted range is long (about 1.4e5 nodes, where the budget was 8192: a 3-digit
    bracket); 20 digits, inside the lattice bracket."""
    entry = build(laplace(F(1, 2)), "poisson", "add-remove", q="1/100")
    found = refacct.epsilon(entry, "1e-100", steps=100)
    bracket = refacct.epsilon(entry, "1e-100", steps=100, method="bracket")
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


def test_scale_4_gets_its_digits():
    """Scale 4, q 1/100, add-remove, 100 steps (10 steps off the atoms): 6-7 digits when
    the atoms floored the truncation bound, 20 now, inside the lattice bracket."""
    entry = build(laplace(4), "poisson", "add-remove", q="1/100")
    found = refacct.delta(entry, "1/5", steps=100)
    bracket = refacct.delta(entry, "1/5", steps=100, method="bracket")
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


def test_a_subtracted_range_whose_last_node_is_not_resolved_is_refused():
    """Poisson b 1/2, q 1/20, remove, 100 steps, eps(1e-100), about 0.36 below the loss's
    supremum 100 ln(1 + q (e^2 - 1)) = 27.72: the subtracted bound steers the range to 2e5
    nodes, where the cells' rules no longer bound M_T (ln |M_T| about 3.5e5 at the last
    node, against ln M_T(c) about 580: |M_T(c + it)| <= M_T(c) for every t).  Refused
    before the grid (it took 120 s and gave [0, 27.72]), so auto's bracket answers."""
    entry = build(laplace(F(1, 2)), "poisson", "remove", q="1/20")
    with pytest.raises(OutOfReach, match="not resolved"):
        refacct.epsilon(entry, "1e-100", steps=100, method="transform")
