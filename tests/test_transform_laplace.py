"""The transform engine on Laplace shifts and subsampled Laplaces
(``refacct.engines.transform.laplace``): the moment generating function of the loss (in
closed form, or by Arb's integration on the lattice cells), its decay bound, and proven
delta(eps), eps(delta) at many steps.

Oracles: M(0) = E_P[1] = 1 and M(-1) = E_Q[1] = 1; M at complex z by quadrature of the
pair's densities, split at their kinks (a second method); the T-fold law of the loss
convolved exactly (``engines.quadrature.laplace_shift``: B-splines and atoms, no transform);
a heterogeneous composition by the lattice engine's proven bracket."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from conftest import StoredBracket
from refacct import Gaussian, Laplace, Mixture, Pair
from refacct.engines.arb import acb, arb, flint, to_arb
from refacct.engines.quadrature.laplace_shift import hockey_laplace
from refacct.engines.transform.laplace import LaplaceShift, SubsampledLaplace
from refacct.errors import OutOfReach
from refacct.mechanisms import build, laplace


def by_quadrature(loc: F, scale: F, z) -> mp.mpc:
    """E_Q[(p / q)^{1 + z}] for P = Lap(loc, scale), Q = Lap(0, scale), loc > 0."""
    b, a = mp.mpf(scale.numerator) / scale.denominator, mp.mpf(loc.numerator) / loc.denominator

    def f(y):
        q = mp.exp(-abs(y) / b) / (2 * b)
        return q * mp.exp((1 + z) * (abs(y) - abs(y - a)) / b)
    return mp.quad(f, [-mp.inf, 0, a, mp.inf])


def mixture_by_quadrature(scale: F, a, b, z) -> mp.mpc:
    """E_Q[(p / q)^{1 + z}] for P = sum_j a_j Lap(j, scale), Q = sum_j b_j Lap(j, scale),
    split at the lattice points."""
    s = mp.mpf(scale.numerator) / scale.denominator

    def density(w, y):
        return sum(mp.mpf(x.numerator) / x.denominator * mp.exp(-abs(y - j) / s) / (2 * s)
                   for j, x in enumerate(w) if x)

    def f(y):
        q = density(b, y)
        return q * (density(a, y) / q) ** (1 + z)
    return mp.quad(f, [-mp.inf] + list(range(len(a))) + [mp.inf])


def at(loss, z) -> mp.mpc:
    with flint.ctx.workprec(200):
        m = loss.one_step(acb(to_arb(F(str(z.real))), to_arb(F(str(z.imag)))))
        return mp.mpc(m.real.mid().str(40, radius=False), m.imag.mid().str(40, radius=False))


def test_mgf_is_one_at_zero_and_minus_one():
    loss = LaplaceShift(F(1, 2), 1)
    with flint.ctx.workprec(200):
        for z in (0, -1):
            m = loss.one_step(acb(z))
            assert abs(m - 1) < arb(10) ** -50


@pytest.mark.parametrize("z", [mp.mpc("0.7", "3"), mp.mpc("2", "10"), mp.mpc("0.05", "0.5")])
def test_mgf_matches_quadrature_of_the_densities(z):
    with mp.workdps(30):
        assert abs(at(LaplaceShift(F(1, 2), 1), z) - by_quadrature(F(1), F(2), z)) < 1e-20


POISSON = (F(9, 10), F(1, 10)), (F(1), F(0))
SUBSTITUTION = (F(0), F(9, 10), F(1, 10)), (F(1, 10), F(9, 10), F(0))


@pytest.mark.parametrize("scale,weights", [(F(1), POISSON), (F(1, 2), SUBSTITUTION),
                                            (F(3), POISSON[::-1])])
@pytest.mark.parametrize("z", [mp.mpc("0.5", "3"), mp.mpc("2", "40"), 0, -1])
def test_subsampled_mgf_matches_quadrature_of_the_densities(scale, weights, z):
    """Poisson remove and add (reversed) and substitution (001 Sec. 7); at z = 0 and
    -1 the value is 1."""
    loss = SubsampledLaplace(scale, weights[0], 1, against=weights[1])
    with mp.workdps(30):
        expected = mixture_by_quadrature(scale, *weights, mp.mpc(z))
        assert abs(at(loss, mp.mpc(z)) - expected) < 1e-15
        if z in (0, -1):
            assert abs(expected - 1) < 1e-20


def test_subsampled_decay_and_lipschitz_bounds_hold():
    """The decay bound lies above |M(c + is)|^T beyond t; the Lipschitz bound above
    |M(c + is') - M(c + is)| / (s' - s)."""
    loss = SubsampledLaplace(F(1), *SUBSTITUTION[:1], 5, against=SUBSTITUTION[1])
    with flint.ctx.workprec(128):
        c, t = to_arb(F(1, 2)), to_arb(F(3))
        bound, slope = loss.decay(c, t, F(-2)), loss.lipschitz(c)
        values = {s: loss.one_step(acb(c, to_arb(F(s)))) for s in (3, F(31, 10), 7, 20, 300)}
        for s, m in values.items():
            assert abs(m) ** 5 < bound
        assert abs(values[F(31, 10)] - values[3]) < slope / 10


def test_decay_bound_lies_above_the_modulus_beyond_it():
    loss = LaplaceShift(F(3, 2), 7)
    with flint.ctx.workprec(128):
        c, t = to_arb(F(3, 10)), to_arb(F(4))
        bound = loss.decay(c, t)
        for s in (4, 5, F(13, 2), 10, 37, 1000):
            assert abs(loss.one_step(acb(c, to_arb(F(s)))) ** 7) < bound


@pytest.mark.parametrize("eps", [200, 250])
def test_delta_at_300_steps_meets_the_exact_convolution(eps):
    """Lap(1, 1) vs Lap(0, 1), T = 300: 20 proven digits whose interval meets the ball
    of the closed form of the 300-fold law."""
    found = refacct.delta(Pair(Laplace(1, 1), Laplace(0, 1)) ** 300, eps, method="transform")
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1), 300, mp.exp(eps), eps=F(eps))
        assert found.proven and found.verified_digits >= 20
        assert found.lower <= value + bound and value - bound <= found.upper


def test_epsilon_at_300_steps_brackets_the_exact_convolution():
    found = refacct.epsilon(Pair(Laplace(1, 1), Laplace(0, 1)) ** 300, "1e-5",
                            method="transform")
    with mp.workdps(40):
        below = hockey_laplace(F(1), 300, mp.exp(found.lower), eps=None)
        above = hockey_laplace(F(1), 300, mp.exp(found.upper), eps=None)
        assert found.verified_digits >= 20
        assert below[0] - below[1] > mp.mpf("1e-5") >= above[0] + above[1]


def test_auto_takes_the_transform_off_the_atoms_and_falls_back_in_their_tail():
    """1000 steps of e0 = 1 (250 steps off the atoms): the transform; 300 steps at eps =
    280, where the top atom dominates: the transform's decay bound cannot reach the
    tolerance, so auto answers by the closed form and the transform method refuses."""
    pair = Pair(Laplace(1, 1), Laplace(0, 1))
    many = refacct.epsilon(pair ** 1000, "1e-10")
    assert many.engine == "transform" and many.verified_digits >= 20
    tail = refacct.delta(pair ** 300, 280)
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1), 300, mp.exp(280), eps=F(280))
        assert tail.engine != "transform" and tail.lower <= value + bound
        assert value - bound <= tail.upper
    with pytest.raises(OutOfReach, match="quadrature"):
        refacct.delta(pair ** 300, 280, method="transform")


def test_few_steps_off_the_atoms_stay_with_the_closed_form():
    """e0 = 1/10, 300 steps: about 14 steps off the atoms, the loss nearly a lattice."""
    route = refacct.api.route(Pair(Laplace(1, 10), Laplace(0, 10)) ** 300)
    assert route.engine.name != "transform"


def test_mixed_laplace_and_gaussian_lie_inside_the_lattice_bracket():
    """Two Laplace ratios, one in the other direction, and Gaussian shifts; the bracket:
    ``refacct.delta(mixed, 60, method="bracket", width="1e-2")`` (74 s)."""
    mixed = Pair(Laplace(1, 1), Laplace(0, 1)) ** 120 * Pair(Laplace(0, 2), Laplace(1, 2)) ** 60 \
        * Pair(Gaussian(1, 10), Gaussian(0, 10)) ** 100
    found = refacct.delta(mixed, 60, method="transform")
    assert found.verified_digits >= 20
    assert StoredBracket("0.150699", "0.151154").holds(found.lower, found.upper)


@pytest.mark.parametrize("pair, bracket", [
    (Pair(Mixture([(F(9, 10), Laplace(0, 1)), (F(1, 10), Laplace(1, 1))]), Laplace(0, 1)).swap(),
     StoredBracket("15.0758", "15.0768")),
    (Pair(Mixture([(F(19, 20), Laplace(0, 1)), (F(1, 20), Laplace(2, 1))]), Laplace(0, 1)),
     StoredBracket("8.67843", "8.68391"))])
def test_subsampled_laplace_lies_inside_the_lattice_bracket(pair, bracket):
    """Poisson add (q 1/10, scale 1, T 1000) and remove (q 1/20, sensitivity 2 on a
    lattice of step 2, T 300); the brackets: ``refacct.epsilon(pair ** steps, "1e-5",
    method="bracket", width="1e-2")`` (26 s and 6 s)."""
    steps = 1000 if pair.P == Laplace(0, 1) else 300
    found = refacct.epsilon(pair ** steps, "1e-5", method="transform")
    assert found.proven and found.verified_digits >= 20
    assert bracket.holds(found.lower, found.upper)


def test_a_flat_loss_is_bounded_by_the_far_bound_where_the_scan_stops():
    """Scale 1/2, q 1/100, add-remove, 100 steps: G is about 180 M(c) at the cell's low end,
    the decay scan's cells stop before V / s reaches its level, and the far bound at the
    node range's end bounds alone (2 digits when the scan gave M(c) instead)."""
    entry = build(laplace(F(1, 2)), "poisson", "add-remove", q="1/100")
    found = refacct.delta(entry, "1/10", steps=100)
    bracket = refacct.delta(entry, "1/10", steps=100, method="bracket")
    assert found.engine == "transform" and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


def test_wor_substitution_at_100_steps_is_decided_without_a_warm_start():
    """The Laplace mechanism (b 1) under WOR substitution, a batch of 10 of 1000, 100 steps:
    eps(1e-5) asked first (no grid of an earlier query to start from), where the
    enclosure 4 digits beyond those asked is out of reach (the atoms' floor) and the grid
    of 20 decides it.  The maximum over the orders lies above the term whose every step
    runs one way, Pair(A, B)^100, bracketed by the lattice engine."""
    refacct.transform._LAST.clear()
    entry = build(laplace(1), "wor", "substitution", n=1000, batch=10)
    found = refacct.epsilon(entry, "1e-5", steps=100)
    assert found.engine == "transform" and found.proven and found.verified_digits >= 20
    pair = entry.terms[1][1].factors[0][0]
    one_way = refacct.epsilon(pair ** 100, "1e-5", method="bracket")
    assert one_way.lower <= found.upper


@pytest.mark.slow
def test_a_mixed_orders_tail_out_of_reach_is_taken_term_by_term():
    """eps(1e-100) of the same entry lies where the atoms carry delta: the grid of the
    maximum over the orders, which composes both directions, is out of the transform's
    reach, so the 101 terms go one by one (20 s).  Their Chernoff ceilings leave out every
    term but the order whose every step runs one way (A || B, the loss up to 100 ln(99/100
    + e^2/100)), a single factor whose part that does not decay is subtracted.  The
    maximum is at least that term, whose lattice bracket (an independent method) holds
    the value."""
    entry = build(laplace(1), "wor", "substitution", n=1000, batch=10)
    found = refacct.epsilon(entry, "1e-100", steps=100, digits=10)
    assert found.engine == "transform" and found.proven and found.verified_digits >= 10
    assert found.attained_by == ("j=100",) and len(found.terms) == 101
    pair = entry.terms[1][1].factors[0][0]
    one_way = refacct.epsilon(pair ** 100, "1e-100", method="bracket")
    assert one_way.lower <= found.lower <= found.upper <= one_way.upper


def test_auto_takes_the_transform_for_the_poisson_laplace_entry():
    """Laplace, scale 1, Poisson q 1/100, add-remove, 1000 steps: 10 draws of the record."""
    entry = build(laplace(1), "poisson", "add-remove", q="1/100")
    found = refacct.epsilon(entry, "1e-5", steps=1000)
    assert found.engine == "transform" and found.verified_digits >= 20
    # refacct.epsilon(entry, "1e-5", steps=1000, method="bracket", width="1e-3") (11 s)
    assert StoredBracket("1.12187", "1.12377").holds(found.lower, found.upper)


def test_an_enclosure_next_to_one_ends_at_one():
    """delta = sup_S P(S) - e^eps Q(S) <= 1: Laplace b 1, 1000 steps, delta(1/10) lies
    within 1e-38 of 1 (eps(1e-5) is 474), and its enclosure's upper end is 1, not above."""
    r = refacct.delta(build(laplace(1), "none", "add-remove"), "1/10", steps=1000,
                      method="transform")
    assert r.proven and r.upper == 1 and r.verified_digits >= 20


def test_beyond_the_closed_form_few_steps_off_the_atoms_take_the_transform():
    """e0 = 1/1000, 2 10^4 steps (beyond the closed form's 10^4): about 10 steps off the
    atoms; the transform's enclosure (6 digits, its floor is the atoms' share) holds the
    closed form of the 2 10^4-fold law (exact convolution)."""
    found = refacct.delta(build(laplace(1000), "none", "add-remove"), F(1, 2), steps=20000)
    with mp.workdps(40):
        value, bound = hockey_laplace(F(1, 1000), 20000, mp.exp(F(1, 2)), eps=F(1, 2))
        assert found.engine == "transform" and found.proven and found.verified_digits >= 3
        assert found.lower <= value - bound and value + bound <= found.upper


def test_deep_in_the_tail_the_atom_at_the_supremum_decides_eps():
    """Poisson b 1, q 1/100, add-remove, 100 steps: the atom at the loss's supremum
    100 ln(1 - q + q e) has P-mass (e^{-1} (1 - q + q e) / 2)^100, about 2e-73, so
    eps(1e-100) lies within 1e-26 below the supremum: 20 digits, inside the lattice
    bracket (3 digits; the transform's grids did not reach it)."""
    entry = build(laplace(1), "poisson", "add-remove", q="1/100")
    found = refacct.epsilon(entry, "1e-100", steps=100)
    bracket = refacct.epsilon(entry, "1e-100", steps=100, method="bracket")
    with mp.workdps(50):
        top = 100 * mp.log(1 - mp.mpf(1) / 100 + mp.e / 100)
        assert found.lower <= top <= found.upper and top - found.lower < mp.mpf(10) ** -26
    assert found.proven and found.verified_digits >= 20
    assert bracket.lower <= found.lower <= found.upper <= bracket.upper


def test_the_atom_at_the_supremum_meets_the_exact_convolution():
    """Lap(1, 1) vs Lap(0, 1), 10 steps, eps(1e-30): 10 + ln(1 - 2^10 10^-30) from the atom
    at the supremum (P-mass 2^-10), inside the exact T-fold law's bracket."""
    pair = build(laplace(1), "none", "add-remove")
    found = refacct.epsilon(pair, "1e-30", steps=10, method="transform")
    exact = refacct.epsilon(pair, "1e-30", steps=10, method="quadrature")
    assert found.verified_digits >= 20
    assert max(found.lower, exact.lower) <= min(found.upper, exact.upper)
