"""The decay bound's scan, shared by the losses whose one-step M is an integral (``mgf``,
``laplace``): an upper bound on sup_{s >= t} |M(c + is)| from point values of |M|, a
Lipschitz bound and a far bound.

At s_j the ball |M(c + is_j)| = m plus K h_j bounds |M| on [s_j, s_j + h_j] (K >= |dM/ds|);
the cells are (level - m) / K wide while m < level (aiming at ``level``), else (M(c) - m) /
(8 K), at least 1/64; the scan ends where the far bound F(s) >= sup_{s' >= s} |M(c + is')|
falls under the largest cell bound or the level, or when a cell bound reaches M(c), which
bounds |M| everywhere.  After ``MAX_CELLS`` cells the bound is the smallest of M(c), the far
bound at t, and the cells' largest bound with the far bound where they stop.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Optional

from ..arb import acb, arb, to_arb
from ... import progress

__all__ = ["scan", "steps_decay", "MAX_CELLS"]

MAX_CELLS = 1000   # about a second of one-step values


def scan(one_step: Callable[["acb"], "acb"], c: "arb", t: "arb", top: "arb", level: "arb",
         slope: "arb", far: Callable[["arb"], "arb"]) -> "arb":
    """An upper bound on sup_{s >= t} |M(c + is)| of one step (module docstring): ``top``
    >= M(c), ``slope`` >= |dM/ds|, ``far(s)`` decreasing in s (a level far below M(c),
    which few steps ask, would take the far bound V / s to s ~ V / level: the cells stop
    at ``MAX_CELLS``)."""
    worst, s = arb(0), t
    for _ in range(MAX_CELLS):
        progress.check()
        m = abs(one_step(acb(c, s))).upper()
        h = (level - m) / slope if m < level else (top - m) / (8 * slope)
        h = max(h, arb(1) / 64)
        worst = max(worst, (m + slope * h).upper())
        s = (s + h).lower()
        if far(s).upper() <= max(worst, level) or worst >= top:
            break
    return min(max(worst, far(s).upper()), far(t).upper(), top)


def steps_decay(loss, c: "arb", t: "arb", drop: Fraction,
                first: Optional[Callable[[], "arb"]] = None) -> "arb":
    """An upper bound on sup_{s >= t} |M(c + is)|^T for ``loss.steps`` = T equal steps,
    aiming at a level e^{drop / T} M(c) a step (drop < 0): ``first()`` (another bound on
    one step's sup) where the level lies below M(c) / 2 and it meets it (many steps aim
    nearer M(c) than such a bound reaches), else the scan with the loss's ``one_step``,
    ``lipschitz(c)`` and ``far(c)`` (a function of s); raised to the power T."""
    top = loss.one_step(acb(c)).real.upper()
    level = (top * to_arb(drop / loss.steps).exp()).upper() if drop < 0 else arb(0)
    known = first() if first is not None and level < top / 2 else None
    if known is not None and known <= level:
        return known ** loss.steps
    found = scan(loss.one_step, c, t, top, level, loss.lipschitz(c), loss.far(c))
    return (found if known is None else min(found, known)) ** loss.steps
