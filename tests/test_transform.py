"""The transform engine's inversion (``refacct.engines.transform.inversion``): a proven
enclosure of delta_T(eps) from the moment generating function of the privacy loss, every
error term bounded.

Oracle: Gaussian shifts, whose T-fold composition is one shift with m^2 = T m_1^2 (Balle
and Wang 2018, arXiv:1805.06530, Thm 8; conftest.balle_wang), from T = 10^2 to 10^6 steps
of sigma = 10 and delta down to 1e-536; for the Poisson-subsampled Gaussian's transform,
q = 1 (the shift again), plain quadrature (a second method), and at the Opacus tutorial's
scale (T = 3910) the lattice engine's proven bracket.  Each error term is shown to matter: with a step
h too large, or a range too short, the trapezoidal sum alone misses the truth by far more
than its rounding, and the enclosure, widened by its bound, still holds."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from conftest import StoredBracket, balle_wang, gaussian_H, mpq
from refacct import Gaussian, Mixture, Pair
from refacct.engines.arb import acb, arb, arb_ends, flint, to_arb
from refacct.engines.transform.inversion import _first_plan, delta_enclosure, enclose
from refacct.engines.transform.mgf import (GaussianShifts, PoissonGaussian, SubsampledGaussian,
                                           loss_of)


def truth(m2: F, eps) -> mp.mpf:
    return balle_wang(eps, mp.sqrt(mpq(m2)))


def ends(enclosure):
    lo, hi = enclosure.ends()
    return arb_ends(lo)[0], arb_ends(hi)[1]


@pytest.mark.parametrize("steps", [10 ** 2, 10 ** 4, 10 ** 6])
@pytest.mark.parametrize("eps", [0, 1, 10])
def test_twenty_proven_digits_contain_the_closed_form(steps, eps):
    m2 = F(steps, 100)   # sigma = 10: m_1 = 1/10
    found, _ = delta_enclosure(GaussianShifts(m2), F(eps), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        value = truth(m2, eps)
        assert lo <= value <= hi
        assert hi - lo <= mp.mpf(10) ** -20 * lo


def test_tiny_delta_keeps_its_relative_digits():
    """m = 1 at eps = 50: delta = 1.37e-536, far below float64."""
    found, _ = delta_enclosure(GaussianShifts(F(1)), F(50), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        value = truth(F(1), 50)
        assert value < mp.mpf(10) ** -535
        assert lo <= value <= hi and hi - lo <= mp.mpf(10) ** -20 * lo


@pytest.mark.parametrize("alpha", ["0", "1/3", "1", "3/2", "10^9"])
def test_h_alpha_contains_the_closed_form(alpha):
    """H_alpha = delta_T(ln alpha) bracketed between dyadic eps either side of ln alpha
    (negative below alpha = 1), against H_alpha of one shift m = sqrt(T) / 10 (T = 100)."""
    a = F(10 ** 9) if alpha == "10^9" else F(alpha)
    r = refacct.hockey_stick(Pair(Gaussian(1, 10), Gaussian(0, 10)), alpha=a, steps=100,
                             method="transform")
    with mp.workdps(60):
        value = gaussian_H(mpq(a), 1)
        assert r.proven and abs(r.value - value) <= r.abs_error
        assert a == 0 or r.verified_digits >= 20


def test_a_decay_bound_aimed_too_high_is_aimed_lower():
    """sigma 1, q 1e-3, 10^4 steps, remove, delta(2) ~ 1.9e-16, from a plan whose decay
    bound aims at e^-1 M_T(c): its truncation bound is 3e6 times delta, which doubling the
    range (the bound falls as 1 / N) would take ~80 rounds to make up; the refinement aims
    the scan lower instead, keeps the range, and its 20 digits lie inside the lattice
    bracket (a second method)."""
    loss = PoissonGaussian(F(1), F(1, 1000), 10 ** 4, "remove")
    plan = replace(_first_plan(loss, F(2), 20), drop=F(-1))
    found, nodes = delta_enclosure(loss, F(2), 20, plan)
    assert nodes.plan.n == plan.n and nodes.plan.drop < -40
    # refacct.delta(pair, 2, steps=10 ** 4, method="bracket") for (999/1000) N(0, 1) +
    # (1/1000) N(1, 1) against N(0, 1) (37 s)
    bracket = StoredBracket("1.92869e-16", "1.93645e-16")
    with mp.workdps(60):
        lo, hi = ends(found)
        assert bracket.holds(lo, hi)
        assert hi - lo <= mp.mpf(10) ** -20 * lo


class _Cancelling(GaussianShifts):
    """Gaussian shifts whose every ln M carries a radius of 2^(40 - prec), as a loss whose
    values come out of cancellation (one epoch of random allocation loses bits so on its
    rays): at few bits the trapezoidal sum says nothing, not even its sign."""

    def log_mgf(self, z: "acb") -> "acb":
        return super().log_mgf(z) + acb(arb(0, arb(2) ** (40 - flint.ctx.prec)))


def test_a_sum_lost_in_its_own_rounding_gets_bits_not_a_finer_step():
    """m = 1 at eps = 10 (delta ~ 1e-22) from a plan of 32 bits, each value's radius
    2^8: the sum has no lower end while every error bound is tiny, so the refinement raises
    the precision and keeps h and the range.  Halving h, as an aliasing budget of 0 asked,
    gains nothing: one epoch of random allocation went from 185 nodes to the budget of 8192
    that way and answered [0, 1]."""
    loss = _Cancelling(F(1))
    plan = replace(_first_plan(GaussianShifts(F(1)), F(10), 20), prec=32)
    found, nodes = delta_enclosure(loss, F(10), 20, plan)
    assert nodes.plan.h == plan.h and nodes.plan.n == plan.n and nodes.plan.prec > 64
    with mp.workdps(60):
        lo, hi = ends(found)
        assert lo <= truth(F(1), 10) <= hi and hi - lo <= mp.mpf(10) ** -20 * lo


def _misses(found, value) -> bool:
    """Does the trapezoidal sum alone, with its rounding radius, miss the truth?"""
    with flint.ctx.workprec(found.prec):
        lo, hi = arb_ends(found.total)
    return not lo <= value <= hi


@pytest.mark.parametrize("spoil, term", [
    (lambda plan: replace(plan, h=plan.h * 6, n=max(1, plan.n // 6)), "below"),
    (lambda plan: replace(plan, n=max(1, plan.n // 8)), "truncation"),
])
def test_each_bound_catches_its_own_failure(spoil, term):
    loss, eps = GaussianShifts(F(1)), F(1)
    plan = spoil(_first_plan(loss, eps, 20))
    found = enclose(loss, eps, plan)
    with mp.workdps(60):
        value = truth(F(1), 1)
        lo, hi = ends(found)
        assert _misses(found, value)            # the failure is real
        assert lo <= value <= hi                # and its bound covers it
        bound = arb_ends(getattr(found, term))[1]
        assert bound >= abs(arb_ends(found.total)[0] - value) / 2


# --- the Poisson-subsampled Gaussian's transform (mgf.PoissonGaussian) ---------------------

def _shift_mgf(m2: F, z):
    return GaussianShifts(m2).log_mgf(z).exp()


def test_subsampling_with_q_one_is_the_gaussian_shift():
    """q = 1: P = N(1, s^2) vs Q = N(0, s^2), M(z) = exp(z (z + 1) / (2 s^2))."""
    loss = PoissonGaussian(F(11, 10), F(1), 1, "remove")
    with flint.ctx.workprec(160):
        for z in (acb(2), acb(2, 3), acb(5, 10)):
            assert loss.one_step(z).overlaps(_shift_mgf(F(100, 121), z))
            assert loss.one_step(z).rad() < arb(10) ** -30


def plain_quadrature(direction: str) -> mp.mpc:
    """M(3 + 7i) of one step at sigma 11/10, q = 1/2 by mpmath's quadrature over the whole
    line (Gauss-Legendre on 200 pieces), at 40 digits."""
    with mp.workdps(40):
        s, q, z = mp.mpf(11) / 10, mp.mpf(1) / 2, mp.mpc(3, 7)
        w = 1 + z if direction == "remove" else -z
        return mp.quad(lambda y: mp.npdf(y, 0, s) * mp.exp(
            w * mp.log(1 - q + q * mp.exp((2 * y - 1) / (2 * s * s)))),
            mp.linspace(-30, 40, 200))


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_transform_agrees_with_plain_quadrature(direction):
    """M(3 + 7i) at q = 1/2 against mpmath's quadrature of the same integral (a second
    method), and the decay bound above |M(3 + it)|."""
    loss = PoissonGaussian(F(11, 10), F(1, 2), 1, direction)
    with flint.ctx.workprec(160):
        got = loss.one_step(acb(3, 7))
        with mp.workdps(40):
            other = plain_quadrature(direction)
            for part, value in ((got.real, other.real), (got.imag, other.imag)):
                lo, hi = arb_ends(part)
                assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30
        for t in (1, 10, 100):
            assert loss.decay(arb(3), arb(t)) >= abs(loss.one_step(acb(3, t))).lower()


def test_the_upper_tail_bound_keeps_the_factor_q():
    """Remove direction, sigma 2, q = 1e-3, M(36.7) (the saddle of delta(1) at T = 10^5)
    at 80 bits: B <= r E with r about q beyond the range keeps the tail bound near 2^-80
    of M (with B <= E alone it was q^-37.7 larger, a radius of 1.05 on M = 1.0002), and
    the ball contains mpmath's quadrature over the whole line (a second method)."""
    loss = PoissonGaussian(F(2), F(1, 1000), 1, "remove")
    c = F(367, 10)
    with flint.ctx.workprec(80):
        got = loss.one_step(acb(to_arb(c)))
        assert got.rad() < arb(10) ** -15
    with mp.workdps(30):
        s, q = mp.mpf(2), mp.mpf(1) / 1000
        other = mp.quad(lambda y: mp.npdf(y, 0, s) * mp.exp(
            (1 + mpq(c)) * mp.log(1 - q + q * mp.exp((2 * y - 1) / (2 * s * s)))),
            mp.linspace(-40, 160, 200))
        lo, hi = arb_ends(got.real)
        assert lo - mp.mpf(10) ** -20 <= other <= hi + mp.mpf(10) ** -20


class ShortRange(PoissonGaussian):
    """The inner quadrature's failure: an integration range of one sigma past the bulk."""

    def _reach(self):
        return to_arb(self.sigma)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_tail_bound_catches_a_short_inner_range(direction):
    """M(3 + 7i) at q = 1/2 on a range cut one sigma past the bulk: the integral alone
    misses the truth (mpmath's quadrature over the whole line, a second method) by far
    more than the full evaluation's radius, and the tail bound still covers it."""
    short, full = ShortRange(F(11, 10), F(1, 2), 1, direction), \
        PoissonGaussian(F(11, 10), F(1, 2), 1, direction)
    with flint.ctx.workprec(160):
        cut, whole = short.integral(acb(3, 7)), full.integral(acb(3, 7))
        with mp.workdps(40):
            truth = plain_quadrature(direction)
            for part, value in ((cut.real, truth.real), (cut.imag, truth.imag)):
                lo, hi = arb_ends(part)
                assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30
                # the failure is real: the integral alone (the ball's centre) is off
                assert abs((lo + hi) / 2 - value) > 10 ** 6 * arb_ends(whole.rad())[1]


# the trapezoidal rule on a line in the strip (mgf.SubsampledGaussian.line): its values for
# every t against Arb's adaptive integral on the real line (a second method), and each
# of its bounds caught in the act

LINE_CASES = [(F(1), (F(99, 100), F(1, 100)), (F(1),), "remove"),
              (F(1), (F(99, 100), F(1, 100)), (F(1),), "add"),
              (F(1, 2), (F(999, 1000), F(1, 1000)), (F(1),), "remove"),
              # substitution, a lattice of three points (001 Sec. 7)
              (F(3, 2), (F(0), F(9, 10), F(1, 10)), (F(1, 10), F(9, 10), F(0)), "remove")]


@pytest.mark.parametrize("sigma, weights, against, direction", LINE_CASES)
def test_the_line_agrees_with_the_real_integral_at_every_t(sigma, weights, against, direction):
    loss = SubsampledGaussian(sigma, weights, 100, direction, against=against)
    with flint.ctx.workprec(150):
        c, h = to_arb(F(7, 2)), to_arb(F(37, 10))
        line = loss.line(c)
        row = line.row(h, 0, 120)
        guarded = loss.one_step_row(c, h, 0, 120)   # a grid's row: its rule aimed lower
        for n in (0, 1, 9, 119):
            truth = loss.integral(acb(c, n * h))
            assert row[n].overlaps(truth) and line.at(n * h).overlaps(truth)
            assert row[n].rad() < arb(10) ** -36 and line.at(n * h).rad() < arb(10) ** -36
            assert guarded[n].overlaps(truth) and guarded[n].rad() < arb(10) ** -28


@pytest.mark.parametrize("sigma, weights, against, direction", LINE_CASES)
def test_the_strip_bound_lies_above_every_value_beyond_its_t(sigma, weights, against,
                                                             direction):
    """The strip's decay bound B(t) >= sup_{s >= t} |M(c + is)|, checked against the line's
    values (a second method: the trapezoidal rule, not the bound's integral) at t and
    beyond (at sigma 1/2, q 1/1000 |M| falls only to 0.43 by t = 10^4: a loss near a
    lattice); and it falls with t, as |M| does."""
    loss = SubsampledGaussian(sigma, weights, 3, direction, against=against)
    with flint.ctx.workprec(128):
        c = to_arb(F(1))
        line = loss.line(c)
        bounds = []
        for t in (10, 100, 1000, 10000):
            bounds.append(loss.strip(c, arb(t)))
            values = [abs(line.at(arb(t) * x)) for x in (1, arb(3) / 2, 2, 4, 10)]
            assert not any(v > bounds[-1] for v in values)   # none proven above it
        assert bounds[-1] < bounds[0] / 2


class CoarseLine(PoissonGaussian):
    """The rule's failure: a step eight times what the strip allows."""

    def _line_step(self, aim):
        return arb((8 * aim).lower())


class ShortLine(PoissonGaussian):
    """The tails' failure: nodes one sigma past the bulk."""

    def _line_reach(self, bits):
        return to_arb(self.sigma)


@pytest.mark.parametrize("broken", [CoarseLine, ShortLine])
def test_the_line_bounds_catch_a_coarse_step_and_a_short_range(broken):
    """M(7/2 + 40i) at sigma 1, q 1/100: the broken rule's sum (its ball's centre) misses
    the real integral by far more than the sound rule's radius, and its bound covers the
    miss."""
    bad, good = broken(F(1), F(1, 100), 1, "remove"), PoissonGaussian(F(1), F(1, 100), 1,
                                                                      "remove")
    with flint.ctx.workprec(150):
        c, t = to_arb(F(7, 2)), arb(40)
        truth, got, sound = good.integral(acb(c, t)), bad.line(c).at(t), good.line(c).at(t)
        assert got.overlaps(truth) and sound.overlaps(truth)
        assert abs(got.real.mid() - truth.real.mid()) > 10 ** 6 * sound.rad()


# refacct.delta(pair, 2, steps=3910, method="bracket", width="1e-3") for the tutorial's
# step, (1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2) and swapped (34 s and 85 s)
DPSGD_LATTICE = {"remove": StoredBracket("2.13778e-8", "2.13911e-8"),
                 "add": StoredBracket("2.00288e-10", "2.0036e-10")}


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_dpsgd_scale_digits_lie_inside_the_lattice_bracket(direction):
    """The Opacus CIFAR-10 tutorial's step (sigma 1.1, q 256/50000), T = 3910, delta(2):
    20 proven digits by the transform, inside the lattice engine's proven bracket (an
    independent method: mass on a lattice, no transform)."""
    sigma, q, T = F(11, 10), F(256, 50000), 3910
    found, _ = delta_enclosure(PoissonGaussian(sigma, q, T, direction), F(2), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        assert hi - lo <= mp.mpf(10) ** -20 * lo
        assert DPSGD_LATTICE[direction].holds(lo, hi)


# --- groups: a Gaussian mixture on a lattice against its first component --------------------

def binomial(K: int, q: F):
    return [F(__import__("math").comb(K, j)) * q ** j * (1 - q) ** (K - j) for j in range(K + 1)]


def lattice_quadrature(means, weights, s, z, direction) -> mp.mpc:
    """M(z) of the pair sum_j w_j N(m_j, s^2) against N(m_0, s^2) (remove: E_Q[(p/q)^(1 + z)];
    add: the reverse, E_P[(p/q)^-z] with P the Gaussian) from the densities themselves, by
    mpmath's quadrature over the whole line (a second method)."""
    with mp.workdps(40):
        w = 1 + z if direction == "remove" else -z
        lo, hi = mpq(min(means) - 30 * s), mpq(max(means) * 8 + 40 * s)

        def f(y):
            mixed = sum(mpq(a) * mp.npdf(y, mpq(m), mpq(s)) for a, m in zip(weights, means))
            alone = mp.npdf(y, mpq(means[0]), mpq(s))
            return alone * mp.exp(w * mp.log(mixed / alone))
        return mp.quad(f, mp.linspace(lo, hi, 150))


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_a_group_transform_agrees_with_plain_quadrature(direction):
    """A group of 3 sampled at q = 1/3 (binomial weights, 003 Thm 3.1), sigma 11/10: M(3 +
    7i) against quadrature of the pair's densities, and the decay bound, from the
    variation of G and the Lipschitz bound, above |M(3 + it)|."""
    weights = binomial(3, F(1, 3))
    loss = SubsampledGaussian(F(11, 10), weights, 1, direction)
    with flint.ctx.workprec(160):
        got = loss.one_step(acb(3, 7))
        with mp.workdps(40):
            other = lattice_quadrature([0, 1, 2, 3], weights, F(11, 10), mp.mpc(3, 7),
                                       direction)
            for part, value in ((got.real, other.real), (got.imag, other.imag)):
                lo, hi = arb_ends(part)
                assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30
        for t in (1, 10, 100):
            assert loss.decay(arb(3), arb(t)) >= abs(loss.one_step(acb(3, t))).lower()
        slope = loss.lipschitz(arb(3))
        near = loss.one_step(acb(3, to_arb(F(3, 2)))) - loss.one_step(acb(3, 1))
        assert slope >= 2 * abs(near).lower()


def test_a_lattice_with_gaps_and_offsets_is_rescaled():
    """Components at m_0 + (2/3) {0, 2, 3} (the gcd 2/3 is the lattice step, j = 1 has no
    weight), m_0 = 1/2: the loss the transform reads has sigma s / (2/3) and weights on
    j = 0, 2, 3, and its M equals quadrature of the original pair's densities."""
    s, means, weights = F(1), [F(1, 2), F(11, 6), F(5, 2)], [F(1, 2), F(1, 4), F(1, 4)]
    mixed = Mixture([(a, Gaussian(m, s)) for a, m in zip(weights, means)])
    (loss,) = loss_of(Pair(mixed, Gaussian(F(1, 2), s))).factors
    assert loss.sigma == F(3, 2) and loss.weights == (F(1, 2), 0, F(1, 4), F(1, 4))
    with flint.ctx.workprec(160):
        got = loss.one_step(acb(2, 5))
    with mp.workdps(40):
        other = lattice_quadrature(means, weights, s, mp.mpc(2, 5), "remove")
        for part, value in ((got.real, other.real), (got.imag, other.imag)):
            lo, hi = arb_ends(part)
            assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30


# refacct.delta(pair, 1, steps=1000, method="bracket", width="1e-3") for the group's pair,
# sum_j w_j N(j, s^2) against N(0, s^2) and swapped (17 s and 18 s)
GROUP_LATTICE = {"remove": StoredBracket("0.000305015", "0.000305117"),
                 "add": StoredBracket("0.000164962", "0.000165036")}


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_group_digits_lie_inside_the_lattice_bracket(direction):
    """A group of 2 under Poisson sampling, sigma 2, q 1/100, T = 1000, delta(1): 20
    proven digits by the transform, inside the lattice engine's proven bracket (mass on a
    lattice, no transform)."""
    sigma, weights = F(2), binomial(2, F(1, 100))
    found, _ = delta_enclosure(SubsampledGaussian(sigma, weights, 1000, direction), F(1), 20)
    with mp.workdps(60):
        lo, hi = ends(found)
        assert hi - lo <= mp.mpf(10) ** -20 * lo
        assert GROUP_LATTICE[direction].holds(lo, hi)


# --- substitution: two mixtures in likelihood-ratio order ------------------------------------

def pair_quadrature(p_parts, q_parts, s, z) -> mp.mpc:
    """M(z) = int q (p / q)^(1 + z) of two Gaussian mixtures of one sigma, from their
    densities, by mpmath's quadrature over the whole line (a second method)."""
    with mp.workdps(40):
        def density(parts, y):
            return sum(mpq(a) * mp.npdf(y, mpq(m), mpq(s)) for a, m in parts)

        def f(y):
            p, q = density(p_parts, y), density(q_parts, y)
            return q * mp.exp((1 + z) * mp.log(p / q))
        return mp.quad(f, mp.linspace(-30, 30, 100))


def test_a_substitution_transform_agrees_with_plain_quadrature():
    """Poisson substitution (001 Sec. 7): P = (1 - q) N(0, s^2) + q N(1, s^2) against
    Q = (1 - q) N(0, s^2) + q N(-1, s^2), q = 1/3, s = 11/10, read by ``loss_of`` (a
    lattice with step 1 from -1): M(3 + 7i) against quadrature of the densities, and the
    decay and Lipschitz bounds above |M(3 + it)| and its slope."""
    q, s = F(1, 3), F(11, 10)
    mixed = Mixture([(1 - q, Gaussian(0, s)), (q, Gaussian(1, s))])
    other = Mixture([(1 - q, Gaussian(0, s)), (q, Gaussian(-1, s))])
    (loss,) = loss_of(Pair(mixed, other)).factors
    assert loss.weights == (0, 1 - q, q) and loss.against == (q, 1 - q, 0)
    with flint.ctx.workprec(160):
        got = loss.one_step(acb(3, 7))
        with mp.workdps(40):
            truth = pair_quadrature([(1 - q, 0), (q, 1)], [(1 - q, 0), (q, -1)], s,
                                    mp.mpc(3, 7))
            for part, value in ((got.real, truth.real), (got.imag, truth.imag)):
                lo, hi = arb_ends(part)
                assert lo - mp.mpf(10) ** -30 <= value <= hi + mp.mpf(10) ** -30
        for t in (1, 10, 100):
            assert loss.decay(arb(3), arb(t)) >= abs(loss.one_step(acb(3, t))).lower()
        near = loss.one_step(acb(3, to_arb(F(3, 2)))) - loss.one_step(acb(3, 1))
        assert loss.lipschitz(arb(3)) >= 2 * abs(near).lower()


def test_substitution_digits_lie_inside_the_lattice_bracket():
    """Poisson substitution, sigma 1, q 1/100, T = 1000, delta(1): 20 proven digits by the
    transform, inside the lattice engine's proven bracket."""
    q, s = F(1, 100), F(1)
    pair = Pair(Mixture([(1 - q, Gaussian(0, s)), (q, Gaussian(1, s))]),
                Mixture([(1 - q, Gaussian(0, s)), (q, Gaussian(-1, s))]))
    found, _ = delta_enclosure(loss_of(pair ** 1000), F(1), 20)
    # refacct.delta(pair, 1, steps=1000, method="bracket", width="1e-3") (12 s)
    bracket = StoredBracket("0.0329499", "0.0329684")
    with mp.workdps(60):
        lo, hi = ends(found)
        assert hi - lo <= mp.mpf(10) ** -20 * lo
        assert bracket.holds(lo, hi)
