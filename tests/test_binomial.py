"""The binomial engine (``refacct.binomial``, ``engines.exact.orders``): the maximum over
the T + 1 orders of a two-outcome pair under substitution with sampling without
replacement (001 Sec. 7), for many steps, proven by rounding down with a slack.

Oracles: the cumulative masses of two binomials summed in exact rationals (a direct double
sum); the exact engine's rationals over all T + 1 terms (``TwoBinomialPLD``, an independent
method) for randomized response under WOR substitution and for a hand-made pair whose
thresholds fall as j grows; the largest loss in closed form at delta = 0."""
from __future__ import annotations

from fractions import Fraction as F
from math import comb, log

import pytest
from mpmath import mp

import refacct
from refacct import api
from refacct import binomial
from refacct.binomial import BINOMIAL, two_outcomes
from refacct.distributions import Discrete
from refacct.engine import Request
from refacct.engines.exact.orders import TwoOutcomes, cumulative, thresholds
from refacct.mechanisms import build, randomized_response
from refacct.mechanisms.relations import MixedOrders, mixed_directions
from refacct.pairs import Pair

RR = build(randomized_response("3/5"), "wor", "substitution", n=1000, batch=10)


def orders_of(entry):
    return MixedOrders.of(entry, api._more_steps(entry, 2))


def ask(orders, kind, q, steps):
    return BINOMIAL.answer(orders, Request(kind, (q,), 20, None, steps))[0]


def exact_value(result):
    """The exact engine's answer at 60 digits: its rational, or from its exact form (A, B)
    delta = A - e^eps B or eps = ln((A - delta) / B); of a maximum, the term that attains
    it."""
    terms = dict(getattr(result, "terms", ()))
    if terms:
        result = terms[result.attained_by[0]]
    with mp.workdps(60):
        if getattr(result, "exact", None) is not None:
            return mp.mpf(result.exact.numerator) / result.exact.denominator
        A, B = (mp.mpf(x.numerator) / x.denominator for x in result.exact_form)
        if not hasattr(result, "delta_target"):
            return A - mp.exp(mp.mpf(result.eps.numerator) / result.eps.denominator) * B
        A, B = result.exact_form
        delta = result.delta_target
        return mp.log(mp.mpf((A - delta).numerator) / (A - delta).denominator) - \
            mp.log(mp.mpf(B.numerator) / B.denominator)


def test_the_cumulative_masses_bracket_the_double_sum():
    """P(Bin(j, u) + Bin(T - j, v) < n), rounded down and down plus the slack, holds the
    exact double sum for every order and every n its range asks (T = 40, 70 bits)."""
    two = TwoOutcomes((F(1, 10), F(9, 10)), (F(1, 2), F(1, 2)))
    T, bits = 40, 70
    ranges = thresholds(two, T, mp.mpf("0.3"), mp.mpf("2.5"))
    for side in "PQ":
        u, v = two.side(side)
        found = cumulative(two, T, side, ranges, bits)
        for j in range(T + 1):
            for k, n in enumerate(range(ranges[j][0], ranges[j][1] + 1)):
                exact = sum(comb(j, x) * u ** x * (1 - u) ** (j - x) *
                            comb(T - j, y) * v ** y * (1 - v) ** (T - j - y)
                            for x in range(j + 1) for y in range(T - j + 1) if x + y < n)
                low = found.values[j][k]
                assert F(low, 2 ** bits) <= exact <= F(low + found.slack[j], 2 ** bits)
                assert found.slack[j] < 2 ** 12   # the roundings' loss stays small


def test_the_thresholds_hold_every_count_on_the_interval():
    """The count #{i : L_i > eps} of each order (losses j l_1 - (T - j) l_2 - i D, in
    floats far from any tie) lies in the order's range at both ends of the interval."""
    two = TwoOutcomes((F(201, 500), F(299, 500)), (F(2, 5), F(3, 5)))
    T = 500
    l1, l2 = log(F(201, 200)), log(F(299, 300))
    ranges = thresholds(two, T, mp.mpf("0.25"), mp.mpf("0.75"))
    for j, (first, last) in enumerate(ranges):
        for eps in (0.25, 0.75):
            count = sum(1 for i in range(T + 1) if j * l1 - (T - j) * l2 - i * (l1 - l2) > eps)
            assert first <= count <= last


@pytest.mark.parametrize("kind, q", [("delta", F(1)), ("delta", F(1, 10)), ("alpha", F(3, 2)),
                                     ("epsilon", F(1, 10 ** 5)), ("epsilon", F(1, 10 ** 100))])
def test_randomized_response_matches_the_exact_terms(kind, q):
    """T = 300: the exact engine's rationals over the 301 terms lie in the proven
    enclosure, which has the 20 digits asked."""
    found = ask(orders_of(RR), kind, q, 300)
    if kind == "alpha":
        truth = refacct.hockey_stick(RR, alpha=q, steps=300)
    else:
        truth = getattr(refacct, kind)(RR, q, steps=300)
    assert truth.engine == "exact"
    assert found.proven and found.verified_digits >= 20
    assert found.lower <= exact_value(truth) <= found.upper


def test_a_pair_whose_thresholds_fall_with_j():
    """A = (1/10, 9/10), B = (1/2, 1/2): l_1 + l_2 < 0, so the thresholds fall as j grows.
    delta(1/2) and eps(1e-3) at T = 30 against the maximum of the exact engine's 31 terms."""
    A, B = Discrete({0: "1/10", 1: "9/10"}), Discrete({0: "1/2", 1: "1/2"})
    orders = MixedOrders(Pair(A, B), "tight")
    two = two_outcomes(orders.pair)
    assert (log(two.a[0] / two.b[0]) + log(two.a[1] / two.b[1])) < 0
    terms = mixed_directions(A, B, 30)
    for kind, q in (("delta", F(1, 2)), ("epsilon", F(1, 1000))):
        found = ask(orders, kind, q, 30)
        exact = [exact_value(getattr(refacct, kind)(pair, q, method="exact"))
                 for _, pair in terms]
        assert found.proven and found.verified_digits >= 20
        assert found.lower <= max(exact) <= found.upper


def test_a_saddle_point_far_off_falls_back_on_the_steering(monkeypatch):
    """eps(1e-5) at T = 300 with the saddle point's estimate moved to 1 beyond the Chernoff
    end, beyond the closed form's widest interval (64 spacings, 0.53): the steering by
    passes of the tree places it, and the answer still holds the exact engine's."""
    moved = []

    def far(two, T, delta, end, spacing):
        moved.append(end + 1)
        return end + 1
    monkeypatch.setattr(binomial, "_saddle_epsilon", far)
    found = ask(orders_of(RR), "epsilon", F(1, 10 ** 5), 300)
    truth = exact_value(refacct.epsilon(RR, F(1, 10 ** 5), steps=300))
    assert moved and moved[0] - truth > 1
    assert found.verified_digits >= 20 and found.lower <= truth <= found.upper


def test_delta_zero_is_the_largest_loss():
    """eps(0) = max(T l_1, -T l_2) exactly: the orders T and 0 put all their mass's top atom
    there."""
    found = ask(orders_of(RR), "epsilon", F(0), 3000)
    with mp.workdps(60):
        top = 3000 * (mp.log(201) - mp.log(200))
        assert found.lower <= top <= found.upper
    assert found.verified_digits >= 20


def test_auto_routes_beyond_the_exact_engine():
    """Up to 2000 steps the exact engine sums every term; beyond, the binomial engine."""
    assert api.route(RR, steps=2000).engine is not BINOMIAL
    way = api.route(RR, steps=2001)
    assert way.engine is BINOMIAL and way.steps == 2001
    found = refacct.delta(RR, 1, steps=2001)
    assert found.engine == "binomial" and found.proven and found.verified_digits >= 20


def test_just_below_the_largest_loss_is_the_top_atom_not_zero():
    """eps 10^-30 below the largest loss T l_1 (T = 2001): only order T's top atom lies
    above it (the next atom is D = 0.0083 lower), so delta = a_1^T (1 - e^{eps - T l_1}),
    about 1e-822, a closed form; an exact 0 would be false."""
    two = two_outcomes(orders_of(RR).pair)
    T = 2001
    with mp.workdps(60):
        top = T * (mp.log(two.a[0].numerator) - mp.log(two.a[0].denominator) -
                   mp.log(two.b[0].numerator) + mp.log(two.b[0].denominator))
        eps = F(int(mp.floor(top * 10 ** 40)), 10 ** 40) - F(1, 10 ** 30)
    found = ask(orders_of(RR), "delta", eps, T)
    with mp.workdps(60):
        e = mp.mpf(eps.numerator) / eps.denominator
        truth = (mp.mpf(two.a[0].numerator) / two.a[0].denominator) ** T * -mp.expm1(e - top)
    assert found.lower > 0 and found.verified_digits >= 20
    assert found.lower <= truth <= found.upper
