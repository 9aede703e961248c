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

    gaussian, wor(n, b)              SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent)
                                     (RDP only, under REPLACE_ONE)

    add-remove -> ADD_OR_REMOVE_ONE, zero-out -> REPLACE_SPECIAL, substitution /
    replace-one -> REPLACE_ONE; add or remove alone are not expressible.

Composition forms (``Case.form``): the default composes the self-composed event once; "count"
calls ``compose(event, k)``; "repeated" calls ``compose(event)`` k times; "list" composes
``ComposedDpEvent([event] * k)``; a heterogeneous case composes a ``ComposedDpEvent`` of its
parts' self-composed events.  The optimistic PLD uses ``self_compose`` (default, count),
``compose`` once per step (repeated) and ``compose`` of the parts (heterogeneous).
``VOCABULARY`` / ``features`` say what a query exercises (``refacct.validation.coverage``),
``reproducer`` writes it in dp_accounting alone.

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

from typing import Dict, List, Optional, Tuple

from ...accountants.vocabulary import event_of, step_event_of
from ..cases import Case, Query
from . import Accountant, fft_noise_floor, Peer

__all__ = ["PEER", "accountants", "event_of", "features", "reproducer", "KNOBS",
           "VOCABULARY"]

KNOBS = {"value_discretization_interval": 1e-4, "log_mass_truncation_bound": -50.0,
         "tail_mass_truncation": 1e-15}


PEER = Peer(package="dp_accounting", distribution="dp-accounting",
            install="pip install 'refacct[peers]'", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """The PLD (pessimistic, optimistic) and RDP accountants with ``knobs``."""
    return [Accountant("dp_accounting.pld", "upper", lambda c: _pld_accountant(c, knobs),
                       knobs, fft_noise_floor),
            Accountant("dp_accounting.pld-optimistic", "lower",
                       lambda c: _pld_optimistic(c, knobs), knobs, fft_noise_floor),
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


def _plan(case: Case) -> Optional[Tuple[List[Tuple[object, int]], str]]:
    """([(one-step event, steps)] per part of ``case``, relation name), or None."""
    found = [step_event_of(part) for part in case.parts()]
    if any(f is None for f in found) or len({f[2] for f in found}) != 1:
        return None
    return [(event, count) for event, count, _ in found], found[0][2]


def _events(case: Case, steps: List[Tuple[object, int]]) -> List[Tuple[object, int]]:
    """What ``compose(event, count)`` is called with, one call per item, in the case's
    form: the self-composed event (default; a composed list of them when heterogeneous),
    each event with a count, each event once per step, or one list of all steps."""
    from dp_accounting import dp_event as dpa
    if case.form == "count":
        return steps
    if case.form == "repeated":
        return [(event, 1) for event, count in steps for _ in range(count)]
    if case.form == "list":
        return [(dpa.ComposedDpEvent([event for event, count in steps for _ in range(count)]), 1)]
    one = [event if case.scheme == "deterministic" else dpa.SelfComposedDpEvent(event, count)
           for event, count in steps]
    return [(one[0] if len(one) == 1 else dpa.ComposedDpEvent(one), 1)]


def _accepted(make, case: Case):
    """(accountant ``make(relation)``, events to compose) when it supports the case's
    events, else None (nothing composed yet)."""
    plan = _plan(case)
    if plan is None:
        return None
    acc = make(plan[1])
    events = _events(case, plan[0])
    return (acc, events) if all(acc.supports(event) for event, _ in events) else None


def _composed(make, case: Case):
    """A dp_accounting accountant (``make(relation)``) that has composed the case, or None."""
    accepted = _accepted(make, case)
    if accepted is None:
        return None
    acc, events = accepted
    for event, count in events:
        acc.compose(event, count)
    return acc


def _pld_maker(knobs):
    import dp_accounting as dpa
    return lambda relation: dpa.pld.PLDAccountant(
        dpa.NeighboringRelation[relation],
        value_discretization_interval=knobs["value_discretization_interval"])


def _rdp_maker(relation: str):
    import dp_accounting as dpa
    return dpa.rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation[relation])


def _pld_accountant(case: Case, knobs):
    acc = _composed(_pld_maker(knobs), case)
    return None if acc is None else _answer(acc.get_delta, acc.get_epsilon)


def _rdp_accountant(case: Case):
    acc = _composed(_rdp_maker, case)
    return None if acc is None else _answer(acc.get_delta, acc.get_epsilon)


def _pld_optimistic(case: Case, knobs):
    """The same steps through ``privacy_loss_distribution`` with pessimistic_estimate=False:
    ``self_compose`` (default and count forms), ``compose`` once per step (repeated) and
    ``compose`` of the parts (heterogeneous); a list of events has no PLD counterpart."""
    plan = _plan(case)
    if plan is None or case.form == "list":
        return None
    plds = []
    for event, count in plan[0]:
        one = _optimistic(event, plan[1], knobs)
        if one is None:
            return None
        plds.append(_pld_steps(one, count, case.form, knobs))
    pld = plds[0]
    for other in plds[1:]:
        pld = pld.compose(other, tail_mass_truncation=knobs["tail_mass_truncation"])
    return _answer(pld.get_delta_for_epsilon, pld.get_epsilon_for_delta)


def _pld_steps(one, count: int, form: str, knobs):
    """``one`` composed ``count`` times: itself once, self_compose, or one compose per
    step."""
    truncation = knobs["tail_mass_truncation"]
    if count == 1:
        return one
    if form != "repeated":
        return one.self_compose(count, tail_mass_truncation=truncation)
    pld = one
    for _ in range(count - 1):
        pld = pld.compose(one, tail_mass_truncation=truncation)
    return pld


def _constructor(event, relation: str) -> Optional[str]:
    """The ``privacy_loss_distribution`` constructor that builds an optimistic PLD of a
    one-step event, or None (truncated Poisson: dp_accounting builds it pessimistic only)."""
    name = type(event).__name__
    if name == "PoissonSampledDpEvent":
        inner = _constructor(event.event, relation)
        return inner if inner in ("from_gaussian_mechanism", "from_laplace_mechanism") else None
    if name == "LaplaceDpEvent":
        return "from_laplace_mechanism" if relation == "ADD_OR_REMOVE_ONE" else None
    return {"GaussianDpEvent": "from_gaussian_mechanism",
            "MixtureOfGaussiansDpEvent": "from_mixture_gaussian_mechanism",
            "RandomizedResponseDpEvent": "from_randomized_response"}.get(name)


def _optimistic_call(event, relation: str, knobs) -> Optional[Tuple[str, tuple, dict]]:
    """(constructor, positional arguments, keywords) of the optimistic PLD of a one-step
    event, or None; a keyword ``neighboring_relation`` holds the relation's name."""
    constructor = _constructor(event, relation)
    if constructor is None:
        return None
    common = dict(pessimistic_estimate=False,
                  value_discretization_interval=knobs["value_discretization_interval"])
    truncation = dict(log_mass_truncation_bound=knobs["log_mass_truncation_bound"])
    sampled = type(event).__name__ == "PoissonSampledDpEvent"
    q, inner = (event.sampling_probability, event.event) if sampled else (1.0, event)
    if constructor == "from_gaussian_mechanism":
        return constructor, (inner.noise_multiplier,), dict(
            sampling_prob=q, use_connect_dots=False, neighboring_relation=relation,
            **truncation, **common)
    if constructor == "from_laplace_mechanism":
        return constructor, (inner.noise_multiplier,), dict(sampling_prob=q,
                                                            use_connect_dots=False, **common)
    if constructor == "from_mixture_gaussian_mechanism":
        return constructor, (inner.standard_deviation, inner.sensitivities,
                             inner.sampling_probs), dict(use_connect_dots=False, **truncation,
                                                         **common)
    return constructor, (inner.noise_parameter, inner.num_buckets), dict(
        neighboring_relation=relation, **common)


def _optimistic(event, relation: str, knobs):
    """An optimistic PLD of a one-step event (``_optimistic_call``), or None."""
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld
    call = _optimistic_call(event, relation, knobs)
    if call is None:
        return None
    name, args, kwargs = call
    if "neighboring_relation" in kwargs:
        kwargs = dict(kwargs, neighboring_relation=dp_accounting.NeighboringRelation[
            kwargs["neighboring_relation"]])
    return getattr(pld, name)(*args, **kwargs)


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of dp_accounting alone that ask the query as this adapter does (None
    where the adapter does not ask: ``features``)."""
    if features(accountant, case, query) is None:
        return None
    steps, relation = _plan(case)
    at = float(query.at)
    if accountant == "dp_accounting.pld-optimistic":
        return _optimistic_reproducer(case, steps, relation, query.kind, at)
    knob = KNOBS["value_discretization_interval"]
    make = (f"dp_accounting.pld.PLDAccountant(NeighboringRelation.{relation}, "
            f"value_discretization_interval={knob!r})" if accountant == "dp_accounting.pld"
            else f"dp_accounting.rdp.RdpAccountant(neighboring_relation="
                 f"NeighboringRelation.{relation})")
    lines = ["import dp_accounting", "from dp_accounting import NeighboringRelation",
             "from dp_accounting.dp_event import *", "", f"acc = {make}"]
    events = _events(case, steps)
    if case.form == "repeated":
        lines += [f"for _ in range({count}):\n    acc.compose({event!r})" for event, count in steps]
    else:
        lines += [f"acc.compose({event!r}" + (f", {count})" if count != 1 else ")")
                  for event, count in events]
    return "\n".join(lines + [f"print(acc.get_{query.kind}({at!r}))"])


def _optimistic_reproducer(case: Case, steps, relation: str, kind: str, at: float):
    if case.form == "list":
        return None
    lines = ["from dp_accounting import NeighboringRelation",
             "from dp_accounting.pld import privacy_loss_distribution as pld", ""]
    truncation = KNOBS["tail_mass_truncation"]
    for i, (event, count) in enumerate(steps):
        call = _optimistic_call(event, relation, KNOBS)
        if call is None:
            return None
        name, args, kwargs = call
        words = [repr(a) for a in args] + [
            f"{k}=NeighboringRelation.{v}" if k == "neighboring_relation" else f"{k}={v!r}"
            for k, v in kwargs.items()]
        lines.append(f"one = pld.{name}({', '.join(words)})")
        if count == 1:
            lines.append(f"part{i} = one")
        elif case.form == "repeated":
            lines += [f"part{i} = one", f"for _ in range({count - 1}):",
                      f"    part{i} = part{i}.compose(one, tail_mass_truncation={truncation!r})"]
        else:
            lines.append(f"part{i} = one.self_compose({count}, "
                         f"tail_mass_truncation={truncation!r})")
    lines.append("composed = part0")
    lines += [f"composed = composed.compose(part{i}, tail_mass_truncation={truncation!r})"
              for i in range(1, len(steps))]
    entry = "get_delta_for_epsilon" if kind == "delta" else "get_epsilon_for_delta"
    return "\n".join(lines + [f"print(composed.{entry}({at!r}))"])


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "accountant: PLDAccountant": "", "accountant: RdpAccountant": "",
    "accountant: PrivacyLossDistribution (optimistic)": "",
    "query: get_delta": "", "query: get_epsilon": "", "query: get_delta_for_epsilon": "",
    "query: get_epsilon_for_delta": "",
    "query: RdpAccountant.compute_rdp / get_rdp": "an RDP curve, not a point of the "
    "hockey-stick curve: refacct computes no Renyi divergence",
    "relation: ADD_OR_REMOVE_ONE": "", "relation: REPLACE_ONE": "",
    "relation: REPLACE_SPECIAL": "",
    "event: GaussianDpEvent": "", "event: LaplaceDpEvent": "",
    "event: RandomizedResponseDpEvent": "", "event: PoissonSampledDpEvent": "",
    "event: SampledWithoutReplacementDpEvent": "",
    "event: TruncatedSubsampledGaussianDpEvent": "", "event: MixtureOfGaussiansDpEvent": "",
    "event: SelfComposedDpEvent": "", "event: ComposedDpEvent": "",
    "event: DiscreteLaplaceDpEvent": "refacct's catalogue has no discrete Laplace mechanism",
    "event: SampledWithReplacementDpEvent": "refacct's catalogue has no sampling with "
    "replacement",
    "event: SingleEpochTreeAggregationDpEvent": "tree aggregation is not in refacct's "
    "catalogue",
    "event: RepeatAndSelectDpEvent": "private selection is not in refacct's catalogue",
    "event: ZCDpEvent": "a zCDP statement, not a mechanism: it has no single hockey-stick "
    "curve",
    "event: NoOpDpEvent": "trivial (nothing composed); DpAccountant's tests take it",
    "event: NonPrivateDpEvent": "trivial (eps = inf); DpAccountant's tests take it",
    "event: RandomizedResponseDpEvent (num_buckets > 2)": "k-ary randomized response is "
    "not in refacct's catalogue",
    "form: SelfComposedDpEvent": "", "form: compose(event, count)": "",
    "form: compose once per step": "", "form: ComposedDpEvent of every step": "",
    "form: ComposedDpEvent of different events": "",
    "form: PrivacyLossDistribution.self_compose": "",
    "form: PrivacyLossDistribution.compose per step": "",
    "form: PrivacyLossDistribution.compose of different mechanisms": "",
    "constructor: from_gaussian_mechanism": "", "constructor: from_laplace_mechanism": "",
    "constructor: from_mixture_gaussian_mechanism": "",
    "constructor: from_randomized_response": "",
    "constructor: from_truncated_subsampled_gaussian_mechanism": "it builds pessimistic "
    "PLDs only (no pessimistic_estimate argument); PLDAccountant exercises it",
    "constructor: from_discrete_laplace_mechanism / from_discrete_gaussian_mechanism":
    "refacct's catalogue has no discrete Laplace or discrete Gaussian mechanism",
    "constructor: from_privacy_parameters / from_two_probability_mass_functions": "not a "
    "mechanism of the catalogue (a pair of PMFs is refacct's own input: docs/pair-specs.md)",
}
_FORMS = {"default": "form: SelfComposedDpEvent", "count": "form: compose(event, count)",
          "repeated": "form: compose once per step", "list": "form: ComposedDpEvent of every step",
          "heterogeneous": "form: ComposedDpEvent of different events"}
_PLD_FORMS = {"default": "form: PrivacyLossDistribution.self_compose",
              "count": "form: PrivacyLossDistribution.self_compose",
              "repeated": "form: PrivacyLossDistribution.compose per step",
              "heterogeneous": "form: PrivacyLossDistribution.compose of different mechanisms"}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries that asking ``accountant`` this query exercises, or None
    when the adapter does not ask it (the same decisions as ``accountants``, without
    composing)."""
    plan = _plan(case)
    if plan is None or query.kind not in ("delta", "epsilon"):
        return None
    steps, relation = plan
    names = [n for event, _ in steps for n in _event_names(event)]
    if accountant == "dp_accounting.pld-optimistic":
        built = [_constructor(event, relation) for event, _ in steps]
        if case.form == "list" or None in built:
            return None
        entry = "get_delta_for_epsilon" if query.kind == "delta" else "get_epsilon_for_delta"
        return (["accountant: PrivacyLossDistribution (optimistic)", f"query: {entry}",
                 f"relation: {relation}", _PLD_FORMS[case.form]]
                + [f"constructor: {c}" for c in dict.fromkeys(built)]
                + [f"event: {n}" for n in names])
    make, name = ((_pld_maker(KNOBS), "PLDAccountant") if accountant == "dp_accounting.pld"
                  else (_rdp_maker, "RdpAccountant"))
    accepted = _accepted(make, case)
    if accepted is None:
        return None
    wrapped = [n for event, _ in accepted[1] for n in _event_names(event)]
    return ([f"accountant: {name}", f"query: get_{query.kind}", f"relation: {relation}",
             _FORMS[case.form]] + [f"event: {n}" for n in dict.fromkeys(wrapped)])


def _event_names(event) -> List[str]:
    """The class names of ``event`` and of the events inside it."""
    inner = list(getattr(event, "events", ())) + (
        [event.event] if hasattr(event, "event") else [])
    return [type(event).__name__] + [n for e in inner for n in _event_names(e)]
