"""Certified values: H_alpha, delta(eps) and eps(delta) as proven enclosures (Arb balls,
python-flint), for one step and k = 2 of Gaussian / Laplace mixture pairs.

001 Definition 3: H_alpha(P || Q) = integral (p - alpha q)_+; delta(eps) = H_{e^eps};
eps(delta) the smallest eps >= 0 with delta(eps) <= delta.  Where ``refacct.hockey`` reports
verified digits (two independent evaluations agree), this module reports *proven* ones: the
result's ``enclosure`` = (lower, upper) are the exact ends of an Arb ball that contains the
true value, ``value`` its midpoint, ``abs_error`` its radius, ``proven=True``.

* One step (``engines.arb_onestep``): the crossings of p = alpha q are certified
  (../shared/NUMERICS.md, "Counting the crossings": exact signs of the exponential-sum
  coefficients, the generalised Descartes bound and Rolle isolation for Gaussians, one
  closed-form root per piece between locations for Laplace), and H is a sum of Arb tail
  masses.
* k = 2 (``engines.arb_composed``): H = integral p1(y) H_{alpha q1(y)/p1(y)}(P2 || Q2) dy
  (NUMERICS, "Composition") by Arb's rigorous integration on segments where the integrand is
  analytic, the rest bounded explicitly.

Supported: a ``Pair``, a ``Composition`` of at most 2 steps, or a ``PublicMixture`` of
such terms, every factor a Gaussian mixture with one sigma or a Laplace mixture with one
scale; for k = 2 one factor must have closed-form crossings (a Laplace mixture, or Gaussians
at two distinct means at most: shifts, Poisson-subsampled Gaussians).  Precision rises until
the radius meets ``digits`` relative digits, within a fixed budget; after it the wider,
still proven, enclosure is returned.

>>> from refacct import Gaussian, Pair
>>> r = delta(Pair(Gaussian(0, 1), Gaussian(1, 1)), 1, digits=15)
>>> r.proven, r.lower <= r.value <= r.upper, r.verified_digits >= 15
(True, True, True)
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple

from mpmath import mp

from .exact import rational
from .hockey import PairLike, _delta_target, _digits, _mixture
from .pairs import Pair
from .result import DeltaResult, EpsilonResult

try:
    from .engines import arb as _arb
    from .engines.arb import arb, flint
    from .engines.arb_composed import composed_hockey
    from .engines.arb_onestep import CertifiedPair, GaussianPair, certified_pair
    from .engines.expsum import ExactBeta
except ImportError as _missing:  # python-flint not installed: fail on use, not on import
    _MISSING: Optional[ImportError] = _missing
else:
    _MISSING = None

__all__ = ["hockey_stick", "delta", "epsilon", "available"]

MAX_STEPS = 2
BUDGET = 3  # precision passes: target bits + 32, then twice and four times the margin


def available() -> bool:
    """True when python-flint is installed (certified mode can run)."""
    return _MISSING is None


def _require() -> None:
    if _MISSING is not None:
        raise ImportError(str(_MISSING)) from _MISSING


# --- the problem: weighted terms of one or two certified factors -----------------------------

class _Term:
    """One composition term: a single certified pair, or (outer, inner) for k = 2."""

    def __init__(self, weight: Fraction, pairs: Sequence[Pair]) -> None:
        self.weight = weight
        pairs = [p for p in pairs if p.P != p.Q] or list(pairs[:1])  # (P, P) factors: H unchanged
        if len(pairs) > MAX_STEPS:
            raise ValueError(f"certified mode handles one step and k = 2, got k = {len(pairs)} "
                             "(use refacct.delta for verified digits)")
        factors = [certified_pair(p) for p in pairs]
        if len(factors) == 2 and not _closed_form(factors[1]):
            factors.reverse()
        if len(factors) == 2 and not _closed_form(factors[1]):
            raise ValueError("certified k = 2 needs one factor with closed-form crossings (a "
                             "Laplace mixture, or Gaussians at no more than two distinct means)")
        self.factors = factors

    def value(self, beta: "ExactBeta", bits: int) -> "arb":
        """H_beta of the term as a ball (k = 2 aiming at 2^-bits relative)."""
        if len(self.factors) == 1:
            return self.factors[0].hockey(beta)
        outer, inner = self.factors
        return composed_hockey(outer, inner, beta, bits)


def _closed_form(pair: "CertifiedPair") -> bool:
    """Crossings available as analytic functions of beta (``CertifiedPair.inner``)."""
    return not isinstance(pair, GaussianPair) or len(pair.rows) <= 2


def _terms(pair: PairLike) -> List[_Term]:
    pm = _mixture(pair)
    return [_Term(w, comp.pairs()) for w, comp in pm.terms]


def _steps(terms: List[_Term]) -> int:
    return max(len(t.factors) for t in terms)


# --- precision ----------------------------------------------------------------------------------

def _bits(digits: int) -> int:
    return math.ceil(digits * math.log2(10)) + 4


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
        raise ArithmeticError(f"certification failed at every precision: {failure}")
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
    if _steps(terms) == 1:
        how = "one-step crossings certified, Arb tail masses"
    else:
        how = "rigorous integration (acb.integral) of p1 H_beta(P2 || Q2) over certified segments"
    return f"certified (Arb ball arithmetic, python-flint {version}, {bits} bits): {how}"


def _delta_result(terms, beta: "ExactBeta", digits: int, alpha: Optional[Fraction],
                  eps: Optional[Fraction]) -> DeltaResult:
    ball, bits = _refine(_weighted(terms, beta), digits)
    value, radius = _arb.arb_mid_rad(ball)
    return DeltaResult(value, radius, _method(terms, bits), digits, alpha=alpha, eps=eps,
                       enclosure=_arb.arb_ends(ball), proven=True)


# --- public API ------------------------------------------------------------------------------

def hockey_stick(pair: PairLike, alpha: object = None, *, eps: object = None,
                 digits: int = 20) -> DeltaResult:
    """H_alpha(P || Q) = integral (p - alpha q)_+ (001 Definition 3) as a proven enclosure,
    for alpha >= 0 rational or alpha = e^eps (exactly one of the two).

    ``pair``: a continuous ``Pair``, a ``Composition`` of at most two steps or a
    ``PublicMixture`` of such (see the module docstring).  ``ValueError`` names what is not
    supported; ``ImportError`` when python-flint is missing."""
    _require()
    digits = _digits(digits)
    if (alpha is None) == (eps is None):
        raise TypeError("give exactly one of alpha and eps")
    terms = _terms(pair)
    if alpha is not None:
        a = rational(alpha, "alpha")
        if a < 0:
            raise ValueError(f"alpha must be >= 0, got {a}")
        return _delta_result(terms, ExactBeta.rational(a), digits, a, None)
    e = rational(eps, "eps")
    return _delta_result(terms, ExactBeta.exp(e), digits, None, e)


def delta(pair: PairLike, eps, *, digits: int = 20):
    """delta(eps) = H_{e^eps}(P || Q) (001 Sec. 2) as a proven enclosure, for one eps or a
    list of them (then a list of results)."""
    _require()
    digits = _digits(digits)
    terms = _terms(pair)

    def one(e):
        e = rational(e, "eps")
        return _delta_result(terms, ExactBeta.exp(e), digits, None, e)

    return [one(e) for e in eps] if isinstance(eps, (list, tuple)) else one(eps)


def epsilon(pair: PairLike, delta, *, digits: int = 20):
    """eps(delta) = the smallest eps >= 0 with delta(eps) <= delta, as a proven enclosure
    [lo, hi] with delta(lo) > delta >= delta(hi) certified (delta(eps) is non-increasing,
    001 Sec. 2); for one delta in [0, 1] or a list of them."""
    _require()
    digits = _digits(digits)
    terms = _terms(pair)
    if isinstance(delta, (list, tuple)):
        return [_epsilon_one(terms, _delta_target(d), digits) for d in delta]
    return _epsilon_one(terms, _delta_target(delta), digits)


# --- eps(delta) -------------------------------------------------------------------------------

class _Curve:
    """delta(eps) as proven balls, at rational eps and adaptive digits."""

    def __init__(self, terms: List[_Term], target: Fraction) -> None:
        self.terms, self.target = terms, target
        self.calls = 0

    def side(self, eps: Fraction, digits: int) -> Tuple[int, "arb"]:
        """(+1 if delta(eps) > target, -1 if < target, 0 undecided, the ball): raising the
        digits up to ``digits``."""
        t = _arb.to_arb(self.target)
        d = min(6, digits)
        while True:
            self.calls += 1
            ball, _ = _refine(_weighted(self.terms, ExactBeta.exp(eps)), d)
            if ball > t:
                return 1, ball
            if ball < t:
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
    lo, hi = _shrink(curve, lo, hi, digits)
    with mp.workprec(max(64, 4 * _bits(digits))):
        a, b = _fraction_mpf(lo), _fraction_mpf(hi)
    value, radius = (a + b) / 2, (b - a) / 2
    return EpsilonResult(value, radius, method + f" ({curve.calls} evaluations)", digits, target,
                         enclosure=(a, b), proven=True)


def _fraction_mpf(x: Fraction):
    """A dyadic Fraction as an exact mpf."""
    return _arb.arb_mid_rad(_arb.to_arb(x))[0]


def _dyadic(x: "arb") -> Fraction:
    """The exact midpoint of a ball as a Fraction."""
    return rational(_arb.arb_mid_rad(x)[0], "eps")


def _shrink(curve: _Curve, lo: Fraction, hi: Fraction, digits: int) -> Tuple[Fraction, Fraction]:
    """Certified bracket (lo, hi) of eps(delta) narrowed to 10^-digits relative: Illinois
    steps on ln delta from ball midpoints, each new point certified on one side; when a
    point's ball cannot tell, a pair of points a step apart closes the bracket."""
    ln_t = math.log(curve.target) if curve.target > 0 else None
    glo = ghi = None
    for _ in range(200):
        width = hi - lo
        if width <= max(lo, Fraction(1, 10**6)) * Fraction(1, 10**digits) / 4:
            return lo, hi
        x = _proposal(lo, hi, glo, ghi)
        need = _digits_needed(width, lo, digits)
        s, ball = curve.side(x, need)
        g = _log_gap(ball, ln_t)
        if s > 0:
            lo, glo = x, g
            ghi = ghi / 2 if ghi is not None else None
        elif s < 0:
            hi, ghi = x, g
            glo = glo / 2 if glo is not None else None
        else:  # x is within the resolution of the root: certify two points around it
            step = max(x, Fraction(1, 10**6)) * Fraction(1, 10**(digits + 1))
            for y, want in ((x - step, 1), (x + step, -1)):
                if lo < y < hi and curve.side(y, digits + 8)[0] == want:
                    lo, hi = (y, hi) if want > 0 else (lo, y)
            glo = ghi = None
    return lo, hi


def _proposal(lo: Fraction, hi: Fraction, glo, ghi) -> Fraction:
    """Regula falsi on ln delta - ln target when both ends have a value, else the midpoint;
    kept a little inside the bracket; rounded to a short dyadic."""
    x = (lo + hi) / 2
    if glo is not None and ghi is not None and glo > 0 > ghi:
        t = Fraction(glo / (glo - ghi)).limit_denominator(1 << 30)
        t = min(max(t, Fraction(1, 64)), Fraction(63, 64))
        x = lo + t * (hi - lo)
    return _round_dyadic(x, hi - lo)


def _round_dyadic(x: Fraction, width: Fraction) -> Fraction:
    """x rounded to a dyadic with about 8 bits finer than the width."""
    k = max(0, -math.floor(math.log2(width)) + 8)
    return Fraction(round(x * 2**k), 2**k)


def _digits_needed(width: Fraction, lo: Fraction, digits: int) -> int:
    """Digits of delta that can separate points a fraction of the bracket apart."""
    rel = float(width / max(lo, Fraction(1))) if width else 0.0
    need = 6 if rel <= 0 else int(-math.log10(rel)) + 6
    return max(6, min(digits + 8, need))


def _log_gap(ball: "arb", ln_t: Optional[float]) -> Optional[float]:
    """ln(mid delta) - ln target as a float steering value (never used as a bound)."""
    mid, _ = _arb.arb_mid_rad(ball)
    if ln_t is None or mid <= 0:
        return None
    return float(mp.log(mid)) - ln_t


def _epsilon_of_zero(terms: List[_Term], digits: int, method: str) -> EpsilonResult:
    raise ValueError("eps(delta = 0) is not supported in certified mode; "
                     "use refacct.epsilon (it is +inf for Gaussian pairs)")
