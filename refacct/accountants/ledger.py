"""What an accountant has composed, and its proven answers, without any peer: one-step
catalogue entries with their counts (``Ledger``).

One kind of entry composed T times is that entry run T times: ``refacct.delta(entry, eps,
steps=T)`` routes it (exact, quadrature or a proven bracket, ``refacct.routing``).  Several
kinds are multiplied direction by direction (add with add, remove with remove), an upper
bound (001 Thm 8: a product of dominating pairs dominates the composition); this needs
self-composing entries (the T-step terms are the 1-step terms to the power T: not WOR
substitution, whose terms mix the orders of the steps, 001 Sec. 7) with the same labels.

``delta`` / ``epsilon`` return the upper end of refacct's enclosure as the smallest float at
or above it: the exact rational or the proven end of a bracket (many steps: proven), or
value + error bound of a verified value (few continuous steps: the bound comes from two
independent evaluations, ``engines.quadrature.verify``, not from a proof).  ``result`` gives
refacct's result, whose ``proven`` says which.  A non-private step gives eps = inf and
delta = 1; nothing composed gives 0.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Dict, List, Optional, Tuple

import mpmath

from .. import api
from ..errors import InputError
from ..mechanisms import Dominated, Provenance
from ..result import exact_rational
from .vocabulary import decimal

__all__ = ["Ledger", "product"]

_THM_8 = Provenance("001 Thm 8: a product of dominating pairs dominates the composition",
                    "001", "Sec. 3")


class Ledger:
    """One-step catalogue entries (keyed by the caller's event) and their counts.
    ``digits``: verified digits asked of the exact and quadrature engines; ``width``: the
    width of proven brackets (relative for delta, absolute in eps; default 1/100)."""

    def __init__(self, *, digits: int = 20, width: object = None) -> None:
        self.digits, self.width = digits, width
        self.counts: Dict[object, int] = Counter()
        self.entries: Dict[object, Dominated] = {}
        self.non_private = False

    def mismatch(self, new: List[Dominated]) -> Optional[str]:
        """Why ``new`` entries cannot join what is composed (module docstring), or None."""
        entries = list({e.description: e for e in list(self.entries.values()) + new}.values())
        if len(entries) <= 1:
            return None
        labels = [label for label, _ in entries[0].terms]
        for entry in entries:
            powered = [(label, pair ** 2) for label, pair in entry.terms]
            if [label for label, _ in entry.terms] != labels or \
                    list(entry.rebuild(2).terms) != powered:
                return (f"{entry.description} does not compose term by term with the other "
                        f"events (terms {', '.join(labels)}): refacct has no dominating pair "
                        "for the composition")
        return None

    def add(self, key, entry: Optional[Dominated], count: int) -> None:
        """``entry`` (None: a non-private step) composed ``count`` more times."""
        if entry is None:
            self.non_private = True
        elif count:
            self.entries[key] = entry
            self.counts[key] += count

    def result(self, run, query):
        """``run`` (``refacct.api.delta`` or ``epsilon``) on everything composed, at the
        float ``query``; None when nothing or a non-private step was composed."""
        if self.non_private or not self.counts:
            return None
        if len(self.counts) == 1:
            ((key, steps),) = self.counts.items()
            x = self.entries[key]
        else:
            x, steps = product([(self.entries[k], n) for k, n in self.counts.items()]), 1
        bracket = self.width is not None and api.route(x, steps).bracket
        name = "target_epsilon" if run is api.delta else "target_delta"
        return run(x, decimal(query, name), steps=steps, digits=self.digits,
                   **({"width": self.width} if bracket else {}))

    def delta(self, eps: float) -> float:
        """delta(eps), rounded up to a float (eps = +inf allowed)."""
        infinite = isinstance(eps, float) and eps == math.inf
        if not infinite:
            decimal(eps, "target_epsilon")
        if self.non_private:
            return 1.0
        if not self.counts or infinite:
            return 0.0  # nothing composed; or eps = inf: no mass where q = 0 in these pairs
        return _float_up(_upper(self.result(api.delta, eps)))

    def epsilon(self, delta: float) -> float:
        """eps(delta), rounded up to a float."""
        target = decimal(delta, "target_delta")
        if target < 0:
            raise InputError(f"target_delta must be >= 0, got {delta!r}")
        if self.non_private:
            return math.inf
        if not self.counts or target >= 1:
            return 0.0
        return _float_up(_upper(self.result(api.epsilon, delta)))


def product(parts: List[Tuple[Dominated, int]]) -> Dominated:
    """Entries run n_i times each, multiplied term by term (labels checked by
    ``Ledger.mismatch``); an upper bound (001 Thm 8)."""
    labels = [label for label, _ in parts[0][0].terms]
    terms = []
    for i, label in enumerate(labels):
        term = None
        for entry, n in parts:
            factor = entry.terms[i][1] ** n
            term = factor if term is None else term * factor
        terms.append((label, term))
    description = " x ".join(f"({entry.description}) x {n}" for entry, n in parts)
    provenance = tuple(dict.fromkeys(p for entry, _ in parts for p in entry.provenance))
    return Dominated(description, tuple(terms), "upper", provenance + (_THM_8,))


def _upper(result):
    """The upper end of a result's enclosure: its exact rational when it has one."""
    exact = getattr(result, "exact", None)
    return result.upper if exact is None else exact


def _float_up(x) -> float:
    """The smallest float >= x (x an mpf, Fraction or inf)."""
    if mpmath.isinf(x):
        return math.inf
    exact = exact_rational(x)
    f = float(exact)
    return math.nextafter(f, math.inf) if f < exact else f
