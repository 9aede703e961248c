"""The put f(K) = E[(K - X)_+] for t = 2, X = (Z_1 + Z_2) / 2 the mean of two independent
lognormals of mean 1 (log-scale b), as a proven ball by one rigorous integral.

At t = 2 the Laplace transform of X decays too slowly to invert (``put``: |phi(s/2)|^2 is
still 1e-22 at s = 10^4), but conditioning on Z_1 leaves one integral of a closed form.
With p(k) = E[(k - Z)_+] = k Phi(-d_2) - Phi(-d_1) the one-lognormal put,
d_1 = (b^2 / 2 - ln k) / b, d_2 = d_1 - b (Black and Scholes), and z = ln Z_1 ~ N(-b^2/2, b^2)
with density n(z),

    f(K) = (1/2) E[(2K - Z_1 - Z_2)_+] = (1/2) int_{z < L} n(z) p(2K - e^z) dz,  L = ln 2K.

p(k) has a logarithmic branch point at k = 0 (the end z = L) and n(z) is integrated to
-inf: neither end suits Gauss-Legendre.  The logistic substitution k = 2K / (1 + e^{-x}),
x in R, maps both ends to infinity.  With s(x) = ln(1 + e^{-x}) (so ln(1 + e^x) = x + s),

    f(K) = (1/2) int_R n(L - x - s) p(2K e^{-s}) e^{-s} dx,

an integrand analytic in the strip |Im x| < pi (s's branch points lie on its edges: the
``analytic`` flag of ``acb.log`` checks each ball) that decays like a Gaussian in x at both
ends.  On [x_lo, x_hi] it is FLINT's rigorous adaptive Gauss-Legendre (``acb.integral``);
the two tails are bounded in the original variables, each term >= 0:

    x > x_hi  (z < z_lo = L - ln(1 + e^{x_hi})):  <= (1/2) 2K P(z < z_lo) = K Phi((z_lo + b^2/2) / b),
                                                  since p(k) <= k <= 2K;
    x < x_lo  (k < k_lo = 2K / (1 + e^{-x_lo})):  <= (1/2) p(k_lo),  p increasing, n a density.

So f(K) lies in [I, I + tails], I the integral's ball; x_lo and x_hi only steer (a poor
choice shows as width, never as error).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..arb import acb, arb, flint

__all__ = ["TwoSteps"]


def _Phi(x: "arb") -> "arb":
    """Phi(x) = erfc(-x / sqrt 2) / 2, the standard normal distribution function."""
    return (-x / arb(2).sqrt()).erfc() / 2


@dataclass(frozen=True)
class TwoSteps:
    """The put of t = 2 for every strike, absolute tolerance about ``k_max`` 2^-``log2_tol``
    for strikes K <= ``k_max``, in ``bits`` of working precision (the interface of
    ``put.Table`` that ``refacct.allocation`` uses: ``bits`` and ``put``)."""

    b: "arb"
    k_max: "arb"
    log2_tol: int
    bits: int
    t: int = 2

    def put(self, K: "arb") -> "arb":
        """E[(K - X)_+] as a proven ball, K > 0 (module docstring)."""
        with flint.ctx.workprec(self.bits):
            if not K > 0:
                raise ValueError(f"the strike must be > 0, got {K}")
            b, L = self.b, (2 * K).log()
            half = b * b / 2
            norm = 1 / (b * (2 * arb.pi()).sqrt())
            tolerance = self.k_max * arb(2) ** -self.log2_tol
            x_lo, x_hi = self._range(float(L.mid()), float(b.mid()))

            def integrand(x, analytic):
                s = (1 + (-x).exp()).log(analytic=analytic)
                z = L - x - s
                log_k = L - s
                d1 = (half - log_k) / b
                put_k = log_k.exp() * _Phi(b - d1) - _Phi(-d1)
                w = z + half
                return norm * (-(w * w) / (2 * b * b)).exp() * put_k * (-s).exp() / 2

            body = acb.integral(integrand, x_lo, x_hi, abs_tol=tolerance / 8,
                                rel_tol=arb(2) ** -self.bits).real
            z_lo = L - (1 + arb(x_hi).exp()).log()
            right = K * _Phi((z_lo + half) / b)
            k_lo = 2 * K / (1 + (-arb(x_lo)).exp())
            d1 = (half - k_lo.log()) / b
            left = (k_lo * _Phi(b - d1) - _Phi(-d1)) / 2
            return body + arb(0, 0).union(right + left)

    def _range(self, L: float, b: float):
        """[x_lo, x_hi] outside of which each tail bound is below a sixteenth of the
        tolerance (steering, in floats: the bounds themselves are Arb balls)."""
        # Phi(a) <= e^{-a^2/2} / 2 for a <= 0: -a = sqrt(2 ln(8 / tolerance ratio)) suffices
        a = math.sqrt(2 * (self.log2_tol + 6) * math.log(2)) + 1
        x_hi = L + b * b / 2 + b * a + 1                    # z_lo + b^2/2 <= -b a
        log_k_lo = -b * b / 2 - b * a - 1                   # ln k_lo + b^2/2 <= -b a
        # logit(k_lo / 2K); where k_lo >= 2K (a tiny strike) any x_lo does: the bound holds
        x_lo = log_k_lo - L - math.log1p(-math.exp(min(log_k_lo - L, -1.0)))
        return x_lo, x_hi
