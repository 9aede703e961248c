"""``DpAccountant``: refacct behind dp_accounting's ``PrivacyAccountant`` interface.

    >>> import dp_accounting as dpa                                    # doctest: +SKIP
    >>> from refacct.accountants import DpAccountant
    >>> acc = DpAccountant()                           # ADD_OR_REMOVE_ONE
    >>> acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    >>> acc.get_epsilon(1e-5)                          # a proven upper end, rounded up
    >>> acc.epsilon_result(1e-5)                       # refacct's full result

Events are read by ``refacct.accountants.vocabulary``.  What the accountant composed is one
catalogue entry run T times (then ``refacct.delta(entry, eps, steps=T)`` routes it: exact,
quadrature or a proven bracket, ``refacct.routing``), or several, whose dominating pairs are
multiplied direction by direction (add with add, remove with remove; 001 Thm 8: a product of
dominating pairs dominates the composition, an upper bound in general).  Events refacct
cannot prove something for are refused as dp_accounting refuses them: ``supports`` is False
and ``compose`` raises ``UnsupportedEventError``.

``get_delta(eps)`` and ``get_epsilon(delta)`` return the upper end of refacct's enclosure
(the proven end of a bracket, or value + error bound of an exact or verified value) as the
smallest float at or above it, so a returned number is never below the truth;
``delta_result`` / ``epsilon_result`` give refacct's result itself.  Non-private events give
eps = inf and delta = 1; no events give 0.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Dict, List, Optional, Tuple

import dp_accounting
import mpmath
from dp_accounting import privacy_accountant

from .. import api
from ..mechanisms import Dominated, Provenance
from ..result import exact_rational
from . import vocabulary

__all__ = ["DpAccountant"]

NeighboringRelation = privacy_accountant.NeighboringRelation
_THM_8 = Provenance("001 Thm 8: a product of dominating pairs dominates the composition",
                    "001_e18e95dcc7e0aa4a.txt", "Sec. 3")


class DpAccountant(privacy_accountant.PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` whose answers are refacct's proven upper ends
    (module docstring).  ``digits``: verified digits asked of the exact and quadrature
    engines; ``width``: the width of proven brackets (relative for delta, absolute in eps;
    default 1/100)."""

    def __init__(self, neighboring_relation: NeighboringRelation =
                 NeighboringRelation.ADD_OR_REMOVE_ONE, *, digits: int = 20,
                 width: object = None) -> None:
        super().__init__(neighboring_relation)
        self._digits, self._width = digits, width
        self._counts: Dict[object, int] = Counter()
        self._entries: Dict[object, Dominated] = {}
        self._non_private = False

    def _maybe_compose(self, event: dp_accounting.DpEvent, count: int, do_compose: bool
                       ) -> Optional[privacy_accountant.PrivacyAccountant.CompositionErrorDetails]:
        try:
            found = [(leaf, n, None if leaf == vocabulary.NON_PRIVATE
                      else vocabulary.entry_of(leaf, self.neighboring_relation.name))
                     for leaf, n in vocabulary.leaves(event, count)]
        except vocabulary.Unsupported as exc:
            return self.CompositionErrorDetails(invalid_event=exc.event, error_message=str(exc))
        error = self._mismatch([entry for _, _, entry in found if entry is not None])
        if error is not None:
            return error
        if do_compose:
            for leaf, n, entry in found:
                if entry is None:
                    self._non_private = True
                elif n:
                    self._entries[leaf] = entry
                    self._counts[leaf] += n
        return None

    def _mismatch(self, new: List[Dominated]):
        """Why ``new`` entries cannot join what is composed, or None.  One kind of event
        composes with itself whatever its terms (the catalogue rebuilds it for T steps);
        several kinds are multiplied term by term, which needs self-composing entries (the
        T-step terms are the 1-step terms to the power T: not WOR substitution, whose terms
        mix the orders of the steps, 001 Sec. 7) with the same labels (add, remove)."""
        entries = list({e.description: e for e in list(self._entries.values()) + new}.values())
        if len(entries) <= 1:
            return None
        labels = [label for label, _ in entries[0].terms]
        for entry in entries:
            two = entry.rebuild(2)
            powered = [(label, pair ** 2) for label, pair in entry.terms]
            if [label for label, _ in entry.terms] != labels or list(two.terms) != powered:
                return self.CompositionErrorDetails(
                    invalid_event=None,
                    error_message=f"{entry.description} does not compose term by term with "
                                  f"the other events (terms {', '.join(labels)}): refacct has "
                                  "no dominating pair for the composition")
        return None

    # --- answers ----------------------------------------------------------------------------

    def delta_result(self, target_epsilon: float):
        """refacct's result for delta(eps) of everything composed (None: no events or a
        non-private one, see ``get_delta``)."""
        return self._result(api.delta, target_epsilon)

    def epsilon_result(self, target_delta: float):
        """refacct's result for eps(delta) of everything composed (None as for
        ``delta_result``)."""
        return self._result(api.epsilon, target_delta)

    def _result(self, run, query: float):
        target = self._composed()
        if target is None:
            return None
        x, steps = target
        return run(x, vocabulary.decimal(query), steps=steps, digits=self._digits,
                   **self._bracket_width(x, steps))

    def get_delta(self, target_epsilon: float) -> float:
        if self._non_private:
            return 1.0
        if not self._counts or target_epsilon == math.inf:
            return 0.0  # no events; or eps = inf: these mechanisms put no mass where q = 0
        return _float_up(_upper(self.delta_result(target_epsilon)))

    def get_epsilon(self, target_delta: float) -> float:
        if self._non_private:
            return math.inf
        if not self._counts or target_delta >= 1:
            return 0.0
        return _float_up(_upper(self.epsilon_result(target_delta)))

    # --- what was composed ------------------------------------------------------------------

    def _composed(self) -> Optional[Tuple[Dominated, int]]:
        """(catalogue entry, steps) of everything composed: one event's entry and its count,
        or the direction-wise product of several (run once)."""
        if self._non_private or not self._counts:
            return None
        if len(self._counts) == 1:
            ((leaf, count),) = self._counts.items()
            return self._entries[leaf], count
        return _product([(self._entries[leaf], n) for leaf, n in self._counts.items()]), 1

    def _bracket_width(self, x, steps: int) -> dict:
        if self._width is None or not api.route(x, steps).bracket:
            return {}
        return {"width": self._width}


def _product(parts: List[Tuple[Dominated, int]]) -> Dominated:
    """Entries run n_i times each, multiplied term by term (the same labels in each, e.g.
    add and remove, checked by ``DpAccountant._mismatch``); an upper bound (001 Thm 8)."""
    labels = [label for label, _ in parts[0][0].terms]
    terms = []
    for i, label in enumerate(labels):
        product = None
        for entry, n in parts:
            factor = entry.terms[i][1] ** n
            product = factor if product is None else product * factor
        terms.append((label, product))
    description = " x ".join(f"({entry.description}) x {n}" for entry, n in parts)
    provenance = tuple(dict.fromkeys(p for entry, _ in parts for p in entry.provenance)) + (
        _THM_8,)
    return Dominated(description, tuple(terms), "upper", provenance)


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
