"""Pair specifications (refacct.spec): every valid form builds the pair written by hand with
the public constructors, numbers stay exact, and every bad input is a ValueError whose
message names the offending entry."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from refacct import Composition, Discrete, Gaussian, Laplace, Mixture, Pair
from refacct.spec import SpecError, load_pair, load_pair_file, loads


def G(mean, sigma):
    return {"gaussian": {"mean": mean, "sigma": sigma}}


def L(loc, scale):
    return {"laplace": {"loc": loc, "scale": scale}}


def D(masses):
    return {"discrete": masses}


def M(*parts):
    return {"mixture": [list(p) for p in parts]}


def spec(P, Q, **extra):
    return {"P": P, "Q": Q, **extra}


GOOD = spec([G(0, 1)], [G(1, 1)])


# --- valid specs --------------------------------------------------------------------------

def test_single_gaussian_pair_is_a_pair():
    assert load_pair(spec([G("1", "1/2")], [G(0, "0.5")])) == \
        Pair(Gaussian(1, Fraction(1, 2)), Gaussian(0, Fraction(1, 2)))


def test_laplace_pair():
    assert load_pair(spec([L("-1", 2)], [L(0, "2")])) == Pair(Laplace(-1, 2), Laplace(0, 2))


def test_discrete_pair_with_steps_is_a_power():
    rr = spec([D({"0": "3/4", "1": "1/4"})], [D({"0": "1/2", "1": "1/2"})], steps=2)
    expected = Pair(Discrete({"0": Fraction(3, 4), "1": Fraction(1, 4)}),
                    Discrete({"0": Fraction(1, 2), "1": Fraction(1, 2)})) ** 2
    got = load_pair(rr)
    assert isinstance(got, Composition)
    assert got == expected
    assert got.steps == 2


def test_mixture_factor():
    s = spec([M(["9/10", G(0, 1)], ["1/10", G(1, 1)])], [G(0, 1)])
    expected = Pair(Mixture([(Fraction(9, 10), Gaussian(0, 1)), (Fraction(1, 10), Gaussian(1, 1))]),
                    Gaussian(0, 1))
    assert load_pair(s) == expected


def test_nested_mixture_is_flattened_like_the_core():
    inner = M(["1/2", G(0, 1)], ["1/2", G(2, 1)])
    s = spec([M(["1/2", inner], ["1/2", G(1, 1)])], [G(0, 1)])
    P = load_pair(s).P
    weights = {c.mean: w for w, c in P.components}
    assert weights == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}


def test_mixture_of_discrete_factors_is_discrete():
    s = spec([M(["1/2", D({"a": 1})], ["1/2", D({"b": 1})])], [D({"a": "1/2", "b": "1/2"})])
    pair = load_pair(s)
    assert isinstance(pair.P, Discrete)
    assert pair.P == pair.Q


def test_several_factors_are_a_product_then_a_power():
    s = spec([G(1, 1), L(1, 1)], [G(0, 1), L(0, 1)], steps=3)
    expected = (Pair(Gaussian(1, 1), Gaussian(0, 1)) * Pair(Laplace(1, 1), Laplace(0, 1))) ** 3
    got = load_pair(s)
    assert got == expected
    assert got.steps == 6


def test_one_factor_with_steps_one_is_a_plain_pair_and_steps_default_to_one():
    assert isinstance(load_pair(GOOD), Pair)
    assert load_pair({**GOOD, "steps": 1}) == load_pair(GOOD)


def test_numbers_are_exact():
    pair = load_pair(spec([G("1e-3", "0.1")], [G("-7/3", 3)]))
    assert pair.P.mean == Fraction(1, 1000)
    assert pair.P.sigma == Fraction(1, 10)
    assert pair.Q.mean == Fraction(-7, 3)


@given(st.fractions(min_value=-10**6, max_value=10**6, max_denominator=10**12),
       st.fractions(min_value=Fraction(1, 10**9), max_value=10**6, max_denominator=10**12))
def test_rational_strings_round_trip_exactly(mean, sigma):
    text = json.dumps(spec([G(str(mean), str(sigma))], [G(0, 1)]))
    pair = load_pair(loads(text))
    assert pair.P.mean == mean and pair.P.sigma == sigma


def test_load_pair_file(tmp_path):
    path = tmp_path / "pair.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    assert load_pair_file(path) == load_pair(GOOD)
    assert load_pair_file(str(path)) == load_pair(GOOD)


# --- bad specs: each message names the offending entry ------------------------------------

BAD = [
    ([], "a pair spec must be a JSON object"),
    ("P", "a pair spec must be a JSON object"),
    (spec([G(0, 1)], [G(0, 1)], extra=1), "spec: unknown key 'extra'"),
    ({"P": [G(0, 1)]}, "spec: missing key 'Q'"),
    ({"Q": [G(0, 1)]}, "spec: missing key 'P'"),
    (spec([G(0, 1)], [G(0, 1), G(1, 1)]), "same number of factors, got 1 and 2"),
    (spec([], []), "P: needs at least one factor"),
    (spec(G(0, 1), [G(0, 1)]), "P: must be an array of factors"),
    (spec([G(0, 1)], [G(0, 1)], steps=0), "steps: must be an integer >= 1, got 0"),
    (spec([G(0, 1)], [G(0, 1)], steps=-2), "steps: must be an integer >= 1"),
    (spec([G(0, 1)], [G(0, 1)], steps="2"), "steps: must be an integer >= 1"),
    (spec([G(0, 1)], [G(0, 1)], steps=True), "steps: must be an integer >= 1"),
    (spec([G(0, 1)], [G(0, 1)], steps=2.0), "steps: must be an integer >= 1"),
    (spec([G(0, "-1")], [G(0, 1)]), "P[0].gaussian.sigma: sigma must be > 0"),
    (spec([G(0, 1)], [G(0, 0)]), "Q[0].gaussian.sigma: sigma must be > 0"),
    (spec([L(0, "-1/2")], [L(0, 1)]), "P[0].laplace.scale: scale must be > 0"),
    (spec([G("nan", 1)], [G(0, 1)]), "P[0].gaussian.mean: mean must be a finite rational"),
    (spec([G(0, "inf")], [G(0, 1)]), "P[0].gaussian.sigma: sigma must be a finite rational"),
    (spec([G(0, float("nan"))], [G(0, 1)]), "P[0].gaussian.sigma: nan is not a finite number"),
    (spec([G(0.1, 1)], [G(0, 1)]), 'P[0].gaussian.mean: 0.1 is a JSON float; write the number '
                                   'as a string, "0.1"'),
    (spec([G(0, None)], [G(0, 1)]), "P[0].gaussian.sigma: expected a number"),
    (spec([G(0, True)], [G(0, 1)]), "P[0].gaussian.sigma: expected a number"),
    (spec([G(0, [1])], [G(0, 1)]), "P[0].gaussian.sigma: expected a number"),
    (spec([G(0, "abc")], [G(0, 1)]), "P[0].gaussian.sigma: sigma must be a finite rational"),
    (spec([{"gaussian": {"mean": 0}}], [G(0, 1)]), "P[0].gaussian: missing key 'sigma'"),
    (spec([{"gaussian": {"mean": 0, "sigma": 1, "sd": 1}}], [G(0, 1)]),
     "P[0].gaussian: unknown key 'sd'"),
    (spec([{"gaussian": [0, 1]}], [G(0, 1)]), "P[0].gaussian: the gaussian parameters must be "
                                              "a JSON object"),
    (spec([{"normal": {"mean": 0, "sigma": 1}}], [G(0, 1)]), "P[0]: unknown factor kind 'normal'"),
    (spec([{**G(0, 1), **L(0, 1)}], [G(0, 1)]), "P[0]: a factor must have exactly one key"),
    (spec([{}], [G(0, 1)]), "P[0]: a factor must have exactly one key"),
    (spec(["gaussian"], [G(0, 1)]), "P[0]: a factor must be a JSON object"),
    (spec([D({"0": "3/4", "1": "1/2"})], [D({"0": 1})]),
     "P[0].discrete: Discrete masses must sum exactly to 1, got 5/4"),
    (spec([D({"0": "-1/2", "1": "3/2"})], [D({"0": 1})]),
     "P[0].discrete.0: mass of outcome '0' must lie in [0, 1]"),
    (spec([D({})], [D({"0": 1})]), "P[0].discrete: needs at least one outcome"),
    (spec([M(["1/2", G(0, 1)], ["1/3", G(1, 1)])], [G(0, 1)]),
     "P[0].mixture: mixture weights must sum exactly to 1, got 5/6"),
    (spec([M(["3/2", G(0, 1)], ["-1/2", G(1, 1)])], [G(0, 1)]),
     "P[0].mixture[0][0]: mixture weight must lie in [0, 1]"),
    (spec([M(["1/2", G(0, 1)], ["1/2", D({"0": 1})])], [G(0, 1)]),
     "P[0].mixture: cannot mix Discrete with continuous distributions"),
    (spec([M(["1/2", G(0, 1)], ["1/2", G(1, "-1")])], [G(0, 1)]),
     "P[0].mixture[1][1].gaussian.sigma: sigma must be > 0"),
    (spec([M(["1", G(0, 1), "extra"])], [G(0, 1)]), "P[0].mixture[0]: expected a [weight, factor] "
                                                    "pair"),
    (spec([{"mixture": []}], [G(0, 1)]), "P[0].mixture: a mixture needs at least one"),
    (spec([{"mixture": {"1": G(0, 1)}}], [G(0, 1)]), "P[0].mixture: a mixture must be an array"),
    (spec([D({"0": 1})], [G(0, 1)]), "P[0], Q[0]: P and Q must both be Discrete or both be "
                                     "continuous"),
]


@pytest.mark.parametrize("bad, message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_spec_is_rejected_with_the_path(bad, message):
    with pytest.raises(SpecError) as info:
        load_pair(bad)
    assert isinstance(info.value, ValueError)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text, message", [
    ('{"P": [', "invalid JSON: Expecting value at line 1 column 8"),
    ('{"P": [], "P": []}', "duplicate key 'P'"),
    ('{"P": [{"gaussian": {"mean": 1e-3, "sigma": 1}}], "Q": [{"gaussian": {"mean": 0, '
     '"sigma": 1}}]}', 'P[0].gaussian.mean: 1e-3 is a JSON float; write the number as a '
                      'string, "1e-3"'),
    ('{"P": [{"gaussian": {"mean": NaN, "sigma": 1}}], "Q": [{"gaussian": {"mean": 0, '
     '"sigma": 1}}]}', "P[0].gaussian.mean: NaN is not a finite number"),
    ('{"P": [{"gaussian": {"mean": 0, "sigma": Infinity}}], "Q": [{"gaussian": {"mean": 0, '
     '"sigma": 1}}]}', "P[0].gaussian.sigma: Infinity is not a finite number"),
    ('{"P": [{"discrete": {"0": "1/2", "0": "1/2"}}], "Q": [{"discrete": {"0": 1}}]}',
     "duplicate key '0'"),
])
def test_bad_json_text(text, message):
    with pytest.raises(SpecError) as info:
        load_pair(loads(text))
    assert message in str(info.value)


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec([G(0, "-1")], [G(0, 1)])), encoding="utf-8")
    with pytest.raises(SpecError, match=r"bad\.json: P\[0\]\.gaussian\.sigma: sigma must be > 0"):
        load_pair_file(path)
    with pytest.raises(OSError):
        load_pair_file(tmp_path / "missing.json")
