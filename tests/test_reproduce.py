"""``refacct reproduce`` and its data (refacct.reproduce).

Oracles: the exact rationals printed in 001 App. B.1 (and exact enumeration of the four
outcomes, written out here), 002 Prop. 3.1's closed form evaluated with mpmath.erfc at
60 digits, and hand-made results for the verdict logic."""
from __future__ import annotations

import itertools
import re
from fractions import Fraction
from math import comb
from types import SimpleNamespace

import pytest
from mpmath import mp

import refacct.reproduce as rp
import test_mechanisms_papers as papers  # its LaplaceOracle and 004 enumeration
from refacct.cli import main



def mpq(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def prop_3_1(eps, sigma):
    """002 Prop. 3.1: delta_D(eps) = Phi(-sigma eps + 1/(2 sigma))
    - e^eps Phi(-sigma eps - 1/(2 sigma))."""
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


# --- the rows added for 001 Sec. 5 / 7, 002 eq. (7), 003 and 004 -----------------------

def rows_by_quantity():
    return {r.quantity: r for r in rp.REPRODUCTIONS}


@pytest.mark.parametrize("quantity, params, first, second, eps", [
    ("δ_add(0.25) − δ_remove(0.25), k = 2", papers.SEC5, papers.ADD, papers.REMOVE, "0.25"),
    ("δ_remove(1.5) − δ_add(1.5), k = 2", papers.SEC5, papers.REMOVE, papers.ADD, "1.5"),
    ("term j=0 minus the larger other at ε = 0.1", papers.SEC7, "j=0", None, "0.1"),
    ("term j=1 minus the larger other at ε = 0.4", papers.SEC7, "j=1", None, "0.4"),
    ("term j=2 minus the larger other at ε = 0.8", papers.SEC7, "j=2", None, "0.8"),
])
def test_001_laplace_rows_match_the_density_oracle(quantity, params, first, second, eps):
    """The two-step differences of 001 Sec. 5 / 7 against tests/test_mechanisms_papers.py's
    LaplaceOracle (written from the densities, no refacct code)."""
    outcome = rp.run(rows_by_quantity()[quantity], digits=15)
    if second is None:  # Sec. 7: the named term minus the larger of the two others
        mine, err = papers.oracle(params, papers.TERMS[first], eps)
        others = [papers.oracle(params, orders, eps) for label, orders in papers.TERMS.items()
                  if label != first]
        other = max(v for v, _ in others)
        err += max(e for _, e in others)
    else:
        (mine, e1), (other, e2) = (papers.oracle(params, o, eps) for o in (first, second))
        err = e1 + e2
    with mp.workdps(40):
        assert abs(outcome.result.value - (mine - other)) <= outcome.result.abs_error + err
        assert mine - other > err  # the oracle alone decides the claim
    assert outcome.verdict == "yes"


def eq7(C, sigma, T, eps):
    """002 eq. (7): 1 - e^eps + Phi(C/s)^(T-1) (e^eps Phi((C-1)/s) - Phi((C-2)/s))."""
    return 1 - mp.exp(eps) + mp.ncdf(C / sigma) ** (T - 1) * (
        mp.exp(eps) * mp.ncdf((C - 1) / sigma) - mp.ncdf((C - 2) / sigma))


def grid_max(sigma, T, eps, around):
    """The paper's method: eq. (7) maximised over a grid of C with step 0.01 (here the 101
    grid points within 0.5 of ``around``), at 40 digits."""
    with mp.workdps(40):
        s, e = mpq(sigma), mpq(eps)
        start = int(mp.floor(around * 100)) - 50
        return max(eq7(mp.mpf(c) / 100, s, T, e) for c in range(start, start + 101))


@pytest.mark.parametrize("paper_value, sigma, T, eps", [
    ("0.226", "0.4", 10000, 4), ("7.5e-5", "0.4", 10000, 12), ("0.018", "0.8", 1000, 1),
    ("1.6e-4", "0.8", 1000, 4), ("0.004", "1", 1000, 1), ("4.38e-7", "1", 1000, 4),
])
def test_002_shuffle_rows_match_the_paper_grid(paper_value, sigma, T, eps):
    """The paper's own grid evaluation of eq. (7), done here in mpmath, lies at most the
    grid's second-order loss below refacct's maximum over real C, and gives the same
    verdict against the printed bound."""
    row = next(r for r in rp.REPRODUCTIONS
               if r.paper_value == paper_value and "eq. (7)" in r.section)
    outcome = rp.run(row)
    r = outcome.result
    grid = grid_max(sigma, T, eps, r.C)
    with mp.workdps(40):
        assert grid <= r.value + r.abs_error
        assert r.value - grid <= mp.mpf("1e-3") * r.value
        assert (grid >= mpq(paper_value)) == (outcome.verdict == "yes")
    assert outcome.verdict == row.expect


@pytest.mark.parametrize("paper_value, sigma, T, target", [
    ("10.994", "0.5", 10000, "1e-6"), ("6.528", "0.7", 1000, "1e-5")])
def test_002_shuffle_epsilon_rows(paper_value, sigma, T, target):
    """eps_S(delta) >= x iff eq. (7)'s maximum at x still exceeds delta (it decreases in
    eps): checked with the paper's grid at x, independently of refacct's root finder."""
    outcome = rp.run(next(r for r in rp.REPRODUCTIONS if r.paper_value == paper_value
                          and "eq. (7)" in r.section))
    C = 3 / 2 + mpq(sigma) ** 2 * mpq(paper_value)  # the maximiser lies just above this
    assert grid_max(sigma, T, paper_value, C + mp.mpf("0.4")) > mpq(target)
    assert outcome.verdict == "yes"


def test_003_rows_against_quadrature():
    """Vadhan's K e^1 delta_1(1/K) minus the MoG group curve at eps = 1, both directions,
    by direct tanh-sinh quadrature of (p - alpha q)_+ with the crossings found here."""
    for K in (2, 8):
        outcome = rp.run(rows_by_quantity()[f"Vadhan δ_K(1) − tight δ_K(1), group K = {K}"],
                         digits=15)
        with mp.workdps(30):
            q = mp.mpf(1) / 100
            one = [mp.mpf(1) - q, q]                            # Bern(q) locations 0, 1
            group = [mp.binomial(K, m) * q ** m * (1 - q) ** (K - m) for m in range(K + 1)]
            vadhan = K * mp.e * mixture_delta(one, 1 / mp.mpf(K))
            value = vadhan - mixture_delta(group, 1)
            assert abs(outcome.result.value - value) <= outcome.result.abs_error + value * 1e-12
            assert value > 0
        assert outcome.verdict == "yes"


def mixture_delta(weights, eps):
    """max of H_{e^eps}(M || N(0,1)) and H_{e^eps}(N(0,1) || M), M = sum_m w_m N(m, 1)."""
    mix = lambda y: sum(w * mp.npdf(y, m, 1) for m, w in enumerate(weights))  # noqa: E731
    return max(positive_part(mix, lambda y: mp.npdf(y), eps),
               positive_part(lambda y: mp.npdf(y), mix, eps))


def positive_part(p, q, eps):
    """integral of (p - e^eps q)_+ over [-40, 40] with breakpoints at the sign changes of
    p - e^eps q found on a grid of step 1/8 and refined by bisection."""
    a = mp.exp(eps)
    f = lambda y: p(y) - a * q(y)  # noqa: E731
    grid = [mp.mpf(i) / 8 for i in range(-320, 321)]
    cuts = [grid[0]] + [mp.findroot(f, (x, y), solver="bisect") for x, y in zip(grid, grid[1:])
                        if f(x) * f(y) < 0] + [grid[-1]]
    return sum(mp.quad(f, [x, y]) for x, y in zip(cuts, cuts[1:]) if f((x + y) / 2) > 0)


def test_004_rows_against_enumeration():
    """q_trunc at p = 1 by enumerating 004 Algorithm 1 (tests/test_mechanisms_papers.py);
    the identity row against the sum of 004 Thm 3.1 written out here with math.comb."""
    rows = rows_by_quantity()
    assert papers.enumerate_q_trunc(10, 1, 3)[0] == Fraction(3, 10)
    assert rp.run(rows["q_trunc at p = 1 (always truncated), n = 10, B = 3"]).result.exact == \
        Fraction(3, 10)
    n, p, B = 200, Fraction(1, 20), 12
    pmf = lambda m, s: comb(m, s) * p ** s * (1 - p) ** (m - s)  # noqa: E731
    tail = sum(pmf(n - 1, s) for s in range(B, n))
    by_sum = p * sum(pmf(n - 1, s) / tail * Fraction(B, s + 1) for s in range(B, n))
    closed = sum(pmf(n, s) for s in range(B + 1, n + 1)) / tail * Fraction(B, n)
    assert by_sum == closed
    identity = rp.run(next(r for q, r in rows.items() if "closed form of q_trunc" in q))
    assert identity.result.exact == 0 and identity.verdict == "yes"
    never = rp.run(next(r for q, r in rows.items() if "never truncated" in q))
    assert never.result.exact == 1


def test_every_row_has_its_recorded_verdict():
    outcomes = rp.run_all(20)
    assert len(outcomes) == len(rp.REPRODUCTIONS) >= 26
    assert [o.verdict for o in outcomes] == [r.expect for r in rp.REPRODUCTIONS]
    assert all(o.as_expected for o in outcomes)
    assert {r.paper for r in rp.REPRODUCTIONS} == {"001", "002", "003", "004"}


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
    # above / below: open intervals, a bound touching the edge is not enough
    ("0.01", "1e-9", "0", "above", "yes"),
    ("1e-12", "1e-12", "0", "above", "undecided"),
    ("-1e-9", "1e-9", "0", "above", "no"),
    ("-0.01", "1e-9", "0", "below", "yes"),
    ("0.01", "1e-9", "0", "below", "no"),
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
    # nothing on stderr but the heartbeat of a row that runs past 10 s (docs/cli.md)
    assert all(line.startswith("refacct: still computing (") for line in err.splitlines()), err
    n = len(rp.REPRODUCTIONS)
    agree = sum(r.expect == "yes" for r in rp.REPRODUCTIONS)
    assert f"{agree} of {n} rows agree" in out
    header = out.splitlines()[0].split()
    assert header[:4] == ["#", "paper", "section", "quantity"]
    assert out.isascii()
    md = path.read_text(encoding="utf-8")
    table = [line for line in md.splitlines() if re.match(r"\| \d+ \|", line)]
    assert len(table) == n
    assert [line.rstrip().rsplit("|", 2)[1].strip() for line in table] == \
        [r.expect for r in rp.REPRODUCTIONS]
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
