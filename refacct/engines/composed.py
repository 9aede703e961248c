"""Compositions with continuous factors, by recursion and quadrature.

001 Sec. 2 / ../shared/NUMERICS.md, "Composition":

    H_alpha(P1 x R || Q1 x S) = integral p1(y) H_{alpha q1(y) / p1(y)}(R || S) dy,

so k continuous steps are a (k-1)-fold nested integral over the closed-form one-step engine
(``onestep``).  Discrete factors are collapsed into one exact PLD first and summed over its
atoms: H_alpha(D x R || D' x S) = sum_r p_r H_{alpha / r}(R || S) (H_0 = 1 for r = inf).

Quadrature in y, per level:
* breakpoints at the kinks of p1 and q1 (Laplace locations) and at the y where
  alpha q1(y)/p1(y) = e^c for a critical loss c of the inner product (``inner_atoms``):
  there the inner H kinks (Laplace atoms, corners of the loss) or is not analytic at all
  (Gaussian mixtures: the finite limit of the loss, where H_b = 1 - b on one side; smooth
  extrema);
* Laplace outer factors: beyond the extreme locations the loss is constant, so each tail
  is its P1-mass times one inner value; only the span between the locations is integrated;
* otherwise a scan on a lattice of one feature width (noise scale) locates where the
  integrand lives and how far out to go: the range stops where the outer tail mass
  P1(|Y| > R), a rigorous bound on the dropped part (inner H <= 1), is below
  10^-(digits + 5) of the peak times the width; the bound of the outermost level is
  reported in the error;
* pieces of two feature widths (cut at the breakpoints) are integrated with Gauss-Legendre,
  the node count set by the digits the piece needs relative to the peak (pieces 10^-d below
  the peak need d digits fewer, and so do the inner values computed for them); rule 1 uses
  more nodes and pieces shifted by one feature width, so the two evaluations share neither
  nodes nor cuts.  Pieces ending at a non-analytic point: tanh-sinh (rule 1 also cuts the
  piece at its midpoint).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Callable, List, Optional, Sequence

from mpmath import mp

from ..distributions import numeric
from ..exact import to_mpf
from ..pairs import Pair
from . import discrete
from .onestep import onestep

__all__ = ["hockey_composed", "inner_atoms", "max_loss"]

def hockey_composed(pairs: Sequence[Pair], alpha, alpha_exact: Optional[Fraction], rule: int):
    """(H_alpha(prod P_i || prod Q_i), truncation bound) at the working precision.

    ``pairs`` is the list of factors (each repeated by its multiplicity), any mix of
    discrete and continuous ones with at least one continuous."""
    disc = [p for p in pairs if p.is_discrete]
    cont = [p for p in pairs if not p.is_discrete]
    if not disc:
        return _continuous(cont, alpha, alpha_exact, rule, mp.dps)
    pld = discrete.compose([(discrete.pld_of_pair(p.P, p.Q), 1) for p in disc])
    total, bound = mp.zero, mp.zero
    for j, (p, q) in enumerate(pld.atoms):
        if not p:
            continue
        weight = mp.mpf(p) / pld.dp
        if not q:
            total += weight
            continue
        r = pld.ratio(j)
        beta_exact = alpha_exact / r if alpha_exact is not None else None
        value, err = _continuous(cont, alpha / to_mpf(r), beta_exact, rule, mp.dps)
        total += weight * value
        bound += weight * err
    return total, bound


def max_loss(pairs: Sequence[Pair]):
    """sup of the privacy loss of the product: the sum of the factors' sups (+inf unless
    every factor is Laplace-type)."""
    return mp.fsum(onestep(p.P, p.Q).loss_sup() for p in pairs)


def min_loss(pairs: Sequence[Pair]):
    """inf of the privacy loss of the product: the sum of the factors' infs (-inf unless
    every factor's loss is bounded below, e.g. the limit ln(1 - q) of a Poisson-subsampled
    Gaussian)."""
    return mp.fsum(onestep(p.P, p.Q).loss_inf() for p in pairs)


def inner_atoms(pairs: Sequence[Pair]) -> List:
    """Loss values of prod (P_i, Q_i) where its H_beta is not analytic in log beta, with the
    ``smooth_sides`` flag: sums of one critical loss per factor (atoms, finite limits,
    extrema; ``OneStep.critical_losses``), a kink only if every part is one; empty if some
    factor has none (its smooth loss density smooths the sum)."""
    per_factor = [onestep(p.P, p.Q).critical_losses() for p in pairs]
    if any(not a for a in per_factor):
        return []
    return sorted({(mp.fsum(c for c, _ in choice), all(s for _, s in choice))
                   for choice in product(*per_factor)})


SCAN_DIGITS = 6  # relative digits of the integrand values used to place pieces and nodes


def _continuous(pairs: Sequence[Pair], beta, beta_exact, rule: int, digits: int):
    """(H_beta of the continuous product, truncation bound), to ``digits`` relative digits
    (<= the working precision)."""
    if beta == 0:
        return mp.one, mp.zero
    if len(pairs) == 1:
        return onestep(pairs[0].P, pairs[0].Q)(beta, beta_exact), mp.zero
    log_beta = mp.log(beta)
    if log_beta >= max_loss(pairs):
        return mp.zero, mp.zero  # p <= beta q everywhere
    if log_beta <= min_loss(pairs):
        return 1 - beta, mp.zero  # p >= beta q everywhere: H = 1 - beta exactly
    outer, rest = pairs[0], pairs[1:]

    def inner(b, d):
        # precision rounded up to a multiple of 5 digits so node and evaluator caches are
        # shared between pieces
        with mp.workdps(min(mp.dps, 5 * ((d + 10) // 5))):
            return _continuous(rest, b, None, rule, d)[0]

    return _integrate(outer, inner, beta, inner_atoms(rest), rule, digits)


def _integrate(outer: Pair, inner: Callable, beta, atoms: Sequence, rule: int, digits: int):
    """integral p1(y) inner(beta q1(y)/p1(y)) dy to ``digits`` relative digits, and the
    truncation bound.  Pieces whose integrand is 10^-d below the peak are integrated (and
    their inner values computed) to d digits fewer."""
    P1, Q1 = numeric(outer.P), numeric(outer.Q)

    def F(y, d):
        p = P1.pdf(y)
        if p == 0:
            return mp.zero
        return p * inner(beta * Q1.pdf(y) / p, d)

    one = onestep(outer.P, outer.Q)
    breaks = {to_mpf(k) for k in outer.P.kinks() + outer.Q.kinks()}
    singular = set()  # y where beta q1/p1 = e^c, c a critical inner loss of a non-kink kind
    for c, smooth_sides in atoms:
        for lo, hi in one.positive_intervals(beta * mp.exp(-c)):
            ends = {x for x in (lo, hi) if mp.isfinite(x)}
            breaks |= ends
            if not smooth_sides:
                singular |= ends
    h = _grid_step(outer)
    tails = one.flat_tails()
    if tails is None:
        lattice, grid, values = _scan(outer, P1, lambda y: F(y, SCAN_DIGITS), h, breaks, digits)
        closed = mp.zero
        lo, hi = lattice[0], lattice[-1]
        truncation = P1.mass(-mp.inf, lo) + P1.mass(hi, mp.inf)
    else:
        # Laplace: the loss is constant beyond the extreme locations, so are the inner H
        # values there, and the two tails are P1-masses times one inner value each.
        (lo, loss_lo), (hi, loss_hi) = tails
        closed = (P1.mass(-mp.inf, lo) * _at_loss(inner, beta, loss_lo, digits)
                  + P1.mass(hi, mp.inf) * _at_loss(inner, beta, loss_hi, digits))
        truncation = mp.zero
        if hi == lo:
            return closed, truncation
        lattice, grid, values = _sample(lambda y: F(y, SCAN_DIGITS), lo, hi, h, breaks)
    peak = max(values)
    if peak == 0:
        return closed, truncation
    cuts = sorted({lo, hi} | {b for b in breaks if lo < b < hi} | set(lattice[rule::2]))
    total = mp.zero
    for a, b in zip(cuts, cuts[1:]):
        local = max((v for y, v in zip(grid, values) if a - h <= y <= b + h), default=peak)
        if b <= a or local == 0:
            continue
        d = min(digits, digits - int(mp.log10(peak / local))) + 3
        if d > 0:
            d = max(d, SCAN_DIGITS)
            if a in singular or b in singular:
                # rule 1 cuts the piece in two: different nodes as well as precision
                ends = [a, (a + b) / 2, b] if rule else [a, b]
                total += mp.fsum(_singular_piece(lambda y: F(y, d), u, v, local)
                                 for u, v in zip(ends, ends[1:]))
            else:
                total += _gauss_legendre(lambda y: F(y, d), a, b, _nodes_for(d, rule))
    return closed + total, truncation


def _singular_piece(F: Callable, a, b, scale):
    """integral_a^b F where F is smooth inside but not analytic at an end (the inner H at a
    critical loss: H_b = 1 - b on one side of the infimum of the loss, flat-smooth on the
    other), by tanh-sinh, whose nodes cluster double-exponentially at the ends (a graded
    Gauss-Legendre mesh needs ~0.75 * digits nodes per unit of log distance there).  The
    integrand is scaled by ``scale`` since ``mp.quad`` stops on an absolute tolerance."""
    return scale * mp.quad(lambda y: F(y) / scale, [a, b], method="tanh-sinh")


def _at_loss(inner: Callable, beta, loss, digits: int):
    """inner(beta e^{-loss}); a loss of -inf (p = 0 there) contributes nothing."""
    return mp.zero if loss == mp.ninf else inner(beta * mp.exp(-loss), digits)


def _sample(F: Callable, lo, hi, h, breaks):
    """F on an even lattice of step <= h over [lo, hi] and at the breakpoints inside."""
    m = max(2, int(mp.ceil((hi - lo) / h)))
    lattice = [lo + (hi - lo) * j / m for j in range(m + 1)]
    points = {y: F(y) for y in lattice}
    points.update({b: F(b) for b in breaks if lo < b < hi and b not in points})
    grid = sorted(points)
    return lattice, grid, [points[y] for y in grid]


def _grid_step(outer: Pair):
    """The smallest feature width of the integrand: the noise scale, and for Gaussian
    mixtures also sigma^2 / (spread of the means) (the width of the loss transition)."""
    comps = [c for _, c in outer.P.components + outer.Q.components]
    width = min(c.width for c in comps)
    centres = [getattr(c, "mean", getattr(c, "loc", None)) for c in comps]
    spread = max(centres) - min(centres)
    if spread > width:
        width = width * width / spread
    return to_mpf(width)


def _scan(outer: Pair, P1, F: Callable, h, breaks, digits: int):
    """F on the lattice centre + j h, extended in each direction until the outer tail mass
    beyond is below 10^-(digits+5) * peak * h and F is decreasing there, then at the
    breakpoints inside the range (those outside lie in the dropped tails).
    Returns the lattice, all evaluated points (sorted) and their values."""
    centre = mp.fsum(to_mpf(w) * to_mpf(getattr(c, "mean", getattr(c, "loc", 0)))
                     for w, c in outer.P.components)
    threshold = mp.mpf(10) ** (-(digits + 5))
    points = {centre: F(centre)}
    lattice = [centre]
    peak = points[centre]
    for direction in (1, -1):
        j, previous = 0, points[centre]
        while True:
            j += direction
            y = centre + j * h
            value = F(y)
            points[y] = value
            lattice.append(y)
            peak = max(peak, value)
            tail = P1.mass(y, mp.inf) if direction > 0 else P1.mass(-mp.inf, y)
            if abs(j) >= 4 and value <= previous and tail <= threshold * peak * h:
                break
            if abs(j) > 10**5:
                raise ArithmeticError("quadrature range scan did not terminate")
            previous = value
    lattice.sort()
    points.update({b: F(b) for b in breaks if lattice[0] < b < lattice[-1] and b not in points})
    grid = sorted(points)
    return lattice, grid, [points[y] for y in grid]


def _nodes_for(digits: int, rule: int) -> int:
    """Gauss-Legendre nodes for ``digits`` correct digits on a piece of width <= 2 feature
    widths (calibrated: 20 nodes give 28 digits, 25 give 37); rule 1 uses more."""
    return int(0.6 * digits) + 6 + rule * (int(0.1 * digits) + 2)


def _gauss_legendre(F: Callable, a, b, n: int):
    half, mid = (b - a) / 2, (a + b) / 2
    return half * mp.fsum(w * F(mid + half * x) for x, w in _legendre(n, mp.prec))


@lru_cache(maxsize=None)
def _legendre(n: int, prec: int):
    """Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n, 20 guard bits)."""
    out = []
    with mp.workprec(prec + 20):
        for i in range(1, n + 1):
            x = mp.cos(mp.pi * (i - mp.mpf(1) / 4) / (n + mp.mpf(1) / 2))
            for _ in range(200):
                p, dp = _legendre_value(n, x)
                step = p / dp
                x -= step
                if abs(step) <= mp.eps:
                    break
            p, dp = _legendre_value(n, x)
            out.append((x, 2 / ((1 - x * x) * dp * dp)))
    return tuple((+x, +w) for x, w in out)


def _legendre_value(n: int, x):
    """P_n(x) and P_n'(x) by the three-term recurrence."""
    p0, p1 = mp.one, x
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    return p1, n * (x * p1 - p0) / (x * x - 1)
