"""Discrete privacy losses on their own lattice: exact support, ball masses.

For a discrete pair whose finite loss atoms are all integer multiples of one logarithm,

    ln r_i = k_i ln b     (b > 1 rational, k_i integers; randomized response with
                           p > 1/2: b = p / (1 - p), k = +-1),

the T-fold composition lives on the lattice ln b * Z *exactly*: its privacy-loss
distribution (001 Definition 5) is the T-th power of the Laurent polynomial
sum_i P_i z^{k_i} (P-masses; the atom at +inf, where q = 0, absorbs), with no
discretisation error at all.  In Arb (``arb_poly``) the coefficients are balls with
rigorous radii, so ``lattice.delta_of`` / ``lattice.epsilon_of`` on that one measure give
an enclosure of delta_T(eps) / eps_T(delta) whose width is rounding alone; it shrinks with
the working precision.  The lattice step is the ball ln b, not a rational 2^-m: the
points x_j = j ln b are exact as mathematical values and enclosed by balls.

``b`` is found from the exponent vectors of the ratios over a coprime base of their
numerators and denominators (``engines.exact.discrete.coprime_base``): it exists when all
vectors are integer multiples of one primitive vector.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import List, Optional, Sequence, Tuple

import flint

from ..arb import to_arb
from ..exact.discrete import coprime_base, exponents
from .lattice import Measure, Window, power
from .loss_cells import DiscreteLoss

__all__ = ["AlignedLoss", "aligned_loss"]

MAX_LENGTH = 10 ** 7  # composed supports longer than this go to the 2^-m lattices instead


class AlignedLoss:
    """The loss atoms of a discrete pair as k ln b: ``base`` b, ``atoms`` [(k, P-mass)],
    ``infinite`` the P-mass at +inf."""

    def __init__(self, base: Fraction, atoms: Sequence[Tuple[int, Fraction]],
                 infinite: Fraction) -> None:
        self.base, self.atoms, self.infinite = base, tuple(atoms), infinite

    @property
    def span(self) -> int:
        ks = [k for k, _ in self.atoms] or [0]
        return max(ks) - min(ks)

    def measure(self) -> Measure:
        """The one-step loss as a ``Measure`` on the lattice ln b * Z (current precision)."""
        lo = min(k for k, _ in self.atoms)
        coeffs = [flint.arb(0)] * (self.span + 1)
        for k, mass in self.atoms:
            coeffs[k - lo] += to_arb(mass)
        return Measure(to_arb(self.base).log(), lo, coeffs, to_arb(self.infinite), "exact")

    def composed(self, T: int) -> Measure:
        """The T-fold composition (exact support, Arb masses)."""
        one = self.measure()
        top = one.offset + self.span
        return power(one, T, Window(T * min(one.offset, 0), T * max(top, 0)))  # no cut


def common_base(ratios: Sequence[Fraction]) -> Optional[Tuple[Fraction, List[int]]]:
    """(b, [k_i]) with r_i = b^{k_i}, b > 1, for positive rationals r_i not all 1; None when
    no such b exists."""
    base = coprime_base([r.numerator for r in ratios] + [r.denominator for r in ratios])
    vectors = [tuple(a - c for a, c in zip(exponents(r.numerator, base),
                                           exponents(r.denominator, base))) for r in ratios]
    first = next((v for v in vectors if any(v)), None)
    if first is None:
        return None
    g = 0
    for e in first:
        g = gcd(g, e)
    unit = tuple(e // g for e in first)
    pivot = next(j for j, e in enumerate(unit) if e)
    ks = []
    for v in vectors:
        k, rest = divmod(v[pivot], unit[pivot])
        if rest or any(a != k * u for a, u in zip(v, unit)):
            return None
        ks.append(k)
    b = Fraction(1)
    for prime, e in zip(base, unit):
        b *= Fraction(prime) ** e
    return (b, ks) if b > 1 else (1 / b, [-k for k in ks])


def aligned_loss(pair, T: int) -> Optional[AlignedLoss]:
    """The ``AlignedLoss`` of a discrete ``pair`` when its loss atoms share one base and the
    T-fold support has at most ``MAX_LENGTH`` points; else None."""
    if not pair.is_discrete:
        return None
    loss = DiscreteLoss(pair.P, pair.Q)
    found = common_base([r for r, _, _ in loss.atoms]) if loss.atoms else None
    if found is None:
        return None
    b, ks = found
    aligned = AlignedLoss(b, [(k, p) for k, (_, p, _) in zip(ks, loss.atoms)], loss.infinite)
    return aligned if T * aligned.span < MAX_LENGTH else None
