"""The part of a subsampled Laplace loss's transform that does not decay, subtracted from
the trapezoidal sum and inverted in closed form (``inversion``; the loss is
``laplace.SubsampledLaplace`` with one lattice cell: Poisson sampling of one Laplace
mechanism, either direction).

**Why.**  The loss of one step has two atoms, at the cell's ends u_lo < u_hi, and a density
between them that jumps there.  So M(c + is) tends to the atoms' almost periodic part, not
to 0, and the truncation bound of T steps cannot fall below the atoms' share of M_T(c):
about 5e-17 of delta at 100 steps of b = 1, q = 1/100 (``laplace``).

**One step.**  With E = e^u, on the cell x = e^{2y/b} = f2 / f1, f1 = be_A - be_B E, f2 =
al_B E - al_A (``SubsampledLaplace``: N_A / N_B = E), and the cell's integral in the loss
u = ln(p / q) is C(z) = int_{u_lo}^{u_hi} g(u) e^{wu} du, w = z + 1, where g is the
Q-density of the loss:

    g(u) = (D^2 / 4) E (s f1 f2)^{-3/2},  D = be_A al_B - al_A be_B,

s = +-1 the sign of f1 f2 on the cell (q dy = x^{-1/2} N_B dy / (2b), N_B = D / f1,
dx / dE = D / f1^2).  Integrating by parts m times,

    C(z) = sum_{j < m} (-1)^j [g^(j)(u) e^{wu}]_{u_lo}^{u_hi} / w^{j+1} + rho,
    |rho| <= R X^m,  X = 1 / |w|,  R = int |g^(m)(u)| e^{(c + 1) u} du,

so M(z) = A(X) e^{z u_lo} + B(X) e^{z u_hi} + rho with A, B polynomials of degree m in X
= 1 / (z + 1) (their constant terms the atoms' P-masses, the others the derivatives of g at
the ends, by Arb power series).  R comes from Cauchy's estimate: g is analytic off the
zeros of f1 and f2 (E = be_A / be_B, al_A / al_B, their logarithms and the 2 pi i
translates), and on a piece of the cell at distance d from them |g^(m)| <= m! G / rho^m,
rho = 3d / 4, G a ball of |g| on the piece widened by rho.

**T steps.**  P(z) = [(A(X) U + B(X) V)^T]_{<= m}, U = e^{z u_lo}, V = e^{z u_hi}, the
terms of degree at most m in X, is sum_n e^{z a_n} sum_j c_{nj} X^j with a_n = (T - n) u_lo +
n u_hi and c_{n.} = C(T, n) [A^{T - n} B^n]_{<= m}.  e^{za} X^j is the transform of the
measure of density v^{j - 1} e^{-v} / (j - 1)! at a - v, v > 0 (an atom at a for j = 0),
so its part of delta at x is P(j + 1, a - x) (the regularised lower incomplete gamma
function; 0 for x >= a), and P's part of delta is

    Delta_P(x) = sum_{n: a_n > x} [S_n(0) - e^{-tau} sum_{i <= m} S_n(i) tau^i / i!],

tau = a_n - x, S_n(i) = sum_{j >= i} c_{nj}.  **The sum.**  The trapezoidal sum of M_T is
that of M_T - P over the nodes, plus that of P over every node less its nodes beyond the
range; by Poisson summation (``inversion``) P's sum over every node is sum_k e^{2 pi c k /
h} Delta_P(eps + 2 pi k / h): the terms k > 0 up to eps + 2 pi k / h >= T u_hi (beyond it
Delta_P = 0), the terms k = 0 .. -K, and the rest within Lambda r^{K + 1} / (1 - r), r =
e^{-2 pi c / h}, Lambda = sum |c_{nj}| (each measure's mass is 1).  What is left beyond the
range is M_T - P, whose modulus for |w| >= t is at most (X = 1 / t, p_j = |A_j| e^{c
u_lo} + |B_j| e^{c u_hi}, p(X) = sum_j p_j X^j)

    T (p(X) + R X^m)^{T - 1} R X^m + p(X)^T - [p^T]_{<= m}(X)

(the first from rho, by |x^T - y^T| <= T max(|x|, |y|)^{T - 1} |x - y|; the second bounds
the terms of (A U + B V)^T above degree m coefficientwise), increasing in X: the decay
bound of ``inversion`` for the difference.  At 100 steps of b = 1, q = 1/100 the
difference at the range's end (t ~ 1.7e4) is 1e-16 of M_T there.

P's coefficients grow like j! / d^j (d ~ 0.004 at that example: 1e35 at m = 16), and the
sums that cancel them are made with the bits of Lambda added.
"""
from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from math import comb, factorial
from typing import Dict, Iterator, List, Sequence, Tuple

from ..arb import acb, arb, flint, to_arb

__all__ = ["ORDER", "Expansion"]

ORDER = 16       # m: the terms in X = 1 / (z + 1) kept of each end
ALIASES = 3      # K + 1: the terms k = 0 .. -K of P's sum over every node taken exactly


@contextmanager
def _series(length: int) -> Iterator[None]:
    """Arb power series of ``length`` terms within (python-flint's ``ctx.cap``)."""
    old = flint.ctx.cap
    flint.ctx.cap = max(old, length)
    try:
        yield
    finally:
        flint.ctx.cap = old


def _largest(g, a: "arb", b: "arb", radius: "arb", arcs: int = 16) -> "arb":
    """An upper bound on |g| over the discs of ``radius`` about the points of [a, b]: by
    the maximum principle, over their union's boundary (g real on the real axis, so
    |g(conj u)| = |g(u)|: the upper half), a segment at height ``radius`` and two
    quarter-circle ends, each in ``arcs`` boxes."""
    best = abs(g(acb(a.union(b), radius))).upper()
    for centre, sign in ((a, -1), (b, 1)):
        for i in range(arcs):
            angle = arb.pi() / 2 * (arb(i).union(arb(i + 1))) / arcs
            box = acb(centre + sign * radius * angle.cos(), radius * angle.sin())
            best = max(best, abs(g(box)).upper())
    return best


class Expansion:
    """The expansion of the module docstring for ``loss``, a ``SubsampledLaplace`` of one
    cell, of ``order`` m; its balls at each precision are made once."""

    def __init__(self, loss, order: int = ORDER) -> None:
        self.loss, self.order, self.steps = loss, order, loss.steps
        self._made: Dict[int, tuple] = {}
        self._sums: Dict[int, tuple] = {}
        self._nodes: Dict[tuple, List["acb"]] = {}
        self._remainders: Dict[tuple, "arb"] = {}

    # --- one step ---------------------------------------------------------------------

    def _density(self):
        """(u -> g(u) on power series or balls, the logs of g's real singularities)
        (module docstring: the weights are >= 0, so the zeros of f1 and f2 lie at real u,
        and their 2 pi i translates, or nowhere)."""
        al_a, be_a, al_b, be_b, det = self.loss._cell(0)
        mid = (self._ends()[0][1] + self._ends()[1][1]) / 2
        e = mid.exp()
        sign = 1 if (be_a - be_b * e) * (al_b * e - al_a) > 0 else -1

        def g(u):
            e = u.exp()
            return det * det / 4 * e * ((sign * (be_a - be_b * e) * (al_b * e - al_a)).log()
                                         * (-arb(3) / 2)).exp()
        return g, [(num / den).log() for num, den in ((be_a, be_b), (al_a, al_b))
                   if num != 0 and den != 0]

    def _ends(self) -> List[Tuple["arb", "arb"]]:
        """[(P-mass, u)] of the two atoms, lower u first: the cell's ends."""
        atoms = [(mass * log_r.exp(), log_r) for mass, log_r in self.loss._atoms()]
        return atoms if atoms[0][1] < atoms[1][1] else atoms[::-1]

    def _one_step(self) -> List[List["arb"]]:
        """[A_0 .. A_m], [B_0 .. B_m] at the current precision (module docstring)."""
        g, _ = self._density()
        m, out = self.order, []
        for (mass, u), sign in zip(self._ends(), (-1, 1)):
            with _series(m + 1):
                t = flint.arb_series([u, 1], prec=m)
                coefficients = g(t).coeffs()
            coefficients += [arb(0)] * (m - len(coefficients))
            out.append([mass] + [sign * (-1) ** j * factorial(j) * coefficients[j] * u.exp()
                                 for j in range(m)])
        return out

    def remainder(self, c: "arb") -> "arb":
        """R >= int |g^(m)(u)| e^{(c + 1) u} du over the cell, by Cauchy's estimate on
        pieces whose width is at most an eighth of their distance d to g's singularities,
        with circles of radius 3d / 4 (``_largest``); kept per contour and precision."""
        key = (c.mid().str(30), c.rad().str(5), flint.ctx.prec)
        if key not in self._remainders:
            self._remainders[key] = self._remainder(c)
        return self._remainders[key]

    def _remainder(self, c: "arb") -> "arb":
        g, singular = self._density()
        (_, lo), (_, hi) = self._ends()
        m, total, v, hi = self.order, arb(0), lo.lower(), hi.upper()

        def distance(a, b):   # from [a, b] to the nearest singularity (at most pi)
            return min([max(s - b, a - s, arb(0)) for s in singular]
                       + [arb.pi()]).lower()
        while v < hi:
            width = distance(v, v) / 8
            while width > distance(v, v + width) / 8:
                width /= 2
            end = min(v + width, hi)
            radius = distance(v, end) * 3 / 4
            size = _largest(g, v, end, radius)
            if not size.is_finite():
                return arb("inf")
            total += (end - v) * factorial(m) * size / radius ** m * ((c + 1) * end).exp()
            v = end
        return total.upper()

    # --- T steps ----------------------------------------------------------------------

    def _steps(self):
        """(u_lo, u_hi, [A_j], [B_j]) at the current precision, made once per precision."""
        prec = flint.ctx.prec
        if prec not in self._made:
            (_, u_lo), (_, u_hi) = self._ends()
            self._made[prec] = (u_lo, u_hi) + tuple(self._one_step())
        return self._made[prec]

    def _terms(self):
        """([(a_n, [S_n(0) .. S_n(m)])], Lambda) at the current precision (module
        docstring), made once per precision: only the sum needs them (T + 1 products of
        series; the decay bound and the node values take A and B alone)."""
        prec = flint.ctx.prec
        if prec not in self._sums:
            u_lo, u_hi, low, high = self._steps()
            m, steps = self.order, self.steps
            with _series(m + 1):
                a, b = (flint.arb_series(v, prec=m + 1) for v in (low, high))
                powers_a, powers_b = [flint.arb_series([1], prec=m + 1)], \
                    [flint.arb_series([1], prec=m + 1)]
                for _ in range(steps):
                    powers_a.append(powers_a[-1] * a)
                    powers_b.append(powers_b[-1] * b)
                terms, mass = [], arb(0)
                for n in range(steps + 1):
                    c = (powers_a[steps - n] * powers_b[n]).coeffs()
                    c = [comb(steps, n) * x for x in c] + [arb(0)] * (m + 1 - len(c))
                    mass += sum((abs(x) for x in c), arb(0))
                    suffix = [sum(c[i:], arb(0)) for i in range(m + 1)]
                    terms.append(((steps - n) * u_lo + n * u_hi, suffix))
            self._sums[prec] = (terms, mass.upper())
        return self._sums[prec]

    def mass(self) -> "arb":
        """Lambda: the sum of |c_nj| (module docstring), at 64 bits."""
        with flint.ctx.workprec(64):
            return self._terms()[1]

    def part(self, x: "arb") -> "arb":
        """Delta_P(x), P's part of delta at x (module docstring)."""
        m, total = self.order, arb(0)
        for a, suffix in self._terms()[0]:
            tau = a - x
            if tau < 0:
                continue
            value, power = suffix[0], arb(1)
            if tau > 0:
                series = arb(0)
                for i in range(m + 1):
                    series += suffix[i] * power
                    power = power * tau / (i + 1)
                total += value - (-tau).exp() * series
            else:   # 0 <= P(j + 1, tau) <= |tau| on [0, 1]; |c_j| <= |S(j)| + |S(j + 1)|
                total += arb(0, 2 * sum((abs(s) for s in suffix), arb(0)).upper()
                             * abs(tau).upper())
        return total

    def values(self, c: "arb", h: "arb", stop: int) -> List["acb"]:
        """P(c + inh), n = 0 .. stop - 1, kept per contour, step and precision."""
        key = (c.mid().str(30), h.mid().str(30), flint.ctx.prec)
        known = self._nodes.setdefault(key, [])
        if len(known) < stop:
            u_lo, u_hi, low, high = self._steps()
            m = self.order
            with _series(m + 1):
                for n in range(len(known), stop):
                    z = acb(c, n * h)
                    x, ends = 1 / (z + 1), ((z * u_lo).exp(), (z * u_hi).exp())
                    power = flint.acb_series([ends[0] * p + ends[1] * q for p, q in
                                              zip(low, high)], prec=m + 1) ** self.steps
                    value = acb(0)
                    for coefficient in reversed(power.coeffs()):
                        value = value * x + coefficient
                    known.append(value)
        return known[:stop]

    def decay(self, c: "arb", t: "arb") -> "arb":
        """sup over |w| >= t of |M_T - P|(c + is) (module docstring)."""
        with flint.ctx.workprec(flint.ctx.prec + 128):
            u_lo, u_hi, low, high = self._steps()
            x = 1 / ((c + 1) * (c + 1) + t * t).sqrt()
            m, steps = self.order, self.steps
            p = [abs(a) * (c * u_lo).exp() + abs(b) * (c * u_hi).exp() for a, b in zip(low, high)]
            with _series(m + 1):
                low_part = (flint.arb_series(p, prec=m + 1) ** steps).coeffs()
            p_x = sum((pj * x ** j for j, pj in enumerate(p)), arb(0))
            rho = self.remainder(c) * x ** m
            beyond = p_x ** steps - sum((cj * x ** j for j, cj in enumerate(low_part)), arb(0))
            return (steps * (p_x + rho) ** (steps - 1) * rho + beyond).upper()

    def trapezoid(self, logs: Sequence["acb"], c: Fraction, h: Fraction, e: Fraction
                  ) -> "arb":
        """The trapezoidal sum of M_T (``inversion.trapezoid``) as that of M_T - P over the
        nodes plus P's over every node (module docstring), with the bits by which Lambda
        times the largest weight e^{2 pi c k / h} exceeds the integrand at t = 0 added
        (the plan's precision is for that scale; c > 0)."""
        exact = c, h, e
        c, h, e = (to_arb(v) for v in exact)
        two_pi, top = 2 * arb.pi(), self.steps * self._ends()[1][1]
        ahead = 0
        while not e + two_pi * (ahead + 1) / h >= top:   # a ball straddling top: kept
            ahead += 1
        peak = (logs[0].real - c * e).exp() / (c * (c + 1))   # the integrand at t = 0
        bits = ((self.mass() / peak).log() + two_pi * c * ahead / h) / arb(2).log()
        extra = int(bits.upper().ceil().unique_fmpz())
        with flint.ctx.workprec(flint.ctx.prec + max(extra, 0) + 32):
            c, h, e = (to_arb(v) for v in exact)
            two_pi, total = 2 * arb.pi(), arb(0)
            for n, (log_m, value) in enumerate(zip(logs, self.values(c, h, len(logs)))):
                z = acb(c, n * h)
                term = (((log_m - z * e).exp() - value * (-z * e).exp()) / (z * (z + 1))).real
                total += term if n == 0 else 2 * term
            total *= h / two_pi
            for k in range(-ALIASES + 1, ahead + 1):
                total += (two_pi * c * k / h).exp() * self.part(e + two_pi * k / h)
            r = (-two_pi * c / h).exp()
            total += arb(0, (self.mass() * r ** ALIASES / (1 - r)).upper())
            return total
