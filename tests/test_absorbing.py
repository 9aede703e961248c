"""Discrete pairs with outcomes of likelihood ratio inf (q = 0) or 0 (p = 0), composed many
times (``engines.exact.discrete.AbsorbingPLD``): such outcomes absorb (one component of
ratio inf makes the product inf), so the k-fold PLD is a few powers in closed form.

Oracles, independent of the engine: the (0, delta_1) pair's delta(eps) = 1 - (1 - d)^k for
eps >= 0 (the P-mass of the outcomes with some q = 0; the others have ratio 1 or 0), and
H_alpha = 1 - (1 - d)^k + (1 - d)^k (1 - alpha) for alpha < 1 (the ratio-1 outcomes count
too); a pair with one finite atom of ratio r = (1 - a) / b: H_alpha = 1 - (1 - a)^k +
max(0, (1 - a)^k - alpha b^k); enumeration of the 3^k outcomes of a pair with two finite
atoms and an absorbing one, k <= 6.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest
from mpmath import mp

from conftest import brute_H, mpq
from refacct import Discrete, Pair, delta, epsilon, hockey_stick
from refacct import routing

F = Fraction


def zero_delta(d) -> Pair:
    d = F(d)
    return Pair(Discrete({0: d, 1: 1 - d}), Discrete({1: 1 - d, 2: d}))


def same(x: Fraction, num: int, den: int) -> bool:
    """x == num / den, by cross-multiplication (no gcd of million-digit integers)."""
    return x.numerator * den == num * x.denominator


@pytest.mark.parametrize("d, k", [("1e-3", 10 ** 5), ("1/3", 1000), ("1e-8", 20)])
def test_zero_delta_pair_exactly(d, k):
    """delta(0) and delta(1) of the (0, delta_1) pair at k steps: 1 - (1 - d)^k, exactly
    (10^5 steps: a 300000-digit rational)."""
    d = F(d)
    keep = (d.denominator - d.numerator) ** k, d.denominator ** k
    r = delta(zero_delta(d) ** k, 0)
    assert r.exact is not None and same(r.exact, keep[1] - keep[0], keep[1])
    r = delta(zero_delta(d) ** k, 1)
    with mp.workdps(40):
        truth = 1 - mpq(1 - d) ** k if k < 10 ** 5 else -mp.expm1(k * mp.log1p(-mpq(d)))
        assert abs(r.value - truth) <= r.abs_error and r.verified_digits >= 20


@pytest.mark.parametrize("alpha", [F(1, 2), F(1), F(3)])
def test_zero_delta_pair_at_every_alpha(alpha):
    d, k = F(1, 7), 300
    stay = (1 - d) ** k
    truth = 1 - stay + (stay * (1 - alpha) if alpha < 1 else 0)
    assert hockey_stick(zero_delta(d) ** k, alpha=alpha).exact == truth


def test_zero_delta_pair_epsilon():
    """eps(delta) is inf below the mass where q = 0, 0 at and above it."""
    d, k = F(1, 1000), 10 ** 4
    mass = 1 - (1 - d) ** k  # about 0.99995
    assert epsilon(zero_delta(d) ** k, "1/2").value == mp.inf
    assert epsilon(zero_delta(d) ** k, mass).value == 0


@pytest.mark.parametrize("alpha", [F(1, 3), F(1), F(7, 2), F(40)])
def test_one_finite_atom_of_ratio_other_than_one(alpha):
    """P = {0: a, 1: 1 - a}, Q = {1: b, 2: 1 - b}: atoms inf, (1 - a) / b, 0."""
    a, b, k = F(1, 10), F(1, 2), 500
    pair = Pair(Discrete({0: a, 1: 1 - a}), Discrete({1: b, 2: 1 - b}))
    p, q = (1 - a) ** k, b ** k
    assert hockey_stick(pair ** k, alpha=alpha).exact == 1 - p + max(F(0), p - alpha * q)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("alpha", [F(1, 2), F(1), F(2), F(9)])
def test_two_finite_atoms_and_absorbing_ones_against_enumeration(k, alpha):
    """Outcomes 0 (q = 0), 1, 2 (finite ratios 2 and 8/15) and 3 (p = 0)."""
    P = {0: F(1, 10), 1: F(1, 2), 2: F(2, 5), 3: F(0)}
    Q = {0: F(0), 1: F(1, 4), 2: F(3, 4) - F(1, 20), 3: F(1, 20)}
    pair = Pair(Discrete({x: m for x, m in P.items() if m}),
                Discrete({x: m for x, m in Q.items() if m}))
    rows = [(math.prod(P[x] for x in xs), math.prod(Q[x] for x in xs))
            for xs in product(P, repeat=k)]
    r = hockey_stick(pair ** k if k > 1 else pair, alpha=alpha)
    assert r.exact == brute_H(rows, alpha)


def test_few_atom_pairs_stay_exact_to_a_million_steps():
    """The route: the (0, delta_1) pair and binary randomized response (at most two atoms
    of finite ratio) composed 10^6 times go to the exact PLD; a pair with three finite
    ratios leaves it beyond 10^4 steps."""
    route = routing.route_pair(zero_delta("1e-8") ** 10 ** 6)
    assert not route.bracket
    rr = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/4", 1: "3/4"}))
    assert not routing.route_pair(rr ** 10 ** 6).bracket
    three = Pair(Discrete({0: "1/2", 1: "1/4", 2: "1/4"}), Discrete({0: "1/4", 1: "1/4", 2: "1/2"}))
    assert not routing.route_pair(three ** 10 ** 4).bracket
    assert routing.route_pair(three ** (10 ** 4 + 1)).bracket
    with pytest.raises(ValueError, match="steps must be <= 1000000"):
        routing.route_pair(zero_delta("1e-8") ** (10 ** 6 + 1))
