"""Exact engine for discrete pairs (docs/numerics.md, "Discrete pairs, exactly").

The privacy-loss distribution (PLD, 001 Definition 5) of a discrete pair is kept as atoms,
one per distinct likelihood ratio r = p(x)/q(x) (r = inf where q = 0, r = 0 where p = 0),
each carrying its exact P-mass and Q-mass as integers over two common denominators.
Composition multiplies ratios and masses; k-fold self-composition uses the multinomial
expansion over count vectors or, when there are too many count vectors, repeated squaring;
a two-atom pair (binary randomized response) is composed in closed form, its k + 1 atoms
summed on demand by binary splitting and never stored (``BinomialPLD``).  Ratios are keyed by their exponent vectors over
a coprime base of the one-step ratios' numerators and denominators, so equal ratios merge
without any gcd during composition.

For any alpha >= 0 (001 Definition 3),

    H_alpha(P || Q) = sum_{r > alpha} (p_r - alpha q_r) = A(alpha) - alpha B(alpha),

with A, B exact rationals constant between consecutive ratios, so
eps(delta) = ln((A - delta) / B) on the right interval, in closed form.
"""
from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from math import comb, factorial, gcd, lcm
from typing import Dict, Iterable, List, Optional, Tuple

import flint
from mpmath import mp

from ... import progress
from ...distributions import Discrete
from ...exact import count_vectors, quotient_mpf, reduced, to_mpf
from ..arb import arb_ends

__all__ = ["PLD", "BinomialPLD", "TwoBinomialPLD", "pld_of_pair", "compose", "mix",
           "ratio_exceeds_exp", "coprime_base", "exponents", "binomial_sum"]

ZERO, INFINITE = "zero", "inf"  # keys of the atoms with p = 0 and with q = 0

# Products and comparisons of the queries' numerators go through FLINT integers: Python's
# are Karatsuba, 10 s a product at the 26-million-bit masses of 10^6 composed steps.
Z = flint.fmpz


class _Queries:
    """Exact queries on a PLD's atoms (P_j, Q_j), integer numerators over the denominators
    (dp, dq), sorted by strictly decreasing ratio r_j = (P_j / dp) / (Q_j / dq).  A
    subclass gives ``size``, ``atom(j)`` and ``numerators(j)``, the numerators of the
    cumulative masses A_j, B_j of the j atoms with the largest ratios (j = 0..size)."""

    size: int
    dp: int
    dq: int

    def atom(self, j: int) -> Tuple[int, int]:
        raise NotImplementedError

    def numerators(self, j: int) -> Tuple[int, int]:
        raise NotImplementedError

    def proportional(self, j: int) -> Tuple[int, int]:
        """Integers (u, v) with u / v = P_j / Q_j (v = 0 where Q_j = 0), over the same
        denominators (dp, dq): the atom itself, or anything of its ratio that is cheaper."""
        return self.atom(j)

    def ratio(self, j: int):
        """Exact ratio of atom j: a Fraction, or ``mp.inf`` where q = 0."""
        p, q = self.proportional(j)
        return mp.inf if not q else Fraction(p * self.dq, q * self.dp)

    def ratio_mpf(self, j: int):
        p, q = self.proportional(j)
        return mp.inf if not q else quotient_mpf(p * self.dq, q * self.dp)

    def _first(self, lo: int, hi: int, test, guess: Optional[int] = None) -> int:
        """Smallest j in [lo, hi) with ``test(j)`` (hi if none), for a test that is false
        then true along j: by bisection, after galloping out from ``guess`` when one is
        given (a guess off by n costs 2 log2(n) + 2 tests, never a wrong answer)."""
        if guess is not None:
            lo, hi = self._gallop(lo, hi, test, min(max(guess, lo), hi))
        while lo < hi:
            mid = (lo + hi) // 2
            if test(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    @staticmethod
    def _gallop(lo: int, hi: int, test, j: int) -> Tuple[int, int]:
        """A range [lo, hi] holding the answer of ``_first``, grown from j in doubling
        steps."""
        step = 1
        if j < hi and not test(j):
            lo = j + 1
            while lo + step < hi and not test(lo + step):
                lo, step = lo + step + 1, 2 * step
            return lo, min(hi, lo + step)
        hi = j
        while hi - step >= lo and test(hi - step):
            hi, step = hi - step, 2 * step
        return max(lo, hi - step + 1), hi

    def _crossing(self, log_alpha) -> Optional[int]:
        """A guess of ``count_above`` at alpha = e^log_alpha, or None (bisection only)."""
        return None

    def count_above(self, alpha: Fraction) -> int:
        """Number of atoms with ratio > alpha (rational alpha >= 0), exactly."""
        def at_most(j):
            p, q = (Z(m) for m in self.proportional(j))
            return p * Z(self.dq) * alpha.denominator <= alpha.numerator * q * Z(self.dp)
        guess = self._crossing(mp.log(to_mpf(alpha))) if alpha else None
        return self._first(0, self.size, at_most, guess)

    def count_above_exp(self, eps: Fraction) -> int:
        """Number of atoms with ratio > e^eps (rational eps), decided exactly."""
        return self._first(0, self.size, lambda j: not ratio_exceeds_exp(
            self.proportional(j), self.dp, self.dq, eps), self._crossing(to_mpf(eps)))

    def form(self, j: int) -> Tuple[Fraction, Fraction]:
        """(A_j, B_j) as exact rationals."""
        a, b = self.numerators(j)
        return reduced(a, self.dp), reduced(b, self.dq)

    def value(self, alpha: Fraction) -> Fraction:
        """H_alpha = A - alpha B exactly, for a rational alpha >= 0, from the integer
        numerators: one gcd (``exact.reduced``) instead of Fraction arithmetic on
        million-digit rationals."""
        a, b = (Z(m) for m in self.numerators(self.count_above(alpha)))
        dp, dq = Z(self.dp), Z(self.dq)
        num = a * dq * alpha.denominator - alpha.numerator * b * dp
        return reduced(num, dp * dq * alpha.denominator)

    def exact_form(self, alpha: Optional[Fraction] = None, eps: Optional[Fraction] = None):
        """(A, B) with H_alpha = A - alpha B, for rational alpha or alpha = e^eps."""
        return self.form(self.count_above(alpha) if eps is None else self.count_above_exp(eps))

    def mass_at_infinity(self) -> Fraction:
        """P-mass where q = 0: the limit of delta(eps) as eps -> infinity."""
        return self.form(self.count_above_infinite())[0]

    def count_above_infinite(self) -> int:
        """Number of atoms with q = 0 (they come first: their ratio is inf)."""
        return self._first(0, self.size, lambda j: self.atom(j)[1] != 0)

    def epsilon_form(self, delta: Fraction):
        """Smallest eps >= 0 with delta(eps) <= delta, in closed form.

        Returns ``("zero", None)``, ``("inf", None)``, ``("log", r)`` meaning eps = ln r for
        an exact ratio r, or ``("closed", (A, B))`` meaning eps = ln((A - delta) / B).
        delta(eps) is non-increasing; at the knot ln r_j it equals A_j - r_j B_j, which is
        non-decreasing in j, so the knot interval is found by exact bisection.
        """
        j0 = self.count_above(Fraction(1))
        if self._difference_sign(j0, self.dp, self.dq, delta) <= 0:
            return "zero", None
        s = self.count_above_infinite()
        if delta < self.mass_at_infinity():
            return "inf", None
        # knots j = s .. j0-1 (ratios > 1, eps decreasing with j); find the first j whose
        # knot value exceeds delta.
        lo = self._first_knot_above(delta, s, j0)
        if lo > s and self._knot_sign(lo - 1, delta) == 0:
            return "log", self.ratio(lo - 1)
        return "closed", self.form(lo)

    def _first_knot_above(self, delta: Fraction, lo: int, hi: int) -> int:
        return self._first(lo, hi, lambda j: self._knot_sign(j, delta) > 0)

    def _knot_sign(self, j: int, delta: Fraction) -> int:
        """Sign of delta(ln r_j) - delta, where delta(ln r_j) = A_j - r_j B_j."""
        return self._difference_sign(j, *self.proportional(j), delta)

    def _difference_sign(self, j: int, num: int, den: int, delta: Fraction) -> int:
        """Sign of A_j - r B_j - delta for the ratio r = (num / dp) / (den / dq) (den > 0),
        in the integer numerators a, b of A_j, B_j: A_j - r B_j = (a den - num b) / (den dp).
        Integers only: Python's Fraction arithmetic would reduce by its quadratic gcd."""
        a, b = (Z(m) for m in self.numerators(j))
        num, den = Z(num), Z(den)
        diff = (a * den - num * b) * delta.denominator - delta.numerator * den * Z(self.dp)
        return (diff > 0) - (diff < 0)


class PLD(_Queries):
    """A PLD with its atoms (P_j, Q_j) stored, sorted by strictly decreasing ratio."""

    def __init__(self, atoms: List[Tuple[int, int]], dp: int, dq: int) -> None:
        self.atoms, self.dp, self.dq = tuple(atoms), dp, dq

    @property
    def size(self) -> int:
        return len(self.atoms)

    def atom(self, j: int) -> Tuple[int, int]:
        return self.atoms[j]

    def numerators(self, j: int) -> Tuple[int, int]:
        a, b = self.cumulative
        return a[j], b[j]

    @cached_property
    def cumulative(self) -> Tuple[List[int], List[int]]:
        """Integer numerators of A_j, B_j (j = 0..n)."""
        a, b = [0], [0]
        for p, q in self.atoms:
            a.append(a[-1] + p)
            b.append(b[-1] + q)
        return a, b


class BinomialPLD(_Queries):
    """PLD of the T-fold self-composition of two atoms (p_1, q_1), (p_2, q_2) over (dp, dq),
    both ratios finite and positive, r_1 > r_2: binary randomized response, or the finite
    part of a pair whose other atoms have ratio inf or 0 (``AbsorbingPLD``; then
    p_1 + p_2 < dp or q_1 + q_2 < dq).

    Atom j (j = 0..T) collects the outcomes with j draws of atom 2: over (dp^T, dq^T),

        P_j = C(T, j) p_1^{T-j} p_2^j,   Q_j = C(T, j) q_1^{T-j} q_2^j,

    with ratio r_1^{T-j} r_2^j, decreasing in j.  Nothing is stored: a cumulative
    numerator is the one at the nearest of j = 0, j = T + 1 and the last j asked, plus or
    minus a binomial partial sum (``binomial_sum``, binary splitting), so a query costs
    O(M(n) log^2 n) for n-bit masses where storing the atoms would cost T^2 bits.
    Arithmetic in FLINT integers (python-flint).
    """

    def __init__(self, first: Tuple[int, int], second: Tuple[int, int], dp: int, dq: int,
                 steps: int) -> None:
        if not all(first + second) or first[0] + second[0] > dp or first[1] + second[1] > dq:
            raise ValueError("BinomialPLD needs two atoms of positive masses within (dp, dq)")
        self.one = tuple(tuple(Z(m) for m in atom) for atom in (first, second))
        self.denominators = (dp, dq)
        self.steps = steps
        self.dp, self.dq = int(Z(dp) ** steps), int(Z(dq) ** steps)
        self.size = steps + 1
        # the cumulative numerators past the last atom: every outcome of the two atoms
        self._total = tuple(Z(a + b) ** steps for a, b in zip(first, second))
        self._anchor = (0, Z(0), Z(0))

    def atom(self, j: int) -> Tuple[int, int]:
        (p1, q1), (p2, q2) = self.one
        c = Z.bin_uiui(self.steps, j)
        t = self.steps - j
        return int(c * p1 ** t * p2 ** j), int(c * q1 ** t * q2 ** j)

    def numerators(self, j: int) -> Tuple[int, int]:
        anchors = [(0, Z(0), Z(0)), self._anchor, (self.size,) + self._total]
        start, a, b = min(anchors, key=lambda anchor: abs(anchor[0] - j))
        (p1, q1), (p2, q2) = self.one
        lo, hi = sorted((start, j))
        sign = 1 if start <= j else -1
        a += sign * binomial_sum(self.steps, p1, p2, lo, hi)
        b += sign * binomial_sum(self.steps, q1, q2, lo, hi)
        self._anchor = (j, a, b)
        return int(a), int(b)

    def count_above_infinite(self) -> int:
        return 0

    def _crossing(self, log_alpha) -> Optional[int]:
        """Where the ratios cross e^log_alpha, from ln r_j = T ln r_1 - j (ln r_1 - ln r_2)
        at 30 digits."""
        dp, dq = self.denominators
        with mp.workdps(30):
            log_r1, log_r2 = (mp.log(int(p)) - mp.log(int(q)) + mp.log(dq) - mp.log(dp)
                              for p, q in self.one)
            if log_r1 == log_r2:  # ratios that agree to 30 digits: bisection
                return None
            return int(mp.ceil((self.steps * log_r1 - log_alpha) / (log_r1 - log_r2)))


class TwoBinomialPLD(_Queries):
    """PLD of F^m x G^n for two-atom PLDs F, G on one lattice: F's atoms (p_1, q_1),
    (p_2, q_2) over (dp, dq) and G's (p'_1, q'_1), (p'_2, q'_2) over (dp', dq'), ratios
    r_1 > r_2 and r'_1 > r'_2 with r_1 / r_2 = r'_1 / r'_2.  Under substitution with
    sampling without replacement term j of the orders (001 Sec. 7) is such a product, with
    F = PLD(A || B), G = PLD(B || A) and m = j, n = T - j: G's atoms are F's reversed.

    An outcome with x draws of atom 2 among F's m steps and y among G's n has the ratio
    r_1^(m - x) r_2^x r'_1^(n - y) r'_2^y, a function of i = x + y alone, decreasing in i:
    atom i (i = 0..m + n) collects every such outcome.  With the binomial numerators
    X_x = C(m, x) p_1^(m - x) p_2^x over dp^m and Y_y over dp'^n (Q alike), the masses of
    the i atoms of largest ratio are

        A_i = sum_x X_x (Y_0 + ... + Y_(i - x - 1)),

    one sum of at most m + 1 products against the prefix sums of Y (made once, O(m + n)
    integers), where expanding the product stores (m + 1)(n + 1) atoms.  Arithmetic in
    FLINT integers."""

    def __init__(self, first: "PLD", m: int, second: "PLD", n: int) -> None:
        if not (first.size == second.size == 2 and all(first.atoms[0] + first.atoms[1])
                and all(second.atoms[0] + second.atoms[1])):
            raise ValueError("TwoBinomialPLD needs two PLDs of two atoms of positive masses")
        if first.ratio(0) * second.ratio(1) != first.ratio(1) * second.ratio(0):
            raise ValueError("TwoBinomialPLD needs two PLDs on one lattice: r_1 / r_2 equal")
        self.parts = ((first, m), (second, n))
        self.dp = int(Z(first.dp) ** m * Z(second.dp) ** n)
        self.dq = int(Z(first.dq) ** m * Z(second.dq) ** n)
        self.size = m + n + 1

    def _split(self, i: int) -> Tuple[int, int]:
        """One (x, y) with x + y = i, x <= m and y <= n."""
        (_, m), _ = self.parts
        x = min(i, m)
        return x, i - x

    def proportional(self, i: int) -> Tuple[int, int]:
        """The masses of one outcome of atom i: its ratio, without a binomial sum."""
        out = [Z(1), Z(1)]
        for (pld, k), draws in zip(self.parts, self._split(i)):
            for side in (0, 1):
                out[side] *= Z(pld.atoms[0][side]) ** (k - draws) * \
                    Z(pld.atoms[1][side]) ** draws
        return int(out[0]), int(out[1])

    def atom(self, i: int) -> Tuple[int, int]:
        a, b = self.numerators(i)
        c, d = self.numerators(i + 1)
        return c - a, d - b

    @cached_property
    def _tables(self):
        """Per side (P, Q): F's binomial numerators X_0..X_m with their prefix sums, and
        the prefix sums S_k = Y_0 + ... + Y_(k-1) of G's (k = 0..n + 1)."""
        (first, m), (second, n) = self.parts
        return [(xs, _prefix(xs), _prefix(_binomial_terms(
                    n, second.atoms[0][side], second.atoms[1][side])))
                for side in (0, 1)
                for xs in [_binomial_terms(m, first.atoms[0][side], first.atoms[1][side])]]

    def numerators(self, i: int) -> Tuple[int, int]:
        """A_i = (X_0 + ... + X_(lo-1)) S_(n+1) + sum_{x = lo}^{min(m, i-1)} X_x S_(i-x),
        lo = max(0, i - n - 1): at most min(m, n) + 1 products."""
        (_, m), (_, n) = self.parts
        lo = max(0, i - n - 1)
        out = []
        for xs, below, prefix in self._tables:
            total = below[lo] * prefix[n + 1]
            for x in range(lo, min(m, i - 1) + 1):
                total += xs[x] * prefix[i - x]
            progress.check()
            out.append(int(total))
        return out[0], out[1]

    def count_above_infinite(self) -> int:
        return 0

    def _crossing(self, log_alpha) -> Optional[int]:
        """Where the ratios cross e^log_alpha: ln r_i = m ln r_1 + n ln r'_1 - i ln(r_1 /
        r_2), at 30 digits."""
        (first, m), (second, n) = self.parts
        with mp.workdps(30):
            top = m * mp.log(first.ratio_mpf(0)) + n * mp.log(second.ratio_mpf(0))
            step = mp.log(first.ratio_mpf(0)) - mp.log(first.ratio_mpf(1))
            return int(mp.ceil((top - log_alpha) / step))


def _prefix(values: List["flint.fmpz"]) -> List["flint.fmpz"]:
    """0, v_0, v_0 + v_1, ..., the sum of all."""
    out = [Z(0)]
    for v in values:
        out.append(out[-1] + v)
    return out


def _binomial_terms(n: int, u: int, w: int) -> List["flint.fmpz"]:
    """C(n, i) u^(n - i) w^i for i = 0..n, each from the one before (a product and an exact
    division by small integers)."""
    u, w = Z(u), Z(w)
    out = [u ** n]
    for i in range(n):
        out.append(out[-1] * ((n - i) * w) // ((i + 1) * u))
    return out


def binomial_sum(n: int, u, w, lo: int, hi: int) -> "flint.fmpz":
    """sum_{i = lo}^{hi - 1} C(n, i) u^{n-i} w^i exactly, for integers u, w > 0 (FLINT).

    Binary splitting over the term ratios t_{i+1} / t_i = a_i / b_i, a_i = (n - i) w,
    b_i = (i + 1) u: for [l, r), with P = prod a_m, Q = prod b_m and
    S = sum_{i=l}^{r-1} prod_{m<i} a_m prod_{m>=i} b_m (m in [l, r)), the halves merge as

        P = P_1 P_2,   Q = Q_1 Q_2,   S = S_1 Q_2 + P_1 S_2,

    and the sum is t_l S / Q (an exact division).  Cost O(M(N) log^2 N) for N-bit terms
    instead of the (hi - lo) N of walking term by term: 0.9 s for half of 10^6 terms of
    two-digit u, w.
    """
    if hi <= lo:
        return Z(0)
    u, w = Z(u), Z(w)
    first = Z.bin_uiui(n, lo) * u ** (n - lo) * w ** lo
    _, q, s = _split(n, u, w, lo, hi)
    return first * s // q


def _split(n: int, u, w, lo: int, hi: int):
    """(P, Q, S) of ``binomial_sum`` on [lo, hi); blocks of 32 terms directly."""
    if hi - lo <= 32:
        progress.check()
        p, q, s = Z(1), Z(1), Z(0)
        for m in range(lo, hi):
            b = (m + 1) * u
            s = (s + p) * b
            p, q = p * ((n - m) * w), q * b
        return p, q, s
    mid = (lo + hi) // 2
    p1, q1, s1 = _split(n, u, w, lo, mid)
    p2, q2, s2 = _split(n, u, w, mid, hi)
    return p1 * p2, q1 * q2, s1 * q2 + p1 * s2


class AbsorbingPLD(_Queries):
    """PLD of the T-fold self-composition of a PLD with atoms of ratio inf (q = 0, P-mass
    numerator ``p_inf``) or 0 (p = 0, Q-mass numerator ``q_zero``) beside a finite part F.

    An outcome with an inf component has ratio inf, one with a zero component and no inf
    one ratio 0, the rest the product of finite ratios: over (dp^T, dq^T),

        P_inf = dp^T - (dp - p_inf)^T,   Q_zero = dq^T - (dq - q_zero)^T,

    and between them the atoms of F's own T-fold (``finite``, any ``_Queries`` whose
    integer numerators are those of F's atoms raised to T; its denominators serve only to
    guess where its ratios cross a threshold).
    Atoms in order: inf, F's, zero.  For the (0, delta_1) pair F has one atom, so T steps
    cost three powers instead of the O(T^2) count vectors of three atoms (in FLINT
    integers; atoms and numerators are handed out as ints, a linear-time conversion)."""

    def __init__(self, p_inf: int, q_zero: int, finite: Optional[_Queries], dp: int, dq: int,
                 steps: int) -> None:
        dp_k, dq_k = Z(dp) ** steps, Z(dq) ** steps
        self.top = dp_k - Z(dp - p_inf) ** steps
        self.bottom = dq_k - Z(dq - q_zero) ** steps
        self.dp, self.dq = int(dp_k), int(dq_k)
        self.finite = finite
        self.inner = finite.size if finite is not None else 0
        self.first = 1 if p_inf else 0
        self.size = self.first + self.inner + (1 if q_zero else 0)

    def atom(self, j: int) -> Tuple[int, int]:
        if j < self.first:
            return int(self.top), 0
        if j - self.first < self.inner:
            return self.finite.atom(j - self.first)
        return 0, int(self.bottom)

    def numerators(self, j: int) -> Tuple[int, int]:
        inner = min(max(j - self.first, 0), self.inner)
        a, b = self.finite.numerators(inner) if self.finite is not None else (0, 0)
        a = Z(a) + (self.top if j >= self.first else 0)
        b = Z(b) + (self.bottom if j == self.size and self.bottom else 0)
        return int(a), int(b)

    def count_above_infinite(self) -> int:
        return self.first

    def _crossing(self, log_alpha) -> Optional[int]:
        inner = self.finite._crossing(log_alpha) if self.finite is not None else None
        return None if inner is None else self.first + inner


def ratio_exceeds_exp(atom: Tuple[int, int], dp: int, dq: int, eps: Fraction) -> bool:
    """Is the ratio of ``atom`` > e^eps?  Exact: ln r is transcendental for rational r != 1
    (Lindemann), so evaluating at increasing precision always decides; r = 1, r = 0, q = 0
    and eps = 0 are decided exactly."""
    p, q = atom
    if not q:
        return True
    if not p:
        return False
    num, den = int(Z(p) * Z(dq)), int(Z(q) * Z(dp))
    if eps == 0 or num == den:
        return num > den if eps == 0 else eps < 0
    dps = 30
    while True:
        with mp.workdps(dps):
            # each of ln r, eps and their difference is rounded to dps digits relative, so
            # the margin scales with |ln r| too (10^5 steps: |ln r| up to ~10^6)
            log_r = mp.log(quotient_mpf(num, den))
            diff = log_r - to_mpf(eps)
            if abs(diff) > mp.mpf(10) ** (5 - dps) * (1 + abs(to_mpf(eps)) + abs(log_r)):
                return diff > 0
        dps *= 2


# --- building PLDs ---------------------------------------------------------------------

def _from_table(table: Dict[object, List[Fraction]]) -> PLD:
    """PLD from {key: [p, q]} with rational masses (keys only group; order comes from r)."""
    rows = [(p, q) for p, q in table.values() if p or q]
    dp = lcm(*(p.denominator for p, _ in rows))
    dq = lcm(*(q.denominator for _, q in rows))
    return _sorted_pld({i: [int(p * dp), int(q * dq)] for i, (p, q) in enumerate(rows)}, dp, dq)


def _sorted_pld(atoms: Dict[object, List[int]], dp: int, dq: int) -> PLD:
    """Sort atoms by decreasing ratio P/Q (common denominators cancel in comparisons): by
    an Arb enclosure [lower, upper] of ln P - ln Q (``_log_ratio``), then every adjacent
    pair whose enclosures do not separate them is checked exactly by cross-multiplication
    (a full exact sort only if a check fails)."""
    keyed = sorted(((_log_ratio(p, q), (p, q)) for p, q in atoms.values() if p or q),
                   key=lambda kr: kr[0][0], reverse=True)
    rows = [row for _, row in keyed]
    close = [i for i in range(len(keyed) - 1) if not keyed[i][0][0] > keyed[i + 1][0][1]]
    if any(rows[i][0] * rows[i + 1][1] <= rows[i + 1][0] * rows[i][1] for i in close):
        from functools import cmp_to_key

        rows.sort(key=cmp_to_key(lambda a, b: b[0] * a[1] - a[0] * b[1]))
    return PLD(rows, dp, dq)


def _log_ratio(p: int, q: int):
    """(lower, upper): exact mpf ends of an enclosure of ln p - ln q (Arb, 128 bits), or
    (+inf, +inf) where q = 0 and (-inf, -inf) where p = 0."""
    if not q:
        return mp.inf, mp.inf
    if not p:
        return mp.ninf, mp.ninf
    with flint.ctx.workprec(128):
        return arb_ends(_ln(p) - _ln(q))


def _ln(n: int) -> "flint.arb":
    """An Arb ball holding ln n, for an int n > 0, from its top 130 bits m and the bits
    s below them: n lies in [m 2^s, (m + 1) 2^s), so ln n - ln m - s ln 2 lies in
    [0, 1/m] with 1/m <= 2^-129."""
    shift = max(0, n.bit_length() - 130)
    top = flint.arb(n >> shift).log() + shift * flint.arb.const_log2()
    return top + (flint.arb(0, 2.0 ** -129) if shift else 0)


def pld_of_pair(P: Discrete, Q: Discrete) -> PLD:
    """One-step PLD of (P, Q): one atom per distinct ratio p(x)/q(x)."""
    table: Dict[object, List[Fraction]] = {}
    for x in set(P.support()) | set(Q.support()):
        p, q = P.mass_of(x), Q.mass_of(x)
        r = ZERO if not p else INFINITE if not q else p / q
        slot = table.setdefault(r, [Fraction(0), Fraction(0)])
        slot[0] += p
        slot[1] += q
    return _from_table(table)


def mix(weighted: Iterable[Tuple[Fraction, PLD]]) -> PLD:
    """PLD of the public mixture sum_r w_r PLD_r (the output reveals r)."""
    table: Dict[object, List[Fraction]] = {}
    for w, pld in weighted:
        for j in range(pld.size):
            p, q = pld.atom(j)
            r = ZERO if not p else INFINITE if not q else pld.ratio(j)
            slot = table.setdefault(r, [Fraction(0), Fraction(0)])
            slot[0] += w * Fraction(p, pld.dp)
            slot[1] += w * Fraction(q, pld.dq)
    return _from_table(table)


# --- composition in integer arithmetic ---------------------------------------------------

def coprime_base(values: Iterable[int]) -> Tuple[int, ...]:
    """Pairwise coprime integers > 1 over which every value factors (gcd refinement, no
    integer factorisation: fast for 50-digit masses).  Exponent vectors over such a base
    are unique, so they key equal ratios."""
    base: set = set()
    for value in values:
        stack = [value]
        while stack:
            x = stack.pop()
            if x == 1:
                continue
            for b in base:
                g = gcd(x, b)
                if g > 1:
                    base.remove(b)
                    stack.extend((g, b // g, x // g))
                    break
            else:
                base.add(x)
    return tuple(sorted(base))


def exponents(n: int, base: Tuple[int, ...]) -> Tuple[int, ...]:
    """The exponent vector of the integer n >= 1 over a coprime base that it factors over."""
    out = []
    for b in base:
        e = 0
        while n % b == 0:
            n //= b
            e += 1
        out.append(e)
    return tuple(out)


class _Factor:
    """A PLD during composition: {key: [P, Q]} with integer numerators over (dp, dq) and
    key = exponent vector of the ratio over ``primes`` (or ZERO / INFINITE)."""

    def __init__(self, atoms: Dict[object, List[int]], dp: int, dq: int) -> None:
        self.atoms, self.dp, self.dq = atoms, dp, dq

    @staticmethod
    def of(pld: PLD, primes: Tuple[int, ...]) -> "_Factor":
        atoms: Dict[object, List[int]] = {}
        for j, (p, q) in enumerate(pld.atoms):
            if not p:
                key = ZERO
            elif not q:
                key = INFINITE
            else:
                r = pld.ratio(j)
                num, den = exponents(r.numerator, primes), exponents(r.denominator, primes)
                key = tuple(a - b for a, b in zip(num, den))
            atoms[key] = [p, q]
        return _Factor(atoms, pld.dp, pld.dq)

    @staticmethod
    def _add(atoms: Dict[object, List[int]], p: int, q: int, vector) -> None:
        if p or q:
            key = ZERO if not p else INFINITE if not q else vector
            slot = atoms.setdefault(key, [0, 0])
            slot[0] += p
            slot[1] += q

    def compose(self, other: "_Factor") -> "_Factor":
        atoms: Dict[object, List[int]] = {}
        for k1, (p1, q1) in self.atoms.items():
            progress.check()
            for k2, (p2, q2) in other.atoms.items():
                vector = tuple(a + b for a, b in zip(k1, k2)) if (
                    isinstance(k1, tuple) and isinstance(k2, tuple)) else None
                self._add(atoms, p1 * p2, q1 * q2, vector)
        return _Factor(atoms, self.dp * other.dp, self.dq * other.dq)

    def power(self, k: int) -> "_Factor":
        """k-fold self-composition: multinomial expansion over count vectors when there are
        few of them (binary randomized response: k + 1), else repeated squaring."""
        if comb(k + len(self.atoms) - 1, len(self.atoms) - 1) <= _MULTINOMIAL_LIMIT:
            return self._multinomial_power(k)
        result, base = None, self
        while k:
            if k & 1:
                result = base if result is None else result.compose(base)
            k >>= 1
            if k:
                base = base.compose(base)
        return result

    def _multinomial_power(self, k: int) -> "_Factor":
        """sum over (n_1..n_m), sum n_i = k, of k!/prod n_i! prod (P_i, Q_i)^{n_i}.

        Consecutive count vectors differ by a few units, so each term is the one before
        times prod_i (n_i! / n'_i!) (P_i)^{n'_i - n_i}: a multiplication and an exact
        division by small integers, linear in the terms' size, instead of products of
        large powers.  A zero mass (p = 0 or q = 0) enters the chain as 1 and zeroes the
        P- (Q-) term of every vector that uses its atom."""
        items = list(self.atoms.items())
        width = len(next((key for key, _ in items if isinstance(key, tuple)), ()))
        masses = [[p or 1 for _, (p, _) in items], [q or 1 for _, (_, q) in items]]
        unused = [[i for i, (_, (p, _)) in enumerate(items) if not p],
                  [i for i, (_, (_, q)) in enumerate(items) if not q]]
        atoms: Dict[object, List[int]] = {}
        last, terms = None, [0, 0]
        for counts in count_vectors(k, len(items)):
            progress.check()
            terms = [_term(m, counts) if last is None else _next_term(t, m, last, counts)
                     for t, m in zip(terms, masses)]
            last = counts
            vector = [0] * width
            for n, (key, _) in zip(counts, items):
                if n and isinstance(key, tuple):
                    vector = [a + n * b for a, b in zip(vector, key)]
            p, q = (0 if any(counts[i] for i in skip) else t for t, skip in zip(terms, unused))
            self._add(atoms, p, q, tuple(vector))
        return _Factor(atoms, self.dp ** k, self.dq ** k)


_MULTINOMIAL_LIMIT = 200_000


def _term(masses: List[int], counts) -> int:
    """k!/prod n_i! prod masses_i^{n_i}, k = sum n_i, computed directly."""
    out = factorial(sum(counts))
    for n, m in zip(counts, masses):
        out = out // factorial(n) * m ** n
    return out


def _next_term(term: int, masses: List[int], last, counts) -> int:
    """``_term(masses, counts)`` from ``term``, its value at the count vector ``last``."""
    num = den = 1
    for n0, n1, m in zip(last, counts, masses):
        if n1 > n0:
            num *= m ** (n1 - n0)
            den *= _falling(n1, n1 - n0)
        elif n0 > n1:
            den *= m ** (n0 - n1)
            num *= _falling(n0, n0 - n1)
    return term * num // den


def _falling(n: int, d: int) -> int:
    """n! / (n - d)! = n (n - 1) ... (n - d + 1)."""
    out = 1
    for t in range(n - d + 1, n + 1):
        out *= t
    return out


def compose(factors: Iterable[Tuple[PLD, int]]) -> PLD:
    """PLD of prod_i (P_i, Q_i)^{n_i} from the one-step PLDs and multiplicities n_i."""
    factors = list(factors)
    if len(factors) == 1 and factors[0][1] > 1:
        pld, n = factors[0]
        finite = [(p, q) for p, q in pld.atoms if p and q]
        if len(finite) == pld.size == 2:
            return BinomialPLD(pld.atoms[0], pld.atoms[1], pld.dp, pld.dq, n)
        if len(finite) < pld.size:
            return _absorbing(pld, finite, n)
    if _one_lattice(factors):
        (first, m), (second, n) = factors
        return TwoBinomialPLD(first, m, second, n)
    ratios = [pld.ratio(j) for pld, _ in factors for j, (p, q) in enumerate(pld.atoms) if p and q]
    primes = coprime_base([r.numerator for r in ratios] + [r.denominator for r in ratios])
    result = None
    for pld, n in factors:
        part = _Factor.of(pld, primes).power(n)
        result = part if result is None else result.compose(part)
    return _sorted_pld(result.atoms, result.dp, result.dq)


def _one_lattice(factors: List[Tuple[PLD, int]]) -> bool:
    """Are ``factors`` two PLDs of two finite atoms each whose ratios step by one factor
    (``TwoBinomialPLD``)?"""
    if len(factors) != 2 or any(pld.size != 2 or not all(pld.atoms[0] + pld.atoms[1])
                                for pld, _ in factors):
        return False
    (first, _), (second, _) = factors
    return first.ratio(0) * second.ratio(1) == first.ratio(1) * second.ratio(0)


def _absorbing(pld: PLD, finite: List[Tuple[int, int]], n: int) -> AbsorbingPLD:
    """``AbsorbingPLD`` of ``pld`` composed n times; its finite part composed as a
    one-atom power, a ``BinomialPLD`` or by ``compose`` (the atoms' integer numerators do
    not depend on the denominators passed)."""
    p_inf = sum(p for p, q in pld.atoms if not q)
    q_zero = sum(q for p, q in pld.atoms if not p)
    if not finite:
        part = None
    elif len(finite) == 1:
        (p, q), = finite
        part = PLD([(int(Z(p) ** n), int(Z(q) ** n))], 1, 1)
    elif len(finite) == 2:
        part = BinomialPLD(finite[0], finite[1], pld.dp, pld.dq, n)
    else:
        part = compose([(PLD(finite, pld.dp, pld.dq), n)])
    return AbsorbingPLD(p_inf, q_zero, part, pld.dp, pld.dq, n)
