"""A ceiling for a composition of two pairs when one pair's privacy loss is bounded above:
the orders of sampling without replacement under substitution (001 Sec. 7), where one
direction's loss is at most -ln(1 - gamma) a step.

With n_A steps of a pair A whose loss is at most s_A a step and n_B steps of a pair B, the
loss of the composition is L_A + L_B with L_A <= n_A s_A, the two independent under P, and
(1 - e^{eps - x})_+ increases in x (001 Definition 5: delta(eps) = E_P[(1 - e^{eps - L})_+]), so

    delta(eps) <= E_P[(1 - e^{eps - n_A s_A - L_B})_+] = delta_B^{n_B}(eps - n_A s_A),

at any eps' <= eps - n_A s_A in its place (delta decreases in eps).  It costs n_B steps where
the term costs n_A + n_B: at two steps of Gaussian WOR substitution (sigma 1, a batch of 10
of 100) the mixed order j = 1 is at most 0.02181 (one step, milliseconds), below order
j = 2's 0.03874, so the door leaves it out (``maximum.over_terms``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Optional

from mpmath import mp

from .engine import Request
from .engines.arb import arb_ends, flint
from .engines.transform.mgf import loss_of
from .errors import InputError
from .pairs import Composition
from .result import DeltaResult, exact_rational, midpoint_radius

__all__ = ["shifted_ceiling"]


def _sup(pair) -> Optional[Fraction]:
    """A rational upper end of one step's loss supremum, or None (unbounded, or a pair the
    transform's losses do not take)."""
    try:
        top = loss_of(Composition.of(pair)).sup()
    except InputError:
        return None
    if top is None:
        return None
    with flint.ctx.workprec(128):
        return exact_rational(arb_ends(top)[1])


def shifted_ceiling(target, request: Request, answer: Callable) -> Optional[DeltaResult]:
    """The module docstring's upper end of delta(eps) for ``target``, a composition of two
    pairs, as a result enclosing [0, it] (``answer(composition, request)``: the engine's
    result for the remaining steps), or None (another query, another shape, or no
    bounded factor)."""
    if request.kind != "delta" or not isinstance(target, Composition) or \
            len(target.factors) != 2:
        return None
    eps = request.queries[0]
    for (a, n_a), (b, n_b) in (target.factors, target.factors[::-1]):
        top = _sup(a)
        if top is None:
            continue
        try:
            found = answer(Composition(((b, n_b),)), request.at(eps - n_a * top))[0]
        except (ValueError, ArithmeticError):
            return None
        upper = found.upper if found.enclosure else found.value + found.abs_error
        with mp.workprec(128):
            value, radius = midpoint_radius(mp.zero, upper)
        return DeltaResult(value, radius, f"ceiling: delta(eps) <= delta of the {n_b} other "
                           f"step(s) at eps - {n_a} sup L of one bounded step",
                           request.digits, enclosure=(mp.zero, upper), proven=found.proven,
                           eps=eps)
    return None
