"""``refacct reproduce`` and its data (refacct.reproduce).

Oracles: the exact rationals printed in 001 App. B.1 (and exact enumeration of the four
outcomes, written out here), 002 Prop. 3.1's closed form evaluated with mpmath.erfc at
60 digits, and hand-made results for the verdict logic."""
from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest
from mpmath import mp

import refacct.reproduce as rp
from refacct.cli import main

PAPERS_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "papers"


def mpq(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def prop_3_1(eps, sigma):
    """002 Prop. 3.1: delta_D(eps) = Phi(-sigma eps + 1/(2 sigma)) - e^eps Phi(-sigma eps - 1/(2 sigma))."""
    Phi = lambda x: mp.erfc(-x / mp.sqrt(2)) / 2  # noqa: E731
    return Phi(-sigma * eps + 1 / (2 * sigma)) - mp.exp(eps) * Phi(-sigma * eps - 1 / (2 * sigma))


def rows_by_value():
    return {r.paper_value: r for r in rp.REPRODUCTIONS}


# --- the rows ---------------------------------------------------------------------------

def test_001_appendix_b1_rows_are_exact():
    """001 App. B.1 prints 11/48, 1/6, 1/16, 1/8; recompute them by enumerating the four
    outcomes of two steps here, and check refacct returns exactly these rationals."""
    P, Q = {0: Fraction(3, 4), 1: Fraction(1, 4)}, {0: Fraction(1, 2), 1: Fraction(1, 2)}
    outcomes = list(itertools.product((0, 1), repeat=2))
    pp = {o: P[o[0]] * P[o[1]] for o in outcomes}
    qq = {o: Q[o[0]] * Q[o[1]] for o in outcomes}

    def H(a, b, alpha):
        return sum(max(a[o] - alpha * b[o], Fraction(0)) for o in outcomes)

    enumerated = {"11/48": H(pp, qq, Fraction(4, 3)), "1/6": H(qq, pp, Fraction(4, 3)),
                  "1/16": H(pp, qq, 2), "1/8": H(qq, pp, 2)}
    assert enumerated == {k: Fraction(k) for k in enumerated}
    rows = rows_by_value()
    for printed, value in enumerated.items():
        outcome = rp.run(rows[printed])
        assert outcome.result.exact == value
        assert outcome.verdict == "yes"
        assert outcome.value_text == printed


@pytest.mark.parametrize("paper_value, sigma, eps", [("0.244", "0.4", 4)])
def test_002_delta_row_matches_prop_3_1(paper_value, sigma, eps):
    outcome = rp.run(rows_by_value()[paper_value], digits=25)
    with mp.workdps(60):
        oracle = prop_3_1(mpq(eps), mpq(sigma))
        assert abs(mp.mpf(outcome.result.value) - oracle) <= outcome.result.abs_error
    assert outcome.result.verified_digits >= 25
    assert outcome.verdict == "yes"


@pytest.mark.parametrize("paper_value, sigma, target", [("10.997", "0.5", "1e-6"),
                                                        ("6.652", "0.7", "1e-5")])
def test_002_epsilon_rows_match_the_root_of_prop_3_1(paper_value, sigma, target):
    outcome = rp.run(rows_by_value()[paper_value], digits=20)
    with mp.workdps(60):
        s, t = mpq(sigma), mpq(target)
        root = mp.findroot(lambda e: mp.log(prop_3_1(e, s)) - mp.log(t), mpq(paper_value))
        assert abs(prop_3_1(root, s) / t - 1) < mp.mpf(10) ** -45
        assert abs(mp.mpf(outcome.result.value) - root) <= outcome.result.abs_error
    assert outcome.verdict == "yes"


def test_every_row_agrees_today():
    outcomes = rp.run_all(20)
    assert len(outcomes) == len(rp.REPRODUCTIONS) >= 7
    assert [o.verdict for o in outcomes] == [r.expect for r in rp.REPRODUCTIONS]
    assert all(o.as_expected for o in outcomes)


@pytest.mark.skipif(not PAPERS_DIR.is_dir(), reason="../shared/papers not available")
@pytest.mark.parametrize("row", rp.REPRODUCTIONS, ids=lambda r: f"{r.paper}-{r.paper_value}")
def test_quotes_are_verbatim_from_the_paper_and_contain_the_number(row):
    text = (PAPERS_DIR / rp.PAPERS[row.paper][0]).read_text(encoding="utf-8")
    assert row.quote in text
    assert row.paper_value in row.quote


def test_rows_are_well_formed():
    for row in rp.REPRODUCTIONS:
        assert row.reading in rp.READINGS and row.expect in ("yes", "no", "undecided")
        rp.paper_interval(row.paper_value, row.reading)  # parses
        if row.expect != "yes":
            assert row.note, "a documented disagreement needs a note"
    with pytest.raises(ValueError, match="reading"):
        rp.Reproduction("001", "x", "x", "1", "1", "approximately", lambda d: None, "")
    with pytest.raises(ValueError, match="paper"):
        rp.Reproduction("999", "x", "x", "1", "1", "exact", lambda d: None, "")


# --- verdicts -----------------------------------------------------------------------------

def result(value, err, exact=None):
    """A stand-in for a DeltaResult: value and bound given as exact decimals (Fractions, so
    the edges of a rounding interval are hit exactly; ``verdict`` accepts Fractions)."""
    return SimpleNamespace(value=Fraction(value), abs_error=Fraction(err), exact=exact)


def test_verdict_exact():
    assert rp.verdict(result(0, 0, exact=Fraction(11, 48)), "11/48", "exact") == "yes"
    assert rp.verdict(result(0, 0, exact=Fraction(11, 47)), "11/48", "exact") == "no"
    # a numerical value is never "yes" against an exact rational, only undecided or no
    assert rp.verdict(result(Fraction(11, 48), "1e-30"), "11/48", "exact") == "undecided"
    assert rp.verdict(result("0.3", "1e-30"), "11/48", "exact") == "no"


@pytest.mark.parametrize("value, err, paper, reading, expected", [
    # rounded: the truth must lie in [x - u/2, x + u/2]
    ("0.24381989734", "1e-20", "0.244", "rounded", "yes"),
    ("0.2435", "0", "0.244", "rounded", "yes"),            # edges belong to the interval
    ("0.2445", "0", "0.244", "rounded", "yes"),
    ("0.24349", "1e-9", "0.244", "rounded", "no"),
    ("0.2446", "1e-9", "0.244", "rounded", "no"),
    ("0.2445", "1e-6", "0.244", "rounded", "undecided"),   # bound straddles the edge
    ("10.9971512", "1e-19", "10.997", "rounded", "yes"),
    ("10.9976", "1e-19", "10.997", "rounded", "no"),       # would only agree if truncated
    ("1.17e-5", "1e-12", "1.18e-5", "upper", "yes"),
    ("1.19e-5", "1e-12", "1.18e-5", "upper", "no"),
    ("1.18e-5", "1e-12", "1.18e-5", "upper", "undecided"),
    ("0.23", "1e-9", "0.226", "lower", "yes"),
    ("0.2", "1e-9", "0.226", "lower", "no"),
])
def test_verdict(value, err, paper, reading, expected):
    assert rp.verdict(result(value, err), paper, reading) == expected


def test_verdict_takes_mpf_results():
    with mp.workdps(30):
        r = SimpleNamespace(value=mp.mpf("0.2438"), abs_error=mp.mpf("1e-25"), exact=None)
    assert rp.verdict(r, "0.244", "rounded") == "yes"


def test_verdict_of_infinite_eps():
    inf = SimpleNamespace(value=mp.inf, abs_error=mp.zero, exact=None)
    assert rp.verdict(inf, "10", "lower") == "yes"
    assert rp.verdict(inf, "10", "rounded") == "no"


def test_paper_interval_uses_the_printed_digits():
    assert rp.paper_interval("0.244", "rounded") == (Fraction(2435, 10000), Fraction(2445, 10000))
    assert rp.paper_interval("10.997", "rounded") == (Fraction(109965, 10**4),
                                                      Fraction(109975, 10**4))
    assert rp.paper_interval("1.18e-5", "upper") == (None, Fraction(118, 10**7))
    assert rp.paper_interval("11/48", "exact") == (Fraction(11, 48), Fraction(11, 48))


@pytest.mark.parametrize("err, text", [
    ("0.75", "7.50e-1"), ("1", "1.00e0"), ("0.0009765625", "9.77e-4"), ("1024", "1.03e3"),
    ("1e-20", None), ("5.8123e-29", None), ("9.999e-5", None), ("123456.7", None), (0, "0"),
])
def test_format_bound_rounds_up(err, text):
    """Three significant digits, never below the bound itself (dyadic cases are exact)."""
    with mp.workdps(30):
        e = mp.mpf(err)
    out = rp.format_bound(e)
    if text is not None:
        assert out == text
    if e:
        man, exp = e.man_exp
        exact = Fraction(man) * Fraction(2) ** exp
        printed = Fraction(out)
        assert printed >= exact
        mantissa, exponent = out.split("e")
        assert len(mantissa.replace(".", "")) == 3
        assert printed - exact < Fraction(10) ** (int(exponent) - 2)


# --- the command ----------------------------------------------------------------------------

def test_reproduce_command_writes_the_markdown(capsys, tmp_path):
    path = tmp_path / "out" / "reproduce.md"
    status = main(["reproduce", "--markdown", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert err == ""
    n = len(rp.REPRODUCTIONS)
    assert f"{n} of {n} rows agree" in out
    header = out.splitlines()[0].split()
    assert header[:4] == ["#", "paper", "section", "quantity"]
    assert out.isascii()
    md = path.read_text(encoding="utf-8")
    table = [line for line in md.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(table) == n
    assert all(line.rstrip().endswith("| yes |") for line in table)
    assert "| 1 | 001 | App. B.1 |" in table[0] and "| 11/48 | 11/48 | exact | yes |" in table[0]
    assert "0.24381989734235754311" in md
    assert "## Sources" in md and "≈ 0.244" in md


def test_reproduce_markdown_is_deterministic(capsys, tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    assert main(["reproduce", "--markdown", str(a), "--digits", "15"]) == 0
    assert main(["reproduce", "--markdown", str(b), "--digits", "15"]) == 0
    capsys.readouterr()
    assert a.read_text() == b.read_text()
    assert "--digits 15" in a.read_text()


def test_unexpected_disagreement_exits_1(capsys, tmp_path, monkeypatch):
    """A paper value refacct does not reproduce is printed as "no", never bent, and makes
    the command fail unless the row documents it (expect="no" and a note)."""
    good = rows_by_value()["0.244"]
    wrong = rp.Reproduction(good.paper, good.section, good.quantity, "≈ 0.245", "0.245",
                            "rounded", good.compute, good.quote)
    documented = rp.Reproduction(good.paper, good.section, good.quantity, "≈ 0.245", "0.245",
                                 "rounded", good.compute, good.quote, expect="no",
                                 note="the paper's value is off")
    monkeypatch.setattr(rp, "REPRODUCTIONS", [wrong])
    status = main(["reproduce", "--markdown", str(tmp_path / "x.md")])
    out, err = capsys.readouterr()
    assert status == 1
    assert "no (expected yes)" in out
    assert "row(s) 1 differ" in err
    monkeypatch.setattr(rp, "REPRODUCTIONS", [documented])
    status = main(["reproduce", "--markdown", str(tmp_path / "y.md")])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "0 of 1 rows agree" in out and "the paper's value is off" in out
    assert "| no |" in (tmp_path / "y.md").read_text()
