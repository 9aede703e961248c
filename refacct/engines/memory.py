"""The memory of a large product of Arb matrices, checked before it is allocated.

FLINT aborts the whole process when an allocation fails (no exception reaches Python), so a
plan whose matrices would not fit must be refused before they are made, as out of reach
(the door then takes the route's fallback).  An entry of a complex ball matrix takes two
real balls, each a struct and a mantissa of ceil(prec / 64) limbs: measured 191 bytes at
200 bits, and 223 for the Python ``acb`` that feeds it.  A product is refused when its
estimate exceeds ``SHARE`` of the memory the system reports available (``MemAvailable`` of
/proc/meminfo); where it reports none, nothing is refused.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ..errors import OutOfReach

__all__ = ["entry_bytes", "available_bytes", "check"]

SHARE = Fraction(1, 2)   # of the memory available when the product starts
PYTHON_BYTES = 32        # a Python acb's header beyond the matrix entry


def entry_bytes(prec: int) -> int:
    """Bytes of one complex ball at ``prec`` bits, a Python object's included."""
    return 2 * (64 + 8 * -(-prec // 64)) + PYTHON_BYTES


def available_bytes() -> Optional[int]:
    """The memory available now (Linux's estimate), or None where it is not reported."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check(entries: int, prec: int, what: str) -> None:
    """Refuse (``OutOfReach``) ``entries`` complex balls at ``prec`` bits that would take more
    than ``SHARE`` of the available memory; ``what`` names them in the message."""
    free = available_bytes()
    need = entries * entry_bytes(prec)
    if free is not None and need > SHARE * free:
        raise OutOfReach(f"{what} would take about {need / 2 ** 30:.1f} GiB of memory "
                         f"({entries} complex balls at {prec} bits), more than "
                         f"{float(SHARE):g} of the {free / 2 ** 30:.1f} GiB available")
