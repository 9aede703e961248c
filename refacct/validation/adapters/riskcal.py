"""Adapter for ``riskcal`` (Kulynych, Gomez et al., "Attack-Aware Noise Calibration for
Differential Privacy", 2024, arXiv:2407.02191): f-DP trade-off curves beta(alpha) and the
attack advantage (delta at eps = 0) of DP mechanisms, computed from dp_accounting's
privacy-loss distributions (PLDs) by their Algorithm 1, symmetrised under add-remove
(Dong, Roth, Su, arXiv:1905.02383, Def. F.1).

Four accountants, each one entry point of riskcal 1.5:

    riskcal.dpsgd   calibration.dpsgd.get_beta_for_dpsgd(sigma, q, T, alpha),
                    get_advantage_for_dpsgd(sigma, q, T) and the calibration
                    find_noise_multiplier_for_advantage(a, q, T): the Poisson-subsampled
                    Gaussian (DP-SGD) under add-remove; no sampling is q = 1
    riskcal.ctd     accountants.CTDAccountant: ``step(noise_multiplier=, sample_rate=)`` once
                    per step (its history merges equal steps, so a heterogeneous case is
                    the same calls in order), then get_beta(alpha=), get_epsilon(delta=) and
                    get_advantage()
    riskcal.gdp     analysis.get_beta_from_gdp(mu, alpha) and get_advantage_from_gdp(mu) for
                    the unsampled Gaussian, mu = Delta sqrt(sum_i T_i / sigma_i^2)
    riskcal.pld     analysis.get_beta_from_pld(pld, alpha) and get_advantage_from_pld(pld)
                    on dp_accounting's from_laplace_mechanism(b, Delta, sampling_prob=q),
                    self-composed T times (parts composed with ``compose``)

Cases: add-remove (zero-out for the unsampled Gaussian: the same pair), group 1.  The
queries are ``beta`` (judged as a lower bound: an f-DP guarantee must not exceed the true
curve, ``harness.claim_of``), ``delta`` at eps = 0 (the advantage), for the CTD accountant
``epsilon``, and for ``riskcal.dpsgd`` ``sigma`` and ``errors`` (the noise multiplier
calibrated to an advantage, or to a type II error at ``ERROR_ALPHA`` by
``find_noise_multiplier_for_err_rates``: upper bounds, since a smaller one than the truth
would miss the target).  The PLD-based accountants compose by FFT and carry the float64
noise floor of ``fft_noise_floor``; the GDP closed forms carry ``closed_form_noise_floor``.  Parameters reach the peer as floats.
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

from ..cases import ERROR_ALPHA, Case, Query
from . import Accountant, fft_noise_floor, Peer

__all__ = ["PEER", "accountants", "features", "reproducer", "closed_form_noise_floor",
           "VOCABULARY"]

_WHICH = ("dpsgd", "ctd", "gdp", "pld")


PEER = Peer(package="riskcal", distribution="riskcal",
            install="pip install 'refacct[more-peers]'")


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """``riskcal.dpsgd``, ``riskcal.ctd``, ``riskcal.gdp`` and ``riskcal.pld``."""
    return [Accountant(f"riskcal.{which}", "upper",
                       lambda case, which=which: _prepare(case, which), {},
                       closed_form_noise_floor if which == "gdp" else fft_noise_floor)
            for which in _WHICH]


def closed_form_noise_floor(case: Case) -> Fraction:
    """8 u, u = 2^-52: the float64 noise of a closed form evaluated in a few roundings
    (scipy's normal CDF at mu / 2 for the advantage 2 Phi(mu / 2) - 1).  Measured: riskcal's
    get_advantage_from_gdp(1/2) lies 1.7 units in the last place below the truth."""
    return 8 * Fraction(1, 2 ** 52)


def _steps(case: Case) -> Optional[List[Tuple[str, float, float, int]]]:
    """[(family, noise multiplier or Laplace parameter / Delta, q, steps)] per part, or None
    outside add-remove / zero-out and group 1."""
    out = []
    for part in case.parts():
        if part.group != 1 or part.relation not in ("add-remove", "zero-out"):
            return None
        if part.scheme not in ("none", "poisson"):
            return None
        if part.relation == "zero-out" and part.scheme != "none":
            return None
        q = float(part.param("q")) if part.scheme == "poisson" else 1.0
        width = part.param("sigma") if part.family == "gaussian" else \
            part.param("scale") if part.family == "laplace" else None
        if width is None:
            return None
        out.append((part.family, float(width / part.param("sensitivity")), q, part.steps))
    return out


def _expressible(which: str, steps, form: str) -> bool:
    if steps is None:
        return False
    families = {f for f, _, _, _ in steps}
    if which == "pld":
        return families == {"laplace"} and form in ("default", "heterogeneous")
    if families != {"gaussian"}:
        return False
    if which == "dpsgd":
        return form == "default"
    if which == "gdp":
        return all(q == 1.0 for _, _, q, _ in steps) and form in ("default", "heterogeneous")
    return form in ("default", "repeated", "heterogeneous")  # ctd: one step() per step


def _asked(which: str, query: Query) -> Optional[str]:
    """The peer's entry for ``query``: "beta", "advantage", "epsilon", "calibration",
    "errors" (the calibration to error rates), or None."""
    if query.kind == "beta":
        return "beta"
    if query.kind == "sigma" and which == "dpsgd":
        return "calibration"
    if query.kind == "errors" and which == "dpsgd":
        return "errors"
    if query.kind == "delta" and query.at == 0:
        return "advantage"
    if query.kind == "epsilon" and which == "ctd":
        return "epsilon"
    return None


def _prepare(case: Case, which: str):
    steps = _steps(case)
    if not _expressible(which, steps, case.form):
        return None
    run = {"dpsgd": _dpsgd, "ctd": _ctd, "gdp": _gdp, "pld": _pld}[which]

    def answer(query: Query):
        entry = _asked(which, query)
        if entry is None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run(steps, entry, float(query.at))
    return answer


def _dpsgd(steps, entry: str, at: float):
    from riskcal.calibration import dpsgd
    (_, sigma, q, T), = steps
    if entry == "beta":
        return dpsgd.get_beta_for_dpsgd(sigma, q, T, at)
    if entry == "calibration":
        return dpsgd.find_noise_multiplier_for_advantage(at, q, T)
    if entry == "errors":
        return dpsgd.find_noise_multiplier_for_err_rates(float(ERROR_ALPHA), at, q, T)
    return dpsgd.get_advantage_for_dpsgd(sigma, q, T)


def _ctd(steps, entry: str, at: float):
    from riskcal.accountants import CTDAccountant
    acc = CTDAccountant()
    for _, sigma, q, T in steps:
        for _ in range(T):
            acc.step(noise_multiplier=sigma, sample_rate=q)
    if entry == "beta":
        return acc.get_beta(alpha=at)
    if entry == "epsilon":
        return acc.get_epsilon(delta=at)
    return acc.get_advantage()


def _mu(steps) -> float:
    """Delta sqrt(sum_i T_i / sigma_i^2) (sigma_i already divided by Delta)."""
    return math.sqrt(sum(T / sigma ** 2 for _, sigma, _, T in steps))


def _gdp(steps, entry: str, at: float):
    from riskcal import analysis
    if entry == "beta":
        return analysis.get_beta_from_gdp(_mu(steps), at)
    return analysis.get_advantage_from_gdp(_mu(steps))


def _pld(steps, entry: str, at: float):
    from dp_accounting.pld import privacy_loss_distribution as pld_module
    from riskcal import analysis
    pld = None
    for _, b, q, T in steps:
        part = pld_module.from_laplace_mechanism(b, sampling_prob=q).self_compose(T)
        pld = part if pld is None else pld.compose(part)
    if entry == "beta":
        return analysis.get_beta_from_pld(pld, at)
    return analysis.get_advantage_from_pld(pld)


# --- reproducers and coverage (refacct.validation.coverage) -----------------------------

def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of riskcal (and, for ``riskcal.pld``, dp_accounting's PLD module) that
    ask the query as this adapter does."""
    which = accountant.split(".", 1)[1]
    steps = _steps(case)
    entry = _asked(which, query)
    if not _expressible(which, steps, case.form) or entry is None:
        return None
    at = float(query.at)
    return "\n".join(_REPRODUCERS[which](steps, entry, at))


def _dpsgd_lines(steps, entry, at):
    (_, sigma, q, T), = steps
    call = {"beta": f"get_beta_for_dpsgd({sigma!r}, {q!r}, {T}, {at!r})",
            "advantage": f"get_advantage_for_dpsgd({sigma!r}, {q!r}, {T})",
            "calibration": f"find_noise_multiplier_for_advantage({at!r}, {q!r}, {T})",
            "errors": f"find_noise_multiplier_for_err_rates({float(ERROR_ALPHA)!r}, {at!r}, "
                      f"{q!r}, {T})"}[entry]
    return ["from riskcal.calibration import dpsgd", "", f"print(dpsgd.{call})"]


def _ctd_lines(steps, entry, at):
    lines = ["from riskcal.accountants import CTDAccountant", "", "acc = CTDAccountant()"]
    for _, sigma, q, T in steps:
        lines.append(f"for _ in range({T}):")
        lines.append(f"    acc.step(noise_multiplier={sigma!r}, sample_rate={q!r})")
    call = {"beta": f"get_beta(alpha={at!r})", "epsilon": f"get_epsilon(delta={at!r})",
            "advantage": "get_advantage()"}[entry]
    return lines + [f"print(acc.{call})"]


def _gdp_lines(steps, entry, at):
    mu = _mu(steps)
    call = (f"get_beta_from_gdp({mu!r}, {at!r})" if entry == "beta"
            else f"get_advantage_from_gdp({mu!r})")
    return ["from riskcal import analysis", "", f"print(analysis.{call})"]


def _pld_lines(steps, entry, at):
    lines = ["from dp_accounting.pld import privacy_loss_distribution as pld_module",
             "from riskcal import analysis", ""]
    for i, (_, b, q, T) in enumerate(steps):
        lines.append(f"part = pld_module.from_laplace_mechanism({b!r}, sampling_prob={q!r})"
                     f".self_compose({T})")
        lines.append("pld = part" if i == 0 else "pld = pld.compose(part)")
    call = (f"get_beta_from_pld(pld, {at!r})" if entry == "beta"
            else "get_advantage_from_pld(pld)")
    return lines + [f"print(analysis.{call})"]


_REPRODUCERS = {"dpsgd": _dpsgd_lines, "ctd": _ctd_lines, "gdp": _gdp_lines,
                "pld": _pld_lines}

_NOT_A_MECHANISM = ("a conversion of a guarantee, not of a mechanism: no pair of "
                    "distributions to compare against")
VOCABULARY = {
    "function: calibration.dpsgd.get_beta_for_dpsgd": "",
    "function: calibration.dpsgd.get_advantage_for_dpsgd": "",
    "accountant: accountants.CTDAccountant": "",
    "query: CTDAccountant.get_beta": "", "query: CTDAccountant.get_epsilon": "",
    "query: CTDAccountant.get_advantage": "",
    "form: CTDAccountant.step per step": "", "form: CTDAccountant history of several steps": "",
    "function: analysis.get_beta_from_gdp": "", "function: analysis.get_advantage_from_gdp": "",
    "function: analysis.get_beta_from_pld": "", "function: analysis.get_advantage_from_pld": "",
    "mechanism: Poisson-subsampled Gaussian": "", "mechanism: Gaussian (sample_rate = 1)": "",
    "mechanism: Laplace PLD": "", "mechanism: Poisson-subsampled Laplace PLD": "",
    "function: analysis.get_beta_from_adp / get_advantage_from_adp": _NOT_A_MECHANISM,
    "function: analysis.get_beta_from_rdp": _NOT_A_MECHANISM,
    "function: analysis.get_beta_from_zcdp / get_advantage_from_zcdp": _NOT_A_MECHANISM,
    "function: analysis.get_epsilon_from_err_rates": _NOT_A_MECHANISM,
    "function: analysis.get_bayes_risk_from_pld / get_bayes_risk_from_gdp": "the Bayes risk "
    "under a prior: a functional of the curve refacct does not report yet",
    "function: calibration.dpsgd.find_noise_multiplier_for_advantage": "",
    "function: calibration.dpsgd.find_noise_multiplier_for_err_rates": "",
    "function: calibration.blackbox.*": "calibrates another accountant (an Opacus "
    "accountant), judged through that accountant",
}


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    which = accountant.split(".", 1)[1]
    steps = _steps(case)
    entry = _asked(which, query)
    if not _expressible(which, steps, case.form) or entry is None:
        return None
    mechanisms = {("gaussian", True): "mechanism: Gaussian (sample_rate = 1)",
                  ("gaussian", False): "mechanism: Poisson-subsampled Gaussian",
                  ("laplace", True): "mechanism: Laplace PLD",
                  ("laplace", False): "mechanism: Poisson-subsampled Laplace PLD"}
    found = sorted({mechanisms[(f, q == 1.0)] for f, _, q, _ in steps})
    if entry == "calibration":
        return ["function: calibration.dpsgd.find_noise_multiplier_for_advantage"] + found
    if entry == "errors":
        return ["function: calibration.dpsgd.find_noise_multiplier_for_err_rates"] + found
    if which == "ctd":
        form = ("form: CTDAccountant history of several steps" if len(steps) > 1
                else "form: CTDAccountant.step per step")
        return ["accountant: accountants.CTDAccountant", f"query: CTDAccountant.get_{entry}",
                form] + found
    if which == "dpsgd":
        return [f"function: calibration.dpsgd.get_{entry}_for_dpsgd"] + found
    return [f"function: analysis.get_{entry}_from_{which}"] + found
