"""Adapter for Koskela, Jälkö and Honkela's ``fourier-accountant`` (FFT of the privacy loss
distribution of the Poisson-subsampled Gaussian, arXiv:1906.03049).

It expresses one mechanism: the Poisson-subsampled Gaussian, noise sigma / Delta, rate q,
composed ``steps`` times, under remove/add (``get_delta_R`` / ``get_epsilon_R``: case relation
add-remove) or substitution (``get_delta_S`` / ``get_epsilon_S``); the unsampled Gaussian
is its q = 1.  Composition forms: the default passes scalars (``sigma``, ``q``, ``ncomp``),
"count" one-element arrays, a heterogeneous case one array entry per part (``sigma``,
``q``, ``ncomp`` arrays).  Its numbers are the
package's "tight" guarantees, judged here as upper bounds (``fourier_accountant``).
Knobs: ``nx`` (grid points, default 1e6), ``L`` (grid half-width in loss units,
default 20) and ``time_limit`` (seconds per answer, default 60: its eps(delta) Newton
iteration has no iteration cap and can cycle forever, e.g. sigma = (1, 1/2), q = 1e-3,
ncomp = (1000, 100) at delta = 1e-30; such an answer fails with ``PeerTimeout``).
Parameters reach the peer as floats.

Two PyPI packages provide this one module, ``fourier_accountant`` (install one of them: they
overwrite each other's files): ``fourier-accountant`` (exercised: 0.12.11) and its
predecessor ``pld-accountant`` (exercised: 0.12.1, "migrated to fourier-accountant").  Both
have the four functions with the keywords used here, so the adapter serves either unchanged;
0.12.1 stops the eps(delta) Newton iteration at |delta - target| <= 1e-13, 0.12.11 at 1e-10.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...alarm import alarm_after
from ..cases import Case, Query
from . import Accountant, fft_noise_floor, Peer, PeerTimeout, time_limit

__all__ = ["PEER", "accountants", "features", "reproducer", "KNOBS", "VOCABULARY",
           "PeerTimeout"]


KNOBS = {"nx": 1e6, "L": 20.0, "time_limit": 60.0}
_RELATIONS = {"add-remove": "R", "substitution": "S"}


PEER = Peer(package="fourier_accountant", distribution="fourier-accountant",
            install="pip install 'refacct[more-peers]'", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """``fourier_accountant`` with ``knobs``."""
    time_limit("fourier_accountant", knobs)
    return [Accountant("fourier_accountant", "upper", lambda case: _prepare(case, knobs), knobs,
                       fft_noise_floor)]


def _prepare(case: Case, knobs):
    import fourier_accountant as fa
    relation = _RELATIONS.get(case.relation)
    plan = [_one_step(part) for part in case.parts()]
    if relation is None or any(p is None for p in plan) or \
            case.form not in ("default", "count", "heterogeneous"):
        return None
    delta_of = getattr(fa, f"get_delta_{relation}")
    eps_of = getattr(fa, f"get_epsilon_{relation}")
    if case.form == "default":
        (sigma, q, steps), = plan
        common = dict(sigma=sigma, q=q, ncomp=steps)
    else:
        import numpy as np
        common = dict(sigma=np.array([p[0] for p in plan]), q=np.array([p[1] for p in plan]),
                      ncomp=np.array([p[2] for p in plan], dtype=np.int64))
    common.update(nx=int(knobs["nx"]), L=knobs["L"])
    limit = knobs["time_limit"]

    def answer(query: Query):
        if query.kind not in ("delta", "epsilon"):
            return None
        with alarm_after(limit, lambda: PeerTimeout(f"no answer within {limit:g} s")):
            if query.kind == "delta":
                return delta_of(target_eps=float(query.at), **common)
            return eps_of(target_delta=float(query.at), **common)
    return answer


def _one_step(case: Case):
    """(sigma / Delta, q, steps) of a homogeneous case (q = 1 unsampled), or None."""
    if case.family != "gaussian" or case.group != 1 or case.scheme not in ("none", "poisson"):
        return None
    q = float(case.param("q")) if case.scheme == "poisson" else 1.0
    return float(case.param("sigma") / case.param("sensitivity")), q, case.steps


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "query: get_delta_R": "", "query: get_epsilon_R": "", "query: get_delta_S": "",
    "query: get_epsilon_S": "", "form: scalar arguments": "", "form: one-element arrays": "",
    "form: arrays of different (sigma, q)": "", "sampling: Poisson (q < 1)": "",
    "sampling: none (q = 1)": "",
    "module: compute_delta_var / compute_eps_var": "deprecated aliases of the same functions",
    "module: experimental (binomial, exponential mechanism, subsampled Gaussian bounds)":
    "not in refacct's catalogue",
}
_FORMS = {"default": "form: scalar arguments", "count": "form: one-element arrays",
          "heterogeneous": "form: arrays of different (sigma, q)"}


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of fourier_accountant alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    plan = [_one_step(part) for part in case.parts()]
    if case.form == "default":
        (sigma, q, steps), = plan
        given = f"sigma={sigma!r}, q={q!r}, ncomp={steps}"
    else:
        given = ", ".join(f"{k}=np.array({[p[i] for p in plan]!r})"
                          for i, k in enumerate(("sigma", "q", "ncomp")))
    kind, target = ("delta", "target_eps") if query.kind == "delta" else ("epsilon", "target_delta")
    head = ["import fourier_accountant as fa"] + (["import numpy as np"] if case.form != "default" else [])
    return "\n".join(head + ["", f"print(fa.get_{kind}_{_RELATIONS[case.relation]}("
                             f"{target}={float(query.at)!r}, {given}, nx={int(KNOBS['nx'])}, "
                             f"L={KNOBS['L']!r}))"])


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    relation = _RELATIONS.get(case.relation)
    parts = [_one_step(part) for part in case.parts()]
    if relation is None or None in parts or case.form not in _FORMS \
            or query.kind not in ("delta", "epsilon"):
        return None
    entry = "delta" if query.kind == "delta" else "epsilon"
    return ([f"query: get_{entry}_{relation}", _FORMS[case.form]]
            + ["sampling: none (q = 1)" if q == 1 else "sampling: Poisson (q < 1)"
               for _, q, _ in parts])
