"""One step's M(c + it) at every t from one set of nodes: a trapezoidal rule whose error
bound does not depend on t (``mgf.SubsampledGaussian.line`` builds it).

When M(c + it) = int f_c(y) e^{i t u(y)} dy and the integrand extends to a strip beside the
real line on which |e^{i t u}| <= 1 for t >= 0 and |f_c| <= F f_c(Re y), the trapezoidal
rule on a line inside the strip, with step D and nodes y_k,

    M(c + it) ~ sum_k g_k e^{i t u_k},   g_k = D f_c(y_k),   u_k = u(y_k),

errs by at most a bound E that holds for every t >= 0 (Trefethen and Weideman, "The
exponentially convergent trapezoidal rule", SIAM Review 56, 2014, Thm 5.1; the terms
outside the nodes' range by tail bounds), so the node values g_k, u_k are computed once
and each t costs a sum.  On a grid t = n h (``row``) the sums are one product of Arb
matrices: with n = n_0 + r B + s (0 <= s < B),

    sum_k g_k w_k^n = sum_k (g_k w_k^{n_0 + r B}) (w_k^s),   w_k = e^{i h u_k},

X[r, k] Y[k, s], built with about 2 sqrt(J) K multiplications for J values of K nodes and
multiplied in C; about 4 sqrt(J) K balls at once, checked against the memory available
before they are made (``engines.memory``: FLINT aborts the process when it runs out).
"""
from __future__ import annotations

from math import isqrt
from typing import List, Optional, Sequence, Tuple

from flint import acb_mat

from .. import memory
from ..arb import acb, arb, flint

__all__ = ["Line", "LINE_MAX_NODES", "Powers", "power_sums"]

# nodes on each side of 0 for a loss whose values at every t come from lines (``row``: a
# hundred thousand values in seconds); few steps need that many, their transform decaying
# only as e^{-T (s^2 / 2) ln^2(q t)} (three steps of truncated Poisson sampling under
# zero-out, n 100, p 1/20, cut at 6: 132 327)
LINE_MAX_NODES = 2 ** 18
ANCHOR = 16   # powers between exact exponentials (``_progression``)


class Line:
    """The trapezoidal rule's node values ``weights`` g_k and ``phases`` u_k (complex
    balls) and the bound ``error`` >= |rule - M(c + it)| for every t >= 0 (a real ball's
    upper end)."""

    def __init__(self, weights: Sequence["acb"], phases: Sequence["acb"], error: "arb") -> None:
        self.weights, self.phases, self.error = list(weights), list(phases), error

    def _ball(self) -> "acb":
        return acb(arb(0, self.error), arb(0, self.error))

    def at(self, t: "arb") -> "acb":
        """M(c + it); for t < 0 the conjugate of M(c - it) (M(c - it) = conj M(c + it), the
        loss being real)."""
        if t < 0:
            return self.at(-t).conjugate()
        if not t >= 0:
            return self._straddle(t)
        total = acb(0)
        it = acb(0, t)
        for g, u in zip(self.weights, self.phases):
            total += g * (it * u).exp()
        return total + self._ball()

    def _straddle(self, t: "arb") -> "acb":
        """A ball t that contains 0 and negative values: the union of both sides."""
        up = self.at(arb(0).union(max(abs(t.lower()), abs(t.upper()))))
        return up.union(up.conjugate())

    def row(self, h: "arb", first: int, stop: int) -> List["acb"]:
        """M(c + i n h) for n = first .. stop - 1 (h >= 0), by the product of the module
        docstring."""
        it = acb(0, h)
        ball = self._ball()
        # terms below the floor widen each value by at most error / 16 (``Powers.sums``)
        floor = self.error / (16 * max(len(self.weights), 1))
        return [m + ball for m in power_sums(self.weights, [it * u for u in self.phases],
                                             first, stop, floor)]


def power_sums(weights: Sequence["acb"], rates: Sequence["acb"], first: int, stop: int,
               floor: Optional["arb"] = None) -> List["acb"]:
    """sum_k g_k e^{n a_k} for n = first .. stop - 1 (``weights`` g_k, ``rates`` a_k): with
    n = first + r B + s, the product X[r, k] Y[k, s] of the module docstring; terms below
    ``floor`` as balls (``Powers.sums``)."""
    return Powers(rates, first, stop).sums(weights, floor)


def _progression(rates: Sequence["acb"], start: int, step: int, count: int
                 ) -> List[List["acb"]]:
    """[[e^{(start + j step) a_k} for each rate a_k] for j = 0 .. count - 1], as products
    in two runs: of e^{ANCHOR step a_k} from one anchor to the next, every ``ANCHOR``
    terms, and of e^{step a_k} between them.  A complex ball is a rectangle, so each
    product can widen the radius by up to sqrt 2 times the modulus (the wrapping effect):
    one run of 347 products, at 147 bits, left a radius 10^15 times that of the
    exponential made directly; runs of at most count / ANCHOR and ANCHOR products keep
    that within about 2^((count / ANCHOR + ANCHOR) / 2)."""
    steps = [(step * a).exp() for a in rates]
    strides = [(ANCHOR * step * a).exp() for a in rates]
    out: List[List["acb"]] = []
    anchor = [(start * a).exp() for a in rates]
    for j in range(count):
        if j % ANCHOR == 0:
            if j:
                anchor = [p * w for p, w in zip(anchor, strides)]
            out.append(anchor)
        else:
            out.append([p * w for p, w in zip(out[-1], steps)])
    return out


class Powers:
    """The half of ``power_sums`` that depends on the rates alone: Y[k, s] = e^{s a_k} and
    e^{(first + r B) a_k}, made once for any number of weight vectors (the maximum over
    orders sums new weights on one grid at every eps)."""

    def __init__(self, rates: Sequence["acb"], first: int, stop: int) -> None:
        self.count = max(stop - first, 0)
        self.width = isqrt(self.count - 1) + 1 if self.count else 1      # B
        self.blocks = -(-self.count // self.width)                        # rows of X
        k = len(rates)
        # the rows and Y, then at each sum the weighted rows, X and the product
        memory.check(3 * self.blocks * k + 3 * k * self.width + self.count, flint.ctx.prec,
                     f"the sums of {k} nodes' powers at {self.count} points")
        self.rows = _progression(rates, first, self.width, self.blocks) if self.count else []
        ys = _progression(rates, 0, 1, self.width)
        self.ys = [[ys[s][j] for s in range(self.width)] for j in range(k)]
        # |e^{s a_k}| <= 1 for s >= 0: a node's terms shrink along its row
        self.contracting = [bool(a.real <= 0) for a in rates]
        self._whole: Optional["acb_mat"] = None   # Y of every node in order, made once

    def sums(self, weights: Sequence["acb"], floor: Optional["arb"] = None) -> List["acb"]:
        """sum_k g_k e^{n a_k} for the range made, ``weights`` g_k.

        With a ``floor`` > 0, a node whose term at the first n of a row of X is at most
        ``floor`` and whose rate has Re a_k <= 0 has every later term at most ``floor``
        (|g_k e^{(n + s) a_k}| <= |g_k e^{n a_k}|): it leaves the products from that row
        on, and each sum there widens by ``floor`` for each node left.  The nodes are taken
        in the order in which they leave, so each group of rows multiplies a prefix of
        them, a new group where the prefix has halved: where the rates' real parts differ
        (a line off the real axis) most nodes leave early, and Arb's block product,
        whose cost grows with the spread of exponents in its rows, multiplies only the
        rest (three steps of truncated Poisson sampling under zero-out: 7.7 s to 1.5 s for
        932 nodes at 132 328 points, the same enclosure)."""
        if not self.count:
            return []
        xs = [[g * x for g, x in zip(weights, row)] for row in self.rows]
        order, stays = self._order(xs, floor)
        out: List["acb"] = []
        r = 0
        while r < self.blocks:
            m = stays[r]
            end = r + 1
            while end < self.blocks and 2 * stays[end] > m:
                end += 1
            out += self._group(xs[r:end], order[:m], len(weights) - m, floor)
            r = end
        return out[:self.count]

    def _order(self, xs: List[List["acb"]], floor: Optional["arb"]
               ) -> Tuple[List[int], List[int]]:
        """The nodes in the order in which they leave (last first) and, for each row of
        X, how many of them stay in its product."""
        k = len(self.contracting)
        if floor is None or not floor > 0:
            return list(range(k)), [k] * self.blocks
        leaves = []
        for j in range(k):
            row = self.blocks
            if self.contracting[j]:
                while row and abs(xs[row - 1][j]) <= floor:
                    row -= 1
            leaves.append(row)
        order = sorted(range(k), key=lambda j: -leaves[j])
        return order, [sum(1 for j in leaves if j > r) for r in range(self.blocks)]

    def _group(self, rows: List[List["acb"]], nodes: List[int], left: int,
               floor: Optional["arb"]) -> List["acb"]:
        """The sums of a group of rows from the product of their ``nodes``, widened by
        ``left`` times ``floor`` (the nodes left out)."""
        if nodes:
            x = acb_mat(len(rows), len(nodes), [row[j] for row in rows for j in nodes])
            product = x * self._y(nodes)
            sums = [product[i, s] for i in range(len(rows)) for s in range(self.width)]
        else:
            sums = [acb(0)] * (len(rows) * self.width)
        if not left:
            return sums
        rad = (left * floor).upper()
        ball = acb(arb(0, rad), arb(0, rad))
        return [v + ball for v in sums]

    def _y(self, nodes: List[int]) -> "acb_mat":
        """Y's rows of ``nodes``: every node in order (no floor) is made once for every
        weight vector."""
        if nodes != list(range(len(self.ys))):
            return acb_mat(len(nodes), self.width, [v for j in nodes for v in self.ys[j]])
        if self._whole is None:
            self._whole = acb_mat(len(nodes), self.width, [v for row in self.ys for v in row])
        return self._whole
