"""Drift check: the stored references are what the code computes today (code vs file; the
one place where refacct is compared with itself), and the maintenance tool notices a
doctored file.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from refacct.validation.cases import Reference, catalogue_path, read_catalogue
from refacct.validation.recompute import check_or_write, drift, recompute, round_up

QUICK = ["001-B1-rr-poisson-k2", "002-deterministic-sigma0.4", "tiny-delta-poisson-gaussian-k1",
         "003-group-poisson-K2-k1", "004-truncated-poisson-k1"]


def test_quick_cases_do_not_drift():
    results = recompute(read_catalogue(), QUICK, quick=True, log=lambda *_: None)
    assert len(results) == 5 + 1 + 6 + 4 + 4
    assert [m for *_, m in results if m] == []


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
