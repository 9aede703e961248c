"""Quantities derived from a catalogue entry's curves beyond delta and eps: where two of
its terms cross (``switch_point``, 001 Sec. 5 and 7) and Vadhan's group conversion
(``vadhan_delta``, 003 Lemma 1.1).  Both ask the standard engines through the front door.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Tuple

from mpmath import mp

from . import api
from .errors import InputError, InputTypeError
from .exact import eps_parameter, positive, rational, to_mpf
from .maximum import MechanismDelta
from .mechanisms.entry import Dominated
from .mechanisms.group import group_size

__all__ = ["switch_point", "vadhan_delta"]


def _check(mech) -> None:
    if not isinstance(mech, Dominated):
        raise InputTypeError(f"expected a catalogue entry (Dominated), got {type(mech).__name__}")


def switch_point(mech: Dominated, first: str, second: str, lo: object, hi: object, *,
                 width: object = "1e-12", digits: int = 15) -> Tuple[Fraction, Fraction]:
    """A bracket [a, b] (exact rationals, b - a <= ``width``) in which delta_first(eps) -
    delta_second(eps) changes sign, by bisection on verified values: the sign at each
    point counts only when |difference| exceeds the sum of the two error bounds (001 Sec. 5
    crossing of add and remove, Sec. 7 switch points of the mixed terms).

    The signs at ``lo`` and ``hi`` must be verified and opposite; a midpoint whose sign the
    bounds cannot decide at ``digits`` is retried at 2 * digits, then ArithmeticError."""
    _check(mech)
    pairs = dict(mech.terms)
    a, b, tol = rational(lo, "lo"), rational(hi, "hi"), positive(width, "width")

    def sign(eps: Fraction) -> int:
        for dig in (digits, 2 * digits):
            x = api.delta(pairs[first], eps, digits=dig, method="quadrature")
            y = api.delta(pairs[second], eps, digits=dig, method="quadrature")
            gap = x.value - y.value
            if abs(gap) > x.abs_error + y.abs_error:
                return 1 if gap > 0 else -1
        raise ArithmeticError(f"sign of delta_{first} - delta_{second} undecided at eps = {eps}")

    sa, sb = sign(a), sign(b)
    if sa == sb:
        raise InputError(f"delta_{first} - delta_{second} has the same sign at lo and hi")
    while b - a > tol:
        mid = (a + b) / 2
        if sign(mid) == sa:
            a = mid
        else:
            b = mid
    return a, b


def vadhan_delta(example: Dominated, group: int, eps: object, *,
                 digits: int = 20) -> MechanismDelta:
    """Vadhan's group conversion (003 Lemma 1.1) at group level eps:
    K e^eps delta_1(eps / K), with delta_1 refacct's example-level curve of ``example``
    (the standard engines, ``method="quadrature"``)."""
    _check(example)
    K = group_size(group)
    eps = eps_parameter(eps)
    one = api.delta(example, eps / K, digits=digits, method="quadrature")
    with mp.workdps(digits + 10):
        factor = K * mp.exp(to_mpf(eps))
        return MechanismDelta(
            factor * one.value, factor * one.abs_error,
            one.method + f"; Vadhan group conversion K e^eps delta_1(eps/K), K = {K}",
            digits, eps=eps, attained_by=one.attained_by, bound="upper", terms=one.terms)
