"""The moment generating function of the Laplace mechanism's privacy loss in closed form,
for the transform engine (``inversion``; the interface is ``mgf``'s).

Lap(a, b) || Lap(a', b) with e0 = abs(a - a') / b: under P the loss has the atoms e0 (mass
1/2) and -e0 (mass e^{-e0} / 2) and the density e^{(x - e0) / 2} / 4 on (-e0, e0)
(``engines.quadrature.laplace_shift``), so with w = z + 1/2

    M(z) = E_P[e^{z L}] = e^{-e0 / 2} (cosh(w e0) + sinh(w e0) / (2 w))

(M(0) = M(-1) = 1).  **Decay.**  With u = Re w = c + 1/2: abs(cosh(w e0)) <= cosh(u e0) and
abs(sinh(w e0)) <= cosh(u e0) (abs(sinh(x + iy))^2 = sinh(x)^2 + sin(y)^2), abs(w) >=
sqrt(u^2 + s^2), so

    abs(M(c + is)) <= e^{-e0 / 2} cosh(u e0) (1 + 1 / (2 sqrt(u^2 + s^2))),

which decreases in s: its value at t bounds the supremum beyond t.  It falls only to the
atoms' share cosh(u e0) / (cosh(u e0) + sinh(u e0) / (2u)) of M(c), not to 0: the loss of T
steps keeps atoms, and the truncation bound falls as that share to the power T.  So the
transform takes the Laplace mechanism once many steps leave the atoms (``uses``); with few
it is nearly a lattice, which the closed form of the T-fold law and the brackets take.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ..arb import acb, arb, to_arb

__all__ = ["LaplaceShift"]


class LaplaceShift:
    """The loss of ``steps`` compositions of a Laplace shift pair with ratio ``e0`` > 0
    (module docstring)."""

    c_max = None   # the loss is bounded: M(c) is finite for every c

    def __init__(self, e0: Fraction, steps: int) -> None:
        if e0 <= 0:
            raise ValueError(f"e0 must be > 0, got {e0}")
        self.e0, self.steps = Fraction(e0), steps

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step (module docstring)."""
        e0 = to_arb(self.e0)
        w = z + acb(arb(1) / 2)
        return (-e0 / 2).exp() * ((w * e0).cosh() + (w * e0).sinh() / (2 * w))

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * self.one_step(z).log()

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The module docstring's bound at s = t, to the power T (``drop`` is not needed:
        the bound is in closed form)."""
        e0, u = to_arb(self.e0), c + arb(1) / 2
        one = (-e0 / 2).exp() * (u * e0).cosh() * (1 + 1 / (2 * (u * u + t * t).sqrt()))
        return one ** self.steps

    def sup(self) -> Optional["arb"]:
        """The loss of a step is at most e0: T e0."""
        return self.steps * to_arb(self.e0)

    def uses(self) -> Fraction:
        """Not a subsampled use of the record (``Product.uses``): none."""
        return Fraction(0)

    def off_atoms(self) -> Fraction:
        """A lower bound on the expected number of steps whose loss lies between the atoms,
        T (1 - e^{-e0}) / 2 >= T e0 / (2 (1 + e0)) (1 - e^{-x} >= x / (1 + x)): the atoms'
        share of M(c) tends to (1 + e^{-e0}) / 2 as c -> 0, and its T-th power, about
        e^{-T (1 - e^{-e0}) / 2}, is the floor of the truncation bound relative to M_T(c)."""
        return self.steps * self.e0 / (2 * (1 + self.e0))
