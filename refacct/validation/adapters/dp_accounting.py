"""Adapter for Google's ``dp_accounting`` (PLD and RDP accountants).

Cases map to dp_accounting's own events (``dp_event``) and neighbouring relations by
``refacct.accountants.vocabulary.event_of``, the same vocabulary ``DpAccountant`` reads back:

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
from typing import List

from ...accountants.vocabulary import event_of
from ..cases import Case, Query
from . import Accountant, fft_noise_floor, float_knobs

__all__ = ["importable", "accountants", "event_of", "KNOBS"]

KNOBS = {"value_discretization_interval": 1e-4, "log_mass_truncation_bound": -50.0,
         "tail_mass_truncation": 1e-15}


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
