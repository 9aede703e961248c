"""One step's M(c + it) over a finite interval of y at every t from one set of nodes: the
Gauss-Legendre rule with an error bound that holds for all t up to a given t_max
(``laplace.SubsampledLaplace`` builds it on each lattice cell).

When M(c + it) = int_{y1}^{y2} g(y) e^{i t u(y)} dy with g and u real on the interval and
analytic on the strip |Im y| < ``strip``, the n-point rule on y = m + L x (m, L the
interval's centre and half-width, x_j, w_j the nodes and weights on [-1, 1]) is

    M(c + it) ~ sum_j G_j e^{i t u_j},   G_j = L w_j g(y_j),   u_j = u(y_j),

so the node values G_j, u_j are computed once and each t costs a sum (``contour.power_sums``
on a grid t = n h).

**Error.**  Let f = g e^{itu} be analytic on the closed Bernstein ellipse E_rho (foci
y1, y2, semi-axes L (rho + 1/rho) / 2 and L (rho - 1/rho) / 2, the latter below
``strip``) with |f| <= B there.  Its Chebyshev coefficients on [-1, 1] satisfy |a_k| <= 2 B
rho^{-k} (Trefethen, "Approximation Theory and Approximation Practice", 2013, Thm 8.1);
the rule integrates T_k exactly for k < 2n, and for k >= 2n |int T_k| <= 2 / (k^2 - 1) <=
2 / 3 and |sum_j w_j T_k(x_j)| <= sum_j w_j = 2, so

    |rule - M(c + it)| <= L sum_{k >= 2n} 2 B rho^{-k} (2 + 2 / 3)
                        = (16 / 3) L B rho^{-2n} rho / (rho - 1).

On the ellipse |f| <= e^{A + |t| Y} with A >= max Re ln g and Y >= max |Im u|: both from
balls of ln g and u over ``ARCS`` arcs of the ellipse's boundary (the maximum modulus
principle puts the maximum over the closed ellipse there).  The bound increases in |t|, so
its value at t_max holds for every |t| <= t_max; rho and n only steer (``_choose``): a
poor choice shows as width, never as error.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Dict, List, Tuple

from ..arb import acb, arb, flint
from .contour import power_sums

__all__ = ["LegendreCell", "legendre_rule"]

ARCS = 256                      # boxes covering the ellipse's boundary
RHOS = (2, 3, 4, 6, 8)          # ellipse parameters tried (the strip caps them)
STEP = 16                       # node counts are multiples of it (rules are kept by count)
MAX_POINTS = 4096


@lru_cache(maxsize=32)
def legendre_rule(n: int, prec: int) -> Tuple[Tuple["arb", "arb"], ...]:
    """The n-point Gauss-Legendre nodes and weights on [-1, 1] at ``prec`` bits (Arb's
    enclosures of the roots of P_n and their weights)."""
    with flint.ctx.workprec(prec):
        return tuple(arb.legendre_p_root(n, k, weight=True) for k in range(n))


class LegendreCell:
    """The rule of the module docstring on [``low``, ``high``] for an integrand given as
    ``parts(y)`` = (ln g(y), u(y)) (complex balls, principal branches continuing the real
    values on the strip |Im y| < ``strip``), at the precision current when it is made."""

    def __init__(self, parts: Callable[["acb"], Tuple["acb", "acb"]], low: "arb",
                 high: "arb", strip: "arb") -> None:
        self.parts, self.prec = parts, flint.ctx.prec
        self.centre, self.half = (low + high) / 2, (high - low) / 2
        self.strip = strip
        self._bounds: Dict[int, Tuple["arb", "arb"]] = {}
        self._nodes: Dict[int, Tuple[List["acb"], List["acb"]]] = {}
        self.scale = sum(self.nodes(STEP)[0], acb(0)).real   # steers the tolerance only

    def rhos(self) -> List[int]:
        """The parameters of ``RHOS`` whose ellipse lies inside the strip (at least the
        smallest: a tight strip then shows as an infinite bound, never as error)."""
        fit = [r for r in RHOS if self.half * (r - arb(1) / r) / 2 < self.strip]
        return fit or [RHOS[0]]

    def bounds(self, rho: int) -> Tuple["arb", "arb"]:
        """(A, Y) of the module docstring on the boundary of E_rho: upper bounds on Re ln g
        and |Im u| from ``ARCS`` boxes (infinite where the ellipse leaves the strip)."""
        if rho not in self._bounds:
            with flint.ctx.workprec(self.prec):
                major = self.half * (rho + arb(1) / rho) / 2
                minor = self.half * (rho - arb(1) / rho) / 2
                if not minor < self.strip:
                    self._bounds[rho] = (arb("inf"), arb("inf"))
                    return self._bounds[rho]
                top, most = None, arb(0)
                for k in range(ARCS):
                    theta = (2 * arb.pi() * k / ARCS).union(2 * arb.pi() * (k + 1) / ARCS)
                    y = acb(self.centre + major * theta.cos(), minor * theta.sin())
                    log_g, u = self.parts(y)
                    edge = log_g.real.upper()
                    top = edge if top is None else max(top, edge)
                    most = max(most, abs(u.imag).upper())
                self._bounds[rho] = (top, most)
        return self._bounds[rho]

    def error(self, n: int, rho: int, t: "arb") -> "arb":
        """The module docstring's bound at t >= 0 for n points on E_rho."""
        with flint.ctx.workprec(self.prec):
            a, y = self.bounds(rho)
            r = arb(rho)
            return (arb(16) / 3 * self.half * (a + t * y).exp() * r ** (-2 * n)
                    * r / (r - 1)).upper()

    def _choose(self, t: "arb") -> Tuple[int, int]:
        """(n, rho): the fewest points, a multiple of ``STEP``, whose bound at t is below
        2^-prec of the cell's value (steering only; at most ``MAX_POINTS``)."""
        with flint.ctx.workprec(self.prec):
            aim = (abs(self.scale) * arb(2) ** (-self.prec)).log()
            best = (MAX_POINTS, RHOS[0])
            for rho in self.rhos():
                a, y = self.bounds(rho)
                if not (a + t * y).is_finite():
                    continue
                r = arb(rho)
                need = ((arb(16) / 3 * self.half * r / (r - 1)).log() + a + t * y - aim) \
                    / (2 * r.log())
                if not need.is_finite():   # a cell whose value's ball holds 0
                    continue
                n = STEP * max(1, int((need / STEP).upper().ceil().unique_fmpz()))
                if n < best[0]:
                    best = (n, rho)
            return best

    def nodes(self, n: int) -> Tuple[List["acb"], List["acb"]]:
        """(G_j, u_j) of the n-point rule (module docstring)."""
        if n not in self._nodes:
            with flint.ctx.workprec(self.prec):
                weights, phases = [], []
                for x, w in legendre_rule(n, self.prec):
                    log_g, u = self.parts(acb(self.centre + self.half * x))
                    weights.append(self.half * w * log_g.real.exp())
                    phases.append(acb(u.real))
                self._nodes[n] = (weights, phases)
        return self._nodes[n]

    def _ball(self, t: "arb", n: int = 0) -> Tuple[int, "acb"]:
        """(n, the error ball) for t in [0, t]: n chosen (``_choose``) unless given."""
        if n:
            rho = min(self.rhos(), key=lambda r: self.error(n, r, t))
        else:
            n, rho = self._choose(t)
        e = self.error(n, rho, t)
        return n, acb(arb(0, e), arb(0, e))

    def at(self, t: "arb", n: int = 0) -> "acb":
        """M(c + it) for a real ball t of either sign (the bound at |t| holds for -t: Y
        bounds |Im u|), with ``n`` points if given."""
        n, ball = self._ball(max(abs(t.lower()), abs(t.upper())), n)
        weights, phases = self.nodes(n)
        total = acb(0)
        it = acb(0, t)
        for g, u in zip(weights, phases):
            total += g * (it * u).exp()
        return total + ball

    def row(self, h: "arb", first: int, stop: int) -> List["acb"]:
        """M(c + i n h) for n = first .. stop - 1 (h >= 0), one rule for the whole row."""
        if stop <= first:
            return []
        n, ball = self._ball((stop - 1) * h)
        weights, phases = self.nodes(n)
        it = acb(0, h)
        return [m + ball for m in power_sums(weights, [it * u for u in phases], first, stop)]
