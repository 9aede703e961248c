"""The front door (``refacct.api``, exported as refacct.delta / epsilon / hockey_stick):
every kind of x, steps, the five methods, and the refusals, against closed forms, a paper's
exact value, a second method, and the identity "steps = T on a 1-step entry is the T-step
entry"."""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

import refacct
from refacct import Gaussian, Mixture, Pair
from refacct.mechanisms import (Dominated, build, gaussian, group_poisson, poisson_subsampled,
                                randomized_response, truncated_poisson, unsampled,
                                wor_subsampled, MechanismDelta)

from conftest import assert_verified, balle_wang

G = Pair(Gaussian(1, 1), Gaussian(0, 1))


def test_a_pair_composed_by_steps_is_balle_wang():
    """N(1,1) vs N(0,1) run 4 times is the shift mu = 2 (Balle and Wang 2018,
    arXiv:1805.06530, Thm 8); a list of eps gives a list."""
    results = refacct.delta(G, [0, 1], steps=4)
    with mp.workdps(60):
        for eps, r in zip([0, 1], results):
            assert_verified(r, balle_wang(eps, 2), 20)


def test_a_catalogue_entry_by_steps_is_the_paper_value():
    """001 App. B.1: Poisson-subsampled randomized response (p = 3/4, q = 1/2), add-remove,
    two steps, H_{4/3} = 11/48, attained by the add direction; the 1-step entry run twice."""
    entry = build(randomized_response("3/4"), "poisson", "add-remove", q="1/2")
    r = refacct.hockey_stick(entry, "4/3", steps=2)
    assert isinstance(r, MechanismDelta)
    assert r.exact == Fraction(11, 48) and r.attained_by == ("add",)


@pytest.mark.parametrize("kind, at", [("delta", "1/2"), ("epsilon", "1/1000")])
def test_steps_on_a_one_step_entry_is_the_built_entry(kind, at):
    """refacct.X(entry_1, q, steps=2) equals refacct.X(entry_2, q) (WOR substitution: its
    2-step curve mixes the orders of the steps, 001 Sec. 7, so it is rebuilt, not powered)."""
    one = build(randomized_response("3/4"), "wor", "substitution", n=10, batch=2)
    two = build(randomized_response("3/4"), "wor", "substitution", n=10, batch=2, steps=2)
    run = getattr(refacct, kind)
    assert run(one, at, steps=2, method="exact").value == run(two, at, method="exact").value


def test_bracket_and_quadrature_agree():
    """The two ways of the Poisson-subsampled Gaussian at k = 2 (q = 1/10, sigma = 1):
    the proven bracket contains the 20-digit quadrature value, and the bracket is proven."""
    entry = build(gaussian(1), "poisson", "add-remove", q="1/10")
    quad = refacct.delta(entry, 1, steps=2, method="quadrature")
    proven = refacct.delta(entry, 1, steps=2, method="bracket", width="1/1000")
    assert proven.proven and not quad.proven
    assert proven.lower <= quad.value <= proven.upper
    assert proven.upper - proven.lower <= Fraction(1, 1000) * proven.upper * 1.01
    assert quad.verified_digits >= 20


def test_auto_takes_the_transform_or_the_bracket_beyond_the_quadrature_limit():
    """auto routes the subsampled Gaussian at k = 4 (> 3 continuous compositions, 0.4 uses of
    the record) to the transform, whose 20 digits lie inside the proven bracket of k = 4
    (a lattice: the methods share nothing); at q = 1/1000 (0.004 uses) to the bracket.  One
    more step can only raise H (dropping a factor is post-processing), so each lies above
    the 20-digit quadrature value at k = 2."""
    for q, engine in (("1/10", "transform"), ("1/1000", "proven-bracket")):
        pair = Pair(Mixture([(str(1 - Fraction(q)), Gaussian(0, 1)), (q, Gaussian(1, 1))]),
                    Gaussian(0, 1))
        r = refacct.delta(pair, 1, steps=4)
        assert r.proven and r.engine == engine
        assert refacct.delta(pair, 1, steps=2).upper <= r.upper
    pair = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
    r = refacct.delta(pair, 1, steps=4)
    bracket = refacct.delta(pair, 1, steps=4, method="bracket")
    assert r.verified_digits >= 20 and bracket.lower <= r.lower <= r.upper <= bracket.upper


def test_certified_on_a_pair_and_on_an_entry():
    """method="certified" gives a proven enclosure of Balle-Wang (mu = 1) for the pair, and
    for a catalogue entry the maximum over its certified terms."""
    r = refacct.delta(G, 1, method="certified")
    with mp.workdps(60):
        truth = balle_wang(1, 1)
        assert r.proven and r.lower <= truth <= r.upper
    entry = build(gaussian(1), "none", "add-remove")
    m = refacct.delta(entry, 1, method="certified")
    assert m.proven and m.lower <= truth <= m.upper


def test_shuffled_steps_is_the_built_entry():
    one = build(gaussian(1), "shuffle", "zero-out")
    two = build(gaussian(1), "shuffle", "zero-out", steps=2)
    assert refacct.delta(one, 1, steps=2).value == refacct.delta(two, 1).value


@pytest.mark.parametrize("call, words", [
    (lambda: refacct.delta(G, 1, method="fast"), "method must be one of"),
    (lambda: refacct.delta(G, 1, method="exact"), "discrete"),
    (lambda: refacct.delta(G, 1, width="1/10"), "width"),
    (lambda: refacct.delta(G, 1, steps=0), "steps"),
    (lambda: refacct.delta(G, 1, method="bracket", width=0), "width must be > 0"),
    (lambda: refacct.delta(G, 1, steps=10, method="bracket", digits=0), "digits"),
    (lambda: refacct.hockey_stick(G, 2, method="bracket"), "H_alpha"),
    (lambda: refacct.delta(build(gaussian(1), "shuffle", "zero-out"), 1, method="bracket"),
     "shuffling has no proven-bracket path"),
    (lambda: refacct.delta(Dominated("by hand", (("add", G),), "upper", ()), 1, steps=2),
     "made by hand"),
])
def test_refusals_name_the_problem(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_not_a_pair_is_a_type_error():
    with pytest.raises(TypeError, match="expected a Pair"):
        refacct.delta("N(0,1)", 1)


RR = randomized_response("3/4")


@pytest.mark.parametrize("make, discrete", [
    (lambda s: unsampled(RR, "add-remove", steps=s), True),
    (lambda s: poisson_subsampled(RR, "1/2", "add-remove", steps=s), True),
    (lambda s: wor_subsampled(RR, 10, 3, "substitution", steps=s), True),
    (lambda s: group_poisson(gaussian(1), "1/10", 2, steps=s), False),
    (lambda s: truncated_poisson(1, 20, "1/10", 2, steps=s), False),
], ids=["unsampled", "poisson", "wor", "group", "truncated-poisson"])
def test_steps_on_an_entry_from_any_builder_is_its_own_steps(make, discrete):
    """steps = T on a 1-step entry from any builder (not only ``build``) is the builder's
    own T-step entry: the same terms, so the same exact value where the terms are discrete
    (refacct.delta(poisson_subsampled(gaussian(1), q), eps, steps=T) was refused)."""
    one, three = make(1), make(3)
    assert one.rebuild(3).terms == three.terms
    route = refacct.api.route(one, 3, method="quadrature")
    assert route.target.terms == three.terms
    if discrete:
        at = Fraction(1, 2)
        assert (refacct.delta(one, at, steps=3, method="exact").exact
                == refacct.delta(three, at, method="exact").exact)


def test_many_steps_of_a_poisson_entry_route_its_one_step_entry_to_the_brackets():
    """A DP-SGD query on an entry from ``poisson_subsampled``: T = 500 steps at q = 1/10^5
    (the record drawn 0.005 times in expectation, too few for the transform) go to a
    proven bracket of the 1-step entry (not built T times)."""
    one = poisson_subsampled(gaussian(1), "1/100000")
    route = refacct.api.route(one, 500)
    assert route.bracket and route.steps == 500 and route.target.terms == one.terms


def test_each_result_names_the_engine_that_computed_it():
    """``engine`` is data: the exact PLD for a discrete pair, the standard engines for a
    continuous one (closed forms included), and the engine each method names."""
    rr = Pair(refacct.Discrete({0: "3/4", 1: "1/4"}), refacct.Discrete({0: "1/4", 1: "3/4"}))
    assert refacct.delta(rr, 1, steps=3).engine == "exact"
    assert refacct.delta(G, 1, steps=3).engine == "quadrature"
    assert refacct.delta(G, 1, method="certified", digits=10).engine == "certified"
    assert refacct.delta(G, 1, method="bracket").engine == "proven-bracket"
    shuffled = build(gaussian(1), "shuffle", "zero-out", steps=10)
    assert refacct.delta(shuffled, 1, digits=10).engine == "shuffle-bound"
    entry = build(randomized_response("3/4"), "poisson", "add-remove", q="1/2")
    assert refacct.delta(entry, 1, steps=2).engine == "exact"
