"""Random allocation over epochs: the one-epoch loss on lattice cells (from puts) against
closed-form moments of the lognormal mean, the one-epoch bracket against the proven ball,
and brackets over epochs against the composition theorems that bound them from both sides."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import refacct
from refacct.allocation import allocation_delta
from refacct.engines.allocation.cells import allocation_loss
from refacct.engines.arb import arb, flint, to_arb
from refacct.errors import InputError
from refacct.mechanisms import build, gaussian
from refacct.result import exact_rational
from test_cli import run

SIGMA, STEPS = Fraction(1), 1000
H = Fraction(1, 256)
TAIL = Fraction(1, 10 ** 30)


def _cells(swap):
    loss = allocation_loss(SIGMA, STEPS, swap)
    first = math.floor(loss.range_end(False, TAIL) / H) - 1
    last = math.ceil(loss.range_end(True, TAIL) / H)
    return loss.cells(H, first, last)


def _moment(n: int):
    """E_Q[X^n] for the mean X of t lognormals of mean 1 and log-scale b = 1 / sigma: the
    lognormal's moments e^{b^2 k (k - 1) / 2} give its cumulants, the mean's are
    k_m / t^{m - 1}, and the moments follow from them (m_n = sum_k C(n-1, k-1) k_k m_{n-k})."""
    b2 = to_arb(1 / SIGMA ** 2)

    def moments_of(cumulants):
        m = [arb(1)]
        for j in range(1, n + 1):
            m.append(sum((math.comb(j - 1, k - 1) * cumulants[k] * m[j - k]
                          for k in range(1, j + 1)), arb(0)))
        return m

    raw = [(b2 * k * (k - 1) / 2).exp() for k in range(n + 1)]
    kappa = [arb(0)]
    for j in range(1, n + 1):
        kappa.append(raw[j] - sum((math.comb(j - 1, k - 1) * kappa[k] * raw[j - k]
                                   for k in range(1, j)), arb(0)))
    return moments_of([arb(0)] + [kappa[k] / STEPS ** (k - 1) for k in range(1, n + 1)])[n]


def _knots(cells, sign):
    """e^{sign x_j} for the cells' lattice points x_j, j = first .. last."""
    return [to_arb(sign * H * j).exp() for j in range(cells.first, cells.last + 1)]


def test_remove_cells_hold_the_second_moment_of_the_lognormal_mean():
    """Remove order, L = ln X under P: E_P[X] = E_Q[X^2] = 1 + (e^{b^2} - 1) / t for the
    mean X of t lognormals of mean 1 and log-scale b.  The cells bracket it: each cell's
    P-mass at its ends' X, the mass below at [0, K_first], the mass above at least K_last
    and at most E_Q[X^6] / K_last^4 in total (X^2 <= X^6 / K^4 there; ``_moment``)."""
    cells = _cells(False)
    with flint.ctx.workprec(200):
        K = _knots(cells, 1)
        second = 1 + (to_arb(1 / SIGMA ** 2).exp() - 1) / STEPS
        assert abs(_moment(2) - second) < arb(10) ** -50   # the moments' recursion
        inside_low = sum((p * K[j] for j, p in enumerate(cells.P)), arb(0))
        inside_high = sum((p * K[j + 1] for j, p in enumerate(cells.P)), arb(0))
        low = inside_low + cells.right[0] * K[-1]
        high = inside_high + cells.left[0] * K[0] + _moment(6) / K[-1] ** 4
        assert low.upper() < second.lower() and second.upper() < high.lower()
        assert (high - low).upper() < arb("0.01")   # a bracket that could miss


def test_add_cells_hold_the_mean_of_the_lognormal_mean():
    """Add order, L = -ln X under Q: E_Q[X] = 1, with each cell's Q-mass at its ends' X =
    e^{-x}, the mass of the cells' upper tail (X small) at [0, e^{-x_last}] and that of the
    lower tail (X large) at least e^{-x_first} and at most E_Q[X^6] e^{5 x_first} in total."""
    cells = _cells(True)
    with flint.ctx.workprec(200):
        K = _knots(cells, -1)
        low = sum((p * K[j + 1] for j, p in enumerate(cells.P)), arb(0)) + cells.left[0] * K[0]
        high = sum((p * K[j] for j, p in enumerate(cells.P)), arb(0)) + \
            cells.right[0] * K[-1] + _moment(6) / K[0] ** 5
        assert low.upper() < 1 < high.lower()
        assert (high - low).upper() < arb("0.01")


def test_one_epoch_bracket_holds_the_proven_ball():
    """The lattice bracket of one epoch (``method="bracket"``) contains each order's ball
    from the inversion at the strike itself; the order that attains the maximum is
    bracketed to the default width (1/100 relative), the other only below it."""
    entry = build(gaussian(1), "random-allocation", "add-remove", steps=STEPS)
    found = refacct.delta(entry, "1/5", method="bracket")
    assert found.proven and "lattice" in found.method
    for label, result in found.terms:
        ball = allocation_delta(SIGMA, STEPS, Fraction(1, 5), swap=label == "add", digits=15)
        assert result.lower <= ball.lower and ball.upper <= result.upper
    attained = dict(found.terms)[found.attained_by[0]]
    assert attained.upper - attained.lower <= attained.upper / 100


def test_epochs_between_the_composition_theorems():
    """Three epochs: delta_1(eps) <= delta_3(eps) (post-processing: the first epoch is a
    function of all three) and delta_3(3 eps) <= 3 delta_1(eps) (basic composition),
    against the one-epoch balls."""
    eps = Fraction(1, 10)
    three = build(gaussian(1), "random-allocation", "add-remove", steps=STEPS, epochs=3)
    at_eps, at_3eps = refacct.delta(three, [eps, 3 * eps], method="bracket")
    one = refacct.delta(build(gaussian(1), "random-allocation", "add-remove", steps=STEPS), eps)
    assert at_eps.proven and "lattice" in at_eps.method
    assert one.lower <= at_eps.upper and at_eps.lower > one.upper   # strictly more loss
    assert at_3eps.lower <= 3 * one.upper


def test_epochs_from_the_command_line(capsys):
    """``--epochs`` takes random allocation to proven brackets; another scheme refuses it in
    one line with status 2, as the door refuses epochs < 1 naming the parameter."""
    status, out, err = run(capsys, "delta", "gaussian", "--sigma", "1", "--sampling",
                           "random-allocation", "--steps", str(STEPS), "--epochs", "2",
                           "--eps", "1/2", "--json")
    assert status == 0
    record = json.loads(out)[0]
    door = refacct.delta(build(gaussian(1), "random-allocation", "add-remove", steps=STEPS,
                               epochs=2), "1/2")
    assert record["proven"]
    assert Fraction(record["lower"]) <= exact_rational(door.upper)
    assert Fraction(record["upper"]) >= exact_rational(door.lower)
    status, _, err = run(capsys, "delta", "gaussian", "--sigma", "1", "--sampling", "poisson",
                         "--q", "1/10", "--epochs", "2", "--eps", "1")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "epochs" in err
    with pytest.raises(InputError, match="epochs"):
        build(gaussian(1), "random-allocation", "add-remove", steps=10, epochs=0)


def test_the_strike_cap_takes_any_positive_sigma():
    """k_max is a power of 2 in [2, 16] for every sigma > 0, also where 1 / sigma has no
    float (the cap of a vanishing sigma is the largest: its loss is heaviest-tailed)."""
    from refacct.engines.allocation.cells import MAX_STRIKE, strike_cap
    assert strike_cap(Fraction(1, 10 ** 400), 10) == MAX_STRIKE
    assert strike_cap(Fraction(10 ** 400), 10) == 2
