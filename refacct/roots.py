"""Root bracketing shared by the eps(delta) searches (``refacct.hockey``,
``refacct.shuffle``)."""
from __future__ import annotations

import mpmath

__all__ = ["illinois"]


def illinois(g, lo, hi, tol):
    """Bracket [lo, hi] of width <= tol * max(1, hi) around the root of a decreasing g
    (g(lo) > 0 >= g(hi); g may be -inf), by Illinois false position (bisection on -inf)."""
    glo, ghi = g(lo), g(hi)
    side = 0
    while hi - lo > tol * max(1, abs(hi)):
        if mpmath.isinf(ghi) or mpmath.isinf(glo):
            mid = (lo + hi) / 2
        else:
            mid = (lo * ghi - hi * glo) / (ghi - glo)
            if not lo < mid < hi:
                mid = (lo + hi) / 2
        gm = g(mid)
        if gm > 0:
            lo, glo = mid, gm
            if side == 1:
                ghi /= 2
            side = 1
        else:
            hi, ghi = mid, gm
            if side == -1:
                glo /= 2
            side = -1
    return lo, hi
