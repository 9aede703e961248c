"""A fuzz campaign against the Python API and the command line: generated inputs must get a
right answer or a clean refusal, never a traceback or a value outside its bound.

    python -m refacct.fuzz [--inputs 10000] [--seed 0] [--timeout 20]

Generated inputs, in six families (``FAMILIES``), each run in-process with a time limit:

``spec``        hostile pair specs through ``refacct delta --pair``: JSON floats, NaN / inf
                strings, 1e400, 1e-400, deep nesting, huge lists, unicode keys, weights
                not summing to 1, missing or unknown keys, wrong types, and valid ones;
``catalogue``   every catalogue option (mechanism, sampling, relation, steps, group, q, n,
                batch, ...) with extreme and invalid values, through the CLI;
``invariants``  random one-step Gaussian / Laplace / mixture pairs through the API,
                checked against facts that do not use refacct's own values: 0 <= delta <= 1
                and delta >= 1 - alpha within the bound, delta non-increasing in eps,
                H_alpha(P || Q) = 1 - alpha + alpha H_{1/alpha}(Q || P) within both bounds,
                eps(delta) consistent with delta(eps) within both bounds;
``closed``      Gaussian shift pairs composed k = 1, 2 times, or one times another shift
                pair of a scale 1e-4 .. 1e4 times theirs, against Balle and Wang's closed form with
                m = sqrt(k (mu / sigma)^2 + (mu2 / sigma2)^2), randomized response composed
                k <= 6 times
                against brute-force enumeration of its 2^k outcomes (exact rationals);
``extreme``     shift pairs at extreme scales: Gaussian (k = 1, 2 or up to 10^6 steps) and
                Laplace with mean and scale from 1e-300 to 1e300 each, eps 0, 10^-320 ..
                10^-1 or moderate, against the closed forms at a precision covering their
                conditioning; randomized response 1/2 + 10^-c (c <= 40) composed k <= 6
                times by enumeration; an exact claim (bound 0) where the truth is not that
                value is a violation;
``repeat``      the same CLI input twice must print identical output.

Counted outcomes (the table): ``ok``; ``traceback`` (an exception escaping the CLI, or an
"internal error" exit); ``bad exit`` (a status other than 0, 1, 2); ``hang`` (past the time
limit); ``unnamed`` (a rejection, exit 2 or InputError, whose message names no parameter);
``violation`` (an invariant broken); and ``refused`` (exit 1 or ArithmeticError with a
message: refacct declining a value it cannot verify is not a failure, but it is counted).
Exit status 1 if any failure column is non-zero.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import re
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Callable, Dict, List

from mpmath import mp

from .alarm import alarm_after

__all__ = ["FAMILIES", "OUTCOMES", "FAILURES", "campaign", "render", "main"]

OUTCOMES = ("ok", "refused", "traceback", "bad exit", "hang", "unnamed", "violation")
FAILURES = ("traceback", "bad exit", "hang", "unnamed", "violation")
NAMES = ("P", "Q", "steps", "eps", "delta", "alpha", "sigma", "scale", "mean", "loc", "mass",
         "weight", "weights", "mixture", "discrete", "gaussian", "laplace", "factor", "q", "n",
         "batch", "group", "digits", "relation", "sampling", "mechanism", "JSON", "spec", "p",
         "sensitivity", "width", "outcome", "masses", "MECHANISM", "COMMAND", "pair")
_NAMED = re.compile(r"--[a-z]|(?<![A-Za-z_])(" + "|".join(NAMES) + r")(?![A-Za-z_])")


def _names_a_parameter(message: str) -> bool:
    """Whether a rejection names what it rejects: an option (--sigma), a spec path or a
    parameter as a whole word."""
    return _NAMED.search(message) is not None


class _Hang(BaseException):
    """Raised by the time limit; a BaseException so that the CLI's own handlers (which
    report any Exception as an internal error) let it through."""


class _Violation(Exception):
    pass


# --- the command line -------------------------------------------------------------------

def _cli(argv: List[str]):
    """(status, stdout, stderr) of ``refacct.cli.main(argv)`` in-process."""
    from .cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _judge_cli(status, err: str):
    """(outcome, message) of a CLI run."""
    if status not in (0, 1, 2):
        return "bad exit", f"status {status}: {err}"
    if "internal error" in err:
        return "traceback", err
    if status == 2 and not _names_a_parameter(err):
        return "unnamed", err
    return ("refused" if status == 1 else "ok"), err


# --- generators --------------------------------------------------------------------------

_NUMBERS = ["0", "1", "-1", "1/2", "3/4", "1e-3", "1e400", "1e-400", "nan", "inf", "-inf",
            "abc", "", "1/0", "0x10", "½", "1_000", " 2 ", "1e-300", "1e300", "-1/3"]
_ODD = [0.5, 1e400, -0.0, True, None, [], {}, [1], "∞", "١", 10 ** 30, -5]


def _number(rng: random.Random):
    return rng.choice(_NUMBERS) if rng.random() < 0.7 else rng.choice(_ODD)


def _factor(rng: random.Random, depth: int = 0):
    kind = rng.choice(["gaussian", "laplace", "discrete", "mixture", "bogus"])
    if kind == "gaussian":
        return {"gaussian": {"mean": _number(rng), "sigma": _number(rng)}}
    if kind == "laplace":
        return {"laplace": {"loc": _number(rng), "scale": _number(rng)}}
    if kind == "discrete":
        return {"discrete": {str(i): _number(rng) for i in range(rng.randint(0, 3))}}
    if kind == "mixture" and depth < 4:
        return {"mixture": [[_number(rng), _factor(rng, depth + 1)]
                            for _ in range(rng.randint(0, 3))]}
    return {rng.choice(["gauss", "ünïcode", "", "mixture"]): _number(rng)}


def _valid_factor(rng: random.Random):
    if rng.random() < 0.5:
        return ({"gaussian": {"mean": rng.choice(["1", "1/2", "2"]), "sigma": "1"}},
                {"gaussian": {"mean": "0", "sigma": "1"}})
    return ({"discrete": {"0": "3/4", "1": "1/4"}}, {"discrete": {"0": "1/4", "1": "3/4"}})


def _spec_text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        p, q = _valid_factor(rng)
        return json.dumps({"P": [p], "Q": [q], "steps": rng.choice([1, 2, 0, -1, "2", 1.5])})
    if roll < 0.25:
        nested = "1"
        for _ in range(rng.choice([10, 100, 10 ** 4])):
            nested = "[" + nested + "]"
        return '{"P": ' + nested + ', "Q": []}'
    if roll < 0.3:
        return json.dumps({"P": [{"discrete": {str(i): "1/100000" for i in range(100000)}}],
                           "Q": [{"discrete": {"0": "1"}}]})
    if roll < 0.4:
        return rng.choice(["", "{", "null", "[]", '{"P": 1}', "\ufeff{}", "\x00", "{}" * 3,
                           '{"P": [], "Q": [], "P": []}', "NaN", '{"P": [NaN], "Q": [1]}'])
    n = rng.randint(0, 2)
    body = {"P": [_factor(rng) for _ in range(n)], "Q": [_factor(rng) for _ in range(n)]}
    if rng.random() < 0.3:
        body["steps"] = _number(rng)
    if rng.random() < 0.1:
        body["extra"] = 1
    return json.dumps(body, ensure_ascii=rng.random() < 0.5)


def _spec_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    path = tmp / "spec.json"
    text = _spec_text(rng)
    query = rng.choice([["--eps", "1"], ["--eps", "0", "1/2"], ["--alpha", "2"],
                        ["--eps", "nan"], ["--alpha", "-1"], ["--eps", "1e400"]])
    digits = rng.choice(["5", "8", "0", "x"])

    def run():
        path.write_text(text, encoding="utf-8")
        status, _, err = _cli(["delta", "--pair", str(path), "--digits", digits] + query)
        return _judge_cli(status, err)
    run.what = f"{text[:120]} {digits} {' '.join(query)}"
    return run


_OPTIONS = {"--sigma": ["1", "1/2", "0", "-1", "1e-400", "1e400", "nan", "x"],
            "--scale": ["1", "2", "0", "1e400"], "--p": ["3/4", "1/2", "1", "0", "2"],
            "--q": ["1/10", "1e-3", "0", "1", "2", "-1"], "--n": ["10", "0", "-1", "x"],
            "--batch": ["2", "0", "20"], "--p-sample": ["1/2", "2"],
            "--max-batch": ["3", "0"], "--sensitivity": ["1", "0", "-2"],
            "--steps": ["1", "2", "0", "-1", "100001", "x"], "--group": ["1", "2", "0"]}


def _catalogue_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    argv = [rng.choice(["delta", "epsilon"]), rng.choice(["gaussian", "laplace", "rr", "bogus"])]
    for option in rng.sample(sorted(_OPTIONS), rng.randint(1, 4)):
        argv += [option, rng.choice(_OPTIONS[option])]
    from .mechanisms import RELATIONS, SAMPLINGS
    if rng.random() < 0.7:
        argv += ["--sampling", rng.choice(list(SAMPLINGS) + ["bogus"])]
    if rng.random() < 0.5:
        argv += ["--relation", rng.choice(list(RELATIONS) + ["bogus"])]
    argv += (["--eps", rng.choice(["1", "0", "-1", "nan", "1/2"])] if argv[0] == "delta"
             else ["--delta", rng.choice(["1e-5", "0", "1", "2", "-1e-3"])])
    argv += ["--digits", "6"]

    def run():
        status, _, err = _cli(argv)
        return _judge_cli(status, err)
    run.what = " ".join(argv)
    return run


def _repeat_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    sigma = rng.choice(["1", "1/2", "2"])
    argv = ["delta", "gaussian", "--sigma", sigma, "--eps", rng.choice(["0", "1/2", "1", "3"]),
            "--digits", rng.choice(["5", "12"])]
    if rng.random() < 0.5:
        argv += ["--sampling", "poisson", "--q", rng.choice(["1/10", "1e-2"])]

    def run():
        first, second = _cli(argv), _cli(argv)
        if first != second:
            raise _Violation(f"{argv}: two runs differ")
        return _judge_cli(first[0], first[2])
    return run


def _random_pair(rng: random.Random):
    from .distributions import Gaussian, Laplace, Mixture
    from .pairs import Pair

    def one():
        scale = Fraction(rng.choice([1, 2, 3]), rng.choice([1, 2, 4]))
        loc = Fraction(rng.randint(-4, 4), rng.choice([1, 2]))
        return Gaussian(loc, scale) if rng.random() < 0.6 else Laplace(loc, scale)

    def dist():
        if rng.random() < 0.25:
            w = Fraction(rng.randint(1, 9), 10)
            return Mixture([(w, one()), (1 - w, one())])
        return one()
    return Pair(dist(), dist())


def _invariant_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    pair = _random_pair(rng)
    e1 = Fraction(rng.randint(-8, 16), 4)
    e2 = e1 + Fraction(rng.randint(1, 8), 4)
    digits = rng.choice([6, 10])

    def run():
        from . import delta, epsilon, hockey_stick
        a, b = delta(pair, e1, digits=digits), delta(pair, e2, digits=digits)
        with mp.workdps(40):
            alpha = mp.exp(mp.mpf(e1.numerator) / e1.denominator)
            _check(a.value - a.abs_error <= 1 and a.value + a.abs_error >= 0, "0 <= delta <= 1")
            _check(a.value + a.abs_error >= 1 - alpha - mp.mpf(10) ** -30, "delta >= 1 - alpha")
            _check(a.value + a.abs_error >= b.value - b.abs_error, "delta non-increasing")
            swap = hockey_stick(pair.swap(), alpha=1 / alpha, digits=digits)
            other = 1 - alpha + alpha * swap.value
            _check(abs(a.value - other) <= a.abs_error + alpha * swap.abs_error
                   + mp.mpf(10) ** -35, "H symmetry")  # 1e-35: this check's own rounding
            target = a.value
            if mp.mpf(10) ** -12 < target < 1 and e1 > 0:
                eps = epsilon(pair, Fraction(str(mp.nstr(target, 15))), digits=digits)
                lo = delta(pair, _frac(eps.value - eps.abs_error - mp.mpf(10) ** -8), digits=8)
                hi = delta(pair, _frac(eps.value + eps.abs_error + mp.mpf(10) ** -8), digits=8)
                t = mp.mpf(mp.nstr(target, 15))
                _check(lo.value + lo.abs_error >= t >= hi.value - hi.abs_error,
                       "eps(delta) consistent with delta(eps)")
        return "ok"
    return run


def _frac(x) -> Fraction:
    return Fraction(str(mp.nstr(x, 30)))


def _check(condition, what: str) -> None:
    if not condition:
        raise _Violation(what)


def _closed_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    if rng.random() < 0.5:
        mu, sigma = Fraction(rng.randint(1, 8), 4), Fraction(rng.randint(1, 8), 4)
        k, eps = rng.choice([1, 2]), Fraction(rng.randint(-4, 16), 4)
        # a second factor of another scale (products of scales that differ by 10^8 stalled
        # the nested quadrature): 10^-4 .. 10^4 times sigma
        ratio = Fraction(10) ** rng.randint(-4, 4)
        mu2 = Fraction(rng.randint(0, 8), 4) * sigma * ratio
        k = 1 if mu2 else k  # three factors would be a minute-long nested quadrature

        def run():
            from . import Gaussian, Pair, delta
            from .pairs import Composition
            pair = Pair(Gaussian(mu, sigma), Gaussian(0, sigma))
            x = pair ** k if k > 1 else pair
            if mu2:
                x = Composition.of(*([pair] * k + [Pair(Gaussian(mu2, sigma * ratio),
                                                        Gaussian(0, sigma * ratio))]))
            r = delta(x, eps, digits=10)
            with mp.workdps(40):
                m2 = k * (mu / sigma) ** 2 + (mu2 / (sigma * ratio)) ** 2
                m = mp.sqrt(mp.mpf(m2.numerator) / m2.denominator)
                e = mp.mpf(eps.numerator) / eps.denominator
                truth = (mp.erfc((e / m - m / 2) / mp.sqrt(2))
                         - mp.exp(e) * mp.erfc((e / m + m / 2) / mp.sqrt(2))) / 2
                _check(abs(r.value - truth) <= r.abs_error, "Gaussian shift closed form")
            return "ok"
        return run
    p, k = Fraction(rng.randint(51, 99), 100), rng.randint(1, 6)
    alpha = Fraction(rng.randint(1, 12), rng.randint(1, 4))

    def run_rr():
        from . import Discrete, Pair, hockey_stick
        pair = Pair(Discrete({0: p, 1: 1 - p}), Discrete({0: 1 - p, 1: p}))
        r = hockey_stick(pair ** k if k > 1 else pair, alpha=alpha)
        truth = Fraction(0)
        for outcome in product((0, 1), repeat=k):
            P = math.prod(p if x == 0 else 1 - p for x in outcome)
            Q = math.prod(1 - p if x == 0 else p for x in outcome)
            truth += max(Fraction(0), P - alpha * Q)
        _check(r.exact == truth, "randomized response by enumeration")
        return "ok"
    return run_rr


def _tail(x):
    """P(N(0, 1) > x) at the working precision for any real x: erfc up to 10^6, beyond it
    e^{-x^2/2} / (x sqrt(2 pi)) (1 - 1/x^2 + 3/x^4), relative error below 15 / x^6 (mpmath's
    erfc takes its argument through a float and fails beyond 1e154)."""
    if x < 10 ** 6:
        return mp.erfc(x / mp.sqrt(2)) / 2
    return mp.exp(-x * x / 2) / (x * mp.sqrt(2 * mp.pi)) * (1 - 1 / x ** 2 + 3 / x ** 4)


def _shift_truth(eps: Fraction, mu2: Fraction):
    """Balle and Wang's delta(eps) of N(mu, 1) vs N(0, 1), mu^2 = ``mu2``, at a precision
    covering its conditioning: a tail at x ~ eps / mu standard deviations costs 2 log10(x)
    digits, and its two terms (ratio about 1 - mu / x) cancel to log10(x / mu) more."""
    with mp.workdps(30):
        mu = mp.sqrt(mp.mpf(mu2.numerator) / mu2.denominator)
        x = abs(mp.mpf(eps.numerator) / eps.denominator) / mu + 1
        digits = 60 + 2 * int(mp.log10(x)) + int(mp.log10(1 + x / mu))
    with mp.workdps(digits):
        e = mp.mpf(eps.numerator) / eps.denominator
        m = mp.sqrt(mp.mpf(mu2.numerator) / mu2.denominator)
        return +(_tail(e / m - m / 2) - mp.exp(e) * _tail(e / m + m / 2))


def _laplace_truth(eps: Fraction, a: Fraction):
    """delta(eps) of Lap(0, 1) vs Lap(a, 1): 1 - e^{(eps - a)/2} below eps = a, exactly 0
    from there on."""
    if eps >= a:
        return mp.zero
    gap = a - eps
    with mp.workdps(60 + int(mp.log10(1 + mp.mpf(gap.denominator) / gap.numerator))):
        return +(-mp.expm1(mp.mpf(gap.numerator) / gap.denominator / -2))


def _extreme_case(rng: random.Random, tmp: Path) -> Callable[[], str]:
    """Shift pairs whose p and q are nearly proportional or far apart: Gaussian (k = 1, 2 or
    T up to 10^6 steps, one closed form) and Laplace shifts with mean and scale 10^-300 ..
    10^300, eps next to 0, and randomized response 1/2 + 10^-c, against closed forms and
    enumeration; a value outside its bound, or an exact claim that is not, is a violation."""
    mean, scale = (Fraction(10) ** rng.randint(-300, 300) * rng.randint(1, 9) for _ in "ms")
    eps = rng.choice([Fraction(0), Fraction(1, 10 ** rng.randint(1, 320)),
                      Fraction(rng.randint(1, 8), 4)])
    family = rng.choice(["gaussian", "laplace", "rr"])
    if family == "rr":
        p, k = Fraction(1, 2) + Fraction(1, 10 ** rng.randint(1, 40)), rng.randint(1, 6)

        def run_rr():
            from . import Discrete, Pair, delta
            pair = Pair(Discrete({0: p, 1: 1 - p}), Discrete({0: 1 - p, 1: p}))
            r = delta(pair ** k if k > 1 else pair, eps, digits=15)
            with mp.workdps(200):
                alpha = mp.exp(mp.mpf(eps.numerator) / eps.denominator)
                truth = mp.fsum(max(mp.zero, _prod(p, x, False) - alpha * _prod(p, x, True))
                                for x in product((0, 1), repeat=k))
                _check(abs(r.value - truth) <= r.abs_error and (r.abs_error or r.value == truth),
                       "randomized response 1/2 + tiny by enumeration")
            return "ok"
        run_rr.what = f"rr p = 1/2 + {p - Fraction(1, 2)}, k = {k}, eps = {eps}"
        return run_rr
    k = rng.choice([1, 2, 10 ** rng.randint(2, 6)]) if family == "gaussian" else 1

    def run():
        from . import Gaussian, Laplace, Pair, delta
        make = Gaussian if family == "gaussian" else Laplace
        pair = Pair(make(mean, scale), make(0, scale))
        r = delta(pair ** k if k > 1 else pair, eps, digits=15)
        truth = (_shift_truth(eps, k * (mean / scale) ** 2) if family == "gaussian"
                 else _laplace_truth(eps, mean / scale))
        with mp.workdps(60):
            _check(abs(r.value - truth) <= r.abs_error, f"{family} shift closed form")
        _check(r.abs_error != 0 or truth == 0, f"{family} shift: a false exact value")
        return "ok"
    run.what = f"{family} shift {mean} at scale {scale}, k = {k}, eps = {eps}"
    return run


def _prod(p: Fraction, outcome, swapped: bool):
    """P(outcome) of k randomized-response steps that keep their bit with probability p
    (with 1 - p when ``swapped``: the neighbour's distribution), as an mpf."""
    keep = mp.mpf(p.numerator) / p.denominator
    out = mp.one
    for x in outcome:
        out *= keep if (x == 0) != swapped else 1 - keep
    return out


FAMILIES: Dict[str, Callable] = {"spec": _spec_case, "catalogue": _catalogue_case,
                                 "invariants": _invariant_case, "closed": _closed_case,
                                 "extreme": _extreme_case, "repeat": _repeat_case}
_SHARE = {"spec": 4, "catalogue": 3, "invariants": 1, "closed": 1, "extreme": 1, "repeat": 1}


# --- the campaign ------------------------------------------------------------------------

def _outcome(run: Callable[[], str], timeout: float):
    from .errors import InputError
    try:
        with alarm_after(timeout, _Hang):
            result = run()
        return result if isinstance(result, tuple) else (result, "")
    except _Hang:
        return "hang", "past the time limit"
    except _Violation as exc:
        return "violation", str(exc)
    except InputError as exc:
        named = _names_a_parameter(str(exc))
        return ("ok" if named else "unnamed"), str(exc)
    except ArithmeticError as exc:
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - every other exception is a finding
        return "traceback", f"{type(exc).__name__}: {exc}"


def campaign(inputs: int = 10_000, seed: int = 0, timeout: float = 20.0,
             progress: bool = False) -> Dict[str, Counter]:
    """Run ``inputs`` generated inputs; {family: Counter of outcomes}, and the failures'
    messages under the key "examples" (a Counter of "family: outcome: message")."""
    rng = random.Random(seed)
    families = [f for f, share in _SHARE.items() for _ in range(share)]
    table: Dict[str, Counter] = {f: Counter() for f in FAMILIES}
    examples: Counter = Counter()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(inputs):
            family = families[i % len(families)]
            run = FAMILIES[family](rng, Path(tmp))
            outcome, message = _outcome(run, timeout)
            table[family][outcome] += 1
            if outcome in FAILURES:
                what = getattr(run, "what", "")
                examples[f"{family}: {outcome}: {message[:160]} [{what[:160]}]"] += 1
            if progress and (i + 1) % 100 == 0:
                print(f"\rfuzz: {i + 1}/{inputs} inputs, {time.monotonic() - start:.0f} s",
                      end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    table["examples"] = examples
    return table


def render(table: Dict[str, Counter]) -> str:
    rows = [["family", "inputs"] + list(OUTCOMES)]
    for family in FAMILIES:
        counts = table[family]
        rows.append([family, str(sum(counts.values()))] + [str(counts[o]) for o in OUTCOMES])
    total = Counter()
    for family in FAMILIES:
        total.update(table[family])
    rows.append(["total", str(sum(total.values()))] + [str(total[o]) for o in OUTCOMES])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    lines += [f"  {n} x {e}" for e, n in table["examples"].most_common(20)]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m refacct.fuzz", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds per input before it counts as a hang")
    args = parser.parse_args(argv)
    if args.inputs < 1 or not args.timeout > 0:
        parser.error(f"--inputs must be >= 1 and --timeout > 0, got {args.inputs}, "
                     f"{args.timeout}")
    table = campaign(args.inputs, args.seed, args.timeout, progress=sys.stderr.isatty())
    print(render(table))
    failed = sum(table[f][o] for f in FAMILIES for o in FAILURES)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
