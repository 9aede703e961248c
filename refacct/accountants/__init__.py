"""refacct as a drop-in proven accountant for users of other libraries' interfaces.

``DpAccountant``: a ``dp_accounting.PrivacyAccountant`` (optional extra
``refacct[dp-accounting]``) that takes dp_accounting's own events and answers with the proven
upper end of refacct's result (``refacct.accountants.dpa``).  ``vocabulary`` maps the peers'
events to refacct's catalogue, in one place, without importing any peer.

The core never imports this package; its classes import their peer when first used.
"""
from __future__ import annotations

__all__ = ["DpAccountant"]


def __getattr__(name: str):
    if name == "DpAccountant":
        from .dpa import DpAccountant
        return DpAccountant
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
