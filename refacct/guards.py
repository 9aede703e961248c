"""Guards that every continuous delta must pass before it is returned, sharing nothing with
the engines' crossing isolation or quadrature.

Two evaluations of one engine agree when both go wrong the same way (a crossing missed by
the isolation both use).  So the result [value - err, value + err] is also checked
against bounds that hold for every pair and need only interval masses:

* range: H_alpha(P || Q) lies in [max(0, 1 - alpha), 1] (H_alpha >= P(R) - alpha Q(R)
  = 1 - alpha for the whole line R, and <= P(p > alpha q) <= 1);
* coarsening (data processing): for any partition of the line into cells C,
  H_alpha(P || Q) >= sum_C (P(C) - alpha Q(C))_+, since the cells whose term is positive
  form a set A with P(A) - alpha Q(A) equal to that sum.  One step of a continuous pair is
  checked on cells at every component's location +- {1/4, 1/2, 1, ..., 64} widths (and the
  Laplace locations), which catches an answer off by a sizeable part of the truth (a
  region p > alpha q taken inverted, a concentrated component missed);
* symmetry: H_alpha(P || Q) = 1 - alpha + alpha H_{1/alpha}(Q || P) (integrate
  p - alpha q = -alpha (q - p / alpha) over the line), checked where both directions are
  computed (``check_symmetry``): a crossing or tail handled on one side only breaks it.

A result that fails a guard is refused with an ``ArithmeticError`` saying which: it is
never returned as verified.

The same bounds give ``enclosure``, what is known of H_alpha of any public mixture
without the engines (a time limit that runs out before their first result): the range,
raised by data processing (marginalising a composition onto one factor is
post-processing, so H_alpha of the product >= H_alpha of each factor) to the largest
factor's coarse lower bound, exact for a discrete factor.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Tuple

from mpmath import mp

from .distributions import Continuous
from .exact import to_mpf
from .pairs import Pair, PublicMixture

__all__ = ["check_delta", "check_range", "check_symmetry", "coarse_lower_bound", "cut_points",
           "enclosure"]

_OFFSETS = [Fraction(0)] + [sign * Fraction(2) ** j for j in range(-2, 7) for sign in (1, -1)]


def check_delta(value, err, alpha, one_step=None) -> None:
    """Raise ArithmeticError unless [value - err, value + err] meets the range
    [max(0, 1 - alpha), 1] and, for ``one_step`` = (P, Q) continuous, lies not below
    ``coarse_lower_bound``.  Comparisons allow 2^-(prec - 8) relative for rounding."""
    check_range(value, err, max(mp.zero, 1 - alpha), mp.one, alpha, "H_alpha",
                "[max(0, 1 - alpha), 1]")
    if one_step is None:
        return
    slack = _slack(alpha)
    bound = coarse_lower_bound(one_step[0], one_step[1], alpha)
    if value + err < bound - slack:
        raise ArithmeticError(
            f"guard failed: H_alpha = {mp.nstr(value, 10)} +- {mp.nstr(err, 3)} lies below "
            f"the coarse lower bound {mp.nstr(bound, 10)} (sum over cells of "
            "(P(C) - alpha Q(C))_+); the engines' result is refused")


def check_range(value, err, low, high, alpha, what: str, span: str) -> None:
    """Raise ArithmeticError unless [value - err, value + err] meets [low, high] (with the
    rounding slack of ``alpha``); ``what`` names the quantity, ``span`` the range."""
    slack = _slack(alpha)
    if value + err < low - slack or value - err > high + slack:
        raise ArithmeticError(
            f"guard failed: {what} = {mp.nstr(value, 10)} +- {mp.nstr(err, 3)} lies outside "
            f"{span} = [{mp.nstr(low, 10)}, {mp.nstr(high, 10)}] (alpha = "
            f"{mp.nstr(alpha, 10)}); the engines' result is refused")


def check_symmetry(value, err, reverse, reverse_err, alpha) -> None:
    """Raise ArithmeticError unless value +- err (H_alpha(P || Q)) and
    1 - alpha + alpha (reverse +- reverse_err) (from H_{1/alpha}(Q || P)) overlap."""
    other = 1 - alpha + alpha * reverse
    if abs(value - other) > err + alpha * reverse_err + _slack(alpha):
        raise ArithmeticError(
            f"guard failed: H_alpha(P || Q) = {mp.nstr(value, 10)} +- {mp.nstr(err, 3)} but "
            f"1 - alpha + alpha H_(1/alpha)(Q || P) = {mp.nstr(other, 10)} +- "
            f"{mp.nstr(alpha * reverse_err, 3)} (alpha = {mp.nstr(alpha, 10)}); the engines' "
            "result is refused")


def _slack(alpha):
    """2^-(prec - 8) (1 + alpha): far above the rounding of the guards' own sums."""
    return mp.mpf(2) ** (8 - mp.prec) * (1 + alpha)


def enclosure(pm: PublicMixture, alpha) -> Tuple[object, object]:
    """[lower, upper] enclosing H_alpha of the public mixture ``pm``: upper = 1, lower =
    sum_r w_r max(1 - alpha, max over term r's factors of the factor's lower bound) (module
    docstring), less the rounding slack; computed at the current precision (plus
    ``resolution_bits`` of continuous factors at extreme scales, as ``check_delta``)."""
    lower = mp.zero
    for w, comp in pm.terms:
        best = 1 - alpha
        for pair, _ in comp.factors:   # the largest one-step bound: repeats change nothing
            best = max(best, _one_step_lower(pair, alpha))
        lower += to_mpf(w) * best
    return max(mp.zero, lower - _slack(alpha)), mp.one


def _one_step_lower(pair: Pair, alpha):
    """H_alpha(P || Q) exactly for a discrete pair (the sum over outcomes of (p - alpha q)_+),
    ``coarse_lower_bound`` for a continuous one."""
    if not pair.is_discrete:
        return coarse_lower_bound(pair.P, pair.Q, alpha)
    outcomes = set(pair.P.support()) | set(pair.Q.support())
    return mp.fsum(max(mp.zero, to_mpf(pair.P.mass_of(x)) - alpha * to_mpf(pair.Q.mass_of(x)))
                   for x in outcomes)


def coarse_lower_bound(P: Continuous, Q: Continuous, alpha):
    """sum over cells C of (P(C) - alpha Q(C))_+ (a lower bound of H_alpha(P || Q)), the
    cells cut at every component's location + {0, +-1/4, ..., +-64} widths.  The masses
    are this module's own (``_cdf``), with tails below 2^-(prec + 16) taken as 0: that
    moves each cell's term by less than 2^-(prec + 14), far inside ``check_delta``'s
    slack, and keeps tails at 1e400 standard deviations cheap.  Computed with 20 bits
    more than the caller's precision, so that the rounding of a few hundred cells stays
    far below that slack too (a right value is never refused for the bound's rounding)."""
    with mp.workprec(mp.prec + 20):
        bounds = [-mp.inf] + cut_points(P, Q) + [mp.inf]
        F = [[_cdf(P, y), _cdf(Q, y)] for y in bounds]
        total = mp.fsum(max(mp.zero, (F[i + 1][0] - F[i][0]) - alpha * (F[i + 1][1] - F[i][1]))
                        for i in range(len(bounds) - 1) if bounds[i] < bounds[i + 1])
    return total


def _cdf(dist: Continuous, y):
    """Pr[Y <= y], each component's part from the tail on y's side of it."""
    total = mp.zero
    for w, c in dist.components:
        total += to_mpf(w) * _component_cdf(c, y)
    return total


def _component_cdf(c, y):
    if y == mp.inf:
        return mp.one
    if y == -mp.inf:
        return mp.zero
    gaussian = hasattr(c, "sigma")
    centre, width = to_mpf(c.mean if gaussian else c.loc), to_mpf(c.width)
    z = (y - centre) / width
    tail = _gauss_tail(abs(z)) if gaussian else mp.exp(-abs(z)) / 2
    return tail if z < 0 else 1 - tail


def _gauss_tail(z):
    """Pr[N(0, 1) > z] for z >= 0, 0 once below 2^-(prec + 16)."""
    if z * z / 2 > (mp.prec + 16) * mp.ln2:
        return mp.zero
    return mp.erfc(z / mp.sqrt(2)) / 2


def cut_points(P: Continuous, Q: Continuous) -> List:
    """Every component's location + {0, +-1/4, +-1/2, ..., +-64} widths, sorted (mpf at the
    working precision)."""
    points = set()
    for _, c in P.components + Q.components:
        centre = getattr(c, "mean", getattr(c, "loc", None))
        points |= {to_mpf(centre + j * c.width) for j in _OFFSETS}
    return sorted(points)
