"""Pairs, compositions and public mixtures: validation, algebra, and values against exact
enumeration (discrete) or closed forms (Gaussian / Laplace shift pairs)."""
from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from mpmath import mp

from refacct import (Composition, Discrete, Gaussian, Laplace, Pair, PublicMixture,
                     delta, epsilon, hockey_stick)

from conftest import (assert_verified, balle_wang, brute_H, laplace_H, mpq, oracle_agree,
                      product_table)

P1 = Discrete({0: "3/4", 1: "1/4"})
Q1 = Discrete({0: "1/2", 1: "1/2"})
P2 = Discrete({"a": "1/2", "b": "1/3", "c": "1/6"})
Q2 = Discrete({"a": "1/4", "b": "1/2", "d": "1/4"})   # q(c) = 0, p(d) = 0
P3 = Discrete({0: "1/10", 1: "9/10"})
Q3 = Discrete({0: "2/5", 1: "3/5"})


# --- validation and algebra -------------------------------------------------------------

def test_pair_rejects_mixed_kinds_and_non_distributions():
    with pytest.raises(TypeError, match="P and Q"):
        Pair(P1, Gaussian(0, 1))
    with pytest.raises(TypeError, match="P and Q"):
        Pair(Laplace(0, 1), Q1)
    with pytest.raises(TypeError, match="Q"):
        Pair(Gaussian(0, 1), 3)
    with pytest.raises(TypeError, match="P"):
        Pair("N(0,1)", Gaussian(0, 1))
    with pytest.raises(TypeError):
        Pair(P1, Q1) * 3
    with pytest.raises(TypeError):
        Composition.of(Pair(P1, Q1), (P1, Q1))


@pytest.mark.parametrize("k, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                      (2.0, TypeError), (True, TypeError), ("2", TypeError),
                                      (Fraction(2), TypeError)])
def test_power_needs_int_at_least_one(k, error):
    pair = Pair(P1, Q1)
    with pytest.raises(error, match="k"):
        pair ** k
    with pytest.raises(error, match="k"):
        (pair * Pair(P2, Q2)) ** k
    with pytest.raises(error, match="k"):
        PublicMixture([(1, pair)]) ** k


def test_composition_algebra():
    """Products are commutative and associative, powers multiply, swap reverses every
    factor; compositions are canonical (equal objects for equal multisets of factors)."""
    a, b, c = Pair(P1, Q1), Pair(P2, Q2), Pair(P3, Q3)
    assert a * b == b * a
    assert (a * b) * c == a * (b * c) == c * b * a
    assert a ** 2 * a == a ** 3 == a * a * a
    assert (a ** 2) ** 3 == a ** 6
    assert (a * b) ** 2 == a ** 2 * b ** 2
    assert (a ** 2 * b).steps == 3
    assert (a * b).swap() == a.swap() * b.swap()
    assert a.swap() == Pair(Q1, P1) and a.swap().swap() == a
    assert sorted(map(repr, (a ** 2 * b).pairs())) == sorted(map(repr, [a, a, b]))


def test_mixed_product_order_exact():
    """H(P1 x P2 || Q1 x Q2) and H(P2 x P1 || Q2 x Q1) are both the enumerated value (the
    product measure's outcomes are the same up to relabelling)."""
    a, b = Pair(P1, Q1), Pair(P2, Q2).swap()
    for alpha in [Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(5)]:
        want = brute_H(product_table([(P1, Q1), (Q2, P2)]), alpha)
        assert want == brute_H(product_table([(Q2, P2), (P1, Q1)]), alpha)
        assert hockey_stick(a * b, alpha=alpha).exact == want
        assert hockey_stick(b * a, alpha=alpha).exact == want


def test_public_mixture_validation():
    pair = Pair(P1, Q1)
    with pytest.raises(ValueError, match="weight"):
        PublicMixture([("1/2", pair), ("1/3", pair)])
    with pytest.raises(ValueError, match="weight"):
        PublicMixture([("3/2", pair), ("-1/2", pair)])
    with pytest.raises(TypeError):
        PublicMixture([(1, 5)])
    with pytest.raises(TypeError):
        PublicMixture([(1, Gaussian(0, 1))])


# --- public mixtures: values --------------------------------------------------------------

def test_public_mixture_one_step_discrete_weighted_sum():
    """H_alpha(sum_r w_r (P_r, Q_r)) = sum_r w_r H_alpha(P_r || Q_r) (the output reveals r:
    the pair is (w_r P_r(x))_{r,x} vs (w_r Q_r(x))_{r,x} on disjoint outcomes; the w_r factor
    out of (w_r p - alpha w_r q)_+).  Also checked by enumerating the disjoint union."""
    pm = PublicMixture([("1/3", Pair(P1, Q1)), ("1/6", Pair(P2, Q2)), ("1/2", Pair(P3, Q3) ** 2)])
    parts = [(Fraction(1, 3), [(P1, Q1)]), (Fraction(1, 6), [(P2, Q2)]),
             (Fraction(1, 2), [(P3, Q3)] * 2)]
    for alpha in [0, Fraction(1, 2), 1, Fraction(4, 3), 3]:
        want = sum((w * brute_H(product_table(f), alpha) for w, f in parts), Fraction(0))
        union = [(w * p, w * q) for w, f in parts for p, q in product_table(f)]
        assert want == brute_H(union, alpha)
        assert hockey_stick(pm, alpha=alpha).exact == want


def _sequence_expansion(terms, k, alpha):
    """Brute force for (sum_r w_r pair_r)^k: the sum over all sequences (r_1..r_k) of
    prod w_{r_i} times the enumerated H of the product of the chosen pairs."""
    total = Fraction(0)
    for seq in itertools.product(terms, repeat=k):
        weight = Fraction(1)
        factors = []
        for w, f in seq:
            weight *= w
            factors += f
        total += weight * brute_H(product_table(factors), alpha)
    return total


@pytest.mark.parametrize("k", [1, 2, 3])
def test_public_mixture_power_discrete_sequences(k):
    """pm ** k against the explicit expansion over all 3^k sequences (not over multisets as
    the implementation does)."""
    terms = [(Fraction(1, 5), [(P1, Q1)]), (Fraction(3, 10), [(P2, Q2)]),
             (Fraction(1, 2), [(P3, Q3), (Q1, P1)])]
    pm = PublicMixture([(w, Composition.of(*[Pair(P, Q) for P, Q in f])) for w, f in terms])
    for alpha in [Fraction(1), Fraction(7, 4), Fraction(6)]:
        assert hockey_stick(pm ** k, alpha=alpha).exact == _sequence_expansion(terms, k, alpha)


def test_public_mixture_product_with_pair_and_mixture():
    """pm * pair and pm1 * pm2 distribute: (sum w_r A_r) x B = sum w_r (A_r x B)."""
    pm1 = PublicMixture([("1/4", Pair(P1, Q1)), ("3/4", Pair(P2, Q2))])
    pm2 = PublicMixture([("2/3", Pair(P3, Q3)), ("1/3", Pair(Q1, P1))])
    alpha = Fraction(3, 2)
    want = sum((w1 * w2 * brute_H(product_table([f1, f2]), alpha)
                for w1, f1 in [(Fraction(1, 4), (P1, Q1)), (Fraction(3, 4), (P2, Q2))]
                for w2, f2 in [(Fraction(2, 3), (P3, Q3)), (Fraction(1, 3), (Q1, P1))]),
               Fraction(0))
    assert hockey_stick(pm1 * pm2, alpha=alpha).exact == want
    want_pair = sum((w * brute_H(product_table([f, (P3, Q3)]), alpha)
                     for w, f in [(Fraction(1, 4), (P1, Q1)), (Fraction(3, 4), (P2, Q2))]),
                    Fraction(0))
    assert hockey_stick(pm1 * Pair(P3, Q3), alpha=alpha).exact == want_pair
    assert hockey_stick(Pair(P3, Q3) * pm1, alpha=alpha).exact == want_pair


def test_public_mixture_epsilon_discrete():
    """eps(delta) of a discrete public mixture: delta at the returned eps, recomputed as
    the weighted enumerated sum at 60 digits, equals the target within slope * abs_error,
    and exceeds it just below."""
    pm = PublicMixture([("1/2", Pair(P1, Q1) ** 2), ("1/2", Pair(P3, Q3))])
    rows = ([(p / 2, q / 2) for p, q in product_table([(P1, Q1)] * 2)]
            + [(p / 2, q / 2) for p, q in product_table([(P3, Q3)])])
    target = Fraction(1, 20)
    r = epsilon(pm, target)
    with mp.workdps(60):
        def d(e):
            return mp.fsum(max(mpq(p) - mp.exp(e) * mpq(q), 0) for p, q in rows)
        slope = mp.fsum(mpq(q) for p, q in rows if mpq(p) > mp.exp(r.value) * mpq(q)) * mp.exp(r.value)
        assert abs(d(r.value) - mpq(target)) <= 2 * slope * r.abs_error + mp.mpf(10) ** -50
        assert d(r.value - mp.mpf(10) ** -12) > mpq(target)


def test_public_mixture_one_step_continuous():
    """(1/4) (N(1,1)||N(0,1)) + (1/4) (N(0,1)||N(2,1)) + (1/2) (Lap(1,1)||Lap(0,1)):
    (1/4) BW(eps; m=1) + (1/4) BW(eps; m=2) + (1/2) (1 - e^{(eps - 1)/2})  (Laplace closed
    form, test_onestep)."""
    pm = PublicMixture([("1/4", Pair(Gaussian(1, 1), Gaussian(0, 1))),
                        ("1/4", Pair(Gaussian(0, 1), Gaussian(2, 1))),
                        ("1/2", Pair(Laplace(1, 1), Laplace(0, 1)))])
    for eps in ["1/2", 0, "-1/3"]:
        def fn():
            e = mpq(eps)
            return (balle_wang(e, mp.one) / 4 + balle_wang(e, mp.mpf(2)) / 4
                    + laplace_H(mp.exp(e), 1) / 2)
        oracle, oerr = oracle_agree(fn)
        assert_verified(delta(pm, eps), oracle, 20, oerr)


def test_public_mixture_discrete_and_continuous_terms():
    """A discrete term and a continuous term: the discrete part exactly, the continuous
    part by Balle-Wang."""
    pm = PublicMixture([("1/3", Pair(P1, Q1) ** 2), ("2/3", Pair(Gaussian(1, 1), Gaussian(0, 1)))])
    alpha = Fraction(4, 3)
    oracle, oerr = oracle_agree(lambda: mpq(Fraction(1, 3) * Fraction(11, 48))
                                + 2 * balle_wang(mp.log(mpq(alpha)), mp.one) / 3)
    assert_verified(hockey_stick(pm, alpha=alpha), oracle, 20, oerr)
    # alpha = e^eps: the discrete part is A - e^eps B with A, B enumerated (001 App. B.1
    # pair: for e^{1/2} = 1.65 only the (0,0) outcome, ratio 9/4, lies above: A = 9/16,
    # B = 1/4)
    rows = product_table([(P1, Q1)] * 2)
    A = sum((p for p, q in rows if p > Fraction(165, 100) * q), Fraction(0))
    B = sum((q for p, q in rows if p > Fraction(165, 100) * q), Fraction(0))
    assert (A, B) == (Fraction(9, 16), Fraction(1, 4))
    oracle, oerr = oracle_agree(lambda: (mpq(A) - mp.exp(mp.mpf(1) / 2) * mpq(B)) / 3
                                + 2 * balle_wang(mp.mpf(1) / 2, mp.one) / 3)
    assert_verified(delta(pm, "1/2"), oracle, 20, oerr)


def test_public_mixture_epsilon_continuous():
    """eps(1/10) of (1/2)(N(1,1)||N(0,1)) + (1/2)(Lap(1,1)||Lap(0,1)): root of
    BW(eps; 1)/2 + (1 - e^{(eps-1)/2})/2 = 1/10, found by bracketing at 60/90 digits."""
    pm = PublicMixture([("1/2", Pair(Gaussian(1, 1), Gaussian(0, 1))),
                        ("1/2", Pair(Laplace(1, 1), Laplace(0, 1)))])

    def fn():
        d = lambda e: balle_wang(e, mp.one) / 2 + laplace_H(mp.exp(e), 1) / 2
        f = lambda e: mp.log(d(e)) - mp.log(mp.mpf(1) / 10)
        return mp.findroot(f, (mp.mpf(1) / 10, mp.mpf(3) - mp.mpf(1) / 10**6), solver="illinois")

    oracle, oerr = oracle_agree(fn)
    assert_verified(epsilon(pm, "1/10"), oracle, 20, oerr)


def test_public_mixture_power_gaussian():
    """pm = (1/2) (N(1,1)||N(0,1)) + (1/2) (N(2,1)||N(0,1)); pm^2 over the 4 sequences:
    (1/4) G(m^2 = 2) + (1/2) G(m^2 = 1 + 4) + (1/4) G(m^2 = 8) where G(m^2) is the shift pair
    with m = sqrt(m^2) (Gaussian losses add; m^2 adds), evaluated by Balle-Wang."""
    pm = PublicMixture([("1/2", Pair(Gaussian(1, 1), Gaussian(0, 1))),
                        ("1/2", Pair(Gaussian(2, 1), Gaussian(0, 1)))])
    eps = Fraction(1)
    seq_weights = {}
    for s in itertools.product([1, 4], repeat=2):
        seq_weights[sum(s)] = seq_weights.get(sum(s), 0) + Fraction(1, 4)
    oracle, oerr = oracle_agree(lambda: mp.fsum(mpq(w) * balle_wang(mpq(eps), mp.sqrt(m2))
                                               for m2, w in seq_weights.items()))
    assert_verified(delta(pm ** 2, eps), oracle, 20, oerr)
