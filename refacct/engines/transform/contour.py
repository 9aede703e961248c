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
from typing import List, Sequence

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
        return [m + ball for m in power_sums(self.weights, [it * u for u in self.phases],
                                             first, stop)]


def power_sums(weights: Sequence["acb"], rates: Sequence["acb"], first: int, stop: int
               ) -> List["acb"]:
    """sum_k g_k e^{n a_k} for n = first .. stop - 1 (``weights`` g_k, ``rates`` a_k): with
    n = first + r B + s, the product X[r, k] Y[k, s] of the module docstring."""
    return Powers(rates, first, stop).sums(weights)


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
        memory.check(3 * self.blocks * k + 2 * k * self.width + self.count, flint.ctx.prec,
                     f"the sums of {k} nodes' powers at {self.count} points")
        self.rows = _progression(rates, first, self.width, self.blocks) if self.count else []
        ys = _progression(rates, 0, 1, self.width)
        self.y = acb_mat(k, self.width, [ys[s][j] for j in range(k) for s in range(self.width)])

    def sums(self, weights: Sequence["acb"]) -> List["acb"]:
        """sum_k g_k e^{n a_k} for the range made, ``weights`` g_k."""
        if not self.count:
            return []
        xs = [g * x for row in self.rows for g, x in zip(weights, row)]
        product = acb_mat(self.blocks, len(weights), xs) * self.y
        return [product[n // self.width, n % self.width] for n in range(self.count)]
