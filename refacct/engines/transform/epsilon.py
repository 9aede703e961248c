"""eps_T(delta), the smallest eps >= 0 with delta_T(eps) <= delta, as a proven bracket from
the transform's enclosures (``inversion``): lo <= eps_T(delta) <= hi where delta_T(hi) <=
delta and (lo = 0 or delta_T(lo) > delta), both decided by an enclosure's ends (delta_T
decreases in eps).

The enclosures of every eps near the root lie on one grid (the loss at the nodes does not
depend on eps: ``inversion.on_grid``), so the search costs one grid and a few sums.  Where
the grid sits is steering only: eps_0 from the saddle-point approximation

    delta_T(eps) ~ exp(K(c) - c eps) / sqrt(2 pi K''(c)),  eps = K'(c),
    K(c) = ln M_T(c) - ln(c (c + 1)),

(Alghamdi et al., "The saddle-point method in differential privacy", ICML 2023,
arXiv:2208.09595, Sec. 3), solved for c, then the root of ln delta's midpoint by secant
steps on the grid, and two points either side of it whose enclosures decide their sides.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional, Tuple

import mpmath
from mpmath import mp

from ...errors import OutOfReach
from ...roots import illinois
from ..arb import acb, arb_mid_rad, flint, steering_log, to_arb
from .inversion import Grid, _upper_c, delta_enclosure, on_grid

__all__ = ["epsilon_bracket"]

ROUNDS = 3        # grids placed: the saddle's guess, then at the root found on the last
SECANT_STEPS = 40
WIDENINGS = 12    # the certifying points move out by 4x each time
STEER_DIGITS = 3  # a warm start's bracket this narrow steers the next grid


def epsilon_bracket(loss, delta: Fraction, digits: int, hint: Optional[Grid] = None
                    ) -> Tuple[Fraction, Fraction, Grid]:
    """(lo, hi, the grid that decided them): a proven bracket of eps_T(delta) (module
    docstring) for 0 < delta < 1 with hi - lo <= 10^-digits hi, each grid placed at the
    root found on the last; after ``ROUNDS`` grids the narrowest bracket decided (its
    width shows in the result's digits), ArithmeticError if none was.  ``hint``: a grid
    of the same loss tried first (a warm start)."""
    best, found = None, None
    if hint is not None:
        found, root = _attempt(hint, delta, hint.plan.eps, digits)
        best = _narrower(best, found, hint)
        if _narrow(found, digits):
            return found[0], found[1], hint
    # a root the hint decided to STEER_DIGITS places the grid better than the saddle; a
    # hint placed far away (a tail's grid) decides only a wide bracket, its root anywhere
    eps0 = root if _narrow(found, STEER_DIGITS) and _below_sup(loss, root) else \
        _saddle_epsilon(loss, delta)
    for _ in range(ROUNDS):
        nodes = _grid(loss, eps0, digits)
        found, root = _attempt(nodes, delta, eps0, digits)
        eps0 = root if _below_sup(loss, root) else eps0
        best = _narrower(best, found, nodes)
        if _narrow(found, digits):
            return found[0], found[1], nodes
    if best is None:
        raise ArithmeticError(f"the transform's enclosures did not decide eps(delta = "
                              f"{mpmath.nstr(_mpf(delta), 5)}) on {ROUNDS} grids")
    return best


def _grid(loss, eps0: Fraction, digits: int) -> Grid:
    """The grid of an enclosure of delta_T(eps0) to 4 digits beyond those asked (the
    bracket's ends are decided by enclosures a little away from the root), or to those
    asked where the first is out of reach (the atoms' floor of a subsampled Laplace's
    truncation bound: WOR substitution, b 1, batch 10 of 1000, 100 steps, decided
    eps(1e-5) to 20 digits on the grid of 20 where 24 were out of reach)."""
    try:
        return delta_enclosure(loss, eps0, digits + 4)[1]
    except OutOfReach:
        return delta_enclosure(loss, eps0, digits)[1]


def _below_sup(loss, eps: Fraction) -> bool:
    """Does eps lie below the supremum of a bounded loss (where delta_T > 0, so the root
    of delta_T = delta > 0 does too)?  A secant on a grid placed far away can run past it,
    where delta_T = 0 and no grid's enclosure is ever relatively narrow."""
    top = loss.sup()
    if top is None:
        return True
    with flint.ctx.workprec(128):
        return bool(to_arb(eps) < top)


def _narrow(found: Optional[Tuple[Fraction, Fraction]], digits: int) -> bool:
    return found is not None and found[1] - found[0] <= found[1] / 10 ** digits


def _narrower(best, found, nodes: Grid):
    """The narrower of ``best`` (lo, hi, grid) and ``found`` (lo, hi) on ``nodes``."""
    if found is None or best is not None and best[1] - best[0] <= found[1] - found[0]:
        return best
    return found[0], found[1], nodes


def _attempt(nodes: Grid, delta: Fraction, eps0: Fraction, digits: int
             ) -> Tuple[Optional[Tuple[Fraction, Fraction]], Fraction]:
    """(the bracket that ``nodes`` decide, or None; the root found on them)."""
    if eps0 == 0 and _below(nodes, Fraction(0), delta):
        return (Fraction(0), Fraction(0)), Fraction(0)
    root, slope = _secant(nodes, delta, eps0, digits)
    return _certified(nodes, delta, root, slope, digits), root


def _below(nodes: Grid, eps: Fraction, delta: Fraction) -> bool:
    """Is delta_T(eps) <= delta proven?"""
    hi = on_grid(nodes, eps).ends()[1]
    with flint.ctx.workprec(nodes.plan.prec + 64):
        return bool(hi <= to_arb(delta))


def _above(nodes: Grid, eps: Fraction, delta: Fraction) -> bool:
    """Is delta_T(eps) > delta proven?"""
    lo = on_grid(nodes, eps).ends()[0]
    with flint.ctx.workprec(nodes.plan.prec + 64):
        return bool(lo > to_arb(delta))


def _gap(nodes: Grid, eps: Fraction, delta: Fraction) -> Optional[mpmath.mpf]:
    """ln(midpoint of the enclosure of delta_T(eps)) - ln delta (steering), or None when
    the midpoint is not positive."""
    mid = arb_mid_rad(on_grid(nodes, eps).total)[0]
    if mid <= 0:
        return None
    return mp.log(mid) - mp.log(_mpf(delta))


def _secant(nodes: Grid, delta: Fraction, eps0: Fraction, digits: int
            ) -> Tuple[Fraction, mpmath.mpf]:
    """The root of ``_gap`` near eps0 by secant steps (steering), and the slope
    -d ln delta / d eps there (> 0)."""
    with mp.workdps(digits + 20):
        x0, x1 = _mpf(eps0), _mpf(eps0) + max(_mpf(eps0), mp.one) / 1000
        g0, g1 = _gap(nodes, eps0, delta), _gap(nodes, _fraction(x1, digits), delta)
        if g0 is None or g1 is None or g0 == g1:
            return eps0, mp.one
        for _ in range(SECANT_STEPS):
            x2 = max(x1 - g1 * (x1 - x0) / (g1 - g0), mp.zero)
            g2 = _gap(nodes, _fraction(x2, digits), delta)
            if g2 is None:
                break
            x0, g0, x1, g1 = x1, g1, x2, g2
            if abs(x1 - x0) <= mp.mpf(10) ** -(digits + 6) * max(x1, mp.one) or g1 == g0:
                break
        return _fraction(x1, digits), _slope(nodes, delta, x1, g1, digits)


def _slope(nodes: Grid, delta: Fraction, x: mpmath.mpf, gap: mpmath.mpf, digits: int
           ) -> mpmath.mpf:
    """-d ln delta / d eps at x (``gap`` there) by a difference over 10^-8 of x (steering:
    the secant's last two points may lie closer than the enclosures resolve, their gaps
    equal, when it starts at the root); 1 where a midpoint is not positive."""
    step = max(x, mp.one) / 10 ** 8
    ahead = _gap(nodes, _fraction(x + step, digits), delta)
    if ahead is None:
        return mp.one
    return max(abs((ahead - gap) / step), mp.mpf(10) ** -6)


def _certified(nodes: Grid, delta: Fraction, root: Fraction, slope: mpmath.mpf,
               digits: int) -> Optional[Tuple[Fraction, Fraction]]:
    """Points root -+ w whose enclosures decide their sides (w from the enclosure's
    relative width over the slope, widened until they do), or None."""
    lo_end, hi_end = on_grid(nodes, root).ends()
    with mp.workdps(digits + 20), flint.ctx.workprec(nodes.plan.prec):
        ratio = (hi_end - lo_end) / hi_end
        if not ratio.is_finite():   # a grid placed far from the root can lose its sum
            return None
        width = arb_mid_rad(ratio)[0]
        floor = mp.mpf(10) ** -(digits + 8) * max(_mpf(root), mp.one)
        w = _fraction(max(2 * width / slope, floor), digits)
    for _ in range(WIDENINGS):
        lo, hi = max(root - w, Fraction(0)), root + w
        if (lo == 0 or _above(nodes, lo, delta)) and _below(nodes, hi, delta):
            return lo, hi
        w *= 4
    return None


def _saddle_epsilon(loss, delta: Fraction) -> Fraction:
    """eps_0 = K'(c) at the c where the saddle-point approximation (module docstring)
    equals delta; 0 when it lies below 0.  Derivatives by central differences at 100
    bits, c to a relative 10^-3 (steering)."""
    with mp.workdps(30):
        def parts(c):
            h = c / 10 ** 5
            k_, k0, kp = (_k(loss, c + j * h) for j in (-1, 0, 1))
            return k0, (kp - k_) / (2 * h), (kp - 2 * k0 + k_) / (h * h)

        def gap(x):   # decreasing in x; -inf where K is beyond 100 bits (c too large)
            c = mp.exp(x)
            k0, k1, k2 = parts(c)
            if not mp.isfinite(k0 + k1 + k2):
                return -mp.inf
            if not k2 > 0:
                return mp.inf
            return k0 - c * k1 - mp.log(2 * mp.pi * k2) / 2 - mp.log(_mpf(delta))

        a, b = mp.log(mp.mpf(10) ** -6), mp.log(_mpf(_upper_c(loss)))
        lo, hi = _doubling(gap, a, b)
        if hi <= a:
            return Fraction(0)
        x = lo if lo >= b else illinois(gap, lo, hi, mp.mpf(10) ** -3)[0]  # gap finite at lo
        eps = parts(mp.exp(x))[1]
        return _fraction(eps, 10) if eps > 0 else Fraction(0)


def _doubling(gap, a: mpmath.mpf, b: mpmath.mpf) -> Tuple[mpmath.mpf, mpmath.mpf]:
    """[lo, hi], ln 2 wide, with gap(lo) > 0 >= gap(hi) for a decreasing gap, by steps of
    ln 2 from x = 0 (c = 1) within [a, b]; (b, b) when gap > 0 up to b, (a, a) when it is
    <= 0 down to a."""
    step, x = mp.log(2), mp.zero
    if gap(x) > 0:
        while x < b:
            if gap(min(x + step, b)) <= 0:
                return x, min(x + step, b)
            x = min(x + step, b)
        return b, b
    while x > a:
        if gap(max(x - step, a)) > 0:
            return max(x - step, a), x
        x = max(x - step, a)
    return a, a


def _k(loss, c: mpmath.mpf) -> mpmath.mpf:
    """K(c) = ln M_T(c) - ln(c (c + 1)) at 100 bits (+inf where not finite)."""
    with flint.ctx.workprec(100):
        x = to_arb(_fraction(c, 20))
        v = steering_log(loss.log_mgf(acb(x))) - (x * (x + 1)).log()
        return arb_mid_rad(v)[0] if v.is_finite() else mp.inf


def _mpf(q: Fraction) -> mpmath.mpf:
    return mp.mpf(q.numerator) / q.denominator


def _fraction(x: mpmath.mpf, digits: int) -> Fraction:
    """x rounded to a dyadic of 4 (digits + 10) bits, as an exact Fraction (exact as an
    mpf too: the bracket's ends are printed without rounding)."""
    with mp.workprec(4 * (digits + 10)):
        man, exp = (+x).man_exp
    return Fraction(man) * Fraction(2) ** exp
