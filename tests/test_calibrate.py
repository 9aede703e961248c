"""refacct.calibrate: the smallest noise scale meeting a target, as a bracket.

Oracles, independent of refacct's engines:
* the unsampled Gaussian's advantage delta(0) = 2 Phi(1 / (2 sigma)) - 1 = erf(1 / (2 sqrt 2
  sigma)) (its total variation), so sigma* = 1 / (2 sqrt 2 erfinv(a));
* one Poisson-subsampled step at rate q: delta(0) = q times the unsampled one (the total
  variation of (1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2)), so sigma*(q, a) is the
  unsampled sigma*(a / q);
* the unsampled Gaussian's trade-off curve G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu), mu =
  sqrt(k) / sigma after k steps (Dong, Roth, Su 2019, arXiv:1905.02383), so the smallest
  sigma with beta(alpha) >= b is sqrt(k) / (Phi^-1(1 - alpha) - Phi^-1(b)).
"""
from fractions import Fraction

import mpmath
import pytest

from refacct.calibrate import MAX_SCALE, noise_scale, noise_scale_for_errors
from refacct.errors import InputError
from refacct.mechanisms import build, gaussian
from refacct.result import exact_rational


def unsampled_sigma(a: Fraction):
    with mpmath.workdps(40):
        return 1 / (2 * mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(a.numerator) / a.denominator))


def unsampled(s):
    return build(gaussian(s), "none", "add-remove"), 1


def contains(r, truth) -> bool:
    return exact_rational(r.lower) <= exact_rational(truth) <= exact_rational(r.upper)


@pytest.mark.parametrize("a", ["1/2", "1/10", "1/1000"])
def test_unsampled_gaussian_advantage(a):
    r = noise_scale(unsampled, 0, a)
    assert contains(r, unsampled_sigma(Fraction(a)))
    low, high = exact_rational(r.lower), exact_rational(r.upper)
    assert high - low <= Fraction(1, 10 ** 4) * high and r.bound == "tight"


def test_one_poisson_step_is_the_unsampled_calibration_at_a_over_q():
    q, a = Fraction(1, 10), Fraction(1, 50)
    r = noise_scale(lambda s: (build(gaussian(s), "poisson", "add-remove", q=q), 1), 0, a,
                    width="1/1000")
    assert contains(r, unsampled_sigma(a / q))


def test_a_target_at_eps_above_zero_meets_the_delta_it_asks():
    """sigma* for (eps, delta) = (1, 1e-5): delta at the bracket's upper end is <= 1e-5 and
    at its lower end > 1e-5 (the Balle-Wang closed form, computed here)."""
    r = noise_scale(unsampled, 1, "1e-5")

    def delta(s):
        with mpmath.workdps(40):
            mu = 1 / s
            return mpmath.ncdf(mu / 2 - 1 / mu) - mpmath.e * mpmath.ncdf(-mu / 2 - 1 / mu)
    assert delta(r.upper) <= mpmath.mpf("1e-5") < delta(r.lower)


@pytest.mark.parametrize("eps, delta, message", [(0, 1, "delta must be < 1"),
                                                 (0, "3/2", "delta must lie in"),
                                                 (0, 0, f"no noise scale up to {MAX_SCALE}")])
def test_bad_targets(eps, delta, message):
    with pytest.raises(InputError, match=message):
        noise_scale(unsampled, eps, delta)


def errors_sigma(alpha: str, beta: str, steps: int):
    """sqrt(k) / (Phi^-1(1 - alpha) - Phi^-1(beta)), 40 digits (module docstring)."""
    with mpmath.workdps(40):
        inv = lambda p: -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(Fraction(p).numerator)
                                                        / Fraction(p).denominator)
        return mpmath.sqrt(steps) / (inv(1 - Fraction(alpha)) - inv(beta))


@pytest.mark.parametrize("alpha, beta, steps", [("1/10", "1/2", 1), ("1e-2", "1/4", 1),
                                                ("1/10", "1/2", 2)])
def test_unsampled_gaussian_error_rates(alpha, beta, steps):
    r = noise_scale_for_errors(lambda s: (build(gaussian(s), "none", "add-remove"), steps),
                               alpha, beta)
    assert contains(r, errors_sigma(alpha, beta, steps))
    high, low = exact_rational(r.upper), exact_rational(r.lower)
    assert high - low <= Fraction(1, 10 ** 4) * high * 2
    assert (r.alpha, r.beta_target) == (Fraction(alpha), Fraction(beta))
    assert "beta(alpha)" in r.method


@pytest.mark.parametrize("alpha, beta, message", [("1/2", "1/2", "beta must lie in"),
                                                  ("1/10", 0, "beta must lie in"),
                                                  (0, "1/2", "alpha must lie in")])
def test_bad_error_rate_targets(alpha, beta, message):
    with pytest.raises(InputError, match=message):
        noise_scale_for_errors(unsampled, alpha, beta)
