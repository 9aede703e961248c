"""The conformance suite: cases generated across what the peers can express.

    python -m refacct.validation.generate [--file PATH]

writes the case definitions of ``conformance.json`` (keeping the stored reference of every
query whose case is unchanged); ``python -m refacct.validation.recompute --suite
conformance --write --missing`` then computes the missing references case by case (it
resumes where it stopped), and ``refacct validate --suite conformance`` judges the peers
on them at the cost of the peers' own time.

The grid is drawn from practice: sigma 1/2 .. 5, sampling rates 1e-4 .. 1/10, 1 to 10^5
steps, eps 1/10 .. 20, delta 1e-5 .. 1e-100.  It crosses every mechanism family of the
catalogue the peers share (Gaussian, Laplace, binary randomized response, Gaussian
mixtures of group privacy, truncated Poisson), every sampling scheme (none, Poisson,
without replacement, truncated Poisson, deterministic batches), every neighbouring
relation, and every composition form (``cases.FORMS``: the peer's self-composition, a count
argument, one call per step, a list of events, heterogeneous sequences).  Unsampled
mechanisms are scaled with the number of steps (sigma times about sqrt(T)), so that their
curves stay away from 0 and 1.  Each case asks two delta(eps) and two eps(delta) queries,
rotating through the eps and delta grids.  Cases whose route (``refacct.routing``) is an
exact sum, the quadrature or the transform get 20 verified digits; those the route gives a
proven bracket get 6 (marked slow: 10 s to minutes each).  The
``tradeoff-`` cases ask the attack advantage delta(0) and the trade-off curve beta(alpha)
at alpha = 1e-3, 1e-2, 1/10, 1/2 (``TRADEOFF_QUERIES``), for the f-DP accountants; three
Gaussian ones also ask calibrations: the smallest sigma whose advantage is at most a target,
and for one of them whose beta(1/10) is at least a target (error rates).  The ``alloc-``
cases are random allocation: one epoch (sigma 1/2 .. 5, 10 .. 10^4 steps an epoch; two steps at
sigma 1) and 5 to 100 epochs (``_EPOCHS``: proven digits from the transform), with delta at
two eps each and eps(1e-5), eps(1e-10).
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

from .. import api
from ..transform import TRANSFORM
from .cases import case_from_json, catalogue_path, read_catalogue

__all__ = ["EPSILONS", "DELTAS", "TRADEOFF_QUERIES", "generate", "merge", "main"]

EPSILONS = ("1/10", "1/2", "1", "2", "5", "10", "20")
DELTAS = ("1e-5", "1e-10", "1e-30", "1e-100")
SIGMAS = ("1/2", "1", "2", "5")
RATES = ("1e-4", "1e-3", "1e-2", "1/10")
SOURCE = "generated: refacct.validation.generate"
# sigma of an unsampled Gaussian per step count: about sqrt(T), so mu = sqrt(T) / sigma
_SCALE = {1: 1, 10: 3, 100: 10, 10_000: 100, 100_000: 300}
# (sigma, q) per step count for proven brackets of the Poisson-subsampled Gaussian
_BRACKETS = {10: (("1", "1/10"), ("2", "1/10"), ("1/2", "1e-2")),
             100: (("1", "1e-2"), ("2", "1/10"), ("1/2", "1e-3")),
             1000: (("1", "1e-3"), ("2", "1e-2"), ("5", "1/10")),
             10_000: (("1", "1e-3"), ("1/2", "1e-4"), ("2", "1e-2")),
             100_000: (("1", "1e-4"), ("2", "1e-3"), ("5", "1e-2"))}


def _times(c: str, n: int) -> str:
    """c * n as exact text ("1/2" * 10 = "5")."""
    return str(Fraction(c) * n)


def _case(name: str, mechanism: Dict, sampling: Dict, relation: str, steps: int, *,
          note: str, group: int = 1, form: str = "default", segments: Sequence[Dict] = (),
          calibrate: Sequence[str] = (), errors: Sequence[str] = (),
          curve: bool = False, method: str = "auto") -> Dict:
    """A case definition; a proven bracket (``refacct.routing``, or ``method`` "bracket")
    gets 6 digits and is marked slow, the standard engines and the transform get 20 digits.  ``calibrate``:
    advantages whose smallest sigma the case asks; ``errors``: type II errors at
    ``ERROR_ALPHA`` whose smallest sigma it asks; ``curve``: the case asks the trade-off
    curve, whose profile is a proven bracket where the transform would answer
    (``refacct.tradeoff``): such a case is slow, but its delta(0) keeps the transform's
    20 digits (the curve's brackets are stored rounded outward at those digits)."""
    obj = {"name": name.replace("/", "_"), "source": SOURCE, "note": note, "mechanism": mechanism,
           "sampling": sampling, "relation": relation, "steps": steps, "group": group,
           "digits": 20, "slow": False, "queries": []}
    if calibrate:
        obj["calibrate"] = list(calibrate)
    if errors:
        obj["errors"] = list(errors)
    if form != "default":
        obj["form"] = form
    if segments:
        obj["segments"] = list(segments)
    way = api.route(*case_from_json(obj).composed(), method=method)
    obj.update(digits=6 if way.bracket else 20,
               slow=way.bracket or curve and way.engine is TRANSFORM)
    return obj


def _gaussian(sigma: str) -> Dict:
    return {"family": "gaussian", "sigma": sigma}


def _poisson(q: str) -> Dict:
    return {"scheme": "poisson", "q": q}


_NONE = {"scheme": "none"}


def _unsampled_gaussians() -> Iterator[Dict]:
    for relation, (steps, scale), c in itertools.product(
            ("add-remove", "zero-out", "substitution"), _SCALE.items(), SIGMAS):
        sigma = _times(c, scale)
        yield _case(f"gauss-none-{relation}-s{sigma}-T{steps}", _gaussian(sigma), _NONE,
                    relation, steps, note="unsampled Gaussian, closed form (002 Prop. 3.1)")


def _deterministic() -> Iterator[Dict]:
    for relation, sigma in itertools.product(("zero-out", "substitution"), SIGMAS):
        yield _case(f"gauss-det-{relation}-s{sigma}", _gaussian(sigma),
                    {"scheme": "deterministic"}, relation, 100,
                    note="deterministic batches: each record in one batch (002 Prop. 3.1)")


def _poisson_gaussians() -> Iterator[Dict]:
    for sigma, q, steps in itertools.product(SIGMAS, RATES, (1, 2)):
        yield _case(f"gauss-poisson-add-remove-s{sigma}-q{q}-T{steps}", _gaussian(sigma),
                    _poisson(q), "add-remove", steps,
                    note="Poisson-subsampled Gaussian (001 Thm 10.1), quadrature")
    for relation, (sigma, q) in itertools.product(("zero-out", "substitution"),
                                                  itertools.product(SIGMAS, RATES)):
        for steps in (1, 2) if q == "1e-2" else (1,):
            yield _case(f"gauss-poisson-{relation}-s{sigma}-q{q}-T{steps}", _gaussian(sigma),
                        _poisson(q), relation, steps,
                        note="Poisson-subsampled Gaussian, quadrature")
    for steps, pairs in _BRACKETS.items():
        for sigma, q in pairs:
            yield _case(f"gauss-poisson-add-remove-s{sigma}-q{q}-T{steps}", _gaussian(sigma),
                        _poisson(q), "add-remove", steps,
                        note="Poisson-subsampled Gaussian, many steps")


def _laplace() -> Iterator[Dict]:
    scales = {1: 1, 2: 1, 10: 5, 100: 20}
    for (steps, scale), c in itertools.product(scales.items(), SIGMAS):
        b = _times(c, scale)
        yield _case(f"laplace-none-add-remove-b{b}-T{steps}", {"family": "laplace", "scale": b},
                    _NONE, "add-remove", steps, note="unsampled Laplace")
    for steps, b in itertools.product((1, 2), SIGMAS):
        yield _case(f"laplace-none-substitution-b{b}-T{steps}", {"family": "laplace", "scale": b},
                    _NONE, "substitution", steps, note="unsampled Laplace, substitution")
    for b, q, steps in itertools.product(("1/2", "1", "2"), ("1e-2", "1/10"), (1, 2)):
        yield _case(f"laplace-poisson-add-remove-b{b}-q{q}-T{steps}",
                    {"family": "laplace", "scale": b}, _poisson(q), "add-remove", steps,
                    note="Poisson-subsampled Laplace")


def _randomized_response() -> Iterator[Dict]:
    for p, steps in itertools.product(("51/100", "3/5", "3/4", "9/10"), (1, 3, 100, 10_000)):
        if steps == 10_000 and p in ("3/4", "9/10"):
            continue
        yield _case(f"rr-none-replace-one-p{p.replace('/', '_')}-T{steps}",
                    {"family": "rr", "p": p}, _NONE, "replace-one", steps,
                    note="binary randomized response: exact rationals")


def _groups() -> Iterator[Dict]:
    for group, (sigma, q), steps in itertools.product((2, 3), (("1", "1e-2"), ("2", "1/10")), (1, 2)):
        yield _case(f"group{group}-poisson-add-remove-s{sigma}-q{q}-T{steps}", _gaussian(sigma),
                    _poisson(q), "add-remove", steps, group=group,
                    note="group privacy of the Poisson-subsampled Gaussian (003 Thm 3.1)")


def _other_samplings() -> Iterator[Dict]:
    for relation, p in itertools.product(("add-remove", "zero-out", "replace-one"), ("1/20", "1/10")):
        yield _case(f"truncpoisson-{relation}-p{p.replace('/', '_')}-T1", _gaussian("1"),
                    {"scheme": "truncated-poisson", "n": 100, "p_sample": p, "max_batch": 12},
                    relation, 1, note="truncated Poisson sampling (004 Thm 3.1)")
    for batch, sigma in itertools.product((1, 10), ("1", "2")):
        yield _case(f"wor-substitution-s{sigma}-b{batch}-T1", _gaussian(sigma),
                    {"scheme": "wor", "n": 100, "batch": batch}, "substitution", 1,
                    note="sampling without replacement, substitution (001 Sec. 7)")


def _forms() -> Iterator[Dict]:
    bases = (("gauss-poisson-s1-q1e-2-T2", _gaussian("1"), _poisson("1e-2"), "add-remove", 2),
             ("gauss-poisson-s1-q1e-2-T100", _gaussian("1"), _poisson("1e-2"), "add-remove", 100),
             ("gauss-none-s10-T100", _gaussian("10"), _NONE, "add-remove", 100),
             ("laplace-none-b5-T10", {"family": "laplace", "scale": "5"}, _NONE, "add-remove", 10),
             ("rr-p3_5-T10", {"family": "rr", "p": "3/5"}, _NONE, "replace-one", 10))
    for (name, mechanism, sampling, relation, steps), form in itertools.product(
            bases, ("count", "repeated", "list")):
        yield _case(f"form-{form}-{name}", mechanism, sampling, relation, steps, form=form,
                    note=f"composition form {form!r}")
    yield _case("form-count-gauss-poisson-s1-q1e-3-T10000", _gaussian("1"), _poisson("1e-3"),
                "add-remove", 10_000, form="count",
                note="composition form 'count', many steps")


def _heterogeneous() -> Iterator[Dict]:
    def seg(mechanism, sampling, steps):
        return {"mechanism": mechanism, "sampling": sampling, "steps": steps}
    yield _case("hetero-gauss-none-s1x5-s2x10", _gaussian("1"), _NONE, "add-remove", 5,
                segments=[seg(_gaussian("2"), _NONE, 10)], form="heterogeneous",
                note="two unsampled Gaussians composed")
    yield _case("hetero-poisson-s1q1e-2x1-s2q1_10x1", _gaussian("1"), _poisson("1e-2"),
                "add-remove", 1, segments=[seg(_gaussian("2"), _poisson("1/10"), 1)],
                form="heterogeneous", note="two Poisson-subsampled Gaussians, one step each")
    yield _case("hetero-poisson-s1q1e-2x50-s2q1_10x30", _gaussian("1"), _poisson("1e-2"),
                "add-remove", 50, segments=[seg(_gaussian("2"), _poisson("1/10"), 30)],
                form="heterogeneous", note="a schedule: 50 then 30 steps")
    yield _case("hetero-poisson-s1q1e-3x1000-s1_2q1e-3x100", _gaussian("1"), _poisson("1e-3"),
                "add-remove", 1000, segments=[seg(_gaussian("1/2"), _poisson("1e-3"), 100)],
                form="heterogeneous", note="a noise schedule: sigma 1 then 1/2")
    yield _case("hetero-gauss-none-then-poisson", _gaussian("5"), _NONE, "add-remove", 1,
                segments=[seg(_gaussian("1"), _poisson("1e-2"), 1)], form="heterogeneous",
                note="a public release, then a subsampled step")


def _tradeoffs() -> Iterator[Dict]:
    """Trade-off curves (f-DP, ``refacct.tradeoff``) and the attack advantage delta(0), what
    f-DP accountants (riskcal) report: their queries are ``TRADEOFF_QUERIES``."""
    for sigma, steps in (("1", 1), ("2", 1), ("10", 100)):
        first = steps == 1 and sigma == "1"
        yield _case(f"tradeoff-gauss-none-s{sigma}-T{steps}", _gaussian(sigma), _NONE,
                    "add-remove", steps, curve=True, note="trade-off curve: Gaussian, G_mu",
                    calibrate=("1/10", "1/100") if first else (),
                    errors=("1/4", "1/2") if first else ())
    for sigma, q, steps, targets in (("1", "1/10", 1, ("1/20", "1/100")),
                                     ("1", "1e-2", 2, ("1/100", "1/1000")),
                                     ("1", "1e-2", 100, ()), ("2", "1e-2", 1000, ())):
        yield _case(f"tradeoff-gauss-poisson-s{sigma}-q{q}-T{steps}", _gaussian(sigma),
                    _poisson(q), "add-remove", steps, calibrate=targets,
                    curve=True, note="trade-off curve: DP-SGD (Poisson-subsampled Gaussian)")
    for b, steps in (("1", 1), ("2", 2)):
        yield _case(f"tradeoff-laplace-none-b{b}-T{steps}", {"family": "laplace", "scale": b},
                    _NONE, "add-remove", steps, curve=True, note="trade-off curve: Laplace")
    yield _case("tradeoff-laplace-poisson-b1-q1_10-T1", {"family": "laplace", "scale": "1"},
                _poisson("1/10"), "add-remove", 1, curve=True,
                note="trade-off curve: Poisson Laplace")
    yield _case("tradeoff-form-repeated-gauss-poisson-s1-q1e-2-T2", _gaussian("1"),
                _poisson("1e-2"), "add-remove", 2, form="repeated",
                curve=True, note="trade-off curve, one call per step")
    yield _case("tradeoff-hetero-poisson-s1q1e-2x1-s2q1_10x1", _gaussian("1"), _poisson("1e-2"),
                "add-remove", 1, segments=[{"mechanism": _gaussian("2"),
                                            "sampling": _poisson("1/10"), "steps": 1}],
                form="heterogeneous", curve=True,
                note="trade-off curve of two different DP-SGD steps")


def _transformed() -> Iterator[Dict]:
    """Many steps the transform answers with 20 digits beyond the Gaussian families above:
    the Poisson-subsampled Laplace mechanism, and the maximum over the 1001 orders of
    sampling without replacement under substitution (last in the suite, so that the
    queries of the cases before keep their rotation)."""
    for steps in (1000, 10_000):
        yield _case(f"laplace-poisson-add-remove-b1-q1e-2-T{steps}",
                    {"family": "laplace", "scale": "1"}, _poisson("1e-2"), "add-remove", steps,
                    note="Poisson-subsampled Laplace, many steps")
    yield _case("wor-substitution-s1-b1-T1000", _gaussian("1"),
                {"scheme": "wor", "n": 100, "batch": 1}, "substitution", 1000,
                note="sampling without replacement, substitution, many steps: the maximum "
                     "over the orders of the two directions (001 Sec. 7)")
    yield from _many_steps()


def _many_steps() -> Iterator[Dict]:
    """Every other relation, sampling scheme and family the transform takes at DP-SGD
    scale, one case each: Poisson substitution and zero-out, groups, truncated Poisson under
    its three relations, WOR add-remove, and the Laplace mechanism alone (where
    dp_accounting's PLD answers below the truth, docs/benchmarks.md) and WOR-subsampled."""
    for relation, q, steps in (("substitution", "1e-2", 1000), ("zero-out", "1e-3", 10_000)):
        yield _case(f"gauss-poisson-{relation}-s1-q{q}-T{steps}", _gaussian("1"), _poisson(q),
                    relation, steps, note="Poisson-subsampled Gaussian, many steps")
    yield _case("group2-poisson-add-remove-s2-q1e-2-T1000", _gaussian("2"), _poisson("1e-2"),
                "add-remove", 1000, group=2,
                note="group privacy of the Poisson-subsampled Gaussian, many steps")
    for relation in ("add-remove", "zero-out", "replace-one"):
        yield _case(f"truncpoisson-{relation}-p1_100-T1000", _gaussian("1"),
                    {"scheme": "truncated-poisson", "n": 1000, "p_sample": "1/100",
                     "max_batch": 12}, relation, 1000,
                    note="truncated Poisson sampling, many steps (004 Thm 3.1)")
    for family, steps in ((_gaussian("2"), 1000), ({"family": "laplace", "scale": "2"}, 1000)):
        name = "gauss" if family["family"] == "gaussian" else "laplace"
        yield _case(f"{name}-wor-add-remove-n1000-batch10-T{steps}", family,
                    {"scheme": "wor", "n": 1000, "batch": 10}, "add-remove", steps,
                    note="sampling without replacement, add-remove, many steps")
    for b, steps in (("1", 1000), ("10", 10_000), ("50", 10_000)):
        yield _case(f"laplace-none-add-remove-b{b}-T{steps}", {"family": "laplace", "scale": b},
                    _NONE, "add-remove", steps, note="unsampled Laplace, many steps")


# (sigma, steps of the epoch, the two eps of its delta(eps) queries) of random allocation:
# the practical grid within the inversion's reach (sigma 1/2 needs t >= 1000, sigma
# 1 t >= 100: refacct.allocation), each eps where delta lies in 1e-5 .. 1e-50
_ALLOCATIONS = (("1/2", 1000, "1/2", "1"), ("1/2", 10_000, "1/2", "1"), ("1", 100, "1/2", "1"),
                ("1", 1000, "1/2", "1"), ("1", 10_000, "1/2", "1"), ("2", 10, "1/2", "1"),
                ("2", 100, "1/2", "1"), ("2", 1000, "1/2", "1"), ("2", 10_000, "1/50", "1/20"),
                ("5", 10, "1/5", "3/10"), ("5", 100, "1/20", "1/10"), ("5", 1000, "1/50", "1/20"),
                ("1", 2, "1", "2"))
ALLOCATION_DELTAS = ("1e-5", "1e-10")
# (sigma, steps of the epoch, epochs, the two eps of its delta(eps) queries, the delta of its
# eps(delta) queries, method) of random allocation over epochs: 20 proven digits from the
# transform ("auto": every spread sigma^2 t / E here, 5 to 200, is within
# refacct.routing.EPOCHS_MAX_SPREAD), about 5-120 s a query.  Sigma 1, t = 100 over ten
# epochs asks eps(1e-5) alone, the reach of the lattice brackets that check it
# (tests/test_conformance.py).
_EPOCHS = (("1", 100, 10, ("1", "2"), ("1e-5",), "auto"),
           ("2", 1000, 20, ("1/4", "1/2"), ALLOCATION_DELTAS, "auto"),
           ("1", 10_000, 100, ("1/2", "1"), ALLOCATION_DELTAS, "auto"),
           ("1", 100, 5, ("1", "2"), ALLOCATION_DELTAS, "auto"),
           ("11/10", 195, 20, ("1", "2"), ALLOCATION_DELTAS, "auto"))


def _allocations() -> Iterator[Dict]:
    """Random allocation (balls-and-bins, ``refacct.allocation``), the Gaussian mechanism:
    one epoch under add-remove across the grid, each order alone once, and ``_EPOCHS``
    over several epochs; each asks
    delta at its two eps and eps at ``ALLOCATION_DELTAS`` (sigma 1/2 eps(1e-5) only:
    eps(1e-10) lies beyond the inversion's node budget there)."""
    def queries(sigma, eps):
        deltas = ALLOCATION_DELTAS[:1] if sigma == "1/2" else ALLOCATION_DELTAS
        return ([{"kind": "delta", "at": e} for e in eps]
                + [{"kind": "epsilon", "at": d} for d in deltas])
    for sigma, steps, *eps in _ALLOCATIONS:
        yield dict(_case(f"alloc-add-remove-s{sigma}-t{steps}", _gaussian(sigma),
                         {"scheme": "random-allocation"}, "add-remove", steps,
                         note="random allocation, one epoch (arXiv:2412.16802)"),
                   queries=queries(sigma, eps))
    for relation in ("remove", "add"):
        yield dict(_case(f"alloc-{relation}-s2-t10", _gaussian("2"),
                         {"scheme": "random-allocation"}, relation, 10,
                         note="random allocation, one epoch, one order"),
                   queries=queries("2", ("1/2", "1")))
    for sigma, steps, epochs, eps, deltas, method in _EPOCHS:
        how = ("the one-epoch loss composed, proven brackets" if method == "bracket" else
               "the transform of the one-epoch loss's moments, proven digits")
        yield dict(_case(f"alloc-add-remove-s{sigma}-t{steps}-E{epochs}", _gaussian(sigma),
                         {"scheme": "random-allocation", "epochs": epochs}, "add-remove", steps,
                         note=f"random allocation, {epochs} epochs (arXiv:2412.16802; {how})",
                         method=method),
                   queries=[{"kind": "delta", "at": e} for e in eps]
                   + [{"kind": "epsilon", "at": d} for d in deltas])


GROUPS = (_unsampled_gaussians, _deterministic, _poisson_gaussians, _laplace,
          _randomized_response, _groups, _other_samplings, _forms, _heterogeneous,
          _transformed)
TRADEOFF_QUERIES = ([{"kind": "delta", "at": "0"}]
                    + [{"kind": "beta", "at": a} for a in ("1e-3", "1e-2", "1/10", "1/2")])


def _with_queries(index: int, obj: Dict) -> Dict:
    """Two delta(eps) and two eps(delta) queries, rotating through the grids with
    ``index``; from 10^4 steps on, through their first four and two points (a proven
    bracket of delta(20) or eps(1e-100) of 10^5 steps needs a lattice window wide enough
    to take hours)."""
    many = max([obj["steps"]] + [s["steps"] for s in obj.get("segments", ())]) >= 10_000
    eps_grid, delta_grid = (EPSILONS[:4], DELTAS[:2]) if many else (EPSILONS, DELTAS)
    eps = [eps_grid[(2 * index + j) % len(eps_grid)] for j in (0, 1)]
    deltas = [delta_grid[(index + j) % len(delta_grid)] for j in (0, len(delta_grid) // 2)]
    queries = [{"kind": "delta", "at": e} for e in sorted(eps, key=Fraction)]
    queries += [{"kind": "epsilon", "at": d} for d in sorted(deltas, key=Fraction)]
    return dict(obj, queries=queries)


def generate() -> List[Dict]:
    """Every case definition of the suite, queries without references."""
    cases = [obj for group in GROUPS for obj in group()]
    names = [c["name"] for c in cases]
    duplicated = {n for n in names if names.count(n) > 1}
    if duplicated:
        raise AssertionError(f"generated names repeat: {sorted(duplicated)}")
    first: Dict[str, int] = {}
    for i, obj in enumerate(cases):  # one mechanism in several forms: the same queries
        first.setdefault(json.dumps(_mechanism(obj), sort_keys=True), i)
    return ([_with_queries(first[json.dumps(_mechanism(obj), sort_keys=True)], obj)
             for obj in cases] + [_tradeoff_queries(obj) for obj in _tradeoffs()]
            + list(_allocations()))


def _tradeoff_queries(obj: Dict) -> Dict:
    """``TRADEOFF_QUERIES``, a calibration per advantage of ``calibrate`` and one per
    type II error of ``errors`` (at ``ERROR_ALPHA``)."""
    obj = dict(obj)
    targets, errors = obj.pop("calibrate", ()), obj.pop("errors", ())
    return dict(obj, queries=TRADEOFF_QUERIES + [{"kind": "sigma", "at": a} for a in targets]
                + [{"kind": "errors", "at": b} for b in errors])


def _mechanism(case: Dict) -> Dict:
    return {k: v for k, v in case.items() if k not in ("name", "note", "form", "queries")}


def merge(new: List[Dict], old: Optional[Dict]) -> List[Dict]:
    """``new`` with the references of ``old`` kept where the case and query are unchanged."""
    if old is None:
        return new
    stored = {c["name"]: c for c in old["cases"]}
    out = []
    for case in new:
        before = stored.get(case["name"])
        same = before is not None and _definition(before) == _definition(case)
        refs = {(q["kind"], q["at"]): q.get("reference") for q in before["queries"]} if same else {}
        queries = []
        for q in case["queries"]:
            ref = refs.get((q["kind"], q["at"]))
            queries.append(dict(q, reference=ref) if ref else q)
        out.append(dict(case, queries=queries))
    return out


def _definition(case: Dict) -> Dict:
    return {k: v for k, v in case.items() if k not in ("queries", "note", "source")}


ABOUT = ("refacct conformance suite, generated by `python -m "
         "refacct.validation.generate`; references written by `python -m "
         "refacct.validation.recompute --suite conformance --write --missing`, checked by the "
         "same command without --write.  Fields as in cases.json.")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m refacct.validation.generate",
                                     description="Write the conformance suite's definitions.")
    parser.add_argument("--file", type=Path, default=None,
                        help="output (default: the shipped conformance.json)")
    args = parser.parse_args(argv)
    path = args.file or catalogue_path("conformance")
    old = read_catalogue(path) if path.exists() else None
    cases = merge(generate(), old)
    path.write_text(json.dumps({"about": ABOUT, "cases": cases}, indent=1, ensure_ascii=False)
                    + "\n", encoding="utf-8")
    stored = sum(1 for c in cases for q in c["queries"] if q.get("reference"))
    total = sum(len(c["queries"]) for c in cases)
    print(f"{path}: {len(cases)} cases, {total} queries, {stored} with stored references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
