"""Random allocation (balls-and-bins), one epoch: the inversion of the lognormal sum's
Laplace transform against a two-dimensional quadrature of the three-step pair that shares
nothing with it, and each error term's bound catching its own injected failure."""
from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath import mp

import refacct

from refacct.allocation import allocation_delta, allocation_epsilon
from refacct.engines.allocation.lognormal import modulus_bound
from refacct.engines.allocation.put import Table, put, table
from refacct.engines.arb import arb, flint, to_arb
from refacct.errors import InputError, OutOfReach
from refacct.mechanisms import build, gaussian
from refacct.result import exact_rational
from conftest import mpq
from test_cli import run


def _one_lognormal_put(b, k):
    """E[(k - Z)_+] for Z = exp(b u - b^2/2), u ~ N(0, 1): k Phi(b - d1) - Phi(-d1), d1 =
    (b^2/2 - ln k) / b (Black and Scholes); 0 where k <= 0."""
    if k <= 0:
        return mp.zero
    d1 = (b * b / 2 - mp.log(k)) / b
    return k * mp.ncdf(b - d1) - mp.ncdf(-d1)


def _three_step_put(sigma, strike, dps=15):
    """E[(strike - X)_+] for X the mean of three lognormals exp(b u - b^2/2), b = 1/sigma:
    Gauss-Legendre over (u1, u2) in [-9, 9]^2 (the mass outside is below 1e-18) of the one-
    lognormal put in closed form, k Phi(b - d1) - Phi(-d1) with d1 = (b^2/2 - ln k) / b,
    k = 3 strike - Z1 - Z2 (0 where k <= 0), split at the kinks."""
    with mp.workdps(dps):
        b, k3 = 1 / mp.mpf(sigma), 3 * mp.mpf(strike)

        def one(k):
            return _one_lognormal_put(b, k)

        def z(u):
            return mp.exp(b * u - b * b / 2)

        def cuts(rest):
            inside = [] if rest <= 0 else [(mp.log(rest) + b * b / 2) / b]
            return [mp.mpf(-9)] + [c for c in inside if -9 < c < 9] + [mp.mpf(9)]

        def inner(u1):
            rest = k3 - z(u1)
            return mp.quad(lambda u2: one(rest - z(u2)) * mp.npdf(u2), cuts(rest),
                           method="gauss-legendre")

        return mp.quad(lambda u1: inner(u1) * mp.npdf(u1), cuts(k3),
                       method="gauss-legendre") / 3


@pytest.mark.slow
def test_three_steps_both_orders_against_quadrature():
    """H(Q || P) = e^eps put(e^-eps) directly; H(P || Q) at eps through the identity
    H_{e^eps}(P || Q) = put(e^eps) - e^eps + 1 (E_Q[p/q] = 1) with the put at e^eps from the
    quadrature: both to 7 digits, sigma 1, eps 1."""
    e = mp.e
    reverse = allocation_delta(1, 3, 1, swap=True, digits=8)
    forward = allocation_delta(1, 3, 1, digits=8)
    with mp.workdps(20):
        want_reverse = e * _three_step_put(1, 1 / e, dps=10)
        want_forward = _three_step_put(1, e, dps=10) - e + 1
        assert abs(reverse.value - want_reverse) < 1e-7 * want_reverse
        assert abs(forward.value - want_forward) < 1e-7 * want_forward
    assert reverse.proven and forward.proven
    assert reverse.abs_error < 1e-8 * reverse.value


def _fine_and_cut(nodes: int):
    """The put at K = 1 for t = 100, sigma 1, from a full table and from its first
    ``nodes`` nodes with the truncation bound recomputed for that cut."""
    t, bits = 100, 200
    with flint.ctx.workprec(bits):
        b = arb(1)
        full = table(t, b, arb(1), arb(2) ** -80, bits)
        cut_at = full.h * (nodes - 1)
        tail = modulus_bound(full.c, cut_at, t, b, bits) ** t
        cut = Table(t, full.c, full.h, full.k_max, full.values[:nodes], tail, bits)
        return put(full, arb(1)), put(cut, arb(1)), len(full.values)


def test_a_short_table_is_caught_by_its_truncation_bound():
    """Cut the nodes to a quarter: the ball widens (the dropped terms are bounded, not
    ignored) and still contains the full table's value."""
    fine, short, n = _fine_and_cut(16)
    assert n > 32
    assert short.rad() > 1e6 * fine.rad()
    assert short.contains(fine)


def test_a_coarse_line_is_caught_by_its_aliasing_bound():
    """A tolerance of 1e-3 puts the line at a small c, where the aliased terms k > 0 are
    not negligible: the ball is wide by their bound and contains the fine value."""
    t, bits = 100, 200
    with flint.ctx.workprec(bits):
        b, K = arb(1), arb(1)
        fine = put(table(t, b, K, arb(2) ** -80, bits), K)
        coarse = put(table(t, b, K, arb("1e-3"), bits), K)
        assert coarse.rad() > 1e-6
        assert coarse.contains(fine)


def test_a_strike_beyond_the_line_spacing_is_refused():
    """h <= 2 pi / K keeps the aliased terms k < 0 at zero; a larger strike would not."""
    with flint.ctx.workprec(128):
        tab = table(100, arb(1), arb(1), arb(2) ** -40, 128)
        with pytest.raises(ValueError, match="strike"):
            put(tab, arb(2))


def test_slow_decay_is_refused_at_once():
    """t = 2: the transform decays too slowly for the node budget; the table refuses from
    one bound at the budget's edge, not after the budget is spent (the public functions
    take t = 2 by ``engines.allocation.two`` and refuse t = 1, the Gaussian mechanism)."""
    with flint.ctx.workprec(128):
        with pytest.raises(OutOfReach, match="nodes"):
            table(2, arb(1), arb(3), arb(2) ** -60, 128)
    with pytest.raises(OutOfReach, match="at least 2 steps"):
        allocation_delta(1, 1, 1)


@pytest.mark.parametrize("kwargs, error", [
    (dict(sigma=0, steps=100, eps=1), ValueError),
    (dict(sigma=1, steps=0, eps=1), ValueError),
    (dict(sigma=1, steps=Fraction(3, 2), eps=1), TypeError),
    (dict(sigma=1, steps=100, eps=1, swap="yes"), TypeError),
])
def test_bad_input_names_the_parameter(kwargs, error):
    args = (kwargs.pop("sigma"), kwargs.pop("steps"), kwargs.pop("eps"))
    with pytest.raises(error):
        allocation_delta(*args, **kwargs)


def test_many_steps_in_seconds_with_every_digit_proven():
    """t = 1000, sigma 1, eps 1/5: 20 digits with a ball, both orders; delta falls with
    eps (a property of every hockey-stick curve, checked across two inversions)."""
    lower = allocation_delta(1, 1000, Fraction(1, 5))
    higher = allocation_delta(1, 1000, Fraction(1, 4))
    assert lower.verified_digits >= 20
    assert higher.upper < lower.lower
    assert mpmath.mpf(0) < higher.lower


def test_eps_of_delta_is_bracketed_by_fresh_delta_balls():
    """Each order's eps(1e-5) at t = 1000: delta at the bracket's lower end, computed on
    its own nodes (a line and spacing set by that strike, not the bracket's), lies above
    1e-5, and at the upper end below; the epoch's eps is the larger order's."""
    target = Fraction(1, 10 ** 5)
    found = allocation_epsilon(1, 1000, target)
    assert found.proven and found.verified_digits >= 20
    for label, result in found.terms:
        lo, hi = (exact_rational(x) for x in result.enclosure)
        swap = label == "add"
        at_lo = allocation_delta(1, 1000, lo, swap=swap, digits=25)
        at_hi = allocation_delta(1, 1000, hi, swap=swap, digits=25)
        assert exact_rational(at_lo.lower) > target > exact_rational(at_hi.upper)
    assert found.value == max(r.value for _, r in found.terms)


def test_the_door_and_the_command_line_take_the_catalogue_entry(capsys):
    """``sampling="random-allocation"``: ``steps`` are the steps of the epoch; "add-remove"
    is the larger order ("remove": H(P || Q), P the mixture), one relation takes one order;
    the command line prints the same proven value and refuses a relation the pair does not
    have in one line with status 2."""
    both = build(gaussian(1), "random-allocation", "add-remove")
    add = build(gaussian(1), "random-allocation", "add")
    answer = refacct.delta(both, "1/5", steps=1000)
    remove = allocation_delta(1, 1000, Fraction(1, 5))
    added = allocation_delta(1, 1000, Fraction(1, 5), swap=True)
    assert answer.attained_by == ("remove",) and remove.lower > added.upper
    assert answer.proven and answer.lower == remove.lower and answer.upper == remove.upper
    alone = refacct.delta(add, "1/5", steps=1000)
    assert (alone.lower, alone.upper) == (added.lower, added.upper)
    status, out, err = run(capsys, "delta", "gaussian", "--sigma", "1", "--sampling",
                           "random-allocation", "--steps", "1000", "--eps", "1/5", "--json")
    assert status == 0   # stderr: at most the heartbeat of a machine slower than 10 s
    assert all(line.startswith("refacct: still computing") for line in err.splitlines())
    records = json.loads(out)
    assert records[0]["proven"] and records[0]["attained_by"] == "remove"
    assert Fraction(records[0]["lower"]) <= exact_rational(remove.upper)
    assert Fraction(records[0]["upper"]) >= exact_rational(remove.lower)
    status, _, err = run(capsys, "delta", "gaussian", "--sigma", "1", "--sampling",
                         "random-allocation", "--relation", "substitution", "--steps", "10",
                         "--eps", "1")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "relation" in err


def test_a_negative_eps_in_either_order():
    """eps < 0: H_{e^eps}(Q || P) = e^eps H_{e^-eps}(P || Q) + 1 - e^eps (E_Q[p/q] = 1), the
    left side from the order with ``swap`` at a strike above 1, the right from the other
    order's algebra; both in [1 - e^eps, 1]."""
    left = allocation_delta(1, 100, Fraction(-1, 2), swap=True, digits=15)
    right = allocation_delta(1, 100, Fraction(1, 2), digits=15)
    with mp.workdps(40):
        e = mp.exp(mp.mpf(-1) / 2)
        assert abs(left.value - (e * right.value + 1 - e)) <= 2 * (left.abs_error + right.abs_error)
        assert 1 - e <= left.lower and left.upper <= 1


def test_a_delta_below_the_tolerance_is_a_nonnegative_ball():
    """H(Q || P) at t = 1000, sigma 1, eps 1 lies below the inversion's reach (about
    5e-146): the ball is [0, upper], never centred below 0, and its upper end lies below
    an independent Chernoff-free bound: X >= the geometric mean e^{b G - b^2/2} (AM-GM),
    G ~ N(0, 1/t), so H = E[(1 - e X)_+] <= Q(X <= 1/e) <= Phi((b^2/2 - 1) sqrt(t) / b)."""
    found = allocation_delta(1, 1000, 1, swap=True)
    assert found.value >= 0 and found.value - found.abs_error <= 0
    with mp.workdps(30):
        bound = mp.ncdf((mp.mpf(1) / 2 - 1) * mp.sqrt(1000))
    assert found.upper <= bound


# --- t = 2: one integral of the one-lognormal put (engines.allocation.two) ----------------

def _two_step_put(sigma, strike, dps=25):
    """E[(strike - X)_+] for X the mean of two lognormals exp(b u - b^2/2), b = 1/sigma:
    mpmath's tanh-sinh over u1 in [-13, cut] (the normal mass outside is below 1e-37) of
    the one-lognormal put in closed form at k = 2 strike - Z1, cut where k = 0 (no
    substitution, no Arb: nothing shared with the engine but the closed form)."""
    with mp.workdps(dps):
        b, k2 = 1 / mpq(sigma), 2 * mp.mpf(strike)
        cut = (mp.log(k2) + b * b / 2) / b   # k = 0 there (rounding next to it: 0 too)
        return mp.quad(lambda u: _one_lognormal_put(b, k2 - mp.exp(b * u - b * b / 2))
                       * mp.npdf(u), [-13, cut]) / 2


@pytest.mark.parametrize("sigma, eps", [(1, Fraction(1, 2)), (Fraction(1, 2), 2), (2, 0)])
def test_two_steps_both_orders_against_quadrature(sigma, eps):
    """H(Q || P) = e^eps put(e^-eps), H(P || Q) = put(e^eps) - e^eps + 1: 18 digits of
    both against the quadrature, proven balls of 20 digits."""
    with mp.workdps(30):
        a = mp.exp(mpq(eps))
        want = {False: _two_step_put(sigma, a) - a + 1, True: a * _two_step_put(sigma, 1 / a)}
    for swap, expected in want.items():
        r = allocation_delta(sigma, 2, eps, swap=swap)
        assert r.proven and r.abs_error < 1e-20 * r.value
        assert abs(r.value - expected) < 1e-18 * expected


def test_two_steps_against_the_rotated_pair():
    """Rotating (w1, w2) to ((w1 + w2)/sqrt 2, (w1 - w2)/sqrt 2) factors the pair of t = 2
    into N(1/sqrt 2, sigma^2) vs N(0, sigma^2) times (1/2) N(1/sqrt 2, sigma^2) +
    (1/2) N(-1/sqrt 2, sigma^2) vs N(0, sigma^2) (docs/random-allocation.md); at
    sigma = 1/sqrt 2, scaled by sqrt 2, that is a composition of two rational pairs, which
    refacct's nested quadrature answers: both orders at eps = 1/2 agree within both
    bounds."""
    from refacct import Gaussian, Mixture, Pair, delta
    from refacct.engines.allocation.two import TwoSteps
    from refacct.pairs import Composition
    half = Fraction(1, 2)
    shift = Pair(Gaussian(1, 1), Gaussian(0, 1))
    mixed = Pair(Mixture([(half, Gaussian(1, 1)), (half, Gaussian(-1, 1))]), Gaussian(0, 1))
    bits = 200
    with flint.ctx.workprec(bits):
        K = to_arb(half).exp()
        b = arb(2).sqrt()                              # 1 / sigma, sigma = 1 / sqrt 2
        forward = TwoSteps(b, K, 90, bits).put(K) - K + 1
        reverse = K * TwoSteps(b, 1 / K, 90, bits).put(1 / K)
        for ball, pair in ((forward, Composition.of(shift, mixed)),
                           (reverse, Composition.of(shift.swap(), mixed.swap()))):
            other = delta(pair, half, digits=20)
            assert ball.rad() < 1e-24
            with mp.workdps(40):
                assert abs(mp.mpf(ball.mid().str(35, radius=False)) - other.value) \
                    <= other.abs_error + mp.mpf(10) ** -24


def test_a_short_range_at_two_steps_is_caught_by_its_tail_bounds(monkeypatch):
    """Cut the integral's range to a third at either end: the tails left out are bounded,
    not ignored, so the ball widens and still contains the full range's value."""
    from refacct.engines.allocation.two import TwoSteps
    bits = 160
    with flint.ctx.workprec(bits):
        K, b = arb(2), arb(1)
        full = TwoSteps(b, K, 80, bits)
        fine = full.put(K)
        lo, hi = full._range(float(K.log().mid() + arb(2).log().mid()), 1.0)
        for cut in ((lo / 3, hi), (lo, hi / 3)):
            monkeypatch.setattr(TwoSteps, "_range", lambda self, L, b, cut=cut: cut)
            short = full.put(K)
            assert short.rad() > 1e6 * fine.rad()
            assert short.contains(fine)


def test_two_steps_over_epochs_are_refused_with_the_reason():
    """The lattice cells of E > 1 epochs come from the inversion's table, which does not
    reach t = 2: where the transform does not take them either (sigma < 1/16), refused at
    once, naming the steps an epoch, not the node budget."""
    entry = build(gaussian("1/20"), "random-allocation", "add-remove", steps=2, epochs=2)
    with pytest.raises(InputError, match="at least 3 steps an epoch"):
        refacct.delta(entry, 1)


def test_eps_refused_before_the_tables_it_would_waste(monkeypatch):
    """The eps search checks the node budget of the last table it would need at each end
    before it builds the table at that end: a budget that refuses every plan leaves only
    the first table (at eps = 0) built.  (Measured: sigma 1/2, t = 10 is refused in 24 s
    where it took 126 s.)"""
    import refacct.allocation as allocation
    built = []
    real = allocation.table

    def counting(*args):
        built.append(args[2])
        return real(*args)

    def refuse(*args):
        raise OutOfReach("the budget of this test")
    monkeypatch.setattr(allocation, "table", counting)
    monkeypatch.setattr(allocation, "plan", refuse)
    with pytest.raises(OutOfReach, match="the budget of this test"):
        allocation_epsilon(2, 100, "1e-5", orders=(("remove", False),))
    assert len(built) == 1


def test_two_steps_far_out_stay_within_zero_and_one():
    """At eps = 1000 the put's tolerance, relative to the strike e^1000, leaves no digit:
    both orders answer an enclosure inside [0, 1] (every hockey-stick divergence lies
    there), not an overflow and not a ball reaching 10^295."""
    for swap in (False, True):
        r = allocation_delta(1, 2, 1000, swap=swap)
        assert r.lower <= 0 <= r.upper and r.upper <= 1 + 1e-6


def test_one_epoch_agrees_with_monte_carlo():
    """A sanity check only, as Chua et al. (arXiv:2412.16802) estimate by sampling: under
    Q = N(0, I_t) the ratio p/q is the mean r of t lognormals e^{w_i - 1/2} (sigma 1), so
    H_{e^eps}(P || Q) = E[(r - e^eps)_+] and H_{e^eps}(Q || P) = E[(1 - e^eps r)_+]; 2 10^6
    draws at t = 10, eps 1/2 (numpy, fixed seed) put both proven balls within 5 standard
    errors of the sample means (a standard error under 1 % of the values: a gross error
    only)."""
    rng = np.random.default_rng(20261130)
    t, eps, rounds, n = 10, Fraction(1, 2), 4, 500_000
    strike = float(mp.exp(mpq(eps)))
    sums = {"forward": [0.0, 0.0], "reverse": [0.0, 0.0]}
    for _ in range(rounds):
        r = np.exp(rng.standard_normal((n, t)) - 0.5).mean(axis=1)
        for name, x in (("forward", np.maximum(r - strike, 0)),
                        ("reverse", np.maximum(1 - strike * r, 0))):
            sums[name][0] += x.sum()
            sums[name][1] += (x * x).sum()
    total = rounds * n
    for name, swap in (("forward", False), ("reverse", True)):
        mean = sums[name][0] / total
        error = ((sums[name][1] / total - mean * mean) / total) ** 0.5
        proven = allocation_delta(1, t, eps, swap=swap, digits=10)
        assert abs(float(proven.value) - mean) <= 5 * error, (name, proven.value, mean, error)
        assert error < 1e-2 * mean
