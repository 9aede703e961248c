"""Result types: every number refacct returns carries an absolute error bound and the
method that produced it.

``DeltaResult``    H_alpha(P || Q) (delta(eps) when alpha = e^eps);
``EpsilonResult``  the smallest eps >= 0 with delta(eps) <= delta.

``abs_error`` is a bound on abs(value - truth) obtained from a second, independent evaluation
(or 0 for exact rationals); ``verified_digits`` is the number of significant digits that
bound guarantees.  ``lower`` and ``upper`` are the ends of the enclosure: value -+ abs_error,
or, for a ``proven`` result (ball arithmetic, ``refacct.brackets``, ``refacct.certified``),
the exact binary ends of the enclosure, with ``value`` its midpoint.

Exact rationals of any size print (``str``, ``repr``) without Python's int-to-string limit:
in full up to ``exact_text.MAX_SHOWN_DIGITS`` digits, else as the decimal value and the
rational's size (``refacct.exact_text``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal
from fractions import Fraction
from typing import Optional, Tuple

import flint
import mpmath
from flint import arb, fmpz
from mpmath import mp

from .exact import mpf_parts, to_mpf
from .exact_text import shown, size_text

__all__ = ["DeltaResult", "EpsilonResult", "TradeoffResult", "CalibrationResult", "time_limited", "verified_digits", "format_mpf",
           "format_bound", "printed", "exact_rational", "round_decimal", "directed_text",
           "midpoint_radius"]


def verified_digits(value, abs_error) -> Optional[int]:
    """Significant digits guaranteed by ``abs_error``: floor(-log10(abs_error / abs(value))).

    ``None`` means unlimited (an exact value); 0 when the bound exceeds the value."""
    if abs_error == 0:
        return None
    if value == 0 or mpmath.isinf(value):
        return 0
    with mp.workdps(20):
        return max(0, int(mp.floor(-mp.log10(mp.mpf(abs_error) / abs(value)))))


def format_mpf(value, digits: int) -> str:
    """Decimal string of ``value`` with ``digits`` significant digits ('inf' for +inf)."""
    if isinstance(value, Fraction):
        with mp.workdps(digits + 10):
            value = to_mpf(value)
    if mpmath.isinf(value):
        return "inf" if value > 0 else "-inf"
    with mp.workdps(digits + 10):
        return mp.nstr(value, digits, min_fixed=-4, max_fixed=8)


def exact_rational(x) -> Fraction:
    """A finite mpf / Fraction / int / float as the exact rational it denotes (an mpf at
    its own precision, never rounded to the current one)."""
    if isinstance(x, (Fraction, int, float)):
        return Fraction(x)
    man, exp = mpf_parts(x)
    return Fraction(man) * Fraction(2) ** exp


def format_bound(err, sig: int = 3) -> str:
    """An error bound as a decimal string with ``sig`` significant digits, rounded *up*
    (a bound printed rounded to nearest could understate itself)."""
    if err == 0:
        return "0"
    if not isinstance(err, (Fraction, int)) and mpmath.isinf(err):
        return "inf"
    m, exp = _directed(err, sig, up=True)
    if m == 10 ** sig:
        m, exp = m // 10, exp + 1
    digits = str(m)
    return digits[0] + ("." + digits[1:] if sig > 1 else "") + f"e{exp + sig - 1}"


# Binary exponents beyond which rounding goes through Arb balls instead of exact rationals:
# 2^-(2^16) as a Fraction has a 20000-digit denominator, and a delta of 1e-(10^60) (a
# Gaussian tail at 10^30 standard deviations) could never be written as one.
EXACT_EXPONENT_BITS = 2 ** 16


def _directed(x, sig: int, up: bool) -> Tuple[int, int]:
    """(m, e) with m 10^e equal to x != 0 rounded to ``sig`` significant digits towards
    +inf (``up``) or -inf: 10^(sig-1) <= abs(m) <= 10^sig.  Exact rational arithmetic for
    rationals and moderate mpf; for an mpf of binary exponent beyond
    ``EXACT_EXPONENT_BITS``, Arb balls at a precision covering the exponent, raised until the
    rounding is decided (the ends of the balls are rigorous)."""
    if not isinstance(x, (Fraction, int, float)):
        man, exp = mpf_parts(x)
        if abs(exp) > EXACT_EXPONENT_BITS:
            return _directed_ball(man, exp, sig, up)
    x = exact_rational(x)
    lead = _decade(abs(x))
    unit = Fraction(10) ** (lead - sig + 1)
    return (math.ceil(x / unit) if up else math.floor(x / unit)), lead - sig + 1


def _directed_ball(man: int, exp: int, sig: int, up: bool) -> Tuple[int, int]:
    """``_directed`` of man 2^exp in Arb: the decade from a ball of log10 abs(x), then
    x / 10^(lead - sig + 1) as a ball whose floor (or ceiling) is one integer."""
    x = arb((fmpz(man), fmpz(exp)))
    prec = 2 * abs(exp).bit_length() + 4 * sig + 64
    while True:
        with flint.ctx.workprec(prec):
            lead = _unique_floor(abs(x).log() / arb(10).log())
            if lead is not None:
                unit = lead - sig + 1
                scaled = x / arb(10) ** unit
                end = _unique_floor(scaled) if not up else _unique_ceil(scaled)
                if end is not None and 10 ** (sig - 1) <= abs(end) <= 10 ** sig:
                    return end, unit
        prec *= 2


def _unique_floor(ball) -> Optional[int]:
    """floor of every point of the ball when that is one integer, else None."""
    lo, hi = ball.lower().floor(), ball.upper().floor()
    return int(lo.unique_fmpz()) if lo == hi else None


def _unique_ceil(ball) -> Optional[int]:
    lo, hi = ball.lower().ceil(), ball.upper().ceil()
    return int(lo.unique_fmpz()) if lo == hi else None


def _decade(f: Fraction) -> int:
    """floor(log10 f) for a rational f > 0, started from the bit lengths (no str() of the
    ints, which may pass Python's int-to-string limit) and corrected exactly."""
    exp = int((f.numerator.bit_length() - f.denominator.bit_length()) * 0.30103)
    while Fraction(10) ** exp > f:
        exp -= 1
    while Fraction(10) ** (exp + 1) <= f:
        exp += 1
    return exp


def round_decimal(x: Fraction, sig: int = 3, up: bool = True) -> Decimal:
    """x rounded to ``sig`` significant digits towards +inf (``up``) or -inf, as an exact
    ``Decimal``; exact rational arithmetic throughout (0 stays 0)."""
    if x == 0:
        return Decimal(0)
    m, unit = _directed(x, sig, up)
    return Decimal(m).scaleb(unit)


def directed_text(x, sig: int, up: bool, trim: bool = False) -> str:
    """x (a rational, float or mpf) rounded outward (``up``: towards +inf, else -inf) to
    ``sig`` significant digits, written as ``format_mpf`` writes numbers (fixed point from
    1e-4 to 1e8, else scientific), without trailing zeros when ``trim``; "inf" / "-inf"
    for infinities."""
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    m, unit = _directed(x, sig, up)
    lead = unit + len(str(abs(m))) - 1
    if -4 <= lead < 8:
        d = Decimal(m).scaleb(unit)
        return format(d.normalize() if trim else d, "f")
    digits = str(abs(m)).rstrip("0") if trim else str(abs(m))
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if m < 0 else "") + f"{mantissa}e{lead:+d}"


def printed(value, abs_error, digits: int) -> Tuple[str, str]:
    """(value, bound) as refacct prints them: ``value`` (an mpf, or the exact rational) to
    ``digits`` significant digits, and a bound on the distance from that *printed decimal*
    to the truth, abs_error + abs(printed - value) (the rounding of the printed digits counts),
    rounded up to 3 digits.  The printed value +- the printed bound contains the truth.
    The distance is exact for values of moderate size; beyond ``EXACT_EXPONENT_BITS`` (an
    exponent like 1e-(10^59), a rational of a million digits) it is the upper end of an
    Arb ball."""
    text = format_mpf(value, digits)
    if not isinstance(value, Fraction) and mpmath.isinf(value):
        return text, format_bound(abs_error)
    if not isinstance(abs_error, (Fraction, int)) and mpmath.isinf(abs_error):
        return text, "inf"
    if _moderate(value) and _moderate(abs_error):
        rounding = abs(Fraction(text) - exact_rational(value))
        return text, format_bound(exact_rational(abs_error) + rounding)
    with flint.ctx.workprec(4 * digits + 64):
        distance = abs(arb(text) - _ball(value)) + _ball(abs_error)
        top_man, top_exp = distance.upper().man_exp()
    return text, format_bound(_mpf_of(int(top_man), int(top_exp)))


def _moderate(x) -> bool:
    """Is x (an int, Fraction or finite mpf) small enough for exact rational arithmetic?"""
    if isinstance(x, int):
        return x.bit_length() <= EXACT_EXPONENT_BITS
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length()) <= EXACT_EXPONENT_BITS
    return abs(mpf_parts(x)[1]) <= EXACT_EXPONENT_BITS


def _ball(x) -> "arb":
    """An Arb ball containing x (int, float, Fraction or finite mpf) at the working Arb
    precision; a Fraction as a quotient of two exact balls (no gcd)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        x = Fraction(x)
    if isinstance(x, Fraction):
        return arb(fmpz(x.numerator)) / arb(fmpz(x.denominator))
    man, exp = mpf_parts(x)  # the mpf's own bits, never rounded to mp.prec
    return arb((fmpz(man), fmpz(exp)))


def _mpf_of(man: int, exp: int) -> mpmath.mpf:
    """man 2^exp as an exact mpf."""
    with mp.workprec(max(53, man.bit_length())):
        return mp.ldexp(mp.mpf(man), exp)


def midpoint_radius(lower, upper) -> Tuple[mpmath.mpf, mpmath.mpf]:
    """(value, abs_error) = (midpoint, half-width rounded up) of the enclosure [lower,
    upper] (+inf, +inf for an infinite upper end); the midpoint is rounded, so the
    half-width is the larger distance to either end, and value +- abs_error holds both."""
    with mp.workprec(max(mp.prec, 256)):
        if mpmath.isinf(upper):
            return upper, mp.inf
        mid = (lower + upper) / 2
        return mid, max(mp.fsub(upper, mid, rounding="c"), mp.fsub(mid, lower, rounding="c"))


def _outward(value, shift) -> mpmath.mpf:
    """value + shift rounded away from value (exact for mpf inputs at any precision)."""
    if mpmath.isinf(value) or not shift:
        return value
    spread = 0 if not value else int(mpmath.log(abs(value) / abs(shift), 2))
    with mp.workprec(max(mp.prec, spread) + 64):
        return mp.fadd(value, shift, rounding="f" if shift < 0 else "c")


def _field_repr(x) -> str:
    """repr of a result's field; an exact rational too large to show as its size."""
    if isinstance(x, Fraction):
        text = shown(x)
        return f"Fraction('{text}')" if text is not None else f"<exact rational: {size_text(x)}>"
    if isinstance(x, tuple):
        return "(" + ", ".join(_field_repr(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    return repr(x)


@dataclass(frozen=True, repr=False)
class _Bounded:
    """A value with an absolute error bound, the method that produced it, and the digits
    requested.  The fields every result has are declared here once (keyword-only):

    * ``enclosure``: the exact ends (lower, upper) of a proven ball or bracket; None:
      value -+ abs_error;
    * ``proven``: the enclosure is a proof (ball arithmetic), not two evaluations;
    * ``time_limited``: the best bound reached when the time limit ran out;
    * ``bound``: what the enclosure is about: ``"tight"`` (the truth), ``"lower"`` or
      ``"upper"`` (only that end bounds the truth: a lower bound such as 002's, an upper
      bound such as a dominating pair's);
    * ``engine``: the engine that computed it (``refacct.engine``: "exact",
      "quadrature", "certified", "proven-bracket", "transform", "binomial",
      "random-allocation", "shuffle-bound", "shuffle-exact").
    """

    value: mpmath.mpf
    abs_error: mpmath.mpf
    method: str
    digits: int
    enclosure: Optional[Tuple[mpmath.mpf, mpmath.mpf]] = field(default=None, kw_only=True)
    proven: bool = field(default=False, kw_only=True)
    time_limited: bool = field(default=False, kw_only=True)
    bound: str = field(default="tight", kw_only=True)
    engine: str = field(default="", kw_only=True)

    @property
    def verified_digits(self) -> Optional[int]:
        return verified_digits(self.value, self.abs_error)

    @property
    def lower(self) -> mpmath.mpf:
        """Lower end of the enclosure of the truth."""
        ends = self.enclosure
        return ends[0] if ends else _outward(self.value, -self.abs_error)

    @property
    def upper(self) -> mpmath.mpf:
        """Upper end of the enclosure of the truth."""
        ends = self.enclosure
        return ends[1] if ends else _outward(self.value, self.abs_error)

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        if mpmath.isinf(self.value):
            return "inf"
        text, bound = printed(self.value, self.abs_error, self.digits)
        return f"{text} (± {bound})"

    def __repr__(self) -> str:
        shown_fields = ", ".join(f"{f.name}={_field_repr(getattr(self, f.name))}"
                                 for f in fields(self) if f.repr)
        return f"{type(self).__name__}({shown_fields})"


@dataclass(frozen=True, repr=False)
class DeltaResult(_Bounded):
    """H_alpha(P || Q) with its error bound.

    ``alpha`` is the exact rational alpha when given, ``eps`` the exact rational eps when
    alpha = e^eps.  ``exact`` is the exact rational value when there is one (discrete pairs,
    rational alpha); ``exact_form`` = (A, B) means value = A - alpha * B exactly.
    """

    alpha: Optional[Fraction] = None
    eps: Optional[Fraction] = None
    exact: Optional[Fraction] = None
    exact_form: Optional[Tuple[Fraction, Fraction]] = None

    def __str__(self) -> str:
        """The exact rational when there is one and it is small enough to show, else the
        decimal value and its bound (with the exact rational's size)."""
        if self.exact is None:
            return super().__str__()
        text = shown(self.exact)
        if text is not None:
            return text
        text, bound = printed(self.exact, 0, self.digits)
        return f"{text} (± {bound}; exact: {size_text(self.exact)})"


@dataclass(frozen=True, repr=False)
class EpsilonResult(_Bounded):
    """The smallest eps >= 0 with delta(eps) <= delta_target, with its error bound.

    ``value`` is +inf when delta_target is below lim_{eps -> inf} delta(eps) (the
    P-mass where q = 0).  ``exact_form`` = (A, B) means eps = ln((A - delta_target) / B).
    """

    delta_target: Fraction = Fraction(0)
    exact_form: Optional[Tuple[Fraction, Fraction]] = None


@dataclass(frozen=True, repr=False)
class TradeoffResult(_Bounded):
    """The trade-off curve T(P, Q) at ``alpha`` (``refacct.tradeoff``) with its enclosure
    (``bound`` ``"lower"``: the profile was an upper bound on delta)."""

    alpha: Fraction = Fraction(0)


@dataclass(frozen=True, repr=False)
class CalibrationResult(_Bounded):
    """The smallest noise scale s meeting a target (``refacct.calibrate``): delta_s(eps) <=
    ``delta_target``, or with ``alpha`` and ``beta_target`` set, an error rate beta_s(alpha)
    >= ``beta_target``; with its enclosure; ``bound`` as for ``TradeoffResult`` (``"upper"``:
    only the upper end bounds the truth, the profile being an upper bound)."""

    eps: Fraction = Fraction(0)
    delta_target: Fraction = Fraction(0)
    alpha: Optional[Fraction] = None
    beta_target: Optional[Fraction] = None


TIME_LIMITED = ("; time limit reached: the best bound reached, short of the digits asked "
                "(its bound still holds)")


def time_limited(result: _Bounded) -> _Bounded:
    """``result`` marked as the best bound reached when the time limit ran out."""
    if result.time_limited:
        return result
    return replace(result, time_limited=True, method=result.method + TIME_LIMITED)
