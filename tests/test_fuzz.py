"""A small fixed-seed slice of the fuzz campaign (refacct.fuzz; the full campaign is
``python -m refacct.fuzz``, 10^4 inputs, figures in docs/development.md).  Its invariants are
checked against closed forms, enumeration and identities inside refacct.fuzz; here every
failure column must be zero, and the campaign must be able to see a failure."""
from __future__ import annotations

import pytest

from refacct import fuzz


def test_fixed_seed_slice_has_no_failure():
    table = fuzz.campaign(inputs=150, seed=12345, timeout=30)
    failures = {f: {o: table[f][o] for o in fuzz.FAILURES if table[f][o]} for f in fuzz.FAMILIES}
    assert not any(failures.values()), f"{failures}\n{fuzz.render(table)}"
    assert sum(sum(table[f].values()) for f in fuzz.FAMILIES) == 150


def test_the_campaign_counts_what_goes_wrong(monkeypatch):
    """An engine returning a wrong value is a violation; an exception escaping into the
    CLI is a traceback; a rejection that names nothing is unnamed."""
    import random

    import refacct.cli
    import refacct.hockey as hockey
    from mpmath import mp
    monkeypatch.setattr(hockey, "_guard", lambda *args: None)
    monkeypatch.setattr(hockey, "two_evaluations",
                        lambda compute, digits: (mp.mpf(2), mp.mpf("1e-20"), None))
    outcomes = {fuzz._outcome(fuzz.FAMILIES["closed"](random.Random(seed), None), 30)[0]
                for seed in range(6)}
    assert "violation" in outcomes

    def boom(*args, **kwargs):
        raise KeyError("boom")
    monkeypatch.setattr(refacct.cli.api, "answer", boom)
    status, _, err = fuzz._cli(["delta", "gaussian", "--sigma", "1", "--eps", "1"])
    assert fuzz._judge_cli(status, err)[0] == "traceback"
    assert fuzz._judge_cli(2, "refacct: error: something is wrong")[0] == "unnamed"
    assert fuzz._judge_cli(2, "refacct: error: --sigma must be > 0")[0] == "ok"


@pytest.mark.parametrize("message, named", [
    ("P[0].gaussian.sigma: sigma must be > 0", True),
    ("argument --digits: must be an integer", True),
    ("eps must lie in [-1000000, 1000000]", True),
    ("something went wrong", False),
    ("expected a positive number", False),
])
def test_rejections_must_name_a_parameter(message, named):
    assert fuzz._names_a_parameter(message) == named


def test_the_extreme_family_sees_a_false_exact_zero(monkeypatch):
    """An engine that rounds a tiny delta to an exact 0 (the two evaluations agreeing on 0,
    as a shift far below its scale once did) is a violation in the extreme-scale family:
    its closed forms are positive wherever eps is below the largest privacy loss."""
    import random

    import refacct.hockey as hockey
    from mpmath import mp
    monkeypatch.setattr(hockey, "_guard", lambda *args: None)
    monkeypatch.setattr(hockey, "two_evaluations",
                        lambda compute, digits: (mp.zero, mp.zero, None))
    outcomes = [fuzz._outcome(fuzz.FAMILIES["extreme"](random.Random(seed), None), 30)
                for seed in range(12)]
    assert any(outcome == "violation" for outcome, _ in outcomes), outcomes
