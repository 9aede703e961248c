"""refacct.accountants.DpAccountant: dp_accounting's own accountant contract (its abstract
test class, run on refacct's accountant), and values against closed forms and exact
rationals."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from mpmath import mp

dpa = pytest.importorskip("dp_accounting")
contract = pytest.importorskip("dp_accounting.privacy_accountant_test")

import refacct  # noqa: E402
from refacct.accountants import DpAccountant  # noqa: E402
from refacct.mechanisms import build, gaussian  # noqa: E402
from refacct.accountants.vocabulary import decimal  # noqa: E402

from conftest import balle_wang  # noqa: E402

RELATIONS = list(dpa.NeighboringRelation)


class TestDpAccountantContract(contract.PrivacyAccountantTest):
    """dp_accounting's contract: unsupported events refused naming the subevent, no events
    give 0, no-ops change nothing, non-private events give eps = inf and delta = 1."""

    def _make_test_accountants(self):
        return [DpAccountant(relation) for relation in RELATIONS]


def test_gaussian_steps_are_balle_wang():
    """GaussianDpEvent(1) composed 4 times, and the product of GaussianDpEvent(1) x 2 with
    GaussianDpEvent(2) x 4 (a shift with mu^2 = 2 + 4/4 = 3): delta(1) is Balle and Wang's
    closed form (arXiv:1805.06530, Thm 8), returned as the float at or above it."""
    one = DpAccountant().compose(dpa.GaussianDpEvent(1.0), 4)
    mixed = DpAccountant().compose(dpa.GaussianDpEvent(1.0), 2).compose(
        dpa.GaussianDpEvent(2.0), 4)
    with mp.workdps(40):
        for acc, mu in ((one, 2), (mixed, mp.sqrt(3))):
            truth = balle_wang(1, mu)
            got = acc.get_delta(1.0)
            assert got >= truth and got - truth <= 1e-15 * truth
            assert acc.delta_result(1.0).lower <= truth <= acc.delta_result(1.0).upper


def test_randomized_response_exact():
    """RandomizedResponseDpEvent(noise 1/2, 2 buckets) reports the bit with p = 3/4; two
    steps under REPLACE_ONE: delta(0) is the total variation of the two binomial laws,
    (9 - 1) / 16 = 1/2 exactly."""
    acc = DpAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    acc.compose(dpa.RandomizedResponseDpEvent(noise_parameter=0.5, num_buckets=2), 2)
    assert acc.delta_result(0).exact == Fraction(1, 2)
    assert acc.get_delta(0.0) == 0.5


def test_monotone_in_steps_and_proven_beyond_quadrature():
    """eps(1e-5) of the Poisson-subsampled Gaussian (q = 1/100, sigma = 1) cannot fall as
    steps are added (dropping a step is post-processing); at 1000 steps the result is a
    proven bracket."""
    event = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0))
    acc, previous = DpAccountant(), 0.0
    for count in (1, 1, 8, 990):
        acc.compose(event, count)
        eps = acc.get_epsilon(1e-5)
        assert eps >= previous
        previous = eps
    result = acc.epsilon_result(1e-5)
    assert result.proven and result.upper <= previous


def test_floats_are_read_as_the_decimals_written():
    assert decimal(0.1) == Fraction(1, 10) and decimal(1e-5) == Fraction(1, 100000)


def test_what_has_no_dominating_pair_is_refused():
    """WOR under substitution mixes the orders of the steps (001 Sec. 7): alone it is
    rebuilt for T steps, but it has no term-by-term product with another event; zCDP events
    have no pair at all."""
    acc = DpAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    acc.compose(dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)), 2)
    assert acc.get_delta(1.0) > 0
    assert not acc.supports(dpa.GaussianDpEvent(2.0))
    with pytest.raises(dpa.UnsupportedEventError):
        acc.compose(dpa.GaussianDpEvent(2.0))
    assert not DpAccountant().supports(dpa.ZCDpEvent(0.1))
    assert math.isinf(DpAccountant().compose(dpa.NonPrivateDpEvent()).get_epsilon(0.5))


def _round_trips(case) -> bool:
    """Unit sensitivity, p >= 1/2, and every parameter a decimal that a float gives back."""
    keys = [k for k in ("sigma", "scale", "p", "q", "p_sample")
            if k in case.mechanism or k in case.sampling]
    return (case.param("sensitivity") == 1 and case.group == 1
            and case.scheme in ("none", "poisson", "truncated-poisson")
            and all(decimal(float(case.param(k))) == case.param(k) for k in keys)
            and (case.family != "rr" or case.param("p") >= Fraction(1, 2)))


def test_one_vocabulary_both_ways():
    """Every validation case the dp_accounting adapter writes as an event (vocabulary.event_of)
    reads back (vocabulary.leaves / entry_of, what DpAccountant does) as the case's own
    catalogue entry: the same pairs, composed as many times."""
    from refacct.accountants.vocabulary import entry_of, event_of, leaves
    from refacct.validation import load_cases
    checked = 0
    for case in load_cases():
        found = event_of(case)
        if found is None or not _round_trips(case):
            continue
        event, relation = found
        ((leaf, steps),) = leaves(event, 1)
        back = entry_of(leaf, relation).rebuild(steps)
        assert [pair for _, pair in back.terms] == [pair for _, pair in case.entry().terms], \
            case.name
        checked += 1
    assert checked >= 10


def test_mixture_of_gaussians_is_poisson_sampling():
    """MixtureOfGaussiansDpEvent(1, [0, 1], [9/10, 1/10]) is the Poisson-subsampled
    Gaussian with q = 1/10 (001 Thm 10.1's pair): two steps agree with the catalogue entry."""
    acc = DpAccountant().compose(dpa.dp_event.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1]), 2)
    entry = build(gaussian(1), "poisson", "add-remove", q="1/10")
    assert acc.delta_result(1.0).value == refacct.delta(entry, 1, steps=2).value
    assert not DpAccountant(dpa.NeighboringRelation.REPLACE_ONE).supports(
        dpa.dp_event.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1]))


def test_opacus_vocabulary_both_ways():
    """Every validation case the Opacus adapter writes as a history (opacus_history_of)
    reads back (opacus_entry, what OpacusAccountant does) as the case's catalogue entry."""
    from refacct.accountants.vocabulary import opacus_entry, opacus_history_of
    from refacct.validation import load_cases
    checked = 0
    for case in load_cases():
        history = opacus_history_of(case)
        if history is None or case.scheme == "deterministic" or not _round_trips(case):
            continue
        sigma, q, steps = history
        back = opacus_entry(sigma, q).rebuild(steps)
        assert [pair for _, pair in back.terms] == [pair for _, pair in case.entry().terms], \
            case.name
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("call, words", [
    (lambda acc: acc.get_epsilon(float("nan")), "target_delta must be a finite number"),
    (lambda acc: acc.get_epsilon(-0.1), "target_delta must be >= 0"),
    (lambda acc: acc.get_delta("1"), "target_epsilon must be a finite number"),
])
def test_nonsense_queries_name_the_parameter(call, words):
    acc = DpAccountant().compose(dpa.GaussianDpEvent(1.0))
    with pytest.raises(ValueError, match=words):
        call(acc)


def test_exact_queries_stay_exact():
    """A Fraction target is used as it is (1/3 is not read through a float)."""
    acc = DpAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    acc.compose(dpa.RandomizedResponseDpEvent(noise_parameter=0.5, num_buckets=2), 2)
    assert acc.delta_result(Fraction(1, 3)).eps == Fraction(1, 3)
