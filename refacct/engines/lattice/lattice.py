"""Lattice measures that bound a privacy-loss distribution, composed in ball arithmetic.

Let omega be the privacy-loss distribution (PLD) of one step: the law of L = ln(p/q)(Y),
Y ~ P, with an atom at +inf where q = 0.  For T steps (001 Sec. 2, Definitions 3-5)

    delta_T(eps) = E[f_eps(L_1 + ... + L_T)],   f_eps(x) = (1 - e^{eps - x})_+,

with L_i independent copies of L.  In u = e^{-x}, f_eps = (1 - e^eps u)_+ is convex, and
f_eps(sum L_i) = (1 - e^eps prod u_i)_+ is convex in each u_i.  Hence (Jensen, one
coordinate at a time, by independence):

* **upper**: replacing omega by a mean-preserving spread in u can only raise delta_T for
  every eps.  Cell (x_j, x_{j+1}] of mass P_j and u-mass Q_j (``engines.lattice.loss_cells``) is
  spread onto its ends, D_j / (v_j - v_{j+1}) to x_{j+1} and S_j / (v_j - v_{j+1}) to x_j,
  where v_j = e^{-x_j}, D_j = v_j P_j - Q_j >= 0, S_j = Q_j - v_{j+1} P_j >= 0: the
  "connect-the-dots" discretisation of Doroshenko et al. (cited in 001), here derived from
  convexity.  The tail above the lattice is spread onto {x_last, +inf}, the tail below is
  moved up to x_first.
* **lower**: replacing omega by a mean-preserving contraction in u can only lower delta_T.
  Each cell is cut in two by a fraction beta_j: the part (1 - beta_j) stays at x_j, the part
  beta_j joins lattice point x_{j+1} with the lower part of cell j+1, so that the piece at
  x_{j+1} has u-mean <= v_{j+1} (beta_{j-1} S_{j-1} <= (1 - beta_j) D_j); collapsing each
  piece onto its u-mean and then moving it down to its lattice point lowers delta_T.
  The betas are chosen greedily to make each inequality tight, so the pieces sit on the
  lattice with nothing lost.  The tail above the lattice moves down to x_last; the tail
  below is dropped.

Composition is the product of generating polynomials (Arb ``arb_poly``, rigorous radii, and
relative accuracy kept at 1e-300 since every coefficient is non-negative).  After each
product the support is cut to a window [lo, hi] of lattice indices: above hi, the upper
bound moves mass to +inf and the lower bound down to hi; below lo, the upper bound moves
mass up to lo and the lower bound drops it.  Every step only moves mass up (upper) or down
(lower), or enlarges (shrinks) masses inside their balls, and delta_T is increasing in the
loss and in every mass, so the end results bound delta_T rigorously.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Tuple

import flint

from ..arb import to_arb
from .loss_cells import Cells, _fraction_mid

__all__ = ["Measure", "Window", "upper_measure", "lower_measure", "product", "power", "support", "delta_of",
           "epsilon_of"]


@dataclass
class Measure:
    """Masses ``coeffs[i]`` at x = (offset + i) h and ``infinite`` at +inf (balls), for one
    side ("upper" / "lower") of a bracket."""

    h: object  # Fraction (2^-m), or a ball (engines.lattice.aligned)
    offset: int
    coeffs: List
    infinite: object
    side: str

    def total(self):
        return sum(self.coeffs, flint.arb(0))


def _exps(c: Cells) -> List:
    """v_j = e^{-x_j} at the cells' lattice points x_j = j h, j = first .. last, each
    from its own exponential (h = 2^-m times an int is exact in a ball)."""
    h = to_arb(c.h)
    return [(-(h * j)).exp() for j in range(c.first, c.last + 1)]


def upper_measure(c: Cells) -> Measure:
    """The mean-preserving spread of the cells onto the lattice (module docstring); the
    cell width v_j - v_{j+1} = v_j (1 - e^{-h}) without cancellation."""
    n = len(c.P)
    v = _exps(c)
    spread = -(-to_arb(c.h)).expm1()
    coeffs = [flint.arb(0)] * (n + 1)
    coeffs[0] += c.left[0]
    for j in range(n):
        dv = v[j] * spread
        S = c.Q[j] - v[j + 1] * c.P[j]
        D = v[j] * c.P[j] - c.Q[j]
        coeffs[j] += S.nonnegative_part() / dv
        coeffs[j + 1] += D.nonnegative_part() / dv
    to_last = c.right[1] / v[n]
    coeffs[n] += to_last
    infinite = c.infinite + (c.right[0] - to_last).nonnegative_part()
    return Measure(c.h, c.first, coeffs, infinite, "upper")


def lower_measure(c: Cells) -> Measure:
    """A mean-preserving contraction of the cells onto the lattice (module docstring): the
    better of an upward and a downward sweep (``_sweep_up``, ``_sweep_down``), i.e. the one
    that moves less mass down, measured by its excess of E[e^{-L}] over the cells'."""
    best = None
    v = _exps(c)
    for sweep in (_sweep_up, _sweep_down):
        coeffs = sweep(c, v)
        excess = sum((m * v[i] for i, m in enumerate(coeffs) if m != 0), flint.arb(0))
        if best is None or excess.mid() < best[0].mid():
            best = (excess, coeffs)
    return Measure(c.h, c.first, best[1], c.infinite, "lower")


def _sweep_up(c: Cells, v: List) -> List:
    """Cut the cells, from the bottom, into consecutive pieces: a piece starts with (what
    is left of) cell j, aims at x_t = x_{j+1} and takes cells above x_t until its balance
    sum (Q_c - v_t P_c) reaches 0, taking just the fraction phi of the last cell that
    closes it; that piece has u-mean exactly v_t and goes to x_t, and the rest of the last
    cell starts the next piece.  Only the last, unclosed piece (the top) is moved down.
    phi is an exact binary number rounded up from the ends of the balls, so every piece
    provably has u-mean <= v_t."""
    n = len(c.P)
    zero, one = flint.arb(0), flint.arb(1)
    cells = list(zip(c.P, c.Q)) + [c.right]  # the tail above x_last is the last "cell"
    coeffs = [zero] * (n + 1)
    start, share = 0, one  # the piece starts with `share` of cell `start`
    while True:
        target = min(start + 1, n)
        vt = v[target]
        mass, balance = share * cells[start][0], share * (cells[start][1] - vt * cells[start][0])
        for k in range(start + 1, n + 1):
            P1, Q1 = cells[k]
            need = vt * P1 - Q1  # >= 0: cell k lies above x_target
            if need.lower() > 0:
                phi = _ceil(balance.upper() / need.lower())
                if phi < one:
                    coeffs[target] += mass + phi * P1
                    start, share = k, 1 - phi
                    break
            mass += P1
            balance -= need
        else:  # the last piece: u-mean <= v_start, so it may go down to x_start
            coeffs[target if balance <= 0 else start] += mass
            return coeffs


def _sweep_down(c: Cells, v: List) -> List:
    """The mirror sweep, from the top: a piece starts with (what is left of) cell j (the
    tail above x_last first), aims at its lower end x_t = x_j and takes cells below x_t
    while its balance sum (Q_c - v_t P_c) stays <= 0, taking the fraction phi of the cell
    that would overshoot; that piece has u-mean v_t (or less) and goes to x_t.  Only the
    last piece (the bottom) may have u-mean below v_t.  phi is an exact binary number
    rounded down from the ends of the balls."""
    n = len(c.P)
    zero, one = flint.arb(0), flint.arb(1)
    cells = list(zip(c.P, c.Q)) + [c.right]
    coeffs = [zero] * (n + 1)
    start, share = n, one
    while True:
        vt = v[start]
        mass, balance = share * cells[start][0], share * (cells[start][1] - vt * cells[start][0])
        for k in range(start - 1, -1, -1):
            P1, Q1 = cells[k]
            push = Q1 - vt * P1  # >= 0: cell k lies below x_start
            room = -balance
            if push.upper() > 0 and not push.upper() <= room.lower():
                phi = _floor(room.lower() / push.upper())
                coeffs[start] += mass + phi * P1
                start, share = k, 1 - phi
                break
            mass += P1
            balance += push
        else:
            coeffs[start] += mass
            return coeffs


def _floor(x):
    """An exact binary number in [0, 1] <= every point of the ball x."""
    slack = flint.arb(2) ** (-flint.ctx.prec + 24)
    value = flint.arb((x.lower() * (1 - slack)).mid())
    return value if value > 0 else flint.arb(0)


def _ceil(x):
    """An exact binary number >= every point of the ball x (>= 0)."""
    slack = flint.arb(2) ** (-flint.ctx.prec + 24)
    value = flint.arb((x.upper() * (1 + slack)).mid())
    return value if value > 0 else flint.arb(0)


@dataclass(frozen=True)
class Window:
    """Where a composed measure is kept: lattice indices [lo, hi], and ``tau``, the mass
    that may be trimmed off each end of the support (moved as the side requires) to keep
    the polynomials short; 0 keeps everything inside [lo, hi]."""

    lo: int
    hi: int
    tau: object = 0


def _cut(m: Measure, w: Window) -> Measure:
    """``m`` restricted to ``w``; what lies outside is moved as the side requires (module
    docstring): up to the first kept point or to +inf (upper), dropped or down to the last
    kept point (lower)."""
    coeffs = m.coeffs
    n = len(coeffs)
    start = min(max(w.lo - m.offset, 0), n - 1)
    stop = max(min(w.hi - m.offset + 1, n), start + 1)
    start, stop = _trim(coeffs, start, stop, w.tau)
    if (start, stop) == (0, n):
        return m
    below = sum(coeffs[:start], flint.arb(0))
    above = sum(coeffs[stop:], flint.arb(0))
    kept = list(coeffs[start:stop])
    infinite = m.infinite
    if m.side == "upper":
        kept[0] += below
        infinite += above
    else:
        kept[-1] += above
    offset = m.offset + start
    if offset > w.hi or offset + len(kept) - 1 < w.lo:  # all on one side of the window
        return _outside(m, w, below + above + sum(kept[1:-1], flint.arb(0)))
    return Measure(m.h, offset, kept, infinite, m.side)


def _trim(coeffs, start: int, stop: int, tau):
    """Move ``start`` up and ``stop`` down past end runs of total mass below tau."""
    if not tau:
        return start, stop
    for step in (1, -1):
        total = 0
        while stop - start > 1:
            i = start if step > 0 else stop - 1
            total += coeffs[i].upper()
            if not total < tau:
                break
            if step > 0:
                start += 1
            else:
                stop -= 1
    return start, stop


def support(m: Measure, tau) -> Tuple[int, int]:
    """Lattice indices of the first and last point kept when end runs of mass below tau
    are trimmed off."""
    start, stop = _trim(m.coeffs, 0, len(m.coeffs), tau)
    return m.offset + start, m.offset + stop - 1


def _outside(m: Measure, w: Window, mass) -> Measure:
    """A measure whose support lies wholly below or above ``w``."""
    above = m.offset > w.hi
    total = m.total()
    if m.side == "upper":
        if above:
            return Measure(m.h, w.lo, [flint.arb(0)], m.infinite + total, m.side)
        return Measure(m.h, w.lo, [total], m.infinite, m.side)
    return Measure(m.h, w.hi if above else w.lo, [total if above else flint.arb(0)],
                   m.infinite, m.side)


def product(a: Measure, b: Measure, w: Window) -> Measure:
    """The law of the sum of independent a and b (+inf absorbing), cut to ``w``."""
    prod = (flint.arb_poly(a.coeffs) * flint.arb_poly(b.coeffs)).coeffs() or [flint.arb(0)]
    infinite = a.infinite * b.total() + b.infinite * a.total() + a.infinite * b.infinite
    return _cut(Measure(a.h, a.offset + b.offset, prod, infinite, a.side), w)


def power(m: Measure, T: int, w: Window) -> Measure:
    """The T-fold composition of ``m`` (square and multiply), cut to ``w`` after every
    product."""
    result = None
    base = _cut(m, w)
    while True:
        if T & 1:
            result = base if result is None else product(result, base, w)
        T >>= 1
        if not T:
            return result
        base = product(base, base, w)


def delta_of(m: Measure, eps: Fraction):
    """E_m[(1 - e^{eps - x})_+] + m(+inf) as a ball: delta(eps) of the measure.  The step
    h is a rational, or a ball (``engines.lattice.aligned``: then a point whose ball meets eps
    counts (1 - e^{eps - x})_+ as the ball [0, its upper end])."""
    e = to_arb(eps)
    if isinstance(m.h, Fraction):
        first = max(0, int(eps / m.h) - m.offset)
    else:
        first = max(0, int(_fraction_mid((e / m.h).lower().floor())) - m.offset - 1)
    total = m.infinite
    for i in range(first, len(m.coeffs)):
        x = m.h * (m.offset + i)
        if isinstance(x, Fraction) and x <= eps:
            continue
        gain = -(e - to_arb(x)).expm1()
        if gain < 0:
            continue
        total += m.coeffs[i] * (gain if gain > 0 else gain.nonnegative_part())
    return total


def epsilon_of(m: Measure, delta: Fraction):
    """The eps with delta_of(m, eps) = delta, as a ball, or None when delta >= delta_of at
    eps = x_first (then every eps above... is not certified here) or delta <= m(+inf)
    (eps = +inf).  On (x_{j-1}, x_j] the curve is A_j - e^eps B_j with A_j = m(+inf) +
    sum_{i >= j} m_i and B_j = sum_{i >= j} m_i e^{-x_i}: eps = ln((A_j - delta) / B_j)
    (docs/numerics.md, discrete pairs)."""
    d = to_arb(delta)
    if not d > m.infinite:
        return flint.arb("inf") if d < m.infinite else None
    A = m.infinite
    B = flint.arb(0)
    h = to_arb(m.h)
    v = (-(h * (m.offset + len(m.coeffs) - 1))).exp()
    for i in range(len(m.coeffs) - 1, -1, -1):
        v_left = (-(h * (m.offset + i - 1))).exp()  # e^{-x_{i-1}}
        A_next, B_next = A + m.coeffs[i], B + m.coeffs[i] * v
        # on (x_{i-1}, x_i] delta(eps) = A_next - e^eps B_next; at eps = x_{i-1} it is:
        at_left = A_next - B_next / v_left
        if at_left >= d or i == 0:
            if not B_next > 0:
                return None
            return ((A_next - d) / B_next).log()
        if not at_left < d:
            return None
        A, B, v = A_next, B_next, v_left
    return None
