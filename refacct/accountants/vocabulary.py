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
* ``SelfComposedDpEvent``, ``ComposedDpEvent``, ``NoOpDpEvent``, ``NonPrivateDpEvent``.
Relations: ADD_OR_REMOVE_ONE = add-remove, REPLACE_ONE = substitution (replace-one for
truncated Poisson), REPLACE_SPECIAL = zero-out.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Tuple

from ..errors import InputError
from ..mechanisms import build, gaussian, laplace, randomized_response

__all__ = ["RELATIONS", "NON_PRIVATE", "Unsupported", "decimal", "leaves", "entry_of"]

RELATIONS = {"ADD_OR_REMOVE_ONE": "add-remove", "REPLACE_ONE": "substitution",
             "REPLACE_SPECIAL": "zero-out"}
NON_PRIVATE = "non-private"


class Unsupported(Exception):
    """``event`` (the innermost one refacct cannot take) and why."""

    def __init__(self, event, why: str) -> None:
        super().__init__(why)
        self.event = event


def decimal(x) -> Fraction:
    """A float parameter as the shortest decimal that rounds to it (0.1 -> 1/10)."""
    return Fraction(repr(float(x)))


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
        if name == "TruncatedSubsampledGaussianDpEvent":
            return build(gaussian(decimal(event.noise_multiplier)), "truncated-poisson",
                         "replace-one" if rel == "substitution" else rel,
                         n=int(event.dataset_size), p_sample=decimal(event.sampling_probability),
                         max_batch=int(event.truncated_batch_size))
        return build(_base(event), "none", rel)
    except InputError as exc:
        raise Unsupported(event, f"not in refacct's catalogue: {exc}") from None


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
