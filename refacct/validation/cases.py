"""The reference-case catalogue: named mechanisms, queries and refacct's values for them.

The catalogue is the package data file ``cases.json`` (human-readable, one object per
case).  A case names a catalogue entry of ``refacct.mechanisms`` by its parts, exactly as
the command line does (``refacct.mechanisms.build``):

    mechanism  {"family": "gaussian" | "laplace" | "rr", "sigma" | "scale" | "p": ...,
                "sensitivity": ... (optional)}
    sampling   {"scheme": "none" | "poisson" | "wor" | "truncated-poisson" |
                "deterministic" | "random-allocation", "q" | "n", "batch" | "n", "p_sample",
                "max_batch" | "epochs" (random allocation: epochs of ``steps`` steps each,
                default 1): ...}
    relation   add / remove / add-remove / zero-out / substitution / replace-one
    steps, group
    form       how a peer is asked to compose (``FORMS``; default "default"): "default" the
               peer's own self-composition (a self-composed event, a count of steps),
               "count" a count argument, "repeated" one call per step, "list" a list of
               the same event; refacct's value does not depend on it
    segments   (form "heterogeneous") further [{"mechanism", "sampling", "steps"}] run after
               the case's own ``steps`` under the same relation: refacct's value is the
               product of the segments' terms direction by direction (``Case.composed``)

and a list of queries, each ``{"kind": "delta", "at": eps}`` (delta(eps) = max over the
entry's terms of H_{e^eps}, 001 Sec. 5), ``{"kind": "epsilon", "at": delta}`` (eps(delta))
``{"kind": "alpha", "at": alpha}`` (H_alpha itself) or ``{"kind": "beta", "at": alpha}``
(the entry's trade-off curve at alpha, ``refacct.tradeoff``: the smallest type II error at
type I error alpha) or ``{"kind": "sigma", "at": a}`` (a calibration: the smallest Gaussian
sigma, the case's own sigma aside, whose advantage delta(0) is at most a,
``refacct.calibrate``) or ``{"kind": "errors", "at": b}`` (a calibration to error rates:
the smallest sigma whose trade-off curve keeps beta(``ERROR_ALPHA``) >= b,
``refacct.calibrate.noise_scale_for_errors``).  Every query carries refacct's
``reference``: the value as a decimal string, ``abs_error`` (a bound on |stored decimal -
truth|: refacct's own bound plus the rounding of the stored digits, rounded up),
``verified_digits``, ``exact`` (the rational when there is one), ``method``, ``attained_by``
and ``bound`` (tight / upper / lower: what the reference is, docs/catalogue.md).

Cases with many steps (beyond the standard engines: ``refacct.routing``) store a *proven
bracket* (``refacct.brackets``): the reference then also carries ``lower`` and ``upper``
(the bracket's ends rounded outward to the case's ``digits``) and ``"proven": true``; the
truth lies in [lower, upper], and ``value`` / ``abs_error`` are its midpoint and a
half-width covering it.  Such a case may set ``bracket_width``: the bracket's target width,
relative for delta queries and absolute (in eps) for eps queries (default 1/100).

Three suites share this format (``SUITES``): ``reference``, the hand-picked cases of
``cases.json``; ``conformance``, the cases generated across the peers' vocabularies
(``conformance.json``, written by ``refacct.validation.generate``); ``settings``, the
settings of real training recipes (``settings.json``).

References are written only by ``python -m refacct.validation.recompute --write``; the same
command without ``--write`` (``--check``) recomputes them and fails on any drift.
"""
from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field, replace
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..exact import count, rational
from ..exact_text import fraction_from_text
from ..accountants.ledger import product
from ..mechanisms import Dominated, Provenance, base_mechanism, build
from ..result import directed_text, printed
from ..errors import InputError

__all__ = ["KINDS", "ERROR_ALPHA", "FORMS", "SUITES", "Reference", "Query", "Segment", "Case",
           "load_cases", "select",
           "read_catalogue", "list_cases", "case_from_json", "catalogue_path", "show_reference"]

KINDS = ("delta", "epsilon", "alpha", "beta", "sigma", "errors")
ERROR_ALPHA = Fraction(1, 10)  # the type I error of the error-rate calibrations ("errors")
FORMS = ("default", "count", "repeated", "list", "heterogeneous")
SUITES = {"reference": "cases.json", "conformance": "conformance.json",
          "settings": "settings.json"}
_SAMPLING_KEYS = ("q", "n", "batch", "p_sample", "max_batch", "epochs")


@dataclass(frozen=True)
class Reference:
    """refacct's value of one query: the truth lies in [low, high] = [value - abs_error,
    value + abs_error], or in ``enclosure`` = (lower, upper) when the reference is a proven
    bracket (``proven``; value is +inf when eps(delta) is infinite; then abs_error is 0)."""

    value: Fraction
    abs_error: Fraction
    verified_digits: str
    method: str
    attained_by: str
    bound: str
    exact: Optional[Fraction] = None
    infinite: bool = False
    enclosure: Optional[Tuple[Fraction, Fraction]] = None
    proven: bool = False

    @classmethod
    def from_json(cls, obj: Mapping) -> "Reference":
        inf = obj["value"] == "inf"
        ends = None if obj.get("lower") is None else (Fraction(obj["lower"]), Fraction(obj["upper"]))
        return cls(Fraction(0) if inf else Fraction(obj["value"]), Fraction(obj["abs_error"]),
                   str(obj["verified_digits"]), obj["method"], obj["attained_by"],
                   obj["bound"],
                   None if obj.get("exact") is None else fraction_from_text(obj["exact"]),
                   inf, ends, bool(obj.get("proven", False)))

    @property
    def low(self) -> Fraction:
        """The lower end of the interval holding the truth."""
        return self.enclosure[0] if self.enclosure else self.value - self.abs_error

    @property
    def high(self) -> Fraction:
        """The upper end of the interval holding the truth."""
        return self.enclosure[1] if self.enclosure else self.value + self.abs_error


@dataclass(frozen=True)
class Query:
    """delta at eps (``kind="delta"``), eps at delta (``"epsilon"``), H at alpha
    (``"alpha"``), the trade-off curve at alpha (``"beta"``), the smallest sigma whose
    advantage is at most ``at`` (``"sigma"``) or whose beta(``ERROR_ALPHA``) is at least
    ``at`` (``"errors"``); ``at`` is exact."""

    kind: str
    at: Fraction
    text: str
    reference: Optional[Reference] = None

    def __str__(self) -> str:
        name = {"delta": "delta(eps={})", "epsilon": "eps(delta={})", "alpha": "H_alpha(alpha={})",
                "beta": "beta(alpha={})", "sigma": "sigma(advantage<={})",
                "errors": f"sigma(beta(alpha={ERROR_ALPHA})>={{}})"}
        return name[self.kind].format(self.text)


@dataclass(frozen=True)
class Segment:
    """Further steps of a heterogeneous case: ``mechanism`` and ``sampling`` as in a case,
    run ``steps`` times."""

    mechanism: Mapping[str, str]
    sampling: Mapping[str, str]
    steps: int


_SAME_NEIGHBOURS = Provenance(
    "each step's add (remove) pair of a Gaussian, Poisson-subsampled or not, under "
    "add-remove is attained by the same neighbouring datasets (the differing record at the "
    "sensitivity bound, 001 Prop. 9), so the product of the steps' pairs is attained: tight",
    "Lebeda, Regehr, Kamath, Steinke, Avoiding Pitfalls for Privacy Accounting of "
    "Subsampled Mechanisms under Composition, 2024, arXiv:2405.20769 (001)", "Prop. 9, Thm 8")


@dataclass(frozen=True)
class Case:
    """One reference case (see the module docstring for the fields)."""

    name: str
    source: str
    note: str
    mechanism: Mapping[str, str]
    sampling: Mapping[str, str]
    relation: str
    steps: int
    group: int
    digits: int
    slow: bool
    queries: Tuple[Query, ...] = field(default=())
    bracket_width: Optional[Fraction] = None
    form: str = "default"
    segments: Tuple[Segment, ...] = ()

    @property
    def family(self) -> str:
        return self.mechanism["family"]

    @property
    def scheme(self) -> str:
        return self.sampling["scheme"]

    @property
    def epochs(self) -> int:
        """The epochs of random allocation (1 for one epoch, and for other schemes)."""
        return count(self.sampling.get("epochs", 1), "epochs")

    def param(self, key: str) -> Fraction:
        """An exact mechanism or sampling parameter (sigma, scale, p, sensitivity
        (default 1), q, n, batch, p_sample, max_batch, epochs)."""
        if key == "sensitivity":
            return rational(self.mechanism.get("sensitivity", 1), key)
        source = self.sampling if key in _SAMPLING_KEYS else self.mechanism
        return rational(source[key], key)

    def entry(self, steps: Optional[int] = None) -> Dominated:
        """The catalogue entry (``refacct.mechanisms.build``) whose curve the case queries,
        or the same mechanism for ``steps`` steps."""
        mech = {k: v for k, v in self.mechanism.items() if k != "family"}
        base = base_mechanism(self.family, **mech)
        options = {k: self.sampling[k] for k in _SAMPLING_KEYS if k in self.sampling}
        return build(base, self.scheme, self.relation,
                     steps=self.steps if steps is None else steps,
                     group=None if self.group == 1 else self.group, **options)

    def parts(self) -> List["Case"]:
        """The case as homogeneous cases, one per segment (itself when it has none), each
        with form "default": what a peer composes one after the other."""
        if not self.segments:
            return [self]
        first = replace(self, form="default", segments=(), queries=())
        return [first] + [replace(first, mechanism=dict(s.mechanism), sampling=dict(s.sampling),
                                  steps=s.steps) for s in self.segments]

    def composed(self) -> Tuple[Dominated, int]:
        """(entry, steps) whose curve the case queries: its entry for one step and
        ``steps``, or for a heterogeneous case the product of its parts' terms direction by
        direction (``refacct.accountants.ledger.product``: an upper bound, tight for
        Gaussians, Poisson-subsampled or not, under add-remove) and 1."""
        if not self.segments:
            return self.entry(1), self.steps
        parts = self.parts()
        entry = product([(part.entry(1), part.steps) for part in parts])
        if all(p.family == "gaussian" and p.scheme in ("none", "poisson") and p.group == 1
               for p in parts) and self.relation == "add-remove":
            entry = replace(entry, bound="tight", provenance=entry.provenance + (_SAME_NEIGHBOURS,))
        return entry, 1

    def with_sigma(self, sigma: Fraction) -> "Case":
        """The same Gaussian case with noise ``sigma`` (what a calibration query varies)."""
        if self.family != "gaussian" or self.segments:
            raise InputError(f"{self.name}: a calibration needs one Gaussian mechanism")
        return replace(self, mechanism=dict(self.mechanism, sigma=str(sigma)))

    def describe(self) -> str:
        """One line: family(params) x sampling x relation x steps (x group), then the
        segments and the form."""
        text = ", then ".join(_describe(part) for part in self.parts())
        text += f", {self.relation}" + (f", group={self.group}" if self.group != 1 else "")
        return text + (f" [{self.form}]" if self.form not in ("default", "heterogeneous") else "")


def _describe(case: Case) -> str:
    mech = ", ".join(f"{k}={v}" for k, v in case.mechanism.items() if k != "family")
    samp = ", ".join(f"{k}={v}" for k, v in case.sampling.items() if k != "scheme")
    return (f"{case.family}({mech}), {case.scheme}" + (f"({samp})" if samp else "")
            + f", k={case.steps}")


def _query(obj: Mapping) -> Query:
    kind = obj["kind"]
    if kind not in KINDS:
        raise InputError(f"query kind must be one of {KINDS}, got {kind!r}")
    ref = obj.get("reference")
    return Query(kind, rational(obj["at"], "at"), str(obj["at"]),
                 None if ref is None else Reference.from_json(ref))


def case_from_json(obj: Mapping) -> Case:
    """A ``Case`` from one object of the catalogue file."""
    form = obj.get("form", "heterogeneous" if obj.get("segments") else "default")
    if form not in FORMS or (form == "heterogeneous") != bool(obj.get("segments")):
        raise InputError(f"{obj['name']}: form must be one of {FORMS} (heterogeneous exactly "
                         f"when there are segments), got {form!r}")
    segments = tuple(Segment(dict(s["mechanism"]), dict(s["sampling"]), int(s["steps"]))
                     for s in obj.get("segments", ()))
    return Case(obj["name"], obj["source"], obj.get("note", ""), dict(obj["mechanism"]),
                dict(obj["sampling"]), obj["relation"], int(obj["steps"]),
                int(obj.get("group", 1)), int(obj["digits"]), bool(obj.get("slow", False)),
                tuple(_query(q) for q in obj["queries"]),
                None if obj.get("bracket_width") is None
                else rational(obj["bracket_width"], "bracket_width"), form, segments)


def catalogue_path(suite: str = "reference") -> Path:
    """The shipped file of ``suite`` (``SUITES``)."""
    if suite not in SUITES:
        raise InputError(f"suite must be one of {', '.join(SUITES)}, got {suite!r}")
    return Path(str(resources.files(__package__).joinpath(SUITES[suite])))


def read_catalogue(path: Union[str, Path, None] = None) -> Dict:
    """The raw JSON document (``recompute`` rewrites it in place)."""
    with open(path or catalogue_path(), encoding="utf-8") as fh:
        return json.load(fh)


def load_cases(path: Union[str, Path, None] = None, suite: str = "reference") -> List[Case]:
    """Every case of the file at ``path`` (default: the shipped ``suite``), in file order."""
    return [case_from_json(obj) for obj in read_catalogue(path or catalogue_path(suite))["cases"]]


def select(cases: Sequence[Case], patterns: Optional[Sequence[str]] = None, *,
           include_slow: bool = True) -> List[Case]:
    """Cases whose name matches any shell pattern (``fnmatch``; all when none given);
    ``include_slow=False`` drops cases marked slow."""
    chosen = [c for c in cases if not patterns or any(fnmatch.fnmatch(c.name, p) for p in patterns)]
    return [c for c in chosen if include_slow or not c.slow]


def show_reference(ref: Reference, digits: int) -> str:
    """"value ± bound" (``result.printed``: the bound covers the rounding of the printed
    digits), "inf", or "[lower, upper] proven" for a proven bracket (ends rounded
    outward)."""
    if ref.infinite:
        return "inf"
    if ref.enclosure:
        return (f"[{directed_text(ref.low, digits, False, True)}, {directed_text(ref.high, digits, True, True)}]"
                " proven")
    value, bound = printed(ref.value, ref.abs_error, digits)
    return f"{value} ± {bound}"


def list_cases(cases: Optional[Sequence[Case]] = None) -> str:
    """The ``refacct cases`` listing: name, mechanism, queries with reference values."""
    lines = []
    for case in load_cases() if cases is None else cases:
        lines.append(f"{case.name}{'  [slow]' if case.slow else ''}  ({case.source})")
        lines.append(f"    {case.describe()}")
        for q in case.queries:
            ref = q.reference
            shown = "not computed" if ref is None else (
                f"{show_reference(ref, 15)}  [{ref.verified_digits} digits, {ref.bound}, "
                f"{ref.attained_by}]")
            lines.append(f"    {str(q):<28} {shown}")
    return "\n".join(lines)

