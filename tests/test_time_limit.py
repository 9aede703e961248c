"""The time budget: ``time_limit=`` / ``--time-limit`` returns the best
bound reached when the time runs out, marked ``time_limited``, and that bound still holds.

Oracles: the Balle-Wang closed form (conftest) for N(1, 1) vs N(0, 1) composed 3 times,
which is N(sqrt 3, 1) vs N(0, 1); 001 App. B.1's 11/48 for randomized response.  The
20-digit quadrature of k = 3 takes close to a minute on any machine, so a few seconds'
limit always cuts it short.  A product of Gaussian shifts is otherwise one shift in closed
form (``engines.quadrature.shift``, milliseconds): every test here turns that recognition off
(``_quadrature``), so that the slow engines run on a pair whose truth is known.
"""
from __future__ import annotations

import json
from fractions import Fraction
from functools import partial

import pytest
from mpmath import mp

from conftest import balle_wang, gaussian_H, mpq, run_cli, upper_tail
from refacct import Discrete, Gaussian, Pair, delta, epsilon, hockey_stick, progress
from refacct.brackets import delta_bracket
from refacct.errors import TimeLimitError
from refacct.mechanisms import gaussian, poisson_subsampled
# a catalogue entry's curve by the standard engines (exact PLD, closed forms, quadrature)
mechanism_delta = partial(delta, method="quadrature")

SHIFT3 = Pair(Gaussian(1, 1), Gaussian(0, 1)) ** 3


@pytest.fixture(autouse=True)
def _quadrature(monkeypatch):
    """Gaussian shift products take the nested quadrature (and the brackets beyond 3
    steps), as before the closed form."""
    import refacct.hockey
    import refacct.routing
    for module in (refacct.hockey, refacct.routing):
        monkeypatch.setattr(module, "shift_squared", lambda factors: None)


def _truth(eps):
    with mp.workdps(40):
        return balle_wang(eps, mp.sqrt(3))


def _encloses(r, truth) -> bool:
    with mp.workdps(40):
        return r.lower <= truth <= r.upper


def test_a_short_limit_returns_a_marked_bound_that_holds():
    r = delta(SHIFT3, 1, time_limit=3)
    assert r.time_limited and "time limit reached" in r.method
    assert _encloses(r, _truth(1))
    assert 0 < r.lower and r.upper <= 1


def test_before_any_engine_result_the_enclosure_without_engines():
    """1 microsecond: only ``guards.enclosure`` (the range, raised to one factor's coarse
    lower bound by data processing) is known."""
    r = delta(SHIFT3, 1, time_limit=1e-6)
    assert r.time_limited and "guards.enclosure" in r.method
    assert _encloses(r, _truth(1))
    with mp.workdps(40):
        assert 0 < r.lower <= balle_wang(1, 1)   # <= H of one factor, <= the truth
    r = hockey_stick(SHIFT3, alpha=2, time_limit=1e-6)   # no bracket stage for alpha
    with mp.workdps(40):
        assert r.time_limited and r.lower <= gaussian_H(2, mp.sqrt(3)) <= r.upper


def test_eps_with_no_bound_in_time_raises():
    with pytest.raises(TimeLimitError, match="time limit"):
        epsilon(SHIFT3, "1e-5", time_limit=1e-6)


def test_a_generous_limit_changes_nothing():
    r = delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1, time_limit=600)
    assert not r.time_limited and r.verified_digits >= 20
    with mp.workdps(40):
        assert abs(r.value - balle_wang(1, 1)) <= r.abs_error
    rr = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/2", 1: "1/2"})) ** 2
    exact = hockey_stick(rr, alpha="4/3", time_limit=600)
    assert not exact.time_limited and exact.exact == Fraction(11, 48)   # 001 App. B.1


def test_a_proven_bracket_stops_at_its_last_pass():
    with progress.deadline(10):   # the first pass takes 0.4 s, h = 2^-20 minutes
        r = delta_bracket(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1, steps=3, width="1e-15")
    assert r.proven and _encloses(r, _truth(1))
    assert r.time_limited or r.upper - r.lower <= Fraction("1e-15") * r.lower


def test_catalogue_entries_take_the_limit():
    """The maximum over add and remove at k = 3 is at least the one-step remove pair's
    delta (data processing), which is closed form: p / q = 9/10 + e^{y - 1/2} / 10 grows
    with y, so p > e q beyond t = 1/2 + ln(10 (e - 9/10)), and delta = P(Y > t) - e Q(Y > t)
    with Gaussian tails.  60 digits: the quadrature's 20 take about 6 s, 60 more than 30."""
    mech = poisson_subsampled(gaussian(1), "1/10", "add-remove", 3)
    r = mechanism_delta(mech, 1, digits=60, time_limit=10)   # each term's bracket: 0.4 s
    assert r.time_limited and 0 < r.value - r.abs_error
    with mp.workdps(40):
        t = mpq("1/2") + mp.log(10 * (mp.e - mpq("9/10")))
        one_step = mpq("9/10") * upper_tail(t) + upper_tail(t - 1) / 10 - mp.e * upper_tail(t)
        assert one_step <= r.value + r.abs_error and r.value - r.abs_error <= 1


def test_queries_share_the_time():
    seen = []
    with progress.deadline(10):
        for _ in progress.shared([1, 2]):
            seen.append(progress.remaining())
    assert seen[0] <= 5.01 and seen[1] > 9


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan")])
def test_bad_limits_are_refused(bad):
    with pytest.raises(ValueError, match="time_limit"):
        delta(SHIFT3, 1, time_limit=bad)


def test_a_limit_of_the_wrong_type_is_refused():
    with pytest.raises(TypeError, match="time_limit"):
        delta(SHIFT3, 1, time_limit="5")


SPEC = {"P": [{"gaussian": {"mean": 1, "sigma": 1}}], "Q": [{"gaussian": {"mean": 0, "sigma": 1}}],
        "steps": 3}


def test_cli_time_limit(capsys, write):
    path = write(SPEC)
    status, out, _ = run_cli(capsys, "delta", "--pair", path, "--eps", "1", "2",
                             "--time-limit", "4", "--json")
    assert status == 0
    for record, eps in zip(json.loads(out), (1, 2)):
        assert record["time_limited"] is True
        with mp.workdps(40):   # the printed value +- the printed bound holds the truth
            value, bound = mp.mpf(record["delta"]), mp.mpf(record["abs_error"])
            assert value - bound <= _truth(eps) <= value + bound
    status, out, err = run_cli(capsys, "epsilon", "--pair", path, "--delta", "1e-5",
                               "--time-limit", "1e-6")
    assert status == 3 and out == "" and len(err.strip().splitlines()) == 1
    assert "time limit" in err
    status, _, err = run_cli(capsys, "delta", "--pair", path, "--eps", "1", "--time-limit", "0")
    assert status == 2 and "--time-limit" in err
