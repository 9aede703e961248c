"""Base mechanisms: the mechanism run on one batch, given by its dominating pairs.

Every base mechanism has

``add``           the pair (M(D), M(D + x)) that dominates it for add neighbours (without the
                  record, with it); its swap dominates remove neighbours;
``substitution``  a pair dominating it for substitution neighbours (needed by sampling
                  without replacement, 001 Thm 10.2), or ``None``.

Additive mechanisms (``Additive``: the sum query plus Gaussian or Laplace noise, records of
norm at most the sensitivity Delta, 001 Prop. 9 and App. A) also build their output at any
location, which the Poisson-substitution, truncated-Poisson and group pairs need:

    gaussian: add = (N(0, s^2), N(Delta, s^2)),  substitution = (N(-Delta, s^2), N(Delta, s^2));
    laplace:  the same with Lap(., b).

The substitution pair is centred at -Delta (records -Delta and +Delta) so that the pairs of
001 Sec. 7 appear with the printed locations.  Randomized response (001 App. B.1) outputs
the bit b = [the batch contains a 1] with probability p and 1 - b otherwise; its output
depends only on b, so add and substitution pairs are both ({0: p, 1: 1 - p}, {0: 1 - p, 1: p}).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Optional, Tuple

from ..distributions import Continuous, Discrete, Gaussian, Laplace, mixture
from ..exact import positive, probability
from ..pairs import Pair
from .entry import Provenance
from ..errors import InputError, InputTypeError

__all__ = ["Base", "Additive", "gaussian", "laplace", "randomized_response", "discrete"]

_APP_A = Provenance("sum query with additive noise: worst-case neighbours at maximal distance",
                    "001", "Prop. 9, App. A")


@dataclass(frozen=True)
class Base:
    """A base mechanism: ``name``, ``add`` pair (without, with the record), optional
    ``substitution`` pair, and where they come from."""

    name: str
    add: Pair
    substitution: Optional[Pair]
    provenance: Provenance

    def substitution_pair(self, scheme: str) -> Pair:
        """The substitution pair, or a ValueError naming the sampling ``scheme`` that needs it."""
        if self.substitution is None:
            raise InputError(f"{scheme} needs the base mechanism's substitution pair; "
                             f"{self.name} was built without one (discrete(..., substitution=...))")
        return self.substitution


@dataclass(frozen=True)
class Additive(Base):
    """Sum query plus noise ``family`` ("gaussian" / "laplace") of width ``width`` (sigma or
    scale); records have norm at most ``sensitivity``."""

    family: str = "gaussian"
    width: Fraction = Fraction(1)
    sensitivity: Fraction = Fraction(1)

    def at(self, loc: Fraction) -> Continuous:
        """The output distribution when the batch sum is ``loc``."""
        return (Gaussian if self.family == "gaussian" else Laplace)(loc, self.width)

    def mix(self, weighted: Iterable[Tuple[Fraction, Fraction]]) -> Continuous:
        """sum_i w_i M(loc_i) for (w_i, multiple of Delta) pairs: locations are given in
        units of the sensitivity."""
        return mixture([(w, self.at(m * self.sensitivity)) for w, m in weighted if w])

    def scaled(self, factor: int) -> "Additive":
        """The same mechanism with sensitivity factor * Delta (a group of ``factor``
        records in the sum query)."""
        return _additive(self.family, self.width, self.sensitivity * factor)


def _additive(family: str, width: Fraction, sensitivity: Fraction) -> Additive:
    noise = Gaussian if family == "gaussian" else Laplace
    name = f"{family}({'sigma' if family == 'gaussian' else 'scale'}={width}, sensitivity={sensitivity})"
    return Additive(name, Pair(noise(0, width), noise(sensitivity, width)),
                    Pair(noise(-sensitivity, width), noise(sensitivity, width)), _APP_A,
                    family, width, sensitivity)


def gaussian(sigma: object = 1, sensitivity: object = 1) -> Additive:
    """Sum query + N(0, sigma^2), records of norm <= sensitivity: add pair
    (N(0, sigma^2), N(Delta, sigma^2)) (001 App. A, Balle & Wang 2018)."""
    return _additive("gaussian", positive(sigma, "sigma"), positive(sensitivity, "sensitivity"))


def laplace(scale: object = 1, sensitivity: object = 1) -> Additive:
    """Sum query + Lap(0, b), records of absolute value <= sensitivity: add pair
    (Lap(0, b), Lap(Delta, b)) (001 Prop. 9, App. A)."""
    return _additive("laplace", positive(scale, "scale"), positive(sensitivity, "sensitivity"))


def randomized_response(p: object = "3/4") -> Base:
    """001 App. B.1: output b w.p. p and 1 - b w.p. 1 - p, b = 1 iff the batch contains a 1.
    Add pair ({0: p, 1: 1-p}, {0: 1-p, 1: p}); the substitution pair is the same (the output
    depends only on b)."""
    p = probability(p, "p")
    P = Discrete({0: p, 1: 1 - p})
    Q = Discrete({0: 1 - p, 1: p})
    return Base(f"randomized_response(p={p})", Pair(P, Q), Pair(P, Q),
                Provenance("randomized response on the bit 'batch contains a 1'",
                           "001", "App. B.1"))


def discrete(P: Discrete, Q: Discrete, substitution: Optional[Tuple[Discrete, Discrete]] = None,
             name: str = "discrete") -> Base:
    """A user mechanism given by its outputs: (P, Q) = (M(D), M(D + x)) dominates it for add
    neighbours; ``substitution`` = (P', Q') a pair dominating it for substitution
    neighbours (needed only for sampling without replacement)."""
    for label, d in (("P", P), ("Q", Q)) + (() if substitution is None else
                                           (("substitution[0]", substitution[0]),
                                            ("substitution[1]", substitution[1]))):
        if not isinstance(d, Discrete):
            raise InputTypeError(f"{label} must be a refacct.Discrete, got {type(d).__name__}")
    sub = None if substitution is None else Pair(*substitution)
    return Base(name, Pair(P, Q), sub,
                Provenance("user-supplied output distributions", "-", "-"))
