"""The ``refacct`` command line: argument parsing and printing only, no mathematics.

    refacct delta   --pair SPEC.json --eps 0 0.5 1      [--digits 20] [--json]
    refacct delta   --pair SPEC.json --alpha 4/3 2      [--digits 20] [--json]
    refacct epsilon --pair SPEC.json --delta 1e-6 1e-30 [--digits 20] [--json]
    refacct reproduce [--markdown results/reproduce.md] [--digits 20]

SPEC.json is a pair specification (``refacct.spec``; ``-`` reads it from stdin).  Numbers
on the command line are exact rationals ("1/2", "0.1", "1e-6").

Exit status: 0 success; 1 ``reproduce`` found a row whose verdict differs from the expected
one, or a numerical failure; 2 bad input (usage, pair spec, unreadable file, unsupported
pair family), reported as one line ``refacct: error: ...`` on stderr.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from . import __version__
from .exact import probability, rational
from .hockey import MAX_DIGITS, delta, epsilon, hockey_stick
from .reproduce import (digits_text, format_bound, render_markdown, render_text,
                        run_all)
from .result import DeltaResult, EpsilonResult, format_mpf
from .spec import SpecError, load_pair, load_pair_file, loads

__all__ = ["main", "build_parser", "DEFAULT_MARKDOWN"]

DEFAULT_MARKDOWN = "results/reproduce.md"
_NEGATIVE_NUMBER = re.compile(r"^-\.?\d")


class InputError(Exception):
    """Bad input: printed as ``refacct: error: <message>``, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # read "-1/2" and "-1e-6" as (negative) numbers, not options; argparse's own
        # pattern only knows "-1" and "-0.5" (no option of refacct starts with a digit)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str):  # one line instead of usage + message, no sys.exit
        raise InputError(f"{message} (see '{self.prog} --help')")


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 1 <= value <= MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"must lie in [1, {MAX_DIGITS}], got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="refacct",
        description="Reference accountant for differential privacy: exact and verified "
                    "hockey-stick divergences, delta(eps) and eps(delta).")
    parser.add_argument("--version", action="version", version=f"refacct {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p):
        p.add_argument("--pair", required=True, metavar="SPEC.json",
                       help="pair specification (JSON file, '-' for stdin)")
        p.add_argument("--digits", type=_digits, default=20, metavar="N",
                       help="significant digits to verify and print (default 20)")
        p.add_argument("--json", action="store_true",
                       help="print a JSON list, one object per query")

    d = sub.add_parser("delta", help="delta(eps) = H_{e^eps}(P || Q), or H_alpha(P || Q)",
                       description="delta(eps) = H_{e^eps}(P || Q) for each eps, or "
                                   "H_alpha(P || Q) for each alpha (exact rationals for "
                                   "discrete pairs).")
    common(d)
    which = d.add_mutually_exclusive_group(required=True)
    which.add_argument("--eps", nargs="+", metavar="EPS", help="values of eps, e.g. 0 1/2 1")
    which.add_argument("--alpha", nargs="+", metavar="ALPHA",
                       help="values of alpha >= 0, e.g. 4/3 2")
    d.set_defaults(func=_cmd_delta)

    e = sub.add_parser("epsilon", help="eps(delta): the smallest eps >= 0 with delta(eps) <= delta",
                       description="eps(delta): the smallest eps >= 0 with "
                                   "delta(eps) <= delta, for each delta in [0, 1].")
    common(e)
    e.add_argument("--delta", nargs="+", required=True, metavar="DELTA",
                   help="values of delta in [0, 1], e.g. 1e-6 1e-30")
    e.set_defaults(func=_cmd_epsilon)

    r = sub.add_parser("reproduce", help="recompute the papers' headline numbers",
                       description="Recompute the papers' headline numbers and compare "
                                   "them with the printed values.")
    r.add_argument("--markdown", default=DEFAULT_MARKDOWN, metavar="PATH",
                   help=f"where to write the markdown table (default {DEFAULT_MARKDOWN})")
    r.add_argument("--digits", type=_digits, default=20, metavar="N",
                   help="significant digits to compute and print (default 20)")
    r.set_defaults(func=_cmd_reproduce)
    return parser


# --- commands --------------------------------------------------------------------------

def _load(path: str):
    if path == "-":
        return load_pair(loads(sys.stdin.read()))
    return load_pair_file(path)


def _cmd_delta(args) -> int:
    pair = _load(args.pair)
    if args.alpha is not None:
        key, queries = "alpha", args.alpha
        for a in queries:  # check every query before the first (possibly slow) evaluation
            if rational(a, "alpha") < 0:
                raise ValueError(f"alpha must be >= 0, got {a}")
        results = [hockey_stick(pair, alpha=a, digits=args.digits) for a in queries]
    else:
        key, queries = "eps", args.eps
        for e in queries:
            rational(e, "eps")
        results = [delta(pair, e, digits=args.digits) for e in queries]
    records = [_delta_record(key, q, r, args.digits) for q, r in zip(queries, results)]
    value_name = "delta" if key == "eps" else "H_alpha"
    _print(args, records, key, "delta", value_name)
    return 0


def _cmd_epsilon(args) -> int:
    pair = _load(args.pair)
    for d in args.delta:
        probability(d, "delta")
    results = [epsilon(pair, d, digits=args.digits) for d in args.delta]
    records = [_epsilon_record(q, r, args.digits) for q, r in zip(args.delta, results)]
    _print(args, records, "delta_target", "eps", "eps")
    return 0


def _cmd_reproduce(args) -> int:
    outcomes = run_all(args.digits)
    print(render_text(outcomes))
    path = Path(args.markdown)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_markdown(outcomes, args.digits), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {args.markdown}: {exc.strerror or exc}") from None
    agree = sum(o.verdict == "yes" for o in outcomes)
    print(f"\n{agree} of {len(outcomes)} rows agree with the papers; "
          f"markdown written to {args.markdown}")
    unexpected = [i for i, o in enumerate(outcomes, 1) if not o.as_expected]
    if unexpected:
        print(f"refacct: reproduce: row(s) {', '.join(map(str, unexpected))} differ from "
              f"the expected verdict", file=sys.stderr)
        return 1
    return 0


# --- records and printing --------------------------------------------------------------

def _delta_record(key: str, query: str, r: DeltaResult, digits: int) -> dict:
    record = {key: query, "delta": format_mpf(r.value, digits),
              "abs_error": format_bound(r.abs_error),
              "verified_digits": digits_text(r, digits), "method": r.method}
    if r.exact is not None:
        record["exact"] = str(r.exact)
    if r.exact_form is not None:
        record["exact_form"] = {"A": str(r.exact_form[0]), "B": str(r.exact_form[1])}
    return record


def _epsilon_record(query: str, r: EpsilonResult, digits: int) -> dict:
    record = {"delta_target": query, "eps": format_mpf(r.value, digits),
              "abs_error": format_bound(r.abs_error),
              "verified_digits": digits_text(r, digits), "method": r.method}
    if r.exact_form is not None:
        record["exact_form"] = {"A": str(r.exact_form[0]), "B": str(r.exact_form[1])}
    return record


def _print(args, records: List[dict], key: str, value_key: str, value_name: str) -> None:
    if args.json:
        print(json.dumps(records, indent=2))
        return
    has_exact = any("exact" in r for r in records)
    header = [key, value_name, "± bound", "verified digits"] + (["exact"] if has_exact else []) \
        + ["method"]
    rows = [[r[key], r[value_key], r["abs_error"], r["verified_digits"]]
            + ([r.get("exact", "")] if has_exact else []) + [r["method"]] for r in records]
    print(_table([h.replace("±", "+-") for h in header], rows))


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- entry point -----------------------------------------------------------------------

def _fail(message: str, status: int = 2) -> int:
    print(f"refacct: error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (never raises for bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except InputError as exc:
        return _fail(str(exc))
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return args.func(args)
    except InputError as exc:
        return _fail(str(exc))
    except OSError as exc:  # the pair file
        name = exc.filename if exc.filename is not None else getattr(args, "pair", "?")
        return _fail(f"cannot read {name}: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return _fail(f"cannot read {getattr(args, 'pair', '?')}: not UTF-8 text ({exc.reason})")
    except SpecError as exc:
        return _fail(f"bad pair spec: {exc}")
    except NotImplementedError as exc:
        return _fail(f"unsupported pair: {exc}")
    except (ValueError, TypeError) as exc:
        return _fail(str(exc))
    except ArithmeticError as exc:
        return _fail(f"numerical failure: {exc}", 1)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


if __name__ == "__main__":
    sys.exit(main())
