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

``noise_scale_for_errors`` calibrates to error rates instead (the same paper's "err-rates"
target): the smallest s whose trade-off curve keeps beta_s(alpha) >= beta, i.e. no test at
false-positive rate alpha misses fewer than a fraction beta.  beta_s(alpha) is
non-decreasing in s by the same post-processing argument, and each scale is decided by a
bracket of ``refacct.tradeoff.beta``.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Tuple

from . import api, tradeoff
from .errors import InputError
from .exact import eps_parameter, positive, probability
from .result import CalibrationResult, exact_rational, midpoint_radius
from .engines.arb import dyadic_mpf

__all__ = ["noise_scale", "noise_scale_for_errors", "DEFAULT_WIDTH", "MAX_SCALE", "MIN_SCALE"]

DEFAULT_WIDTH = Fraction(1, 10 ** 4)
MAX_SCALE = Fraction(2 ** 20)
MIN_SCALE = Fraction(1, 2 ** 10)
_STEPS = 200       # bisections at most (the bracket is returned as reached)
_SHARPER = 2       # retries of an undecided scale, each with a 100 times sharper enclosure


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
    side = _Side(make, _DeltaTest(eps, target))
    low, high = _bisect(side, width)
    return _result(low, high, side, "bisection on delta(eps)", eps=eps, delta_target=target)


def noise_scale_for_errors(make: Callable[[Fraction], Tuple[object, int]], alpha: object,
                           beta: object, *, width: object = None) -> CalibrationResult:
    """s* = the smallest s with beta_s(alpha) >= beta (module docstring) for the family
    ``make(s)`` -> (x, steps) whose trade-off curve is non-decreasing in s; a bracket
    ``width`` relative to its upper end (default 1e-4), each scale decided by a
    ``refacct.tradeoff.beta`` bracket a tenth as wide."""
    a = tradeoff.alpha_parameter(alpha)
    target = probability(beta, "beta")
    if not 0 < target < 1 - a:
        raise InputError(f"beta must lie in (0, 1 - alpha) = (0, {1 - a}): no noise reaches "
                         f"beta >= 1 - alpha, and every scale meets beta = 0; got {target}")
    width = DEFAULT_WIDTH if width is None else positive(width, "width")
    side = _Side(make, _BetaTest(a, target, width / 10))
    low, high = _bisect(side, width)
    return _result(low, high, side, "bisection on beta(alpha)", alpha=a, beta_target=target)


def _bisect(side: "_Side", width: Fraction) -> Tuple[Fraction, Fraction]:
    """A decided bracket around s*, bisected until ``width`` relative to its upper end (or
    until a scale's enclosure straddles the target: s* is then within its resolution)."""
    low, high = side.ends()
    for _ in range(_STEPS):
        if low == 0 or high - low <= width * high:
            break
        mid = (low + high) / 2
        decided = side.of(mid)
        if decided is None:
            break
        low, high = (mid, high) if decided == "below" else (low, mid)
    return low, high


class _DeltaTest:
    """delta_s(eps) <= target: "above" when its upper end meets it, "below" when its lower
    end does not."""

    def __init__(self, eps: Fraction, target: Fraction) -> None:
        self.eps, self.target, self.digits = eps, target, 15

    def __str__(self) -> str:
        return f"delta = {self.target} at eps = {self.eps}"

    def __call__(self, x, steps: int):
        r = api.delta(x, self.eps, steps=steps, digits=self.digits)
        lo, hi = exact_rational(r.lower), exact_rational(r.upper)
        side = "above" if hi <= self.target else "below" if lo > self.target else None
        return side, r.proven or r.exact_form is not None, r.method, getattr(r, "bound", "tight")

    def sharpen(self) -> None:
        self.digits += 2


class _BetaTest:
    """beta_s(alpha) >= target: "above" when its lower end meets it, "below" when its upper
    end does not.  A curve bounded from below only (``bound`` "lower") decides "above"
    soundly; the result's bound is then "upper" (module docstring)."""

    def __init__(self, alpha: Fraction, target: Fraction, width: Fraction) -> None:
        self.alpha, self.target, self.width = alpha, target, width

    def __str__(self) -> str:
        return f"beta = {self.target} at alpha = {self.alpha}"

    def __call__(self, x, steps: int):
        r = tradeoff.beta(x, self.alpha, steps=steps, width=self.width)
        lo, hi = (exact_rational(e) for e in r.enclosure)
        side = "above" if lo >= self.target else "below" if hi < self.target else None
        return side, r.proven, r.method, {"lower": "upper", "upper": "lower"}.get(r.bound, "tight")

    def sharpen(self) -> None:
        self.width /= 100


class _Side:
    """Which side of s* a scale lies on, by ``test(x, steps)`` -> (side, proven, method,
    bound) on the family's member."""

    def __init__(self, make, test) -> None:
        self.make, self.test = make, test
        self.proven, self.reason, self.bound = True, "", "tight"

    def of(self, s: Fraction):
        """"above" (s >= s*), "below" (s < s*) or None (undecided even after ``_SHARPER``
        sharper enclosures: s is then within their resolution of s*)."""
        x, steps = self.make(s)
        for attempt in range(_SHARPER + 1):
            side, proven, self.reason, bound = self.test(x, steps)
            self.proven = self.proven and proven
            if bound != "tight":  # a one-sided profile decides one side soundly
                self.bound = bound
            if side is not None or attempt == _SHARPER:
                return side
            self.test.sharpen()

    def ends(self) -> Tuple[Fraction, Fraction]:
        """A decided (low, high) around s*: doubling from s = 1 until a scale meets the
        target, then halving until one does not (low = 0 when even ``MIN_SCALE`` meets it)."""
        low = high = None
        s = Fraction(1)
        while high is None:
            if s > MAX_SCALE:
                raise InputError(f"no noise scale up to {MAX_SCALE} meets {self.test}")
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


def _result(low: Fraction, high: Fraction, side: _Side, how: str,
            **target) -> CalibrationResult:
    lo, hi = dyadic_mpf(low), dyadic_mpf(high)
    value, radius = midpoint_radius(lo, hi)
    digits = 20 if high == low else max(2, len(str(high // (high - low))))
    return CalibrationResult(value, radius, f"{how} ({side.reason})", digits,
                             enclosure=(lo, hi), proven=side.proven, bound=side.bound,
                             **target)
