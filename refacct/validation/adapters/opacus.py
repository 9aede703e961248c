"""Adapter for Meta's ``opacus`` accountants (``opacus.accountants``; Opacus needs PyTorch).

Opacus accounts for one mechanism, the Poisson-subsampled Gaussian of DP-SGD under
add-remove: each accountant is given ``history = [(noise_multiplier, sample_rate,
num_steps)]`` and answers ``get_epsilon(delta)``.  Cases map to one history entry:

    gaussian, poisson(q), k steps    (sigma / Delta, q, k)
    gaussian, none, k steps          (sigma / Delta, 1, k): q = 1, the unsampled Gaussian
    gaussian, deterministic          (sigma / Delta, 1, 1): one Gaussian step (002 Prop. 3.1;
                                     zero-out gives the same pair as add-remove)

under add-remove (zero-out for deterministic batching); group privacy, Laplace, RR, other
samplings and relations are not expressible.  Composition forms: the default sets the
history; "repeated" calls ``step(noise_multiplier=, sample_rate=)`` once per step (Opacus
merges equal steps into one history entry); a heterogeneous case sets one history entry per
part.  A count argument and lists of events have no counterpart.  Accountants, all judged as upper bounds:

``opacus.rdp``  ``RDPAccountant.get_epsilon(delta)`` over its default orders
                (``RDPAccountant.DEFAULT_ALPHAS``: 1.1 .. 10.9 by 0.1, then 12 .. 63).
``opacus.prv``  ``PRVAccountant.get_epsilon(delta, eps_error=, delta_error=)``: the upper
                end of Gopi et al.'s error interval.
``opacus.gdp``  ``GaussianAccountant.get_epsilon(delta)`` (``poisson=True``): the CLT
                approximation mu = q sqrt(k (e^{1/s^2} - 1)) of Bu et al., which Opacus warns
                "can underestimate privacy expenditure"; its delta(eps) queries use the same
                mu through ``opacus.accountants.analysis.gdp.delta_eps_mu`` (the dual that
                ``get_epsilon`` inverts).

Only ``opacus.gdp`` answers delta(eps): Opacus has no public delta API for RDP or PRV.
Knobs (PRV): ``eps_error`` (default 0.01) and ``delta_error_relative`` (delta_error = this
times the queried delta, default 1e-3: Opacus's own default delta / 1000).  Parameters reach
the peer as floats.  Warnings raised while the peer answers are silenced (Opacus's
``UserWarning``s: GDP "can underestimate", the optimal RDP order is the largest one; numpy's
divide-by-zero at log(1 - q) when q = 1): the verdicts say what they would.  Exercised with
opacus 1.6.0 on torch 2.13.0 (CPU build).
"""
from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple

from ...accountants.vocabulary import opacus_history_of
from ..cases import Case, Query
from . import Accountant, fft_noise_floor, Peer

__all__ = ["PEER", "accountants", "history_of", "histories_of", "features", "reproducer",
           "KNOBS", "VOCABULARY"]

KNOBS = {"eps_error": 0.01, "delta_error_relative": 1e-3}


PEER = Peer(package="opacus", distribution="opacus",
            install="pip install 'refacct[more-peers]' (after PyTorch)", knobs=KNOBS)


def accountants(knobs: Dict[str, float]) -> List[Accountant]:
    """``opacus.rdp``, ``opacus.prv`` (with ``knobs``) and ``opacus.gdp``."""
    return [Accountant("opacus.rdp", "upper", lambda case: _prepare(case, "rdp", {})),
            Accountant("opacus.prv", "upper", lambda case: _prepare(case, "prv", knobs), knobs,
                       fft_noise_floor),
            Accountant("opacus.gdp", "upper", lambda case: _prepare(case, "gdp", {}))]


def history_of(case: Case) -> Optional[Tuple[float, float, int]]:
    """Opacus's (noise_multiplier, sample_rate, num_steps) for ``case``, or None
    (``refacct.accountants.vocabulary.opacus_history_of``, which OpacusAccountant reads
    back)."""
    return opacus_history_of(case)


def histories_of(case: Case) -> Optional[List[Tuple[float, float, int]]]:
    """One history entry per part of ``case`` in a form Opacus has, or None."""
    if case.form not in ("default", "repeated", "heterogeneous"):
        return None
    found = [history_of(part) for part in case.parts()]
    return None if any(h is None for h in found) else found


def _prepare(case: Case, which: str, knobs):
    history = histories_of(case)
    if history is None or (which == "gdp" and len(history) > 1):
        return None  # GDP's mu is for one (sigma, q): Opacus's GaussianAccountant keeps one

    def answer(query: Query):
        at = float(query.at)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if query.kind == "epsilon":
                return _epsilon(which, case.form, history, at, knobs)
            if query.kind == "delta" and which == "gdp":
                return _gdp_delta(history[0], at)
        return None
    return answer


def _epsilon(which: str, form: str, history, delta: float, knobs) -> float:
    from opacus.accountants import create_accountant
    acc = create_accountant(mechanism=which)
    if form == "repeated":
        for noise, rate, steps in history:
            for _ in range(steps):
                acc.step(noise_multiplier=noise, sample_rate=rate)
    else:
        acc.history = list(history)
    if which == "prv":
        return acc.get_epsilon(delta, eps_error=knobs["eps_error"],
                               delta_error=knobs["delta_error_relative"] * delta)
    return acc.get_epsilon(delta)


def _gdp_delta(history, eps: float) -> float:
    """delta(eps) of mu-GDP with the mu that ``GaussianAccountant`` uses (Poisson)."""
    from opacus.accountants.analysis import gdp
    noise, rate, steps = history
    mu = gdp.compute_mu_poisson(steps=steps, noise_multiplier=noise, sample_rate=rate)
    return gdp.delta_eps_mu(eps=eps, mu=mu)


# --- coverage (refacct.validation.coverage) ----------------------------------------------

VOCABULARY = {
    "accountant: RDPAccountant": "", "accountant: PRVAccountant": "",
    "accountant: GaussianAccountant": "",
    "query: get_epsilon": "", "query: gdp.delta_eps_mu (GDP's delta)": "",
    "form: history": "", "form: step() per step": "", "form: several history entries": "",
    "sampling: Poisson (sample_rate < 1)": "", "sampling: none (sample_rate = 1)": "",
    "query: get_privacy_spent": "RDPAccountant's (eps, best order): the same eps as "
    "get_epsilon",
    "accountant: GaussianAccountant with poisson=False": "the CLT for sampling without "
    "replacement (Bu et al.): an approximation for which refacct has no matching entry",
    "sampling: uniform without replacement": "Opacus accounts for Poisson sampling only",
}
_FORMS = {"default": "form: history", "repeated": "form: step() per step",
          "heterogeneous": "form: several history entries"}
_NAMES = {"rdp": "RDPAccountant", "prv": "PRVAccountant", "gdp": "GaussianAccountant"}


def reproducer(accountant: str, case: Case, query: Query) -> Optional[str]:
    """A few lines of Opacus alone that ask the query as this adapter does."""
    if features(accountant, case, query) is None:
        return None
    which, history, at = accountant.split(".")[1], histories_of(case), float(query.at)
    if query.kind == "delta":
        noise, rate, steps = history[0]
        return "\n".join(["from opacus.accountants.analysis import gdp", "",
                          f"mu = gdp.compute_mu_poisson(steps={steps}, noise_multiplier={noise!r}, "
                          f"sample_rate={rate!r})", f"print(gdp.delta_eps_mu(eps={at!r}, mu=mu))"])
    lines = ["from opacus.accountants import create_accountant", "",
             f"acc = create_accountant(mechanism={which!r})"]
    if case.form == "repeated":
        lines += [f"for _ in range({steps}):\n    acc.step(noise_multiplier={noise!r}, "
                  f"sample_rate={rate!r})" for noise, rate, steps in history]
    else:
        lines.append(f"acc.history = {list(history)!r}")
    extra = (f", eps_error={KNOBS['eps_error']!r}, "
             f"delta_error={KNOBS['delta_error_relative'] * at!r}" if which == "prv" else "")
    return "\n".join(lines + [f"print(acc.get_epsilon({at!r}{extra}))"])


def features(accountant: str, case: Case, query: Query) -> Optional[List[str]]:
    """The ``VOCABULARY`` entries this query exercises, or None when not asked."""
    which = accountant.split(".")[1]
    history = histories_of(case)
    if history is None or (which == "gdp" and len(history) > 1) \
            or query.kind not in ("delta", "epsilon") \
            or (query.kind == "delta" and which != "gdp"):
        return None
    entry = "get_epsilon" if query.kind == "epsilon" else "gdp.delta_eps_mu (GDP's delta)"
    return ([f"accountant: {_NAMES[which]}", f"query: {entry}", _FORMS[case.form]]
            + ["sampling: none (sample_rate = 1)" if rate == 1 else
               "sampling: Poisson (sample_rate < 1)" for _, rate, _ in history])
