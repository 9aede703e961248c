"""Many steps across the catalogue: what ``auto`` answers, with how many proven digits and in
how long, for every sampling scheme, relation and family at T = 10^2 ... 10^6.

    python3 benchmarks/bench_coverage.py                        # every row, 10 min a row
    python3 benchmarks/bench_coverage.py --steps 100 1000 --timeout 120
    python3 benchmarks/bench_coverage.py --only gauss-poisson-add-remove lap-none-add-remove

Entries (``ENTRIES``): the Gaussian (sigma 1; unsampled sigma 30, so that its curve stays
inside (0, 1) at 100 steps), the Laplace mechanism (b 1; unsampled b 100) and binary
randomized response (p 3/5), under no sampling, Poisson sampling at q = 1/100, sampling
without replacement (batch 10 of 1000), truncated Poisson (p 1/100 of 1000, at most 12),
deterministic batches and groups of 2, with every relation the scheme has.  Each row asks
delta(1), eps(1e-5) and eps(1e-100) at 20 digits, by ``refacct.delta`` / ``refacct.epsilon``
with ``method="auto"``.  "digits" is what the answer guarantees (``verified_digits``),
"engine" the one that answered, "proven" whether the bound is a proof (Arb enclosures,
lattice brackets) rather than two evaluations that agree, "exact" where the answer is an
exact rational or e^eps-form A - e^eps B of exact rationals.
Each row runs in a child process killed after ``--timeout`` seconds ("timeout"); a refusal
shows as "refused".  A second table has one row an entry: per T the fewest digits of
its three queries, the longest time and the engines.  Wall-clock seconds on the machine
that runs the script: indicative, never asserted.  There is no peer column: the peers' answers at these scales are judged in
the scorecard (docs/scorecard.md), which the conformance suite's many-step cases feed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_brackets import table  # noqa: E402
from bench_core import run_limited  # noqa: E402
import refacct  # noqa: E402
from refacct.errors import InputError  # noqa: E402
from refacct.mechanisms import build, gaussian, laplace, randomized_response  # noqa: E402

STEPS = (100, 1000, 10_000, 100_000, 1_000_000)
QUERIES = (("delta", "1"), ("epsilon", "1e-5"), ("epsilon", "1e-100"))
_WOR = dict(n=1000, batch=10)
_TRUNCATED = dict(n=1000, p_sample="1/100", max_batch=12)
# name: (base, sampling, relation, options)
ENTRIES = {
    "gauss-none-add-remove": ("gaussian 30", "none", "add-remove", {}),
    "gauss-poisson-add-remove": ("gaussian 1", "poisson", "add-remove", dict(q="1/100")),
    "gauss-poisson-substitution": ("gaussian 1", "poisson", "substitution", dict(q="1/100")),
    "gauss-poisson-zero-out": ("gaussian 1", "poisson", "zero-out", dict(q="1/100")),
    "gauss-wor-add-remove": ("gaussian 1", "wor", "add-remove", _WOR),
    "gauss-wor-substitution": ("gaussian 1", "wor", "substitution", _WOR),
    "gauss-deterministic-substitution": ("gaussian 1", "deterministic", "substitution", {}),
    "gauss-truncated-add-remove": ("gaussian 1", "truncated-poisson", "add-remove", _TRUNCATED),
    "gauss-truncated-zero-out": ("gaussian 1", "truncated-poisson", "zero-out", _TRUNCATED),
    "gauss-truncated-replace-one": ("gaussian 1", "truncated-poisson", "replace-one",
                                    _TRUNCATED),
    "gauss-group2-poisson": ("gaussian 1", "poisson", "add-remove", dict(q="1/100", group=2)),
    "gauss-group2-wor": ("gaussian 1", "wor", "add-remove", dict(_WOR, group=2)),
    "lap-none-add-remove": ("laplace 100", "none", "add-remove", {}),
    "lap-poisson-add-remove": ("laplace 1", "poisson", "add-remove", dict(q="1/100")),
    "lap-poisson-zero-out": ("laplace 1", "poisson", "zero-out", dict(q="1/100")),
    "lap-wor-add-remove": ("laplace 1", "wor", "add-remove", _WOR),
    "lap-wor-substitution": ("laplace 1", "wor", "substitution", _WOR),
    "rr-none-add-remove": ("rr 3/5", "none", "add-remove", {}),
    "rr-poisson-add-remove": ("rr 3/5", "poisson", "add-remove", dict(q="1/100")),
    "rr-wor-add-remove": ("rr 3/5", "wor", "add-remove", _WOR),
    "rr-wor-substitution": ("rr 3/5", "wor", "substitution", _WOR),
}


def entry(name: str):
    base, sampling, relation, options = ENTRIES[name]
    family, width = base.split()
    make = {"gaussian": gaussian, "laplace": laplace, "rr": randomized_response}[family]
    return build(make(width), sampling, relation, **options)


def one(name: str, steps: int, kind: str, at: str):
    """(digits, engine, proven, seconds) of one query."""
    start = time.perf_counter()
    try:
        r = getattr(refacct, kind)(entry(name), at, steps=steps, digits=20)
    except InputError:
        return "refused", "-", "-", round(time.perf_counter() - start, 2)
    exact = all(getattr(t, "exact", None) is not None or getattr(t, "exact_form", None)
                is not None for _, t in getattr(r, "terms", ()) or (("", r),))
    return str(r.verified_digits), r.engine, "exact" if exact else "yes" if r.proven else "no", \
        round(time.perf_counter() - start, 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, nargs="+", default=list(STEPS), metavar="T")
    parser.add_argument("--only", nargs="+", default=list(ENTRIES), choices=list(ENTRIES),
                        metavar="ENTRY")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a query")
    args = parser.parse_args(argv)
    rows = []
    for steps in args.steps:
        for name in args.only:
            for kind, at in QUERIES:
                found = run_limited((one, name, steps, kind, at), args.timeout)
                row = (name, steps, f"{kind}({at})") + (found or ("timeout", "-", "-",
                                                                   f"> {args.timeout:g}"))
                rows.append(row)
                if sys.stderr.isatty():
                    print(" ".join(map(str, row)), file=sys.stderr)
    print(table(("entry", "T", "query", "digits", "engine", "proven", "s"), rows))
    print()
    print(table(["entry"] + [f"T = {t}" for t in args.steps], summary(rows, args.steps)))
    return 0


def summary(rows, steps):
    """One row an entry, one cell a T: the fewest digits of its queries and the longest
    time ("> timeout" when one ran out), and the engines ("12 / 3.2 s transform")."""
    out = []
    for name in dict.fromkeys(r[0] for r in rows):
        cells = [name]
        for t in steps:
            mine = [r for r in rows if r[0] == name and r[1] == t]
            digits = [r[3] for r in mine]
            least = min(digits, key=lambda d: int(d) if d.isdigit() else -1)
            engines = "+".join(sorted({r[4] for r in mine} - {"-"}))
            late = [str(r[6]) for r in mine if str(r[6]).startswith(">")]
            most = late[0] if late else f"{max(float(r[6]) for r in mine):g}"
            cells.append(f"{least} / {most} s {engines}".strip())
        out.append(cells)
    return out


if __name__ == "__main__":
    sys.exit(main())
