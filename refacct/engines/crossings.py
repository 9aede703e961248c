"""Crossings of p = alpha q for arbitrary finite mixtures of Gaussians and Laplaces
(different sigmas and scales, both families at once), by interval arithmetic.

../shared/NUMERICS.md, "Mixed scales or mixed families".  f(y) = p(y) - alpha q(y) is
sum_i c_i k_i(y) with Gaussian / Laplace densities k_i.

* Tails.  For y -> +inf one term class dominates: Laplace beats Gaussian, a larger scale
  beats a smaller one, and among Gaussians of the largest sigma the largest mean wins
  (Laplace terms of the largest scale are proportional beyond their locations and are
  summed).  Every other term's ratio to the dominant one is decreasing beyond an explicit
  point, so past a radius R where those ratios sum to < 1/2 the sign of f is the dominant
  coefficient's.  Likewise for y -> -inf by reflection.
* Inside [-R, R], split at the Laplace locations, roots are isolated by bisection with
  mpmath's interval context: an interval where f's enclosure excludes 0 has no root, one
  where f' excludes 0 has at most one (a sign change of f at its ends); each root is then
  refined with the point function.  A tangency (f and f' both enclosing 0 down to width
  2^(-prec/2)) is a double root: it changes no sign and is skipped.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import List, Sequence, Tuple

from mpmath import iv, mp

from ..distributions import Continuous, Gaussian
from ..exact import to_mpf

__all__ = ["general_positive_intervals"]

Term = Tuple[object, bool, object, object]  # (coefficient, is_gaussian, location, scale)


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
            terms.append((c, gaussian, to_mpf(loc), to_mpf(width)))
    return terms


def _density(gaussian: bool, y, m, s, ctx=mp):
    if gaussian:
        return ctx.exp(-((y - m) / s) ** 2 / 2) / (s * ctx.sqrt(2 * ctx.pi))
    return ctx.exp(-abs(y - m) / s) / (2 * s)


def _f(terms: Sequence[Term], y):
    return mp.fsum(c * _density(g, y, m, s) for c, g, m, s in terms)


def _tail(terms: Sequence[Term]):
    """(R, sign): for y >= R the sign of f is ``sign`` (0 if f vanishes there)."""
    rest = list(terms)
    while rest:
        laplace = [t for t in rest if not t[1]]
        if laplace:
            b = max(t[3] for t in laplace)
            group = [t for t in laplace if t[3] == b]
            C = mp.fsum(c * mp.exp(m / b) for c, _, m, _ in group)
            size = mp.fsum(abs(c) * mp.exp(m / b) for c, _, m, _ in group)
            others = [t for t in rest if t not in group]
            if abs(C) <= size * mp.eps * 2**10:
                rest = others  # the group cancels beyond its locations
                continue
            dominant = (False, C, max(m for _, _, m, _ in group), b)
        else:
            s = max(t[3] for t in rest)
            top = max((t for t in rest if t[3] == s), key=lambda t: t[2])
            others = [t for t in rest if t is not top]
            dominant = (True, top[0], top[2], top[3])
        start = max([dominant[2]] + [_decreasing_from(t, dominant) for t in others])
        R, step = start + 1, mp.one
        while mp.fsum(abs(c) * _density(g, R, m, s) for c, g, m, s in others) >= \
                _dominant_value(dominant, R) / 2:
            R += step
            step *= 2
        return R, 1 if dominant[1] > 0 else -1
    return mp.zero, 0


def _dominant_value(dominant, y):
    """|dominant term| at y; ``dominant`` = (is_gaussian, coefficient, location, scale)."""
    gaussian, c, m, s = dominant
    if gaussian:
        return abs(c) * _density(True, y, m, s)
    return abs(c) * mp.exp(-y / s) / (2 * s)  # c = sum of the group's c e^{m/b}


def _decreasing_from(term: Term, dominant):
    """A point beyond which |term(y)| / dominant(y) is decreasing."""
    _, gaussian, m, s = term
    dom_gaussian, _, m_d, s_d = dominant
    if not dom_gaussian:  # Laplace of the largest scale s_d dominates
        return m + s * s / s_d if gaussian else m
    if s == s_d:  # Gaussians of equal sigma: ratio exp((m - m_d) y / s^2), m < m_d
        return m
    # s < s_d: d/dy log ratio = -(y - m)/s^2 + (y - m_d)/s_d^2 < 0 beyond this point
    return (m / s**2 - m_d / s_d**2) / (1 / s**2 - 1 / s_d**2)


def _reflect(terms: Sequence[Term]) -> List[Term]:
    return [(c, g, -m, s) for c, g, m, s in terms]


def _enclosures(terms: Sequence[Term], a, b):
    """Interval enclosures of f and f' on [a, b] (no Laplace location strictly inside)."""
    I = iv.mpf([a, b])
    f = iv.mpf(0)
    df = iv.mpf(0)
    for c, g, m, s in terms:
        C, M, S = iv.mpf(c), iv.mpf(m), iv.mpf(s)
        if g:
            k = iv.exp(-((I - M) / S) ** 2 / 2) / (S * iv.sqrt(2 * iv.pi))
            dk = -(I - M) / S**2 * k
        else:
            side = 1 if a >= m else -1
            k = iv.exp(-side * (I - M) / S) / (2 * S)
            dk = -side * k / S
        f += C * k
        df += C * dk
    return f, df


@contextmanager
def _interval_precision(prec: int):
    """mpmath's interval context has no workprec: set and restore its precision locally."""
    old = iv.prec
    iv.prec = prec
    try:
        yield
    finally:
        iv.prec = old


def _isolate(terms, a, b, fa, fb, out: List, depth: int = 0) -> None:
    with _interval_precision(mp.prec):
        f, df = _enclosures(terms, a, b)
        no_root = 0 not in f
        monotone = 0 not in df
    if no_root:
        return
    if monotone:
        if fa * fb < 0:
            from .onestep import _bracketed_root

            out.append(_bracketed_root(lambda y: _f(terms, y), a, b))
        return
    if b - a <= mp.mpf(2) ** (-mp.prec // 2) * max(1, abs(a)) or depth > 4 * mp.prec:
        return  # tangency: no sign change
    mid = (a + b) / 2
    fm = _f(terms, mid)
    if fm == 0:
        mid = a + (b - a) * mp.mpf("0.5001")
        fm = _f(terms, mid)
    _isolate(terms, a, mid, fa, fm, out, depth + 1)
    _isolate(terms, mid, b, fm, fb, out, depth + 1)


def general_positive_intervals(P: Continuous, Q: Continuous, alpha,
                               alpha_exact=None) -> List[Tuple[object, object]]:
    """Maximal intervals on which p > alpha q, for any Gaussian/Laplace mixtures."""
    terms = _terms(P, Q, alpha, alpha_exact)
    if not terms:
        return []
    right, sign_right = _tail(terms)
    left, sign_left = _tail(_reflect(terms))
    left = -left
    kinks = sorted({m for c, g, m, s in terms if not g and left < m < right})
    edges = [left] + kinks + [right]
    roots: List = []
    for a, b in zip(edges, edges[1:]):
        _isolate(terms, a, b, _f(terms, a), _f(terms, b), roots)
    roots = sorted(set(roots))
    intervals, positive = [], sign_left > 0
    for a, b in zip([-mp.inf] + roots, roots + [mp.inf]):
        if positive:
            intervals.append((a, b))
        positive = not positive
    # each root changes the sign: starting from the left tail's sign, the alternation
    # must end with the right tail's sign, else a crossing was missed
    if sign_left and sign_right and (sign_left > 0) != (sign_right > 0) ^ (len(roots) % 2 == 1):
        raise ArithmeticError("crossing isolation failed: tail signs and roots disagree")
    return intervals
