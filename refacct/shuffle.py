"""Shuffling (ABLQ_S): the E_C lower bound of 002 eq. (7) maximised over continuous C, and
H_{e^eps}(P_S || Q_S) itself for T = steps <= 3 (002, Sec. 3-4.3, App. A).

**The pair** (002 Sec. 3, eqs. (1)-(2)).  For the datasets x = (-1, ..., -1, 1) and
x' = (-1, ..., -1, ⊥) and the query psi_t(x) = x, ABLQ_S outputs (after a shift by b 1)

    P_S = (1/T) sum_t N(2 e_t, sigma^2 I_T),     Q_S = (1/T) sum_t N(e_t, sigma^2 I_T),

so delta_S(eps) >= H_{e^eps}(P_S || Q_S); equality is 002 Conjecture 3.2 (unproven).

**The E_C bound** (002 Sec. 4.3, eq. (7)).  For E_C = {w : max_t w_t >= C} and t_k the upper
tail Phi-bar((C - k) / sigma), G = Phi(C / sigma)^(T - 1):

    E(C) = P_S(E_C) - e^eps Q_S(E_C) = 1 - e^eps + G (e^eps Phi((C-1)/sigma) - Phi((C-2)/sigma))
         = G (t_2 - e^eps t_1) - (e^eps - 1)(1 - G)      (tail form, used here),

a lower bound on H_{e^eps}(P_S || Q_S) <= delta_S(eps) for *every* C.  The paper maximises
over a grid C in {0, 0.01, ..., 100}; here C ranges over the reals.

**Shape of E(C)** (derived here; eps >= 0, T >= 2).  With c_k = (C - k) / sigma,
D = e^eps Phi(c_1) - Phi(c_2) > 0 and N = phi(c_2) - e^eps phi(c_1),

    E'(C) = Phi(c_0)^(T-2) [(T - 1) phi(c_0) D - Phi(c_0) N] / sigma.

N < 0 for C < C_D = 3/2 + sigma^2 eps (where phi(c_2) / phi(c_1) = e^((2C-3)/(2 sigma^2))
equals e^eps), so E increases on (-inf, C_D].  For C > C_D, E' > 0 iff
R(C) = Phi(c_0) N / (phi(c_0) D) < T - 1, and

    ln R = eps + (2C - 1)/(2 sigma^2) + ln expm1((2C - 3)/(2 sigma^2) - eps) + ln Phi(c_0) - ln D

is strictly increasing with (ln R)' > 2 / sigma^2: (ln N)' > (2 - C)/sigma^2,
(ln Phi(c_0)/phi(c_0))' > C/sigma^2 and -(ln D)' = N/(sigma D) > 0.  R runs from 0 at C_D+ to
infinity, so E is unimodal with exactly one maximiser C* > C_D, the root of
g(C) = ln R(C) - ln(T - 1); and the slope bound brackets it from any one point c:
C* lies between c and c - (sigma^2 / 2) g(c).  For T = 1, C* = C_D and E(C*) is the
Balle-Wang delta of N(2, sigma^2) vs N(1, sigma^2) (002 Prop. 3.1).  E(C*) > 0 always (E
decreases to its limit 0 beyond C*).  C* is found by Illinois steps on ln(C - C_D) in
that bracket (g ~ ln(C - C_D) near C_D; for small sigma C* - C_D can be below e^-400); the
value reported is E at the returned rational C, verified by two evaluations (erfc tails at
one precision, incomplete-gamma tails and a rearranged formula at another), so it is a
rigorous lower bound whether or not C is the exact argmax; ``max_gap`` bounds how far the
true maximum over C can lie above it (from ln(E + e^eps - 1)' =
(T - 1)(phi/Phi)(c_0)(1 - e^g) / sigma on the bracket).  Cost does not depend on T.

**H(P_S || Q_S) itself** (T <= 3).  Write w = s 1/sqrt(T) + d with d orthogonal to 1.
Every e_t has the same component 1/sqrt(T) along 1, so both mixtures factor:
P_S = N(2 mu, sigma^2) x p_perp, Q_S = N(mu, sigma^2) x q_perp with mu = 1/sqrt(T),
p_perp = (1/T) sum_t N(2 v_t, sigma^2 I), q_perp = (1/T) sum_t N(v_t, sigma^2 I) on the
hyperplane, v_t = e_t - 1/T, |v_t|^2 = 1 - 1/T.  For fixed d the region {p > e^eps q} is the
half-line s > sigma^2 ln(beta)/mu + 3 mu/2 with beta = e^eps q_perp(d) / p_perp(d), so

    H = integral over d of  p_perp(d) Phi-bar(z - h) - e^eps q_perp(d) Phi-bar(z + h),
        z = sigma ln(beta) / mu, h = mu / (2 sigma)

(the one-step Balle-Wang formula inside), an integral of an analytic function over
R^(T-1): a point for T = 1, 2 x [0, R] for T = 2 (symmetric in d), and for T = 3 six copies
of the wedge 0 <= theta <= pi/3 in polar coordinates (p_perp and q_perp are invariant under
the permutations of coordinates, which act on the plane as the dihedral group of order 6).
The dropped mass beyond radius R is bounded by the chi tail of N(2 v_t, sigma^2 I); two
Gauss-Legendre evaluations differ in precision, radius and cuts.  (In the original
coordinates the region p <= e^eps q is the ball sum_t (z_t - m)^2 <= T m^2 in
z_t = e^(w_t / sigma^2), m = e^eps e^(3 / (2 sigma^2)) / 2, whose boundary makes the
integrand non-analytic there; tests/test_shuffle.py integrates that way as its oracle.)
H(Q_S || P_S) swaps p_perp and q_perp (the mirror s -> 3 mu - s maps N(mu) to N(2 mu)).

**Against the paper's printed numbers** (tests/test_shuffle.py has each one).  Reproduced
as lower bounds: delta_S(4) >= 0.226 at sigma = 0.4, T = 10^4 (Sec. 4.3; ours 0.2260556367
at C* = 2.17871), delta_S(4) >= 4.38e-7 at sigma = 1, T = 1000 (App. A.2; ours 4.38070e-7),
eps_S(1e-6) >= 14.45 at sigma = 0.4, T = 10^5 (Sec. 1.1; ours 14.4507009), eps_S(1e-6) >=
10.994 at sigma = 0.5, T = 10^4 and eps_S(1e-5) >= 6.528 at sigma = 0.7, T = 1000 (App. A.1;
ours 10.9947880, 6.5286129).  Rounded up by the paper: "delta_S(12) >= 7.5e-5" (Sec. 4.3):
the maximum of eq. (7) over all real C is 7.4733794548e-5 at C* = 3.42002, below 7.5e-5;
the paper's own grid point C = 3.42 gives 7.47338e-5 too, so the printed figure is 7.47e-5
rounded to two digits, not an effect of the grid or of floating point.  Likewise App. A.2
"0.018" (ours 0.0179480) and "1.6e-4" (ours 1.59581e-4) at sigma = 0.8, T = 1000.  Not
reproduced: App. A.2 "delta_S(1) >= 0.004" at sigma = 1, T = 1000, where eq. (7) gives
9.9874e-4 (the paper's grid, too); the cause is not identified (eq. (7) at eps = 1/2 gives
0.00433).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Optional

import mpmath
from mpmath import mp

from . import guards
from .distributions import erfc
from .engine import Engine, Request
from .engines.quadrature.verify import two_evaluations
from .exact import digits_parameter, eps_parameter, positive, probability, rational, to_mpf
from .roots import illinois
from .maximum import MechanismDelta, maximum
from .mechanisms.catalogue import Shuffled
from .result import DeltaResult, EpsilonResult
from .errors import InputError, InputTypeError

__all__ = ["ShuffleResult", "ShuffleEpsilonResult", "shuffle_event_bound",
           "shuffle_lower_bound", "shuffle_lower_bound_epsilon", "shuffle_exact",
           "shuffle_both_orders", "Shuffle", "SHUFFLE", "SHUFFLE_EXACT"]

EXACT_MAX_STEPS = 3  # shuffle_exact integrates over R^(T-1)

_PAPER = "002 (002)"


@dataclass(frozen=True, repr=False)
class ShuffleResult(DeltaResult):
    """A delta for ABLQ_S's pair (P_S, Q_S) of 002 eqs. (1)-(2) with its error bound.

    ``bound`` is ``"lower"`` for E(C) of eq. (7) (below H(P_S || Q_S)) and for
    H(P_S || Q_S) itself at T >= 2: exact for the pair the paper defines (realised by the
    datasets of 002 Sec. 3), a lower bound on delta_S(eps) over all query methods, equal to
    it under 002 Conjecture 3.2 (not proven, so not labelled tight); ``"tight"`` at T = 1.  For eq. (7), ``C`` is the rational at which
    E(C) was evaluated, ``C_error`` bounds abs(C - C*) for the exact maximiser C*, and ``max_gap``
    bounds max_C E(C) - E(``C``) (0 when not a maximisation)."""

    sigma: Fraction = Fraction(1)
    steps: int = 1
    bound: str = field(default="lower", kw_only=True)
    C: Optional[Fraction] = None
    C_error: Optional[mpmath.mpf] = None
    max_gap: Optional[mpmath.mpf] = None


@dataclass(frozen=True, repr=False)
class ShuffleEpsilonResult(EpsilonResult):
    """The eps at which max_C E(C) of 002 eq. (7) equals ``delta_target``: eps_S(delta) is
    at least ``value - abs_error`` (``bound = "lower"``); +inf for delta = 0."""

    sigma: Fraction = Fraction(1)
    steps: int = 1
    bound: str = field(default="lower", kw_only=True)


# --- parameters --------------------------------------------------------------------------

def _guard(value, err, eps: Fraction, digits: int, event: Optional[str] = None) -> None:
    """``guards.check_delta`` of H_{e^eps} (the pair itself), or for an event's
    P(E) - e^eps Q(E) (``event`` names it; a lower bound) the range [-e^eps, 1] it always
    lies in."""
    with mp.workdps(digits + 10):
        alpha = mp.exp(to_mpf(eps))
        if event is None:
            guards.check_delta(value, err, alpha)
        else:
            guards.check_range(value, err, -alpha, mp.one, alpha, event, "[-alpha, 1]")


def _steps(steps: object) -> int:
    """``steps`` as a positive int (int, integral Fraction or string such as "10000")."""
    value = rational(steps, "steps")
    if value.denominator != 1 or value < 1:
        raise InputError(f"steps must be an integer >= 1, got {value}")
    return int(value)


def _eps_nonnegative(eps: object) -> Fraction:
    """``eps`` as a Fraction >= 0 (the shape of E(C) is derived for e^eps >= 1)."""
    value = eps_parameter(eps)
    if value < 0:
        raise InputError(f"eps must be >= 0 for the E_C bound of 002 eq. (7), got {value}")
    return value


# --- E(C) of eq. (7) ---------------------------------------------------------------------

def _erfc_tail(x):
    """Phi-bar(x) = erfc(x / sqrt 2) / 2."""
    return erfc(x / mp.sqrt(2)) / 2


def _gamma_tail(x):
    """Phi-bar(x) = Gamma(1/2, x^2 / 2) / (2 sqrt pi) for x >= 0, 1 - Phi-bar(-x) below."""
    upper = mp.gammainc(mp.mpf(1) / 2, x * x / 2) / (2 * mp.sqrt(mp.pi))
    return upper if x >= 0 else 1 - upper


def _event_rule0(C, s, T: int, eps):
    """E(C) = G (t_2 - e^eps t_1) + (e^eps - 1) expm1(ln G), ln G = (T-1) log1p(-t_0)."""
    t0, t1, t2 = (_erfc_tail((C - k) / s) for k in range(3))
    a = mp.exp(eps)
    log_g = (T - 1) * mp.log1p(-t0)
    return mp.exp(log_g) * (t2 - a * t1) + (a - 1) * mp.expm1(log_g)


def _event_rule1(C, s, T: int, eps):
    """E(C) = (t_2 - e^eps t_1) - (1 - G) (e^eps Phi(c_1) - Phi(c_2)), tails from Gamma."""
    t0, t1, t2 = (_gamma_tail((C - k) / s) for k in range(3))
    a = mp.exp(eps)
    one_minus_g = -mp.expm1((T - 1) * mp.log1p(-t0))
    return (t2 - a * t1) - one_minus_g * (mp.expm1(eps) + t2 - a * t1)


_EVENT_RULES = (_event_rule0, _event_rule1)


def _event_value(s: Fraction, T: int, eps: Fraction, C: Fraction, digits: int):
    """(E(C), bound) from two evaluations (different formulas, tails and precisions)."""
    def compute(rule: int):
        return _EVENT_RULES[rule](to_mpf(C), to_mpf(s), T, to_mpf(eps))

    value, err, _ = two_evaluations(compute, digits)
    return value, err


# --- the maximiser C* ----------------------------------------------------------------------

def _log_ratio_gap(x, s, T: int, eps):
    """g(C) = ln R(C) - ln(T - 1) at C = C_D + x, x > 0 (module docstring): E'(C) has the
    sign of -g.  expm1's argument (2C - 3)/(2 sigma^2) - eps = x / sigma^2 is taken from x,
    so g keeps its digits however close C is to C_D."""
    C = mp.mpf(3) / 2 + s**2 * eps + x
    t0, t1, t2 = (_erfc_tail((C - k) / s) for k in range(3))
    d = mp.expm1(eps) + t2 - mp.exp(eps) * t1
    return (eps + (2 * C - 1) / (2 * s**2) + mp.log(mp.expm1(x / s**2)) + mp.log1p(-t0)
            - mp.log(d) - mp.log(T - 1))


def _argmax_offsets(s, T: int, eps, tol):
    """(x_lo, x_hi) with g < 0 at C_D + x_lo and g > 0 at C_D + x_hi, so C* - C_D lies
    between them, x_hi - x_lo <= 3 tol max(1, |ln x_hi|) x_hi; T >= 2.  Near C_D,
    g ~ ln x + const (small sigma puts C* within e^-400 of C_D), so the root is sought in
    ln x: start at x = sigma^2, shrink until g < 0, bound above by the slope bound
    x - (sigma^2 / 2) g(x), Illinois on ln x, pad by tol and check the signs."""
    g = lambda x: _log_ratio_gap(x, s, T, eps)  # noqa: E731
    x = s**2
    while (v := g(x)) >= 0:
        x = min(x / 4, x * mp.exp(-v - 1))
    lo, hi = illinois(lambda y: -g(mp.exp(y)), mp.log(x), mp.log(x - s**2 / 2 * v), tol)
    pad = tol * max(1, abs(hi))
    x_lo, x_hi = mp.exp(lo - pad), mp.exp(hi + pad)
    if not g(x_lo) < 0 < g(x_hi):
        raise ArithmeticError("the bracket of the maximiser of E(C) did not verify")
    return x_lo, x_hi


def _max_gap(s, T: int, eps, a, b):
    """Bound on E(C*) - E(C) for C, C* in [C_D + a, C_D + b] (0 <= a < b): E + e^eps - 1 =
    e^F with e^F <= e^eps and F' = (T - 1)(phi/Phi)(C/sigma)(1 - e^g)/sigma, phi/Phi
    decreasing, g increasing (-inf at C_D)."""
    c0 = (mp.mpf(3) / 2 + s**2 * eps + a) / s
    mills = mp.npdf(c0) / mp.ncdf(c0)
    below = -mp.expm1(_log_ratio_gap(a, s, T, eps)) if a > 0 else mp.one
    slope = (T - 1) * mills / s * max(below, mp.expm1(_log_ratio_gap(b, s, T, eps)))
    return mp.exp(eps) * slope * (b - a)


def _maximiser(s: Fraction, T: int, eps: Fraction, tol_digits: int):
    """(C, C_error, max_gap): the rational C at which E is evaluated, a bound on abs(C - C*),
    and a bound on E(C*) - E(C).  T = 1: C* = C_D = 3/2 + sigma^2 eps exactly."""
    cd = Fraction(3, 2) + s**2 * eps
    if T == 1:
        return cd, mp.zero, mp.zero
    with mp.workdps(15):
        guard = int(mp.log10(2 + to_mpf(eps) + 1 / to_mpf(s) ** 2)) + 15
    with mp.workdps(tol_digits + guard):
        sm, e, tol = to_mpf(s), to_mpf(eps), mp.mpf(10) ** -tol_digits
        x_lo, x_hi = _argmax_offsets(sm, T, e, tol)
        C = rational(to_mpf(cd) + (x_lo + x_hi) / 2, "C")
        # C_D + x is rounded to the working precision: widen by tol >> one unit
        offset, pad = to_mpf(C - cd), tol * max(1, to_mpf(cd))
        a, b = max(mp.zero, min(offset, x_lo) - pad), max(offset, x_hi) + pad
        return C, max(b - offset, offset - a), _max_gap(sm, T, e, a, b)


def _lower_bound(s: Fraction, T: int, eps: Fraction, digits: int):
    """(E(C), bound, C, C_error, max_gap) with max_gap <= 10^-(digits + 2) E(C): the root of
    g is refined until the gap is negligible (the gap shrinks like the bracket squared)."""
    tol_digits = digits + 10
    while True:
        C, C_err, gap = _maximiser(s, T, eps, tol_digits)
        value, err = _event_value(s, T, eps, C, digits)
        if value <= 0:
            raise ArithmeticError(f"E(C) = {value} <= 0 at the maximiser; E(C*) > 0 in theory")
        with mp.workdps(30):
            allowed = value * mp.mpf(10) ** -(digits + 2)
            if gap <= allowed:
                return value, err, C, C_err, gap
            tol_digits += int(mp.log10(gap / allowed)) // 2 + 2


def shuffle_event_bound(sigma: object, steps: object, eps: object, C: object, *,
                        digits: int = 20) -> ShuffleResult:
    """P_S(E_C) - e^eps Q_S(E_C) for the event E_C = {max_t w_t >= C} (002 Sec. 4.3):
    1 - e^eps + Phi(C/sigma)^(T-1) (e^eps Phi((C-1)/sigma) - Phi((C-2)/sigma)), T = steps.
    A lower bound on delta_S(eps) for any rational C (when positive); verified digits."""
    s, T, e = positive(sigma, "sigma"), _steps(steps), _eps_nonnegative(eps)
    c, digits = rational(C, "C"), digits_parameter(digits)
    value, err = _event_value(s, T, e, c, digits)
    _guard(value, err, e, digits, "E_C")
    return ShuffleResult(value, err, f"E_C of {_PAPER} Sec. 4.3 at the given C; error bound "
                         "from two evaluations (erfc / incomplete-gamma tails, precision)",
                         digits, eps=e, sigma=s, steps=T, C=c, C_error=mp.zero,
                         max_gap=mp.zero)


def shuffle_lower_bound(sigma: object, steps: object, eps: object, *,
                        digits: int = 20) -> ShuffleResult:
    """max over real C of E(C) = P_S(E_C) - e^eps Q_S(E_C), the lower bound on delta_S(eps)
    of 002 eq. (7) with T = steps, sigma the noise multiplier, eps >= 0.

    E(C) = 1 - e^eps + Phi(C/sigma)^(T-1) (e^eps Phi((C-1)/sigma) - Phi((C-2)/sigma)) is
    unimodal in C with its maximiser C* > 3/2 + sigma^2 eps the root of a strictly increasing
    function (module docstring); C* is bracketed and refined, and ``value`` is E(``C``) at
    the returned rational C, verified to ``digits``.  The lower-bound property does not
    depend on C being the exact argmax (every C gives one); ``C_error`` bounds abs(C - C*) and
    ``max_gap`` bounds max_C E - value (kept below 10^-(digits+2) value).  Cost is
    independent of T.

    >>> r = shuffle_lower_bound("0.4", 10000, 4, digits=10)   # 002 Sec. 4.3: >= 0.226
    >>> str(r).split()[0], r.bound, r.verified_digits >= 10
    ('0.2260556367', 'lower', True)
    """
    s, T, e = positive(sigma, "sigma"), _steps(steps), _eps_nonnegative(eps)
    digits = digits_parameter(digits)
    value, err, C, C_err, gap = _lower_bound(s, T, e, digits)
    _guard(value, err, e, digits, "max_C E_C")
    return ShuffleResult(value, err, f"max over real C of E_C, {_PAPER} eq. (7): E_C at the "
                         "bracketed root of the unimodality criterion; error bound from two "
                         "evaluations (erfc / incomplete-gamma tails, precision)", digits,
                         eps=e, sigma=s, steps=T, C=C, C_error=C_err, max_gap=gap)


# --- eps(delta) from eq. (7) ---------------------------------------------------------------

def shuffle_lower_bound_epsilon(sigma: object, steps: object, delta: object, *,
                                digits: int = 20) -> ShuffleEpsilonResult:
    """The eps at which M(eps) = max_C E(C) of 002 eq. (7) equals delta, T = steps.

    M is continuous and strictly decreasing (each E(C) is, as Q_S(E_C) > 0), and
    delta_S(eps') >= M(eps') > delta for eps' below the root, so eps_S(delta) >= the root
    >= ``value - abs_error``.  The bracket [value -+ abs_error] is verified: E at the lower
    end minus its bound exceeds delta, E plus its bound plus ``max_gap`` at the upper end is
    below it.  0 when M(0) <= delta (eq. (7) then says nothing); +inf for delta = 0 (M > 0).
    """
    s, T = positive(sigma, "sigma"), _steps(steps)
    target, digits = probability(delta, "delta"), digits_parameter(digits)
    method = f"root of max_C E_C = delta, {_PAPER} eq. (7); bracket verified with E's bounds"

    def result(value, err, note=""):
        return ShuffleEpsilonResult(value, err, method + note, digits, target, sigma=s,
                                    steps=T)

    if target == 0:
        return result(mp.inf, mp.zero, "; E_C > 0 for every eps")
    if _above(s, T, Fraction(0), target, digits) is False:
        return result(mp.zero, mp.zero, "; max_C E_C <= delta already at eps = 0")
    with mp.workdps(digits + 10):
        t = to_mpf(target)
        lo, hi = mp.zero, mp.one
        while _above(s, T, rational(hi, "eps"), target, 12) is not False:
            lo, hi = hi, 2 * hi
        lo, hi = illinois(lambda e: mp.log(_m(s, T, e, 12)) - mp.log(t), lo, hi,
                           mp.mpf(10) ** -8)
        tol = mp.mpf(10) ** -(digits + 2) * min(1, hi)   # relative digits for a small root
        lo, hi = illinois(lambda e: mp.log(_m(s, T, e, digits + 3)) - mp.log(t), lo, hi, tol)
        tau = tol * max(1, hi)
        for _ in range(8):
            a, b = max(mp.zero, lo - tau), hi + tau
            if (_above(s, T, rational(a, "eps"), target, digits)
                    and _above(s, T, rational(b, "eps"), target, digits) is False):
                return result((a + b) / 2, (b - a) / 2)
            tau *= 10
    raise ArithmeticError(f"could not bracket eps(delta = {target}) of 002 eq. (7)")


def _m(s: Fraction, T: int, eps, digits: int):
    """max_C E(C) at an mpf eps (taken at its exact binary value)."""
    return _lower_bound(s, T, eps_parameter(eps), digits)[0]


def _above(s: Fraction, T: int, eps: Fraction, target: Fraction,
           digits: int) -> Optional[bool]:
    """True if M(eps) > target is verified, False if M(eps) < target is, None if undecided."""
    value, err, _, _, gap = _lower_bound(s, T, eps, digits)
    with mp.workdps(digits + 10):
        t = to_mpf(target)
        if value - err > t:
            return True
        if value + err + gap < t:
            return False
        return None


# --- H(P_S || Q_S) for T <= 3 --------------------------------------------------------------

class _Hyperplane:
    """The integrand over the hyperplane orthogonal to 1 (module docstring), at the working
    precision when built: f(d) = density(d) (P Phi-bar(z - h) - e^eps Q Phi-bar(z + h)) / T
    with P = sum_t e^(2 x_t - 2 k), Q = sum_t e^(x_t - k/2), x_t = <d, v_t>/sigma^2,
    k = |v_t|^2 / sigma^2, z = sigma ln(e^eps Q / P) / mu; P and Q swapped for H(Q_S || P_S)."""

    def __init__(self, s: Fraction, T: int, eps: Fraction, swap: bool) -> None:
        self.s, self.T, self.eps, self.swap = to_mpf(s), T, to_mpf(eps), swap
        self.k = (1 - mp.mpf(1) / T) / self.s**2
        mu = 1 / mp.sqrt(T)
        self.z = self.s / (mu * mp.sqrt(2))          # erfc argument per unit of ln beta
        self.h = mu / (2 * self.s * mp.sqrt(2))      # and its shift, both / sqrt 2
        self.p_factor, self.q_factor = mp.exp(-2 * self.k), mp.exp(-self.k / 2)
        self.alpha = mp.exp(self.eps)

    def value(self, xs, density):
        ex = [mp.exp(x) for x in xs]
        P = mp.fsum(e * e for e in ex) * self.p_factor
        Q = mp.fsum(ex) * self.q_factor
        if self.swap:
            P, Q = Q, P
        z = self.z * (self.eps + mp.log(Q / P))
        return density * (P * erfc(z - self.h)
                          - self.alpha * Q * erfc(z + self.h)) / (2 * self.T)

    def projection(self):
        """H of the projection onto the 1 direction, N(2 mu) vs N(mu): a lower bound on
        H(P_S || Q_S) and H(Q_S || P_S) (data processing; the mirror maps one to the other)."""
        z = self.z * self.eps
        return (erfc(z - self.h) - self.alpha * erfc(z + self.h)) / 2


def _radius(plane: _Hyperplane, scale, extra: int):
    """(R, dropped): |d| > R carries at most ``dropped`` of either distribution, the chi tail
    P(|N(0, sigma^2 I_(T-1))| > R - 2|v|), and dropped <= 10^-(dps + extra) scale."""
    s, n = plane.s, plane.T - 1
    x = mp.sqrt(2 * mp.log(10) * (mp.dps + extra) - 2 * mp.log(scale)) + 1
    dropped = 2 * _erfc_tail(x) if n == 1 else mp.exp(-x**2 / 2)
    return 2 * mp.sqrt(plane.k) * s + s * x, dropped


def _cuts(R, step):
    """0 = r_0 < r_1 < ... < r_n = R, spaced at most ``step``."""
    n = int(mp.ceil(R / step))
    return [R * j / n for j in range(n + 1)]


def _line_integral(plane: _Hyperplane, rs, scale):
    """T = 2: 2 int_0^R f(d) dd; d along (1, -1)/sqrt 2 gives x_1 = -x_2 = d/(sqrt 2 sigma^2)."""
    s2 = plane.s**2
    norm = scale * mp.sqrt(2 * mp.pi) * plane.s

    def f(d):
        x = d / (mp.sqrt(2) * s2)
        return plane.value([x, -x], mp.exp(-d**2 / (2 * s2)) / norm)
    return 2 * scale * mp.quad(f, rs, method="gauss-legendre")


def _wedge_integral(plane: _Hyperplane, rs, thetas, scale):
    """T = 3: 6 int_0^R int_wedge f r dtheta dr; the v_t are sqrt(2/3) times the unit vectors
    at angles 0, 2 pi/3, 4 pi/3, so x_t = rho cos(theta - 2 pi t/3), rho = r sqrt(2/3)/sigma^2."""
    s2 = plane.s**2
    norm = scale * 2 * mp.pi * s2
    half_root3 = mp.sqrt(3) / 2

    def outer(r):
        weight = r * mp.exp(-r**2 / (2 * s2)) / norm
        rho = r * mp.sqrt(mp.mpf(2) / 3) / s2

        def inner(theta):
            c, s = rho * mp.cos(theta), rho * mp.sin(theta) * half_root3
            return plane.value([c, s - c / 2, -s - c / 2], weight)
        return mp.quad(inner, thetas, method="gauss-legendre")
    return 6 * scale * mp.quad(outer, rs, method="gauss-legendre")


def _hyperplane_integral(plane: _Hyperplane, rule: int):
    """(H, dropped mass) at the working precision by Gauss-Legendre on pieces: rule 0 cuts r
    every sigma and radius for 10^-(dps+5); rule 1 every 2 sigma/3, 10^-(dps+9), and theta
    cut at pi/7.  The integrand is divided by the projection bound (<= H) because mp.quad
    stops on an absolute tolerance."""
    if plane.T == 1:
        return plane.value([mp.zero], mp.one), mp.zero
    scale = plane.projection()
    R, dropped = _radius(plane, scale, 5 + 4 * rule)
    rs = _cuts(R, plane.s * (3 - rule) / 3)
    if plane.T == 2:
        return _line_integral(plane, rs, scale), dropped
    thetas = [mp.zero, mp.pi / 3] if rule == 0 else [mp.zero, mp.pi / 7, mp.pi / 3]
    return _wedge_integral(plane, rs, thetas, scale), dropped


def shuffle_exact(sigma: object, steps: object, eps: object, *, digits: int = 10,
                  swap: bool = False) -> ShuffleResult:
    """H_{e^eps}(P_S || Q_S) for the pair of 002 eqs. (1)-(2) itself, T = steps in {1, 2, 3}
    (H(Q_S || P_S) with ``swap``), any rational eps, to ``digits`` verified digits.

    The direction along 1 is integrated in closed form (the region p > e^eps q is a
    half-line there), the hyperplane by quadrature in T - 1 dimensions with the symmetry of
    the coordinate permutations (module docstring).  ``bound = "lower"`` (``"tight"`` at
    T = 1): exact for this pair, a lower bound on delta_S(eps), equal to it under 002
    Conjecture 3.2.  T = 1 is the
    Balle-Wang closed form of N(2, sigma^2) vs N(1, sigma^2); T = 3 takes tens of seconds.
    """
    s, T, e = positive(sigma, "sigma"), _steps(steps), eps_parameter(eps)
    digits = digits_parameter(digits)
    if T > EXACT_MAX_STEPS:
        raise InputError(f"steps must be 1, 2 or 3 for shuffle_exact (quadrature over "
                         f"R^(steps-1)), got {T}; use shuffle_lower_bound for more steps")
    if not isinstance(swap, bool):
        raise InputTypeError(f"swap must be a bool, got {swap!r}")

    def compute(rule: int):
        return _hyperplane_integral(_Hyperplane(s, T, e, swap), rule)

    value, err, _ = two_evaluations(compute, digits)
    _guard(value, err, e, digits)
    order = "H(Q_S || P_S)" if swap else "H(P_S || Q_S)"
    return ShuffleResult(value, err, f"{order} of {_PAPER} eqs. (1)-(2): closed form along 1, "
                         f"quadrature over R^{T - 1} (permutation symmetry); error bound from "
                         "two evaluations (precision, radius, rule, cuts)", digits, eps=e,
                         sigma=s, steps=T, bound="tight" if T == 1 else "lower")


def shuffle_both_orders(sigma: object, steps: object, eps: object, *,
                        digits: int = 10) -> MechanismDelta:
    """max(H(P_S || Q_S), H(Q_S || P_S)) at e^eps (``shuffle_exact`` both ways, T <= 3): a
    lower bound on delta_S(eps) for either order of the neighbouring datasets."""
    return maximum([(label, shuffle_exact(sigma, steps, eps, digits=digits, swap=swap))
                    for label, swap in (("P_S||Q_S", False), ("Q_S||P_S", True))], "lower")


class Shuffle(Engine):
    """The engine of a shuffled catalogue entry (``refacct.mechanisms.Shuffled``): 002's
    eq. (7) bound maximised over C, or for delta with ``exact`` (the door's
    ``method="exact"``, steps <= 3) the pair itself in both orders."""

    kinds = ("delta", "epsilon")

    def __init__(self, name: str, exact: bool = False) -> None:
        self.name, self.exact = name, exact

    def supports(self, target) -> Optional[str]:
        if not isinstance(target, Shuffled):
            return "the shuffle engine answers shuffled catalogue entries only"
        return None

    def answer(self, target, request: Request) -> List:
        if request.kind == "epsilon":
            return [shuffle_lower_bound_epsilon(target.sigma, target.steps, d,
                                                digits=request.digits)
                    for d in request.queries]
        run = shuffle_both_orders if self.exact else shuffle_lower_bound
        return [run(target.sigma, target.steps, e, digits=request.digits)
                for e in request.queries]

    def staged(self, target, request: Request) -> bool:
        return False


SHUFFLE = Shuffle("shuffle-bound")
SHUFFLE_EXACT = Shuffle("shuffle-exact", exact=True)
