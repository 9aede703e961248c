"""Adapter for Feldman and Shenfeld's ``random-allocation`` ("Privacy amplification by
random allocation", arXiv:2502.08202): bounds for the Gaussian mechanism when each record
is allocated to exactly one of the ``num_steps`` steps of an epoch.

It expresses one catalogue entry: ``gaussian`` (noise sigma / Delta) with ``sampling
"random-allocation"``, ``steps`` = the steps of one epoch (``num_steps``), the case's
``epochs`` (``num_epochs``), one allocation per record.  The relation picks the package's
``Direction``: add-remove is ``BOTH`` (the larger of the two), remove is ``REMOVE``
(refacct's H(P || Q), P the mixture), add is ``ADD``.  Accountants, one per method of the package (each answers delta(eps) and
eps(delta) with ``allocation_delta_<method>`` / ``allocation_epsilon_<method>``):

    random_allocation.decomposition   upper bound (the paper's decomposition, via Poisson PLDs)
    random_allocation.recursive       upper bound
    random_allocation.rdp-dco         upper bound (RDP of the allocation, RDP_DCO)
    random_allocation.lower-bound     lower bound (``lower_bound``: a lower bound on the truth)

``decomposition`` and ``lower_bound`` take one epoch only (the package raises a
``ValueError`` for ``num_epochs > 1``): they are not asked cases of more epochs.
(``direct`` and ``combined`` need RDP orders that the default ``SchemeConfig`` does not
carry: called as a user calls them, they raise.)

Knobs (``SchemeConfig``'s, with its defaults): ``discretization`` (1e-4), ``delta_tolerance``
(1e-15), ``epsilon_tolerance`` (1e-3: the step of its eps searches) and ``epsilon_upper_bound``
(100).  Parameters reach the peer as floats.  The package imports pandas without declaring
it (refacct's ``more-peers`` extra installs it).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...errors import InputError
from ..cases import Case, Query
from . import Accountant, Peer

__all__ = ["PEER", "accountants", "features", "reproducer", "KNOBS", "VOCABULARY"]

KNOBS = {"discretization": 1e-4, "delta_tolerance": 1e-15, "epsilon_tolerance": 1e-3,
         "epsilon_upper_bound": 100.0}
# accountant suffix: (the package's method name, claims)
METHODS = {"decomposition": ("decomposition", "upper"), "recursive": ("recursive", "upper"),
           "rdp-dco": ("RDP_DCO", "upper"), "lower-bound": ("lower_bound", "lower")}
_DIRECTIONS = {"add-remove": "BOTH", "remove": "REMOVE", "add": "ADD"}
ONE_EPOCH = ("decomposition", "lower_bound")  # they raise ValueError for num_epochs > 1

PEER = Peer(package="random_allocation", distribution="random-allocation",
            install="pip install 'refacct[more-peers]'", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """One accountant per method (module docstring), with ``knobs``."""
    for name, value in knobs.items():
        if not value > 0:  # NaN too
            raise InputError(f"random_allocation.{name} must be > 0, got {value}")
    return [Accountant(f"random_allocation.{suffix}", claims,
                       lambda case, method=method: _prepare(case, method, knobs), knobs)
            for suffix, (method, claims) in METHODS.items()]


def _call(case: Case):
    """(sigma / Delta, steps of the epoch, Direction name, epochs) of an expressible case,
    or None."""
    direction = _DIRECTIONS.get(case.relation)
    if case.family != "gaussian" or case.scheme != "random-allocation" or case.group != 1 \
            or case.form != "default" or case.segments or direction is None:
        return None
    return (float(case.param("sigma") / case.param("sensitivity")), case.steps, direction,
            case.epochs)


def _config(knobs):
    from random_allocation.comparisons.definitions import SchemeConfig, Verbosity
    return SchemeConfig(verbosity=Verbosity.NONE, **knobs)


def _asked(case: Case, method: str):
    """``_call(case)``, or None where ``method`` does not take the case (``ONE_EPOCH``)."""
    call = _call(case)
    if call is None or method in ONE_EPOCH and call[3] > 1:
        return None
    return call


def _prepare(case: Case, method: str, knobs):
    call = _asked(case, method)
    if call is None:
        return None
    import importlib
    from random_allocation.comparisons.definitions import Direction, PrivacyParams
    sigma, steps, direction, epochs = call
    module = importlib.import_module(f"random_allocation.random_allocation_scheme.{method}")
    config = _config(knobs)

    def answer(query: Query):
        if query.kind not in ("delta", "epsilon"):
            return None
        given = {"epsilon" if query.kind == "delta" else "delta": float(query.at)}
        params = PrivacyParams(sigma=sigma, num_steps=steps, num_epochs=epochs, **given)
        return getattr(module, f"allocation_{query.kind}_{method}")(
            params, config, Direction[direction])
    return answer


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "method: decomposition": "", "method: recursive": "", "method: RDP_DCO": "",
    "method: lower_bound": "", "query: allocation_delta_<method>": "",
    "query: allocation_epsilon_<method>": "", "direction: BOTH": "", "direction: REMOVE": "",
    "direction: ADD": "",
    "method: analytic": "an asymptotic bound that answers delta = 1 / eps = inf on the "
    "suite's grid (t <= 10^4)",
    "method: direct, combined": "they need RDP orders (allocation_direct_alpha_orders) that "
    "the default SchemeConfig lacks: called with it, they raise",
    "method: Monte_Carlo": "an estimate that holds with a confidence level, not a bound",
    "num_epochs > 1": "",
    "num_epochs > 1 with decomposition, lower_bound": "the package raises: one epoch only",
    "num_selected > 1": "k allocations per epoch: the pair is not established in refacct",
    "other schemes: Poisson, shuffle, local": "judged through the other peers' adapters",
}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    method = METHODS[accountant.split(".", 1)[1]][0]
    call = _asked(case, method)
    if call is None or query.kind not in ("delta", "epsilon"):
        return None
    return [f"method: {method}", f"query: allocation_{query.kind}_<method>",
            f"direction: {call[2]}"] + (["num_epochs > 1"] if call[3] > 1 else [])


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of random_allocation alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    sigma, steps, direction, epochs = _call(case)
    method = METHODS[accountant.split(".", 1)[1]][0]
    given = "epsilon" if query.kind == "delta" else "delta"
    words = ", ".join(f"{k}={v!r}" for k, v in KNOBS.items())
    return "\n".join([
        "from random_allocation.comparisons.definitions import Direction, PrivacyParams, "
        "SchemeConfig, Verbosity",
        f"from random_allocation.random_allocation_scheme.{method} import "
        f"allocation_{query.kind}_{method}", "",
        f"config = SchemeConfig(verbosity=Verbosity.NONE, {words})",
        f"params = PrivacyParams(sigma={sigma!r}, num_steps={steps}, num_epochs={epochs}, "
        f"{given}={float(query.at)!r})",
        f"print(allocation_{query.kind}_{method}(params, config, Direction.{direction}))"])
