"""Compositions with continuous factors, by recursion and quadrature.

001 Sec. 2 / docs/numerics.md, "Composition":

    H_alpha(P1 x R || Q1 x S) = integral p1(y) H_{alpha q1(y) / p1(y)}(R || S) dy,

so k continuous steps are a (k-1)-fold nested integral over the closed-form one-step engine
(``onestep``).  Discrete factors are collapsed into one exact PLD first and summed over its
atoms: H_alpha(D x R || D' x S) = sum_r p_r H_{alpha / r}(R || S) (H_0 = 1 for r = inf).

Quadrature in y, per level:
* breakpoints at the kinks of p1 and q1 (Laplace locations) and at the y where
  alpha q1(y)/p1(y) = e^c for a critical loss c of the inner product (``inner_atoms``):
  there the inner H kinks (Laplace atoms, corners of the loss) or is not analytic at all
  (Gaussian mixtures: finite limits of the loss, smooth extrema);
* pieces where ln beta' = ln(alpha q1/p1) lies below the inf of the inner loss are
  integral (p1 - alpha q1) = P1(I) - alpha Q1(I) in closed form, and 0 above its sup;
* Laplace outer factors: beyond the extreme locations the loss is constant, so each tail
  is its P1-mass times one inner value; only the span between the locations is integrated;
* otherwise a scan on a lattice of one feature width (noise scale) locates where the
  integrand lives and how far out to go: the range stops where the outer tail mass
  P1(|Y| > R), a rigorous bound on the dropped part (inner H <= 1), is below
  10^-(digits + 5) of the peak times the width; the bound of the outermost level is
  reported in the error;
* where ln beta' crosses the centre of a narrow bend of the inner H (``inner_features``:
  a mixture against a mixture puts its bulk on a loss interval ~ 0.03 wide), graded cuts
  down to the bend's width seen from y (``_feature_cuts``);
* a breakpoint within a feature width of a singular point beyond it (a corner of the
  inner loss just before its smooth maximum) gets graded cuts away from that point
  (``_graded_away``), so that no piece ends much closer to a singularity than it is wide;
* pieces of two feature widths (cut at the breakpoints) are integrated with Gauss-Legendre,
  the node count set by the digits the piece needs relative to the peak (pieces 10^-d below
  the peak need d digits fewer, and so do the inner values computed for them); rule 1 uses
  more nodes and pieces shifted by one feature width, so the two evaluations share neither
  nodes nor cuts.  A piece ending where the inner beta' reaches the finite inf or sup of
  the inner loss is integrated in the variable v = -ln|y - e| (``_log_substituted``), in
  which the non-analytic part becomes analytic with a Gaussian tail; other non-analytic
  ends (smooth extrema) get tanh-sinh.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

from mpmath import mp

from ... import progress
from ...distributions import numeric
from ...exact import to_mpf
from ...pairs import Pair
from ..exact import discrete
from .onestep import _score, onestep

__all__ = ["hockey_composed", "inner_atoms", "max_loss"]

def hockey_composed(pairs: Sequence[Pair], alpha, alpha_exact: Optional[Fraction], rule: int):
    """(H_alpha(prod P_i || prod Q_i), truncation bound) at the working precision.

    ``pairs`` is the list of factors (each repeated by its multiplicity), any mix of
    discrete and continuous ones with at least one continuous."""
    disc = [p for p in pairs if p.is_discrete]
    cont = sorted((p for p in pairs if not p.is_discrete), key=loss_steepness)
    if not disc:
        return _continuous(cont, alpha, alpha_exact, rule, mp.dps, outermost=True)
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


def loss_steepness(pair: Pair) -> Fraction:
    """How far the privacy loss moves over one noise scale: the spread of the component
    centres over the smallest scale (|mu| / sigma for a Gaussian shift pair, Delta / b for
    Laplace).  Factors are nested in increasing order of it, so the outermost integral is
    over the factor with the flattest loss.

    docs/numerics.md, "Composition": seen from the outer variable y, the inner H turns
    from 1 - beta' to 0 over (inner loss spread) / |d ln(p1/q1)/dy|, which is below the
    outer noise scale when the outer loss is steeper than the inner one (N(10/7, 1) outside
    N(2, 500^2): 0.003, a thousand times narrower than a quadrature piece, and both
    evaluations miss it alike).  With the flattest factor outside that width is at least
    its noise scale: (spread of the rest) / (own steepness) >= 1 noise scale."""
    comps = [c for _, c in pair.P.components + pair.Q.components]
    width = min(c.width for c in comps)
    centres = [getattr(c, "mean", getattr(c, "loc", None)) for c in comps]
    return (max(centres) - min(centres)) / width


def max_loss(pairs: Sequence[Pair]):
    """sup of the privacy loss of the product: the sum of the factors' sups (+inf unless
    every factor is Laplace-type)."""
    return mp.fsum(onestep(p.P, p.Q).loss_sup() for p in pairs)


def min_loss(pairs: Sequence[Pair]):
    """inf of the privacy loss of the product: the sum of the factors' infs (-inf unless
    every factor's loss is bounded below, e.g. the limit ln(1 - q) of a Poisson-subsampled
    Gaussian)."""
    return mp.fsum(onestep(p.P, p.Q).loss_inf() for p in pairs)


def inner_atoms(pairs: Sequence[Pair]) -> List[Tuple[object, str]]:
    """Loss values of prod (P_i, Q_i) where its H_beta is not analytic in log beta, with their
    kind (``OneStep.critical_losses``): sums of one critical loss per factor; the sum is a
    "kink" / "inf" / "sup" when every part is one (a sum of infima is the infimum of the
    product's loss), else a "branch"; empty if some factor has none (its smooth loss density
    smooths the sum)."""
    per_factor = [onestep(p.P, p.Q).critical_losses() for p in pairs]
    if any(not a for a in per_factor):
        return []
    out = {}
    for choice in product(*per_factor):
        c = mp.fsum(x for x, _ in choice)
        kinds = {kind for _, kind in choice} | ({out[c]} if c in out else set())
        out[c] = kinds.pop() if len(kinds) == 1 else "branch"
    return sorted(out.items())


def loss_features(pair: Pair) -> List[Tuple[object, object]]:
    """Where the loss distribution of one pair concentrates: for each component (centre m,
    width s) of P and Q, (L(m), |L(m + s) - L(m - s)| / 2), L = ln(p/q).  A component whose
    loss hardly moves over its width (the bulk of a mixture against a mixture: L' ~ 0.03
    near 0 for 004's r = 2 pairs) puts most of its mass on a loss interval that narrow,
    and H_{e^t} of the pair bends over that width in t.  Features of zero width (a Laplace
    tail, where the loss is constant) are atoms, handled as breakpoints: left out."""
    return _loss_features(pair, mp.prec)


@lru_cache(maxsize=256)
def _loss_features(pair: Pair, prec: int) -> List[Tuple[object, object]]:
    P, Q = numeric(pair.P), numeric(pair.Q)

    def loss(y):
        return mp.log(P.pdf(y) / Q.pdf(y))

    out = []
    for _, c in pair.P.components + pair.Q.components:
        m = to_mpf(getattr(c, "mean", getattr(c, "loc", None)))
        s = to_mpf(c.width)
        width = abs(loss(m + s) - loss(m - s)) / 2
        if width > 0 and mp.isfinite(width):
            out.append((loss(m), width))
    return out


def inner_features(pairs: Sequence[Pair]) -> List[Tuple[object, object]]:
    """``loss_features`` of a product: the losses add, so a feature of the product is one
    feature per factor, centres summed and widths added in quadrature (the spread of a sum
    of independent parts); none when some factor has none."""
    per_factor = [loss_features(p) for p in pairs]
    if any(not f for f in per_factor):
        return []
    return sorted({(mp.fsum(c for c, _ in choice), mp.sqrt(mp.fsum(w * w for _, w in choice)))
                   for choice in product(*per_factor)})


def _feature_cuts(one, score: Callable, beta, features, h, rule: int, singular) -> set:
    """Cuts around the y where ln beta' = ln(beta q1(y)/p1(y)) crosses the centre c of an
    inner feature (``inner_features``) whose width w, seen from y, is below h / 2: there
    the inner H bends over w / |L1'(y)|, too narrow for pieces of the feature width h
    (docs/numerics.md, "Composition").  The cuts are graded, y0 +- f w' 2^j with
    w' = w / |L1'(y0)|, f = 1 (rule 0) or 3/2 (rule 1), up to h: each piece is as wide as
    its distance from the bend, so Gauss-Legendre converges on it as on a piece of one
    feature width.  A bend within h of a ``singular`` point is left to that point's
    substitution, which resolves every scale down to it (the Poisson-subsampled Gaussian's
    bulk lies next to the infimum of its loss: cuts there cost a quarter more time at
    k = 3 and no digit)."""
    out = set()
    for c, w in features:
        for lo, hi in one.positive_intervals(beta * mp.exp(-c)):
            for y0 in (x for x in (lo, hi) if mp.isfinite(x)):
                if any(abs(y0 - x) < h for x in singular):
                    continue
                slope = abs(score(y0))
                if slope == 0 or w / slope >= h / 2:
                    continue
                step = w / slope * (1 + mp.mpf(rule) / 2)
                out.add(y0)
                while step < h:
                    out |= {y0 - step, y0 + step}
                    step *= 2
    return out


SCAN_DIGITS = 6  # relative digits of the integrand values used to place pieces and nodes
PIECE = 2  # lattice steps (feature widths) per Gauss-Legendre piece


def _continuous(pairs: Sequence[Pair], beta, beta_exact, rule: int, digits: int,
                outermost: bool = False):
    """(H_beta of the continuous product, truncation bound), to ``digits`` relative digits
    (<= the working precision); the ``outermost`` integral reports its progress."""
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

    span = (min_loss(rest), max_loss(rest))
    return _integrate(outer, inner, beta, inner_atoms(rest), span, rule, digits, outermost,
                      inner_features(rest))


def _integrate(outer: Pair, inner: Callable, beta, atoms: Sequence, span, rule: int,
               digits: int, outermost: bool = False, features: Sequence = ()):
    """integral p1(y) inner(beta q1(y)/p1(y)) dy to ``digits`` relative digits, and the
    truncation bound.  ``span`` = (inf, sup) of the inner loss: where ln beta' lies outside
    it the integrand is p1 - beta q1 or 0 (closed form).  Pieces whose integrand is 10^-d
    below the peak are integrated (and their inner values computed) to d digits fewer."""
    P1, Q1 = numeric(outer.P), numeric(outer.Q)

    def F(y, d):
        p = P1.pdf(y)
        if p == 0:
            return mp.zero
        return p * inner(beta * Q1.pdf(y) / p, d)

    one = onestep(outer.P, outer.Q)
    breaks = {to_mpf(k) for k in outer.P.kinks() + outer.Q.kinks()}
    singular = {}  # y where beta q1/p1 = e^c, c a critical inner loss of a non-kink kind
    for c, kind in atoms:
        for lo, hi in one.positive_intervals(beta * mp.exp(-c)):
            ends = {x for x in (lo, hi) if mp.isfinite(x)}
            breaks |= ends
            if kind != "kink":
                for x in ends:
                    singular[x] = kind if singular.get(x, kind) == kind else "branch"
    flat = _Flat(lambda y: P1.pdf(y) - beta * Q1.pdf(y),
                 lambda y0, y1: P1.mass(y0, y1) - beta * Q1.mass(y0, y1),
                 [x for ab in one.positive_intervals(beta) for x in ab if mp.isfinite(x)])
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
    # lattice cuts closer than h to a singular point are dropped, so the pieces next to
    # one stay analytic on a neighbourhood of their own width
    graded = _feature_cuts(one, lambda y: _score(one, y), beta, features, h, rule, singular)
    cuts = {lo, hi} | {b for b in breaks if lo < b < hi} \
        | {y for y in set(lattice[rule * PIECE // 2::PIECE]) | graded
           if lo < y < hi and all(abs(y - x) >= h for x in singular)}
    cuts = sorted(cuts | {y for y in _graded_away(cuts, singular, h, rule) if lo < y < hi})
    total = mp.zero
    for piece, (a, b) in enumerate(zip(cuts, cuts[1:])):
        progress.check()
        if outermost:
            progress.note(f"outer piece {piece + 1}/{len(cuts) - 1}, evaluation {rule + 1} of 2")
        local = max((v for y, v in zip(grid, values) if a - h <= y <= b + h), default=peak)
        if b <= a or local == 0:
            continue
        d = min(digits, digits - int(mp.log10(peak / local))) + 3
        if d <= 0:
            continue
        d = max(d, SCAN_DIGITS)
        mid = (a + b) / 2
        side = mp.log(beta * Q1.pdf(mid) / P1.pdf(mid))
        if side <= span[0]:
            total += P1.mass(a, b) - beta * Q1.mass(a, b)  # inner H = 1 - beta'
        elif side >= span[1]:
            continue  # inner H = 0
        elif a in singular or b in singular:
            halves = [(a, mid), (mid, b)] if a in singular and b in singular else [(a, b)]
            for u, v in halves:
                e, o = (u, v) if u in singular else (v, u)
                total += _singular_piece(F, e, o, singular[e], local, d, rule, flat)
        else:
            total += _gauss_legendre(lambda y: F(y, d), a, b, _nodes_for(d, rule))
    return closed + total, truncation


def _graded_away(cuts, singular, h, rule: int) -> set:
    """Cuts that grade the piece behind a cut c lying within h of a singular point x beyond
    it (a breakpoint next to one, as where a mixed pair's inner beta' reaches a corner of
    the loss just before its smooth maximum): c -+ g f 2^j away from x, g = |c - x|, f = 1
    (rule 0) or 3/2 (rule 1), up to h.  Each piece is then at least as far from x as it is
    wide, so Gauss-Legendre converges on it geometrically; a piece of width h ending g << h
    before x converges as (1 + sqrt(2 g / h))^(-2n) only (N(0, 1) vs Lap(0, 3), two steps:
    g = 0.034, the two evaluations agreed to 14 digits, now to 30)."""
    out = set()
    for c in cuts:
        for x in singular:
            gap = abs(c - x)
            if not 0 < gap < h:
                continue
            side, step = (-1 if x > c else 1), gap * (1 + mp.mpf(rule) / 2)
            while step < h:
                out.add(c + side * step)
                step *= 2
    return out


class _Flat(NamedTuple):
    """The outer integrand where the inner H is 1 - beta': p1 - beta q1 pointwise, its
    integral between two points (exact masses), and where it changes sign."""

    pdf: Callable
    mass: Callable
    crossings: List


def _singular_piece(F: Callable, e, o, kind: str, scale, d: int, rule: int, flat: _Flat):
    """integral of F(., d) over the piece between e and o, F analytic inside but not at the
    end e, where the inner beta' reaches a critical loss of the given kind.

    "inf" / "sup" (finite limits of the inner loss): ``_log_substituted``.  "branch":
    tanh-sinh, whose nodes cluster double-exponentially at the ends (rule 1 also cuts the
    piece at its midpoint); the integrand is scaled by ``scale`` since ``mp.quad`` stops on
    an absolute tolerance."""
    if kind != "branch":
        return _log_substituted(F, e, o, kind, d, rule, flat)
    ends = sorted([e, (e + o) / 2, o] if rule else [e, o])
    return mp.fsum(scale * mp.quad(lambda y: F(y, d) / scale, [u, v], method="tanh-sinh")
                   for u, v in zip(ends, ends[1:]))


LOG_PIECE = 12  # longest v-interval per Gauss-Legendre rule in ``_log_substituted``


def _log_substituted(F: Callable, e, o, kind: str, d: int, rule: int, flat: _Flat):
    """integral over the piece between e and o of F, whose only singularity is at the end e
    where ln beta'(y) reaches the inf ("inf") or sup ("sup") of the inner loss.

    There the inner H_b is 1 - b (inf) or 0 (sup) on the far side, and on this side it
    differs from that by a function analytic in ln|ln b - c| ~ ln|y - e| that decays like
    a Gaussian tail in it (``OneStep.critical_losses``).  So with y = e + (o - e) e^{-v},

        integral = |o - e| integral_0^inf F(y(v)) e^{-v} dv,

    the deviation is analytic in v and decays like exp(-const v^2): it is scanned at
    v = 0, 1, 2, ... until it is 10^-(d+4) below the peak and falling, and integrated
    with Gauss-Legendre on intervals of length <= 12 (int(1.5 d) + 10 nodes, calibrated on a
    Poisson-subsampled Gaussian: 40 nodes give 21 digits over 12 units).  For "inf" the
    part p1 - beta q1 of F is integrated in closed form (``flat.mass``) between e and the
    nearest sign change y_s of p1 - beta q1 (there beta' <= 1, so neither part cancels the
    other); beyond y_s, F itself is integrated.  Rule 1 goes 2 units further with a quarter
    more nodes on intervals of length <= 10."""
    w = o - e

    def y_of(v):
        return e + w * mp.exp(-v)

    def jac(v):
        return abs(w) * mp.exp(-v)

    head, start, closed = mp.zero, mp.zero, mp.zero
    if kind == "inf":
        inside = [x for x in flat.crossings if min(e, o) < x < max(e, o)]
        y_s = min(inside, key=lambda x: abs(x - e)) if inside else o
        start = mp.log(w / (y_s - e))
        closed = flat.mass(min(e, y_s), max(e, y_s))
        if start > 0:
            head = _gauss_legendre_span(lambda v: F(y_of(v), d) * jac(v), 0, start, d, rule)

        def g(v):
            y = y_of(v)
            return (F(y, d + 2) - flat.pdf(y)) * jac(v)
    else:
        def g(v):
            return F(y_of(v), d) * jac(v)

    threshold = mp.mpf(10) ** (-(d + 4))
    peak, previous, j = abs(closed), None, 0
    while True:
        value = abs(g(start + j))
        peak = max(peak, value)
        if j >= 3 and value <= previous and value <= threshold * peak:
            break
        if j > 10**3:
            raise ArithmeticError("log-substituted piece: the integrand does not decay")
        previous, j = value, j + 1
    return head + closed + _gauss_legendre_span(g, start, start + j + 2 * rule, d, rule)


def _gauss_legendre_span(F: Callable, a, b, d: int, rule: int):
    """integral_a^b F by Gauss-Legendre on equal intervals of length <= LOG_PIECE (rule 0)
    or LOG_PIECE - 2 (rule 1), int(1.5 d) + 10 nodes each (a quarter more for rule 1)."""
    m = int(mp.ceil((b - a) / (LOG_PIECE - 2 * rule)))
    n = (int(1.5 * d) + 10) * (4 + rule) // 4
    cuts = [a + (b - a) * i / m for i in range(m + 1)]
    return mp.fsum(_gauss_legendre(F, u, v, n) for u, v in zip(cuts, cuts[1:]))


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
    beyond is below 10^-(digits+5) * peak * h (2^-(10 prec) while F is still 0
    everywhere, so a far-out integrand is found and an integrand that is 0 everywhere
    ends with a negligible truncation bound) and F is decreasing there, then at the
    breakpoints inside the range (those outside lie in the dropped tails).
    Returns the lattice, all evaluated points (sorted) and their values."""
    centre = mp.fsum(to_mpf(w) * to_mpf(getattr(c, "mean", getattr(c, "loc", 0)))
                     for w, c in outer.P.components)
    threshold, floor = mp.mpf(10) ** (-(digits + 5)), mp.mpf(2) ** (-10 * mp.prec)
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
            bound = threshold * peak * h if peak else floor
            if abs(j) >= 4 and value <= previous and tail <= bound:
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
    """integral_a^b F by the n-point Gauss-Legendre rule (n rounded up to a multiple of 4
    and the precision of the nodes up to a multiple of 64 bits, so pieces share nodes)."""
    half, mid = (b - a) / 2, (a + b) / 2
    nodes = _legendre(-(-n // 4) * 4, -(-mp.prec // 64) * 64)
    return half * mp.fsum(w * F(mid + half * x) for x, w in nodes)


@lru_cache(maxsize=None)
def _legendre(n: int, prec: int):
    """Gauss-Legendre nodes and weights on [-1, 1]: the roots of P_n by Newton from
    cos(pi (i - 1/4) / (n + 1/2)), first at 64 bits, then at prec + 20 bits; the negative
    nodes by symmetry."""
    half = []
    for i in range(1, n // 2 + 1):
        x = mp.cos(mp.pi * (i - mp.mpf(1) / 4) / (n + mp.mpf(1) / 2))
        for bits in (64, prec + 20):
            with mp.workprec(bits):
                for _ in range(100):
                    p, dp = _legendre_value(n, x)
                    step = p / dp
                    x -= step
                    if abs(step) <= 4 * mp.eps:
                        break
        with mp.workprec(prec + 20):
            p, dp = _legendre_value(n, x)
            half.append((x, 2 / ((1 - x * x) * dp * dp)))
    with mp.workprec(prec):
        middle = [(mp.zero, 2 / _legendre_value(n, mp.zero)[1] ** 2)] if n % 2 else []
        return tuple([(+x, +w) for x, w in half] + middle + [(-x, +w) for x, w in half])


def _legendre_value(n: int, x):
    """P_n(x) and P_n'(x) by the three-term recurrence."""
    p0, p1 = mp.one, x
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    return p1, n * (x * p1 - p0) / (x * x - 1)
