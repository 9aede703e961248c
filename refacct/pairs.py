"""Ordered pairs of output distributions and their compositions.

Vocabulary (001 Sec. 2, Definitions 3-5):

``Pair(P, Q)``           one mechanism step on neighbouring datasets; H_alpha(P || Q) is what
                         refacct computes.  ``pair.swap()`` is (Q, P).
``Composition``          a product of pairs: (P1 x P2 x ... || Q1 x Q2 x ...).  ``pair ** k`` is the
                         k-fold self-composition, ``pair1 * pair2`` the mixed product, e.g.
                         ``Pair(P, Q) * Pair(Q, P)`` is P x Q || Q x P.
``PublicMixture``        sum_r w_r (P_r, Q_r) where the output reveals r, so
                         H_alpha = sum_r w_r H_alpha(P_r || Q_r); its k-th power expands over the
                         multisets of components with multinomial weights (004 Sec. 3.4).

All three normalise to a ``PublicMixture`` of ``Composition`` terms, the form the engines
consume (``as_public_mixture``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import factorial
from typing import Iterable, Optional, Tuple, Union

from .distributions import Continuous, Discrete
from .exact import count, count_vectors, probability, sum_exactly
from .errors import InputError, InputTypeError

__all__ = ["Pair", "Composition", "PublicMixture", "PairLike", "as_public_mixture",
           "shift_pair"]


@dataclass(frozen=True)
class Pair:
    """An ordered pair (P, Q) of one-dimensional distributions, both ``Discrete`` or both
    continuous (``Gaussian`` / ``Laplace`` / ``Mixture``)."""

    P: Union[Discrete, Continuous]
    Q: Union[Discrete, Continuous]

    def __post_init__(self) -> None:
        kinds = [isinstance(d, Discrete) for d in (self.P, self.Q)]
        for name, d in (("P", self.P), ("Q", self.Q)):
            if not isinstance(d, (Discrete, Continuous)):
                raise InputTypeError(f"{name} must be a refacct distribution, got {type(d).__name__}")
        if kinds[0] != kinds[1]:
            raise InputTypeError("P and Q must both be Discrete or both be continuous")

    @property
    def is_discrete(self) -> bool:
        return isinstance(self.P, Discrete)

    def swap(self) -> "Pair":
        """(Q, P)."""
        return Pair(self.Q, self.P)

    def __mul__(self, other):
        return Composition.of(self) * other

    def __pow__(self, k: int) -> "Composition":
        return Composition.of(self) ** k


@dataclass(frozen=True)
class Composition:
    """Product pair (prod_i P_i^{n_i} || prod_i Q_i^{n_i}), stored as sorted
    ``(Pair, multiplicity)`` factors; the order of factors does not change H."""

    factors: Tuple[Tuple[Pair, int], ...]

    @staticmethod
    def of(*pairs: Pair) -> "Composition":
        counts = Counter()
        for p in pairs:
            if not isinstance(p, Pair):
                raise InputTypeError(f"expected a Pair, got {type(p).__name__}")
            counts[p] += 1
        return Composition._canonical(counts)

    @staticmethod
    def _canonical(counts: Counter) -> "Composition":
        return Composition(tuple(sorted(counts.items(), key=lambda kv: repr(kv[0]))))

    def pairs(self) -> Tuple[Pair, ...]:
        """The factors, each repeated by its multiplicity."""
        return tuple(p for p, n in self.factors for _ in range(n))

    @property
    def steps(self) -> int:
        return sum(n for _, n in self.factors)

    def swap(self) -> "Composition":
        return Composition._canonical(Counter({p.swap(): n for p, n in self.factors}))

    def __mul__(self, other):
        if isinstance(other, PublicMixture):
            return PublicMixture.of(self) * other
        other = as_composition(other)
        counts = Counter(dict(self.factors))
        counts.update(dict(other.factors))
        return Composition._canonical(counts)

    def __rmul__(self, other):
        return as_composition(other) * self

    def __pow__(self, k: int) -> "Composition":
        k = count(k, "k")
        return Composition._canonical(Counter({p: n * k for p, n in self.factors}))


def as_composition(x) -> Composition:
    if isinstance(x, Composition):
        return x
    if isinstance(x, Pair):
        return Composition.of(x)
    raise InputTypeError(f"expected a Pair or Composition, got {type(x).__name__}")


@dataclass(frozen=True)
class PublicMixture:
    """sum_r w_r (P_r, Q_r) with the component r revealed by the output (same weights under
    both datasets), so H_alpha = sum_r w_r H_alpha(P_r || Q_r).  Weights are rationals
    summing exactly to 1; terms are pairs or compositions."""

    terms: Tuple[Tuple[Fraction, Composition], ...]

    def __init__(self, weighted: Iterable[Tuple[object, object]]) -> None:
        merged: dict = {}
        weights = []
        for w, term in weighted:
            w = probability(w, "public mixture weight")
            weights.append(w)
            if w:
                c = as_composition(term)
                merged[c] = merged.get(c, Fraction(0)) + w
        if sum_exactly(weights) != 1:
            raise InputError(f"public mixture weights must sum exactly to 1, got {sum_exactly(weights)}")
        items = sorted(merged.items(), key=lambda kv: repr(kv[0]))
        object.__setattr__(self, "terms", tuple((w, c) for c, w in items))

    @staticmethod
    def of(x) -> "PublicMixture":
        return PublicMixture([(1, as_composition(x))])

    def swap(self) -> "PublicMixture":
        return PublicMixture([(w, c.swap()) for w, c in self.terms])

    def __mul__(self, other) -> "PublicMixture":
        other = as_public_mixture(other)
        return PublicMixture(
            [(w1 * w2, c1 * c2) for w1, c1 in self.terms for w2, c2 in other.terms]
        )

    def __rmul__(self, other) -> "PublicMixture":
        return as_public_mixture(other) * self

    def __pow__(self, k: int) -> "PublicMixture":
        """k-fold composition: sum over multisets {n_r} with sum n_r = k of the multinomial
        weight k! / prod n_r! * prod w_r^{n_r} times prod_r (P_r, Q_r)^{n_r}."""
        k = count(k, "k")
        terms = []
        for counts in count_vectors(k, len(self.terms)):
            weight = Fraction(factorial(k))
            factors = Counter()
            for n, (w, comp) in zip(counts, self.terms):
                weight *= w ** n / factorial(n)
                if n:
                    factors.update({p: m * n for p, m in comp.factors})
            terms.append((weight, Composition._canonical(factors)))
        return PublicMixture(terms)


PairLike = Union[Pair, Composition, PublicMixture]


def as_public_mixture(x) -> PublicMixture:
    """Normalise a Pair, Composition or PublicMixture to a PublicMixture, or an object
    that has one (``public_mixture()``: a catalogue entry of one term)."""
    if hasattr(x, "public_mixture"):
        x = x.public_mixture()
    if isinstance(x, PublicMixture):
        return x
    if isinstance(x, (Pair, Composition)):
        return PublicMixture.of(x)
    raise InputTypeError(
        f"expected a Pair, Composition or PublicMixture, got {type(x).__name__}"
    )


def shift_pair(pair: Pair, family: type) -> Optional[Tuple]:
    """(p, q), the one component on each side of ``pair``, when both are of ``family``
    (``Gaussian`` or ``Laplace``) with one width (sigma or scale), else None."""
    sides = [getattr(side, "components", None) for side in (pair.P, pair.Q)]
    if pair.is_discrete or any(c is None or len(c) != 1 for c in sides):
        return None
    (_, p), (_, q) = sides[0][0], sides[1][0]
    if not (isinstance(p, family) and isinstance(q, family)) or p.width != q.width:
        return None
    return p, q
