"""delta_T(eps) of a many-step composition by inverting the moment generating function of
its privacy loss, as a proven enclosure: every error term is bounded in ball arithmetic.

For c > 0 where M_T(z) = E_P[e^{z L_T}] is finite (``mgf``: L_T the privacy loss of the
composition, 001 Definition 5; M_T the product of the steps' M), the transform of
(1 - e^{eps - x})_+ along Re z = c is e^{zx} / (z (z + 1)), so

    delta_T(eps) = (1 / 2 pi) int_R phi(t) dt,
    phi(t) = M_T(c + it) e^{-(c + it) eps} / ((c + it)(c + 1 + it)).

**Trapezoidal rule.**  S = (h / 2 pi) sum_n phi(nh) is, by Poisson summation, exactly
sum_k e^{2 pi c k / h} delta_T(eps + 2 pi k / h) (Trefethen and Weideman, "The exponentially
convergent trapezoidal rule", SIAM Review 56, 2014).  The terms k != 0 are >= 0, so
delta_T(eps) = S - A_- - A_+ with

* A_- (k < 0) <= sum_{k >= 1} e^{-2 pi c k / h} = r / (1 - r), r = e^{-2 pi c / h}, as
  delta <= 1 at every argument;
* A_+ (k > 0) <= K(c2) M_T(c2) e^{-c2 eps} s / (1 - s), s = e^{-2 pi (c2 - c) / h}, for any
  c2 > c with M_T(c2) finite, by the Chernoff bound delta_T(x) <= K(c2) M_T(c2) e^{-c2 x}
  with K(c2) = max_{y > 0} (1 - e^{-y}) e^{-c2 y} = c2^c2 / (1 + c2)^(1 + c2).

**Truncation.**  The sum runs over |n| <= N (phi(-t) is the conjugate of phi(t)).  With
D(t) >= sup_{s >= t} |M_T(c + is)| (``Loss.decay``) and |(c + it)(c + 1 + it)| >= t^2,
the dropped terms weigh at most (h / pi) sum_{n > N} D(nh) e^{-c eps} / (nh)^2 <=
e^{-c eps} D(Nh) / (pi h N).

So delta_T(eps) lies in [S_N - E - A_- - A_+, S_N + E], S_N an Arb ball.  The parameters
(c at the saddle point of ln M_T(c) - c eps - ln(c (c + 1)), c2, h, N) only steer: the
enclosure holds for any of them, and a poor choice shows as width, never as error.

**The inner strip, for delta near 1.**  Where eps lies far below the loss's mean the saddle
of Re z > 0 tends to c = 0 and A_- to 1.  On -1 < c < 0 the same integrand transforms
-u(x), u(x) = E_P[min(1, e^{x - L_T})] = 1 - delta_T(x) (the transform of -min(1, e^{eps
- x}) there is e^{-z eps} / (z (z + 1)); it is the residue M_T(0) = 1 at z = 0 that moves
the contour across), and M_T(c) = E_Q[(p / q)^{1 + c}] <= 1 is finite for every pair.  Now
S = -sum_k e^{2 pi c k / h} u(eps + 2 pi k / h), and with u in [0, 1] increasing:

* k > 0: at most r / (1 - r), r = e^{-2 pi |c| / h} (u <= 1);
* k < 0: at most M_T(c2) e^{-c2 eps} s / (1 - s), s = e^{-2 pi (c - c2) / h}, for any c2 in
  [-1, c), by min(1, e^v) <= e^{b v} (b = -c2 in [0, 1]): u(x) <= e^{-c2 x} M_T(c2).

The truncation bound is unchanged (|(c + it)(c + 1 + it)| >= t^2 for real c), so

    delta_T(eps) = 1 - u(eps)  lies in  [1 + S_N - E, 1 + S_N + E + A_- + A_+],

A_- the k > 0 bound and A_+ the k < 0 one (``on_grid``), which keeps the digits of delta
near 1 with a tolerance set by delta, not by the small u.  The inner strip is taken where
the Chernoff bound u(eps) <= e^{eps / 2} M_T(-1/2) shows delta_T(eps) > 1/2 (``_inner``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Optional, Sequence, Tuple

import mpmath
from mpmath import mp

from ..arb import acb, arb, arb_mid_rad, flint, to_arb
from ...errors import OutOfReach
from .mgf import log_mgf_row

__all__ = ["Plan", "Enclosure", "Grid", "grid", "on_grid", "enclose", "delta_enclosure",
           "trapezoid", "log_k"]

MAX_ROUNDS = 12
MAX_PREC = 2048   # bits: a sum whose own rounding hides its sign is given more up to here
MAX_NODES = 8192   # nodes on each side of 0 where each value is its own integral (seconds each)
SUBTRACTED_MAX_NODES = 2 ** 17   # a range steered by the subtracted bound (rows: ~1 ms a node)
OCTAVE_SPLITS = 3   # the range's end within 2^(1/8) of where the steering reaches the level
# bits of the steering's values at real c (``_value``, ``_log_above``: golden sections to
# 2e-4 of the range): 53 made the plans 80 made on 22 conformance queries, each real
# integral about half as costly (truncated Poisson zero-out, three steps: 3.0 -> 1.5 s)
STEER_PREC = 53
RANGE_PREC = 80   # bits of the range's steering (``_log_truncation``)


@dataclass(frozen=True)
class Plan:
    """The contour Re z = ``c``, the Chernoff point ``c2`` > c, the step ``h`` and the
    number of nodes ``n`` on each side of 0, the working precision in bits, ``drop``, the
    decay bound aimed at (``mgf``: ``decay``), the ``eps`` it was made for, and the node
    ``budget`` of its refinements (``_range``)."""

    c: Fraction
    c2: Fraction
    h: Fraction
    n: int
    prec: int
    drop: Fraction = Fraction(0)
    eps: Fraction = Fraction(0)
    budget: int = MAX_NODES


@dataclass(frozen=True)
class Enclosure:
    """S_N (a ball) and the bounds E (truncation), A_- and A_+ (aliasing), all >= 0, at
    ``prec`` bits; delta_T(eps) lies in [S_N - E - A_- - A_+, S_N + E]."""

    total: "arb"
    truncation: "arb"
    below: "arb"
    above: "arb"
    prec: int

    def ends(self) -> Tuple["arb", "arb"]:
        """Exact lower and upper bounds on delta_T(eps), clipped to [0, 1] (delta_T(eps) =
        sup_S P(S) - e^eps Q(S) <= 1)."""
        with flint.ctx.workprec(self.prec):
            lo = (self.total - self.truncation - self.below - self.above).lower()
            return min(max(lo, arb(0)), arb(1)), min((self.total + self.truncation).upper(),
                                                      arb(1))

    def narrow(self, digits: int) -> bool:
        """Is the width at most 10^-digits of the lower end?"""
        lo, hi = self.ends()
        with flint.ctx.workprec(self.prec + 64):
            return bool(lo > 0 and hi - lo <= arb(10) ** (-digits) * lo)


def log_k(c: "arb") -> "arb":
    """ln K(c) = c ln c - (1 + c) ln(1 + c), K(c) = max_{y > 0} (1 - e^{-y}) e^{-c y} (the
    Chernoff factor of A_+, module docstring)."""
    return c * c.log() - (1 + c) * (1 + c).log()


def chernoff_factor(c2: "arb") -> "arb":
    """The log of the factor of the A_+ bound at the Chernoff point c2 (module docstring):
    ln K(c2) on Re z > 0, 0 on the inner strip (c2 in [-1, 0): min(1, e^v) <= e^{-c2 v})."""
    return log_k(c2) if c2 > 0 else arb(0)


def trapezoid(logs: Sequence["acb"], c: Fraction, h: Fraction, e: Fraction) -> "arb":
    """S_N = (h / 2 pi) sum_{|n| <= N} phi(nh) from ln M_T at the nodes n = 0 .. N (phi(-t)
    is the conjugate of phi(t)); the contour, step and eps exact, as every such sum takes
    them (one that needs more bits converts them at its own precision)."""
    c, h, e = to_arb(c), to_arb(h), to_arb(e)
    total = arb(0)
    for n, log_m in enumerate(logs):
        z = acb(c, n * h)
        term = ((log_m - z * e).exp() / (z * (z + 1))).real
        total += term if n == 0 else 2 * term
    return total * h / (2 * arb.pi())


@dataclass(frozen=True)
class Grid:
    """What the enclosure needs from the loss on a plan, for every eps: ln M_T at the
    nodes c + inh (n = 0 .. N), the decay bound D(Nh), ln M_T(c2) (real) and the sum S_N
    over the nodes (``trapezoid``, or the loss's own: a maximum over terms that share the
    nodes, ``orders``)."""

    plan: Plan
    logs: Tuple["acb", ...]
    decay: "arb"
    chernoff: "arb"
    trapezoid: Callable = trapezoid


def grid(loss, plan: Plan, known: Optional[Grid] = None) -> Grid:
    """The loss on ``plan``: N + 2 values of ln M_T and one decay bound; the nodes of
    ``known`` are taken from it when it lies on the same contour, step and precision (a
    refinement that only widens the range computes the new nodes alone)."""
    same = known is not None and (known.plan.c, known.plan.h, known.plan.prec) == \
        (plan.c, plan.h, plan.prec)
    with flint.ctx.workprec(plan.prec):
        c, h = to_arb(plan.c), to_arb(plan.h)
        logs = list(known.logs[:plan.n + 1]) if same else []
        logs += log_mgf_row(loss, c, h, len(logs), plan.n + 1)
        decay, total = _tail(loss, plan, c, h, logs[0].real)
        return Grid(plan, tuple(logs), decay, loss.log_mgf(acb(to_arb(plan.c2))).real, total)


def _tail(loss, plan: Plan, c: "arb", h: "arb", log_top: "arb") -> Tuple["arb", Callable]:
    """The decay bound beyond the range and the sum it goes with: the loss's own, or, for a
    loss with an ``expansion`` (``endpoints``) on Re z > 0 whose own bound misses the aim
    e^drop M_T(c), the bound on M_T less its part that does not decay, with the sum that
    subtracts that part, where that bound is the smaller (the subtraction costs: at 10^4
    steps its T + 1 coefficient series alone took minutes, where the own bound met its
    aim)."""
    own = loss.decay(c, plan.n * h, plan.drop)
    expansion = getattr(loss, "expansion", None)
    if expansion is None or not plan.c > 0 or own <= (to_arb(plan.drop) + log_top).exp():
        return own, getattr(loss, "trapezoid", trapezoid)
    bound = expansion.decay(c, plan.n * h)
    if bound < own:
        return bound, expansion.trapezoid
    return own, getattr(loss, "trapezoid", trapezoid)


def on_grid(found: Grid, eps: Fraction) -> Enclosure:
    """The enclosure of delta_T(eps) on a grid (module docstring): a sum over its nodes.
    On the inner strip (c < 0) the sum holds -u = delta_T - 1 less its aliasing, so the
    ball kept is 1 + S_N + A_- + A_+, whose ends less the bounds are those of the module
    docstring."""
    plan = found.plan
    with flint.ctx.workprec(plan.prec):
        c, c2, h, e = (to_arb(v) for v in (plan.c, plan.c2, plan.h, eps))
        two_pi = 2 * arb.pi()
        total = found.trapezoid(found.logs, plan.c, plan.h, eps)
        tail = plan.n * h
        truncation = (-c * e).exp() * found.decay / (arb.pi() * tail)
        r = (-two_pi * abs(c) / h).exp()
        below = r / (1 - r)
        s = (-two_pi * abs(c2 - c) / h).exp()
        chernoff = (chernoff_factor(c2) + found.chernoff - c2 * e).exp()
        above = chernoff * s / (1 - s)
        if plan.c < 0:
            total = 1 + total + below + above
        return Enclosure(total, truncation, below, above, plan.prec)


def enclose(loss, eps: Fraction, plan: Plan) -> Enclosure:
    """The enclosure of delta_T(eps) on ``plan`` (module docstring)."""
    return on_grid(grid(loss, plan), eps)


def delta_enclosure(loss, eps: Fraction, digits: int,
                    plan: Optional[Plan] = None) -> Tuple[Enclosure, Grid]:
    """An enclosure of delta_T(eps) whose width is at most 10^-digits of its lower end,
    refining a plan (the steering choices of ``_first_plan``, or ``plan``) until it is;
    after ``MAX_ROUNDS`` rounds, or when the next would pass the node budget, the last,
    wider, enclosure; with the grid it lies on
    (nearby eps cost one sum on it: ``on_grid``).  The bounds hold whatever the plan."""
    plan, nodes = plan or _first_plan(loss, eps, digits), None
    for _ in range(MAX_ROUNDS):
        nodes = grid(loss, plan, nodes)
        found = on_grid(nodes, eps)
        plan = None if found.narrow(digits) else _refined(nodes, found, digits, loss, eps)
        if plan is None:
            break
    return found, nodes


def _refined(nodes: Grid, found: Enclosure, digits: int, loss, eps: Fraction
             ) -> Optional[Plan]:
    """The next plan: halve h while an aliasing bound exceeds a quarter of the tolerance;
    while the truncation does, aim the decay bound lower by the excess and a digit (when
    it sits at its aim, e^drop M_T(c), within a factor 2 either way: the plan's first aim
    is set by the integrand's peak, far above delta when delta_T(eps) is much smaller than
    the saddle suggests; a bound far below its aim does not follow it, as the closed form
    of Gaussian shifts), else double the range; else raise the precision (``_more_bits``).
    First of all, where the sum has no lower end and its own radius exceeds every bound,
    only rounding is left: more bits, up to ``MAX_PREC`` (the aliasing budget, 10^-digits
    of that lower end, is then 0 and would halve h to the node budget for nothing).
    None when more nodes are needed than the plan's budget."""
    plan = nodes.plan
    with flint.ctx.workprec(plan.prec):
        scale = max(found.total.lower(), arb(0))
        budget = arb(10) ** (-digits) * scale / 4
        bounds = max(found.below.upper(), found.above.upper(), found.truncation.upper())
        if not scale > 0 and found.total.rad() > bounds:   # the sum's own rounding
            prec = _more_bits(found, digits)
            return replace(plan, prec=prec) if prec <= MAX_PREC else None
        aliased = found.below > budget or found.above > budget
        truncated = found.truncation > budget
        met = False
        if truncated and budget > 0:
            aim = (to_arb(plan.drop) + nodes.logs[0].real).exp()
            excess = (found.truncation / budget).log() + arb(10).log()
            met = bool(aim / 2 <= nodes.decay <= 2 * aim) and excess.is_finite()
    if (aliased or truncated and not met) and 2 * plan.n > plan.budget:
        return None
    if aliased:
        return replace(plan, h=plan.h / 2, n=2 * plan.n,
                       c2=_chernoff_point(loss, eps, plan.c, plan.h / 2))
    if truncated:
        if met:
            lower = Fraction(int(excess.upper().ceil().unique_fmpz()))
            return replace(plan, drop=plan.drop - lower)
        return replace(plan, n=2 * plan.n)
    return replace(plan, prec=_more_bits(found, digits))


def _more_bits(found: Enclosure, digits: int) -> int:
    """The precision of the next round when only rounding is left: the bits by which the
    width exceeds 10^-digits of the value, 16 to spare, at least 32 and at most
    ``found.prec`` more (twice the bits when the width says nothing: no lower end).
    Heterogeneous products sum more rounding than the first plan allows for: 147 bits
    left one such enclosure 2.5 bits short, and doubling cost 3.3 times the first grid."""
    lo, hi = found.ends()
    with flint.ctx.workprec(found.prec + 64):
        if not lo > 0:
            return 2 * found.prec
        short = ((hi - lo) / (arb(10) ** (-digits) * lo)).log() / arb(2).log()
        bits = int(short.upper().ceil().unique_fmpz()) + 16 if short.is_finite() else found.prec
    return found.prec + min(max(bits, 32), found.prec)


# --- steering: where the plan starts (choices only; the bounds hold for any) ----------------

def _value(loss, c: Fraction, eps: Fraction) -> mpmath.mpf:
    """ln M_T(c) - c eps - ln |c (c + 1)|: the log of the integrand's modulus at t = 0
    (+inf where it is not finite at ``STEER_PREC`` bits: a c too large to steer to)."""
    with flint.ctx.workprec(STEER_PREC):
        x = to_arb(c)
        v = loss.log_mgf(acb(x)).real - x * to_arb(eps) - abs(x * (x + 1)).log()
        return arb_mid_rad(v)[0] if v.is_finite() else mp.inf


def _argmin(f, lo: Fraction, hi: Fraction, steps: int = 18) -> Fraction:
    """The minimiser of a convex f on [lo, hi] by ``steps`` golden sections on a log scale
    (0.618^18 of the range, 2e-4: it steers, it proves nothing; 30 sections cost the
    subsampled Gaussian at k = 3 a tenth of its time for nothing), one new value of f a
    step (the inner point kept is the next step's other point, g^2 = 1 - g).  f is +inf where it is
    too large to evaluate, which for the functions steered by lies above the minimiser:
    two infinite values move the search down."""
    with mp.workdps(20):
        a, b = mp.log(mp.mpf(lo.numerator) / lo.denominator), mp.log(
            mp.mpf(hi.numerator) / hi.denominator)
        g = (mp.sqrt(5) - 1) / 2

        def at(x):
            return f(_rational(mp.exp(x)))
        x1, x2 = b - g * (b - a), a + g * (b - a)
        f1, f2 = at(x1), at(x2)
        for _ in range(steps):
            if f1 < f2 or mpmath.isinf(f1) and mpmath.isinf(f2):
                b, x2, f2 = x2, x1, f1
                x1 = b - g * (b - a)
                f1 = at(x1)
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + g * (b - a)
                f2 = at(x2)
        return _rational(mp.exp((a + b) / 2))


def _mpf(q: Fraction) -> mpmath.mpf:
    return mp.mpf(q.numerator) / q.denominator


def _rational(x: mpmath.mpf) -> Fraction:
    return Fraction(mpmath.nstr(x, 8, min_fixed=-mp.inf, max_fixed=mp.inf))


def _upper_c(loss) -> Fraction:
    """The largest c steered to (beyond c = 200 the integrals of a subsampled loss grow
    past what ``STEER_PREC`` bits steer by; a loss's ``c_steer`` where each larger c costs it more;
    any c gives a valid enclosure)."""
    top = Fraction(getattr(loss, "c_steer", 200))
    return top if loss.c_max is None else min(top, Fraction(loss.c_max) * 999 / 1000)


def _saddle(loss, eps: Fraction, inner: bool = False) -> Fraction:
    """c at the minimum of ln M_T(c) - c eps - ln |c (c + 1)| (convex in c on each strip):
    there the integrand is nearly a Gaussian in t, and its value at t = 0 bounds delta_T
    (on the inner strip 1 - delta_T) from above up to the factor of the width."""
    if inner:
        return -_argmin(lambda s: _value(loss, -s, eps), Fraction(1, 10 ** 9),
                        1 - Fraction(1, 10 ** 9))
    return _argmin(lambda c: _value(loss, c, eps), Fraction(1, 10 ** 9), _upper_c(loss))


def _inner(loss, eps: Fraction) -> bool:
    """Take the inner strip (module docstring)?  Where 1 - delta_T(eps) <= e^{eps / 2}
    M_T(-1/2) < 1/2 at ``STEER_PREC`` bits (steering: either strip gives a valid
    enclosure)."""
    with flint.ctx.workprec(STEER_PREC):
        v = loss.log_mgf(acb(-arb(1) / 2)).real + to_arb(eps) / 2
        return bool(v < -arb(2).log())


def _log_above(loss, eps: Fraction, c: Fraction, c2: Fraction, h: Fraction) -> mpmath.mpf:
    """ln of the A_+ bound without its factor 1 / (1 - s): ln K(c2) (0 on the inner strip)
    + ln M_T(c2) - c2 eps - 2 pi |c2 - c| / h, at ``STEER_PREC`` bits (+inf where not
    finite)."""
    with flint.ctx.workprec(STEER_PREC):
        x = to_arb(c2)
        v = (chernoff_factor(x) + loss.log_mgf(acb(x)).real
             - x * to_arb(eps) - 2 * arb.pi() * abs(x - to_arb(c)) / to_arb(h))
        return arb_mid_rad(v)[0] if v.is_finite() else mp.inf


def _chernoff_point(loss, eps: Fraction, c: Fraction, h: Fraction) -> Fraction:
    """c2 minimising the A_+ bound: c2 > c, or on the inner strip c2 in [-1, c)."""
    if c < 0:
        return -_argmin(lambda s: _log_above(loss, eps, c, -s, h), -c * Fraction(1000001, 10 ** 6),
                        Fraction(1))
    return _argmin(lambda c2: _log_above(loss, eps, c, c2, h),
                   c * Fraction(1000001, 1000000), max(_upper_c(loss), 2 * c + 1))


def _first_plan(loss, eps: Fraction, digits: int) -> Plan:
    """c at the saddle of its strip (``_inner``; or nearer 0: ``_balanced``), h so that
    e^{-2 pi |c| / h} is 10^-(digits + 6) of delta's scale (the integrand's value at the
    saddle, or 1/2 on the inner strip) and then shrunk until the A_+ bound at its best c2
    is too (the k = +1 alias of a subsampled loss is the larger one), and the range where
    the truncation bound falls below the same."""
    inner = _inner(loss, eps)
    c = _saddle(loss, eps, inner)
    with mp.workdps(30):
        scale = -mp.log(2) if inner else _value(loss, c, eps)
        level = scale - (digits + 6) * mp.log(10)   # ln of the tolerance
        h = _rational(2 * mp.pi * abs(c) / max(-level, mp.mpf(1)))
        c = _balanced(loss, eps, c, _chernoff_point(loss, eps, c, h), h, level)
        h = _rational(2 * mp.pi * abs(c) / max(-level, mp.mpf(1)))
        c2 = _chernoff_point(loss, eps, c, h)
        for _ in range(8):
            excess = _log_above(loss, eps, c, c2, h) - level
            if excess <= 0:
                break
            gap = 2 * mp.pi * abs(_mpf(c2 - c)) / _mpf(h)   # raise the gap by the excess
            h = h / 2 if mpmath.isinf(excess) else _rational(_mpf(h) * gap / (gap + excess + 1))
            c2 = _chernoff_point(loss, eps, c, h)
        n, budget = _nodes(loss, c, eps, h, level)
        peak = _value(loss, c, eps)   # the integrand at t = 0: cancellation below it
        prec = int(3.33 * digits) + 64 + n.bit_length() + int((peak - level) / mp.log(2)) \
            - int(3.33 * (digits + 6))
        # the truncation bound at the tolerance when D = e^drop M_T(c), a digit to spare
        drop = _rational(level - peak - mp.log(abs(_mpf(c * (c + 1))))
                         + mp.log(mp.pi * n * _mpf(h)) - mp.log(10))
    plan = Plan(c, c2, h, n, max(prec, 64), min(drop, Fraction(-1)), eps, budget)
    if n > _budget(loss):
        _check_far_row(loss, plan)
    return plan


def _check_far_row(loss, plan: Plan) -> None:
    """``OutOfReach`` unless the loss's row reaches the plan's last node with a ball inside
    |M_T(c + it)| <= M_T(c) (one node: the row's rule and its error bound are those of
    the whole row, set by its largest t).  A range past the loss's own budget, steered by
    the subtracted bound, can end where the cells' rules bound nothing (Poisson b 1/2, q
    1/20, 100 steps, eps(1e-100): ln |M_T| about 3.5e5 at t = 6.6e4, a grid of 120 s that
    gave eps no digit, where q 1/100 reaches t = 2.6e5 with 27 digits)."""
    with flint.ctx.workprec(plan.prec):
        c, h = to_arb(plan.c), to_arb(plan.h)
        far = log_mgf_row(loss, c, h, plan.n, plan.n + 1)[0].real
        if not far.upper() <= loss.log_mgf(acb(c)).real.upper() + 1:
            raise OutOfReach(
                f"method='transform' would need {plan.n} nodes on each side here, where the "
                f"privacy loss's transform is not resolved (a tail where the loss's atoms "
                f"dominate); method='quadrature' or 'bracket' answers it")


def _nodes(loss, c: Fraction, eps: Fraction, h: Fraction, level: mpmath.mpf
           ) -> Tuple[int, int]:
    """The nodes on each side of 0 to where the truncation bound falls below e^level
    (``_range``), steered by M_T within the loss's budget (``_budget``), or where that
    passes it by M_T less its part that does not decay (``_log_truncation``) within
    ``SUBTRACTED_MAX_NODES``; ``OutOfReach`` when that passes its budget too (the
    transform of a loss near a lattice, of few steps or few uses of the record, decays
    slowly in t: at one subsampled step as a power of t).  A range not evaluable at 80 bits
    counts as not reached.  With the budget of the plan's refinements: the larger one
    wherever the subtraction is at hand, as the enclosure then takes the subtracted bound
    where the loss's own is the wider (Poisson b 1/2, q 1/100, 100 steps: eps(1e-100) needs
    135449 nodes, 108 s; eps(1e-50) 16 digits at 10113, 20 once doubled).  A loss without
    it keeps its own budget: a larger one spent minutes on enclosures that the atoms'
    floor kept wide."""
    subtracts = getattr(loss, "expansion", None) is not None and c > 0
    budget = SUBTRACTED_MAX_NODES if subtracts else _budget(loss)
    try:
        return _range(loss, c, eps, h, level, False, _budget(loss)), budget
    except OutOfReach:
        if not subtracts:
            raise
        return _range(loss, c, eps, h, level, True, budget), budget


def _range(loss, c: Fraction, eps: Fraction, h: Fraction, level: mpmath.mpf,
           subtracted: bool, budget: int) -> int:
    """``_nodes``, steered by M_T or by M_T less its part that does not decay, within
    ``budget`` nodes: the first power of 2 reached, then ``OCTAVE_SPLITS`` bisections of
    its octave on a log scale (the first power of 2 had overshot by up to 2x: three
    different subsampled Gaussians, delta(1), reached the level at t = 2.1e4 of the
    3.3e4 taken)."""
    tail = mp.mpf(1)
    while _log_truncation(loss, c, eps, tail, subtracted) > level:
        if tail > budget * _mpf(h):
            raise OutOfReach(
                f"method='transform' would need more than {budget} nodes on each side "
                f"here: the transform of this privacy loss decays too slowly (few steps, "
                f"few that use the record, or a tail where the loss's atoms dominate); "
                f"method='quadrature' or 'bracket' answers it")
        tail *= 2
    low = tail / 2   # not reached (or 1/2)
    for _ in range(OCTAVE_SPLITS):
        middle = mp.sqrt(low * tail)
        if _log_truncation(loss, c, eps, middle, subtracted) > level:
            low = middle
        else:
            tail = middle
    return int(mp.ceil(tail / _mpf(h)))


def _budget(loss) -> int:
    """The loss's node budget on each side of 0: its ``max_nodes`` (values from lines or
    closed forms, cheap) or ``MAX_NODES``."""
    return getattr(loss, "max_nodes", None) or MAX_NODES


def _balanced(loss, eps: Fraction, c: Fraction, c2: Fraction, h: Fraction,
              level: mpmath.mpf) -> Fraction:
    """c, or a c nearer 0 where the two aliasing bounds allow the same h when the A_+ one
    allows less: A_- needs 2 pi |c| / h >= L_- = -level, A_+ needs 2 pi |c2 - c| / h >= L_+
    = ln K(c2) + ln M_T(c2) - c2 eps - level, equal at c2 L_- / (L_- + L_+) (c2 nearly
    fixed: the Chernoff point of the far tail; c between 0 and c2 on either strip); at
    least |c| / 8 from 0."""
    low = -level
    high = _log_above(loss, eps, c, c2, h) + 2 * mp.pi * abs(_mpf(c2 - c)) / _mpf(h) - level
    if not mpmath.isfinite(high) or abs(c2 - c) * low >= abs(c) * high:
        return c
    moved = _rational(_mpf(c2) * low / (low + high))
    return moved if abs(moved) >= abs(c) / 8 else c / 8


def _log_truncation(loss, c: Fraction, eps: Fraction, t: mpmath.mpf,
                    subtracted: bool = False) -> mpmath.mpf:
    """ln(e^{-c eps} |M_T(c + it)| / (pi t)) at ``RANGE_PREC`` bits (|M_T| far below M_T(c):
    one step's line resolves 2^-bits of M(c)): the truncation bound with |M_T| at t itself
    in place of its sup beyond t (steering: the proof is ``enclose``'s); or,
    ``subtracted``, with the bound on M_T less its part that does not decay (``_tail``).
    M_T steers first: where it reaches, the subtraction is not needed, and it costs (Poisson
    b 1, q 1/100, 100 steps, eps(1e-30): 2.7 s steered by M_T, 10.8 s by the difference)."""
    with flint.ctx.workprec(RANGE_PREC):
        x, tt = to_arb(c), to_arb(_rational(t))
        top = loss.expansion.decay(x, tt).log() if subtracted else \
            loss.log_mgf(acb(x, tt)).real
        v = (-x * to_arb(eps)) + top - (arb.pi() * tt).log()
        return arb_mid_rad(v)[0] if v.is_finite() else mp.inf
