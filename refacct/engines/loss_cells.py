"""Masses of the privacy loss on lattice cells, in Arb ball arithmetic (python-flint).

For one step (P, Q) the privacy loss is L(y) = ln(p(y) / q(y)).  On the lattice
x_j = j h (h = 2^-m) the cells C_j = (x_j, x_{j+1}] carry

    P_j = P(L in C_j),        Q_j = Q(L in C_j) = E_P[e^{-L}; L in C_j],

and two tails: (P, Q) of {L <= x_lo} and of {L > x_hi}.  ``refacct.engines.lattice``
turns them into lattice measures that bound the privacy-loss distribution from above and
below; only (P_j, Q_j) are needed, because delta(eps) = E_P[(1 - e^{eps - L})_+] depends on
the law of L under P alone and E_P[e^{-L}; C] = Q(C) (001 Sec. 2, Definitions 3-5).

Supported one-step pairs (``cells_of``):

* Gaussian mixtures with one common sigma whose loss is monotone: every Q-location <= every
  P-location (L increasing in y) or the reverse (L decreasing).  Then
  p - e^c q = phi(y) sum_i c_i e^{mu_i y / sigma^2} has one sign change in its coefficient
  sequence, so at most one root (generalised Descartes rule, ../shared/NUMERICS.md), and
  {L in C_j} is the interval between the roots y(x_j), y(x_{j+1}).  Each root is found by
  Newton's method and enclosed rigorously (the loss, evaluated in balls, changes sign across
  the enclosure); masses are differences of erfc tails taken on their own side, so a cell
  of mass 1e-300 keeps its relative accuracy.  This covers Poisson and WOR subsampling
  (remove, add, substitution; 001 Thm 10-11, Prop. 13), the group-privacy mixtures
  (003 Thm 3.1 / 3.3) and the components of truncated Poisson (004 Thm 3.1).
* ``PublicMixture`` one-steps: the weighted sum of the components' cells.

Every mass is a ball that contains the exact value; nothing is rounded to float64.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

import flint

from ..distributions import Continuous, Gaussian

__all__ = ["Cells", "GaussianLoss", "DiscreteLoss", "one_step_cells", "add_cells", "arb_of"]


def arb_of(x) -> "flint.arb":
    """An exact rational (``Fraction`` or int) as an Arb ball at the current precision."""
    x = Fraction(x)
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


@dataclass
class Cells:
    """(P, Q) masses of the loss on the cells (x_j, x_{j+1}], x_j = (first + j) h.

    ``P[j]``, ``Q[j]`` are balls for j = 0 .. len(P) - 1; ``left`` = (P, Q) of
    {L <= x_first}, ``right`` = (P, Q) of {L > x_last} with x_last = (first + len(P)) h;
    ``infinite`` is the P-mass where q = 0 (loss +inf).
    """

    h: Fraction
    first: int
    P: List
    Q: List
    left: Tuple
    right: Tuple
    infinite: object

    @property
    def last(self) -> int:
        return self.first + len(self.P)


def add_cells(parts: Sequence[Tuple[object, Cells]]) -> Cells:
    """sum_r w_r * cells_r for tables over one lattice range (a public mixture, whose
    privacy-loss distribution is the mixture of its components')."""
    first = parts[0][1]
    for _, c in parts:
        if (c.h, c.first, c.last) != (first.h, first.first, first.last):
            raise ValueError("cell tables of a mixture must share one lattice range")
    def total(get):
        return sum((w * get(c) for w, c in parts[1:]), parts[0][0] * get(first))
    n = len(first.P)
    return Cells(first.h, first.first,
                 [total(lambda c, j=j: c.P[j]) for j in range(n)],
                 [total(lambda c, j=j: c.Q[j]) for j in range(n)],
                 (total(lambda c: c.left[0]), total(lambda c: c.left[1])),
                 (total(lambda c: c.right[0]), total(lambda c: c.right[1])),
                 total(lambda c: c.infinite))


class GaussianLoss:
    """The privacy loss of Gaussian mixtures with one common sigma and a monotone loss.

    P = sum_i a_i N(mu_i, s), Q = sum_j b_j N(nu_j, s) (s = sigma^2):
    L(y) = ln sum_i a_i e^{(mu_i y - mu_i^2/2)/s} - ln sum_j b_j e^{(nu_j y - nu_j^2/2)/s}.
    ``direction`` is +1 when max nu <= min mu (L increasing), -1 when max mu <= min nu.
    ``inf`` / ``sup`` are e^L at the ends (exact rationals a/b where the extreme locations of
    P and Q coincide), or None where L is unbounded.
    """

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        comps = P.components + Q.components
        if not all(isinstance(c, Gaussian) for _, c in comps):
            raise ValueError("brackets need Gaussian mixtures or discrete pairs")
        sigmas = {c.sigma for _, c in comps}
        if len(sigmas) != 1:
            raise ValueError("brackets need one common sigma for all Gaussian components")
        self.sigma = sigmas.pop()
        self.a = tuple((w, c.mean) for w, c in P.components)
        self.b = tuple((w, c.mean) for w, c in Q.components)
        mus = [m for _, m in self.a]
        nus = [m for _, m in self.b]
        if max(nus) <= min(mus):
            self.direction = 1
        elif max(mus) <= min(nus):
            self.direction = -1
        else:
            raise ValueError("brackets need a monotone privacy loss: every location of Q "
                             "on one side of every location of P")
        at_minus = _end_ratio(self.a, self.b, min(mus), min(nus))
        at_plus = _end_ratio(self.a, self.b, max(mus), max(nus))
        self.inf, self.sup = (at_minus, at_plus) if self.direction > 0 else (at_plus, at_minus)
        self._constants = {}

    def _prepared(self):
        """Per-precision ball constants: (w, m / s, m^2 / 2s) per component, and sigma sqrt 2."""
        prec = flint.ctx.prec
        if prec not in self._constants:
            s = self.sigma ** 2
            def table(weighted):
                return [(arb_of(w), arb_of(m / s), arb_of(m * m / (2 * s)), arb_of(m))
                        for w, m in weighted]
            self._constants[prec] = (table(self.a), table(self.b),
                                     arb_of(self.sigma) * flint.arb(2).sqrt())
        return self._constants[prec]

    @staticmethod
    def _sum(table, y, slope: bool):
        total = 0
        dtotal = 0
        for w, ms, half, _ in table:
            t = w * (ms * y - half).exp()
            total += t
            if slope:
                dtotal += t * ms
        return total, dtotal

    def loss(self, y):
        """L(y) as a ball."""
        a, b, _ = self._prepared()
        return (self._sum(a, y, False)[0] / self._sum(b, y, False)[0]).log()

    def _f_and_slope(self, y, x):
        """F(y) = direction (L(y) - x), increasing in y, and F'(y)."""
        a, b, _ = self._prepared()
        p, dp = self._sum(a, y, True)
        q, dq = self._sum(b, y, True)
        return self.direction * ((p / q).log() - x), self.direction * (dp / p - dq / q)

    def root(self, x, guess=None):
        """A ball enclosing the y with L(y) = x, x strictly between inf and sup: Newton's
        method from ``guess`` (the neighbouring lattice point's root), safeguarded by
        bisection when a step leaves the bracket, then a certified sign change of L - x
        across the ball."""
        eps = flint.arb(2) ** (-flint.ctx.prec + 10)
        y = flint.arb(0 if guess is None else guess.mid())
        lo = hi = None
        for _ in range(400):
            f, slope = self._f_and_slope(y, x)
            if f.mid() < 0:
                lo = y
            else:
                hi = y
            candidate = flint.arb((y - f / slope).mid()) if slope.mid() > 0 else None
            if candidate is None or not candidate.is_finite() or \
                    (lo is not None and candidate.mid() <= lo.mid()) or \
                    (hi is not None and candidate.mid() >= hi.mid()):
                candidate = self._fallback(y, lo, hi)
            done = abs((candidate - y).mid()) <= (eps * (abs(y) + 1)).mid()
            y = candidate
            if done:
                break
        return self._enclose(y, x, eps)

    @staticmethod
    def _fallback(y, lo, hi):
        """Bisection inside [lo, hi], or a doubling step towards the missing side."""
        if lo is not None and hi is not None:
            return flint.arb(((lo + hi) / 2).mid())
        step = abs(y) + 1
        return flint.arb((y + step).mid() if hi is None else (y - step).mid())

    def _enclose(self, y, x, eps):
        """The ball [y - r, y + r] with a certified sign change of L - x at its ends."""
        radius = (abs(y) + 1) * eps * 64
        for _ in range(120):
            below = flint.arb((y - radius).mid())
            above = flint.arb((y + radius).mid())
            if self._f_and_slope(below, x)[0] < 0 and self._f_and_slope(above, x)[0] > 0:
                return below.union(above)
            radius *= 16
        raise ArithmeticError(f"could not enclose the root of L(y) = {x}")

    def tails(self, side: str, y):
        """(Phi-sum, Phi-bar-sum): sum_i w_i P(Y_i <= y) and sum_i w_i P(Y_i > y) over the
        components of P (``side`` "P") or Q, each tail computed on its own side with erfc
        and the other as its complement; y may be the strings "-inf" / "+inf"."""
        if isinstance(y, str):
            return (flint.arb(0), flint.arb(1)) if y == "-inf" else (flint.arb(1), flint.arb(0))
        a, b, scale = self._prepared()
        lower = flint.arb(0)
        upper = flint.arb(0)
        for w, _, _, m in (a if side == "P" else b):
            t = (y - m) / scale
            if t.mid() >= 0:
                up = t.erfc() / 2
                low = 1 - up
            else:
                low = (-t).erfc() / 2
                up = 1 - low
            lower += w * low
            upper += w * up
        return lower, upper

    def boundary(self, x: Fraction, previous=None):
        """The y with L(y) = x (a ball), or "-inf" / "+inf" when x is at or beyond an end of
        the loss's range, where {L <= x} is empty or everything."""
        xb = arb_of(x)
        below = {1: "-inf", -1: "+inf"}[self.direction]
        above = {1: "+inf", -1: "-inf"}[self.direction]
        if self.inf is not None and _compare_log(x, xb, self.inf) <= 0:
            return below
        if self.sup is not None and _compare_log(x, xb, self.sup) >= 0:
            return above
        return self.root(xb, previous)

    def range_end(self, top: bool, tail: Fraction) -> Optional[Fraction]:
        """A lattice-free end of the loss range: ln sup (ln inf) when finite, else an x with
        P(L > x) <= tail (P(L <= x) <= tail)."""
        ratio = self.sup if top else self.inf
        if ratio is not None:
            return _log_bound(ratio, top)
        mus = [m for _, m in self.a]
        # L large at y = +inf when increasing, at y = -inf when decreasing
        up = top == (self.direction > 0)
        y = arb_of(max(mus) if up else min(mus))
        step = arb_of(self.sigma)
        for _ in range(4000):
            lower, upper = self.tails("P", y)
            if (upper if up else lower) < arb_of(tail):
                x = self.loss(y)
                return _fraction_mid(x.upper() if top else x.lower())
            y = y + step if up else y - step
            step *= 2
        raise ArithmeticError("could not place the end of the loss range")

    def cells(self, h: Fraction, first: int, last: int) -> Cells:
        return gaussian_cells(self, h, first, last)


def _end_ratio(a, b, mu, nu) -> Optional[Fraction]:
    """e^L at an end of the line: (P-weight / Q-weight) of the extreme location when P and Q
    share it, else None (L unbounded there)."""
    if mu != nu:
        return None
    return sum(w for w, m in a if m == mu) / sum(w for w, m in b if m == nu)


def _compare_log(x: Fraction, xb, ratio: Fraction) -> int:
    """sign(x - ln ratio), exactly: ln of a rational other than 1 is irrational, so the
    balls separate once the precision suffices."""
    if ratio == 1:
        return (x > 0) - (x < 0)
    extra = 0
    while True:
        with flint.ctx.workprec(flint.ctx.prec + extra):
            d = arb_of(x) - arb_of(ratio).log()
            if d > 0:
                return 1
            if d < 0:
                return -1
        extra += 64


def _interval_mass(lo_tails, hi_tails):
    """Mass of (y_lo, y_hi] from the (lower, upper) tails at both ends: a difference of
    upper tails, of lower tails, or one minus both, whichever does not cancel."""
    (l0, u0), (l1, u1) = lo_tails, hi_tails
    if u0.mid() <= l0.mid():
        return u0 - u1
    if l1.mid() <= u1.mid():
        return l1 - l0
    return 1 - l0 - u1


def gaussian_cells(loss: GaussianLoss, h: Fraction, first: int, last: int) -> Cells:
    """Cells (x_j, x_{j+1}], first <= j < last, x_j = j h, of a monotone Gaussian-mixture
    loss, with the tails {L <= x_first} and {L > x_last}."""
    ends = []
    previous = None
    for j in range(first, last + 1):
        y = loss.boundary(h * j, previous)
        if not isinstance(y, str):
            previous = y
        ends.append((loss.tails("P", y), loss.tails("Q", y)))
    if loss.direction < 0:  # {L in (x_j, x_{j+1}]} = [y_{j+1}, y_j)
        pairs = [(e1, e0) for e0, e1 in zip(ends, ends[1:])]
        left = tuple(t[1] for t in ends[0])
        right = tuple(t[0] for t in ends[-1])
    else:
        pairs = list(zip(ends, ends[1:]))
        left = tuple(t[0] for t in ends[0])
        right = tuple(t[1] for t in ends[-1])
    P = [_interval_mass(lo[0], hi[0]) for lo, hi in pairs]
    Q = [_interval_mass(lo[1], hi[1]) for lo, hi in pairs]
    return Cells(h, first, P, Q, left, right, flint.arb(0))



def _log_bound(ratio: Fraction, top: bool) -> Fraction:
    """A rational at or above (top) / at or below ln(ratio)."""
    x = arb_of(ratio).log()
    return _fraction_mid(x.upper() if top else x.lower())


def _fraction_mid(ball) -> Fraction:
    """The midpoint of an Arb ball as an exact rational."""
    man, exp = ball.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


class DiscreteLoss:
    """The privacy loss of a discrete pair: atoms at x = ln(p/q) with exact masses
    (``engines.discrete.pld_of_pair``); an atom with q = 0 is the loss +inf."""

    def __init__(self, P, Q) -> None:
        from .discrete import pld_of_pair
        pld = pld_of_pair(P, Q)
        self.atoms = []   # (ratio, P-mass, Q-mass), finite positive ratios
        self.infinite = Fraction(0)
        for j, (p, q) in enumerate(pld.atoms):
            mp_, mq = Fraction(p, pld.dp), Fraction(q, pld.dq)
            if not q:
                self.infinite += mp_
            elif p:
                self.atoms.append((mp_ / mq, mp_, mq))

    def range_end(self, top: bool, tail: Fraction) -> Fraction:
        ratios = [r for r, _, _ in self.atoms] or [Fraction(1)]
        return _log_bound(max(ratios) if top else min(ratios), top)

    def cells(self, h: Fraction, first: int, last: int) -> Cells:
        """Each atom in the cell (x_j, x_{j+1}] that holds ln r, decided rigorously (ln r / h
        is irrational unless r = 1)."""
        zero = flint.arb(0)
        P = [zero] * (last - first)
        Q = [zero] * (last - first)
        left, right = [zero, zero], [zero, zero]
        for r, mp_, mq in self.atoms:
            j = _cell_index(r, h)
            if j < first:
                left = [left[0] + arb_of(mp_), left[1] + arb_of(mq)]
            elif j >= last:
                right = [right[0] + arb_of(mp_), right[1] + arb_of(mq)]
            else:
                P[j - first] += arb_of(mp_)
                Q[j - first] += arb_of(mq)
        return Cells(h, first, P, Q, tuple(left), tuple(right), arb_of(self.infinite))


def _cell_index(r: Fraction, h: Fraction) -> int:
    """j with j h < ln r <= (j + 1) h."""
    if r == 1:
        return -1
    extra = 0
    while True:
        with flint.ctx.workprec(flint.ctx.prec + extra):
            t = arb_of(r).log() / arb_of(h)
            lo, hi = t.lower().floor(), t.upper().floor()
            if lo == hi and not t.contains_integer():
                return int(_fraction_mid(lo))
        extra += 64


def loss_of(pair):
    """The loss object of a one-step pair (Gaussian mixtures or discrete)."""
    if pair.is_discrete:
        return DiscreteLoss(pair.P, pair.Q)
    return GaussianLoss(pair.P, pair.Q)


def one_step_cells(step, h: Fraction, tail: Fraction, top: Optional[Fraction] = None) -> Cells:
    """Cells of a public mixture ``step`` = ((w, Pair), ...) of one-step pairs on the lattice
    h Z, over one range covering every component up to one-step tails of mass ``tail``, and
    not beyond ``top`` (a composition window's top: what lies above it is cut anyway)."""
    losses = [(w, loss_of(pair)) for w, pair in step]
    low = min(loss.range_end(False, tail) for _, loss in losses)
    high = max(loss.range_end(True, tail) for _, loss in losses)
    if top is not None:
        high = min(high, top)
    first = math.floor(low / h)
    last = max(math.ceil(high / h), first + 1)
    parts = [(arb_of(w), loss.cells(h, first, last)) for w, loss in losses]
    return parts[0][1] if len(parts) == 1 else add_cells(parts)
