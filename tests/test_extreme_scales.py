"""Extreme scales and locations: the right value or a clean
refusal, never a silently wrong one; and the guards that every continuous delta passes.

Oracles, independent of refacct's engines:
* closed forms written here: N(0, s1^2) vs N(0, s2^2) with s1 < s2 has p > alpha q on
  |y| < t, t^2 = 2 ln(s2 / (alpha s1)) / (1/s1^2 - 1/s2^2), so
  delta = erf(t / (s1 sqrt 2)) - alpha erf(t / (s2 sqrt 2)); Lap(0, b1) vs Lap(0, b2) with
  b1 < b2 has it on |y| < t, t = ln(b2 / (alpha b1)) / (1/b1 - 1/b2), so
  delta = (1 - e^{-t/b1}) - alpha (1 - e^{-t/b2}); Gaussian shift pairs (Balle and Wang
  2018, Thm. 8, ``conftest.balle_wang``) at any scale;
* limits: for any set A, P(A) - alpha Q(A) <= delta <= 1, with A chosen by hand where the
  truth is within 1e-200 of 1; the printed interval must contain all of [P(A) - alpha
  Q(A), 1].
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

from conftest import balle_wang, mpq
from refacct import Gaussian, Laplace, Pair, delta, hockey_stick
from refacct.result import printed

F = Fraction


def covers(r, low, high, what: str) -> None:
    """The printed value +- printed bound contains [low, high] (which holds the truth)."""
    text, bound = printed(r.value, r.abs_error, r.digits)
    with mp.workdps(400):
        v, b = mp.mpf(text), mp.mpf(bound)
        assert v - b <= low and high <= v + b, \
            f"{what}: printed {text} ± {bound} does not cover [{mp.nstr(low, 20)}, " \
            f"{mp.nstr(high, 20)}]"


def near_one(r, P_mass_out, alpha_q_mass_in, what: str) -> None:
    """delta in [1 - P(not A) - alpha Q(A), 1] (both masses given as upper bounds)."""
    with mp.workdps(400):
        covers(r, 1 - P_mass_out - alpha_q_mass_in, mp.one, what)


# --- the inputs of the issues --------------------------------------------------------------

def test_gaussian_against_a_narrow_far_laplace():
    """N(0, (2/3)^2) vs Lap(1000, 1e-12), delta(3) (was -20.09 with "20 verified
    digits").  A = (-inf, 999]: P(not A) = erfc(999 * 3/2 / sqrt 2) / 2 < 1e-400,
    Q(A) = e^{-1/1e-12} / 2 < 1e-400."""
    r = delta(Pair(Gaussian(0, F(2, 3)), Laplace(1000, "1e-12")), 3)
    near_one(r, mp.mpf("1e-400"), mp.mpf("1e-400"), "N vs narrow Lap")


def test_concentrated_gaussian_against_a_standard_one():
    """N(0, (1e-300)^2) vs N(1, 1), delta(3) (was 0.0, "exact").
    A = [-1e-290, 1e-290]: P(not A) = erfc(1e10 / sqrt 2) < 1e-400, Q(A) < 2e-290 / sqrt(2 pi)."""
    r = delta(Pair(Gaussian(0, "1e-300"), Gaussian(1, 1)), 3)
    with mp.workdps(50):
        near_one(r, mp.mpf("1e-400"), mp.e ** 3 * mp.mpf("1e-290"), "N(0, 1e-300^2)")


@pytest.mark.slow
def test_gaussian_at_1e400():
    """N(1e400, 1) vs N(1/10, 10^2), delta(1e-30) (raised ArithmeticError).
    A = [1e400 - 1e10, inf): P(not A) < 1e-400, Q(A) < 1e-400 (Q's mean is 1e399 sigmas
    away).  About 15 s: the masses need 1330 bits beyond the digits."""
    r = delta(Pair(Gaussian("1e400", 1), Gaussian(F(1, 10), 10)), "1e-30")
    near_one(r, mp.mpf("1e-400"), mp.mpf("1e-400"), "N(1e400, 1)")


def test_concentrated_laplace_against_a_standard_one():
    """Lap(2, 1e-300) vs Lap(3, 1), delta(3) (raised ArithmeticError).
    A = [2 - 1e-290, 2 + 1e-290]: P(not A) = e^{-1e10}, Q(A) < 1e-290."""
    r = delta(Pair(Laplace(2, "1e-300"), Laplace(3, 1)), 3)
    with mp.workdps(50):
        near_one(r, mp.mpf("1e-400"), mp.e ** 3 * mp.mpf("1e-290"), "Lap(2, 1e-300)")


# --- families of extreme scales against closed forms ----------------------------------------

SCALES = ["1e-300", "1e-10", "1", "1e10", "1e300"]


def gauss_scale(s1, s2, alpha):
    """delta of N(0, s1^2) vs N(0, s2^2), s1 < s2 (module docstring)."""
    s1, s2, alpha = mpq(s1), mpq(s2), mpq(alpha)
    log_term = mp.log(s2 / (alpha * s1))
    if log_term <= 0:
        return mp.zero  # p > alpha q nowhere
    t = mp.sqrt(2 * log_term / (1 / s1 ** 2 - 1 / s2 ** 2))
    return mp.erf(t / (s1 * mp.sqrt(2))) - alpha * mp.erf(t / (s2 * mp.sqrt(2)))


def laplace_scale(b1, b2, alpha):
    """delta of Lap(0, b1) vs Lap(0, b2), b1 < b2 (module docstring)."""
    b1, b2, alpha = mpq(b1), mpq(b2), mpq(alpha)
    log_term = mp.log(b2 / (alpha * b1))
    t = log_term / (1 / b1 - 1 / b2)
    return -mp.expm1(-t / b1) + alpha * mp.expm1(-t / b2)


FAMILIES = {"gaussian": (Gaussian, gauss_scale), "laplace": (Laplace, laplace_scale)}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("w1, w2", [(a, b) for a in SCALES for b in SCALES
                                    if F(a) < F(b) and F(b) / F(a) <= F(10) ** 310])
@pytest.mark.parametrize("alpha", [F(1, 2), 2])
def test_scale_pairs(family, w1, w2, alpha):
    """Two centred components of widths w1 < w2 (alpha <= w2 / w1 always here, so the
    region |y| < t is not empty) against the closed forms of the module docstring."""
    make, closed = FAMILIES[family]
    r = hockey_stick(Pair(make(0, w1), make(0, w2)), alpha=alpha, digits=15)
    with mp.workdps(60):
        truth = closed(w1, w2, alpha)
        covers(r, truth, truth, f"{family} widths {w1}, {w2}")


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("m", [F(1, 2), 3, 10 ** 6])
def test_gaussian_shift_at_every_scale(s, m):
    """N(m s, s^2) vs N(0, s^2): the closed form with m = mu / sigma, locations up to 1e6
    scales apart."""
    r = delta(Pair(Gaussian(m * F(s), s), Gaussian(0, s)), 1, digits=15)
    with mp.workdps(60):
        truth = balle_wang(1, m)
        covers(r, truth, truth, f"shift {m} at scale {s}")


@pytest.mark.parametrize("b", ["1e-300", "1", "1e300"])
def test_gaussian_against_laplace_a_million_scales_away(b):
    """N(0, b^2) vs Lap(1e6 b, b): A = (-inf, 5e5 b]: P(not A) = erfc(5e5 / sqrt 2) / 2
    < 1e-400, Q(A) = e^{-5e5} / 2 < 1e-400; delta(1) is 1 to 400 digits."""
    r = delta(Pair(Gaussian(0, b), Laplace(10 ** 6 * F(b), b)), 1)
    near_one(r, mp.mpf("1e-400"), mp.e * mp.mpf("1e-400"), f"N vs Lap at scale {b}")


# --- the guards ----------------------------------------------------------------------------

def test_a_wrong_crossing_isolation_is_refused(monkeypatch):
    """Inject a known failure (the region p > alpha q taken inverted): both
    evaluations agree, the coarse lower bound does not, and the result is refused."""
    from refacct.engines.quadrature import crossings
    from refacct.engines.quadrature import onestep
    original = crossings.general_positive_intervals

    def inverted(P, Q, alpha, alpha_exact=None):
        intervals, unresolved = original(P, Q, alpha, alpha_exact)
        ends = [-mp.inf] + [x for ab in intervals for x in ab] + [mp.inf]
        return [(a, b) for a, b in zip(ends[::2], ends[1::2]) if a < b], unresolved

    monkeypatch.setattr(onestep, "general_positive_intervals", inverted)
    onestep._cached.cache_clear()
    try:
        with pytest.raises(ArithmeticError, match="guard failed"):
            delta(Pair(Gaussian(0, 2), Laplace(1, F(1, 3))), F(1, 2))
    finally:
        onestep._cached.cache_clear()


def test_a_value_outside_the_range_is_refused(monkeypatch):
    """delta must lie in [max(0, 1 - alpha), 1]: an engine returning -0.5 is refused."""
    import refacct.hockey as hockey
    monkeypatch.setattr(hockey, "two_evaluations",
                        lambda compute, digits: (mp.mpf("-0.5"), mp.mpf("1e-20"), None))
    with pytest.raises(ArithmeticError, match=r"outside \[max\(0, 1 - alpha\), 1\]"):
        delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1)


@pytest.mark.parametrize("pair, alpha", [
    (Pair(Gaussian(1, 1), Gaussian(0, 1)), F(3, 2)),
    (Pair(Gaussian(0, 2), Laplace(1, F(1, 3))), F(1, 2)),
])
def test_coarse_lower_bound_is_below_the_truth(pair, alpha):
    """The guard's bound itself, against the closed form and a fine quadrature."""
    from refacct.guards import coarse_lower_bound
    with mp.workdps(30):
        bound = coarse_lower_bound(pair.P, pair.Q, mpq(alpha))
        p, q = (lambda y: _pdf(pair.P, y)), (lambda y: _pdf(pair.Q, y))
        truth = mp.quad(lambda y: max(mp.zero, p(y) - mpq(alpha) * q(y)),
                        [-mp.inf, -5, -1, 0, 1, 2, 5, mp.inf])
        assert 0 < bound <= truth
        assert bound >= truth / 2   # coarse, but not vacuous


def _pdf(dist, y):
    if isinstance(dist, Gaussian):
        return mp.npdf(y, mpq(dist.mean), mpq(dist.sigma))
    return mp.exp(-abs(y - mpq(dist.loc)) / mpq(dist.scale)) / (2 * mpq(dist.scale))


def test_epsilon_beyond_the_eps_range_is_refused():
    """N(1, (1e-4)^2) vs N(0, (1e-4)^2) has m = 1e4: eps(1e-5) ~ m^2 / 2 = 5e7 lies beyond
    |eps| <= 1e6, and refacct says so (naming delta and the range) instead of searching."""
    from refacct import epsilon
    from refacct.errors import InputError
    with pytest.raises(InputError, match=r"eps\(delta\) at delta = 1/100000 exceeds 1000000"):
        epsilon(Pair(Gaussian(1, F(1, 10 ** 4)), Gaussian(0, F(1, 10 ** 4))), "1e-5")
    with pytest.raises(InputError, match=r"eps must lie in \[-1000000, 1000000\]"):
        delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), "1e400")


def test_symmetry_guard_against_the_closed_form():
    """H_alpha(N(1,1) || N(0,1)) = 1 - alpha + alpha H_{1/alpha}(N(0,1) || N(1,1)), and the
    reverse pair is the forward one reflected (y -> 1 - y): balle_wang(-eps, 1).  The guard
    accepts the closed forms and refuses a value 1e-15 off with a bound of 1e-25."""
    from refacct.guards import check_symmetry
    with mp.workdps(40):
        for eps in (mpq("1/3"), mp.one, mpq(5)):
            forward, back, alpha = balle_wang(eps, 1), balle_wang(-eps, 1), mp.exp(eps)
            tiny = mp.mpf("1e-25")
            check_symmetry(forward, tiny, back, tiny, alpha)
            with pytest.raises(ArithmeticError, match="1 - alpha \\+ alpha H"):
                check_symmetry(forward + mp.mpf("1e-15"), tiny, back, tiny, alpha)


def test_a_one_sided_error_is_refused_by_symmetry(monkeypatch):
    """An engine error in one direction only (1e-6 added to H(P || Q), not to H(Q || P))
    passes the range and the coarse lower bound but not the symmetry."""
    import refacct.hockey as hockey
    original = hockey._evaluation

    def skewed(pm, eps, alpha_exact):
        compute = original(pm, eps, alpha_exact)
        forward = pm.terms[0][1].pairs()[0].P == Gaussian(1, 1)
        return lambda rule: (compute(rule)[0] + (mp.mpf("1e-6") if forward else 0),
                             compute(rule)[1])

    monkeypatch.setattr(hockey, "_evaluation", skewed)
    with pytest.raises(ArithmeticError, match="1 - alpha \\+ alpha H"):
        delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1)


def test_shuffle_and_certified_results_pass_the_range_guard(monkeypatch):
    """Results of the shuffle and certified engines are guarded too: a lower bound above 1
    and an enclosure below 0 are refused."""
    from refacct import certified
    from refacct.engines.arb import arb
    from refacct import shuffle
    monkeypatch.setattr(shuffle, "_lower_bound", lambda s, T, e, digits: (
        mp.mpf("1.5"), mp.mpf("1e-20"), F(2), mp.zero, mp.zero))
    with pytest.raises(ArithmeticError, match="guard failed: max_C E_C"):
        shuffle.shuffle_lower_bound(1, 10, 1)
    monkeypatch.setattr(certified, "_refine", lambda evaluate, digits: (arb(-0.5, 1e-20), 64))
    with pytest.raises(ArithmeticError, match="guard failed: H_alpha"):
        delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1, method="certified")


# --- shifts far below the scale: p and q nearly proportional -------------------------------

def far_tail(x):
    """P(N(0, 1) > x) for any real x: erfc below 10^6, above it the asymptotic series
    e^{-x^2/2} / (x sqrt(2 pi)) (1 - 1/x^2 + 3/x^4), whose relative error is below
    15 / x^6 < 1e-35 (mpmath's erfc takes its argument through a float: no 1e290)."""
    if x < 10 ** 6:
        return mp.erfc(x / mp.sqrt(2)) / 2
    return mp.exp(-x * x / 2) / (x * mp.sqrt(2 * mp.pi)) * (1 - 1 / x ** 2 + 3 / x ** 4)


def shift_truth(eps: Fraction, mu2: Fraction):
    """Balle and Wang's delta(eps) for N(mu, 1) vs N(0, 1) (``conftest.balle_wang``), at a
    precision that covers its conditioning: the tails' arguments x ~ eps / mu cost
    2 log10(x) digits (e^{-x^2/2}), and the two terms, whose ratio is about 1 - mu / x,
    cancel to log10(x / mu) more."""
    with mp.workdps(30):
        mu = mp.sqrt(mpq(mu2))
        x = abs(mpq(eps)) / mu + 1
        digits = 60 + 2 * int(mp.log10(x)) + int(mp.log10(1 + x / mu))
    with mp.workdps(digits):
        e, m = mpq(eps), mp.sqrt(mpq(mu2))
        return +(far_tail(e / m - m / 2) - mp.exp(e) * far_tail(e / m + m / 2))


# shift m at scale s, i.e. mu = m / s from 1e-300 to 1
FAR_BELOW = [("1", "1e40"), ("1", "1e300"), ("1e-300", "1"), ("1e-40", "1"),
             ("1e-300", "1e-200"), ("1e300", "1e300")]


@pytest.mark.parametrize("m, s", FAR_BELOW)
@pytest.mark.parametrize("eps", ["0", "1e-10", "1"])
@pytest.mark.parametrize("steps", [1, 2])
def test_gaussian_shift_far_below_its_scale(m, s, eps, steps):
    """N(0, s^2) vs N(m, s^2) composed ``steps`` times is the shift mu = sqrt(steps) m / s
    (Balle-Wang): never an exact 0 (the truth is positive), the digits asked, the printed
    interval around the truth, also where delta is e^{-10^60}."""
    r = delta(Pair(Gaussian(0, s), Gaussian(m, s)), eps, steps=steps, digits=15)
    assert r.value > 0 and r.verified_digits is not None and r.verified_digits >= 15, r
    truth = shift_truth(F(eps), (F(m) / F(s)) ** 2 * steps)
    covers(r, truth, truth, f"shift {m} at scale {s}, eps {eps}, {steps} steps")


def laplace_shift_truth(eps, a):
    """delta(eps) of Lap(0, 1) vs Lap(a, 1), a > 0: 1 - e^{(eps - a) / 2} for eps < a, and
    exactly 0 from eps = a on (the privacy loss never exceeds a)."""
    if eps >= a:
        return mp.zero
    with mp.workdps(60 + int(mp.log10(1 + 1 / mpq(a - eps)))):
        return +(-mp.expm1(mpq(eps - a) / 2))


@pytest.mark.parametrize("m, s", FAR_BELOW)
@pytest.mark.parametrize("eps", ["0", "1e-320", "1/2"])
def test_laplace_shift_far_below_its_scale(m, s, eps):
    """Lap(0, s) vs Lap(m, s): delta(eps) = 1 - e^{(eps - m/s)/2} below eps = m / s,
    exactly 0 above; an exact 0 only there."""
    a, e = F(m) / F(s), F(eps)
    r = delta(Pair(Laplace(0, s), Laplace(m, s)), eps, digits=15)
    truth = laplace_shift_truth(e, a)
    if truth == 0:
        assert r.value == 0 and r.abs_error == 0, r
        return
    assert r.value > 0 and r.verified_digits is not None and r.verified_digits >= 15, r
    covers(r, truth, truth, f"Laplace shift {m} at scale {s}, eps {eps}")


@pytest.mark.parametrize("sigma", ["1", "1e40", "1e-40"])
@pytest.mark.parametrize("q", ["1/2", "1e-30", "1e-300"])
def test_poisson_subsampled_total_variation_at_every_scale(sigma, q):
    """delta(0) of the Poisson-subsampled Gaussian is the total variation of its pairs,
    and (1 - q) N(0, s^2) + q N(1, s^2) - N(0, s^2) = q (N(1, s^2) - N(0, s^2)), so
    delta(0) = q TV(N(1, s^2), N(0, s^2)) = q erf(1 / (2 sqrt 2 s)) in both directions; under
    a time limit too (whose quick bracket stage cannot build a lattice at s = 1e-40, where
    the loss spans 10^80, and leaves the answer to the closed form)."""
    from refacct.mechanisms import build, gaussian
    r = delta(build(gaussian(sigma), "poisson", "add-remove", q=q), 0, time_limit=60)
    with mp.workdps(700):
        truth = mpq(q) * mp.erf(1 / (2 * mp.sqrt(2) * mpq(sigma)))
    assert r.verified_digits is not None and r.verified_digits >= 20, r
    covers(r, truth, truth, f"Poisson q = {q}, sigma = {sigma}")
