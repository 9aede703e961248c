"""Reports of a validation run: plain table, JSON, or markdown to paste in an issue.

Rows whose verdict is ``n/a`` (the accountant cannot express the case or query) are counted
in the summary but not listed.  Reference values are shown with 12 significant digits and
their bound (a proven bracket as "[lower, upper] proven"); a reported number is shown as
the accountant returned it (``repr`` of a float, so the exact binary value is recoverable).
The column ``noise`` flags verdicts that the peer's float64 noise could flip
(``verdicts.noise_level``).
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Dict, List, Sequence

from ..result import format_mpf
from .cases import show_reference
from .harness import Row
from .verdicts import VERDICTS
from ..errors import InputError

__all__ = ["FORMATS", "render", "records", "summary"]

FORMATS = ("table", "json", "markdown")
_HEADER = ("accountant", "claims", "case", "query", "reference", "reported", "ratio",
           "verdict", "reason", "noise", "seconds")


def _reported(row: Row) -> str:
    if row.reported is None:
        return "-"
    return repr(float(row.reported)) if isinstance(row.reported, float) else str(row.reported)


def _reference(row: Row) -> str:
    ref = row.query.reference
    return "-" if ref is None else show_reference(ref, 12)


def _cells(row: Row) -> List[str]:
    ratio = row.verdict.ratio
    return [row.accountant, row.claims, row.case.name, str(row.query), _reference(row),
            _reported(row), "-" if ratio is None else format_mpf(ratio, 8),
            row.verdict.verdict, row.verdict.reason, row.noise or "-", f"{row.seconds:.3f}"]


def records(rows: Sequence[Row]) -> List[Dict]:
    """One JSON object per listed row (the header names as keys, all values strings)."""
    return [dict(zip(_HEADER, _cells(r))) for r in rows if r.verdict.verdict != "n/a"]


def summary(rows: Sequence[Row]) -> Dict[str, Dict[str, int]]:
    """{accountant: {verdict: count}} over all rows (n/a included)."""
    out: Dict[str, Counter] = {}
    for r in rows:
        out.setdefault(r.accountant, Counter())[r.verdict.verdict] += 1
    return {acc: {v: c[v] for v in VERDICTS if c[v]} for acc, c in out.items()}


def _summary_lines(rows: Sequence[Row]) -> List[str]:
    return [f"{acc}: " + ", ".join(f"{n} {v}" for v, n in counts.items())
            for acc, counts in summary(rows).items()]


def _table(rows: Sequence[Row]) -> str:
    body = [_cells(r) for r in rows if r.verdict.verdict != "n/a"]
    widths = [max([len(h)] + [len(c[i]) for c in body]) for i, h in enumerate(_HEADER)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [line(_HEADER), line(["-" * w for w in widths])] + [line(c) for c in body]
    return "\n".join(out + [""] + _summary_lines(rows))


def _markdown(rows: Sequence[Row]) -> str:
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    out = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    out += ["| " + " | ".join(esc(c) for c in _cells(r)) + " |"
            for r in rows if r.verdict.verdict != "n/a"]
    out += [""] + [f"- {s}" for s in _summary_lines(rows)]
    return "\n".join(out)


def _json(rows: Sequence[Row]) -> str:
    return json.dumps({"rows": records(rows), "summary": summary(rows)}, indent=2)


def render(rows: Sequence[Row], fmt: str = "table") -> str:
    """The report in ``fmt`` (one of ``FORMATS``)."""
    if fmt not in FORMATS:
        raise InputError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return {"table": _table, "json": _json, "markdown": _markdown}[fmt](rows)
