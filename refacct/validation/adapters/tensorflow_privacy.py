"""Adapter for TensorFlow Privacy's accounting entry points
(``tensorflow_privacy.privacy.analysis``; PyPI ``tensorflow-privacy``).

TF Privacy 0.9.0 pins ``dp-accounting==0.4.3``, ``tensorflow~=2.4`` and ``numpy~=1.21``,
which the other peers cannot share; its accounting modules need only dp_accounting, absl and
scipy, and the package skips its TensorFlow imports when ``sys.skip_tf_privacy_import`` is
set ("useful for standalone scripts", its ``__init__``).  So it is installed without its
dependencies (``pip install --no-deps tensorflow-privacy==0.9.0``: README, optional step)
and runs on the dp_accounting installed here.  Every entry point answers eps(delta) of DP-SGD
with the Gaussian mechanism under add-or-remove-one; all are judged as upper bounds:

``tensorflow_privacy.rdp``
    ``compute_dp_sgd_privacy_lib.compute_dp_sgd_privacy(n, batch_size, noise_multiplier,
    epochs, delta)[0]``: Poisson sampling at q = batch_size / n, ceil(epochs n / batch_size)
    steps, dp_accounting's RDP accountant over TF Privacy's orders.
``tensorflow_privacy.statement-rdp`` / ``.statement-pld``
    ``compute_dp_sgd_privacy_statement(..., used_microbatching=False, accountant_type=RDP |
    PLD)``, the report TF Privacy recommends; the eps read from its text, as printed (three
    decimals): "Epsilon assuming Poisson sampling" for Poisson cases (ceil(epochs / q)
    steps), "Epsilon with each example occurring once per epoch" for the unsampled Gaussian
    (``epochs`` = steps) and deterministic batching (one epoch); with a group of K
    (``max_examples_per_user=K``, RDP only) the user-level lines, from Vadhan's group
    conversion (TF Privacy's ``_compute_dp_sgd_user_privacy``).
``tensorflow_privacy.gdp``
    ``gdp_accountant.compute_eps_poisson(epoch, noise_multi, n, batch_size, delta)``: the CLT
    approximation mu = q sqrt(T (e^{1/s^2} - 1)) of Bu et al. (not a bound; the unsampled
    Gaussian as q = 1).

A case reaches TF Privacy as n = 1/q examples (q = 1/n exactly), batches of one and the
epochs (a float) whose step count, computed as TF Privacy does, is the case's; other
rates, relations, families and composition forms are not expressible.  Parameters reach the
peer as floats.
"""
from __future__ import annotations

import importlib
import math
import re
import sys
from typing import Dict, List, Optional

from ..cases import Case, Query
from . import Accountant, Peer

__all__ = ["PEER", "accountants", "call_of", "features", "reproducer", "VOCABULARY"]

WHICH = ("rdp", "statement-rdp", "statement-pld", "gdp")
LINES = {"poisson": "Epsilon assuming Poisson sampling (*):",
         "once": "Epsilon with each example occurring once per epoch:"}


PEER = Peer(package="tensorflow_privacy", distribution="tensorflow-privacy",
            install="pip install --no-deps tensorflow-privacy==0.9.0 (README, optional step)")


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """One accountant per entry point (``WHICH``), no knobs."""
    return [Accountant(f"tensorflow_privacy.{w}", "upper",
                       lambda case, w=w: _prepare(case, w)) for w in WHICH]


def _analysis(name: str):
    """``tensorflow_privacy.privacy.analysis.<name>`` without TensorFlow."""
    sys.skip_tf_privacy_import = True
    return importlib.import_module(f"tensorflow_privacy.privacy.analysis.{name}")


def _epochs(steps: int, n: int, *, by_rate: bool) -> float:
    """A float ``epochs`` that TF Privacy turns into ``steps`` steps of batches of one out
    of ``n`` examples: ``compute_dp_sgd_privacy`` counts ceil(epochs * n / batch_size), the
    statement ceil(epochs / (batch_size / n)), in floats."""
    def count(epochs: float) -> int:
        return math.ceil(epochs / (1 / n)) if by_rate else math.ceil(epochs * n / 1)
    epochs = steps / n
    while count(epochs) > steps:
        epochs = math.nextafter(epochs, 0.0)
    while count(epochs) < steps:
        epochs = math.nextafter(epochs, math.inf)
    return epochs


def call_of(which: str, case: Case) -> Optional[Dict[str, object]]:
    """The keyword arguments of the entry point ``which`` for ``case`` (plus ``line``, the
    statement's line to read), or None when TF Privacy cannot express it."""
    relations = ("add-remove", "zero-out") if case.scheme == "deterministic" else ("add-remove",)
    if case.family != "gaussian" or case.form != "default" or case.relation not in relations:
        return None
    noise = float(case.param("sigma") / case.param("sensitivity"))
    if case.scheme == "poisson":
        q = case.param("q")
        if q.numerator != 1 or q.denominator == 1:
            return None
        n, line, steps = q.denominator, "poisson", case.steps
    elif case.scheme in ("none", "deterministic"):
        n, line = 1, "once"
        steps = 1 if case.scheme == "deterministic" else case.steps
    else:
        return None
    if case.group != 1 and which != "statement-rdp":
        return None
    if which == "rdp":
        return None if line != "poisson" else {
            "n": n, "batch_size": 1, "noise_multiplier": noise,
            "epochs": _epochs(steps, n, by_rate=False)}
    if which == "gdp":
        return {"epoch": steps / n, "noise_multi": noise, "n": n, "batch_size": 1}
    return {"number_of_examples": n, "batch_size": 1, "noise_multiplier": noise,
            "num_epochs": float(steps) if line == "once" else _epochs(steps, n, by_rate=True),
            "used_microbatching": False,
            "max_examples_per_user": case.group if case.group != 1 else None,
            "line": line}


def _prepare(case: Case, which: str):
    call = call_of(which, case)
    if call is None:
        return None

    def answer(query: Query):
        return _epsilon(which, dict(call), float(query.at)) if query.kind == "epsilon" else None
    return answer


def _epsilon(which: str, call: Dict[str, object], delta: float):
    if which == "rdp":
        return _analysis("compute_dp_sgd_privacy_lib").compute_dp_sgd_privacy(
            delta=delta, **call)[0]
    if which == "gdp":
        return _analysis("gdp_accountant").compute_eps_poisson(delta=delta, **call)
    lib = _analysis("compute_dp_sgd_privacy_lib")
    line = call.pop("line")
    kind = lib.AccountantType.RDP if which == "statement-rdp" else lib.AccountantType.PLD
    text = lib.compute_dp_sgd_privacy_statement(delta=delta, accountant_type=kind, **call)
    return statement_epsilon(text, line, user=call["max_examples_per_user"] is not None)


def statement_epsilon(text: str, line: str, *, user: bool) -> str:
    """The eps printed on ``line`` ("poisson" or "once") of the example-level paragraph, or
    of the user-level one, as printed ("0.718", "inf"): a decimal string, read exactly."""
    found = [m.group(1) for m in
             re.finditer(re.escape(LINES[line]) + r"\s+(\S+)", text)]
    if len(found) != (2 if user else 1):
        raise ValueError(f"TF Privacy's statement has no {line!r} line: {text!r}")
    return found[-1]


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of TF Privacy alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    which = accountant.split(".", 1)[1]
    call = dict(call_of(which, case))
    delta = float(query.at)
    head = ["import sys", "sys.skip_tf_privacy_import = True  # no TensorFlow needed"]
    if which == "gdp":
        words = ", ".join(f"{k}={v!r}" for k, v in call.items())
        return "\n".join(head + ["from tensorflow_privacy.privacy.analysis import gdp_accountant",
                                 "", f"print(gdp_accountant.compute_eps_poisson({words}, "
                                 f"delta={delta!r}))"])
    head.append("from tensorflow_privacy.privacy.analysis import compute_dp_sgd_privacy_lib "
                "as lib")
    if which == "rdp":
        words = ", ".join(f"{k}={v!r}" for k, v in call.items())
        return "\n".join(head + ["", f"print(lib.compute_dp_sgd_privacy({words}, "
                                     f"delta={delta!r})[0])"])
    call.pop("line")
    words = ", ".join(f"{k}={v!r}" for k, v in call.items())
    kind = "RDP" if which == "statement-rdp" else "PLD"
    return "\n".join(head + [
        "", f"text = lib.compute_dp_sgd_privacy_statement({words}, delta={delta!r}, "
        f"accountant_type=lib.AccountantType.{kind})", "print(text)",
        f"print([l.split(':')[-1].split()[0] for l in text.splitlines() "
        f"if {LINES[call_of(which, case)['line']]!r} in l][-1])"])


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "entry: compute_dp_sgd_privacy (RDP, Poisson)": "",
    "entry: compute_dp_sgd_privacy_statement (RDP)": "",
    "entry: compute_dp_sgd_privacy_statement (PLD)": "",
    "entry: gdp_accountant.compute_eps_poisson": "",
    "statement: Poisson sampling line": "", "statement: once-per-epoch line": "",
    "statement: user-level lines (max_examples_per_user)": "",
    "sampling: Poisson (q = batch_size / n)": "", "sampling: none (once per epoch)": "",
    "entry: gdp_accountant.compute_eps_uniform": "the CLT for uniform sampling without "
    "replacement (Bu et al.): an approximation whose neighbouring relation TF Privacy does "
    "not state, with no matching entry in refacct's catalogue",
    "entry: compute_noise_from_budget_lib.compute_noise": "calibrates the noise to an "
    "(eps, delta) target by RDP; the suite's calibrations target the attack advantage "
    "(eps = 0), which an RDP conversion cannot reach",
    "option: used_microbatching=True": "halves the noise multiplier (sensitivity 2): the "
    "same computation at another sigma, which the suite's sigma grid exercises",
    "entry: tree_aggregation_accountant (DP-FTRL)": "tree aggregation of correlated noise: "
    "no entry in refacct's catalogue",
}
_ENTRIES = {"rdp": "entry: compute_dp_sgd_privacy (RDP, Poisson)",
            "statement-rdp": "entry: compute_dp_sgd_privacy_statement (RDP)",
            "statement-pld": "entry: compute_dp_sgd_privacy_statement (PLD)",
            "gdp": "entry: gdp_accountant.compute_eps_poisson"}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    which = accountant.split(".", 1)[1]
    if query.kind != "epsilon" or call_of(which, case) is None:
        return None
    out = [_ENTRIES[which], "sampling: Poisson (q = batch_size / n)" if case.scheme == "poisson"
           else "sampling: none (once per epoch)"]
    if which.startswith("statement"):
        out.append("statement: Poisson sampling line" if case.scheme == "poisson"
                   else "statement: once-per-epoch line")
        if case.group != 1:
            out.append("statement: user-level lines (max_examples_per_user)")
    return out
