"""Random allocation (balls-and-bins): the Gaussian mechanism with each record in exactly
one of the t steps of an epoch, as proven balls (docs/random-allocation.md).

**The pair** (Chua, Ghazi, Harrison, Kamath, Kumar, Leeman, Manurangsi, Sinha, Zhang,
"Balls-and-Bins Sampling for DP-SGD", AISTATS 2025, arXiv:2412.16802): P = (1/t) sum_i
N(e_i, sigma^2 I_t) against Q = N(0, sigma^2 I_t), add-remove.  Its likelihood ratio is
X = (1/t) sum_i Z_i, Z_i = e^{(w_i - 1/2)/sigma^2} independent lognormals of mean 1 and log-
scale b = 1/sigma under Q (``proofs/2412_16802_balls_and_bins_pair.py``), so

    H_{e^eps}(P || Q) = E[(X - e^eps)_+] = f(e^eps) - e^eps + 1,
    H_{e^eps}(Q || P) = E[(1 - e^eps X)_+] = e^eps f(e^{-eps}),

with f(K) = E[(K - X)_+] the put (the first line is put-call parity, E X = 1), a proven ball
by inversion of E[e^{-sX}] = phi(s/t)^t for t >= 3 (``engines.allocation.put``).  The
inversion's integrand decays like the characteristic function of X, fast for many steps and
slowly for few: at t = 2 it is still 1e-22 at 10^4, so t = 2 conditions on one lognormal
instead, which leaves one rigorous integral of the one-lognormal put
(``engines.allocation.two``).  t = 1 is the Gaussian mechanism (sampling none).

The tolerance is absolute; delta can be 1e-100, so a first pass finds delta's scale and a
second is made at 10^-(digits + 3) of it when the first is not fine enough.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple, Union

import mpmath
from mpmath import mp

from . import guards
from .engine import Engine, Request
from .errors import OutOfReach
from .engines.allocation.cells import AllocationLoss, allocation_loss
from .engines.allocation.put import Table, plan, put, table
from .engines.allocation.two import TwoSteps
from .engines.arb import arb, arb_ends, arb_mid_rad, dyadic_mpf, flint, to_arb
from .exact import count, digits_parameter, eps_parameter, positive, probability, to_mpf
from .maximum import MechanismDelta, MechanismEpsilon, maximum, maximum_epsilon
from .mechanisms.catalogue import Allocated
from .result import DeltaResult, EpsilonResult
from .roots import illinois

__all__ = ["allocation_delta", "allocation_both_orders", "allocation_epsilon", "epoch_orders",
           "EpochOrders", "Allocation", "ALLOCATION"]

_PAPER = "Chua et al. (arXiv:2412.16802)"


def _bits(tolerance_log2: int, t: int) -> int:
    """Working bits for an absolute tolerance 2^-tolerance_log2 (times the strike): the
    inversion's terms reach e^{c K} = 2^tolerance_log2 e^5 (``put.table``), and the power
    t multiplies phi's relative error by t."""
    return 80 + 2 * tolerance_log2 + t.bit_length()


@dataclass(frozen=True)
class _Order:
    """One order of the pair: H(P || Q) = put(e^eps) - e^eps + 1, or with ``swap``
    H(Q || P) = e^eps put(e^-eps)."""

    sigma: Fraction
    t: int
    swap: bool

    def strike(self, eps: Fraction) -> "arb":
        return (to_arb(-eps if self.swap else eps)).exp()

    def table(self, eps: Fraction, tolerance_log2: int, *,
              planned: bool = False) -> Union[Table, TwoSteps, None]:
        """Nodes for every strike up to ``strike(eps)``: every eps' <= eps, or with
        ``swap`` every eps' >= eps; the inversion's aliasing and truncation below
        2^-tolerance_log2 times that strike (t = 2: the integral's tolerance).  With
        ``planned`` only the check that the table is within the node budget (``OutOfReach``
        if not), None."""
        bits = _bits(tolerance_log2, self.t)
        with flint.ctx.workprec(bits):
            k_max = arb(self.strike(eps).upper())
            b = 1 / to_arb(self.sigma)
            if self.t == 2:
                return None if planned else TwoSteps(b, k_max, tolerance_log2, bits)
            make = plan if planned else table
            found = make(self.t, b, k_max, k_max * arb(2) ** -tolerance_log2, bits)
            return None if planned else found

    def value(self, tab: Union[Table, TwoSteps], eps: Fraction) -> "arb":
        with flint.ctx.workprec(tab.bits):
            K = self.strike(eps)
            f = tab.put(K) if isinstance(tab, TwoSteps) else put(tab, K)
            return f / K if self.swap else f - K + 1

    @property
    def how(self) -> str:
        """How the put is computed, for a result's ``method``."""
        if self.t == 2:
            return "one integral of the one-lognormal put, conditioned on the other lognormal"
        return "Laplace transform of the lognormal sum inverted on a line"

    def ball(self, eps: Fraction, tolerance_log2: int) -> "arb":
        return self.value(self.table(eps, tolerance_log2), eps)

    def lattice_loss(self) -> AllocationLoss:
        """This order's loss on lattice cells: the proven brackets compose it over epochs
        (``refacct.brackets``); the cells' masses come from the inversion's table, which
        does not reach t = 2."""
        if self.t < 3:
            raise OutOfReach("random allocation over several epochs is computed here for at "
                             "least 3 steps an epoch (its lattice cells come from the "
                             "inversion of the lognormal sum's transform, which decays too "
                             f"slowly at t = {self.t}); one epoch of t = 2 is answered, and "
                             "from 2 epochs the transform takes t = 2 at sigma >= 1/16 "
                             "where sigma^2 t / E <= 10^6 (refacct.routing)")
        return allocation_loss(self.sigma, self.t, self.swap)


MIN_STEPS = 2  # one step is the Gaussian mechanism


def _checked_order(sigma: object, steps: object, swap: object) -> _Order:
    if not isinstance(swap, bool):
        raise TypeError(f"swap must be a bool, got {swap!r}")
    t = count(steps, "steps")
    if t < MIN_STEPS:
        raise OutOfReach(f"random allocation is computed here for at least {MIN_STEPS} steps "
                         f"an epoch, got {t}: one step is the Gaussian mechanism (sampling "
                         "none)")
    return _Order(positive(sigma, "sigma"), t, swap)


@dataclass(frozen=True)
class EpochOrders:
    """A random-allocation entry's orders as the terms of a maximum, (label, one-epoch
    order), as a ``Dominated`` entry lists its terms: the proven brackets compose each over
    the epochs (``lattice_loss``) and take the larger (each order is its own worst case)."""

    terms: Tuple[Tuple[str, _Order], ...]
    bound: str = "tight"


def epoch_orders(entry: Allocated) -> EpochOrders:
    """The orders ``entry``'s relation takes, checked."""
    return EpochOrders(tuple((label, _checked_order(entry.sigma, entry.steps, swap))
                             for label, swap in entry.orders))


def _wanted(digits: int) -> int:
    return int(digits * math.log2(10)) + 12


def allocation_delta(sigma: object, steps: object, eps: object, *, swap: bool = False,
                     digits: int = 20) -> DeltaResult:
    """H_{e^eps}(P || Q) for one allocation among t = ``steps`` steps of the Gaussian
    mechanism with noise ``sigma`` (sensitivity 1), H(Q || P) with ``swap``: a proven ball
    (module docstring).  Refused for too few steps (``OutOfReach``)."""
    order = _checked_order(sigma, steps, swap)
    e, digits = eps_parameter(eps), digits_parameter(digits)
    want = _wanted(digits)
    ball = order.ball(e, want)
    if ball > 0 and not ball.rad() < ball.mid() * arb(2) ** -want:
        scale = -int(mpmath.floor(mpmath.log(arb_ends(ball)[0], 2)))  # delta may be 1e-400
        ball = order.ball(e, want + scale + 4)
    elif not ball > 0:
        ball = order.ball(e, want + 400)
    return _result(ball, order, e, digits)


def _result(ball: "arb", order: _Order, e: Fraction, digits: int) -> DeltaResult:
    if not ball > 0:
        # both orders are hockey-stick divergences, >= 0: a ball around a delta below the
        # tolerance keeps its nonnegative part [0, upper] (rounded outward at any precision)
        with flint.ctx.workprec(64):
            ball = ball.nonnegative_part()
    if not ball < 1 and not ball > 0:
        # and <= 1: a tolerance relative to a huge strike (t = 2 at eps ~ 10^3) can leave
        # a ball [0, upper] far wider than that; [0, 1] exactly
        ball = arb("0.5", "0.5")
    value, radius = arb_mid_rad(ball)
    with mp.workprec(max(ball.rel_accuracy_bits(), 0) + 128):
        guards.check_delta(value, radius, mp.exp(to_mpf(e)))
    which = "H(Q || P)" if order.swap else "H(P || Q)"
    return DeltaResult(value, radius, f"{which} of the random-allocation pair of {_PAPER}, "
                       f"t = {order.t}: {order.how} (python-flint {flint.__version__}: "
                       "acb.integral, Arb balls; every error term bounded)", digits, eps=e,
                       enclosure=arb_ends(ball), proven=True)


_BOTH = (("remove", False), ("add", True))


def allocation_both_orders(sigma: object, steps: object, eps: object, *, digits: int = 20,
                           orders: Sequence[Tuple[str, bool]] = _BOTH) -> MechanismDelta:
    """max(H(P || Q), H(Q || P)) at e^eps: delta(eps) of one epoch of random allocation
    for either order of the neighbouring datasets ("remove": H(P || Q), P the mixture;
    "add": H(Q || P)); ``orders`` (label, swap) takes one of them."""
    return maximum([(label, allocation_delta(sigma, steps, eps, swap=swap, digits=digits))
                    for label, swap in orders], "tight")


# --- eps(delta) ------------------------------------------------------------------------------

def _below(order: _Order, tab: Table, eps: Fraction, target: Fraction) -> int:
    """+1 where delta(eps) > target is proven, -1 where delta(eps) < target, else 0."""
    with flint.ctx.workprec(tab.bits):
        gap = order.value(tab, eps) - to_arb(target)
        return 1 if gap > 0 else -1 if gap < 0 else 0


def _upper_end(order: _Order, target: Fraction, coarse: int, final) -> Fraction:
    """An eps > 0 with delta(eps) < target proven, doubling from 1/2.  Before each table,
    the last table the search would need at that end (tolerance ``final(hi)``) is checked
    against the node budget: a larger end needs more nodes, so a query the budget refuses
    is refused at once, not after minutes of smaller tables."""
    hi = Fraction(1, 2)
    while True:
        order.table(Fraction(0) if order.swap else hi, final(hi), planned=True)
        tab = order.table(Fraction(0) if order.swap else hi, coarse)
        if _below(order, tab, hi, target) < 0:
            return hi
        hi *= 2


def _dyadic(x, bits: int, up: bool) -> Fraction:
    """x rounded to a multiple of 2^-bits, up or down."""
    scaled = mpmath.ceil(x * 2 ** bits) if up else mpmath.floor(x * 2 ** bits)
    return Fraction(int(scaled), 2 ** bits)


def allocation_epsilon_order(order: _Order, target: Fraction, digits: int) -> EpsilonResult:
    """The eps at which ``order``'s delta(eps) equals ``target`` (0 where delta(0) <=
    target), bracketed by proven delta balls on either side: Illinois steps on
    ln delta(eps) - ln target steer, one table of nodes for the whole bracket serves every
    step, and the bracket's two ends are then checked with their balls."""
    method = (f"{'H(Q || P)' if order.swap else 'H(P || Q)'} of the random-allocation pair "
              f"of {_PAPER}, t = {order.t}: eps bracketed by proven delta(eps) balls "
              f"({order.how})")
    # -log2(target) to within one, exactly (a float of target is 0 below 1e-308)
    scale = max(0, target.denominator.bit_length() - target.numerator.bit_length()) + 5
    coarse = scale + 24
    if _below(order, order.table(Fraction(0), coarse), Fraction(0), target) < 0:
        return EpsilonResult(mp.zero, mp.zero, method + "; delta(0) <= delta", digits,
                             target, enclosure=(mp.zero, mp.zero), proven=True)
    want = _wanted(digits)

    def final(end: Fraction) -> int:
        return scale + want + (int(end) + 1) * 2
    hi = _upper_end(order, target, coarse, final)
    tab = order.table(Fraction(0) if order.swap else hi, final(hi))
    with mp.workprec(tab.bits):
        ln_goal = mp.log(to_mpf(target))

        def g(x):
            with flint.ctx.workprec(tab.bits):
                v = order.value(tab, _dyadic(x, want + 8, True)).mid()
            return mp.log(mp.mpf(v.str(40, radius=False))) - ln_goal if v > 0 else -mp.inf

        lo_x, hi_x = illinois(g, mp.zero, to_mpf(hi), mp.mpf(2) ** -want)
        lo, up = _dyadic(lo_x, want + 8, False), _dyadic(hi_x, want + 8, True)
        width = Fraction(1, 2 ** (want + 8))
        while lo > 0 and _below(order, tab, lo, target) <= 0:
            lo, width = max(Fraction(0), lo - width), 2 * width
        width = Fraction(1, 2 ** (want + 8))
        while up < hi and _below(order, tab, up, target) >= 0:  # hi: proven by _upper_end
            up, width = min(hi, up + width), 2 * width
    value, radius = dyadic_mpf((lo + up) / 2), dyadic_mpf((up - lo) / 2)
    return EpsilonResult(value, radius, method, digits, target,
                         enclosure=(dyadic_mpf(lo), dyadic_mpf(up)), proven=True)


def allocation_epsilon(sigma: object, steps: object, delta: object, *, digits: int = 20,
                       orders: Sequence[Tuple[str, bool]] = _BOTH) -> MechanismEpsilon:
    """eps(delta) of one epoch of random allocation for either order of the neighbouring
    datasets: the larger of the two orders' eps, each bracketed by proven balls
    (``orders`` as for ``allocation_both_orders``)."""
    target = probability(delta, "delta")
    if target == 0:
        raise ValueError("delta must be > 0: the random-allocation loss is unbounded, so "
                         "eps(0) is infinite")
    digits = digits_parameter(digits)
    return maximum_epsilon(
        [(label, allocation_epsilon_order(_checked_order(sigma, steps, swap), target, digits))
         for label, swap in orders], "tight")


class Allocation(Engine):
    """The engine of a random-allocation catalogue entry (``refacct.mechanisms.Allocated``):
    one epoch, the orders its relation takes."""

    name = "random-allocation"
    kinds = ("delta", "epsilon")

    def supports(self, target) -> Optional[str]:
        if not isinstance(target, Allocated):
            return "the random-allocation engine answers random-allocation entries only"
        if target.epochs != 1:
            return "its balls are for one epoch: proven brackets compose epochs"
        return None

    def answer(self, target, request: Request) -> List:
        run = allocation_epsilon if request.kind == "epsilon" else allocation_both_orders
        return [run(target.sigma, target.steps, q, digits=request.digits,
                    orders=target.orders) for q in request.queries]


ALLOCATION = Allocation()
