"""Products of Gaussian shift pairs, in closed form.

A pair N(a, s^2) || N(b, s^2) has the privacy loss L(y) = (a - b)(2y - a - b) / (2 s^2),
linear in y, so under P it is N(mu^2 / 2, mu^2) with mu = |a - b| / s.  The losses of
independent steps add, so any composition of such pairs (each with its own a, b, s) has the
privacy-loss distribution N(mu^2 / 2, mu^2) with mu^2 = sum_i mu_i^2: that of the single
pair N(mu, 1) || N(0, 1), whose hockey-stick divergence is (Balle and Wang, "Improving the
Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising",
2018, arXiv:1805.06530, Theorem 8; Chua et al., "How Private is DP-SGD?", ICML 2024,
arXiv:2403.17673, Prop. 3.1)

    H_alpha = Phi(mu / 2 - ln(alpha) / mu) - alpha Phi(-mu / 2 - ln(alpha) / mu).

k steps of the Gaussian mechanism therefore cost one evaluation instead of a (k - 1)-fold
nested quadrature.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Optional, Tuple

from mpmath import mp

from ...distributions import Gaussian, erfc
from ...exact import to_mpf
from ...pairs import Pair, shift_pair

__all__ = ["shift_squared", "hockey_shift", "exact_alpha", "MAX_EXTRA_DIGITS"]


def shift_squared(factors: Iterable[Tuple[Pair, int]]) -> Optional[Fraction]:
    """mu^2 = sum_i n_i ((a_i - b_i) / s_i)^2 over factors (pair_i, n_i) when every pair is
    a Gaussian shift (one Gaussian component on each side, one sigma), else None."""
    total = Fraction(0)
    for pair, n in factors:
        one = shift_pair(pair, Gaussian)
        if one is None:
            return None
        p, q = one
        total += n * ((p.mean - q.mean) / p.sigma) ** 2
    return total


def hockey_shift(mu2: Fraction, alpha, alpha_exact: Optional[Fraction] = None,
                 eps: Optional[Fraction] = None) -> "mp.mpf":
    """H_alpha(N(mu, 1) || N(0, 1)) with mu^2 = ``mu2`` (exact), to the working precision,
    relative (module docstring; ``alpha_exact`` the exact rational alpha, ``eps`` the exact
    eps when alpha = e^eps, either recomputed at every precision used).  Each Phi is taken
    as an upper tail erfc on the side where it is small, so values far below 1e-300 keep
    their relative accuracy.  The two terms cancel when mu is small or ln alpha large: the
    difference is recomputed with the digits lost, log10(first term / value), added (and
    alpha = e^eps with them), until the value keeps its digits; it is never 0, since
    H_alpha > max(0, 1 - alpha) for mu > 0.  ArithmeticError beyond ``MAX_EXTRA_DIGITS``."""
    if alpha == 0:
        return mp.one
    if mu2 == 0:
        return max(mp.one - alpha, mp.zero)
    extra = 20
    while True:
        with mp.workdps(mp.dps + extra):
            a = exact_alpha(alpha, alpha_exact, eps)
            first, value, z = _terms(mu2, a)
            lost = int(mp.log10(first * (1 + z * z) / value)) + 2 if value > 0 else 2 * extra
        if value > 0 and lost <= extra:
            return +value
        extra = max(2 * extra, lost + 10)
        if extra > MAX_EXTRA_DIGITS:
            raise ArithmeticError(f"the Gaussian shift's closed form cancels beyond "
                                  f"{MAX_EXTRA_DIGITS} digits (mu^2 = {mu2})")


MAX_EXTRA_DIGITS = 40000


def exact_alpha(alpha, alpha_exact: Optional[Fraction], eps: Optional[Fraction]):
    """alpha at the working precision: from ``alpha_exact`` or e^``eps`` when known exactly,
    else the mpf ``alpha`` as given."""
    if alpha_exact is not None:
        return to_mpf(alpha_exact)
    return mp.exp(to_mpf(eps)) if eps is not None else alpha


def _terms(mu2: Fraction, alpha):
    """(Phi(mu / 2 - ln(alpha) / mu), H_alpha, the larger abs(argument)) at the working
    precision.  A relative rounding r of an argument x moves Phi's tail by about x^2 r
    relative, so far in the tails x^2 counts among the digits lost."""
    mu = mp.sqrt(to_mpf(mu2))
    t = mp.log(alpha) / mu
    first = _phi(mu / 2 - t)
    return first, first - alpha * _phi(-mu / 2 - t), abs(mu / 2) + abs(t)


def _phi(x):
    """The standard normal CDF, from the small tail's erfc on either side (any x)."""
    r = mp.sqrt(2)
    return erfc(-x / r) / 2 if x < 0 else 1 - erfc(x / r) / 2
