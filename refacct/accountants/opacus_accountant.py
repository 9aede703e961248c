"""``OpacusAccountant``: refacct behind Opacus's ``IAccountant`` interface.

Usage (a sketch, not a doctest: it needs the peer installed and a model)::

    from opacus import PrivacyEngine
    from refacct.accountants import OpacusAccountant
    engine = PrivacyEngine()
    engine.accountant = OpacusAccountant()         # before make_private
    model, optimizer, loader = engine.make_private(...)
    engine.get_epsilon(1e-5)                       # a proven upper end, rounded up

Opacus records one (noise_multiplier, sample_rate) per optimizer step (its DP-SGD with
Poisson sampling, add-or-remove adjacency); each run of equal steps is the catalogue's
Poisson-subsampled Gaussian run that many times, and the runs are composed by a ``Ledger``
(``refacct.accountants.ledger``: what the returned floats mean).
"""
from __future__ import annotations

from opacus.accountants.accountant import IAccountant

from .. import api
from .ledger import Ledger
from .vocabulary import opacus_entry

__all__ = ["OpacusAccountant"]


class OpacusAccountant(IAccountant):
    """An Opacus ``IAccountant`` whose epsilon is the upper end of refacct's enclosure
    (proven or verified: ``refacct.accountants.ledger``).  ``digits`` and ``width``: as for ``Ledger``.  ``history`` is Opacus's:
    [(noise_multiplier, sample_rate, steps)], equal consecutive steps merged."""

    def __init__(self, *, digits: int = 20, width: object = None) -> None:
        super().__init__()
        self.digits, self.width = digits, width

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            self.history[-1] = (noise_multiplier, sample_rate, self.history[-1][2] + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(steps for _, _, steps in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return "refacct"

    def ledger(self) -> Ledger:
        """The history as catalogue entries (``vocabulary.opacus_entry``), one per
        distinct step."""
        out = Ledger(digits=self.digits, width=self.width)
        for sigma, q, steps in self.history:
            out.add((sigma, q), opacus_entry(sigma, q), steps)
        return out

    def get_epsilon(self, delta: float, *args, **kwargs) -> float:
        return self.ledger().epsilon(delta)

    def epsilon_result(self, delta: float):
        """refacct's result for eps(delta) of the history (None: no steps)."""
        return self.ledger().result(api.epsilon, delta)
