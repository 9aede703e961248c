"""The loss of a public mixture for the transform engine (``mgf``): the output reveals which
pair r acted, with the same weights w_r under both datasets (``pairs.PublicMixture``).

On the joint space of (r, y) the privacy loss is L(r, y) = ln(p_r(y) / q_r(y)), so its
moment generating function is the weighted sum M(z) = sum_r w_r M_r(z), and T steps
compose as M^T: the T-fold mixture's multinomial sum over counts (about T^{m - 1} terms
for m pairs) is never built.  This covers truncated Poisson sampling (004 Sec. 3.4: the
release r in {1, 2}), whose pairs are Poisson-subsampled Gaussians.

Decay: |M(c + is)| <= sum_r w_r |M_r(c + is)|, so the pairs' strip bounds sum, and |dM/ds|
<= sum_r w_r K_r and |M(c + is)| <= sum_r w_r F_r(s) with each pair's Lipschitz and far
bounds (``mgf.SubsampledGaussian``), on whose weighted sums the scan (``scan.steps_decay``)
runs.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple

import mpmath
from mpmath import mp

from ...exact import to_mpf
from ..arb import acb, arb, power_log, to_arb
from .contour import LINE_MAX_NODES
from .scan import steps_decay

__all__ = ["PublicMixtureLoss"]


class PublicMixtureLoss:
    """``steps`` steps of the public mixture sum_r w_r (P_r, Q_r): ``parts`` the pairs
    (w_r, loss of one step of (P_r, Q_r)), each a loss with ``one_step``, ``one_step_row``,
    ``lipschitz``, ``far``, ``sup`` and ``rate``."""

    c_max = None  # each part's M(c) is finite for every c
    max_nodes = LINE_MAX_NODES   # the parts' lines

    def __init__(self, parts: Sequence[Tuple[Fraction, object]], steps: int) -> None:
        self.parts, self.steps = tuple(parts), steps

    def one_step(self, z: "acb") -> "acb":
        total = acb(0)
        for w, part in self.parts:
            total += to_arb(w) * part.one_step(z)
        return total

    def one_step_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        total = [acb(0)] * (stop - first)
        for w, part in self.parts:
            weight = to_arb(w)
            total = [x + weight * y for x, y in zip(total, part.one_step_row(c, h, first, stop))]
        return total

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * power_log(self.one_step(z))

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        return [self.steps * power_log(m) for m in self.one_step_row(c, h, first, stop)]

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The weighted sum of the pairs' strip bounds (``mgf.SubsampledGaussian.strip``),
        or the scan on the weighted sums of their bounds (module docstring)."""
        return steps_decay(self, c, t, drop, lambda: sum(
            (to_arb(w) * part.strip(c, t) for w, part in self.parts), arb(0)))

    def lipschitz(self, c: "arb") -> "arb":
        return sum((to_arb(w) * part.lipschitz(c) for w, part in self.parts), arb(0))

    def far(self, c: "arb") -> Callable[["arb"], "arb"]:
        bounds = [(to_arb(w), part.far(c)) for w, part in self.parts]
        return lambda s: sum((w * f(s) for w, f in bounds), arb(0))

    def sup(self) -> Optional["arb"]:
        """T times the largest of the pairs' one-step suprema (None: unbounded)."""
        tops = [part.sup() for _, part in self.parts]
        if any(top is None for top in tops):
            return None
        most = tops[0]
        for top in tops[1:]:   # a ball that holds the largest: it lies in their union
            most = most.union(top)
        return self.steps * most

    def rate(self) -> Fraction:
        """The chance that a step uses the record: the weighted chances of the pairs."""
        return sum((w * part.rate() for w, part in self.parts), Fraction(0))

    def uses(self) -> Fraction:
        """The expected number of the T steps that use the record."""
        return self.steps * self.rate()

    def spread(self) -> mpmath.mpf:
        """T sum_r w_r e^{-1 / s_r^2}: the pairs' ``SubsampledGaussian.spread`` of one step,
        weighted (each step draws its pair r), for the routing's few-steps rule."""
        with mp.workdps(15):
            return self.steps * mp.fsum(to_mpf(w) * part.spread() for w, part in self.parts)
