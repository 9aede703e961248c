"""The moments A(a) = E[X^a] of the lognormal mean at complex a (the moment generating
function of one epoch of random allocation) against closed forms: one step, where X is a
lognormal and A(a) = e^{b^2 a (a - 1) / 2} for every complex a; the integer moments of the
mean of t lognormals; the decay bound, exact at one step; and each error term, cut short,
caught by its bound; over epochs, the transform's digits inside the proven bracket, and at
two steps an epoch against a Gaussian part in closed form and Gauss-Hermite over the rest."""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from mpmath import mp

import refacct
from refacct import api
from refacct.engines.allocation.moments import EpochMoments
from refacct.engines.arb import acb, arb, flint, to_arb
from refacct.mechanisms import build, gaussian


SIGMA = Fraction(3)   # a narrow lognormal: few nodes (sigma 1 at one step takes ~30 s a row)
PREC = 96


@pytest.fixture(scope="module")
def one_step():
    """A(a) at one step, its rays' nodes shared by the tests."""
    return EpochMoments(SIGMA, 1)


def _lognormal(sigma: Fraction, a: "acb") -> "acb":
    """E[Z^a] = e^{b^2 a (a - 1) / 2}, Z = e^{bG - b^2/2}, b = 1 / sigma: the Gaussian's
    moment generating function at b a."""
    return (to_arb(1 / sigma ** 2) * a * (a - 1) / 2).exp()


@pytest.mark.parametrize("alpha, sign, h", [
    ("2.5", 1, "1/2"),      # the remove order at c = 3/2 (N = 3)
    ("-0.7", -1, "1"),      # the add order at c = 7/10 (N = 0)
    ("0.3", 1, "3"),        # the inner strip (N = 1), far along the line
])
def test_one_step_is_the_lognormal_closed_form(one_step, alpha, sign, h):
    """t = 1: X = Z, so A(alpha + i sign n h) is the closed form at every n, on a ray whose
    nodes, tails and trapezoidal error are those of any t."""
    with flint.ctx.workprec(PREC):
        a0, step = arb(alpha), to_arb(Fraction(h))
        values = one_step.row(a0, sign, step, 0, 5)
        with flint.ctx.workprec(320):
            for n, value in enumerate(values):
                exact = _lognormal(SIGMA, acb(a0, sign * n * step))
                assert value.contains(exact), (n, value, exact)
                assert value.rad() < abs(exact) * arb(2) ** -50 or value.rad() < arb(2) ** -80


def test_integer_moments_of_the_mean_of_many_lognormals():
    """E[X^2] = 1 + (e^{b^2} - 1) / t and E[X^3] = 1 + 3 (e^{b^2} - 1) / t + (e^{3 b^2} -
    3 e^{b^2} + 2) / t^2 (expanding (sum Z_i)^3 over equal indices), from the ray at a = 2
    and a = 3, and from the moments' series."""
    sigma, t = Fraction(1), 100
    moments = EpochMoments(sigma, t)
    with flint.ctx.workprec(128):
        e1, e3 = arb(1).exp(), arb(3).exp()
        second = 1 + (e1 - 1) / t
        third = 1 + 3 * (e1 - 1) / t + (e3 - 3 * e1 + 2) / t ** 2
        for a, exact in ((2, second), (3, third)):
            ball = moments.row(arb(a), 1, arb(0), 0, 1)[0]
            assert ball.real.overlaps(exact) and ball.rad() < arb(2) ** -80
        series = moments.moments(4)
        assert series[2].overlaps(second) and series[3].overlaps(third)


def test_the_decay_bound_is_the_modulus_at_one_step(one_step):
    """At t = 1 the bound A(alpha) e^{-b^2 beta^2 / 2} is |e^{b^2 a (a - 1) / 2}| itself
    (beta below pi / b^2), and beyond it still lies above."""
    with flint.ctx.workprec(PREC):
        alpha = arb("1.5")
        for beta in (arb(1), arb(20), arb(40)):
            bound = one_step.decay(alpha, beta)
            exact = abs(_lognormal(SIGMA, acb(alpha, beta)))
            assert bound >= exact.lower()
        assert one_step.decay(alpha, arb(1)) < 2 * abs(_lognormal(SIGMA, acb(alpha, arb(1))))


@pytest.mark.parametrize("cut", ["lower", "upper", "step"])
def test_each_error_term_cut_short_is_caught_by_its_bound(one_step, monkeypatch, cut):
    """The range of nodes cut to a few at either end, or a step four times too coarse for
    the rule's strip: the ball still holds the one-step closed form, and is wider for it."""
    with flint.ctx.workprec(PREC):
        a0, h = arb("1.5"), arb(1)
        fine = one_step.row(a0, 1, h, 0, 4)
        if cut == "lower":
            monkeypatch.setattr(EpochMoments, "_lower_end", lambda *args: -8)
        elif cut == "upper":
            monkeypatch.setattr(EpochMoments, "_upper_end", lambda self, terms, s, first, b: 4)
        else:
            step = EpochMoments._step
            monkeypatch.setattr(EpochMoments, "_step", lambda *args: step(*args) // 4)
        coarse = one_step.row(a0, 1, h, 0, 4)
        with flint.ctx.workprec(320):
            for n, ball in enumerate(coarse):
                assert ball.contains(_lognormal(SIGMA, acb(a0, n * h)))
            assert coarse[-1].rad() > 2 ** 20 * fine[-1].rad()


def test_the_bound_above_the_range_holds_the_sum_of_its_terms():
    """The tail bound's walk (``_above``) at a fine step (4096 nodes a unit of u, where
    consecutive terms differ by a factor near 1 for thousands of nodes) against the sum of
    the same terms node by node until they are negligible: it holds that sum, within a
    factor 2 (the walk stops once the geometric bound on the rest is at most the sum so
    far; it had walked until the ratio fell to 7/8, past its 10^5-term limit here, an
    infinite bound)."""
    with flint.ctx.workprec(64):
        moments = EpochMoments(Fraction(1), 2)
        terms = moments._tail_terms(arb(1), 18, arb(1) / 4096)   # alpha 17: N 18, kappa 1
        first = next(k for k in range(0, 10 ** 6, 64) if terms(k) is not None)
        bound = EpochMoments._above(terms, first)
        total, k = arb(0), first
        while k < first + 10 or sum(terms(k)) >= total * arb(2) ** -60:
            total += sum(terms(k))
            k += 1
        # the terms left out are below 2^-60 of the sum and fall geometrically (log-concave)
        assert bound >= total * (1 + arb(2) ** -40)
        assert bound <= 2 * total


@pytest.mark.parametrize("sigma, m", [("1/2", 8), ("1", 16), ("11/10", 32), ("5", 2)])
def test_the_ray_of_phi_holds_the_adaptive_integral(sigma, m):
    """phi at every node of a ray from one shared trapezoidal rule (``laplace_ray``)
    against FLINT's rigorous adaptive Gauss-Legendre of each node alone
    (``lognormal.laplace``): the balls overlap, and the ray's are no wider than the
    integral's or 2^-190 (the inputs' own radii at 200 bits pass through the double
    exponential at sigma 5)."""
    from refacct.engines.allocation.lognormal import laplace, laplace_ray

    with flint.ctx.workprec(200):
        b = 1 / to_arb(Fraction(sigma))
        step, theta = b * b / m, -(arb.pi() / 2 - arb(3) / 4)
        start, count = -arb(100).log() - 40 * step, 100 + 12 * m
        ray = laplace_ray(start, step, count, theta, b, 200)
        for k in list(range(0, count, 23)) + [count - 1]:
            alone = laplace(acb(start + k * step, theta).exp(), b, 200)
            assert ray[k].overlaps(alone)
            assert ray[k].rad() < max(alone.rad(), arb(2) ** -190)


def test_the_ray_in_blocks_of_nodes_holds_the_adaptive_integral(monkeypatch):
    """The ray's product split into blocks of one node and of a few dozen (``BLOCK_ENTRIES``
    shrunk: a ray of 10^4 nodes had held 6 GB in one product): every node's ball still
    overlaps FLINT's rigorous adaptive integral of that node alone, and the whole ray's."""
    from refacct.engines.allocation import lognormal
    from refacct.engines.allocation.lognormal import laplace, laplace_ray

    with flint.ctx.workprec(200):
        b = 1 / to_arb(Fraction(1))
        step, theta = b * b / 16, -(arb.pi() / 2 - arb(3) / 4)
        start, count = -arb(100).log() - 40 * step, 300
        whole = laplace_ray(start, step, count, theta, b, 200)
        for entries in (1, 2 ** 14):   # about 600 rule nodes: 1, then about 27 a product
            monkeypatch.setattr(lognormal, "BLOCK_ENTRIES", entries)
            blocked = laplace_ray(start, step, count, theta, b, 200)
            assert len(blocked) == count
            for k in range(0, count, 37):
                alone = laplace(acb(start + k * step, theta).exp(), b, 200)
                assert blocked[k].overlaps(alone) and blocked[k].overlaps(whole[k])


@pytest.mark.heavy
def test_epochs_by_the_transform_lie_in_the_proven_bracket():
    """sigma 2, 20 steps an epoch, 3 epochs, the add order at eps = 1/2: ``"auto"`` takes
    the transform (the epochs' moments), whose digits must lie in the lattice bracket
    composed from the one-epoch puts (``refacct.brackets``), a method that shares neither
    nodes nor formula with it (35-120 s: beyond the suite's budget)."""
    entry = build(gaussian(2), "random-allocation", "add", steps=20, epochs=3)
    assert api.route(entry).engine.name == "transform"
    found = refacct.delta(entry, "1/2", digits=10)
    bracket = refacct.delta(entry, "1/2", width="1e-2", method="bracket")
    assert found.proven and found.verified_digits >= 10
    assert bracket.lower <= found.lower and found.upper <= bracket.upper


def _two_steps_over_epochs(sigma: Fraction, epochs: int, eps: Fraction, n: int):
    """(H(P^E || Q^E), H(Q^E || P^E)) at e^eps for two steps an epoch, independently of
    the transform.  With U = (G_1 + G_2) / sqrt 2 and V = (G_1 - G_2) / sqrt 2 (independent
    standard normals), an epoch's ratio is X = e^{-b^2 / 2 + b U / sqrt 2} cosh(b V / sqrt 2),
    so over E epochs prod X = A e^{s U' - s^2 / 2} with U' standard normal, s^2 = E b^2 / 2
    and A = e^{-E b^2 / 4} prod_e cosh(b V_e / sqrt 2).  Given the V's, the remove order is a
    Black-Scholes call, E[(A e^{sU' - s^2/2} - K)_+] = A Phi(d) - K Phi(d - s) with
    d = (ln(A / K) + s^2 / 2) / s, and the add order a put, E[(1 - K A e^{...})_+] =
    Phi(s - d') - K A Phi(-d') with d' = (ln(K A) + s^2 / 2) / s; the E dimensions of V by
    Gauss-Hermite with n nodes each."""
    with mp.workdps(30):
        b = 1 / mp.mpf(sigma.numerator) * sigma.denominator
        s = b * mp.sqrt(mp.mpf(epochs) / 2)
        K = mp.exp(mp.mpf(eps.numerator) / eps.denominator)
        nodes, weights = mp.gauss_quadrature(n, "hermite")
        points = [(mp.cosh(b * x), w / mp.sqrt(mp.pi)) for x, w in zip(nodes, weights)]
        remove = add = mp.zero
        for combo in product(points, repeat=epochs):
            A, w = mp.exp(-epochs * b ** 2 / 4), mp.one
            for ch, weight in combo:
                A, w = A * ch, w * weight
            d = (mp.log(A / K) + s ** 2 / 2) / s
            remove += w * (A * mp.ncdf(d) - K * mp.ncdf(d - s))
            d = (mp.log(K * A) + s ** 2 / 2) / s
            add += w * (mp.ncdf(s - d) - K * A * mp.ncdf(-d))
        return remove, add


def test_two_steps_over_epochs_route_to_the_transform_where_it_reaches():
    """Two steps an epoch have no lattice cells: from 2 epochs at sigma >= 1/16 and
    sigma^2 t / E <= 10^6 the transform (``engines.allocation.halves``: sigma 1/16 over 2
    epochs 24 s, sigma 1000 over 2 52 s), elsewhere the bracket's refusal."""
    def engine(sigma, epochs):
        return api.route(build(gaussian(sigma), "random-allocation", "add-remove", steps=2,
                               epochs=epochs)).engine.name
    assert engine(1, 2) == engine(5, 100) == engine(20, 3) == engine(30, 2) == "transform"
    assert engine("99/100", 2) == engine("1/2", 5) == engine("1/16", 2) == "transform"
    assert engine(1000, 2) == "transform"
    assert engine("1/17", 2) == engine(1001, 2) == "proven-bracket"


@pytest.mark.slow
def test_two_steps_over_epochs_match_the_conditioned_gaussian():
    """sigma 5, two steps an epoch, 3 epochs, delta(1/2): the transform's 20 digits (about
    15 s) against the Gaussian part in closed form and Gauss-Hermite over the rest
    (``_two_steps_over_epochs``), which agrees with itself at 16 and 20 nodes to 1e-16."""
    entry = build(gaussian(5), "random-allocation", "add-remove", steps=2, epochs=3)
    found = refacct.delta(entry, Fraction(1, 2))
    coarse, fine = (max(_two_steps_over_epochs(Fraction(5), 3, Fraction(1, 2), n))
                    for n in (16, 20))
    assert abs(coarse - fine) < fine * mp.mpf(10) ** -16
    assert found.proven and found.verified_digits >= 20 and found.attained_by == ("remove",)
    assert abs(found.value - fine) < fine * mp.mpf(10) ** -16


@pytest.mark.slow
@pytest.mark.parametrize("sigma, eps, nodes, agree", [
    (2, 1, (32, 40), 19),   # about 6 s
    (1, 2, (64, 80), 18),   # about 20 s; docs/random-allocation.md: 0.0387642222921485940
])
def test_two_epochs_of_two_steps_match_the_conditioned_gaussian(sigma, eps, nodes, agree):
    """Two steps an epoch over two epochs (the fewest the transform takes) against the
    Gaussian part in closed form and Gauss-Hermite over the rest, to the digits its two node
    counts agree to."""
    entry = build(gaussian(sigma), "random-allocation", "add-remove", steps=2, epochs=2)
    found = refacct.delta(entry, eps)
    coarse, fine = (max(_two_steps_over_epochs(Fraction(sigma), 2, Fraction(eps), n))
                    for n in nodes)
    assert abs(coarse - fine) < fine * mp.mpf(10) ** -agree
    assert found.proven and found.verified_digits >= 20
    assert abs(found.value - fine) < 2 * fine * mp.mpf(10) ** -agree
