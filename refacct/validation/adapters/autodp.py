"""Adapter for ``autodp`` (Zhu, Wang et al.: mechanisms, transformers, RDP / analytical
characterisations).

Cases map to its mechanism zoo and transformers:

    gaussian, none / deterministic   GaussianMechanism(sigma / Delta), composed ``steps``
                                     times with Composition (deterministic: once)
    gaussian, poisson(q)             AmplificationBySampling(PoissonSampling=True) of it
    laplace, none                    LaplaceMechanism(b = scale / Delta)

under add-remove (zero-out for deterministic batching).  autodp answers eps(delta)
(``get_approxDP``) only; delta(eps) queries are not expressible.  Judged as an upper bound
(``autodp``).  No accuracy knobs.  Parameters reach the peer as floats.
"""
from __future__ import annotations

import importlib.util
from typing import List

from ..cases import Case, Query
from . import Accountant

__all__ = ["importable", "accountants", "mechanism_of"]


def importable() -> bool:
    return importlib.util.find_spec("autodp") is not None


def accountants() -> List[Accountant]:
    """``autodp`` (no knobs)."""
    return [Accountant("autodp", "upper", _prepare)]


def mechanism_of(case: Case):
    """autodp's mechanism for ``case`` (composed), or None."""
    from autodp import mechanism_zoo, transformer_zoo
    if case.group != 1 or case.relation not in ("add-remove", "zero-out"):
        return None
    if case.family == "laplace" and case.scheme == "none":
        one = mechanism_zoo.LaplaceMechanism(b=float(case.param("scale") / case.param("sensitivity")))
    elif case.family == "gaussian" and case.scheme in ("none", "deterministic", "poisson"):
        one = mechanism_zoo.GaussianMechanism(
            sigma=float(case.param("sigma") / case.param("sensitivity")))
        if case.scheme == "poisson":
            one = transformer_zoo.AmplificationBySampling(PoissonSampling=True)(
                one, float(case.param("q")))
    else:
        return None
    steps = 1 if case.scheme == "deterministic" else case.steps
    return one if steps == 1 else transformer_zoo.Composition()([one], [steps])


def _prepare(case: Case):
    mech = mechanism_of(case)
    if mech is None:
        return None

    def answer(query: Query):
        return mech.get_approxDP(float(query.at)) if query.kind == "epsilon" else None
    return answer
