"""The Gauss-Legendre rule with an error bound for every t up to t_max
(``refacct.engines.transform.legendre``), and the subsampled Laplace's cells through it.

Oracles: int_0^1 e^{-y} e^{ity} dy = (1 - e^{-1 + it}) / (1 - it) in closed form; the
subsampled Laplace's cell integrals by Arb's rigorous adaptive integration (a second
method: no shared nodes); the lattice engine's proven bracket."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

import refacct
from refacct.engines.arb import acb, arb, flint
from refacct.engines.transform.laplace import SubsampledLaplace
from refacct.engines.transform.legendre import LegendreCell
from refacct.mechanisms import build, laplace


def exponential_cell(strip="10"):
    """g = e^{-y}, u = y on [0, 1]: entire, so any strip holds."""
    return LegendreCell(lambda y: (-y, y), arb(0), arb(1), arb(strip))


def closed_form(t: int) -> "acb":
    it = acb(0, t)
    return (1 - (it - 1).exp()) / (1 - it)


@pytest.mark.parametrize("t", [0, 3, 100, 2000])
def test_the_rule_holds_the_closed_form_to_the_working_precision(t):
    with flint.ctx.workprec(160):
        cell = exponential_cell()
        value, truth = cell.at(arb(t)), closed_form(t)
        assert value.contains(truth) and value.conjugate().contains(cell.at(arb(-t)))
        assert abs(value - truth).upper() < arb(10) ** -40


def test_a_row_holds_the_closed_form_at_every_node():
    with flint.ctx.workprec(160):
        values = exponential_cell().row(arb("0.75"), 10, 400)
        for n, value in zip(range(10, 400), values):
            assert value.contains(closed_form(arb("0.75") * n))
            assert value.rad() < arb(10) ** -40


def test_beyond_the_largest_rule_the_ball_widens_and_holds():
    """t = 20 000 would need about 5000 points on [0, 1]: the largest rule's ball holds the
    truth, wide."""
    with flint.ctx.workprec(160):
        value = exponential_cell().at(arb(20000))
        assert value.contains(closed_form(20000)) and value.rad() > arb(10) ** -10


def test_too_few_points_are_caught_by_the_bound():
    """16 points at t = 1000 (the phase turns 160 times) miss by far more than 1e-10; the
    ball says so and still holds the truth."""
    with flint.ctx.workprec(160):
        cell = exponential_cell()
        weights, phases = cell.nodes(16)
        raw = sum((g * (acb(0, 1000) * u).exp() for g, u in zip(weights, phases)), acb(0))
        truth = closed_form(1000)
        assert abs(raw - truth).lower() > arb(10) ** -10
        assert cell.at(arb(1000), n=16).contains(truth)


def test_a_strip_too_narrow_for_any_ellipse_gives_an_infinite_ball():
    with flint.ctx.workprec(160):
        value = exponential_cell(strip="1e-6").at(arb(5))
        assert not value.real.is_finite() or value.real.rad() > 1


@pytest.mark.parametrize("scale, weights, against", [
    (F(1), (F(99, 100), F(1, 100)), (F(1),)),                      # Poisson remove
    (F(1, 2), (F(1),), (F(9, 10), F(1, 10))),                      # Poisson add, two pieces
    (F(1), (F(0), F(9, 10), F(1, 10)), (F(1, 10), F(9, 10))),      # substitution, two cells
])
@pytest.mark.parametrize("c, t", [("20", 3000), ("1/2", 16000), ("-1/2", 50)])
def test_subsampled_laplace_cells_match_arbs_integral(scale, weights, against, c, t):
    loss = SubsampledLaplace(scale, weights, 1, against=against)
    with flint.ctx.workprec(140):
        z = acb(arb(F(c).numerator) / F(c).denominator, t)
        rules = loss.one_step(z)
        integral = acb(0)
        for mass, log_r in loss._atoms():
            integral += mass * ((1 + z) * log_r).exp()
        for k in range(loss.top):
            integral += loss._piece(k, z)
        assert rules.overlaps(integral)
        assert rules.rad() < arb(10) ** -30


def test_poisson_laplace_at_100_steps_lies_inside_the_lattice_bracket():
    """Scale 1, q 1/100, add-remove, 100 steps (one draw of the record in expectation, 25
    steps off the loss's atoms): auto takes the transform, 20 digits (17 where the atoms'
    share of M floored the truncation bound, before that part was subtracted)."""
    entry = build(laplace(1), "poisson", "add-remove", q="1/100")
    found = refacct.delta(entry, "1/10", steps=100)
    bracket = refacct.delta(entry, "1/10", steps=100, method="bracket")
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper
