"""The conformance suite: generated cases, their stored references checked
against closed forms and exact sums, and each peer's vocabulary covered."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from math import comb

import mpmath
import pytest

from refacct.validation import coverage
from refacct.validation.adapters import available_peers, resolve
from refacct.validation.cases import catalogue_path, load_cases, read_catalogue
from refacct.validation.generate import generate, merge

CASES = load_cases(suite="conformance")
BY_NAME = {c.name: c for c in CASES}


def _definition(obj):
    return {k: v for k, v in obj.items() if k != "queries"} | {
        "queries": [{"kind": q["kind"], "at": q["at"]} for q in obj["queries"]]}


def test_file_is_what_the_generator_writes():
    stored = read_catalogue(catalogue_path("conformance"))["cases"]
    assert [_definition(c) for c in stored] == [_definition(c) for c in generate()]
    assert len(stored) >= 200 and len({c["name"] for c in stored}) == len(stored)


def test_merge_keeps_references_of_unchanged_cases_only():
    new = generate()[:2]
    old = {"cases": [dict(new[0], queries=[dict(q, reference={"value": "1"})
                                           for q in new[0]["queries"]]),
                     dict(new[1], steps=new[1]["steps"] + 1,
                          queries=[dict(q, reference={"value": "1"}) for q in new[1]["queries"]])]}
    merged = merge(new, old)
    assert all(q.get("reference") == {"value": "1"} for q in merged[0]["queries"])
    assert all("reference" not in q for q in merged[1]["queries"])


def test_every_query_has_a_reference():
    missing = [f"{c.name} {q}" for c in CASES for q in c.queries if q.reference is None]
    assert not missing


def test_a_few_cases_do_not_drift():
    """The stored references agree with a fresh computation (the whole suite: ``refacct
    cases --suite conformance --check``)."""
    from refacct.validation.recompute import recompute
    names = ["gauss-poisson-add-remove-s1-q1e-2-T1", "laplace-poisson-add-remove-b1-q1_10-T1",
             "rr-none-replace-one-p3_4-T3", "group2-poisson-add-remove-s2-q1_10-T1"]
    results = recompute(read_catalogue(catalogue_path("conformance")), names, quick=True,
                        log=lambda *_: None)
    assert len(results) == 16 and [r[3] for r in results if r[3]] == []


def test_the_grid_spans_practice():
    """sigma 1/2 .. 5 (sampled), q 1e-4 .. 1/10, T 1 .. 10^5, eps 1/10 .. 20, delta 1e-5 ..
    1e-100, every form, every relation."""
    sampled = [c for c in CASES if c.scheme == "poisson" and c.family == "gaussian"]
    assert {c.param("sigma") for c in sampled} >= {Fraction(1, 2), Fraction(5)}
    assert {c.param("q") for c in sampled} >= {Fraction(1, 10**4), Fraction(1, 10)}
    assert {c.steps for c in CASES} >= {1, 2, 10, 100, 1000, 10**4, 10**5}
    ats = {(q.kind, q.at) for c in CASES for q in c.queries}
    assert {("delta", Fraction(1, 10)), ("delta", Fraction(20))} <= ats
    assert {("epsilon", Fraction(1, 10**5)), ("epsilon", Fraction(1, 10**100))} <= ats
    assert {c.form for c in CASES} == {"default", "count", "repeated", "list", "heterogeneous"}
    assert {c.relation for c in CASES} >= {"add-remove", "zero-out", "substitution",
                                          "replace-one"}


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _within(truth, ref) -> bool:
    """|truth - stored value| <= stored bound (the stored bound covers the rounding)."""
    return abs(truth - _mp(ref.value)) <= _mp(ref.abs_error)


def _balle_wang(mu, eps):
    """delta(eps) of N(0, 1) vs N(mu, 1): Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)
    (Balle and Wang 2018, Thm 8)."""
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


@pytest.mark.parametrize("case", [c for c in CASES if c.name.startswith("gauss-none-")],
                         ids=lambda c: c.name)
def test_unsampled_gaussian_references_match_the_closed_form(case):
    """T steps of N(0, s^2) vs N(D, s^2) are N(0, 1) vs N(mu, 1) with mu = sqrt(T) D / s;
    D = 1 under add-remove and zero-out, 2 under substitution (the sum moves by up to
    twice a record's bound)."""
    shift = 2 if case.relation == "substitution" else 1
    with mpmath.workdps(50):
        mu = mpmath.sqrt(case.steps) * shift / _mp(case.param("sigma"))
        for q in case.queries:
            if q.kind == "delta":
                assert _within(_balle_wang(mu, _mp(q.at)), q.reference), str(q)


@pytest.mark.parametrize("case", [c for c in CASES if c.steps == 1
                                  and any(q.kind == "sigma" for q in c.queries)],
                         ids=lambda c: c.name)
def test_one_step_calibration_references_match_the_closed_form(case):
    """The advantage of one unsampled Gaussian step is erf(1 / (2 sqrt 2 s)), and one
    Poisson step at rate q multiplies it by q (the total variation of the mixture), so the
    smallest sigma for advantage a is 1 / (2 sqrt 2 erfinv(a / q)) (q = 1 unsampled).  The
    two-step case has no closed form and is left to refacct.calibrate's own tests."""
    q = case.param("q") if case.scheme == "poisson" else Fraction(1)
    with mpmath.workdps(50):
        for query in case.queries:
            if query.kind == "sigma":
                truth = 1 / (2 * mpmath.sqrt(2) * mpmath.erfinv(_mp(query.at / q)))
                assert _within(truth, query.reference), str(query)


def test_error_rate_calibration_references_match_the_closed_form():
    """One unsampled Gaussian step has the curve G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu),
    mu = 1 / s (Dong, Roth, Su 2019, arXiv:1905.02383), so the smallest sigma with
    beta(alpha) >= b is 1 / (Phi^-1(1 - alpha) - Phi^-1(b))."""
    from refacct.validation.cases import ERROR_ALPHA
    asked = [(c, q) for c in CASES for q in c.queries if q.kind == "errors"]
    assert asked and all(c.family == "gaussian" and c.scheme == "none" and c.steps == 1
                         for c, _ in asked)
    with mpmath.workdps(50):
        inv = lambda p: -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * _mp(p))
        for _, query in asked:
            truth = 1 / (inv(1 - ERROR_ALPHA) - inv(query.at))
            assert _within(truth, query.reference), str(query)


@pytest.mark.parametrize("case", [c for c in CASES if c.family == "rr" and c.steps <= 100],
                         ids=lambda c: c.name)
def test_randomized_response_references_match_the_binomial_sum(case):
    """T steps of binary randomized response reporting the true bit with probability p,
    under replace-one: the worst pair is (Binom(T, p), Binom(T, 1 - p)) on the count of
    reported ones, so delta(eps) = sum_k C(T, k) max(0, p^k (1-p)^(T-k) - e^eps (1-p)^k
    p^(T-k))."""
    p, T = case.param("p"), case.steps
    with mpmath.workdps(60):
        for q in case.queries:
            if q.kind != "delta":
                continue
            ratio = mpmath.exp(_mp(q.at))
            truth = mpmath.fsum(
                comb(T, k) * max(0, _mp(p ** k * (1 - p) ** (T - k))
                                 - ratio * _mp((1 - p) ** k * p ** (T - k)))
                for k in range(T + 1))
            assert _within(truth, q.reference), str(q)


def test_a_heterogeneous_case_is_the_product_of_its_parts():
    """Two unsampled Gaussians, sigma 1 five times then sigma 2 ten times: the composition
    is N(0, 1) vs N(mu, 1) with mu^2 = 5 / 1 + 10 / 4 (the means shift add in quadrature)."""
    case = BY_NAME["hetero-gauss-none-s1x5-s2x10"]
    with mpmath.workdps(50):
        mu = mpmath.sqrt(mpmath.mpf(5) + mpmath.mpf(10) / 4)
        for q in case.queries:
            if q.kind == "delta":
                assert _within(_balle_wang(mu, _mp(q.at)), q.reference), str(q)
    assert case.composed()[0].bound == "tight"


def test_forms_share_their_reference():
    """A composition form changes how a peer is asked, not the truth: the stored references
    of the form cases (written by other recompute runs than the default case's, and matched
    to their queries when stored) equal the default case's within both bounds."""
    base = BY_NAME["gauss-poisson-add-remove-s1-q1e-2-T2"]
    for form in ("count", "repeated", "list"):
        other = BY_NAME[f"form-{form}-gauss-poisson-s1-q1e-2-T2"]
        for a, b in zip(base.queries, other.queries):
            assert (a.kind, a.at) == (b.kind, b.at)
            assert abs(a.reference.value - b.reference.value) <= \
                a.reference.abs_error + b.reference.abs_error


# proven lattice brackets of cases the transform answers (refacct.brackets, as stored in
# the suite before, or at the default width for the subsampled Laplace: lattice h = 2^-9 ..
# 2^-15, a method that shares nothing with the transform's inversion of the moment
# generating function)
LATTICE = {
    "gauss-poisson-add-remove-s1-q1_10-T10": {
        ("delta", "1/10"): ("0.109129", "0.109167"),
        ("delta", "1/2"): ("0.0341022", "0.0341177"),
        ("epsilon", "1e-30"): ("16.1764", "16.1768"),
        ("epsilon", "1e-5"): ("2.85440", "2.85458"),
    },
    "gauss-poisson-add-remove-s2-q1_10-T10": {
        ("delta", "1"): ("5.71581e-7", "5.72795e-7"),
        ("delta", "2"): ("1.20822e-13", "1.21133e-13"),
        ("epsilon", "1e-100"): ("13.4977", "13.4986"),
        ("epsilon", "1e-10"): ("1.57244", "1.57307"),
    },
    "gauss-poisson-add-remove-s1_2-q1e-3-T100": {
        ("delta", "2"): ("1.26639e-5", "1.26906e-5"),
        ("delta", "5"): ("1.06149e-8", "1.06447e-8"),
        ("epsilon", "1e-100"): ("73.3883", "73.3896"),
        ("epsilon", "1e-10"): ("6.65994", "6.66112"),
    },
    "hetero-poisson-s1q1e-2x50-s2q1_10x30": {
        ("delta", "1/10"): ("0.0811548", "0.0812507"),
        ("delta", "20"): ("2.87006e-75", "2.88879e-75"),
        ("epsilon", "1e-100"): ("26.7007", "26.7015"),
        ("epsilon", "1e-10"): ("2.49688", "2.49767"),
    },
    "gauss-poisson-add-remove-s1-q1e-2-T100": {
        ("delta", "1/10"): ("0.0190288", "0.0190781"),
        ("delta", "20"): ("1.18326e-75", "1.18559e-75"),
        ("epsilon", "1e-100"): ("26.7190", "26.7201"),
        ("epsilon", "1e-10"): ("2.16229", "2.16309"),
    },
    "gauss-poisson-add-remove-s1-q1e-3-T1000": {
        ("delta", "10"): ("4.25257e-60", "4.26211e-60"),
        ("delta", "20"): ("1.15953e-115", "1.16281e-115"),
        ("epsilon", "1e-30"): ("4.85487", "4.85510"),
        ("epsilon", "1e-5"): ("0.148234", "0.149229"),
    },
    "gauss-poisson-add-remove-s1_2-q1e-4-T10000": {
        ("delta", "1/10"): ("0.00458409", "0.00458692"),
        ("delta", "1/2"): ("0.000133720", "0.000133731"),
        ("epsilon", "1e-10"): ("5.08433", "5.08462"),
        ("epsilon", "1e-5"): ("1.17525", "1.17527"),
    },
    "laplace-poisson-add-remove-b1-q1e-2-T1000": {
        ("delta", "10"): ("4.55938e-213", "7.22864e-213"),
        ("delta", "20"): ("0", "0"),
        ("epsilon", "1e-30"): ("3.47261", "3.47981"),
        ("epsilon", "1e-5"): ("1.11824", "1.12382"),
    },
    "laplace-poisson-add-remove-b1-q1e-2-T10000": {
        ("delta", "1"): ("0.0989252", "0.101468"),
        ("delta", "2"): ("0.0122589", "0.0127575"),
        ("epsilon", "1e-10"): ("6.06052", "6.07759"),
        ("epsilon", "1e-5"): ("4.01246", "4.02891"),
    },
    "hetero-poisson-s1q1e-3x1000-s1_2q1e-3x100": {
        ("delta", "1/2"): ("0.000555198", "0.000555409"),
        ("delta", "1"): ("0.000127490", "0.000127516"),
        ("epsilon", "1e-30"): ("21.9267", "21.9272"),
        ("epsilon", "1e-5"): ("2.11136", "2.11142"),
    },
    "gauss-poisson-substitution-s1-q1e-2-T1000": {
        ("delta", "5"): ("1.86681e-12", "1.87453e-12"),
        ("delta", "10"): ("6.48011e-29", "6.50647e-29"),
        ("epsilon", "1e-100"): ("30.8866", "30.8955"),
        ("epsilon", "1e-10"): ("4.48261", "4.49101"),
    },
    "gauss-poisson-zero-out-s1-q1e-3-T10000": {
        ("delta", "1/10"): ("0.0178227", "0.0179096"),
        ("delta", "1/2"): ("5.05211e-6", "5.08995e-6"),
        ("epsilon", "1e-10"): ("0.850548", "0.85492"),
        ("epsilon", "1e-5"): ("0.472991", "0.477346"),
    },
    "group2-poisson-add-remove-s2-q1e-2-T1000": {
        ("delta", "1/2"): ("0.0135355", "0.0136534"),
        ("delta", "1"): ("0.000304023", "0.000305633"),
        ("epsilon", "1e-100"): ("13.7048", "13.7099"),
        ("epsilon", "1e-10"): ("2.15558", "2.15971"),
    },
    "truncpoisson-add-remove-p1_100-T1000": {
        ("delta", "2"): ("0.0275027", "0.0275708"),
        ("delta", "5"): ("0.000563005", "0.00056463"),
        ("epsilon", "1e-30"): ("42.5283", "42.5314"),
        ("epsilon", "1e-5"): ("7.8561", "7.8585"),
    },
    "truncpoisson-zero-out-p1_100-T1000": {
        ("delta", "10"): ("5.02165e-7", "5.03955e-7"),
        ("delta", "20"): ("7.81199e-14", "7.84459e-14"),
        ("epsilon", "1e-100"): ("127.729", "127.733"),
        ("epsilon", "1e-10"): ("15.5418", "15.5449"),
    },
    "truncpoisson-replace-one-p1_100-T1000": {
        ("delta", "1/10"): ("0.39654", "0.397794"),
        ("delta", "1/2"): ("0.28926", "0.290616"),
        ("epsilon", "1e-30"): ("43.362", "43.3652"),
        ("epsilon", "1e-5"): ("8.55367", "8.56301"),
    },
    "gauss-wor-add-remove-n1000-batch10-T1000": {
        ("delta", "1"): ("0.00259799", "0.00261981"),
        ("delta", "2"): ("2.65843e-6", "2.66925e-6"),
        ("epsilon", "1e-100"): ("29.5929", "29.6018"),
        ("epsilon", "1e-10"): ("3.28493", "3.29328"),
    },
    "laplace-wor-add-remove-n1000-batch10-T1000": {
        ("delta", "5"): ("1.59459e-58", "1.85976e-58"),
        ("delta", "10"): ("4.55938e-213", "7.22864e-213"),
        ("epsilon", "1e-30"): ("3.47261", "3.47981"),
        ("epsilon", "1e-5"): ("1.11824", "1.12382"),
    },
    # random allocation over epochs: the one-epoch loss's proven cells composed on a
    # lattice (refacct.brackets), where the transform inverts the epochs' moments
    "alloc-add-remove-s1-t100-E10": {
        ("delta", "1"): ("0.00199921", "0.00200248"),
        ("delta", "2"): ("7.25895e-7", "7.28338e-7"),
        ("epsilon", "1e-5"): ("1.70126", "1.70163"),
    },
    "alloc-add-remove-s2-t1000-E20": {
        ("delta", "1/4"): ("1.02472e-5", "1.02546e-5"),
        ("delta", "1/2"): ("2.40244e-13", "2.40834e-13"),
        ("epsilon", "1e-5"): ("0.248106", "0.251744"),
        ("epsilon", "1e-10"): ("0.425157", "0.431101"),
    },
    "alloc-add-remove-s1-t10000-E100": {
        ("delta", "1/2"): ("2.75263e-6", "2.75271e-6"),
        ("delta", "1"): ("3.85859e-16", "5.68019e-16"),
        ("epsilon", "1e-5"): ("0.456276", "0.459021"),
        ("epsilon", "1e-10"): ("0.759817", "0.764197"),
    },
}


@pytest.mark.parametrize("name", sorted(LATTICE))
def test_transform_references_lie_inside_the_lattice_brackets(name):
    """The 20-digit references of the cases the transform answers (Poisson, WOR and
    truncated Poisson sampling, Gaussian and Laplace, add-remove, zero-out, substitution,
    groups, from 10 steps on; random allocation over epochs) lie inside the brackets of a
    lattice, and the same holds for
    the forms of one case.  (The unsampled Laplace cases of 10^3 and 10^4 steps are not
    here: a lattice brackets them from 0 to 6e7; the exact convolution of the Laplace
    loss's law checks the transform at 300 and 400 steps, test_transform_laplace.)"""
    names = [name] + ([f"form-{form}-gauss-poisson-s1-q1e-2-T100"
                       for form in ("count", "repeated", "list")]
                      if name.endswith("s1-q1e-2-T100") else [])
    for each in names:
        case = BY_NAME[each]
        assert case.digits == 20 and not case.slow
        for q in case.queries:
            lo, hi = _bracket(LATTICE[name], q)
            assert lo <= q.reference.value <= hi, (each, str(q))
            if q.reference.method.startswith("transform"):
                assert q.reference.abs_error <= q.reference.value * Fraction(1, 10 ** 19)
    transformed = [q for q in BY_NAME[name].queries if q.reference.method.startswith("transform")]
    assert len(transformed) >= len(BY_NAME[name].queries) - (name in OUT_OF_REACH)


# a query the transform finds out of its reach has its fallback's reference: the bracket
OUT_OF_REACH = {"gauss-poisson-add-remove-s1_2-q1e-3-T100"}   # eps(1e-100)


def _bracket(table, query):
    """The stored bracket of a query, matched by its exact point."""
    for (kind, at), (lo, hi) in table.items():
        if kind == query.kind and Fraction(at) == query.at:
            return Fraction(lo), Fraction(hi)
    raise KeyError(str(query))


PEERS = available_peers()


def _by_cost(peers):
    """The peers, jax_privacy as ``heavy``: its adapter's walk over the sample of cases
    takes a minute or more (each accountant it builds compiles with JAX) and its own
    answers are tested in tests/test_validation_peers.py."""
    return [pytest.param(p, marks=pytest.mark.heavy) if p == "jax_privacy" else p
            for p in peers]


@pytest.mark.parametrize("peer", PEERS)
def test_the_suite_covers_each_peer_vocabulary(peer):
    counts = coverage.exercised(resolve(peer), CASES)[peer]
    assert coverage.gaps(peer, counts) == []
    text = coverage.render(peer, counts)
    assert "not exercised" not in text and "Not covered" in text


def _sample():
    """One small case per (family, scheme, relation, form, parts), few steps, no group."""
    seen, out = set(), []
    for case in CASES:
        key = (case.family, case.scheme, case.relation, case.form, len(case.parts()))
        if key not in seen and case.group == 1 and all(p.steps <= 10 for p in case.parts()):
            seen.add(key)
            out.append(case)
    return out


def _one_per_kind(queries):
    """The first query of each kind: queries of one kind differ only in their point, which
    the adapters pass on and do not read (a point of 0 aside: riskcal asks delta(0) as an
    advantage, so it counts as a kind of its own)."""
    seen, out = set(), []
    for query in queries:
        key = (query.kind, query.at == 0)
        if key not in seen:
            seen.add(key)
            out.append(query)
    return out


def _answered(answer, query) -> bool:
    """The adapter asked the peer (an exception from the peer is an answer: a failure)."""
    try:
        return answer(query) is not None
    except Exception:
        return True


@pytest.mark.slow
@pytest.mark.parametrize("peer", _by_cost(PEERS))
def test_features_name_exactly_the_queries_the_adapter_asks(peer):
    """``features`` (no peer run) is None exactly when the adapter does not ask the query."""
    module_features = coverage.peer_module(peer).features
    for acc in resolve(peer):
        for case in _sample():
            answer = acc.prepare(case)
            for query in _one_per_kind(case.queries):
                asked = answer is not None and _answered(answer, query)
                assert (module_features(acc.name, case, query) is not None) == asked, \
                    (acc.name, case.name, str(query))


def test_validate_the_conformance_suite_with_coverage(tmp_path):
    """A user accountant answering the Balle-Wang closed form (computed on its own, 40
    digits) on the unsampled add-remove Gaussian cases is judged sound on every delta
    query, through the command line with --suite, --coverage and JSON output."""
    module = tmp_path / "closed_form_acc.py"
    module.write_text(
        "import mpmath\n"
        "def acc(case, query):\n"
        "    if query.kind != 'delta':\n"
        "        return None\n"
        "    with mpmath.workdps(40):\n"
        "        s = case.param('sigma')\n"
        "        mu = mpmath.sqrt(case.steps) * s.denominator / s.numerator\n"
        "        e = mpmath.mpf(query.at.numerator) / query.at.denominator\n"
        "        d = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)\n"
        "        return mpmath.nstr(d, 35)\n")
    out = subprocess.run([sys.executable, "-m", "refacct", "validate", "--suite", "conformance",
                          "--cases", "gauss-none-add-remove-*", "--accountant",
                          "closed_form_acc:acc", "--coverage", "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path,
                         env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip())
    assert report["summary"]["closed_form_acc:acc"] == {"sound": 40, "n/a": 40}
    assert report["coverage"] == {}  # a user accountant declares no vocabulary


# --- the quick slice, reproducers and the scorecard --------------------------------------

def test_the_quick_slice_spans_the_suite():
    from refacct.validation.scorecard import QUICK, quick_cases
    quick = quick_cases()
    assert len(quick) == len(QUICK)
    assert {(c.family, c.scheme) for c in quick} == {(c.family, c.scheme) for c in CASES}
    assert {c.form for c in quick} == {c.form for c in CASES}
    assert {c.relation for c in quick} == {c.relation for c in CASES}


def _printed(code: str) -> str:
    import contextlib
    import io
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(code, {})
    except Exception as exc:  # the peer raised: the reproducer shows the same exception
        return repr(exc)
    return buffer.getvalue().strip().splitlines()[-1]


def _asked(answer, query) -> str:
    """What ``print`` shows of the adapter's answer (or the exception it raised)."""
    try:
        return str(answer(query))
    except Exception as exc:
        return repr(exc)


REPRODUCED = ["form-repeated-gauss-poisson-s1-q1e-2-T2", "hetero-poisson-s1q1e-2x1-s2q1_10x1",
              "gauss-none-add-remove-s1-T1", "form-list-rr-p3_5-T10",
              "form-count-gauss-poisson-s1-q1e-2-T2", "laplace-none-add-remove-b1-T1",
              "tradeoff-gauss-none-s2-T1", "tradeoff-laplace-poisson-b1-q1_10-T1",
              "tradeoff-hetero-poisson-s1q1e-2x1-s2q1_10x1", "alloc-add-remove-s2-t10"]


@pytest.mark.slow
@pytest.mark.parametrize("peer", _by_cost(PEERS))
def test_reproducers_print_what_the_adapters_answer(peer):
    """A finding's reproducer uses the peer alone: run, it prints the adapter's answer."""
    module = coverage.peer_module(peer)
    checked = 0
    for acc in resolve(peer):
        for name in REPRODUCED:
            case = BY_NAME[name]
            answer = acc.prepare(case)
            for query in _one_per_kind(case.queries):
                code = module.reproducer(acc.name, case, query)
                if code is None:
                    assert answer is None or answer(query) is None, (acc.name, name, str(query))
                    continue
                assert "refacct" not in code
                assert _printed(code) == _asked(answer, query), (acc.name, name, str(query))
                checked += 1
    assert checked >= 3


def test_the_scorecard_names_a_finding_with_its_reproducer(tmp_path):
    """dp_accounting's PLDAccountant composes a randomized-response event given with a count
    once (docs/findings.md): 10 steps of RR 3/5 answer the one-step curve, unsound against
    the exact binomial sum (test above)."""
    pytest.importorskip("dp_accounting")
    from refacct.validation.harness import validate
    from refacct.validation.scorecard import findings, render
    cases = [BY_NAME["form-count-rr-p3_5-T10"], BY_NAME["gauss-none-add-remove-s1-T1"]]
    rows = validate(resolve("dp_accounting.pld"), cases)
    groups = findings(rows)
    assert any(acc == "dp_accounting.pld" and verdict == "unsound" and
               all(r.case.name == "form-count-rr-p3_5-T10" for r in group)
               for (acc, verdict, _), group in groups.items())
    page = render(rows, ["dp_accounting"], suites="a test", seconds=1.0)
    for heading in ("## Peers", "## Verdicts per area", "## Findings", "## Coverage"):
        assert heading in page
    assert "acc.compose(RandomizedResponseDpEvent(noise_parameter=0.8, num_buckets=2), 10)" in page
