"""Masses of the privacy loss on lattice cells, in Arb ball arithmetic (python-flint).

For one step (P, Q) the privacy loss is L(y) = ln(p(y) / q(y)).  On the lattice
x_j = j h (h = 2^-m) the cells C_j = (x_j, x_{j+1}] carry

    P_j = P(L in C_j),        Q_j = Q(L in C_j) = E_P[e^{-L}; L in C_j],

and two tails: (P, Q) of {L <= x_lo} and of {L > x_hi}.  ``refacct.engines.lattice.lattice``
turns them into lattice measures that bound the privacy-loss distribution from above and
below; only (P_j, Q_j) are needed, because delta(eps) = E_P[(1 - e^{eps - L})_+] depends on
the law of L under P alone and E_P[e^{-L}; C] = Q(C) (001 Sec. 2, Definitions 3-5).

Supported one-step pairs (``cells_of``):

* Gaussian mixtures with one common sigma whose loss is monotone: every Q-location <= every
  P-location (L increasing in y) or the reverse (L decreasing).  Then
  p - e^c q = phi(y) sum_i c_i e^{mu_i y / sigma^2} has one sign change in its coefficient
  sequence, so at most one root (generalised Descartes rule, docs/numerics.md), and
  {L in C_j} is the interval between the roots y(x_j), y(x_{j+1}).  Each root is found by
  Newton's method and enclosed rigorously (the loss, evaluated in balls, changes sign across
  the enclosure); masses are differences of erfc tails taken on their own side, so a cell
  of mass 1e-300 keeps its relative accuracy.  This covers Poisson and WOR subsampling
  (remove, add, substitution; 001 Thm 10-11, Prop. 13), the group-privacy mixtures
  (003 Thm 3.1 / 3.3) and the components of truncated Poisson (004 Thm 3.1).
* Laplace mixtures with one common scale and a single location on one side
  (``LaplaceLoss``): the loss is constant left of the smallest and right of the largest
  location (two atoms, which fall into their cells exactly) and strictly monotone in
  between; tails are exact exponentials.  This covers the Poisson- and WOR-subsampled
  Laplace mechanism (001 Sec. 5).
* Discrete pairs (``DiscreteLoss``): exact atoms, each placed in the cell holding ln(p/q).
* ``PublicMixture`` one-steps: the weighted sum of the components' cells.

Every mass is a ball that contains the exact value; nothing is rounded to float64.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

import flint

from ...distributions import Continuous
from ..arb import laplace_lower, laplace_upper, to_arb
from ..quadrature.onestep import by_family
from ...errors import InputError

__all__ = ["Cells", "LossEnd", "MonotoneLoss", "GaussianLoss", "LaplaceLoss", "DiscreteLoss",
           "loss_of", "one_step_cells", "add_cells"]


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


@dataclass(frozen=True)
class LossEnd:
    """An end (infimum or supremum) of a bounded monotone loss: ``log()`` its value as a
    ball, ``exact`` its value when rational (ties with lattice points are then decided
    exactly; otherwise they cannot happen), ``at`` the y where a flat piece (an atom of
    the loss) ends, or None when the end is only a limit."""

    log: object
    exact: Optional[Fraction] = None
    at: Optional[Fraction] = None

    def compare(self, x: Fraction) -> int:
        """sign(x - end), exactly."""
        if self.exact is not None:
            return (x > self.exact) - (x < self.exact)
        extra = 0
        while True:
            with flint.ctx.workprec(flint.ctx.prec + extra):
                d = to_arb(x) - self.log()
                if d > 0:
                    return 1
                if d < 0:
                    return -1
            extra += 64


class MonotoneLoss:
    """A one-step privacy loss that is monotone in the output y (``direction`` +1: non-
    decreasing, -1: non-increasing), with ``inf`` / ``sup`` ``LossEnd``s or None.
    Subclasses give ``_f_and_slope(y, x)`` (direction (L(y) - x) and its derivative),
    ``loss(y)``, ``tails(side, y)`` and ``locations`` / ``scale`` (where the mass is)."""

    def root(self, x, guess=None):
        """A ball enclosing the y with L(y) = x, x strictly between inf and sup: Newton's
        method from ``guess`` (the neighbouring lattice point's root), safeguarded by
        bisection when a step leaves the bracket, then a certified sign change of L - x
        across the ball.  A Newton step below the tolerance ends the iteration before the
        safeguard (a converged step may round onto the bracket's end)."""
        eps = flint.arb(2) ** (-flint.ctx.prec + 10)
        y = flint.arb(0 if guess is None else guess.mid())
        lo = hi = None
        for _ in range(400):
            f, slope = self._f_and_slope(y, x)
            if f.mid() < 0:
                lo = y
            else:
                hi = y
            if slope.mid() > 0:
                step = flint.arb((f / slope).mid())
                if step.is_finite() and abs(step.mid()) <= (eps * (abs(y) + 1)).mid():
                    y = flint.arb((y - step).mid())
                    break
                candidate = flint.arb((y - step).mid())
                if candidate.is_finite() and (lo is None or candidate.mid() > lo.mid()) and \
                        (hi is None or candidate.mid() < hi.mid()):
                    y = candidate
                    continue
            y = self._fallback(y, lo, hi)
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

    def boundary(self, x: Fraction, previous=None):
        """The y with L(y) = x (a ball), the end of a flat piece when x is the loss value
        there, or "-inf" / "+inf" when {L <= x} is empty or everything."""
        below = {1: "-inf", -1: "+inf"}[self.direction]
        above = {1: "+inf", -1: "-inf"}[self.direction]
        if self.inf is not None:
            c = self.inf.compare(x)
            if c < 0 or (c == 0 and self.inf.at is None):
                return below
            if c == 0:
                return to_arb(self.inf.at)
        if self.sup is not None and self.sup.compare(x) >= 0:
            return above
        return self.root(to_arb(x), previous)

    def range_end(self, top: bool, tail: Fraction) -> Fraction:
        """A rational at or beyond the sup (inf) of the loss when it is finite, else an x
        with P(L > x) <= tail (P(L <= x) <= tail)."""
        end = self.sup if top else self.inf
        if end is not None:
            ball = end.log()
            return _fraction_mid(ball.upper() if top else ball.lower())
        up = top == (self.direction > 0)  # L large at y = +inf when increasing
        y = to_arb(max(self.locations) if up else min(self.locations))
        step = to_arb(self.scale)
        for _ in range(4000):
            lower, upper = self.tails("P", y)
            if (upper if up else lower) < to_arb(tail):
                x = self.loss(y)
                return _fraction_mid(x.upper() if top else x.lower())
            y = y + step if up else y - step
            step *= 2
        raise ArithmeticError("could not place the end of the loss range")

    def cells(self, h: Fraction, first: int, last: int) -> "Cells":
        return monotone_cells(self, h, first, last)


def _direction(a, b) -> int:
    """+1 when every Q-location <= every P-location (the loss increases in y), -1 in the
    mirror case; otherwise the loss need not be monotone."""
    mus = [m for _, m in a]
    nus = [m for _, m in b]
    if max(nus) <= min(mus):
        return 1
    if max(mus) <= min(nus):
        return -1
    raise InputError("brackets need a monotone privacy loss: every location of Q on one "
                     "side of every location of P")


class GaussianLoss(MonotoneLoss):
    """The privacy loss of Gaussian mixtures with one common sigma and a monotone loss.

    P = sum_i a_i N(mu_i, s), Q = sum_j b_j N(nu_j, s) (s = sigma^2):
    L(y) = ln sum_i a_i e^{(mu_i y - mu_i^2/2)/s} - ln sum_j b_j e^{(nu_j y - nu_j^2/2)/s}.
    The generalised Descartes rule (docs/numerics.md) makes L monotone when every
    Q-location lies on one side of every P-location.  Where the extreme locations of P
    and Q coincide, L tends to ln(a/b) of their weights (a limit, not attained).
    """

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        sigmas = {c.sigma for _, c in P.components + Q.components}
        if len(sigmas) != 1:
            raise InputError("brackets need one common sigma for all Gaussian components")
        self.sigma = self.scale = sigmas.pop()
        self.a = tuple((w, c.mean) for w, c in P.components)
        self.b = tuple((w, c.mean) for w, c in Q.components)
        self.locations = [m for _, m in self.a]
        self.direction = _direction(self.a, self.b)
        mus = [m for _, m in self.a]
        nus = [m for _, m in self.b]
        at_minus = _end_ratio(self.a, self.b, min(mus), min(nus))
        at_plus = _end_ratio(self.a, self.b, max(mus), max(nus))
        ends = (at_minus, at_plus) if self.direction > 0 else (at_plus, at_minus)
        self.inf, self.sup = (None if r is None else _ratio_end(r) for r in ends)
        self._constants = {}

    def _prepared(self):
        """Per-precision ball constants: (w, m / s, m^2 / 2s) per component, and sigma sqrt 2."""
        prec = flint.ctx.prec
        if prec not in self._constants:
            s = self.sigma ** 2
            def table(weighted):
                return [(to_arb(w), to_arb(m / s), to_arb(m * m / (2 * s)), to_arb(m))
                        for w, m in weighted]
            self._constants[prec] = (table(self.a), table(self.b),
                                     to_arb(self.sigma) * flint.arb(2).sqrt())
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


class LaplaceLoss(MonotoneLoss):
    """The privacy loss of Laplace mixtures with one common scale b when one side is a
    single location: P = sum_i a_i Lap(mu_i, b) against Q = Lap(nu, b) with nu <= every
    mu_i (L non-decreasing: each e^{(|y - nu| - |y - mu_i|)/b} is), or the mirror images.
    L is constant for y <= min location and for y >= max location: the two atoms of the
    privacy loss (docs/numerics.md, Laplace mixtures), its inf and sup, attained on flat pieces
    that end at those locations; strictly monotone in between."""

    def __init__(self, P: Continuous, Q: Continuous) -> None:
        scales = {c.scale for _, c in P.components + Q.components}
        if len(scales) != 1:
            raise InputError("brackets need one common scale for all Laplace components")
        self.scale = scales.pop()
        self.a = tuple((w, c.loc) for w, c in P.components)
        self.b = tuple((w, c.loc) for w, c in Q.components)
        if len(self.a) > 1 and len(self.b) > 1:
            raise InputError("brackets need a Laplace pair with a single location on one side")
        self.direction = _direction(self.a, self.b)
        self.locations = sorted({m for _, m in self.a + self.b})
        low, high = self.locations[0], self.locations[-1]
        left, right = self._flat(low), self._flat(high)
        self.inf, self.sup = (left, right) if self.direction > 0 else (right, left)

    def _flat(self, y: Fraction) -> LossEnd:
        """The loss on the flat piece ending at the extreme location y: ln of
        sum_i a_i e^{-|y - mu_i|/b} / sum_j b_j e^{-|y - nu_j|/b}, exact when both sums have
        one term (a rational exponent, weights 1)."""
        def terms(weighted):
            return [(w, -abs(y - m) / self.scale) for w, m in weighted]
        num, den = terms(self.a), terms(self.b)
        exact = None
        if len(num) == len(den) == 1 and num[0][0] == den[0][0] == 1:
            exact = num[0][1] - den[0][1]

        def log():
            def total(ts):
                return sum((to_arb(w) * to_arb(e).exp() for w, e in ts), flint.arb(0))
            return (total(num) / total(den)).log()
        return LossEnd(log, exact, y)

    def _density(self, weighted, y, slope: bool):
        total = flint.arb(0)
        dtotal = flint.arb(0)
        b = to_arb(self.scale)
        for w, m in weighted:
            d = y - to_arb(m)
            t = to_arb(w) * (-abs(d) / b).exp()
            total += t
            if slope:
                dtotal -= t * (1 if d.mid() > 0 else -1) / b
        return total, dtotal

    def loss(self, y):
        """L(y) as a ball."""
        return (self._density(self.a, y, False)[0] / self._density(self.b, y, False)[0]).log()

    def _f_and_slope(self, y, x):
        """F(y) = direction (L(y) - x) and its derivative (one-sided at a location)."""
        p, dp = self._density(self.a, y, True)
        q, dq = self._density(self.b, y, True)
        return self.direction * ((p / q).log() - x), self.direction * (dp / p - dq / q)

    def tails(self, side: str, y):
        """(sum_i w_i P(Y_i <= y), sum_i w_i P(Y_i > y)) by exact exponentials
        (``engines.arb``); y may be "-inf" / "+inf"."""
        if isinstance(y, str):
            return (flint.arb(0), flint.arb(1)) if y == "-inf" else (flint.arb(1), flint.arb(0))
        lower = flint.arb(0)
        upper = flint.arb(0)
        for w, m in (self.a if side == "P" else self.b):
            lower += to_arb(w) * laplace_lower(m, self.scale, y)
            upper += to_arb(w) * laplace_upper(m, self.scale, y)
        return lower, upper


def _end_ratio(a, b, mu, nu) -> Optional[Fraction]:
    """e^L at an end of the line: (P-weight / Q-weight) of the extreme location when P and Q
    share it, else None (L unbounded there)."""
    if mu != nu:
        return None
    return sum(w for w, m in a if m == mu) / sum(w for w, m in b if m == nu)


def _ratio_end(ratio: Fraction) -> LossEnd:
    """The limit ln(ratio) of a Gaussian loss (not attained); rational only when ratio = 1
    (ln of any other rational is irrational)."""
    return LossEnd(lambda: to_arb(ratio).log(), Fraction(0) if ratio == 1 else None)


def _interval_mass(lo_tails, hi_tails):
    """Mass of (y_lo, y_hi] from the (lower, upper) tails at both ends: a difference of
    upper tails, of lower tails, or one minus both, whichever does not cancel."""
    (l0, u0), (l1, u1) = lo_tails, hi_tails
    if u0.mid() <= l0.mid():
        return u0 - u1
    if l1.mid() <= u1.mid():
        return l1 - l0
    return 1 - l0 - u1


def monotone_cells(loss: MonotoneLoss, h: Fraction, first: int, last: int) -> Cells:
    """Cells (x_j, x_{j+1}], first <= j < last, x_j = j h, of a monotone loss, with the
    tails {L <= x_first} and {L > x_last}: masses between the y where L crosses the
    lattice points (``boundary``), as differences of tails on their own side."""
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
    x = to_arb(ratio).log()
    return _fraction_mid(x.upper() if top else x.lower())


def _fraction_mid(ball) -> Fraction:
    """The midpoint of an Arb ball as an exact rational."""
    man, exp = ball.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


class DiscreteLoss:
    """The privacy loss of a discrete pair: atoms at x = ln(p/q) with exact masses
    (``engines.exact.discrete.pld_of_pair``); an atom with q = 0 is the loss +inf."""

    def __init__(self, P, Q) -> None:
        from ..exact.discrete import pld_of_pair
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
                left = [left[0] + to_arb(mp_), left[1] + to_arb(mq)]
            elif j >= last:
                right = [right[0] + to_arb(mp_), right[1] + to_arb(mq)]
            else:
                P[j - first] += to_arb(mp_)
                Q[j - first] += to_arb(mq)
        return Cells(h, first, P, Q, tuple(left), tuple(right), to_arb(self.infinite))


def _cell_index(r: Fraction, h: Fraction) -> int:
    """j with j h < ln r <= (j + 1) h."""
    if r == 1:
        return -1
    extra = 0
    while True:
        with flint.ctx.workprec(flint.ctx.prec + extra):
            t = to_arb(r).log() / to_arb(h)
            lo, hi = t.lower().floor(), t.upper().floor()
            if lo == hi and not t.contains_integer():
                return int(_fraction_mid(lo))
        extra += 64


def loss_of(pair) -> object:
    """The loss of a one-step pair: discrete, or Gaussian / Laplace mixtures with one common
    sigma / scale and a monotone loss; or a pair that knows its own cells (``lattice_loss``:
    an order of random allocation, ``refacct.allocation``)."""
    own = getattr(pair, "lattice_loss", None)
    if own is not None:
        return own()
    if pair.is_discrete:
        return DiscreteLoss(pair.P, pair.Q)
    return by_family(pair.P, pair.Q, {"gaussian": GaussianLoss, "laplace": LaplaceLoss},
                     "brackets (besides discrete pairs)")


def one_step_cells(step, h: Fraction, tail: Fraction, top: Optional[Fraction] = None) -> Cells:
    """Cells of a public mixture ``step`` = ((w, Pair), ...) of one-step pairs on the lattice
    h Z, over one range covering every component up to one-step tails of mass ``tail``, and
    not beyond ``top`` (a composition window's top: what lies above it is cut anyway)."""
    losses = [(w, loss_of(pair)) for w, pair in step]
    low = min(loss.range_end(False, tail) for _, loss in losses)
    high = max(loss.range_end(True, tail) for _, loss in losses)
    if top is not None:
        high = min(high, top)
    first = math.floor(low / h) - 1  # strictly below an atom at the infimum
    last = max(math.ceil(high / h), first + 1)
    parts = [(to_arb(w), loss.cells(h, first, last)) for w, loss in losses]
    return parts[0][1] if len(parts) == 1 else add_cells(parts)
