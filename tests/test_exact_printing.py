"""Exact results of many compositions print, whatever their size, and the command
line tells bad input (exit 2) from an internal failure (exit 1).

Oracles, independent of refacct's engines:
* randomized response 3/4 vs 1/4 composed k times: with j the number of zeros drawn,
  P_j = C(k, j) 3^j / 4^k and Q_j = C(k, j) 3^(k-j) / 4^k, so H_alpha for alpha = 3^m is
  the exact binomial sum sum_j C(k, j) (3^j - 3^(m + k - j))_+ / 4^k, computed here in
  integers;
* the (0, delta_1) pair P = {0: d, 1: 1 - d}, Q = {1: 1 - d, 2: d}: the privacy loss of
  k steps is +inf when P draws a 0, else 0 or -inf, so delta(eps) = 1 - (1 - d)^k for every
  eps >= 0, an exact rational.
Full rationals read back from files are parsed with ``decimal`` (which has no int-to-string
limit), not with refacct's own conversion.
"""
from __future__ import annotations

import json
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from mpmath import mp

import refacct
from conftest import run_cli
from refacct import Discrete, Pair, delta, epsilon, hockey_stick
from refacct.cli import main
from refacct.errors import InputError

RR = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/4", 1: "3/4"}))
RR_SPEC = {"P": [{"discrete": {"0": "3/4", "1": "1/4"}}],
           "Q": [{"discrete": {"0": "1/4", "1": "3/4"}}]}
D1 = Fraction(1, 10 ** 7)
ZD = Pair(Discrete({0: D1, 1: 1 - D1}), Discrete({1: 1 - D1, 2: D1}))
ZD_SPEC = {"P": [{"discrete": {"0": "1e-7", "1": "9999999/10000000"}}],
           "Q": [{"discrete": {"1": "9999999/10000000", "2": "1e-7"}}]}


def rr_sums(k: int, first: int):
    """(A, B) = (sum_{j >= first} P_j, sum_{j >= first} Q_j) for randomized response."""
    a = b = 0
    c = 1
    for j in range(k + 1):
        if j >= first:
            a += c * 3 ** j
            b += c * 3 ** (k - j)
        c = c * (k - j) // (j + 1)
    return Fraction(a, 4 ** k), Fraction(b, 4 ** k)


def rr_hockey(k: int, m: int) -> Fraction:
    """H_alpha at alpha = 3^m: the outcomes with 3^j > 3^(m + k - j), i.e. 2j > m + k."""
    first = (m + k) // 2 + 1
    a, b = rr_sums(k, first)
    return a - 3 ** m * b


def zd_delta(k: int) -> Fraction:
    return 1 - (1 - D1) ** k


def from_text(text: str) -> Fraction:
    """A full 'n/d' read with decimal (no int-to-string limit)."""
    with localcontext() as ctx:
        ctx.prec = 10 ** 6
        num, _, den = text.partition("/")
        return Fraction(int(Decimal(num)), int(Decimal(den)) if den else 1)


def decimal_close(text: str, truth: Fraction, abs_error: str = "0") -> bool:
    """The printed decimal lies within its bound plus the rounding of its last digit."""
    digits = text.lstrip("-").replace(".", "").lstrip("0").split("e")[0]
    with localcontext() as ctx:
        ctx.prec = 200
        printed = Decimal(text)
        last = Decimal(10) ** (printed.adjusted() - len(digits) + 1)
        return abs(Fraction(printed) - truth) <= Fraction(Decimal(abs_error)) + Fraction(last)


@pytest.fixture
def spec(write):
    return lambda obj, k: write({**obj, "steps": k})


run = run_cli


# --- the Python API: str and repr ----------------------------------------------------------

@pytest.mark.parametrize("k, shown_in_full", [(1000, True), (10_000, False)])
def test_randomized_response_hockey_stick_prints(k, shown_in_full):
    """alpha = 3^(k/2): the exact rational equals the binomial sum; str / repr never hit
    Python's int-to-string limit, and the interpreter's limit is left as it was."""
    limit = sys.get_int_max_str_digits()
    m = k // 2
    r = hockey_stick(RR ** k, alpha=3 ** m)
    truth = rr_hockey(k, m)
    assert r.exact == truth
    text, rep = str(r), repr(r)
    assert sys.get_int_max_str_digits() == limit
    if shown_in_full:   # 4^1000 has 603 digits
        assert from_text(text) == truth
        assert f"exact=Fraction('{text}')" in rep
    else:               # 4^10000 has 6021
        assert "exact: a " in text and "-digit denominator" in text
        assert decimal_close(text.split(" ")[0], truth)
        assert "exact=<exact rational: a " in rep


@pytest.mark.parametrize("k", [1000, 10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_zero_delta_pair_prints(k):
    """delta(0) = 1 - (1 - 1e-7)^k exactly; eps(delta) is 0 at that delta and +inf just
    below it.  About 9 s at k = 10^5 (a 700000-digit rational)."""
    truth = zd_delta(k)
    r = delta(ZD ** k, 0)
    assert r.exact == truth
    assert "-digit numerator" in str(r) and "<exact rational:" in repr(r)
    assert decimal_close(str(r).split(" ")[0], truth)
    assert epsilon(ZD ** k, truth).value == 0
    assert epsilon(ZD ** k, truth - Fraction(1, 10 ** 12)).value == mp.inf


def test_randomized_response_epsilon_exact_form():
    """eps(1e-3) at k = 1000: the exact form (A, B), eps = ln((A - delta) / B), has A and B
    the binomial sums over the outcomes whose loss exceeds eps; repr survives A and B of
    more than 4300 digits."""
    k, target = 1000, Fraction(1, 1000)
    # delta at the loss atom (2m - k) ln 3 is H_{3^(2m - k)}; the first m where it is below
    # the target puts eps in ((2m - k - 2) ln 3, (2m - k) ln 3], where L > eps means j >= m
    m = next(m for m in range(k // 2, k + 1) if rr_hockey(k, 2 * m - k) <= target)
    a, b = rr_sums(k, m)
    r = epsilon(RR ** k, target)
    assert r.exact_form == (a, b)
    with mp.workdps(60):
        truth = mp.log((mp.mpf(a.numerator) / a.denominator - mp.mpf(target.numerator)
                        / target.denominator) / (mp.mpf(b.numerator) / b.denominator))
        assert abs(r.value - truth) <= r.abs_error
    assert "exact_form=(" in repr(r)


# --- the command line: table, --json, --exact-file ---------------------------------------

def test_cli_randomized_response_10000_steps(capsys, spec, tmp_path):
    """The issue's query, through the catalogue: exit 0, delta(1) within its bound of the
    closed form A - e B (the outcomes with (2j - k) ln 3 > 1, i.e. 2j > k)."""
    status, out, err = run(capsys, "delta", "rr", "--p", "3/4", "--relation", "add",
                           "--steps", "10000", "--eps", "1", "--json")
    assert status == 0, err
    record, = json.loads(out)
    assert "exact_form_size" in record and "exact_form" not in record
    a, b = rr_sums(10_000, 10_000 // 2 + 1)
    with mp.workdps(60):
        truth = mp.mpf(a.numerator) / a.denominator - mp.e * mp.mpf(b.numerator) / b.denominator
        assert abs(mp.mpf(record["delta"]) - truth) <= mp.mpf(record["abs_error"]) + mp.mpf("1e-19")


@pytest.mark.parametrize("k", [1000, 10_000])
def test_cli_hockey_stick_table_json_and_exact_file(capsys, spec, tmp_path, k):
    path = spec(RR_SPEC, k)
    m = k // 2
    truth = rr_hockey(k, m)
    exact_file = tmp_path / "exact.json"
    status, out, err = run(capsys, "delta", "--pair", path, "--alpha", str(3 ** m), "--json",
                           "--exact-file", str(exact_file))
    assert status == 0, err
    record, = json.loads(out)
    assert decimal_close(record["delta"], truth, record["abs_error"])
    if k == 1000:
        assert from_text(record["exact"]) == truth
    else:
        assert "exact" not in record and record["exact_size"].endswith("-digit denominator")
    written, = json.loads(exact_file.read_text(encoding="utf-8"))
    assert from_text(written["exact"]) == truth
    status, out, err = run(capsys, "delta", "--pair", path, "--alpha", str(3 ** m))
    assert status == 0, err
    assert ("--exact-file writes it" in out) == (k == 10_000)


@pytest.mark.parametrize("k", [1000, 10_000])
def test_cli_zero_delta_pair(capsys, spec, tmp_path, k):
    path = spec(ZD_SPEC, k)
    truth = zd_delta(k)
    exact_file = tmp_path / "exact.json"
    status, out, err = run(capsys, "delta", "--pair", path, "--eps", "0", "1", "--json",
                           "--exact-file", str(exact_file))
    assert status == 0, err
    at0, at1 = json.loads(out)
    assert decimal_close(at0["delta"], truth, at0["abs_error"])
    assert decimal_close(at1["delta"], truth, at1["abs_error"])
    written = json.loads(exact_file.read_text(encoding="utf-8"))
    assert from_text(written[0]["exact"]) == truth
    assert from_text(written[1]["exact_form"]["A"]) == truth
    status, out, err = run(capsys, "epsilon", "--pair", path, "--delta", "1/100")
    assert status == 0, err
    assert "0.0" in out.splitlines()[2].split()[1]   # 1 - (1 - 1e-7)^k < 1/100: eps = 0


# --- exit codes ------------------------------------------------------------------------------

@pytest.mark.parametrize("error, status, words", [
    (ValueError("boom"), 1, "internal error (ValueError: boom); please report it"),
    (ZeroDivisionError("division by zero"), 1, "numerical failure: division by zero"),
    (KeyError("x"), 1, "internal error (KeyError"),
    (InputError("eps must be finite, got nan"), 2, "refacct: error: eps must be finite"),
])
def test_internal_error_exits_1_bad_input_exits_2(capsys, monkeypatch, error, status, words):
    """An injected failure inside the computation: only InputError is the user's."""
    def failing(*args, **kwargs):
        raise error
    monkeypatch.setattr(refacct.cli.api, "answer", failing)
    got, out, err = run(capsys, "delta", "gaussian", "--sigma", "1", "--eps", "1")
    assert got == status
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_debug_shows_the_internal_error(monkeypatch):
    def failing(*args, **kwargs):
        raise ValueError("boom")
    monkeypatch.setattr(refacct.cli.api, "answer", failing)
    with pytest.raises(ValueError, match="boom"):
        main(["delta", "gaussian", "--sigma", "1", "--eps", "1", "--debug"])
    with pytest.raises(ValueError, match="boom"):
        main(["--debug", "delta", "gaussian", "--sigma", "1", "--eps", "1"])


def test_bad_input_is_an_input_error_and_a_value_error():
    """The Python API's contract: bad input raises a ValueError (an InputError)."""
    with pytest.raises(InputError, match="eps"):
        delta(RR, "nan")
    with pytest.raises(ValueError):
        delta(RR, "nan")
    with pytest.raises(TypeError):
        Discrete({0: True})


def test_exit_codes_are_documented(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert "exit status: 0 success; 1" in " ".join(out.split())
    assert "internal error" in out and "2 bad input" in " ".join(out.split())


# --- stored exact values: sweep caches and validation case files ----------------------------

BIG = Fraction(3 ** 20000, 2 ** 30001 + 1)   # 9543 digits over 9031


def test_sweep_cache_encoding_round_trips_large_rationals():
    from refacct.sweep import decode, encode
    values = [BIG, 7 ** 9000, -(5 ** 7000)]
    assert decode(json.loads(json.dumps(encode(values)))) == values


def test_case_file_reads_a_large_exact_reference():
    """A reference whose "exact" is a 9000-digit rational (written with decimal here)."""
    from refacct.validation.cases import Reference
    with localcontext() as ctx:
        ctx.prec = 10 ** 5
        text = f"{Decimal(BIG.numerator)}/{Decimal(BIG.denominator)}"
    ref = Reference.from_json({"value": "0.5", "abs_error": "0", "verified_digits": "exact",
                               "method": "test", "attained_by": "add", "bound": "tight",
                               "exact": text})
    assert ref.exact == BIG


def test_rationals_and_exponents_beyond_exact_rounding_print_with_a_true_bound():
    """Past ``EXACT_EXPONENT_BITS`` the distance from the printed digits to the value comes
    from Arb balls: still an upper bound.  Checked exactly: the rational 3^70000 / 2^120000
    (111000-bit numerator) lies within the printed value +- bound, by cross-multiplication
    with the decimal ends; an mpf of exponent -2^20 at 300 bits likewise."""
    from refacct.result import EXACT_EXPONENT_BITS, printed
    x = Fraction(3 ** 70000, 2 ** 120000)
    assert x.numerator.bit_length() > EXACT_EXPONENT_BITS
    text, bound = printed(x, 0, 20)
    lo, hi = Fraction(text) - Fraction(bound), Fraction(text) + Fraction(bound)
    assert lo <= x <= hi and hi - lo < Fraction(text) / 10 ** 18
    with mp.workprec(300):
        y = mp.mpf(3) ** 150 * mp.mpf(2) ** -(2 ** 20)  # exact: 3^150 has 238 bits
    text, bound = printed(y, 0, 25)
    (mantissa, exponent), (width, bound_exponent) = text.split("e"), bound.split("e")
    e = int(exponent)  # compare y 10^-e with mantissa +- bound 10^-e, exact rationals
    scaled = Fraction(3) ** 150 * Fraction(2) ** -(2 ** 20) * Fraction(10) ** -e
    m, b = Fraction(mantissa), Fraction(width) * Fraction(10) ** (int(bound_exponent) - e)
    assert m - b <= scaled <= m + b and b < m / 10 ** 23
