"""Nested quadrature in Arb for Gaussian pairs with two means (engines.quadrature.two_means),
against independent methods: the Gaussian shift's closed form (002 Prop. 3.1), the certified
two-step engine (rigorous acb.integral), the transform (a contour integral of the moment
generating function, a different method altogether) and the symmetry identity
H_alpha(P || Q) = 1 - alpha + alpha H_{1/alpha}(Q || P)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from mpmath import mp

import refacct
from refacct import Composition, Gaussian, Mixture, Pair
from refacct.engines.quadrature import two_means
from refacct.engines.quadrature.two_means import hockey_two_means, supports


def subsampled(sigma="1", q="1/10", shift=1):
    """(1 - q) N(0, sigma^2) + q N(shift, sigma^2) against N(0, sigma^2): the remove direction."""
    g = Gaussian(0, sigma)
    return Pair(Mixture([(1 - Fraction(q), g), (Fraction(q), Gaussian(shift, sigma))]), g)


WOR = subsampled(q="1/10", shift=2)           # WOR remove, sensitivity 2 (sigma / Delta = 1/2)
ADD = Pair(WOR.Q, WOR.P)


def engine(pairs, eps, digits=30):
    """The engine's two rules at digits + 8 and + 16 (as verify.two_evaluations runs them):
    (value of rule 1, |rule 1 - rule 0| + what it reports)."""
    values = []
    for rule in (0, 1):
        with mp.workdps(digits + 8 * (rule + 1)):
            values.append(hockey_two_means(pairs, mp.exp(mp.mpf(eps)), None, rule))
    (v0, _), (v1, known) = values
    return v1, abs(v1 - v0) + known


def holds(proven, value, err) -> bool:
    """value +- err meets the proven enclosure (compared at 60 digits, no rounding)."""
    with mp.workdps(60):
        return proven.lower - err <= value <= proven.upper + err


def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


@pytest.mark.parametrize("k", [2, 3])
def test_a_gaussian_shift_gives_its_closed_form(k):
    """No finite limit of the loss (both ends of the outer integral infinite): N(1, 1) vs
    N(0, 1) k times is the shift mu = sqrt(k), 002 Prop. 3.1."""
    pairs = [Pair(Gaussian(1, 1), Gaussian(0, 1))] * k
    value, err = engine(pairs, "1/2", digits=14)
    with mp.workdps(50):
        mu, eps = mp.sqrt(k), mp.mpf(1) / 2
        truth = Phi(-eps / mu + mu / 2) - mp.exp(eps) * Phi(-eps / mu - mu / 2)
        assert abs(value - truth) <= err + mp.mpf(10) ** -40
    assert err < mp.mpf(10) ** -14


@pytest.mark.parametrize("pair", [WOR, ADD, Pair(subsampled("1/2", "1/4").Q, subsampled("1/2", "1/4").P)],
                         ids=["remove", "add", "add-sigma-half"])
@pytest.mark.parametrize("eps", ["0", "1/10", "1"])
def test_two_steps_agree_with_the_certified_engine(pair, eps):
    """An inf (remove) or a sup (add) of the loss: the log-substituted end and, for the
    inf, its reverse-direction remainder; against rigorous integration."""
    value, err = engine([pair, pair], eps, digits=25)
    proven = refacct.delta(Composition.of(pair, pair), eps, digits=25, method="certified")
    assert proven.proven
    assert holds(proven, value, err)
    assert err < mp.mpf(10) ** -24 * max(value, mp.mpf(10) ** -30)


@pytest.mark.parametrize("eps", ["-3", "60"])
def test_far_ends_agree_with_the_certified_engine(eps):
    """delta near 1 - e^eps and delta = 4.3e-105 (Gaussian tails from their own side)."""
    two = Composition.of(WOR, WOR)
    r = refacct.delta(two, eps, digits=20, method="quadrature")
    proven = refacct.delta(two, eps, digits=20, method="certified")
    assert "in Arb" in r.method and r.verified_digits >= 20
    assert r.lower <= proven.upper and proven.lower <= r.upper


def test_alpha_zero_is_one():
    """H_0 = integral of p = 1, in every direction."""
    for pair in (WOR, ADD):
        assert refacct.hockey_stick(Composition.of(pair, pair), 0, method="quadrature").value == 1


@pytest.mark.parametrize("pairs", [
    [subsampled("4/5", "1/10"), subsampled("11/10", "1/5")],
    [Pair(Gaussian(1, 2), Gaussian(0, 2)), ADD],      # a shift has no finite loss limit
], ids=["two-subsampled", "shift-and-add"])
def test_two_different_factors_agree_with_the_certified_engine(pairs):
    value, err = engine(pairs, "1/2", digits=25)
    proven = refacct.delta(Composition.of(*pairs), "1/2", digits=25, method="certified")
    assert holds(proven, value, err)


@pytest.mark.slow
def test_three_steps_agree_with_the_transform():
    """The Poisson-subsampled Gaussian (sigma 1, q 1/10) at k = 3, delta(1): the transform's
    proven enclosure, a contour integral of M(c + it)^3 (about 2 s)."""
    pair = subsampled()
    value, err = engine([pair] * 3, "1", digits=14)
    proven = refacct.delta(Composition.of(pair, pair, pair), "1", digits=20, method="transform")
    assert holds(proven, value, err)
    assert err < mp.mpf(10) ** -14 * value


@pytest.mark.slow
def test_three_steps_of_the_add_direction_obey_the_symmetry_identity():
    """H_{e^eps}(Q^3 || P^3) = 1 - e^eps + e^eps H_{e^-eps}(P^3 || Q^3): the add direction
    (finite sup: zero regions, "sup" ends) against the remove direction (finite inf: flat
    regions, "inf" ends with the reverse-direction remainder)."""
    add, err_add = engine([ADD] * 3, "1/10", digits=10)
    remove, err_remove = engine([WOR] * 3, "-1/10", digits=10)
    with mp.workdps(40):
        alpha = mp.exp(mp.mpf(1) / 10)
        other = 1 - alpha + alpha * remove
        assert abs(add - other) <= err_add + alpha * err_remove + mp.mpf(10) ** -30
    assert err_add < mp.mpf(10) ** -10 * add


def test_through_the_door_with_its_method_named():
    r = refacct.delta(Composition.of(WOR, WOR), "1", digits=20, method="quadrature")
    proven = refacct.delta(Composition.of(WOR, WOR), "1", digits=20, method="certified")
    assert "in Arb" in r.method
    assert r.lower <= proven.upper and proven.lower <= r.upper


def test_too_few_nodes_show_in_the_bound(monkeypatch):
    """A third of the nodes on every regular piece: the two evaluations disagree, and the
    door's bound (precision raised, or the honest larger bound) still holds the certified
    value."""
    original = two_means._nodes_for
    monkeypatch.setattr(two_means, "_nodes_for", lambda d: max(2, original(d) // 3))
    assert engine([WOR, WOR], "1", digits=20)[1] > mp.mpf(10) ** -25   # the error shows
    r = refacct.delta(Composition.of(WOR, WOR), "1", digits=20, method="quadrature")
    proven = refacct.delta(Composition.of(WOR, WOR), "1", digits=20, method="certified")
    assert r.lower <= proven.upper and proven.lower <= r.upper


def test_what_it_takes():
    g = Gaussian(0, 1)
    three_means = Pair(Mixture([("1/2", Gaussian(-1, 1)), ("1/2", Gaussian(1, 1))]), g)
    assert supports([WOR, WOR, WOR]) and supports([ADD, ADD]) and supports([WOR, subsampled()])
    assert supports([Pair(Gaussian(1, 1), g), WOR])          # a shift has no finite limit
    assert not supports([WOR, ADD])                          # an inf and a sup: branch points
    assert not supports([WOR])                               # one step is a closed form
    assert not supports([three_means, three_means])
    assert not supports([WOR, Pair(Gaussian(1, 2), g)])      # two sigmas in one pair
    both = Pair(Mixture([("1/2", g), ("1/2", Gaussian(1, 1))]),
                Mixture([("3/4", g), ("1/4", Gaussian(1, 1))]))
    assert not supports([both, both])                        # both limits finite


@pytest.mark.slow
def test_an_interpolation_error_shows_in_the_bound(monkeypatch):
    """Tables of the inner function 12 digits short of what their pieces need (about 4 s):
    the two evaluations disagree, and the door's bound still holds the transform's proven
    enclosure (three steps of the Poisson-subsampled Gaussian, delta(1))."""
    monkeypatch.setattr(two_means, "TABLE_GUARD", -12)
    pair = subsampled()
    assert engine([pair] * 3, "1", digits=16)[1] > mp.mpf(10) ** -22   # 1e-26 with them
    three = Composition.of(pair, pair, pair)
    r = refacct.delta(three, "1", digits=16, method="quadrature")
    proven = refacct.delta(three, "1", digits=16, method="transform")
    assert r.lower <= proven.upper and proven.lower <= r.upper


@pytest.mark.parametrize("k", [2, 3])
def test_alpha_at_the_infimum_of_the_loss(k):
    """ln alpha = k ln(9/10), the inf of the remove direction's loss: p >= alpha q
    everywhere, so H_alpha = 1 - alpha exactly (the budget meets the limit: the closed form
    at the limit, no root)."""
    alpha = Fraction(9, 10) ** k
    r = refacct.hockey_stick(Composition.of(*[WOR] * k), alpha, method="quadrature")
    with mp.workdps(40):
        assert r.lower <= 1 - mp.mpf(alpha.numerator) / alpha.denominator <= r.upper


@pytest.mark.slow
def test_forty_digits_of_total_variation_at_three_steps():
    """H_1(P^3 || Q^3) = H_1(Q^3 || P^3) (total variation is symmetric): the remove and the
    add direction at 40 digits (about 25 s), where the log-substituted pieces reach within
    rounding of the inner loss's limits."""
    remove = refacct.delta(Composition.of(WOR, WOR, WOR), 0, digits=40, method="quadrature")
    add = refacct.delta(Composition.of(ADD, ADD, ADD), 0, digits=40, method="quadrature")
    assert remove.verified_digits >= 40 and add.verified_digits >= 40
    with mp.workdps(60):
        assert remove.lower <= add.upper and add.lower <= remove.upper
