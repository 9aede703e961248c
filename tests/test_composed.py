"""Compositions with continuous factors (refacct.engines.quadrature.composed, nested quadrature).

Oracles: the Balle-Wang closed form for Gaussian shift products (PLDs of Gaussian shift pairs
are Gaussian and add under composition); for Laplace the privacy-loss distribution derived
below, convolved by hand and integrated with mp.quad on smooth pieces; for discrete x
continuous products the finite sum over the discrete outcomes of continuous closed forms.
All oracles are evaluated at two precisions (conftest.oracle_agree)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

from refacct import Discrete, Gaussian, Laplace, Mixture, Pair, delta, epsilon, hockey_stick
from refacct.engines.quadrature.composed import hockey_composed

from conftest import (assert_verified, balle_wang, gaussian_H, laplace_H, masses, mpq,
                      oracle_agree, upper_tail)


# --- Gaussian: N(0, s^2)^k vs N(mu, s^2)^k ----------------------------------------------

def gaussian_k_oracle(mu, sigma, k, eps):
    """N(mu, s^2)^k || N(0, s^2)^k: the log-likelihood ratio sum_i (mu y_i - mu^2/2)/s^2
    depends on y only through sum_i y_i, which is N(k mu, k s^2) vs N(0, k s^2); so the pair
    is the one-step pair with shift m = mu sqrt(k) / s (docs/numerics.md, and the
    Gaussian-mechanism composition in 002 Sec. 3), whose delta is Balle-Wang (002 Prop. 3.1)."""
    def fn():
        m = mpq(mu) * mp.sqrt(k) / mpq(sigma)
        return balle_wang(mpq(eps), m)
    return oracle_agree(fn)


@pytest.mark.parametrize("eps", [0, "1/2", 2, -1, 25])
def test_gaussian_two_steps_balle_wang(eps):
    """k = 2, mu = sigma = 1: m = sqrt 2.  eps = 25 gives delta = 5.2e-66 < 1e-50."""
    oracle, oerr = gaussian_k_oracle(1, 1, 2, Fraction(eps))
    if Fraction(eps) == 25:
        assert oracle < mp.mpf(10) ** -50
    r = delta(Pair(Gaussian(1, 1), Gaussian(0, 1)) ** 2, eps)
    assert_verified(r, oracle, 20, oerr)


@pytest.mark.parametrize("mu, sigma, eps", [("1/2", "1/3", 3), (2, 3, "1/10")])
def test_gaussian_two_steps_other_scales(mu, sigma, eps):
    """Same closed form with m = mu sqrt(2) / sigma; the reverse direction (N(0)^2 || N(mu)^2)
    is the mirror image y -> mu - y of the same pair, with the same value."""
    oracle, oerr = gaussian_k_oracle(mu, sigma, 2, Fraction(eps))
    pair = Pair(Gaussian(mu, sigma), Gaussian(0, sigma))
    assert_verified(delta(pair ** 2, eps), oracle, 20, oerr)
    assert_verified(delta(pair.swap() ** 2, eps), oracle, 20, oerr)


def test_gaussian_two_steps_rational_alpha_h0_h1():
    """Rational alpha = 4/3 and 1/5; H_1 = TV = 1 - 2 T(m/2) with m = sqrt 2; H_0 = 1."""
    pair = Pair(Gaussian(1, 1), Gaussian(0, 1)) ** 2
    for alpha in ["4/3", "1/5"]:
        oracle, oerr = oracle_agree(lambda: gaussian_H(Fraction(alpha), mp.sqrt(2)))
        assert_verified(hockey_stick(pair, alpha=alpha), oracle, 20, oerr)
    tv, terr = oracle_agree(lambda: 1 - 2 * upper_tail(mp.sqrt(2) / 2))
    assert_verified(hockey_stick(pair, alpha=1), tv, 20, terr)
    h0 = hockey_stick(pair, alpha=0)
    assert h0.value == 1 and h0.abs_error <= mp.mpf(10) ** -20


@pytest.mark.slow
@pytest.mark.parametrize("eps", [30, 1])
def test_gaussian_three_steps_balle_wang(eps):
    """k = 3: m = sqrt 3.  eps = 30 gives delta = 3.7e-62 < 1e-50."""
    oracle, oerr = gaussian_k_oracle(1, 1, 3, Fraction(eps))
    if eps == 30:
        assert oracle < mp.mpf(10) ** -50
    r = delta(Pair(Gaussian(1, 1), Gaussian(0, 1)) ** 3, eps)
    assert_verified(r, oracle, 20, oerr)


# --- Laplace: the two-fold PLD by hand -------------------------------------------------------

def laplace_two_step_oracle(t, alpha):
    """H_alpha(Lap(mu, b)^2 || Lap(0, b)^2), t = mu / b, from the privacy-loss distribution.

    Under P = Lap(mu, b) the loss L(y) = (|y| - |y - mu|)/b is
      -t with probability a = P(Y <= 0) = e^{-t}/2,   +t with probability c = P(Y >= mu) = 1/2,
      and on (0, mu), u = (2y - mu)/b has density f(u) = (1/2b) e^{-(mu - y)/b} dy/du
      = (1/4) e^{(u - t)/2} on (-t, t)   (a + c + integral f = 1).
    H_alpha = E_P[(1 - alpha e^{-L})_+] (001 Sec. 2, after Definition 5), and the losses of
    independent steps add, so with phi(s) = (1 - alpha e^{-s})_+:
      H = a^2 phi(-2t) + 2ac phi(0) + c^2 phi(2t)
          + 2a int f(u) phi(u - t) du + 2c int f(u) phi(u + t) du + int g(s) phi(s) ds,
    g = f * f the density of U1 + U2: g(s) = (2t - |s|) e^{s/2 - t} / 16 on (-2t, 2t)
    (f(u) f(s - u) = e^{s/2 - t}/16 on an interval of length 2t - |s|).
    Each integral is split at the kink of phi (s = ln alpha) and of g (s = 0): mp.quad sees
    only exp-polynomial pieces."""
    T = mpq(t)
    A = mpq(alpha) if not isinstance(alpha, mp.mpf) else alpha
    la = mp.log(A) if A > 0 else -mp.inf
    a, c = mp.exp(-T) / 2, mp.mpf(1) / 2

    def phi(s):
        v = 1 - A * mp.exp(-s)
        return v if v > 0 else mp.zero

    def f(u):
        return mp.exp((u - T) / 2) / 4

    def g(s):
        return (2 * T - abs(s)) * mp.exp(s / 2 - T) / 16

    def integral(fn, lo, hi, kinks):
        pts = [lo] + sorted(k for k in kinks if lo < k < hi) + [hi]
        return mp.fsum(mp.quad(fn, [x0, x1]) for x0, x1 in zip(pts, pts[1:]))

    total = a * a * phi(-2 * T) + 2 * a * c * phi(mp.zero) + c * c * phi(2 * T)
    total += 2 * a * integral(lambda u: f(u) * phi(u - T), -T, T, [la + T])
    total += 2 * c * integral(lambda u: f(u) * phi(u + T), -T, T, [la - T])
    total += integral(lambda s: g(s) * phi(s), -2 * T, 2 * T, [la, mp.zero])
    return total


def test_laplace_pld_oracle_sanity():
    """The oracle itself: at alpha = 0 it gives total mass 1; for one step its single-loss
    part reproduces the one-step closed form (same PLD, checked at alpha = 1 and 3/2);
    for alpha >= e^{2t} it is 0 (maximal loss 2t)."""
    with mp.workdps(50):
        assert abs(laplace_two_step_oracle(1, 0) - 1) < mp.mpf(10) ** -45
        assert laplace_two_step_oracle(1, mp.exp(2) * (1 + mp.mpf(10) ** -30)) == 0
        T = mp.mpf(1)
        for alpha in (mp.one, mp.mpf(3) / 2):
            one = (mp.exp(-T) / 2 * max(1 - alpha * mp.exp(T), 0)
                   + max(1 - alpha * mp.exp(-T), 0) / 2
                   + mp.quad(lambda u: mp.exp((u - T) / 2) / 4 * max(1 - alpha * mp.exp(-u), 0),
                             [-T, mp.log(alpha), T]))
            assert abs(one - laplace_H(alpha, 1)) < mp.mpf(10) ** -45


@pytest.mark.parametrize("mu, b, eps", [
    (1, 1, "1/2"), (1, 1, 0), (1, 1, "3/2"), (1, 1, "-1/2"), ("1/2", "1/4", 1),
    (1, 1, "19/10"),
])
def test_laplace_two_steps_against_pld(mu, b, eps):
    """Lap(mu, b)^2 || Lap(0, b)^2 against laplace_two_step_oracle (2t = 2 is the maximal
    loss for mu = b; eps = 1.9 is close to it)."""
    t = Fraction(mu) / Fraction(b)
    oracle, oerr = oracle_agree(lambda: laplace_two_step_oracle(t, mp.exp(mpq(eps))), 40, 60)
    r = delta(Pair(Laplace(mu, b), Laplace(0, b)) ** 2, eps)
    assert_verified(r, oracle, 20, oerr)


@pytest.mark.parametrize("alpha", ["1/3", 1, "5/2"])
def test_laplace_two_steps_rational_alpha(alpha):
    oracle, oerr = oracle_agree(lambda: laplace_two_step_oracle(1, Fraction(alpha)), 40, 60)
    r = hockey_stick(Pair(Laplace(1, 1), Laplace(0, 1)) ** 2, alpha=alpha)
    assert_verified(r, oracle, 20, oerr)


def test_laplace_two_steps_beyond_max_loss():
    """delta(eps) = 0 for eps >= 2t: the loss of two steps is at most 2t."""
    for eps in [2, 3]:
        r = delta(Pair(Laplace(1, 1), Laplace(0, 1)) ** 2, eps)
        assert r.value == 0 and r.abs_error <= mp.mpf(10) ** -30


# --- mixed products: order invariance and closed forms -----------------------------------

G1 = Pair(Gaussian(1, 1), Gaussian(0, 1))
G2 = Pair(Gaussian(2, 3), Gaussian(0, 3))
L1 = Pair(Laplace(1, 1), Laplace(0, 1))


def gauss_product_oracle(eps):
    """N(1,1) x N(2,9) || N(0,1) x N(0,9): the losses are independent Gaussians (under P)
    N(m_i^2/2, m_i^2) with m_1 = 1, m_2 = 2/3; their sum is N(m^2/2, m^2) with
    m^2 = 1 + 4/9 = 13/9, the loss of the one-step shift pair with m = sqrt(13)/3."""
    return oracle_agree(lambda: balle_wang(mpq(eps), mp.sqrt(13) / 3))


def gauss_laplace_oracle(eps):
    """N(1,1) x Lap(1,1) || N(0,1) x Lap(0,1): conditioning on the Laplace loss l,
    E_G[(1 - e^{eps - l - G})_+] = BW(eps - l) (Balle-Wang with m = 1, valid for every real
    argument).  With the Laplace PLD above (atoms -1, +1 with masses e^{-1}/2, 1/2, density
    e^{(u-1)/2}/4 on (-1, 1)):  H = (e^{-1}/2) BW(eps + 1) + BW(eps - 1)/2
    + int_{-1}^{1} e^{(u-1)/2}/4 BW(eps - u) du   (smooth integrand: mp.quad)."""
    def fn():
        e = mpq(eps)
        bw = lambda x: balle_wang(x, mp.one)
        return (mp.exp(-1) / 2 * bw(e + 1) + bw(e - 1) / 2
                + mp.quad(lambda u: mp.exp((u - 1) / 2) / 4 * bw(e - u), [-1, 0, 1]))
    return oracle_agree(fn, 40, 60)


@pytest.mark.parametrize("eps", ["1/2", 2])
def test_gaussian_product_different_sigmas(eps):
    """Pair(P1,Q1) * Pair(P2,Q2) and the reversed product against the closed form; the two
    API objects are the same canonical Composition, so the low-level test below is what
    exercises the integration order."""
    oracle, oerr = gauss_product_oracle(Fraction(eps))
    a, b = G1 * G2, G2 * G1
    assert a == b
    assert_verified(delta(a, eps), oracle, 20, oerr)
    assert_verified(delta(b, eps), oracle, 20, oerr)


@pytest.mark.parametrize("eps", ["1/2", "5/2"])
def test_gaussian_laplace_product(eps):
    oracle, oerr = gauss_laplace_oracle(Fraction(eps))
    assert_verified(delta(G1 * L1, eps), oracle, 20, oerr)
    assert_verified(delta(L1 * G1, eps), oracle, 20, oerr)


@pytest.mark.parametrize("first, second, oracle_fn", [
    (G1, G2, gauss_product_oracle), (G2, G1, gauss_product_oracle),
    (G1, L1, gauss_laplace_oracle), (L1, G1, gauss_laplace_oracle),
], ids=["G1-G2", "G2-G1", "G1-L1", "L1-G1"])
def test_hockey_composed_both_integration_orders(first, second, oracle_fn):
    """refacct.engines.quadrature.composed.hockey_composed integrates over the *first* factor with the
    second in closed form; both orders must give the closed-form value at the working
    precision (35 digits here; the result is (value, truncation bound))."""
    oracle, oerr = oracle_fn(Fraction(1, 2))
    for rule in (0, 1):
        with mp.workdps(35):
            alpha = mp.exp(mp.mpf(1) / 2)
            value, bound = hockey_composed([first, second], alpha, None, rule)
        with mp.workdps(60):
            assert abs(value - oracle) <= oerr + bound + oracle * mp.mpf(10) ** -25


# --- discrete x continuous ---------------------------------------------------------------

D_P = Discrete({"a": "1/2", "b": "1/4", "c": "1/4"})
D_Q = Discrete({"a": "1/8", "b": "5/8", "d": "1/4"})   # q(c) = 0, p(d) = 0


def discrete_sum(alpha_fn, continuous_H):
    """H_alpha(D x C || D' x C') = sum_x integral (p(x) c(y) - alpha q(x) c'(y))_+ dy
    = sum_{p(x) > 0, q(x) > 0} p(x) H_{alpha q(x)/p(x)}(C || C') + sum_{q(x) = 0} p(x)
    (outcomes with p(x) = 0 contribute (-alpha q(x) c')_+ = 0)."""
    p, q = masses(D_P), masses(D_Q)
    total = mp.zero
    for x in set(p) | set(q):
        px, qx = p.get(x, Fraction(0)), q.get(x, Fraction(0))
        if px == 0:
            continue
        if qx == 0:
            total += mpq(px)
        else:
            total += mpq(px) * continuous_H(alpha_fn() * mpq(qx / px))
    return total


@pytest.mark.parametrize("eps", [0, "1/2", 2])
def test_discrete_times_gaussian(eps):
    """Against discrete_sum with the Balle-Wang continuous part (m = 1)."""
    oracle, oerr = oracle_agree(
        lambda: discrete_sum(lambda: mp.exp(mpq(eps)), lambda a: gaussian_H(a, mp.one)))
    for pair in (Pair(D_P, D_Q) * G1, G1 * Pair(D_P, D_Q)):
        assert_verified(delta(pair, eps), oracle, 20, oerr)


@pytest.mark.parametrize("alpha", ["1/2", "3/2", 4])
def test_discrete_times_laplace_rational_alpha(alpha):
    """Against discrete_sum with the Laplace one-step closed form (t = 1)."""
    oracle, oerr = oracle_agree(
        lambda: discrete_sum(lambda: mpq(alpha), lambda a: laplace_H(a, 1)))
    assert_verified(hockey_stick(Pair(D_P, D_Q) * L1, alpha=alpha), oracle, 20, oerr)


def test_discrete_times_gaussian_two_steps():
    """D x G1 x G1: the continuous part is the two-step Gaussian pair, m = sqrt 2."""
    eps = Fraction(1)
    oracle, oerr = oracle_agree(
        lambda: discrete_sum(lambda: mp.exp(mpq(eps)), lambda a: gaussian_H(a, mp.sqrt(2))))
    assert_verified(delta(Pair(D_P, D_Q) * G1 ** 2, eps), oracle, 20, oerr)


# --- symmetry identity at k = 2 ----------------------------------------------------------

@pytest.mark.parametrize("pair, alpha", [
    pytest.param(
        Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1)),
        "3/2", id="subsampled-gauss"),
    pytest.param(
        Pair(Mixture([("1/2", Gaussian(0, 1)), ("1/2", Gaussian(1, 1))]),
             Mixture([("1/2", Gaussian(0, 1)), ("1/2", Gaussian(-1, 1))])),
        "3/2", id="two-sided-gauss-mixtures"),
    pytest.param(
        Pair(Mixture([("9/10", Laplace(0, 1)), ("1/10", Laplace(1, 1))]), Laplace(0, 1)),
        "11/10", id="subsampled-laplace"),
    pytest.param(
        Pair(Mixture([("24/25", Gaussian(0, 1)), ("1/25", Gaussian(2, 1))]),
             Mixture([("24/25", Gaussian(0, 1)), ("1/25", Gaussian(-1, 1))])),
        3, id="truncated-poisson-zero-out-r2"),
])
def test_symmetry_identity_two_steps(pair, alpha):
    """H_alpha(P^2 || Q^2) = 1 - alpha + alpha H_{1/alpha}(Q^2 || P^2) (pointwise identity
    (p - alpha q)_+ = p - alpha q + alpha (q - p/alpha)_+ integrated over R^2), for the
    Poisson-subsampled pairs of 001 Sec. 5 (add direction vs remove direction), and 004
    Thm 3.3's r = 2 zero-out pair (a 1/25 mixture against a 1/25 mixture: the inner H bends
    over a loss interval ~ 0.03 wide; 6 verified digits before the graded cuts of
    ``engines.quadrature.composed._feature_cuts``)."""
    a = Fraction(alpha)
    lhs = hockey_stick(pair ** 2, alpha=a)
    rhs = hockey_stick(pair.swap() ** 2, alpha=1 / a)
    with mp.workdps(60):
        other = 1 - mpq(a) + mpq(a) * rhs.value
        assert abs(lhs.value - other) <= lhs.abs_error + mpq(a) * rhs.abs_error
    assert lhs.verified_digits >= 20 and rhs.verified_digits >= 20


def _substitution_inner(b, g):
    """H_b(M || M') in closed form, M = (1-g) N(0,1) + g N(1,1), M' = (1-g) N(0,1) + g N(-1,1):
    p - b q = phi(y) [g e^{-1/2} u - b g e^{-1/2} / u + (1-g)(1-b)], u = e^y, is positive
    beyond the one positive root u* of g e^{-1/2} u^2 + (1-g)(1-b) u - b g e^{-1/2}
    (the product of the roots is negative)."""
    a, c = g * mp.exp(-mp.mpf(1) / 2), (1 - g) * (1 - b)
    u = (-c + mp.sqrt(c * c + 4 * a * a * b)) / (2 * a)
    y = mp.log(u)
    return ((1 - g) * upper_tail(y) + g * upper_tail(y - 1)
            - b * ((1 - g) * upper_tail(y) + g * upper_tail(y + 1)))


def test_mixture_vs_mixture_two_steps_reach_twenty_digits():
    """Poisson substitution (mixture vs mixture, q = 1/10), two steps, delta(1): the inner H
    bends over the narrow loss interval where the bulk N(0,1) lies (L' ~ 0.1 there), about
    0.1 wide in the outer variable near y ~ 3 (21 verified digits after three
    attempts).  Oracle: tanh-sinh over y of p(y) H_{alpha q(y)/p(y)} with the inner H in
    closed form (``_substitution_inner``), split on a lattice of step 1/20 around the bend."""
    g = Fraction(1, 10)
    M = lambda c: Mixture([(1 - g, Gaussian(0, 1)), (g, Gaussian(c, 1))])  # noqa: E731
    r = delta(Pair(M(1), M(-1)) ** 2, 1)

    def fn():
        gg, alpha = mpq(g), mp.e
        p = lambda y: (1 - gg) * mp.npdf(y) + gg * mp.npdf(y, 1)  # noqa: E731
        q = lambda y: (1 - gg) * mp.npdf(y) + gg * mp.npdf(y, -1)  # noqa: E731
        cuts = [-mp.inf, -10] + [mpq(j) / 20 for j in range(0, 121)] + [12, mp.inf]
        return mp.quad(lambda y: p(y) * _substitution_inner(alpha * q(y) / p(y), gg), cuts)

    oracle, oerr = oracle_agree(fn, 30, 40)
    assert_verified(r, oracle, 20, oerr + mp.mpf(10) ** -28)


def test_subsampled_gaussian_two_steps_against_nested_quad():
    """P = (9/10) N(0,1) + (1/10) N(1,1), Q = N(0,1), two steps at alpha = 3/2, against
    int p(y) H_{alpha q(y)/p(y)}(P || Q) dy with the inner H in closed form
    (test_onestep.test_subsampled_gaussian_closed_form: crossing
    y*(b) = ln((b - 9/10) / (1/10)) + 1/2, H_b = 1 - b for b <= 9/10) and mp.quad outside;
    the inner H is not analytic where alpha q/p = 9/10, i.e. at p/q = 5/3, the breakpoint
    y = ln((5/3 - 9/10) * 10) + 1/2.  A second formulation (integrating over Q with the
    reverse-direction inner closed form, via the symmetry identity) agrees to 30 digits:
    0.0071486236409218338971790735188701...  (An earlier version of this oracle built
    g = 1/10 at 15 digits outside the working precision and was wrong in the 17th digit.)"""

    def inner(b):
        g = mp.mpf(1) / 10
        if b <= 1 - g:
            return 1 - b
        y = mp.log((b - 1 + g) / g) + mp.mpf(1) / 2
        return (1 - g) * upper_tail(y) + g * upper_tail(y - 1) - b * upper_tail(y)

    def fn():
        g = mp.mpf(1) / 10
        a = mpq("3/2")
        dens = lambda y: mp.npdf(y)
        p = lambda y: (1 - g) * dens(y) + g * dens(y - 1)
        kink = mp.log((mpq("5/3") - 1 + g) / g) + mp.mpf(1) / 2
        pts = [-mp.inf, -10, -5, 0, kink, 5, 10, mp.inf]
        return mp.quad(lambda y: p(y) * inner(a * dens(y) / p(y)), pts)

    oracle, oerr = oracle_agree(fn, 35, 50)
    P = Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))])
    r = hockey_stick(Pair(P, Gaussian(0, 1)) ** 2, alpha="3/2")
    assert_verified(r, oracle, 20, oerr + mp.mpf(10) ** -30)


# --- epsilon for discrete x continuous products -------------------------------------------

def _invert(d, target, lo, hi):
    """Root of the decreasing d(eps) = target on [lo, hi] by bracketing (Illinois) on
    log d - log target; run inside mp.workdps."""
    f = lambda e: mp.log(d(e)) - mp.log(mpq(target))
    return mp.findroot(f, (mpq(lo), mpq(hi)), solver="illinois")


def test_epsilon_discrete_times_laplace():
    """D x Lap: delta(eps) = discrete_sum with the Laplace closed form (t = 1).
    * The q = 0 outcome c carries P-mass 1/4 = lim delta(eps): eps(1/5) = +inf.
    * The largest finite loss is ln 4 (outcome a, ratio (1/2)/(1/8)) + t = ln 4 + 1; from
      there on delta(eps) = 1/4, so eps(1/4) = ln 4 + 1.
    * eps(1/2) = 1 exactly: at eps = 1, a contributes (1/2) H_{e/4}(Lap) =
      (1/2)(1 - sqrt(e/4 * e^-1)) = 1/4, b (ratio 2/5) contributes H_{5e/2} = 0 (5e/2 > e),
      c contributes 1/4: total 1/2, and delta is strictly decreasing there.
    * eps(3/10) by inverting the closed form numerically."""
    pair = Pair(D_P, D_Q) * L1
    r = epsilon(pair, "1/5")
    assert mp.isinf(r.value) and r.value > 0
    with mp.workdps(60):
        d = lambda e: discrete_sum(lambda: mp.exp(e), lambda a: laplace_H(a, 1))
        checks = [("1/4", mp.log(4) + 1, mp.mpf(10) ** -50), ("1/2", mp.one, mp.mpf(10) ** -50),
                  ("3/10", _invert(d, Fraction(3, 10), Fraction(3, 2), Fraction(7, 3)),
                   mp.mpf(10) ** -40)]
        for target, oracle, oerr in checks:
            res = epsilon(pair, target)
            assert_verified(res, oracle, 20, oerr)


def test_epsilon_discrete_times_gaussian():
    """D x N: lim delta(eps) = 1/4 is never attained (the Gaussian loss is unbounded), so
    eps(1/4) = +inf as well as eps(1/5); eps(3/10) inverts the Balle-Wang sum."""
    pair = Pair(D_P, D_Q) * G1
    for target in ["1/5", "1/4"]:
        r = epsilon(pair, target)
        assert mp.isinf(r.value) and r.value > 0
    with mp.workdps(60):
        d = lambda e: discrete_sum(lambda: mp.exp(e), lambda a: gaussian_H(a, mp.one))
        oracle = _invert(d, Fraction(3, 10), 1, 5)
        assert_verified(epsilon(pair, "3/10"), oracle, 20, mp.mpf(10) ** -40)


def test_below_the_least_loss_h_is_one_minus_alpha():
    """P = (9/10) N(0,1) + (1/10) N(1,1), Q = N(0,1): p/q = 9/10 + (1/10) e^{y - 1/2} > 9/10
    pointwise, so for the two-fold product p1 p2 > (81/100) q1 q2 everywhere and, for
    alpha <= 81/100, (p - alpha q)_+ = p - alpha q: H_alpha = 1 - alpha exactly.  Just above
    81/100, p < alpha q on a set of positive mass, so H_alpha > 1 - alpha strictly
    (H_alpha - (1 - alpha) = integral (alpha q - p)_+ > 0)."""
    sub = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
    for alpha in ["1/2", "4/5", "81/100"]:
        r = hockey_stick(sub ** 2, alpha=alpha)
        with mp.workdps(40):
            assert abs(r.value - (1 - mpq(alpha))) <= r.abs_error + mp.mpf(10) ** -35
    r = hockey_stick(sub ** 2, alpha="41/50")
    with mp.workdps(40):
        assert r.value - r.abs_error > 1 - mpq("41/50")


def test_add_direction_is_zero_beyond_the_largest_loss():
    """Add direction of the Poisson-subsampled Gaussian: P = N(0,1), Q = (9/10) N(0,1) +
    (1/10) N(1,1), so p/q = 1 / (9/10 + (1/10) e^{y - 1/2}) < 10/9 pointwise and the k-fold
    loss is < k ln(10/9): H_alpha = 0 exactly for alpha >= (10/9)^k; just below, p > alpha q
    on a set of positive mass, so H > 0.  At alpha = (10/9)^2 itself the engine may not
    decide ln alpha >= sup exactly in floating point; it must then return 0 with a
    negligible bound."""
    add = Pair(Gaussian(0, 1),
               Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]))
    r = hockey_stick(add ** 2, alpha="5/4")
    assert r.value == 0 and r.abs_error == 0
    r = hockey_stick(add ** 2, alpha="100/81")
    assert r.value == 0 and r.abs_error <= mp.mpf(10) ** -300
    r = hockey_stick(add ** 2, alpha="6/5")
    assert r.value - r.abs_error > 0


@pytest.mark.slow
def test_subsampled_gaussian_three_steps_symmetry():
    """k = 3 of the Poisson-subsampled Gaussian (001 Sec. 5 / Thm 10.1 pair, q = 1/10):
    H_alpha(P^3 || Q^3) = 1 - alpha + alpha H_{1/alpha}(Q^3 || P^3).  The two sides run
    through different losses (the transform's, routed at three steps): the remove
    direction's has a finite infimum, the add direction's a finite supremum, and the
    right side's eps = ln(2/3) is negative."""
    pair = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
    a = Fraction(3, 2)
    lhs = hockey_stick(pair ** 3, alpha=a, digits=12)
    rhs = hockey_stick(pair.swap() ** 3, alpha=1 / a, digits=12)
    assert lhs.verified_digits >= 12 and rhs.verified_digits >= 12
    with mp.workdps(60):
        other = 1 - mpq(a) + mpq(a) * rhs.value
        assert abs(lhs.value - other) <= lhs.abs_error + mpq(a) * rhs.abs_error


def _scaled_gaussians_H(a):
    """H_a(N(0, 2^2) || N(1, (1/2)^2)) in closed form: ln p - ln q - ln a is the quadratic
    (15/8) y^2 - 4 y + 2 - ln 4 - ln a, positive outside its roots r1 < r2 (everywhere when
    it has none), so H = P(outside) - a Q(outside)."""
    A, B, C = mpq("15/8"), mpq(-4), 2 - mp.log(4) - mp.log(a)
    disc = B * B - 4 * A * C
    if disc <= 0:
        return 1 - a
    r1, r2 = (-B - mp.sqrt(disc)) / (2 * A), (-B + mp.sqrt(disc)) / (2 * A)
    inside_p = mp.ncdf(r2, 0, 2) - mp.ncdf(r1, 0, 2)
    inside_q = mp.ncdf(r2, 1, mpq("1/2")) - mp.ncdf(r1, 1, mpq("1/2"))
    return (1 - inside_p) - a * (1 - inside_q)


def test_two_steps_of_gaussians_of_different_scales_reach_twenty_digits():
    """N(0, 2^2) vs N(1, (1/2)^2) composed twice (mixed scales stalled at 5
    verified digits, since their loss's extremum placed no breakpoint): 20 digits against
    mpmath's tanh-sinh quadrature of p(y) H_{alpha q(y)/p(y)} over y, split where the inner
    alpha' reaches the minimum exp(2 - ln 4 - 32/15) of the one-step ratio."""
    r = delta(Pair(Gaussian(0, 2), Gaussian(1, "1/2")) ** 2, "1/2")
    assert r.verified_digits >= 20
    with mp.workdps(40):
        alpha, peak = mp.exp(mpq("1/2")), mp.exp(2 - mp.log(4) - mpq(32) / 15)
        p, q = (lambda y: mp.npdf(y, 0, 2)), (lambda y: mp.npdf(y, 1, mpq("1/2")))
        # alpha q / p = peak: (15/8) y^2 - 4 y + 2 - ln 4 + ln(peak / alpha) = 0
        A, B, C = mpq("15/8"), mpq(-4), 2 - mp.log(4) + mp.log(peak / alpha)
        d = mp.sqrt(B * B - 4 * A * C)
        cuts = [-mp.inf, (-B - d) / (2 * A), (-B + d) / (2 * A), mp.inf]
        truth = mp.quad(lambda y: p(y) * _scaled_gaussians_H(alpha * q(y) / p(y)), cuts)
        assert abs(r.value - truth) <= r.abs_error + mp.mpf(10) ** -30


def _gauss_laplace_H(b):
    """H_b(N(0, 1) || Lap(0, 3)) in closed form: the loss L(y) = -y^2/2 + |y|/3 + L0, L0 =
    ln 6 - ln(2 pi)/2, exceeds ln b on y >= 0 between the roots 1/3 -+ sqrt(1/9 + 2 (L0 -
    ln b)) (from 0 when the smaller one is negative), and symmetrically on y < 0."""
    disc = mpq("1/9") + 2 * (mp.log(6) - mp.log(2 * mp.pi) / 2 - mp.log(b))
    if disc <= 0:
        return mp.zero
    r1, r2 = max(mpq("1/3") - mp.sqrt(disc), mp.zero), mpq("1/3") + mp.sqrt(disc)
    return 2 * (mp.ncdf(r2) - mp.ncdf(r1)) - b * (mp.exp(-r1 / 3) - mp.exp(-r2 / 3))


def test_two_steps_of_gaussian_against_laplace_reach_twenty_digits():
    """N(0, 1) vs Lap(0, 3) composed twice, delta(1/2): the outer variable reaches the
    inner loss's corner L0 at y = 1.9465 and its smooth maximum L0 + 1/18 at y = 1.9806, so
    the piece before the corner ended 0.034 short of a branch point (14 verified digits
    whatever was asked, before the graded cuts of ``composed._graded_away``).  Oracle:
    tanh-sinh over y of p(y) H_{alpha q(y)/p(y)} with the inner H in closed form
    (``_gauss_laplace_H``), split at 0 and where alpha q / p reaches e^{L0}, e^{L0 + 1/18}."""
    r = delta(Pair(Gaussian(0, 1), Laplace(0, 3)) ** 2, "1/2")
    assert r.verified_digits >= 20
    with mp.workdps(40):
        alpha, l0 = mp.exp(mpq("1/2")), mp.log(6) - mp.log(2 * mp.pi) / 2
        p = lambda y: mp.npdf(y)  # noqa: E731
        q = lambda y: mp.exp(-abs(y) / 3) / 6  # noqa: E731
        cuts = {mp.zero}
        for c in (l0, l0 + mpq("1/18")):   # alpha q / p = e^c: L(y) = 1/2 - c
            disc = mpq("1/9") + 2 * (l0 - mpq("1/2") + c)
            cuts |= {s * y for s in (-1, 1) for y in (mpq("1/3") - mp.sqrt(disc),
                                                     mpq("1/3") + mp.sqrt(disc)) if y > 0}
        cuts = [-mp.inf] + sorted(cuts) + [mp.inf]
        truth = mp.quad(lambda y: p(y) * _gauss_laplace_H(alpha * q(y) / p(y)), cuts)
        assert abs(r.value - truth) <= r.abs_error + mp.mpf(10) ** -30
