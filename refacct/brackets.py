"""Proven brackets on delta(eps) and eps(delta) for many compositions (T up to 10^5).

For a one-step pair (P, Q) with privacy-loss distribution omega and T steps,

    delta_T(eps) = E[(1 - e^{eps - (L_1 + ... + L_T)})_+]      (001 Sec. 2, Defs. 3-5)

is bracketed by the same expectation under two lattice measures (``engines.lattice``):
a mean-preserving spread of omega in u = e^{-L} (upper; the connect-the-dots
discretisation of Doroshenko et al., cited in 001) and a mean-preserving contraction
(lower), with every one-step mass an Arb ball (``engines.loss_cells``), composed by Arb
polynomial products with rigorous radii, tails moved to +inf (upper) or dropped (lower).
Both ends are mathematical bounds, not estimates: the bracket ``[lower, upper]`` contains
the true value, and the result says so with ``proven=True``.

The lattice step h = 2^-m is refined (and the composition window widened) until the
bracket meets the requested width or the budget ``max_lattice`` is reached; then the
wider, still valid, bracket is returned and its width says how far it got.

Inputs: a ``Pair``; a ``PublicMixture`` of one-step pairs (004 truncated Poisson); a
``Composition`` (each factor composed ``count * steps`` times); or a catalogue entry
(``refacct.mechanisms``) built with ``steps=1``, whose terms are bracketed separately and
maximised (001 Sec. 5).  One-step pairs: Gaussian mixtures with one sigma and a monotone
loss (``engines.loss_cells``) and discrete pairs.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple, Union

import mpmath
from mpmath import mp

from .engines import lattice
from .engines.loss_cells import Cells, _flint, _fraction_mid, one_step_cells
from .exact import positive, rational, to_mpf
from .pairs import Composition, Pair, PublicMixture, steps as check_steps
from .result import DeltaResult, EpsilonResult

__all__ = ["delta_bracket", "epsilon_bracket", "Bracketed", "factors_of"]

DEFAULT_REL_WIDTH = Fraction(1, 100)
DEFAULT_EPS_WIDTH = Fraction(1, 100)
MAX_LATTICE = 15
EPS_MARGIN = 8  # the window reaches eps + 8: delta moves by < e^-8 relative


@dataclass(frozen=True)
class Bracketed:
    """One factor of a composition: a public mixture of one-step pairs, composed
    ``count`` times.  ``step`` is a list of (weight, Pair)."""

    step: Tuple[Tuple[Fraction, Pair], ...]
    count: int


def factors_of(x, T: int) -> List[Bracketed]:
    """The factors of ``x`` composed T times (see the module docstring for the inputs)."""
    if isinstance(x, Pair):
        return [Bracketed(((Fraction(1), x),), T)]
    if isinstance(x, Composition):
        return [Bracketed(((Fraction(1), p),), n * T) for p, n in x.factors]
    if isinstance(x, PublicMixture):
        if len(x.terms) == 1:
            return factors_of(x.terms[0][1], T)
        pairs = []
        for w, comp in x.terms:
            if comp.steps != 1:
                raise ValueError("brackets take a public mixture of one-step pairs; "
                                 "compose it with steps=T")
            pairs.append((w, comp.factors[0][0]))
        return [Bracketed(tuple(pairs), T)]
    raise TypeError(f"brackets need a Pair, Composition or PublicMixture, got {type(x).__name__}")


@dataclass
class _Plan:
    """Lattice step h = 2^-m, Arb precision (bits), composition window [lo, hi] (lattice
    indices) and the one-step tail mass left outside the one-step lattice range."""

    m: int
    prec: int
    lo: Fraction
    hi: Fraction
    tail: Fraction
    tau: Fraction = Fraction(0)

    @property
    def h(self) -> Fraction:
        return Fraction(1, 2 ** self.m)

    def window(self) -> lattice.Window:
        tau = _flint().arb(self.tau.numerator) / self.tau.denominator
        return lattice.Window(math.floor(self.lo / self.h), math.ceil(self.hi / self.h),
                              tau if self.tau else 0)


@dataclass
class _Pass:
    """One evaluation of both lattice measures."""

    plan: _Plan
    upper: lattice.Measure
    lower: lattice.Measure
    seconds: float


def _evaluate(factors: Sequence[Bracketed], plan: _Plan) -> _Pass:
    """Upper and lower measures of the composition on ``plan``'s lattice and window."""
    flint = _flint()
    start = time.perf_counter()
    sides = {}
    with flint.ctx.workprec(plan.prec):
        window = plan.window()
        for f in factors:
            cells = one_step_cells(f.step, plan.h, plan.tail, plan.hi)
            for side, make in (("upper", lattice.upper_measure), ("lower", lattice.lower_measure)):
                part = lattice.power(make(cells), f.count, window)
                sides[side] = part if side not in sides else \
                    lattice.product(sides[side], part, window)
    return _Pass(plan, sides["upper"], sides["lower"], time.perf_counter() - start)


def _first_plan(factors: Sequence[Bracketed], top: Optional[Fraction], margin: Fraction,
                tail: Fraction) -> _Plan:
    """A first plan from a coarse pass: the window spans the composed loss's mean -+ 12
    standard deviations and reaches ``margin`` past ``top`` (eps), where the mass left
    above it changes delta(eps) by at most e^-margin relative: mass above x counts
    1 - e^{eps - x} in delta(eps) and at least 1 - e^-1 of it lies above eps + 1.  These
    choices only place the lattice: the bounds are valid for any plan."""
    flint = _flint()
    mean = var = Fraction(0)
    m = 8
    with flint.ctx.workprec(64):
        for f in factors:
            mu, v = _moments(one_step_cells(f.step, Fraction(1, 2 ** 8), tail))
            mean += f.count * mu
            var += f.count * v
            m = max(m, _bits_to_resolve(v, 4))  # the lower bound needs h < one-step sd / 4
    sd = _sqrt_up(var)
    m = min(MAX_LATTICE, max(m, _bits_to_resolve(var, 16)))
    top = mean + 12 * sd if top is None else max(top, mean + 12 * sd)
    return _Plan(m, _precision(m, _total_steps(factors)), mean - 12 * sd - Fraction(1, 16),
                 top + margin, tail)


def _sqrt_up(x: Fraction) -> Fraction:
    """A rational >= sqrt(x) (x >= 0), to 2^-20."""
    return Fraction(math.isqrt(int(x * 2 ** 40)) + 1, 2 ** 20)


def _bits_to_resolve(variance: Fraction, parts: int) -> int:
    """The m with 2^-m <= sd / parts."""
    return math.ceil(math.log2(parts / _sqrt_up(variance)))


def _moments(cells: Cells) -> Tuple[Fraction, Fraction]:
    """(mean, variance) of the loss on the cells, each cell's mass at its u-mean point
    -ln(Q_j / P_j) (plus h^2 / 12 for the spread inside a cell), as rationals from ball
    midpoints."""
    mean = second = Fraction(0)
    for p, q in zip(cells.P, cells.Q):
        if p > 0 and q > 0:
            w = _fraction_mid(p)
            x = -_fraction_mid((q / p).log())
            mean += w * x
            second += w * x * x
    return mean, max(second - mean * mean, Fraction(0)) + cells.h ** 2 / 12


def _refined(plan: _Plan, over, total_steps: int) -> _Plan:
    """The next plan: the bracket width shrinks about 4x per halving of h (both
    discretisations err at second order), so halve h log4(over) times (twice when the
    width is unknown)."""
    jump = 2 if mpmath.isinf(over) else max(1, int(mpmath.ceil(mpmath.log(over, 4))))
    m = min(plan.m + jump, MAX_LATTICE)
    return _Plan(m, _precision(m, total_steps), plan.lo, plan.hi, plan.tail, plan.tau)


def _precision(m: int, total_steps: int) -> int:
    """Bits: 48 for the answer, about m lost to cancellation in S_j and D_j, log2 T to
    T-fold products."""
    return 48 + m + total_steps.bit_length()


def _trim_mass(tolerance, total_steps: int) -> Fraction:
    """Mass each cut may trim off an end of the support: the ~2 log2 T cuts of one side then
    move delta by at most tolerance / 250."""
    share = Fraction(1, 1000 * (2 * total_steps.bit_length() + 2))
    return Fraction(mpmath.nstr(tolerance, 20, strip_zeros=False).replace(" ", "")) * share


def _shrink(plan: _Plan, run: _Pass) -> None:
    """Narrow the window to where ``run``'s measures hold more than ``plan.tau`` at each
    end (with a margin of 1/16)."""
    with _flint().ctx.workprec(run.plan.prec):
        tau = plan.window().tau
        supports = [lattice.support(m, tau) for m in (run.upper, run.lower)]
    h = run.plan.h
    plan.lo = max(plan.lo, min(a for a, _ in supports) * h - Fraction(1, 16))
    plan.hi = min(plan.hi, max(b for _, b in supports) * h + Fraction(1, 16))


def _total_steps(factors: Sequence[Bracketed]) -> int:
    return sum(f.count for f in factors)


def _ends(ball) -> Tuple[mpmath.mpf, mpmath.mpf]:
    """The exact ends of an Arb ball as mpf."""
    return _mpf(ball.lower()), _mpf(ball.upper())


def _mpf(exact) -> mpmath.mpf:
    if not exact.is_finite():
        return mp.inf if exact > 0 else -mp.inf
    man, exp = exact.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


def _enclosure(lower: mpmath.mpf, upper: mpmath.mpf):
    """(midpoint, half-width rounded up) of [lower, upper], exactly representable."""
    with mp.workprec(max(mp.prec, 256)):
        if mpmath.isinf(upper):
            return upper, mp.inf
        mid = (lower + upper) / 2
        return mid, mp.fsub(upper, mid, rounding="c")


def _bracket(factors: Sequence[Bracketed], plan: _Plan, ends, excess, retry, tolerance,
             max_lattice: int) -> Tuple[mpmath.mpf, mpmath.mpf, _Pass]:
    """Passes until the bracket is narrow enough.

    ``ends(run)`` gives (lower, upper); ``excess(lower, upper)`` how many times too wide it
    is (<= 1: done); ``retry(plan, lower, upper)`` widens the plan in place and says whether
    to rerun at the same lattice; ``tolerance(lower, upper)`` the delta-scale tolerance
    that sets the trimmed mass.  A scout pass at h = 2^-8 first sets the trimming and the
    window; each next pass halves h by log4 of the excess."""
    total = _total_steps(factors)
    scout = _Plan(8, _precision(8, total), plan.lo, plan.hi, plan.tail)
    while plan.m > scout.m:
        run = _evaluate(factors, scout)
        lower, upper = ends(run)
        if retry(scout, lower, upper):
            continue
        plan.lo, plan.hi, plan.tail = scout.lo, scout.hi, scout.tail
        if upper > 0:
            plan.tau = _trim_mass(tolerance(lower, upper), total)
            _shrink(plan, run)
        break
    while True:
        run = _evaluate(factors, plan)
        lower, upper = ends(run)
        if retry(plan, lower, upper):
            continue
        over = excess(lower, upper)
        if over <= 1 or plan.m >= max_lattice:
            return lower, upper, run
        plan = _refined(plan, over, total)
        _shrink(plan, run)


def delta_bracket(x, eps: object, steps: int = 1, *, rel_width: object = DEFAULT_REL_WIDTH,
                  max_lattice: int = MAX_LATTICE) -> DeltaResult:
    """A proven bracket on delta(eps) = H_{e^eps} of ``x`` composed ``steps`` times
    (001 Definition 3; module docstring for the method).

    ``rel_width``: the bracket is refined until (upper - lower) <= rel_width * lower or the
    lattice step reaches 2^-max_lattice.  Returns a ``DeltaResult`` with ``proven=True``,
    ``enclosure=(lower, upper)``, ``value`` the midpoint and ``abs_error`` the half-width.

    >>> from refacct import Pair, Gaussian, Mixture
    >>> P = Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))])
    >>> r = delta_bracket(Pair(P, Gaussian(0, 1)), 1, steps=100)
    >>> r.lower <= r.upper and r.proven
    True
    """
    eps = rational(eps, "eps")
    T = check_steps(steps, "steps")
    width = to_mpf(positive(rel_width, "rel_width"))
    factors = factors_of(x, T)
    total = _total_steps(factors)
    margin = 5 + Fraction(int(mpmath.ceil(-mpmath.log(width))))

    def ends(run: _Pass):
        with _flint().ctx.workprec(run.plan.prec):
            low = lattice.delta_of(run.lower, eps)
            up = lattice.delta_of(run.upper, eps)
        return max(_ends(low)[0], mpmath.mpf(0)), _ends(up)[1]

    def excess(lower, upper):
        return (upper - lower) / (width * lower) if lower > 0 else mp.inf

    def retry(plan: _Plan, lower, upper) -> bool:
        """A one-step tail that could matter at this delta: shrink it."""
        if lower > 0 and to_mpf(total * plan.tail) > width * lower / 1000:
            plan.tail = Fraction(1, 10 ** (2 * int(mpmath.ceil(-mpmath.log10(lower))) + 10))
            return True
        return False

    plan = _first_plan(factors, eps, margin, Fraction(1, 10 ** 40))
    lower, upper, run = _bracket(factors, plan, ends, excess, retry,
                                 lambda lo, up: width * (lo if lo > 0 else up) / 10,
                                 max_lattice)
    value, err = _enclosure(lower, upper)
    return DeltaResult(value=value, abs_error=err, method=_method(run), digits=3,
                       eps=eps, enclosure=(lower, upper), proven=True)


def epsilon_bracket(x, delta: object, steps: int = 1, *, width: object = DEFAULT_EPS_WIDTH,
                    max_lattice: int = MAX_LATTICE) -> EpsilonResult:
    """A proven bracket on eps(delta), the smallest eps >= 0 with delta(eps) <= delta, for
    ``x`` composed ``steps`` times.  On each lattice interval the measures' curves are
    A - e^eps B, so each end is ln((A - delta) / B) (../shared/NUMERICS.md): the upper
    measure gives the upper end, the lower measure the lower end.

    ``width``: refined until upper - lower <= width (absolute, in eps).
    """
    delta = rational(delta, "delta")
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    T = check_steps(steps, "steps")
    target = to_mpf(positive(width, "width"))
    factors = factors_of(x, T)
    total = _total_steps(factors)

    def ends(run: _Pass):
        with _flint().ctx.workprec(run.plan.prec):
            lower = _eps_end(run.lower, delta, upper=False)
            upper = _eps_end(run.upper, delta, upper=True)
        return max(lower, mpmath.mpf(0)), max(upper, mpmath.mpf(0))

    def retry(plan: _Plan, lower, upper) -> bool:
        """eps too close to the top of the window: reach past it."""
        if not mpmath.isinf(upper) and upper + EPS_MARGIN > to_mpf(plan.hi):
            plan.hi = Fraction(int(mpmath.ceil(upper))) + EPS_MARGIN
            return True
        return False

    plan = _first_plan(factors, None, EPS_MARGIN, delta / (10 ** 6 * total))
    lower, upper, run = _bracket(factors, plan, ends, lambda lo, up: (up - lo) / target, retry,
                                 lambda lo, up: to_mpf(delta) * target, max_lattice)
    value, err = _enclosure(lower, upper)
    return EpsilonResult(value=value, abs_error=err, method=_method(run), digits=3,
                         delta_target=delta, enclosure=(lower, upper), proven=True)


def _eps_end(m: lattice.Measure, delta: Fraction, upper: bool) -> mpmath.mpf:
    """The end of the eps bracket from one measure: the upper measure's root, rounded up,
    or the lower measure's, rounded down; below the lattice range, eps <= x_first."""
    root = lattice.epsilon_of(m, delta)
    if root is None:  # delta(eps) of the measure exceeds delta at the bottom of the window
        return mpmath.mpf(0) if not upper else mp.inf
    ends = _ends(root)
    return ends[1] if upper else ends[0]


def _method(run: _Pass) -> str:
    w = run.plan.window()
    return (f"proven bracket: lattice h = 2^-{run.plan.m}, window [{w.lo}, {w.hi}] h, "
            f"Arb {run.plan.prec} bits, {run.seconds:.1f} s")
