"""No sampling: the base mechanism on the whole dataset, k times.

add: the base add pair (M(D), M(D + x)); remove: its swap; add-remove and zero-out (the
record against a ghost that contributes 0, 002 Sec. 2.2): both, composed separately;
substitution / replace-one: the base substitution pair.  Tight: the base pairs are output
distributions of the mechanism on concrete neighbours (001 App. A, App. B.1).
"""
from __future__ import annotations

from .base import Base
from .entry import Dominated, steppable
from .relations import check_relation, directions, powered

__all__ = ["unsampled"]


@steppable
def unsampled(base: Base, relation: str = "add-remove", steps: int = 1) -> Dominated:
    """k steps of ``base`` without sampling under ``relation``."""
    rel = check_relation(relation)
    desc = f"{base.name}, no sampling, {rel}, {steps} step(s)"
    if rel in ("substitution", "replace-one"):
        pair = base.substitution_pair("substitution")
        return Dominated(desc, (("substitution", powered(pair, steps)),), "tight",
                         (base.provenance,))
    return Dominated(desc, directions(base.add, rel, steps), "tight", (base.provenance,))
