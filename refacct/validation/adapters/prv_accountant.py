"""Adapter for Microsoft's ``prv_accountant`` (Gopi, Lee, Wutschitz 2021: numerical
composition of privacy random variables).

Cases map to its privacy random variables (PRVs), self-composed ``steps`` times:

    gaussian, none / deterministic   GaussianMechanism(sigma, l2_sensitivity=Delta)
                                     (deterministic: once, 002 Prop. 3.1)
    gaussian, poisson(q)             PoissonSubsampledGaussianMechanism(q, sigma / Delta)
    laplace, none                    LaplaceMechanism(mu = Delta / scale)

under add-remove (or zero-out for deterministic batching, the same Gaussian pair).  The
subsampled PRV is the privacy loss of the remove pair ((1 - q) N(0, s^2) + q N(1, s^2),
N(0, s^2)) only (its support starts at log(1 - q)); the add direction is not composed.

Composition forms: the default passes ``max_self_compositions=[k]`` and
``num_self_compositions=[k]``; "count" builds the accountant for twice the steps
(``max_self_compositions=[2k]``) and asks for ``[k]``; a heterogeneous case passes one PRV
per part (``prvs=[...]``, counts ``[k_1, k_2, ...]``).  One call per step and lists of
events have no counterpart.

``PRVAccountant.compute_delta`` / ``compute_epsilon`` return (lower, estimate, upper):
``prv_accountant.upper`` reports the upper and ``prv_accountant.lower`` the lower value.
Knobs: ``eps_error`` (default 0.01), ``delta_error`` for delta(eps) queries (absolute,
default 1e-12) and ``delta_error_relative`` for eps(delta) queries (delta_error = this
times delta, default 1e-3, the package's suggestion).  Parameters reach the peer as floats.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..cases import Case, Query
from . import Accountant, fft_noise_floor, Peer

__all__ = ["PEER", "accountants", "prv_of", "plan_of", "features", "reproducer",
           "KNOBS", "VOCABULARY"]

KNOBS = {"eps_error": 0.01, "delta_error": 1e-12, "delta_error_relative": 1e-3}
_POSITION = {"lower": 0, "upper": 2}


PEER = Peer(package="prv_accountant", distribution="prv-accountant",
            install="pip install 'refacct[peers]'", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """``prv_accountant.upper`` and ``prv_accountant.lower`` with ``knobs``."""
    return [Accountant(f"prv_accountant.{which}", which,
                       lambda case, which=which: _prepare(case, which, knobs), knobs,
                       fft_noise_floor)
            for which in ("upper", "lower")]


def prv_of(case: Case):
    """(PRV, number of compositions) for a homogeneous ``case``, or None."""
    import prv_accountant
    found = _prv_call(case)
    if found is None:
        return None
    (name, args, kwargs), count = found
    return getattr(prv_accountant, name)(*args, **kwargs), count


def _prv_call(case: Case):
    """((class name, arguments, keywords), compositions) of a homogeneous case's PRV."""
    if case.group != 1 or case.relation not in ("add-remove", "zero-out"):
        return None
    if case.family == "gaussian" and case.scheme in ("none", "deterministic"):
        call = ("GaussianMechanism", (float(case.param("sigma")),),
                {"l2_sensitivity": float(case.param("sensitivity"))})
        return call, 1 if case.scheme == "deterministic" else case.steps
    if case.family == "gaussian" and case.scheme == "poisson":
        noise = float(case.param("sigma") / case.param("sensitivity"))
        return ("PoissonSubsampledGaussianMechanism", (float(case.param("q")), noise), {}), case.steps
    if case.family == "laplace" and case.scheme == "none":
        mu = float(case.param("sensitivity") / case.param("scale"))
        return ("LaplaceMechanism", (mu,), {}), case.steps
    return None


def plan_of(case: Case) -> Optional[List[Tuple[object, int]]]:
    """[(PRV, compositions)] per part of ``case`` in a form this peer has, or None."""
    if case.form not in ("default", "count", "heterogeneous"):
        return None
    plan = [prv_of(part) for part in case.parts()]
    return None if any(p is None for p in plan) else plan


def _prepare(case: Case, which: str, knobs):
    if plan_of(case) is None:
        return None

    def answer(query: Query):
        if query.kind not in ("delta", "epsilon"):
            return None
        at = float(query.at)
        if query.kind == "delta":
            acc, counts = _accountant(case, knobs["eps_error"], knobs["delta_error"])
            return acc.compute_delta(at, counts)[_POSITION[which]]
        acc, counts = _accountant(case, knobs["eps_error"], knobs["delta_error_relative"] * at)
        return acc.compute_epsilon(at, counts)[_POSITION[which]]
    return answer


_CACHE: dict = {}


def _accountant(case: Case, eps_error: float, delta_error: float):
    """(``PRVAccountant``, compositions) per (case, errors), shared by upper and lower
    (the last few are kept)."""
    import prv_accountant as prv
    key = (case.name, case.describe(), eps_error, delta_error)
    if key not in _CACHE:
        plan = plan_of(case)
        counts = [count for _, count in plan]
        most = [2 * c for c in counts] if case.form == "count" else counts
        if len(_CACHE) >= 8:
            _CACHE.clear()
        _CACHE[key] = (prv.PRVAccountant(prvs=[mech for mech, _ in plan],
                                         max_self_compositions=most, eps_error=eps_error,
                                         delta_error=delta_error), counts)
    return _CACHE[key]


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "accountant: PRVAccountant": "", "query: compute_delta": "", "query: compute_epsilon": "",
    "mechanism: GaussianMechanism": "", "mechanism: PoissonSubsampledGaussianMechanism": "",
    "mechanism: LaplaceMechanism": "",
    "mechanism: PureDPMechanism / ApproximateDPMechanism": "an (eps, delta) statement, not "
    "a mechanism: no single pair of distributions to compare against",
    "mechanism: RandomisedResponse": "prv_accountant 0.2.0's randomised response has no "
    "documented neighbouring relation to match a catalogue entry",
    "form: max_self_compositions = num_self_compositions": "",
    "form: num_self_compositions below max_self_compositions": "",
    "form: several prvs": "",
    "answer: lower end": "", "answer: upper end": "",
    "answer: estimate": "neither bound: judged through its two ends",
}
_FORMS = {"default": "form: max_self_compositions = num_self_compositions",
          "count": "form: num_self_compositions below max_self_compositions",
          "heterogeneous": "form: several prvs"}


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of prv_accountant alone that ask the query as this adapter does."""
    calls = [_prv_call(part) for part in case.parts()]
    if plan_of(case) is None or query.kind not in ("delta", "epsilon"):
        return None
    at = float(query.at)
    counts = [count for _, count in calls]
    most = [2 * c for c in counts] if case.form == "count" else counts
    prvs = ", ".join(f"prv.{name}({', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kw.items()])})"
                     for (name, args, kw), _ in calls)
    knobs = KNOBS
    error = (knobs["delta_error"] if query.kind == "delta" else knobs["delta_error_relative"] * at)
    end = {"lower": 0, "upper": 2}[accountant.split(".")[1]]
    return "\n".join([
        "import prv_accountant as prv", "",
        f"acc = prv.PRVAccountant(prvs=[{prvs}], max_self_compositions={most!r}, "
        f"eps_error={knobs['eps_error']!r}, delta_error={error!r})",
        f"print(acc.compute_{query.kind}({at!r}, {counts!r})[{end}])  # (lower, estimate, upper)"])


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    plan = plan_of(case)
    if plan is None or query.kind not in ("delta", "epsilon"):
        return None
    return (["accountant: PRVAccountant", f"query: compute_{query.kind}", _FORMS[case.form],
             f"answer: {accountant.split('.')[1]} end"]
            + [f"mechanism: {type(mech).__name__}" for mech, _ in plan])
