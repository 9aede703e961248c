"""Crossings of p = alpha q for arbitrary finite mixtures of Gaussians and Laplaces
(different sigmas and scales, both families at once), isolated by interval arithmetic on
the log-likelihood ratio.

The sign of f(y) = p(y) - alpha q(y) is the sign of

    g(y) = ln p(y) - ln q(y) - ln alpha,   ln p(y) = logsumexp_i (ln w_i + ln k_i(y)),

with ln k_i(y) = -((y - m_i)/s_i)^2 / 2 - ln(s_i sqrt(2 pi)) (Gaussian) or
-|y - m_i| / s_i - ln(2 s_i) (Laplace).  Interval enclosures of g are taken in this log
form, never of f itself: f's terms span thousands of decades when the scales differ by
many orders (N(0, 1) against Lap(1000, 1e-12)), and enclosures of such sums stay wider
than any crossing until the interval is far narrower than the working precision can
split, whereas the enclosure of g shrinks linearly with the interval.

* Tails.  For y -> +inf one term class of f dominates: Laplace beats Gaussian, a larger
  scale beats a smaller one, and among Gaussians of the largest sigma the largest mean
  wins (Laplace terms of the largest scale are proportional beyond their locations and
  are summed).  Every other term's ratio to the dominant one is decreasing beyond an
  explicit point, so past a radius R where those ratios sum to < 1/2 the sign of f is
  the dominant coefficient's.  Likewise for y -> -inf by reflection.
* Inside [-R, R], split at the Laplace locations, roots are isolated by bisection: an
  interval where the enclosure of g excludes 0 has no root; one where the enclosure of
  g' = p'/p - q'/q excludes 0 has at most one, found when g changes sign at its ends.
  p'/p is the average of the component scores s_i(y) = d ln k_i / dy with weights
  w_i k_i / p, enclosed by the hull of the scores and by the weighted sum, intersected.
* Completeness.  Bisection stops only at the resolution of the working precision
  (an interval of a few ulps).  There a sign change still gives a root; an interval
  whose enclosures never separated is returned as *unresolved*, and its masses bound
  what the crossings inside it could change (``OneStep`` refuses a value whose
  unresolved mass is not negligible).  No crossing is skipped silently.
* Pieces where p and alpha q are proportional (Laplace terms of one scale whose
  coefficients cancel exactly) have f = 0: they contribute nothing and are not searched.

The sign of every maximal interval between consecutive crossings and kinks is read off
g at an interior point (the tails' signs from the dominant terms), not inferred by
alternation, so a root found twice or a tangency cannot invert an interval.
"""
from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from typing import List, Sequence, Tuple

from mpmath import iv, mp

from ...distributions import Continuous, Gaussian
from ...exact import to_mpf

__all__ = ["general_positive_intervals", "bracketed_root", "quadratic_roots"]

Term = Tuple[object, bool, object, object]  # (coefficient, is_gaussian, location, scale)


# --- the linear form f = sum_i c_i k_i (tails and vanishing pieces) -------------------------

def _terms(P: Continuous, Q: Continuous, alpha, alpha_exact) -> List[Term]:
    table = {}
    for sign_weight, dist in ((1, P), (-1, Q)):
        for w, c in dist.components:
            key = (isinstance(c, Gaussian), getattr(c, "mean", None) if isinstance(c, Gaussian)
                   else c.loc, c.width)
            slot = table.setdefault(key, [0, 0])
            slot[0 if sign_weight > 0 else 1] += w
    terms = []
    for (gaussian, loc, width), (wp, wq) in table.items():
        if alpha_exact is not None and wp == alpha_exact * wq:
            continue
        c = to_mpf(wp) - alpha * to_mpf(wq)
        if c != 0:
            terms.append((c, gaussian, loc, width))
    return terms


def _density(gaussian: bool, y, m, s):
    if gaussian:
        return mp.exp(-((y - m) / s) ** 2 / 2) / (s * mp.sqrt(2 * mp.pi))
    return mp.exp(-abs(y - m) / s) / (2 * s)


def _tail(terms: Sequence[Term]):
    """(R, sign): for y >= R the sign of f is ``sign`` (0 if f vanishes there).  Term
    locations and scales are exact rationals."""
    rest = [(c, g, to_mpf(m), to_mpf(s), m, s) for c, g, m, s in terms]
    while rest:
        laplace = [t for t in rest if not t[1]]
        if laplace:
            b = max(t[5] for t in laplace)
            group = [t for t in laplace if t[5] == b]
            top = max(t[4] for t in group)
            # sum of c e^{(m - top)/b}: exponents exact rationals <= 0, so no overflow
            C = mp.fsum(t[0] * mp.exp(to_mpf((t[4] - top) / b)) for t in group)
            size = mp.fsum(abs(t[0]) * mp.exp(to_mpf((t[4] - top) / b)) for t in group)
            others = [t for t in rest if t not in group]
            if abs(C) <= size * mp.eps * 2**10:
                rest = others  # the group cancels beyond its locations
                continue
            dominant = (False, C, to_mpf(top), to_mpf(b))
        else:
            s = max(t[5] for t in rest)
            top = max((t for t in rest if t[5] == s), key=lambda t: t[4])
            others = [t for t in rest if t is not top]
            dominant = (True, top[0], top[2], top[3])
        start = max([dominant[2]] + [_decreasing_from(t, dominant) for t in others])
        R, step = start + 1, mp.one
        while mp.fsum(abs(t[0]) * _density(t[1], R, t[2], t[3]) for t in others) >= \
                _dominant_value(dominant, R) / 2:
            R += step
            step *= 2
        return R, 1 if dominant[1] > 0 else -1
    return mp.zero, 0


def _dominant_value(dominant, y):
    """|dominant term| at y; ``dominant`` = (is_gaussian, coefficient, location, scale),
    for a Laplace group the coefficient of e^{-(y - location)/scale} / (2 scale)."""
    gaussian, c, m, s = dominant
    return abs(c) * _density(gaussian, y, m, s)


def _decreasing_from(term, dominant):
    """A point beyond which |term(y)| / dominant(y) is decreasing."""
    gaussian, m, s = term[1], term[2], term[3]
    dom_gaussian, _, m_d, s_d = dominant
    if not dom_gaussian:  # Laplace of the largest scale s_d dominates
        return m + s * s / s_d if gaussian else m
    if s == s_d:  # Gaussians of equal sigma: ratio exp((m - m_d) y / s^2), m < m_d
        return m
    # s < s_d: d/dy log ratio = -(y - m)/s^2 + (y - m_d)/s_d^2 < 0 beyond this point
    return (m / s**2 - m_d / s_d**2) / (1 / s**2 - 1 / s_d**2)


def _reflect(terms: Sequence[Term]) -> List[Term]:
    return [(c, g, -m, s) for c, g, m, s in terms]


def _vanishes(terms: Sequence[Term], a: Fraction, b: Fraction) -> bool:
    """Whether f = 0 identically on (a, b) (no Laplace location inside): every term there
    is C e^{+-y/s}, and f vanishes iff the coefficients of each exponential cancel.
    Gaussian terms never cancel (equal components were merged in ``_terms``)."""
    if any(g for _, g, _, _ in terms):
        return False
    groups: dict = {}
    for c, _, m, s in terms:
        side = 1 if m <= a else -1  # right of the location: e^{-(y - m)/s}
        groups.setdefault((side, s), []).append((c, m))
    for (side, s), rows in groups.items():
        top = max(side * m for _, m in rows)
        weights = [mp.exp(to_mpf((side * m - top) / s)) for _, m in rows]
        total = mp.fsum(c * w for (c, _), w in zip(rows, weights))
        size = mp.fsum(abs(c) * w for (c, _), w in zip(rows, weights))
        if abs(total) > size * mp.eps * 2**10:
            return False
    return True


# --- the log form g = ln p - ln q - ln alpha -------------------------------------------------

class _LogRatio:
    """Point values and interval enclosures of g(y) = ln p(y) - ln q(y) - ln alpha and of
    g'(y), at the working precision in force when it was built."""

    def __init__(self, P: Continuous, Q: Continuous, alpha) -> None:
        self.dists = (P, Q)
        self.sides = [self._rows(P), self._rows(Q)]
        self.smallest = min(to_mpf(c.width) for d in (P, Q) for _, c in d.components)
        self.log_alpha = mp.log(alpha)
        self._iv_sides = None

    @staticmethod
    def _rows(dist: Continuous):
        """(is Gaussian, ln(w / norm), location, scale) of each component, point values at
        the working precision (kept: a nested quadrature asks the same pair at every
        node)."""
        return _point_rows(dist, mp.prec)

    @staticmethod
    def _iv_rows(dist: Continuous):
        """The interval parts of ``_rows``: (is Gaussian, ln(w / norm), location, scale)
        as enclosures (made only where the isolation needs them: a pair of one component
        a side has its roots in closed form, ``_single_roots``)."""
        rows = []
        for w, c in dist.components:
            gaussian = isinstance(c, Gaussian)
            s = c.width
            rows.append((gaussian, _iv_log(w) - iv.log(_iv_rational(s) *
                                                      (iv.sqrt(2 * iv.pi) if gaussian else 2)),
                         _iv_rational(c.mean if gaussian else c.loc), _iv_rational(s)))
        return rows

    def __call__(self, y):
        """g(y), point value."""
        return self._log_mix(self.sides[0], y) - self._log_mix(self.sides[1], y) - self.log_alpha

    @staticmethod
    def _log_mix(rows, y):
        logs = [lw - (((y - m) / s) ** 2 / 2 if g else abs(y - m) / s)
                for g, lw, m, s in rows]
        top = max(logs)
        return top + mp.log(mp.fsum(mp.exp(x - top) for x in logs))

    def enclosures(self, a, b):
        """Interval enclosures of (g, g') on [a, b] (no Laplace location strictly inside)."""
        if self._iv_sides is None:
            self._iv_sides = [self._iv_rows(d) for d in self.dists]
        I = iv.mpf([a, b])
        logs, scores = [], []
        for point_rows, rows in zip(self.sides, self._iv_sides):
            terms = [self._log_term(row, I, a, point[2])
                     for point, row in zip(point_rows, rows)]
            logs.append(_iv_logsumexp([t for t, _ in terms]))
            scores.append(_score(terms, logs[-1]))
        return logs[0] - logs[1] - iv.mpf(self.log_alpha), scores[0] - scores[1]

    @staticmethod
    def _log_term(row, I, a, m):
        """(enclosure of ln(w k(y)), of its derivative) for y in I (``m`` the location as
        a point, for the side of a Laplace's)."""
        gaussian, iv_lw, M, S = row
        if gaussian:
            z = (I - M) / S
            return iv_lw - z**2 / 2, -z / S
        side = 1 if a >= m else -1
        return iv_lw - side * (I - M) / S, -side / S


@lru_cache(maxsize=64)
def _point_rows(dist: Continuous, prec: int) -> Tuple:
    """``_LogRatio._rows`` of ``dist`` at ``prec`` bits."""
    rows = []
    with mp.workprec(prec):
        for w, c in dist.components:
            gaussian = isinstance(c, Gaussian)
            m = c.mean if gaussian else c.loc
            s = c.width
            norm = to_mpf(s) * (mp.sqrt(2 * mp.pi) if gaussian else 2)
            rows.append((gaussian, mp.log(to_mpf(w)) - mp.log(norm), to_mpf(m), to_mpf(s)))
    return tuple(rows)


def _score(terms, log_total):
    """Enclosure of p'/p = sum_i u_i s_i with u_i = w_i k_i / p in [0, 1], sum u_i = 1:
    the hull of the scores s_i, intersected with the weighted sum of their enclosures."""
    ends = [_ends(s) for _, s in terms]
    hull = iv.mpf([min(a for a, _ in ends), max(b for _, b in ends)])
    total = iv.mpf(0)
    for log_term, s in terms:
        lo, hi = _ends(iv.exp(log_term - log_total))
        total += iv.mpf([lo, min(hi, 1)]) * s
    (ha, hb), (ta, tb) = _ends(hull), _ends(total)
    a, b = max(ha, ta), min(hb, tb)
    return iv.mpf([a, b]) if a <= b else hull


def _iv_rational(x: Fraction):
    x = Fraction(x)
    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def _iv_log(x: Fraction):
    return iv.log(_iv_rational(x))


def _ends(x):
    """The two ends of an interval, as mpf."""
    return mp.make_mpf(x._mpi_[0]), mp.make_mpf(x._mpi_[1])


def _iv_logsumexp(xs):
    top = max(_ends(x)[1] for x in xs)
    return iv.log(sum((iv.exp(x - top) for x in xs), iv.mpf(0))) + top


@contextmanager
def _interval_precision(prec: int):
    """mpmath's interval context has no workprec: set and restore its precision locally."""
    old = iv.prec
    iv.prec = prec
    try:
        yield
    finally:
        iv.prec = old


# --- isolation ---------------------------------------------------------------------------

def _sign(x) -> int:
    return 1 if x > 0 else -1 if x < 0 else 0


def _isolate(g: _LogRatio, a, b, roots: List, unresolved: List) -> None:
    """Append to ``roots`` every sign change of g in (a, b) and to ``unresolved`` the
    intervals at the precision's resolution where none could be excluded."""
    stack = [(a, b, g(a), g(b))]
    while stack:
        a, b, ga, gb = stack.pop()
        (G0, G1), (D0, D1) = (_ends(x) for x in g.enclosures(a, b))
        if G0 > 0 or G1 < 0:
            continue
        change = _sign(ga) * _sign(gb) < 0
        if D0 > 0 or D1 < 0:  # monotone: at most one root
            if change:
                roots.append(bracketed_root(g, a, b, ga, gb))
            continue
        if b - a <= max(abs(a), abs(b), g.smallest) * mp.eps * 2**6:
            if change:
                roots.append(bracketed_root(g, a, b, ga, gb))
            unresolved.append((a, b))
            continue
        mid = (a + b) / 2
        gm = g(mid)
        if gm == 0:
            mid = a + (b - a) * mp.mpf("0.5001")
            gm = g(mid)
        stack.append((mid, b, gm, gb))
        stack.append((a, mid, ga, gm))


def general_positive_intervals(P: Continuous, Q: Continuous, alpha, alpha_exact=None):
    """(maximal intervals on which p > alpha q, unresolved intervals) for any Gaussian /
    Laplace mixtures; see the module docstring for why the list is complete up to the
    unresolved intervals (each a few ulps wide, whose masses bound the error)."""
    terms = _terms(P, Q, alpha, alpha_exact)
    if not terms:
        return [], []
    if len(P.components) == 1 and len(Q.components) == 1:
        g = _LogRatio(P, Q, alpha)
        locations = {to_mpf(m) for _, gaussian, m, _ in terms if not gaussian}
        cuts = sorted(set(_single_roots(g)) | locations)
        return _signed_intervals(g, terms, cuts, None, None), []
    right, sign_right = _tail(terms)
    left, sign_left = _tail(_reflect(terms))
    left = -left
    kinks = sorted({m for c, gaussian, m, s in terms if not gaussian
                    and left < to_mpf(m) < right})
    exact_edges = [None] + kinks + [None]
    edges = [left] + [to_mpf(k) for k in kinks] + [right]
    roots: List = []
    unresolved: List = []
    with _interval_precision(mp.prec):
        g = _LogRatio(P, Q, alpha)
        for j, (a, b) in enumerate(zip(edges, edges[1:])):
            lo, hi = exact_edges[j], exact_edges[j + 1]
            if lo is not None and hi is not None and _vanishes(terms, lo, hi):
                continue
            if a < b:
                _isolate(g, a, b, roots, unresolved)
    cuts = sorted(set(roots) | set(edges[1:-1]))
    return _signed_intervals(g, terms, cuts, sign_left, sign_right), unresolved


def _signed_intervals(g: _LogRatio, terms, cuts: Sequence, sign_left, sign_right):
    """The maximal intervals where g > 0, given every point where its sign can change
    (``cuts``, sorted).  The sign of each piece is read off g at an interior point; the
    unbounded pieces take the tails' signs when given, else g far out (no root beyond)."""
    bounds = [-mp.inf] + list(cuts) + [mp.inf]
    intervals: List[Tuple] = []
    for a, b in zip(bounds, bounds[1:]):
        if a == -mp.inf and sign_left is not None:  # no crossing beyond the tails' radii
            positive = sign_left > 0
        elif b == mp.inf and sign_right is not None:
            positive = sign_right > 0
        else:
            positive = a < b and g(_inside(a, b)) > 0 and not _vanishing_piece(terms, a, b)
        if positive:
            if intervals and intervals[-1][1] == a:
                intervals[-1] = (intervals[-1][0], b)
            else:
                intervals.append((a, b))
    return intervals


def _inside(a, b):
    """A point strictly inside (a, b), either end possibly infinite."""
    if a == -mp.inf and b == mp.inf:
        return mp.zero
    if a == -mp.inf:
        return b - max(1, abs(b))
    if b == mp.inf:
        return a + max(1, abs(a))
    return (a + b) / 2


def _single_roots(g: _LogRatio) -> List:
    """Every root of g when P and Q are one component each: between Laplace locations
    g(y) = A y^2 + B y + C exactly (ln of a Gaussian density is quadratic, of a Laplace one
    linear on each side of its location), so the roots on each piece are those of a
    quadratic, computed in the cancellation-free form, kept when inside the piece.  Works
    at any spread of locations and scales (N(1e400, 1) vs N(1/10, 10^2), Lap(2, 1e-300) vs
    Lap(3, 1)), given the precision of ``onestep.resolution_bits``."""
    rows = [rows[0] for rows in g.sides]
    locations = sorted({m for gaussian, _, m, _ in rows if not gaussian})
    edges = [-mp.inf] + locations + [mp.inf]
    roots = []
    for a, b in zip(edges, edges[1:]):
        y0 = _inside(a, b)
        (A, B, C), = [tuple(p - q for p, q in zip(*(_quadratic(row, y0) for row in rows)))]
        C -= g.log_alpha
        roots += [y for y in quadratic_roots(A, B, C) if a < y < b]
    return roots


def _quadratic(row, y0):
    """(A, B, C) with ln(w k(y)) = A y^2 + B y + C on the side of a Laplace location
    where y0 lies."""
    gaussian, log_w, m, s = row[:4]
    if gaussian:
        return -1 / (2 * s * s), m / (s * s), log_w - m * m / (2 * s * s)
    side = 1 if y0 > m else -1
    return mp.zero, -side / s, log_w + side * m / s


def quadratic_roots(A, B, C) -> List:
    """Real roots of A y^2 + B y + C (A = 0 allowed), without cancellation."""
    if A == 0:
        return [] if B == 0 else [-C / B]
    disc = B * B - 4 * A * C
    if disc < 0:
        return []
    q = -(B + (mp.sqrt(disc) if B >= 0 else -mp.sqrt(disc))) / 2
    return sorted({q / A} | ({C / q} if q != 0 else set()))


def _vanishing_piece(terms, a, b) -> bool:
    """Whether (a, b) lies in a piece between consecutive Laplace locations where f = 0."""
    locs = sorted({m for _, g, m, _ in terms if not g})
    mid = (a + b) / 2
    lower = [m for m in locs if to_mpf(m) <= mid]
    upper = [m for m in locs if to_mpf(m) >= mid]
    return bool(lower and upper) and _vanishes(terms, lower[-1], upper[0])


def bracketed_root(g, lo, hi, flo=None, fhi=None, slope=None):
    """Root of g in [lo, hi] (g(lo), g(hi) of opposite signs): Illinois false position,
    with bisection fallback, to working precision; with ``slope`` (g's derivative) and g
    monotone on [lo, hi], ``_newton_root``."""
    flo = g(lo) if flo is None else flo
    fhi = g(hi) if fhi is None else fhi
    tol = mp.eps * 4
    if slope is not None:
        return _newton_root(g, slope, lo, hi, flo, fhi, tol)
    side = 0
    for _ in range(20 * mp.prec):
        if abs(hi - lo) <= tol * max(1, abs(lo), abs(hi)):
            break
        mid = (lo * fhi - hi * flo) / (fhi - flo)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        fmid = g(mid)
        if fmid == 0:
            return mid
        if (fmid > 0) == (flo > 0):
            lo, flo = mid, fmid
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = mid, fmid
            if side == 1:
                flo /= 2
            side = 1
    return (lo + hi) / 2


def _newton_root(g, slope, lo, hi, flo, fhi, tol):
    """Newton's method kept inside the bracket [lo, hi] of a monotone g (a step leaving it
    bisects instead, and every value shrinks the bracket), from the false-position point;
    stops when a step is below ``tol`` relative, where the error is of the order of the
    step squared."""
    x = (lo * fhi - hi * flo) / (fhi - flo)
    if not lo < x < hi:
        x = (lo + hi) / 2
    for _ in range(4 * mp.prec):
        fx = g(x)
        if fx == 0:
            return x
        if (fx > 0) == (flo > 0):
            lo, flo = x, fx
        else:
            hi = x
        d = slope(x)
        step = fx / d if d else None
        new = x - step if step is not None else (lo + hi) / 2
        if not lo <= new <= hi:
            new = (lo + hi) / 2
        if abs(new - x) <= tol * max(1, abs(x)) or abs(hi - lo) <= tol * max(1, abs(lo), abs(hi)):
            return new
        x = new
    return x
