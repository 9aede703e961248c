"""refacct.validation.rowcache: a resumed run gives the rows of an uninterrupted one.

The oracle is the uncached ``validate`` on the same accountant and cases; the accountant
answers in every type a peer may return (float, mpf, Fraction, numpy, junk text, None, an
exception) and counts its calls, so reuse is observed, not assumed.
"""
from fractions import Fraction

import mpmath
import numpy as np

from refacct.validation import load_cases, select, validate
from refacct.validation.adapters import Accountant
from refacct.validation.rowcache import cached_validate

CALLS = []


def _answer(case, query):
    CALLS.append((case.name, str(query)))
    kinds = [float(query.at) + 0.25, mpmath.mpf(1) / 3, Fraction(1, 7), np.float64(0.5),
             "1/4", None]
    i = case.queries.index(query)
    if i == len(kinds):
        raise RuntimeError("peer failure")
    return kinds[i % (len(kinds) + 1)]


def _rows_equal(a, b):
    """The same rows, reported numbers as a report prints them (a numpy float comes back as
    the float it equals)."""
    assert [(r.case.name, r.query, r.verdict, r.error, r.noise, str(r.reported)) for r in a] \
        == [(r.case.name, r.query, r.verdict, r.error, r.noise, str(r.reported)) for r in b]


def test_a_resumed_run_reuses_and_equals_a_fresh_one(tmp_path):
    acc = Accountant("user.every-type", "upper", lambda case: lambda q: _answer(case, q))
    cases = select(load_cases(), ["001-*", "poisson-gaussian-*"])
    fresh = validate([acc], cases)
    CALLS.clear()
    first = cached_validate([acc], cases[:2], tmp_path, lambda peer: "1.0")  # "stopped"
    assert CALLS
    CALLS.clear()
    resumed = cached_validate([acc], cases, tmp_path, lambda peer: "1.0")
    assert {name for name, _ in CALLS} == {c.name for c in cases[2:]}  # only the rest ran
    _rows_equal(resumed, fresh)
    _rows_equal(first, fresh[:len(first)])
    CALLS.clear()
    _rows_equal(cached_validate([acc], cases, tmp_path, lambda peer: "1.0"), fresh)
    assert CALLS == []
    cached_validate([acc], cases[:1], tmp_path, lambda peer: "2.0")  # a new peer version
    assert {name for name, _ in CALLS} == {cases[0].name}


def test_cases_with_huge_exact_references_are_keyed(tmp_path):
    """A reference of about 1e-4600 (delta at eps = 20 of a weakly sampled Gaussian) is a
    rational with more digits than Python prints by default (4300): the key still forms."""
    from refacct.validation.rowcache import case_key
    big = [c for c in load_cases(suite="conformance") if c.name == "gauss-poisson-zero-out-s5-q1e-4-T1"]
    assert big and any(q.reference.value.denominator.bit_length() > 4300 * 3.33
                       for q in big[0].queries)
    assert case_key(big[0], "1") != case_key(big[0], "2")
