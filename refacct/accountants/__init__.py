"""refacct as a drop-in proven accountant for users of other libraries' interfaces.

``DpAccountant``: a ``dp_accounting.PrivacyAccountant`` (optional extra
``refacct[dp-accounting]``) that takes dp_accounting's own events and answers with the proven
upper end of refacct's result (``refacct.accountants.dpa``).  ``OpacusAccountant``: an
Opacus ``IAccountant`` for a ``PrivacyEngine`` (extra ``refacct[opacus]``,
``refacct.accountants.opacus_accountant``).  Both keep what was composed in a ``Ledger``
(``refacct.accountants.ledger``, no peer needed).  ``vocabulary`` maps the peers'
events to refacct's catalogue, in one place, without importing any peer.

The core never imports this package; its classes import their peer when first used.
"""
from __future__ import annotations

__all__ = ["DpAccountant", "OpacusAccountant"]


def __getattr__(name: str):
    if name == "DpAccountant":
        from .dpa import DpAccountant
        return DpAccountant
    if name == "OpacusAccountant":
        from .opacus_accountant import OpacusAccountant
        return OpacusAccountant
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
