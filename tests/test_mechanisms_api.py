"""The catalogue's API: bad input, provenance and tightness labels, the maximum over terms
(value, bound, attained_by) and eps(delta) of a maximum of curves.  Oracles: exact
rationals (001 App. B.1, enumerated in tests/test_mechanisms_enumeration.py), the
Balle-Wang closed form (002 Prop. 3.1) and the definitions (max of curves)."""
from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest
from mpmath import mp

import refacct
from conftest import balle_wang, mpq
from refacct import Discrete
from refacct.mechanisms import (Dominated, deterministic_batching, discrete,
                                gaussian, group_fixed_batch, group_poisson,
                                laplace, poisson_subsampled, randomized_response,
                                pointwise_max_pair, truncated_poisson, unsampled,
                                wor_subsampled, wor_substitution_upper)

F = Fraction
# a catalogue entry's curve by the standard engines (exact PLD, closed forms, quadrature)
delta = partial(refacct.delta, method="quadrature")
epsilon = partial(refacct.epsilon, method="quadrature")
hockey_stick = partial(refacct.hockey_stick, method="quadrature")


@pytest.mark.parametrize("build, error, fragment", [
    (lambda: gaussian(0), ValueError, "sigma must be > 0"),
    (lambda: gaussian("-1/2"), ValueError, "sigma must be > 0"),
    (lambda: gaussian(float("nan")), ValueError, "sigma must be finite"),
    (lambda: gaussian(1, 0), ValueError, "sensitivity must be > 0"),
    (lambda: laplace("x"), ValueError, "scale must be a finite rational"),
    (lambda: randomized_response("5/4"), ValueError, "p must lie in [0, 1]"),
    (lambda: poisson_subsampled(gaussian(1), "3/2"), ValueError, "q must lie in [0, 1]"),
    (lambda: poisson_subsampled(gaussian(1), "-0.1"), ValueError, "q must lie in [0, 1]"),
    (lambda: poisson_subsampled(gaussian(1), "nan"), ValueError, "q must be a finite rational"),
    (lambda: poisson_subsampled(gaussian(1), "1/2", "sideways"), ValueError, "relation must be"),
    (lambda: poisson_subsampled(gaussian(1), "1/2", steps=0), ValueError, "steps must be >= 1"),
    (lambda: poisson_subsampled(gaussian(1), "1/2", steps=1.5), TypeError, "steps must be an int"),
    (lambda: poisson_subsampled(laplace(1), "1/2", "substitution"), ValueError, "Gaussian"),
    (lambda: wor_subsampled(gaussian(1), 3, 5), ValueError, "batch must lie in [1, n]"),
    (lambda: wor_subsampled(gaussian(1), 0, 1), ValueError, "n must be >= 1"),
    (lambda: wor_subsampled(gaussian(1), "4", 1), TypeError, "n must be an int"),
    (lambda: wor_subsampled(gaussian(1), 4, 2, "zero-out"), ValueError,
     "for sampling without replacement"),
    (lambda: wor_subsampled(discrete(Discrete({0: 1}), Discrete({1: 1})), 4, 2), ValueError,
     "substitution pair"),
    (lambda: deterministic_batching(gaussian(1), "add"), ValueError, "deterministic batching"),
    (lambda: truncated_poisson(0, 10, "1/2", 3), ValueError, "sigma must be > 0"),
    (lambda: truncated_poisson(1, 10, "2", 3), ValueError, "p_sample must lie in [0, 1]"),
    (lambda: truncated_poisson(1, 10, "1/2", 0), ValueError, "max_batch must be >= 1"),
    (lambda: group_poisson(gaussian(1), "1/2", 0), ValueError, "group must be >= 1"),
    (lambda: group_poisson(laplace(1), "1/2", 2), ValueError, "Gaussian"),
    (lambda: group_fixed_batch(gaussian(1), 3, 4, 2), ValueError, "batch must lie in [1, n]"),
    (lambda: discrete({0: 1}, Discrete({0: 1})), TypeError, "P must be a refacct.Discrete"),
    (lambda: wor_substitution_upper(gaussian(1), 4, 2), ValueError, "discrete base"),
    (lambda: pointwise_max_pair(Discrete({0: "9/10", 1: "1/10"}), Discrete({0: "1/2", 1: "1/2"})),
     ValueError,
     "not convex at alpha = 1"),
])
def test_bad_input_names_the_parameter(build, error, fragment):
    with pytest.raises(error) as info:
        build()
    assert fragment in str(info.value)


def test_provenance_and_tightness_labels():
    cases = [
        (poisson_subsampled(gaussian(1), "1/10"), "tight", "001", "Thm 10.1"),
        (poisson_subsampled(gaussian(1), "1/10", "substitution"), "tight", "001", "Prop. 13"),
        (wor_subsampled(gaussian(1), 10, 2), "tight", "001", "Thm 10.2"),
        (wor_subsampled(gaussian(1), 10, 2, "substitution"), "tight", "001", "Thm 14"),
        (wor_subsampled(gaussian(1), 10, 2, "substitution", 2), "lower", "001", "Thm 14"),
        (deterministic_batching(gaussian(1)), "tight", "002", "Prop. 3.1"),
        (truncated_poisson(1, 10, "1/2", 3), "upper", "004", "Thm 3.1"),
        (truncated_poisson(1, 10, "1/2", 3, "zero-out"), "upper", "004", "Thm 3.3"),
        (truncated_poisson(1, 10, "1/2", 3, "replace-one"), "upper", "004", "Thm 3.4"),
        (group_poisson(gaussian(1), "1/10", 2), "tight", "003", "Thm 3.1"),
        (group_fixed_batch(gaussian(1), 10, 2, 2), "tight", "003", "Thm 3.3"),
    ]
    for mech, bound, paper, theorem in cases:
        assert mech.bound == bound
        assert paper in mech.source and theorem in mech.source, mech.source


def test_single_term_entries_are_pairs_for_the_core_api():
    """A one-direction entry goes straight into refacct.hockey_stick (public_mixture)."""
    add = poisson_subsampled(randomized_response("3/4"), "1/2", "add", 2)
    assert refacct.hockey_stick(add, "4/3").exact == F(11, 48)  # 001 App. B.1


def test_several_terms_through_the_front_door():
    """refacct.hockey_stick (the front door) takes an entry of several terms: the maximum
    over them, 11/48 by the add direction (001 App. B.1)."""
    both = poisson_subsampled(randomized_response("3/4"), "1/2", "add-remove", 2)
    r = refacct.hockey_stick(both, "4/3")
    assert (r.exact, r.attained_by) == (F(11, 48), ("add",))


def test_maximum_bound_and_attained_by_on_exact_values():
    """001 App. B.1 at alpha = 4/3 and 2 (exact rationals): the max is 11/48 (add) and
    1/8 (remove); at alpha = 0 both are 1 - 0 = 1, a tie."""
    both = poisson_subsampled(randomized_response("3/4"), "1/2", "add-remove", 2)
    r = hockey_stick(both, ["4/3", "2", "0"])
    assert [(x.exact, x.attained_by) for x in r] == [
        (F(11, 48), ("add",)), (F(1, 8), ("remove",)), (F(1), ("add", "remove"))]
    assert dict(r[0].terms)["remove"].exact == F(1, 6)


def test_symmetric_deterministic_pair_is_a_tie_matching_balle_wang():
    """002 Prop. 3.1: both orders of (N(1, s^2), N(0, s^2)) give the same delta."""
    r = delta(deterministic_batching(gaussian("1/2")), [1, 3], digits=15)
    for eps, x in zip((1, 3), r):
        assert x.attained_by == ("add", "remove")
        with mp.workdps(40):
            assert abs(x.value - balle_wang(eps, 2)) <= x.abs_error + mp.mpf(10) ** -35


def test_epsilon_of_a_maximum_is_the_largest_epsilon():
    """eps(delta) = max_i eps_i(delta): delta_max(eps) <= delta iff every delta_i(eps) <= delta;
    at the returned eps the attaining curve equals delta and the other lies below."""
    mech = poisson_subsampled(gaussian(1), "1/10", "add-remove", 1)
    r = epsilon(mech, "1e-5", digits=12)
    per = {label: refacct.epsilon(pair, "1e-5", digits=12) for label, pair in mech.terms}
    assert r.attained_by == ("remove",) and r.bound == "tight"
    assert r.value == max(x.value for x in per.values())
    assert per["add"].value < per["remove"].value
    with mp.workdps(30):
        eps = r.value
        d = refacct.delta(mech.term("remove"), refacct.exact.rational(eps, "eps"), digits=12)
        assert abs(d.value - mpq("1e-5")) < mp.mpf(10) ** -14


def test_unsampled_gaussian_is_balle_wang():
    """No sampling, sensitivity 3, sigma 2: delta of N(3, 4) vs N(0, 4) is Balle-Wang with
    m = 3/2; two steps compose to m = 3/2 sqrt 2 (docs/numerics.md, Gaussian shift pairs)."""
    for k in (1, 2):
        r = delta(unsampled(gaussian(2, 3), "add", k), 1, digits=12)
        with mp.workdps(40):
            mm = mpq(F(3, 2)) * (mp.sqrt(2) if k == 2 else 1)
            assert abs(r.value - balle_wang(1, mm)) <= r.abs_error + mp.mpf(10) ** -30


def test_dominated_rejects_unknown_bound():
    with pytest.raises(ValueError, match="bound must be one of"):
        Dominated("x", (("a", refacct.Pair(Discrete({0: 1}), Discrete({0: 1}))),), "loose", ())


def test_build_dispatches_to_the_builders():
    """The command line's entry point gives the same entries as the builders."""
    from refacct.mechanisms import build
    g = gaussian(1)
    cases = [
        (build(g, "none", "add"), unsampled(g, "add")),
        (build(g, "poisson", "remove", q="1/4", steps=2), poisson_subsampled(g, "1/4", "remove", 2)),
        (build(g, "wor", "substitution", n=5, batch=2), wor_subsampled(g, 5, 2, "substitution")),
        (build(g, "deterministic", "zero-out"), deterministic_batching(g)),
        (build(g, "truncated-poisson", "zero-out", n=6, p_sample="1/3", max_batch=2),
         truncated_poisson(1, 6, "1/3", 2, "zero-out")),
        (build(g, "poisson", "add", q="1/4", group=2), group_poisson(g, "1/4", 2, "add")),
        (build(g, "wor", "add", n=5, batch=2, group=2), group_fixed_batch(g, 5, 2, 2, "add")),
    ]
    for built, direct in cases:
        assert built.terms == direct.terms and built.bound == direct.bound


def test_group_without_sampling_scales_the_sensitivity():
    """K records in the sum query move it by K Delta: N(3, 4) vs N(0, 4) for K = 3, sigma = 2,
    Balle-Wang with m = 3/2."""
    from refacct.mechanisms import build
    r = delta(build(gaussian(2), "none", "add", group=3), 1, digits=12)
    with mp.workdps(40):
        assert abs(r.value - balle_wang(1, mpq(F(3, 2)))) <= r.abs_error + mp.mpf(10) ** -30
    with pytest.raises(ValueError, match="--group"):
        build(gaussian(2), "deterministic", "zero-out", group=3)


def test_a_group_beyond_the_engines_is_refused_at_once_with_its_cost():
    """003's group pairs under sampling are mixtures of K + 1 Gaussians: K = 10^5 (whose
    weights alone took minutes to build) is refused in well under a second, naming the
    parameter, the limit, an estimate of the cost and what to do instead; K = 500, the
    limit, is built."""
    import time
    from refacct.mechanisms import build, gaussian
    from refacct.mechanisms.group import MAX_GROUP
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"group must be <= 500 under sampling, got 100000: "
                                         r".* about 556 hours .*vadhan_delta"):
        build(gaussian(1), "poisson", "add-remove", q="1/2", group=10 ** 5)
    assert time.monotonic() - start < 1
    with pytest.raises(ValueError, match="group must be <= 500"):
        build(gaussian(1), "wor", "add-remove", n=1000, batch=10, group=MAX_GROUP + 1)
    entry = build(gaussian(1), "poisson", "add-remove", q="1/2", group=MAX_GROUP)
    pair = entry.terms[0][1].pairs()[0]
    mixture = pair.P if len(pair.P.components) > 1 else pair.Q
    assert len(mixture.components) == MAX_GROUP + 1


def test_the_binomial_tail_from_the_shorter_side():
    """Pr[Binom(n, p) >= s] summed from below (1 minus the lower terms) equals the sum of
    the upper terms, exactly, on both sides of n / 2."""
    from fractions import Fraction
    from math import comb
    from refacct.mechanisms.truncated_poisson import binom_sf
    n, p = 21, Fraction(2, 7)
    for s in (0, 1, 5, 10, 11, 15, 21, 22):
        upper = sum((comb(n, t) * p ** t * (1 - p) ** (n - t) for t in range(s, n + 1)),
                    Fraction(0))
        assert binom_sf(n, p, s) == upper
