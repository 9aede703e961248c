"""The ``validate`` and ``cases`` subcommands (wired into ``refacct`` by ``refacct.cli``;
``python -m refacct.validation`` runs them without it).

    refacct validate [--accountant NAME|module:function ...] [--cases PATTERN ...]
                     [--suite reference|conformance|settings] [--quick] [--coverage]
                     [--format table|json|markdown] [--knob PEER.KNOB=VALUE ...]
                     [--tolerance T] [--output PATH]
    refacct cases [--suite reference|conformance|settings] [--cases PATTERN ...] [--check [--quick]]

``validate`` judges each accountant against the stored references (no refacct computation,
so it takes as long as the accountants do) and exits 1 if any answer is unsound or failed,
2 on bad usage.  ``--suite`` chooses the hand-picked reference cases (default) or the
conformance suite generated across the peers' vocabularies (``generate``), ``--quick`` its
representative slice (``scorecard.QUICK``: every area once, a few minutes);
``--coverage`` appends each peer's coverage of its vocabulary (``coverage``; in JSON, a
"coverage" object: peer -> entry -> verdict -> answers).  ``cases``
lists the catalogue; ``--check`` recomputes the stored values with refacct and exits 1 on
drift (``recompute``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ..exact import positive
from .adapters import resolve_all
from . import coverage
from .scorecard import QUICK
from .cases import SUITES, catalogue_path, list_cases, load_cases, select
from .harness import any_failing, validate
from .recompute import check_or_write
from .report import FORMATS, render
from ..errors import InputError

__all__ = ["add_arguments", "run", "add_cases_arguments", "run_cases", "main", "parse_knobs",
           "coverage_report"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``refacct validate``."""
    parser.add_argument("--accountant", nargs="+", action="extend", default=[],
                        metavar="NAME", help="peer (dp_accounting, prv_accountant), "
                        "peer.accountant (dp_accounting.pld) or package.module:function; "
                        "default: every installed peer")
    parser.add_argument("--cases", nargs="+", metavar="PATTERN", default=None,
                        help="case name patterns (shell-style, e.g. 'tiny-*'); default: all")
    parser.add_argument("--suite", choices=tuple(SUITES), default="reference",
                        help="the hand-picked reference cases (default) or the conformance "
                        "suite generated across the peers' vocabularies")
    parser.add_argument("--quick", action="store_true",
                        help="a representative slice of the conformance suite (a few minutes)")
    parser.add_argument("--coverage", action="store_true",
                        help="append each peer's coverage of its vocabulary (Markdown)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--knob", action="append", default=[], metavar="PEER.KNOB=VALUE",
                        help="a peer's accuracy knob, e.g. dp_accounting."
                        "value_discretization_interval=1e-5")
    parser.add_argument("--tolerance", default="1/100",
                        help="relative slack before a sound answer counts as loose (default 1/100)")
    parser.add_argument("--output", type=Path, default=None, help="also write the report here")
    parser.add_argument("--catalogue", type=Path, default=None, help=argparse.SUPPRESS)


def parse_knobs(items: Sequence[str]) -> Dict[str, str]:
    """["peer.knob=value", ...] -> {"peer.knob": "value"}."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or "." not in name:
            raise InputError(f"--knob takes PEER.KNOB=VALUE, got {item!r}")
        out[name] = value
    return out


def run(args: argparse.Namespace) -> int:
    """``refacct validate``: 0 all sound / loose / undecided, 1 unsound or failed, 2 usage."""
    try:
        suite = "conformance" if args.quick else args.suite
        cases = select(load_cases(args.catalogue, suite),
                       args.cases or (list(QUICK) if args.quick else None))
        if not cases:
            raise InputError(f"no case matches {' '.join(args.cases)}")
        accountants = resolve_all(args.accountant, parse_knobs(args.knob))
        if not accountants:
            raise InputError("no accountant: install the peers (pip install 'refacct[peers]') "
                             "or pass --accountant package.module:function")
        tolerance = positive(args.tolerance, "--tolerance")
    except (ValueError, TypeError, ImportError, AttributeError) as exc:
        print(f"refacct: error: {exc}", file=sys.stderr)
        return 2
    rows = validate(accountants, cases, tolerance)
    text = render(rows, args.format)
    if args.coverage and args.format == "json":
        text = json.dumps(dict(json.loads(text), coverage=coverage.tally(rows)), indent=2)
    elif args.coverage:
        text += "\n\n" + coverage_report(rows)
    print(text)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    return 1 if any_failing(rows) else 0


def coverage_report(rows) -> str:
    """Each peer's coverage of its vocabulary by the judged ``rows`` (Markdown)."""
    counts = coverage.tally(rows)
    return "\n\n".join(coverage.render(peer, counts[peer]) for peer in counts)


def add_cases_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``refacct cases``."""
    parser.add_argument("--suite", choices=tuple(SUITES), default="reference")
    parser.add_argument("--cases", nargs="+", metavar="PATTERN", default=None)
    parser.add_argument("--check", action="store_true",
                        help="recompute the stored values; exit 1 if any drifted")
    parser.add_argument("--quick", action="store_true", help="with --check: skip slow cases")


def run_cases(args: argparse.Namespace) -> int:
    """``refacct cases``: the listing, or the drift check with ``--check``."""
    if args.check:
        return check_or_write(catalogue_path(args.suite), args.cases, write=False,
                              quick=args.quick)
    print(list_cases(select(load_cases(suite=args.suite), args.cases)))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m refacct.validation [validate] ...`` or ``python -m refacct.validation cases ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name = argv.pop(0) if argv and argv[0] in ("validate", "cases") else "validate"
    parser = argparse.ArgumentParser(prog=f"python -m refacct.validation {name}")
    (add_arguments if name == "validate" else add_cases_arguments)(parser)
    args = parser.parse_args(argv)
    return (run if name == "validate" else run_cases)(args)
