"""ABLQ_S (refacct.shuffle): the E_C bound of 002 eq. (7) maximised over real C,
its eps version, and H(P_S || Q_S) of 002 eqs. (1)-(2) for T <= 3.

Oracles, none of them computed by the module under test:

* E(C) from its definition, P_S(E_C) - e^eps Q_S(E_C): for T = 2 the integral of p - e^eps q
  over the complement (-inf, C)^2 by two-dimensional mp.quad; for large T the product
  formula of 002 Sec. 4.3 with Phi itself integrated by mp.quad.
* The paper's maximisation: E(C) in the textbook CDF form (mp.ncdf, 60 digits) on the grid
  C = 0, 0.01, ..., 99.99 of 002 Sec. 4.3, refined by golden section where an eps root needs it.
* T = 1: P_S = N(2, s^2), Q_S = N(1, s^2), whose delta is Balle-Wang (002 Prop. 3.1).
* T = 2, 3: H(P_S || Q_S) integrated in the original coordinates w: w_1 in closed form over
  {p > e^eps q}, which for fixed other coordinates is the outside of the roots of a
  quadratic in e^(w_1 / s^2), and the other coordinates by tanh-sinh on (-inf, inf) with
  breakpoints where that region changes shape.  The module instead rotates to the direction
  of 1, integrates a half-line in closed form and the hyperplane by Gauss-Legendre.

How far eq. (7) is from the truth at small T (max_C E vs H(P_S || Q_S), not asserted):
T = 2: 0.5093460 vs 0.5093678 (sigma = 1/2, eps = 1), 0.2206866 vs 0.2212685 (sigma = 1,
eps = 1/2), 4.61233e-5 vs 4.61490e-5 (sigma = 1, eps = 4); T = 3: 0.2067908 vs 0.2076044
(sigma = 1, eps = 1/2), 0.5088357 vs 0.5088784 (sigma = 1/2, eps = 1), 4.51604e-5 vs
4.52091e-5 (sigma = 1, eps = 4).  E_C loses at most 0.4 % there.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

from refacct.shuffle import (shuffle_event_bound, shuffle_exact, shuffle_lower_bound,
                             shuffle_lower_bound_epsilon)

from conftest import assert_verified, balle_wang, mpq, oracle_agree


# --- oracles -------------------------------------------------------------------------------

def phi(x, s):
    """N(0, s^2) density."""
    return mp.exp(-(x / s) ** 2 / 2) / (s * mp.sqrt(2 * mp.pi))


def cdf_by_quad(x):
    """Phi(x) = 1/2 + int_0^x phi, by mp.quad (no erfc)."""
    return mp.mpf(1) / 2 + mp.quad(lambda y: phi(y, 1), [0, x])


def event_naive(C, s, T, eps, cdf=mp.ncdf):
    """002 Sec. 4.3: P_S(E_C) - e^eps Q_S(E_C) with P_S(E_C) = 1 - Phi((C-2)/s) Phi(C/s)^(T-1)
    and Q_S(E_C) = 1 - Phi((C-1)/s) Phi(C/s)^(T-1), exactly as printed."""
    g = cdf(C / s) ** (T - 1)
    return (1 - cdf((C - 2) / s) * g) - mp.exp(eps) * (1 - cdf((C - 1) / s) * g)


def event_2d(C, s, eps):
    """T = 2: (1 - e^eps) - int over (-inf, C)^2 of p - e^eps q, p and q the densities of
    eqs. (1)-(2), by two-dimensional Gauss-Legendre (the integrand is analytic) on
    [-12 - 12 s, C]^2 cut at the means; the mass below -12 - 12 s, < 1e-32 (times e^eps),
    is left out."""
    a = mp.exp(eps)

    def f(w1, w2):
        p = (phi(w1 - 2, s) * phi(w2, s) + phi(w1, s) * phi(w2 - 2, s)) / 2
        q = (phi(w1 - 1, s) * phi(w2, s) + phi(w1, s) * phi(w2 - 1, s)) / 2
        return p - a * q
    cuts = [-12 - 12 * s] + [mp.mpf(x) for x in (-6, -3, 0, 1, 2) if x < C] + [C]
    return (1 - a) - mp.quad(f, cuts, cuts, method="gauss-legendre")


def grid_max(s, T, eps):
    """The paper's maximisation (002 Sec. 4.3): max of event_naive over C = k / 100,
    k = 0 .. 9999; returns (value, C)."""
    return max((event_naive(mp.mpf(k) / 100, s, T, eps), Fraction(k, 100)) for k in range(10000))


def refined_max(s, T, eps):
    """grid_max, then golden section on [C_k - 0.01, C_k + 0.01] (80 steps)."""
    _, c = grid_max(s, T, eps)
    lo, hi = mpq(c) - mp.mpf(1) / 100, mpq(c) + mp.mpf(1) / 100
    r = (mp.sqrt(5) - 1) / 2
    for _ in range(80):
        m1, m2 = hi - r * (hi - lo), lo + r * (hi - lo)
        if event_naive(m1, s, T, eps) > event_naive(m2, s, T, eps):
            hi = m2
        else:
            lo = m1
    return event_naive((lo + hi) / 2, s, T, eps)


def _outside_mass(k, lo, hi, s):
    """N(k, s^2) mass of (-inf, lo) u (hi, inf); lo = None for the empty left part."""
    left = mp.ncdf((lo - k) / s) if lo is not None else 0
    return left + mp.ncdf(-(hi - k) / s)


def _region(s, alpha, c0):
    """w_1-masses of {p > alpha q} for the three means: p - alpha q is phi_s(w_1) times
    e^(-2/s^2) y^2 - alpha e^(-1/(2 s^2)) y + c0, y = e^(w_1/s^2), c0 the rest; outside its
    roots (all of R when there are none)."""
    a, b = mp.exp(-2 / s**2), mp.exp(-1 / (2 * s**2))
    disc = alpha**2 * b**2 - 4 * a * c0
    if disc <= 0:
        return [mp.one] * 3
    y_hi, y_lo = (alpha * b + mp.sqrt(disc)) / (2 * a), (alpha * b - mp.sqrt(disc)) / (2 * a)
    lo = s**2 * mp.log(y_lo) if y_lo > 0 else None
    return [_outside_mass(k, lo, s**2 * mp.log(y_hi), s) for k in range(3)]


def _cuts(extra):
    """-inf, the means 0, 1, 2, inf, and the breakpoints ``extra``."""
    return sorted(set([-mp.inf, mp.zero, mp.one, mp.mpf(2), mp.inf] + extra))


def exact_T2(s, eps):
    """H(P_S || Q_S), T = 2, in the coordinates w: the w_1 integral over {p > alpha q} of
    p - alpha q = (1/2)[phi(w_1-2) phi(w_2) + phi(w_1) phi(w_2-2)] - (alpha/2)[...] in closed
    form, then w_2 by tanh-sinh with breakpoints at z_2 = 2m and (1 + sqrt 2) m."""
    alpha = mp.exp(eps)
    m = alpha * mp.exp(-1 / (2 * s**2)) / (2 * mp.exp(-2 / s**2))

    def inner(w2):
        z = mp.exp(w2 / s**2)
        c0 = mp.exp(-2 / s**2) * z * z - alpha * mp.exp(-1 / (2 * s**2)) * z
        m0, m1, m2 = _region(s, alpha, c0)
        return (phi(w2, s) * (m2 - alpha * m1)
                + (phi(w2 - 2, s) - alpha * phi(w2 - 1, s)) * m0) / 2
    return mp.quad(inner, _cuts([s**2 * mp.log(c * m) for c in (2, 1 + mp.sqrt(2))]))


def exact_T3(s, eps):
    """H(P_S || Q_S), T = 3, likewise: w_1 in closed form, then 2 x the integral over
    w_2 >= w_3 (the densities are symmetric in w_2, w_3) by nested tanh-sinh on
    [-10 s, 2 + 10 s] (the mass outside, < 1e-22, is far below the 8 digits checked), with
    breakpoints where the circles (z_2 - m)^2 + (z_3 - m)^2 = 3 m^2 and 2 m^2 (the shape
    changes of the w_1 region) meet the line of w_3 or the diagonal."""
    alpha = mp.exp(eps)
    a, b = mp.exp(-2 / s**2), mp.exp(-1 / (2 * s**2))
    m = alpha * b / (2 * a)
    lo, hi = -10 * s, 2 + 10 * s

    def inner(w2, w3):
        z2, z3 = mp.exp(w2 / s**2), mp.exp(w3 / s**2)
        m0, m1, m2 = _region(s, alpha, a * (z2**2 + z3**2) - alpha * b * (z2 + z3))
        p2, p3 = phi(w2, s), phi(w3, s)
        return (p2 * p3 * (m2 - alpha * m1)
                + (phi(w2 - 2, s) * p3 + p2 * phi(w3 - 2, s)
                   - alpha * (phi(w2 - 1, s) * p3 + p2 * phi(w3 - 1, s))) * m0) / 3

    def over_w2(w3):
        z3, cuts = mp.exp(w3 / s**2), []
        for r2 in (3 * m**2, 2 * m**2):
            if r2 > (z3 - m) ** 2:
                root = mp.sqrt(r2 - (z3 - m) ** 2)
                cuts += [s**2 * mp.log(z) for z in (m - root, m + root) if z > 0]
        pts = sorted(set([w3, hi] + [x for x in cuts if w3 < x < hi]))
        return mp.quad(lambda w2: inner(w2, w3), pts)
    ratios = (2, 1 + mp.sqrt(mp.mpf(3) / 2), 1 + mp.sqrt(2), 1 + mp.sqrt(3))
    pts = sorted(set([lo, hi] + [x for x in (s**2 * mp.log(c * m) for c in ratios)
                                 if lo < x < hi]))
    return 2 * mp.quad(over_w2, pts)


def inverse_balle_wang(s, delta):
    """eps with Balle-Wang(eps; shift 1/s) = delta, by findroot at 60 digits."""
    with mp.workdps(60):
        return mp.findroot(lambda e: mp.log(balle_wang(e, 1 / mpq(s))) - mp.log(mpq(delta)),
                           10)


def assert_no_worse(result, printed):
    """The paper prints "delta_S >= printed" (or eps_S >= printed): refacct's bound, minus
    its error, is at least that."""
    with mp.workdps(40):
        assert result.value - result.abs_error >= mpq(printed), (
            f"{mp.nstr(result.value, 12)} is below the printed {printed}")


def rounds_to(value, printed: str) -> bool:
    """value rounded to as many significant digits as ``printed`` shows equals it."""
    n = len(printed.lower().split("e")[0].replace(".", "").lstrip("0"))
    with mp.workdps(40):
        return mp.nstr(value, n) == mp.nstr(mpq(printed), n)


# --- E(C) at a fixed C ---------------------------------------------------------------------

@pytest.mark.parametrize("sigma, eps, C", [
    (1, 0, "1/2"),
    pytest.param("0.4", 4, "2.18", marks=pytest.mark.slow),
    pytest.param("0.8", 1, 3, marks=pytest.mark.slow)])
def test_event_bound_T2_against_its_definition(sigma, eps, C):
    """T = 2: P_S(E_C) - e^eps Q_S(E_C) from the densities of 002 eqs. (1)-(2) integrated
    over the complement of E_C (two-dimensional mp.quad at 13 and 17 digits, 10 checked)."""
    oracle, oerr = oracle_agree(lambda: event_2d(mpq(C), mpq(sigma), mpq(eps)), 13, 17)
    r = shuffle_event_bound(sigma, 2, eps, C, digits=10)
    assert_verified(r, oracle, 10, oerr)
    assert r.C == Fraction(C) and r.bound == "lower"


@pytest.mark.parametrize("sigma, T, eps, C", [("0.4", 10000, 4, "2.18"),
                                              ("0.4", 100000, 12, "3.42"),
                                              (1, 1000, "1/2", 5)])
def test_event_bound_large_T_against_product_formula(sigma, T, eps, C):
    """The product formula of 002 Sec. 4.3 with Phi integrated by mp.quad, at 50 / 70
    digits (the e^eps cancellation costs at most 7 of them)."""
    fn = lambda: event_naive(mpq(C), mpq(sigma), T, mpq(eps), cdf_by_quad)  # noqa: E731
    oracle, oerr = oracle_agree(fn, 50, 70)
    assert_verified(shuffle_event_bound(sigma, T, eps, C, digits=25), oracle, 25, oerr)


# --- the maximisation ------------------------------------------------------------------------

CASES = [  # (sigma, T, eps): 002 Sec. 4.3 (Fig. 3) and App. A.2 (Figs. 6, 7)
    ("0.4", 10000, 4), ("0.4", 10000, 12), ("0.8", 1000, 1), ("0.8", 1000, 4),
    ("1", 1000, 1), ("1", 1000, 4)]


@pytest.mark.parametrize("sigma, T, eps", CASES)
def test_lower_bound_at_least_the_paper_grid(sigma, T, eps):
    """The continuous maximum is at least the maximum over the paper's grid C = k/100 and
    E at the returned C is what the naive formula gives there; the naive E one grid step to
    either side is smaller (C is a local maximum)."""
    r = shuffle_lower_bound(sigma, T, eps, digits=20)
    with mp.workdps(60):
        s, e = mpq(sigma), mpq(eps)
        grid, _ = grid_max(s, T, e)
        assert r.value + r.abs_error >= grid
        at_c = event_naive(mpq(r.C), s, T, e)
        assert abs(at_c - r.value) <= r.abs_error + mp.mpf(10) ** -45
        for step in (-1, 1):
            assert event_naive(mpq(r.C) + mp.mpf(step) / 1000, s, T, e) < r.value
    assert r.verified_digits >= 20 and r.bound == "lower"
    assert r.max_gap <= r.value * mp.mpf(10) ** -22


@pytest.mark.parametrize("sigma, T, eps", [("0.4", 2, 0), ("0.4", 2, 4), ("1", 50, 3),
                                           ("2", 100000, "1/2"), ("0.3", 7, 20)])
def test_unimodal_with_maximiser_right_of_C_D(sigma, T, eps):
    """Module docstring: E increases up to C* > C_D = 3/2 + sigma^2 eps and decreases after.
    On a grid of step 1/100 from C_D - 2 to 3 beyond the returned C, the naive E (at 80
    digits) does not decrease up to its largest value, which is within a grid step of the
    returned C, and decreases strictly after it.  (sigma = 2, T = 10^5: C* = 23.17, where
    E = 5.7e-34; left of C* + 3 E is 1 - e^eps to 80 digits, flat.)"""
    r = shuffle_lower_bound(sigma, T, eps, digits=15)
    cd = Fraction(3, 2) + Fraction(sigma) ** 2 * Fraction(eps)
    assert r.C > cd
    with mp.workdps(80):
        s, e = mpq(sigma), mpq(eps)
        n = int(100 * (r.C - cd)) + 300
        cs = [mpq(cd) + mp.mpf(k) / 100 for k in range(-200, n)]
        vs = [event_naive(c, s, T, e) for c in cs]
        peak = vs.index(max(vs))
        assert all(b >= a for a, b in zip(vs[:peak], vs[1:peak + 1]))
        assert all(b < a for a, b in zip(vs[peak:], vs[peak + 1:]))
        assert abs(cs[peak] - mpq(r.C)) <= mp.mpf(1) / 100


@pytest.mark.parametrize("sigma, eps", [("0.4", 4), (1, 0), ("0.7", "25/2")])
def test_one_step_is_balle_wang(sigma, eps):
    """T = 1: P_S = N(2, s^2), Q_S = N(1, s^2), and E_C at C = 3/2 + s^2 eps is the
    Balle-Wang delta with shift 1/s (002 Prop. 3.1); the maximiser is exactly that C."""
    oracle, oerr = oracle_agree(lambda: balle_wang(mpq(eps), 1 / mpq(sigma)))
    r = shuffle_lower_bound(sigma, 1, eps, digits=25)
    assert_verified(r, oracle, 25, oerr)
    assert r.C == Fraction(3, 2) + Fraction(sigma) ** 2 * Fraction(eps)


def test_small_sigma_maximiser_next_to_C_D():
    """sigma = 1/20, T = 10, eps = 1: the other coordinates almost never exceed C, so
    C* - C_D is below e^-400 and E(C*) is Balle-Wang with shift 20 up to 10 (e - 1)
    Phi-bar(30) ~ 1e-197 (002 Prop. 3.1); C is C_D to within its own error bound."""
    oracle, oerr = oracle_agree(lambda: balle_wang(mp.one, mp.mpf(20)))
    r = shuffle_lower_bound("1/20", 10, 1, digits=25)
    assert_verified(r, oracle, 25, oerr)
    cd = Fraction(3, 2) + Fraction(1, 400)
    with mp.workdps(60):
        assert abs(mpq(r.C - cd)) <= r.C_error < mp.mpf(10) ** -25


# --- the paper's numbers ---------------------------------------------------------------------

def test_paper_sec_4_3_delta_at_4():
    """002 Sec. 4.3 (Fig. 3), sigma = 0.4, T = 10,000: "delta_S(4) >= 0.226"."""
    r = shuffle_lower_bound("0.4", 10000, 4)
    assert_no_worse(r, "0.226")
    assert rounds_to(r.value, "0.226")


def test_paper_sec_4_3_delta_at_12_is_a_rounding():
    """002 Sec. 4.3: "delta_S(12) >= 7.5 * 10^-5" (sigma = 0.4, T = 10,000).  The maximum of
    eq. (7) over all real C is 7.4734e-5 (at C* = 3.42002), *below* 7.5e-5; the paper's grid
    point C = 3.42 gives 7.4734e-5 as well (to 7 digits, naive formula at 60 digits), so the
    printed figure is 7.47e-5 rounded to two digits, not an effect of the grid or of
    floating point.  refacct reports 7.4734e-5."""
    r = shuffle_lower_bound("0.4", 10000, 12)
    assert r.value + r.abs_error < mpq("7.5e-5")
    assert rounds_to(r.value, "7.5e-5")
    with mp.workdps(60):
        at_grid = event_naive(mpq("3.42"), mpq("0.4"), 10000, mpq(12))
        assert at_grid < mpq("7.5e-5") and rounds_to(at_grid, "7.47e-5")
        assert abs(at_grid - r.value) < mpq("1e-11")


@pytest.mark.parametrize("sigma, eps, printed, exceeds", [
    ("0.8", 1, "0.018", False),      # 0.017948: a rounding, as at eps = 12 above
    ("0.8", 4, "1.6e-4", False),     # 1.5958e-4: likewise
    ("1", 4, "4.38e-7", True),       # 4.38070e-7 (the paper's grid: 4.38023e-7)
])
def test_paper_app_a2_delta(sigma, eps, printed, exceeds):
    """002 App. A.2 (Figs. 6, 7), T = 1000: "delta_S(1) >= 0.018 and delta_S(4) >= 1.6e-4"
    at sigma = 0.8, "delta_S(4) >= 4.38e-7" at sigma = 1.  Each printed value is refacct's
    rounded to its printed digits; only the last is also a true lower bound."""
    r = shuffle_lower_bound(sigma, 1000, eps)
    assert rounds_to(r.value, printed)
    if exceeds:
        assert_no_worse(r, printed)
    else:
        assert r.value + r.abs_error < mpq(printed)


def test_paper_app_a2_sigma_1_eps_1_not_reproduced():
    """002 App. A.2 (Fig. 7), sigma = 1, T = 1000: "delta_S(1) >= 0.004".  Eq. (7) gives
    9.987e-4 there (refacct, and the naive formula on the paper's grid: 9.9873e-4), four
    times smaller, and no rounding of the printed digits reaches it; the cause is not
    identified (eq. (7) at eps = 1/2 would give 0.00433)."""
    r = shuffle_lower_bound(1, 1000, 1)
    assert r.value + r.abs_error < mpq("0.0035")
    assert rounds_to(r.value, "9.987e-4")
    with mp.workdps(60):
        grid, c = grid_max(mp.one, 1000, mp.one)
        assert rounds_to(grid, "9.987e-4") and c == Fraction("4.78")


@pytest.mark.parametrize("sigma, T, delta, printed, where", [
    ("0.5", 10000, "1e-6", "10.994", "App. A.1, Fig. 4"),
    ("0.7", 1000, "1e-5", "6.528", "App. A.1, Fig. 5"),
    ("0.4", 100000, "1e-6", "14.45", "Sec. 1.1, Fig. 1"),
])
def test_paper_epsilon(sigma, T, delta, printed, where):
    """002 (``where``): "eps_S(delta) >= printed".  refacct's eps root of max_C E = delta is
    at least the printed value.  Oracle: at eps = printed the naive E, maximised over C
    (paper's grid, then golden section), still exceeds delta, and at refacct's root -+ 1e-9
    it lies on either side of delta."""
    r = shuffle_lower_bound_epsilon(sigma, T, delta)
    assert_no_worse(r, printed)
    assert r.verified_digits >= 20 and r.bound == "lower"
    with mp.workdps(60):
        s, d = mpq(sigma), mpq(delta)
        assert refined_max(s, T, mpq(printed)) > d
        assert refined_max(s, T, r.value - mpq("1e-9")) > d > refined_max(s, T, r.value + mpq("1e-9"))


def test_epsilon_one_step_and_edges():
    """T = 1: the root is Balle-Wang's inverse; delta = 0 gives +inf (E(C*) > 0 for every
    eps); delta at or above max_C E at eps = 0 (the total variation bound) gives 0."""
    r = shuffle_lower_bound_epsilon("0.4", 1, "1e-6")
    assert_verified(r, inverse_balle_wang("0.4", "1e-6"), 20)
    assert shuffle_lower_bound_epsilon("0.4", 10, 0).value == mp.inf
    assert shuffle_lower_bound_epsilon("0.4", 10, "0.9").value == 0


# --- H(P_S || Q_S) ---------------------------------------------------------------------------

@pytest.mark.parametrize("sigma, eps", [("0.4", 4), (1, 0), ("1/2", -1), (2, "1/3")])
def test_exact_one_step_is_balle_wang(sigma, eps):
    """T = 1: H(N(2, s^2) || N(1, s^2)) = Balle-Wang with shift 1/s (002 Prop. 3.1), any eps."""
    oracle, oerr = oracle_agree(lambda: balle_wang(mpq(eps), 1 / mpq(sigma)))
    r = shuffle_exact(sigma, 1, eps, digits=20)
    assert_verified(r, oracle, 20, oerr)
    assert r.bound == "tight"


@pytest.mark.parametrize("sigma, eps", [("1/2", 1), (1, "1/2"), ("0.4", 4), (1, -1)])
def test_exact_two_steps_against_w_coordinates(sigma, eps):
    """T = 2 against the oracle in the original coordinates (closed form in w_1 outside the
    roots of the quadratic, tanh-sinh in w_2), at 25 and 35 digits."""
    oracle, oerr = oracle_agree(lambda: exact_T2(mpq(sigma), mpq(eps)), 25, 35)
    assert_verified(shuffle_exact(sigma, 2, eps, digits=12), oracle, 12, oerr)


@pytest.mark.slow
def test_exact_three_steps_against_w_coordinates():
    """T = 3, sigma = 1, eps = 1/2, against the nested tanh-sinh oracle in w (8 and 10
    digits, about 40 s) to 8 digits."""
    oracle, oerr = oracle_agree(lambda: exact_T3(mp.one, mp.mpf(1) / 2), 8, 10)
    assert_verified(shuffle_exact(1, 3, "1/2", digits=8), oracle, 8, oerr)


@pytest.mark.parametrize("T, digits", [(2, 15), pytest.param(3, 6, marks=pytest.mark.slow)])
def test_exact_swap_identity(T, digits):
    """H_a(P || Q) = 1 - a + a H_{1/a}(Q || P) (docs/numerics.md) with a = e^(3/2):
    the two sides are computed by different integrands (P and Q swapped, eps negated)."""
    pq = shuffle_exact("0.6", T, "3/2", digits=digits)
    qp = shuffle_exact("0.6", T, "-3/2", digits=digits, swap=True)
    with mp.workdps(40):
        a = mp.exp(mp.mpf(3) / 2)
        assert abs(pq.value - (1 - a + a * qp.value)) <= pq.abs_error + a * qp.abs_error


@pytest.mark.parametrize("T, sigma, eps, digits", [(2, "1/2", 1, 12), (2, "0.4", 4, 12),
                                                   (3, 1, "1/2", 6)])
def test_eq7_below_exact_below_deterministic(T, sigma, eps, digits):
    """E(C*) <= H(P_S || Q_S) <= delta_D(eps) within bounds: eq. (7) is one event, and
    shuffling cannot degrade the deterministic pair (002 Thm 4.1; H is jointly convex and
    every permutation gives the Balle-Wang pair)."""
    lower = shuffle_lower_bound(sigma, T, eps, digits=digits)
    exact = shuffle_exact(sigma, T, eps, digits=digits)
    with mp.workdps(40):
        assert lower.value - lower.abs_error <= exact.value + exact.abs_error
        assert exact.value - exact.abs_error <= balle_wang(mpq(eps), 1 / mpq(sigma))


# --- parameters, precision -------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: shuffle_lower_bound(0, 10, 1), ValueError, "sigma must be > 0"),
    (lambda: shuffle_lower_bound("-1/2", 10, 1), ValueError, "sigma must be > 0"),
    (lambda: shuffle_lower_bound(float("nan"), 10, 1), ValueError, "sigma must be finite"),
    (lambda: shuffle_lower_bound(None, 10, 1), TypeError, "sigma"),
    (lambda: shuffle_lower_bound(1, 0, 1), ValueError, "steps must be an integer >= 1"),
    (lambda: shuffle_lower_bound(1, "5/2", 1), ValueError, "steps must be an integer >= 1"),
    (lambda: shuffle_lower_bound(1, True, 1), TypeError, "steps"),
    (lambda: shuffle_lower_bound(1, 10, -1), ValueError, "eps must be >= 0"),
    (lambda: shuffle_lower_bound(1, 10, "x"), ValueError, "eps must be a finite rational"),
    (lambda: shuffle_lower_bound(1, 10, 1, digits=0), ValueError, "digits must lie in"),
    (lambda: shuffle_lower_bound(1, 10, 1, digits=2.5), TypeError, "digits must be an int"),
    (lambda: shuffle_event_bound(1, 10, 1, float("inf")), ValueError, "C must be finite"),
    (lambda: shuffle_lower_bound_epsilon(1, 10, "3/2"), ValueError, "delta must lie in [0, 1]"),
    (lambda: shuffle_exact(1, 4, 1), ValueError, "steps must be 1, 2 or 3"),
    (lambda: shuffle_exact(1, 2, 1, swap=1), TypeError, "swap must be a bool"),
])
def test_bad_parameters(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_exact_parameters_and_precision_left_alone():
    """int, Fraction and str give the same result; mp.prec is unchanged afterwards; T = 10^5
    runs (its cost does not depend on T)."""
    before = mp.prec
    a = shuffle_lower_bound(Fraction(2, 5), 100000, Fraction(4), digits=15)
    b = shuffle_lower_bound("0.4", "100000", "4", digits=15)
    assert a.value == b.value and a.C == b.C and a.verified_digits >= 15
    shuffle_exact("1/2", 2, 1, digits=8)
    shuffle_lower_bound_epsilon("1/2", 1000, "1e-5", digits=10)
    assert mp.prec == before


@pytest.mark.parametrize("T", [2, 3])
def test_pair_is_the_shuffled_mechanism_enumerated(T):
    """002 Sec. 3, eqs. (1)-(2) derived from ABLQ_S itself: n = T records, batch size 1, a
    uniformly random permutation pi; step t releases psi(x_pi(t)) + N(0, sigma^2) with
    psi(x) = x, psi(⊥) = 0.  Enumerating all T! permutations of x = (-1, ..., -1, 1) and
    x' = (-1, ..., -1, ⊥), each with probability 1/T!, and shifting by 1 gives exactly the
    uniform mixtures of N(2 e_t, sigma^2 I) and N(e_t, sigma^2 I) that shuffle_exact
    integrates (the module docstring's P_S, Q_S), and that the w-coordinate oracles
    exact_T2 / exact_T3 above are written from."""
    from itertools import permutations
    from math import factorial

    def output_means(records):
        means = {}
        for order in permutations(range(T)):
            mean = tuple(1 + (0 if records[i] is None else records[i]) for i in order)
            means[mean] = means.get(mean, Fraction(0)) + Fraction(1, factorial(T))
        return means

    x = [-1] * (T - 1) + [1]
    x_prime = [-1] * (T - 1) + [None]
    unit = lambda t, c: tuple(c if s == t else 0 for s in range(T))  # noqa: E731
    assert output_means(x) == {unit(t, 2): Fraction(1, T) for t in range(T)}
    assert output_means(x_prime) == {unit(t, 1): Fraction(1, T) for t in range(T)}
