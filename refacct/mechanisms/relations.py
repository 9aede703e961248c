"""Adjacency relations and how a one-step dominating pair turns into the terms of a k-step
privacy curve.

Relations (001 Sec. 2 and 4-7, 002 Sec. 2.2, 004 Definition 2.1):

``add``           D' = D plus one record; the pair is (M(D), M(D'));
``remove``        D' = D minus one record; the pair is (M(D), M(D')), the swap of ``add``;
``add-remove``    either: both directions are composed *separately* and the curve is the
                  maximum of the two per eps (001 Sec. 5: after composition neither direction
                  dominates the other in general);
``zero-out``      one record replaced by a ghost record contributing 0, either way (002 Sec.
                  2.2); for Poisson sampling the same analysis as ``add-remove``;
``substitution``  one record replaced by another (a symmetric relation);
``replace-one``   004's name for substitution on datasets of a fixed size n.

A dominating pair of a *symmetric* relation dominates both orders of every neighbouring
pair, so its k-fold product dominates the k-step mechanism (001 Thm 8): one term.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ..exact import count
from ..pairs import Composition, Pair
from ..errors import InputError

__all__ = ["RELATIONS", "check_relation", "directions", "powered", "mixed_directions",
           "MixedOrders"]

RELATIONS = ("add", "remove", "add-remove", "substitution", "zero-out", "replace-one")

Terms = Tuple[Tuple[str, object], ...]


def check_relation(name: object, allowed: Tuple[str, ...] = RELATIONS, scheme: str = "") -> str:
    """Validate a relation name against ``allowed`` (those in the catalogue for ``scheme``)."""
    if not isinstance(name, str) or name not in allowed:
        where = f" for {scheme}" if scheme else ""
        raise InputError(f"relation must be one of {', '.join(allowed)}{where}, got {name!r}")
    return name


def powered(pair, k: int):
    """pair^k for a Pair, Composition or PublicMixture (k >= 1)."""
    return pair ** count(k, "steps")


def directions(add, rel: str, k: int) -> Terms:
    """Terms for ``add`` / ``remove`` / ``add-remove`` (and ``zero-out``, analysed as
    add-remove) from the one-step add pair ``add`` = (M(D), M(D + x)): the remove pair is
    its swap, and each direction is composed k times on its own."""
    add_k = powered(add, k)
    both = (("add", add_k), ("remove", add_k.swap()))
    if rel == "add":
        return both[:1]
    if rel == "remove":
        return both[1:]
    return both


@dataclass(frozen=True)
class MixedOrders:
    """The terms of ``mixed_directions(A, B, T)`` for any T, never built (there are T + 1 of
    T factors each): ``pair`` = Pair(A, B) and the entry's ``bound`` at more than one step;
    the transform engine composes the steps and maximises over the orders itself
    (``engines.transform.orders``)."""

    pair: Pair
    bound: str

    @staticmethod
    def of(one, two) -> Optional["MixedOrders"]:
        """The mixed orders of a catalogue entry whose 1- and 2-step entries ``one``, ``two``
        are ``mixed_directions`` of one Pair(A, B), else None."""
        labels = [label for label, _ in one.terms]
        if labels != ["j=0", "j=1"] or not isinstance(one.terms[1][1], Composition) or \
                one.terms[1][1].steps != 1:
            return None
        pair = one.terms[1][1].factors[0][0]
        if two.terms != mixed_directions(pair.P, pair.Q, 2):
            return None
        return MixedOrders(pair, two.bound)


def mixed_directions(A, B, k: int) -> Terms:
    """The k + 1 terms H(A^j x B^(k-j) || B^j x A^(k-j)), j = 0..k (001 Sec. 7: under
    substitution each step may flip direction).  Term j is the product of j copies of
    Pair(A, B) and k - j copies of Pair(B, A), labelled "j=<j>"."""
    k = count(k, "steps")
    forward, backward = Pair(A, B), Pair(B, A)
    return tuple((f"j={j}", backward ** k if j == 0 else forward ** k if j == k else
                  forward ** j * backward ** (k - j)) for j in range(k + 1))
