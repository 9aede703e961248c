"""Adapter for ``autodp`` (Zhu, Wang et al.: mechanisms, transformers, RDP / analytical
characterisations).

Cases map to its mechanism zoo and transformers:

    gaussian, none / deterministic   GaussianMechanism(sigma / Delta), composed ``steps``
                                     times with Composition (deterministic: once)
    gaussian, poisson(q)             AmplificationBySampling(PoissonSampling=True) of it
    laplace, none                    LaplaceMechanism(b = scale / Delta)

under add-remove (zero-out for deterministic batching).  Composition forms: the default
passes ``Composition()([m], [k])``, "list" passes ``Composition()([m] * k, [1] * k)``, a
heterogeneous case passes one mechanism per part with its count.  autodp answers eps(delta)
(``get_approxDP``) only; delta(eps) queries are not expressible.  Judged as an upper bound
(``autodp``).  No accuracy knobs.  Parameters reach the peer as floats.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..cases import Case, Query
from . import Accountant, Peer

__all__ = ["PEER", "accountants", "mechanism_of", "features", "reproducer",
           "VOCABULARY"]


PEER = Peer(package="autodp", distribution="autodp",
            install="pip install 'refacct[more-peers]'")


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """``autodp`` (no knobs)."""
    return [Accountant("autodp", "upper", _prepare)]


def mechanism_of(case: Case):
    """autodp's mechanism for ``case`` (composed in the case's form), or None."""
    from autodp import transformer_zoo
    if case.form not in ("default", "list", "heterogeneous"):
        return None
    plan = [_one_step(part) for part in case.parts()]
    if any(p is None for p in plan):
        return None
    if case.form == "list":
        mechs = [one for one, steps in plan for _ in range(steps)]
        counts = [1] * len(mechs)
    else:
        mechs, counts = [one for one, _ in plan], [steps for _, steps in plan]
    if counts == [1]:
        return mechs[0]
    return transformer_zoo.Composition()(mechs, counts)


def _one_step(case: Case):
    """(autodp's one-step mechanism, steps) for a homogeneous case, or None."""
    from autodp import mechanism_zoo, transformer_zoo
    found = _one_step_call(case)
    if found is None:
        return None
    (name, keywords, q), steps = found
    one = getattr(mechanism_zoo, name)(**keywords)
    if q is not None:
        one = transformer_zoo.AmplificationBySampling(PoissonSampling=True)(one, q)
    return one, steps


def _one_step_call(case: Case):
    """((mechanism class, keywords, Poisson rate or None), steps) of a homogeneous case."""
    if case.group != 1 or case.relation not in ("add-remove", "zero-out"):
        return None
    if case.family == "laplace" and case.scheme == "none":
        call = ("LaplaceMechanism", {"b": float(case.param("scale") / case.param("sensitivity"))},
                None)
    elif case.family == "gaussian" and case.scheme in ("none", "deterministic", "poisson"):
        call = ("GaussianMechanism",
                {"sigma": float(case.param("sigma") / case.param("sensitivity"))},
                float(case.param("q")) if case.scheme == "poisson" else None)
    else:
        return None
    return call, 1 if case.scheme == "deterministic" else case.steps


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of autodp alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    lines = ["from autodp import mechanism_zoo, transformer_zoo", ""]
    counts = []
    for i, part in enumerate(case.parts()):
        (name, keywords, q), steps = _one_step_call(part)
        words = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
        lines.append(f"m{i} = mechanism_zoo.{name}({words})")
        if q is not None:
            lines.append(f"m{i} = transformer_zoo.AmplificationBySampling(PoissonSampling=True)"
                         f"(m{i}, {q!r})")
        counts.append(steps)
    names = [f"m{i}" for i in range(len(counts))]
    if case.form == "list":
        names, counts = [n for n, c in zip(names, counts) for _ in range(c)], [1] * sum(counts)
    mech = names[0] if counts == [1] else \
        f"transformer_zoo.Composition()([{', '.join(names)}], {counts!r})"
    return "\n".join(lines + [f"print({mech}.get_approxDP({float(query.at)!r}))"])


def _prepare(case: Case):
    mech = mechanism_of(case)
    if mech is None:
        return None

    def answer(query: Query):
        return mech.get_approxDP(float(query.at)) if query.kind == "epsilon" else None
    return answer


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "mechanism: GaussianMechanism": "", "mechanism: LaplaceMechanism": "",
    "transformer: AmplificationBySampling (Poisson)": "",
    "transformer: Composition (counts)": "", "transformer: Composition (list)": "",
    "transformer: Composition (different mechanisms)": "", "query: get_approxDP": "",
    "transformer: AmplificationBySampling (without replacement)": "autodp's bound for "
    "sampling without replacement is an RDP bound under replace-one; refacct's "
    "without-replacement entries are not yet wired to it",
    "mechanism: RandresponseMechanism / ExponentialMechanism / others": "not yet wired: "
    "refacct's catalogue has randomized response, the adapter does not map it",
    "query: get_eps / get_RDP / get_approx_DP at delta with the 'delta' parameter":
    "an RDP curve or an alias of get_approxDP",
}
_FORMS = {"default": "transformer: Composition (counts)", "list": "transformer: Composition (list)",
          "heterogeneous": "transformer: Composition (different mechanisms)"}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    if query.kind != "epsilon" or case.form not in _FORMS:
        return None
    parts = case.parts()
    if any(_one_step(part) is None for part in parts):
        return None
    out = ["query: get_approxDP"]
    if sum(1 if p.scheme == "deterministic" else p.steps for p in parts) > 1:
        out.append(_FORMS[case.form])
    for part in parts:
        out.append("mechanism: LaplaceMechanism" if part.family == "laplace"
                   else "mechanism: GaussianMechanism")
        if part.scheme == "poisson":
            out.append("transformer: AmplificationBySampling (Poisson)")
    return out
