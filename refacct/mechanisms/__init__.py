"""Mechanism catalogue: dominating pairs for base mechanisms x sampling schemes x
adjacency relations (001 Sections 4-7, 002 Sections 2-4, 003 Section 3, 004 Section 3).

Builders return a ``Dominated`` entry (terms, tight / upper / lower, provenance); its
privacy curve is the maximum over its terms, computed through the front door
``refacct.delta`` / ``epsilon`` / ``hockey_stick`` (any entry, any method, ``steps=``;
``refacct.maximum`` takes the maximum, ``refacct.derived`` has switch points and Vadhan's
group conversion).

>>> import refacct
>>> from refacct.mechanisms import poisson_subsampled, randomized_response
>>> rr = poisson_subsampled(randomized_response("3/4"), q="1/2", relation="add-remove", steps=2)
>>> r = refacct.hockey_stick(rr, "4/3"); (r.exact, r.attained_by)   # 001 App. B.1
(Fraction(11, 48), ('add',))
"""
from .base import Additive, Base, discrete, gaussian, laplace, randomized_response
from .catalogue import FAMILIES, SAMPLINGS, Allocated, Shuffled, base_mechanism, build
from ..maximum import MechanismDelta, MechanismEpsilon
from .entry import BOUNDS, Dominated, Provenance
from .deterministic import deterministic_batching
from .group import group_fixed_batch, group_poisson
from .pointwise_max import pointwise_max_pair, wor_substitution_upper
from .poisson import poisson_subsampled
from .relations import RELATIONS
from .truncated_poisson import q_trunc, q_trunc_sum, truncated_poisson
from .unsampled import unsampled
from .without_replacement import wor_subsampled

__all__ = [
    "Base", "Additive", "gaussian", "laplace", "randomized_response", "discrete",
    "Dominated", "Provenance", "MechanismDelta", "MechanismEpsilon", "BOUNDS", "RELATIONS",
    "unsampled", "poisson_subsampled", "wor_subsampled", "deterministic_batching",
    "wor_substitution_upper", "pointwise_max_pair",
    "truncated_poisson", "q_trunc", "q_trunc_sum",
    "group_poisson", "group_fixed_batch",
    "FAMILIES", "SAMPLINGS", "base_mechanism", "build", "Shuffled", "Allocated",
]
