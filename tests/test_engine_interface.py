"""The engine interface (``refacct.engine``): a new engine is one ``Engine`` subclass plus
one entry in ``routing.ENGINES``, and the door does the rest: it checks every query before
the engine sees one, hands a catalogue entry's terms over one by one and takes their
maximum, and names the engine in each result.

The toy engine sums H_alpha(P || Q) = sum_x (p(x) - alpha q(x))_+ over the outcomes of a
one-step discrete pair, exactly (001 Definition 3); its values are checked against hand
computations and against the exact PLD engine (a second method)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from mpmath import mp

import refacct
from refacct import Discrete, Gaussian, Pair, routing
from refacct.engine import Engine, Request
from refacct.mechanisms import poisson_subsampled, randomized_response
from refacct.pairs import as_public_mixture
from refacct.result import DeltaResult

RR = Pair(Discrete({0: "3/4", 1: "1/4"}), Discrete({0: "1/4", 1: "3/4"}))


def _one_step(target):
    """The one pair of a one-step target, or None."""
    terms = as_public_mixture(target).terms
    if len(terms) == 1 and terms[0][1].steps == 1:
        return terms[0][1].factors[0][0]
    return None


class Toy(Engine):
    name = "toy"
    kinds = ("alpha",)

    def __init__(self) -> None:
        self.asked = []

    def supports(self, target):
        pair = _one_step(target)
        if pair is not None and pair.is_discrete:
            return None
        return "the toy engine sums one-step discrete pairs only"

    def answer(self, target, request: Request):
        self.asked.append(request)
        target = _one_step(target)
        outcomes = set(target.P.support()) | set(target.Q.support())
        results = []
        for a in request.queries:
            h = sum((max(F(0), target.P.mass_of(x) - a * target.Q.mass_of(x))
                     for x in outcomes), F(0))
            results.append(DeltaResult(mp.mpf(h.numerator) / h.denominator, mp.zero,
                                       "toy: direct sum", request.digits, alpha=a, exact=h))
        return results


@pytest.fixture
def toy(monkeypatch):
    engine = Toy()
    monkeypatch.setitem(routing.ENGINES, "toy", engine)
    return engine


def test_one_entry_in_routing_makes_a_method(toy):
    """H_{4/3} of randomized response 3/4 vs 1/4: (3/4 - 4/3 * 1/4) + 0 = 5/12 by hand."""
    r = refacct.hockey_stick(RR, "4/3", method="toy")
    assert r.exact == F(5, 12) and r.engine == "toy"
    assert r.exact == refacct.hockey_stick(RR, "4/3", method="exact").exact


def test_queries_come_checked_exact_and_one_at_a_time(toy):
    results = refacct.hockey_stick(RR, ["4/3", "0.5"], method="toy")
    assert [r.exact for r in results] == [F(5, 12), F(3, 4) - F(1, 8)]
    assert [req.queries for req in toy.asked] == [(F(4, 3),), (F(1, 2),)]


def test_bad_input_never_reaches_the_engine(toy):
    with pytest.raises(ValueError, match="alpha"):
        refacct.hockey_stick(RR, ["2", "-1"], method="toy")
    with pytest.raises(ValueError, match=r"delta\(eps\) has no toy path"):
        refacct.delta(RR, 1, method="toy")
    with pytest.raises(ValueError, match="one-step discrete pairs only"):
        refacct.hockey_stick(Pair(Gaussian(0, 1), Gaussian(1, 1)), 2, method="toy")
    assert toy.asked == []


def test_the_door_takes_a_catalogue_entrys_maximum(toy):
    """Poisson-subsampled randomized response, add-remove, one step: the toy sees the add
    and remove pairs one by one; the door's maximum and its attaining term are the exact
    engine's (001 Sec. 5)."""
    entry = poisson_subsampled(randomized_response("3/4"), "1/2", "add-remove")
    for alpha in ("4/3", "2"):
        mine = refacct.hockey_stick(entry, alpha, method="toy")
        exact = refacct.hockey_stick(entry, alpha, method="exact")
        assert (mine.exact, mine.attained_by) == (exact.exact, exact.attained_by)
        assert mine.engine == "toy" and exact.engine == "exact"
    assert len(toy.asked) == 4
