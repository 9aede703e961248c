"""Maintenance: recompute the catalogue's reference values, write them, or check for drift.

    python -m refacct.validation.recompute [--write [--missing]] [--cases PATTERN ...] [--quick]
                                           [--suite reference|conformance|settings] [--file PATH]

Without ``--write`` (the check, also ``refacct cases --check``) every selected query is
recomputed and compared with the stored reference: the stored interval ([v - e, v + e], or
[lower, upper] for a proven bracket) and the recomputed one must overlap (both contain the
truth, so disjoint intervals mean the file or the code is wrong).  Exit 1 on any drift.
With ``--write`` the recomputed references replace the stored ones (the only way values
enter ``cases.json``).  ``--quick`` skips the cases marked slow (the proven brackets of
many steps among them: about 10 s to a minute each).  ``--suite conformance`` works on the
generated suite (``refacct.validation.generate``); ``--missing`` computes only the queries
without a stored reference and stores each case as soon as it is done, so that a long run
resumes where it was stopped.

Each case is computed through the front door (``refacct.api``) by the route of
``refacct.routing``: the standard engines, or for many steps the transform
(``refacct.transform``) or a proven bracket (``refacct.brackets``, at the case's
``bracket_width``; one composition serves all of a case's queries of one kind).  Trade-off queries (``beta``)
are brackets of ``refacct.tradeoff`` at relative width ``TRADEOFF_WIDTH`` = 1e-5,
calibrations (``sigma``, ``errors``) brackets of ``refacct.calibrate`` at
``CALIBRATION_WIDTH`` = 1e-6.

A stored value is the decimal string of refacct's value at the case's ``digits``; its
``abs_error`` is refacct's bound plus the rounding |decimal - value|, rounded up to three
significant digits, all in exact rationals.  A bracket stores its ends rounded outward to
``digits`` (``lower`` down, ``upper`` up), ``"proven": true``, its midpoint as the value and
an ``abs_error`` that covers both ends.
"""
from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import mpmath

from .. import api, calibrate, tradeoff
from ..exact import rational
from ..exact_text import fraction_text
from ..result import directed_text, format_mpf, round_decimal
from .cases import (ERROR_ALPHA, SUITES, Case, Query, Reference, case_from_json, catalogue_path,
                    read_catalogue, select, show_reference)

__all__ = ["TRADEOFF_WIDTH", "CALIBRATION_WIDTH", "compute", "compute_all", "reference_json", "drift", "recompute", "main",
           "round_decimal", "round_up", "directed_text"]


TRADEOFF_WIDTH = Fraction(1, 10 ** 5)
CALIBRATION_WIDTH = Fraction(1, 10 ** 6)


def compute(case: Case, query: Query):
    """refacct's ``MechanismDelta`` / ``MechanismEpsilon`` for one query of ``case``."""
    return compute_all(case, [query])[0]


def compute_all(case: Case, queries: Optional[Sequence[Query]] = None) -> List:
    """refacct's results for ``queries`` (default: all of the case's), in order, through the
    front door (``refacct.api``, whose route is ``refacct.routing``'s: module docstring)."""
    queries = case.queries if queries is None else list(queries)
    x, steps = case.composed()
    way = api.route(x, steps)
    results: Dict[int, object] = {}
    for kind in sorted({q.kind for q in queries}):
        chosen = [i for i, q in enumerate(queries) if q.kind == kind]
        at = [queries[i].at for i in chosen]
        if kind == "beta":
            found = tradeoff.beta(x, at, steps=steps, width=TRADEOFF_WIDTH)
        elif kind == "sigma":
            found = [calibrate.noise_scale(lambda s: case.with_sigma(s).composed(), 0, a,
                                           width=CALIBRATION_WIDTH) for a in at]
        elif kind == "errors":
            found = [calibrate.noise_scale_for_errors(
                lambda s: case.with_sigma(s).composed(), ERROR_ALPHA, b,
                width=CALIBRATION_WIDTH) for b in at]
        elif way.bracket:
            found = api.answer(way, kind, at, width=case.bracket_width)
        else:
            found = [api.answer(way, kind, [a], digits=case.digits)[0] for a in at]
        results.update(zip(chosen, found))
    return [results[i] for i in range(len(queries))]


def round_up(x: Fraction, sig: int = 3) -> str:
    """The smallest decimal with ``sig`` significant digits that is >= x >= 0, as text
    ("1.68e-20")."""
    return format(round_decimal(x, sig, up=True), "e")


def reference_json(case: Case, result) -> Dict:
    """The stored form of a refacct result (see the module docstring)."""
    if result.proven and result.enclosure is not None:
        return _bracket_json(case, result)
    value = result.value
    if mpmath.isinf(value):
        text, err = "inf", "0"
    else:
        text = format_mpf(value, case.digits)
        exact_value = rational(value, "value")
        err = round_up(rational(result.abs_error, "abs_error") + abs(Fraction(text) - exact_value))
    vd = result.verified_digits
    exact = getattr(result, "exact", None)
    return {"value": text, "abs_error": err,
            "verified_digits": "exact" if vd is None else str(min(vd, case.digits)),
            "exact": None if exact is None else fraction_text(exact), "method": result.method,
            "attained_by": _attained(result), "bound": result.bound}


def _bracket_json(case: Case, result) -> Dict:
    """A proven bracket: ends rounded outward, the midpoint, a half-width covering both."""
    if mpmath.isinf(result.upper):
        raise ArithmeticError(f"{case.name}: the bracket's upper end is infinite; nothing to "
                              "store (refine it: bracket_width)")
    lower = directed_text(result.lower, case.digits, up=False)
    upper = directed_text(result.upper, case.digits, up=True)
    text = format_mpf(result.value, case.digits)
    mid = Fraction(text)
    err = round_up(max(mid - Fraction(lower), Fraction(upper) - mid))
    vd = result.verified_digits
    return {"value": text, "abs_error": err, "lower": lower, "upper": upper, "proven": True,
            "verified_digits": "0" if vd is None else str(min(vd, case.digits)),
            "exact": None, "method": result.method,
            "attained_by": _attained(result), "bound": result.bound}


def _attained(result) -> str:
    """The labels of the terms attaining a catalogue entry's maximum as stored: "remove",
    or "add = remove" for a tie ("" for a pair)."""
    return " = ".join(getattr(result, "attained_by", ()))


def drift(stored: Reference, new: Reference) -> Optional[str]:
    """None when the two intervals [low, high] overlap (and both are infinite or both
    finite), else a message naming both."""
    if stored.infinite or new.infinite:
        same = stored.infinite and new.infinite
    else:
        same = max(stored.low, new.low) <= min(stored.high, new.high)
    if same:
        return None
    return f"stored {show_reference(stored, 20)} but recomputed {show_reference(new, 20)}"


def recompute(doc: Dict, patterns: Optional[Sequence[str]], *, quick: bool,
              log=print, missing: bool = False,
              done=None) -> List[Tuple[str, int, Dict, Optional[str], Query]]:
    """Recompute the selected queries of ``doc`` (the raw catalogue): a list of (case
    name, query index, new reference JSON, drift message or None, query).  ``missing``: only the
    queries without a stored reference; ``done(rows)`` is called with each case's rows."""
    out = []
    for case in select([case_from_json(o) for o in doc["cases"]], patterns, include_slow=not quick):
        chosen = [i for i, q in enumerate(case.queries) if not missing or q.reference is None]
        if not chosen:
            continue
        results = compute_all(case, [case.queries[i] for i in chosen])
        rows = []
        for index, result in zip(chosen, results):
            query = case.queries[index]
            new = reference_json(case, result)
            message = _compare(query, new)
            shown = show_reference(Reference.from_json(new), case.digits)
            log(f"{case.name}  {query}  {shown}  {message or 'ok'}")
            rows.append((case.name, index, new, message, query))
        if done is not None:
            done(rows)
        out.extend(rows)
    return out


def _compare(query: Query, new: Dict) -> Optional[str]:
    if query.reference is None:
        return "no stored reference"
    return drift(query.reference, Reference.from_json(new))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line of the maintenance tool; exit 1 on drift (check mode)."""
    parser = argparse.ArgumentParser(prog="python -m refacct.validation.recompute",
                                     description="Recompute the reference cases' values.")
    parser.add_argument("--write", action="store_true", help="store the recomputed values")
    parser.add_argument("--cases", nargs="*", metavar="PATTERN", help="case name patterns")
    parser.add_argument("--quick", action="store_true", help="skip cases marked slow")
    parser.add_argument("--missing", action="store_true",
                        help="with --write: only queries without a reference, stored case by case")
    parser.add_argument("--suite", choices=tuple(SUITES), default="reference")
    parser.add_argument("--file", type=Path, default=None, help="catalogue (default: shipped)")
    args = parser.parse_args(argv)
    return check_or_write(args.file or catalogue_path(args.suite), args.cases, write=args.write,
                          quick=args.quick, missing=args.missing)


def check_or_write(path: Optional[Path], patterns, *, write: bool, quick: bool,
                   missing: bool = False) -> int:
    """Run ``recompute`` on the catalogue at ``path``; write it back (``missing``: case by
    case, only what has no reference) or report drift."""
    path = path or catalogue_path()
    if write and missing:
        recompute(read_catalogue(path), patterns, quick=quick, missing=True,
                  done=lambda rows: _store(path, rows))
        return 0
    results = recompute(read_catalogue(path), patterns, quick=quick)
    if write:
        _store(path, results)
        return 0
    problems = [f"{name} query {i}: {msg}" for name, i, _, msg, _ in results if msg]
    for p in problems:
        print(f"DRIFT: {p}", file=sys.stderr)
    return 1 if problems else 0


def _store(path: Path, results) -> None:
    """Write the new references into the file as it is now (re-read, so that definitions
    edited meanwhile and other recompute runs are kept); a reference is stored only where
    its query is still the one computed."""
    doc = read_catalogue(path)
    by_name = {obj["name"]: obj for obj in doc["cases"]}
    for name, index, new, _, query in results:
        stored = by_name.get(name, {}).get("queries", [])
        if index < len(stored) and (stored[index]["kind"], rational(stored[index]["at"], "at")) \
                == (query.kind, query.at):
            stored[index]["reference"] = new
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
