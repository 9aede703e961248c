"""The certified reference dataset: refacct's reference values as plain records that any
test suite reads without installing refacct, in the manner of NIST's Statistical Reference
Datasets (certified values in plain files, with difficulty levels).

    refacct dataset [--dir DIR]                    check DIR against the references
    refacct dataset [--dir DIR] --recompute PATTERN ...   ... and recompute those cases
    refacct dataset [--dir DIR] --write            regenerate DIR's records

One record per query, JSON Lines (``RECORDS``), described by the JSON Schema ``SCHEMA``
(written from ``schema()``); ``CHANGELOG.md`` beside them says what changed between
``VERSION``s.  Every record is derived from a query of one of refacct's suites of cases
(``refacct.validation.cases.SUITES``), whose references are written only by
``refacct.validation.recompute``: the dataset adds nothing to their values, it restates
them in a peer-neutral vocabulary with the interval spelt out:

* ``certified.lower <= truth <= certified.upper`` (exact decimals, rounded outward from the
  reference: [value - abs_error, value + abs_error], or a proven bracket's ends; clipped at
  0, below which no queried quantity lies);
* ``certified.type``: ``exact`` (exact arithmetic: the interval is the exact value's
  rounding, ``certified.exact`` the rational when there is one), ``proven`` (Arb ball
  arithmetic or a proven lattice bracket: a mathematical enclosure), ``verified`` (two
  evaluations that share no precision, nodes or cuts agree within the bound: evidence, not
  proof);
* ``bound``: what the interval encloses.  ``tight``: the privacy curve of the worst case
  itself; ``upper``: an upper bound on it (the known dominating pair is not proven tight);
  ``lower``: a lower bound on it.  An accountant's upper bound below ``lower`` is unsound
  with proof when ``bound`` is ``tight`` or ``lower``.

Difficulty (``LEVELS``, as NIST grades its datasets): the number of the features that make a
query hard for a fast accountant (``FEATURES``): 0 lower, 1 average, 2 or more higher.

The check (``check``) rebuilds the records from the shipped references and compares them
with the files, record by record; with ``--recompute`` it also recomputes the selected
cases through the engines and requires each new interval to overlap the stored one (both
contain the truth).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence

from .. import __version__
from ..references import cite
from ..result import directed_text
from .cases import (SUITES, Case, Query, Reference, case_from_json, catalogue_path,
                    read_catalogue)
from .recompute import compute_all, reference_json

__all__ = ["VERSION", "RECORDS", "SCHEMA", "LEVELS", "FEATURES", "default_directory",
           "records", "record", "features", "schema", "write", "check", "add_arguments", "run"]

VERSION = "1.2.1"
RECORDS = "refacct-reference.jsonl"
SCHEMA = "refacct-reference.schema.json"
LEVELS = ("lower", "average", "higher")
FEATURES = {
    "tiny-delta": "delta at or below 1e-10 (asked for, or the answer)",
    "many-steps": "100 or more steps",
    "group": "group privacy (more than one record differs)",
    "substitution": "a record replaced (substitution, replace-one), not added or removed",
    "large-eps": "eps at or above 10 (asked for, or the answer)",
    "heterogeneous": "different mechanisms composed",
}
TINY_DELTA = Fraction(1, 10 ** 10)
LARGE_EPS = Fraction(10)
_SCHEMES = {"none": "none", "poisson": "poisson", "wor": "without-replacement",
            "truncated-poisson": "truncated-poisson", "deterministic": "deterministic-batches",
            "random-allocation": "random-allocation"}
_SAMPLING_NAMES = {"q": "rate", "n": "dataset_size", "batch": "batch_size",
                   "p_sample": "rate", "max_batch": "max_batch_size", "epochs": "epochs"}
_NOISES = {"gaussian": "gaussian", "laplace": "laplace", "rr": "randomized-response"}
_MECHANISM_NAMES = {"sigma": "sigma", "scale": "scale", "p": "p_truth",
                    "sensitivity": "sensitivity"}
_PAPER = re.compile(r"\b(00[1-4])\b")


def default_directory() -> Path:
    """``data/`` of the source tree this package sits in (the dataset is not package
    data: users fetch the files, not refacct)."""
    return Path(__file__).resolve().parents[2] / "data"


def records() -> Iterator[Dict]:
    """Every record, in the order of ``cases.SUITES`` (the reference cases, the conformance
    suite, the settings of training recipes); within a case, its queries in order."""
    for suite in SUITES:
        for obj in read_catalogue(catalogue_path(suite))["cases"]:
            case = case_from_json(obj)
            for query in case.queries:
                if query.reference is not None:
                    yield record(case, query, suite)


def record(case: Case, query: Query, suite: str) -> Dict:
    """One query as a dataset record (module docstring; the schema describes each field)."""
    ref = query.reference
    found = features(case, query)
    out = {
        "id": f"{case.name}:{query.kind}@{query.text}",
        "case": case.name,
        "suite": suite,
        "composition": [_segment(part.mechanism, part.sampling, part.steps)
                        for part in case.parts()],
        "relation": case.relation,
        "group": case.group,
        "query": {"kind": query.kind, "at": query.text},
        "certified": _certified(ref),
        "bound": ref.bound,
        "worst_case": ref.attained_by,
        "method": ref.method,
        "difficulty": LEVELS[min(len(found), 2)],
        "features": found,
        "source": case.source if case.note in ("", case.source) else f"{case.source}: {case.note}",
        "papers": [cite(key) for key in sorted(set(_PAPER.findall(f"{case.source} {case.note}")))],
        "refacct_version": __version__,
        "dataset_version": VERSION,
    }
    if case.form not in ("default", "heterogeneous"):
        out["compose_as"] = case.form
    return out


def _segment(mechanism: Mapping, sampling: Mapping, steps: int) -> Dict:
    noise = {"noise": _NOISES[mechanism["family"]]}
    noise.update({_MECHANISM_NAMES[k]: str(v) for k, v in mechanism.items() if k != "family"})
    if noise["noise"] != "randomized-response":
        noise.setdefault("sensitivity", "1")
    scheme = {"scheme": _SCHEMES[sampling["scheme"]]}
    scheme.update({_SAMPLING_NAMES[k]: str(v) if _SAMPLING_NAMES[k] == "rate" else int(v)
                   for k, v in sampling.items() if k != "scheme"})
    return {"mechanism": noise, "sampling": scheme, "steps": steps}


def _certified(ref: Reference) -> Dict:
    """The interval [lower, upper] holding the truth, with its type (module docstring)."""
    if ref.infinite:
        ends = {"lower": "inf", "upper": "inf", "value": "inf"}
    else:
        digits = 25   # outward, so any count of digits keeps the truth inside
        ends = {"lower": directed_text(max(ref.low, Fraction(0)), digits, up=False, trim=True),
                "upper": directed_text(ref.high, digits, up=True, trim=True),
                "value": directed_text(ref.value, digits, up=True, trim=True)}
    exact = ref.exact if ref.exact is not None else (
        Fraction(0) if ref.verified_digits == "exact" and ref.value == 0 else None)
    if ref.proven:
        kind = "proven"
    elif ref.verified_digits == "exact" or ref.exact is not None or ref.method.startswith("exact"):
        kind = "exact"
    else:
        kind = "verified"
    return dict(ends, type=kind, digits=None if ref.verified_digits == "exact"
                else int(ref.verified_digits),
                exact=None if exact is None else _fraction_text(exact))


def _fraction_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def features(case: Case, query: Query) -> List[str]:
    """The ``FEATURES`` that make this query hard for a fast accountant, in their order."""
    ref = query.reference
    answer = None if ref is None or ref.infinite else ref.value
    delta = {"delta": answer, "epsilon": query.at}.get(query.kind)
    eps = {"delta": query.at, "epsilon": answer}.get(query.kind)
    steps = case.steps * case.epochs + sum(s.steps for s in case.segments)
    found = {
        "tiny-delta": delta is not None and delta <= TINY_DELTA,
        "many-steps": steps >= 100,
        "group": case.group > 1,
        "substitution": case.relation in ("substitution", "replace-one"),
        "large-eps": eps is not None and eps >= LARGE_EPS,
        "heterogeneous": bool(case.segments),
    }
    return [name for name in FEATURES if found[name]]


def schema() -> Dict:
    """The JSON Schema (draft 2020-12) of one record."""
    text = {"type": "string"}
    decimal = {"type": "string", "pattern": r"^(inf|-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)$"}
    rational = {"type": "string", "pattern": r"^[0-9]+(/[0-9]+|(\.[0-9]+)?([eE][+-]?[0-9]+)?)$"}
    mechanism = {
        "type": "object", "required": ["noise"], "additionalProperties": False,
        "description": "One step's noise.  gaussian: N(f(D), sigma^2) with L2 sensitivity "
                       "`sensitivity` (noise multiplier sigma / sensitivity); laplace: "
                       "Lap(f(D), scale) with L1 sensitivity; randomized-response: report "
                       "the bit 'the batch holds the record' truthfully with probability "
                       "p_truth.  Numbers are exact decimals or rationals, as text.",
        "properties": {"noise": {"enum": sorted(set(_NOISES.values()))},
                       **{name: rational for name in sorted(set(_MECHANISM_NAMES.values()))}}}
    sampling = {
        "type": "object", "required": ["scheme"], "additionalProperties": False,
        "description": "How each step's batch is drawn.  none: the whole dataset; poisson: "
                       "each record independently with probability `rate`; "
                       "without-replacement: a uniform batch of `batch_size` of "
                       "`dataset_size`; truncated-poisson: Poisson at `rate` over "
                       "`dataset_size` records, batches above `max_batch_size` truncated "
                       "(Ganesh 2025); deterministic-batches: the dataset cut into `steps` "
                       "disjoint batches, each record in exactly one (Chua et al. 2024's "
                       "ABLQ_D); random-allocation: each record in exactly one of the "
                       "`steps` steps of an epoch, chosen uniformly, for `epochs` epochs "
                       "(default 1).",
        "properties": {"scheme": {"enum": sorted(set(_SCHEMES.values()))},
                       "rate": rational, "dataset_size": {"type": "integer", "minimum": 1},
                       "batch_size": {"type": "integer", "minimum": 1},
                       "max_batch_size": {"type": "integer", "minimum": 1},
                       "epochs": {"type": "integer", "minimum": 1}}}
    certified = {
        "type": "object", "additionalProperties": False,
        "required": ["type", "lower", "upper", "value", "digits", "exact"],
        "description": "lower <= truth <= upper, exact decimals (compare exactly, e.g. "
                       "Python's Fraction(text); 'inf' for an infinite eps).  type exact: "
                       "computed in exact arithmetic, the interval is its rounding; proven: "
                       "an Arb ball or a proven lattice bracket; verified: two evaluations "
                       "sharing no precision, nodes or cuts agree within the bound.",
        "properties": {"type": {"enum": ["exact", "proven", "verified"]},
                       "lower": decimal, "upper": decimal, "value": decimal,
                       "digits": {"type": ["integer", "null"], "minimum": 0,
                                  "description": "significant digits verified (null: exact)"},
                       "exact": {"type": ["string", "null"], "pattern": r"^-?[0-9]+(/[0-9]+)?$",
                                 "description": "the exact rational, when there is one"}}}
    segment = {"type": "object", "required": ["mechanism", "sampling", "steps"],
               "additionalProperties": False,
               "properties": {"mechanism": mechanism, "sampling": sampling,
                              "steps": {"type": "integer", "minimum": 1}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"refacct-reference-{VERSION}",
        "title": "refacct certified reference dataset: one record per query",
        "type": "object", "additionalProperties": False,
        "required": ["id", "case", "suite", "composition", "relation", "group", "query",
                     "certified", "bound", "worst_case", "method", "difficulty", "features",
                     "source", "papers", "refacct_version", "dataset_version"],
        "properties": {
            "id": {"type": "string", "description": "case:kind@at, unique"},
            "case": {"type": "string", "description": "refacct's case name"},
            "suite": {"enum": list(SUITES),
                      "description": "reference: hand-picked cases (the papers' rows, tiny "
                                     "delta, findings); conformance: generated across the "
                                     "peers' vocabularies; settings: real training recipes"},
            "composition": {"type": "array", "minItems": 1, "items": segment,
                            "description": "segments run one after the other under the "
                                           "same relation; more than one: heterogeneous"},
            "relation": {"enum": ["add", "remove", "add-remove", "substitution",
                                  "replace-one", "zero-out"],
                         "description": "neighbouring datasets.  add-remove: the larger of "
                                        "add and remove; substitution and replace-one: one "
                                        "record replaced by another; zero-out: one record "
                                        "replaced by a zero record (Chua et al. 2024)"},
            "group": {"type": "integer", "minimum": 1,
                      "description": "records that differ (group privacy)"},
            "query": {"type": "object", "required": ["kind", "at"],
                      "additionalProperties": False,
                      "description": "delta: delta(eps) at eps = at (natural log); epsilon: "
                                     "the smallest eps >= 0 with delta(eps) <= at; alpha: "
                                     "the hockey-stick divergence H_alpha; beta: the "
                                     "trade-off curve at type I error alpha = at; sigma: the "
                                     "smallest Gaussian sigma (the record's own aside) with "
                                     "delta(0) <= at; errors: the smallest sigma with "
                                     "beta(1/10) >= at",
                      "properties": {"kind": {"enum": ["delta", "epsilon", "alpha", "beta",
                                                       "sigma", "errors"]},
                                     "at": rational}},
            "certified": certified,
            "bound": {"enum": ["tight", "upper", "lower"],
                      "description": "tight: the interval holds the worst case's own curve; "
                                     "upper / lower: it holds an upper / lower bound on it"},
            "worst_case": {**text, "description": "the direction(s) attaining the maximum"},
            "method": {**text, "description": "how refacct computed the value"},
            "difficulty": {"enum": list(LEVELS),
                           "description": "lower: none of the features; average: one; "
                                          "higher: two or more"},
            "features": {"type": "array", "items": {"enum": list(FEATURES)},
                         "description": "; ".join(f"{k}: {v}" for k, v in FEATURES.items())},
            "source": text,
            "papers": {"type": "array", "items": text},
            "compose_as": {"enum": ["count", "repeated", "list"],
                           "description": "the same steps, to be asked of an accountant as "
                                          "one call with a count, one call per step, or a "
                                          "list of events"},
            "refacct_version": text,
            "dataset_version": text,
        },
    }


def _lines(rows) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def write(directory: Path) -> int:
    """Regenerate the records and the schema in ``directory``; the number of records."""
    rows = list(records())
    directory.mkdir(parents=True, exist_ok=True)
    (directory / RECORDS).write_text(_lines(rows), encoding="utf-8")
    (directory / SCHEMA).write_text(json.dumps(schema(), indent=1, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    return len(rows)


def check(directory: Path, patterns: Optional[Sequence[str]] = None, log=print) -> List[str]:
    """The drift found (empty: none): the files against the records rebuilt from the
    references, and, for the cases matching ``patterns``, the records against a fresh
    computation (the intervals must overlap)."""
    problems = []
    expected = {row["id"]: row for row in records()}
    if (directory / SCHEMA).read_text(encoding="utf-8") != \
            json.dumps(schema(), indent=1, ensure_ascii=False) + "\n":
        problems.append(f"{SCHEMA}: differs from the schema refacct writes")
    stored = {}
    lines = (directory / RECORDS).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        row = json.loads(line)
        stored[row["id"]] = row
        if row != expected.get(row["id"], row):
            problems.append(f"{row['id']}: differs from the references (line {number})")
    problems += [f"{name}: in the references, not in {RECORDS}"
                 for name in expected if name not in stored]
    problems += [f"{name}: in {RECORDS}, not in the references"
                 for name in stored if name not in expected]
    if patterns:
        problems += _recomputed(stored, patterns, log)
    return problems


def _recomputed(stored: Mapping[str, Dict], patterns: Sequence[str], log) -> List[str]:
    problems = []
    for suite in SUITES:
        for obj in read_catalogue(catalogue_path(suite))["cases"]:
            if not any(fnmatch.fnmatch(obj["name"], p) for p in patterns):
                continue
            case = case_from_json(obj)
            for query, result in zip(case.queries, compute_all(case)):
                row = stored.get(f"{case.name}:{query.kind}@{query.text}")
                new = Reference.from_json(reference_json(case, result))
                message = None if row is None else _disjoint(row["certified"], new)
                log(f"{case.name}  {query}  {message or 'ok'}")
                if message:
                    problems.append(f"{row['id']}: {message}")
    return problems


def _disjoint(certified: Mapping, new: Reference) -> Optional[str]:
    """None when the record's interval and the recomputed one overlap (both infinite
    counts as overlapping), else a message naming both."""
    if certified["upper"] == "inf" or new.infinite:
        same = certified["upper"] == "inf" and new.infinite
    else:
        same = max(Fraction(certified["lower"]), new.low) \
            <= min(Fraction(certified["upper"]), new.high)
    return None if same else (
        f"stored [{certified['lower']}, {certified['upper']}], recomputed "
        f"[{directed_text(new.low, 20, up=False)}, {directed_text(new.high, 20, up=True)}]")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, default=None, metavar="DIR",
                        help="the dataset's directory (default: data/ of the source tree)")
    parser.add_argument("--write", action="store_true", help="regenerate the records and schema")
    parser.add_argument("--recompute", nargs="+", default=[], metavar="PATTERN",
                        help="also recompute the cases matching these patterns")


def run(args: argparse.Namespace) -> int:
    directory = args.dir or default_directory()
    if args.write:
        count = write(directory)
        print(f"wrote {directory / RECORDS}: {count} records", file=sys.stderr)
        return 0
    missing = [name for name in (RECORDS, SCHEMA) if not (directory / name).exists()]
    if missing:
        print(f"refacct: error: --dir: no {' or '.join(missing)} in {directory}", file=sys.stderr)
        return 2
    names = [obj["name"] for suite in SUITES
             for obj in read_catalogue(catalogue_path(suite))["cases"]]
    unmatched = [p for p in args.recompute if not fnmatch.filter(names, p)]
    if unmatched:
        print(f"refacct: error: --recompute: no case matches {', '.join(unmatched)}",
              file=sys.stderr)
        return 2
    problems = check(directory, args.recompute, log=lambda line: print(line, file=sys.stderr))
    for problem in problems:
        print(f"DRIFT: {problem}", file=sys.stderr)
    found = f"{len(problems)} drift problems in" if problems else "no drift in"
    print(f"{directory / RECORDS}: {found} the records checked", file=sys.stderr)
    return 1 if problems else 0
