"""Poisson subsampling: each record enters the batch independently with probability q.

With (P, Q) = (M(D), M(D + x)) the base mechanism's add pair (001 Thm 10.1 = Zhu et al.
Thm 11, in the corrected form of docs/references.md):

    add:     (P, (1 - q) P + q Q)          remove: ((1 - q) P + q Q, P)

tight: the datasets D = (0, ..., 0), D' = (0, ..., 0, 1) realise them (001 Prop. 9.1).
Derivation from the mechanism: the added record is in the batch with probability q and the
rest of the batch has the same distribution under D and D'.  ``zero-out`` is analysed as
add-remove (002 Sec. 2.2).  Under substitution (Gaussian only, 001 Prop. 13, tight with
D = (0, ..., 0, 1), D' = (0, ..., 0, -1)):

    ((1 - q) N(0, s^2) + q N(Delta, s^2),  (1 - q) N(0, s^2) + q N(-Delta, s^2)),

symmetric under y -> -y, so one term.  ``replace-one`` is the same relation.
"""
from __future__ import annotations

from ..distributions import mixture
from ..exact import probability
from ..pairs import Pair
from .base import Additive, Base
from .entry import Dominated, Provenance, steppable
from .relations import check_relation, directions, powered
from ..errors import InputError

__all__ = ["poisson_subsampled", "THM_10_1", "PROP_13"]

THM_10_1 = Provenance("Zhu et al. Thm 11 = 001 Thm 10.1 (remove corrected), tight by Prop. 9.1",
                      "001", "Sec. 4")
PROP_13 = Provenance("001 Prop. 13 (Koskela et al. pair), tight", "001",
                     "Sec. 7, App. C")


@steppable
def poisson_subsampled(base: Base, q: object, relation: str = "add-remove",
                       steps: int = 1) -> Dominated:
    """k steps of ``base`` on a Poisson(q) batch under ``relation``; see the module
    docstring for the pairs.  ``q`` is an exact rational in [0, 1]."""
    q = probability(q, "q")
    rel = check_relation(relation)
    desc = f"{base.name}, Poisson q = {q}, {rel}, {steps} step(s)"
    if rel in ("substitution", "replace-one"):
        if not (isinstance(base, Additive) and base.family == "gaussian"):
            raise InputError("Poisson sampling x substitution is in the catalogue for the "
                             "Gaussian mechanism only (001 Prop. 13)")
        pair = Pair(base.mix([(1 - q, 0), (q, 1)]), base.mix([(1 - q, 0), (q, -1)]))
        return Dominated(desc, (("substitution", powered(pair, steps)),), "tight",
                         (PROP_13, base.provenance))
    P, Q = base.add.P, base.add.Q
    add = Pair(P, mixture([(1 - q, P), (q, Q)]))
    return Dominated(desc, directions(add, rel, steps), "tight", (THM_10_1, base.provenance))
