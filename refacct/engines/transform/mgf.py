"""Moment generating functions of the privacy loss, M(z) = E_P[e^{z L}] = E_Q[(p/q)^{1+z}]
(001 Definition 5 for L), at complex z with Re z = c > 0, as Arb balls, for the transform
engine (``inversion``).

A ``Loss`` is the loss of a whole composition: ``log_mgf(z)`` is ln M_T(z) = sum_i T_i ln
M_i(z) (any branch: exp(T ln M) = M^T for integer T), ``decay(c, t)`` an upper bound on
sup_{s >= t} |M_T(c + i s)|, ``c_max`` the supremum of the c where M_T(c) is finite.

Gaussian shifts: N(mu, s^2) vs N(0, s^2) has L ~ N(m^2/2, m^2) under P with m = mu / s, so
ln M(z) = m^2 z (z + 1) / 2, and a composition of shifts is one shift with m^2 = sum_i T_i
m_i^2 (Balle and Wang, "Improving the Gaussian mechanism for differential privacy", 2018,
arXiv:1805.06530).  |M(c + it)| = exp(m^2 (c (c + 1) - t^2) / 2) decreases in t: it is
its own decay bound.
"""
from __future__ import annotations

from fractions import Fraction

from ..arb import acb, arb, to_arb

__all__ = ["GaussianShifts"]


class GaussianShifts:
    """The loss of a composition of Gaussian shifts, ``m2`` = sum_i T_i (mu_i / s_i)^2."""

    c_max = None  # M_T(c) is finite for every c

    def __init__(self, m2: Fraction) -> None:
        self.m2 = Fraction(m2)

    def log_mgf(self, z: "acb") -> "acb":
        return to_arb(self.m2) * z * (z + 1) / 2

    def decay(self, c: "arb", t: "arb") -> "arb":
        return (to_arb(self.m2) * (c * (c + 1) - t * t) / 2).exp()
