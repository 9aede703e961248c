"""Sampling without replacement (WOR): a uniformly random batch of fixed size b out of n
records, gamma = b / n (001 Definition 6).

The added record pushes another one out of the batch, so the pairs are built from the base
mechanism's *substitution* pair (P_s, Q_s) = (M(-Delta), M(+Delta)) (001 Thm 10.2 = Zhu et
al. Thm 11; for the sum query the sensitivity doubles).  With A = (1 - gamma) P_s + gamma Q_s
and B = P_s:

    add: (B, A)      remove: (A, B)      (tight: 001 Prop. 9.2, D = (-1, ..., -1), D' = D
                                          with one -1 replaced by 1)

Substitution (001 Thm 14 = Zhu et al. Prop. 30, derived from the datasets of 001 Sec. 7,
D = (-1, ..., -1, 1), D' = (-1, ..., -1), which give M(D) = A and M(D') = B): one step,
delta(alpha) = H_alpha(A || B) for alpha >= 1 and H_alpha(B || A) for alpha < 1 (tight).
For k steps each step may flip direction: the k + 1 terms H(A^j B^(k-j) || B^j A^(k-j)),
j = 0..k, are each realised by a pair of datasets, and their maximum is a *lower* bound
(001 Sec. 7: no proof that one of them is the worst case).
"""
from __future__ import annotations

from fractions import Fraction

from ..distributions import mixture
from ..pairs import Pair
from .base import Base
from .entry import Dominated, Provenance, steppable
from .relations import check_relation, directions, mixed_directions
from ..errors import InputError, InputTypeError

__all__ = ["wor_subsampled", "substitution_outputs", "batch_size", "THM_10_2", "THM_14"]

THM_10_2 = Provenance("Zhu et al. Thm 11 = 001 Thm 10.2, tight by Prop. 9.2",
                      "001", "Sec. 4, App. A")
THM_14 = Provenance("Zhu et al. Prop. 30 = 001 Thm 14 (one step); k + 1 mixed terms for k steps",
                    "001", "Sec. 7")


def batch_size(n: object, batch: object) -> Fraction:
    """gamma = batch / n for ints 1 <= batch <= n."""
    for name, v in (("n", n), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputTypeError(f"{name} must be an int, got {v!r}")
    if n < 1:
        raise InputError(f"n must be >= 1, got {n}")
    if not 1 <= batch <= n:
        raise InputError(f"batch must lie in [1, n] = [1, {n}], got {batch}")
    return Fraction(batch, n)


def substitution_outputs(base: Base, n: int, batch: int):
    """(A, B) = ((1 - gamma) P_s + gamma Q_s, P_s): M(D) and M(D') for the datasets of
    001 Sec. 7, from the base substitution pair (P_s, Q_s), gamma = batch / n."""
    gamma = batch_size(n, batch)
    sub = base.substitution_pair("sampling without replacement")
    return mixture([(1 - gamma, sub.P), (gamma, sub.Q)]), sub.P


@steppable
def wor_subsampled(base: Base, n: int, batch: int, relation: str = "add-remove",
                   steps: int = 1) -> Dominated:
    """k steps of ``base`` on a uniformly random batch of ``batch`` out of ``n`` records:
    substitution on datasets of size n; add / remove between sizes n - 1 and n (the record
    is in the batch with probability gamma = batch / n, 001 Thm 10)."""
    A, B = substitution_outputs(base, n, batch)
    rel = check_relation(relation, ("add", "remove", "add-remove", "substitution", "replace-one"),
                         "sampling without replacement")
    desc = f"{base.name}, WOR batch {batch} of {n}, {rel}, {steps} step(s)"
    if rel in ("substitution", "replace-one"):
        return Dominated(desc, mixed_directions(A, B, steps), "tight" if steps == 1 else "lower",
                         (THM_14, base.provenance))
    return Dominated(desc, directions(Pair(B, A), rel, steps), "tight",
                     (THM_10_2, base.provenance))
