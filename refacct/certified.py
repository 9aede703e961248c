"""Certified values: H_alpha, delta(eps) and eps(delta) as proven enclosures (Arb balls,
python-flint), for one step and k = 2 of Gaussian / Laplace mixture pairs, and from k = 3
on for the Laplace shift's self-composition and what the transform takes: the engine
behind the door's ``method="certified"`` (``refacct.engine``).

001 Definition 3: H_alpha(P || Q) = integral (p - alpha q)_+; delta(eps) = H_{e^eps};
eps(delta) the smallest eps >= 0 with delta(eps) <= delta.  Where ``refacct.hockey`` reports
verified digits (two independent evaluations agree), this module reports *proven* ones: the
result's ``enclosure`` = (lower, upper) are the exact ends of an Arb ball that contains the
true value, ``value`` its midpoint, ``abs_error`` its radius, ``proven=True``.

* One step (``engines.certified.arb_onestep``): the crossings of p = alpha q are certified
  (docs/numerics.md, "Counting the crossings": exact signs of the exponential-sum
  coefficients, the generalised Descartes bound and Rolle isolation for Gaussians, one
  closed-form root per piece between locations for Laplace), and H is a sum of Arb tail
  masses.
* k = 2 (``engines.certified.arb_composed``): H = integral p1(y) H_{alpha q1(y)/p1(y)}(P2 || Q2) dy
  (docs/numerics.md, "Composition") by Arb's rigorous integration on segments where the integrand is
  analytic, the rest bounded explicitly.
* k >= 3 of one Laplace shift pair (``engines.quadrature.laplace_shift``): its privacy-loss
  distribution convolved exactly, term by term in Arb (B-splines between the atoms), the
  mass of the terms left out in the radius.
* other k >= 3 (Gaussian shifts, Poisson- and WOR-subsampled Gaussians and Laplaces, in
  any mix): the transform engine (``refacct.transform``), whose enclosures are proofs too
  (aliasing, truncation and inner quadrature bounded in Arb); where its decay bound cannot
  reach the tolerance (few steps of a loss near a lattice) it is out of reach, never an
  estimate.

Supported: a ``Pair``, a ``Composition`` of at most 2 steps (or more, as above), or a
``PublicMixture`` of such terms, every factor a Gaussian mixture with one sigma or a
Laplace mixture with one scale; for k = 2 one factor must have closed-form crossings (a
Laplace mixture, or Gaussians at two distinct means at most: shifts, Poisson-subsampled
Gaussians; or at three equally spaced means whose outer ones belong to one side each:
substitution, a quadratic's root).  Precision rises until
the radius meets ``digits`` relative digits, within a fixed budget; after it the wider,
still proven, enclosure is returned.

>>> import refacct
>>> from refacct import Gaussian, Pair
>>> r = refacct.delta(Pair(Gaussian(0, 1), Gaussian(1, 1)), 1, digits=15, method="certified")
>>> r.proven, r.lower <= r.value <= r.upper, r.verified_digits >= 15
(True, True, True)
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Callable, List, Optional, Tuple

from mpmath import mp

from . import guards
from .engine import Engine, Request
from .exact import to_mpf
from .pairs import Composition, PairLike, as_public_mixture
from .result import DeltaResult, EpsilonResult
from .shifted import shifted_ceiling

from .engines import arb as _arb
from .engines.arb import arb, flint
from .engines.certified.arb_composed import composed_hockey
from .engines.certified.arb_onestep import CertifiedPair, GaussianPair, certified_pair
from .engines.certified.expsum import ExactBeta
from .engines.quadrature.laplace_shift import delta_ball, laplace_shift
from .errors import InputError, OutOfReach
from .transform import TRANSFORM

__all__ = ["Certified", "CertifiedFirst", "CertificationFailed", "CERTIFIED",
           "CERTIFIED_FIRST"]

MAX_STEPS = 2
BUDGET = 3  # precision passes: target bits + 32, then twice and four times the margin


# --- the problem: weighted terms of one or two certified factors -----------------------------

class _LaplaceShifts:
    """k >= 3 steps of one Laplace shift pair (loss ratio e0 = abs(a - a') / b): the exact
    convolution of its privacy-loss distribution as a ball (``engines.quadrature.
    laplace_shift``: B-splines between its atoms, the mass of every term left out in the
    radius), at eps = ln beta exactly when beta = e^eps."""

    def __init__(self, e0: Fraction, steps: int) -> None:
        self.e0, self.steps = e0, steps

    def loss_sup(self) -> "ExactBeta":
        """e^{T e0}: every step's loss is at most e0."""
        return ExactBeta.exp(self.steps * self.e0)

    def hockey(self, beta: "ExactBeta") -> "arb":
        if beta.is_zero():
            return arb(1)
        eps = beta.exponent()
        x = _arb.to_arb(eps) if eps is not None else beta.ball().log()
        return delta_ball(self.e0, self.steps, x, flint.ctx.prec - 16, eps)


class _Term:
    """One composition term: a single certified pair, (outer, inner) for k = 2, or a
    Laplace shift pair's self-composition for k >= 3."""

    def __init__(self, weight: Fraction, comp: Composition) -> None:
        self.weight = weight
        pairs = [p for p in comp.pairs() if p.P != p.Q] or list(comp.pairs()[:1])
        laplace = laplace_shift(comp.factors) if len(pairs) > MAX_STEPS else None
        if laplace is not None:
            self.factors = [_LaplaceShifts(*laplace)]
            return
        if len(pairs) > MAX_STEPS:
            raise InputError(f"certified mode handles one step, k = 2, and from k = 3 on the "
                             f"Laplace shift's self-composition and what the transform takes; "
                             f"got k = {len(pairs)} (use refacct.delta for verified digits)")
        factors = [certified_pair(p) for p in pairs]
        if len(factors) == 2 and _crossing_cost(factors[1]) > _crossing_cost(factors[0]):
            factors.reverse()
        if len(factors) == 2 and _crossing_cost(factors[1]) > 1:
            raise InputError("certified k = 2 needs one factor with closed-form crossings (a "
                             "Laplace mixture, or Gaussians at no more than two distinct means, "
                             "or on a lattice of means in likelihood-ratio order)")
        self.factors = factors

    def value(self, beta: "ExactBeta", bits: int) -> "arb":
        """H_beta of the term as a ball (k = 2 aiming at 2^-bits relative)."""
        if len(self.factors) == 1:
            return self.factors[0].hockey(beta)
        outer, inner = self.factors
        return composed_hockey(outer, inner, beta, bits)


def _crossing_cost(pair: "CertifiedPair") -> int:
    """How the inner factor's crossings are had at each beta of the outer integral: 0 by a
    formula (Laplace mixtures, ``GaussianPair.explicit_crossings``), 1 by Krawczyk's test
    on a lattice of means, 2 not as analytic functions of beta (it cannot be the inner
    factor).  The cheaper goes inside: truncated Poisson under zero-out at k = 2, the
    lattice pair (means -1, 0, 2) outside its two-mean partner, evaluates 15 % fewer
    integrands and runs 19 500 Krawczyk tests where it ran 26 200."""
    if not isinstance(pair, GaussianPair) or pair.explicit_crossings():
        return 0
    return 1 if pair.closed_form_crossings() else 2


def _terms(pair: PairLike) -> List[_Term]:
    pm = as_public_mixture(pair)
    return [_Term(w, comp) for w, comp in pm.terms]


def _by_transform(target) -> bool:
    """k >= 3 that the Arb terms do not take and the transform does (its enclosures are
    proofs: aliasing, truncation and inner quadrature bounded in Arb)."""
    try:
        _terms(target)
    except InputError:
        steps = max(sum(n for _, n in comp.factors)
                    for _, comp in as_public_mixture(target).terms)
        return steps > MAX_STEPS and TRANSFORM.supports(target) is None
    return False


def _steps(terms: List[_Term]) -> int:
    return max(len(t.factors) for t in terms)


# --- precision ----------------------------------------------------------------------------------

class CertificationFailed(ArithmeticError):
    """No precision within the budget decided the enclosure (Arb's rigorous integral or a
    crossing left undecided): nothing is claimed."""


def _bits(digits: int) -> int:
    """Bits for ``digits`` decimal digits, rounded up (log2 10 < 3.3220), plus 4 guard bits."""
    return -(-digits * 33220 // 10000) + 4


def _meets(ball: "arb", digits: int) -> bool:
    """Radius at most 10^-digits of |midpoint| (an exact ball always does)."""
    if ball.rad() == 0:
        return True
    return ball.rad() <= abs(ball.mid()) * arb(10) ** (-digits)


def _refine(evaluate: Callable[[int], "arb"], digits: int) -> Tuple["arb", int]:
    """Evaluate at rising precision until the radius meets ``digits``; (ball, bits).  After
    the budget: the narrowest proven ball."""
    best, failure = None, None
    target = _bits(digits)
    for attempt in range(BUDGET):
        margin = 32 << attempt
        with flint.ctx.workprec(target + margin):
            try:
                ball = evaluate(target + margin // 4)
            except ArithmeticError as exc:  # undecided at this precision: raise it
                failure = exc
                continue
            if best is None or ball.rad() < best.rad():
                best = ball
            if _meets(ball, digits):
                return ball, target + margin
    if best is None:
        raise CertificationFailed(f"certification failed at every precision: {failure}")
    return best, target + (32 << (BUDGET - 1))


def _weighted(terms: List[_Term], beta: "ExactBeta") -> Callable[[int], "arb"]:
    """evaluate(bits) -> sum_r w_r H_beta(term r) as a ball."""
    def evaluate(bits: int) -> "arb":
        total = arb(0)
        for t in terms:
            total += _arb.to_arb(t.weight) * t.value(beta, bits)
        return total
    return evaluate


def _method(terms: List[_Term], bits: int) -> str:
    version = getattr(flint, "__version__", "?")
    if any(isinstance(t.factors[0], _LaplaceShifts) for t in terms):
        how = ("the Laplace shift's privacy-loss distribution convolved exactly (B-splines "
               "between its atoms)")
    elif _steps(terms) == 1:
        how = "one-step crossings certified, Arb tail masses"
    else:
        how = "rigorous integration (acb.integral) of p1 H_beta(P2 || Q2) over certified segments"
    return f"certified (Arb ball arithmetic, python-flint {version}, {bits} bits): {how}"


def _delta_result(terms, beta: "ExactBeta", digits: int, alpha: Optional[Fraction],
                  eps: Optional[Fraction]) -> DeltaResult:
    ball, bits = _refine(_weighted(terms, beta), digits)
    value, radius = _arb.arb_mid_rad(ball)
    with mp.workprec(_bits(digits) + 64):
        guards.check_delta(value, radius, to_mpf(alpha) if alpha is not None
                           else mp.exp(to_mpf(eps)))
    return DeltaResult(value, radius, _method(terms, bits), digits, alpha=alpha, eps=eps,
                       enclosure=_arb.arb_ends(ball), proven=True)


# --- the engine ------------------------------------------------------------------------------

class Certified(Engine):
    """Proven enclosures (module docstring) for the door's ``method="certified"``; the
    refusal names what is not supported."""

    name = "certified"

    def supports(self, target) -> Optional[str]:
        if _by_transform(target):
            return None
        try:
            _terms(target)
        except InputError as exc:
            return str(exc)
        return None

    def ceiling(self, target, request: Request) -> Optional[DeltaResult]:
        """A composition of two pairs, one with a bounded loss: the other's delta at eps
        less that loss's supremum (``refacct.shifted``), by this engine."""
        return shifted_ceiling(target, request, self.answer)

    def answer(self, target, request: Request) -> List:
        if _by_transform(target):
            return [replace(r, method="certified by the " + r.method)
                    for r in TRANSFORM.answer(target, request)]
        terms = _terms(target)
        if request.kind == "epsilon":
            return [_epsilon_one(terms, d, request.digits) for d in request.queries]
        if request.kind == "alpha":
            return [_delta_result(terms, ExactBeta.rational(a), request.digits, a, None)
                    for a in request.queries]
        return [_delta_result(terms, ExactBeta.exp(e), request.digits, None, e)
                for e in request.queries]


class CertifiedFirst(Certified):
    """The certified engine where ``auto`` tries it before the quadrature
    (``routing``: two compositions, where its enclosures take a tenth of the quadrature's
    time): an enclosure short of the digits asked, or a certification that fails, is out
    of its reach (``errors.OutOfReach``), and the route's fallback answers.  It takes
    delta and H_alpha: its eps(delta) searches with many enclosures (0.8 s where the
    quadrature takes 4.3 s for a Poisson-subsampled Gaussian, but 15 s before an
    integral failed for WOR substitution, where the quadrature takes 18 s)."""

    kinds = ("delta", "alpha")

    def answer(self, target, request: Request) -> List:
        try:
            found = super().answer(target, request)
        except CertificationFailed as exc:
            raise OutOfReach(str(exc)) from None
        for r in found:
            if r.verified_digits is not None and r.verified_digits < request.digits:
                raise OutOfReach(f"the certified enclosure has {r.verified_digits} of the "
                                 f"{request.digits} digits asked")
        return found


CERTIFIED = Certified()
CERTIFIED_FIRST = CertifiedFirst()


# --- eps(delta) -------------------------------------------------------------------------------

class _Curve:
    """delta(eps) as proven balls, at rational eps and adaptive digits."""

    def __init__(self, terms: List[_Term], target: Fraction) -> None:
        self.terms, self.target = terms, target
        self.calls = 0

    def side(self, eps: Fraction, digits: int) -> Tuple[int, "arb"]:
        """(+1 if delta(eps) > target, -1 if < target, 0 undecided, the ball): raising the
        digits up to ``digits``."""
        d = min(6, digits)
        while True:
            self.calls += 1
            ball, bits = _refine(_weighted(self.terms, ExactBeta.exp(eps)), d)
            with flint.ctx.workprec(bits + 64):  # the target's ball as fine as delta's
                gap = ball - _arb.to_arb(self.target)
            if gap > 0:
                return 1, ball
            if gap < 0:
                return -1, ball
            if d >= digits:
                return 0, ball
            d = min(digits, 2 * d + 4)


def _epsilon_one(terms: List[_Term], target: Fraction, digits: int) -> EpsilonResult:
    curve = _Curve(terms, target)
    method = "certified (Arb): eps bracketed by proven delta(eps) balls on either side"
    if target == 0:
        return _epsilon_of_zero(terms, digits, method)
    s0, _ = curve.side(Fraction(0), digits + 4)
    if s0 < 0:
        return EpsilonResult(mp.zero, mp.zero, method + "; delta(0) <= delta", digits, target,
                             enclosure=(mp.zero, mp.zero), proven=True)
    lo, hi = Fraction(0), Fraction(1)
    while True:  # delta(eps) -> 0 for continuous pairs, so some hi has delta(hi) < target
        s, _ = curve.side(hi, 6)
        if s < 0:
            break
        if s > 0:
            lo = hi
        hi *= 2
        if hi > 1 << 20:
            raise ArithmeticError(f"no eps with delta(eps) < {target} below 2^20")
    lo, hi = _Bracket(curve, lo, hi, digits).shrink()
    ends = (_arb.dyadic_mpf(lo), _arb.dyadic_mpf(hi))
    value, radius = _arb.dyadic_mpf((lo + hi) / 2), _arb.dyadic_mpf((hi - lo) / 2)
    return EpsilonResult(value, radius, method + f" ({curve.calls} evaluations)", digits,
                         target, enclosure=ends, proven=True)


class _Bracket:
    """A certified bracket lo < eps(delta) <= hi (delta(lo) > delta proven, or lo = 0;
    delta(hi) < delta proven), narrowed by Illinois steps on g = ln delta - ln target from
    the balls' midpoints (steering only, at 30 digits); a point whose ball cannot tell its
    side at full digits is within the resolution of the root, and two certified points a
    relative 10^-(digits+1) either side of it close the bracket."""

    STEPS = 200

    def __init__(self, curve: _Curve, lo: Fraction, hi: Fraction, digits: int) -> None:
        self.curve, self.lo, self.hi, self.digits = curve, lo, hi, digits
        self.glo = self.ghi = None
        self.kept = 0  # +1 / -1: the side that moved last (Illinois)

    def narrow(self) -> bool:
        floor = max(self.lo, Fraction(1, 10**6))
        return self.hi - self.lo <= floor / (4 * 10**self.digits)

    def shrink(self) -> Tuple[Fraction, Fraction]:
        with mp.workdps(30):
            for _ in range(self.STEPS):
                if self.narrow():
                    break
                x = self.proposal()
                s, ball = self.curve.side(x, self.digits_needed())
                if not s:
                    s, ball = self.curve.side(x, self.digits + 8)
                if s:
                    self.record(x, s, self.gap(ball))
                elif not self.close_around(x):
                    break
        return self.lo, self.hi

    def record(self, x: Fraction, side: int, g) -> None:
        if side > 0:
            self.lo, self.glo = x, g
            if self.kept > 0 and self.ghi is not None:
                self.ghi /= 2
        else:
            self.hi, self.ghi = x, g
            if self.kept < 0 and self.glo is not None:
                self.glo /= 2
        self.kept = side

    def close_around(self, x: Fraction) -> bool:
        """Certify points either side of x (undecided: x is as good as the root)."""
        step = _dyadic_below(max(x, Fraction(1, 10**6)) / 10**(self.digits + 1))
        for _ in range(4):
            below, above = x - step, x + step
            if (self.lo < below and self.curve.side(below, self.digits + 8)[0] > 0
                    and above < self.hi and self.curve.side(above, self.digits + 8)[0] < 0):
                self.lo, self.hi = below, above
                return True
            step *= 8
        return False

    def proposal(self) -> Fraction:
        """Regula falsi on g when both ends have a value, else the midpoint; kept inside
        the bracket; rounded to a dyadic with a quarter of the final width as its unit."""
        t = mp.mpf(1) / 2
        if self.glo is not None and self.ghi is not None and self.glo > 0 > self.ghi:
            t = min(max(self.glo / (self.glo - self.ghi), mp.mpf(2) ** -40), 1 - mp.mpf(2) ** -40)
        width = self.hi - self.lo
        unit = _dyadic_below(max(self.lo, Fraction(1, 10**6)) / (16 * 10**self.digits))
        x = self.lo + Fraction(mp.nstr(t, 30)) * width
        x = Fraction(round(x / unit)) * unit
        return x if self.lo < x < self.hi else (self.lo + self.hi) / 2

    def digits_needed(self) -> int:
        """Digits of delta that separate points a fraction of the bracket apart: the
        relative change of delta across the bracket over 64, with a steering slope."""
        slope = mp.one
        if self.glo is not None and self.ghi is not None:
            slope = max(abs(self.glo - self.ghi) / to_mpf(self.hi - self.lo), mp.mpf(10)**-3)
        change = slope * to_mpf(self.hi - self.lo) / 64
        need = int(-mp.log10(change)) + 3 if change < 1 else 3
        return max(6, min(self.digits + 8, need))

    def gap(self, ball: "arb"):
        """ln(mid delta) - ln target (steering), None when the midpoint is not positive."""
        mid = _arb.arb_mid_rad(ball)[0]
        if mid <= 0:
            return None
        return mp.log(mid) - mp.log(to_mpf(self.curve.target))


def _dyadic_below(x: Fraction) -> Fraction:
    """The largest power of 2 not above x > 0."""
    k = x.numerator.bit_length() - x.denominator.bit_length()
    return Fraction(2) ** k if Fraction(2) ** k <= x else Fraction(2) ** (k - 1)


def _epsilon_of_zero(terms: List[_Term], digits: int, method: str) -> EpsilonResult:
    """eps(0) = the largest sup of the privacy loss over the terms (the sum of its
    factors' sups): +inf with a factor whose loss is unbounded (Gaussian shifts)."""
    best = None
    for t in terms:
        sups = [f.loss_sup() for f in t.factors]
        if any(v is None for v in sups):
            return EpsilonResult(mp.inf, mp.zero, method + "; the privacy loss is unbounded",
                                 digits, Fraction(0), enclosure=(mp.inf, mp.inf), proven=True)
        product = sups[0]
        for v in sups[1:]:
            product = product.times(v)
        if best is None or product.compare(best) > 0:
            best = product
    ball, _ = _refine(lambda bits: best.ball().log(), digits)
    value, radius = _arb.arb_mid_rad(ball)
    return EpsilonResult(value, radius, method + "; eps(0) = sup of the privacy loss", digits,
                         Fraction(0), enclosure=_arb.arb_ends(ball), proven=True)
