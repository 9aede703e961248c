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

from ...distributions import Gaussian
from ...exact import to_mpf
from ...pairs import Pair

__all__ = ["shift_squared", "hockey_shift"]


def shift_squared(factors: Iterable[Tuple[Pair, int]]) -> Optional[Fraction]:
    """mu^2 = sum_i n_i ((a_i - b_i) / s_i)^2 over factors (pair_i, n_i) when every pair is
    a Gaussian shift (one Gaussian component on each side, one sigma), else None."""
    total = Fraction(0)
    for pair, n in factors:
        sides = [getattr(side, "components", None) for side in (pair.P, pair.Q)]
        if pair.is_discrete or any(c is None or len(c) != 1 for c in sides):
            return None
        (_, p), (_, q) = sides[0][0], sides[1][0]
        if not (isinstance(p, Gaussian) and isinstance(q, Gaussian)) or p.sigma != q.sigma:
            return None
        total += n * ((p.mean - q.mean) / p.sigma) ** 2
    return total


def hockey_shift(mu2: Fraction, alpha) -> "mp.mpf":
    """H_alpha(N(mu, 1) || N(0, 1)) with mu^2 = ``mu2`` (exact), at the working precision
    (module docstring).  Each Phi is taken as an upper tail erfc on the side where it is
    small, so values far below 1e-300 keep their relative accuracy; where the two terms
    cancel (large ln alpha), the digits lost are probed and the difference recomputed
    with that many more."""
    if alpha == 0:
        return mp.one
    if mu2 == 0:
        return max(mp.one - alpha, mp.zero)
    lost = _lost_digits(mu2, alpha)
    with mp.workdps(mp.dps + lost):
        value = _difference(mu2, alpha)
    return +value


def _difference(mu2: Fraction, alpha):
    mu = mp.sqrt(to_mpf(mu2))
    t = mp.log(alpha) / mu
    return _phi(mu / 2 - t) - alpha * _phi(-mu / 2 - t)


def _phi(x):
    """The standard normal CDF, from the small tail's erfc on either side."""
    r = mp.sqrt(2)
    return mp.erfc(-x / r) / 2 if x < 0 else 1 - mp.erfc(x / r) / 2


def _lost_digits(mu2: Fraction, alpha) -> int:
    """Digits lost to cancellation in ``_difference``: log10(Phi(first term) / |value|),
    from an evaluation at the working precision plus 20 digits."""
    with mp.workdps(mp.dps + 20):
        mu = mp.sqrt(to_mpf(mu2))
        first = _phi(mu / 2 - mp.log(alpha) / mu)
        value = _difference(mu2, alpha)
        if value == 0 or first == 0:
            return 20
        return max(0, int(mp.log10(abs(first / value)))) + 2
