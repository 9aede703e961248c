"""The engine of the maximum over the orders of a two-outcome pair (``MixedOrders`` of
randomized response under substitution with sampling without replacement) for many steps:
delta(eps), H_alpha and eps(delta) as proven enclosures from ``engines.exact.orders``, one
tree of binomial convolutions for all T + 1 orders, rounded down with a proven slack.

The exact engine sums each order's atoms in rationals, about T^3 / 5 products of T-digit
integers (165 s at 2000 steps); here a pass costs O(T log T) products of fixed-point
numbers.

**eps(delta)** = max_j eps_j(delta) (each delta_j decreases in eps).  The saddle-point
approximation of each delta_j (closed-form cumulant generating functions, orders on a grid)
places an interval [e_lo, e_hi] a few atom spacings D wide around eps; one pass then gives
every order's A_j(n), B_j(n) for the n its thresholds take on it (``thresholds``).  On it
delta(eps) = max over (j, n) of A_jn - e^eps B_jn (each is at most delta_j(eps), and the
true n is among them), each decreasing, so its root is the largest of their roots,

    eps(delta) = max_{j, n : A_jn > delta} ln((A_jn - delta) / B_jn),

a closed form, taken where that maximum lies in [e_lo, e_hi]; else the interval is widened,
and where the approximation missed by more, Illinois steps on ln max_j delta_j(eps) -
ln delta, each a pass of the tree, place it.  A value below the interval's start 0 means
delta(0) <= delta: eps(delta) = 0.  The approximation only places the interval: the
answer's ends come from the pass.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

from mpmath import mp

from . import guards, progress
from .engine import Engine, Request
from .engines.arb import arb_ends, flint, to_arb
from .engines.exact.discrete import pld_of_pair
from .engines.exact.orders import TwoOutcomes, cumulative, thresholds
from .exact import mpf_parts, to_mpf
from .maximum import combine
from .mechanisms.relations import MixedOrders
from .pairs import Pair
from .result import DeltaResult, EpsilonResult, midpoint_radius
from .roots import illinois

__all__ = ["two_outcomes", "Binomial", "BINOMIAL"]

NAME = ("binomial (every order's counts, two binomials, convolved on one tree in fixed "
        "point, rounded down with a proven slack: engines.exact.orders")
MAX_BITS = 1 << 16   # fixed-point bits; beyond, delta is far below any query's interest
SPACINGS = 4         # the closed form's eps interval beyond the steering's, in spacings D
STEER_SPACINGS = 32  # the steering's last interval, in spacings D


def two_outcomes(pair: Pair) -> Optional[TwoOutcomes]:
    """``pair``'s privacy loss as two atoms of positive P- and Q-mass, or None (a
    continuous factor, more atoms, or an atom of ratio inf or 0)."""
    if not pair.is_discrete:
        return None
    pld = pld_of_pair(pair.P, pair.Q)
    if pld.size != 2 or not all(pld.atoms[0] + pld.atoms[1]):
        return None
    (p1, q1), (p2, q2) = pld.atoms
    return TwoOutcomes((Fraction(p1, pld.dp), Fraction(p2, pld.dp)),
                       (Fraction(q1, pld.dq), Fraction(q2, pld.dq)))


def _sup(two: TwoOutcomes, T: int) -> "flint.arb":
    """The largest loss, max(T l_1, -T l_2) (orders T and 0), a ball."""
    l1, l2 = (to_arb(a).log() - to_arb(b).log() for a, b in zip(two.a, two.b))
    return max(T * l1, -T * l2)


def _scaled(x: "flint.arb", bits: int) -> Tuple[int, int]:
    """floor and ceil of x 2^bits, exactly (the ball's ends are exact mpf)."""
    (m_lo, e_lo), (m_hi, e_hi) = (mpf_parts(end) for end in arb_ends(x))
    return _shifted(m_lo, e_lo + bits, False), _shifted(m_hi, e_hi + bits, True)


def _shifted(man: int, exp: int, up: bool) -> int:
    """man 2^exp rounded to an integer, down or up."""
    if exp >= 0:
        return man << exp
    return -((-man) >> -exp) if up else man >> -exp


class _Pass:
    """A_j(n), B_j(n) (P and Q sides) over 2^bits for every order j and n in
    ``ranges[j]``: their lower and upper ends."""

    def __init__(self, two: TwoOutcomes, T: int, ranges, bits: int) -> None:
        self.ranges, self.bits = ranges, bits
        self.c = {side: cumulative(two, T, side, ranges, bits) for side in "PQ"}

    def masses(self, j: int):
        """(A_lo, A_hi, B_lo, B_hi) for each n of order j's range."""
        (a, da), (b, db) = ((c.values[j], c.slack[j]) for c in (self.c["P"], self.c["Q"]))
        return ((x, x + da, y, y + db) for x, y in zip(a, b))


def _log_ends(two: TwoOutcomes, alpha_ball):
    """ln of the ends of ``alpha_ball`` (alpha > 0), rounded far below the atoms' spacing
    D (``thresholds`` divides eps by D and allows an error below 1): every eps in the ball
    gets its count in the range."""
    lo, hi = arb_ends(alpha_ball)
    with mp.workprec(64):
        spacing = mp.log(to_mpf(two.a[0] * two.b[1] / (two.a[1] * two.b[0])))
        extra = int(mp.ceil(mp.log(abs(mp.log(hi)) + 1, 2) - mp.log(spacing, 2)))
    with mp.workprec(64 + max(0, extra)):
        return mp.log(lo), mp.log(hi)


def _delta_pass(two: TwoOutcomes, T: int, alpha_ball, bits: int):
    """(lower, upper, the orders whose upper end reaches the lower one) of max_j delta_j at
    e^eps in ``alpha_ball``, integers over 2^(2 bits)."""
    ranges = thresholds(two, T, *_log_ends(two, alpha_ball))
    run = _Pass(two, T, ranges, bits)
    a_lo, a_hi = _scaled(alpha_ball, bits)
    uppers, best_lo = [], 0
    for j in range(T + 1):
        top = 0
        for A_lo, A_hi, B_lo, B_hi in run.masses(j):
            best_lo = max(best_lo, (A_lo << bits) - a_hi * B_hi)
            top = max(top, (A_hi << bits) - a_lo * B_lo)
        uppers.append(top)
    best_hi = max(uppers)
    return best_lo, best_hi, [j for j, top in enumerate(uppers) if top >= best_lo]


def _bits(digits: int, T: int, scale: int = 0) -> int:
    """Fixed-point bits for ``digits`` at a value of about 2^-scale: T log T roundings of
    2^-bits each at most."""
    return min(MAX_BITS, scale + int(digits * 3.33) + 2 * T.bit_length() + 40)


def _runs(js: Sequence[int]) -> str:
    """"j=3..7, j=9" for the orders 3, 4, 5, 6, 7, 9."""
    out, start = [], None
    for k, j in enumerate(js):
        if start is None:
            start = j
        if k + 1 == len(js) or js[k + 1] != j + 1:
            out.append(f"j={start}" if start == j else f"j={start}..{j}")
            start = None
    return ", ".join(out)


def _scale(upper: int, bits: int) -> int:
    """About -log2 of upper / 2^bits (a positive integer)."""
    return max(0, bits - upper.bit_length())


def delta_at(two: TwoOutcomes, T: int, alpha_ball, digits: int):
    """(lower, upper, labels) of max_j H_alpha over the orders (mpf ends), alpha in
    ``alpha_ball``; delta's scale found by a first pass.  B's rounding is multiplied by
    alpha, so the bits grow with log2 alpha."""
    grow = max(0, int(mp.ceil(mp.log(arb_ends(alpha_ball)[1] + 1, 2))))
    bits = _bits(digits, T, grow)
    while True:
        lo, hi, js = _delta_pass(two, T, alpha_ball, bits)
        scale = _scale(hi, 2 * bits)
        wanted = _bits(digits, T, scale + grow)
        if hi == 0 or lo > 0 and (hi - lo) * 10 ** digits <= lo or wanted <= bits or \
                bits >= MAX_BITS:
            break
        bits = wanted
    with mp.workprec(2 * bits + 64):
        one = mp.ldexp(1, -2 * bits)
        return mp.mpf(lo) * one, mp.mpf(hi) * one, _runs(js)


# --- eps(delta) ------------------------------------------------------------------------------

def _target_bits(delta: Fraction) -> int:
    """-log2(delta) to within one, exactly."""
    return max(0, delta.denominator.bit_length() - delta.numerator.bit_length())


def _steer(two: TwoOutcomes, T: int, delta: Fraction):
    """g(eps) = ln max_j delta_j(eps) - ln delta at about 10 digits, at the scale of delta
    and of e^eps (only to steer: the answer's ends are proven by ``_closed``)."""
    ln_delta = mp.log(mp.mpf(delta.numerator)) - mp.log(delta.denominator)

    def g(eps):
        progress.check()
        bits = _bits(10, T, _target_bits(delta) + int(mp.ceil(eps * 1.5)) + 2)
        with flint.ctx.workprec(bits + 64):
            alpha = to_arb(eps).exp()
        lo, _, _ = _delta_pass(two, T, alpha, bits)
        if lo <= 0:
            return mp.ninf
        return mp.log(lo) - 2 * bits * mp.ln2 - ln_delta
    return g


def _closed(two: TwoOutcomes, T: int, delta: Fraction, e_lo, e_hi, digits: int):
    """The ends of max over (j, n) of ln((A_jn - delta) / B_jn) for the n that the orders'
    thresholds take on [e_lo, e_hi] (module docstring), each rounded outward, and the orders
    that may attain it; None where no (j, n) has A_jn above delta for certain."""
    bits = _bits(digits, T, _target_bits(delta) + int(mp.ceil(e_hi * 1.5)) + 2)
    run = _Pass(two, T, thresholds(two, T, e_lo, e_hi), bits)
    # delta over 2^bits, down and up
    d_lo = (delta.numerator << bits) // delta.denominator
    d_hi = -((-(delta.numerator << bits)) // delta.denominator)
    lo_best: Optional[Tuple[int, int]] = None   # (numerator, denominator) of the ratio
    hi_best: Optional[Tuple[int, int]] = None
    tops: List[Tuple[int, int]] = []
    for j in range(T + 1):
        top = None
        for A_lo, A_hi, B_lo, B_hi in run.masses(j):
            if A_lo > d_hi and (lo_best is None or
                                (A_lo - d_hi) * lo_best[1] > lo_best[0] * B_hi):
                lo_best = (A_lo - d_hi, B_hi)
            if A_hi > d_lo:
                if B_lo == 0:
                    return None
                if top is None or (A_hi - d_lo) * top[1] > top[0] * B_lo:
                    top = (A_hi - d_lo, B_lo)
        if top is not None:
            tops.append((j, top))
            if hi_best is None or top[0] * hi_best[1] > hi_best[0] * top[1]:
                hi_best = top
    if lo_best is None or hi_best is None:
        return None
    with flint.ctx.workprec(bits + 64):
        lower = arb_ends(flint.arb(lo_best[0]).log() - flint.arb(lo_best[1]).log())[0]
        upper = arb_ends(flint.arb(hi_best[0]).log() - flint.arb(hi_best[1]).log())[1]
        floor = flint.arb(lo_best[0]) / lo_best[1]
    js = [j for j, (a, b) in tops
          if not flint.arb(a) / b < floor]   # orders whose upper ratio reaches the lower one
    return lower, upper, _runs(js)


def _chernoff_end(two: TwoOutcomes, T: int, delta: Fraction):
    """An eps where delta(eps) < delta, to start the steering: for every order j and
    lam > 0, delta_j(eps) <= P(L_j > eps) <= M_j(lam) e^(-lam eps) (Markov), with
    ln M_j = j ln M_A(lam) + (T - j) ln M_B(lam) <= T max(ln M_A, ln M_B), M_A(lam) =
    a_1 r_1^lam + a_2 r_2^lam for the steps A || B and M_B likewise for B || A; the
    least such eps over lam = 2^-12 ... 2^6."""
    ln_delta = mp.log(mp.mpf(delta.numerator)) - mp.log(delta.denominator)
    a = [to_mpf(x) for x in two.a]
    b = [to_mpf(x) for x in two.b]
    best = mp.inf
    for k in range(-12, 7):
        lam = mp.ldexp(1, k)
        forward = mp.log(sum(x * (x / y) ** lam for x, y in zip(a, b)))
        backward = mp.log(sum(y * (y / x) ** lam for x, y in zip(a, b)))
        best = min(best, (T * max(forward, backward) - ln_delta) / lam)
    return best


def _saddle(two: TwoOutcomes, T: int, j: int, eps):
    """ln delta_j(eps) by the saddle-point approximation (Alghamdi et al., "The saddle-point
    method in differential privacy", ICML 2023, arXiv:2208.09595) of the inversion integral
    of M_j(z) e^(-z eps) / (z (z + 1)): e^(phi(c)) / sqrt(2 pi phi''(c)) at the real saddle
    point phi'(c) = 0 of phi(z) = K(z) - z eps - ln z - ln(1 + z), K = ln M_j the loss's
    cumulant generating function under P (j steps A || B, T - j steps B || A); 0 where eps
    is below the mean loss.  Only to steer."""
    l = [mp.log(to_mpf(a)) - mp.log(to_mpf(b)) for a, b in zip(two.a, two.b)]
    sides = ((j, [to_mpf(a) for a in two.a], l), (T - j, [to_mpf(b) for b in two.b],
                                                   [-x for x in l]))

    def moments(c):
        k = k1 = k2 = mp.zero
        for n, w, x in sides:
            if n:
                t = [wi * mp.exp(c * xi) for wi, xi in zip(w, x)]
                m1 = sum(ti * xi for ti, xi in zip(t, x)) / sum(t)
                k += n * mp.log(sum(t))
                k1 += n * m1
                k2 += n * (sum(ti * xi ** 2 for ti, xi in zip(t, x)) / sum(t) - m1 ** 2)
        return k, k1, k2
    if moments(mp.zero)[1] >= eps:
        return mp.zero
    if j * l[0] - (T - j) * l[1] <= eps:   # at or beyond order j's largest loss
        return mp.ninf
    c = mp.one
    for _ in range(60):
        _, k1, k2 = moments(c)
        step = (k1 - 1 / c - 1 / (1 + c) - eps) / (k2 + 1 / c ** 2 + 1 / (1 + c) ** 2)
        c = c - step if c - step > 0 else c / 2
        if abs(step) < mp.mpf(10) ** -12 * c:
            break
    k, _, k2 = moments(c)
    return k - c * eps - mp.log(c * (1 + c)) - \
        mp.log(2 * mp.pi * (k2 + 1 / c ** 2 + 1 / (1 + c) ** 2)) / 2


def _saddle_epsilon(two: TwoOutcomes, T: int, delta: Fraction, end, spacing):
    """eps where max_j of the saddle-point delta_j meets delta (orders on a grid of 33 and
    their best's neighbours), by bisection on [0, end] to a quarter of the spacing D:
    where the closed form's interval is placed first."""
    ln_delta = mp.log(mp.mpf(delta.numerator)) - mp.log(delta.denominator)
    grid = sorted({T * i // 32 for i in range(33)})

    def best(eps) -> "mp.mpf":
        values = {j: _saddle(two, T, j, eps) for j in grid}
        top = max(values, key=values.get)
        near = range(max(0, top - T // 32), min(T, top + T // 32) + 1, max(1, T // 256))
        return max([values[top]] + [_saddle(two, T, j, eps) for j in near])
    lo, hi = mp.zero, end
    while hi - lo > spacing / 4:
        mid = (lo + hi) / 2
        if best(mid) > ln_delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def epsilon_at(two: TwoOutcomes, T: int, delta: Fraction, digits: int):
    """(lower, upper, labels) of eps(delta) for 0 < delta < 1 (module docstring)."""
    with flint.ctx.workprec(128):
        top = arb_ends(_sup(two, T))[1]
        spacing = arb_ends(to_arb(two.a[0] * two.b[1] / (two.a[1] * two.b[0])).log())[1]
    with mp.workprec(128):
        end = min(top, _chernoff_end(two, T, delta))
        with mp.workprec(64):
            guess = _saddle_epsilon(two, T, delta, end, spacing)
        found = _closed_around(two, T, delta, guess, guess, spacing, top, digits)
        if found is None:     # the saddle point missed: steer by passes of the tree
            g = _steer(two, T, delta)
            lo, hi = (mp.zero, spacing) if g(mp.zero) <= 0 else \
                illinois(g, mp.zero, end, STEER_SPACINGS * spacing / max(1, end))
            found = _closed_around(two, T, delta, lo, hi, spacing, top, digits)
        if found is None:
            raise ArithmeticError("the binomial engine's closed form of eps(delta) found no "
                                  "root inside its interval after the steering: an internal "
                                  "error")
    lower, upper, labels = found
    if upper <= 0:     # delta(0) <= delta
        return mp.zero, mp.zero, labels
    return max(lower, mp.zero), upper, labels


def _closed_around(two, T, delta, lo, hi, spacing, top, digits):
    """``_closed`` on [lo, hi] widened by ``SPACINGS`` spacings a side, then four times as
    many, until its root lies inside; None after three tries."""
    width = SPACINGS * spacing
    for _ in range(3):
        e_lo, e_hi = max(mp.zero, lo - width), min(top, hi + width)
        found = _closed(two, T, delta, e_lo, e_hi, digits)
        if found is not None and found[1] <= e_hi and (found[0] >= e_lo or e_lo == 0):
            return found
        width *= 4
    return None


# --- the engine ------------------------------------------------------------------------------

class Binomial(Engine):
    """Proven enclosures over the T + 1 orders of a two-outcome pair (``MixedOrders``),
    T = ``request.steps``."""

    name = "binomial"
    kinds = ("delta", "epsilon", "alpha")

    def supports(self, target) -> Optional[str]:
        if not isinstance(target, MixedOrders) or two_outcomes(target.pair) is None:
            return ("the binomial engine takes the mixed orders of a pair of two outcomes, "
                    "both masses positive")
        return None

    def answer(self, target, request: Request) -> List:
        two, T = two_outcomes(target.pair), request.steps
        out = []
        for q in request.queries:
            progress.note(f"{request.kind} over {T + 1} orders")
            found = {"delta": _delta, "alpha": _alpha, "epsilon": _epsilon}[request.kind](
                two, T, q, request.digits)
            label, result = found
            out.append(combine(request.kind, [(label, result)], target.bound))
        return out


def _delta(two: TwoOutcomes, T: int, eps: Fraction, digits: int):
    with flint.ctx.workprec(_bits(digits, T) + 64):
        if to_arb(eps) >= _sup(two, T):   # proven at or beyond the largest loss
            return "j=0..%d" % T, _delta_result(mp.zero, mp.zero, digits, mp.exp(to_mpf(eps)),
                                                eps=eps)
        alpha = to_arb(eps).exp()
    lo, hi, labels = delta_at(two, T, alpha, digits)
    return labels, _delta_result(lo, hi, digits, mp.exp(to_mpf(eps)), eps=eps)


def _alpha(two: TwoOutcomes, T: int, alpha: Fraction, digits: int):
    if alpha == 0:
        return "j=0..%d" % T, _delta_result(mp.one, mp.one, digits, mp.zero, alpha=alpha)
    with flint.ctx.workprec(_bits(digits, T) + 64):
        if to_arb(alpha).log() >= _sup(two, T):
            return "j=0..%d" % T, _delta_result(mp.zero, mp.zero, digits, to_mpf(alpha),
                                                alpha=alpha)
    lo, hi, labels = delta_at(two, T, to_arb(alpha), digits)
    return labels, _delta_result(lo, hi, digits, to_mpf(alpha), alpha=alpha)


def _delta_result(lo, hi, digits: int, strike, **query) -> DeltaResult:
    with mp.workprec(max(mp.prec, 256)):
        value, radius = midpoint_radius(lo, hi)
        guards.check_delta(value, radius, strike)
    return DeltaResult(value, radius, NAME + ")", digits, enclosure=(lo, hi), proven=True,
                       **query)


def _epsilon(two: TwoOutcomes, T: int, delta: Fraction, digits: int):
    if delta >= 1:
        return "j=0..%d" % T, EpsilonResult(mp.zero, mp.zero, NAME + "; delta >= 1)", digits,
                                            delta, enclosure=(mp.zero, mp.zero), proven=True)
    if delta == 0:
        with flint.ctx.workprec(4 * digits + 64):
            lo, hi = arb_ends(_sup(two, T))
        value, radius = midpoint_radius(lo, hi)
        return "j=0, j=%d" % T, EpsilonResult(
            value, radius, NAME + "; eps(0) = the largest loss)", digits, delta,
            enclosure=(lo, hi), proven=True)
    lo, hi, labels = epsilon_at(two, T, delta, digits)
    value, radius = midpoint_radius(lo, hi)
    return labels, EpsilonResult(value, radius, NAME + "; eps in closed form on the atoms "
                                 "around it)", digits, delta, enclosure=(lo, hi), proven=True)


BINOMIAL = Binomial()
