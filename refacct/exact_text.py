"""Exact rationals as text, of any size.

Python refuses to convert an int of more than ``sys.get_int_max_str_digits()`` decimal
digits (4300 by default) to or from a string, and the exact results of many compositions
pass that easily: delta(1) of randomized response 3/4 composed 10^4 times is a rational of
about 6000 digits over 6000, the (0, delta_1) pair with delta_1 = 1e-7 composed 10^4 times
one of 70000 over 70000.  refacct never changes that global limit; it converts through
python-flint's ``fmpz`` instead (any size, and fast: 20000 digits in under a millisecond).

What is shown, everywhere refacct writes a result (``str`` / ``repr`` of results, the
command line's table and ``--json``, validation reports and case files, reproduce):

* the decimal value and its bound, always;
* the exact rational in full when numerator and denominator have at most
  ``MAX_SHOWN_DIGITS`` digits each;
* otherwise its size ("a 6021-digit numerator over a 6021-digit denominator"); the full
  rational is written on request (``refacct delta ... --exact-file PATH``; in Python,
  ``fraction_text(result.exact)``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from flint import fmpz

__all__ = ["MAX_SHOWN_DIGITS", "int_text", "fraction_text", "fraction_from_text", "shown",
           "size_text"]

MAX_SHOWN_DIGITS = 1000


def int_text(n: int) -> str:
    """The decimal digits of the int ``n``, whatever its size."""
    return str(fmpz(n))


def fraction_text(x: Fraction) -> str:
    """``"n/d"`` (``"n"`` for an integer) of the rational ``x`` in full, whatever its size."""
    x = Fraction(x)
    if x.denominator == 1:
        return int_text(x.numerator)
    return f"{int_text(x.numerator)}/{int_text(x.denominator)}"


def fraction_from_text(text: str) -> Fraction:
    """The rational written by ``fraction_text`` (``"n/d"`` or ``"n"``), whatever its size."""
    numerator, _, denominator = text.strip().partition("/")
    try:
        return Fraction(int(fmpz(numerator.strip())),
                        int(fmpz(denominator.strip())) if denominator else 1)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"not a rational 'n/d': {text[:40]!r}") from None


def _digits(n: int) -> int:
    """The number of decimal digits of abs(n), from its bit length and a comparison with
    a power of 10 (writing out 8 million digits takes 0.7 s)."""
    n = abs(n)
    if n < 10 ** 18:
        return len(str(n))
    # (b - 1) * 30102999566 // 10^11 <= (b - 1) log10 2 <= log10 n: integers only, and
    # below floor(log10 n) by at most a few units, which the loop adds
    d = (n.bit_length() - 1) * 30102999566 // 10 ** 11
    top = fmpz(n)
    while fmpz(10) ** (d + 1) <= top:
        d += 1
    return d + 1


def shown(x: Fraction) -> Optional[str]:
    """``fraction_text(x)`` when numerator and denominator have at most
    ``MAX_SHOWN_DIGITS`` digits each, else None (show ``size_text(x)`` instead)."""
    x = Fraction(x)
    limit = MAX_SHOWN_DIGITS
    if abs(x.numerator).bit_length() > 3.33 * limit or x.denominator.bit_length() > 3.33 * limit:
        return None  # more than 1002 digits: no need to convert
    text = fraction_text(x)
    numerator, _, denominator = text.lstrip("-").partition("/")
    return text if len(numerator) <= limit and len(denominator) <= limit else None


def size_text(x: Fraction) -> str:
    """The size of an exact rational in words: "a 6021-digit numerator over a 6021-digit
    denominator"."""
    x = Fraction(x)
    return (f"a {_digits(x.numerator)}-digit numerator over a "
            f"{_digits(x.denominator)}-digit denominator")
