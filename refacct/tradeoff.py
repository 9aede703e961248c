"""The trade-off curve beta(alpha) of a pair or a mechanism: a proven bracket from its privacy
profile.

f-DP (Dong, Roth, Su, "Gaussian Differential Privacy", 2019, arXiv:1905.02383, Sec. 2): a test
phi of H0: P against H1: Q errs with alpha_phi = E_P[phi] (type I) and beta_phi = 1 - E_Q[phi]
(type II); the trade-off curve is T(P, Q)(alpha) = inf {beta_phi : alpha_phi <= alpha}.

**Duality.**  For every test and gamma > 0, E_Q[phi] - gamma E_P[phi] <= H_gamma(Q || P), with
equality for the Neyman-Pearson tests, so for 0 < alpha < 1

    T(P, Q)(alpha) = sup_{gamma > 0} f(gamma),   f(gamma) = 1 - H_gamma(Q || P) - gamma alpha.

refacct computes H at gamma = e^eps >= 1; below 1, H_gamma(Q || P) = 1 - gamma + gamma
H_{1/gamma}(P || Q) (complement the test), so with d1(eps) = H_{e^eps}(Q || P) and
d2(eps) = H_{e^eps}(P || Q), eps >= 0:

    f(e^eps) = 1 - d1(eps) - e^eps alpha,           f(e^-eps) = e^-eps (1 - d2(eps) - alpha).

A catalogue entry's profile is the maximum over its terms (both directions under add-remove):
d1 = d2 = delta, and the supremum is the curve of Dong et al.'s Prop. 2.12 (their symmetrised
curve, Def. F.1), what f-DP accountants such as riskcal report for a mechanism.

**The bracket.**  f is concave on [0, inf) (H_gamma is convex in gamma), f(0) = 0.  Evaluated
on a grid of eps (dyadic rationals) with enclosures of d1, d2, it gives

* a lower bound: the largest lower end of f at a grid point;
* an upper bound on each cell [t_i, t_{i+1}] (t = e^eps): concavity puts f below the chords
  of the neighbouring cells extended into it, and below their crossing; on the outermost
  cells below f(t) <= t (1 - alpha) (t <= 1) and, beyond the last point, below hi_n when
  the last chord descends.

Cells whose upper bound is below the lower bound are dropped, the others bisected, until
the bracket's width is at most ``width`` times its upper end.  All arithmetic is Arb ball
arithmetic on exact inputs, so both ends are mathematical bounds when the profile's are.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Optional, Tuple

import flint

from . import api, progress
from .engines.arb import arb, arb_ends, dyadic_mpf, to_arb
from .errors import InputError, InputTypeError, TimeLimitError
from .exact import many as is_many, positive, rational
from .mechanisms import Allocated, Dominated, Shuffled
from .pairs import Composition, Pair, PublicMixture
from .result import TradeoffResult, exact_rational, midpoint_radius, time_limited
from .transform import TRANSFORM

__all__ = ["beta", "alpha_parameter", "DEFAULT_WIDTH"]

DEFAULT_WIDTH = Fraction(1, 10 ** 6)
_PREC = 128
_START = 8          # grid points per unit of eps at the start
_LEVELS = 60        # bisections at most (the bracket is returned as reached)
_CLAIMS = {"tight": "tight", "upper": "lower", "lower": "upper"}


def beta(x, alpha, *, steps: int = 1, width: object = None, method: str = "auto",
         time_limit: Optional[float] = None):
    """T(P, Q)(alpha) of ``x`` run ``steps`` times, as a proven bracket when the profile is
    (module docstring), for one alpha in (0, 1) or a list (then a list of
    ``TradeoffResult``).  ``x``: a pair (the curve of testing P against Q) or a catalogue
    entry (the mechanism's curve); ``width``: the bracket's width relative to its upper end
    (default 1e-6); ``method``: how the profile is computed (``refacct.delta``);
    ``time_limit``: seconds for all of them, after which each bracket is the last one
    the profile allowed, marked ``time_limited`` (still a bracket: every grid level's
    is)."""
    many = is_many(alpha)
    alphas = [alpha_parameter(a) for a in (alpha if many else [alpha])]
    width = DEFAULT_WIDTH if width is None else positive(width, "width")
    profile = _Profile(x, steps, method, width)
    with progress.deadline(time_limit):
        results = [_bracket(profile, a, width) for a in progress.shared(alphas)]
    return results if many else results[0]


def alpha_parameter(value: object) -> Fraction:
    """A type I error alpha given by the user: an exact rational in (0, 1)."""
    a = rational(value, "alpha")
    if not 0 < a < 1:
        raise InputError(f"alpha must lie in (0, 1), got {a}")
    return a


class _Profile:
    """d1 and d2 of ``x`` at eps >= 0 (module docstring), cached as balls of their
    enclosures' ends; ``bound`` what the enclosures bound, ``proven`` whether all are proven
    (or exact)."""

    def __init__(self, x, steps: int, method: str, width: Fraction) -> None:
        if isinstance(x, Shuffled):
            raise InputTypeError("a shuffled entry has lower bounds on delta only, not a "
                                 "profile to dualise: give a pair or a catalogue entry")
        if isinstance(x, Allocated):
            raise InputTypeError("a random-allocation entry has no trade-off profile yet: "
                                 "ask for delta or eps")
        if isinstance(x, Dominated):
            self.targets = {"d1": x, "d2": x}
            self.bound = x.bound
        elif isinstance(x, (Pair, Composition, PublicMixture)):
            self.targets = {"d1": x.swap(), "d2": x}
            self.bound = "tight"
        else:
            raise InputTypeError(f"expected a pair, composition, public mixture or catalogue "
                                 f"entry, got {type(x).__name__}")
        way = api.route(x, steps, method)
        if method == "auto" and way.engine is TRANSFORM:
            # the bisection asks delta at eps spread over the curve: one lattice serves
            # them all, the transform places a grid near each
            method, way = "bracket", api.route(x, steps, "bracket")
        self.steps, self.method = steps, method
        self.reason = way.reason
        self.options = {"width": width} if way.bracket else {"digits": 15}
        self.known: Dict[Tuple[str, Fraction], object] = {}
        self.proven = True
        self.time_limited = False  # a profile value was the best bound reached in time

    def fill(self, needs: List[Tuple[str, Fraction]]) -> None:
        """Compute every (direction, eps) in ``needs`` not known yet, one call per target
        (a catalogue entry's two directions are one target)."""
        for name, target in self.targets.items():
            eps = sorted({e for n, e in needs if n == name and (n, e) not in self.known})
            if not eps:
                continue
            results = api.delta(target, eps, steps=self.steps, method=self.method,
                                **self.options)
            for r, e in zip(results, eps):
                ends = _enclosure(r, e)
                self.proven = self.proven and (r.proven or r.exact_form is not None)
                self.time_limited = self.time_limited or r.time_limited
                for other, t in self.targets.items():
                    if t is target:
                        self.known[(other, e)] = ends

    def f_ball(self, eps: Fraction, alpha: "arb", end: int) -> "arb":
        """A ball containing f(e^eps) at the lower (end 1: upper) end of the profile's
        enclosure: with d's upper end it lies below f, with its lower end above."""
        if eps >= 0:
            d = self.known[("d1", eps)][end]
            return 1 - d - to_arb(eps).exp() * alpha
        d = self.known[("d2", -eps)][end]
        return (-to_arb(-eps)).exp() * (1 - d - alpha)


def _enclosure(r, eps: Fraction) -> Tuple["arb", "arb"]:
    """Balls of the lower and upper ends of delta(eps): from the exact form A - e^eps B of a
    discrete pair when there is one (a proven ball), else from the result's enclosure,
    clipped to [0, 1]."""
    if r.exact_form is not None:
        A, B = (to_arb(v) for v in r.exact_form)
        ball = A - to_arb(eps).exp() * B
        return ball, ball
    return to_arb(max(r.lower, 0)), to_arb(min(r.upper, 1))


def _needs(points: List[Fraction]) -> List[Tuple[str, Fraction]]:
    return [("d1", e) if e >= 0 else ("d2", -e) for e in points]


def _bracket(profile: _Profile, alpha: Fraction, width: Fraction) -> TradeoffResult:
    """Refine the grid until the bracket of sup f is ``width`` relative (module docstring)."""
    with flint.ctx.workprec(_PREC):
        a = to_arb(alpha)
        points = [Fraction(i, _START) for i in range(-4 * _START, 4 * _START + 1)]
        low = high = None
        for _ in range(_LEVELS):
            try:
                profile.fill(_needs(points))
            except TimeLimitError:
                if high is None:
                    raise
                return time_limited(_result(alpha, low, high, profile))
            los = [_lower_end(profile.f_ball(e, a, 1)) for e in points]
            his = [_upper_end(profile.f_ball(e, a, 0)) for e in points]
            ts = [to_arb(e).exp() for e in points]
            low = max([Fraction(0)] + los)
            cells = _cell_bounds(ts, los, his, a)
            high = None if None in cells else max([low] + cells)
            if high is not None and high - low <= width * high:
                break
            if high is not None and progress.remaining() <= 0:  # short of the width asked
                return time_limited(_result(alpha, low, high, profile))
            points = _refined(points, cells, low, high, width)
    if high is None:
        raise ArithmeticError(f"beta({alpha}): the profile's chords did not descend within "
                              f"eps <= {points[-1]}")
    result = _result(alpha, low, high, profile)
    return time_limited(result) if profile.time_limited else result


def _lower_end(ball: "arb") -> Fraction:
    return exact_rational(arb_ends(ball)[0])


def _upper_end(ball: "arb") -> Fraction:
    return exact_rational(arb_ends(ball)[1])


def _cell_bounds(ts: List["arb"], los: List[Fraction], his: List[Fraction],
                 a: "arb") -> List[Fraction]:
    """Upper bounds of f on [0, t_0], each [t_i, t_{i+1}], and [t_n, inf) (None: not
    bounded yet)."""
    n = len(ts)
    chord_hi = [None] + [_slope(ts[i - 1], ts[i], los[i - 1], his[i]) for i in range(1, n)]
    bounds = [_first_cell(ts, los, his, a)]
    for i in range(n - 1):
        left = _line(his[i], chord_hi[i], ts[i]) if chord_hi[i] is not None else None
        right = _line(his[i + 1], _slope_low(ts, los, his, i + 1), ts[i + 1]) \
            if i + 2 < n else None
        bounds.append(_cell(left, right, ts[i], ts[i + 1]))
    bounds.append(_last_cell(chord_hi[-1], his[-1]))
    return bounds


def _slope(t0: "arb", t1: "arb", lo0: Fraction, hi1: Fraction) -> "arb":
    """Upper bound (as a ball) of the chord slope of f from t0 to t1."""
    return (to_arb(hi1) - to_arb(lo0)) / (t1 - t0)


def _slope_low(ts, los, his, i: int) -> "arb":
    """Lower bound (as a ball) of the chord slope of f from t_i to t_{i+1}."""
    return (to_arb(los[i + 1]) - to_arb(his[i])) / (ts[i + 1] - ts[i])


def _line(value: Fraction, slope: "arb", at: "arb"):
    return to_arb(value), slope, at


def _at(line, t: "arb") -> "arb":
    value, slope, at = line
    return value + slope * (t - at)


def _cell(left, right, t0: "arb", t1: "arb") -> Fraction:
    """sup over [t0, t1] of f: below the left chord extended (``left``: value, slope ball,
    anchor), below the right one (``right``), hence below the smaller of their maxima on
    the cell and, when one provably rises and the other falls, below their crossing."""
    ends = [max(_upper_end(_at(line, t0)), _upper_end(_at(line, t1)))
            for line in (left, right) if line is not None]
    if left is not None and right is not None:
        (v1, m1, s1), (v2, m2, s2) = left, right
        if m1 > 0 and m2 < 0:  # ball comparisons: True only when proven
            ends.append(_upper_end((m1 * v2 - m2 * v1 + m1 * m2 * (s1 - s2)) / (m1 - m2)))
    return min(ends)


def _first_cell(ts, los, his, a: "arb") -> Fraction:
    """sup over [0, t_0] (t_0 <= 1): f(t) = t (1 - d2 - alpha) <= t (1 - alpha), and f lies
    below the chord from t_0 to t_1 extended to the left."""
    line = _line(his[0], _slope_low(ts, los, his, 0), ts[0])
    chord = max(_upper_end(_at(line, to_arb(0))), _upper_end(_at(line, ts[0])))
    return min(_upper_end(ts[0] * (1 - a)), chord)


def _last_cell(slope: "arb", hi: Fraction) -> Optional[Fraction]:
    """sup over [t_n, inf): hi_n when the last chord provably descends, else None (unknown:
    the grid must reach further)."""
    return hi if slope < 0 else None


def _refined(points: List[Fraction], cells: List[Optional[Fraction]], low: Fraction,
             high: Fraction, width: Fraction) -> List[Fraction]:
    """``points`` with every cell that keeps the bracket wide split: inner cells at their
    midpoints, the outermost ones by reaching twice as far."""
    keep = low + width * (high if high is not None else 1) / 2
    wide = [c is None or c > keep for c in cells]
    new = set(points)
    if wide[0]:
        new.add(2 * points[0])
    for i in range(len(points) - 1):
        if wide[i + 1]:
            new.add((points[i] + points[i + 1]) / 2)
    if wide[-1]:
        new.add(2 * points[-1])
    return sorted(new)


def _result(alpha: Fraction, low: Fraction, high: Fraction, profile: _Profile) -> TradeoffResult:
    high = min(high, Fraction(1))  # a trade-off curve lies in [0, 1] (the grid may be coarse)
    value, radius = midpoint_radius(dyadic_mpf(low), dyadic_mpf(high))
    digits = 20 if high == low else max(2, len(str(high // (high - low))))
    return TradeoffResult(value, radius, f"bracket from delta(eps) ({profile.reason})",
                          digits, alpha=alpha, enclosure=(dyadic_mpf(low), dyadic_mpf(high)),
                          proven=profile.proven, bound=_CLAIMS[profile.bound])
