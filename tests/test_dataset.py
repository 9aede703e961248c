"""The certified reference dataset (data/, refacct.validation.dataset): read as a user
reads it (json and fractions alone), validated against its schema by the reference
validator (jsonschema), checked against independent oracles (the Gaussian closed form of
Balle and Wang 2018 at 50 digits, exact randomized-response sums), and its drift check
shown to catch an injected change."""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
from math import comb
from fractions import Fraction
from pathlib import Path

import pytest
from mpmath import mp

from conftest import run_cli
from refacct.validation import dataset

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def load():
    with open(DATA / dataset.RECORDS, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


RECORDS = load()


def interval(record):
    c = record["certified"]
    return Fraction(c["lower"]), Fraction(c["upper"])


def test_every_record_validates_against_the_shipped_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA / dataset.SCHEMA).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = [(r["id"], e.message) for r in RECORDS for e in validator.iter_errors(r)]
    assert errors == []
    assert len({r["id"] for r in RECORDS}) == len(RECORDS)


def test_intervals_are_ordered_and_hold_their_value():
    for r in RECORDS:
        c = r["certified"]
        if c["upper"] == "inf":
            assert c["lower"] == c["value"] == "inf"
            continue
        low, high = interval(r)
        assert 0 <= low <= Fraction(c["value"]) <= high, r["id"]
        if c["exact"] is not None:
            assert low <= Fraction(c["exact"]) <= high, r["id"]


def mpq(text):
    x = Fraction(text)  # text, or already a Fraction
    return mp.mpf(x.numerator) / x.denominator


def _phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def delta_records(noise, relations=None):
    """The one-record delta(eps) queries, group 1, of unsampled steps of ``noise``."""
    for r in RECORDS:
        parts = r["composition"]
        if (r["query"]["kind"] == "delta" and r["group"] == 1
                and (relations is None or r["relation"] in relations)
                and all(p["mechanism"]["noise"] == noise and p["sampling"]["scheme"] == "none"
                        for p in parts)):
            yield r, parts, mpq(r["query"]["at"])


def holds(r, truth) -> bool:
    """truth (50 digits) lies in the record's interval, up to 1e-45."""
    low, high = interval(r)
    slack = mp.mpf(10) ** -45
    return mpq(low) - slack <= truth <= mpq(high) + slack


def test_unsampled_gaussian_records_hold_the_closed_form():
    """delta(eps) of T steps of N(0, sigma^2) vs N(1, sigma^2): mu = sqrt(T) / sigma,
    delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle and Wang 2018, Thm 8);
    segments add their mu^2."""
    checked = 0
    with mp.workdps(50):
        for r, parts, eps in delta_records("gaussian", ("add-remove",)):
            mu = mp.sqrt(sum(p["steps"] * (mpq(p["mechanism"]["sensitivity"])
                                           / mpq(p["mechanism"]["sigma"])) ** 2 for p in parts))
            truth = _phi(-eps / mu + mu / 2) - mp.exp(eps) * _phi(-eps / mu - mu / 2)
            assert holds(r, truth), r["id"]
            checked += 1
    assert checked >= 30


def test_randomized_response_records_hold_the_exact_sum():
    """T steps of randomized response (truth with probability p; the same pair under every
    relation): the count of truthful answers is binomial, and delta(eps) =
    sum_j max(0, P_j - e^eps Q_j) over its T + 1 values, Q_j = P_{T-j}; exact rationals
    summed at 50 digits."""
    checked = 0
    with mp.workdps(50):
        for r, (part, *more), eps in delta_records("randomized-response"):
            if more or part["steps"] > 100:   # exact sums: milliseconds
                continue
            p, T = Fraction(part["mechanism"]["p_truth"]), part["steps"]
            P = [comb(T, j) * p ** j * (1 - p) ** (T - j) for j in range(T + 1)]
            truth = mp.fsum(max(mp.mpf(0), mpq(a) - mp.exp(eps) * mpq(b))
                            for a, b in zip(P, reversed(P)))
            assert holds(r, truth), r["id"]
            checked += 1
    assert checked >= 20


def test_difficulty_follows_the_features_definitions():
    for r in RECORDS:
        kind, at = r["query"]["kind"], Fraction(r["query"]["at"])
        steps = sum(p["steps"] * p["sampling"].get("epochs", 1) for p in r["composition"])
        if kind == "epsilon" and at <= Fraction(1, 10 ** 10):
            assert "tiny-delta" in r["features"], r["id"]
        if kind == "delta" and at >= 10:
            assert "large-eps" in r["features"], r["id"]
        assert ("many-steps" in r["features"]) == (steps >= 100), r["id"]
        assert ("group" in r["features"]) == (r["group"] > 1), r["id"]
        assert ("heterogeneous" in r["features"]) == (len(r["composition"]) > 1), r["id"]
        assert r["difficulty"] == ["lower", "average", "higher"][min(len(r["features"]), 2)]
    assert {r["difficulty"] for r in RECORDS} == {"lower", "average", "higher"}


def test_every_case_behind_a_scorecard_finding_is_in_the_dataset():
    text = (ROOT / "docs" / "scorecard.md").read_text(encoding="utf-8")
    findings = text[text.index("## Findings"):]
    named = set(re.findall(r"^- `([^`]+)`", findings, re.M))
    for line in re.findall(r"and \d+ more: (.*)$", findings, re.M):
        named.update(name.strip() for name in line.split(",")[:-1])   # the last may be cut
    cases = {r["case"] for r in RECORDS}
    assert len(named) > 20
    assert sorted(named - cases) == []


def test_the_changelog_states_this_version_and_its_count():
    text = (DATA / "CHANGELOG.md").read_text(encoding="utf-8")
    latest = text[text.index("\n## "):].split("\n## ")[1]
    assert latest.startswith(f"{dataset.VERSION} ")
    assert f"{len(RECORDS)} records" in latest
    assert {r["dataset_version"] for r in RECORDS} == {dataset.VERSION}


def test_the_shipped_files_have_no_drift_and_a_slice_recomputes():
    slice_ = ["gauss-none-add-remove-s1_2-T1", "rr-none-replace-one-p3_5-T1",
              "laplace-none-add-remove-b1-T1"]
    assert dataset.check(DATA, slice_, log=lambda line: None) == []


def test_the_check_catches_an_edited_record_and_a_wrong_interval(tmp_path):
    shutil.copy(DATA / dataset.SCHEMA, tmp_path)
    rows = load()
    target = next(r for r in rows if r["case"] == "rr-none-replace-one-p3_5-T1"
                  and r["query"]["kind"] == "delta")
    low, high = interval(target)
    width = high - low + Fraction(1, 10 ** 6)
    moved = target["certified"]   # apart by 1e-6 or more: float text keeps them disjoint
    moved["lower"], moved["upper"] = str(float(high + width)), str(float(high + 2 * width))
    rows.pop()
    (tmp_path / dataset.RECORDS).write_text("".join(json.dumps(r) + "\n" for r in rows),
                                            encoding="utf-8")
    problems = dataset.check(tmp_path, ["rr-none-replace-one-p3_5-T1"], log=lambda line: None)
    assert sum(target["id"] in p for p in problems) == 2      # differs, and recomputed apart
    assert any("not in refacct-reference.jsonl" in p for p in problems)


def test_the_command_writes_and_checks(capsys, tmp_path):
    assert run_cli(capsys, "dataset", "--dir", str(tmp_path))[0] == 2
    status, out, err = run_cli(capsys, "dataset", "--write", "--dir", str(tmp_path))
    assert status == 0 and f"{len(RECORDS)} records" in err
    assert (tmp_path / dataset.RECORDS).read_bytes() == (DATA / dataset.RECORDS).read_bytes()
    assert run_cli(capsys, "dataset", "--dir", str(tmp_path))[0] == 0
    status, out, err = run_cli(capsys, "dataset", "--dir", str(tmp_path),
                               "--recompute", "no-such-*")
    assert status == 2 and "--recompute" in err and len(err.strip().splitlines()) == 1


EXAMPLES = ROOT / "docs" / "examples" / "test_against_refacct.py"


@pytest.mark.parametrize("name", ["test_dp_accounting_pld", "test_prv_accountant",
                                  "test_opacus_prv"])
def test_the_documented_examples_pass_against_the_installed_peers(name, monkeypatch):
    spec = importlib.util.spec_from_file_location("dataset_examples", EXAMPLES)
    examples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(examples)
    monkeypatch.setattr(examples, "DATASET", str(DATA / dataset.RECORDS))
    assert len(list(examples.dp_sgd_records())) >= 10
    getattr(examples, name)()
