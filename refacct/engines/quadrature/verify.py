"""Error bounds from two independent evaluations (docs/numerics.md, "Error bounds from
two evaluations").

An engine supplies ``compute(rule)``, which evaluates its quantity at the *current* mpmath
working precision with quadrature rule ``rule`` (0 or 1: different node counts and cuts;
closed forms ignore it), returning the value or (value, known bound) where the known bound
covers what both evaluations share (a truncated tail).  ``two_evaluations`` runs it at two precisions with the two rules and
reports the higher-precision value with |v1 - v2| (times a safety factor) as its bound;
when the two disagree beyond the requested digits it raises the precision and tries again,
and after a fixed budget returns the value with the honest, larger bound.
"""
from __future__ import annotations

from typing import Callable, Tuple

from mpmath import mp

__all__ = ["two_evaluations", "SAFETY"]

SAFETY = 4  # factor applied to |v1 - v2|


def two_evaluations(
    compute: Callable[[int], object], digits: int, *, attempts: int = 3, gap: int = 8
) -> Tuple[object, object, int]:
    """Return ``(value, abs_error, dps)``: ``value`` computed at ``dps + gap`` digits with
    rule 1, checked against rule 0 at ``dps`` digits.  ``dps`` starts at digits + 8 and
    doubles its margin on each failed attempt."""
    margin = 8
    for _ in range(attempts):
        dps = digits + margin
        with mp.workdps(dps):
            first, _ = _split(compute(0))
        with mp.workdps(dps + gap):
            second, known = _split(compute(1))
            if first == 0 and second == 0 and known == 0:
                return mp.zero, mp.zero, dps
            err = (abs(second - first) * SAFETY + known
                   + abs(second) * mp.mpf(10) ** (-(dps + gap) + 3))
            if err <= abs(second) * mp.mpf(10) ** (-digits):
                return +second, err, dps
        margin *= 2
    return second, err, dps


def _split(result):
    """compute() returns a value or (value, known error bound such as a truncated tail)."""
    return result if isinstance(result, tuple) else (result, mp.zero)
