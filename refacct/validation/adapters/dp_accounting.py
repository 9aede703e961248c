"""Adapter for Google's ``dp_accounting`` (PLD and RDP accountants).

Cases map to dp_accounting's own events (``dp_event``) and neighbouring relations:

    gaussian, none, k steps          SelfComposedDpEvent(GaussianDpEvent(sigma / Delta), k)
    gaussian, deterministic          GaussianDpEvent(sigma / Delta), once (002 Prop. 3.1:
                                     each record is in one batch, independent of T)
    gaussian, poisson(q)             SelfComposed(PoissonSampledDpEvent(q, GaussianDpEvent), k)
    gaussian, poisson(q), group K    SelfComposed(MixtureOfGaussiansDpEvent(sigma,
                                     [0, Delta, ..., K Delta], Binom(K, q)), k)  (003 Thm 3.1)
    laplace, none / poisson(q)       LaplaceDpEvent(scale / Delta) / PoissonSampledDpEvent
    gaussian, truncated-poisson      TruncatedSubsampledGaussianDpEvent(n, p, B, sigma / Delta)
    rr(p), none, replace-one         SelfComposed(RandomizedResponseDpEvent(2 min(p, 1 - p),
                                     num_buckets = 2), k)

    add-remove -> ADD_OR_REMOVE_ONE, zero-out -> REPLACE_SPECIAL, substitution /
    replace-one -> REPLACE_ONE; add or remove alone and sampling without replacement (other
    than RDP's Gaussian, not in the catalogue's cases) are not expressible.

Accountants: ``dp_accounting.pld`` (``PLDAccountant``, pessimistic: an upper bound),
``dp_accounting.pld-optimistic`` (the PLD built with ``pessimistic_estimate=False``: a lower
bound) and ``dp_accounting.rdp`` (``RdpAccountant``: an upper bound).  Parameters reach the
peer as the nearest binary floats.  Knobs: ``value_discretization_interval`` (PLD, default
1e-4), and for the optimistic PLD ``log_mass_truncation_bound`` (default -50) and
``tail_mass_truncation`` of ``self_compose`` (default 1e-15: up to this much mass of the
composed PLD is moved to the +inf loss atom; ``PLDAccountant`` uses the same default and
does not expose it).
"""
from __future__ import annotations

import importlib.util
from math import comb
from typing import List

from ..cases import Case, Query
from . import Accountant, fft_noise_floor, float_knobs

__all__ = ["importable", "accountants", "event_of", "KNOBS"]

KNOBS = {"value_discretization_interval": 1e-4, "log_mass_truncation_bound": -50.0,
         "tail_mass_truncation": 1e-15}
_RELATIONS = {"add-remove": "ADD_OR_REMOVE_ONE", "zero-out": "REPLACE_SPECIAL",
              "substitution": "REPLACE_ONE", "replace-one": "REPLACE_ONE"}


def importable() -> bool:
    return importlib.util.find_spec("dp_accounting") is not None


def accountants(**knobs) -> List[Accountant]:
    """The PLD (pessimistic, optimistic) and RDP accountants with ``knobs``."""
    k = float_knobs(knobs, KNOBS)
    return [Accountant("dp_accounting.pld", "upper", lambda c: _pld_accountant(c, k), k,
                       fft_noise_floor),
            Accountant("dp_accounting.pld-optimistic", "lower", lambda c: _pld_optimistic(c, k), k,
                       fft_noise_floor),
            Accountant("dp_accounting.rdp", "upper", _rdp_accountant, {})]


def _noise(case: Case, key: str) -> float:
    return float(case.param(key) / case.param("sensitivity"))


def event_of(case: Case):
    """(dp_accounting event, NeighboringRelation name) for ``case``, or None."""
    from dp_accounting import dp_event as dpa
    relation = _RELATIONS.get(case.relation)
    base = _base_event(case, dpa)
    if relation is None or base is None:
        return None
    if case.scheme == "deterministic":
        return base, relation
    return dpa.SelfComposedDpEvent(base, case.steps), relation


def _base_event(case: Case, dpa):
    """The one-step event, or None."""
    family, scheme = case.family, case.scheme
    if family == "rr":
        return _randomized_response(case, dpa) if scheme == "none" else None
    if scheme == "wor":
        return None
    if family == "laplace":
        inner = dpa.LaplaceDpEvent(_noise(case, "scale"))
        return inner if scheme == "none" else _poisson(case, inner, dpa) if scheme == "poisson" else None
    if case.group != 1:
        return _mixture_of_gaussians(case, dpa) if scheme == "poisson" else None
    inner = dpa.GaussianDpEvent(_noise(case, "sigma"))
    if scheme in ("none", "deterministic"):
        return inner
    if scheme == "poisson":
        return _poisson(case, inner, dpa)
    return dpa.TruncatedSubsampledGaussianDpEvent(
        int(case.param("n")), float(case.param("p_sample")), int(case.param("max_batch")),
        _noise(case, "sigma"))


def _randomized_response(case: Case, dpa):
    """Binary randomized response reporting the true bit with probability p: dp_accounting's
    event with num_buckets = 2 reports it with 1 - noise/2, so noise = 2 min(p, 1 - p); the
    event is defined for REPLACE_ONE / REPLACE_SPECIAL only."""
    if case.relation not in ("replace-one", "substitution"):
        return None
    p = case.param("p")
    return dpa.RandomizedResponseDpEvent(noise_parameter=float(2 * min(p, 1 - p)),
                                         num_buckets=2)


def _poisson(case: Case, inner, dpa):
    return dpa.PoissonSampledDpEvent(float(case.param("q")), inner)


def _mixture_of_gaussians(case: Case, dpa):
    """003 Thm 3.1: sensitivity K' ~ Binom(K, q) in units of Delta."""
    K, q, delta_ = case.group, case.param("q"), case.param("sensitivity")
    probs = [comb(K, j) * q ** j * (1 - q) ** (K - j) for j in range(K + 1)]
    return dpa.MixtureOfGaussiansDpEvent(float(case.param("sigma")),
                                         [float(j * delta_) for j in range(K + 1)],
                                         [float(p) for p in probs])


def _answer(get_delta, get_epsilon):
    """answer(query) from the peer's delta(eps) and eps(delta) (floats in, floats out)."""
    def answer(query: Query):
        if query.kind == "delta":
            return get_delta(float(query.at))
        if query.kind == "epsilon":
            return get_epsilon(float(query.at))
        return None
    return answer


def _pld_accountant(case: Case, knobs):
    import dp_accounting as dpa
    found = event_of(case)
    if found is None:
        return None
    event, relation = found
    acc = dpa.pld.PLDAccountant(dpa.NeighboringRelation[relation],
                                value_discretization_interval=knobs["value_discretization_interval"])
    acc.compose(event)
    return _answer(acc.get_delta, acc.get_epsilon)


def _rdp_accountant(case: Case):
    import dp_accounting as dpa
    found = event_of(case)
    if found is None:
        return None
    acc = dpa.rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation[found[1]])
    if not acc.supports(found[0]):
        return None
    acc.compose(found[0])
    return _answer(acc.get_delta, acc.get_epsilon)


def _pld_optimistic(case: Case, knobs):
    """The same events through ``privacy_loss_distribution`` with pessimistic_estimate=False."""
    found = event_of(case)
    if found is None:
        return None
    pld = _optimistic(found[0], found[1], knobs)
    return None if pld is None else _answer(pld.get_delta_for_epsilon, pld.get_epsilon_for_delta)


def _optimistic(event, relation: str, knobs):
    """An optimistic PLD for the events ``event_of`` produces, or None (truncated Poisson:
    dp_accounting builds it pessimistic only)."""
    import dp_accounting
    from dp_accounting import dp_event as dpa
    from dp_accounting.pld import privacy_loss_distribution as pld
    if isinstance(event, dpa.SelfComposedDpEvent):
        one = _optimistic(event.event, relation, knobs)
        return None if one is None else one.self_compose(
            event.count, tail_mass_truncation=knobs["tail_mass_truncation"])
    common = dict(pessimistic_estimate=False, use_connect_dots=False,
                  value_discretization_interval=knobs["value_discretization_interval"])
    sampled = isinstance(event, dpa.PoissonSampledDpEvent)
    q, inner = (event.sampling_probability, event.event) if sampled else (1.0, event)
    if isinstance(inner, dpa.GaussianDpEvent):
        return pld.from_gaussian_mechanism(
            inner.noise_multiplier, sampling_prob=q,
            log_mass_truncation_bound=knobs["log_mass_truncation_bound"],
            neighboring_relation=dp_accounting.NeighboringRelation[relation], **common)
    if isinstance(inner, dpa.LaplaceDpEvent) and relation == "ADD_OR_REMOVE_ONE":
        return pld.from_laplace_mechanism(inner.noise_multiplier, sampling_prob=q, **common)
    if isinstance(inner, dpa.MixtureOfGaussiansDpEvent):
        return pld.from_mixture_gaussian_mechanism(
            inner.standard_deviation, inner.sensitivities, inner.sampling_probs,
            log_mass_truncation_bound=knobs["log_mass_truncation_bound"], **common)
    return None
