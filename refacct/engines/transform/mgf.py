"""Moment generating functions of the privacy loss, M(z) = E_P[e^{z L}] = E_Q[(p/q)^{1+z}]
(001 Definition 5 for L), at complex z with Re z = c > 0, as Arb balls, for the transform
engine (``inversion``).

A ``Loss`` is the loss of a whole composition: ``log_mgf(z)`` is ln M_T(z) = sum_i T_i ln
M_i(z) (any branch: exp(T ln M) = M^T for integer T), ``decay(c, t, drop)`` an upper bound
on sup_{s >= t} |M_T(c + i s)| (``drop`` steers: the bound aimed at, e^drop M_T(c); any
value gives a valid bound), ``c_max`` the supremum of the c where M_T(c) is finite,
``sup()`` the essential supremum of L_T as a ball (None: unbounded), beyond which delta_T
is 0.  ``Product`` composes losses; ``loss_of`` reads the loss of a pair or composition.

Gaussian shifts: N(mu, s^2) vs N(0, s^2) has L ~ N(m^2/2, m^2) under P with m = mu / s, so
ln M(z) = m^2 z (z + 1) / 2, and a composition of shifts is one shift with m^2 = sum_i T_i
m_i^2 (Balle and Wang, "Improving the Gaussian mechanism for differential privacy", 2018,
arXiv:1805.06530).  |M(c + it)| = exp(m^2 (c (c + 1) - t^2) / 2) decreases in t: it is
its own decay bound.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Optional, Sequence, Tuple

from ...distributions import Gaussian, Mixture
from ...errors import InputError
from ...pairs import Composition, Pair
from ... import progress
from ..arb import acb, arb, flint, to_arb

__all__ = ["MAX_LATTICE", "GaussianShifts", "SubsampledGaussian", "PoissonGaussian", "Product",
           "loss_of"]

MAX_LATTICE = 64   # the largest g: A is a polynomial of degree g, evaluated at every node


class GaussianShifts:
    """The loss of a composition of Gaussian shifts, ``m2`` = sum_i T_i (mu_i / s_i)^2."""

    c_max = None  # M_T(c) is finite for every c

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
    """The loss of ``steps`` steps of a Gaussian mixture on a lattice against its first
    component: P = sum_{j=0..g} a_j N(j, s^2) against Q = N(0, s^2) (``direction=
    "remove"``), or the reverse (``"add"``), a_0 >= 0 (the Poisson-subsampled Gaussian, 001
    Sec. 5, is a = (1 - q, q); a group of K records sampled independently, 003 Thm 3.1,
    the binomial weights a_j = C(K, j) q^j (1 - q)^(K - j)).  With e_j(y) =
    e^{(2 j y - j^2) / (2 s^2)} and A = sum_j a_j e_j = p / q on the remove side (a
    polynomial with positive coefficients in x = e^{y / s^2}, so increasing in y),

        M(z) = int phi_s(y) A(y)^w dy,   w = 1 + z (remove) or -z (add),

    an integral of an entire integrand along the real line (A > 0 there; log A is analytic
    near it), by Arb's rigorous integration (``acb.integral``) on [a, b] and tails bounded
    in closed form (``_tails``), with I(alpha) = int_b^inf phi_s e_g^alpha =
    e^{(alpha^2 - alpha) g^2 / (2 s^2)} Phi-bar((b - alpha g) / s):

    * remove, Re w = 1 + c > 0: for y <= a < 0, e_j <= 1 and A <= 1, so the tail is at
      most Phi-bar(-a / s); for y >= b >= g, A / e_g decreases in y, so A <= r e_g with
      r = A(b) / e_g(b) <= 1 (about a_g: without it the bound is a_g^-(1 + c) too large,
      and at large c exceeds M itself): the tail is at most r^(1 + c) I(1 + c);
    * add, Re w = -c < 0: A >= a_0, so both tails are at most a_0^-c times the Gaussian's.

    **Decay.**  sup_{s >= t} |M(c + is)| is bounded by a scan: at s_j, |M(c + is_j)|
    (a ball) plus K h_j bounds |M| on [s_j, s_j + h_j], K = int phi_s A^{Re w} |ln A| >=
    |dM/ds| (``lipschitz``); the scan stops at the S where V / S (below) falls under the
    largest cell bound.  With u = ln A(y) (monotone), M(c + is) = int g(u) e^{i kappa s u}
    du (kappa = +-1), so |M(c + is)| <= V / s, V = TV(g) (one integration by parts; g -> 0
    at both ends).  TV is invariant under the monotone change of variable: TV(g) = TV(G)
    with G = phi_s A^{Re w} / abs(u') = s^2 phi_s A^beta / D, beta = Re w + 1, D = s^2 A' =
    sum_j j a_j e_j (``_variation``).
    The bound on sup |M| is raised to the power T.
    """

    c_max = None  # M(c) is finite for every c: the Gaussian factor dominates

    def __init__(self, sigma: Fraction, weights: Sequence[Fraction], steps: int,
                 direction: str) -> None:
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be remove or add, got {direction!r}")
        weights = tuple(Fraction(a) for a in weights)
        if len(weights) < 2 or weights[-1] <= 0 or min(weights) < 0 or sum(weights) != 1:
            raise ValueError(f"weights must be >= 0, sum to 1, with the last > 0, got "
                             f"{weights}")
        self.sigma, self.weights, self.steps = Fraction(sigma), weights, steps
        self.sign = 1 if direction == "remove" else -1
        self.top = len(weights) - 1   # g

    def _w(self, z: "acb") -> "acb":
        return 1 + z if self.sign > 0 else -z

    def _sums(self, moments: int = 1):
        """y -> (S_0, ..., S_{moments - 1}), S_k = sum_j j^k a_j e_j(y), for a real or
        complex ball y (S_0 = A, S_1 = D): Horner in x = e^{y / s^2}, the constants
        a_j e^{-j^2 / (2 s^2)} made once at the current precision (the integrands call it
        at every node)."""
        inv = self._inverse()
        coeffs = [to_arb(a) * (-(j * j) * inv).exp() for j, a in enumerate(self.weights)]

        def sums(y):
            x = (2 * y * inv).exp()
            out = []
            for k in range(moments):
                total = coeffs[-1] * self.top ** k
                for j in range(self.top - 1, -1, -1):
                    total = total * x + coeffs[j] * j ** k
                out.append(total)
            return out
        return sums

    def _a(self):
        """y -> A(y) for a real or complex ball y."""
        sums = self._sums()
        return lambda y: sums(y)[0]

    def _inverse(self) -> "arb":
        """1 / (2 s^2)."""
        s = to_arb(self.sigma)
        return 1 / (2 * s * s)

    def _range(self, c: "arb", slope: int = 0) -> Tuple["arb", "arb"]:
        """[a, b], past the integrand's peak (at y = (1 + c + slope) g on the remove side,
        below g on the add side) by ``_reach`` on each side; b >= g (``_tails``)."""
        reach = self._reach()
        peak = (1 + c + slope) if self.sign > 0 else arb(1)
        return -reach - 1, peak * self.top + reach + 1

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step: the integral on [a, b] plus a ball for the tails."""
        s, c = to_arb(self.sigma), z.real
        w = self._w(z)
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        a, b = self._range(c)
        big_a, inv = self._a(), self._inverse()

        def f(y, analytic):
            return norm * (-(y * y) * inv + w * big_a(y).log(analytic=analytic)).exp()

        inner = acb.integral(f, a, b)
        tail = self._tails(a, b, c)
        return inner + acb(arb(0, tail), arb(0, tail))

    def _reach(self) -> "arb":
        """How far the integration range reaches past the integrand's peak: 2 sqrt(prec)
        s, where Phi-bar(reach / s) < 2^-prec, so the tails' bounds fall below the
        rounding (any reach gives a valid ball)."""
        return 2 * arb(flint.ctx.prec).sqrt() * to_arb(self.sigma)

    def _tails(self, a: "arb", b: "arb", c: "arb", slope: bool = False) -> "arb":
        """Bounds on int phi_s |A^w| outside [a, b] (class docstring), or with ``slope``
        on int phi_s |A^w| |ln A| (``lipschitz``): |ln A| <= -ln a_0 below 0, where
        a_0 <= A <= 1, and |ln A| <= -ln a_0 + e_g above g, where a_0 <= A <= e_g (each
        e_j <= e_g there): one more power of e_g."""
        s, g = to_arb(self.sigma), self.top
        root2, inv = arb(2).sqrt(), self._inverse()
        floor = -to_arb(self.weights[0]).log()   # -ln a_0

        def upper(alpha):   # I(alpha)
            return ((alpha * alpha - alpha) * g * g * inv).exp() * \
                ((b - alpha * g) / (s * root2)).erfc() / 2

        below = (-a / (s * root2)).erfc() / 2 * (floor if slope else 1)
        if self.sign > 0:
            r = self._a()(b) / ((2 * g * b - g * g) * inv).exp()
            above = upper(1 + c) * (floor if slope else 1) + (upper(2 + c) if slope else 0)
            return below + r ** (1 + c) * above
        above = upper(arb(0)) * (floor if slope else 1) + (upper(arb(1)) if slope else 0)
        return to_arb(self.weights[0]) ** (-c) * (below + above)

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * self.one_step(z).log()

    def rate(self) -> Fraction:
        """The chance 1 - a_0 that a step uses the record (or the group)."""
        return 1 - self.weights[0]

    def uses(self) -> Fraction:
        """The expected number of the T steps that use the record, T (1 - a_0)."""
        return self.steps * self.rate()

    def sup(self) -> Optional["arb"]:
        """Remove: p / q = A is unbounded; add: q / p = 1 / A <= 1 / a_0, T steps."""
        return None if self.sign > 0 else -self.steps * to_arb(self.weights[0]).log()

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The scan of the class docstring, aiming at a bound level L = e^{drop / T}
        M(c) a step (drop < 0): cells of width (L - m) / K while |M| = m < L, else
        (M(c) - m) / (8 K), and the scan ends where V / s falls under L or the largest
        cell bound."""
        top = self.one_step(acb(c)).real.upper()
        level = (top * to_arb(drop / self.steps).exp()).upper() if drop < 0 else arb(0)
        slope, far = self.lipschitz(c), self._variation(c)
        worst, s = arb(0), t
        while True:
            progress.check()
            m = abs(self.one_step(acb(c, s))).upper()
            h = (level - m) / slope if m < level else (top - m) / (8 * slope)
            h = max(h, arb(1) / 64)
            worst = max(worst, (m + slope * h).upper())
            s = (s + h).lower()
            if (far / s).upper() <= max(worst, level) or worst >= top:
                break
        return min(max(worst, (far / s).upper()), top) ** self.steps

    def lipschitz(self, c: "arb") -> "arb":
        """K >= |dM(c + is)/ds| = |int phi_s A^w ln A|: int phi_s A^{Re w} |ln A|, split
        at the root y_0 of A = 1 (A increases: below y_0, ln A < 0, above, > 0), the
        sliver [y_-, y_+] around it where the sign is unproven bounded by its width times
        the integrand's ball there, tails bounded as in ``_tails``."""
        s = to_arb(self.sigma)
        power = 1 + c if self.sign > 0 else -c
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        a, b = self._range(c, slope=1)
        big_a, inv = self._a(), self._inverse()

        def piece(sign):
            def f(y, analytic):
                log_a = big_a(y).log(analytic=analytic)
                return sign * norm * (-(y * y) * inv + power * log_a).exp() * log_a
            return f

        lo, hi = self._unit_root()
        cell = lo.union(hi)
        log_a = big_a(cell).log()
        sliver = (hi - lo) * abs(norm * (-(cell * cell) * inv + power * log_a).exp() * log_a)
        inner = acb.integral(piece(-1), a, lo).real + acb.integral(piece(1), hi, b).real
        return (inner + sliver + self._tails(a, b, c, slope=True)).upper()

    def _unit_root(self) -> Tuple["arb", "arb"]:
        """Exact y_- < y_+ with A(y_-) < 1 < A(y_+) proven, about 2^-38 g apart or as
        close as the precision proves: A(0) < 1 (each e_j(0) <= 1, a_0 < 1) and A(g) > 1
        (each e_j(g) >= 1, some a_j > 0 with j >= 1), then sections at 3/7 of the interval
        (not halves: the root is often a dyadic rational, 1/2 for g = 1, where the ball of
        A straddles 1)."""
        big_a = self._a()
        lo, hi = arb(0), arb(self.top)
        for _ in range(48):
            mid = (lo + (hi - lo) * 3 / 7).mid()
            value = big_a(mid)
            if value < 1:
                lo = mid
            elif value > 1:
                hi = mid
            else:
                break
        return lo, hi

    def _variation(self, c: "arb") -> "arb":
        """V >= TV(G) (class docstring).  (ln G)' = h / s^2, h = beta E_A - E_D - y with
        E_A = S_1 / S_0 in [0, g] and E_D = S_2 / S_1 in [1, g] (means of j under weights
        a_j e_j and j a_j e_j, both increasing in y: their derivatives are variances over
        s^2).  So G increases below lo = min(0, beta g) - g and decreases above hi =
        max(0, beta g) - 1, and TV(G) = G(lo) + G(hi) + TV on [lo, hi].  On a cell
        [y_1, y_2] of [lo, hi] (width s / 32) the monotone means bound h by point values;
        where h keeps its sign G is monotone and the cell adds |G(y_2) - G(y_1)|, else
        2 sup G <= 2 G(y_1) e^{max(h) (y_2 - y_1) / s^2}."""
        s, g = to_arb(self.sigma), self.top
        beta = (1 + c if self.sign > 0 else -c) + 1
        lo = min(arb(0), (beta * g).lower()) - g   # outward: the ball of beta widens it
        hi = max(arb(0), (beta * g).upper()) - 1
        cells = max(1, int(((hi - lo) * 32 / s).upper().ceil().unique_fmpz()) + 1)
        norm, inv, sums = s / (2 * arb.pi()).sqrt(), self._inverse(), self._sums(3)

        def point(y):   # G(y), E_A(y), E_D(y)
            s0, s1, s2 = sums(y)
            return norm * (-(y * y) * inv + beta * s0.log()).exp() / s1, s1 / s0, s2 / s1

        ends = [lo + (hi - lo) * i / cells for i in range(cells + 1)]
        values = [point(y) for y in ends]
        total = values[0][0] + values[-1][0]
        for (y1, left), (y2, right) in zip(zip(ends, values), zip(ends[1:], values[1:])):
            means = [beta * left[1], beta * right[1]]
            most = max(m.upper() for m in means) - left[2].lower() - y1
            least = min(m.lower() for m in means) - right[2].upper() - y2
            if least > 0 or most < 0:
                total += abs(right[0] - left[0])
            else:
                total += 2 * left[0] * (max(most, arb(0)) * (y2 - y1) * 2 * inv).exp()
        return total.upper()


class PoissonGaussian(SubsampledGaussian):
    """One record Poisson-subsampled at rate q: a = (1 - q, q), P = (1 - q) N(0, s^2) +
    q N(1, s^2) against Q = N(0, s^2) (remove) or the reverse (add) (001 Sec. 5)."""

    def __init__(self, sigma: Fraction, q: Fraction, steps: int, direction: str) -> None:
        self.q = Fraction(q)
        super().__init__(sigma, (1 - self.q, self.q), steps, direction)


class Product:
    """The loss of a heterogeneous composition: its factors' losses (each for its own
    steps) add, M_T = prod_i M_i, and sup |M_T| <= prod_i sup |M_i|."""

    def __init__(self, factors: Sequence) -> None:
        self.factors = tuple(factors)
        finite = [f.c_max for f in self.factors if f.c_max is not None]
        self.c_max = min(finite) if finite else None

    def log_mgf(self, z: "acb") -> "acb":
        total = acb(0)
        for f in self.factors:
            total += f.log_mgf(z)
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

    def least_rate(self) -> Fraction:
        """The smallest sampling rate q of the subsampled factors (1 without any): one
        step's |M(c + is)| falls below M(c) only by about (q s)^2, so the decay bound's
        scan runs to s ~ 1 / q and its cost grows as 1 / q."""
        return min((f.rate() for f in self.factors if isinstance(f, SubsampledGaussian)),
                   default=Fraction(1))

    def sup(self) -> Optional["arb"]:
        total = arb(0)
        for f in self.factors:
            one = f.sup()
            if one is None:
                return None
            total += one
        return total


def loss_of(target) -> Product:
    """The loss of a ``Pair`` or ``Composition`` whose factors are Gaussian shifts
    N(m1, s^2) vs N(m0, s^2) (merged into one ``GaussianShifts``) or subsampled Gaussians
    (a mixture of Gaussians N(m0 + j d, s^2), j = 0 .. g <= ``MAX_LATTICE``, against its
    component N(m0, s^2), either order: Poisson subsampling, and groups under it; moved to
    m0 = 0 and scaled to d = 1: sigma = s / |d|, as the hockey-stick divergence is
    invariant under y -> (y - m0) / d); else an InputError naming the factor."""
    if isinstance(target, Pair):
        target = Composition.of(target)
    if not isinstance(target, Composition):
        raise InputError("the transform engine takes a pair or a composition (not a public "
                         "mixture)")
    shifts, factors = Fraction(0), []
    for pair, n in target.factors:
        if pair.P == pair.Q:
            continue
        if isinstance(pair.P, Gaussian) and isinstance(pair.Q, Gaussian) and \
                pair.P.sigma == pair.Q.sigma:
            shifts += n * ((pair.P.mean - pair.Q.mean) / pair.P.sigma) ** 2
            continue
        factors.append(_subsampled(pair, n))
    if shifts or not factors:
        factors.append(GaussianShifts(shifts))
    return Product(factors)


def _subsampled(pair: Pair, n: int) -> SubsampledGaussian:
    for mixed, alone, direction in ((pair.P, pair.Q, "remove"), (pair.Q, pair.P, "add")):
        if not (isinstance(mixed, Mixture) and isinstance(alone, Gaussian)):
            continue
        parts = mixed.components
        if not all(isinstance(g, Gaussian) and g.sigma == alone.sigma for _, g in parts):
            continue
        found = _lattice([(w, g.mean - alone.mean) for w, g in parts])
        if found is not None:
            step, weights = found
            return SubsampledGaussian(alone.sigma / step, weights, n, direction)
    raise InputError(f"the transform engine takes Gaussian shifts and subsampled Gaussians "
                     f"(a mixture of Gaussians N(m0 + j d, s^2), j = 0 .. g <= "
                     f"{MAX_LATTICE}, against its component N(m0, s^2)), got {pair!r}"[:400])


def _lattice(offsets) -> Optional[Tuple[Fraction, Tuple[Fraction, ...]]]:
    """(|d|, (a_0, .., a_g)) for weighted offsets w at j d, j = 0 .. g, all on one side of
    0 with one at 0 (d: the offsets' greatest common divisor, with their sign), or None."""
    moved = [x for _, x in offsets if x]
    if len(moved) == len(offsets) or not moved or min(moved) < 0 < max(moved):
        return None
    step = Fraction(0)
    for x in moved:
        step = Fraction(gcd(step.numerator * x.denominator, x.numerator * step.denominator),
                        step.denominator * x.denominator)
    top = max(abs(x) for x in moved) / step
    if top > MAX_LATTICE:
        return None
    weights = [Fraction(0)] * (int(top) + 1)
    for w, x in offsets:
        weights[int(abs(x) / step)] += w
    return step, tuple(weights)
