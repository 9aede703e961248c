"""Adapter for Koskela, Jälkö and Honkela's ``fourier-accountant`` (FFT of the privacy loss
distribution of the Poisson-subsampled Gaussian, arXiv:1906.03049).

It expresses one mechanism: the Poisson-subsampled Gaussian, noise sigma / Delta, rate q,
composed ``steps`` times, under remove/add (``get_delta_R`` / ``get_epsilon_R``: case relation
add-remove) or substitution (``get_delta_S`` / ``get_epsilon_S``).  Its numbers are the
package's "tight" guarantees, judged here as upper bounds (``fourier_accountant``).
Knobs: ``nx`` (grid points, default 1e6) and ``L`` (grid half-width in loss units,
default 20).  Parameters reach the peer as floats.

Two PyPI packages provide this one module, ``fourier_accountant`` (install one of them: they
overwrite each other's files): ``fourier-accountant`` (exercised: 0.12.11) and its
predecessor ``pld-accountant`` (exercised: 0.12.1, "migrated to fourier-accountant").  Both
have the four functions with the keywords used here, so the adapter serves either unchanged;
0.12.1 stops the eps(delta) Newton iteration at |delta - target| <= 1e-13, 0.12.11 at 1e-10.
"""
from __future__ import annotations

import importlib.util
from typing import List

from ..cases import Case, Query
from . import Accountant, fft_noise_floor, float_knobs

__all__ = ["importable", "accountants", "KNOBS"]

KNOBS = {"nx": 1e6, "L": 20.0}
_RELATIONS = {"add-remove": "R", "substitution": "S"}


def importable() -> bool:
    return importlib.util.find_spec("fourier_accountant") is not None


def accountants(**knobs) -> List[Accountant]:
    """``fourier_accountant`` with ``knobs``."""
    k = float_knobs(knobs, KNOBS)
    return [Accountant("fourier_accountant", "upper", lambda case: _prepare(case, k), k,
                       fft_noise_floor)]


def _prepare(case: Case, knobs):
    import fourier_accountant as fa
    relation = _RELATIONS.get(case.relation)
    if (case.family, case.scheme, case.group) != ("gaussian", "poisson", 1) or relation is None:
        return None
    delta_of = getattr(fa, f"get_delta_{relation}")
    eps_of = getattr(fa, f"get_epsilon_{relation}")
    common = dict(sigma=float(case.param("sigma") / case.param("sensitivity")),
                  q=float(case.param("q")), ncomp=case.steps, nx=int(knobs["nx"]), L=knobs["L"])

    def answer(query: Query):
        if query.kind == "delta":
            return delta_of(target_eps=float(query.at), **common)
        if query.kind == "epsilon":
            return eps_of(target_delta=float(query.at), **common)
        return None
    return answer
