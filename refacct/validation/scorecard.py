"""The scorecard: every installed peer judged on refacct's suites, as one Markdown page.

    refacct scorecard [--output docs/scorecard.md] [--quick] [--accountant NAME ...]

runs ``refacct validate`` on the reference cases and the conformance suite (``--quick``:
the quick slice, ``QUICK``) and writes the peers and their versions, the verdict counts per
accountant and per area (mechanism, sampling, relation, composition form), every unsound or
failed answer grouped by cause with a reproducer that uses only the peer's own API, and
each peer's coverage of its vocabulary (``coverage``).  The page is regenerated, never
edited by hand; ``docs/scorecard.md`` in the repository is its output.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import coverage
from .adapters import PEERS, available_peers, peer_module, resolve_all
from .cases import Case, load_cases, select, show_reference
from .harness import Row, validate
from .report import summary
from .verdicts import FAILING, VERDICTS

__all__ = ["DISTRIBUTIONS", "QUICK", "area", "findings", "render", "quick_cases", "main"]

DISTRIBUTIONS = {"dp_accounting": "dp-accounting", "prv_accountant": "prv-accountant",
                 "fourier_accountant": "fourier-accountant", "autodp": "autodp",
                 "opacus": "opacus"}
# the quick slice of the conformance suite: one case per area, few steps, plus one proven
# bracket of many steps (the regime of the findings); measured at about a minute
QUICK = ("gauss-none-add-remove-s1-T1", "gauss-none-zero-out-s10-T100",
         "gauss-none-substitution-s200-T10000", "gauss-det-zero-out-s1",
         "gauss-poisson-add-remove-s1-q1e-2-T2", "gauss-poisson-zero-out-s1-q1e-2-T1",
         "gauss-poisson-substitution-s1-q1e-2-T2", "gauss-poisson-add-remove-s1-q1e-3-T1000",
         "laplace-none-add-remove-b1-T1", "laplace-poisson-add-remove-b1-q1_10-T2",
         "rr-none-replace-one-p3_5-T3", "truncpoisson-add-remove-p1_20-T1",
         "wor-substitution-s1-b10-T1", "form-count-rr-p3_5-T10",
         "form-repeated-gauss-poisson-s1-q1e-2-T2", "form-list-gauss-poisson-s1-q1e-2-T2",
         "hetero-poisson-s1q1e-2x1-s2q1_10x1")
# known causes: (accountant prefix, reason pattern) -> explanation, first match wins
CAUSES: Tuple[Tuple[str, str, str], ...] = ()


def area(case: Case) -> str:
    """The part of the vocabulary a case exercises: family, sampling, relation, form."""
    kinds = " + ".join(dict.fromkeys(f"{p.family}/{p.scheme}" for p in case.parts()))
    group = f", group {case.group}" if case.group != 1 else ""
    form = "" if case.form == "default" else f", {case.form}"
    return f"{kinds}, {case.relation}{group}{form}"


def quick_cases() -> List[Case]:
    """The quick slice (``QUICK``) of the conformance suite."""
    return select(load_cases(suite="conformance"), list(QUICK))


def findings(rows: Sequence[Row]) -> Dict[Tuple[str, str, str], List[Row]]:
    """Unsound and failed rows grouped by (accountant, verdict, cause): the reason with its
    numbers blanked, so that one cause is one group."""
    out: Dict[Tuple[str, str, str], List[Row]] = defaultdict(list)
    for row in rows:
        if row.verdict.verdict in FAILING:
            cause = re.sub(r"[-+]?\d[\d.e+-]*", "#", row.verdict.reason)[:90]
            out[(row.accountant, row.verdict.verdict, cause)].append(row)
    return dict(out)


def _explain(accountant: str, cause: str) -> str:
    for prefix, pattern, text in CAUSES:
        if accountant.startswith(prefix) and re.search(pattern, cause):
            return text
    return ""


def _reproducer(row: Row) -> Optional[str]:
    peer = row.accountant.split(".", 1)[0]
    if peer not in PEERS:
        return None
    return peer_module(peer).reproducer(row.accountant, row.case, row.query)


def _version(peer: str) -> str:
    try:
        return metadata.version(DISTRIBUTIONS[peer])
    except metadata.PackageNotFoundError:  # fourier_accountant from pld-accountant
        return metadata.version("pld-accountant")


def render(rows: Sequence[Row], peers: Sequence[str], *, suites: str, seconds: float) -> str:
    """The scorecard page (module docstring) from a run's ``rows``."""
    out = ["# Scorecard: the peers judged by refacct", "",
           f"Written by `refacct scorecard` ({suites}; {len(rows)} answers judged in "
           f"{seconds / 60:.1f} minutes on this machine); regenerate it, do not edit it.",
           "Verdicts: README \"Validating an accountant\".  An answer flagged noise-level may "
           "get another verdict on another CPU.", "",
           "## Peers", "", "| peer | version | accountants |", "|---|---|---|"]
    for peer in peers:
        names = sorted({r.accountant for r in rows if r.accountant.split(".")[0] == peer})
        out.append(f"| {peer} | {_version(peer)} | {', '.join(names)} |")
    out += ["", "## Verdicts per accountant", "", _verdict_table(summary(rows), "accountant")]
    out += ["", "## Verdicts per area", ""]
    for acc in sorted({r.accountant for r in rows}):
        counts: Dict[str, Counter] = defaultdict(Counter)
        for r in rows:
            if r.accountant == acc and r.verdict.verdict != "n/a":
                counts[area(r.case)][r.verdict.verdict] += 1
        if counts:
            out += [f"### {acc}", "", _verdict_table(counts, "area"), ""]
    out += ["## Findings: every unsound or failed answer, by cause", ""]
    groups = findings(rows)
    if not groups:
        out.append("None.")
    for (acc, verdict, cause), group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out += _finding(acc, verdict, cause, group)
    out += ["## Coverage of each peer's vocabulary", ""]
    tally = coverage.tally(rows)
    out += [coverage.render(peer, tally.get(peer, {}), _version(peer)) + "\n" for peer in peers]
    return "\n".join(out).rstrip() + "\n"


def _verdict_table(counts, label: str) -> str:
    lines = [f"| {label} | " + " | ".join(VERDICTS) + " |", "|---" * (len(VERDICTS) + 1) + "|"]
    for key in sorted(counts):
        lines.append(f"| {key} | " + " | ".join(str(counts[key].get(v, 0) or "")
                                                for v in VERDICTS) + " |")
    return "\n".join(lines)


def _finding(acc: str, verdict: str, cause: str, group: List[Row]) -> List[str]:
    noisy = sum(1 for r in group if r.noise)
    head = f"### {acc}: {verdict}, {cause or 'no reason given'} ({len(group)} answers"
    head += f", {noisy} noise-level)" if noisy else ")"
    lines = [head, ""]
    why = _explain(acc, cause)
    if why:
        lines += [why, ""]
    for r in group[:3]:
        ref = r.query.reference
        lines.append(f"- `{r.case.name}` {r.query}: refacct "
                     f"{'-' if ref is None else show_reference(ref, 12)}, reported "
                     f"{r.reported if r.error == '' else r.error.splitlines()[0][:100]}")
    if len(group) > 3:
        lines.append(f"- and {len(group) - 3} more: "
                     + ", ".join(sorted({r.case.name for r in group[3:]}))[:400])
    code = _reproducer(group[0])
    if code:
        lines += ["", f"Reproducer of `{group[0].case.name}` {group[0].query} "
                  "(the peer alone, default knobs):", "", "```python", code, "```"]
    return lines + [""]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``refacct scorecard``: 0 written (findings are the page's content), 2 bad usage."""
    parser = argparse.ArgumentParser(prog="refacct scorecard", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", type=Path, default=Path("docs/scorecard.md"))
    parser.add_argument("--quick", action="store_true",
                        help="the quick slice of the conformance suite only (about a minute)")
    parser.add_argument("--accountant", nargs="+", action="extend", default=[],
                        metavar="NAME", help="peers or peer.accountant (default: installed)")


def run(args: argparse.Namespace) -> int:
    try:
        accountants = resolve_all(args.accountant)
    except (ValueError, ImportError) as exc:
        print(f"refacct: error: {exc}", file=sys.stderr)
        return 2
    if args.quick:
        cases, suites = quick_cases(), "the quick slice of the conformance suite"
    else:
        cases = load_cases() + load_cases(suite="conformance")
        suites = "the reference cases and the conformance suite"
    start = time.perf_counter()
    rows = validate(accountants, cases)
    peers = [p for p in available_peers() if any(a.name.split(".")[0] == p for a in accountants)]
    text = render(rows, peers, suites=suites, seconds=time.perf_counter() - start)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: {len(rows)} answers, "
          f"{sum(len(g) for g in findings(rows).values())} unsound or failed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
