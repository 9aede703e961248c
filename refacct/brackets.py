"""Proven brackets on delta(eps) and eps(delta) for many compositions (T up to 10^5).

For a one-step pair (P, Q) with privacy-loss distribution omega and T steps,

    delta_T(eps) = E[(1 - e^{eps - (L_1 + ... + L_T)})_+]      (001 Sec. 2, Defs. 3-5)

is bracketed by the same expectation under two lattice measures (``engines.lattice.lattice``):
a mean-preserving spread of omega in u = e^{-L} (upper; the connect-the-dots
discretisation of Doroshenko et al., cited in 001) and a mean-preserving contraction
(lower), with every one-step mass an Arb ball (``engines.lattice.loss_cells``), composed by Arb
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
loss, Laplace mixtures with one scale and a single location on one side
(``engines.lattice.loss_cells``), and discrete pairs.  A discrete pair whose loss atoms are all
multiples of one logarithm (randomized response) is composed on its own lattice instead
(``engines.lattice.aligned``): no discretisation, the bracket is the Arb rounding alone.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

import flint
import mpmath
from mpmath import mp

from .engines.lattice import lattice
from .engines.lattice.aligned import AlignedLoss, aligned_loss
from .engines.arb import all_cores, arb_ends, fork_is_safe
from .engines.lattice.loss_cells import Cells, _fraction_mid, one_step_cells
from . import guards, progress
from .engine import Engine, Request
from .maximum import combine
from .allocation import EpochOrders, epoch_orders
from .mechanisms import Allocated
from .mechanisms.entry import Dominated
from .exact import count, eps_parameter, many as is_many, mpf_parts, positive, rational, to_mpf
from .pairs import Composition, Pair, PublicMixture
from .result import (EXACT_EXPONENT_BITS, DeltaResult, EpsilonResult, midpoint_radius,
                     time_limited)
from .errors import InputError, InputTypeError

__all__ = ["Bracket", "BRACKET", "Bracketed", "factors_of"]

DEFAULT_REL_WIDTH = Fraction(1, 100)
DEFAULT_EPS_WIDTH = Fraction(1, 100)
MAX_LATTICE = 15
MAX_LATTICE_CAP = 20  # the largest max_lattice accepted
EPS_MARGIN = 8  # the window reaches eps + 8: delta moves by < e^-8 relative
MAX_EPS_WINDOW = 1024  # epsilon_bracket widens its window up to eps = 1024, no further
MAX_ALIGNED_PREC = 4096  # bits: the precision cap of a discrete loss on its own lattice


@dataclass(frozen=True)
class Bracketed:
    """One factor of a composition: a public mixture of one-step pairs, composed
    ``count`` times.  ``step`` is a list of (weight, Pair)."""

    step: Tuple[Tuple[Fraction, Pair], ...]
    count: int


def factors_of(x, T: int) -> List[Bracketed]:
    """The factors of ``x`` composed T times (see the module docstring for the inputs)."""
    if isinstance(x, Pair) or hasattr(x, "lattice_loss"):   # the latter: random allocation
        return [Bracketed(((Fraction(1), x),), T)]
    if isinstance(x, Composition):
        return [Bracketed(((Fraction(1), p),), n * T) for p, n in x.factors]
    if isinstance(x, PublicMixture):
        if len(x.terms) == 1:
            return factors_of(x.terms[0][1], T)
        pairs = []
        for w, comp in x.terms:
            if comp.steps != 1:
                raise InputError("brackets take a public mixture of one-step pairs; "
                                 "compose it with steps=T")
            pairs.append((w, comp.factors[0][0]))
        return [Bracketed(tuple(pairs), T)]
    raise InputTypeError(f"brackets need a Pair, Composition or PublicMixture, got {type(x).__name__}")


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
    extra: int = 0   # bits the requested width needs beyond the default

    @property
    def h(self) -> Fraction:
        return Fraction(1, 2 ** self.m)

    def window(self) -> lattice.Window:
        tau = flint.arb(self.tau.numerator) / self.tau.denominator
        return lattice.Window(math.floor(self.lo / self.h), math.ceil(self.hi / self.h),
                              tau if self.tau else 0)

    def describe(self, seconds: float) -> str:
        w = self.window()
        return (f"proven bracket: lattice h = 2^-{self.m}, window [{w.lo}, {w.hi}] h, "
                f"Arb {self.prec} bits, {seconds:.1f} s")


@dataclass
class _AlignedPlan:
    """A discrete loss on its own lattice ln b * Z (``engines.lattice.aligned``) at ``prec`` bits."""

    loss: AlignedLoss
    prec: int

    def describe(self, seconds: float) -> str:
        return (f"proven bracket: discrete loss on its own lattice ln({self.loss.base}) Z "
                f"(no discretisation), Arb {self.prec} bits, {seconds:.1f} s")


@dataclass
class _Pass:
    """One evaluation of both lattice measures."""

    plan: _Plan
    upper: lattice.Measure
    lower: lattice.Measure
    seconds: float
    time_limited: bool = False  # the time limit stopped the refinement after this pass


def _evaluate(factors: Sequence[Bracketed], plan: _Plan) -> _Pass:
    """Upper and lower measures of the composition on ``plan``'s lattice and window."""
    start = time.perf_counter()
    sides = {}
    with all_cores():
        with flint.ctx.workprec(plan.prec):
            window = plan.window()
            for f in factors:
                cells = one_step_cells(f.step, plan.h, plan.tail, plan.hi)
                for side, make in (("upper", lattice.upper_measure),
                                   ("lower", lattice.lower_measure)):
                    part = lattice.power(make(cells), f.count, window)
                    sides[side] = part if side not in sides else \
                        lattice.product(sides[side], part, window)
    return _Pass(plan, sides["upper"], sides["lower"], time.perf_counter() - start)


def _run(factors: Sequence[Bracketed], queries: "_Queries", max_lattice: int):
    """([(lower, upper)], last pass): a discrete pair whose loss atoms share one base on
    its own lattice (``_aligned_run``), anything else on the 2^-m lattices (``_bracket``,
    from the plan ``queries.first_plan()``)."""
    if len(factors) == 1 and len(factors[0].step) == 1 and \
            isinstance(factors[0].step[0][1], Pair):
        aligned = aligned_loss(factors[0].step[0][1], factors[0].count)
        if aligned is not None:
            return _aligned_run(aligned, factors[0].count, queries)
    return _bracket(factors, queries.first_plan(), queries, max_lattice)


def _aligned_run(loss: AlignedLoss, T: int, queries: "_Queries"):
    """Passes at doubling precision (rounding is the only error on the aligned lattice)
    until every bracket is narrow enough or ``MAX_ALIGNED_PREC`` bits are reached."""
    prec = 64 + 2 * T.bit_length()
    progress.check()
    while True:
        start = time.perf_counter()
        with all_cores(), flint.ctx.workprec(prec):
            composed = loss.composed(T)
        run = _Pass(_AlignedPlan(loss, prec), composed, composed, time.perf_counter() - start)
        brackets = queries.ends(run)
        if queries.excess(brackets) <= 1 or prec >= MAX_ALIGNED_PREC:
            return brackets, run
        if _no_time_for(2 * run.seconds):
            return brackets, replace(run, time_limited=True)
        prec *= 2


def _first_plan(factors: Sequence[Bracketed], top: Optional[Fraction], margin: Fraction,
                tail: Fraction, width) -> _Plan:
    """A first plan from a coarse pass: the window spans the composed loss's mean -+ 12
    standard deviations and reaches ``margin`` past ``top`` (eps), where the mass left
    above it changes delta(eps) by at most e^-margin relative: mass above x counts
    1 - e^{eps - x} in delta(eps) and at least 1 - e^-1 of it lies above eps + 1.  These
    choices only place the lattice: the bounds are valid for any plan."""
    mean = var = Fraction(0)
    m = 8
    extra = max(0, int(mpmath.ceil(-mpmath.log(width, 2))) - 7)
    with flint.ctx.workprec(64):
        for f in factors:
            mu, v = _moments(one_step_cells(f.step, Fraction(1, 2 ** 8), tail))
            mean += f.count * mu
            var += f.count * v
            m = max(m, _bits_to_resolve(v, 4))  # the lower bound needs h < one-step sd / 4
    sd = _sqrt_up(var)
    m = min(MAX_LATTICE, max(m, _bits_to_resolve(var, 16)))
    top = mean + 12 * sd if top is None else max(top, mean + 12 * sd)
    return _Plan(m, _precision(m, _total_steps(factors), extra), mean - 12 * sd - Fraction(1, 16),
                 top + margin, tail, extra=extra)


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


def _refined(plan: _Plan, over, total_steps: int, max_lattice: int) -> _Plan:
    """The next plan: the bracket width shrinks about 4x per halving of h (both
    discretisations err at second order), so halve h log4(over) times (twice when the
    width is unknown)."""
    jump = 2 if mpmath.isinf(over) else max(1, int(mpmath.ceil(mpmath.log(over, 4))))
    m = min(plan.m + jump, max_lattice)
    return _Plan(m, _precision(m, total_steps, plan.extra), plan.lo, plan.hi, plan.tail,
                 plan.tau, plan.extra)


def _precision(m: int, total_steps: int, extra: int) -> int:
    """Bits: 40 for the answer plus ``extra`` for a narrow requested width, about 2m lost
    to cancellation in S_j, D_j and the spread, log2 T to T-fold products."""
    return 40 + extra + 2 * m + total_steps.bit_length()


def _trim_mass(tolerance, total_steps: int) -> Fraction:
    """Mass each cut may trim off an end of the support: the ~2 log2 T cuts of one side then
    move delta by at most tolerance / 250."""
    share = Fraction(1, 1000 * (2 * total_steps.bit_length() + 2))
    if tolerance and abs(mpf_parts(mp.mpf(tolerance))[1]) > EXACT_EXPONENT_BITS:
        raise InputError(f"proven brackets resolve delta down to 2^-{EXACT_EXPONENT_BITS}; "
                         f"this one needs {mpmath.nstr(tolerance, 3)}: use the default method")
    return Fraction(mpmath.nstr(tolerance, 20, strip_zeros=False).replace(" ", "")) * share


def _shrink(plan: _Plan, run: _Pass, top: Optional[Fraction]) -> None:
    """Narrow the window to where ``run``'s measures hold more than ``plan.tau`` at each
    end (with a margin of 1/16), its top not below ``top`` (what the queries need: a
    measure trimmed at every product underestimates its own upper tail)."""
    with flint.ctx.workprec(run.plan.prec):
        tau = plan.window().tau
        supports = [lattice.support(m, tau) for m in (run.upper, run.lower)]
    h = run.plan.h
    plan.lo = max(plan.lo, min(a for a, _ in supports) * h - Fraction(1, 16))
    needed = max(b for _, b in supports) * h + Fraction(1, 16)
    plan.hi = min(plan.hi, max(needed, top) if top else needed)


def _total_steps(factors: Sequence[Bracketed]) -> int:
    return sum(f.count for f in factors)


def _ends(ball) -> Tuple[mpmath.mpf, mpmath.mpf]:
    """The exact ends of an Arb ball as mpf (no rounding, whatever mp.prec is); a ball
    that is not finite gives +-inf at each end by its sign (+inf itself: (+inf, +inf))."""
    if ball.is_finite():
        return arb_ends(ball)
    return tuple(mp.inf if end > 0 else -mp.inf for end in (ball.lower(), ball.upper()))


def _bracket(factors: Sequence[Bracketed], plan: _Plan, queries: "_Queries",
             max_lattice: int):
    """Passes until every bracket is narrow enough (``_Queries`` says what that means);
    returns ([(lower, upper)], last pass).  A scout pass at h = 2^-8 first sets the
    trimming and the window; each next pass halves h by log4 of the largest excess."""
    total = _total_steps(factors)
    if plan.m > max_lattice:
        plan = _Plan(max_lattice, _precision(max_lattice, total, plan.extra), plan.lo, plan.hi,
                     plan.tail, plan.tau, plan.extra)
    scout = _Plan(8, _precision(8, total, plan.extra), plan.lo, plan.hi, plan.tail,
                  plan.tau, plan.extra)
    current = scout if plan.m > scout.m else plan
    passes = 0
    while True:
        passes += 1  # (past the time limit before the first pass: TimeLimitError)
        progress.note(f"proven bracket, pass {passes} on the lattice h = 2^-{current.m}")
        run = _evaluate(factors, current)
        brackets = queries.ends(run)
        again = queries.retry(current, brackets, run)
        if not again and current is scout:
            plan.lo, plan.hi, plan.tail = current.lo, current.hi, current.tail
        if not again and not plan.tau and all(up > 0 for _, up in brackets):
            plan.tau = _trim_mass(min(queries.tolerance(lo, up) for lo, up in brackets), total)
        refining = not again and current is not scout
        over = queries.excess(brackets) if refining else None
        if refining and (over <= 1 or plan.m >= max_lattice):
            return brackets, run
        last = current
        if current is scout and not again:
            _shrink(plan, run, queries.keep_top(brackets))
            current = plan
        elif refining:
            plan = current = _refined(plan, over, total, max_lattice)
            _shrink(plan, run, queries.keep_top(brackets))
        if _no_time_for(run.seconds * 2 ** (current.m - last.m)):  # the next pass's cost
            return brackets, replace(run, time_limited=True)


def _no_time_for(seconds: float) -> bool:
    """Does the time limit end within ``seconds``, the next pass's cost (estimated as the
    last one's times the growth of the lattice)?  Then stop with the last pass's brackets
    instead of overshooting."""
    return progress.remaining() < seconds


class _Queries:
    """What a kind of query asks of the passes (``_bracket``): ``ends(run)`` a (lower,
    upper) per query; ``excess(brackets)`` how many times too wide the widest bracket is
    (<= 1: done); ``retry(plan, brackets, run)`` widens the plan in place and says whether
    to rerun at the same lattice; ``tolerance(lower, upper)`` the delta-scale tolerance
    that sets the trimmed mass; ``keep_top(brackets)`` the lowest window top the queries
    need (None: any); ``first_plan()`` the plan the scout pass starts from."""

    def __init__(self, factors: Sequence[Bracketed], values: List[Fraction], width) -> None:
        self.factors, self.values, self.width = factors, values, width
        self.total = _total_steps(factors)

    def keep_top(self, brackets) -> Optional[Fraction]:
        return None


class _DeltaQueries(_Queries):
    """delta at each eps, to a relative ``width`` of max(lower, ``floor``)."""

    def __init__(self, factors, values, width, floor) -> None:
        super().__init__(factors, values, width)
        self.floor = floor
        self.previous: List[mpmath.mpf] = []  # the last pass's upper ends

    def first_plan(self) -> _Plan:
        margin = 5 + Fraction(int(mpmath.ceil(-mpmath.log(self.width))))
        return _first_plan(self.factors, max(self.values), margin, Fraction(1, 10 ** 40),
                           self.width)

    def ends(self, run: _Pass):
        with flint.ctx.workprec(run.plan.prec):
            pairs = [(lattice.delta_of(run.lower, e), lattice.delta_of(run.upper, e))
                     for e in self.values]
        return [(max(_ends(lo)[0], mpmath.mpf(0)), _ends(up)[1]) for lo, up in pairs]

    def excess(self, brackets):
        """Relative excess width.  A lower end of 0 (and no floor) has no relative width:
        refine while the upper end still falls (by 4x per pass, as the discretisation
        error does), stop when it does not (an exact 0, or a delta below what the lattice
        resolves); an upper end of 0 is exact."""
        over = []
        for i, (lower, upper) in enumerate(brackets):
            scale = max(lower, self.floor)
            if upper <= 0:
                over.append(mpmath.mpf(0))
            elif scale > 0:
                over.append((upper - lower) / (self.width * scale))
            else:
                over.append(mp.inf if not self.previous or upper < self.previous[i] / 4
                            else 0)
        self.previous = [up for _, up in brackets]
        return max(over)

    def retry(self, plan: _Plan, brackets, run: _Pass) -> bool:
        """A one-step tail that could matter at the smallest delta: shrink it."""
        scale = min(max(lower, self.floor) for lower, _ in brackets)
        if scale > 0 and to_mpf(self.total * plan.tail) > self.width * scale / 1000:
            plan.tail = Fraction(1, 10 ** (2 * int(mpmath.ceil(-mpmath.log10(scale))) + 10))
            return True
        return False

    def tolerance(self, lower, upper):
        return self.width * max(lower, self.floor, upper / 1000) / 10


class _EpsilonQueries(_Queries):
    """eps at each delta, to an absolute ``width``.  On each lattice interval the
    measures' curves are A - e^eps B, so each end is ln((A - delta) / B)
    (docs/numerics.md): the upper measure gives the upper end, the lower measure the
    lower end."""

    widened_from: Optional[mpmath.mpf] = None   # the cut mass before the last widening

    def first_plan(self) -> _Plan:
        """The tolerance is known before any pass (min delta times the width): trimming
        starts with the scout, whose window may have to reach far into the tail."""
        plan = _first_plan(self.factors, None, EPS_MARGIN,
                           min(self.values) / (10 ** 6 * self.total), self.width)
        plan.tau = _trim_mass(self.tolerance(None, None), self.total)
        return plan

    def ends(self, run: _Pass):
        with flint.ctx.workprec(run.plan.prec):
            pairs = [(_eps_end(run.lower, d, upper=False), _eps_end(run.upper, d, upper=True))
                     for d in self.values]
        return [(max(lo, mpmath.mpf(0)), max(up, mpmath.mpf(0))) for lo, up in pairs]

    def excess(self, brackets):
        return max((up - lo) / self.width for lo, up in brackets)

    def retry(self, plan: _Plan, brackets, run: _Pass) -> bool:
        """Mass the window cut off at its top (the upper measure moved it to +inf, the
        lower one down to the top) that could matter at the smallest delta, with an eps
        less than 8 below the top (or an upper end of +inf while the lower end is finite):
        reach past the largest finite upper end + 8, at least doubling the window while an
        upper end is infinite, up to eps = ``MAX_EPS_WINDOW`` (an upper end still
        infinite there is returned as it is: valid, and its width says so).  Not again when
        the last widening left more than half of the cut mass: it lies beyond the one-step
        range, not beyond the window (a loss cut at a range its cells reach,
        ``engines.allocation.cells``)."""
        with flint.ctx.workprec(run.plan.prec):
            cut = _ends(run.upper.infinite - run.lower.infinite)[1]
        last, self.widened_from = self.widened_from, None
        if cut <= self.tolerance(None, None) / 100 or plan.hi >= MAX_EPS_WINDOW or \
                (last is not None and cut > last / 2):
            return False
        top = self.keep_top(brackets) or plan.hi
        if any(mpmath.isinf(up) and not mpmath.isinf(lo) for lo, up in brackets):
            top = max(top, 2 * plan.hi)
        top = min(top, Fraction(MAX_EPS_WINDOW))
        if top > plan.hi:
            plan.hi, self.widened_from = top, cut
            return True
        return False

    def tolerance(self, lower, upper):
        return to_mpf(min(self.values)) * self.width

    def keep_top(self, brackets) -> Optional[Fraction]:
        """The largest finite upper end + ``EPS_MARGIN``."""
        finite = [up for _, up in brackets if not mpmath.isinf(up)]
        return Fraction(int(mpmath.ceil(max(finite)))) + EPS_MARGIN if finite else None


def _checked(steps: object, max_lattice: object, workers: object) -> int:
    """The checks both kinds share; the number of compositions."""
    T = count(steps, "steps")
    _check_lattice_cap(max_lattice)
    count(workers, "workers")
    return T


@progress.reported("delta(eps), proven bracket")
def delta_bracket(x, eps: object, *, steps: int = 1, width: object = DEFAULT_REL_WIDTH,
                  max_lattice: int = MAX_LATTICE, floor: object = 0, workers: int = 1):
    """A proven bracket on delta(eps) = H_{e^eps} of ``x`` composed ``steps`` times
    (001 Definition 3; module docstring for the method).

    ``eps`` is one value or a list (one composition serves them all; a list of results is
    returned).  ``width`` (relative): the bracket is refined until (upper - lower) <=
    width * max(lower, floor) for every eps, or the lattice step reaches 2^-max_lattice
    (``floor``: a delta below which precision is not needed, e.g. the other terms' value
    when a catalogue entry takes a maximum).  Each result is a ``DeltaResult`` with
    ``proven=True``, ``enclosure=(lower, upper)``, ``value`` the midpoint and
    ``abs_error`` the half-width; for a catalogue entry, a ``MechanismDelta`` (the maximum
    over its terms, 001 Sec. 5).  When the door's time limit (``progress.deadline``) runs
    out: the last pass's brackets, marked ``time_limited`` (``TimeLimitError`` before the
    first pass ends).  ``workers``: processes that bracket a catalogue entry's terms side
    by side (``_mechanism``).

    Not a public entry point: users call the door, ``refacct.delta(x, eps,
    method="bracket")``.  This is the engine's own function, with the lattice knobs
    ``max_lattice``, ``floor`` and ``workers``, for its tests and benchmarks.

    >>> from refacct import Pair, Gaussian, Mixture
    >>> P = Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))])
    >>> r = delta_bracket(Pair(P, Gaussian(0, 1)), 1, steps=100)
    >>> r.lower <= r.upper and r.proven
    True
    """
    many = is_many(eps)
    values = [eps_parameter(e) for e in (eps if many else [eps])]
    T = _checked(steps, max_lattice, workers)
    width = positive(width, "width")
    floor = rational(floor, "floor")
    if floor < 0:
        raise InputError(f"floor must be >= 0, got {floor}")
    results = _delta(x, values, T, width=width, max_lattice=max_lattice, floor=floor,
                     workers=workers)
    return results if many else results[0]


def _delta(x, values: List[Fraction], T: int, *, width: Fraction, max_lattice: int,
           floor: Fraction = Fraction(0), workers: int = 1) -> List:
    """``delta_bracket`` on checked input (the bracket engine's call): a list of results."""
    if isinstance(x, Allocated):
        x = epoch_orders(x)
    if isinstance(x, (Dominated, EpochOrders)):
        return _mechanism(x, values, T, "delta", workers,
                          {"width": width, "max_lattice": max_lattice})
    factors = factors_of(x, T)
    brackets, run = _run(factors, _DeltaQueries(factors, values, to_mpf(width),
                                                to_mpf(floor)), max_lattice)
    for e, (lo, up) in zip(values, brackets):
        with mp.workprec(max(run.plan.prec, 64)):
            value, half = midpoint_radius(lo, up)
            guards.check_delta(value, half, mp.exp(to_mpf(e)))
    results = [DeltaResult(*midpoint_radius(lo, up), method=_method(run), digits=3, eps=e,
                           enclosure=(lo, up), proven=True)
               for e, (lo, up) in zip(values, brackets)]
    return _marked(results, run)


@progress.reported("eps(delta), proven bracket")
def epsilon_bracket(x, delta: object, *, steps: int = 1, width: object = DEFAULT_EPS_WIDTH,
                    max_lattice: int = MAX_LATTICE, workers: int = 1):
    """A proven bracket on eps(delta), the smallest eps >= 0 with delta(eps) <= delta, for
    ``x`` composed ``steps`` times (``_EpsilonQueries`` for the ends).

    ``delta`` is one value or a list (a list of results is returned).  ``width``: refined
    until upper - lower <= width (absolute, in eps) for every delta.  Catalogue entries
    give a ``MechanismEpsilon``: eps of a maximum of curves is the maximum of the eps
    (``refacct.maximum``).  The time limit, ``workers``, and the door
    (``refacct.epsilon(x, delta, method="bracket")``): as for ``delta_bracket``.
    """
    many = is_many(delta)
    values = [rational(d, "delta") for d in (delta if many else [delta])]
    T = _checked(steps, max_lattice, workers)
    results = _epsilon(x, values, T, width=positive(width, "width"),
                       max_lattice=max_lattice, workers=workers)
    return results if many else results[0]


def _epsilon(x, values: List[Fraction], T: int, *, width: Fraction, max_lattice: int,
             workers: int = 1) -> List:
    """``epsilon_bracket`` on checked input (the bracket engine's call): a list of
    results; delta outside (0, 1) is refused (eps(0) may be infinite, eps(1) is 0)."""
    for d in values:
        if not 0 < d < 1:
            raise InputError(f"delta must lie in (0, 1), got {d}")
    if isinstance(x, Allocated):
        x = epoch_orders(x)
    if isinstance(x, (Dominated, EpochOrders)):
        return _mechanism(x, values, T, "epsilon", workers,
                          {"width": width, "max_lattice": max_lattice})
    factors = factors_of(x, T)
    brackets, run = _run(factors, _EpsilonQueries(factors, values, to_mpf(width)),
                         max_lattice)
    results = [EpsilonResult(*midpoint_radius(lo, up), method=_method(run), digits=3,
                             delta_target=d, enclosure=(lo, up), proven=True)
               for d, (lo, up) in zip(values, brackets)]
    return _marked(results, run)


def _mechanism(mech, values, T: int, kind: str, workers: int, options: dict) -> List:
    """Brackets of every term of a catalogue entry, maximised per query (001 Sec. 5).  A
    scout (h = 2^-8) of every term comes first: a term whose scout bracket lies below
    another's for every query cannot attain the maximum and keeps its scout bracket; for
    delta, the largest lower end is also a floor below which no term needs relative
    precision.  The remaining terms are bracketed side by side in up to ``workers``
    processes (``_side_by_side``)."""
    run = _delta if kind == "delta" else _epsilon
    labels = [label for label, _ in mech.terms]
    terms = [term for _, term in mech.terms]
    if len(terms) == 1:
        per_term = [run(terms[0], values, T, **options)]
    else:
        scouts = [run(term, values, T, **dict(options, max_lattice=8)) for term in terms]
        best = [max(s[i].lower for s in scouts) for i in range(len(values))]
        if kind == "delta":
            options = dict(options, floor=_fraction_below(min(best)))
        needed = [i for i, scout in enumerate(scouts)
                  if not all(scout[j].upper < best[j] for j in range(len(values)))]
        done = _side_by_side(run, [terms[i] for i in needed], values, T, options, workers)
        per_term = list(scouts)
        for i, results in zip(needed, done):
            per_term[i] = results
    per_term = list(zip(labels, per_term))
    return [combine(kind, [(label, res[i]) for label, res in per_term], mech.bound)
            for i in range(len(values))]


def _side_by_side(run, terms: list, values: list, T: int, options: dict, workers: int):
    """``run(term, values, T, **options)`` for each term: in this process, or with
    ``workers`` > 1 and several terms in worker processes (each gets the time left),
    forked, or spawned while FLINT's thread pool holds threads (``fork_is_safe``).  A
    daemonic process (a worker of a multiprocessing pool) may not start processes: there
    the terms run in this process."""
    import multiprocessing
    if workers == 1 or len(terms) < 2 or multiprocessing.current_process().daemon:
        return [run(term, values, T, **options) for term in terms]
    from concurrent.futures import ProcessPoolExecutor
    left = progress.remaining()
    seconds = None if math.isinf(left) else max(left, 1e-3)
    context = None if fork_is_safe() else multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(terms)), mp_context=context) as pool:
        futures = [pool.submit(_within, seconds, run, term, values, T, options)
                   for term in terms]
        return [future.result() for future in futures]


def _within(seconds: Optional[float], run, term, values: list, T: int, options: dict):
    """``run`` in a worker process, under the time the parent had left."""
    with progress.deadline(seconds):
        return run(term, values, T, **options)


def _check_lattice_cap(max_lattice: object) -> None:
    """max_lattice: an int in [1, MAX_LATTICE_CAP] (h = 2^-20 already means millions of
    lattice points per unit of loss)."""
    if isinstance(max_lattice, bool) or not isinstance(max_lattice, int):
        raise InputTypeError(f"max_lattice must be an int, got {max_lattice!r}")
    if not 1 <= max_lattice <= MAX_LATTICE_CAP:
        raise InputError(f"max_lattice must lie in [1, {MAX_LATTICE_CAP}], got {max_lattice}")


def _eps_end(m: lattice.Measure, delta: Fraction, upper: bool) -> mpmath.mpf:
    """The end of the eps bracket from one measure: the upper measure's root, rounded up,
    or the lower measure's, rounded down; below the lattice range, eps <= x_first."""
    root = lattice.epsilon_of(m, delta)
    if root is None:  # delta(eps) of the measure exceeds delta at the bottom of the window
        return mpmath.mpf(0) if not upper else mp.inf
    ends = _ends(root)
    return ends[1] if upper else ends[0]


def _fraction_below(x) -> Fraction:
    """A rational <= the mpf x >= 0 (2 significant digits suffice for a floor)."""
    if not x:
        return Fraction(0)
    return Fraction(mpmath.nstr(x * mpmath.mpf("0.99"), 2))


def _marked(results: list, run: _Pass) -> list:
    """The results (marked ``time_limited`` when the limit stopped the refinement)."""
    return [time_limited(r) for r in results] if run.time_limited else results


def _method(run: _Pass) -> str:
    return run.plan.describe(run.seconds)


class Bracket(Engine):
    """Proven brackets (module docstring) for the door's ``method="bracket"`` and for
    routing beyond the standard engines' step limits: one composition serves every query;
    a catalogue entry's terms are bracketed side by side, one process per core.  A pair
    the lattices do not take is bad input."""

    name = "proven-bracket"
    kinds = ("delta", "epsilon")
    batch = True
    entries = True

    def answer(self, target, request: Request) -> List:
        run, default = ((_delta, DEFAULT_REL_WIDTH) if request.kind == "delta"
                        else (_epsilon, DEFAULT_EPS_WIDTH))
        try:
            return run(target, list(request.queries), request.steps,
                       width=request.width or default, max_lattice=MAX_LATTICE,
                       workers=os.cpu_count() or 1)
        except ValueError as exc:
            raise InputError(str(exc)) from None


BRACKET = Bracket()
