"""Adapter for ``pld-accounting`` (module ``PLD_accounting``; Feldman and Shenfeld,
"Efficient privacy loss accounting for subsampling and random allocation",
arXiv:2602.17284): the privacy-loss distribution of the Gaussian mechanism under random
allocation, discretised on a geometric grid, as dp_accounting PLDs.

It expresses one catalogue entry: ``gaussian`` (noise sigma / Delta) with ``sampling
"random-allocation"``, ``steps`` = the steps of one epoch (``num_steps``), the case's
``epochs`` (``num_epochs``), one allocation per record, under add-remove (the PLD of both
directions, ``compose_full_pld``).
Accountants:

    pld_accounting.upper           ``gaussian_allocation_{delta,epsilon}_configurable`` with
                                   ``BoundType.DOMINATES``: an upper bound
    pld_accounting.lower           the same with ``BoundType.IS_DOMINATED``: a lower bound
    pld_accounting.range-upper     eps(delta) only: the upper end of
                                   ``gaussian_allocation_epsilon_range`` (adaptive refinement
                                   to its default relative accuracy), the package's headline
                                   call
    pld_accounting.range-lower     eps(delta) only: its lower end

Knobs (``AllocationSchemeConfig``'s, for the configurable calls, with its defaults):
``loss_discretization`` (1e-2) and ``tail_truncation`` (1e-12); ``time_limit`` (seconds per
answer, default 60: the adaptive range takes more than 300 s at 10^4 steps, measured; such
an answer fails with ``PeerTimeout``).  The peer runs in a worker process (``_isolated``),
killed at the time limit: its numba kernels do not return to Python for minutes at 10 and
more epochs, where a signal would wait for them.  Parameters reach the peer as floats.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...errors import InputError
from ..cases import Case, Query
from . import Accountant, Peer, PeerTimeout, time_limit
from ._isolated import Isolated

__all__ = ["PEER", "accountants", "features", "reproducer", "KNOBS", "VOCABULARY"]

KNOBS = {"loss_discretization": 1e-2, "tail_truncation": 1e-12, "time_limit": 60.0}
# accountant suffix: (claims, bound type of the configurable calls, or the range's end)
ACCOUNTANTS = {"upper": ("upper", "DOMINATES"), "lower": ("lower", "IS_DOMINATED"),
               "range-upper": ("upper", 0), "range-lower": ("lower", 1)}

PEER = Peer(package="PLD_accounting", distribution="pld-accounting",
            install="pip install 'refacct[more-peers]'", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """The four accountants (module docstring) with ``knobs``."""
    time_limit("pld_accounting", knobs)
    for name in ("loss_discretization", "tail_truncation"):
        if not knobs[name] > 0:  # NaN too
            raise InputError(f"pld_accounting.{name} must be > 0, got {knobs[name]}")
    return [Accountant(f"pld_accounting.{suffix}", claims,
                       lambda case, how=how: _prepare(case, how, knobs), knobs)
            for suffix, (claims, how) in ACCOUNTANTS.items()]


def _call(case: Case):
    """(sigma / Delta, steps of the epoch, epochs) of an expressible case, or None."""
    if case.family != "gaussian" or case.scheme != "random-allocation" or case.group != 1 \
            or case.form != "default" or case.segments or case.relation != "add-remove":
        return None
    return float(case.param("sigma") / case.param("sensitivity")), case.steps, case.epochs


def _prepare(case: Case, how, knobs):
    """The answer function: each query computed in the worker process (``_WORKER``),
    stopped after the knob ``time_limit`` (its geometric convolutions run in numba, which
    a signal cannot interrupt)."""
    call = _call(case)
    if call is None:
        return None
    config = {k: knobs[k] for k in ("loss_discretization", "tail_truncation")}

    def answer(query: Query):
        if query.kind not in ("delta", "epsilon") or isinstance(how, int) \
                and query.kind != "epsilon":
            return None
        return _WORKER(knobs["time_limit"], how, *call, query.kind, float(query.at), config)
    return answer


def _answer(how, sigma: float, steps: int, epochs: int, kind: str, at: float,
            config: Dict[str, float]) -> float:
    """One answer of the peer (run in the worker process): ``how`` is the bound type of
    the configurable calls, or the index of the adaptive range's end."""
    if isinstance(how, int):
        from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range
        return gaussian_allocation_epsilon_range(delta=at, sigma=sigma, num_steps=steps,
                                                 num_epochs=epochs)[how]
    from PLD_accounting import random_allocation_api as api
    from PLD_accounting.types import AllocationSchemeConfig, BoundType, PrivacyParams
    given = {"epsilon" if kind == "delta" else "delta": at}
    run = getattr(api, f"gaussian_allocation_{kind}_configurable")
    return run(params=PrivacyParams(sigma=sigma, num_steps=steps, num_epochs=epochs, **given),
               config=AllocationSchemeConfig(**config), bound_type=BoundType[how])


_WORKER = Isolated(_answer, lambda limit: PeerTimeout(f"no answer within {limit:g} s"))


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "query: gaussian_allocation_delta_configurable": "",
    "query: gaussian_allocation_epsilon_configurable": "",
    "query: gaussian_allocation_epsilon_range": "", "bound: BoundType.DOMINATES": "",
    "bound: BoundType.IS_DOMINATED": "",
    "num_epochs > 1": "",
    "num_selected > 1": "k allocations per epoch: the pair is not established in refacct",
    "query: gaussian_allocation_directional_pld": "one direction as a discrete distribution, "
    "not a query (the add-remove PLD composes both)",
    "query: general_allocation_* (PLD realizations), subsample_pld": "other base mechanisms "
    "and Poisson subsampling: not wired",
    "config: ConvolutionMethod FFT / BEST_OF_TWO": "the default GEOM method is judged",
}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    how = ACCOUNTANTS[accountant.split(".", 1)[1]][1]
    if _call(case) is None or query.kind not in ("delta", "epsilon") \
            or isinstance(how, int) and query.kind != "epsilon":
        return None
    epochs = ["num_epochs > 1"] if case.epochs > 1 else []
    if isinstance(how, int):
        return ["query: gaussian_allocation_epsilon_range"] + epochs
    return [f"query: gaussian_allocation_{query.kind}_configurable",
            f"bound: BoundType.{how}"] + epochs


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of PLD_accounting alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    sigma, steps, epochs = _call(case)
    how = ACCOUNTANTS[accountant.split(".", 1)[1]][1]
    if isinstance(how, int):
        return "\n".join([
            "from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range",
            "", "upper, lower = gaussian_allocation_epsilon_range("
            f"delta={float(query.at)!r}, sigma={sigma!r}, num_steps={steps}, "
            f"num_epochs={epochs})",
            f"print({'upper' if how == 0 else 'lower'})"])
    given = "epsilon" if query.kind == "delta" else "delta"
    words = ", ".join(f"{k}={KNOBS[k]!r}" for k in ("loss_discretization", "tail_truncation"))
    return "\n".join([
        f"from PLD_accounting.random_allocation_api import gaussian_allocation_{query.kind}"
        "_configurable",
        "from PLD_accounting.types import AllocationSchemeConfig, BoundType, PrivacyParams", "",
        f"params = PrivacyParams(sigma={sigma!r}, num_steps={steps}, num_epochs={epochs}, "
        f"{given}={float(query.at)!r})",
        f"print(gaussian_allocation_{query.kind}_configurable(params=params, "
        f"config=AllocationSchemeConfig({words}), bound_type=BoundType.{how}))"])
