"""Chernoff ceilings: proven upper bounds on delta_T(eps) and eps_T(delta) from M_T at one
real point, in the time of a few dozen values of M (no inversion).

For y > 0 and c > 0, (1 - e^{-y}) e^{-c y} is largest at e^{-y} = c / (1 + c), where it is
K(c) = c^c / (1 + c)^{1 + c}; so (1 - e^{eps - x})_+ <= K(c) e^{c (x - eps)} for every x,
and taking E_P over x = L_T (001 Definition 5: delta_T(eps) = E_P[(1 - e^{eps - L_T})_+]),

    delta_T(eps) <= K(c) M_T(c) e^{-c eps},
    eps_T(delta) <= (ln K(c) + ln M_T(c) - ln delta) / c,

the second because the first is at most delta there, and delta_T decreases in eps.  Both
hold for every c > 0 with M_T(c) finite; c is steered to the minimum (ln K and ln M_T are
convex in c), the bound itself is evaluated in Arb.  They are what the door needs to leave
out a term of a catalogue entry that cannot attain the maximum (``refacct.maximum``): the
add direction of DP-SGD at an eps near the supremum of its loss, a tail that costs the
inversion ten times the other direction.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

import mpmath
from mpmath import mp

from ..arb import acb, arb, arb_mid_rad, flint, to_arb
from .inversion import STEER_PREC, _argmin, _upper_c, log_k

__all__ = ["delta_ceiling", "epsilon_ceiling"]

PREC = 128


def _log_m(loss, c: Fraction) -> "arb":
    return loss.log_mgf(acb(to_arb(c))).real


def delta_ceiling(loss, eps: Fraction) -> Optional["arb"]:
    """An upper end of delta_T(eps): K(c) M_T(c) e^{-c eps} at the steered c, at most 1
    (delta_T is a difference of probabilities), or None where M_T is not finite at any c
    tried."""
    def log_bound(c: Fraction) -> "arb":
        x = to_arb(c)
        return log_k(x) + _log_m(loss, c) - x * to_arb(eps)
    return _at_best(log_bound, loss, lambda v: min(v.exp(), arb(1)))


def epsilon_ceiling(loss, delta: Fraction) -> Optional["arb"]:
    """An upper end of eps_T(delta) for 0 < delta < 1, at least 0: (ln K(c) + ln M_T(c) -
    ln delta) / c at the steered c, or None as ``delta_ceiling``."""
    def bound(c: Fraction) -> "arb":
        x = to_arb(c)
        return (log_k(x) + _log_m(loss, c) - to_arb(delta).log()) / x
    return _at_best(bound, loss, lambda v: max(v, arb(0)))


def _at_best(f, loss, finish) -> Optional["arb"]:
    """finish(f(c)) at PREC bits, rounded up, at the c that minimises f (steered at
    ``inversion.STEER_PREC`` bits by ``inversion._argmin``; +inf where f is not finite)."""
    def steer(c: Fraction) -> mpmath.mpf:
        with flint.ctx.workprec(STEER_PREC):
            v = f(c)
            return arb_mid_rad(v)[0] if v.is_finite() else mp.inf
    best = _argmin(steer, Fraction(1, 10 ** 6), _upper_c(loss), steps=16)
    with flint.ctx.workprec(PREC):
        v = f(best)
        return finish(v).upper() if v.is_finite() else None
