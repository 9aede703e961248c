"""The maximum over the orders of a two-outcome pair, for many steps: every order's
cumulative masses from one tree of binomial convolutions in fixed point, each proven by
rounding down with a slack (docs/numerics.md, "Mixed orders of two outcomes, many steps").

Under substitution with sampling without replacement each step may run either way (001
Sec. 7, ``mechanisms.relations.mixed_directions``):

    delta(eps) = max_{j = 0..T} delta_j(eps),   delta_j = H_{e^eps}(A^j B^(T-j) || B^j A^(T-j)).

Let Pair(A, B) have two outcomes of likelihood ratios r_1 = a_1 / b_1 > r_2 = a_2 / b_2, all
four masses positive, losses l_k = ln r_k and D = l_1 - l_2.  An outcome of order j with x of
its j forward steps (A || B) on outcome 2 and y of its T - j backward steps (B || A) on
outcome 1 has the loss

    L = j l_1 - (T - j) l_2 - i D,   i = x + y,

so the atoms of order j are indexed by i, their loss decreasing in i, and (001 Definition 3)

    delta_j(eps) = max_n [A_j(n) - e^eps B_j(n)],   A_j(n) = P(I_j < n),  B_j(n) = Q(I_j < n),

attained at n = #{i : L_i > eps}: any other n adds an atom of loss at most eps or leaves out
one above it.  Under P the count is I_j = Bin(j, a_2) + Bin(T - j, b_1), under Q
Bin(j, b_2) + Bin(T - j, a_1): per side, Bin(j, u) + Bin(T - j, v).

**One tree for every order.**  For j in [lo, hi], I_j = K + E_j with K = Bin(lo, u) +
Bin(T - hi, v) common to all of them and E_j a sum of the hi - lo other trials, so
P(I_j < n) = sum_e P(E_j = e) P(K < n - e) needs P(K < m) only for m in [min n - (hi - lo),
max n] (n over the thresholds the node's orders ask).  A node keeps K's probabilities on
that window and P(K < its start); a child's K is its parent's plus the trials the child
fixes (Bin(hi - mid, v) for [lo, mid], Bin(mid + 1 - lo, u) for [mid + 1, hi]): one
polynomial product, its window a slice of the parent's (the child's window starts at least
that many trials above the parent's, so a count below the parent's window stays below the
child's, and every count the child keeps comes from the parent's window), the counts sliced
off below added to P(K < start).  A leaf's K is I_j.  The windows of a level add up to
O(T) counts; where the thresholds move with j (by (l_1 + l_2) / D a step), a window spans
the counts between them.  Rounded down, the probabilities more than about sqrt(W T) counts
from K's mean are 0, and a window (like each binomial) is kept from its first nonzero count
on: the products' lengths are those of the distributions' bulk, not of the windows.

**Proven by rounding down.**  A probability is an integer over S = 2^W, and every
operation is a product or sum of nonnegative numbers, each rounded down (the Bernoulli
masses, each product's division by S, each exact leaf's division by its denominator), so
every number computed lies below the probability it stands for.  A node carries three
such lower bounds, of K below its window, on it and above it: disjoint events whose
probabilities add up to 1.  At a leaf their sum falls short of 1 by the slack d, which
bounds the loss of every rounding behind that leaf; a rounded-down P(I_j < n) sums lower
bounds of parts of the same events and adds one last floor, so it falls short of the truth
by at most d + 1 units.  Each A_j(n), B_j(n) thus comes as [value, value + d + 1], without
an error analysis; d grows with the count of roundings (about T log T units at most), and
W is chosen for the digits asked above delta's scale.  Probabilities in FLINT integer
polynomials (``fmpz_poly``: products by Kronecker substitution, nearly linear in the bits).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import flint
from mpmath import mp

from ... import progress

__all__ = ["TwoOutcomes", "Cumulative", "cumulative", "thresholds"]

ZP = flint.fmpz_poly
LEAVES = 16   # orders a node hands to ``leaves`` (exact binomials) instead of children


class TwoOutcomes(NamedTuple):
    """A pair of two outcomes, both masses positive, as its masses (a_1, a_2) and (b_1, b_2)
    with r_1 = a_1 / b_1 > r_2 = a_2 / b_2 (exact)."""

    a: Tuple[Fraction, Fraction]
    b: Tuple[Fraction, Fraction]

    def side(self, name: str) -> Tuple[Fraction, Fraction]:
        """(u, v) of ``name`` "P" or "Q": I_j = Bin(j, u) + Bin(T - j, v) on that side."""
        return (self.a[1], self.b[0]) if name == "P" else (self.b[1], self.a[0])

    def losses(self, dps: int):
        """(l_1, l_2) at ``dps`` digits."""
        with mp.workdps(dps):
            return tuple(mp.log(mp.mpf(a.numerator) * b.denominator) -
                         mp.log(mp.mpf(a.denominator) * b.numerator)
                         for a, b in zip(self.a, self.b))


def thresholds(pair: TwoOutcomes, steps: int, eps_lo, eps_hi) -> List[Tuple[int, int]]:
    """For every order j, a range [first, last] of n that holds #{i : L_i > eps} for every
    eps in [eps_lo, eps_hi] (mpf): the count is ceil(x_j(eps)), x_j(eps) = (j (l_1 + l_2) -
    T l_2 - eps) / D, clipped to [0, T + 1].  x_j is x_0 + j k in integers over 2^64 (each
    of x_0, k within 2^-64 of its value at 60 digits), so its error stays below (T + 2)
    2^-64 + 10^-50: one more n on either side holds the count."""
    T = steps
    with mp.workdps(60 + len(str(T))):
        l1, l2 = pair.losses(mp.dps)
        D = l1 - l2
        one = mp.mpf(2) ** 64
        k = int(mp.floor((l1 + l2) / D * one))
        starts = [int(mp.floor((-T * l2 - e) / D * one)) for e in (eps_hi, eps_lo)]
    out = []
    for j in range(T + 1):
        first = -((-(starts[0] + j * k)) >> 64) - 1
        last = -((-(starts[1] + j * k)) >> 64) + 1
        out.append((min(max(first, 0), T + 1), min(max(last, 0), T + 1)))
    return out


class Cumulative(NamedTuple):
    """P(I_j < n) on one side for every order j and n in its range, integers over
    2^``bits``: ``values[j]`` at n = first, first + 1, ... rounded down, and ``slack[j]``
    with value + slack at or above the truth (module docstring, "Proven by rounding")."""

    values: List[List[int]]
    slack: List[int]
    bits: int


def _floor(poly, bits: int):
    """Each coefficient of ``poly`` (nonnegative) divided by 2^bits, rounded down.
    ``fmpz_poly``'s ``//`` is polynomial division, which for a constant divisor rounds each
    coefficient on its own; its remainder is checked (every coefficient in [0, 2^bits),
    FLINT's signed height), else the coefficients are divided one by one."""
    scale = 1 << bits
    quotient = poly // scale
    if 0 <= (poly - quotient * scale).height_bits(signed=True) <= bits:
        return quotient
    return ZP([c // scale for c in poly.coeffs()])


def _stripped(poly) -> Tuple[int, "flint.fmpz_poly"]:
    """(k, poly / x^k) with k the count of ``poly``'s zero coefficients below its first
    nonzero one (a binary search on ``truncate``: after rounding down, the probabilities
    far out in a tail are 0, and the products need not carry them)."""
    if poly.is_zero():
        return 0, poly
    lo, hi = 0, poly.length() - 1       # truncate(lo) is zero, truncate(hi + 1) is not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if poly.truncate(mid).is_zero():
            lo = mid
        else:
            hi = mid - 1
    return lo, poly.right_shift(lo)


class _Binomials:
    """The binomial polynomials of one side, (1 - w + w x)^m over 2^bits rounded down, by
    repeated squaring (each product divided by 2^bits), as (k, poly) with the k zeros below
    the first nonzero coefficient stripped; and exact ones, numerators over a denominator,
    for the few trials left at a leaf."""

    def __init__(self, u: Fraction, v: Fraction, bits: int) -> None:
        self.bits = bits
        self.step = {w: (0, ZP([((x.denominator - x.numerator) << bits) // x.denominator,
                                (x.numerator << bits) // x.denominator]))
                     for w, x in (("u", u), ("v", v))}
        self.masses = {w: (x.denominator - x.numerator, x.numerator, x.denominator)
                       for w, x in (("u", u), ("v", v))}
        self._powers: Dict[Tuple[str, int], Tuple[int, "flint.fmpz_poly"]] = {}
        self._exact: Dict[Tuple[int, int], Tuple["flint.fmpz_poly", int]] = {}

    def times(self, a, b) -> Tuple[int, "flint.fmpz_poly"]:
        k, poly = _stripped(_floor(a[1] * b[1], self.bits))
        return a[0] + b[0] + k, poly

    def power(self, w: str, m: int) -> Tuple[int, "flint.fmpz_poly"]:
        key = (w, m)
        if key not in self._powers:
            if m == 0:
                self._powers[key] = (0, ZP([1 << self.bits]))
            elif m == 1:
                self._powers[key] = self.step[w]
            else:
                half = self.power(w, m // 2)
                square = self.times(half, half)
                self._powers[key] = self.times(square, self.step[w]) if m % 2 else square
        return self._powers[key]

    def exact(self, a: int, b: int):
        """(numerators, denominator) of (1 - u + u x)^a (1 - v + v x)^b."""
        if (a, b) not in self._exact:
            (u0, u1, du), (v0, v1, dv) = self.masses["u"], self.masses["v"]
            self._exact[a, b] = (ZP([u0, u1]) ** a * ZP([v0, v1]) ** b, du ** a * dv ** b)
        return self._exact[a, b]


def cumulative(pair: TwoOutcomes, steps: int, side: str, ranges: Sequence[Tuple[int, int]],
               bits: int) -> Cumulative:
    """P(I_j < n) on ``side`` ("P" or "Q") for every order j and n in ``ranges[j]``
    (module docstring).  A node carries lower bounds of P(K < start), of K's
    probabilities on its window and of P(K >= its end), three disjoint events; at a leaf
    their sum falls short of 1 by the slack d, the sum of every rounding's loss.  A
    rounded-down P(I_j < n) adds lower bounds of some of the same events' parts, and its
    own last floor, so it falls short of the truth by at most d + 1 units.  The window is
    kept from its first nonzero count on (``first``: the counts between start and first
    have the lower bound 0)."""
    T = steps
    u, v = pair.side(side)
    polys = _Binomials(u, v, bits)
    S = 1 << bits
    values: List[Optional[List[int]]] = [None] * (T + 1)
    slack = [0] * (T + 1)
    low = _window_ends(ranges)

    def leaves(lo: int, hi: int, first: int, pmf, below: int, above: int) -> None:
        """Each order's P(I_j < n) from K's window and E_j's exact binomials."""
        for j in range(lo, hi + 1):
            numerators, den = polys.exact(j - lo, hi - j)
            product = pmf * numerators
            n0, n1 = ranges[j]
            total = int(product.truncate(max(0, n0 - first))(1))
            sums = [below + total // den]
            for c in product.right_shift(max(0, n0 - first)).truncate(
                    max(0, n1 - max(n0, first))).coeffs():
                total += int(c)
                sums.append(below + total // den)
            sums.extend([sums[-1]] * (n1 - n0 + 1 - len(sums)))
            values[j] = sums
            slack[j] = S - (below + above + int(product(1)) // den) + 1

    def node(lo: int, hi: int, first: int, pmf, below: int, above: int) -> None:
        """K's probabilities from count ``first`` on (``pmf``, rounded down), and lower
        bounds of P(K < the window's start) and of P(K >= its end)."""
        progress.check()
        if hi - lo < LEAVES:
            leaves(lo, hi, first, pmf, below, above)
            return
        mid = (lo + hi) // 2
        for a, b, (k, fixed) in ((lo, mid, polys.power("v", hi - mid)),
                                 (mid + 1, hi, polys.power("u", mid + 1 - lo))):
            c0, c1 = low(a, b), max(ranges[a][1], ranges[b][1])
            at = first + k                  # the count of the product's first coefficient
            product = pmf * fixed
            cut, stop = max(0, c0 - at), max(0, c1 - at)
            kept = int(product.truncate(stop)(1))
            sliced = int(product.truncate(cut)(1)) if cut else 0
            zeros, window = _stripped(_floor(product.right_shift(cut).truncate(stop - cut),
                                             bits))
            node(a, b, at + cut + zeros, window, below + sliced // S,
                 above + (int(product(1)) - kept) // S)

    c0 = low(0, T)
    if c0 == 0:
        node(0, T, 0, ZP([S]), 0, 0)
    else:
        node(0, T, c0, ZP([]), S, 0)
    return Cumulative(values, slack, bits)


def _window_ends(ranges: Sequence[Tuple[int, int]]):
    """The start of the window of orders [a, b]: the least n they ask minus the b - a trials
    still to come, not below 0.  The thresholds are monotone in j (linear, then clipped),
    so the least is at an end."""
    def low(a: int, b: int) -> int:
        return max(0, min(ranges[a][0], ranges[b][0]) - (b - a))
    return low
