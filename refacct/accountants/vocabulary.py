"""The peers' vocabulary in refacct's terms: dp_accounting's events and neighbouring
relations as catalogue entries (``refacct.mechanisms.build``), read by class name and field,
so that nothing here imports a peer.

Floats are read as the shortest decimal that rounds to them (``decimal``: 0.1 is 1/10), the
number the user wrote, exactly.

Events (dp_accounting 0.4+):
* ``GaussianDpEvent(z)``: the Gaussian mechanism, sigma = z, sensitivity 1;
* ``LaplaceDpEvent(b)``: the Laplace mechanism, scale b, sensitivity 1;
* ``RandomizedResponseDpEvent(noise, 2)``: binary randomized response reporting the true
  bit with probability p = 1 - noise / 2 (noise 0 is non-private);
* ``PoissonSampledDpEvent(q, E)``, ``SampledWithoutReplacementDpEvent(n, b, E)`` for E one
  of the above: Poisson sampling with rate q, sampling b of n without replacement;
* ``TruncatedSubsampledGaussianDpEvent(n, p, B, z)``: 004's truncated Poisson sampling;
* ``MixtureOfGaussiansDpEvent(sigma, [s_i], [p_i])``: sensitivity s_i with probability p_i
  (003's group privacy), add-remove and zero-out;
* ``SelfComposedDpEvent``, ``ComposedDpEvent``, ``NoOpDpEvent``, ``NonPrivateDpEvent``.
Relations: ADD_OR_REMOVE_ONE = add-remove, REPLACE_ONE = substitution (replace-one for
truncated Poisson), REPLACE_SPECIAL = zero-out.

The other way, ``event_of(case)`` writes a validation case as dp_accounting's event (the
validation adapters' query), parameters as the nearest floats.
"""
from __future__ import annotations

import math
from fractions import Fraction
from math import comb
from typing import List, Optional, Tuple

from ..distributions import Gaussian, mixture
from ..errors import InputError
from ..mechanisms import (Dominated, Provenance, build, gaussian, laplace,
                          randomized_response)
from ..mechanisms.relations import directions
from ..pairs import Pair

__all__ = ["RELATIONS", "NON_PRIVATE", "Unsupported", "decimal", "leaves", "entry_of",
           "event_of", "step_event_of", "opacus_entry", "opacus_history_of"]

RELATIONS = {"ADD_OR_REMOVE_ONE": "add-remove", "REPLACE_ONE": "substitution",
             "REPLACE_SPECIAL": "zero-out"}
_NAMES = {"add-remove": "ADD_OR_REMOVE_ONE", "zero-out": "REPLACE_SPECIAL",
          "substitution": "REPLACE_ONE", "replace-one": "REPLACE_ONE"}
NON_PRIVATE = "non-private"


_MOG = Provenance("dp_accounting's MixtureOfGaussiansDpEvent: the pair (sum_i p_i "
                  "N(s_i, sigma^2), N(0, sigma^2)) and its swap (003 Sec. 3)",
                  "003", "Sec. 3")


class Unsupported(Exception):
    """``event`` (the innermost one refacct cannot take) and why."""

    def __init__(self, event, why: str) -> None:
        super().__init__(why)
        self.event = event


def decimal(x, name: str = "parameter") -> Fraction:
    """A parameter exactly: an int or Fraction as it is, a float as the shortest decimal
    that rounds to it (0.1 -> 1/10); InputError naming ``name`` for anything else (nan,
    inf, text)."""
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return Fraction(x)
    if isinstance(x, float) and math.isfinite(x):
        return Fraction(repr(x))
    raise InputError(f"{name} must be a finite number (int, Fraction or float), got {x!r}")


def _name(event) -> str:
    return type(event).__name__


def leaves(event, count: int) -> List[Tuple[object, int]]:
    """The one-step events of ``event`` composed ``count`` times, with their counts
    (``NON_PRIVATE`` for a non-private one; no-ops dropped)."""
    name = _name(event)
    if name == "NoOpDpEvent":
        return []
    if name == "NonPrivateDpEvent":
        return [(NON_PRIVATE, count)]
    if name == "ComposedDpEvent":
        return [leaf for inner in event.events for leaf in leaves(inner, count)]
    if name == "SelfComposedDpEvent":
        return leaves(event.event, count * event.count)
    if name == "RandomizedResponseDpEvent" and event.num_buckets == 2 \
            and event.noise_parameter == 0:
        return [(NON_PRIVATE, count)]
    return [(event, count)]


def entry_of(event, relation: str):
    """The one-step catalogue entry of a leaf event under a dp_accounting relation name;
    ``Unsupported`` when refacct has no dominating pair for it."""
    rel = RELATIONS.get(relation)
    if rel is None:
        raise Unsupported(event, f"neighbouring relation {relation} is not in refacct's "
                                 f"vocabulary ({', '.join(RELATIONS)})")
    name = _name(event)
    try:
        if name == "PoissonSampledDpEvent":
            return build(_base(event.event), "poisson", rel,
                         q=decimal(event.sampling_probability))
        if name == "SampledWithoutReplacementDpEvent":
            return build(_base(event.event), "wor", rel, n=int(event.source_dataset_size),
                         batch=int(event.sample_size))
        if name == "MixtureOfGaussiansDpEvent":
            return _mixture_of_gaussians_entry(event, rel)
        if name == "TruncatedSubsampledGaussianDpEvent":
            return build(gaussian(decimal(event.noise_multiplier)), "truncated-poisson",
                         "replace-one" if rel == "substitution" else rel,
                         n=int(event.dataset_size), p_sample=decimal(event.sampling_probability),
                         max_batch=int(event.truncated_batch_size))
        return build(_base(event), "none", rel)
    except InputError as exc:
        raise Unsupported(event, f"not in refacct's catalogue: {exc}") from None


def _mixture_of_gaussians_entry(event, rel: str):
    """dp_accounting's mixture of Gaussians (sensitivity s_i with probability p_i, noise
    sigma; 003 Sec. 3): the add pair (N(0, sigma^2), sum_i p_i N(s_i, sigma^2)) in both
    directions, for add-remove and zero-out (the relations dp_accounting defines it for)."""
    if rel not in ("add-remove", "zero-out"):
        raise Unsupported(event, "a mixture of Gaussians is defined for ADD_OR_REMOVE_ONE and "
                                 "REPLACE_SPECIAL only")
    sigma = decimal(event.standard_deviation)
    mog = mixture([(decimal(p), Gaussian(decimal(s), sigma))
                   for s, p in zip(event.sensitivities, event.sampling_probs)])
    add = Pair(Gaussian(0, sigma), mog)

    def make(steps: int) -> Dominated:
        return Dominated(f"mixture of Gaussians {mog!r} vs N(0, {sigma}^2), {rel}, "
                         f"{steps} step(s)", directions(add, rel, steps), "tight", (_MOG,),
                         rebuild=make)
    return make(1)


def _base(event):
    """The base mechanism of a leaf event (Gaussian, Laplace, binary randomized response)."""
    name = _name(event)
    if name == "GaussianDpEvent":
        return gaussian(decimal(event.noise_multiplier))
    if name == "LaplaceDpEvent":
        return laplace(decimal(event.noise_multiplier))
    if name == "RandomizedResponseDpEvent" and event.num_buckets == 2:
        return randomized_response(1 - decimal(event.noise_parameter) / 2)
    raise Unsupported(event, f"{name} has no dominating pair in refacct's catalogue")


def opacus_entry(noise_multiplier: float, sample_rate: float):
    """One Opacus step (DP-SGD with Poisson sampling, add-or-remove): the catalogue's
    Poisson-subsampled Gaussian, sigma = noise_multiplier, q = sample_rate (no sampling at
    q = 1); None for a non-private step (no noise)."""
    if noise_multiplier == 0:
        return None
    base = gaussian(decimal(noise_multiplier))
    if sample_rate == 1:
        return build(base, "none", "add-remove")
    return build(base, "poisson", "add-remove", q=decimal(sample_rate))


# --- the other way: a catalogue case as the peers' queries (validation adapters) -----------


def opacus_history_of(case) -> Optional[Tuple[float, float, int]]:
    """Opacus's (noise_multiplier, sample_rate, num_steps) for a validation case, or None
    (``opacus_entry`` reads it back)."""
    if case.family != "gaussian" or case.group != 1:
        return None
    noise = float(case.param("sigma") / case.param("sensitivity"))
    if case.scheme == "poisson" and case.relation == "add-remove":
        return noise, float(case.param("q")), case.steps
    if case.scheme == "none" and case.relation == "add-remove":
        return noise, 1.0, case.steps
    if case.scheme == "deterministic" and case.relation in ("add-remove", "zero-out"):
        return noise, 1.0, 1
    return None


def _noise(case, key: str) -> float:
    return float(case.param(key) / case.param("sensitivity"))


def event_of(case):
    """(dp_accounting event, NeighboringRelation name) for a homogeneous validation case (or
    any object with its ``family``, ``scheme``, ``relation``, ``steps``, ``group`` and
    ``param``), or None when dp_accounting has no event for it; imports dp_accounting."""
    from dp_accounting import dp_event as dpa
    found = step_event_of(case)
    if found is None:
        return None
    base, count, relation = found
    return (base if case.scheme == "deterministic" else dpa.SelfComposedDpEvent(base, count),
            relation)


def step_event_of(case):
    """(one-step event, number of steps, NeighboringRelation name) for a homogeneous case,
    or None: deterministic batches count once (002 Prop. 3.1)."""
    from dp_accounting import dp_event as dpa
    relation = _NAMES.get(case.relation)
    base = _base_event(case, dpa)
    if relation is None or base is None:
        return None
    return base, 1 if case.scheme == "deterministic" else case.steps, relation


def _base_event(case, dpa):
    """The one-step event, or None."""
    family, scheme = case.family, case.scheme
    if family == "rr":
        return _randomized_response(case, dpa) if scheme == "none" else None
    if scheme == "wor":
        return _without_replacement(case, dpa)
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
    if scheme != "truncated-poisson":   # random allocation: no event in dp_accounting 0.6
        return None
    return dpa.TruncatedSubsampledGaussianDpEvent(
        int(case.param("n")), float(case.param("p_sample")), int(case.param("max_batch")),
        _noise(case, "sigma"))


def _randomized_response(case, dpa):
    """Binary randomized response reporting the true bit with probability p: dp_accounting's
    event with num_buckets = 2 reports it with 1 - noise/2, so noise = 2 min(p, 1 - p); the
    event is defined for REPLACE_ONE / REPLACE_SPECIAL only."""
    if case.relation not in ("replace-one", "substitution"):
        return None
    p = case.param("p")
    return dpa.RandomizedResponseDpEvent(noise_parameter=float(2 * min(p, 1 - p)),
                                         num_buckets=2)


def _without_replacement(case, dpa):
    """b of n without replacement (dp_accounting: RDP's Gaussian under REPLACE_ONE)."""
    if case.family != "gaussian" or case.group != 1:
        return None
    return dpa.SampledWithoutReplacementDpEvent(int(case.param("n")), int(case.param("batch")),
                                                dpa.GaussianDpEvent(_noise(case, "sigma")))


def _poisson(case, inner, dpa):
    return dpa.PoissonSampledDpEvent(float(case.param("q")), inner)


def _mixture_of_gaussians(case, dpa):
    """003 Thm 3.1: sensitivity K' ~ Binom(K, q) in units of Delta."""
    K, q, delta_ = case.group, case.param("q"), case.param("sensitivity")
    probs = [comb(K, j) * q ** j * (1 - q) ** (K - j) for j in range(K + 1)]
    return dpa.MixtureOfGaussiansDpEvent(float(case.param("sigma")),
                                         [float(j * delta_) for j in range(K + 1)],
                                         [float(p) for p in probs])
