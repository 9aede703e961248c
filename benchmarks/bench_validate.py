"""Side by side on the shared reference cases: each accountant's wall time and error against
refacct, and refacct's own time to its verified digits.

    python3 benchmarks/bench_validate.py [--cases PATTERN ...] [--slow]
                                         [--accountant NAME ...] [--knob PEER.KNOB=VALUE ...]

A case is shared when at least one accountant expresses it.  Per case and accountant the cell
is "max |x / v - 1| over the answered queries, total seconds" (exact rationals against
refacct's value v); answers judged unsound or failed are counted instead ("2 failed").
refacct's column is the time to recompute the case's references and the fewest verified
digits among them.  Slow cases (minutes for refacct) only with --slow.
"""
from __future__ import annotations

import argparse
import platform
import time
from fractions import Fraction

from refacct.result import format_mpf
from refacct.validation.adapters import resolve_all
from refacct.validation.cases import load_cases, select
from refacct.validation.command import parse_knobs
from refacct.validation.harness import validate
from refacct.validation.recompute import compute
from refacct.validation.verdicts import FAILING, exact_value


def refacct_cell(case) -> str:
    """Seconds to recompute the case's references; the fewest verified digits."""
    start = time.perf_counter()
    digits = [compute(case, q).verified_digits for q in case.queries]
    spent = time.perf_counter() - start
    finite = [d for d in digits if d is not None]
    shown = f"{min(min(finite), case.digits)} digits" if finite else "exact"
    return f"{shown}, {spent:.2f} s"


def peer_cell(rows) -> str:
    """'max relative error, seconds' over the answered rows, or the count of bad ones."""
    answered = [r for r in rows if r.verdict.verdict != "n/a"]
    if not answered:
        return "-"
    seconds = sum(r.seconds for r in answered)
    bad = [r.verdict.verdict for r in answered if r.verdict.verdict in FAILING]
    if bad:
        counts = ", ".join(f"{bad.count(v)} {v}" for v in FAILING if v in bad)
        return f"{counts} of {len(answered)}, {seconds:.2f} s"
    errors = [abs(exact_value(r.reported) / r.query.reference.value - 1) for r in answered
              if r.query.reference.value]
    return f"{format_mpf(max(errors, default=Fraction(0)), 2)}, {seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=None)
    parser.add_argument("--slow", action="store_true", help="include slow cases")
    parser.add_argument("--accountant", nargs="+", default=[])
    parser.add_argument("--knob", action="append", default=[])
    args = parser.parse_args()
    accountants = resolve_all(args.accountant, parse_knobs(args.knob))
    names = [a.name for a in accountants]
    print(f"python {platform.python_version()}; cells: max |reported / refacct - 1|, seconds\n")
    print("| case | queries | refacct | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for case in select(load_cases(), args.cases, include_slow=args.slow):
        rows = validate(accountants, [case])
        cells = [peer_cell([r for r in rows if r.accountant == n]) for n in names]
        if set(cells) == {"-"}:
            continue
        print(f"| {case.name} | {len(case.queries)} | {refacct_cell(case)} | "
              + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
