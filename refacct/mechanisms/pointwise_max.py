"""An upper bound for sampling without replacement under substitution, k steps (001 App. D):
a dominating pair whose hockey-stick curve is the one-step worst case of 001 Thm 14,

    f(alpha) = H_alpha(A || B) for alpha >= 1,   H_alpha(B || A) for alpha < 1,

(A, B the one-step outputs of ``without_replacement.substitution_outputs``), composed k
times (001 Thm 8).  Built here exactly for *discrete* bases: with S+ = {A > B} and
m = A(S+) + B(S+),

    P* = A on S+,  B on a mirror copy of S+,  1 - m on a neutral outcome,
    Q* = B on S+,  A on the mirror copy,      1 - m on the neutral outcome.

For alpha >= 1 only S+ contributes, giving H_alpha(A || B); for alpha < 1 the sum
A(S+) - alpha B(S+) + sum_{S+} (B - alpha A)_+ + (1 - alpha)(1 - m) equals H_alpha(B || A)
(expand H_alpha(B || A) over S+ and its complement).  f is a privacy curve (convex at
alpha = 1) iff m <= 1, which is exactly when the neutral mass is >= 0; otherwise ValueError.
Continuous bases would need distributions restricted to S+, which refacct does not have.
"""
from __future__ import annotations

from fractions import Fraction

from ..distributions import Discrete
from ..pairs import Pair
from .base import Base
from .entry import Dominated, Provenance, steppable
from .relations import powered
from .without_replacement import THM_14, substitution_outputs
from ..errors import InputError

__all__ = ["pointwise_max_pair", "wor_substitution_upper"]

APP_D = Provenance("001 App. D: pointwise maximum of the two one-step directions, composed",
                   "001", "App. D")


def pointwise_max_pair(A: Discrete, B: Discrete) -> Pair:
    """(P*, Q*) of the module docstring: H_alpha(P* || Q*) = H_alpha(A || B) for alpha >= 1
    and H_alpha(B || A) for alpha < 1."""
    if not (isinstance(A, Discrete) and isinstance(B, Discrete)):
        raise InputError("the pointwise-maximum pair (001 App. D) is built for discrete "
                         "base mechanisms only")
    plus = [x for x in set(A.support()) | set(B.support()) if A.mass_of(x) > B.mass_of(x)]
    m = sum((A.mass_of(x) + B.mass_of(x) for x in plus), Fraction(0))
    if m > 1:
        raise InputError(f"A(S+) + B(S+) = {m} > 1: the pointwise maximum is not convex at "
                         "alpha = 1, so no pair has it as its curve")
    P = {("neutral",): 1 - m}
    Q = {("neutral",): 1 - m}
    for x in plus:
        P[("+", x)], P[("-", x)] = A.mass_of(x), B.mass_of(x)
        Q[("+", x)], Q[("-", x)] = B.mass_of(x), A.mass_of(x)
    return Pair(Discrete(P), Discrete(Q))


@steppable
def wor_substitution_upper(base: Base, n: int, batch: int, steps: int = 1) -> Dominated:
    """k steps of WOR (batch of n) under substitution: an upper bound, (P*, Q*)^k."""
    A, B = substitution_outputs(base, n, batch)
    pair = pointwise_max_pair(A, B)
    desc = f"{base.name}, WOR batch {batch} of {n}, substitution, {steps} step(s)"
    return Dominated(desc, (("pointwise max", powered(pair, steps)),), "upper",
                     (APP_D, THM_14, base.provenance))
