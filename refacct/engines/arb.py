"""Arb (python-flint) balls for the certified engines: exact conversions, densities and
interval masses of Gaussian / Laplace components and mixtures, with rigorous radii.

Every function works at the caller's Arb precision (``flint.ctx.prec``); set it locally
with ``with flint.ctx.workprec(bits):``; nothing here changes it.  Inputs that are exact
rationals (``Fraction``, ``int``, numeric strings, mpf) enter as balls that contain them
(radius 0 when dyadic and short enough); standardised distances (y - loc) / scale of two
exact rationals are formed exactly before conversion, so y = loc gives an exact 0.

Interval masses (docs/numerics.md, "Exact CDF differences, in the tails too"): tails
come from their own side, P(Y > y) = erfc((y - mu) / (sigma sqrt 2)) / 2 for a Gaussian,
e^{-(y - loc)/b} / 2 for a Laplace, so a mass of 1e-300 keeps its relative accuracy.  For
Gaussians every such form is an identity valid for all real and complex y: the choice of
side affects accuracy only, never validity.  For Laplace components the form depends on
the side of ``loc``; a real ball straddling ``loc`` gets the union of both forms (the tail
is monotone), and a complex ball (``acb``, for analytic integrands) needs ``side`` / a
reference point from the caller.

Component parameters (mu, sigma, loc, scale) may be exact rationals or balls.  ``None`` (or
an infinite mpf / exact infinite ball) as an interval end means -inf / +inf.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from typing import Iterator, List, Optional, Tuple, Union

import flint
from flint import acb, arb, fmpq, fmpz

import mpmath
from mpmath import libmp, mp

from ..distributions import Continuous, Gaussian
from ..exact import mpf_parts, rational

__all__ = [
    "all_cores", "fork_is_safe",
    "flint", "arb", "acb", "to_arb", "arb_ends", "arb_mid_rad", "floor_mid", "power_log",
    "dyadic_mpf",
    "is_infinite", "steering_log",
    "gaussian_pdf", "gaussian_upper", "gaussian_lower", "gaussian_mass",
    "laplace_pdf", "laplace_upper", "laplace_lower", "laplace_mass",
    "pdf", "mass", "side_of", "balls", "MixtureBalls", "twice_gaussian_masses",
]

Ball = Union["arb", "acb"]
Point = Union[Fraction, int, "arb", "acb", None]


# --- threads ------------------------------------------------------------------------------

@contextmanager
def all_cores() -> Iterator[None]:
    """Arb's polynomial products on every core; the thread count is restored after (back
    to 1, FLINT's pool keeps no threads: see ``fork_is_safe``)."""
    threads = flint.ctx.threads
    flint.ctx.threads = max(threads, os.cpu_count() or 1)
    try:
        yield
    finally:
        flint.ctx.threads = threads


def fork_is_safe() -> bool:
    """Can this process be forked?  Not while FLINT's thread pool holds threads
    (``flint.ctx.threads`` > 1, set by the caller or inside ``all_cores``): fork copies
    the pool but not its threads, and the child deadlocks in its first threaded
    product."""
    return flint.ctx.threads == 1


# --- conversions ----------------------------------------------------------------------------

def to_arb(x: object) -> "arb":
    """A ball containing exactly ``x``: int / Fraction / numeric string / Decimal (parsed
    exactly by ``refacct.exact.rational``), mpf (its exact binary value), or an arb (returned
    as is).  Radius 0 whenever x is a dyadic rational (ints and mpf always)."""
    if isinstance(x, (arb, acb)):
        return x
    if type(x) is int:
        return arb(fmpz(x))
    if type(x) is Fraction:
        den = x.denominator
        if not den & (den - 1):  # dyadic (lattice points j 2^-m): exact, no cache lookup
            return arb((fmpz(x.numerator), fmpz(1 - den.bit_length())))
        return _rational_ball(x, flint.ctx.prec)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"to_arb needs a finite number, got {x}")
        man, exp = mpf_parts(x)
        return arb((fmpz(man), fmpz(exp)))
    return _rational_ball(rational(x, "value"), flint.ctx.prec)


@lru_cache(maxsize=4096)
def _rational_ball(q: Fraction, prec: int) -> "arb":
    """The ball of a rational at precision ``prec`` (balls are immutable: cached)."""
    q = Fraction(q)
    if q.denominator == 1:
        return arb(fmpz(q.numerator))
    return arb(fmpq(q.numerator, q.denominator))


@lru_cache(maxsize=64)
def _constants(prec: int) -> Tuple["arb", "arb"]:
    """(sqrt 2, sqrt(2 pi)) at precision ``prec``."""
    return arb(2).sqrt(), (2 * arb.pi()).sqrt()


def _mpf_exact(man: int, exp: int) -> mpmath.mpf:
    """man * 2^exp as an mpf, without rounding (whatever mp.prec is)."""
    return mp.make_mpf(libmp.from_man_exp(man, exp))


def _exact_parts(x: "arb") -> Tuple[int, int, int]:
    """(m, r, e) with mid = m 2^e and rad = r 2^e exactly."""
    if not x.is_finite():   # a numerical failure inside refacct, never the user's input
        raise ArithmeticError(f"need a finite ball, got {x}")
    m, e = (int(v) for v in x.mid().man_exp())
    r, f = (int(v) for v in x.rad().man_exp())
    base = min(e, f)
    return m << (e - base), r << (f - base), base


def arb_ends(x: "arb") -> Tuple[mpmath.mpf, mpmath.mpf]:
    """(mid - rad, mid + rad) of a finite ball as exact mpf values (no rounding: the two
    numbers are exactly the ends of the Arb ball, whatever mp.prec is)."""
    m, r, e = _exact_parts(x)
    return _mpf_exact(m - r, e), _mpf_exact(m + r, e)


def power_log(m: "acb") -> "acb":
    """A logarithm of the complex ball m for exp(T ln m) = m^T (integer T): ln m where m
    excludes 0; where it contains 0 (a value below its own rounding, far out in a
    transform's tail), ln r + i [-4, 4] with r >= |m|: exp(T times it) is a rectangle that
    contains the circle of radius r^T, hence the disk, hence m^T (so are sums with other
    logs: the circle times any factor)."""
    if abs(m).lower() > 0:
        return m.log()
    return acb(arb(abs(m).upper()).log().upper(), arb(0, 4))


def steering_log(v: "acb") -> "arb":
    """The real part of ``power_log``'s logarithm of a value at a real point, where it is
    resolved; else +inf.  There ln m is real, and an imaginary part as wide as 1 marks a
    ball that held 0, whose real part only bounds ln |m| from above: good for a bound, not
    for derivatives by differences of midpoints (the moments of random allocation at
    Re a <= -6, sigma 1, two steps: ln r = 132 where ln m = 19; the saddle point's
    derivatives placed a grid at eps 119 for a root at 4.6)."""
    if v.imag.rad() >= 1 or not v.real.is_finite():
        return arb("inf")
    return v.real


def arb_mid_rad(x: "arb") -> Tuple[mpmath.mpf, mpmath.mpf]:
    """(mid, rad) of a finite ball as exact mpf values."""
    m, r, e = _exact_parts(x)
    return _mpf_exact(m, e), _mpf_exact(r, e)


def floor_mid(x: "arb") -> int:
    """floor of the midpoint of a finite ball, as an int: for counts and digits that steer
    a computation, never for a bound.  Arb's own floor where it is exact (the hot path:
    the quadratures' node counts), else through an exact mpf."""
    exact = x.mid().floor().unique_fmpz()
    return int(exact) if exact is not None else int(mpmath.floor(arb_mid_rad(x)[0]))


def dyadic_mpf(q: Fraction) -> mpmath.mpf:
    """A dyadic rational (denominator a power of 2) as an exact mpf."""
    q = Fraction(q)
    shift = q.denominator.bit_length() - 1
    if q.denominator != 1 << shift:
        raise ValueError(f"{q} is not a dyadic rational")
    return _mpf_exact(q.numerator, -shift)


def is_infinite(x: object) -> bool:
    """True for an unbounded interval end: None, an infinite mpf, or an exact infinite arb
    (``arb.pos_inf()``).  Non-finite balls (NaN, infinite radius) are not ends but
    indeterminate values: they propagate to a non-finite result."""
    if x is None:
        return True
    if isinstance(x, mpmath.mpf):
        return mpmath.isinf(x)
    if isinstance(x, arb):
        return not x.is_finite() and not x.is_nan() and x.rad() == 0
    return False


def _distance(y: Point, loc, scale) -> Ball:
    """(y - loc) / scale: exact in rationals when all three are rational, else in balls."""
    if not isinstance(y, (arb, acb)) and not isinstance(loc, arb) and not isinstance(scale, arb):
        return to_arb((rational(y, "y") - loc) / scale)
    return (to_arb(y) - to_arb(loc)) / to_arb(scale)


def _real_mid(t: Ball) -> "arb":
    return (t.real if isinstance(t, acb) else t).mid()


def side_of(y: Point, loc: Fraction) -> int:
    """+1 if y >= loc, -1 if y <= loc (exact for rationals, certain for balls), 0 if a real
    ball straddles loc.  Raises ``TypeError`` for complex balls (pass ``side``)."""
    if isinstance(y, acb):
        raise TypeError("a complex ball needs an explicit side of the Laplace location")
    if isinstance(y, arb) or isinstance(loc, arb):
        t = to_arb(y) - to_arb(loc)
        return 1 if t >= 0 else -1 if t <= 0 else 0
    return 1 if rational(y, "y") >= loc else -1


# --- Gaussian ---------------------------------------------------------------------------------

def _sqrt2() -> "arb":
    return _constants(flint.ctx.prec)[0]


def gaussian_pdf(mu: Fraction, sigma: Fraction, y: Point) -> Ball:
    """Density of N(mu, sigma^2) at y: exp(-t^2 / 2) / (sigma sqrt(2 pi)), t = (y - mu)/sigma."""
    t = _distance(y, mu, sigma)
    return (-(t * t) / 2).exp() / (to_arb(sigma) * _constants(flint.ctx.prec)[1])


def gaussian_upper(mu: Fraction, sigma: Fraction, y: Point) -> Ball:
    """P(Y > y) = erfc((y - mu) / (sigma sqrt 2)) / 2 for Y ~ N(mu, sigma^2): relatively
    accurate in the upper tail; y = None is +inf (0)."""
    if is_infinite(y):
        return _infinite_tail(y, upper=True)
    return (_distance(y, mu, sigma) / _sqrt2()).erfc() / 2


def gaussian_lower(mu: Fraction, sigma: Fraction, y: Point) -> Ball:
    """P(Y < y) = erfc((mu - y) / (sigma sqrt 2)) / 2: relatively accurate in the lower
    tail; y = None is -inf (0)."""
    if is_infinite(y):
        return _infinite_tail(y, upper=False)
    return (-_distance(y, mu, sigma) / _sqrt2()).erfc() / 2


def _infinite_tail(y, upper: bool) -> "arb":
    """A tail beyond an infinite end: 0 (None counts as +inf for upper, -inf for lower)."""
    if y is not None and (_real_mid(y) < 0 if isinstance(y, (arb, acb)) else y < 0) == upper:
        raise ValueError("an upper tail beyond -inf (or lower tail beyond +inf) is not a tail")
    return arb(0)


def gaussian_mass(mu: Fraction, sigma: Fraction, a: Point, b: Point) -> Ball:
    """P(a < Y < b) for Y ~ N(mu, sigma^2) (a = None: -inf, b = None: +inf): a difference
    of upper tails when the interval lies above mu, of lower tails when below, else
    1 - both outer tails, so no tail is ever computed as 1 - (something near 1)."""
    return _mass_by_tails(lambda y, _: gaussian_upper(mu, sigma, y),
                          lambda y, _: gaussian_lower(mu, sigma, y), mu, a, b, None, None)


# --- Laplace ----------------------------------------------------------------------------------

def laplace_pdf(loc: Fraction, scale: Fraction, y: Point, side: Optional[int] = None) -> Ball:
    """Density of Lap(loc, scale) at y: exp(-|y - loc| / scale) / (2 scale); ``side``
    (+1: y >= loc, -1: y <= loc) is required for complex balls."""
    t = _distance(y, loc, scale)
    s = _side(y, loc, side)
    if s == 0:
        return (-abs(t)).exp() / (2 * to_arb(scale))
    return (-s * t).exp() / (2 * to_arb(scale))


def laplace_upper(loc: Fraction, scale: Fraction, y: Point, side: Optional[int] = None) -> Ball:
    """P(Y > y) for Y ~ Lap(loc, scale): e^{-t}/2 for t = (y - loc)/scale >= 0, else
    1 - e^{t}/2 (exact exponentials); y = None is +inf (0)."""
    if is_infinite(y):
        return _infinite_tail(y, upper=True)
    return _laplace_tail(_distance(y, loc, scale), _side(y, loc, side))


def laplace_lower(loc: Fraction, scale: Fraction, y: Point, side: Optional[int] = None) -> Ball:
    """P(Y < y) for Y ~ Lap(loc, scale), by symmetry from ``laplace_upper``; y = None is -inf."""
    if is_infinite(y):
        return _infinite_tail(y, upper=False)
    s = _side(y, loc, side)
    return _laplace_tail(-_distance(y, loc, scale), -s)


def _laplace_tail(t: Ball, side: int) -> Ball:
    """P(T > t) for a standard Laplace T, t on ``side`` of 0 (0: a real ball straddling 0,
    enclosed by the union of both forms, each valid on its half since the tail is monotone)."""
    near, far = 1 - t.exp() / 2, (-t).exp() / 2
    if side > 0:
        return far
    if side < 0:
        return near
    return near.union(far)


def _side(y: Point, loc: Fraction, side: Optional[int]) -> int:
    return side if side is not None else side_of(y, loc)


def laplace_mass(loc: Fraction, scale: Fraction, a: Point, b: Point,
                 side_a: Optional[int] = None, side_b: Optional[int] = None) -> Ball:
    """P(a < Y < b) for Y ~ Lap(loc, scale), from the tails on the interval's side of loc
    (``side_a`` / ``side_b`` as in ``laplace_upper``, needed for complex balls)."""
    return _mass_by_tails(lambda y, s: laplace_upper(loc, scale, y, s),
                          lambda y, s: laplace_lower(loc, scale, y, s), loc, a, b, side_a, side_b)


def _mass_by_tails(upper, lower, loc, a, b, side_a, side_b) -> Ball:
    """P(a < Y < b) from the tails ``upper(y, side)`` / ``lower(y, side)``: upper(a) -
    upper(b) when the interval lies above loc, lower(b) - lower(a) below, else
    1 - lower(a) - upper(b).  The side is read from ``side_*`` or the exact / real-midpoint
    position of the end (for Gaussians any choice is an identity; for Laplace the tails
    enclose a straddling real ball by themselves)."""
    if not is_infinite(a) and _position(a, loc, side_a) >= 0:
        return upper(a, side_a) - upper(b, side_b)
    if not is_infinite(b) and _position(b, loc, side_b) <= 0:
        return lower(b, side_b) - lower(a, side_a)
    return 1 - lower(a, side_a) - upper(b, side_b)


def _position(y: Point, loc: Fraction, side: Optional[int]) -> int:
    """Which side of loc y is on for choosing the tail form (a hint, not a proof, for balls
    without ``side``: +1, -1 or 0 when undecided)."""
    if side is not None:
        return side
    if isinstance(y, (arb, acb)):
        d = _real_mid(y) - to_arb(loc)
        return 1 if d > 0 else -1 if d < 0 else 0
    return side_of(y, loc)


# --- mixtures -------------------------------------------------------------------------------

class MixtureBalls:
    """A Gaussian / Laplace mixture with its parameters as balls at one precision
    (``balls(dist)``), for repeated evaluation (integrands)."""

    __slots__ = ("rows", "gaussian")

    def __init__(self, dist: Continuous) -> None:
        # (is_gaussian, weight, location, scale as balls, exact location) per component
        self.rows = tuple(
            (isinstance(c, Gaussian), to_arb(w),
             to_arb(c.mean if isinstance(c, Gaussian) else c.loc), to_arb(c.width),
             c.mean if isinstance(c, Gaussian) else c.loc)
            for w, c in dist.components)
        # all Gaussian: (weight / 2, mean, 1 / (sigma sqrt 2)) per component (``mass``)
        self.gaussian = tuple((w / 2, loc, 1 / (scale * _sqrt2()))
                              for _, w, loc, scale, _ in self.rows) \
            if all(g for g, *_ in self.rows) else None

    def _sides(self, ref) -> list:
        """Per component: the side of its Laplace location on which ``ref`` lies (None for
        Gaussians or without a reference)."""
        return [None if ref is None or g else side_of(ref, exact)
                for g, _, _, _, exact in self.rows]

    def pdf(self, y: Point, ref: Optional[Fraction] = None) -> Ball:
        """Density at y; ``ref`` as in ``pdf``."""
        total = arb(0)
        for (g, w, loc, scale, _), side in zip(self.rows, self._sides(ref)):
            total += w * (gaussian_pdf(loc, scale, y) if g else laplace_pdf(loc, scale, y, side))
        return total

    def mass(self, a: Point, b: Point, ref_a: Optional[Fraction] = None,
             ref_b: Optional[Fraction] = None) -> Ball:
        """P(a < Y < b); ``ref_a`` / ``ref_b`` as in ``mass``."""
        if self.gaussian is not None:
            return self._gaussian_mass(a, b)
        total = arb(0)
        for (g, w, loc, scale, _), sa, sb in zip(self.rows, self._sides(ref_a), self._sides(ref_b)):
            total += w * (gaussian_mass(loc, scale, a, b) if g
                          else laplace_mass(loc, scale, a, b, sa, sb))
        return total


    def _gaussian_mass(self, a: Point, b: Point) -> Ball:
        total = arb(0)
        for (half, _, _), m in zip(self.gaussian, twice_gaussian_masses(
                [(loc, inverse) for _, loc, inverse in self.gaussian], a, b)):
            total += half * m
        return total


def twice_gaussian_masses(rows, a: Point, b: Point) -> List[Ball]:
    """2 P(a < Y < b) for each Y ~ N(mu, sigma^2) of ``rows`` = [(mu, 1 / (sigma sqrt 2))]
    as balls (a = None: -inf, b = None: +inf), the tail forms of ``gaussian_mass`` with
    the tails' arguments z = (y - mu) / (sigma sqrt 2) made once per end and row, without
    the per-call conversions, which cost more than the erfc (certified compositions ask
    about 20 000 masses a query)."""
    ends = [None if is_infinite(y) else to_arb(y) for y in (a, b)]
    out = []
    for loc, inverse in rows:
        za, zb = (None if y is None else (y - loc) * inverse for y in ends)
        if za is not None and _real_mid(za) >= 0:
            out.append(za.erfc() - zb.erfc() if zb is not None else za.erfc())
        elif zb is not None and _real_mid(zb) <= 0:
            out.append((-zb).erfc() - (-za).erfc() if za is not None else (-zb).erfc())
        else:
            out.append(2 - (0 if za is None else (-za).erfc())
                       - (0 if zb is None else zb.erfc()))
    return out


@lru_cache(maxsize=512)
def _balls(dist: Continuous, prec: int) -> MixtureBalls:
    return MixtureBalls(dist)


def balls(dist: Continuous) -> MixtureBalls:
    """The ``MixtureBalls`` of ``dist`` at the current Arb precision (cached)."""
    return _balls(dist, flint.ctx.prec)


def pdf(dist: Continuous, y: Point, ref: Optional[Fraction] = None) -> Ball:
    """Density of a Gaussian / Laplace mixture at y.  ``ref``: an exact point on the same
    side of every Laplace location as y (required when y is a complex ball)."""
    return balls(dist).pdf(y, ref)


def mass(dist: Continuous, a: Point, b: Point, ref_a: Optional[Fraction] = None,
         ref_b: Optional[Fraction] = None) -> Ball:
    """P(a < Y < b) for a Gaussian / Laplace mixture, each component from its own tails.
    ``ref_a`` / ``ref_b``: exact points on the same side of every Laplace location as a / b
    (required for complex balls next to Laplace components)."""
    return balls(dist).mass(a, b, ref_a, ref_b)
