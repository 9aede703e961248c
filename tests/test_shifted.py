"""The ceiling of a composition of two pairs, one with a bounded loss (``refacct.shifted``):
it holds (above the term computed in full, by the certified engine's two-step composition)
and lets the door leave out the mixed order of WOR substitution at two steps."""
from __future__ import annotations

from fractions import Fraction

import pytest

import refacct
from refacct import Gaussian, Mixture, Pair
from refacct.certified import CERTIFIED
from refacct.engine import Request
from refacct.pairs import Composition
from refacct.shifted import shifted_ceiling

A = Gaussian(-1, 1)
B = Mixture([("9/10", Gaussian(-1, 1)), ("1/10", Gaussian(1, 1))])


def test_the_ceiling_holds_above_the_mixed_order():
    """Order j = 1 of two steps (one step each way): its ceiling, one step of B || A at
    eps - ln(10/9), lies above its value and below order j = 2's (two steps B || A)."""
    mixed = Composition(((Pair(A, B), 1), (Pair(B, A), 1)))
    request = Request("delta", (Fraction(1),), 20)
    top = shifted_ceiling(mixed, request, CERTIFIED.answer)
    full = refacct.delta(mixed, 1, method="certified")
    other = refacct.delta(Pair(B, A) ** 2, 1, method="certified")
    assert top.proven and top.lower == 0 and full.upper <= top.upper < other.lower
    assert abs(top.upper - refacct.delta(Pair(B, A), 1 - Fraction(10536052, 10 ** 8)).value) \
        < 1e-6


def test_no_ceiling_without_a_bounded_loss():
    """Two Gaussian shifts: both losses unbounded above."""
    two = Composition(((Pair(Gaussian(1, 1), Gaussian(0, 1)), 1),
                       (Pair(Gaussian(0, 1), Gaussian(1, 1)), 1)))
    assert shifted_ceiling(two, Request("delta", (Fraction(1),), 20), CERTIFIED.answer) is None


def test_wor_substitution_at_two_steps_leaves_the_mixed_order_out():
    """The catalogue entry (sigma 1, a batch of 10 of 100): the maximum is order j = 2's
    value, and j = 1 stands as its ceiling."""
    entry = refacct.mechanisms.build(refacct.mechanisms.gaussian(1), "wor", "substitution",
                                     n=100, batch=10)
    found = refacct.delta(entry, 1, steps=2)
    terms = dict(found.terms)
    other = refacct.delta(Pair(B, A) ** 2, 1, method="certified")
    assert found.attained_by == ("j=2",) and found.verified_digits >= 20
    assert found.lower <= other.upper and other.lower <= found.upper
    assert terms["j=1"].method.startswith("ceiling") and terms["j=1"].upper < other.lower


@pytest.mark.slow
def test_the_standard_engines_leave_out_the_mixed_orders_at_three_steps():
    """Three steps (the nested quadrature's route, about 10 s): orders j = 1 and 2 stand as
    their ceilings, below order j = 3's value, and each ceiling lies above the lower end of
    that order's proven lattice bracket (an independent method)."""
    entry = refacct.mechanisms.build(refacct.mechanisms.gaussian(1), "wor", "substitution",
                                     n=100, batch=10)
    found = refacct.delta(entry, 1, steps=3, digits=12)
    terms = dict(found.terms)
    assert found.attained_by == ("j=3",) and found.verified_digits >= 12
    for j, (n_a, n_b) in (("j=1", (2, 1)), ("j=2", (1, 2))):
        assert terms[j].method.startswith("ceiling") and terms[j].upper < found.lower
        order = Composition(((Pair(A, B), n_a), (Pair(B, A), n_b)))
        bracket = refacct.delta(order, 1, method="bracket")
        assert bracket.lower <= terms[j].upper
