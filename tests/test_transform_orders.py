"""The maximum over the orders of two directions (``engines.transform.orders``): sampling
without replacement under substitution, each of T steps either way (001 Sec. 7), its T + 1
terms on one grid of the transform.

Oracles: a closed form for the search over j (a difference of two exponentials in j, whose
maximum is interior); the proven brackets of all eight terms at T = 7 (an independent
method); the symmetry delta_j(0) = delta_{T - j}(0) (total variation is symmetric, and term
T - j is term j swapped); the transform of the all-one-direction term alone (a composition,
no maximum) where that term attains."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from refacct import api
from refacct.engines.arb import acb, arb, arb_ends, flint
from refacct.engines.transform.contour import Powers
from refacct.engines.transform.orders import _Search
from refacct.errors import InputError
from refacct.mechanisms import build, gaussian
from refacct.mechanisms.relations import MixedOrders


def entry(sigma, n, batch):
    return build(gaussian(sigma, 1), "wor", "substitution", n=n, batch=batch)


@pytest.mark.parametrize("every", [False, True])
@pytest.mark.parametrize("steps", [100, 1000])
def test_the_search_over_j_holds_an_interior_maximum(steps, every):
    """Two nodes with w = 1, -1 and d = -1/100, -1/50: S(j) = e^{-j/100} - e^{-j/50}, whose
    maximum over the integers is at j = 69 (the real one at 100 ln 2), by the branch and
    bound and by every value."""
    with flint.ctx.workprec(128):
        nodes = [(acb(1), acb(arb(-1) / 100), None), (acb(-1), acb(arb(-1) / 50), None)]
        nodes = [(w, d, abs(w) * abs(d) ** 2) for w, d, _ in nodes]
        powers = Powers([d for _, d, _ in nodes], 0, steps + 1) if every else None
        ball, runs = _Search(nodes, steps, powers).run()
        lo, hi = arb_ends(ball)
    with mp.workdps(40):
        best = max(mp.exp(-mp.mpf(j) / 100) - mp.exp(-mp.mpf(j) / 50) for j in range(steps + 1))
        assert lo <= best <= hi and hi - lo < mp.mpf(10) ** -30
    assert runs == [(69, 69)]


@pytest.mark.slow
def test_seven_steps_lie_inside_the_brackets_of_every_term():
    """sigma 2, a batch of 1 of 2: the transform's maximum over the orders against the
    maximum of the eight terms' proven brackets at eps = 0, where the two one-direction
    terms tie (total variation is symmetric) and both are found to attain it."""
    wor = entry(2, 2, 1)
    found = refacct.delta(wor, 0, steps=7, method="transform", digits=10)
    bracket = refacct.delta(wor, 0, steps=7, method="bracket", width="1e-3")
    assert found.proven and found.verified_digits >= 10 and found.bound == "lower"
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper
    assert found.attained_by == ("j=0, j=7",) and bracket.attained_by == ("j=0", "j=7")


def test_many_steps_go_to_the_transform_without_building_the_terms():
    """From 100 steps (one expected use) auto routes the orders to the transform, given
    the one-step pair and T, and below one use from a spread T e^{-4} of 1/2 (sigma 1 is
    1/2 on the substitution lattice): 50 steps (0.92); fewer steps past the brackets'
    seven are refused by name (25 steps: 0.46)."""
    wor = entry(1, 100, 1)
    for steps in (10 ** 5, 50):
        way = api.route(wor, steps=steps)
        assert way.engine.name == "transform" and way.steps == steps
        assert isinstance(way.target, MixedOrders) and way.target.bound == "lower"
    with pytest.raises(InputError, match="transform"):
        api.route(wor, steps=25)


@pytest.mark.parametrize("kind, query", [("delta", F(1)), ("epsilon", F(1, 10 ** 5))])
def test_the_one_direction_term_attains_and_matches_its_composition(kind, query):
    """sigma 1, a batch of 1 of 100, 1000 steps: the maximum is attained by j = T alone
    (every step A || B), and the composition (A, B)^T by the transform alone (a product of
    one subsampled loss, no orders) lies inside it."""
    wor = entry(1, 100, 1)
    ask = getattr(refacct, kind)
    found = ask(wor, query, steps=1000)
    assert found.attained_by == ("j=1000",) and found.verified_digits >= 20
    pair = MixedOrders.of(wor, wor.rebuild(2)).pair
    alone = ask(pair, query, steps=1000, method="transform")
    assert found.lower <= alone.value <= found.upper
