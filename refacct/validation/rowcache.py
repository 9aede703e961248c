"""Judged answers kept on disk, so that a long run (the full scorecard: more than an hour,
most of it one peer's FFTs) resumes where it stopped and is split across sessions.

    rows = cached_validate(accountants, cases, directory, versions)

runs each (accountant, case) once and stores its rows in ``directory/<accountant>.json``
as soon as the case is done.  A stored case is reused while its key holds: the case itself
(its definition and references: ``repr`` of the ``Case``), the peer's version and refacct's
version; anything else is run again.  Reported numbers are stored exactly (floats by their
``repr``, which round-trips; mpf and Fraction by ``refacct.sweep.encode``; anything else
as text, which is what a report shows of it).
"""
from __future__ import annotations

import hashlib
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, List, Sequence

from .. import __version__
from ..exact_text import fraction_from_text, fraction_text
from ..sweep import decode, encode
from .adapters import Accountant
from .cases import Case
from .harness import Row, validate
from .verdicts import DEFAULT_TOLERANCE, Verdict

__all__ = ["cached_validate", "case_key"]


def case_key(case: Case, version: str) -> str:
    """What a stored case's rows depend on: the case, the peer's and refacct's versions.
    (Exact references of many steps are rationals of more digits than Python prints by
    default: the limit is lifted while the case is written out, then restored.)"""
    limit = getattr(sys, "get_int_max_str_digits", lambda: None)()
    try:
        if limit is not None:
            sys.set_int_max_str_digits(0)
        text = f"{case!r}|{version}|refacct {__version__}"
    finally:
        if limit is not None:
            sys.set_int_max_str_digits(limit)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_validate(accountants: Sequence[Accountant], cases: Sequence[Case], directory: Path,
                    version_of: Callable[[str], str],
                    tolerance: Fraction = DEFAULT_TOLERANCE) -> List[Row]:
    """``harness.validate`` with each (accountant, case) taken from ``directory`` when
    stored under the same key, else run and stored at once; rows in the same order."""
    directory.mkdir(parents=True, exist_ok=True)
    rows: List[Row] = []
    for acc in accountants:
        path = directory / f"{acc.name}.json"
        stored = _read(path)
        version = version_of(acc.name.split(".")[0])
        for case in cases:
            key = case_key(case, version)
            entry = stored.get(case.name, {}).get(key)
            if entry is None:
                found = validate([acc], [case], tolerance)
                stored.setdefault(case.name, {})[key] = [_row_json(r) for r in found]
                _write(path, stored)
            else:
                found = [_row(acc, case, obj) for obj in entry]
            rows.extend(found)
    return rows


def _read(path: Path) -> Dict:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, stored: Dict) -> None:
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(stored, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)  # never a half-written file


def _row_json(row: Row) -> Dict:
    v = row.verdict
    return {"query": row.case.queries.index(row.query), "reported": _number(row.reported),
            "verdict": v.verdict, "ratio": None if v.ratio is None else fraction_text(v.ratio),
            "reason": v.reason, "seconds": row.seconds, "error": row.error, "noise": row.noise}


def _row(acc: Accountant, case: Case, obj: Dict) -> Row:
    ratio = None if obj["ratio"] is None else fraction_from_text(obj["ratio"])
    return Row(acc.name, acc.claims, case, case.queries[obj["query"]], _value(obj["reported"]),
               Verdict(obj["verdict"], ratio, obj["reason"]), obj["seconds"], obj["error"],
               obj["noise"])


def _number(x: object) -> object:
    if x is None or isinstance(x, (bool, str)):
        return {"text": str(x)} if isinstance(x, (bool, str)) else None
    if isinstance(x, int):
        return {"int": str(x)}
    if isinstance(x, float) or type(x).__module__ == "numpy":
        try:
            return {"float": repr(float(x))}
        except (TypeError, ValueError):
            return {"text": str(x)}
    if isinstance(x, Fraction) or hasattr(x, "man_exp"):
        return {"exact": encode(x)}
    return {"text": str(x)}


def _value(obj: object) -> object:
    if obj is None:
        return None
    if "float" in obj:
        return float(obj["float"])
    if "int" in obj:
        return int(obj["int"])
    if "exact" in obj:
        return decode(obj["exact"])
    return obj["text"]
