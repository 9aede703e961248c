"""One entry point for the command line: family x sampling x relation x group -> the
catalogue entry (``Dominated``, ``Shuffled`` for shuffling, ``Allocated`` for random
allocation).  Dispatch only; the pairs live in the scheme modules, shuffling's bounds in
``refacct.shuffle``, random allocation's values in ``refacct.allocation``."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional, Union

from .base import Base, gaussian, laplace, randomized_response
from .entry import Dominated
from .deterministic import deterministic_batching
from .group import group_fixed_batch, group_poisson
from .poisson import poisson_subsampled
from .truncated_poisson import truncated_poisson
from .unsampled import unsampled
from .without_replacement import wor_subsampled
from ..errors import InputError
from ..exact import count

__all__ = ["FAMILIES", "SAMPLINGS", "base_mechanism", "build", "Shuffled", "Allocated"]

FAMILIES = ("gaussian", "laplace", "rr")
SAMPLINGS = ("none", "poisson", "wor", "truncated-poisson", "deterministic", "shuffle",
             "random-allocation")


def base_mechanism(family: str, *, sigma=None, scale=None, p=None, sensitivity=None) -> Base:
    """The base mechanism of ``family`` from its one parameter (and sensitivity)."""
    given = {"sigma": sigma, "scale": scale, "p": p}
    own = {"gaussian": "sigma", "laplace": "scale", "rr": "p"}.get(family)
    if own is None:
        raise InputError(f"mechanism must be one of {', '.join(FAMILIES)}, got {family!r}")
    extra = [k for k, v in given.items() if v is not None and k != own]
    if extra or given[own] is None:
        raise InputError(f"{family} takes --{own} (and not {', '.join('--' + k for k in extra) or 'others'})"
                         if extra else f"{family} needs --{own}")
    if family == "rr":
        if sensitivity is not None:
            raise InputError("rr has no --sensitivity")
        return randomized_response(p)
    make = gaussian if family == "gaussian" else laplace
    return make(given[own], 1 if sensitivity is None else sensitivity)


def _need(name: str, value, sampling: str):
    if value is None:
        raise InputError(f"--sampling {sampling} needs --{name.replace('_', '-')}")
    return value


def build(base: Base, sampling: str, relation: str, *, steps: int = 1,
          group: Optional[int] = None, q=None, n=None, batch=None, p_sample=None,
          max_batch=None, epochs=None) -> Union[Dominated, "Shuffled", "Allocated"]:
    """The catalogue entry for ``base`` under ``sampling`` and ``relation``; ``group`` K > 1
    selects 003's group pairs (Poisson / WOR) or sensitivity K Delta (no sampling);
    ``shuffle`` gives a ``Shuffled`` (lower bounds, not a pair), ``random-allocation`` an
    ``Allocated`` (``epochs`` epochs, default 1, of ``steps`` steps each).

    The entry's ``rebuild(k)`` is the same mechanism for ``k`` times as many steps, so that
    ``refacct.delta(entry, eps, steps=T)`` can route T steps without building them
    (``refacct.routing.route_entry``)."""
    options = dict(group=group, q=q, n=n, batch=batch, p_sample=p_sample, max_batch=max_batch,
                   epochs=epochs)
    entry = _entry(base, sampling, relation, steps, **options)

    def rebuild(k: int):
        return build(base, sampling, relation, steps=steps * k, **options)
    if isinstance(entry, (Shuffled, Allocated)):
        entry.rebuild = rebuild
        return entry
    return replace(entry, rebuild=rebuild)


def _entry(base: Base, sampling: str, relation: str, steps: int, group, q, n, batch,
           p_sample, max_batch, epochs) -> Union[Dominated, "Shuffled", "Allocated"]:
    if sampling not in SAMPLINGS:
        raise InputError(f"sampling must be one of {', '.join(SAMPLINGS)}, got {sampling!r}")
    if sampling == "random-allocation":
        return Allocated(base, relation, steps, group,
                         1 if epochs is None else count(epochs, "epochs"))
    if epochs is not None:
        raise InputError("epochs are for --sampling random-allocation (each record once per "
                         "epoch); other schemes count their compositions in steps")
    if sampling == "shuffle":
        return Shuffled(base, relation, steps, group)
    if group not in (None, 1):
        return _group(base, sampling, relation, steps, group, q, n, batch)
    if sampling == "none":
        return unsampled(base, relation, steps)
    if sampling == "poisson":
        return poisson_subsampled(base, _need("q", q, sampling), relation, steps)
    if sampling == "wor":
        return wor_subsampled(base, _need("n", n, sampling), _need("batch", batch, sampling),
                              relation, steps)
    if sampling == "deterministic":
        return deterministic_batching(base, relation, steps)
    if not (getattr(base, "family", None) == "gaussian"):
        raise InputError("truncated-poisson (004) is in the catalogue for gaussian only")
    return truncated_poisson(base.width, _need("n", n, sampling),
                             _need("p_sample", p_sample, sampling),
                             _need("max_batch", max_batch, sampling), relation, steps,
                             base.sensitivity)


def _group(base: Base, sampling: str, relation: str, steps: int, K: int, q, n, batch):
    if sampling == "poisson":
        return group_poisson(base, _need("q", q, sampling), K, relation, steps)
    if sampling == "wor":
        return group_fixed_batch(base, _need("n", n, sampling), _need("batch", batch, sampling),
                                 K, relation, steps)
    if sampling == "none" and hasattr(base, "scaled"):
        return unsampled(base.scaled(K), relation, steps)
    raise InputError(f"--group is in the catalogue for --sampling poisson, wor (003) and none "
                     f"(gaussian / laplace), not {sampling}")


class Shuffled:
    """ABLQ_S (002 Sec. 3-4.3) with a Gaussian base under zero-out: the pair sigma / Delta
    (sensitivity Delta) run ``steps`` times.  Its curve is known only from below
    (``refacct.shuffle``: 002 eq. (7), or 002's pair itself for steps <= 3), so it is not a
    ``Dominated`` entry; ``refacct.delta`` / ``epsilon`` answer it.  ``rebuild(k)``: the same
    for k times as many steps (``build``)."""

    def __init__(self, base: Base, relation: str, steps: int, group: Optional[int]) -> None:
        if getattr(base, "family", None) != "gaussian" or relation != "zero-out":
            raise InputError("shuffling is in the catalogue for gaussian under zero-out "
                             "(002 Sec. 2.2) only")
        if group not in (None, 1):
            raise InputError("shuffling has no group privacy in the catalogue")
        self.steps = steps
        self.sigma = base.width / base.sensitivity
        self.rebuild: Optional[Callable[[int], "Shuffled"]] = None


class Allocated:
    """Random allocation (balls-and-bins) with a Gaussian base: each record in exactly one
    of the ``steps`` steps of each of ``epochs`` epochs, add-remove (``relation``
    "add-remove", or one order: "remove" is H(P || Q) with P the mixture of Chua et al.,
    arXiv:2412.16802, "add" H(Q || P)).  Its values come from ``refacct.allocation`` (the
    pair is one-dimensional in the likelihood ratio: proven balls for one epoch, proven
    brackets of its orders composed over epochs), so it is not a ``Dominated`` entry.
    ``rebuild(k)``: the same with k times as many steps in the epoch (``build``)."""

    RELATIONS = ("add-remove", "remove", "add")

    def __init__(self, base: Base, relation: str, steps: int, group: Optional[int],
                 epochs: int = 1) -> None:
        if getattr(base, "family", None) != "gaussian":
            raise InputError("random allocation is in the catalogue for gaussian only")
        if relation not in self.RELATIONS:
            raise InputError(f"random allocation's relation must be one of "
                             f"{', '.join(self.RELATIONS)} (arXiv:2412.16802), got "
                             f"{relation!r}")
        if group not in (None, 1):
            raise InputError("random allocation has no group privacy in the catalogue")
        self.steps, self.relation, self.epochs = steps, relation, epochs
        self.sigma = base.width / base.sensitivity
        self.rebuild: Optional[Callable[[int], "Allocated"]] = None

    @property
    def orders(self):
        """(label, swap) of the orders the relation takes: swap False is H(P || Q)."""
        both = (("remove", False), ("add", True))
        return tuple(o for o in both if self.relation in ("add-remove", o[0]))
