"""Exact parameters and local precision.

Every parameter that enters refacct is turned into an exact :class:`fractions.Fraction`
(``int``, ``Fraction``, ``decimal.Decimal``, strings such as ``"3/4"`` or ``"1e-3"``,
and binary floats / ``mpf`` values taken at their exact binary value).  Nothing is ever
rounded to float64 on the way in.  Precision for mpmath is always set locally with
``mp.workdps``; this module never changes ``mp.dps`` globally.
"""
from __future__ import annotations

import decimal
import math
from fractions import Fraction
from numbers import Rational
from typing import Optional, Tuple, Union

import flint
import mpmath
from mpmath import mp
from .errors import InputError, InputTypeError

Exact = Union[int, Fraction, str, decimal.Decimal, float]

__all__ = ["Exact", "mpf_parts", "rational", "reduced", "positive", "probability", "to_mpf", "quotient_mpf", "sum_exactly", "count_vectors",
           "eps_parameter", "alpha_or_eps", "digits_parameter", "MAX_ABS_EPS", "MAX_DIGITS"]

MAX_ABS_EPS = 10 ** 6
MAX_DIGITS = 1000


def reduced(numerator: int, denominator: int) -> Fraction:
    """numerator / denominator (denominator > 0) as a Fraction, reduced with FLINT's gcd.

    Python's own gcd (``Fraction(n, d)``) is quadratic in the digits: 5 s for the
    800000-digit rationals of 10^5 composed steps, minutes at 10^6; GMP's is subquadratic
    (and so are its divisions, unlike Python's).
    The coprime pair goes into the Fraction without a second gcd
    (``Fraction._from_coprime_ints`` from Python 3.12, ``_normalize=False`` before)."""
    num, den = flint.fmpz(numerator), flint.fmpz(denominator)
    g = num.gcd(den)
    n, d = int(num // g), int(den // g)
    make = getattr(Fraction, "_from_coprime_ints", None)
    return make(n, d) if make is not None else Fraction(n, d, _normalize=False)


def rational(value: object, name: str) -> Fraction:
    """Return ``value`` as an exact ``Fraction``.

    Accepted: ``int``, ``Fraction`` (any ``numbers.Rational``), ``decimal.Decimal``,
    ``str`` (``"3/4"``, ``"-0.25"``, ``"1e-3"``), and ``float`` / ``mpmath.mpf``, which are
    converted at their exact binary value (``0.1`` becomes 3602879701896397/36028797018963968;
    pass ``"0.1"`` for one tenth).  ``bool``, NaN and infinities are rejected.

    >>> rational("3/4", "p")
    Fraction(3, 4)
    >>> rational("1e-3", "q")
    Fraction(1, 1000)
    """
    if isinstance(value, bool):
        raise InputTypeError(f"{name} must be a number, not a bool")
    if isinstance(value, Rational):
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InputError(
                f"{name} must be a finite rational number such as '3/4' or '1e-3', got {value!r}"
            ) from None
    if isinstance(value, (float, decimal.Decimal)):
        if not math.isfinite(value) if isinstance(value, float) else not value.is_finite():
            raise InputError(f"{name} must be finite, got {value!r}")
        return Fraction(value)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise InputError(f"{name} must be finite, got {value!r}")
        man, exp = mpf_parts(value)
        return Fraction(man) * Fraction(2) ** exp
    raise InputTypeError(
        f"{name} must be an int, Fraction, Decimal, float or numeric string, "
        f"got {type(value).__name__}"
    )


def mpf_parts(x: mpmath.mpf) -> Tuple[int, int]:
    """(man, exp) with x = man 2^exp exactly, the sign in man.  (mpmath's ``mpf.man_exp``
    drops the sign: it is ``_mpf_[1:3]``, so mpf(-40).man_exp == (5, 3).)"""
    sign, man, exp, _ = x._mpf_
    return (-man if sign else man), exp


def eps_parameter(value: object, name: str = "eps") -> Fraction:
    """An eps given by the user: an exact rational with abs(eps) <= MAX_ABS_EPS = 10^6
    (alpha = e^eps up to e^(10^6); beyond it delta is 0 or 1 - alpha to every digit anyone
    prints, and the engines' tail arithmetic would not end in reasonable time)."""
    e = rational(value, name)
    if abs(e) > MAX_ABS_EPS:
        raise InputError(f"{name} must lie in [-{MAX_ABS_EPS}, {MAX_ABS_EPS}], got {value}")
    return e


def alpha_or_eps(alpha: object, eps: object) -> Tuple[Optional[Fraction], Optional[Fraction]]:
    """(alpha, None) or (None, eps) parsed exactly: exactly one of alpha (a rational >= 0)
    and eps (``eps_parameter``) must be given."""
    if (alpha is None) == (eps is None):
        raise InputTypeError("give exactly one of alpha and eps")
    if alpha is None:
        return None, eps_parameter(eps)
    a = rational(alpha, "alpha")
    if a < 0:
        raise InputError(f"alpha must be >= 0, got {a}")
    return a, None


def digits_parameter(digits: object) -> int:
    """A number of significant digits asked for: an int in [1, MAX_DIGITS]."""
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise InputTypeError(f"digits must be an int, got {digits!r}")
    if not 1 <= digits <= MAX_DIGITS:
        raise InputError(f"digits must lie in [1, {MAX_DIGITS}], got {digits}")
    return digits


def count(value: object, name: str) -> int:
    """A count (steps, compositions, processes): an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputTypeError(f"{name} must be an int >= 1, got {value!r}")
    if value < 1:
        raise InputError(f"{name} must be >= 1, got {value}")
    return value


def many(values: object) -> bool:
    """Is ``values`` a list of queries (a list or tuple; one query is a number or a
    string)?"""
    return isinstance(values, (list, tuple))


def positive(value: object, name: str) -> Fraction:
    """``rational(value)``, required to be > 0."""
    result = rational(value, name)
    if result <= 0:
        raise InputError(f"{name} must be > 0, got {result}")
    return result


def probability(value: object, name: str) -> Fraction:
    """``rational(value)``, required to lie in [0, 1]."""
    result = rational(value, name)
    if not 0 <= result <= 1:
        raise InputError(f"{name} must lie in [0, 1], got {result}")
    return result


def to_mpf(value: Fraction) -> mpmath.mpf:
    """``value`` as an mpf correctly rounded at the current working precision."""
    return quotient_mpf(value.numerator, value.denominator)


def quotient_mpf(num: int, den: int) -> mpmath.mpf:
    """num / den (ints, den > 0) correctly rounded at the current working precision.

    Operands wider than the precision are not handed to mpmath, which would round num
    first (a second rounding) and whose conversion of an int costs seconds at 10^6 bits:
    the quotient's top prec + 3 bits q come from one integer division, and a sticky bit
    (remainder != 0) below them makes the rounding of 2q + sticky that of the exact
    quotient (round to nearest needs the first dropped bit and whether any bit below it
    is set)."""
    if max(abs(num).bit_length(), den.bit_length()) <= mp.prec:
        return mp.mpf(num) / den
    shift = mp.prec + 3 - (abs(num).bit_length() - den.bit_length())
    q, r = divmod(abs(num) << shift, den) if shift >= 0 else divmod(abs(num), den << -shift)
    value = mp.mpf(((q << 1) | (r != 0), -shift - 1))
    return -value if num < 0 else value


def sum_exactly(values) -> Fraction:
    """Exact sum of rationals (``sum`` with a ``Fraction`` start)."""
    return sum(values, Fraction(0))


def count_vectors(k: int, parts: int):
    """All tuples of ``parts`` non-negative ints summing to k (multinomial index set)."""
    if parts == 1:
        yield (k,)
        return
    for first in range(k, -1, -1):
        for rest in count_vectors(k - first, parts - 1):
            yield (first,) + rest
