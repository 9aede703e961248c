"""Accountants under test: peers (one module each, imported lazily) and user callables.

An ``Accountant`` has a ``name``, what its numbers ``claims`` to be (``"upper"``: never below
the truth, what a privacy guarantee needs; ``"lower"``: never above it), its accuracy
``knobs`` and ``prepare(case)``, which returns ``None`` when the accountant cannot express the
case, else an *answer* function ``answer(query) -> number | None`` (``None``: this query
kind is not expressible; an exception or a non-finite / negative number is a failure).
``prepare`` is called once per case, so an accountant composes its distribution once.

**User accountants** plug in as ``package.module:function`` with the signature

    function(case: refacct.validation.Case, query: refacct.validation.Query) -> float | None

``query.kind`` is ``"delta"`` (return delta at eps = ``query.at``), ``"epsilon"`` (return
eps at delta = ``query.at``), ``"alpha"`` (H_alpha), ``"beta"`` (the trade-off curve at
alpha = ``query.at``, ``refacct.tradeoff``) or ``"sigma"`` (the smallest Gaussian sigma
whose advantage delta(0) is at most ``query.at``, the case's sigma aside); return ``None``
to skip a kind; ``query.at`` is an exact ``Fraction``.  The case gives ``case.family``, ``case.param("sigma")``,
``case.scheme``, ``case.param("q")``, ``case.relation``, ``case.steps``, ``case.group``.
Return ``None`` for cases you do not handle.  An attribute ``function.claims = "lower"``
marks a lower-bound accountant (default ``"upper"``).

**Noise floor.**  An accountant that composes on a float64 grid by FFT (the PLD and PRV
accountants) carries ``noise_floor(case)``: an estimate of the absolute float64 error of its
delta values, ``fft_noise_floor``.  Answers within that distance of the truth are judged
``noise-level`` beside their verdict (``verdicts.noise_level``): such a verdict may differ
from one CPU to another.

Peers (``PEERS``): every module of this package, found at import (docs/validation.md
lists them with their accountants and extras; ``available_peers()`` says which are
installed here).  Each runs when its package is importable; ``resolve("dp_accounting")``
gives all of a peer's accountants.
Core refacct never imports a peer: each module imports its peer inside its functions.

**A peer is one module** of this package (its name is the peer's): it declares ``PEER``
(a ``Peer``: the package it imports, its distribution, how to install it, its knobs with
their defaults) and ``accountants(knobs)``, and lists its ``VOCABULARY``, ``features`` and
``reproducer``.  Registration (``PEERS``), the importability check, the install hint and
the checking of knobs live here.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from ..cases import Case, Query
from ...errors import InputError, InputTypeError

__all__ = ["Accountant", "Answer", "Peer", "PEERS", "PeerTimeout", "resolve", "resolve_all",
           "user_accountant", "available_peers", "peer_module", "float_knobs",
           "fft_noise_floor", "time_limit"]

Answer = Callable[[Query], object]
# every module of this package is a peer's adapter
PEERS = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                     if not m.name.startswith("_")))


class PeerTimeout(RuntimeError):
    """A peer gave no answer within its adapter's time limit."""


def time_limit(peer: str, knobs: Mapping[str, float]) -> float:
    """The knob ``time_limit`` (seconds per answer, for ``alarm.alarm_after``), checked."""
    limit = knobs["time_limit"]
    if not limit > 0:  # NaN too
        raise InputError(f"{peer}.time_limit must be > 0 seconds, got {limit}")
    return limit


@dataclass(frozen=True)
class Peer:
    """What an adapter declares about its peer: the ``package`` it imports, its PyPI
    ``distribution``, how to ``install`` it, and its accuracy ``knobs`` with their default
    values (floats; none when empty)."""

    package: str
    distribution: str
    install: str
    knobs: Mapping[str, float] = field(default_factory=dict)

    def importable(self) -> bool:
        return importlib.util.find_spec(self.package) is not None


@dataclass(frozen=True)
class Accountant:
    """An accountant under test (see the module docstring)."""

    name: str
    claims: str
    prepare: Callable[[Case], Optional[Answer]]
    knobs: Mapping[str, object] = field(default_factory=dict)
    noise_floor: Optional[Callable[[Case], Fraction]] = None


def fft_noise_floor(case: Case) -> Fraction:
    """T u with u = 2^-52 (float64) and T the number of compositions the peer performs (one
    for deterministic batching, 002 Prop. 3.1): the estimated absolute float64 noise of a
    delta(eps) computed by composing a discretised privacy-loss distribution T times by FFT.

    Each Fourier coefficient of the one-step distribution carries a relative rounding error
    of about u; its T-th power carries about T u, and the inverse transform turns these into
    absolute errors of that order on probabilities summing to 1 (the grid's length N enters
    only as log N, absorbed here).  Measured on the dispute case (sigma = 1, q = 1e-3,
    T = 1000, delta(1) in [2.5371e-13, 2.5429e-13]): dp_accounting's pessimistic PLD gave
    2.36e-13 .. 2.88e-13 across grids 1e-3 .. 1e-5 and two CPUs, within T u = 2.2e-13;
    fourier_accountant's delta of a truth ~1e-31 is -1.9e-17 .. -8.3e-17 at T = 1 .. 3.
    """
    compositions = 1 if case.scheme == "deterministic" else case.steps
    return compositions * Fraction(1, 2**52)


def user_accountant(spec: str) -> Accountant:
    """``package.module:function`` as an ``Accountant`` (signature in the module docstring)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError(f"a user accountant is 'package.module:function', got {spec!r}")
    fn = getattr(importlib.import_module(module_name), attr)
    if not callable(fn):
        raise InputTypeError(f"{spec} is not callable")
    return Accountant(spec, getattr(fn, "claims", "upper"), lambda case: lambda q: fn(case, q))


def peer_module(peer: str):
    """The adapter module of ``peer`` (its ``PEER``, ``accountants``, ``VOCABULARY``,
    ``features``)."""
    return importlib.import_module(f"{__name__}.{peer}")


def available_peers() -> List[str]:
    """Peers whose package is importable here."""
    return [p for p in PEERS if peer_module(p).PEER.importable()]


def resolve(spec: str, knobs: Optional[Mapping[str, str]] = None) -> List[Accountant]:
    """``spec`` = a peer (all its accountants), ``peer.accountant``, or
    ``module:function``; ``knobs`` = {"peer.knob": value} passed to the peers."""
    if ":" in spec:
        return [user_accountant(spec)]
    peer, _, which = spec.partition(".")
    if peer not in PEERS:
        raise InputError(f"unknown accountant {spec!r}: use one of {', '.join(PEERS)}, "
                         "peer.name (e.g. dp_accounting.pld) or package.module:function")
    module = peer_module(peer)
    if not module.PEER.importable():
        raise ImportError(f"{peer} is not installed: {module.PEER.install}")
    own = {k.split(".", 1)[1]: v for k, v in (knobs or {}).items() if k.startswith(peer + ".")}
    accountants = module.accountants(float_knobs(own, module.PEER.knobs))
    chosen = [a for a in accountants if not which or a.name == spec]
    if not chosen:
        names = ", ".join(a.name for a in accountants)
        raise InputError(f"unknown accountant {spec!r}: {peer} has {names}")
    return chosen


def resolve_all(specs: Sequence[str], knobs: Optional[Mapping[str, str]] = None) -> List[Accountant]:
    """Every accountant named by ``specs`` (all importable peers when empty)."""
    return [a for spec in (specs or available_peers()) for a in resolve(spec, knobs)]


def float_knobs(given: Mapping[str, object], defaults: Dict[str, float]) -> Dict[str, float]:
    """Peer knobs as floats (the peers take floats), unknown names rejected."""
    unknown = set(given) - set(defaults)
    if unknown:
        known = ", ".join(sorted(defaults)) or "none"
        raise InputError(f"unknown knob(s) {', '.join(sorted(unknown))}; known: {known}")
    return {k: float(given.get(k, v)) for k, v in defaults.items()}
