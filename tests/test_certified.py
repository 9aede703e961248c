"""Certified mode (refacct.certified, python-flint / Arb): every enclosure must contain the
truth, and be as narrow as requested.

Oracles, independent of the code under test:
* closed forms evaluated here with mpmath at 60 digits: the Gaussian shift pair
  delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), mu = Delta / sigma, and k
  steps = one step with mu sqrt(k) (002 Prop. 3.1); the Laplace pair H_alpha = 1 - sqrt(alpha
  e^{-Delta/b}) on [e^{-Delta/b}, e^{Delta/b}], so eps(delta) = Delta/b + 2 ln(1 - delta);
  the roots of these closed forms by mpmath.findroot;
* refacct's verified values (refacct.delta / epsilon): mpmath quadrature with a two-evaluation
  bound, a different method sharing no code with the Arb engines;
* the symmetry H_alpha(P || Q) = 1 - alpha + alpha H_{1/alpha}(Q || P) (docs/numerics.md).
"""
from __future__ import annotations

import json
from fractions import Fraction
from functools import partial
from pathlib import Path

import pytest
from mpmath import mp

flint = pytest.importorskip("flint")

import refacct  # noqa: E402
from refacct import (Discrete, Gaussian, Laplace, Mixture, Pair,  # noqa: E402
                     PublicMixture, certified)
from refacct.cli import main  # noqa: E402
from refacct.engines.arb import acb, arb  # noqa: E402
from refacct.engines.certified.arb_onestep import _anchored, _krawczyk  # noqa: E402

# the door's certified method (refacct.certified's engine)
cdelta = partial(refacct.delta, method="certified")
cepsilon = partial(refacct.epsilon, method="certified")
chockey_stick = partial(refacct.hockey_stick, method="certified")

ROOT = Path(__file__).resolve().parent.parent

SHIFT = Pair(Gaussian(0, 1), Gaussian(1, 1))
POISSON = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))
LAPLACE = Pair(Laplace(0, 1), Laplace(1, 1))
SUBSTITUTION = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]),
                    Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(-1, 1))]))
LAPLACE_MIX = Pair(Mixture([("1/2", Laplace(0, 1)), ("1/2", Laplace(1, 1))]), Laplace("1/2", 1))
# truncated Poisson under zero-out (004 Sec. 3.4): means -1, 0, 2, one crossing of a cubic
ZERO_OUT = Pair(Mixture([("1/20", Gaussian(-1, 1)), ("19/20", Gaussian(0, 1))]),
                Mixture([("19/20", Gaussian(0, 1)), ("1/20", Gaussian(2, 1))]))
# a group of 3 Poisson-sampled at 1/10 (003 Thm 3.1: binomial weights), means 0 .. 3
GROUP = Pair(Mixture([("729/1000", Gaussian(0, 1)), ("243/1000", Gaussian(1, 1)),
                      ("27/1000", Gaussian(2, 1)), ("1/1000", Gaussian(3, 1))]), Gaussian(0, 1))


# --- independent oracles --------------------------------------------------------------------

def mpq(x) -> mp.mpf:
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def shift_delta(mu, eps):
    """002 Prop. 3.1: the Gaussian shift pair with mu = Delta / sigma."""
    return Phi(-eps / mu + mu / 2) - mp.exp(eps) * Phi(-eps / mu - mu / 2)


def laplace_H(alpha, loss):
    """Lap(0, b) vs Lap(Delta, b), loss = Delta / b: H_alpha for alpha >= e^{-loss}."""
    return max(mp.zero, 1 - mp.sqrt(alpha * mp.exp(-loss)))


def contains(result, truth) -> bool:
    return result.lower <= truth <= result.upper


def agrees(result, verified) -> bool:
    """The proven enclosure meets the verified value's bound (refacct.delta / epsilon)."""
    return result.lower <= verified.upper and verified.lower <= result.upper


def meets(result, digits: int) -> bool:
    return result.verified_digits is None or result.verified_digits >= digits


# --- one step and k = 2 against closed forms ------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 8])
@pytest.mark.parametrize("eps", [0, "1/2", 3])
def test_gaussian_shift_closed_form(k, eps):
    """k >= 3 through the transform, whose enclosures are proofs as well."""
    r = cdelta(SHIFT ** k if k > 1 else SHIFT, eps)
    with mp.workdps(60):
        truth = shift_delta(mp.sqrt(k), mpq(eps))
    assert r.proven and contains(r, truth)
    assert meets(r, 20)
    assert ("certified (Arb" if k <= 2 else "certified by the transform") in r.method


@pytest.mark.parametrize("alpha", ["1/2", 1, "3/2", "5/2"])
def test_laplace_one_step_closed_form(alpha):
    r = chockey_stick(LAPLACE, alpha=alpha, digits=30)
    with mp.workdps(60):
        truth = laplace_H(mpq(alpha), mp.one)
    assert contains(r, truth) and meets(r, 30)
    assert r.alpha == Fraction(alpha)


def test_laplace_beyond_the_largest_loss_is_exactly_zero():
    for k in (2, 3):
        r = cdelta(LAPLACE ** k, k)  # the loss of k steps is at most k
        assert r.enclosure == (0, 0) and r.value == 0 and r.abs_error == 0


@pytest.mark.parametrize("k, eps", [(3, "1/2"), (3, 2), (4, 1), (8, "1/10")])
def test_laplace_k_steps_lie_inside_the_lattice_bracket(k, eps):
    """k >= 3 steps of the Laplace shift (its loss's law convolved exactly in Arb): inside
    the lattice engine's proven bracket, which puts the loss on a lattice instead."""
    r = cdelta(LAPLACE ** k, eps)
    bracket = refacct.delta(LAPLACE, eps, steps=k, method="bracket", width="1e-4")
    assert r.proven and meets(r, 20) and "Laplace shift" in r.method
    assert bracket.lower <= r.lower and r.upper <= bracket.upper


def test_laplace_three_steps_against_the_nested_quadrature():
    """Lap(1, 1/2) vs Lap(0, 1/2), k = 3, delta(1): 0.738354066886 in docs/benchmarks.md's
    table, printed by the nested Gauss-Legendre quadrature (28 verified digits) before the
    closed form existed."""
    r = cdelta(Pair(Laplace(1, "1/2"), Laplace(0, "1/2")) ** 3, 1)
    assert abs(r.value - mp.mpf("0.738354066886")) <= mp.mpf("5e-13") + r.abs_error


def test_subsampled_gaussian_three_and_four_steps_lie_inside_the_lattice_bracket():
    for k in (3, 4):
        r = cdelta(POISSON ** k, 1)
        bracket = refacct.delta(POISSON, 1, steps=k, method="bracket", width="1e-3")
        assert r.proven and meets(r, 20)
        assert bracket.lower <= r.lower and r.upper <= bracket.upper


def test_alpha_zero_is_one():
    for pair in (SHIFT, POISSON ** 2):
        r = chockey_stick(pair, alpha=0)
        assert contains(r, mp.one) and r.upper - r.lower < mp.mpf(10) ** -20


@pytest.mark.parametrize("digits", [10, 30, 50])
def test_radius_meets_the_requested_digits(digits):
    for pair in (SHIFT, SHIFT ** 2):
        r = cdelta(pair, 1, digits=digits)
        with mp.workdps(digits + 20):
            truth = shift_delta(mp.sqrt(2 if pair is not SHIFT else 1), mp.one)
        assert contains(r, truth) and meets(r, digits)


def test_tiny_delta_keeps_relative_digits():
    """delta near 1e-104 (one step) and 1e-101 (two steps): relative, not absolute, digits."""
    for k, eps in ((1, 22), (2, 31)):
        r = cdelta(SHIFT ** k if k > 1 else SHIFT, eps, digits=25)
        with mp.workdps(80):
            truth = shift_delta(mp.sqrt(k), mpq(eps))
        assert truth < mp.mpf(10) ** -100
        assert contains(r, truth) and meets(r, 25)


# --- against refacct's verified values (mpmath quadrature: a different method) --------------

@pytest.mark.parametrize("pair, eps", [
    (POISSON, 0), (POISSON, "1/2"), (POISSON, 2),
    (POISSON ** 2, 0), (POISSON ** 2, "1/2"), (POISSON ** 2, 2),
    (POISSON.swap(), "1/20"), (POISSON.swap() ** 2, 0), (POISSON.swap() ** 2, "1/10"),
    (LAPLACE ** 2, "1/2"), (LAPLACE_MIX ** 2, "1/10"), (LAPLACE_MIX, "1/10"),
    (SHIFT * POISSON, 1), (LAPLACE_MIX * LAPLACE, "1/4"),
    (SUBSTITUTION, "1/2"), (SUBSTITUTION ** 2, 0), (SUBSTITUTION ** 2, 1),
    (SUBSTITUTION * POISSON, "1/2"),
    (ZERO_OUT ** 2, "1/2"), (GROUP ** 2, 1),
])
def test_agrees_with_verified_quadrature(pair, eps):
    r = cdelta(pair, eps)
    assert agrees(r, refacct.delta(pair, eps, method="quadrature"))
    assert meets(r, 20)


def test_symmetry_identity():
    """H_alpha(P || Q) = 1 - alpha + alpha H_{1/alpha}(Q || P), both sides proven."""
    alpha = Fraction(3, 2)
    for pair in (POISSON, POISSON ** 2, LAPLACE_MIX ** 2, POISSON ** 3, LAPLACE ** 3):
        left = chockey_stick(pair, alpha=alpha)
        right = chockey_stick(pair.swap(), alpha=1 / alpha)
        a = mpq(alpha)
        with mp.workdps(40):
            lo, hi = 1 - a + a * right.lower, 1 - a + a * right.upper
        assert left.lower <= hi and lo <= left.upper


def test_public_mixture_is_the_weighted_sum():
    mix = PublicMixture([("1/3", SHIFT), ("2/3", LAPLACE)])
    r = cdelta(mix, "1/2")
    with mp.workdps(60):
        truth = shift_delta(mp.one, mp.mpf(1) / 2) / 3 + 2 * laplace_H(mp.exp(mp.mpf(1) / 2), 1) / 3
    assert contains(r, truth)


# --- eps(delta) ---------------------------------------------------------------------------------

def test_epsilon_gaussian_shift_against_findroot():
    for k, target in ((1, "1e-10"), (2, "1e-6"), (3, "1e-6")):
        r = cepsilon(SHIFT ** k if k > 1 else SHIFT, target)
        with mp.workdps(60):
            root = mp.findroot(lambda e: shift_delta(mp.sqrt(k), e) - mpq(target), mp.mpf(5))
        assert r.proven and contains(r, root) and meets(r, 20)


def test_epsilon_laplace_closed_form():
    for target in ("1e-3", "1/4"):
        r = cepsilon(LAPLACE, target, digits=25)
        with mp.workdps(60):
            truth = 1 + 2 * mp.log(1 - mpq(target))
        assert contains(r, truth) and meets(r, 25)


def test_epsilon_limits():
    assert cepsilon(SHIFT, 0).value == mp.inf
    for k in (2, 3):
        r = cepsilon(LAPLACE ** k, 0)  # sup of the loss: k Delta / b
        assert contains(r, mp.mpf(k)) and meets(r, 20)
    r = cepsilon(POISSON.swap(), 0)  # sup = -ln(1 - q)
    with mp.workdps(60):
        assert contains(r, -mp.log(mp.mpf(9) / 10))
    assert cepsilon(SHIFT, 1).enclosure == (0, 0)  # delta(0) < 1


def test_epsilon_two_steps_agrees_with_verified():
    r = cepsilon(POISSON ** 2, "1e-6", digits=15)
    assert agrees(r, refacct.epsilon(POISSON ** 2, "1e-6")) and meets(r, 15)


# --- the result object --------------------------------------------------------------------------

def test_enclosure_ends_are_exact_ball_ends():
    r = cdelta(POISSON, 1)
    lower, upper = r.enclosure
    assert isinstance(lower, mp.mpf) and isinstance(upper, mp.mpf)
    with mp.workprec(4096):  # exact: mid -+ rad
        assert upper - r.value == r.abs_error == r.value - lower
    assert r.lower == lower and r.upper == upper


def test_precision_stays_local():
    before = (flint.ctx.prec, mp.prec)
    cdelta(POISSON ** 2, 1, digits=30)
    cepsilon(LAPLACE, "1e-3")
    assert (flint.ctx.prec, mp.prec) == before


def test_budget_exhausted_returns_the_honest_ball():
    wide = flint.arb(1, "0.25")
    ball, _ = certified._refine(lambda bits: wide, 20)
    assert ball.rad() >= wide.rad() and ball.contains(1)

    def undecided(bits):
        raise ArithmeticError("undecided")
    with pytest.raises(ArithmeticError, match="every precision"):
        certified._refine(undecided, 20)


# --- bad input ----------------------------------------------------------------------------------

THREE_MEANS = Pair(Mixture([("8/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1)),
                            ("1/10", Gaussian(-1, 1))]), Gaussian(0, 1))


@pytest.mark.parametrize("call, error, match", [
    (lambda: cdelta(THREE_MEANS ** 3, 1), ValueError, "k = 3"),
    (lambda: cdelta(Pair(Discrete({0: "1/2", 1: "1/2"}), Discrete({0: 1})), 1),
     ValueError, "discrete pairs are exact"),
    (lambda: cdelta(Pair(Gaussian(0, 1), Laplace(1, 1)), 1), ValueError, "one common"),
    (lambda: cdelta(Pair(Gaussian(0, 1), Gaussian(1, 2)), 1), ValueError, "one common"),
    (lambda: cdelta(THREE_MEANS ** 2, 1), ValueError, "closed-form crossings"),
    (lambda: cdelta(SHIFT, 1, digits=0), ValueError, "digits"),
    (lambda: cdelta(SHIFT, 1, digits="20"), TypeError, "digits"),
    (lambda: cdelta(SHIFT, "one"), ValueError, "eps"),
    (lambda: chockey_stick(SHIFT, alpha=-1), ValueError, "alpha"),
    (lambda: chockey_stick(SHIFT, alpha=1, eps=1), TypeError, "exactly one"),
    (lambda: cepsilon(SHIFT, "3/2"), ValueError, "delta"),
    (lambda: cdelta(Gaussian(0, 1), 1), TypeError, "Pair"),
])
def test_bad_input_raises(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_krawczyk_proves_the_root_it_is_started_near_and_the_anchor_the_real_one():
    """f(w) = 6 - 7 w + w^3 = (w - 1)(w - 2)(w + 3): started near 2, the box holds 2 and not
    1; f(w) = 10 + w + w^3 = (w + 2)(w^2 - 2w + 5): started near 1 + 2i, Krawczyk proves that
    complex root, and the anchor refuses it (no positive real root in its box)."""
    with flint.ctx.workprec(128):
        root, box = _krawczyk([acb(6), acb(-7), acb(1)], (0, 1, 3), acb("2.1"))
        assert 2 in root.real and 1 not in box.real and root.rad() < arb(10) ** -30
        assert _anchored(box, [arb(6), arb(-7), arb(1)], (0, 1, 3))
        root, box = _krawczyk([acb(10), acb(1), acb(1)], (0, 1, 3), acb("1.1", "1.9"))
        assert 1 in root.real and 2 in root.imag
        assert not _anchored(box, [arb(10), arb(1), arb(1)], (0, 1, 3))


def test_three_means_one_step_is_certified():
    """Rolle / Descartes isolation (more than one crossing) for one step."""
    r = cdelta(THREE_MEANS, "1/2")
    assert agrees(r, refacct.delta(THREE_MEANS, "1/2")) and meets(r, 20)


# --- command line -------------------------------------------------------------------------------

def test_cli_certified(tmp_path, capsys):
    spec = {"P": [{"gaussian": {"mean": "0", "sigma": "1"}}],
            "Q": [{"gaussian": {"mean": "1", "sigma": "1"}}], "steps": 2}
    path = tmp_path / "shift.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    assert main(["delta", "--pair", str(path), "--eps", "1", "--certified", "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["proven"] is True and record["method"].startswith("certified")
    with mp.workdps(40):
        assert abs(mp.mpf(record["delta"]) - shift_delta(mp.sqrt(2), mp.one)) < mp.mpf(10) ** -18
    # a catalogue mechanism: its terms (add, remove) certified and maximised; both are the
    # shift N(1,1) vs N(0,1)
    assert main(["delta", "gaussian", "--sigma", "1", "--eps", "1", "--certified",
                 "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["proven"] is True
    with mp.workdps(40):
        assert abs(mp.mpf(record["delta"]) - shift_delta(mp.one, mp.one)) < mp.mpf(10) ** -18


# --- the shared Arb helpers (refacct.engines.arb) ---------------------------------------------

def test_arb_tail_masses_keep_relative_accuracy_and_ends_are_exact():
    from refacct.engines import arb as A
    with flint.ctx.workprec(100):
        tail = A.gaussian_mass(0, 1, 37, None)  # about 6e-300, from its own side
        lower_tail = A.gaussian_mass(Fraction(1, 3), 2, None, -70)
        straddle = A.laplace_mass(0, "1/2", flint.arb(0, "1e-3"), None)  # ball across loc
        third = A.to_arb(Fraction(1, 3))
    with mp.workdps(60):
        truth = mp.erfc(37 / mp.sqrt(2)) / 2
        lower_truth = mp.erfc((mpq("1/3") + 70) / (2 * mp.sqrt(2))) / 2
    for ball, exact in ((tail, truth), (lower_tail, lower_truth)):
        lo, hi = A.arb_ends(ball)
        assert lo <= exact <= hi and (hi - lo) < exact * mp.mpf(10) ** -25
    assert A.arb_ends(straddle)[0] <= mp.mpf(1) / 2 <= A.arb_ends(straddle)[1]
    lo, hi = A.arb_ends(third)
    with mp.workdps(60):
        assert lo < mp.mpf(1) / 3 < hi
    assert A.to_arb(mp.mpf("0.1")).is_exact() and A.dyadic_mpf(Fraction(3, 8)) == mp.mpf("0.375")
