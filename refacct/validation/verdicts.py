"""Verdicts: one accountant's number for one query against refacct's reference.

The truth T lies in [low, high]: [v - e, v + e] for a reference value v with bound e, or
[lower, upper] for a proven bracket (``Reference.enclosure``: both ends are mathematical
bounds, ``refacct.brackets``).  A reported number x is
taken at its exact value (a binary float is the rational it denotes), and all comparisons
are exact rational comparisons.  An accountant *claims* either an upper bound (x >= T, what
a privacy guarantee needs: delta(eps) or eps(delta) never below the truth) or a lower bound
(x <= T); a trade-off value beta(alpha) is a guarantee when never above the truth, so an
upper-bound accountant's beta claims a lower bound (``harness.claim_of``):

``failed``     an exception, NaN, a negative number, +-inf where the truth is finite, or a
               value that breaks monotonicity (delta(eps) must not increase with eps,
               eps(delta) with delta, H_alpha and beta with alpha; see
               ``flag_non_monotone``);
``unsound``    upper claim and x < low - u, or lower claim and x > high + u (beyond the
               reference's own interval and, for a binary float x, half its unit in
               the last place u = ulp(x) / 2: the truth correctly rounded to a float is the
               best a float can say, so it is not called unsound).  Against a proven
               bracket this is unsound *with proof*: the reason says so;
``loose``      the claim holds but x exceeds high * (1 + tolerance) (upper) or falls below
               low / (1 + tolerance) (lower): the answer is off by more than the tolerance
               even against the nearest end of the reference's interval, so looseness is
               proven too (for a tight reference with a tiny bound this is x / v against
               1 + tolerance); the ratio x / v is reported (v the midpoint of a bracket);
``sound``      the claim holds within the tolerance;
``undecided``  the reference is itself only a bound in the same direction as the
               accountant's claim (an ``upper`` reference and x below it, or a ``lower``
               reference and x above it), so the truth cannot settle the question;
``n/a``        the accountant cannot express the case or the query (not a failure).

**Noise level.**  Beside the verdict, ``noise_level`` flags an answer of an accountant
that computes in float64 on a grid (``Accountant.noise_floor``, an estimate F of its
absolute noise in delta) when that noise could decide the verdict: a delta(eps) answer
within F of a verdict boundary (the reference interval's ends, the tolerance's end, or 0),
or an eps(delta) answer at a delta <= F / tolerance (the peer's noise is then at least the
tolerance relative to the delta it inverts).  Such a verdict is a finding about this run
only: on another CPU the same query may be sound or unsound.

An upper-bound accountant must never be unsound: ``unsound`` and ``failed``
make ``refacct validate`` exit 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Optional, Sequence

from .cases import Reference
from ..errors import InputError
from ..exact import mpf_parts

__all__ = ["VERDICTS", "FAILING", "CLAIMS", "Verdict", "exact_value", "judge", "flag_non_monotone",
           "noise_level"]

VERDICTS = ("sound", "loose", "undecided", "unsound", "failed", "n/a")
FAILING = ("unsound", "failed")
CLAIMS = ("upper", "lower")
DEFAULT_TOLERANCE = Fraction(1, 100)


@dataclass(frozen=True)
class Verdict:
    """``verdict`` (one of ``VERDICTS``), ``ratio`` = reported / reference (None when
    undefined) and a one-line ``reason``."""

    verdict: str
    ratio: Optional[Fraction] = None
    reason: str = ""


def exact_value(reported: object) -> Fraction:
    """The exact rational of a finite reported number (float, int, Fraction, Decimal,
    numpy scalar, mpf, decimal string); ValueError for NaN and infinities."""
    if isinstance(reported, str):
        reported = Decimal(reported)
    if hasattr(reported, "man_exp"):  # mpmath.mpf
        man, exp = mpf_parts(reported)
        return Fraction(man) * Fraction(2) ** exp
    if not isinstance(reported, (int, Fraction)):
        reported = float(reported) if not isinstance(reported, Decimal) else reported
        if not (reported.is_finite() if isinstance(reported, Decimal) else math.isfinite(reported)):
            raise ValueError(f"not finite: {reported}")
    return Fraction(reported)


def _special(reported: object) -> Optional[str]:
    """'nan', 'inf', '-inf' for non-finite numbers, else None."""
    try:
        value = float(reported)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isnan(value):
        return "nan"
    return None if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def judge(reported: object, ref: Reference, claims: str = "upper",
          tolerance: Fraction = DEFAULT_TOLERANCE) -> Verdict:
    """The verdict on ``reported`` for a query whose reference is ``ref`` (module docstring)."""
    if claims not in CLAIMS:
        raise InputError(f"claims must be one of {CLAIMS}, got {claims!r}")
    special = _special(reported)
    if special == "inf" and ref.infinite:
        return Verdict("sound", None, "infinite, as the truth")
    if special is not None:
        return Verdict("failed", None, special)
    try:
        x = exact_value(reported)
    except (ArithmeticError, ValueError, TypeError):  # decimal.InvalidOperation among them
        return Verdict("failed", None, f"not a number: {str(reported)[:40]!r}")
    if x < 0:
        return Verdict("failed", None, "negative")
    if ref.infinite:
        return (Verdict("sound", None, "finite lower bound of an infinite truth") if claims == "lower"
                else Verdict("unsound", None, "finite, the truth is infinite"))
    ratio = x / ref.value if ref.value else None
    half_ulp = Fraction(math.ulp(reported)) / 2 if isinstance(reported, float) else Fraction(0)
    if claims == "upper":
        return _judge_upper(x, ref, ratio, tolerance, half_ulp)
    return _judge_lower(x, ref, ratio, tolerance, half_ulp)


def _judge_upper(x: Fraction, ref: Reference, ratio, tolerance, half_ulp) -> Verdict:
    if x + half_ulp < ref.low:
        if ref.bound == "upper":
            return Verdict("undecided", ratio, "below refacct's upper bound (not tight)")
        return Verdict("unsound", ratio, "below the proven lower end of refacct's bracket: "
                       "unsound with proof" if ref.proven else
                       "below the truth beyond the reference's bound")
    if x - half_ulp <= ref.high * (1 + tolerance):
        return Verdict("sound", ratio)
    return Verdict("loose", ratio, "above refacct's upper bound" if ref.bound == "upper"
                   else "above the truth")


def _judge_lower(x: Fraction, ref: Reference, ratio, tolerance, half_ulp) -> Verdict:
    if x - half_ulp > ref.high:
        if ref.bound == "lower":
            return Verdict("undecided", ratio, "above refacct's lower bound (not tight)")
        return Verdict("unsound", ratio, "lower bound above the proven upper end of refacct's "
                       "bracket: unsound with proof" if ref.proven else
                       "lower bound above the truth beyond the reference's bound")
    if (x + half_ulp) * (1 + tolerance) >= ref.low:
        return Verdict("sound", ratio)
    return Verdict("loose", ratio, "below refacct's lower bound" if ref.bound == "lower"
                   else "below the truth")


def noise_level(reported: object, ref: Reference, kind: str, at: Fraction,
                floor: Optional[Fraction], claims: str = "upper",
                tolerance: Fraction = DEFAULT_TOLERANCE) -> str:
    """"" or "noise-level: ..." for an answer whose verdict float64 noise of size ``floor``
    could flip (module docstring); ``kind`` and ``at`` are the query's."""
    if floor is None or ref.infinite or _special(reported) is not None:
        return ""
    note = (f"noise-level: the peer's float64 noise (~{float(floor):.2g}) could flip this "
            "verdict; sound or unsound depending on the platform")
    if kind == "epsilon":
        return note if at * tolerance <= floor else ""
    if kind != "delta":
        return ""
    x = exact_value(reported)
    edges = (ref.low, ref.high * (1 + tolerance), Fraction(0)) if claims == "upper" else \
        (ref.high, ref.low / (1 + tolerance), Fraction(0))
    return note if any(abs(x - e) <= floor for e in edges) else ""


def flag_non_monotone(points: Sequence[tuple]) -> Sequence[Optional[str]]:
    """For (query point, reported exact value or None) in any order: a reason for each
    point whose value exceeds the value at a smaller query point (delta(eps) and eps(delta)
    are both non-increasing), else None."""
    order = sorted(range(len(points)), key=lambda i: points[i][0])
    reasons: list = [None] * len(points)
    for before, after in zip(order, order[1:]):
        (a, va), (b, vb) = points[before], points[after]
        if va is not None and vb is not None and vb > va:
            reasons[after] = f"non-monotone: larger at {b} than at {a}"
    return reasons
