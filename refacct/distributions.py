"""One-dimensional output distributions with exact parameters.

``Discrete``  finite support, rational masses summing exactly to 1;
``Gaussian``  N(mean, sigma^2);
``Laplace``   Lap(loc, scale), density exp(-abs(y - loc) / scale) / (2 scale);
``Mixture``   a finite mixture of Gaussians and Laplaces with rational weights.

Densities, CDFs and interval masses are evaluated in mpmath at the caller's working
precision.  Interval masses use the tail on the side away from the bulk (``erfc`` for
Gaussians, exact exponentials for Laplace), so a mass of 1e-200 keeps its relative
accuracy (``docs/numerics.md``, "Exact CDF differences").
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from typing import Hashable, Iterable, Mapping, Sequence, Tuple, Union

from mpmath import mp

from .exact import positive, probability, rational, sum_exactly, to_mpf
from .errors import InputError, InputTypeError
from .exact_text import fraction_text

__all__ = ["Discrete", "Gaussian", "Laplace", "Mixture", "Continuous", "mixture"]


class Continuous:
    """A finite mixture of Gaussian and Laplace components (interface shared by all three).

    ``components`` is a tuple of ``(weight, Gaussian | Laplace)`` with rational weights
    summing to 1; every density-like method is the weighted sum over it.
    """

    components: Tuple[Tuple[Fraction, "Gaussian | Laplace"], ...]

    def pdf(self, y):
        """Density at ``y`` (mpf)."""
        return numeric(self).pdf(y)

    def mass(self, a, b):
        """P(a < Y < b) for a <= b (either may be ``-mp.inf`` / ``mp.inf``), without
        cancellation in either tail."""
        return numeric(self).mass(a, b)

    def kinks(self) -> Tuple[Fraction, ...]:
        """Points where the density is not analytic (Laplace locations), sorted."""
        return tuple(sorted({c.loc for _, c in self.components if isinstance(c, Laplace)}))


@dataclass(frozen=True)
class Gaussian(Continuous):
    """N(mean, sigma^2).  Parameters are exact rationals (int, Fraction, "3/4", "1e-3")."""

    mean: Fraction
    sigma: Fraction

    def __init__(self, mean: object = 0, sigma: object = 1) -> None:
        object.__setattr__(self, "mean", rational(mean, "mean"))
        object.__setattr__(self, "sigma", positive(sigma, "sigma"))

    @property
    def components(self):
        return ((Fraction(1), self),)

    @property
    def width(self) -> Fraction:
        return self.sigma

    @property
    def location(self) -> Fraction:
        return self.mean

    def __repr__(self) -> str:
        return f"Gaussian(mean={self.mean}, sigma={self.sigma})"


@dataclass(frozen=True)
class Laplace(Continuous):
    """Lap(loc, scale): density exp(-abs(y - loc) / scale) / (2 scale)."""

    loc: Fraction
    scale: Fraction

    def __init__(self, loc: object = 0, scale: object = 1) -> None:
        object.__setattr__(self, "loc", rational(loc, "loc"))
        object.__setattr__(self, "scale", positive(scale, "scale"))

    @property
    def components(self):
        return ((Fraction(1), self),)

    @property
    def width(self) -> Fraction:
        return self.scale

    @property
    def location(self) -> Fraction:
        return self.loc

    def __repr__(self) -> str:
        return f"Laplace(loc={self.loc}, scale={self.scale})"


Component = Union[Gaussian, Laplace]


def _check_weights(weights: Sequence[Fraction], name: str) -> None:
    total = sum_exactly(weights)
    if total != 1:
        raise InputError(f"{name} must sum exactly to 1, got {total}")


@dataclass(frozen=True)
class Mixture(Continuous):
    """Sum_i w_i C_i for Gaussian / Laplace components C_i and rational weights w_i >= 0
    summing exactly to 1.  Nested mixtures are flattened, zero weights dropped and equal
    components merged."""

    components: Tuple[Tuple[Fraction, Component], ...]

    def __init__(self, weighted: Iterable[Tuple[object, Continuous]]) -> None:
        merged: dict = {}
        weights = []
        for weight, dist in weighted:
            w = probability(weight, "mixture weight")
            weights.append(w)
            if not isinstance(dist, Continuous):
                raise InputTypeError(
                    "Mixture components must be Gaussian, Laplace or Mixture; "
                    "use refacct.mixture(...) to mix Discrete distributions"
                )
            for v, comp in dist.components:
                if w * v:
                    merged[comp] = merged.get(comp, Fraction(0)) + w * v
        _check_weights(weights, "mixture weights")
        if not merged:
            raise InputError("a mixture needs at least one component with positive weight")
        items = sorted(merged.items(), key=lambda kv: repr(kv[0]))
        object.__setattr__(self, "components", tuple((w, c) for c, w in items))

    def __repr__(self) -> str:
        """Weights in full whatever their size (004's truncated-Poisson weights at n = 10^5
        have 900000 digits, past Python's int-to-string limit)."""
        return "Mixture([" + ", ".join(f"({fraction_text(w)}, {c!r})"
                                       for w, c in self.components) + "])"


@dataclass(frozen=True)
class Discrete:
    """A distribution on finitely many outcomes with exact rational masses summing to 1.

    ``Discrete({0: "3/4", 1: "1/4"})``.  Outcomes are any hashable labels; zero masses are
    dropped.
    """

    masses: Tuple[Tuple[Hashable, Fraction], ...]

    def __init__(self, masses: Mapping[Hashable, object]) -> None:
        if not isinstance(masses, Mapping) or not masses:
            raise InputTypeError("Discrete needs a non-empty mapping outcome -> mass")
        parsed = {x: probability(m, f"mass of outcome {x!r}") for x, m in masses.items()}
        _check_weights(list(parsed.values()), "Discrete masses")
        items = sorted(((x, m) for x, m in parsed.items() if m), key=lambda kv: repr(kv[0]))
        object.__setattr__(self, "masses", tuple(items))

    def mass_of(self, outcome: Hashable) -> Fraction:
        """Exact mass of one outcome (0 outside the support)."""
        index = self.__dict__.get("_index")
        if index is None:  # built once: a support of 10^5 outcomes is looked up 10^5 times
            index = dict(self.masses)
            object.__setattr__(self, "_index", index)
        return index.get(outcome, Fraction(0))

    def support(self) -> Tuple[Hashable, ...]:
        return tuple(x for x, _ in self.masses)

    def __repr__(self) -> str:
        return "Discrete({" + ", ".join(f"{x!r}: {m}" for x, m in self.masses) + "})"


def mixture(weighted: Iterable[Tuple[object, object]]):
    """Mix distributions with rational weights: a ``Discrete`` if every part is discrete,
    else a ``Mixture`` (mixing discrete with continuous parts is rejected)."""
    weighted = list(weighted)
    if weighted and all(isinstance(d, Discrete) for _, d in weighted):
        weights = [probability(w, "mixture weight") for w, _ in weighted]
        _check_weights(weights, "mixture weights")
        total: dict = {}
        for w, d in zip(weights, (d for _, d in weighted)):
            for x, m in d.masses:
                total[x] = total.get(x, Fraction(0)) + w * m
        return Discrete(total)
    if any(isinstance(d, Discrete) for _, d in weighted):
        raise InputTypeError("cannot mix Discrete with continuous distributions")
    return Mixture(weighted)


class _Numeric:
    """mpf parameters of a continuous distribution at one working precision, with its
    density and interval masses.  Gaussian masses use erfc from the nearer tail,
    Laplace masses exact exponentials; a - b differences of tails only on one side of the
    component's centre."""

    __slots__ = ("rows",)

    def __init__(self, dist: Continuous) -> None:
        rows = []
        for w, c in dist.components:
            if isinstance(c, Gaussian):
                s = to_mpf(c.sigma)
                rows.append((True, to_mpf(w), to_mpf(c.mean), s * mp.sqrt(2),
                             to_mpf(w) / (s * mp.sqrt(2 * mp.pi))))
            else:
                b = to_mpf(c.scale)
                rows.append((False, to_mpf(w), to_mpf(c.loc), b, to_mpf(w) / (2 * b)))
        self.rows = rows

    def pdf(self, y):
        out = mp.zero
        for gaussian, _, m, s, norm in self.rows:
            out += norm * mp.exp(-((y - m) / s) ** 2 if gaussian else -abs(y - m) / s)
        return out

    def mass(self, a, b):
        out = mp.zero
        for gaussian, w, m, s, _ in self.rows:
            if a >= m:
                part = _upper(gaussian, a, m, s) - _upper(gaussian, b, m, s)
            elif b <= m:
                part = _lower(gaussian, b, m, s) - _lower(gaussian, a, m, s)
            else:
                part = 1 - _lower(gaussian, a, m, s) - _upper(gaussian, b, m, s)
            out += w * part
        return out


def _lower(gaussian: bool, y, m, s):
    """P(Y < y) for N(m, s^2 / 2) (s = sigma sqrt 2) or Lap(m, s), from the lower tail."""
    if gaussian:
        return erfc((m - y) / s) / 2
    return mp.exp((y - m) / s) / 2 if y <= m else 1 - mp.exp((m - y) / s) / 2


def _upper(gaussian: bool, y, m, s):
    """P(Y > y), from the upper tail."""
    if gaussian:
        return erfc((y - m) / s) / 2
    return mp.exp((m - y) / s) / 2 if y >= m else 1 - mp.exp((y - m) / s) / 2


_ASYMPTOTIC = 2 ** 64  # beyond it mpmath's erfc overflows a float; the series is used


def erfc(x):
    """erfc(x) at the working precision for any real x.  mpmath's erfc converts its
    argument to a float to choose a method and overflows beyond ~1e154; for x > 2^64 the
    asymptotic series erfc(x) = e^{-x^2} / (x sqrt(pi)) sum_n (-1)^n (2n - 1)!! / (2x^2)^n
    is summed until a term is below 2^-(prec + 8) (its terms fall by 1/(2x^2) < 2^-128
    each, and the error of an alternating series is below the first term left out);
    erfc(-x) = 2 - erfc(x)."""
    if abs(x) <= _ASYMPTOTIC:
        return mp.erfc(x)
    if x < 0:
        return 2 - erfc(-x)
    total, term, n = mp.one, mp.one, 0
    step = 1 / (2 * x * x)
    while abs(term) > mp.mpf(2) ** -(mp.prec + 8):
        n += 1
        term *= -(2 * n - 1) * step
        total += term
    return mp.exp(-x * x) / (x * mp.sqrt(mp.pi)) * total


@lru_cache(maxsize=512)
def _numeric(dist: Continuous, prec: int) -> _Numeric:
    return _Numeric(dist)


def numeric(dist: Continuous) -> _Numeric:
    """The mpf evaluator of ``dist`` at the current working precision (cached)."""
    return _numeric(dist, mp.prec)
