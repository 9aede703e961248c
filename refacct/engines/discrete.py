"""Exact engine for discrete pairs (../shared/NUMERICS.md, "Discrete pairs, exactly").

The privacy-loss distribution (PLD, 001 Definition 5) of a discrete pair is kept as atoms,
one per distinct likelihood ratio r = p(x)/q(x) (r = inf where q = 0, r = 0 where p = 0),
each carrying its exact P-mass and Q-mass as integers over two common denominators.
Composition multiplies ratios and masses; k-fold self-composition uses the multinomial
expansion over count vectors (binary randomized response: k + 1 atoms) or, when there are
too many count vectors, repeated squaring.  Ratios are keyed by their exponent vectors over
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

from .. import progress
from ..distributions import Discrete
from ..exact import count_vectors, to_mpf
from .arb import arb_ends

__all__ = ["PLD", "pld_of_pair", "compose", "mix", "ratio_exceeds_exp", "coprime_base",
           "exponents"]

ZERO, INFINITE = "zero", "inf"  # keys of the atoms with p = 0 and with q = 0


class PLD:
    """Atoms (P_j, Q_j): integer numerators over the denominators (dp, dq), sorted by
    strictly decreasing ratio r_j = (P_j / dp) / (Q_j / dq)."""

    __slots__ = ("atoms", "dp", "dq", "__dict__")

    def __init__(self, atoms: List[Tuple[int, int]], dp: int, dq: int) -> None:
        self.atoms, self.dp, self.dq = tuple(atoms), dp, dq

    # --- exact queries -----------------------------------------------------------
    def ratio(self, j: int):
        """Exact ratio of atom j: a Fraction, or ``mp.inf`` where q = 0."""
        p, q = self.atoms[j]
        return mp.inf if not q else Fraction(p * self.dq, q * self.dp)

    def ratio_mpf(self, j: int):
        p, q = self.atoms[j]
        return mp.inf if not q else mp.mpf(p * self.dq) / (q * self.dp)

    def _above(self, j: int, alpha: Fraction) -> bool:
        p, q = self.atoms[j]
        return p * self.dq * alpha.denominator > alpha.numerator * q * self.dp

    def count_above(self, alpha: Fraction) -> int:
        """Number of atoms with ratio > alpha (rational alpha >= 0), exactly."""
        lo, hi = 0, len(self.atoms)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._above(mid, alpha):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def count_above_exp(self, eps: Fraction) -> int:
        """Number of atoms with ratio > e^eps (rational eps), decided exactly."""
        lo, hi = 0, len(self.atoms)
        while lo < hi:
            mid = (lo + hi) // 2
            if ratio_exceeds_exp(self.atoms[mid], self.dp, self.dq, eps):
                lo = mid + 1
            else:
                hi = mid
        return lo

    @cached_property
    def cumulative(self) -> Tuple[List[int], List[int]]:
        """Integer numerators of A_j, B_j: P- and Q-mass of the j atoms with the largest
        ratios (j = 0..n)."""
        a, b = [0], [0]
        for p, q in self.atoms:
            a.append(a[-1] + p)
            b.append(b[-1] + q)
        return a, b

    def form(self, j: int) -> Tuple[Fraction, Fraction]:
        """(A_j, B_j) as exact rationals."""
        a, b = self.cumulative
        return Fraction(a[j], self.dp), Fraction(b[j], self.dq)

    def exact_form(self, alpha: Optional[Fraction] = None, eps: Optional[Fraction] = None):
        """(A, B) with H_alpha = A - alpha B, for rational alpha or alpha = e^eps."""
        return self.form(self.count_above(alpha) if eps is None else self.count_above_exp(eps))

    def mass_at_infinity(self) -> Fraction:
        """P-mass where q = 0: the limit of delta(eps) as eps -> infinity."""
        return self.form(self.count_above_infinite())[0]

    def count_above_infinite(self) -> int:
        return sum(1 for _, q in self.atoms if not q)

    def epsilon_form(self, delta: Fraction):
        """Smallest eps >= 0 with delta(eps) <= delta, in closed form.

        Returns ``("zero", None)``, ``("inf", None)``, ``("log", r)`` meaning eps = ln r for
        an exact ratio r, or ``("closed", (A, B))`` meaning eps = ln((A - delta) / B).
        delta(eps) is non-increasing; at the knot ln r_j it equals A_j - r_j B_j, which is
        non-decreasing in j, so the knot interval is found by exact bisection.
        """
        j0 = self.count_above(Fraction(1))
        a_0, b_0 = self.form(j0)
        if a_0 - b_0 <= delta:
            return "zero", None
        s = self.count_above_infinite()
        if delta < self.mass_at_infinity():
            return "inf", None
        # knots j = s .. j0-1 (ratios > 1, eps decreasing with j); find the first j whose
        # knot value exceeds delta.
        lo, hi = s, j0
        while lo < hi:
            mid = (lo + hi) // 2
            if self._knot_value(mid) > delta:
                hi = mid
            else:
                lo = mid + 1
        if lo > s and self._knot_value(lo - 1) == delta:
            return "log", self.ratio(lo - 1)
        return "closed", self.form(lo)

    def _knot_value(self, j: int) -> Fraction:
        """delta(ln r_j) = A_j - r_j B_j."""
        a, b = self.form(j)
        return a - self.ratio(j) * b


def ratio_exceeds_exp(atom: Tuple[int, int], dp: int, dq: int, eps: Fraction) -> bool:
    """Is the ratio of ``atom`` > e^eps?  Exact: ln r is transcendental for rational r != 1
    (Lindemann), so evaluating at increasing precision always decides; r = 1, r = 0, q = 0
    and eps = 0 are decided exactly."""
    p, q = atom
    if not q:
        return True
    if not p:
        return False
    num, den = p * dq, q * dp
    if eps == 0 or num == den:
        return num > den if eps == 0 else eps < 0
    dps = 30
    while True:
        with mp.workdps(dps):
            diff = mp.log(mp.mpf(num) / den) - to_mpf(eps)
            if abs(diff) > mp.mpf(10) ** (5 - dps) * (1 + abs(to_mpf(eps))):
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
        for j, (p, q) in enumerate(pld.atoms):
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

    __slots__ = ("atoms", "dp", "dq")

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
    ratios = [pld.ratio(j) for pld, _ in factors for j, (p, q) in enumerate(pld.atoms) if p and q]
    primes = coprime_base([r.numerator for r in ratios] + [r.denominator for r in ratios])
    result = None
    for pld, n in factors:
        part = _Factor.of(pld, primes).power(n)
        result = part if result is None else result.compose(part)
    return _sorted_pld(result.atoms, result.dp, result.dq)
