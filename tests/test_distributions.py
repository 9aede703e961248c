"""Distributions: exact parameters, validation, and densities / interval masses against
textbook formulas evaluated independently at high precision."""
from __future__ import annotations

import decimal
from fractions import Fraction

import pytest
from mpmath import mp

from refacct import Discrete, Gaussian, Laplace, Mixture, mixture

from conftest import mpq


# --- exact parameters --------------------------------------------------------------------

@pytest.mark.parametrize("given, expected", [
    (3, Fraction(3)),
    (Fraction(3, 4), Fraction(3, 4)),
    ("3/4", Fraction(3, 4)),
    ("1e-3", Fraction(1, 1000)),
    (" -0.25 ", Fraction(-1, 4)),
    (decimal.Decimal("0.1"), Fraction(1, 10)),
    (0.1, Fraction(3602879701896397, 36028797018963968)),   # the exact binary value of 0.1
    (2.5, Fraction(5, 2)),
])
def test_parameters_are_exact(given, expected):
    """int, Fraction, str, Decimal and float become the exact rational they denote (a float
    at its exact binary value, so 0.1 is 3602879701896397 / 2^55, not 1/10)."""
    assert Gaussian(mean=given, sigma=1).mean == expected
    assert Laplace(loc=given, scale=1).loc == expected
    if expected > 0:
        assert Gaussian(0, sigma=given).sigma == expected
        assert Laplace(0, scale=given).scale == expected


def test_defaults_and_equality():
    """Gaussian() is N(0, 1), Laplace() is Lap(0, 1); parameters given in different
    spellings of the same rational give equal (and equally hashed) distributions."""
    assert Gaussian() == Gaussian(0, 1)
    assert Laplace() == Laplace(0, 1)
    assert Gaussian("1/2", "3/2") == Gaussian(0.5, decimal.Decimal("1.5"))
    assert hash(Gaussian("1/2", "3/2")) == hash(Gaussian(0.5, decimal.Decimal("1.5")))
    assert Gaussian(0, 1) != Laplace(0, 1)


# --- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("make, name", [
    (lambda v: Gaussian(0, v), "sigma"),
    (lambda v: Laplace(0, v), "scale"),
])
@pytest.mark.parametrize("value", [0, -1, "-1/2", -1e-300, Fraction(0)])
def test_non_positive_width_rejected(make, name, value):
    with pytest.raises(ValueError, match=name):
        make(value)


@pytest.mark.parametrize("make, name", [
    (lambda v: Gaussian(v, 1), "mean"),
    (lambda v: Gaussian(0, v), "sigma"),
    (lambda v: Laplace(v, 1), "loc"),
    (lambda v: Laplace(0, v), "scale"),
])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"),
                                   decimal.Decimal("NaN"), decimal.Decimal("Infinity"),
                                   "nan", "inf", "abc", "1/0"])
def test_non_finite_or_malformed_rejected(make, name, value):
    with pytest.raises(ValueError, match=name):
        make(value)


@pytest.mark.parametrize("make, name", [
    (lambda v: Gaussian(v, 1), "mean"),
    (lambda v: Gaussian(0, v), "sigma"),
    (lambda v: Laplace(v, 1), "loc"),
    (lambda v: Laplace(0, v), "scale"),
])
@pytest.mark.parametrize("value", [True, False, None, [1], 1j])
def test_wrong_types_rejected(make, name, value):
    """bool is not a number here (True would silently be 1); None, lists, complex."""
    with pytest.raises(TypeError, match=name):
        make(value)


def test_discrete_validation():
    with pytest.raises(ValueError, match="masses"):
        Discrete({0: "1/2", 1: "1/3"})                  # sums to 5/6
    with pytest.raises(ValueError, match="masses"):
        Discrete({0: 0.1, 1: 0.9})                      # binary floats sum to 1 + 2^-55
    with pytest.raises(ValueError, match="mass"):
        Discrete({0: "3/2", 1: "-1/2"})                 # negative mass
    with pytest.raises(ValueError, match="mass"):
        Discrete({0: float("nan"), 1: 1})
    with pytest.raises(TypeError, match="mass"):
        Discrete({0: True})
    with pytest.raises(TypeError):
        Discrete({})
    with pytest.raises(TypeError):
        Discrete([(0, 1)])


def test_discrete_exact_masses_and_zero_outcomes():
    """Masses are exact; outcomes of mass 0 are dropped from the support; labels are any
    hashables; floats that are exact binary fractions are accepted."""
    d = Discrete({"a": "1/3", ("b", 1): Fraction(2, 3), "z": 0})
    assert d.mass_of("a") == Fraction(1, 3)
    assert d.mass_of(("b", 1)) == Fraction(2, 3)
    assert d.mass_of("z") == 0 and d.mass_of("never") == 0
    assert set(d.support()) == {"a", ("b", 1)}
    assert Discrete({0: 0.5, 1: 0.25, 2: 0.25}).mass_of(1) == Fraction(1, 4)


def test_mixture_validation():
    with pytest.raises(ValueError, match="weight"):
        Mixture([("1/2", Gaussian()), ("1/3", Gaussian(1))])
    with pytest.raises(ValueError, match="weight"):
        Mixture([("3/2", Gaussian()), ("-1/2", Gaussian(1))])
    with pytest.raises(ValueError, match="weight"):
        Mixture([(float("inf"), Gaussian())])
    with pytest.raises(ValueError):
        Mixture([])
    with pytest.raises(TypeError):
        Mixture([(1, Discrete({0: 1}))])
    with pytest.raises(TypeError):
        mixture([("1/2", Discrete({0: 1})), ("1/2", Gaussian())])


def test_mixture_flattening_and_merging():
    """Nested mixtures are flattened with multiplied weights, equal components merged and
    zero weights dropped: (1/2)[(1/2) N0 + (1/2) N1] + (1/2) N0 + 0 N5 = (3/4) N0 + (1/4) N1."""
    inner = Mixture([("1/2", Gaussian(0, 1)), ("1/2", Gaussian(1, 1))])
    m = Mixture([("1/2", inner), ("1/2", Gaussian(0, 1)), (0, Gaussian(5, 1))])
    assert dict((c, w) for w, c in m.components) == {Gaussian(0, 1): Fraction(3, 4),
                                                     Gaussian(1, 1): Fraction(1, 4)}
    assert sum(w for w, _ in m.components) == 1


def test_mixture_helper():
    """mixture() of Discrete parts is the exact Discrete mixture; of continuous parts a
    Mixture."""
    d = mixture([("1/3", Discrete({0: "1/2", 1: "1/2"})), ("2/3", Discrete({1: 1}))])
    assert isinstance(d, Discrete)
    assert d.mass_of(0) == Fraction(1, 6) and d.mass_of(1) == Fraction(5, 6)
    c = mixture([("1/3", Gaussian(0, 1)), ("2/3", Gaussian(2, 1))])
    assert isinstance(c, Mixture)
    assert dict((comp, w) for w, comp in c.components) == {Gaussian(0, 1): Fraction(1, 3),
                                                          Gaussian(2, 1): Fraction(2, 3)}


# --- densities and interval masses -------------------------------------------------------

def _gauss_pdf(y, m, s):
    return mp.exp(-((y - m) / s) ** 2 / 2) / (s * mp.sqrt(2 * mp.pi))


def _lap_pdf(y, m, b):
    return mp.exp(-abs(y - m) / b) / (2 * b)


def _gauss_mass(a, b, m, s):
    """P(a < Y < b) for N(m, s^2) from erfc of the relevant tail: for a >= m the difference
    of upper tails, for b <= m of lower tails, else 1 - both tails."""
    up = lambda x: mp.erfc((x - m) / (s * mp.sqrt(2))) / 2
    low = lambda x: mp.erfc((m - x) / (s * mp.sqrt(2))) / 2
    if a >= m:
        return up(a) - up(b)
    if b <= m:
        return low(b) - low(a)
    return 1 - low(a) - up(b)


def _lap_mass(a, b, m, s):
    """Same split as _gauss_mass with the exact Laplace tails e^{-|x - m|/s} / 2."""
    up = lambda x: mp.exp(-(x - m) / s) / 2      # P(Y > x), x >= m
    low = lambda x: mp.exp((x - m) / s) / 2      # P(Y < x), x <= m
    if a >= m:
        return up(a) - up(b)
    if b <= m:
        return low(b) - low(a)
    return 1 - low(a) - up(b)


@pytest.mark.parametrize("y", ["-3", "0", "1/3", "5/2", "40"])
def test_pdf_against_textbook(y):
    mix = Mixture([("1/4", Gaussian(-1, "1/2")), ("3/4", Gaussian(2, "1/2"))])
    lmix = Mixture([("1/3", Laplace(0, 2)), ("2/3", Laplace(1, 2))])
    with mp.workdps(50):
        Y = mpq(y)
        cases = [
            (Gaussian("1/2", 3), _gauss_pdf(Y, mp.mpf(1) / 2, mp.mpf(3))),
            (Laplace(-1, "1/4"), _lap_pdf(Y, mp.mpf(-1), mp.mpf(1) / 4)),
            (mix, _gauss_pdf(Y, -1, mp.mpf(1) / 2) / 4 + 3 * _gauss_pdf(Y, 2, mp.mpf(1) / 2) / 4),
            (lmix, _lap_pdf(Y, 0, 2) / 3 + 2 * _lap_pdf(Y, 1, 2) / 3),
        ]
        for dist, want in cases:
            got = dist.pdf(Y)
            assert abs(got - want) <= abs(want) * mp.mpf(10) ** -45


@pytest.mark.parametrize("a, b", [
    ("-inf", "inf"), ("-inf", "0"), ("1/2", "inf"), ("-1", "2"), ("3", "4"),
    ("40", "inf"), ("-inf", "-60"), ("-500", "-499"),
])
def test_interval_mass_relative_accuracy(a, b):
    """mass(a, b) keeps its *relative* accuracy in the far tails (N(0,1) beyond 40 is
    3.7e-350; Laplace beyond 500 scales is e^-500/2): compared at 40 digits with the
    textbook tail formulas evaluated at 80 digits."""
    conv = lambda x: mp.inf if x == "inf" else -mp.inf if x == "-inf" else mpq(x)
    for dist, ref in [(Gaussian(0, 1), lambda A, B: _gauss_mass(A, B, 0, 1)),
                      (Laplace(0, 1), lambda A, B: _lap_mass(A, B, 0, 1))]:
        with mp.workdps(80):
            want = ref(conv(a), conv(b))
        with mp.workdps(40):
            got = dist.mass(conv(a), conv(b))
        with mp.workdps(80):
            assert abs(got - want) <= abs(want) * mp.mpf(10) ** -35, (dist, a, b, got, want)


def test_kinks_are_laplace_locations():
    m = Mixture([("1/3", Laplace("1/2", 1)), ("1/3", Laplace(-2, 1)), ("1/3", Laplace("1/2", 2))])
    assert m.kinks() == (Fraction(-2), Fraction(1, 2))
    assert Gaussian(3, 1).kinks() == ()
