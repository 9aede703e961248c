"""Two mixtures on one lattice, P = sum_j a_j F(j) against Q = sum_j b_j F(j), j = 0 .. g,
as the subsampled losses take them (``mgf.SubsampledGaussian``, ``laplace.
SubsampledLaplace``): their weights checked and ordered, and the chance that a step uses
the record."""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence, Tuple

__all__ = ["lattice_weights", "rate"]


def lattice_weights(weights: Sequence, against: Sequence) -> Tuple[Tuple[Fraction, ...],
                                                                     Tuple[Fraction, ...], int]:
    """(a, b, sign): the weights as fractions of one length g + 1 (trailing pairs of zeros
    dropped) and the likelihood-ratio order, sign +1 when a_j / b_j is non-decreasing in j,
    -1 when non-increasing; ValueError for weights that are not two distributions, equal
    ones, or ones in neither order."""
    a, b = (tuple(Fraction(w) for w in v) for v in (weights, against))
    size = max(len(a), len(b))
    a, b = (v + (Fraction(0),) * (size - len(v)) for v in (a, b))
    for v in (a, b):
        if min(v) < 0 or sum(v) != 1:
            raise ValueError(f"weights must be >= 0 and sum to 1, got {v}")
    while a[-1] == b[-1] == 0:
        a, b = a[:-1], b[:-1]
    if a == b:
        raise ValueError("the two mixtures are equal: no privacy loss")
    if _ordered(a, b):
        return a, b, 1
    if _ordered(b, a):
        return a, b, -1
    raise ValueError(f"the weights {a} and {b} are not in likelihood-ratio order")


def rate(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    """The chance that a step uses the record (or the group): the total variation distance
    sum_j max(a_j - b_j, 0) (q for Poisson sampling)."""
    return sum((max(x - y, Fraction(0)) for x, y in zip(a, b)), Fraction(0))


def _ordered(a: Sequence[Fraction], b: Sequence[Fraction]) -> bool:
    """Is a_j / b_j non-decreasing in j (a_j b_k <= a_k b_j for j < k, zeros included)?"""
    return all(a[j] * b[k] <= a[k] * b[j] for k in range(len(a)) for j in range(k))
