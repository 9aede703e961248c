"""Noise calibration: the smallest noise scale that meets a target, as a bracket.

For a family of mechanisms x(s) indexed by a noise scale s (the Gaussian's sigma, run
``steps`` times, sampled or not) and a target (eps, delta), the calibrated scale is

    s* = inf { s > 0 : delta_s(eps) <= delta }.

delta_s(eps) is non-increasing in s for the Gaussian families of the catalogue: N(0, t^2)
is N(0, s^2) plus independent N(0, t^2 - s^2) noise for t > s, a post-processing of the
mechanism, which cannot increase any hockey-stick divergence (Dong, Roth, Su, "Gaussian
Differential Privacy", 2019, arXiv:1905.02383, Sec. 2; the same holds after subsampling and
composition, applied step by step).  So one evaluation decides a side: if the upper end of
delta_s(eps)'s enclosure is <= delta, then s >= s*; if its lower end is > delta, then
s < s*.  Bisection on rational s keeps a decided lower and upper end, until the bracket is
``width`` relative to its upper end; it is proven when the delta(eps) enclosures are.  When
delta is only an upper bound (a catalogue entry's ``bound``), only "above" is decided
soundly: the result's ``bound`` is then "upper" (its upper end bounds s*).

eps = 0 is the attack advantage (Kulynych, Gomez et al., "Attack-Aware Noise Calibration
for Differential Privacy", 2024, arXiv:2407.02191): the smallest sigma whose advantage is at
most a target.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Tuple

from . import api
from .errors import InputError
from .exact import eps_parameter, positive, probability
from .result import CalibrationResult, exact_rational, midpoint_radius
from .engines.arb import dyadic_mpf

__all__ = ["noise_scale", "DEFAULT_WIDTH", "MAX_SCALE", "MIN_SCALE"]

DEFAULT_WIDTH = Fraction(1, 10 ** 4)
MAX_SCALE = Fraction(2 ** 20)
MIN_SCALE = Fraction(1, 2 ** 10)
_STEPS = 200       # bisections at most (the bracket is returned as reached)


def noise_scale(make: Callable[[Fraction], Tuple[object, int]], eps: object, delta: object, *,
                width: object = None) -> CalibrationResult:
    """s* = the smallest s with delta_s(eps) <= delta (module docstring) for the family
    ``make(s)`` -> (x, steps) (a catalogue entry or pair and its steps, as for
    ``refacct.delta``) whose delta is non-increasing in s; a bracket ``width`` relative to its
    upper end (default 1e-4).  The search starts at s = 1 and doubles or halves, so every
    scale tried is a dyadic rational; below ``MIN_SCALE`` the lower end is 0."""
    eps = eps_parameter(eps)
    target = probability(delta, "delta")
    if target >= 1:
        raise InputError("delta must be < 1: every scale meets delta = 1")
    width = DEFAULT_WIDTH if width is None else positive(width, "width")
    side = _Side(make, eps, target)
    low, high = side.ends()
    for _ in range(_STEPS):
        if low == 0 or high - low <= width * high:
            break
        mid = (low + high) / 2
        decided = side.of(mid)
        if decided is None:  # the enclosure straddles delta: s* is within its resolution
            break
        low, high = (mid, high) if decided == "below" else (low, mid)
    return _result(low, high, eps, target, side)


class _Side:
    """Which side of s* a scale lies on, from delta_s(eps)'s enclosure."""

    def __init__(self, make, eps: Fraction, target: Fraction) -> None:
        self.make, self.eps, self.target = make, eps, target
        self.proven, self.reason, self.bound = True, "", "tight"

    def of(self, s: Fraction):
        """"above" (s >= s*), "below" (s < s*) or None (undecided)."""
        x, steps = self.make(s)
        r = api.delta(x, self.eps, steps=steps, digits=15)
        self.proven = self.proven and (r.proven or r.exact_form is not None)
        self.reason = r.method
        if getattr(r, "bound", "tight") != "tight":  # an upper (lower) delta decides one side
            self.bound = r.bound
        if exact_rational(r.upper) <= self.target:
            return "above"
        if exact_rational(r.lower) > self.target:
            return "below"
        return None

    def ends(self) -> Tuple[Fraction, Fraction]:
        """A decided (low, high) around s*: doubling from s = 1 until a scale meets the
        target, then halving until one does not (low = 0 when even ``MIN_SCALE`` meets it)."""
        low = high = None
        s = Fraction(1)
        while high is None:
            if s > MAX_SCALE:
                raise InputError(f"no noise scale up to {MAX_SCALE} meets delta = "
                                 f"{self.target} at eps = {self.eps}")
            side = self.of(s)
            low, high = (s, None) if side == "below" else (low, s if side == "above" else None)
            s *= 2
        s = high / 2
        while low is None:
            if s < MIN_SCALE:
                return Fraction(0), high
            side = self.of(s)
            low, high = (s, high) if side == "below" else (None, s if side == "above" else high)
            s /= 2
        return low, high


def _result(low: Fraction, high: Fraction, eps: Fraction, target: Fraction,
            side: _Side) -> CalibrationResult:
    lo, hi = dyadic_mpf(low), dyadic_mpf(high)
    value, radius = midpoint_radius(lo, hi)
    digits = 20 if high == low else max(2, len(str(high // (high - low))))
    return CalibrationResult(value, radius, f"bisection on delta(eps) ({side.reason})", digits,
                             eps=eps, delta_target=target, enclosure=(lo, hi),
                             proven=side.proven, bound=side.bound)
