"""Chernoff ceilings (``refacct.engines.transform.chernoff``) and the terms of a catalogue
entry they leave out (``refacct.maximum.over_terms``).

Oracles: the Gaussian shift's closed form (Balle and Wang 2018, arXiv:1805.06530, Thm 8;
``conftest.balle_wang``) and its Chernoff bound in closed form (ln M_T(c) = m^2 c (c + 1) / 2,
minimised over c by mpmath's root finder); each direction of DP-SGD computed alone by the
transform (its full inversion, not the ceiling); the identity that a term below another's
lower end cannot move the maximum (001 Sec. 5)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from conftest import balle_wang
from refacct import Gaussian, Pair
from refacct.engines.arb import arb_ends, flint
from refacct.engines.transform.chernoff import delta_ceiling, epsilon_ceiling
from refacct.engines.transform.mgf import loss_of
from refacct.maximum import maximum
from refacct.mechanisms import build, gaussian
from refacct.result import DeltaResult


def _upper(ball) -> mp.mpf:
    with flint.ctx.workprec(128):
        return arb_ends(ball)[1]


def _chernoff_min(m2, eps):
    """min over c > 0 of ln K(c) + m2 c (c + 1) / 2 - c eps, at the root of its derivative
    ln(c / (1 + c)) + m2 (2c + 1) / 2 - eps (increasing: -inf at 0, +inf at infinity)."""
    c = mp.findroot(lambda c: mp.log(c / (1 + c)) + m2 * (2 * c + 1) / 2 - eps,
                    (mp.mpf("1e-30"), mp.mpf(10) ** 6), solver="anderson")
    return c * mp.log(c) - (1 + c) * mp.log(1 + c) + m2 * c * (c + 1) / 2 - c * eps


@pytest.mark.parametrize("steps, eps", [(100, 1), (10 ** 4, 30), (10 ** 4, 100)])
def test_delta_ceiling_lies_above_the_closed_form_and_at_the_best_chernoff_bound(steps, eps):
    loss = loss_of(Pair(Gaussian(1, 10), Gaussian(0, 10)), steps)   # m^2 = T / 100
    top = _upper(delta_ceiling(loss, F(eps)))
    with mp.workdps(40):
        m2 = mp.mpf(steps) / 100
        assert balle_wang(eps, mp.sqrt(m2)) <= top
        best = mp.exp(_chernoff_min(m2, eps))
        assert best <= top <= min(best * (1 + mp.mpf("1e-3")), 1)


@pytest.mark.parametrize("delta", ["1e-5", "1e-100"])
def test_epsilon_ceiling_lies_above_the_closed_form(delta):
    steps = 10 ** 4
    loss = loss_of(Pair(Gaussian(1, 10), Gaussian(0, 10)), steps)
    top = _upper(epsilon_ceiling(loss, F(delta)))
    with mp.workdps(40):
        m = mp.sqrt(mp.mpf(steps) / 100)
        assert balle_wang(top, m) <= mp.mpf(delta)      # so eps(delta) <= top
        assert balle_wang(top * (1 - mp.mpf("0.2")), m) > mp.mpf(delta)   # and not far above


def test_the_add_direction_below_the_remove_answer_is_left_out_and_lies_under_its_ceiling():
    """sigma 1, q 1/100, T 100, eps(1e-5): add 0.338..., remove 0.718... (each alone)."""
    steps, delta = 100, "1e-5"

    def alone(relation):
        entry = build(gaussian(1), "poisson", relation, q="1/100")
        return refacct.epsilon(entry, delta, steps=steps, method="transform")
    both = refacct.epsilon(build(gaussian(1), "poisson", "add-remove", q="1/100"), delta,
                           steps=steps)
    add, remove = alone("add"), alone("remove")
    terms = dict(both.terms)
    assert both.attained_by == ("remove",) and both.proven
    assert "Chernoff" in terms["add"].method and terms["add"].lower == 0
    assert add.upper <= terms["add"].upper < remove.lower
    assert both.lower == remove.lower and both.upper == remove.upper
    assert both.verified_digits >= 20


def test_the_error_of_a_maximum_is_that_of_the_terms_that_may_attain_it():
    high = DeltaResult(mp.mpf("1e-3"), mp.mpf("1e-12"), "m", 20, eps=F(1))
    low = DeltaResult(mp.mpf("1e-6"), mp.mpf("1e-4"), "m", 20, eps=F(1))
    tie = DeltaResult(mp.mpf("1e-3"), mp.mpf("1e-9"), "m", 20, eps=F(1))
    assert maximum([("a", low), ("b", high)], "tight").abs_error == mp.mpf("1e-12")
    both = maximum([("a", low), ("b", high), ("c", tie)], "tight")
    assert both.attained_by == ("b", "c") and both.abs_error == mp.mpf("1e-9")


def test_the_nested_quadrature_leaves_out_orders_below_the_transform_ceiling():
    """The Laplace mechanism (b = 1) under WOR substitution, a batch of 10 of 100, 3 steps,
    delta(1): the nested quadrature (no transform at so few steps) computes only the order
    j = 3; each order's true value, computed alone by the quadrature, lies under its
    ceiling (the Chernoff ceiling for j = 0; the mixed orders j = 1, 2 may take the shifted
    one, ``refacct.shifted``), and those of j < 3 under j = 3's lower end (001 Sec. 5)."""
    from refacct.mechanisms import laplace

    entry = build(laplace(1), "wor", "substitution", n=100, batch=10)
    both = refacct.delta(entry, 1, steps=3, digits=6)
    assert both.attained_by == ("j=3",) and both.engine.startswith("quadrature")
    terms = dict(both.terms)
    alone = {label: refacct.delta(pair, 1, digits=6, method="quadrature")
             for label, pair in build(laplace(1), "wor", "substitution", n=100, batch=10,
                                      steps=3).terms}
    assert "Chernoff" in terms["j=0"].method
    for label in ("j=0", "j=1", "j=2"):
        assert terms[label].method.startswith(("Chernoff", "ceiling")) and terms[label].lower == 0
        assert alone[label].upper <= terms[label].upper < alone["j=3"].lower
    assert both.value == alone["j=3"].value and both.verified_digits >= 6
