"""pytest helper for downstream test suites: assert that an accountant is sound on
refacct's reference cases.

>>> from refacct.testing import assert_sound
>>> def my_accountant(case, query):          # the signature of refacct.validation.adapters
...     return None                          # None: case not handled (skipped)
>>> assert_sound(my_accountant, cases=["002-*"])

``accountant`` is a callable ``(case, query) -> float | None`` (``function.claims = "lower"``
for a lower-bound accountant), an ``Accountant``, or a peer name (``"dp_accounting.pld"``).
A failure lists, per bad answer, the case, the query, the reference value with its error
bound, the reported value and the verdict.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

from .errors import InputError
from .validation.adapters import Accountant, resolve
from .validation.cases import load_cases, select, show_reference
from .validation.harness import Row, validate
from .validation.verdicts import FAILING

__all__ = ["assert_sound"]


def _as_accountants(accountant) -> Sequence[Accountant]:
    if isinstance(accountant, Accountant):
        return [accountant]
    if isinstance(accountant, str):
        return resolve(accountant)
    name = getattr(accountant, "__qualname__", repr(accountant))
    return [Accountant(name, getattr(accountant, "claims", "upper"),
                       lambda case: lambda q: accountant(case, q))]


def _explain(row: Row) -> str:
    ref = row.query.reference
    shown = show_reference(ref, 15)
    return (f"  {row.case.name}: {row.query}: reference {shown}, reported "
            f"{row.reported!r} ({row.claims} bound) -> {row.verdict.verdict}"
            + (f": {row.verdict.reason}" if row.verdict.reason else "")
            + (f" [{row.noise}]" if row.noise else ""))


def assert_sound(accountant: Union[Callable, Accountant, str],
                 cases: Optional[Sequence[str]] = None) -> None:
    """Fail (AssertionError) if ``accountant`` is unsound or fails on any query of the
    reference cases matching the name patterns ``cases`` (all cases when None)."""
    chosen = select(load_cases(), cases)
    if not chosen:
        raise InputError(f"no reference case matches {cases}")
    rows = validate(_as_accountants(accountant), chosen)
    bad = [r for r in rows if r.verdict.verdict in FAILING]
    if bad:
        raise AssertionError(f"{len(bad)} of {len(rows)} answers unsound or failed:\n"
                             + "\n".join(_explain(r) for r in bad))
