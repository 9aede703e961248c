"""Deliberately wrong accountants are flagged; the pytest helper and the command report them.

The accountants here compute from independent oracles (the quadrature oracle of
test_mechanisms_papers for 001 Sec. 5, the closed form of test_validation_cases for the
one-step subsampled Gaussian, the rationals printed in 001 App. B.1), never from refacct.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from mpmath import mp

from test_mechanisms_papers import ADD, REMOVE, SEC5, oracle
from test_validation_cases import mixture_delta
from refacct.testing import assert_sound
from refacct.validation import load_cases, select, user_accountant, validate
from refacct.validation.command import main

TINY_WEIGHTS = (Fraction(99, 100), Fraction(1, 100))


def remove_only(case, query):
    """001 Sec. 5, k = 2: the remove direction alone (the pitfall of 001 Sec. 5)."""
    if case.name != "001-sec5-laplace-poisson-k2":
        return None
    value, _ = oracle(SEC5, REMOVE, query.text)
    return value


def both_directions(case, query):
    """The same case, max over add and remove: the truth (to the oracle's 30 digits)."""
    if case.name != "001-sec5-laplace-poisson-k2":
        return None
    return max(oracle(SEC5, ADD, query.text)[0], oracle(SEC5, REMOVE, query.text)[0])


def halved(case, query):
    """Half of the true delta of the one-step tiny-delta case."""
    if case.name != "tiny-delta-poisson-gaussian-k1" or query.kind != "delta":
        return None
    with mp.workdps(40):
        return mixture_delta(TINY_WEIGHTS, query.at) / 2


def rr_add_only(case, query):
    """001 App. B.1 with the add direction only: H_4/3 = 11/48 (right), H_2 = 1/16 (the
    truth is 1/8)."""
    if case.name != "001-B1-rr-poisson-k2" or query.kind != "alpha":
        return None
    return {Fraction(4, 3): Fraction(11, 48), Fraction(2): Fraction(1, 16)}[query.at]


def _verdicts(fn, pattern):
    rows = validate([user_accountant(f"{__name__}:{fn.__name__}")],
                    select(load_cases(), [pattern]))
    return {r.query.text: r.verdict.verdict for r in rows if r.verdict.verdict != "n/a"}


def test_remove_only_is_unsound_before_the_crossing():
    """Below eps ~ 0.6975071127 add dominates: remove alone is below the truth there."""
    got = _verdicts(remove_only, "001-sec5-laplace-poisson-k2")
    assert got == {"1/4": "unsound", "3/10": "unsound", "1/2": "unsound",
                   "0.69750711265": "unsound", "0.69750711275": "sound", "9/10": "sound",
                   "3/2": "sound"}


def test_the_maximum_of_both_directions_is_sound():
    assert set(_verdicts(both_directions, "001-sec5-laplace-poisson-k2").values()) == {"sound"}


def test_halved_delta_is_unsound_and_the_helper_says_where():
    assert set(_verdicts(halved, "tiny-delta-poisson-gaussian-k1").values()) == {"unsound"}
    with pytest.raises(AssertionError) as info:
        assert_sound(halved, cases=["tiny-delta-poisson-gaussian-k1"])
    message = str(info.value)
    assert "3 of 6 answers unsound or failed" in message
    assert "tiny-delta-poisson-gaussian-k1: delta(eps=17): reference 1.60600618035377e-102 ± " in message
    assert "reported mpf('8.03003090176887" in message and "-> unsound" in message


def test_randomized_response_add_only_misses_the_switch():
    assert _verdicts(rr_add_only, "001-B1-rr-poisson-k2") == {"4/3": "sound", "2": "unsound"}


def test_assert_sound_passes_a_sound_accountant():
    assert_sound(both_directions, cases=["001-sec5-*"])


def test_lower_bound_accountant_is_judged_the_other_way():
    """Twice the truth declared an upper bound: loose (passes); declared a lower bound:
    unsound."""
    def doubled(case, query):
        return None if (value := halved(case, query)) is None else 4 * value
    assert_sound(doubled, cases=["tiny-delta-*"])
    doubled.claims = "lower"
    with pytest.raises(AssertionError, match="lower bound above the truth"):
        assert_sound(doubled, cases=["tiny-delta-poisson-gaussian-k1"])


def test_command_exit_codes_and_formats(capsys):
    """validate: 1 with an unsound answer, 0 without; 2 on bad usage; json and markdown."""
    assert main(["--accountant", f"{__name__}:halved", "--cases", "tiny-delta-poisson-gaussian-k1",
                 "--format", "json"]) == 1
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["verdict"] for r in rows} == {"unsound"} and len(rows) == 3
    assert main(["validate", "--accountant", f"{__name__}:both_directions",
                 "--cases", "001-sec5-laplace-poisson-k2", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| accountant | claims | case |") and out.count("| sound |") == 7
    assert main(["--accountant", "no_such_peer", "--cases", "x*"]) == 2
    assert main(["--accountant", f"{__name__}:halved", "--cases", "no-such-case"]) == 2


def test_cases_listing(capsys):
    assert main(["cases", "--cases", "001-B1-*"]) == 0
    out = capsys.readouterr().out
    assert "001-B1-rr-poisson-k2-remove" in out and "H_alpha(alpha=4/3)" in out


def rr_rising(case, query):
    """The right H_4/3 = 11/48 but H_2 = 1/4 > 11/48: sound-looking values that rise with
    alpha (H_alpha is non-increasing)."""
    if case.name != "001-B1-rr-poisson-k2" or query.kind != "alpha":
        return None
    return {Fraction(4, 3): Fraction(11, 48), Fraction(2): Fraction(1, 4)}[query.at]


def test_a_rising_curve_is_failed():
    assert _verdicts(rr_rising, "001-B1-rr-poisson-k2") == {"4/3": "sound", "2": "failed"}


def _gaussian_curve(case, query, scale):
    """G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu) of the unsampled add-remove Gaussian
    (Dong, Roth, Su 2019, arXiv:1905.02383), mu = scale sqrt(T) / sigma, at 40 digits."""
    if query.kind != "beta" or not case.name.startswith("tradeoff-gauss-none-"):
        return None
    with mp.workdps(40):
        s, a = case.param("sigma"), query.at
        mu = scale * mp.sqrt(case.steps) * s.denominator / s.numerator
        return mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a.numerator) / a.denominator - 1) - mu)


def gdp_exact(case, query):
    return _gaussian_curve(case, query, 1)


def gdp_half_mu(case, query):
    return _gaussian_curve(case, query, Fraction(1, 2))


def gdp_double_mu(case, query):
    return _gaussian_curve(case, query, 2)


@pytest.mark.parametrize("fn, verdict", [(gdp_exact, "sound"), (gdp_half_mu, "unsound"),
                                         (gdp_double_mu, "loose")])
def test_trade_off_answers_are_judged_as_lower_bounds(fn, verdict):
    """An upper-bound accountant's beta is a guarantee when at most the truth: the exact
    curve is sound, the curve of half the mu (less privacy loss claimed, beta too large)
    unsound, the curve of twice the mu (beta too small) loose."""
    rows = validate([user_accountant(f"{__name__}:{fn.__name__}")],
                    select(load_cases(suite="conformance"), ["tradeoff-gauss-none-*"]))
    got = [r.verdict.verdict for r in rows if r.verdict.verdict != "n/a"]
    assert len(got) == 12 and set(got) == {verdict}
