"""The mechanism form of the command line: records with "attained_by" and "bound", the
papers' numbers (001 App. B.1 exact rationals; 002 printed values and the Balle-Wang closed
form), and bad input as one line on stderr with exit status 2."""
from __future__ import annotations

import os
from fractions import Fraction

import pytest
from mpmath import mp

from conftest import balle_wang
from test_cli import run, run_json


def test_app_b1_through_the_rr_builder(capsys):
    """001 App. B.1: 11/48, 1/6 at alpha = 4/3 and 1/16, 1/8 at alpha = 2, and the
    add-remove maximum switching from add to remove."""
    rr = ["delta", "rr", "--p", "3/4", "--sampling", "poisson", "--q", "1/2", "--steps", "2"]
    add = run_json(capsys, *rr, "--relation", "add", "--alpha", "4/3", "2")
    remove = run_json(capsys, *rr, "--relation", "remove", "--alpha", "4/3", "2")
    both = run_json(capsys, *rr, "--relation", "add-remove", "--alpha", "4/3", "2")
    assert [r["exact"] for r in add] == ["11/48", "1/16"]
    assert [r["exact"] for r in remove] == ["1/6", "1/8"]
    assert [(r["exact"], r["attained_by"], r["bound"]) for r in both] == [
        ("11/48", "add", "tight"), ("1/8", "remove", "tight")]


def test_002_deterministic_batching(capsys):
    """002 Sec. 4.3 / App. A.1: delta_D(4) ~ 0.244 (sigma = 0.4), eps_D(1e-6) ~ 10.997
    (sigma = 0.5); the delta also against Balle-Wang."""
    d, = run_json(capsys, "delta", "gaussian", "--sigma", "0.4", "--sampling", "deterministic",
                  "--steps", "10000", "--eps", "4", "--digits", "15")
    with mp.workdps(40):
        assert abs(mp.mpf(d["delta"]) - balle_wang(4, mp.mpf(5) / 2)) <= \
            mp.mpf(d["abs_error"]) + mp.mpf(10) ** -14
    assert d["delta"].startswith("0.2438") and d["bound"] == "tight"
    e, = run_json(capsys, "epsilon", "gaussian", "--sigma", "0.5", "--sampling",
                  "deterministic", "--relation", "zero-out", "--delta", "1e-6", "--digits", "10")
    assert e["eps"].startswith("10.997") and e["attained_by"] == "add = remove"


def test_table_shows_bound_kind_and_attaining_term(capsys):
    status, out, err = run(capsys, "delta", "laplace", "--scale", "2", "--sampling", "wor",
                           "--n", "2", "--batch", "1", "--relation", "substitution",
                           "--steps", "2", "--eps", "0.1", "0.8", "--digits", "8")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert "tight/upper/lower" in lines[0] and "attained by" in lines[0]
    assert " lower " in lines[2] and " j=0 " in lines[2] and " j=2 " in lines[3]


def test_shuffle_lower_bound(capsys):
    """002 Sec. 4.3: delta_S(4) >= 0.226 at sigma = 0.4, T = 10,000 (ours maximised over real
    C must be at least as large)."""
    r, = run_json(capsys, "delta", "gaussian", "--sigma", "0.4", "--sampling", "shuffle",
                  "--steps", "10000", "--eps", "4", "--digits", "10")
    assert mp.mpf(r["delta"]) >= mp.mpf("0.226") and r["bound"] == "lower"
    assert r["attained_by"].startswith("E_C at C = ")


def test_exact_shuffle_is_at_least_eq_7_and_balle_wang_at_one_step(capsys):
    """E_C of an event is below the hockey-stick divergence (001 Definition 3 as a sup over
    events), so --exact-shuffle >= eq. (7); for T = 1 the pair (N(2, s^2), N(1, s^2)) is
    Balle-Wang's with m = 1 / sigma = 2 (002 Prop. 3.1)."""
    args = ["delta", "gaussian", "--sigma", "0.5", "--sampling", "shuffle", "--eps", "1",
            "--digits", "10"]
    exact, = run_json(capsys, *args, "--steps", "2", "--exact-shuffle")
    eq7, = run_json(capsys, *args, "--steps", "2")
    assert exact["bound"] == eq7["bound"] == "lower" and exact["attained_by"] == "P_S||Q_S"
    assert mp.mpf(exact["delta"]) >= mp.mpf(eq7["delta"])
    one, = run_json(capsys, *args, "--steps", "1", "--exact-shuffle")
    with mp.workdps(30):
        assert abs(mp.mpf(one["delta"]) - balle_wang(1, 2)) <= mp.mpf("1e-10")


@pytest.mark.parametrize("argv, fragment", [
    (["delta", "gaussian", "--sigma", "0", "--eps", "1"], "sigma must be > 0"),
    (["delta", "gaussian", "--sigma", "nan", "--eps", "1"], "sigma must be a finite rational"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "poisson", "--q", "3/2", "--eps", "1"],
     "q must lie in [0, 1]"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "poisson", "--eps", "1"],
     "--sampling poisson needs --q"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "wor", "--n", "3", "--batch", "5",
      "--eps", "1"], "batch must lie in [1, n]"),
    (["delta", "gaussian", "--sigma", "1", "--steps", "0", "--eps", "1"], "steps must be >= 1"),
    (["delta", "gaussian", "--sigma", "1", "--steps", "x", "--eps", "1"], "must be an integer"),
    (["delta", "laplace", "--sigma", "1", "--eps", "1"], "laplace takes --scale"),
    (["delta", "rr", "--eps", "1"], "rr needs --p"),
    (["delta", "gaussian", "--sigma", "1", "--relation", "sideways", "--eps", "1"],
     "invalid choice"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "lottery", "--eps", "1"],
     "invalid choice"),
    (["delta", "gaussian", "--sigma", "1", "--pair", "x.json", "--eps", "1"], "not both"),
    (["delta", "--q", "1/2", "--pair", "x.json", "--eps", "1"], "need a MECHANISM"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "truncated-poisson", "--n", "5",
      "--p-sample", "1/2", "--eps", "1"], "needs --max-batch"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "deterministic", "--relation", "add",
      "--eps", "1"], "deterministic batching"),
    (["epsilon", "gaussian", "--sigma", "1", "--delta", "2"], "delta must lie in [0, 1]"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "poisson", "--q", "1/2",
      "--exact-shuffle", "--eps", "1"], "--exact-shuffle needs --sampling shuffle"),
    (["delta", "laplace", "--scale", "1", "--sampling", "shuffle", "--eps", "1"],
     "gaussian under zero-out"),
    # the proven-bracket path (refacct.routing)
    (["delta", "gaussian", "--sigma", "1", "--steps", "1000001", "--eps", "1"],
     "steps must be <= 1000000"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "poisson", "--q", "1e-6", "--steps",
      "100001", "--eps", "1"], "steps must be <= 100000 (the range of the proven brackets)"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "poisson", "--q", "1/10", "--steps",
      "10", "--alpha", "2", "--bracket"], "H_alpha has no proven-bracket path"),
    (["delta", "gaussian", "--sigma", "1", "--width", "1/10", "--eps", "1"],
     "width sets the width of a proven bracket"),
    (["delta", "gaussian", "--sigma", "1", "--bracket", "--width", "0", "--eps", "1"],
     "width must be > 0"),
    (["delta", "gaussian", "--sigma", "1", "--certified", "--bracket", "--eps", "1"],
     "--certified and --bracket"),
    (["delta", "gaussian", "--sigma", "1", "--sampling", "wor", "--n", "10000", "--batch",
      "1", "--relation", "substitution", "--steps", "50", "--eps", "1"],
     "51 terms mixing the orders"),
    (["delta", "gaussian", "--sigma", "0.4", "--sampling", "shuffle", "--bracket", "--eps", "1"],
     "shuffling has no proven-bracket path"),
    (["epsilon", "gaussian", "--sigma", "1", "--bracket", "--delta", "0"],
     "delta must lie in (0, 1)"),
])
def test_bad_mechanism_input_exits_2_with_one_line(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("refacct: error: ") and err.count("\n") == 1
    assert fragment in err, err


# --- many steps: the proven-bracket path (refacct.routing, refacct.brackets) ----------------

def test_many_steps_go_to_a_proven_bracket(capsys):
    """Four steps of N(1, 4) vs N(0, 4), bracket forced (a product of Gaussian shifts is
    otherwise one shift in closed form), are N(0, 1) vs N(1, 1): the Balle-Wang closed
    form with m = sqrt(4) / 2 = 1 lies in every printed bracket."""
    records = run_json(capsys, "delta", "gaussian", "--sigma", "2", "--relation", "add",
                       "--steps", "4", "--bracket", "--eps", "1", "2")
    with mp.workdps(40):
        for r, eps in zip(records, (1, 2)):
            assert r["proven"] is True and r["method"].startswith("proven bracket: lattice")
            assert mp.mpf(r["lower"]) <= balle_wang(eps, 1) <= mp.mpf(r["upper"])
            assert mp.mpf(r["upper"]) - mp.mpf(r["lower"]) <= mp.mpf(r["lower"]) / 100
            assert r["attained_by"] == "add" and r["bound"] == "tight"


def test_bracket_forced_at_one_step_against_randomized_response(capsys):
    """--bracket at one step of RR p = 3/4 (P = (3/4, 1/4), Q = (1/4, 3/4)):
    delta(1/2) = 3/4 - e^{1/2} / 4 and eps(1/10) = ln((3/4 - 1/10) / (1/4)) = ln 2.6, the
    latter to the requested absolute width 1/1000 (plus the outward rounding of the ends)."""
    d, = run_json(capsys, "delta", "rr", "--p", "3/4", "--bracket", "--eps", "1/2")
    status, out, err = run(capsys, "epsilon", "rr", "--p", "3/4", "--bracket", "--width",
                           "1/1000", "--delta", "1/10")
    assert status == 0 and err == ""
    header, rule, row = out.splitlines()
    assert header.split()[6:9] == ["lower", "upper", "proven"]  # "+- bound", "verified digits"
    lower, upper, proven = row.split()[4:7]
    with mp.workdps(30):
        assert mp.mpf(d["lower"]) <= mp.mpf(3) / 4 - mp.exp(mp.mpf(1) / 2) / 4 <= mp.mpf(d["upper"])
        assert mp.mpf(lower) <= mp.log(mp.mpf("2.6")) <= mp.mpf(upper) and proven == "yes"
        assert mp.mpf(upper) - mp.mpf(lower) <= mp.mpf("0.00101")


def test_routing_passes_the_one_step_entry_steps_and_width(capsys, monkeypatch):
    """The command line hands the brackets the 1-step entry, T and --width (relative for
    delta, absolute for eps), every query in one call (randomized response goes there
    when asked: its exact PLD reaches 10^5 steps).  The engine itself is replaced: only
    the routing is under test."""
    import refacct.brackets as brackets
    calls = []

    def fake(kind):
        def run(target, values, steps, **options):
            calls.append((kind, target, values, steps, options))
            raise ValueError("stop here")
        return run
    monkeypatch.setattr(brackets, "_delta", fake("delta"))
    monkeypatch.setattr(brackets, "_epsilon", fake("epsilon"))
    status, _, err = run(capsys, "delta", "rr", "--p", "3/4", "--steps", "10001", "--bracket",
                         "--width", "1/1000", "--eps", "1", "2")
    assert status == 2 and "proven-bracket path (proven bracket requested)" in err
    status, _, err = run(capsys, "epsilon", "gaussian", "--sigma", "1", "--sampling", "poisson",
                         "--q", "1e-6", "--steps", "100000", "--delta", "1e-5")
    assert status == 2 and "stop here" in err
    (k1, t1, v1, s1, o1), (k2, t2, v2, s2, o2) = calls
    cores = os.cpu_count() or 1
    lattice = brackets.MAX_LATTICE
    assert (k1, v1, s1, o1) == ("delta", [1, 2], 10001, {
        "width": Fraction(1, 1000), "max_lattice": lattice, "workers": cores})
    assert (k2, v2, s2, o2) == ("epsilon", [Fraction(1, 10 ** 5)], 100000, {
        "width": brackets.DEFAULT_EPS_WIDTH, "max_lattice": lattice, "workers": cores})
    assert "1 step(s)" in t1.description and "1 step(s)" in t2.description


def test_transform_flag_takes_many_steps(capsys):
    """--transform: 10^4 steps of the unsampled Gaussian at sigma 100 (one shift of mu = 1,
    Balle-Wang's closed form), a proven enclosure; two methods at once are refused."""
    d, = run_json(capsys, "delta", "gaussian", "--sigma", "100", "--steps", "10000",
                  "--eps", "1", "--transform")
    with mp.workdps(40):
        assert mp.mpf(d["lower"]) <= balle_wang(1, mp.one) <= mp.mpf(d["upper"])
    assert d["proven"] and d["verified_digits"] == "20" and d["method"].startswith("transform")
    status, _, err = run(capsys, "delta", "gaussian", "--sigma", "100", "--steps", "10000",
                         "--eps", "1", "--transform", "--bracket")
    assert status == 2 and "--transform and --bracket / --width are different methods" in err
