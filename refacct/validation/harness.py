"""Run accountants on reference cases: one ``Row`` per (accountant, case, query).

For each case an accountant is prepared once (``Accountant.prepare``), then asked every
query; each answer is judged against the stored reference (``verdicts.judge``), and the
answers of one case and query kind are checked for monotonicity
(``verdicts.flag_non_monotone``).  Wall times are measured per query (preparation is
charged to the case's first query).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import List, Optional, Sequence

from .. import progress
from .adapters import Accountant
from .cases import Case, Query
from .verdicts import (DEFAULT_TOLERANCE, FAILING, Verdict, exact_value, flag_non_monotone, judge,
                       noise_level)

__all__ = ["Row", "validate", "any_failing", "claim_of"]


@dataclass(frozen=True)
class Row:
    """One judged answer: ``reported`` is the accountant's number as returned (None when
    not expressible or raised), ``error`` the exception text when it raised, ``noise``
    the noise-level flag (``verdicts.noise_level``; "" when the verdict is not noise)."""

    accountant: str
    claims: str
    case: Case
    query: Query
    reported: object
    verdict: Verdict
    seconds: float
    error: str = ""
    noise: str = ""


def validate(accountants: Sequence[Accountant], cases: Sequence[Case],
             tolerance: Fraction = DEFAULT_TOLERANCE) -> List[Row]:
    """Every accountant on every case; rows in (accountant, case, query) order."""
    rows: List[Row] = []
    for acc in accountants:
        for case in cases:
            rows.extend(_monotone(_case_rows(acc, case, tolerance)))
    return rows


def any_failing(rows: Sequence[Row]) -> bool:
    """True when some row is unsound or failed (``refacct validate`` exits 1)."""
    return any(r.verdict.verdict in FAILING for r in rows)


def _case_rows(acc: Accountant, case: Case, tolerance: Fraction) -> List[Row]:
    start = time.perf_counter()
    try:
        with progress.task(f"asking {acc.name}: {case.name}"):
            answer = acc.prepare(case)
    except Exception as exc:  # a peer's failure is a finding, not a crash
        spent = time.perf_counter() - start
        return [_raised(acc, case, q, exc, spent if i == 0 else 0.0)
                for i, q in enumerate(case.queries)]
    spent = time.perf_counter() - start
    rows = []
    for i, query in enumerate(case.queries):
        rows.append(_ask(acc, case, query, answer, tolerance, spent if i == 0 else 0.0))
    return rows


def _ask(acc: Accountant, case: Case, query: Query, answer, tolerance, spent: float) -> Row:
    start = time.perf_counter()
    try:
        with progress.task(f"asking {acc.name}: {case.name} {query}"):
            reported = None if answer is None else answer(query)
    except Exception as exc:
        return _raised(acc, case, query, exc, spent + time.perf_counter() - start)
    seconds = spent + time.perf_counter() - start
    if reported is None or query.reference is None:
        reason = "not expressible" if reported is None else "no reference stored"
        return Row(acc.name, acc.claims, case, query, reported, Verdict("n/a", None, reason), seconds)
    floor = acc.noise_floor(case) if acc.noise_floor else None
    claims = claim_of(acc.claims, query.kind)
    return Row(acc.name, acc.claims, case, query, reported,
               judge(reported, query.reference, claims, tolerance), seconds,
               noise=noise_level(reported, query.reference, query.kind, query.at, floor,
                                 claims, tolerance))


def claim_of(claims: str, kind: str) -> str:
    """What an answer of ``kind`` claims, for an accountant whose delta and eps claim
    ``claims``: a trade-off value beta(alpha) is a privacy guarantee when it is *below* the
    truth (a larger delta, a smaller beta), so an upper-bound accountant's beta claims
    "lower"."""
    if kind != "beta":
        return claims
    return "lower" if claims == "upper" else "upper"


def _raised(acc: Accountant, case: Case, query: Query, exc: Exception, seconds: float) -> Row:
    text = f"{type(exc).__name__}: {exc}"
    return Row(acc.name, acc.claims, case, query, None,
               Verdict("failed", None, "exception: " + text.splitlines()[0][:80]), seconds, text)


def _monotone(rows: List[Row]) -> List[Row]:
    """Rows whose answer breaks monotonicity within its query kind become ``failed``
    (delta(eps), eps(delta), H_alpha, beta(alpha) and the calibrated sigma(advantage) are
    all non-increasing; the sigma calibrated to error rates is non-decreasing in its beta)."""
    out = list(rows)
    for kind in ("delta", "epsilon", "alpha", "beta", "sigma", "errors"):
        idx = [i for i, r in enumerate(rows) if r.query.kind == kind]
        sign = -1 if kind == "errors" else 1
        points = [(sign * rows[i].query.at, _value(rows[i])) for i in idx]
        for i, reason in zip(idx, flag_non_monotone(points)):
            if reason:
                out[i] = replace(rows[i], verdict=Verdict("failed", rows[i].verdict.ratio, reason))
    return out


def _value(row: Row) -> Optional[Fraction]:
    """The exact reported value when finite and judged (else None: not compared)."""
    if row.reported is None or row.verdict.verdict in ("failed", "n/a"):
        return None
    try:
        return exact_value(row.reported)
    except (ValueError, TypeError):
        return None
