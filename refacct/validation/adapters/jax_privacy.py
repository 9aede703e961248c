"""Adapter for jax-privacy's accounting (``jax_privacy.accounting``; PyPI ``jax-privacy``).

jax-privacy accounts for training runs described by ``DpParams`` (noise multipliers,
``num_samples``, ``batch_size``, schedules of both, ``sampling_method``,
``truncated_batch_size``, ``examples_per_user``) through a training accountant's
``compute_epsilon(num_updates, dp_params)``, on dp_accounting's PLD or RDP accountant
(``PldAccountantConfig``, ``RdpAccountantConfig``).  Cases map to one ``DpParams``:

    gaussian, poisson(q = b / n), add-remove or zero-out   POISSON, batch_size b of n
    gaussian, none                                         POISSON with b = n (q = 1)
    gaussian, truncated-poisson(n, p, B)                   POISSON, b = p n, truncated_batch_size B
    gaussian, wor(n, b), substitution                      FIXED_BATCH_SIZE (its reduction:
                                                           Poisson at b / n, sensitivity 2)
    heterogeneous Gaussian parts                           a noise-multiplier schedule
                                                           [(t, z)] and a batch-size scale
                                                           schedule over one n
    group of K, poisson                                    examples_per_user = K

Accountants, all judged as upper bounds, eps(delta) only:

``jax_privacy.dpsgd-pld`` / ``jax_privacy.dpsgd-rdp``
    ``DpsgdTrainingAccountant`` on the PLD (jax-privacy's default discretisation) or RDP
    accountant (truncated Poisson: PLD only, as jax-privacy requires).
``jax_privacy.user-level``
    ``DpsgdTrainingUserLevelAccountant`` (PLD): Ganesh's (arXiv:2401.10294) mixture of
    Gaussians of binomial sensitivities, for groups.
``jax_privacy.single-release``
    ``SingleReleaseTrainingAccountant`` (PLD): the whole run as one Gaussian release
    (un-amplified DP-FTRL); deterministic batching and one unsampled step.

Parameters reach the peer as floats; a case whose rates are not b / n for integers (or
whose schedule needs a fractional batch) is not expressible.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Dict, List, Optional

from ..cases import Case, Query
from . import Accountant, fft_noise_floor, Peer

__all__ = ["PEER", "accountants", "params_of", "features", "reproducer", "VOCABULARY"]

WHICH = ("dpsgd-pld", "dpsgd-rdp", "user-level", "single-release")
_CLASSES = {"dpsgd-pld": "DpsgdTrainingAccountant", "dpsgd-rdp": "DpsgdTrainingAccountant",
            "user-level": "DpsgdTrainingUserLevelAccountant",
            "single-release": "SingleReleaseTrainingAccountant"}


PEER = Peer(package="jax_privacy", distribution="jax-privacy",
            install="pip install 'refacct[more-peers]'")


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """One accountant per training accountant and dp_accounting backend (``WHICH``); those
    on the PLD accountant carry its FFT noise floor."""
    return [Accountant(f"jax_privacy.{w}", "upper", lambda case, w=w: _prepare(case, w), {},
                       None if w == "dpsgd-rdp" else fft_noise_floor) for w in WHICH]


def _segment(part: Case):
    """(noise multiplier, rate, steps, extra DpParams) of one homogeneous Gaussian part, or
    None; the rate is a Fraction, extra holds the sampling method and truncation."""
    if part.family != "gaussian":
        return None
    noise = float(part.param("sigma") / part.param("sensitivity"))
    scheme, relation = part.scheme, part.relation
    if scheme in ("poisson", "none") and relation in ("add-remove", "zero-out"):
        rate = part.param("q") if scheme == "poisson" else Fraction(1)
        return noise, rate, part.steps, {}
    if scheme == "deterministic" and relation in ("add-remove", "zero-out"):
        return noise, Fraction(1), 1, {}
    if scheme == "truncated-poisson" and relation in ("add-remove", "zero-out"):
        n = int(part.param("n"))
        return noise, Fraction(part.param("p_sample")), part.steps, {
            "num_samples": n, "truncated_batch_size": int(part.param("max_batch"))}
    if scheme == "wor" and relation == "substitution":
        return noise, Fraction(int(part.param("batch")), int(part.param("n"))), part.steps, {
            "num_samples": int(part.param("n")), "sampling_method": "FIXED_BATCH_SIZE"}
    return None


def params_of(which: str, case: Case) -> Optional[Dict[str, object]]:
    """``num_updates`` and the ``DpParams`` keywords (sampling method by name) of ``case``
    for the accountant ``which``, or None when jax-privacy cannot express it."""
    if case.form not in ("default", "heterogeneous"):
        return None
    parts = case.parts()
    found = [_segment(p) for p in parts]
    if any(f is None for f in found) or (which == "user-level") != (case.group != 1):
        return None
    if case.group != 1 and (case.scheme != "poisson" or case.relation != "add-remove"):
        return None
    extras = [f[3] for f in found]
    if len(found) > 1 and any(extras):
        return None  # schedules of plain Poisson steps only
    extra = extras[0]
    if which == "single-release" and (len(found) > 1 or found[0][2] != 1 or extra
                                      or found[0][1] != 1):
        return None
    if which == "dpsgd-rdp" and "truncated_batch_size" in extra:
        return None  # jax-privacy: truncated batches need the PLD accountant
    n = extra.get("num_samples") or math.lcm(*(f[1].denominator for f in found))
    batches = [f[1] * n for f in found]
    if any(b.denominator != 1 for b in batches):
        return None
    params = dict(extra, num_samples=n, batch_size=int(batches[0]))
    starts = [0]
    for f in found[:-1]:
        starts.append(starts[-1] + f[2])
    if len(found) == 1:
        params["noise_multipliers"] = found[0][0]
    else:
        params["noise_multipliers"] = [(t, f[0]) for t, f in zip(starts, found)]
        scales = {t: Fraction(int(b), int(a)) for t, a, b in
                  zip(starts[1:], batches, batches[1:]) if a != b}
        if any(s.denominator != 1 for s in scales.values()):
            return None
        if scales:
            params["batch_size_scale_schedule"] = {t: int(s) for t, s in scales.items()}
    if case.group != 1:
        params["examples_per_user"] = case.group
    return {"num_updates": starts[-1] + found[-1][2], "params": params}


def _accountant(which: str):
    from jax_privacy import accounting
    config = (accounting.RdpAccountantConfig() if which == "dpsgd-rdp"
              else accounting.PldAccountantConfig())
    return getattr(accounting, _CLASSES[which])(config)


def _prepare(case: Case, which: str):
    found = params_of(which, case)
    if found is None:
        return None

    def answer(query: Query):
        if query.kind != "epsilon":
            return None
        from jax_privacy import accounting
        params = dict(found["params"])
        if "sampling_method" in params:
            params["sampling_method"] = getattr(accounting.SamplingMethod,
                                                params["sampling_method"])
        dp = accounting.DpParams(delta=float(query.at), **params)
        return _accountant(which).compute_epsilon(found["num_updates"], dp)
    return answer


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of jax-privacy alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    which = accountant.split(".", 1)[1]
    found = params_of(which, case)
    params = dict(found["params"])
    words = [f"{k}={v!r}" for k, v in params.items() if k != "sampling_method"]
    if "sampling_method" in params:
        words.append(f"sampling_method=accounting.SamplingMethod.{params['sampling_method']}")
    config = "RdpAccountantConfig" if which == "dpsgd-rdp" else "PldAccountantConfig"
    return "\n".join([
        "from jax_privacy import accounting", "",
        f"acc = accounting.{_CLASSES[which]}(accounting.{config}())",
        f"dp = accounting.DpParams(delta={float(query.at)!r}, {', '.join(words)})",
        f"print(acc.compute_epsilon({found['num_updates']}, dp))"])


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "accountant: DpsgdTrainingAccountant (PLD)": "",
    "accountant: DpsgdTrainingAccountant (RDP)": "",
    "accountant: DpsgdTrainingUserLevelAccountant": "",
    "accountant: SingleReleaseTrainingAccountant": "",
    "query: compute_epsilon": "",
    "sampling: POISSON": "", "sampling: POISSON at q = 1": "",
    "sampling: POISSON with truncated_batch_size": "", "sampling: FIXED_BATCH_SIZE": "",
    "schedule: noise_multipliers [(t, z)]": "", "schedule: batch_size_scale_schedule": "",
    "option: examples_per_user": "",
    "option: cycle_length (cyclic Poisson, BandMF)": "banded matrix factorisation with "
    "cyclic Poisson sampling: no entry in refacct's catalogue",
    "accountant: CachedExperimentAccountant": "a cache in front of the same "
    "compute_epsilon, interpolating between cached step counts when asked",
    "calibrate: calibrate_noise_multiplier / calibrate_num_updates / calibrate_batch_size":
    "calibrate to an (eps, delta) target by bisection on compute_epsilon; the suite's "
    "calibrations target the attack advantage (eps = 0), which jax-privacy cannot express",
}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    which = accountant.split(".", 1)[1]
    found = params_of(which, case)
    if query.kind != "epsilon" or found is None:
        return None
    params = found["params"]
    backend = "RDP" if which == "dpsgd-rdp" else "PLD"
    name = _CLASSES[which] + (f" ({backend})" if which.startswith("dpsgd") else "")
    out = [f"accountant: {name}", "query: compute_epsilon"]
    if "truncated_batch_size" in params:
        out.append("sampling: POISSON with truncated_batch_size")
    elif "sampling_method" in params:
        out.append("sampling: FIXED_BATCH_SIZE")
    elif which != "single-release":
        out.append("sampling: POISSON at q = 1" if params["batch_size"] == params["num_samples"]
                   and len(case.parts()) == 1 else "sampling: POISSON")
    if isinstance(params["noise_multipliers"], list):
        out.append("schedule: noise_multipliers [(t, z)]")
    if "batch_size_scale_schedule" in params:
        out.append("schedule: batch_size_scale_schedule")
    if "examples_per_user" in params:
        out.append("option: examples_per_user")
    return out
