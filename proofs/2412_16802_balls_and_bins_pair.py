"""Random allocation (balls-and-bins) of one record among t steps, the Gaussian mechanism
with noise sigma, add-remove: the pair of Chua et al., "Balls-and-Bins Sampling for DP-SGD"
(AISTATS 2025, arXiv 2412.16802), which the paper shows to be a tightly dominating pair of
ABLQ_B for one epoch,

    P = (1/t) sum_i N(e_i, sigma^2 I_t)      against      Q = N(0, sigma^2 I_t),

is a one-dimensional problem whatever t is.  Each step done here:

1. its likelihood ratio is r(w) = p(w)/q(w) = (1/t) sum_i X_i with X_i = e^{(w_i - 1/2)/sigma^2}
   (sympy, t = 3), and under Q the X_i are independent lognormals, ln X_i ~ N(-v/2, v) with
   v = 1/sigma^2, and E_Q[X_i] = 1 (sympy);
2. so H_a(P || Q) = E_Q[(r - a)_+] and H_a(Q || P) = E_Q[(1 - a r)_+]: for t = 1 the first is
   the lognormal call E[(X - a)_+] = Phi(d1) - a Phi(d2), d1 = (v/2 - ln a)/sqrt v,
   d2 = d1 - sqrt v, which is Balle and Wang's delta(eps) of N(1, sigma^2) vs N(0, sigma^2)
   (002 Prop. 3.1; sympy at a = e^eps);
3. for t = 2 conditioning on X_1 leaves one integral of the call (and of the put for the
   other order), evaluated here by mpmath's tanh-sinh quadrature at 40 digits, split where
   the strike 2a - X_1 (resp. 2/a - X_1) crosses 0;
4. the same two values by a route that shares nothing with step 3: rotating w by
   u = (w_1 + w_2)/sqrt 2, d = (w_1 - w_2)/sqrt 2 factors the pair into a product of two
   one-dimensional pairs, N(1/sqrt 2, sigma^2) vs N(0, sigma^2) and the mixture
   (1/2) N(1/sqrt 2, sigma^2) + (1/2) N(-1/sqrt 2, sigma^2) vs N(0, sigma^2); scaled by sqrt 2
   (s = sigma sqrt 2, rational here) that is a composition refacct answers by its verified
   engines (nested quadrature of Gaussian mixtures): both orders, several eps and s, must
   agree within refacct's error bound plus 1e-30;
5. in the same coordinates the moments of an epoch factor, E[X^a] = e^{b^2 (a^2 - 2a)/4}
   E[cosh(b V / sqrt 2)^a] (sympy at the integers a = 0 .. 6).

What is not checked here: that the pair dominates ABLQ_B (the paper's theorem), and the
pairs of more than one allocation per epoch or of several epochs (one epoch composed E
times is the composition of E such pairs, by the composition of dominating pairs).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp
from mpmath import mp

from _common import claim, done, shown
from refacct import Gaussian, Mixture, Pair, delta
from refacct.pairs import Composition


def likelihood_ratio() -> None:
    """Step 1, symbolically."""
    t = 3
    sigma = sp.symbols("sigma", positive=True)
    w = sp.symbols(f"w1:{t + 1}", real=True)
    q = sp.exp(-sum(x ** 2 for x in w) / (2 * sigma ** 2))
    p = sum(sp.exp(-sum((x - (1 if j == i else 0)) ** 2 for j, x in enumerate(w))
                   / (2 * sigma ** 2)) for i in range(t)) / t
    ratio = sum(sp.exp((x - sp.Rational(1, 2)) / sigma ** 2) for x in w) / t
    claim(sp.simplify(sp.expand(p / q - ratio)) == 0,
          "p/q = (1/t) sum_i exp((w_i - 1/2)/sigma^2) for t = 3",
          "sympy: the difference of the two expressions simplifies to 0 (common factors of "
          "the densities cancel)")
    y = sp.symbols("y", real=True)
    exponent = sp.expand((y - sp.Rational(1, 2)) / sigma ** 2 - y ** 2 / (2 * sigma ** 2))
    mean = sp.integrate(sp.exp(exponent), (y, -sp.oo, sp.oo), conds="none") \
        / (sigma * sp.sqrt(2 * sp.pi))
    claim(sp.simplify(mean - 1) == 0, "E_Q[X_i] = 1, ln X_i = (w_i - 1/2)/sigma^2 ~ "
          "N(-1/(2 sigma^2), 1/sigma^2)", "sympy: the Gaussian integral")


def call_is_balle_wang() -> None:
    """Step 2: the lognormal call at a = e^eps is Balle-Wang's delta of one step."""
    sigma, eps = sp.symbols("sigma", positive=True), sp.symbols("epsilon", real=True)
    v = 1 / sigma ** 2
    d1 = (v / 2 - eps) / sp.sqrt(v)
    d2 = d1 - sp.sqrt(v)
    Phi = lambda x: (1 + sp.erf(x / sp.sqrt(2))) / 2  # noqa: E731
    call = Phi(d1) - sp.exp(eps) * Phi(d2)
    balle_wang = Phi(1 / (2 * sigma) - sigma * eps) - sp.exp(eps) * Phi(-1 / (2 * sigma)
                                                                         - sigma * eps)
    claim(sp.simplify(call - balle_wang) == 0,
          "t = 1: E_Q[(X - e^eps)_+] = Phi(1/(2 sigma) - sigma eps) - e^eps Phi(-1/(2 sigma) "
          "- sigma eps), Balle-Wang's N(1, sigma^2) vs N(0, sigma^2)",
          "sympy: d1 = 1/(2 sigma) - sigma eps, d2 = -1/(2 sigma) - sigma eps")


def _lognormal(v):
    """(density of z = ln X, call C(K), put P(K)) for ln X ~ N(-v/2, v)."""
    sd = mp.sqrt(v)

    def density(z):
        return mp.npdf(z, -v / 2, sd)

    def d(K):
        d1 = (v / 2 - mp.log(K)) / sd
        return d1, d1 - sd

    def call(K):
        if K <= 0:
            return 1 - K
        d1, d2 = d(K)
        return mp.ncdf(d1) - K * mp.ncdf(d2)

    def put(K):
        if K <= 0:
            return mp.zero
        d1, d2 = d(K)
        return K * mp.ncdf(-d2) - mp.ncdf(-d1)
    return density, call, put


def two_steps_by_the_call(s: Fraction, eps: Fraction):
    """Step 3: (H(P || Q), H(Q || P)) at a = e^eps for t = 2, sigma = s / sqrt 2."""
    v = 2 * mp.mpf(s.denominator) ** 2 / s.numerator ** 2    # 1 / sigma^2
    density, call, put = _lognormal(v)
    a = mp.exp(mp.mpf(eps.numerator) / eps.denominator)
    edge = mp.log(2 * a)                        # X_1 = 2a: the strike 2a - X_1 is 0
    forward = mp.quad(lambda z: density(z) * call(2 * a - mp.exp(z)), [-mp.inf, edge - 2, edge]) \
        + mp.quad(lambda z: density(z) * (1 - 2 * a + mp.exp(z)), [edge, edge + 2, mp.inf])
    back = mp.log(2 / a)                        # X_1 = 2/a: the put's strike is 0 beyond
    reverse = mp.quad(lambda z: density(z) * put(2 / a - mp.exp(z)), [-mp.inf, back - 2, back])
    return forward / 2, a * reverse / 2


def rotated_pairs(s: Fraction):
    """Step 4: the product of the rotated, scaled pair, in both orders."""
    shift = Pair(Gaussian(1, s), Gaussian(0, s))
    mixed = Pair(Mixture([(Fraction(1, 2), Gaussian(1, s)), (Fraction(1, 2), Gaussian(-1, s))]),
                 Gaussian(0, s))
    return Composition.of(shift, mixed), Composition.of(shift.swap(), mixed.swap())


def two_steps() -> None:
    for s in (Fraction(1), Fraction(3, 2)):
        forward_pair, reverse_pair = rotated_pairs(s)
        for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
            with mp.workdps(40):
                by_call = two_steps_by_the_call(s, eps)
            for name, pair, value in (("H(P || Q)", forward_pair, by_call[0]),
                                      ("H(Q || P)", reverse_pair, by_call[1])):
                r = delta(pair, eps, digits=20)
                with mp.workdps(40):
                    ok = abs(r.value - value) <= r.abs_error + mp.mpf(10) ** -30
                claim(ok, f"t = 2, sigma = {s}/sqrt 2, eps = {eps}: {name} = "
                      f"{mp.nstr(value, 20)} by the call, {shown(r, 20)} by the rotated pair",
                      "mpmath tanh-sinh at 40 digits against refacct's verified composition")


def two_step_moments() -> None:
    """Step 5: the moments of one epoch of two steps factor as a Gaussian part times a
    cosh part, E[X^a] = e^{b^2 (a^2 - 2a) / 4} E[cosh(b V / sqrt 2)^a] (b = 1/sigma, V
    standard normal), what ``engines.allocation.halves`` computes; symbolically at the
    integer a = 0 .. 6, both sides expanded into exponentials: the left from E[Z^j] =
    e^{b^2 j (j - 1) / 2} of the lognormals Z, the right from cosh^a as a binomial sum and
    E[e^{m V}] = e^{m^2 / 2}."""
    b = sp.symbols("b", positive=True)
    for a in range(7):
        left = sum(sp.binomial(a, k) * sp.exp(b ** 2 * (k * (k - 1) + (a - k) * (a - k - 1)) / 2)
                   for k in range(a + 1)) / 2 ** a
        right = sp.exp(b ** 2 * (a ** 2 - 2 * a) / 4) * sum(
            sp.binomial(a, k) * sp.exp((b * (2 * k - a) / sp.sqrt(2)) ** 2 / 2)
            for k in range(a + 1)) / 2 ** a
        claim(sp.simplify(sp.expand(left - right)) == 0,
              f"t = 2, a = {a}: E[X^a] = e^(b^2 (a^2 - 2a)/4) E[cosh(b V / sqrt 2)^a]",
              "sympy: both sides as sums of exponentials in b^2")


if __name__ == "__main__":
    likelihood_ratio()
    call_is_balle_wang()
    two_steps()
    two_step_moments()
    done()
