"""Maintenance: recompute the catalogue's reference values, write them, or check for drift.

    python -m refacct.validation.recompute [--write] [--cases PATTERN ...] [--quick] [--file PATH]

Without ``--write`` (the check, also ``refacct cases --check``) every selected query is
recomputed and compared with the stored reference: the stored interval [v - e, v + e] and the
recomputed one must overlap, i.e. |v_stored - v_new| <= e_stored + e_new (both contain the
truth, so disjoint intervals mean the file or the code is wrong).  Exit 1 on any drift.
With ``--write`` the recomputed references replace the stored ones (the only way values
enter ``cases.json``).

A stored value is the decimal string of refacct's value at the case's ``digits``; its
``abs_error`` is refacct's bound plus the rounding |decimal - value|, rounded up to three
significant digits, all in exact rationals.
"""
from __future__ import annotations

import argparse
import json
import math
from decimal import Decimal
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import mpmath

from ..exact import rational
from ..mechanisms import delta, epsilon, hockey_stick
from ..result import format_mpf
from .cases import Case, Query, Reference, case_from_json, catalogue_path, read_catalogue, select

__all__ = ["compute", "reference_json", "drift", "recompute", "main"]

_RUN = {"delta": delta, "epsilon": epsilon, "alpha": hockey_stick}


def compute(case: Case, query: Query):
    """refacct's ``MechanismDelta`` / ``MechanismEpsilon`` for one query of ``case``."""
    return _RUN[query.kind](case.entry(), query.at, digits=case.digits)


def round_up(x: Fraction, sig: int = 3) -> str:
    """The smallest decimal with ``sig`` significant digits that is >= x >= 0, as text
    ("1.68e-20"); exact rational arithmetic throughout."""
    if x == 0:
        return "0"
    lead = len(str(x.numerator)) - len(str(x.denominator))  # 10^lead <= 10 x
    if Fraction(10) ** lead > x:
        lead -= 1
    unit = Fraction(10) ** (lead - sig + 1)
    return format(Decimal(math.ceil(x / unit)).scaleb(lead - sig + 1), "e")


def reference_json(case: Case, result) -> Dict:
    """The stored form of a refacct result (see the module docstring)."""
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
            "exact": None if exact is None else str(exact), "method": result.method,
            "attained_by": result.attained_by, "bound": result.bound}


def drift(stored: Reference, new: Reference) -> Optional[str]:
    """None when the two intervals overlap (and both are infinite or both finite), else a
    message naming both values."""
    if stored.infinite or new.infinite:
        same = stored.infinite and new.infinite
    else:
        same = abs(stored.value - new.value) <= stored.abs_error + new.abs_error
    if same:
        return None
    return (f"stored {_show(stored)} but recomputed {_show(new)}")


def _show(ref: Reference) -> str:
    return "inf" if ref.infinite else f"{format_mpf(ref.value, 20)} ± {format_mpf(ref.abs_error, 3)}"


def recompute(doc: Dict, patterns: Optional[Sequence[str]], *, quick: bool,
              log=print) -> List[Tuple[str, int, Dict, Optional[str]]]:
    """Recompute the selected queries of ``doc`` (the raw catalogue): a list of (case
    name, query index, new reference JSON, drift message or None)."""
    out = []
    for case in select([case_from_json(o) for o in doc["cases"]], patterns, include_slow=not quick):
        for index, query in enumerate(case.queries):
            new = reference_json(case, compute(case, query))
            message = _compare(query, new)
            log(f"{case.name}  {query}  {new['value']} ± {new['abs_error']}  {message or 'ok'}")
            out.append((case.name, index, new, message))
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
    parser.add_argument("--file", type=Path, default=None, help="catalogue (default: shipped)")
    args = parser.parse_args(argv)
    return check_or_write(args.file, args.cases, write=args.write, quick=args.quick)


def check_or_write(path: Optional[Path], patterns, *, write: bool, quick: bool) -> int:
    """Run ``recompute`` on the catalogue at ``path``; write it back or report drift."""
    path = path or catalogue_path()
    results = recompute(read_catalogue(path), patterns, quick=quick)
    if write:
        _store(path, results)
        return 0
    problems = [f"{name} query {i}: {msg}" for name, i, _, msg in results if msg]
    for p in problems:
        print(f"DRIFT: {p}", file=sys.stderr)
    return 1 if problems else 0


def _store(path: Path, results) -> None:
    """Write the new references into the file as it is now (re-read, so that definitions
    edited meanwhile and other recompute runs are kept)."""
    doc = read_catalogue(path)
    by_name = {obj["name"]: obj for obj in doc["cases"]}
    for name, index, new, _ in results:
        by_name[name]["queries"][index]["reference"] = new
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
