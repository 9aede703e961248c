"""Power sums on a grid (``refacct.engines.transform.contour``): sum_k g_k e^{n a_k} for
every n of a range, by one product of Arb matrices.  Oracle: each sum made directly, one
exponential e^{n a_k} per term, whose ball is as narrow as the precision allows."""
from __future__ import annotations

from fractions import Fraction as F

from refacct.engines.arb import acb, arb, flint, to_arb
from refacct.engines.transform.contour import power_sums


def test_power_sums_far_along_a_range_keep_the_precision():
    """Rates that turn (Re u_k) and barely decay (Im u_k ~ 1e-4), as the nodes of a line
    far out in t: at n = 40 000 each sum contains the direct one and its radius is within
    100 times the direct one's (products of rectangular complex balls, unanchored, grew it
    by a factor of up to sqrt 2 each: 10^15 after 347 of them)."""
    with flint.ctx.workprec(147):
        h = to_arb(F(27, 100))
        phases = [acb(to_arb(F(-513 + 37 * k, 10 ** 4)), to_arb(F(1 + k, 10 ** 4)))
                  for k in range(6)]
        weights = [acb(to_arb(F(1, 3 + k)), to_arb(F(k, 7))) for k in range(6)]
        rates = [acb(0, h) * u for u in phases]
        first, stop = 39_990, 40_001
        sums = power_sums(weights, rates, 0, stop)
        for n in range(first, stop):
            direct = acb(0)
            for g, a in zip(weights, rates):
                direct += g * (n * a).exp()
            assert sums[n].overlaps(direct)
            assert sums[n].rad() <= 100 * direct.rad() + arb(2) ** -140 * abs(direct)


def _direct(weights, rates, n):
    total = acb(0)
    for g, a in zip(weights, rates):
        total += g * (n * a).exp()
    return total


def test_power_sums_with_a_floor_contain_the_direct_sums():
    """Rates whose real parts differ by five orders (a line off the real axis: most nodes
    fall below the floor within a few hundred n, one lasts the range).  With a coarse floor
    (10^-6, far above the rounding) the terms left out are large where they leave, so a
    sum that did not widen by them would miss the direct one (every n is checked); with a
    fine floor (2^-120) the sums keep the precision: radius within 100 times the direct
    one's plus the nodes times the floor."""
    with flint.ctx.workprec(147):
        rates = [acb(-to_arb(F(2, 10 ** j)), to_arb(F(17 * k + 3, 100)))
                 for k, j in enumerate([1, 1, 2, 2, 3, 4, 5, 6])]
        weights = [acb(to_arb(F(1, 2 + k)), to_arb(F(-k, 9))) for k in range(len(rates))]
        stop = 20_000
        for floor, points in ((arb(10) ** -6, range(stop)),
                              (arb(2) ** -120, range(0, stop, 37))):
            sums = power_sums(weights, rates, 0, stop, floor)
            for n in points:
                direct = _direct(weights, rates, n)
                assert sums[n].overlaps(direct)
                assert sums[n].rad() <= 100 * direct.rad() + 2 * len(rates) * floor


def test_power_sums_with_a_floor_keep_growing_rates():
    """A rate with Re a > 0 grows along a row: a node below the floor at the start of the
    last row (5 10^-7) reaches about 9 10^-6 at its end, so it is never left out (the
    other, contracting, one leaves: the sums widen by the floor)."""
    with flint.ctx.workprec(100):
        stop = 5000   # rows of 71: the last starts at 4970
        rates = [acb(to_arb(F(1, 10)), 1), acb(-1, 2)]
        weights = [acb(arb(5) * arb(10) ** -7 * (-497 * arb(1)).exp()), acb(1)]
        sums = power_sums(weights, rates, 0, stop, arb(10) ** -6)
        for n in (0, 4970, 4999):
            direct = _direct(weights, rates, n)
            assert sums[n].overlaps(direct)
            assert sums[n].rad() <= 2 * arb(10) ** -6
