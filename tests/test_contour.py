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
