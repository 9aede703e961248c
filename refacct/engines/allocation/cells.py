"""The random-allocation loss on lattice cells (``engines.lattice.loss_cells``), so that the
proven brackets of ``refacct.brackets`` compose it over epochs.

**Cells from puts.**  With X the likelihood ratio of the one-epoch pair under Q (the mean of
t lognormals of mean 1, ``allocation``), F(K) = Q(X <= K) and G(K) = E_Q[X; X <= K] =
K F(K) - f(K), f(K) = E[(K - X)_+] the put (``put``):

* remove order, L = ln X under P (dP = X dQ): the cell (x_j, x_{j+1}] holds
  P-mass G(K_{j+1}) - G(K_j) and Q-mass F(K_{j+1}) - F(K_j), K_j = e^{x_j};
* add order, L = -ln X under Q: the cell holds P-mass F(K_j) - F(K_{j+1}) and Q-mass
  G(K_j) - G(K_{j+1}), K_j = e^{-x_j} (X has a density: its endpoints weigh nothing).

**F by convexity.**  f is convex with f' = F, so for any eta > 0

    (f(K) - f(K - eta)) / eta <= F(K) <= (f(K + eta) - f(K)) / eta,

three proven put balls per strike.  The bracket is about f''(K) eta + 4 tol / eta wide for
puts to an absolute tolerance tol; eta = 2^-96 K and tol = k_max 2^-192 make it about 1e-27.
Every cell carries two such widths and a bracket adds them over cells and epochs: at
2^-128 / 2^-64 (1e-18) the sum was 10^-16 after 100 epochs of t = 10^4, as large as
delta(1) itself; at 2^-192 / 2^-96 it is 10^-21, for a table about 2.5 times as costly.

**Strikes up to k_max.**  One table of the inversion serves every strike K <= k_max, so
the loss range is cut at ln k_max: what lies above goes to the lattice's tail (to +inf in
the upper bound), with its mass 1 - G(K_last) itself a proven ball.  k_max is where the
union bound E_Q[X; X > K] <~ E[Z; Z > t (K - 1)] = Phi-bar((ln(t (K - 1)) - b^2 / 2) / b)
(one lognormal carries the excess) reaches 1e-16, rounded up to a power of 2, within
[2, 16]: a steering choice (the cost of the table grows as k_max), never an error.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Dict, Tuple

from ..arb import arb, flint, to_arb
from ..lattice.loss_cells import Cells
from .put import Table, put, table

__all__ = ["AllocationLoss", "allocation_loss", "strike_cap"]

TOLERANCE_BITS = 192        # the puts' absolute tolerance, times k_max
ETA_BITS = 96               # eta = 2^-96 K
RESOLVED = Fraction(1, 2 ** 88)   # about what F resolves: a range end stops scanning there
CAP_Z = 8.2                 # Phi-bar(8.2) ~ 1e-16: the tail the strike cap aims at
MAX_STRIKE = 16


def strike_cap(sigma: Fraction, t: int) -> int:
    """k_max (module docstring): a power of 2 in [2, ``MAX_STRIKE``].  Floats steer here
    and in ``_x_cap`` only: any k_max gives valid cells, and ``put`` refuses a strike
    beyond it."""
    if sigma < Fraction(1, 64):   # b > 64: the estimate is far beyond the cap
        return MAX_STRIKE
    if sigma > 64:                # b < 1/64: e^{b^2/2 + b CAP_Z} / t < 1.2 / t, below 1
        return 2
    b = 1 / float(sigma)
    excess = math.exp(min(b * b / 2 + b * CAP_Z, 700.0)) / t
    k = 2
    while k < MAX_STRIKE and k - 1 < excess:
        k *= 2
    return k


@lru_cache(maxsize=4)
def _table(sigma: Fraction, t: int, k_max: int) -> Table:
    """The inversion's nodes for every strike up to k_max (shared by both orders)."""
    bits = 80 + 2 * TOLERANCE_BITS + t.bit_length()
    with flint.ctx.workprec(bits):
        return table(t, 1 / to_arb(sigma), arb(k_max), arb(k_max) * arb(2) ** -TOLERANCE_BITS,
                     bits)


class AllocationLoss:
    """The privacy loss of one epoch's order (``swap``: the add order) with the lattice
    loss interface: ``range_end(top, tail)`` and ``cells(h, first, last)``."""

    def __init__(self, sigma: Fraction, t: int, swap: bool) -> None:
        self.sigma, self.t, self.swap = Fraction(sigma), t, swap
        self.k_max = strike_cap(self.sigma, t)
        self._tab = _table(self.sigma, t, self.k_max)
        self._seen: Dict[Fraction, Tuple] = {}   # x -> (F, G) at its strike: passes share

    def _strike(self, x: Fraction):
        return to_arb(-x if self.swap else x).exp()

    def _at(self, x: Fraction) -> Tuple:
        """(F, G) at the strike of the lattice point x, as balls (module docstring)."""
        if x not in self._seen:
            with flint.ctx.workprec(self._tab.bits):
                K = self._strike(x)
                eta = K * arb(2) ** -ETA_BITS
                f, below, above = (put(self._tab, k) for k in (K, K - eta, K + eta))
                low, high = ((f - below) / eta).lower(), ((above - f) / eta).upper()
                F = arb(low).union(arb(high))
                self._seen[x] = (F, K * F - f)
        return self._seen[x]

    def _x_cap(self) -> Fraction:
        """The largest |x| whose strike, and eta above it, stays below k_max."""
        return Fraction(math.floor((math.log(self.k_max) - 0.125) * 16), 16)

    def range_end(self, top: bool, tail: Fraction) -> Fraction:
        """An x with the P-mass beyond it (above: ``top``) proven below ``tail`` (or below
        ``RESOLVED``, what the cells resolve), scanning from 0 in steps of 1/8 within the
        strikes' reach; else the end of that reach."""
        large_strike = top != self.swap
        limit = self._x_cap() if large_strike else Fraction(4)   # e^-4 < strikes
        step = Fraction(1, 8) if top else Fraction(-1, 8)
        x = Fraction(0)
        while abs(x) < limit:
            x += step
            if self._beyond(x, top) < to_arb(max(tail, RESOLVED)):
                return x
        return limit if top else -limit

    def _beyond(self, x: Fraction, top: bool):
        """The P-mass of {L > x} (``top``) or {L <= x}, a ball."""
        F, G = self._at(x)
        mass = F if self.swap else G   # P-mass of {X <= K}
        with flint.ctx.workprec(self._tab.bits):
            return 1 - mass if top != self.swap else mass

    def cells(self, h: Fraction, first: int, last: int) -> Cells:
        """The cells (x_j, x_{j+1}], first <= j < last, and the two tails (module
        docstring); masses are non-negative, so each keeps its ball's non-negative part."""
        ends = [self._at(h * j) for j in range(first, last + 1)]
        with flint.ctx.workprec(self._tab.bits):
            if self.swap:   # P: F at the strikes, Q: G; the strikes fall as x rises
                P = [(a[0] - b[0]).nonnegative_part() for a, b in zip(ends, ends[1:])]
                Q = [(a[1] - b[1]).nonnegative_part() for a, b in zip(ends, ends[1:])]
                left = ((1 - ends[0][0]).nonnegative_part(), (1 - ends[0][1]).nonnegative_part())
                right = (ends[-1][0].nonnegative_part(), ends[-1][1].nonnegative_part())
            else:
                P = [(b[1] - a[1]).nonnegative_part() for a, b in zip(ends, ends[1:])]
                Q = [(b[0] - a[0]).nonnegative_part() for a, b in zip(ends, ends[1:])]
                left = (ends[0][1].nonnegative_part(), ends[0][0].nonnegative_part())
                right = ((1 - ends[-1][1]).nonnegative_part(),
                         (1 - ends[-1][0]).nonnegative_part())
        return Cells(h, first, P, Q, left, right, arb(0))


@lru_cache(maxsize=4)
def allocation_loss(sigma: Fraction, t: int, swap: bool) -> AllocationLoss:
    """One ``AllocationLoss`` per order, so that the bracket's passes (each a finer lattice,
    whose points include the last one's) share its strikes."""
    return AllocationLoss(sigma, t, swap)
