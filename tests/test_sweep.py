"""refacct.sweep: input order, determinism across executors, exact cache keyed by the full
query, progress on stderr.  Oracles: the values are computed here directly (fn(**point))
or are exact rationals / mpf bit patterns compared bit for bit."""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest
from mpmath import mp

import refacct.sweep as sw
from refacct import Gaussian, Pair, delta
from refacct.sweep import decode, encode, product, query_key, sweep

CALLS = []


def slow_square(x, pause="0"):
    """x^2 as a Fraction after sleeping ``pause`` seconds (so completion order differs
    from input order)."""
    time.sleep(float(Fraction(pause)))  # a timing knob, not a computed value
    return Fraction(x) ** 2


def counted(x, digits):
    CALLS.append((x, digits))
    with mp.workdps(digits):
        return mp.sqrt(mp.mpf(x))


def gaussian_delta(eps, digits):
    return delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), eps, digits=digits)


def fails(x):
    raise ArithmeticError(f"no value at {x}")


def test_product_last_axis_fastest():
    assert product(k=[1, 2], eps=["0", "1"]) == [
        {"k": 1, "eps": "0"}, {"k": 1, "eps": "1"}, {"k": 2, "eps": "0"}, {"k": 2, "eps": "1"}]


POINTS = [{"x": x, "pause": p} for x, p in [(1, "0.3"), (2, "0.2"), (3, "0.1"), (4, "0")]]


@pytest.mark.parametrize("how", ["inline", "processes", "threads"])
def test_input_order_and_same_results_on_every_executor(how):
    kwargs = {"inline": {"workers": 1}, "processes": {"workers": 2}}.get(how, {})
    if how == "threads":
        with ThreadPoolExecutor(4) as pool:
            out = sweep(slow_square, POINTS, executor=pool)
            assert not pool._shutdown  # a given executor is left running
    else:
        out = sweep(slow_square, POINTS, **kwargs)
    assert out == [Fraction(1), Fraction(4), Fraction(9), Fraction(16)]


def test_results_of_refacct_match_a_direct_call():
    points = product(eps=["0", "1/2"], digits=[15])
    out = sweep(gaussian_delta, points, workers=2)
    direct = [gaussian_delta(**p) for p in points]
    assert [(r.value, r.abs_error) for r in out] == [(r.value, r.abs_error) for r in direct]


def test_cache_skips_computed_points_and_keys_on_digits(tmp_path):
    CALLS.clear()
    first = sweep(counted, product(x=[2, 3], digits=[30]), cache=tmp_path, workers=1)
    again = sweep(counted, product(x=[2, 3], digits=[30]), cache=tmp_path, workers=1)
    assert CALLS == [(2, 30), (3, 30)] and again == first
    sweep(counted, product(x=[2], digits=[40]), cache=tmp_path, workers=1)
    assert CALLS[-1] == (2, 40)  # other digits: another query


def test_cache_keys_on_the_version_and_the_function(monkeypatch):
    point = {"x": 2, "digits": 30}
    key = query_key(counted, point)
    assert key != query_key(slow_square, point)
    assert key != query_key(counted, {"x": Fraction(2), "digits": 30})
    monkeypatch.setattr(sw, "__version__", "99.0")
    sw.code_version.cache_clear()
    assert query_key(counted, point) != key
    sw.code_version.cache_clear()


def test_cache_keys_on_refacct_source(tmp_path, monkeypatch):
    """An engine change without a version bump is another query: the key hashes refacct's
    source files (here a copy of the package with one byte changed)."""
    import shutil
    copy = tmp_path / "refacct"
    shutil.copytree(Path(sw.__file__).resolve().parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    point = {"x": 2, "digits": 30}
    sw.code_version.cache_clear()
    monkeypatch.setattr(sw, "__file__", str(copy / "sweep.py"))
    before = query_key(counted, point)
    hockey = copy / "hockey.py"
    hockey.write_text(hockey.read_text() + "\n# changed\n")
    sw.code_version.cache_clear()
    assert query_key(counted, point) != before
    sw.code_version.cache_clear()


def test_cached_values_are_exact_not_15_digit_floats(tmp_path):
    """sqrt(2) at 50 digits comes back from the cache with every bit (a value that had been
    stored as a float or a 15-digit string would differ after 1e-16)."""
    CALLS.clear()
    (stored,) = sweep(counted, [{"x": 2, "digits": 50}], cache=tmp_path, workers=1)
    (loaded,) = sweep(counted, [{"x": 2, "digits": 50}], cache=tmp_path, workers=1)
    assert len(CALLS) == 1
    assert loaded.man_exp == stored.man_exp and loaded.man_exp[0].bit_length() > 160
    with mp.workdps(60):
        assert abs(loaded ** 2 - 2) < mp.mpf(10) ** -49
    text = next(tmp_path.rglob("*.json")).read_text()
    assert "1.41421356237" not in text and json.loads(text)["refacct"]


def test_encode_round_trips_results_and_refuses_floats():
    r = gaussian_delta(1, 20)
    assert decode(json.loads(json.dumps(encode(r)))) == r
    values = [Fraction(11, 48), (1, "a"), {"k": [None, True]}, mp.inf, -mp.inf]
    assert decode(json.loads(json.dumps(encode(values)))) == values
    with pytest.raises(TypeError, match="float"):
        encode({"eps": 0.1})
    with pytest.raises(TypeError, match="float"):
        query_key(counted, {"x": 0.5, "digits": 20})


def test_exceptions_propagate():
    with pytest.raises(ArithmeticError, match="no value at 1"):
        sweep(fails, [{"x": 1}], workers=2)


def test_progress_on_stderr(capsys):
    sweep(slow_square, POINTS[:2], workers=1, progress=True)
    err = capsys.readouterr().err
    assert "sweep: 2/2 done (0 cached)" in err
    sweep(slow_square, POINTS[:2], workers=1, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kwargs, error, words", [
    ({"workers": 0}, ValueError, "workers must be an int >= 1"),
    ({"workers": -2}, ValueError, "workers must be an int >= 1"),
    ({"workers": 2.5}, ValueError, "workers must be an int >= 1"),
    ({"workers": True}, ValueError, "workers must be an int >= 1"),
    ({"executor": "pool"}, TypeError, "executor must be a concurrent.futures.Executor"),
])
def test_bad_workers_and_executor_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        sweep(counted, [{"x": 2, "digits": 30}], **kwargs)


_AFTER_THREADS = '''
import flint
from refacct.engines.arb import fork_is_safe
from refacct.sweep import sweep


def square_poly(n):
    """The coefficient sum of (sum of n ones)^2 by a threaded Arb product: n^2."""
    p = flint.arb_poly([flint.arb(1)] * n)
    return sum((p * p).coeffs(), flint.arb(0)) == n * n


if __name__ == "__main__":
    flint.ctx.threads = 2                 # FLINT's thread pool now holds a thread
    assert square_poly(300000) and not fork_is_safe()
    print(sweep(square_poly, [{"n": 300000}, {"n": 200000}], workers=2))
'''


def test_sweep_while_flint_threads_run_does_not_deadlock(tmp_path):
    """A caller that keeps FLINT's thread pool running (flint.ctx.threads = 2) and then
    sweeps: forked workers hang in their first threaded product (the pool's threads are
    not copied by fork); the sweep spawns them instead and both products come back (n^2,
    checked in the workers)."""
    import subprocess
    import sys
    script = tmp_path / "after_threads.py"
    script.write_text(_AFTER_THREADS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[True, True]"
