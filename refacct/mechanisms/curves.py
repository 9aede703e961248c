"""The privacy curve of a catalogue entry (``refacct.mechanisms.entry``) by the standard
engines (``refacct.hockey``), term by term and maximised (``refacct.maximum``): delta,
eps(delta), H_alpha, and the switch point between two terms.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Optional, Tuple, Union

from .. import hockey, progress
from ..errors import InputError, InputTypeError
from ..exact import positive, rational
from ..maximum import MechanismDelta, MechanismEpsilon, over_terms
from .entry import Dominated

__all__ = ["delta", "epsilon", "hockey_stick", "switch_point"]


def delta(mech: Dominated, eps, *, digits: int = 20, time_limit: Optional[float] = None
          ) -> Union[MechanismDelta, List[MechanismDelta]]:
    """delta(eps) = max_i H_{e^eps}(P_i || Q_i) for one eps or a list (then a list), as
    ``MechanismDelta`` with ``attained_by`` and ``bound``.  ``time_limit``: seconds for
    all of them (``refacct.hockey``)."""
    _check(mech)
    with progress.deadline(time_limit):
        return over_terms(mech, "delta", lambda pair, e: hockey.delta(pair, e, digits=digits),
                          eps)


def hockey_stick(mech: Dominated, alpha: object = None, *, eps: object = None,
                 digits: int = 20, time_limit: Optional[float] = None) -> MechanismDelta:
    """max_i H_alpha(P_i || Q_i) (or alpha = e^eps), as ``MechanismDelta``."""
    _check(mech)
    with progress.deadline(time_limit):
        return over_terms(
            mech, "alpha", lambda pair, a: hockey.hockey_stick(pair, a, eps=eps, digits=digits),
            alpha)


def epsilon(mech: Dominated, delta_target, *, digits: int = 20,
            time_limit: Optional[float] = None
            ) -> Union[MechanismEpsilon, List[MechanismEpsilon]]:
    """eps(delta) = max_i eps_i(delta) (the smallest eps with every delta_i(eps) <= delta),
    for one delta or a list, as ``MechanismEpsilon``.  ``time_limit``: as for ``delta``."""
    _check(mech)
    with progress.deadline(time_limit):
        return over_terms(mech, "epsilon",
                          lambda pair, d: hockey.epsilon(pair, d, digits=digits), delta_target)


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
            x = hockey.delta(pairs[first], eps, digits=dig)
            y = hockey.delta(pairs[second], eps, digits=dig)
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
