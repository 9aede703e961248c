"""The moments A(a) = E[X^a] of one epoch of two steps, by one integral: the interface of
``moments.EpochMoments`` (``at``, ``row``, ``decay``) for t = 2, where the general ray
ran past ten minutes below sigma = 1 (its cancellation and its nodes grow with b = 1/sigma).

**Two halves.**  X = (Z_1 + Z_2) / 2, Z_i = e^{b G_i - b^2/2}.  With U = (G_1 + G_2) /
sqrt 2 and V = (G_1 - G_2) / sqrt 2, independent standard normals,

    X = e^{b U / sqrt 2 - b^2/2} cosh(beta V),   beta = b / sqrt 2,

and E[e^{a b U / sqrt 2}] = e^{a^2 b^2 / 4}, so for every complex a

    A(a) = e^{b^2 (a^2 - 2a) / 4} C(a),   C(a) = E[cosh(beta V)^a]
         = sqrt(2 / pi) int_0^inf e^{-v^2/2} cosh(beta v)^a dv

(the integrand is even; cosh(beta v) >= 1 on the real line, where cosh^a = e^{a ln cosh}
is analytic in v for |Im beta v| < pi/2).  A(1) = 1 checks it: C(1) = e^{beta^2 / 2}.  So
the loss of an epoch is a Gaussian shift plus an independent ln cosh part, and E epochs
compose as A^E.

**The integral.**  On [0, V_0] FLINT's rigorous Gauss-Legendre (``acb.integral``, the
``analytic`` flag of ``acb.log`` checking each box); beyond V_0, with alpha = Re a and
gamma = max(alpha, 0) beta, |cosh(beta v)^a| = cosh(beta v)^alpha <= e^{gamma v}, so

    sqrt(2 / pi) int_{V_0}^inf |...| dv <= e^{gamma^2 / 2} erfc((V_0 - gamma) / sqrt 2),

with V_0 = gamma + s, s chosen to put that below 2^-prec of e^{gamma^2/2} 2^-|alpha|, about
C(alpha)'s size.  No exponential cancellation: the phase a ln cosh(beta v) turns slowly,
and the Gaussian factor carries the decay in Im a exactly.

**Decay.**  |C(alpha + i tau)| <= E[cosh(beta V)^alpha] = C(alpha) and |e^{b^2 (a^2 -
2a) / 4}| = e^{b^2 (alpha^2 - 2 alpha - tau^2) / 4}, decreasing in |tau|:

    |A(alpha + i s)| <= e^{b^2 (alpha^2 - 2 alpha - tau^2) / 4} C(alpha)  for |s| >= tau.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Tuple

from ... import progress
from ..arb import acb, arb, flint, to_arb

__all__ = ["TwoStepMoments"]

GUARD = 16   # bits beyond the caller's precision for each value


class TwoStepMoments:
    """A(a) = E[X^a] for one epoch of two steps at noise sigma (module docstring); the real
    values C(alpha) kept per precision."""

    t = 2

    def __init__(self, sigma: Fraction) -> None:
        self.sigma = Fraction(sigma)
        self._real: Dict[Tuple[tuple, tuple, int], "arb"] = {}

    def _b2(self) -> "arb":
        return 1 / to_arb(self.sigma) ** 2

    def _c(self, a: "acb") -> "acb":
        """C(a) as a complex ball (module docstring)."""
        prec = flint.ctx.prec
        beta = (self._b2() / 2).sqrt()
        alpha = a.real
        gamma = max(alpha.upper(), arb(0)) * beta
        size = abs(alpha).upper()
        end = gamma + self._reach(size, prec)

        def integrand(v, analytic):
            return (-(v * v) / 2 + a * (beta * v).cosh().log(analytic=analytic)).exp()

        scale = (gamma * gamma / 2).exp() * arb(2) ** (-size)
        body = acb.integral(integrand, 0, end, rel_tol=arb(2) ** -(prec + GUARD),
                            abs_tol=scale * arb(2) ** -(prec + GUARD))
        tail = ((gamma * gamma / 2).exp() * ((end - gamma) / arb(2).sqrt()).erfc()).upper()
        return (2 / arb.pi()).sqrt() * body + acb(arb(0, tail), arb(0, tail))

    @staticmethod
    def _reach(size: "arb", prec: int) -> "arb":
        """s with erfc(s / sqrt 2) below 2^-(prec + |alpha| + GUARD): V_0 - gamma
        (module docstring; it only steers, the tail's bound is what holds)."""
        return (2 * arb(2).log() * (prec + size + GUARD)).sqrt() + 1

    def _real_c(self, alpha: "arb") -> "arb":
        """C(alpha) for real alpha, kept per ball (its exact midpoint and radius: two
        balls that print alike may differ, and one's value need not hold the other's)
        and precision."""
        key = (alpha.mid().man_exp(), alpha.rad().man_exp(), flint.ctx.prec)
        if key not in self._real:
            self._real[key] = self._c(acb(alpha)).real
        return self._real[key]

    def at(self, alpha: "arb", beta: "arb") -> "acb":
        """A(alpha + i beta)."""
        with flint.ctx.workprec(flint.ctx.prec + GUARD):
            a = acb(alpha, beta)
            c = acb(self._real_c(alpha)) if beta == 0 else self._c(a)
            value = (self._b2() * (a * a - 2 * a) / 4).exp() * c
        return +value

    def row(self, alpha: "arb", sign: int, h: "arb", first: int, stop: int) -> List["acb"]:
        """A(alpha + i sign n h) for n = first .. stop - 1 (sign +1 or -1; h >= 0)."""
        out = []
        for n in range(first, stop):
            if n % 64 == 0:
                progress.note(f"random allocation, two steps: node {n} of {stop - 1}")
            out.append(self.at(alpha, sign * n * h))
        return out

    def decay(self, alpha: "arb", beta: "arb") -> "arb":
        """An upper bound on |A(alpha + i s)| for every |s| >= beta >= 0 (module
        docstring)."""
        with flint.ctx.workprec(flint.ctx.prec + GUARD):
            c = self._real_c(alpha)
            return ((self._b2() * (alpha * alpha - 2 * alpha - beta * beta) / 4).exp()
                    * c).upper()
