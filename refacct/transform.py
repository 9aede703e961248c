"""The transform engine behind the door's ``method="transform"`` (``refacct.engine``):
delta_T(eps), eps_T(delta) and H_alpha (delta_T at eps = ln alpha, any alpha >= 0) of
many-step compositions as proven enclosures, by inverting
the moment generating function of the privacy loss (``engines.transform``: the trapezoidal
rule on Re z = c with its aliasing, truncation and inner-quadrature errors bounded in Arb).

It takes a pair or composition whose factors are Gaussian and Laplace shifts and
subsampled Gaussians and Laplaces (two mixtures of one family and width on a lattice in
likelihood-ratio order, ``engines.transform.mgf.loss_of``, ``engines.transform.laplace``),
in any mix (noise schedules, sampling rates, mechanisms), and public mixtures of
subsampled Gaussians (``engines.transform.public``), so a catalogue entry's terms under
Poisson, WOR or truncated Poisson sampling or none, add, remove or substitution, groups
included; and the maximum over the T + 1 orders of WOR substitution (``MixedOrders``,
``engines.transform.orders``), labelled by the orders that may attain it.  Its cost grows with the nodes the integrand needs, which fall as T grows (the
modulus of M_T(c + it) = M(c + it)^T decays faster): an engine for many steps; small T is
the quadrature's.

>>> import refacct
>>> from refacct import Gaussian, Pair
>>> r = refacct.delta(Pair(Gaussian(1, 10), Gaussian(0, 10)), 1, steps=10 ** 4,
...                   method="transform")
>>> r.proven, r.verified_digits >= 20
(True, True)
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

from mpmath import mp

from . import guards
from .engine import Engine, Request
from .engines.arb import arb_ends, dyadic_mpf, flint, to_arb
from .engines.transform.chernoff import delta_ceiling, epsilon_ceiling
from .engines.transform.epsilon import epsilon_bracket
from .engines.transform.inversion import Grid, delta_enclosure, on_grid
from .engines.transform.mgf import loss_of
from .engines.transform.orders import attained
from .engines.allocation.moments import epoch_loss
from .errors import InputError
from .maximum import combine
from .mechanisms.catalogue import Allocated
from .mechanisms.relations import MixedOrders
from .exact import to_mpf
from .result import DeltaResult, EpsilonResult, exact_rational, midpoint_radius

__all__ = ["Transform", "TRANSFORM"]

LAST_KEPT = 4   # grids kept as warm starts (the two directions of two entries)

NAME = ("transform (the privacy loss's moment generating function inverted by the "
        "trapezoidal rule, aliasing, truncation and inner quadrature bounded in Arb")


def _how(nodes: Grid) -> str:
    plan = nodes.plan
    return (f"{NAME}: Re z = {float(plan.c):.6g}, {2 * plan.n + 1} nodes at h = "
            f"{float(plan.h):.4g}, {plan.prec} bits)")


# the last grid of each target: a warm start for its next query (any grid of the loss
# gives a proven enclosure; one that is too coarse for the query is not used)
_LAST: Dict[Tuple[object, int], Grid] = {}


def _delta(loss, eps: Fraction, digits: int, hint: Optional[Grid]):
    """(delta_T(eps), its grid): exactly 0 at or beyond the supremum of the loss, else the
    enclosure, on ``hint`` when it is narrow enough there."""
    if _at_or_beyond_sup(loss, eps):
        return _zero(digits, eps=eps), hint
    lo, hi, hint, prec = _ends(loss, eps, digits, hint)
    return _result(lo, hi, hint, prec, digits, eps=eps), hint


def _alpha(loss, alpha: Fraction, digits: int, hint: Optional[Grid]):
    """(H_alpha = delta_T(ln alpha), its grid) for alpha > 0 (001 Definition 4; below 1 the
    eps is negative, which the inversion allows).  delta_T decreases in eps, so between
    dyadic eps_lo <= ln alpha <= eps_hi it lies in [lower end at eps_hi, upper end at
    eps_lo]: the enclosures' widths plus at most e^eps_hi (eps_hi - eps_lo), with
    eps_hi - eps_lo about 2^-(4 digits + 96) (|d delta / d eps| = e^eps Q(L > eps) <= e^eps).
    Both ends come from one grid (the loss at the nodes does not depend on eps).  H_0 = 1
    and H_1 = delta_T(0) are not bracketed."""
    if alpha == 0:
        one = Fraction(1)
        return DeltaResult(mp.one, mp.zero, NAME + ": H_0 = the mass of P, 1)", digits,
                           alpha=alpha, exact=one, enclosure=(mp.one, mp.one),
                           proven=True), hint
    if alpha == 1:
        found, hint = _delta(loss, Fraction(0), digits, hint)
        return replace(found, alpha=alpha), hint
    eps_lo, eps_hi = _log_ends(alpha, digits)
    if _at_or_beyond_sup(loss, eps_lo):
        return _zero(digits, alpha=alpha), hint
    _, hi, hint, prec = _ends(loss, eps_lo, digits + 1, hint)
    lo = mp.zero if _at_or_beyond_sup(loss, eps_hi) else \
        _ends(loss, eps_hi, digits + 1, hint)[0]
    return _result(lo, hi, hint, prec, digits, alpha=alpha), hint


def _log_ends(alpha: Fraction, digits: int) -> Tuple[Fraction, Fraction]:
    """Dyadic rationals eps_lo <= ln alpha <= eps_hi about 2^-(4 digits + 96) apart."""
    with flint.ctx.workprec(4 * digits + 128):
        lo, hi = arb_ends(to_arb(alpha).log())
    return exact_rational(lo), exact_rational(hi)


def _at_or_beyond_sup(loss, eps: Fraction) -> bool:
    """Is eps at or beyond the supremum of a bounded loss (where delta_T(eps) = 0)?"""
    top = loss.sup()
    if top is None:
        return False
    with flint.ctx.workprec(128):
        return bool(top <= to_arb(eps))


def _zero(digits: int, **query) -> DeltaResult:
    return DeltaResult(mp.zero, mp.zero, NAME + ": eps >= sup of the privacy loss)", digits,
                       exact=Fraction(0), enclosure=(mp.zero, mp.zero), proven=True,
                       **query)


def _ends(loss, eps: Fraction, digits: int, hint: Optional[Grid]):
    """(lower, upper, grid, bits): the ends of delta_T(eps)'s enclosure as exact mpf."""
    found = None if hint is None else on_grid(hint, eps)
    if found is None or not found.narrow(digits):
        found, hint = delta_enclosure(loss, eps, digits)
    lo, hi = found.ends()
    with flint.ctx.workprec(found.prec):
        return arb_ends(lo)[0], arb_ends(hi)[1], hint, found.prec


def _result(lo, hi, grid: Grid, prec: int, digits: int, **query) -> DeltaResult:
    """The DeltaResult of the enclosure [lo, hi], checked against H_alpha's range."""
    alpha = query.get("alpha")
    with mp.workprec(prec + 64):
        value, radius = midpoint_radius(lo, hi)
        guards.check_delta(value, radius, mp.exp(to_mpf(query["eps"])) if alpha is None
                           else to_mpf(alpha))
    return DeltaResult(value, radius, _how(grid), digits, enclosure=(lo, hi), proven=True,
                       **query)


def _epsilon(loss, delta: Fraction, digits: int, hint: Optional[Grid]):
    """(eps_T(delta), its grid): the supremum of the loss at delta = 0 (inf when
    unbounded), 0 at delta >= 1, else the bracket."""
    if delta == 0:
        with flint.ctx.workprec(4 * digits + 64):
            top = loss.sup()
            if top is None:
                return EpsilonResult(mp.inf, mp.zero, NAME + "; the privacy loss is "
                                     "unbounded)", digits, delta, enclosure=(mp.inf, mp.inf),
                                     proven=True), hint
            ends = arb_ends(top)
        value, radius = midpoint_radius(*ends)
        return EpsilonResult(value, radius, NAME + "; eps(0) = sup of the privacy loss)",
                             digits, delta, enclosure=ends, proven=True), hint
    if delta >= 1:
        return EpsilonResult(mp.zero, mp.zero, NAME + "; delta >= 1)", digits, delta,
                             enclosure=(mp.zero, mp.zero), proven=True), hint
    near = _next_to_sup(loss, delta, digits)
    if near is not None:
        return near, hint
    lo, hi, hint = epsilon_bracket(loss, delta, digits, hint)
    ends = dyadic_mpf(lo), _at_most_sup(loss, dyadic_mpf(hi))
    value, radius = midpoint_radius(*ends)
    return EpsilonResult(value, radius, _how(hint) + "; eps bracketed by enclosures of "
                         "delta on either side", digits, delta, enclosure=ends,
                         proven=True), hint


def _next_to_sup(loss, delta: Fraction, digits: int) -> Optional[EpsilonResult]:
    """eps_T(delta) in [sup + ln(1 - delta / w), sup] where the loss has an atom of P-mass w
    at its supremum (``top_mass``) and that is at most 10^-digits of sup wide: on {L_T =
    sup} alone delta_T(eps) >= w (1 - e^{eps - sup}) > delta below the lower end, and
    delta_T(sup) = 0.  Deep in a Laplace loss's tail the atom carries delta (Poisson b 1,
    q 1/100, 100 steps: w = 3.7e-74, and eps(1e-100) lies within 3e-27 of sup), where the
    transform's grids resolve little (c far beyond what they steer to)."""
    with flint.ctx.workprec(4 * digits + 128):
        mass = loss.top_mass() if hasattr(loss, "top_mass") else None
        if mass is None:
            return None
        top = loss.sup()
        share = to_arb(delta) / mass.exp()
        if not share < 1:
            return None
        lo, hi = arb_ends(top + (1 - share).log())[0], arb_ends(top)[1]
        if not lo > 0 or hi - lo > hi / mp.mpf(10) ** digits:
            return None
        value, radius = midpoint_radius(lo, hi)
    return EpsilonResult(value, radius, NAME + "; eps within the atom at the supremum of "
                         "the privacy loss: delta_T(eps) >= P(L_T = sup)(1 - e^{eps - sup}))",
                         digits, delta, enclosure=(lo, hi), proven=True)


def _at_most_sup(loss, hi):
    """min(hi, sup of the loss): delta_T(sup) = 0, so eps_T(delta) <= sup for delta > 0 (a
    tail's bracket can end beyond it)."""
    top = loss.sup()
    if top is None:
        return hi
    with flint.ctx.workprec(128):
        return min(hi, arb_ends(top)[1])


class Transform(Engine):
    """Proven enclosures for many steps (module docstring); the refusal names the factor
    it does not take."""

    name = "transform"
    kinds = ("delta", "epsilon", "alpha")

    def supports(self, target) -> Optional[str]:
        if isinstance(target, Allocated):
            return None
        try:
            loss_of(target)
        except InputError as exc:
            return str(exc)
        return None

    def ceiling(self, target, request: Request):
        """The Chernoff ceiling (``engines.transform.chernoff``) of delta_T(eps), of H_alpha
        (delta_T at a dyadic eps <= ln alpha: delta_T decreases in eps) for alpha > 0, or of
        eps_T(delta) for 0 < delta < 1; None elsewhere, for the maximum over orders (its
        own search) and where M_T is not finite."""
        if isinstance(target, (MixedOrders, Allocated)):
            return None
        loss, q = loss_of(target, request.steps), request.queries[0]
        if request.kind == "epsilon":
            top = epsilon_ceiling(loss, q) if 0 < q < 1 else None
            return None if top is None else _ceiling(
                EpsilonResult, top, request.digits, "eps <= (ln K(c) + ln M_T(c) - ln delta) / c",
                delta_target=q)
        if request.kind == "alpha" and q == 0:
            return None
        eps = _log_ends(q, request.digits)[0] if request.kind == "alpha" else q
        top = delta_ceiling(loss, eps)
        return None if top is None else _ceiling(
            DeltaResult, top, request.digits, "delta <= K(c) M_T(c) e^(-c eps)",
            **({"alpha": q} if request.kind == "alpha" else {"eps": q}))

    def answer(self, target, request: Request) -> List:
        """``target`` composed ``request.steps`` times (a public mixture's T-fold
        composition is never built: ``engines.transform.public``; a random-allocation
        entry's epochs are ``request.steps``, each order composed on its own, the larger
        taken)."""
        if isinstance(target, Allocated):
            orders = [(label, epoch_loss(target.sigma, target.steps, not swap, request.steps))
                      for label, swap in target.orders]
            return [combine(request.kind, [
                (label, _query(loss, (target, request.steps, label), request, q)[0])
                for label, loss in orders], "tight") for q in request.queries]
        loss, key = loss_of(target, request.steps), (target, request.steps)
        results = []
        for q in request.queries:
            found, grid = _query(loss, key, request, q)
            if isinstance(target, MixedOrders):
                found = _maximum(target, loss, request, found, grid)
            results.append(found)
        return results


def _query(loss, key, request: Request, q):
    """(the answer to one query on ``loss``, its grid), the last grid of ``key`` its warm
    start."""
    one = {"delta": _delta, "epsilon": _epsilon, "alpha": _alpha}[request.kind]
    found, grid = one(loss, q, request.digits, _LAST.pop(key, None))
    if grid is not None:
        _LAST[key] = grid
    while len(_LAST) > LAST_KEPT:
        _LAST.pop(next(iter(_LAST)))
    return found, grid


def _ceiling(cls, top, digits: int, bound: str, **query):
    """A result enclosing [0, top] (``Transform.ceiling``), ``bound`` its formula."""
    with flint.ctx.workprec(128):
        upper = arb_ends(top)[1]
    value, radius = midpoint_radius(mp.zero, upper)
    return cls(value, radius, f"Chernoff bound {bound} at one c > 0 "
               f"(engines.transform.chernoff)", digits, enclosure=(mp.zero, upper),
               proven=True, **query)


def _maximum(target: MixedOrders, loss, request: Request, found, grid):
    """The result over the mixed orders as a catalogue entry's maximum (``refacct.maximum``),
    labelled by the j (steps of A || B) that may attain it: at eps, at ln alpha, or at the
    upper end of the eps bracket (H_0 = 1 for every j)."""
    runs = [(0, request.steps)]
    if grid is not None and found.value != 0 and getattr(found, "alpha", None) != 0:
        if request.kind == "delta":
            at = found.eps
        elif request.kind == "alpha":
            at = _log_ends(found.alpha, request.digits)[0]
        else:
            at = exact_rational(found.upper)
        runs = attained(loss, grid, at, on_grid(grid, at))
    label = ", ".join(f"j={a}" if a == b else f"j={a}..{b}" for a, b in runs)
    return combine(request.kind, [(label, found)], target.bound)


TRANSFORM = Transform()
