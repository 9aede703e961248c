"""002 Thm 4.2 and Conj. 4.4 at sigma = 0.3, T = 2 (and T = 3 with ``--steps 3``), Poisson
rate q = 1/T: delta_P < delta_D at small eps and delta_P > delta_D at large eps, with a
single switch point located with its error bound; and Thm 4.1's consequence for the shuffle
pair, H(P_S || Q_S) <= delta_D, on a grid of eps.

Curves (002 Sec. 2-3, zero-out = add-remove analysis for Poisson):
delta_D = H(N(1, s^2) || N(0, s^2)) (symmetric pair, 002 Prop. 3.1);
delta_P = max(add, remove) of refacct.mechanisms.poisson_subsampled(gaussian(s), 1/T), T steps;
H(P_S || Q_S), H(Q_S || P_S): refacct.shuffle.shuffle_exact (002 eqs. (1)-(2)).

Method: every comparison is decided by verified values (the gap exceeds the sum of the two
error bounds).  The switch point is bracketed by bisection on verified signs
(switch_point) between delta_D and the remove term, which is shown to be the larger Poisson
term at both bracket ends.  "Single" is shown on the grid (one sign change), not proven
between grid points.  T = 3 costs minutes per Poisson value (nested quadrature of a
Gaussian mixture), so with ``--steps 3`` only the two sides are shown, at one eps each
(1 and 12), at 6 digits, with the shuffle pair at the same eps, and no bracket is computed;
it took 14 CPU minutes (23 minutes on a loaded 2-core machine) and is not run by the test
suite.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from functools import partial

from _common import claim, done, separated, shown
import refacct
from refacct.derived import switch_point
from refacct.mechanisms import (Dominated, deterministic_batching, gaussian,
                                poisson_subsampled)
from refacct.shuffle import shuffle_exact
from refacct.result import format_mpf

SIGMA = "0.3"
DIGITS = 10 if "--steps" not in sys.argv else 6
delta = partial(refacct.delta, method="quadrature")  # the entries' curves by the standard engines


def curves(T: int):
    poisson = poisson_subsampled(gaussian(SIGMA), Fraction(1, T), "add-remove", T)
    det = deterministic_batching(gaussian(SIGMA))
    return poisson, det


def side(poisson, det, eps: str, sign: int, T: int) -> bool:
    """delta_P(eps) < delta_D(eps) (sign -1) or > (sign +1), decided by the bounds."""
    p, d = (delta(m, eps, digits=DIGITS) for m in (poisson, det))
    terms = dict(p.terms)
    if sign < 0:  # every Poisson term below delta_D
        ok = all(separated(t, d) == -1 for t in terms.values())
    else:
        ok = separated(p, d) == 1
    claim(ok, f"T = {T}, eps = {eps}: delta_P = {shown(p)} {'<' if sign < 0 else '>'} "
          f"delta_D = {shown(d)}", "verified values (gap > sum of the bounds)")
    return ok


def switch(poisson, det, lo: str, hi: str, T: int) -> None:
    both = Dominated("remove vs deterministic", (("remove", dict(poisson.terms)["remove"]),
                                                 ("D", det.terms[0][1])), "tight", det.provenance)
    a, b = switch_point(both, "D", "remove", lo, hi, width="1e-8", digits=DIGITS)
    ends = [dict(delta(poisson, x, digits=DIGITS).terms) for x in (a, b)]
    add_below = all(separated(r["add"], r["remove"]) == -1 for r in ends)
    claim(add_below, f"T = {T}: delta_D - delta_P changes sign in [{format_mpf(a, 10)}, "
          f"{format_mpf(b, 10)}] (eps_0 = eps_1 = {format_mpf((a + b) / 2, 8)} +- 1e-8)",
          "bisection on verified signs of delta_D - delta_remove (switch_point); the add term "
          "is below the remove term at both ends, so delta_P = delta_remove there")


def shuffle_below(T: int, grid) -> None:
    _, det = curves(T)
    ok = True
    for eps in grid:
        d = delta(det, eps, digits=DIGITS)
        for swap in (False, True):
            s = shuffle_exact(SIGMA, T, eps, digits=8, swap=swap)
            ok = ok and separated(s, d) == -1
    claim(ok, f"T = {T}: H(P_S || Q_S) and H(Q_S || P_S) < delta_D at eps = {', '.join(grid)} "
          "(consistent with Thm 4.1, delta_S <= delta_D)",
          "shuffle_exact (quadrature over the hyperplane, verified) against Balle-Wang")


def main(T: int) -> None:
    poisson, det = curves(T)
    if T == 2:
        small, large = ["0", "1", "2", "4", "6"], ["8", "10", "12", "15"]
        signs = [side(poisson, det, e, -1, T) for e in small]
        signs += [side(poisson, det, e, 1, T) for e in large]
        claim(all(signs), f"T = 2: exactly one sign change of delta_D - delta_P on the grid "
              f"{', '.join(small + large)}", "the claims above")
        switch(poisson, det, "6", "8", T)
        shuffle_below(T, ["0", "2", "6", "12"])
    else:
        side(poisson, det, "1", -1, T)
        side(poisson, det, "12", 1, T)
        shuffle_below(T, ["1", "12"])
    done()


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 2)
