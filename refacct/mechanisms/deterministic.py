"""Deterministic batching (ABLQ_D, 002 Sec. 3, Prop. 3.1): the records are split into T
fixed batches, so each record is used in exactly one step.

By parallel composition the curve does not depend on T: it is the base mechanism's own,
under zero-out adjacency (002 Sec. 2.2) both orders of the add pair; for the Gaussian,
(N(1, s^2), N(0, s^2)) in both orders, whose delta is Balle & Wang's closed form (002
Prop. 3.1).  Substitution uses the base substitution pair.  Add / remove alone do not apply:
deterministic batching needs n = b T records on both datasets (002 Sec. 2.2).  Tight.
"""
from __future__ import annotations

from ..exact import count
from .base import Base
from .entry import Dominated, Provenance, steppable
from .relations import check_relation, directions

__all__ = ["deterministic_batching", "PROP_3_1"]

PROP_3_1 = Provenance("002 Prop. 3.1 (Balle & Wang Thm 8), tightly dominating pair",
                      "002", "Sec. 3")


@steppable
def deterministic_batching(base: Base, relation: str = "zero-out",
                           steps: int = 1) -> Dominated:
    """``steps`` steps of ABLQ_D with ``base`` (the curve is the same for every ``steps``)."""
    count(steps, "steps")
    rel = check_relation(relation, ("zero-out", "substitution", "replace-one"),
                         "deterministic batching")
    desc = f"{base.name}, deterministic batching, {rel}, {steps} step(s)"
    if rel == "zero-out":
        terms = directions(base.add, "add-remove", 1)
    else:
        terms = (("substitution", base.substitution_pair("substitution")),)
    return Dominated(desc, terms, "tight", (PROP_3_1, base.provenance))
