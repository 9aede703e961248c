"""The standard engines (``method`` "quadrature", and "exact" for discrete pairs):
H_alpha(P || Q), delta(eps) and eps(delta) of one pair, composition or public mixture,
with error bounds.  The door is ``refacct.delta`` / ``epsilon`` / ``hockey_stick``; this
module is the engine behind it (``refacct.engine``).

001 Definition 3: H_alpha(P || Q) = E_Q[(dP/dQ - alpha)_+] = integral (p - alpha q)_+, for
alpha in [0, inf); delta(eps) = H_{e^eps} (Definition 4 for a fixed pair); eps(delta) is the
smallest eps >= 0 with delta(eps) <= delta.

Dispatch (one engine per kind of pair, ``refacct.engines``):
* every factor discrete: exact PLD (``engines.exact.discrete``); rational alpha gives an exact
  ``Fraction``, alpha = e^eps the exact form A - e^eps B, eps(delta) = ln((A - delta) / B);
* one continuous step: closed-form crossings and tail masses (``engines.quadrature.onestep``);
* more continuous steps, mixed products, discrete x continuous: nested quadrature
  (``engines.quadrature.composed``);
a ``PublicMixture`` is the weighted sum of its terms.  Continuous values carry the bound
of ``engines.quadrature.verify.two_evaluations``.

Under a time limit the door makes attempts of rising accuracy; when none has ended,
``known`` gives the enclosure ``guards.enclosure`` knows without the engines (delta and
H_alpha; for eps, none).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import List, Optional, Tuple

import flint
import mpmath
from mpmath import mp

from .engines.quadrature import composed, two_means

from .engines.exact import discrete
from .engines.quadrature.laplace_shift import hockey_laplace, laplace_shift
from .engines.quadrature.shift import hockey_shift, shift_squared
from . import guards, progress
from .engine import Engine, Request
from .engines.quadrature.onestep import onestep, resolution_bits, supports
from .engines.quadrature.verify import two_evaluations
from .exact import MAX_ABS_EPS, rational, reduced, to_mpf
from .pairs import Composition, Pair, PublicMixture, as_public_mixture
from .result import DeltaResult, EpsilonResult, midpoint_radius
from .roots import illinois
from .shifted import shifted_ceiling
from .transform import TRANSFORM
from .errors import InputError

__all__ = ["Standard", "QUADRATURE", "EXACT"]



def _is_discrete(pm: PublicMixture) -> bool:
    return all(p.is_discrete for _, comp in pm.terms for p, _ in comp.factors)


@lru_cache(maxsize=64)
def _pld(pm: PublicMixture) -> discrete.PLD:
    """Exact PLD of an all-discrete public mixture."""
    parts = [
        (w, discrete.compose([(discrete.pld_of_pair(p.P, p.Q), n) for p, n in comp.factors]))
        for w, comp in pm.terms
    ]
    return parts[0][1] if len(parts) == 1 else discrete.mix(parts)


# --- the engine --------------------------------------------------------------------------

class Standard(Engine):
    """The standard engines (module docstring) for one pair, composition or public mixture;
    ``discrete_only``: the method "exact", which refuses a continuous factor.

    >>> from refacct import Discrete, Pair
    >>> P = Discrete({0: "3/4", 1: "1/4"}); Q = Discrete({0: "1/2", 1: "1/2"})
    >>> QUADRATURE.answer(Pair(P, Q) ** 2, Request("alpha", (Fraction(4, 3),)))[0].exact
    Fraction(11, 48)
    """

    def __init__(self, name: str, discrete_only: bool = False) -> None:
        self.name, self.discrete_only = name, discrete_only

    def supports(self, target) -> Optional[str]:
        if self.discrete_only and not _is_discrete(as_public_mixture(target)):
            return ("method 'exact' needs discrete pairs (Discrete, randomized response); "
                    "this one has a continuous factor: use 'quadrature' or 'certified'")
        return None

    def answer(self, target, request: Request) -> List:
        pm = as_public_mixture(target)
        if request.kind == "epsilon":
            return [_epsilon_at(pm, d, request.digits) for d in request.queries]
        return [_delta_at(pm, *_alpha_eps(request.kind, q), request.digits)
                for q in request.queries]

    def label(self, target) -> str:
        """"exact" where every factor is discrete (the exact PLD), else "quadrature"."""
        return "exact" if _is_discrete(as_public_mixture(target)) else "quadrature"

    def staged(self, target, request: Request) -> bool:
        """eps(delta) of a discrete pair is exact and immediate."""
        return not (request.kind == "epsilon" and _is_discrete(as_public_mixture(target)))

    def ceiling(self, target, request: Request):
        """For a composition of two pairs, one with a bounded loss, the other's delta at eps
        less that loss's supremum (``refacct.shifted``, to ``SHIFTED_DIGITS``: fewer steps
        than the term; Gaussian WOR substitution, 3 steps, delta(1): the mixed orders
        j = 1, 2 lie below 0.0421, j = 2's ceiling, and j = 3 is 0.0573).  Else the
        transform's Chernoff ceiling (``Transform.ceiling``: delta_T(eps) <= K(c) M_T(c)
        e^(-c eps) and its eps form, proven) of a continuous composition of at least
        ``CEILING_MIN_STEPS`` steps, whose nested quadrature takes seconds to minutes where
        the ceiling takes tens of milliseconds (the Laplace mechanism under WOR
        substitution, 3 steps, delta(1): the orders j = 0, 1, 2 lie below 8.2e-4, j = 2's
        ceiling, and j = 3 is 1.36e-3, so one of the four terms is computed); None with
        fewer steps (the ceiling's search would cost about what the answer does), for
        discrete pairs (exact and fast) and where the transform has no M."""
        pm = as_public_mixture(target)
        if _is_discrete(pm):
            return None
        shifted = shifted_ceiling(
            target, request.at(request.queries[0], min(request.digits, SHIFTED_DIGITS)),
            self.answer)
        if shifted is not None:
            return shifted
        if max(comp.steps for _, comp in pm.terms) < CEILING_MIN_STEPS:
            return None
        try:
            return TRANSFORM.ceiling(target, request)
        except (ValueError, ArithmeticError):   # no M, or Arb failed: the answer is not
            return None                         # changed, only its cost

    def known(self, target, request: Request) -> Optional[DeltaResult]:
        if request.kind == "epsilon":
            return None
        return _delta_known(as_public_mixture(target),
                            *_alpha_eps(request.kind, request.queries[0]), request.digits)


CEILING_MIN_STEPS = 3
SHIFTED_DIGITS = 8
QUADRATURE = Standard("quadrature")
EXACT = Standard("exact", discrete_only=True)


def _alpha_eps(kind: str, query: Fraction) -> Tuple[Optional[Fraction], Optional[Fraction]]:
    """(alpha, eps) of a query: alpha for "alpha", eps for "delta"."""
    return (query, None) if kind == "alpha" else (None, query)


def _alpha_mpf(alpha_exact: Optional[Fraction], eps: Optional[Fraction]):
    return to_mpf(alpha_exact) if alpha_exact is not None else mp.exp(to_mpf(eps))


def _delta_known(pm: PublicMixture, alpha: Optional[Fraction], eps: Optional[Fraction],
                 digits: int) -> DeltaResult:
    """The enclosure of H_alpha known without the engines (``guards.enclosure``), for a
    time limit that ran out before the engines' first result."""
    alpha_exact = Fraction(1) if eps is not None and eps == 0 else alpha
    bits = int(3.33 * (digits + 10)) + sum(
        resolution_bits(p.P, p.Q) for _, comp in pm.terms for p in comp.pairs()
        if not p.is_discrete)
    with mp.workprec(bits):
        lower, upper = guards.enclosure(pm, _alpha_mpf(alpha_exact, eps))
        value, err = midpoint_radius(lower, upper)
    return DeltaResult(value, err, "range of H_alpha raised by coarse cells' masses "
                       "(guards.enclosure)", digits, alpha=alpha, eps=eps,
                       enclosure=(lower, upper))


def _delta_at(pm: PublicMixture, alpha: Optional[Fraction], eps: Optional[Fraction],
              digits: int) -> DeltaResult:
    if eps is not None and eps == 0:
        alpha_exact = Fraction(1)
    else:
        alpha_exact = alpha
    if _is_discrete(pm):
        return _delta_discrete(pm, alpha, eps, alpha_exact, digits)
    return _delta_continuous(pm, alpha, eps, alpha_exact, digits)


def _delta_discrete(pm, alpha, eps, alpha_exact, digits) -> DeltaResult:
    pld = _pld(pm)
    A, B = pld.exact_form(alpha=alpha_exact) if alpha_exact is not None else pld.exact_form(eps=eps)
    method = f"exact: discrete PLD with {pld.size} atoms"
    if alpha_exact is not None:
        exact = pld.value(alpha_exact)
        if not max(0, 1 - alpha_exact) <= exact <= 1:
            raise ArithmeticError(f"guard failed: the exact H_alpha = {exact} lies outside "
                                  "[max(0, 1 - alpha), 1]; the engine's result is refused")
        with mp.workdps(digits + 10):
            value = to_mpf(exact)
            err = abs(value) * mp.mpf(10) ** (-(digits + 9))
        return DeltaResult(value, err, method, digits, alpha=alpha, eps=eps, exact=exact,
                           exact_form=(A, B))
    value, err = _closed_form(lambda: to_mpf(A) - mp.exp(to_mpf(eps)) * to_mpf(B), digits,
                              scale=A)
    with mp.workdps(digits + 10):
        guards.check_delta(value, err, mp.exp(to_mpf(eps)))
    return DeltaResult(value, err, method + ", A - e^eps B evaluated", digits, alpha=alpha,
                       eps=eps, exact_form=(A, B))


def _closed_form(fn, digits: int, scale: Fraction):
    """Evaluate a closed form that may cancel (|value| << scale): probe the cancellation,
    then two evaluations at precisions covering it."""
    if scale == 0:
        return mp.zero, mp.zero
    extra = 0
    while True:
        with mp.workdps(digits + 10 + extra):
            v = fn()
            lost = 0 if v == 0 else int(mp.log10(abs(to_mpf(scale)) / abs(v))) + 1
        if v != 0 and lost <= extra:
            break
        extra = max(2 * extra, lost, 20)
        if extra > 200000:
            raise ArithmeticError("closed form cancels beyond 200000 digits")

    def compute(rule: int):
        with mp.workdps(mp.dps + extra):
            return fn()

    value, err, _ = two_evaluations(compute, digits)
    return value, err


def _term_value(comp: Composition, alpha, alpha_exact: Optional[Fraction],
                eps: Optional[Fraction], rule: int):
    """(H_alpha of one composition, known bound) at the working precision."""
    pairs = [p for p, _ in comp.factors]
    if all(p.is_discrete for p in pairs):
        pld = _pld(PublicMixture.of(comp))
        A, B = pld.exact_form(alpha=alpha_exact) if alpha_exact is not None else pld.exact_form(eps=eps)
        return to_mpf(A) - alpha * to_mpf(B), mp.zero
    if comp.steps == 1:
        return onestep(pairs[0].P, pairs[0].Q)(alpha, alpha_exact, eps), mp.zero
    mu2 = shift_squared(comp.factors)
    if mu2 is not None:
        return hockey_shift(mu2, alpha, alpha_exact, eps), mp.zero
    laplace = laplace_shift(comp.factors)
    if laplace is not None:
        return hockey_laplace(*laplace, alpha, alpha_exact, eps)
    if two_means.supports(comp.pairs()):
        return two_means.hockey_two_means(comp.pairs(), alpha, alpha_exact, rule)
    return composed.hockey_composed(comp.pairs(), alpha, alpha_exact, rule)


def _method(pm: PublicMixture) -> str:
    names = []
    for _, comp in pm.terms:
        steps = comp.steps
        cont = [(p, n) for p, n in comp.factors if not p.is_discrete]
        dimensions = sum(n for _, n in cont)
        if steps == 1 and cont:
            names.append("closed form: one-step crossings and tail masses")
        elif steps > 1 and shift_squared(comp.factors) is not None:
            names.append("closed form: a product of Gaussian shifts is one Gaussian shift "
                         f"(mu^2 = {shift_squared(comp.factors)}, Balle-Wang)")
        elif steps > 1 and laplace_shift(comp.factors) is not None:
            names.append("closed form: the Laplace mechanism's privacy-loss distribution "
                         "convolved exactly (B-splines between its atoms), Arb balls")
        elif dimensions > 1 and two_means.supports(comp.pairs()):
            names.append(f"nested Gauss-Legendre quadrature in Arb, {dimensions - 1} "
                         "dimension(s), closed-form crossings of two means")
        elif dimensions > 1:
            names.append(f"nested Gauss-Legendre quadrature, {dimensions - 1} dimension(s)")
        elif cont:
            names.append("exact discrete PLD x closed-form continuous step")
        else:
            names.append("exact discrete PLD")
        if any(supports(p.P, p.Q) is None for p, _ in cont):
            names.append("crossings isolated by interval arithmetic (mixed families/scales)")
    names = sorted(set(names))
    return "; ".join(names) + "; error bound from two evaluations (precision, nodes, cuts)"


def _evaluation(pm: PublicMixture, eps, alpha_exact):
    """``compute(rule)`` for ``two_evaluations``: (sum_r w_r H_alpha(term r), known bound) at
    the working precision with quadrature rule ``rule``."""
    def compute(rule: int):
        a = _alpha_mpf(alpha_exact, eps)
        total, known = mp.zero, mp.zero
        for w, comp in pm.terms:
            value, bound = _term_value(comp, a, alpha_exact, eps, rule)
            total += to_mpf(w) * value
            known += to_mpf(w) * bound
        return total, known

    return compute


def _delta_continuous(pm, alpha, eps, alpha_exact, digits) -> DeltaResult:
    value, err, _ = two_evaluations(_evaluation(pm, eps, alpha_exact), digits)
    _guard(pm, alpha_exact, eps, value, err, digits)
    return DeltaResult(value, err, _method(pm), digits, alpha=alpha, eps=eps)


def _guard(pm: PublicMixture, alpha_exact, eps, value, err, digits: int) -> None:
    """``guards.check_delta`` at the precision of the digits (plus the resolution bits of a
    one-step pair, whose cells must be resolved at its locations); for a one-step
    continuous pair (milliseconds) also ``guards.check_symmetry`` against the reverse
    direction H_{1/alpha}(Q || P)."""
    one = None
    if len(pm.terms) == 1 and len(pm.terms[0][1].pairs()) == 1:
        pair = pm.terms[0][1].pairs()[0]
        one = None if pair.is_discrete else (pair.P, pair.Q)
    bits = int(3.33 * (digits + 10)) + (resolution_bits(*one) if one else 0)
    with mp.workprec(bits):
        alpha = _alpha_mpf(alpha_exact, eps)
        guards.check_delta(value, err, alpha, one)
    if one is None or alpha_exact == 0:
        return
    reverse = PublicMixture.of(Pair(one[1], one[0]))
    reverse_exact = None if alpha_exact is None else 1 / alpha_exact
    back, back_err, _ = two_evaluations(
        _evaluation(reverse, None if eps is None else -eps, reverse_exact), digits)
    with mp.workprec(bits):
        guards.check_symmetry(value, err, back, back_err, alpha)


# --- epsilon(delta) ------------------------------------------------------------------------

def _epsilon_at(pm: PublicMixture, target: Fraction, digits: int) -> EpsilonResult:
    """The smallest eps >= 0 with delta(eps) <= target (001 Definition 1 read as a curve);
    +inf when target is below lim delta(eps), the P-mass where q = 0."""
    if _is_discrete(pm):
        return _epsilon_discrete(pm, target, digits)
    return _epsilon_continuous(pm, target, digits)


def _epsilon_discrete(pm, target: Fraction, digits: int) -> EpsilonResult:
    pld = _pld(pm)
    kind, data = pld.epsilon_form(target)
    method = f"exact: discrete PLD with {pld.size} atoms"
    if kind == "zero":
        return EpsilonResult(mp.zero, mp.zero, method, digits, target)
    if kind == "inf":
        return EpsilonResult(mp.inf, mp.zero, method + "; delta below the mass where q = 0",
                             digits, target)
    if kind == "log":
        x = data - 1
        value, err = _closed_form(lambda: mp.log1p(to_mpf(x)), digits, scale=Fraction(1))
        return EpsilonResult(value, err, method + f"; eps = ln({data})", digits, target)
    A, B = data
    x = _log1p_argument(A, B, target)
    value, err = _closed_form(lambda: mp.log1p(to_mpf(x)), digits, scale=Fraction(1))
    return EpsilonResult(value, err, method + "; eps = ln((A - delta) / B)", digits, target,
                         exact_form=(A, B))


def _log1p_argument(A: Fraction, B: Fraction, target: Fraction) -> Fraction:
    """x = (A - delta - B) / B exactly, so that eps = ln((A - delta) / B) = log1p(x): in
    FLINT integers with one gcd (``reduced``), as Python's Fraction arithmetic reduces each
    step by its quadratic gcd (minutes for the million-digit A, B of 10^6 steps)."""
    Z = flint.fmpz
    den = Z(A.denominator) * target.denominator * Z(B.numerator)
    above = (Z(A.numerator) * target.denominator - target.numerator * Z(A.denominator))
    return reduced(int(above * B.denominator - den), int(den))


def _epsilon_continuous(pm: PublicMixture, target: Fraction, digits: int) -> EpsilonResult:
    """Root of delta(eps) = target: bracket, Illinois steps on log delta at 10 digits, then
    at full digits inside that bracket, then a verified bracket [eps - tau, eps + tau] in which the bounds on
    delta(eps -+ tau) straddle the target (delta is non-increasing, 001 Sec. 2)."""
    method = "root of delta(eps) = delta: Illinois on log delta, bracket verified with delta's bounds"

    def d(eps, dig):
        """verified delta(eps) and its bound (for the final bracket)"""
        progress.note(f"verifying delta at eps = {mp.nstr(eps, 12)}")
        r = _delta_continuous(pm, None, rational(eps, "eps"), None, dig)
        return r.value, r.abs_error

    searched = {}

    def search(eps, dig):
        """one evaluation of delta(eps) at dig + 8 digits: locates the root, proves nothing
        (kept: the bracket's ends are asked again by the next stage)"""
        if (eps, dig) not in searched:
            progress.note(f"searching, delta at eps = {mp.nstr(eps, 12)}")
            with mp.workdps(dig + 8):
                searched[eps, dig] = _evaluation(pm, rational(eps, "eps"), None)(0)[0]
        return searched[eps, dig]

    with mp.workdps(digits + 10):
        t = to_mpf(target)
        v0, e0 = d(mp.zero, 10)
        if v0 + e0 <= t:
            return EpsilonResult(mp.zero, mp.zero, method + "; delta(0) <= delta", digits, target)
        limit, top = _tail_of_curve(pm)
        if target < limit:
            return EpsilonResult(mp.inf, mp.zero, method + "; delta below the mass where q = 0",
                                 digits, target)
        if target == limit:
            err = mp.zero if mpmath.isinf(top) else abs(top) * mp.mpf(10) ** (-(digits + 8))
            return EpsilonResult(top, err, method + "; delta(eps) reaches its limit at the "
                                 "largest finite privacy loss", digits, target)
        lo, hi = mp.zero, mp.one
        while True:
            if hi >= top:
                hi = top
                break
            if search(hi, 10) <= t:
                break
            if hi > MAX_ABS_EPS:
                raise InputError(
                    f"eps(delta) at delta = {target} exceeds {MAX_ABS_EPS}, the largest eps "
                    f"refacct handles (delta({MAX_ABS_EPS}) is still above delta)")
            lo, hi = hi, 2 * hi
        coarse = illinois(lambda x: _log_gap(search(x, 10), t), lo, hi, mp.mpf(10) ** -8)
        fine = lambda x: _log_gap(search(x, digits + 3), t)  # noqa: E731
        width = mp.mpf(10) ** -7 * max(1, coarse[1])
        a, b = max(lo, coarse[0] - width), min(hi, coarse[1] + width)
        if not (fine(a) > 0 >= fine(b)):
            a, b = lo, hi
        a, b = illinois(fine, a, b, mp.mpf(10) ** (-(digits + 2)))
        eps = (a + b) / 2
        tau = abs(eps) * mp.mpf(10) ** (-(digits + 1)) + mp.mpf(10) ** (-(digits + 5))
        for _ in range(6):
            below, eb = d(eps - tau, digits + 3)
            above, ea = d(eps + tau, digits + 3)
            if below - eb > t and above + ea < t:
                return EpsilonResult(eps, tau, method, digits, target)
            tau *= 10
    raise ArithmeticError(f"could not bracket eps(delta = {target}) to any accuracy")


def _tail_of_curve(pm: PublicMixture):
    """(lim_{eps->inf} delta(eps), eps from which delta(eps) equals that limit).

    The limit is the P-mass where q = 0: sum_r w_r (1 - prod_i (1 - m_i)), m_i the P-mass
    where q_i = 0 of discrete factor i (continuous factors have q > 0).  Outcomes with all
    ratios finite stop contributing once eps exceeds the sum of the factors' largest finite
    log-ratios (+inf with a Gaussian factor)."""
    limit, top = Fraction(0), mp.ninf
    for w, comp in pm.terms:
        keep, sup = Fraction(1), mp.zero
        for pair, n in comp.factors:
            if pair.is_discrete:
                pld = _pld(PublicMixture.of(pair))
                keep *= (1 - pld.mass_at_infinity()) ** n
                finite = [j for j, (p, q) in enumerate(pld.atoms) if p and q]
                sup += n * max((mp.log(pld.ratio_mpf(j)) for j in finite), default=mp.ninf)
            else:
                sup += n * onestep(pair.P, pair.Q).loss_sup()
        limit += w * (1 - keep)
        top = max(top, sup)
    return limit, max(top, mp.zero)


def _log_gap(value, target):
    return mp.log(value) - mp.log(target) if value > 0 else -mp.inf
