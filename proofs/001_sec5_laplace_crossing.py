"""001 Sec. 5 (Fig. 1, Prop. 11 for the Laplace mechanism): for k = 2 compositions the add
and remove privacy curves of the Poisson-subsampled Laplace mechanism cross at some
eps >= 0, while for k = 1 the remove curve dominates.

Mechanism: sum query + Lap(0, 1), Poisson rate q = 9/10 (Fig. 1's parameters are not stated;
the PLD atom -ln(0.1 + 0.9/e) that 001 mentions fixes scale 1 and q = 9/10).  Dominating
pairs (001 Thm 10.1 / Prop. 9.1): add = (Lap(0, 1), A), remove = (A, Lap(0, 1)),
A = 1/10 Lap(0, 1) + 9/10 Lap(1, 1); each composed twice on its own.

Method: refacct.derived.switch_point bisects on verified values (a sign counts only when
|delta_add - delta_remove| exceeds the sum of the two error bounds) down to a bracket
[a, b] of width 1e-12; both curves are then re-evaluated at a and at b and printed with
their bounds: add > remove at a, add < remove at b, each decided by the bounds.
"""
from __future__ import annotations

from _common import claim, done, separated, shown
from refacct import delta
from refacct.mechanisms import laplace, poisson_subsampled
from refacct.derived import switch_point
from refacct.result import format_mpf


def both(mech, eps, digits: int = 15):
    r = dict(delta(mech, eps, digits=digits).terms)
    return r["add"], r["remove"]


def main() -> None:
    two = poisson_subsampled(laplace(1), "9/10", "add-remove", 2)
    one = poisson_subsampled(laplace(1), "9/10", "add-remove", 1)
    a, b = switch_point(two, "add", "remove", "0.6", "0.8", width="1e-12", digits=15)
    for eps, sign, side in ((a, 1, "below"), (b, -1, "above")):
        add, remove = both(two, eps)
        claim(separated(add, remove) == sign,
              f"k = 2, eps = {format_mpf(eps, 15)} ({side} the crossing): delta_add = "
              f"{shown(add, 15)} {'>' if sign > 0 else '<'} delta_remove = {shown(remove, 15)}",
              "verified values: the difference exceeds the sum of the error bounds")
    claim(b - a <= 1e-12, f"k = 2: the crossing lies in [{format_mpf(a, 15)}, "
          f"{format_mpf(b, 15)}], i.e. eps* = 0.6975071127 to 10 digits",
          "bisection on verified signs (refacct.derived.switch_point), exact "
          "rational bracket of width <= 1e-12")
    for eps in ("0.25", "0.5", "0.75"):
        add, remove = both(one, eps)
        claim(separated(add, remove) == -1,
              f"k = 1, eps = {eps}: delta_remove = {shown(remove)} > delta_add = {shown(add)}",
              "verified values (001 Sec. 5: without composition remove dominates add)")
    done()


if __name__ == "__main__":
    main()
