"""Validation harness: check fast accountants against refacct's reference values.

``cases``       the reference-case catalogue (package data ``cases.json``)
``adapters``    peers (dp_accounting, prv_accountant) and user callables as ``Accountant``
``verdicts``    sound / loose / undecided / unsound / failed for one answer
``harness``     run accountants on cases (``validate``)
``report``      table, JSON, markdown
``command``     the ``validate`` and ``cases`` subcommands; ``recompute`` the maintenance tool
``refacct.testing.assert_sound`` is the pytest helper built on these.
"""
from .adapters import Accountant, resolve, user_accountant
from .cases import Case, Query, Reference, list_cases, load_cases, select
from .harness import Row, any_failing, validate
from .verdicts import Verdict, judge

__all__ = ["Accountant", "resolve", "user_accountant", "Case", "Query", "Reference",
           "load_cases", "select", "list_cases", "Row", "validate", "any_failing",
           "Verdict", "judge"]
