"""The put f(K) = E[(K - X)_+] on the mean X of t independent lognormals of mean 1 (log-
scale b), as a proven ball, by inverting the Laplace transform of X on a vertical line.

**The transform.**  For Re s = c > 0, int_0^inf e^{-sK} f(K) dK = E[e^{-sX}] / s^2, and
E[e^{-sX}] = phi(s / t)^t with phi the Laplace transform of one lognormal
(``lognormal.laplace``).  Hence

    f(K) = (1 / 2 pi) int_R g(y) dy,   g(y) = phi((c + iy) / t)^t e^{(c + iy) K} / (c + iy)^2.

**Trapezoidal rule** (Trefethen and Weideman, "The exponentially convergent trapezoidal
rule", SIAM Review 56, 2014).  By Poisson summation S = (h / 2 pi) sum_n g(nh) equals
sum_k e^{-2 pi c k / h} f(K + 2 pi k / h) exactly.  X >= 0, so f vanishes on (-inf, 0]: with
h <= 2 pi / K every term k < 0 is 0.  The terms k > 0 are >= 0 and f(x) <= x, so

    f(K) = S - A,   0 <= A <= K r / (1 - r) + (2 pi / h) r / (1 - r)^2,   r = e^{-2 pi c / h}.

One table of g's first factor (nodes y = nh, n = 0..N; g(-y) is the conjugate of g(y))
serves every K up to 2 pi / h.

**Truncation.**  With D >= |phi((c + iy) / t)| for all y >= Nh (``lognormal.modulus_bound``)
and |c + iy|^2 >= y^2, the terms |n| > N weigh at most
(h / pi) sum_{n > N} D^t e^{cK} / (nh)^2 <= e^{cK} D^t / (pi N h).

So f(K) lies in [S_N - E - A, S_N + E], S_N an Arb ball.  c, h and N only steer (c makes
r small, N makes E small); a poor choice shows as width, never as error.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import List, Optional, Tuple

from flint import acb_poly

from ... import progress
from ...errors import OutOfReach
from ..arb import acb, arb, flint
from .lognormal import laplace, modulus_bound

__all__ = ["Table", "plan", "table", "put", "MAX_NODES"]

MAX_NODES = 20000  # phi at ~10 ms a node: beyond this the inversion is refused


@dataclass(frozen=True)
class Table:
    """phi((c + i n h) / t)^t / (c + i n h)^2 for n = 0..N, and the bound D^t of the
    module docstring beyond Nh; valid for every K <= ``k_max`` (exact), h = 2 pi / k_max."""

    t: int
    c: "arb"
    h: "arb"
    k_max: "arb"
    values: List["acb"]
    tail: "arb"
    bits: int

    @cached_property
    def blocks(self) -> List["acb_poly"]:
        """The rule's sum over n as polynomials in e^{ihK}, one per ``BLOCK`` nodes (the
        conjugate half folded in: the real part is what the rule needs).  Blocks, because
        Horner's rule in Arb's rectangular complex balls multiplies the radius by up to
        sqrt(2) at each step (|Re w| + |Im w| for |w| = 1): 2^16 at most per block."""
        with flint.ctx.workprec(self.bits):
            folded = [self.values[0]] + [2 * v for v in self.values[1:]]
            return [acb_poly(folded[k:k + BLOCK]) for k in range(0, len(folded), BLOCK)]


BLOCK = 32


def plan(t: int, b: "arb", k_max: "arb", tolerance: "arb", bits: int
         ) -> Tuple["arb", "arb", int, "arb"]:
    """(c, h, N, D^t) of the table for these arguments, before any node is computed;
    refused (``OutOfReach``) beyond ``MAX_NODES``."""
    with flint.ctx.workprec(bits):
        h = 2 * arb.pi() / k_max
        # r ~ e^{-c k_max}: the aliasing bound ~ k_max r falls below a tenth of the tolerance
        c = ((k_max / tolerance).log() + 5) / k_max
        c = arb(c.upper())
        N, tail = _cut((c * k_max).exp(), c, h, t, b, tolerance, bits)
        return c, h, N, tail


def table(t: int, b: "arb", k_max: "arb", tolerance: "arb", bits: int) -> Table:
    """Nodes for every strike K <= ``k_max`` with aliasing and truncation below about
    ``tolerance`` (absolute); refused (``OutOfReach``) beyond ``MAX_NODES``."""
    c, h, N, tail = plan(t, b, k_max, tolerance, bits)
    with flint.ctx.workprec(bits):
        values: List[acb] = []
        for n in range(N + 1):
            s = acb(c, h * n)
            values.append(laplace(s / t, b, bits) ** t / (s * s))
            progress.check()
        return Table(t, c, h, k_max, values, tail, bits)


def _cut(growth: "arb", c: "arb", h: "arb", t: int, b: "arb", tolerance: "arb",
         bits: int) -> Tuple[int, "arb"]:
    """(N, D^t): a last node N h beyond which the truncation bound holds, found before any
    node is computed (doubling from 16, then bisection to within an eighth), so that a
    query beyond ``MAX_NODES`` is refused at once."""
    if _enough(growth, c, h * MAX_NODES, t, b, tolerance, bits) is None:
        raise OutOfReach(
            f"the random-allocation inversion needs more than {MAX_NODES} nodes at "
            f"t = {t} (|E[e^(-sX)]| decays too slowly for few steps)")
    low, high = 0, 16
    while high < MAX_NODES and _enough(growth, c, h * high, t, b, tolerance, bits) is None:
        low, high = high, min(2 * high, MAX_NODES)
    while high - low > max(8, high // 8):
        mid = (low + high) // 2
        if _enough(growth, c, h * mid, t, b, tolerance, bits) is None:
            low = mid
        else:
            high = mid
    return high, _enough(growth, c, h * high, t, b, tolerance, bits)


def _enough(growth: "arb", c: "arb", y: "arb", t: int, b: "arb", tolerance: "arb",
            bits: int) -> Optional["arb"]:
    """D^t for the nodes beyond y when the truncation bound e^{c k_max} D^t / (pi y) is
    below a tenth of the tolerance; else None."""
    tail = modulus_bound(c, y, t, b, bits) ** t
    return tail if growth * tail / (arb.pi() * y) < tolerance / 10 else None


def put(tab: Table, K: "arb") -> "arb":
    """E[(K - X)_+] as a proven ball, 0 < K <= tab.k_max (module docstring)."""
    with flint.ctx.workprec(tab.bits):
        if not (K > 0 and K <= tab.k_max):
            raise ValueError(f"the strike must lie in (0, 2 pi / h], got {K}")
        c, h = tab.c, tab.h
        w = acb(0, h * K).exp()
        total = sum((block(w) * acb(0, h * K * (k * BLOCK)).exp()
                     for k, block in enumerate(tab.blocks)), acb(0))
        S = total.real * (c * K).exp() * h / (2 * arb.pi())
        N = len(tab.values) - 1
        E = (c * K).exp() * tab.tail / (arb.pi() * N * h)
        r = (-2 * arb.pi() * c / h).exp()
        A = K * r / (1 - r) + (2 * arb.pi() / h) * r / ((1 - r) * (1 - r))
        return (S - A).union(S) + arb(0, E.upper())
