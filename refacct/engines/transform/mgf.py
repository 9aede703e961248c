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
from typing import Optional, Sequence

from ...distributions import Gaussian, Mixture
from ...errors import InputError
from ...pairs import Composition, Pair
from ... import progress
from ..arb import acb, arb, flint, to_arb

__all__ = ["GaussianShifts", "PoissonGaussian", "Product", "loss_of"]


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


class PoissonGaussian:
    """The loss of ``steps`` Poisson-subsampled Gaussian steps: P = (1 - q) N(0, s^2) +
    q N(1, s^2) against Q = N(0, s^2) (``direction="remove"``), or the reverse
    (``"add"``) (001 Sec. 5).  With E(y) = e^{(2y - 1) / (2 s^2)} and B = 1 - q + q E =
    p / q on the remove side,

        M(z) = int phi_s(y) B(y)^w dy,   w = 1 + z (remove) or -z (add),

    an integral of an entire integrand along the real line (B > 0 there; log B is analytic
    in the strip |Im y| < pi s^2), by Arb's rigorous integration (``acb.integral``) on
    [a, b] and tails bounded in closed form:

    * remove, Re w = 1 + c > 0: for y <= a < 0, B <= 1, so the tail is at most
      Phi-bar(-a / s); for y >= b >= 1/2, B / E = (1 - q) / E + q decreases in y, so
      B <= r E with r = (1 - q) / E(b) + q (about q: without it the bound is q^-(1 + c)
      too large, and at large c exceeds M itself), and phi_s(y) E^(1 + c) integrates to
      e^{((1 + c)^2 - (1 + c)) / (2 s^2)} Phi-bar((b - 1 - c) / s): the tail is at most
      r^(1 + c) times that;
    * add, Re w = -c < 0: B >= 1 - q, so both tails are at most (1 - q)^-c times the
      Gaussian's.

    **Decay.**  sup_{s >= t} |M(c + is)| is bounded by a scan: at s_j, |M(c + is_j)|
    (a ball) plus K h_j bounds |M| on [s_j, s_j + h_j], K = int phi_s B^{Re w} |ln B| >=
    |dM/ds| (``lipschitz``), with h_j = (M(c) - |M(c + is_j)|) / (8 K); the scan stops at
    the S where V / S (below) falls under the largest cell bound.  With u = ln B(y)
    (increasing), M(c + is) = int g(u) e^{i kappa s u} du (kappa = +-1), so
    |M(c + is)| <= V / s, V = TV(g) (one integration by parts; g -> 0 at both ends).  TV is invariant under the monotone change of variable: TV(g) = TV(G) with
    G(y) = s^2 phi_s(y) B(y)^beta / (q E(y)), beta = Re w + 1.  (ln G)' = (beta S(y) - y -
    1) / s^2 with S = qE / B a logistic function of y, which meets a line at most 3
    times: G has at most 2 local maxima, TV(G) <= 4 sup G, and G increases below
    -1 + min(beta, 0) and decreases above max(beta, 0) - 1, so sup G is the sup over
    that interval, bounded by interval arithmetic on a cover of cells: V <= 4 sup G.
    The bound on sup |M| is raised to the power T.
    """

    c_max = None  # M(c) is finite for every c: the Gaussian factor dominates

    def __init__(self, sigma: Fraction, q: Fraction, steps: int, direction: str) -> None:
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be remove or add, got {direction!r}")
        self.sigma, self.q, self.steps = Fraction(sigma), Fraction(q), steps
        self.sign = 1 if direction == "remove" else -1

    def _w(self, z: "acb") -> "acb":
        return 1 + z if self.sign > 0 else -z

    def _b(self):
        """y -> B(y) = 1 - q + q E(y) for a real or complex ball y (its constants made once,
        at the current precision: the integrands call it at every node)."""
        q, inv = to_arb(self.q), self._inverse()
        keep = 1 - q
        return lambda y: keep + q * ((2 * y - 1) * inv).exp()

    def _inverse(self) -> "arb":
        """1 / (2 s^2)."""
        s = to_arb(self.sigma)
        return 1 / (2 * s * s)

    def one_step(self, z: "acb") -> "acb":
        """M(z) of one step: the integral on [a, b] plus a ball for the tails."""
        s, c = to_arb(self.sigma), z.real
        w = self._w(z)
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        reach = self._reach()
        a = -reach - 1
        b = (1 + c) + reach + 1 if self.sign > 0 else reach + 1

        big_b, inv = self._b(), self._inverse()

        def f(y, analytic):
            return norm * (-(y * y) * inv + w * big_b(y).log(analytic=analytic)).exp()

        inner = acb.integral(f, a, b)
        tail = self._tails(a, b, c)
        return inner + acb(arb(0, tail), arb(0, tail))

    def _reach(self) -> "arb":
        """How far the integration range reaches past the Gaussian factor's centre (and
        past 1 + c): 2 sqrt(prec) s, where Phi-bar(reach / s) < 2^-prec, so the tails'
        bounds fall below the rounding (any reach gives a valid ball)."""
        return 2 * arb(flint.ctx.prec).sqrt() * to_arb(self.sigma)

    def _tails(self, a: "arb", b: "arb", c: "arb", slope: bool = False) -> "arb":
        """Bounds on int phi_s |B^w| outside [a, b] (class docstring), or with ``slope``
        on int phi_s |B^w| |ln B| (``lipschitz``): |ln B| <= -ln(1 - q) below 1/2, and
        ln B <= ln E <= E above it, one more power of E (B^(1 + c) <= r^(1 + c) E^(1 + c)
        as in the class docstring)."""
        s, q = to_arb(self.sigma), to_arb(self.q)
        root2 = arb(2).sqrt()
        below = (-a / (s * root2)).erfc() / 2 * (-(1 - q).log() if slope else 1)
        if self.sign > 0:
            alpha = 1 + c + (1 if slope else 0)
            r = (1 - q) / ((2 * b - 1) * self._inverse()).exp() + q
            above = r ** (1 + c) * ((alpha * alpha - alpha) / (2 * s * s)).exp() * \
                ((b - alpha) / (s * root2)).erfc() / 2
            return below + above
        shift = 1 if slope else 0
        return (1 - q) ** (-c) * (below + ((b - shift) / (s * root2)).erfc() / 2)

    def log_mgf(self, z: "acb") -> "acb":
        return self.steps * self.one_step(z).log()

    def uses(self) -> Fraction:
        """The expected number of the T steps that use the record, T q."""
        return self.steps * self.q

    def sup(self) -> Optional["arb"]:
        """Remove: p / q = B is unbounded; add: q / p = 1 / B <= 1 / (1 - q), T steps."""
        return None if self.sign > 0 else -self.steps * (1 - to_arb(self.q)).log()

    def decay(self, c: "arb", t: "arb", drop: Fraction = Fraction(0)) -> "arb":
        """The scan of the class docstring, aiming at a bound level L = e^{drop / T}
        M(c) a step (drop < 0): cells of width (L - m) / K while |M| = m < L, else
        (M(c) - m) / (8 K), and the scan ends where V / s falls under L or the largest
        cell bound."""
        top = self.one_step(acb(c)).real.upper()
        level = (top * to_arb(drop / self.steps).exp()).upper() if drop < 0 else arb(0)
        slope, far = self.lipschitz(c), 4 * self._sup_g(c)
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
        """K >= |dM(c + is)/ds| = |int phi_s B^w ln B|: int phi_s B^{Re w} |ln B|, split
        where ln B changes sign (y = 1/2), tails bounded as in ``_tails`` (|ln B| <=
        -ln(1 - q) below 1/2; ln B <= E above it)."""
        s = to_arb(self.sigma)
        power = 1 + c if self.sign > 0 else -c
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        reach = self._reach()
        a, half = -reach - 1, arb(1) / 2
        b = (2 + c) + reach + 1 if self.sign > 0 else reach + 2

        big_b, inv = self._b(), self._inverse()

        def piece(sign):
            def f(y, analytic):
                log_b = big_b(y).log(analytic=analytic)
                return sign * norm * (-(y * y) * inv + power * log_b).exp() * log_b
            return f

        inner = acb.integral(piece(-1), a, half).real + acb.integral(piece(1), half, b).real
        return (inner + self._tails(a, b, c, slope=True)).upper()

    def _sup_g(self, c: "arb") -> "arb":
        """An upper bound on sup G (class docstring) by interval arithmetic on cells of
        width s / 32 covering [-1 + min(beta, 0), max(beta, 0) - 1]."""
        s, q = to_arb(self.sigma), to_arb(self.q)
        beta = (1 + c if self.sign > 0 else -c) + 1
        lo = -1 + min(beta.lower(), arb(0))   # outward: the ball of beta widens the range
        hi = max(beta.upper(), arb(0)) - 1
        cells = max(1, int(((hi - lo) * 32 / s).upper().ceil().unique_fmpz()) + 1)
        norm = s / (q * (2 * arb.pi()).sqrt())
        best, big_b = arb(0), self._b()
        for i in range(cells):
            y = (lo + (hi - lo) * i / cells).union(lo + (hi - lo) * (i + 1) / cells)
            e = (2 * y - 1) / (2 * s * s)
            value = norm * (-(y * y) / (2 * s * s) + beta * big_b(y).log() - e).exp()
            best = max(best, value.upper())
        return best


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
        return min((f.q for f in self.factors if isinstance(f, PoissonGaussian)),
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
    N(m1, s^2) vs N(m0, s^2) (merged into one ``GaussianShifts``) or Poisson-subsampled
    Gaussians ((1 - q) N(m0, s^2) + q N(m1, s^2) against N(m0, s^2), either order;
    moved to m0 = 0 and scaled to m1 - m0 = 1: sigma = s / |m1 - m0|, as the hockey-stick
    divergence is invariant under y -> (y - m0) / (m1 - m0)); else an InputError naming
    the factor."""
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


def _subsampled(pair: Pair, n: int) -> PoissonGaussian:
    for mixed, alone, direction in ((pair.P, pair.Q, "remove"), (pair.Q, pair.P, "add")):
        if not (isinstance(mixed, Mixture) and isinstance(alone, Gaussian)):
            continue
        parts = mixed.components
        if len(parts) != 2 or not all(isinstance(g, Gaussian) and g.sigma == alone.sigma
                                      for _, g in parts):
            continue
        moved = [(w, g) for w, g in parts if g != alone]
        if len(moved) == 1:
            q, g = moved[0]
            return PoissonGaussian(alone.sigma / abs(g.mean - alone.mean), q, n, direction)
    raise InputError(f"the transform engine takes Gaussian shifts and Poisson-subsampled "
                     f"Gaussians (a two-component Gaussian mixture against one of its "
                     f"components), got {pair!r}"[:400])
