"""The printed value +- the printed bound contains the truth, in every output format
: the bound covers the rounding of the printed digits.

Oracles, independent of refacct: the Gaussian closed forms (erfc at 60 digits), the exact
rationals of 001 App. B.1, and hand-made exact references.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from mpmath import mp

from refacct import Discrete, Gaussian, Mixture, Pair, delta, epsilon, hockey_stick
from refacct.cli import main
from refacct.result import printed
from refacct.validation.cases import Reference, show_reference


def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def shift_delta(mu, eps):
    """delta(eps) of N(mu, 1) vs N(0, 1) (Balle and Wang 2018, Thm. 8)."""
    return Phi(mu / 2 - eps / mu) - mp.exp(eps) * Phi(-mu / 2 - eps / mu)


def inside(value: str, bound: str, truth) -> bool:
    with mp.workdps(80):
        v, b = mp.mpf(value), mp.mpf(bound)
        return v - b <= truth <= v + b


# the issue's pair: P = 99/100 N(0, 1/4) + 1/100 N(1, 1/4), Q = N(0, 1/4) (variance 1/4);
# delta(0) = TV = (1/100) (2 Phi(1) - 1)
SUB = {"P": [{"mixture": [["99/100", {"gaussian": {"mean": 0, "sigma": "1/2"}}],
                          ["1/100", {"gaussian": {"mean": 1, "sigma": "1/2"}}]]}],
       "Q": [{"gaussian": {"mean": 0, "sigma": "1/2"}}]}
SUB_PAIR = Pair(Mixture([("99/100", Gaussian(0, "1/2")), ("1/100", Gaussian(1, "1/2"))]),
                Gaussian(0, "1/2"))


def sub_truth():
    with mp.workdps(80):
        return (2 * Phi(mp.mpf(1)) - 1) / 100


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


@pytest.fixture
def sub_file(tmp_path):
    path = tmp_path / "sub.json"
    path.write_text(json.dumps(SUB), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("digits", ["5", "25"])
def test_cli_json_and_table_of_the_issue(capsys, sub_file, digits):
    record, = json.loads(run(capsys, "delta", "--pair", sub_file, "--eps", "0", "--digits",
                             digits, "--json"))
    assert inside(record["delta"], record["abs_error"], sub_truth())
    header, rule, row = run(capsys, "delta", "--pair", sub_file, "--eps", "0", "--digits",
                            digits).splitlines()
    value, bound = row.split()[1:3]
    assert inside(value, bound, sub_truth())


@pytest.mark.parametrize("digits", [5, 25])
def test_str_of_a_result(digits):
    text = str(delta(SUB_PAIR, 0, digits=digits))
    value, bound = text.replace("(± ", "").rstrip(")").split()
    assert inside(value, bound, sub_truth())


def test_exact_rational_printed_with_few_digits(capsys, tmp_path):
    """H_{4/3}(P || Q) of randomized response 3/4 vs 1/2, two steps, is 11/48 (001 App.
    B.1): at 5 digits "0.22917" is 3.3e-6 from it, and the bound says so."""
    path = tmp_path / "rr.json"
    path.write_text(json.dumps({"P": [{"discrete": {"0": "3/4", "1": "1/4"}}],
                                "Q": [{"discrete": {"0": "1/2", "1": "1/2"}}], "steps": 2}))
    record, = json.loads(run(capsys, "delta", "--pair", str(path), "--alpha", "4/3",
                             "--digits", "5", "--json"))
    assert record["exact"] == "11/48"
    assert inside(record["delta"], record["abs_error"], mp.mpf(11) / 48)
    assert mp.mpf(record["abs_error"]) >= abs(mp.mpf(record["delta"]) - mp.mpf(11) / 48)
    rr = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/2", 1: "1/2"}))
    assert str(hockey_stick(rr ** 2, alpha="4/3", digits=5)) == "11/48"


@pytest.mark.parametrize("digits", ["5", "25"])
def test_epsilon_record_brackets_the_root(capsys, tmp_path, digits):
    """eps(1e-6) of N(1, 1) vs N(0, 1): the printed interval [e - b, e + b] brackets the
    root of the closed form (delta is decreasing)."""
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"P": [{"gaussian": {"mean": 1, "sigma": 1}}],
                                "Q": [{"gaussian": {"mean": 0, "sigma": 1}}]}))
    record, = json.loads(run(capsys, "epsilon", "--pair", str(path), "--delta", "1e-6",
                             "--digits", digits, "--json"))
    with mp.workdps(80):
        e, b = mp.mpf(record["eps"]), mp.mpf(record["abs_error"])
        target = mp.mpf("1e-6")
        assert shift_delta(mp.mpf(1), e - b) >= target >= shift_delta(mp.mpf(1), e + b)
    text = str(epsilon(Pair(Gaussian(1, 1), Gaussian(0, 1)), "1e-6", digits=int(digits)))
    value, bound = text.replace("(± ", "").rstrip(")").split()
    with mp.workdps(80):
        e, b = mp.mpf(value), mp.mpf(bound)
        assert shift_delta(mp.mpf(1), e - b) >= target >= shift_delta(mp.mpf(1), e + b)


@pytest.mark.parametrize("digits", ["7", "22"])
def test_catalogue_record(capsys, digits):
    """The Gaussian mechanism sigma = 2, sensitivity 1: delta(1) of the shift mu = 1/2."""
    record, = json.loads(run(capsys, "delta", "gaussian", "--sigma", "2", "--eps", "1",
                             "--digits", digits, "--json"))
    with mp.workdps(80):
        truth = shift_delta(mp.mpf(1) / 2, mp.mpf(1))
    assert inside(record["delta"], record["abs_error"], truth)


@pytest.mark.parametrize("value, err, digits", [
    ("0.1234567890123456789", "1e-20", 12),
    ("6.3901973256465056048e-11", "1.93e-31", 12),
    ("0.99999999999999999999997", "1e-30", 20),
    ("2/3", "0", 5),
])
def test_validation_report_reference_covers_the_reference_interval(value, err, digits):
    """A stored reference value v +- e printed with fewer digits: the printed interval
    contains all of [v - e, v + e]."""
    ref = Reference(Fraction(value), Fraction(err), "20", "test", "add", "tight")
    shown_value, bound = show_reference(ref, digits).split(" ± ")
    low, high = Fraction(value) - Fraction(err), Fraction(value) + Fraction(err)
    assert Fraction(shown_value) - Fraction(bound) <= low
    assert high <= Fraction(shown_value) + Fraction(bound)


@pytest.mark.parametrize("numerator, denominator", [(1, 3), (2, 3), (10 ** 30 - 1, 10 ** 30),
                                                    (1, 7 * 10 ** 40), (123456789, 1000)])
@pytest.mark.parametrize("digits", [1, 3, 20])
def test_printed_interval_contains_the_value_interval(numerator, denominator, digits):
    """For an exact rational value and for an mpf of 330 bits, with a bound e: every truth
    in [value - e, value + e] lies in [printed - bound, printed + bound]."""
    e = Fraction(1, 10 ** 45)
    with mp.workprec(330):
        v = mp.mpf(numerator) / denominator
        e_mpf = mp.mpf(1) / 10 ** 45
    man, exp = v.man_exp
    v_exact = Fraction(man) * Fraction(2) ** exp
    e_exact = Fraction(*e_mpf.man_exp) if e_mpf.man_exp[1] >= 0 else \
        Fraction(e_mpf.man_exp[0], 2 ** -e_mpf.man_exp[1])
    for value, err, centre, width in ((Fraction(numerator, denominator), e,
                                        Fraction(numerator, denominator), e),
                                       (v, e_mpf, v_exact, e_exact)):
        text, bound = printed(value, err, digits)
        assert abs(Fraction(text) - centre) + width <= Fraction(bound)
