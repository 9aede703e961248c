"""Adapter for Microsoft's ``prv_accountant`` (Gopi, Lee, Wutschitz 2021: numerical
composition of privacy random variables).

Cases map to its privacy random variables (PRVs), self-composed ``steps`` times:

    gaussian, none / deterministic   GaussianMechanism(sigma, l2_sensitivity=Delta)
                                     (deterministic: once, 002 Prop. 3.1)
    gaussian, poisson(q)             PoissonSubsampledGaussianMechanism(q, sigma / Delta)
    laplace, none                    LaplaceMechanism(mu = Delta / scale)

under add-remove (or zero-out for deterministic batching, the same Gaussian pair).  The
subsampled PRV is the privacy loss of the remove pair ((1 - q) N(0, s^2) + q N(1, s^2),
N(0, s^2)) only (its support starts at log(1 - q)); the add direction is not composed.

``PRVAccountant.compute_delta`` / ``compute_epsilon`` return (lower, estimate, upper):
``prv_accountant.upper`` reports the upper and ``prv_accountant.lower`` the lower value.
Knobs: ``eps_error`` (default 0.01), ``delta_error`` for delta(eps) queries (absolute,
default 1e-12) and ``delta_error_relative`` for eps(delta) queries (delta_error = this
times delta, default 1e-3, the package's suggestion).  Parameters reach the peer as floats.
"""
from __future__ import annotations

import importlib.util
from typing import List

from ..cases import Case, Query
from . import Accountant, fft_noise_floor, float_knobs

__all__ = ["importable", "accountants", "prv_of", "KNOBS"]

KNOBS = {"eps_error": 0.01, "delta_error": 1e-12, "delta_error_relative": 1e-3}
_POSITION = {"lower": 0, "upper": 2}


def importable() -> bool:
    return importlib.util.find_spec("prv_accountant") is not None


def accountants(**knobs) -> List[Accountant]:
    """``prv_accountant.upper`` and ``prv_accountant.lower`` with ``knobs``."""
    k = float_knobs(knobs, KNOBS)
    return [Accountant(f"prv_accountant.{which}", which,
                       lambda case, which=which: _prepare(case, which, k), k, fft_noise_floor)
            for which in ("upper", "lower")]


def prv_of(case: Case):
    """(PRV, number of compositions) for ``case``, or None."""
    import prv_accountant as prv
    if case.group != 1 or case.relation not in ("add-remove", "zero-out"):
        return None
    if case.family == "gaussian" and case.scheme in ("none", "deterministic"):
        mech = prv.GaussianMechanism(float(case.param("sigma")),
                                     l2_sensitivity=float(case.param("sensitivity")))
        return mech, 1 if case.scheme == "deterministic" else case.steps
    if case.family == "gaussian" and case.scheme == "poisson":
        noise = float(case.param("sigma") / case.param("sensitivity"))
        return prv.PoissonSubsampledGaussianMechanism(float(case.param("q")), noise), case.steps
    if case.family == "laplace" and case.scheme == "none":
        mu = float(case.param("sensitivity") / case.param("scale"))
        return prv.LaplaceMechanism(mu), case.steps
    return None


def _prepare(case: Case, which: str, knobs):
    if prv_of(case) is None:
        return None

    def answer(query: Query):
        if query.kind == "alpha":
            return None
        at = float(query.at)
        if query.kind == "delta":
            acc, count = _accountant(case, knobs["eps_error"], knobs["delta_error"])
            return acc.compute_delta(at, [count])[_POSITION[which]]
        acc, count = _accountant(case, knobs["eps_error"], knobs["delta_error_relative"] * at)
        return acc.compute_epsilon(at, [count])[_POSITION[which]]
    return answer


_CACHE: dict = {}


def _accountant(case: Case, eps_error: float, delta_error: float):
    """(``PRVAccountant``, compositions) per (case, errors), shared by upper and lower
    (the last few are kept)."""
    import prv_accountant as prv
    key = (case.describe(), eps_error, delta_error)
    if key not in _CACHE:
        mech, count = prv_of(case)
        if len(_CACHE) >= 8:
            _CACHE.clear()
        _CACHE[key] = (prv.PRVAccountant(prvs=[mech], max_self_compositions=[count],
                                         eps_error=eps_error, delta_error=delta_error), count)
    return _CACHE[key]
