"""Moment generating functions of the privacy loss, M(z) = E_P[e^{z L}] = E_Q[(p/q)^{1+z}]
(001 Definition 5 for L), at complex z with Re z = c > 0 or on the inner strip -1 < c < 0
(where M(c) <= 1 for every pair), as Arb balls, for the transform engine (``inversion``).

A ``Loss`` is the loss of a whole composition: ``log_mgf(z)`` is ln M_T(z) = sum_i T_i ln
M_i(z) (any branch: exp(T ln M) = M^T for integer T), ``decay(c, t, drop)`` an upper bound
on sup_{s >= t} |M_T(c + i s)| (``drop`` steers: the bound aimed at, e^drop M_T(c); any
value gives a valid bound), ``c_max`` the supremum of the c where M_T(c) is finite,
``sup()`` the essential supremum of L_T as a ball (None: unbounded), beyond which delta_T
is 0.  ``Product`` composes losses; ``loss_of`` reads the loss of a pair or composition
(Laplace shifts: ``laplace``).

Gaussian shifts: N(mu, s^2) vs N(0, s^2) has L ~ N(m^2/2, m^2) under P with m = mu / s, so
ln M(z) = m^2 z (z + 1) / 2, and a composition of shifts is one shift with m^2 = sum_i T_i
m_i^2 (Balle and Wang, "Improving the Gaussian mechanism for differential privacy", 2018,
arXiv:1805.06530).  |M(c + it)| = exp(m^2 (c (c + 1) - t^2) / 2) decreases in t: it is
its own decay bound.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import mpmath
from mpmath import mp

from ...distributions import Gaussian, Laplace, Mixture
from ... import progress
from ...errors import InputError
from ...exact import to_mpf
from ...mechanisms.relations import MixedOrders
from ...pairs import Composition, Pair, PublicMixture, shift_pair
from ..arb import acb, arb, arb_mid_rad, flint, power_log, to_arb
from .contour import LINE_MAX_NODES, Line
from .laplace import LaplaceShift, SubsampledLaplace
from .orders import OrdersLoss
from .public import PublicMixtureLoss
from .lattice import lattice_weights, rate
from .scan import steps_decay

__all__ = ["MAX_LATTICE", "GaussianShifts", "SubsampledGaussian", "PoissonGaussian", "Product",
           "log_mgf_row", "loss_of"]

MAX_LATTICE = 64   # the largest g: A is a polynomial of degree g, evaluated at every node
# bits of a grid's precision that its rows leave out (``one_step_row``): the plan's
# precision holds 64 guard bits beyond the digits and the cancellation (``inversion``) for
# rounding that accumulates over the sum of the row's values; the error of a line's rule,
# and the rounding of its sums (each value its own sum over the nodes, about
# 2^-prec sum_k |g_k| <= 2^-prec F M(c), the size of the rule's own error), do not
ROW_GUARD = 32


class GaussianShifts:
    """The loss of a composition of Gaussian shifts, ``m2`` = sum_i T_i (mu_i / s_i)^2."""

    c_max = None  # M_T(c) is finite for every c
    max_nodes = LINE_MAX_NODES   # a closed form

    def __init__(self, m2: Fraction) -> None:
        self.m2 = Fraction(m2)

    def log_mgf(self, z: "acb") -> "acb":
        return to_arb(self.m2) * z * (z + 1) / 2

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        return (to_arb(self.m2) * (c * (c + 1) - t * t) / 2).exp()

    def sup(self) -> Optional["arb"]:
        return arb(0) if self.m2 == 0 else None

    def uses(self) -> Fraction:
        """Subsampled uses of the record (``Product.uses``): none."""
        return Fraction(0)


class SubsampledGaussian:
    """The loss of ``steps`` steps of two Gaussian mixtures on one lattice: P = sum_j a_j
    N(j, s^2) against Q = sum_j b_j N(j, s^2), j = 0 .. g, with a_j / b_j monotone in j
    (likelihood-ratio order, ``sign`` +1 non-decreasing, -1 non-increasing).  This covers
    Poisson sampling under remove (a = (1 - q, q), b = (1, 0)), add (a = (1, 0), b =
    (1 - q, q)) and substitution (001 Sec. 7: a = (0, 1 - q, q), b = (q, 1 - q, 0)), and
    groups of K records under it (003 Thm 3.1: binomial weights).  With e_j(y) =
    e^{(2 j y - j^2) / (2 s^2)}, A = sum_j a_j e_j and B = sum_j b_j e_j (polynomials with
    non-negative coefficients in x = e^{y / s^2}), p / q = A / B, monotone in y, and

        M(z) = int phi_s(y) A(y)^{1 + z} B(y)^{-z} dy,

    an integral of an analytic integrand along the real line (A, B > 0 there), by Arb's
    rigorous integration (``acb.integral``) on [a, b] and tails bounded in closed form
    (``_tails``).

    **Decay.**  sup_{s >= t} |M(c + is)| is bounded by the strip (``strip``: one integral
    that falls as fast as |M| itself, up to a factor F(psi) >= 1 that many steps cannot
    afford), else by a scan: at s_j, |M(c + is_j)|
    (a ball) plus K h_j bounds |M| on [s_j, s_j + h_j], K = int phi_s A^{1 + c} B^{-c}
    |ln(A / B)| >= |dM/ds| (``lipschitz``); the scan stops at the S where V / S (below)
    falls under the largest cell bound.  With u = ln(A / B) (monotone), M(c + is) =
    int g(u) e^{isu} du, so |M(c + is)| <= V / s, V = TV(g) (one integration by parts;
    g -> 0 at both ends), and TV(g) = TV(G) with G = phi_s A^{1 + c} B^{-c} / abs(u')
    (``_variation``).  The bound on sup |M| is raised to the power T.
    """

    c_max = None  # M(c) is finite for every c: the Gaussian factor dominates
    max_nodes = LINE_MAX_NODES

    def __init__(self, sigma: Fraction, weights: Sequence[Fraction], steps: int,
                 direction: str = "remove", against: Sequence[Fraction] = (1,)) -> None:
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be remove or add, got {direction!r}")
        if direction == "add":
            weights, against = against, weights
        a, b, self.sign = lattice_weights(weights, against)
        self.sigma, self.steps = Fraction(sigma), steps
        self.weights, self.against, self.top = a, b, len(a) - 1   # g
        # the index whose component the two sides share most: the logs are taken relative
        # to its e_l, flat where the loss is (a phase t ln(A / B), not t (2 l y - l^2) / s^2)
        self.pivot = max(range(len(a)), key=lambda j: min(a[j], b[j]))
        self._lines: Dict[tuple, Line] = {}

    def _sums(self, weights, moments: int = 1):
        """y -> (S_0, ..., S_{moments - 1}), S_k = sum_j j^k w_j e_j(y), for a real or
        complex ball y: Horner in x = e^{y / s^2}, the constants w_j e^{-j^2 / (2 s^2)}
        made once at the current precision (the integrands call it at every node)."""
        inv = self._inverse()
        coeffs = [to_arb(w) * (-(j * j) * inv).exp() for j, w in enumerate(weights)]

        def sums(y):
            x = (2 * y * inv).exp()
            out = []
            for k in range(moments):
                total = coeffs[-1] * (len(coeffs) - 1) ** k
                for j in range(len(coeffs) - 2, -1, -1):
                    total = total * x + coeffs[j] * j ** k
                out.append(total)
            return out
        return sums

    def _exponent(self, z):
        """y -> (ln of the integrand phi_s(y - l) (A / e_l)^{1 + z} (B / e_l)^{-z} up to
        the Gaussian's constant, ln(A / B)), l the pivot, for a real or complex ball y
        (``analytic``: for acb.integral)."""
        log_a, log_b = self._log_sum(self.weights), self._log_sum(self.against)
        inv, l = self._inverse(), self.pivot

        def exponent(y, analytic=False):
            value = -((y - l) * (y - l)) * inv
            a = log_a(y, analytic) if log_a else 0
            b = log_b(y, analytic) if log_b else 0
            if log_a:
                value += (1 + z) * a
            if log_b:
                value -= z * b
            return value, a - b
        return exponent

    def _log_sum(self, weights):
        """y -> ln sum_j w_j e_j(y) / e_l(y), l the pivot: None for the unit mass at l
        (the log is 0), else the log of Horner's sums in x above l and in 1 / x below it
        (each monotone, so a complex ball of y does not make them cancel)."""
        inv, l = self._inverse(), self.pivot
        if weights[l] == 1:
            return None
        # w_j e_j / e_l = w_j e^{(l^2 - j^2) / (2 s^2)} x^{j - l}
        coeffs = [to_arb(w) * ((l * l - j * j) * inv).exp() if w else 0
                  for j, w in enumerate(weights)]
        above, below = coeffs[l:], coeffs[l - 1::-1] if l else []

        def horner(x, powers):   # sum_k powers[k] x^k
            total = powers[-1]
            for coeff in powers[-2::-1]:
                total = total * x + coeff
            return total

        def log_sum(y, analytic=False):
            x = (2 * y * inv).exp()
            total = horner(x, above)
            if below:
                total = total + horner(1 / x, [0] + below)
            return total.log(analytic=analytic) if analytic else total.log()
        return log_sum

    def _inverse(self) -> "arb":
        """1 / (2 s^2)."""
        s = to_arb(self.sigma)
        return 1 / (2 * s * s)

    def _ends(self, weights) -> Tuple[int, int]:
        """The lowest and highest j with a positive weight."""
        used = [j for j, w in enumerate(weights) if w]
        return used[0], used[-1]

    def _centres(self, c: "arb") -> Tuple["arb", "arb"]:
        """The centres (1 + c) l_A - c l_B and (1 + c) g_A - c g_B of the Gaussians that
        bound the integrand below the lowest and above the highest component."""
        (la, ga), (lb, gb) = self._ends(self.weights), self._ends(self.against)
        return (1 + c) * la - c * lb, (1 + c) * ga - c * gb

    def _range(self, c: "arb", slope: int = 0, reach: Optional["arb"] = None
               ) -> Tuple["arb", "arb"]:
        """[a, b] with a <= 0 and b >= g, past the centres (``_centres``) by ``reach``
        (default ``_reach``; and by g more for the slope's factor |u|)."""
        reach = self._reach() if reach is None else reach
        low, high = self._centres(c)
        return (min(low, arb(0)) - reach - 1 - slope * self.top,
                max(high, arb(self.top)) + reach + 1 + slope * self.top)

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step: at real z Arb's integral (``integral``), else the
        trapezoidal rule on the line of ``line``."""
        if z.imag == 0:
            return self.integral(z)
        return self.line(z.real).at(z.imag)

    def one_step_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        """M(c + i n h) of one step, n = first .. stop - 1, from one ``line`` whose rule
        and sums are ``ROW_GUARD`` bits below the precision (three different steps at
        k = 3: 12 s at full precision, 9.5 s so, the same enclosure)."""
        with flint.ctx.workprec(flint.ctx.prec - ROW_GUARD):
            out = self.line(c).row(h, first, stop)
        return [+v for v in out]

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        """ln M_T(c + i n h), n = first .. stop - 1."""
        return [self.steps * power_log(m) for m in self.one_step_row(c, h, first, stop)]

    def line(self, c: "arb", bits: Optional[int] = None) -> Line:
        """The trapezoidal rule for M(c + it), t >= 0, with its error bound for every t
        (``contour``), in balls of the current precision, its rule aimed at 2^-bits M(c)
        (default: the precision); kept for the last few (c, precision, bits).

        **Strip.**  With w = e^{y / s^2}, A / e_l = sum_j a_j e^{(l^2 - j^2) / (2 s^2)}
        w^{j - l} (and B / e_l alike) is a sum of terms of argument (j - l) psi / s^2 on Im
        y = psi: for g |psi| / s^2 < pi they lie in an arc shorter than pi inside (-pi,
        pi), so neither sum vanishes and the principal logs continue the real ones.  With
        alpha_j = a_j e^{-j^2 / (2 s^2)} (beta_k alike), Im(A conj B) = sum_{j > k}
        (alpha_j beta_k - alpha_k beta_j) |w|^{j + k} sin((j - k) psi / s^2) >= 0 when
        ``sign`` psi > 0 (the likelihood-ratio order signs the first factor, psi the
        second), so Im u = arg(A / B) >= 0 and |e^{itu}| <= 1 for t >= 0.  Projecting the
        terms on their arc's bisector, |B / e_l| >= cos(g psi / (2 s^2)) (B / e_l)(x), and
        |A / e_l| <= (A / e_l)(x) (|B / e_l| alike, which bounds |B|^{-c} for c < 0),
        |phi_s(x + i psi - l)| = phi_s(x - l) e^{psi^2 / (2 s^2)}: so |f_t(x + i psi)| <=
        F(psi) f_c(x), F(psi) = e^{psi^2 / (2 s^2)} cos(g psi / (2 s^2))^{-max(c, 0)}, f_c
        the real integrand at t = 0.

        **Rule.**  On Im y = eta = ``sign`` theta s^2 / g (0 < theta < pi / 2; the strip 0
        .. 2 eta has half-width |eta|) with step D and nodes x_k = a + k D in [a, b]: the
        whole rule errs by at most 2 F(2 eta) M(c) / (e^{2 pi |eta| / D} - 1) (Trefethen
        and Weideman, Thm 5.1: int |f_t| <= F(2 eta) M(c) on each line of the strip, M(c)
        by ``integral``), and the nodes outside [a, b] add at most F(eta) times the tail
        integrals of ``_side``'s Gaussian bounds peaked inside the edges (decreasing
        outward, so they bound D times the sum of f_c beyond an edge node).  theta and D
        only steer (``_angle``): D is set so that the first bound is about 2^-bits M(c).
        Each t then costs a sum over the nodes (``Line``), where Arb's adaptive integral
        subdivides more as t grows (the phase t u turns faster)."""
        bits = flint.ctx.prec if bits is None else bits
        key = (c.mid().man_exp(), c.rad().man_exp(), flint.ctx.prec, bits)
        if key not in self._lines:
            if len(self._lines) >= 4:
                self._lines.pop(next(iter(self._lines)))
            self._lines[key] = self._make_line(c, bits)
        return self._lines[key]

    def _make_line(self, c: "arb", prec: int) -> Line:
        s, g = to_arb(self.sigma), self.top
        theta = arb.pi() * self._angle(c, prec) / 64
        eta = self.sign * theta * s * s / g
        power = -max(c, arb(0))
        far = (2 * theta * theta * s * s / (g * g)).exp() * theta.cos() ** power   # F(2 eta)
        near = (eta * eta / (2 * s * s)).exp() * (theta / 2).cos() ** power      # F(eta)
        width = 2 * arb.pi() * abs(eta)
        reach = self._line_reach(prec)
        # D <= reach keeps the edge nodes beyond 0 and g, where ``_side`` holds
        step = self._line_step(min(width / (prec * arb(2).log() + (2 * far).log() + 2), reach))
        low, high = self._range(c, reach=reach)
        low = arb(low.lower())
        count = int(((high - low) / step).lower().floor().unique_fmpz())
        norm = step / (s * (2 * arb.pi()).sqrt())
        exponent = self._exponent(acb(c))
        weights, phases = [], []
        for k in range(count + 1):
            value, phase = exponent(acb(low + k * step, eta))
            weights.append(norm * value.exp())
            phases.append(phase)
        rule = 2 * far * self.integral(acb(c)).real / ((width / step).exp() - 1)
        edge = low + count * step
        tails = near * (self._side(low, c, False, lower=True, inside=True)
                        + self._side(edge, c, False, lower=False, inside=True))
        return Line(weights, phases, (rule + tails).upper())

    def _line_step(self, aim: "arb") -> "arb":
        """D: a dyadic number at most ``aim`` (any D gives a valid bound)."""
        return arb(aim.lower())

    def _line_reach(self, bits: int) -> "arb":
        """How far the nodes reach past the integrand's centres: s sqrt(2 ln 2 (bits +
        8)), where the Gaussian tail falls below 2^-(bits + 8) (any reach gives a valid
        bound)."""
        return to_arb(self.sigma) * (2 * arb(2).log() * (bits + 8)).sqrt()

    def _angle(self, c: "arb", prec: int) -> int:
        """j (theta = j pi / 64, j = 2 .. 31) with the fewest nodes: D is proportional to
        theta / (prec ln 2 + 2 theta^2 s^2 / g^2 - max(c, 0) ln cos theta) (steering only)."""
        with mp.workdps(15):
            s2 = mpmath.mpf(self.sigma.numerator) ** 2 / self.sigma.denominator ** 2
            cc, bits = arb_mid_rad(c)[0], prec * mp.log(2)

            def cost(j):
                theta = mp.pi * j / 64
                return (bits + 2 * theta ** 2 * s2 / self.top ** 2
                        - max(cc, 0) * mp.log(mp.cos(theta))) / theta
            return min(range(2, 32), key=cost)

    def integral(self, z: "acb") -> "acb":
        """M(z) of one step by Arb's rigorous integral on [a, b] plus a ball for the
        tails."""
        s, c = to_arb(self.sigma), z.real
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        a, b = self._range(c)
        exponent = self._exponent(z)

        def f(y, analytic):   # phi_s(y) e_l(y) = phi_s(y - l)
            return norm * exponent(y, analytic)[0].exp()

        inner = acb.integral(f, a, b)
        tail = self._tails(a, b, c)
        return inner + acb(arb(0, tail), arb(0, tail))

    def _reach(self) -> "arb":
        """How far the integration range reaches past the integrand's centres: 2 sqrt(prec)
        s, where Phi-bar(reach / s) < 2^-prec, so the tails' bounds fall below the
        rounding (any reach gives a valid ball)."""
        return 2 * arb(flint.ctx.prec).sqrt() * to_arb(self.sigma)

    def _tails(self, a: "arb", b: "arb", c: "arb", slope: bool = False) -> "arb":
        """Bounds on int phi_s A^{1 + c} B^{-c} outside [a, b] (a <= 0, b >= g), or with
        ``slope`` on int phi_s A^{1 + c} B^{-c} |ln(A / B)| (``lipschitz``), one side at a
        time (``_side``)."""
        return self._side(a, c, slope, lower=True) + self._side(b, c, slope, lower=False)

    def _side(self, edge: "arb", c: "arb", slope: bool, lower: bool, inside: bool = False
              ) -> "arb":
        """Beyond ``edge`` (below a <= 0, or above b >= g), with l the end index of A on
        that side (its lowest or highest positive weight), A / e_l is monotone, between
        a_l and r_A = A(edge) / e_l(edge), so A <= r_A e_l; and B >= b_k e_k for each k
        with b_k > 0 (for c >= 0; for -1 < c < 0, where B^{-c} needs B from above, B <=
        r_B e_m alone, m the end index of B, r_B = B(edge) / e_m(edge), in place of b_k
        e_k).  So A^{1 + c} B^{-c} <= r_A^{1 + c} b_k^{-c} e^{(2 mu y - nu) / (2 s^2)},
        mu = (1 + c) l - c k, nu = (1 + c) l^2 - c k^2, whose integral is e^{(mu^2 - nu) /
        (2 s^2)} Phi-bar(d / s), d the distance from mu to the edge outward; the least over
        k.  With ``slope``, |ln(A / B)| <= C + D |y| with C
        from the ranges of ln(A / e_l), ln(B / e_m) (m the end index of B) and
        (l^2 - m^2) / (2 s^2), D = |l - m| / s^2; int |y| phi_s(y - mu) over the tail is
        |mu| Phi-bar(d / s) + s phi(d / s) at most.  With ``inside`` only the bounds
        peaked inside the edge (d >= 0: decreasing outward, so they also bound D times a
        sum of the integrand at nodes D apart beyond an edge node; +inf if none)."""
        s, inv = to_arb(self.sigma), self._inverse()
        root2, pdf_norm = arb(2).sqrt(), 1 / (2 * arb.pi()).sqrt()
        la, ga = self._ends(self.weights)
        lb, gb = self._ends(self.against)
        l, m = (la, lb) if lower else (ga, gb)
        big_a, big_b = self._sums(self.weights), self._sums(self.against)

        def scaled(sums, j):   # (sums / e_j)(edge)
            return sums(edge)[0] / ((2 * j * edge - j * j) * inv).exp()

        r_a = scaled(big_a, l)
        if slope:
            r_b, wa, wb = scaled(big_b, m), to_arb(self.weights[l]), to_arb(self.against[m])
            spread = (max(abs(wa.log()), abs(r_a.log())) + max(abs(wb.log()), abs(r_b.log()))
                      + abs(arb(l * l - m * m)) * inv)
            rise = abs(arb(l - m)) * 2 * inv
        best = None
        factors = [(k, to_arb(w)) for k, w in enumerate(self.against) if w] if c >= 0 else \
            [(m, scaled(big_b, m))] if c < 0 else []   # (k, w): B >= w e_k, or B <= w e_m
        for k, w in factors:
            mu, nu = (1 + c) * l - c * k, (1 + c) * l * l - c * k * k
            d = (mu - edge) if lower else (edge - mu)
            if inside and not d >= 0:
                continue
            tail = (d / (s * root2)).erfc() / 2
            scale = r_a ** (1 + c) * w ** (-c) * ((mu * mu - nu) * inv).exp()
            if slope:
                tail = spread * tail + rise * (abs(mu) * tail + s * pdf_norm *
                                               (-(d * d) / (2 * s * s)).exp())
            bound = scale * tail
            best = bound if best is None else min(best, bound)
        return arb.pos_inf() if best is None else best

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * power_log(self.one_step(z))

    def rate(self) -> Fraction:
        """The chance that a step uses the record (``lattice.rate``)."""
        return rate(self.weights, self.against)

    def uses(self) -> Fraction:
        """The expected number of the T steps that use the record: T times ``rate``."""
        return self.steps * self.rate()

    def spread(self) -> mpmath.mpf:
        """T e^{-1 / s^2} (steering, 15 digits): a step that does not use the record has its
        loss within about q e^{-1/(2 s^2)} e^{Z / s} of ln(1 - q), Z ~ N(0, 1) (the
        median of e^{(2y - 1) / (2 s^2)} under N(0, s^2) is e^{-1/(2 s^2)}), a near-atom
        that narrows as e^{-1/(2 s^2)} at small s, so the transform decays slowly there
        until many steps add up; ``Product.spread`` sums it over the factors."""
        with mp.workdps(15):
            return self.steps * mp.exp(-1 / to_mpf(self.sigma) ** 2)

    def sup(self) -> Optional["arb"]:
        """ln(p / q) rises to ln(a_j / b_j) at the end j it rises to (g for ``sign`` +1, 0
        for -1), T steps; unbounded where b_j = 0."""
        j = -1 if self.sign > 0 else 0
        if self.against[j] == 0:
            return None
        return self.steps * (to_arb(self.weights[j]) / to_arb(self.against[j])).log()

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The strip's bound (``strip``), or where it misses the level e^{drop / T} M(c) a
        step (drop < 0) the scan of the class docstring (``scan.steps_decay``) with the
        far bound V / s (``far``)."""
        return steps_decay(self, c, t, drop, lambda: self.strip(c, t))

    def strip(self, c: "arb", t: "arb") -> "arb":
        """B(t) >= sup_{s >= t} |M(c + is)| of one step, from the strip of ``line``: on Im
        y = psi (sign psi > 0, g |psi| / s^2 < pi) |f_{c + is}(x + i psi)| <= F(psi)
        f_c(x) e^{-s kappa(x)}, kappa = Im u(x + i psi) = arg(A / B) >= 0, so, moving the
        contour (the integrand is analytic in the strip and Gaussian-small at both
        ends),

            |M(c + is)| <= F(psi) int f_c(x) e^{-s kappa(x)} dx,

        non-increasing in s.  kappa(x) = (u(x + i psi) - u(x - i psi)) / 2i is analytic in
        x, so Arb's rigorous integral takes it on [a, b]; outside, e^{-s kappa} <= 1 and
        ``_tails`` bound f_c.  Where the loss is flat (the record unused: A / B near a
        constant) kappa is small and the bound falls only as fast as |M| itself, about
        e^{-(s^2 / 2) ln^2(q s)}: the decay that few steps have.  The least over psi at a
        few angles g psi / s^2: small ones where c is large, as F(psi) = e^{psi^2 / (2
        s^2)} cos(g psi / (2 s^2))^{-c} (each bound holds).  At 64 bits: a bound, not a
        value, it needs no more."""
        with flint.ctx.workprec(64):
            return self._strip(c, t)

    def _strip(self, c: "arb", t: "arb") -> "arb":
        s, g = to_arb(self.sigma), self.top
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        a, b = self._range(c)
        exponent = self._exponent(acb(c))
        tails = self._tails(a, b, c)
        best = arb.pos_inf()
        for theta in (arb.pi() / 16, arb.pi() / 4, arb.pi() / 2):
            psi = self.sign * theta * s * s / g
            factor = (psi * psi / (2 * s * s)).exp() * (theta / 2).cos() ** (-max(c, arb(0)))

            def f(x, analytic, psi=psi):
                value = exponent(x, analytic)[0]
                up, down = exponent(x + acb(0, psi), analytic)[1], \
                    exponent(x - acb(0, psi), analytic)[1]
                return norm * (value - t * (up - down) / acb(0, 2)).exp()

            inner = acb.integral(f, a, b).real
            best = min(best, (factor * (inner + tails)).upper())
        return best

    def far(self, c: "arb") -> Callable[["arb"], "arb"]:
        """s -> V / s >= |M(c + is)| (class docstring, ``_variation``)."""
        variation = self._variation(c)
        return lambda s: variation / s

    def lipschitz(self, c: "arb") -> "arb":
        """K >= |dM(c + is)/ds| = |int phi_s A^{1 + z} B^{-z} ln(A / B)|: the integral of
        phi_s A^{1 + c} B^{-c} |ln(A / B)|, split at the root y_0 of A = B (below it
        ln(A / B) has the sign -``sign``, above ``sign``), the sliver [y_-, y_+] around it
        where the sign is unproven bounded by its width times the integrand's ball there,
        tails bounded as in ``_tails``."""
        s = to_arb(self.sigma)
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        a, b = self._range(c, slope=1)
        exponent = self._exponent(c)

        def integrand(y, analytic=False):
            value, ratio = exponent(y, analytic)
            return norm * value.exp() * ratio

        def piece(sign):
            return lambda y, analytic: sign * self.sign * integrand(y, analytic)

        lo, hi = self._unit_root()
        sliver = (hi - lo) * abs(integrand(lo.union(hi)))
        inner = acb.integral(piece(-1), a, lo).real + acb.integral(piece(1), hi, b).real
        return (inner + sliver + self._tails(a, b, c, slope=True)).upper()

    def _unit_root(self) -> Tuple["arb", "arb"]:
        """Exact y_- < y_+ around the root of A = B, with the sign of A - B proven at
        both (``sign`` (A - B) < 0 at y_-, > 0 at y_+), about 2^-38 of the first bracket
        apart or as close as the precision proves: a bracket from [-1, g] widened until it
        holds (A / B runs monotonically between 0 or a_0 / b_0 and a_g / b_g or infinity,
        one end below 1 and one above), then sections at 3/7 of the interval (not halves: the
        root is often a dyadic rational, 1/2 for Poisson sampling, where the balls of A
        and B overlap)."""
        big_a, big_b = self._sums(self.weights), self._sums(self.against)

        def gap(y):   # increasing in y
            return self.sign * (big_a(y)[0] - big_b(y)[0])

        lo, hi = arb(-1), arb(self.top)
        while not gap(lo) < 0:
            lo = 2 * lo
        while not gap(hi) > 0:
            hi = 2 * hi + 1
        for _ in range(48):
            mid = (lo + (hi - lo) * 3 / 7).mid()
            value = gap(mid)
            if value < 0:
                lo = mid
            elif value > 0:
                hi = mid
            else:
                break
        return lo, hi

    def _variation(self, c: "arb") -> "arb":
        """V >= TV(G), G = s^2 phi_s A^{1 + c} B^{-c} / abs(E_A - E_B), where E_W = S_1 /
        S_0 is the mean of j under the weights w_j e_j (increasing in y: its derivative is
        a variance over s^2; E_A - E_B has the sign ``sign`` by the likelihood-ratio order)
        and s^2 u' = E_A - E_B.  (ln G)' = h / s^2 with h = -y + (2 + c) E_A - (c - 1) E_B
        - Q, Q = (F_A - F_B) / (E_A - E_B), F_W the mean of j^2 (also increasing): Q is an
        average of 2t + 1, t = 0 .. g - 1 (weights P_B(j <= t) - P_A(j <= t) of one sign),
        so in [1, 2g - 1].
        So G increases below lo = -max(0, (c - 1) g) - 2g + 1 and decreases above hi =
        (2 + c) g + max(0, (1 - c) g) - 1, and TV(G) = G(lo) + G(hi) + TV on [lo, hi].  On
        a cell [y_1, y_2] of [lo, hi] (width s / 32) the monotone means bound h by their
        values at the ends; where h keeps its sign G is monotone and the cell adds
        |G(y_2) - G(y_1)|, else its variation int |G'| = int G |h| / s^2, at most
        (y_2 - y_1) sup G max |h| / s^2 with sup G <= G(y_1) e^{max(h, 0) (y_2 - y_1) / s^2}
        (not 2 sup G: the cell may hold more than one extremum)."""
        s, g = to_arb(self.sigma), self.top
        lo = -max(arb(0), ((c - 1) * g).upper()) - 2 * g + 1
        hi = (2 + c).upper() * g + max(arb(0), ((1 - c) * g).upper()) - 1
        cells = max(1, int(((hi - lo) * 32 / s).upper().ceil().unique_fmpz()) + 1)
        norm, inv = s / (2 * arb.pi()).sqrt(), self._inverse()
        big_a, big_b = self._sums(self.weights, 3), self._sums(self.against, 3)

        def point(y):   # G(y), E_A, E_B, F_A, F_B
            a0, a1, a2 = big_a(y)
            b0, b1, b2 = big_b(y)
            ea, eb = a1 / a0, b1 / b0
            value = norm * (-(y * y) * inv + (1 + c) * a0.log() - c * b0.log()).exp() / (
                self.sign * (ea - eb))
            return value, ea, eb, a2 / a0, b2 / b0

        ends = [lo + (hi - lo) * i / cells for i in range(cells + 1)]
        values = [point(y) for y in ends]
        total = values[0][0] + values[-1][0]
        spread = arb(1).union(arb(max(2 * g - 1, 1)))
        for (y1, left), (y2, right) in zip(zip(ends, values), zip(ends[1:], values[1:])):
            ea, eb = left[1].union(right[1]), left[2].union(right[2])
            up, down = (left, right) if self.sign > 0 else (right, left)
            quotient = spread   # |E_A - E_B| and |F_A - F_B| over the cell, by monotonicity
            gap = self.sign * (up[1] - down[2]).union(down[1] - up[2])
            if gap > 0:
                rise = self.sign * (up[3] - down[4]).union(down[3] - up[4])
                quotient = (rise / gap).intersection(spread)
            h = -y1.union(y2) + (2 + c) * ea - (c - 1) * eb - quotient
            if h > 0 or h < 0:
                total += abs(right[0] - left[0])
            else:
                most = max(h.upper(), arb(0))
                peak = left[0] * (most * (y2 - y1) * 2 * inv).exp()
                total += (y2 - y1) * peak * max(abs(h.lower()), abs(h.upper())) * 2 * inv
        return total.upper()



class PoissonGaussian(SubsampledGaussian):
    """One record Poisson-subsampled at rate q: a = (1 - q, q), P = (1 - q) N(0, s^2) +
    q N(1, s^2) against Q = N(0, s^2) (remove) or the reverse (add) (001 Sec. 5)."""

    def __init__(self, sigma: Fraction, q: Fraction, steps: int, direction: str) -> None:
        self.q = Fraction(q)
        super().__init__(sigma, (1 - self.q, self.q), steps, direction)


class Product:
    """The loss of a heterogeneous composition: its factors' losses (each for its own
    steps) add, M_T = prod_i M_i, and sup |M_T| <= prod_i sup |M_i|.  A single factor's
    ``expansion`` (the part of M_T that does not decay, ``endpoints``) is the product's."""

    def __init__(self, factors: Sequence) -> None:
        self.factors = tuple(factors)
        finite = [f.c_max for f in self.factors if f.c_max is not None]
        self.c_max = min(finite) if finite else None
        self.expansion = self.factors[0].expansion() if len(self.factors) == 1 and \
            hasattr(self.factors[0], "expansion") else None

    @property
    def max_nodes(self) -> Optional[int]:
        """The least of the factors' node budgets (None: the default, ``inversion``)."""
        budgets = [getattr(f, "max_nodes", None) for f in self.factors]
        return None if None in budgets else min(budgets)

    def log_mgf(self, z: "acb") -> "acb":
        total = acb(0)
        for f in self.factors:
            total += f.log_mgf(z)
        return total

    def log_mgf_row(self, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
        """ln M_T(c + i n h), n = first .. stop - 1: the sum of the factors' rows."""
        total = [acb(0)] * (stop - first)
        for f in self.factors:
            total = [x + y for x, y in zip(total, log_mgf_row(f, c, h, first, stop))]
        return total

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The product of the factors' bounds, each aiming at its share of ``drop``
        (its steps' share of all steps)."""
        steps = sum(getattr(f, "steps", 0) for f in self.factors) or 1
        bound = arb(1)
        for f in self.factors:
            bound *= f.decay(c, t, drop * getattr(f, "steps", 0) / steps)
        return bound

    def uses(self) -> Fraction:
        """The expected number of steps that use the record, sum_i T_i q_i over the
        subsampled factors: the count of compositions that shapes the loss's law (with few
        uses it is nearly a lattice of few active steps, whose transform decays slowly)."""
        return sum((f.uses() for f in self.factors), Fraction(0))

    def off_atoms(self) -> Fraction:
        """The Laplace factors' steps off their atoms (``laplace``: ``off_atoms``)."""
        return sum((f.off_atoms() for f in self.factors if hasattr(f, "off_atoms")),
                   Fraction(0))

    def spread(self) -> mpmath.mpf:
        """The subsampled Gaussian factors' ``SubsampledGaussian.spread``, summed."""
        return mp.fsum(f.spread() for f in self.factors if hasattr(f, "spread"))

    def least_rate(self) -> Fraction:
        """The smallest sampling rate q of the subsampled factors (1 without any): one
        step's |M(c + is)| falls below M(c) only by about (q s)^2, so the decay bound's
        scan runs to s ~ 1 / q and its cost grows as 1 / q."""
        return min((f.rate() for f in self.factors if hasattr(f, "rate")),
                   default=Fraction(1))

    def top_mass(self) -> Optional["arb"]:
        """ln P(L_T = sup L_T), the sum of the factors' (the supremum of a sum of
        independent losses is attained where each attains its own), where every factor has
        an atom at its supremum (Laplace losses); else None."""
        masses = [getattr(f, "top_mass", lambda: None)() for f in self.factors]
        return None if None in masses else sum(masses, arb(0))

    def sup(self) -> Optional["arb"]:
        total = arb(0)
        for f in self.factors:
            one = f.sup()
            if one is None:
                return None
            total += one
        return total


def log_mgf_row(loss, c: "arb", h: "arb", first: int, stop: int) -> List["acb"]:
    """ln M_T(c + i n h) for n = first .. stop - 1: the loss's own row where it has one
    (values for many t at once: ``SubsampledGaussian.line``; one product of Arb matrices,
    which pieces would slow: a heterogeneous product took 37 s in pieces of 4096 nodes, 25
    s whole), else one ``log_mgf`` each."""
    if hasattr(loss, "log_mgf_row"):
        progress.note(f"transform: nodes {first} to {stop - 1}")
        return loss.log_mgf_row(c, h, first, stop)
    out = []
    for n in range(first, stop):
        if n % 32 == 0:
            progress.note(f"transform: node {n} of {stop - 1}")
        out.append(loss.log_mgf(acb(c, n * h)))
    return out


def loss_of(target, steps: int = 1):
    """The loss of ``steps`` compositions of a ``Pair``, ``Composition`` or
    ``PublicMixture`` (each term one subsampled pair: ``public``), or the maximum over the
    orders of ``MixedOrders`` (``orders``), whose factors are
    Gaussian shifts
    N(m1, s^2) vs N(m0, s^2) (merged into one ``GaussianShifts``), Laplace shifts
    Lap(a, b) vs Lap(a', b) (one ``LaplaceShift`` for each ratio abs(a - a') / b) or
    subsampled Gaussians
    (two mixtures of Gaussians N(m0 + j d, s^2), j = 0 .. g <= ``MAX_LATTICE``, in
    likelihood-ratio order: Poisson subsampling under add, remove or substitution, and
    groups under it; moved to m0 = 0 and scaled to d = 1: sigma = s / d, as the
    hockey-stick divergence is invariant under y -> (y - m0) / d); else an InputError
    naming the factor."""
    if isinstance(target, PublicMixture):
        return Product([_public(target, steps)])
    if isinstance(target, MixedOrders):
        return OrdersLoss(loss_of(target.pair, steps), loss_of(target.pair.swap(), steps),
                          steps)
    if isinstance(target, Pair):
        target = Composition.of(target)
    if not isinstance(target, Composition):
        raise InputError("the transform engine takes a pair, a composition or a public "
                         "mixture")
    shifts, laplace, factors = Fraction(0), {}, []
    for pair, n in target.factors:
        n *= steps
        if pair.P == pair.Q:
            continue
        if isinstance(pair.P, Gaussian) and isinstance(pair.Q, Gaussian) and \
                pair.P.sigma == pair.Q.sigma:
            shifts += n * ((pair.P.mean - pair.Q.mean) / pair.P.sigma) ** 2
            continue
        one = shift_pair(pair, Laplace)
        if one is not None:
            e0 = abs(one[0].loc - one[1].loc) / one[0].scale
            laplace[e0] = laplace.get(e0, 0) + n
            continue
        factors.append(_subsampled(pair, n))
    factors += [LaplaceShift(e0, n) for e0, n in laplace.items()]
    if shifts or not factors:
        factors.append(GaussianShifts(shifts))
    return Product(factors)


def _public(mixture: PublicMixture, steps: int) -> PublicMixtureLoss:
    """The loss of a public mixture of subsampled Gaussian pairs, one step each."""
    parts = []
    for w, term in mixture.terms:
        part = _subsampled(term.factors[0][0], 1) if len(term.factors) == 1 and \
            term.factors[0][1] == 1 else None
        if not isinstance(part, SubsampledGaussian):
            raise InputError("the transform engine takes a public mixture of subsampled "
                             f"Gaussian pairs, one step each, got the term {term!r}"[:400])
        parts.append((w, part))
    return PublicMixtureLoss(parts, steps)


def _subsampled(pair: Pair, n: int):
    """The loss of two Gaussian mixtures of one sigma, or two Laplace mixtures of one
    scale, on a lattice in likelihood-ratio order."""
    for family, loss in ((Gaussian, SubsampledGaussian), (Laplace, SubsampledLaplace)):
        sides = [_components(side, family) for side in (pair.P, pair.Q)]
        if None not in sides and len({g.width for side in sides for _, g in side}) == 1:
            found = _lattice(*sides)
            if found is not None:
                step, a, b = found
                try:
                    return loss(sides[0][0][1].width / step, a, n, against=b)
                except ValueError:
                    pass
    raise InputError(f"the transform engine takes Gaussian and Laplace shifts and subsampled "
                     f"Gaussians and Laplaces (mixtures of one width on a lattice of at most "
                     f"{MAX_LATTICE + 1} points, in likelihood-ratio order), got "
                     f"{pair!r}"[:400])


def _components(side, family: type) -> Optional[Tuple]:
    """The weighted components of one side when all are of ``family`` (else None)."""
    if isinstance(side, family):
        return ((Fraction(1), side),)
    if isinstance(side, Mixture) and all(isinstance(g, family) for _, g in side.components):
        return side.components
    return None


def _centre(g) -> Fraction:
    return g.mean if isinstance(g, Gaussian) else g.loc


def _lattice(p, q) -> Optional[Tuple[Fraction, Tuple[Fraction, ...], Tuple[Fraction, ...]]]:
    """(d, a, b): the weights of the two sides' Gaussians at m_0 + j d, j = 0 .. g (m_0
    their least mean, d the greatest common divisor of the offsets), or None beyond
    ``MAX_LATTICE``."""
    base = min(_centre(g) for side in (p, q) for _, g in side)
    moved = [_centre(g) - base for side in (p, q) for _, g in side if _centre(g) != base]
    if not moved:
        return None
    step = Fraction(0)
    for x in moved:
        step = Fraction(gcd(step.numerator * x.denominator, x.numerator * step.denominator),
                        step.denominator * x.denominator)
    top = max(moved) / step
    if top > MAX_LATTICE:
        return None
    weights = []
    for side in (p, q):
        w = [Fraction(0)] * (int(top) + 1)
        for a, g in side:
            w[int((_centre(g) - base) / step)] += a
        weights.append(tuple(w))
    return step, weights[0], weights[1]
