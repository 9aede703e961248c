"""Products of different mechanisms: the printed interval contains the truth
whatever the factors' scales.

Oracles, independent of the composed engine:
* Gaussian shift pairs compose in closed form: the product of N(mu_i, s_i^2) vs N(0, s_i^2)
  is one shift pair with m = sqrt(sum (mu_i / s_i)^2) (rotation invariance; Balle and Wang
  2018, Thm. 8, ``conftest.balle_wang``);
* a Gaussian shift pair times a Laplace pair: a one-dimensional ``mp.quad`` (tanh-sinh) at
  40 digits over the Gaussian variable of the Laplace pair's closed-form H
  (``conftest.laplace_H``), cut at the two points where the inner beta reaches e^{+-t}.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from mpmath import mp

from conftest import balle_wang, laplace_H, mpq
from refacct import Gaussian, Laplace, Pair, delta
from refacct.cli import main
from refacct.pairs import Composition
from refacct.result import printed

F = Fraction


def shift(mu, s) -> Pair:
    return Pair(Gaussian(mu, s), Gaussian(0, s))


@pytest.fixture(params=["closed form", "quadrature"])
def engine(request, monkeypatch):
    """Both engines on the Gaussian products: the closed form of ``engines.quadrature.shift`` (one
    shift with mu^2 = sum m_i^2), and the nested quadrature these products need, with
    the recognition of shift products turned off."""
    if request.param == "quadrature":
        import refacct.hockey
        monkeypatch.setattr(refacct.hockey, "shift_squared", lambda factors: None)
    return request.param


def closed_form(ms, eps):
    """delta(eps) of the product of shift pairs with m_i = mu_i / s_i."""
    with mp.workdps(60):
        return balle_wang(eps, mp.sqrt(mp.fsum(mpq(m) ** 2 for m in ms)))


def assert_printed_contains(r, truth, what: str) -> None:
    """value +- abs_error and the printed value +- the printed bound contain the truth."""
    assert r.lower <= truth <= r.upper, f"{what}: {r} misses {mp.nstr(truth, 25)}"
    text, bound = printed(r.value, r.abs_error, r.digits)
    with mp.workdps(80):
        assert abs(mp.mpf(text) - truth) <= mp.mpf(bound), \
            f"{what}: printed {text} ± {bound} misses {mp.nstr(truth, 25)}"


def test_the_issue_reproducer(engine):
    """N(10/7, 1) x N(2, 500^2) vs N(0, 1) x N(0, 500^2) at eps = 1/2, 5 digits: the truth
    is 0.405423970259... (was reported as 0.405468 +- 2.3e-5)."""
    r = delta(Composition.of(shift(F(10, 7), 1), shift(2, 500)), F(1, 2), digits=5)
    truth = closed_form([F(10, 7), F(2, 500)], F(1, 2))
    assert 0 <= truth - mp.mpf("0.405423970259") < mp.mpf("1e-12")  # the issue's digits
    assert_printed_contains(r, truth, "reproducer")


@pytest.mark.parametrize("ratio", [1, 10, 500, 10 ** 4, F(1, 10 ** 4)])
@pytest.mark.parametrize("m2", [F(1, 250), F(1, 50), 1, 3])
@pytest.mark.parametrize("eps", [-1, F(1, 2), 3, 20])
@pytest.mark.parametrize("digits", [5, 30])
def test_two_gaussian_factors_of_any_scale(ratio, m2, eps, digits, engine):
    """N(10/7, 1) times N(m2 ratio, ratio^2): scale ratios 1e-4 .. 1e4, the second factor's
    loss from 360 times flatter to 2 times steeper than the first's."""
    pairs = [shift(F(10, 7), 1), shift(m2 * ratio, ratio)]
    r = delta(Composition.of(*pairs), eps, digits=digits)
    assert_printed_contains(r, closed_form([F(10, 7), m2], eps), f"ratio {ratio}, m2 {m2}")


@pytest.mark.slow
def test_three_gaussian_factors(engine):
    """Equal m, scales 10^5 apart: about 50 s by quadrature (a two-dimensional nested
    quadrature), at 5 digits (8 take twice as long)."""
    factors = [(1, 1), (100, 100), (F(1, 1000), F(1, 1000))]
    r = delta(Composition.of(*[shift(mu, s) for mu, s in factors]), 1, digits=5)
    assert_printed_contains(r, closed_form([F(mu) / F(s) for mu, s in factors], 1),
                            f"{factors}")


@pytest.mark.slow
def test_four_gaussian_factors_through_the_cli(tmp_path, capsys):
    """Four factors (m = 1 each, scales 1e-2 .. 1e3): the command line answers with the
    Gaussian shift closed form (engines.quadrature.shift: one shift with mu^2 = 4), and with --bracket
    a proven bracket; both must hold the closed form with m = 2, computed here."""
    factors = [(1, 1), (10, 10), (F(1, 100), F(1, 100)), (1000, 1000)]
    spec = {"P": [{"gaussian": {"mean": str(mu), "sigma": str(s)}} for mu, s in factors],
            "Q": [{"gaussian": {"mean": 0, "sigma": str(s)}} for _, s in factors]}
    path = tmp_path / "four.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    truth = closed_form([1, 1, 1, 1], 1)
    assert main(["delta", "--pair", str(path), "--eps", "1", "--json"]) == 0
    record, = json.loads(capsys.readouterr().out)
    assert "one Gaussian shift" in record["method"]
    with mp.workdps(60):
        assert abs(mp.mpf(record["delta"]) - truth) <= mp.mpf(record["abs_error"])
    assert main(["delta", "--pair", str(path), "--eps", "1", "--bracket", "--json"]) == 0
    record, = json.loads(capsys.readouterr().out)
    assert record.get("proven") is True
    assert mp.mpf(record["lower"]) <= truth <= mp.mpf(record["upper"])
    with mp.workdps(60):
        assert abs(mp.mpf(record["delta"]) - truth) <= mp.mpf(record["abs_error"])


# --- Gaussian times Laplace: a second method ------------------------------------------------

def gauss_laplace(mu, s, delta_, b, eps):
    """H_{e^eps}(N(mu, s^2) x Lap(delta_, b) || N(0, s^2) x Lap(0, b)) by tanh-sinh over the
    Gaussian variable y of p1(y) H_{beta(y)}(Lap), beta(y) = e^eps q1(y) / p1(y), cut where
    ln beta(y) = +-t (t = delta_ / b): the inner H kinks there."""
    with mp.workdps(45):
        mu, s, t, eps = mpq(mu), mpq(s), mpq(delta_) / mpq(b), mpq(eps)

        def log_beta(y):  # eps - (mu y / s^2 - mu^2 / (2 s^2)), decreasing in y
            return eps - (mu * y - mu * mu / 2) / (s * s)

        def integrand(y):
            p1 = mp.npdf(y, mu, s)
            return p1 * laplace_H(mp.exp(log_beta(y)), t)

        cuts = sorted(s * s * (eps - c) / mu + mu / 2 for c in (t, -t))
        return mp.quad(integrand, [-mp.inf] + cuts + [mp.inf])


@pytest.mark.parametrize("b", [F(1, 100), 1, 100])
@pytest.mark.parametrize("t", [F(1, 2), 2])
@pytest.mark.parametrize("eps", [0, 1])
@pytest.mark.parametrize("digits", [5, 20])
def test_gaussian_times_laplace(b, t, eps, digits):
    """N(1, 1) x Lap(t b, b): Laplace scales 1e-2 .. 1e2 times the Gaussian's."""
    pair = Composition.of(shift(1, 1), Pair(Laplace(t * b, b), Laplace(0, b)))
    r = delta(pair, eps, digits=digits)
    truth = gauss_laplace(1, 1, t * b, b, eps)
    assert_printed_contains(r, truth, f"b {b}, t {t}")
