"""The decay bound's scan, shared by the losses whose one-step M is an integral (``mgf``,
``laplace``): an upper bound on sup_{s >= t} |M(c + is)| from point values of |M|, a
Lipschitz bound and a far bound.

At s_j the ball |M(c + is_j)| = m plus K h_j bounds |M| on [s_j, s_j + h_j] (K >= |dM/ds|);
the cells are (level - m) / K wide while m < level (aiming at ``level``), else (M(c) - m) /
(8 K), at least 1/64; the scan ends where the far bound F(s) >= sup_{s' >= s} |M(c + is')|
falls under the largest cell bound or the level, or when a cell bound reaches M(c), which
bounds |M| everywhere.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from ..arb import acb, arb, to_arb
from ... import progress

__all__ = ["scan", "steps_decay"]


def scan(one_step: Callable[["acb"], "acb"], c: "arb", t: "arb", top: "arb", level: "arb",
         slope: "arb", far: Callable[["arb"], "arb"]) -> "arb":
    """An upper bound on sup_{s >= t} |M(c + is)| of one step (module docstring): ``top``
    >= M(c), ``slope`` >= |dM/ds|, ``far(s)`` decreasing in s."""
    worst, s = arb(0), t
    while True:
        progress.check()
        m = abs(one_step(acb(c, s))).upper()
        h = (level - m) / slope if m < level else (top - m) / (8 * slope)
        h = max(h, arb(1) / 64)
        worst = max(worst, (m + slope * h).upper())
        s = (s + h).lower()
        if far(s).upper() <= max(worst, level) or worst >= top:
            break
    return min(max(worst, far(s).upper()), top)


def steps_decay(loss, c: "arb", t: "arb", drop: Fraction) -> "arb":
    """An upper bound on sup_{s >= t} |M(c + is)|^T for ``loss.steps`` = T equal steps:
    the scan with the loss's ``one_step``, ``lipschitz(c)`` and ``far(c)`` (a function of
    s), aiming at a level e^{drop / T} M(c) a step (drop < 0), raised to the power T."""
    top = loss.one_step(acb(c)).real.upper()
    level = (top * to_arb(drop / loss.steps).exp()).upper() if drop < 0 else arb(0)
    return scan(loss.one_step, c, t, top, level, loss.lipschitz(c), loss.far(c)) ** loss.steps
