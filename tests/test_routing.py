"""The routing rule (refacct.routing): which queries go to the proven brackets.  Pure
decisions on catalogue entries and pairs; nothing is evaluated here."""
from __future__ import annotations

from fractions import Fraction

import pytest

from refacct import (Composition, Discrete, Gaussian, Laplace, Mixture, Pair, api, certified,
                     mechanisms, routing)
from refacct.certified import CERTIFIED_FIRST, CertificationFailed
from refacct.errors import OutOfReach
from refacct.mechanisms.relations import MixedOrders
from refacct.transform import TRANSFORM


def maker(family, sampling, relation="add-remove", **options):
    """make(k): the catalogue entry for k steps, as the command line builds it."""
    own = {"gaussian": "sigma", "laplace": "scale", "rr": "p"}[family]
    base = mechanisms.base_mechanism(family, **{own: options.pop(own)})
    return lambda k: mechanisms.build(base, sampling, relation, steps=k, **options)


POISSON = maker("gaussian", "poisson", sigma=1, q="1e-3")
RR = maker("rr", "none", p="3/4")
# a discrete pair with three outcomes: its k-fold PLD has (k+1)(k+2)/2 count vectors, stored
TERNARY = Pair(Discrete({0: "1/2", 1: "1/3", 2: "1/6"}), Discrete({0: "1/6", 1: "1/3", 2: "1/2"}))


def test_the_documented_limits():
    assert (routing.QUADRATURE_MAX_STEPS, routing.EXACT_MAX_STEPS, routing.MAX_STEPS) == \
        (3, 10 ** 4, 10 ** 5)


@pytest.mark.parametrize("make, standard, bracketed", [
    (POISSON, 3, 4),                       # continuous: quadrature up to 3 steps
    (maker("gaussian", "poisson", sigma=1, q="1/1000", group=2), 3, 4),   # 0.008 uses
    (maker("gaussian", "wor", relation="add", sigma=1, n=10 ** 4, batch=1), 3, 99),
])
def test_self_compositions_bracket_the_one_step_entry(make, standard, bracketed):
    """Beyond the limit the brackets get the 1-step entry and T (the T-step entry is never
    built); at the limit the standard engines get the T-step entry."""
    low = routing.route_entry(make, standard)
    assert not low.bracket and low.steps == 1 and low.target == make(standard)
    high = routing.route_entry(make, bracketed)
    assert high.bracket and high.steps == bracketed and high.target == make(1)
    assert f"composed {bracketed} >" in high.reason


@pytest.mark.parametrize("make, below", [
    (POISSON, 999),                                               # T q = 1 at 1000
    (maker("gaussian", "poisson", sigma=1, q="1/1000", group=2), 500),  # 1 - (1 - q)^2
])
def test_many_uses_go_to_the_transform(make, below):
    """From 100 steps whose record (or group) is used in at least one step in expectation
    (T q = 1 from T = 1 / q on; a group of 2 is used with chance 1 - (1 - q)^2 = 1999 /
    10^6 at q = 1/1000, once in 501 steps) the many-step rule gives the transform; one
    step fewer the few-step rule (>= 1/100 use) does; the bracket is the fallback."""
    at = below + 1
    route = routing.route_entry(make, at)
    assert route.engine is TRANSFORM and route.steps == 1 and route.target == make(at)
    assert route.fallback.bracket
    assert "the record used in >= 1 steps in expectation in >= 100 steps" in route.reason
    fewer = routing.route_entry(make, below)
    assert fewer.engine is TRANSFORM and "in >= 100 steps" not in fewer.reason
    assert routing.route_entry(make, at, force=True).bracket


@pytest.mark.parametrize("make, at, fewer", [
    (maker("gaussian", "poisson", sigma=2, q="1/10", relation="zero-out"), 4, None),
    (maker("gaussian", "wor", relation="remove", sigma=1, n=10, batch=1), 99, None),
    (maker("gaussian", "poisson", sigma=1, q="1/10", group=2), 4, None),
    (maker("gaussian", "poisson", sigma=1, q="1/10", relation="substitution"), 50, None),
    (POISSON, 10, 9),                                       # T q = 1/100 at 10
    (maker("gaussian", "poisson", sigma=1, q="1/1000", group=2), 6, 5),  # 1 - (1 - q)^2
])
def test_few_uses_go_to_the_transform(make, at, fewer):
    """From four steps on, a subsampled Gaussian whose record (or group) is used in at
    least 1/100 step in expectation (a group of 2 with chance 1 - (1 - q)^2 = 1999 / 10^6
    at q = 1/1000: 5 steps use it 0.009995 times, 6 steps 0.011994) gets the transform on
    the T-step entry, the bracket its fallback; fewer uses, the bracket."""
    route = routing.route_entry(make, at)
    assert route.engine is TRANSFORM and route.steps == 1 and route.target == make(at)
    assert route.fallback.bracket and route.fallback.target == make(1)
    assert "the record used in >= 1/100 steps in expectation" in route.reason
    if fewer is not None:
        assert routing.route_entry(make, fewer).bracket
    assert routing.route_entry(make, at, force=True).bracket


def test_three_steps_take_the_transform_before_the_quadrature():
    """Three steps at q = 1/10 (0.3 uses): the transform, the quadrature its fallback; at
    q = 1e-3 (0.003 uses, out of the transform's reach) the quadrature; the pair composed
    three times alike; a public mixture (truncated Poisson under substitution, three
    means) takes the transform as its 1-step entry and 3, the quadrature of its 3-step
    entry the fallback, and from 4 to 19 steps the bracket of the 1-step entry."""
    make = maker("gaussian", "poisson", sigma=1, q="1/10")
    route = routing.route_entry(make, 3)
    assert route.engine is TRANSFORM and route.target == make(3)
    assert route.fallback.engine is routing.QUADRATURE
    assert routing.route_entry(POISSON, 3).engine is routing.QUADRATURE
    pair = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
    assert routing.route_pair(pair ** 3).engine is TRANSFORM
    assert routing.route_pair(pair ** 2).fallback.engine is routing.QUADRATURE
    public = maker("gaussian", "truncated-poisson", sigma=1, n=100, p_sample="1/20",
                   max_batch=6, relation="substitution")
    route = routing.route_entry(public, 3)
    assert route.engine is TRANSFORM and route.steps == 3 and route.target == public(1)
    assert route.fallback.engine is routing.QUADRATURE and route.fallback.target == public(3)
    for steps in (4, 19):
        route = routing.route_entry(public, steps)
        assert route.bracket and route.steps == steps and route.target == public(1)


def test_below_one_use_the_spread_decides_from_one_half():
    """sigma 1/2, q 1/100: below one use in expectation the spread T e^{-4} decides, 0.4945
    at 27 steps (the bracket) and 0.5128 at 28 (the transform, the bracket its fallback)."""
    g0 = Gaussian(0, "1/2")
    pair = Pair(Mixture([("99/100", g0), ("1/100", Gaussian(1, "1/2"))]), g0)
    assert routing.route_pair(pair ** 27).bracket
    route = routing.route_pair(pair ** 28)
    assert route.engine is TRANSFORM and route.fallback.bracket


def test_small_sampling_rates_stay_with_the_brackets():
    """q = 1e-5 is the smallest rate the transform gets: at T = 10^6 (the record used 10
    times in expectation) it takes q = 1e-5; q = 1e-6 at T = 10^6 (1 use) is left to the
    brackets, which stop at 10^5 steps."""
    assert routing.route_entry(maker("gaussian", "poisson", sigma=1, q="1e-5"),
                               10 ** 6).engine is TRANSFORM
    with pytest.raises(ValueError, match="steps must be <= 100000"):
        routing.route_entry(maker("gaussian", "poisson", sigma=1, q="1e-6"), 10 ** 6)


def test_a_width_asks_for_the_bracket_where_auto_gives_the_transform():
    """sigma 1, q 1/10, 100 steps: auto gives the transform's digits; with width= the
    proven bracket of that width (the two methods share nothing), which contains them."""
    make = maker("gaussian", "poisson", sigma=1, q="1/10")
    entry = make(1)
    digits = api.epsilon(entry, "1e-5", steps=100)
    bracket = api.epsilon(entry, "1e-5", steps=100, width="1/1000")
    assert digits.engine == "transform" and digits.verified_digits >= 20
    assert bracket.engine == "proven-bracket" and bracket.upper - bracket.lower <= 1e-3
    assert bracket.lower <= digits.lower and digits.upper <= bracket.upper


def test_public_mixtures_give_the_transform_their_one_step_entry():
    """The truncated-Poisson Gaussian (a public mixture, 004 Sec. 3.4) goes to the transform
    as the 1-step entry and T, like the brackets (its T-step entry is a sum over counts),
    from ``PUBLIC_MIN_STEPS`` = 20 steps on (the few-steps rule), the bracket its fallback;
    the Poisson-subsampled Laplace goes to the transform from 100 steps on."""
    make = maker("gaussian", "truncated-poisson", sigma=1, n=100, p_sample="1/20", max_batch=6)
    for steps in (1000, 99, 20):
        route = routing.route_entry(make, steps)
        assert route.engine is TRANSFORM and route.steps == steps and route.target == make(1)
        assert route.fallback.bracket
    assert routing.route_entry(make, 19).bracket
    laplace = maker("laplace", "poisson", scale=1, q="1/10")
    assert routing.route_entry(laplace, 1000).engine.name == "transform"
    assert routing.route_entry(laplace, 99).bracket


def test_force_brackets_at_any_number_of_steps():
    route = routing.route_entry(POISSON, 1, force=True)
    assert route.bracket and route.steps == 1 and route.reason == "proven bracket requested"


@pytest.mark.parametrize("sampling, options", [("none", {}), ("poisson", {"q": "1/10"})])
def test_binary_randomized_response_stays_exact_to_the_largest_count(sampling, options):
    """Randomized response, alone or Poisson-subsampled (a mixture of two two-outcome
    distributions has two outcomes), composed 10^6 times: the binomial PLD (sums by binary
    splitting) answers, so the standard engines get the T-step entry."""
    make = maker("rr", sampling, p="3/4", **options)
    route = routing.route_entry(make, 10 ** 6)
    assert not route.bracket and route.steps == 1 and route.target == make(10 ** 6)
    assert routing.route_entry(make, 10 ** 5, force=True).bracket


def test_curves_independent_of_the_steps_stay_standard():
    """Deterministic batching (002): the curve is the same for every T, one step each."""
    make = maker("gaussian", "deterministic", relation="zero-out", sigma="0.4")
    route = routing.route_entry(make, 10 ** 4)
    assert not route.bracket and route.target == make(10 ** 4)
    assert routing.route_entry(make, 10 ** 4, force=True).bracket


def test_shuffling_is_never_bracketed():
    make = maker("gaussian", "shuffle", relation="zero-out", sigma="0.4")
    assert not routing.route_entry(make, 10 ** 4).bracket
    with pytest.raises(ValueError, match="shuffling has no proven-bracket path"):
        routing.route_entry(make, 10, force=True)


def test_mixed_terms_are_bracketed_as_they_are_or_refused():
    """WOR substitution (001 Sec. 7): T + 1 terms mixing the orders, each bracketed up to 7
    steps; from one use in expectation (10 steps of batch 1 of 10) the transform's maximum
    over the orders, beyond 7 steps with the terms one by one as its fallback, up to
    ``ORDERS_TERMS_MAX_STEPS`` steps; refused where neither takes them (batch 1 of 10^4:
    0.005 uses at 50 steps)."""
    make = maker("gaussian", "wor", relation="substitution", sigma=1, n=10, batch=1)
    assert not routing.route_entry(make, 3).bracket
    route = routing.route_entry(make, 5)     # 0.5 uses, spread 5 e^-4: out of reach
    assert route.bracket and route.steps == 1 and len(route.target.terms) == 6
    route = routing.route_entry(make, 10)
    assert route.engine is TRANSFORM and isinstance(route.target, MixedOrders)
    assert route.fallback.engine is TRANSFORM and len(route.fallback.target.terms) == 11
    route = routing.route_entry(make, routing.ORDERS_TERMS_MAX_STEPS + 1)
    assert isinstance(route.target, MixedOrders) and route.fallback is None
    rare = maker("gaussian", "wor", relation="substitution", sigma=1, n=10 ** 4, batch=1)
    with pytest.raises(ValueError, match="51 terms mixing the orders"):
        routing.route_entry(rare, 50)


def test_mixed_terms_of_discrete_pairs_are_exact_up_to_their_limit():
    """WOR substitution of discrete pairs: the exact engine takes the T + 1 terms up to
    ``MIXED_EXACT_MAX_STEPS`` for randomized response (two outcomes: each term a sum
    against prefix sums), ``MIXED_GENERAL_MAX_STEPS`` for three outcomes (each term
    expanded); one step more goes to the binomial engine for two outcomes, and is refused
    with that limit named for three, never a run of hours."""
    rr = maker("rr", "wor", relation="substitution", p="3/5", n=1000, batch=10)
    three = mechanisms.discrete(TERNARY.P, TERNARY.Q, substitution=(TERNARY.P, TERNARY.Q))

    def ternary(k):
        return mechanisms.build(three, "wor", "substitution", n=100, batch=10, steps=k)

    for make, limit in ((rr, routing.MIXED_EXACT_MAX_STEPS),
                        (ternary, routing.MIXED_GENERAL_MAX_STEPS)):
        route = routing.route_entry(make, limit)
        assert not route.bracket and route.engine.name == "quadrature"
        assert len(route.target.terms) == limit + 1
    assert routing.route_entry(rr, routing.MIXED_EXACT_MAX_STEPS + 1).engine.name == \
        "binomial"
    limit = routing.MIXED_GENERAL_MAX_STEPS
    with pytest.raises(ValueError, match=f"the standard engines up to {limit},"):
        routing.route_entry(ternary, limit + 1)


def test_subsampled_laplace_takes_the_transform_from_few_steps_off_the_atoms():
    """The Laplace mechanism under WOR substitution, a batch of 10 of 1000, 100 steps: one
    use in expectation and about 33 steps off its loss's atoms; no closed form answers, and
    the bracket stops at 7 steps, so the transform's maximum over the orders takes it (from
    2 steps off the atoms), the terms one by one (the transform on each) its fallback."""
    make = maker("laplace", "wor", relation="substitution", scale=1, n=1000, batch=10)
    route = routing.route_entry(make, 100)
    assert route.engine is TRANSFORM and isinstance(route.target, MixedOrders)
    assert route.fallback.engine is TRANSFORM and len(route.fallback.target.terms) == 101


def test_a_refusal_names_the_rule_the_steps_miss():
    """The Laplace mechanism under WOR substitution, a batch of 1 of 10^4, 100 steps: 0.01
    uses in expectation; the refusal names the rules of the transform."""
    make = maker("laplace", "wor", relation="substitution", scale=1, n=10 ** 4, batch=1)
    with pytest.raises(ValueError, match="2 steps leave its loss's atoms"):
        routing.route_entry(make, 100)


def test_more_than_max_steps_is_refused():
    """Brackets stop at 10^5 compositions; the Gaussian shift's closed form and the
    transform go on to 10^6, and nothing beyond."""
    with pytest.raises(ValueError, match="steps must be <= 100000"):
        routing.route_entry(maker("gaussian", "poisson", sigma=1, q="1e-6"), 10 ** 5 + 1)
    assert routing.route_entry(POISSON, 10 ** 6).engine is TRANSFORM
    with pytest.raises(ValueError, match="got 1000001 compositions"):
        routing.route_entry(POISSON, 10 ** 6 + 1)
    shift = Pair(Gaussian(0, 1), Gaussian(1, 1))
    assert not routing.route_pair(shift ** 200000).bracket
    with pytest.raises(ValueError, match="got 1000001 compositions"):
        routing.route_pair(shift ** (10 ** 6 + 1))


def test_pairs_are_routed_by_their_factor_count():
    gauss = Pair(Gaussian(0, 1), Gaussian(1, 1))
    rr = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/4", 1: "3/4"}))
    assert not routing.route_pair(gauss).bracket
    poisson = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
    assert not routing.route_pair(poisson ** 2 * Pair(Gaussian(0, 2), Gaussian(1, 2))).bracket
    # beyond three compositions, the unsampled ones counted: the transform where the
    # record is used >= 1/100 times (0.3 here), the bracket its fallback
    route = routing.route_pair(poisson ** 3 * Pair(Gaussian(0, 2), Gaussian(1, 2)))
    assert route.engine is TRANSFORM and route.fallback.bracket
    rare = Pair(Mixture([("999/1000", Gaussian(0, 1)), ("1/1000", Gaussian(1, 1))]),
                Gaussian(0, 1))
    assert routing.route_pair(rare ** 3 * Pair(Gaussian(0, 2), Gaussian(1, 2))).bracket
    # Gaussian shifts alone: one shift in closed form, whatever the count
    assert not routing.route_pair(gauss ** 3 * Pair(Gaussian(0, 2), Gaussian(1, 2))).bracket
    assert not routing.route_pair(TERNARY ** 10 ** 4).bracket
    assert routing.route_pair(TERNARY ** (10 ** 4 + 1)).bracket
    assert "composed 10001 > 10000 times" in routing.route_pair(TERNARY ** 10001).reason
    # two outcomes (binary randomized response): exact up to the largest count
    assert not routing.route_pair(rr ** 10 ** 5).bracket
    assert routing.route_pair(rr ** 10 ** 5, force=True).bracket
    assert not routing.route_pair(rr * TERNARY ** (10 ** 4 - 1)).bracket
    assert routing.route_pair(rr ** 2 * TERNARY ** (10 ** 4 - 1)).bracket
    assert routing.route_pair(gauss, force=True).bracket
    assert routing.compositions(rr ** 7) == (7, False)
    assert routing.compositions(POISSON(5)) == (5, True)


def test_bracket_answers_delta_and_epsilon_only():
    with pytest.raises(ValueError, match="H_alpha has no proven-bracket path"):
        api.answer(routing.route_entry(POISSON, 4), "alpha", [2])


def test_h_alpha_out_of_the_transforms_reach_is_not_handed_to_the_bracket():
    """Four steps at q = 1/400 (1/100 use) take the transform, the bracket its fallback;
    H_1000 lies in a tail the transform cannot reach (at q = 1/100 it reaches it, 23
    digits), and the bracket answers no H_alpha: out of reach."""
    pair = Pair(Mixture([("399/400", Gaussian(0, 1)), ("1/400", Gaussian(1, 1))]),
                Gaussian(0, 1))
    assert api.route(pair ** 4).fallback.bracket
    with pytest.raises(OutOfReach, match="transform path"):
        api.hockey_stick(pair ** 4, alpha=1000)


SUBSAMPLED = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))


def test_two_compositions_try_the_certified_engine_first():
    """Two subsampled steps: the certified engine (delta and H_alpha), the quadrature its
    fallback and eps(delta)'s engine; shifts keep their closed forms."""
    route = routing.route_pair(SUBSAMPLED ** 2)
    assert route.engine is CERTIFIED_FIRST and route.fallback.engine is routing.QUADRATURE
    assert api.delta(SUBSAMPLED ** 2, 1).engine == "certified"
    assert api.epsilon(SUBSAMPLED ** 2, "1/10").engine == "quadrature"
    assert routing.route_pair(Pair(Gaussian(1, 1), Gaussian(0, 1)) ** 2).engine is \
        routing.QUADRATURE
    assert routing.route_pair(Pair(Laplace(1, 1), Laplace(0, 1)) ** 2).engine is \
        routing.QUADRATURE
    assert routing.route_pair(SUBSAMPLED).engine is routing.QUADRATURE


def test_a_failed_certification_falls_back_to_the_quadrature(monkeypatch):
    """Where Arb's integral cannot decide (simulated here), the quadrature answers, and
    its value meets the certified one computed before."""
    proven = api.delta(SUBSAMPLED ** 2, "1/2", method="certified")

    def undecided(evaluate, digits):
        raise CertificationFailed("rigorous integration failed")
    monkeypatch.setattr(certified, "_refine", undecided)
    r = api.delta(SUBSAMPLED ** 2, "1/2")
    assert r.engine == "quadrature"
    assert proven.lower <= r.upper and r.lower <= proven.upper


@pytest.mark.parametrize("sigma, steps, falls_back", [
    ("1", 10, True), ("1/2", 100, True),      # sigma^2 t = 10, 25
    ("1/2", 10, False),                       # 2.5: below the least spread
    ("2", 10, False),                         # 40: its inversion answers (no fallback)
    ("1", 2, False),                          # t = 2: one rigorous integral
])
def test_one_epoch_falls_back_on_the_transform_within_its_spreads(sigma, steps, falls_back):
    """One epoch of random allocation: proven balls, and where their inversion runs out
    of nodes the transform of the moments at E = 1, for sigma^2 t within
    [ONE_EPOCH_MIN_SPREAD, ONE_EPOCH_MAX_SPREAD] from 3 steps on."""
    def make(k):
        return mechanisms.build(mechanisms.gaussian(sigma), "random-allocation",
                                "add-remove", steps=steps, epochs=k)
    route = routing.route_entry(make, 1)
    assert route.engine.name == "random-allocation" and route.steps == 1
    if falls_back:
        assert route.fallback.engine is TRANSFORM and route.fallback.steps == 1
    else:
        assert route.fallback is None


@pytest.mark.parametrize("steps, epochs, transform", [
    (661, 2, True),       # sigma^2 t / E = 1.21 * 661 / 2 = 399.905: the transform
    (662, 2, False),      # 400.51: the lattice bracket
    (2, 20, True),        # two steps an epoch, from 2 epochs: the transform, no bracket
    (2, 2, True),
])
def test_epochs_take_the_transform_up_to_their_spread(steps, epochs, transform):
    """E epochs of random allocation (sigma 1.1): the transform of the moments where
    sigma^2 t / E <= EPOCHS_MAX_SPREAD and t >= 3, with the bracket as its fallback, and at
    t = 2 from 2 epochs without one (two steps have no lattice cells); else the bracket
    alone."""
    entry = mechanisms.build(mechanisms.gaussian("11/10"), "random-allocation", "add-remove",
                             steps=steps, epochs=epochs)
    route = api.route(entry)
    if transform:
        assert route.engine is TRANSFORM
        assert (route.fallback is None) if steps == 2 else \
            (route.fallback.engine is routing.BRACKET)
    else:
        assert route.engine is routing.BRACKET and route.fallback is None


def test_three_steps_of_different_two_mean_pairs_take_the_nested_quadrature():
    """The transform makes one product a distinct pair, the quadrature in Arb costs the
    same either way: three different subsampled Gaussians, two steps of one and one of
    another, and the truncated Poisson's remove direction (components mixing two pairs)
    take the quadrature, under add-remove as well; one pair three times keeps the
    transform."""
    def sub(sigma, q):
        g = Gaussian(0, sigma)
        return Pair(Mixture([(1 - Fraction(q), g), (Fraction(q), Gaussian(1, sigma))]), g)
    a, b, c = sub("4/5", "1/10"), sub("9/10", "1/20"), sub("1", "1/10")
    assert routing.route_pair(Composition.of(a, b, c)).engine is routing.QUADRATURE
    assert routing.route_pair(Composition.of(a, a, b)).engine is routing.QUADRATURE
    assert routing.route_pair(a ** 3).engine is TRANSFORM
    public = maker("gaussian", "truncated-poisson", sigma=1, n=100, p_sample="1/20",
                   max_batch=6, relation="remove")
    assert routing.route_entry(public, 3).engine is routing.QUADRATURE
    public = maker("gaussian", "truncated-poisson", sigma=1, n=100, p_sample="1/20",
                   max_batch=6)
    assert routing.route_entry(public, 3).engine is routing.QUADRATURE
