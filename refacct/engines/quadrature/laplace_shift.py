"""Self-compositions of one Laplace shift pair, in closed form, as Arb balls.

A pair Lap(a, b) || Lap(a', b) has the privacy loss L(y) = (abs(y - a') - abs(y - a)) / b,
which takes the values -e0 .. e0 with e0 = abs(a - a') / b (by the symmetry y -> a + a' - y
the direction does not matter).  Under P it has atoms e0 (mass 1/2) and -e0 (mass e^{-e0} / 2)
and the density e^{(x - e0) / 2} / 4 on (-e0, e0), so its law is e^{(x - e0) / 2} nu(dx)
with nu = (delta_{e0} + delta_{-e0}) / 2 + U / 4, U the Lebesgue measure on (-e0, e0).  The
losses of T steps add, so the law of L_T is e^{(x - T e0) / 2} nu^{*T}(dx), and

    delta_T(eps) = E_P[(1 - e^{eps - L_T})_+]
                 = e^{-T e0 / 2} int_{x > eps} (e^{x / 2} - e^{eps - x / 2}) nu^{*T}(dx).

Expanding nu^{*T} by the numbers i, j, k of steps on the atom e0, on -e0 and on the
continuous part (i + j + k = T, with probabilities 1/2, e^{-e0} / 2 and (1 - e^{-e0}) / 2
under P: ``_mass``), the term (i, j, k) is U^{*k} shifted by m e0, m = i - j, weighted
T! / (i! j! k!) 2^{-(i + j)} 4^{-k}.  U^{*k} has the density (2 e0)^{k - 1} M_k((x +
k e0) / (2 e0)), M_k the cardinal B-spline of order k on [0, k] (the density of a sum of k
uniforms on (0, 1)), M_k(u) = sum_r (-1)^r C(k, r) (k - u - r)_+^{k - 1} / (k - 1)!, whose
truncated powers, read from the right end, make each upper tail a finite sum:

    int_{u > u0} e^{beta u} (k - r - u)_+^{k - 1} du = e^{beta (k - r)} J(k, beta, k - r - u0),
    J(k, beta, L) = int_0^L e^{-beta v} v^{k - 1} dv,

J by its series with a proven tail (``_j``).  The alternating sum over r cancels (about
k bits): Arb tracks it, and the precision rises until the ball is as narrow as asked.  A
term whose mass is negligible is left out and its mass added to the ball's radius (each
term contributes between 0 and its mass).  This is the exact convolution of the
Laplace mechanism's privacy-loss distribution (its PLD is piecewise exponential between
its atoms) written out, not an approximation.  Its cost grows about as T^3 (terms (k, i),
each a sum over r): at 30 digits T = 100 takes 0.3 s, T = 1000 3 s per delta.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Iterable, List, Optional, Tuple

from mpmath import mp

from ...distributions import Laplace
from ...pairs import Pair
from .. import arb as arbs
from ..arb import arb, flint, to_arb
from .shift import shift_pair

__all__ = ["laplace_shift", "hockey_laplace", "delta_ball", "MAX_EXTRA_BITS"]

MAX_EXTRA_BITS = 1 << 16


def laplace_shift(factors: Iterable[Tuple[Pair, int]]) -> Optional[Tuple[Fraction, int]]:
    """(e0, T) when every factor (pair_i, n_i) is a Laplace shift pair (one Laplace on each
    side, one scale) with the same e0 = abs(a - a') / b > 0, T = sum_i n_i; else None."""
    ratio, total = None, 0
    for pair, n in factors:
        one = shift_pair(pair, Laplace)
        if one is None:
            return None
        p, q = one
        e0 = abs(p.loc - q.loc) / p.scale
        if e0 == 0 or ratio not in (None, e0):
            return None
        ratio, total = e0, total + n
    return None if ratio is None else (ratio, total)


def hockey_laplace(e0: Fraction, steps: int, alpha, alpha_exact: Optional[Fraction] = None,
                   eps: Optional[Fraction] = None):
    """(H_alpha, its proven bound) of ``steps`` compositions of the Laplace shift pair with
    ratio ``e0``, at the working precision (mpf): the ball of the module docstring's sum,
    from eps when exact, else ln of ``alpha_exact`` or of the mpf ``alpha`` (exactly
    converted), at rising Arb precision until its radius is 2^-prec of its value.
    ArithmeticError beyond ``MAX_EXTRA_BITS``."""
    if alpha == 0:
        return mp.one, mp.zero
    extra = 64 + 2 * steps.bit_length()
    while extra <= MAX_EXTRA_BITS:
        bits = mp.prec + extra
        with flint.ctx.workprec(bits):
            if eps is not None:
                x = to_arb(eps)
            else:
                x = (to_arb(alpha_exact) if alpha_exact is not None else to_arb(alpha)).log()
            value = delta_ball(e0, steps, x, mp.prec + 8, eps)
            if value == 0:
                return mp.zero, mp.zero
            mid, rad = arbs.arb_mid_rad(value)
            if value.is_finite() and value > 0 and rad <= abs(mid) * mp.mpf(2) ** -mp.prec:
                return mid, rad
            if value.is_finite() and not value > 0 and rad <= mp.mpf(2) ** -mp.prec:
                return mp.zero, mid + rad   # 0 <= delta <= mid + rad: at the top
        extra *= 2
    raise ArithmeticError(f"the Laplace closed form cancels beyond {MAX_EXTRA_BITS} extra "
                          f"bits (e0 = {e0}, {steps} steps)")


@lru_cache(maxsize=8)
def _ordered(e0: Fraction, steps: int) -> Tuple[Tuple[int, int, "arb"], ...]:
    """(k, i, R) for every term i + j + k = T in decreasing P-mass, R an upper bound on
    the mass of that term and all after it, at 64 bits (the masses only decide which terms
    are left out, and bound them; the same for every eps).  The masses follow the
    multinomial law with probabilities 1/2, e^{-e0} / 2 and (1 - e^{-e0}) / 2 of the atoms
    e0, -e0 and the continuous part, along i by the ratio (n - i) / (i + 1) e^{e0}."""
    with flint.ctx.workprec(64):
        e = to_arb(e0)
        down = (-e).exp() / 2
        cont, ratio = 1 - arb(1) / 2 - down, e.exp()
        out = []
        for k in range(steps + 1):
            n = steps - k
            mass = comb(steps, k) * cont ** k * down ** n
            for i in range(n + 1):
                out.append((mass, k, i))
                mass = mass * ratio * (n - i) / (i + 1)
        out.sort(key=lambda t: t[0].mid(), reverse=True)
        rest, ordered = arb(0), []
        for mass, k, i in reversed(out):
            rest += mass
            ordered.append((k, i, rest.upper()))
        ordered.reverse()
        return tuple(ordered)


def delta_ball(e0_exact: Fraction, steps: int, eps: "arb", bits: int,
           eps_exact: Optional[Fraction] = None) -> "arb":
    """delta_T(eps) (module docstring) as a ball: the terms in decreasing mass, those whose
    support lies at or below eps skipped (they contribute 0: decided exactly when eps is
    exact; none left: an exact 0), until the mass of the rest is below 2^-bits of the sum
    so far, then the ball [0, that mass] for the rest."""
    e0 = to_arb(e0_exact)
    total, sums, contributes = arb(0), _Terms(e0, steps, eps), False
    scale = arb(2) ** -bits
    for k, i, rest in _ordered(e0_exact, steps):
        top = 2 * i - steps + 2 * k    # the top of the support is (m + k) e0
        if (top * e0_exact <= eps_exact) if eps_exact is not None else (top * e0 <= eps):
            continue
        if total.lower() > 0 and rest <= (total.lower() * scale).lower():
            return total + rest / 2 + arb(0, (rest / 2).upper())
        contributes = True
        total += sums.term(k, i)
    return total if contributes else arb(0)


class _Terms:
    """The terms' contributions at one eps, with what they share cached: the coefficients
    (-1)^r C(k, r) e^{+-e0 (k / 2 - r)} of each k, the J values (the same L recurs: L =
    (k + m - 2r) / 2 - eps / (2 e0) depends on m - 2r only) and e^{m e0 / 2}."""

    def __init__(self, e0: "arb", steps: int, eps: "arb") -> None:
        self.e0, self.steps, self.eps = e0, steps, eps
        self.half_ratio = eps / (2 * e0)
        self.front = (-steps * e0 / 2).exp()
        self.eps_exp = eps.exp()
        self.j, self.coeffs, self.shifts = {}, {}, {}

    def _shift(self, m: int) -> "arb":
        if m not in self.shifts:
            self.shifts[m] = (m * self.e0 / 2).exp()
        return self.shifts[m]

    def _coeffs(self, k: int, sign: int):
        if (k, sign) not in self.coeffs:
            step, first = (-sign * self.e0).exp(), (sign * self.e0 * k / 2).exp()
            row, power = [], first
            for r in range(k + 1):
                row.append((-1) ** r * comb(k, r) * power)
                power *= step
            self.coeffs[k, sign] = row
        return self.coeffs[k, sign]

    def term(self, k: int, i: int) -> "arb":
        """The contribution of the term (i, j, k), m = i - j: e^{-T e0 / 2} w (e^{m e0 / 2}
        G_k^+(y) - e^{eps - m e0 / 2} G_k^-(y)) with y = eps - m e0 and G_k^{+-}(y) =
        int_{x > y} e^{+-x / 2} U^{*k}(dx) (module docstring)."""
        n = self.steps - k
        m = 2 * i - n
        weight = self.front * arb(comb(self.steps, k) * comb(n, i)) / arb(2) ** n / arb(4) ** k
        up, down = self._shift(m), self.eps_exp / self._shift(m)
        if k == 0:
            return weight * (up - down)
        full = self.half_ratio + arb(k - m) / 2 < 0    # the whole support lies above eps
        sums = []
        for sign in (1, -1):
            total, row = arb(0), self._coeffs(k, sign)
            for r in range(k + 1):
                length = arb(k - r) if full else arb(k + m - 2 * r) / 2 - self.half_ratio
                if length <= 0:
                    break
                key = (k, sign, full, r if full else m - 2 * r)
                if key not in self.j:
                    self.j[key] = _j(k, sign * self.e0, length)
                total += row[r] * self.j[key]
            sums.append(total)
        spline = (2 * self.e0) ** k / arb.fac_ui(k - 1)
        return weight * spline * (up * sums[0] - down * sums[1])


def _j(k: int, beta: "arb", length: "arb") -> "arb":
    """J(k, beta, L) = int_0^L e^{-beta v} v^{k - 1} dv, L >= 0 (a ball that may reach a
    little below 0 at a support's edge), by a series of positive terms with its tail
    bounded: beta >= 0: e^{-beta L} L^k sum_n (beta L)^n / (k (k + 1) ... (k + n)), ratio
    beta L / (k + n + 1); beta < 0: L^k sum_n (|beta| L)^n / (n! (n + k)), ratio at most
    |beta| L / (n + 1).  Stopped where the ratio is below 1/2 and the term below 2^-prec of
    the sum: the tail is at most the term."""
    x = abs(beta) * length
    term = arb(1) / k
    total, n = arb(0), 0
    eps = arb(2) ** -flint.ctx.prec
    while True:
        total += term
        if beta >= 0:
            ratio = x / (k + n + 1)
            following = term * ratio
        else:
            ratio = x / (n + 1)
            following = term * x * (n + k) / ((n + 1) * (n + k + 1))
        n += 1
        if abs(ratio).upper() < arb(1) / 2 and abs(following).upper() <= (eps * total).lower():
            total += arb(0, abs(following).upper() * 2)
            break
        term = following
    front = _power(length, k)
    return front * (-beta * length).exp() * total if beta >= 0 else front * total


def _power(x: "arb", k: int) -> "arb":
    """x^k by squaring (python-flint's ``x ** k`` is NaN for a ball that contains 0)."""
    result, square = arb(1), x
    while k:
        if k & 1:
            result *= square
        square *= square
        k >>= 1
    return result
