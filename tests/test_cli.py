"""The command line (refacct.cli), run in-process through ``main([...])`` and once as a real
subprocess.  Oracles are independent of refacct: the exact rationals printed in 001
App. B.1, exact enumeration written out here, and the Gaussian closed form
(002 Prop. 3.1) evaluated with mpmath.erfc at 60 digits."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from mpmath import mp

from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
RR_P = {"discrete": {"0": "3/4", "1": "1/4"}}
RR_Q = {"discrete": {"0": "1/2", "1": "1/2"}}


def gauss(mean, sigma):
    return {"gaussian": {"mean": mean, "sigma": sigma}}


run = run_cli


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    assert err == ""
    return json.loads(out)


# --- independent oracles --------------------------------------------------------------------

def upper(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


def mpq(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def gaussian_delta(eps, mu, sigma):
    """002 Prop. 3.1 (Balle & Wang): delta(eps) for N(mu, s^2) vs N(0, s^2), m = mu / s:
    Phi(-eps/m + m/2) - e^eps Phi(-eps/m - m/2), written with upper tails."""
    m = mpq(mu) / mpq(sigma)
    return upper(eps / m - m / 2) - mp.exp(eps) * upper(eps / m + m / 2)


def decimal_close(text, oracle, abs_error_text, digits):
    """|printed value - oracle| <= claimed bound + rounding of the printed value to
    ``digits`` significant digits."""
    with mp.workdps(60):
        value = mp.mpf(text)
        slack = mp.mpf(abs_error_text) + abs(oracle) * mp.mpf(10) ** (1 - digits)
        return abs(value - oracle) <= slack


# --- delta ----------------------------------------------------------------------------------

def test_alpha_gives_the_exact_rationals_of_001_appendix_b1(capsys, write):
    """001 App. B.1: H_4/3(P||Q) = 11/48, H_2(P||Q) = 1/16, H_4/3(Q||P) = 1/6, H_2(Q||P) = 1/8."""
    forward = write({"P": [RR_P], "Q": [RR_Q], "steps": 2}, "rr.json")
    backward = write({"P": [RR_Q], "Q": [RR_P], "steps": 2}, "rr_swap.json")
    fwd = run_json(capsys, "delta", "--pair", forward, "--alpha", "4/3", "2")
    bwd = run_json(capsys, "delta", "--pair", backward, "--alpha", "4/3", "2")
    assert [r["alpha"] for r in fwd] == ["4/3", "2"]
    assert [r["exact"] for r in fwd] == ["11/48", "1/16"]
    assert [r["exact"] for r in bwd] == ["1/6", "1/8"]
    for r in fwd + bwd:
        exact = Fraction(r["exact"])
        assert abs(Fraction(r["delta"]) - exact) <= exact * Fraction(1, 10**19)
        assert r["verified_digits"] == "exact"
        assert r["method"].startswith("exact")
        assert set(r) >= {"alpha", "delta", "abs_error", "method", "exact"}


def test_alpha_table_prints_the_fraction(capsys, write):
    path = write({"P": [RR_P], "Q": [RR_Q], "steps": 2})
    status, out, err = run(capsys, "delta", "--pair", path, "--alpha", "4/3")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["alpha", "H_alpha"]
    assert "verified digits" in lines[0] and "method" in lines[0]
    assert set(lines[1]) <= {"-", " "}
    row = lines[2].split()
    assert row[0] == "4/3" and "11/48" in row and "exact" in row
    assert len(lines) == 3


def test_eps_gaussian_matches_the_closed_form(capsys, write):
    path = write({"P": [gauss(1, 1)], "Q": [gauss(0, 1)]})
    records = run_json(capsys, "delta", "--pair", path, "--eps", "0", "1/2", "1", "3")
    assert [r["eps"] for r in records] == ["0", "1/2", "1", "3"]
    for r, eps in zip(records, [0, Fraction(1, 2), 1, 3]):
        with mp.workdps(60):
            oracle = gaussian_delta(mpq(eps), 1, 1)
        assert decimal_close(r["delta"], oracle, r["abs_error"], 20), (r, oracle)
        assert r["verified_digits"] == "20"
        assert "exact" not in r


def test_paper_002_section_4_3_number(capsys, write):
    """002 Sec. 4.3: delta_D(4) ~ 0.244 at sigma = 0.4, checked against Prop. 3.1 at 60 digits
    and at 30 requested digits."""
    path = write({"P": [gauss(1, "0.4")], "Q": [gauss(0, "0.4")]})
    (r,) = run_json(capsys, "delta", "--pair", path, "--eps", "4", "--digits", "30")
    with mp.workdps(60):
        oracle = gaussian_delta(mp.mpf(4), 1, Fraction(2, 5))
    assert decimal_close(r["delta"], oracle, r["abs_error"], 30)
    assert r["delta"].startswith("0.2438")
    assert int(r["verified_digits"]) == 30


def test_negative_eps_is_a_number_not_an_option(capsys, write):
    """H_{e^eps} for eps < 0: Prop. 3.1's derivation holds for every real eps."""
    path = write({"P": [gauss(1, 1)], "Q": [gauss(0, 1)]})
    records = run_json(capsys, "delta", "--pair", path, "--eps", "-1/2", "-1e-1", "-.25")
    assert [r["eps"] for r in records] == ["-1/2", "-1e-1", "-.25"]
    for r in records:
        with mp.workdps(60):
            oracle = gaussian_delta(mpq(r["eps"]), 1, 1)
        assert decimal_close(r["delta"], oracle, r["abs_error"], 20)


def test_eps_table_is_aligned(capsys, write):
    path = write({"P": [gauss(1, 1)], "Q": [gauss(0, 1)]})
    status, out, err = run(capsys, "delta", "--pair", path, "--eps", "0", "1", "--digits", "12")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 4
    assert lines[0].split()[:4] == ["eps", "delta", "+-", "bound"]
    starts = [lines[0].index(h) for h in ("delta", "+- bound", "verified digits", "method")]
    for line in lines[2:]:  # every column starts where its header starts
        for s in starts:
            assert line[s - 2:s] == "  " and line[s] != " "
    assert lines[2].split()[0] == "0" and lines[2].split()[3] == "12"


def test_composed_and_mixture_specs(capsys, write):
    """Two Gaussian steps: N(1,1)^2 vs N(0,1)^2 is N(sqrt 2, 1) vs N(0, 1) (rotation)."""
    path = write({"P": [gauss(1, 1)], "Q": [gauss(0, 1)], "steps": 2})
    (r,) = run_json(capsys, "delta", "--pair", path, "--eps", "1", "--digits", "15")
    with mp.workdps(60):
        m = mp.sqrt(2)
        oracle = upper(1 / m - m / 2) - mp.e * upper(1 / m + m / 2)
    assert decimal_close(r["delta"], oracle, r["abs_error"], 15)


# --- epsilon --------------------------------------------------------------------------------

def test_epsilon_gaussian_matches_the_root_of_the_closed_form(capsys, write):
    path = write({"P": [gauss(1, 1)], "Q": [gauss(0, 1)]})
    records = run_json(capsys, "epsilon", "--pair", path, "--delta", "1e-6", "1e-30")
    assert [r["delta_target"] for r in records] == ["1e-6", "1e-30"]
    for r, exponent in zip(records, [-6, -30]):
        with mp.workdps(60):
            target = mp.mpf(10) ** exponent
            root = mp.findroot(lambda e: mp.log(gaussian_delta(e, 1, 1)) - mp.log(target),
                               mp.mpf(5))
            assert abs(gaussian_delta(root, 1, 1) / target - 1) < mp.mpf(10) ** -40
        assert decimal_close(r["eps"], root, r["abs_error"], 20), (r, root)
        assert set(r) >= {"delta_target", "eps", "abs_error", "method"}


def test_epsilon_discrete_is_the_exact_log(capsys, write):
    """RR after two steps (001 App. B.1): outcome (0,0) has p/q = (9/16)/(1/4), the only
    ratio above 1, so eps(delta) = ln((9/16 - delta) / (1/4)) for 0 <= delta <= 9/16 - 1/4;
    delta >= 5/16 = H_1 gives eps = 0."""
    path = write({"P": [RR_P], "Q": [RR_Q], "steps": 2})
    records = run_json(capsys, "epsilon", "--pair", path, "--delta", "1e-6", "0", "1/10",
                       "5/16", "1")
    for r, d in zip(records, ["1e-6", "0", "1/10"]):
        with mp.workdps(60):
            d = Fraction(d)
            x = (Fraction(9, 16) - d) / Fraction(1, 4)
            oracle = mp.log(mp.mpf(x.numerator) / x.denominator)
        assert decimal_close(r["eps"], oracle, r["abs_error"], 20)
    assert records[3]["eps"] in ("0", "0.0") and records[4]["eps"] in ("0", "0.0")


def test_epsilon_infinite(capsys, write):
    """P puts mass 1/2 where Q has none, so delta(eps) >= 1/2 for every eps: eps(1/4) = inf."""
    path = write({"P": [{"discrete": {"a": "1/2", "b": "1/2"}}], "Q": [{"discrete": {"a": 1}}]})
    (r,) = run_json(capsys, "epsilon", "--pair", path, "--delta", "1/4")
    assert r["eps"] == "inf"
    status, out, err = run(capsys, "epsilon", "--pair", path, "--delta", "1/4")
    assert status == 0 and " inf " in out


def test_pair_from_stdin(capsys, write, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(
        {"P": [RR_P], "Q": [RR_Q], "steps": 2})))
    (r,) = run_json(capsys, "delta", "--pair", "-", "--alpha", "4/3")
    assert r["exact"] == "11/48"


# --- bad input: exit 2, one line on stderr, no traceback ------------------------------------

GOOD = {"P": [gauss(1, 1)], "Q": [gauss(0, 1)]}

BAD_SPECS = [
    ({**GOOD, "extra": 1}, "unknown key 'extra'"),
    ({"P": GOOD["P"]}, "missing key 'Q'"),
    ({"P": [{"mixture": [["1/2", gauss(0, 1)], ["1/3", gauss(1, 1)]]}], "Q": [gauss(0, 1)]},
     "P[0].mixture: mixture weights must sum exactly to 1, got 5/6"),
    ({"P": [{"discrete": {"0": "1/2", "1": "1/3"}}], "Q": [{"discrete": {"0": 1}}]},
     "P[0].discrete: Discrete masses must sum exactly to 1"),
    ({"P": [gauss(1, "-1")], "Q": [gauss(0, 1)]}, "P[0].gaussian.sigma: sigma must be > 0"),
    ({"P": [gauss(1, 0)], "Q": [gauss(0, 1)]}, "P[0].gaussian.sigma: sigma must be > 0"),
    ({"P": [gauss("nan", 1)], "Q": [gauss(0, 1)]}, "P[0].gaussian.mean"),
    ('{"P": [{"gaussian": {"mean": NaN, "sigma": 1}}], "Q": [{"gaussian": {"mean": 0, '
     '"sigma": 1}}]}', "NaN is not a finite number"),
    ('{"P": [{"gaussian": {"mean": 0.5, "sigma": 1}}], "Q": [{"gaussian": {"mean": 0, '
     '"sigma": 1}}]}', 'write the number as a string, "0.5"'),
    ({"P": [gauss(1, 1), gauss(1, 1)], "Q": [gauss(0, 1)]}, "same number of factors"),
    ({**GOOD, "steps": 0}, "steps: must be an integer >= 1"),
    ([1, 2], "a pair spec must be a JSON object"),
    ('{"P": [', "invalid JSON"),
    ({"P": [{"discrete": {"0": 1}}], "Q": [gauss(0, 1)]}, "both be Discrete or both be continuous"),
]


def assert_one_line_error(status, out, err, fragment):
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("refacct: error: ")
    assert fragment in err, err


@pytest.mark.parametrize("bad, fragment", BAD_SPECS, ids=[f for _, f in BAD_SPECS])
def test_bad_spec_exits_2_with_one_line(capsys, write, bad, fragment):
    path = write(bad)
    status, out, err = run(capsys, "delta", "--pair", path, "--eps", "1")
    assert_one_line_error(status, out, err, fragment)


@pytest.mark.parametrize("argv, fragment", [
    (["delta", "--pair", "{missing}", "--eps", "1"], "cannot read"),
    (["delta", "--pair", "{dir}", "--eps", "1"], "cannot read"),
    (["delta", "--pair", "{good}", "--eps", "nan"], "eps must be a finite rational"),
    (["delta", "--pair", "{good}", "--eps", "1", "abc"], "got 'abc'"),
    (["delta", "--pair", "{good}", "--alpha", "-1"], "alpha must be >= 0"),
    (["delta", "--pair", "{good}", "--alpha", "2", "--eps", "1"], "not allowed with"),
    (["delta", "--pair", "{good}"], "one of the arguments --eps --alpha is required"),
    (["delta", "--eps", "1"], "the following arguments are required: --pair"),
    (["delta", "--pair", "{good}", "--eps", "1", "--digits", "0"], "--digits: must lie in"),
    (["delta", "--pair", "{good}", "--eps", "1", "--digits", "x"], "--digits: must be an integer"),
    (["epsilon", "--pair", "{good}", "--delta", "2"], "delta must lie in [0, 1]"),
    (["epsilon", "--pair", "{good}", "--delta", "-1e-6"], "delta must lie in [0, 1]"),
    (["epsilon", "--pair", "{good}"], "the following arguments are required: --delta"),
    (["nonsense"], "invalid choice"),
    ([], "the following arguments are required"),
    (["delta", "--pair", "{good}", "--eps", "1", "--bogus"], "unrecognized arguments: --bogus"),
    (["reproduce", "--markdown", "{good}/sub/table.md"], "cannot write"),
    (["delta", "--pair", "{good}", "--eps", "1", "--exact-file", "{good}/sub/x.json"],
     "cannot write --exact-file"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, tmp_path, write, argv, fragment):
    names = {"missing": str(tmp_path / "missing.json"), "dir": str(tmp_path),
             "good": write(GOOD)}
    argv = [a.format(**names) for a in argv]
    status, out, err = run(capsys, *argv)
    assert_one_line_error(status, out, err, fragment)


@pytest.mark.parametrize("command, option", [("delta", "--eps"), ("delta", "--alpha"),
                                             ("epsilon", "--delta")])
def test_unsupported_family_exits_2(capsys, write, monkeypatch, command, option):
    """The core raises NotImplementedError for pair families it has no engine for; which
    families those are changes as engines are added, so the core call (the front door's
    ``answer``) is replaced here."""
    import refacct.cli as cli

    def unsupported(*args, **kwargs):
        raise NotImplementedError("no engine for this family\n(second line)")
    monkeypatch.setattr(cli.api, "answer", unsupported)
    status, out, err = run(capsys, command, "--pair", write(GOOD), option, "1")
    assert_one_line_error(status, out, err, "unsupported pair: no engine for this family")


def test_numerical_failure_exits_1(capsys, write, monkeypatch):
    import refacct.cli as cli

    def fails(*args, **kwargs):
        raise ArithmeticError("could not bracket")
    monkeypatch.setattr(cli.api, "answer", fails)
    status, out, err = run(capsys, "epsilon", "--pair", write(GOOD), "--delta", "1e-6")
    assert status == 1 and out == ""
    assert err.startswith("refacct: error: numerical failure: could not bracket (refacct's "
                          "failure, not your input: please report it")
    assert len(err.splitlines()) == 1


def test_not_utf8_file(capsys, tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00")
    status, out, err = run(capsys, "delta", "--pair", str(path), "--eps", "1")
    assert_one_line_error(status, out, err, "not UTF-8")


def test_help_and_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.startswith("refacct ")
    status, out, _ = run(capsys, "delta", "--help")
    assert status == 0 and "--alpha" in out and "--eps" in out


# --- as a real process ----------------------------------------------------------------------

def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_python_dash_m_refacct_subprocess(tmp_path):
    path = tmp_path / "rr.json"
    path.write_text(json.dumps({"P": [RR_P], "Q": [RR_Q], "steps": 2}), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "refacct", "delta", "--pair", str(path),
                           "--alpha", "4/3", "2", "--json"], capture_output=True, text=True,
                          env=_env(), cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert [r["exact"] for r in json.loads(done.stdout)] == ["11/48", "1/16"]

    bad = tmp_path / "bad.json"
    bad.write_text('{"P": [{"gaussian": {"mean": 0, "sigma": -1}}], '
                   '"Q": [{"gaussian": {"mean": 0, "sigma": 1}}]}', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "refacct", "delta", "--pair", str(bad),
                           "--eps", "1"], capture_output=True, text=True, env=_env(),
                          cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("refacct: error: ") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


def test_console_script_subprocess(tmp_path):
    """The installed ``refacct`` script next to this interpreter (pip install -e .)."""
    script = Path(sys.executable).parent / "refacct"
    if not script.exists():
        pytest.skip("refacct console script not installed next to this interpreter")
    done = subprocess.run([str(script), "delta", "--pair", "-", "--alpha", "2", "--json"],
                          input=json.dumps({"P": [RR_Q], "Q": [RR_P], "steps": 2}),
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["exact"] == "1/8"


# --- many steps: the proven-bracket path ----------------------------------------------------

def test_pair_spec_with_many_steps_gets_a_proven_bracket(capsys, write):
    """A spec composed 4 times, bracket forced (a product of Gaussian shifts is otherwise
    one shift in closed form): N(0, 4)^4 vs N(1, 4)^4 is N(0, 1) vs N(1, 1), so the
    closed-form delta (002 Prop. 3.1) at the printed eps ends straddles the target:
    delta(lower) >= 1e-3 >= delta(upper).  Without --bracket the closed form answers."""
    path = write({"P": [gauss(0, 2)], "Q": [gauss(1, 2)], "steps": 4})
    closed, = run_json(capsys, "epsilon", "--pair", path, "--delta", "1e-3")
    assert not closed["method"].startswith("proven bracket")
    with mp.workdps(40):
        assert abs(gaussian_delta(mp.mpf(closed["eps"]), 1, 1) - mp.mpf("1e-3")) <= \
            mp.mpf("1e-18")
    r, = run_json(capsys, "epsilon", "--pair", path, "--delta", "1e-3", "--bracket")
    assert r["proven"] is True and r["method"].startswith("proven bracket")
    assert "attained_by" not in r   # a plain pair, not a catalogue entry
    with mp.workdps(40):
        lower, upper = mp.mpf(r["lower"]), mp.mpf(r["upper"])
        assert gaussian_delta(lower, 1, 1) >= mp.mpf("1e-3") >= gaussian_delta(upper, 1, 1)
        assert upper - lower <= mp.mpf("0.0101")


@pytest.mark.parametrize("spec, fragment", [
    ({"P": [gauss(0, 1)], "Q": [gauss(1, 2)], "steps": 4},
     "proven-bracket path (a continuous pair composed 4 > 3 times (beyond quadrature)): "),
    ({"P": [gauss(0, 1)], "Q": [gauss(1, 1)], "steps": 2000000},
     "steps must be <= 1000000 (the range of the closed forms and few-atom exact PLDs), "
     "got 2000000"),
    ({"P": [gauss(0, 1)], "Q": [gauss(1, 2)], "steps": 200000},
     "steps must be <= 100000 (the range of the proven brackets), got 200000"),
])
def test_pair_spec_beyond_the_brackets_exits_2(capsys, write, spec, fragment):
    """Two sigmas in one pair are outside the brackets' pairs (the engine's message names
    what they take); more than 10^5 compositions are outside their range, more than 10^6
    outside every engine's (a Gaussian shift's closed form takes 10^6)."""
    status, out, err = run(capsys, "delta", "--pair", write(spec), "--eps", "1")
    assert_one_line_error(status, out, err, fragment)


@pytest.mark.parametrize("sigma", ["1e40", "1e300"])
def test_a_shift_far_below_the_scale_is_not_an_exact_zero(capsys, sigma):
    """``refacct delta gaussian --sigma s --eps 0``: N(0, s^2) vs N(1, s^2) has delta(0) =
    2 Phi(1 / (2 s)) - 1 = erf(1 / (2 sqrt 2 s)) > 0 (about 1 / (s sqrt(2 pi))), never an
    exact 0; and at eps = 1e-10 a delta of about 10^-(10^59) (a tail 1e29 scales out) prints
    with its digits (the printed bound written from Arb balls)."""
    [r] = run_json(capsys, "delta", "gaussian", "--sigma", sigma, "--eps", "0")
    assert r["verified_digits"] == "20" and r["delta"] != "0.0"
    with mp.workdps(700):
        oracle = mp.erf(1 / (2 * mp.sqrt(2) * mpq(sigma)))
        assert decimal_close(r["delta"], oracle, r["abs_error"], 20), (r, oracle)
    [r] = run_json(capsys, "delta", "gaussian", "--sigma", "1e40", "--eps", "1e-10")
    mantissa, _, exponent = r["delta"].partition("e")
    # Balle-Wang with mu = 1/s: delta = T(x) - e^eps T(x + mu), x = eps/mu - mu/2 = 1e30
    # (T the upper tail), and e^eps T(x + mu) = T(x) x / (x + mu) (1 + O(mu / x^3)), so
    # delta = T(x) mu / x (1 + O(mu / x)); ln T(x) = -x^2/2 - ln(x sqrt(2 pi)) + O(1/x^2):
    # the decimal exponent is known to the unit
    with mp.workdps(120):
        mu = 1 / mpq("1e40")
        x = mpq("1e-10") / mu - mu / 2
        log10_delta = (-x * x / 2 - mp.log(x * mp.sqrt(2 * mp.pi)) + mp.log(mu / x)) / mp.log(10)
        assert int(exponent) == int(mp.floor(log10_delta)), (r, log10_delta)
    assert r["verified_digits"] == "20"
