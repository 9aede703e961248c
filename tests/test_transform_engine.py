"""The transform engine through the door (``method="transform"``, ``refacct.transform``):
delta(eps) and eps(delta) of many-step compositions as proven enclosures.

Oracles: the Gaussian shift's closed form (Balle and Wang 2018, arXiv:1805.06530, Thm 8;
conftest.balle_wang; a noise schedule of shifts is one shift with m^2 = sum_i T_i m_i^2),
the supremum of the add direction's privacy loss, ln(1 / (1 - q)) a step (q / p = 1 / B <=
1 / (1 - q)), and the lattice engine's proven brackets (an independent method: mass on a
lattice, no transform) for Poisson-subsampled Gaussians, moved, scaled and mixed, and
the quadrature engine's two-step integral where both run."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from conftest import StoredBracket, balle_wang
from refacct import Gaussian, Laplace, Mixture, Pair
from refacct.engines.arb import acb, arb, flint, floor_mid, power_log
from refacct.errors import InputError
from refacct.mechanisms import build, gaussian


def subsampled(sigma, q, low=0, high=1) -> Pair:
    """Remove direction: (1 - q) N(low, sigma^2) + q N(high, sigma^2) vs N(low, sigma^2)."""
    q = F(q)
    return Pair(Mixture([(1 - q, Gaussian(low, sigma)), (q, Gaussian(high, sigma))]),
                Gaussian(low, sigma))


def contains(outer, inner) -> bool:
    return outer.lower <= inner.lower <= inner.upper <= outer.upper


@pytest.mark.parametrize("steps", [10 ** 3, 10 ** 5])
def test_shift_delta_and_epsilon_contain_the_closed_form(steps):
    pair = Pair(Gaussian(1, 10), Gaussian(0, 10))     # m^2 = T / 100
    r = refacct.delta(pair, 3, steps=steps, method="transform")
    e = refacct.epsilon(pair, "1e-10", steps=steps, method="transform")
    with mp.workdps(60):
        m = mp.sqrt(mp.mpf(steps) / 100)
        assert r.proven and r.engine == "transform" and r.verified_digits >= 20
        assert r.lower <= balle_wang(3, m) <= r.upper
        assert e.proven and e.verified_digits >= 20
        assert balle_wang(e.lower, m) > mp.mpf("1e-10") >= balle_wang(e.upper, m)


def test_lists_of_queries_share_grids_and_keep_their_digits():
    """Several deltas (and eps) on one target: each answer on the last grid when it is
    fine enough there, else on its own; every one contains the closed form."""
    pair = Pair(Gaussian(1, 10), Gaussian(0, 10))
    deltas = ["1e-12", "1e-10", "1e-8"]
    found = refacct.epsilon(pair, deltas, steps=10 ** 4, method="transform")
    values = refacct.delta(pair, [4, 5, 6], steps=10 ** 4, method="transform")
    with mp.workdps(60):
        m = mp.mpf(10)
        for d, e in zip(deltas, found):
            assert e.verified_digits >= 20
            assert balle_wang(e.lower, m) > mp.mpf(d) >= balle_wang(e.upper, m)
        for eps, r in zip([4, 5, 6], values):
            assert r.verified_digits >= 20 and r.lower <= balle_wang(eps, m) <= r.upper


def test_a_far_warm_start_still_gives_the_digits_asked():
    """delta(60) leaves a grid far from eps(1e-6) ~ 19.4 of the same target: the search
    re-plans at the roots it finds until the bracket is 10 digits narrow (it once returned
    the first bracket its grids decided, [0, 40]); the closed form lies inside."""
    pair = Pair(Gaussian(1, 10), Gaussian(0, 10))
    refacct.delta(pair, 60, steps=1000, method="transform")
    e = refacct.epsilon(pair, "1e-6", steps=1000, method="transform", digits=10)
    with mp.workdps(60):
        m = mp.sqrt(10)
        assert e.verified_digits >= 10
        assert balle_wang(e.lower, m) > mp.mpf("1e-6") >= balle_wang(e.upper, m)


def test_a_coarse_answer_of_the_same_query_still_leaves_the_digits_asked():
    """sigma 1, q 1/100, 1000 steps, eps(1e-5) at 6 digits (a time limit's first stage)
    leaves a grid whose root starts the secant of the 20-digit query at the root itself:
    its last two gaps were equal, the slope taken as 1e-6, and the certified points
    3.5e-20 apart (19 digits, on every grid alike).  The 20-digit answer has its digits
    and lies inside the lattice bracket."""
    pair = subsampled(1, F(1, 100))
    refacct.epsilon(pair, "1e-5", steps=1000, method="transform", digits=6)
    found = refacct.epsilon(pair, "1e-5", steps=1000, method="transform")
    bracket = refacct.epsilon(pair, "1e-5", steps=1000, method="bracket", width="1e-3")
    assert found.verified_digits >= 20 and contains(bracket, found)


def test_a_warm_start_whose_root_lies_beyond_the_sup_is_not_followed():
    """Add direction, sigma 2, q 1/10, 100 steps: the loss is at most 100 ln(10/9) = 10.54;
    delta(1) leaves a grid on which the secant for eps(1e-30) runs to 12.7, beyond it,
    where no contour fits (the next grid's search never ended); the search starts from
    the saddle instead, and the lattice bracket contains its answer."""
    add = subsampled(2, F(1, 10)).swap()
    refacct.delta(add, 1, steps=100, method="transform")
    found = refacct.epsilon(add, "1e-30", steps=100, method="transform")
    bracket = refacct.epsilon(add, "1e-30", steps=100, method="bracket", width="1e-3")
    assert found.verified_digits >= 20 and contains(bracket, found)


def test_a_tail_grid_does_not_steer_the_next_search():
    """Add direction, sigma 2, q 1/10, 10 steps: delta(1) lies in the tail below the sup
    10 ln(10/9) = 1.054 and leaves a grid of 2 10^5 nodes at Re z = 200 that decides
    eps(1e-10) only as [0, 3]; its root had placed the next grids too (36 s, and [0, 3]
    came back).  A warm start's root steers only when its bracket has 3 digits: the
    answer has the 6 digits asked and lies inside the lattice bracket."""
    add = subsampled(2, F(1, 10)).swap()
    refacct.delta(add, 1, steps=10, method="transform", digits=6)
    found = refacct.epsilon(add, "1e-10", steps=10, method="transform", digits=6)
    bracket = refacct.epsilon(add, "1e-10", steps=10, method="bracket", width="1e-3")
    assert found.verified_digits >= 6 and contains(bracket, found)


def test_eps_lies_below_the_sup_of_a_bounded_loss():
    """eps(delta) <= sup of the loss for every delta > 0 (delta is 0 there): add direction,
    sigma 2, q 1/10, 10 steps, eps(1e-100), a tail whose bracket had ended at 7.35, lies
    below 10 ln(10/9) (closed form), up to the enclosure of the sup (1e-12 here)."""
    add = subsampled(2, F(1, 10)).swap()
    e = refacct.epsilon(add, "1e-100", steps=10, method="transform", digits=6)
    with mp.workdps(60):
        assert e.upper - 10 * mp.log(mp.mpf(10) / 9) < mp.mpf("1e-12")


def test_a_noise_schedule_of_shifts_is_one_shift():
    """300 steps at sigma 10, 100 at sigma 5: m^2 = 3 + 4 = 7."""
    schedule = Pair(Gaussian(1, 10), Gaussian(0, 10)) ** 300 * \
        Pair(Gaussian(0, 5), Gaussian(1, 5)) ** 100
    r = refacct.delta(schedule, 1, method="transform")
    with mp.workdps(60):
        assert r.lower <= balle_wang(1, mp.sqrt(7)) <= r.upper
        assert r.verified_digits >= 20


def test_add_direction_is_zero_beyond_the_sup_of_its_loss():
    """q = 1/2, 4 steps: the loss is at most 4 ln 2 = 2.77 (closed form), so delta(3) is
    exactly 0 and eps(0) = 4 ln 2."""
    add = subsampled(1, F(1, 2)).swap()
    r = refacct.delta(add, 3, steps=4, method="transform")
    assert r.exact == 0 and r.upper == 0 and r.proven
    e = refacct.epsilon(add, 0, steps=4, method="transform")
    with mp.workdps(80):
        assert e.lower <= 4 * mp.log(2) <= e.upper and e.verified_digits >= 20
    unbounded = refacct.epsilon(subsampled(1, F(1, 2)), 0, steps=4, method="transform")
    assert unbounded.value == mp.inf


@pytest.mark.parametrize("kind, query", [("delta", 1), ("epsilon", "1e-5")])
def test_subsampled_gaussian_lies_inside_the_lattice_bracket(kind, query):
    """sigma 2, q 1/2, 100 steps, the pair moved and scaled (means 3 and 1, sigma 4: the
    same loss as means 0 and 1 at sigma 2), against the lattice bracket of the pair as
    given."""
    pair = subsampled(4, F(1, 2), low=3, high=1)
    ask = getattr(refacct, kind)
    found = ask(pair, query, steps=100, method="transform")
    bracket = ask(pair, query, steps=100, method="bracket", width="1e-3")
    assert found.proven and found.verified_digits >= 20
    assert contains(bracket, found)


def test_one_subsampled_step_is_refused_not_run_for_ever():
    """At T = 1 the transform of a subsampled loss decays as a power of t (the loss piles up
    at its infimum ln(1 - q)), so its range would grow past any budget: refused, naming the
    methods that answer it."""
    with pytest.raises(InputError, match="quadrature"):
        refacct.delta(subsampled(1, F(1, 2)), 1, steps=1, method="transform")


def test_two_steps_overlap_nested_quadrature():
    """The smallest count where both run (sigma 1/2, q 9/10: at q 1/2 the transform of two
    or three steps decays too slowly in t; three steps of quadrature take minutes): the
    transform's proven enclosure and the quadrature engine's (a two-dimensional integral
    of the densities, no transform) intersect, and each has digits."""
    pair = subsampled(F(1, 2), F(9, 10))
    found = refacct.delta(pair, F(1, 2), steps=2, method="transform", digits=6)
    nested = refacct.delta(pair, F(1, 2), steps=2, method="quadrature", digits=6)
    assert found.proven and found.verified_digits >= 4 and nested.verified_digits >= 6
    assert found.lower <= nested.upper and nested.lower <= found.upper


def test_three_steps_contain_the_nested_quadrature():
    """sigma 1, q 1/10, delta(1), three steps: few steps decay as e^{-3 (s^2 / 2) ln^2(q t)}
    in t, which the strip's bound follows (about 10^5 nodes, each t a line's sum); 20
    proven digits against the quadrature engine's 9.28393521829e-4 (nested integrals of
    the densities, 27 digits verified in 101 s: docs/benchmarks.md)."""
    found = refacct.delta(subsampled(1, F(1, 10)), 1, steps=3, method="transform")
    assert found.proven and found.verified_digits >= 20
    with mp.workdps(30):
        assert abs(found.value - mp.mpf("9.28393521829e-4")) <= mp.mpf("5e-16") + found.abs_error


@pytest.mark.parametrize("steps", [4, 8])
def test_four_and_eight_steps_lie_inside_the_lattice_bracket(steps):
    pair = subsampled(1, F(1, 10))
    found = refacct.delta(pair, 1, steps=steps, method="transform")
    bracket = refacct.delta(pair, 1, steps=steps, method="bracket", width="1e-3")
    assert found.verified_digits >= 20 and contains(bracket, found)


def test_pairs_it_does_not_take_are_refused_by_name():
    sampled = Pair(Mixture([(F(9, 10), Laplace(0, 1)), (F(1, 10), Gaussian(1, 1))]),
                   Laplace(0, 1))
    with pytest.raises(InputError, match="transform"):
        refacct.delta(sampled, 1, steps=100, method="transform")


def test_mixed_mechanisms_lie_inside_the_lattice_bracket():
    """Two sampling rates and noise levels and a Gaussian shift in one composition; the
    bracket: ``refacct.delta(mixed, 1, method="bracket", width="1e-3")`` (46 s)."""
    mixed = subsampled(2, F(1, 2)) ** 60 * subsampled(F(3, 2), F(1, 5)) ** 100 * \
        Pair(Gaussian(1, 10), Gaussian(0, 10)) ** 100
    found = refacct.delta(mixed, 1, method="transform")
    assert found.verified_digits >= 20
    assert StoredBracket("0.694508", "0.694608").holds(found.lower, found.upper)


@pytest.mark.slow
def test_truncated_poisson_lies_inside_the_lattice_bracket():
    """Truncated Poisson sampling (004 Thm 3.1: n 1000, p 1/100, batches cut at 12), 200
    steps, add-remove: the public mixture's M = sum_r w_r M_r raised to the power T, never
    its T-fold sum over counts, by both doors (the 1-step entry and T, explicitly and under
    auto)."""
    entry = build(gaussian(1), "truncated-poisson", "add-remove", n=1000, p_sample="1/100",
                  max_batch=12)
    found = refacct.delta(entry, 1, steps=200, method="transform")
    routed = refacct.delta(entry, 1, steps=200)
    assert found.verified_digits >= 20
    # refacct.delta(entry, 1, steps=200, method="bracket") (12 s)
    assert StoredBracket("0.0134323", "0.0134937").holds(found.lower, found.upper)
    assert routed.engine == "transform"
    assert routed.lower <= found.upper and found.lower <= routed.upper


def test_truncated_poisson_at_few_steps_lies_inside_the_lattice_bracket():
    """Truncated Poisson (n 100, p 1/20, batches cut at 6) at 20 steps, below the 100 of
    the many-step rule: auto takes the transform (the few-steps rule for public mixtures),
    whose digits lie inside the lattice bracket (alone: 3 digits)."""
    entry = build(gaussian(1), "truncated-poisson", "add-remove", n=100, p_sample="1/20",
                  max_batch=6)
    routed = refacct.delta(entry, 1, steps=20)
    assert routed.engine == "transform" and routed.verified_digits >= 20
    # refacct.delta(entry, 1, steps=20, method="bracket") (20 s)
    assert StoredBracket("0.0301112", "0.030119").holds(routed.lower, routed.upper)


@pytest.mark.slow
def test_truncated_poisson_at_three_steps_lies_inside_the_lattice_bracket():
    """Truncated Poisson (n 100, p 1/20, batches cut at 6) at 3 steps under substitution:
    auto takes the transform (the nested quadrature took more than a minute), whose digits
    lie inside the lattice bracket."""
    entry = build(gaussian(1), "truncated-poisson", "substitution", n=100, p_sample="1/20",
                  max_batch=6)
    routed = refacct.delta(entry, 1, steps=3)
    assert routed.engine == "transform" and routed.verified_digits >= 20
    # refacct.delta(entry, 1, steps=3, method="bracket") (7 s):
    # [0.00449277240420165, 0.00449296460036416]
    assert StoredBracket("0.00449277", "0.00449297").holds(routed.lower, routed.upper)


def test_a_far_tail_beyond_the_steering_precision_lies_inside_the_lattice_bracket():
    """sigma 1, q 1e-3, 10^4 steps: ln M_T(c2) is too large to evaluate past c2 ~ 30, so
    the Chernoff point is steered inside that range (it once ran to the edge, 200, and h
    fell to 0.005)."""
    entry = build(gaussian(1), "poisson", "add-remove", q="1e-3")
    found = refacct.epsilon(entry, "1e-5", steps=10 ** 4, method="transform")
    assert found.verified_digits >= 20
    # refacct.epsilon(entry, "1e-5", steps=10 ** 4, method="bracket", width="1e-3") (67 s)
    assert StoredBracket("0.475592", "0.475866").holds(found.lower, found.upper)


def test_opacus_tutorial_epsilon_lies_inside_the_lattice_bracket():
    """The Opacus CIFAR-10 tutorial (sigma 1.1, q 256/50000, 3910 steps), add-remove:
    eps(1e-5) to 20 proven digits, the maximum over both directions."""
    entry = build(gaussian("1.1"), "poisson", "add-remove", q="256/50000")
    found = refacct.epsilon(entry, "1e-5", steps=3910, method="transform")
    assert found.verified_digits >= 20 and found.attained_by == ("remove",)
    # refacct.epsilon(entry, "1e-5", steps=3910, method="bracket", width="1e-4") (67 s)
    assert StoredBracket("1.46501", "1.46506").holds(found.lower, found.upper)


def test_power_log_of_a_ball_around_zero_keeps_every_power():
    """exp(T ln m) = m^T: where the ball m contains 0 its 'logarithm' makes a rectangle
    that holds m^T for every point of m (here 0, points on the axes and a corner); where
    it does not, it is Arb's log."""
    m = acb(arb(0, "1e-10"), arb(0, "1e-10"))
    box = (3 * power_log(m)).exp()
    for point in (acb(0), acb("1e-10"), acb(0, "-1e-10"), acb("1e-10", "1e-10")):
        assert box.contains(point ** 3)
    away = acb("0.5", "0.25")
    assert repr(power_log(away)) == repr(away.log())


def test_a_heterogeneous_product_past_its_fastest_factors_rounding():
    """N(0, s^2) mixtures at (sigma, q) = (4/5, 1/10), (9/10, 1/20), (1, 1/10), delta(1/2):
    the first factor's M(c + it) falls below its own rounding long before the product's
    range ends (some 19 000 balls around 0), and the product needs a few bits more than
    the first plan.  Against the lattice bracket and the nested quadrature's
    0.010277544000341630294 +- 3.06e-22 (``method="quadrature"``, 158 s)."""
    def subsampled(sigma, q):
        g0 = Gaussian(0, sigma)
        return Pair(Mixture([(1 - F(q), g0), (F(q), Gaussian(1, sigma))]), g0)
    x = refacct.Composition.of(subsampled(F(4, 5), F(1, 10)), subsampled(F(9, 10), F(1, 20)),
                               subsampled(1, F(1, 10)))
    r = refacct.delta(x, "1/2", method="transform")
    bracket = refacct.delta(x, "1/2", method="bracket", width="1e-3")
    assert r.proven and r.verified_digits >= 20
    assert bracket.lower <= r.lower and r.upper <= bracket.upper
    with mp.workdps(40):
        assert abs(r.value - mp.mpf("0.010277544000341630294")) <= r.abs_error + \
            mp.mpf("3.06e-22")


def test_a_grid_whose_sum_is_lost_decides_nothing_and_is_no_input_error(monkeypatch):
    """A grid placed far from the root can lose its sum (an enclosure whose lower end is
    NaN: two steps an epoch of random allocation over 2 epochs, its first grid placed at
    eps 119 where the root is 4.6): ``_certified`` leaves that grid undecided for the next
    one, and a non-finite ball read as a number is refacct's numerical failure, an
    ArithmeticError, not the ValueError that means bad input."""
    from refacct.engines.arb import arb_mid_rad
    from refacct.engines.transform import epsilon

    class Lost:
        plan = type("Plan", (), {"prec": 64})()

    class Ends:
        def ends(self):
            return arb("nan"), arb("1e-5")

    monkeypatch.setattr(epsilon, "on_grid", lambda nodes, eps: Ends())
    assert epsilon._certified(Lost(), F(1, 10 ** 5), F(46, 10), mp.one, 10) is None
    with pytest.raises(ArithmeticError) as raised:
        arb_mid_rad(arb("nan"))
    assert not isinstance(raised.value, ValueError)


@pytest.mark.parametrize("q", [F(15, 4), F(-15, 4), F(0), F(-1, 3), F(5), F(-5),
                               F(2 ** 70) + F(1, 7)])
def test_floor_mid_is_the_floor_of_the_exact_midpoint(q):
    """``floor_mid`` (node counts and digits) against Python's floor of the rational (at
    400 bits the midpoint keeps its fraction; the floors fit the default precision); a
    NaN ball is a numerical failure (ArithmeticError), never a count."""
    with flint.ctx.workprec(400):
        x = arb(q.numerator) / q.denominator
    assert floor_mid(x) == math.floor(q)
    with pytest.raises(ArithmeticError):
        floor_mid(arb("nan"))
