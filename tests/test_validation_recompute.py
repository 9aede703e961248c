"""Drift check: the stored references are what the code computes today (code vs file; the
one place where refacct is compared with itself), and the maintenance tool notices a
doctored file.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from refacct.validation.cases import Reference, catalogue_path, read_catalogue
from refacct.validation.recompute import (check_or_write, directed_text, drift, recompute,
                                       round_decimal, round_up)

QUICK = ["001-B1-rr-poisson-k2", "002-deterministic-sigma0.4", "tiny-delta-poisson-gaussian-k1",
         "003-group-poisson-K2-k1", "004-truncated-poisson-k1"]


def test_quick_cases_do_not_drift():
    results = recompute(read_catalogue(), QUICK, quick=True, log=lambda *_: None)
    assert len(results) == 5 + 1 + 6 + 4 + 4
    assert [r[3] for r in results if r[3]] == []


@pytest.mark.slow
def test_every_non_slow_case_does_not_drift():
    assert check_or_write(None, None, write=False, quick=True) == 0


def test_a_doctored_value_is_reported(tmp_path, capsys):
    doc = read_catalogue()
    ref = doc["cases"][0]["queries"][0]["reference"]
    ref["value"] = "0.2291666666666666"  # 11/48 = 0.22916666666666666667, bound 3.34e-21
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(doc))
    assert check_or_write(path, [doc["cases"][0]["name"]], write=False, quick=True) == 1
    assert "DRIFT: 001-B1-rr-poisson-k2 query 0: stored 0.2291666666666666" in capsys.readouterr().err


def test_write_stores_what_check_accepts(tmp_path):
    doc = read_catalogue()
    del doc["cases"][3]["queries"][0]["reference"]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(doc))
    name = doc["cases"][3]["name"]
    assert check_or_write(path, [name], write=False, quick=True) == 1   # missing reference
    assert check_or_write(path, [name], write=True, quick=True) == 0
    assert check_or_write(path, [name], write=False, quick=True) == 0
    assert catalogue_path().name == "cases.json"


def test_round_up_and_drift_are_exact():
    assert round_up(Fraction(1671, 10 ** 23)) == "1.68e-20"
    assert round_up(Fraction(1, 3)) == "3.34e-1" and round_up(Fraction(1, 10)) == "1.00e-1"
    a = Reference(Fraction(1, 4), Fraction(1, 10 ** 20), "20", "", "add", "tight")
    b = Reference(Fraction(1, 4) + Fraction(2, 10 ** 20), Fraction(1, 10 ** 20), "20", "", "add", "tight")
    c = Reference(Fraction(1, 4) + Fraction(3, 10 ** 20), Fraction(1, 10 ** 20), "20", "", "add", "tight")
    assert drift(a, b) is None and drift(a, c) is not None


def bracketed(lower="2.5371e-13", upper="2.5429e-13"):
    return Reference((Fraction(lower) + Fraction(upper)) / 2, (Fraction(upper) - Fraction(lower)) / 2,
                     "2", "proven bracket", "remove", "tight", None, False,
                     (Fraction(lower), Fraction(upper)), True)


def test_drift_of_brackets_is_overlap():
    """A recomputed bracket must overlap the stored one (both contain the truth)."""
    assert drift(bracketed(), bracketed("2.54e-13", "2.56e-13")) is None
    message = drift(bracketed(), bracketed("2.5430e-13", "2.56e-13"))
    assert message.startswith("stored [2.5371e-13, 2.5429e-13] proven but recomputed [2.543e-13")
    point = Reference(Fraction("2.5e-13"), Fraction("4e-15"), "2", "", "remove", "tight")
    assert drift(bracketed(), point) is None and drift(point, bracketed("2.6e-13", "2.7e-13"))


def test_many_steps_are_stored_as_a_proven_bracket(monkeypatch):
    """A case beyond quadrature (4 steps of N(1, 4) vs N(0, 4), i.e. N(1, 1) vs N(0, 1),
    with the recognition of Gaussian shift products turned off: otherwise one shift in
    closed form) goes through the brackets; the stored ends are rounded outward, contain
    the closed form (Balle-Wang, 002 Prop. 3.1) and value +- abs_error covers them."""
    import refacct.routing
    monkeypatch.setattr(refacct.routing, "shift_squared", lambda factors: None)
    from mpmath import mp
    from conftest import balle_wang
    doc = {"cases": [{"name": "gaussian-k4", "source": "test", "mechanism":
                      {"family": "gaussian", "sigma": "2"}, "sampling": {"scheme": "none"},
                      "relation": "add", "steps": 4, "digits": 6,
                      "queries": [{"kind": "delta", "at": "1"}]}]}
    (name, index, new, message, _), = recompute(doc, None, quick=True, log=lambda *_: None)
    assert message == "no stored reference" and new["proven"] is True
    assert new["method"].startswith("proven bracket")
    ref = Reference.from_json(new)
    with mp.workdps(40):
        truth = balle_wang(1, 1)
        assert mp.mpf(new["lower"]) <= truth <= mp.mpf(new["upper"])
    assert ref.value - ref.abs_error <= ref.low < ref.high <= ref.value + ref.abs_error
    assert drift(ref, bracketed(new["upper"], "1")) is None                 # touching ends
    assert drift(ref, bracketed(str(ref.high * 2), "1")) is not None


def test_round_decimal_is_directed():
    assert str(round_decimal(Fraction(25371123, 10 ** 20), 5, up=False)) == "2.5371E-13"
    assert str(round_decimal(Fraction(25371123, 10 ** 20), 5, up=True)) == "2.5372E-13"
    assert str(round_decimal(Fraction(-1, 3), 3, up=True)) == "-0.333"
    assert directed_text(Fraction(1, 3), 3, up=False) == "0.333"
    assert directed_text(Fraction(5), 4, up=False) == "5.000"
