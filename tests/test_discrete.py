"""Exact engine for discrete pairs: every value is checked against exact enumeration of all
outcome tuples with Fractions (conftest.product_table / brute_H), against closed forms
derived here, or against the numbers printed in 001 App. B.1."""
from __future__ import annotations

import signal
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mp

from refacct import Discrete, Pair, delta, epsilon, hockey_stick
from refacct.engines.exact import discrete as engine

from conftest import (assert_verified, brute_AB, brute_delta_mpf, brute_H, mpq,
                      product_table, ratio_exceeds_exp)

# 001 App. B.1: M_Poisson(D) and M_Poisson(D') for randomized response with gamma = 1/2.
RR_P = Discrete({0: "3/4", 1: "1/4"})
RR_Q = Discrete({0: "1/2", 1: "1/2"})

# Pairs with outcomes where q = 0 (an infinite privacy loss) and where p = 0.
A3 = Discrete({"a": "1/2", "b": "1/3", "c": "1/6"})
B3 = Discrete({"a": "1/4", "b": "1/2", "d": "1/4"})          # q(c) = 0, p(d) = 0
C2 = Discrete({0: "2/5", 1: "3/5"})
D2 = Discrete({0: "1/10", 1: "9/10"})
SAME = Discrete({"x": "1/7", "y": "6/7"})

ALPHAS = [0, "1/3", "1/2", 1, "4/3", 2, 3, 7, 100]


# --- 001 App. B.1 ---------------------------------------------------------------------

@pytest.mark.parametrize("P, Q, alpha, expected", [
    (RR_P, RR_Q, "4/3", Fraction(11, 48)),
    (RR_Q, RR_P, "4/3", Fraction(1, 6)),
    (RR_P, RR_Q, 2, Fraction(1, 16)),
    (RR_Q, RR_P, 2, Fraction(1, 8)),
])
def test_appendix_b1_randomized_response(P, Q, alpha, expected):
    """001 App. B.1 ("Proof of Proposition 11 for Randomized Response"): two compositions
    of P = (3/4, 1/4) vs Q = (1/2, 1/2) give H_{4/3}(P||Q) = 11/48, H_{4/3}(Q||P) = 1/6,
    H_2(P||Q) = 1/16, H_2(Q||P) = 1/8 (numbers printed in the paper, line 497)."""
    r = hockey_stick(Pair(P, Q) ** 2, alpha=alpha)
    assert r.exact == expected
    A, B = r.exact_form
    assert A - Fraction(alpha) * B == expected
    assert r.alpha == Fraction(alpha)
    assert_verified(r, mpq_hi(expected), digits=20)


def mpq_hi(x):
    with mp.workdps(80):
        return mpq(x)


def test_appendix_b1_crossing_is_asymmetric():
    """001 App. B.1, line 498: H_{4/3}(P||Q) > H_{4/3}(Q||P) but H_2(P||Q) < H_2(Q||P), so
    neither direction dominates; checked on the exact values."""
    pq, qp = Pair(RR_P, RR_Q) ** 2, Pair(RR_Q, RR_P) ** 2
    assert hockey_stick(pq, alpha="4/3").exact > hockey_stick(qp, alpha="4/3").exact
    assert hockey_stick(pq, alpha=2).exact < hockey_stick(qp, alpha=2).exact
    # swap() of the composition is the other direction
    assert hockey_stick(pq.swap(), alpha=2).exact == Fraction(1, 8)


# --- brute-force enumeration -----------------------------------------------------------

def _compositions():
    p1, p2, p3 = Pair(A3, B3), Pair(C2, D2), Pair(RR_P, RR_Q)
    return {
        "A3B3": (p1, [(A3, B3)]),
        "A3B3^3": (p1 ** 3, [(A3, B3)] * 3),
        "B3A3^2": (p1.swap() ** 2, [(B3, A3)] * 2),
        "A3B3*C2D2": (p1 * p2, [(A3, B3), (C2, D2)]),
        "A3B3*B3A3": (p1 * p1.swap(), [(A3, B3), (B3, A3)]),
        "C2D2^2*RR*A3B3": ((p2 ** 2) * p3 * p1, [(C2, D2), (C2, D2), (RR_P, RR_Q), (A3, B3)]),
        "RR^5": (p3 ** 5, [(RR_P, RR_Q)] * 5),
        "same": (Pair(SAME, SAME) ** 2, [(SAME, SAME)] * 2),
    }


COMPOSITIONS = _compositions()


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
@pytest.mark.parametrize("alpha", ALPHAS)
def test_exact_against_enumeration(name, alpha):
    """H_alpha(prod P_i || prod Q_i) = sum over all outcome tuples of (p - alpha q)_+,
    enumerated with Fractions (includes q = 0 and p = 0 outcomes, mixed products)."""
    pair, factors = COMPOSITIONS[name]
    r = hockey_stick(pair, alpha=alpha)
    assert r.exact == brute_H(product_table(factors), alpha)
    A, B = r.exact_form
    assert A - Fraction(alpha) * B == r.exact


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
@pytest.mark.parametrize("eps", ["-1/2", 0, "1/10", "1/2", 1, "5/2"])
def test_delta_exact_form_against_enumeration(name, eps):
    """delta(eps) = A - e^eps B where A, B are the P- and Q-masses of the outcomes with
    p > e^eps q (decided exactly, conftest.ratio_exceeds_exp); the value is that closed
    form evaluated at 80 digits."""
    pair, factors = COMPOSITIONS[name]
    rows = product_table(factors)
    r = delta(pair, eps)
    A, B = brute_AB(rows, eps)
    assert r.exact_form == (A, B)
    assert r.eps == Fraction(eps)
    with mp.workdps(80):
        oracle = mpq(A) - mp.exp(mpq(eps)) * mpq(B)
        if oracle != 0:
            assert_verified(r, oracle, digits=20)
        else:
            assert r.value == 0


def test_same_distribution_gives_one_minus_alpha():
    """For P = Q, (p - alpha q)_+ = (1 - alpha)_+ p pointwise, so H_alpha = (1 - alpha)_+."""
    pair = Pair(SAME, SAME) ** 3
    for alpha in ALPHAS:
        assert hockey_stick(pair, alpha=alpha).exact == max(1 - Fraction(alpha), Fraction(0))


@st.composite
def discrete_pairs(draw):
    """Two random distributions on the same (small) label set, zeros allowed on either side."""
    size = draw(st.integers(2, 4))
    def dist():
        w = draw(st.lists(st.integers(0, 6), min_size=size, max_size=size).filter(any))
        total = sum(w)
        return Discrete({i: Fraction(x, total) for i, x in enumerate(w) if x})
    return dist(), dist()


rational_alpha = st.builds(Fraction, st.integers(1, 40), st.integers(1, 12))


@settings(max_examples=25, deadline=None)
@given(discrete_pairs(), discrete_pairs(), st.integers(1, 3), rational_alpha)
def test_random_discrete_compositions_enumeration(pq1, pq2, k, alpha):
    """(P1, Q1)^k x (P2, Q2) against enumeration of all outcome tuples."""
    pair = (Pair(*pq1) ** k) * Pair(*pq2)
    rows = product_table([pq1] * k + [pq2])
    assert hockey_stick(pair, alpha=alpha).exact == brute_H(rows, alpha)


@settings(max_examples=25, deadline=None)
@given(discrete_pairs(), st.integers(1, 3), rational_alpha)
def test_symmetry_identity_discrete_exact(pq, k, alpha):
    """H_alpha(P||Q) = 1 - alpha + alpha H_{1/alpha}(Q||P) (docs/numerics.md): from
    (p - alpha q)_+ = p - alpha q + (alpha q - p)_+ = p - alpha q + alpha (q - p/alpha)_+,
    summed over the outcomes.  Exact for discrete pairs."""
    pair = Pair(*pq) ** k
    lhs = hockey_stick(pair, alpha=alpha).exact
    rhs = 1 - alpha + alpha * hockey_stick(pair.swap(), alpha=1 / alpha).exact
    assert lhs == rhs


# --- total variation, H_0, monotonicity, convexity (exact) ------------------------------

@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_h1_is_total_variation(name):
    """H_1(P||Q) = sum (p - q)_+ = (1/2) sum |p - q| (both sum to 1)."""
    pair, factors = COMPOSITIONS[name]
    rows = product_table(factors)
    tv = sum((abs(p - q) for p, q in rows), Fraction(0)) / 2
    assert hockey_stick(pair, alpha=1).exact == tv
    assert delta(pair, 0).exact == tv  # eps = 0 is alpha = 1, exactly


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_h0_is_one(name):
    """H_0(P||Q) = sum p_+ = 1."""
    pair, _ = COMPOSITIONS[name]
    assert hockey_stick(pair, alpha=0).exact == 1


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_monotone_and_convex_in_alpha(name):
    """alpha -> H_alpha is non-increasing and convex (a sum of (p - alpha q)_+, each convex
    and non-increasing); on an equispaced grid the exact first differences are <= 0 and
    second differences >= 0.  The grid contains the kinks (likelihood ratios) of A3/B3."""
    pair, _ = COMPOSITIONS[name]
    grid = [Fraction(j, 6) for j in range(0, 6 * 8 + 1)]
    h = [hockey_stick(pair, alpha=a).exact for a in grid]
    assert all(b <= a for a, b in zip(h, h[1:]))
    assert all(h[i - 1] - 2 * h[i] + h[i + 1] >= 0 for i in range(1, len(h) - 1))


# --- epsilon(delta) ---------------------------------------------------------------------

EPS_CASES = [
    ("RR^2", Pair(RR_P, RR_Q) ** 2, [(RR_P, RR_Q)] * 2),
    ("RR^5", Pair(RR_P, RR_Q) ** 5, [(RR_P, RR_Q)] * 5),
    ("C2D2*RR", Pair(C2, D2) * Pair(RR_P, RR_Q), [(C2, D2), (RR_P, RR_Q)]),
    ("B3A3^2", Pair(B3, A3) ** 2, [(B3, A3)] * 2),   # q = 0 mass 7/16: all inf
    ("A3B3*C2D2", Pair(A3, B3) * Pair(C2, D2), [(A3, B3), (C2, D2)]),  # q = 0 mass 1/6
]


@pytest.mark.parametrize("name, pair, factors", EPS_CASES, ids=[c[0] for c in EPS_CASES])
@pytest.mark.parametrize("target", ["1/100", "1/20", "1/10", "1/5", "3/10"])
def test_epsilon_exact_form_recomputes_target(name, pair, factors, target):
    """eps(delta): recompute delta at the returned eps by enumeration at 80 digits; it must
    equal the target within |d delta / d eps| * abs_error = e^eps B * abs_error, and delta
    just below eps must exceed the target (smallest eps).  The exact form (A, B) must be
    the enumerated masses of {p > e^eps q}, and eps = ln((A - delta)/B)."""
    rows = product_table(factors)
    target = Fraction(target)
    r = epsilon(pair, target)
    assert r.delta_target == target
    with mp.workdps(80):
        d0 = sum((max(p - q, Fraction(0)) for p, q in rows), Fraction(0))
        if d0 <= target:
            assert r.value == 0
            return
        m_inf = sum((p for p, q in rows if q == 0), Fraction(0))
        if target < m_inf:
            assert mp.isinf(r.value) and r.value > 0
            return
        eps = mp.mpf(r.value)
        assert mp.isfinite(eps) and eps > 0
        # outcomes strictly above e^eps at the returned eps (its error, ~1e-29, is far
        # below the gaps between the log-ratios of these small pairs)
        above = [(p, q) for p, q in rows if q == 0 or (p > 0 and mpq(p / q) > mp.exp(eps))]
        A = sum((p for p, _ in above), Fraction(0))
        B = sum((q for _, q in above), Fraction(0))
        if r.exact_form is not None:
            assert r.exact_form == (A, B)
            assert abs(mp.log(mpq((A - target) / B)) - eps) <= r.abs_error
        slope = mp.exp(eps) * mpq(B)
        recomputed = brute_delta_mpf(rows, eps)
        assert abs(recomputed - mpq(target)) <= slope * r.abs_error * 2 + mp.mpf(10) ** -60
        step = mp.mpf(10) ** -12
        assert brute_delta_mpf(rows, eps - step) > mpq(target)
        assert brute_delta_mpf(rows, eps + step) <= mpq(target)
    assert r.verified_digits is None or r.verified_digits >= 20


def test_epsilon_at_a_knot_is_log_ratio():
    """At a target equal to delta(ln r) for a likelihood ratio r of the PLD, the answer is
    exactly ln r (delta is strictly decreasing just below ln r).  RR^3 (the pair of 001
    App. B.1 composed three times) has ratios 27/8, 9/8, 3/8, 1/8 (j = 0..3 ones) and
    delta(ln 9/8) = 27/64 - (9/8)(1/8) = 9/32: only the all-zero outcome lies above."""
    rows = product_table([(RR_P, RR_Q)] * 3)
    assert brute_H(rows, Fraction(9, 8)) == Fraction(9, 32)
    r = epsilon(Pair(RR_P, RR_Q) ** 3, Fraction(9, 32))
    with mp.workdps(60):
        assert abs(r.value - mp.log(mpq("9/8"))) <= r.abs_error + mp.mpf(10) ** -40
    assert r.verified_digits is None or r.verified_digits >= 20


def test_epsilon_zero_when_delta_at_zero_suffices():
    """delta(0) = TV(RR^2) = 9/16 - 1/4 = 5/16 (only (0,0) has p > q); any target >= 5/16
    gives eps = 0 exactly."""
    pair = Pair(RR_P, RR_Q) ** 2
    for target in ["5/16", "1/2", 1]:
        r = epsilon(pair, target)
        assert r.value == 0 and r.abs_error == 0


def test_epsilon_infinite_below_mass_where_q_is_zero():
    """(A3, B3): outcome c has q = 0 and p = 1/6, so delta(eps) >= 1/6 for every eps and
    eps(delta) = +inf for delta < 1/6.  At delta = 1/6 exactly the answer is finite: the
    largest finite ratio is p(a)/q(a) = 2 and delta(eps) = 1/6 for e^eps >= 2, so eps = ln 2.
    Composed twice: the q = 0 mass is 1 - (5/6)^2 = 11/36."""
    pair = Pair(A3, B3)
    for target in [0, "1/10", Fraction(1, 6) - Fraction(1, 10 ** 40)]:
        r = epsilon(pair, target)
        assert mp.isinf(r.value) and r.value > 0
    r = epsilon(pair, "1/6")
    with mp.workdps(60):
        assert abs(r.value - mp.log(2)) <= r.abs_error + mp.mpf(10) ** -40
    sq = Pair(A3, B3) ** 2
    assert mp.isinf(epsilon(sq, Fraction(11, 36) - Fraction(1, 10 ** 30)).value)
    assert mp.isfinite(epsilon(sq, Fraction(11, 36)).value)


def test_epsilon_list_input():
    """A list of targets gives a list of results, each equal to the single-target call."""
    pair = Pair(RR_P, RR_Q) ** 2
    many = epsilon(pair, ["1/100", "1/10"])
    assert [r.value for r in many] == [epsilon(pair, t).value for t in ["1/100", "1/10"]]


# --- randomized response, k = 1000 ------------------------------------------------------

def test_randomized_response_k1000_binomial_sum():
    """P = (3/4, 1/4), Q = (1/4, 3/4) composed k = 1000 times.  An outcome with j ones has
    p_j = 3^{k-j} / 4^k and q_j = 3^j / 4^k, ratio 3^{k-2j}; there are C(k, j) of them, so
    H_alpha = sum_j C(k, j) (3^{k-j} - alpha 3^j)_+ / 4^k, summed exactly with Fractions."""
    k = 1000
    P = Discrete({0: "3/4", 1: "1/4"})
    Q = Discrete({0: "1/4", 1: "3/4"})
    pair = Pair(P, Q) ** k
    for alpha in [Fraction(1), Fraction(7, 2), Fraction(3) ** 40 + Fraction(1, 3)]:
        oracle = sum((comb(k, j) * max(3 ** (k - j) - alpha * 3 ** j, Fraction(0))
                      for j in range(k + 1)), Fraction(0)) / Fraction(4) ** k
        assert hockey_stick(pair, alpha=alpha).exact == oracle
    # delta(eps) for eps = 30: outcomes with (k - 2j) ln 3 > 30, i.e. k - 2j >= 28
    eps = Fraction(30)
    A = sum((comb(k, j) * Fraction(3 ** (k - j), 4 ** k) for j in range(k + 1)
             if ratio_exceeds_exp(Fraction(3) ** (k - j), Fraction(3) ** j, eps)), Fraction(0))
    B = sum((comb(k, j) * Fraction(3 ** j, 4 ** k) for j in range(k + 1)
             if ratio_exceeds_exp(Fraction(3) ** (k - j), Fraction(3) ** j, eps)), Fraction(0))
    r = delta(pair, eps)
    assert r.exact_form == (A, B)
    with mp.workdps(100):
        assert_verified(r, mpq(A) - mp.exp(30) * mpq(B), digits=20)
    # eps(delta) at delta = 1e-100: recompute delta at the returned eps with the binomial
    # sum at 300 digits; it must hit the target within slope * abs_error, slope = e^eps B
    target = Fraction(1, 10 ** 100)
    e = epsilon(pair, target)
    with mp.workdps(300):
        x = mp.exp(e.value)
        terms = [comb(k, j) * (mp.mpf(3) ** (k - j) - x * mp.mpf(3) ** j) / mp.mpf(4) ** k
                 for j in range(k + 1)]
        recomputed = mp.fsum(t for t in terms if t > 0)
        slope = x * mp.fsum(comb(k, j) * mp.mpf(3) ** j / mp.mpf(4) ** k
                            for j in range(k + 1) if terms[j] > 0)
        assert abs(recomputed - mpq(target)) <= 2 * slope * e.abs_error
        assert slope * e.abs_error <= mpq(target) * mp.mpf(10) ** -15
    assert e.verified_digits is None or e.verified_digits >= 20


# --- randomized response, T = 2 10^4 and 10^5 (BinomialPLD) ---------------------------------

RR51 = Pair(Discrete({0: "51/100", 1: "49/100"}), Discrete({0: "49/100", 1: "51/100"}))


@pytest.mark.slow
def test_randomized_response_T20000_direct_binomial_terms():
    """RR 51/100 vs 49/100, T = 2 10^4.  delta(1) = sum over outcomes with j ones whose
    ratio (51/49)^{T-2j} exceeds e: (T - 2j) ln(51/49) > 1 iff T - 2j >= 25 (ln(51/49) =
    0.04001, 24 * 0.04001 < 1 < 25 * 0.04001).  A and B are summed here term by term, each
    term C(T, j) 51^{T-j} 49^j computed directly (FLINT powers and binomials, no
    recurrence), against the engine's walk."""
    import flint
    T = 20000
    top = (T - 25) // 2                       # j = 0..top have T - 2j >= 25
    a = sum(flint.fmpz.bin_uiui(T, j) * flint.fmpz(51) ** (T - j) * flint.fmpz(49) ** j
            for j in range(top + 1))
    b = sum(flint.fmpz.bin_uiui(T, j) * flint.fmpz(49) ** (T - j) * flint.fmpz(51) ** j
            for j in range(top + 1))
    r = delta(RR51 ** T, 1)
    assert r.exact_form == (Fraction(int(a), 100 ** T), Fraction(int(b), 100 ** T))


@pytest.mark.slow
def test_randomized_response_T100000_symmetry_identity():
    """RR 51/100 is symmetric under relabelling 0 <-> 1, so (Q, P) is (P, Q) relabelled
    and H_alpha(P||Q) = 1 - alpha + alpha H_{1/alpha}(P||Q) (001 Sec. 2), exactly, at
    T = 10^5: the two sides come from walks at opposite ends of the 10^5 + 1 atoms."""
    pair = RR51 ** 100000
    alpha = Fraction(3, 2)
    left = hockey_stick(pair, alpha=alpha).exact
    right = 1 - alpha + alpha * hockey_stick(pair, alpha=1 / alpha).exact
    assert left == right
    assert 0 < left < 1


@given(st.integers(1, 40), st.integers(1, 40), st.integers(2, 30))
@settings(max_examples=40, deadline=None)
def test_binomial_pld_agrees_with_multinomial_expansion(i, j, k):
    """The two-atom PLD summed by binary splitting (``BinomialPLD``) against the stored
    multinomial expansion (``_Factor.power``, itself checked against enumeration above):
    atoms, cumulative masses at every j (visited in an order that moves the anchor both ways),
    delta at rational alpha and at e^eps, and eps(delta) at every knot value (the "log"
    answers) and between knots."""
    P, Q = Discrete({0: Fraction(i, 41), 1: 1 - Fraction(i, 41)}), \
        Discrete({0: Fraction(j, 41), 1: 1 - Fraction(j, 41)})
    one = engine.pld_of_pair(P, Q)
    summed = engine.compose([(one, k)])
    if i == j:
        assert not isinstance(summed, engine.BinomialPLD)
        return
    assert isinstance(summed, engine.BinomialPLD)
    ratios = [one.ratio(0), one.ratio(1)]
    primes = engine.coprime_base([x for r in ratios for x in (r.numerator, r.denominator)])
    factor = engine._Factor.of(one, primes).power(k)
    stored = engine._sorted_pld(factor.atoms, factor.dp, factor.dq)
    assert summed.size == stored.size == k + 1
    assert [summed.atom(t) for t in range(k + 1)] == list(stored.atoms)
    order = [t for pair in zip(range(k + 1), range(k + 1, -1, -1)) for t in pair]
    assert [summed.form(t) for t in order] == [stored.form(t) for t in order]
    for alpha in [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2), summed.ratio(k // 2)]:
        assert summed.exact_form(alpha=alpha) == stored.exact_form(alpha=alpha)
    for eps in [Fraction(0), Fraction(1, 10), Fraction(2)]:
        assert summed.exact_form(eps=eps) == stored.exact_form(eps=eps)
    knots = [stored.form(t)[0] - stored.ratio(t) * stored.form(t)[1] for t in range(k + 1)]
    for target in knots + [x + Fraction(1, 10 ** 9) for x in knots] + [Fraction(1, 10 ** 30)]:
        if 0 <= target <= 1:
            assert summed.epsilon_form(target) == stored.epsilon_form(target)


@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 12), st.integers(1, 12))
@settings(max_examples=40, deadline=None)
def test_two_binomial_pld_agrees_with_the_expansion(i, j, m, n):
    """The orders' term A^m B^n || B^m A^n of two binary distributions, summed against
    prefix sums (``TwoBinomialPLD``), against the stored expansion of the product
    (``_Factor.compose``): atoms, cumulative masses, delta at rational alpha and at e^eps,
    eps(delta) at and between the knot values."""
    if i == j:
        return
    A, B = (Discrete({0: Fraction(x, 41), 1: 1 - Fraction(x, 41)}) for x in (i, j))
    forward, backward = engine.pld_of_pair(A, B), engine.pld_of_pair(B, A)
    summed = engine.compose([(forward, m), (backward, n)])
    assert isinstance(summed, engine.TwoBinomialPLD)
    ratios = [pld.ratio(t) for pld in (forward, backward) for t in (0, 1)]
    primes = engine.coprime_base([x for r in ratios for x in (r.numerator, r.denominator)])
    factor = engine._Factor.of(forward, primes).power(m).compose(
        engine._Factor.of(backward, primes).power(n))
    stored = engine._sorted_pld(factor.atoms, factor.dp, factor.dq)
    assert summed.size == stored.size == m + n + 1
    assert [summed.atom(t) for t in range(m + n + 1)] == list(stored.atoms)
    assert [summed.form(t) for t in range(m + n + 2)] == [stored.form(t) for t in
                                                           range(m + n + 2)]
    for alpha in [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2), stored.ratio(m)]:
        assert summed.exact_form(alpha=alpha) == stored.exact_form(alpha=alpha)
    for eps in [Fraction(0), Fraction(1, 10), Fraction(2)]:
        assert summed.exact_form(eps=eps) == stored.exact_form(eps=eps)
    knots = [stored.form(t)[0] - stored.ratio(t) * stored.form(t)[1] for t in range(m + n + 1)]
    for target in knots + [x + Fraction(1, 10 ** 9) for x in knots]:
        if 0 <= target <= 1:
            assert summed.epsilon_form(target) == stored.epsilon_form(target)


def test_two_binomial_pld_needs_one_lattice():
    """Two-atom factors whose ratios step by different factors do not collapse onto one
    lattice: the product keeps the general expansion."""
    one, two = (engine.pld_of_pair(Discrete({0: a, 1: 1 - a}), Discrete({0: b, 1: 1 - b}))
                for a, b in ((Fraction(3, 5), Fraction(1, 2)), (Fraction(2, 3), Fraction(1, 2))))
    assert not isinstance(engine.compose([(one, 3), (two, 4)]), engine.TwoBinomialPLD)
    with pytest.raises(ValueError, match="one lattice"):
        engine.TwoBinomialPLD(one, 3, two, 4)


def test_wor_substitution_of_randomized_response_against_enumeration():
    """Randomized response 3/5 under substitution with sampling without replacement (a
    batch of 10 of 1000), 8 steps: H_alpha is the maximum over the 9 orders (001 Sec. 7)
    of the sum over all 2^8 outcome tuples of (p - alpha q)_+, enumerated with Fractions."""
    from refacct.mechanisms import build, randomized_response

    entry = build(randomized_response("3/5"), "wor", "substitution", n=1000, batch=10)
    pair = entry.terms[0][1].factors[0][0]
    A, B = pair.P, pair.Q
    for alpha in [Fraction(1), Fraction(101, 100), Fraction(11, 10)]:
        expected = max(brute_H(product_table([(A, B)] * j + [(B, A)] * (8 - j)), alpha)
                       for j in range(9))
        assert hockey_stick(entry, alpha=alpha, steps=8).exact == expected


@given(st.integers(1, 300), st.integers(0, 301), st.integers(0, 301), st.integers(1, 9),
       st.integers(1, 9))
@settings(max_examples=60, deadline=None)
def test_binomial_sum_against_the_terms(n, lo, hi, u, w):
    """Binary splitting (``binomial_sum``) against the terms C(n, i) u^{n-i} w^i summed one
    by one with Python's comb, over ranges that cross the 32-term blocks."""
    lo, hi = sorted((min(lo, n + 1), min(hi, n + 1)))
    direct = sum(comb(n, i) * u ** (n - i) * w ** i for i in range(lo, hi))
    assert int(engine.binomial_sum(n, u, w, lo, hi)) == direct


@given(st.lists(st.booleans(), min_size=0, max_size=200).map(sorted), st.integers(-50, 260))
@settings(max_examples=80, deadline=None)
def test_search_from_a_guess_finds_the_first_true(flags, guess):
    """``_first`` with any guess, however far off (outside the range included), returns
    the first index whose test holds, as a linear scan does."""
    first = next((i for i, f in enumerate(flags) if f), len(flags))
    assert engine.PLD([], 1, 1)._first(0, len(flags), lambda j: flags[j], guess) == first


@pytest.mark.slow
def test_randomized_response_million_steps_symmetry_identity():
    """RR 51/100 composed 10^6 times (binomial partial sums by binary splitting):
    H_alpha(P||Q) = 1 - alpha + alpha H_{1/alpha}(P||Q) (001 Sec. 2, with (Q, P) = (P, Q)
    relabelled), exactly; the two sides sum opposite ends of the 10^6 + 1 atoms."""
    pair = RR51 ** 10 ** 6
    alpha = Fraction(5, 4)
    left = hockey_stick(pair, alpha=alpha).exact
    assert left == 1 - alpha + alpha * hockey_stick(pair, alpha=1 / alpha).exact
    assert 0 < left < 1


# --- low-level engine ------------------------------------------------------------------

def _grouped(rows):
    """{ratio (Fraction, or 'inf' / 'zero'): [P-mass, Q-mass]} from enumerated outcomes."""
    out = {}
    for p, q in rows:
        key = "zero" if p == 0 else "inf" if q == 0 else p / q
        slot = out.setdefault(key, [Fraction(0), Fraction(0)])
        slot[0] += p
        slot[1] += q
    return out


def _pld_table(pld):
    out = {}
    for j in range(pld.size):
        p, q = pld.atom(j)
        key = "zero" if p == 0 else "inf" if q == 0 else pld.ratio(j)
        assert key not in out, "atoms with equal ratios must be merged"
        out[key] = [Fraction(p, pld.dp), Fraction(q, pld.dq)]
    return out


def test_pld_of_pair_groups_by_ratio():
    """One atom per distinct likelihood ratio, masses summed; q = 0 and p = 0 outcomes are
    their own atoms.  Atoms are sorted by strictly decreasing ratio."""
    P = Discrete({1: "1/4", 2: "1/4", 3: "1/4", 4: "1/4"})
    Q = Discrete({1: "1/8", 2: "1/8", 3: "1/2", 5: "1/4"})  # ratios 2, 2, 1/2; 4: inf; 5: 0
    pld = engine.pld_of_pair(P, Q)
    assert _pld_table(pld) == {Fraction(2): [Fraction(1, 2), Fraction(1, 4)],
                               Fraction(1, 2): [Fraction(1, 4), Fraction(1, 2)],
                               "inf": [Fraction(1, 4), Fraction(0)],
                               "zero": [Fraction(0), Fraction(1, 4)]}
    ratios = [pld.ratio_mpf(j) for j in range(pld.size)]
    assert all(a > b for a, b in zip(ratios, ratios[1:]))
    assert pld.mass_at_infinity() == Fraction(1, 4)


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compose_matches_enumerated_pld(name):
    """engine.compose of one-step PLDs equals the PLD obtained by grouping all enumerated
    outcome tuples by their exact ratio."""
    _, factors = COMPOSITIONS[name]
    counts = {}
    for f in factors:
        counts[f] = counts.get(f, 0) + 1
    pld = engine.compose([(engine.pld_of_pair(P, Q), n) for (P, Q), n in counts.items()])
    assert _pld_table(pld) == {k: v for k, v in _grouped(product_table(factors)).items()}


def test_compose_repeated_squaring_path():
    """A pair with 7 distinct ratios composed 12 times has C(18, 6) = 18564 count vectors;
    at 13 times C(19, 6) = 27132 > 20000 and the engine squares instead.  Both paths are checked on
    exact H values against a Fraction convolution of the grouped one-step PLD."""
    P = Discrete({i: Fraction(i + 1, 28) for i in range(7)})
    Q = Discrete({i: Fraction(7 - i, 28) for i in range(7)})
    one = _grouped(product_table([(P, Q)]))
    for k in (12, 13):
        dist = {Fraction(1): [Fraction(1), Fraction(1)]}
        for _ in range(k):
            new = {}
            for r1, (p1, q1) in dist.items():
                for r2, (p2, q2) in one.items():
                    slot = new.setdefault(r1 * r2, [Fraction(0), Fraction(0)])
                    slot[0] += p1 * p2
                    slot[1] += q1 * q2
            dist = new
        for alpha in [Fraction(1), Fraction(5, 2), Fraction(10 ** 6)]:
            oracle = sum((max(p - alpha * q, Fraction(0)) for p, q in dist.values()), Fraction(0))
            assert hockey_stick(Pair(P, Q) ** k, alpha=alpha).exact == oracle


def test_pld_exact_and_epsilon_form():
    """PLD.exact_form(alpha) = (A, B) with A, B the masses of ratios > alpha (enumerated);
    PLD.epsilon_form on RR^3 (ratios 27/8, 9/8, 3/8, 1/8 with P-masses 27/64, 27/64, 9/64,
    1/64 and Q-masses 1/8, 3/8, 3/8, 1/8): delta(0) = 27/64 + 27/64 - 1/8 - 3/8 = 11/32."""
    pld = engine.compose([(engine.pld_of_pair(RR_P, RR_Q), 3)])
    rows = product_table([(RR_P, RR_Q)] * 3)
    for alpha in [Fraction(0), Fraction(1, 8), Fraction(1), Fraction(9, 8), Fraction(3), Fraction(4)]:
        A = sum((p for p, q in rows if p > alpha * q), Fraction(0))
        B = sum((q for p, q in rows if p > alpha * q), Fraction(0))
        assert pld.exact_form(alpha=alpha) == (A, B)
    assert pld.epsilon_form(Fraction(11, 32)) == ("zero", None)
    assert pld.epsilon_form(Fraction(1, 2)) == ("zero", None)
    assert pld.epsilon_form(Fraction(9, 32)) == ("log", Fraction(9, 8))
    # between the knots ln 27/8 (delta 0) and ln 9/8 (delta 9/32): A = 27/64, B = 1/8
    assert pld.epsilon_form(Fraction(1, 10)) == ("closed", (Fraction(27, 64), Fraction(1, 8)))
    assert pld.epsilon_form(Fraction(0)) == ("log", Fraction(27, 8))


# --- exactness must not cost integer factorisation ---------------------------------------

class _Budget(Exception):
    pass


def _with_time_limit(seconds, fn):
    """Run fn() and raise _Budget if it takes longer than ``seconds`` (SIGALRM; the engine is
    pure Python, so the alarm interrupts it)."""
    def handler(signum, frame):
        raise _Budget(f"no result within {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# N = (next prime after 10^24) * (next prime after 3 10^24), written out so the test does not
# depend on sympy: 1000000000000000000000007 * 3000000000000000000000007 (both prime)
_SEMIPRIME = 1000000000000000000000007 * 3000000000000000000000007


def test_large_prime_masses_compose_quickly():
    """P = (a, 1 - a) with a = N / (2N + 1), N a 49-digit semiprime, Q = (1/2, 1/2);
    H_1(P^2 || Q^2) by enumerating the 4 outcomes with Fractions, within a 5 s budget
    (enumeration takes microseconds)."""
    a = Fraction(_SEMIPRIME, 2 * _SEMIPRIME + 1)
    P = Discrete({0: a, 1: 1 - a})
    Q = Discrete({0: "1/2", 1: "1/2"})
    want = brute_H(product_table([(P, Q)] * 2), 1)
    got = _with_time_limit(5, lambda: hockey_stick(Pair(P, Q) ** 2, alpha=1).exact)
    assert got == want
