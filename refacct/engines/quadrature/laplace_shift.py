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

J by Arb's enclosure of 1F1 (``_j``).  The alternating sum over r cancels (about
k bits): Arb tracks it, and the precision rises until the ball is as narrow as asked.  A
term whose mass is negligible is left out and its mass added to the ball's radius (each
term contributes between 0 and its mass).  This is the exact convolution of the
Laplace mechanism's privacy-loss distribution (its PLD is piecewise exponential between
its atoms) written out, not an approximation.  A term whose support lies above eps needs
no spline (its P-mass times 1 - e^{eps - m e0}), so only the k + 1 terms of each k that
straddle eps take the sums over r (``delta_ball``), and the ks that matter are those up to
a few times the expected number of steps off the atoms, T (1 - e^{-e0}) / 2: at 30
digits, e0 = 1/100, delta takes 0.1 s at T = 1000 (it took 3 s when every term was a
spline sum) and 5 s at T = 10^4.
"""
from __future__ import annotations

from fractions import Fraction
from math import ceil, floor
from typing import Iterable, List, Optional, Tuple

from flint import arb_poly
from mpmath import mp

from ... import progress
from ...distributions import Laplace
from ...exact import rational
from ...pairs import Pair, shift_pair
from .. import arb as arbs
from ..arb import arb, flint, to_arb

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
    # the straddling sums cancel about k bits, k up to a few times T (1 - e^{-e0}) / 2
    extra = 64 + 2 * steps.bit_length() + ceil(steps * min(e0, 1))
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


def delta_ball(e0_exact: Fraction, steps: int, eps: "arb", bits: int,
               eps_exact: Optional[Fraction] = None) -> "arb":
    """delta_T(eps) (module docstring) as a ball, k = 0, 1, ... steps on the continuous
    part, each k's terms from the conditional mode of i (or the first i whose support
    reaches above eps) outwards; a term whose support lies at or below eps contributes 0
    (decided exactly when eps is exact; T e0 <= eps: an exact 0).  A term whose support lies
    at or above eps contributes its P-mass times 1 - e^{eps - m e0} (``_Masses.full``);
    only the straddling ones, at most k + 1 for each k, take the B-spline sums.  What is
    left out is bounded by its P-mass and goes to the radius: each side of i once its
    masses fall geometrically (ratio <= 1/2: the rest is at most twice the next term), and
    the ks beyond the last one taken by ``_Masses.k_ratio`` (a ratio r < 1 that falls with
    k: the rest is at most r / (1 - r) times the last k's mass)."""
    e0 = to_arb(e0_exact)
    if (steps * e0_exact <= eps_exact) if eps_exact is not None else (steps * e0 <= eps):
        return arb(0)
    low, high = _ends(eps_exact / e0_exact) if eps_exact is not None else _ends(eps / e0)
    masses, sums = _Masses(e0, steps, eps), _Terms(e0, steps, eps)
    scale = arb(2) ** -(bits + 10)
    total, left_out = arb(0), arb(0)
    for k in range(steps + 1):
        progress.note(f"Laplace closed form: {k} steps off the atoms")
        n = steps - k
        above = floor(Fraction(n - k) / 2 + low / 2) + 1        # top (m + k) > eps from i = above
        first = max(0, above)
        full = max(first, ceil(Fraction(n + k) / 2 + high / 2))        # bottom (m - k) >= eps
        if first > n:
            continue
        value, tail, skipped = masses.sum_k(k, above, full, sums, scale, total.lower())
        total += value
        left_out += skipped
        reach = masses.k_ratio(k)
        if reach < 1:
            rest = tail * reach / (1 - reach)      # every later k: tail (reach + reach^2 + ...)
            if rest <= (scale * total.lower()).lower():
                left_out += rest
                break
    left_out = arb(left_out.upper())
    return total + left_out / 2 + arb(0, (left_out / 2).upper())


def _ends(h) -> Tuple[Fraction, Fraction]:
    """(lower, upper) end of eps / e0 (a rational, or a ball) as exact rationals."""
    if isinstance(h, Fraction):
        return h, h
    return tuple(rational(x, "eps / e0") for x in arbs.arb_ends(h))


class _Masses:
    """The terms' P-masses C(T, k) C(n, i) c^k (1/2)^i (e^{-e0} / 2)^{n - i}, n = T - k,
    c = (1 - e^{-e0}) / 2 (the multinomial law of the module docstring), walked along i by
    the ratio (n - i) / (i + 1) e^{e0}, and the full terms' contributions."""

    def __init__(self, e0: "arb", steps: int, eps: "arb") -> None:
        self.steps, self.e0 = steps, e0
        self.down = (-e0).exp()
        self.cont = (1 - self.down) / 2
        self.up_ratio, self.shift = e0.exp(), (-2 * e0).exp()
        self.eps_exp = eps.exp()
        self.half = arb(1) / 2

    def mass(self, k: int, i: int) -> "arb":
        n = self.steps - k
        return (arb.bin_uiui(self.steps, k) * arb.bin_uiui(n, i) * self.cont ** k
                * self.down ** (n - i) / arb(2) ** n)

    def k_ratio(self, k: int) -> "arb":
        """(T - k) (1 - e^{-e0}) / (k + 1), a bound on the ratio of the mass reaching above
        eps with k + 1 continuous steps to that with k: the k-law's ratio (T - k) c / ((k + 1)
        (1 - c)) times 1 + e^{-e0}, since the first i reaching above eps moves down by one and
        P(Bin(n, p) >= i) >= p P(Bin(n - 1, p) >= i - 1), p = 1 / (1 + e^{-e0})."""
        return arb(self.steps - k) * (1 - self.down) / (k + 1)

    def sum_k(self, k: int, above: int, full: int, sums: "_Terms", scale: "arb", least: "arb"):
        """(the contributions of the terms k, i >= first = max(0, ``above``), the P-mass of
        those terms (an upper bound), the P-mass of those left out (on each side at most
        ``scale`` times the larger of ``least`` and this k's contribution)): from the
        binomial mode of i (or ``first``) upwards, then downwards to ``first``; the terms
        from ``full`` on take ``full``'s formula, the others ``_Terms.straddling``."""
        n = self.steps - k
        first = max(0, above)
        start = max(first, min(n, _mode(n, self.down)))
        value, mass_sum, skipped, straddling = arb(0), arb(0), arb(0), []
        for direction in (1, -1):
            i = start if direction > 0 else start - 1
            if i < first or i > n:
                continue
            mass = self.mass(k, i)
            shift = (-(2 * i - n) * self.e0).exp()
            while True:
                if i >= full:
                    value += self.full(mass, shift)
                else:
                    straddling.append((i, mass))
                mass_sum += mass
                if direction > 0:
                    ratio = self.up_ratio * (n - i) / (i + 1)
                    shift, i = shift * self.shift, i + 1
                else:
                    ratio = arb(i) / (n - i + 1) / self.up_ratio
                    shift, i = shift / self.shift, i - 1
                if i < first or i > n:
                    break
                mass = mass * ratio
                rest = 2 * mass
                if ratio <= self.half and rest <= scale * max(least, value.lower(), arb(0)):
                    skipped += rest
                    break
        if straddling:
            value += sums.straddling(k, above, straddling)
        return value, mass_sum + skipped, skipped

    def full(self, mass: "arb", shift: "arb") -> "arb":
        """A term whose support lies at or above eps: its P-mass times 1 - e^{eps - m e0}
        (the integral of e^{x/2} - e^{eps - x/2} over a support above eps, with the front
        factors of the module docstring, is the P-mass times that; ``shift`` = e^{-m e0})."""
        return mass * (1 - self.eps_exp * shift)


def _mode(n: int, down: "arb") -> int:
    """A mode of Bin(n, 1 / (1 + e^{-e0})), floor((n + 1) / (1 + e^{-e0})) (where the walk
    along i starts; any start is correct, the mode makes it shortest)."""
    mid, _ = arbs.arb_mid_rad((n + 1) / (1 + down))
    return int(mid)


class _Terms:
    """The straddling terms' contributions at one eps, with what they share cached: the
    rows (-1)^r C(k, r) e^{+-e0 (k / 2 - r)} of each k (as polynomials) and e^{m e0 / 2}."""

    def __init__(self, e0: "arb", steps: int, eps: "arb") -> None:
        self.e0, self.steps = e0, steps
        self.half_ratio = eps / (2 * e0)
        self.four_c = 2 * (1 - (-e0).exp())
        self.eps_exp = eps.exp()
        self.rows, self.shifts = {}, {}

    def _shift(self, m: int) -> "arb":
        if m not in self.shifts:
            self.shifts[m] = (m * self.e0 / 2).exp()
        return self.shifts[m]

    def _row(self, k: int, sign: int) -> "arb_poly":
        """sum_r (-1)^r C(k, r) e^{sign e0 (k / 2 - r)} x^{k - r}."""
        if (k, sign) not in self.rows:
            step, first = (-sign * self.e0).exp(), (sign * self.e0 * k / 2).exp()
            row, power, binomial = [], first, 1
            for r in range(k + 1):
                row.append((-1) ** r * binomial * power)
                power, binomial = power * step, binomial * (k - r) // (r + 1)
            self.rows[k, sign] = arb_poly(row[::-1])
        return self.rows[k, sign]

    def straddling(self, k: int, above: int, terms: List[Tuple[int, "arb"]]) -> "arb":
        """The contributions of the terms (i, mass) of one k whose support straddles eps:
        e^{-T e0 / 2} w (e^{m e0 / 2} G_k^+(y) - e^{eps - m e0 / 2} G_k^-(y)), m = 2i - n,
        y = eps - m e0, G_k^{+-}(y) = int_{x > y} e^{+-x / 2} U^{*k}(dx), where e^{-T e0 / 2} w
        = mass e^{-(m + k) e0 / 2} / (4 c)^k, c = (1 - e^{-e0}) / 2 (``_Masses``).  By the
        truncated powers (module docstring) G_k^{+-} is a sum over r of the row (-1)^r C(k, r)
        e^{+-e0 (k / 2 - r)} times J(k, +-e0, L), L = (k + m - 2r) / 2 - eps / (2 e0), which
        depends on i - r only: the sum over (i, r) is one product of polynomials (Arb's)
        whose coefficient at i - r meets J there; i - r < ``above`` (the first i whose
        support would reach above eps, negative too) has L <= 0 (the truncated power is 0
        there)."""
        n = self.steps - k
        low = min(i for i, _ in terms)
        ups = [arb(0)] * (max(i for i, _ in terms) - low + 1)
        downs = list(ups)
        for i, mass in terms:
            m = 2 * i - n
            weight = mass * (-(m + k) * self.e0 / 2).exp() / self.four_c ** k
            ups[i - low] = weight * self._shift(m)
            downs[i - low] = weight * self.eps_exp / self._shift(m)
        if k == 0:
            return sum(ups, arb(0)) - sum(downs, arb(0))
        total = arb(0)
        for sign, weights in ((1, ups), (-1, downs)):
            product = arb_poly(weights) * self._row(k, sign)
            for v in range(max(above, low - k), low + len(weights)):
                index = v - low + k
                length = arb(k + 2 * v - n) / 2 - self.half_ratio
                if index > product.degree() or length <= 0:
                    continue
                total += sign * product[index] * _j(k, sign * self.e0, length)
        return total * (2 * self.e0) ** k / arb.fac_ui(k - 1)


def _j(k: int, beta: "arb", length: "arb") -> "arb":
    """J(k, beta, L) = int_0^L e^{-beta v} v^{k - 1} dv = L^k 1F1(k; k + 1; -beta L) / k
    (substitute v = L u: 1F1(a; a + 1; z) = a int_0^1 e^{z u} u^{a - 1} du), L >= 0 (a ball
    that may reach a little below 0 at a support's edge), by FLINT's enclosure of 1F1."""
    return _power(length, k) * (-beta * length).hypgeom_1f1(k, k + 1) / k


def _power(x: "arb", k: int) -> "arb":
    """x^k by squaring (python-flint's ``x ** k`` is NaN for a ball that contains 0)."""
    result, square = arb(1), x
    while k:
        if k & 1:
            result *= square
        square *= square
        k >>= 1
    return result
