"""``DpAccountant``: refacct behind dp_accounting's ``PrivacyAccountant`` interface.

Usage (a sketch, not a doctest: it needs the peer installed)::

    import dp_accounting as dpa
    from refacct.accountants import DpAccountant
    acc = DpAccountant()                           # ADD_OR_REMOVE_ONE
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    acc.get_epsilon(1e-5)                          # a proven upper end, rounded up
    acc.epsilon_result(1e-5).proven                # True here: a bracket (1000 steps)
    acc.epsilon_result(1e-5)                       # refacct's full result

Events are read by ``refacct.accountants.vocabulary`` and kept in a ``Ledger``
(``refacct.accountants.ledger``: how compositions are formed, what the floats returned
mean).  Events refacct cannot prove something for are refused as dp_accounting refuses them:
``supports`` is False and ``compose`` raises ``UnsupportedEventError``.
"""
from __future__ import annotations

from typing import Optional

import dp_accounting
from dp_accounting import privacy_accountant

from .. import api
from . import vocabulary
from .ledger import Ledger

__all__ = ["DpAccountant"]

NeighboringRelation = privacy_accountant.NeighboringRelation


class DpAccountant(privacy_accountant.PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` whose answers are the upper ends of refacct's
    enclosures (proven or verified: ``refacct.accountants.ledger``).  ``digits`` and ``width``: as for ``Ledger``."""

    def __init__(self, neighboring_relation: NeighboringRelation =
                 NeighboringRelation.ADD_OR_REMOVE_ONE, *, digits: int = 20,
                 width: object = None) -> None:
        super().__init__(neighboring_relation)
        self._ledger_of_pairs = Ledger(digits=digits, width=width)

    def _maybe_compose(self, event: dp_accounting.DpEvent, count: int, do_compose: bool
                       ) -> Optional[privacy_accountant.PrivacyAccountant.CompositionErrorDetails]:
        try:
            found = [(leaf, n, None if leaf == vocabulary.NON_PRIVATE
                      else vocabulary.entry_of(leaf, self.neighboring_relation.name))
                     for leaf, n in vocabulary.leaves(event, count)]
        except vocabulary.Unsupported as exc:
            return self.CompositionErrorDetails(invalid_event=exc.event, error_message=str(exc))
        why = self._ledger_of_pairs.mismatch([e for _, _, e in found if e is not None])
        if why is not None:
            return self.CompositionErrorDetails(invalid_event=event, error_message=why)
        if do_compose:
            for leaf, n, entry in found:
                self._ledger_of_pairs.add(repr(leaf), entry, n)  # events may hold lists
        return None

    def delta_result(self, target_epsilon: float):
        """refacct's result for delta(eps) of everything composed (None: no events or a
        non-private one, see ``get_delta``)."""
        return self._ledger_of_pairs.result(api.delta, target_epsilon)

    def epsilon_result(self, target_delta: float):
        """refacct's result for eps(delta) (None as for ``delta_result``)."""
        return self._ledger_of_pairs.result(api.epsilon, target_delta)

    def get_delta(self, target_epsilon: float) -> float:
        return self._ledger_of_pairs.delta(target_epsilon)

    def get_epsilon(self, target_delta: float) -> float:
        return self._ledger_of_pairs.epsilon(target_delta)
