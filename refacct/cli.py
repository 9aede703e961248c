"""The ``refacct`` command line: argument parsing and printing only, no mathematics.

    refacct delta   --pair SPEC.json --eps 0 0.5 1      [--digits 20] [--json]
    refacct delta   --pair SPEC.json --alpha 4/3 2      [--digits 20] [--json]
    refacct epsilon --pair SPEC.json --delta 1e-6 1e-30 [--digits 20] [--json]
    refacct delta   --pair SPEC.json --eps 1 --certified   (proven enclosures, python-flint)
    refacct delta   gaussian|laplace|rr [--sigma S | --scale B | --p P] [--sensitivity D]
                    --sampling none|poisson|wor|truncated-poisson|deterministic|shuffle|
                               random-allocation
                    [--q Q | --n N --batch B | --n N --p-sample P --max-batch B]
                    --relation add|remove|add-remove|substitution|zero-out|replace-one
                    [--steps K] [--group K] --eps ... | --alpha ...  [--digits] [--json]
    refacct epsilon gaussian|laplace|rr ... --delta ...
    refacct delta|epsilon ... [--bracket] [--width W]   (proven brackets, refacct.brackets)
    refacct reproduce [--markdown results/reproduce.md] [--digits 20]
    refacct validate [--accountant NAME|module:function ...] [--cases PATTERN ...]
                     [--suite reference|conformance|settings] [--quick] [--coverage]
                     [--format table|json|markdown]          (``refacct.validation``)
    refacct cases    [--suite reference|conformance|settings] [--cases PATTERN ...]
                     [--check [--quick]]
    refacct scorecard [--output docs/scorecard.md] [--quick]
    refacct dataset  [--dir data] [--recompute PATTERN ...] | --write

SPEC.json is a pair specification (``refacct.spec``; ``-`` reads it from stdin); a mechanism
name builds the pair(s) from the catalogue (``refacct.mechanisms``), and the records add
"attained_by" (the direction or term giving the maximum) and "bound" (tight / upper /
lower).  Numbers on the command line are exact rationals ("1/2", "0.1", "1e-6").

Which engine answers is ``refacct.routing``'s rule: continuous pairs composed more than 3
times and discrete pairs composed more than 10^4 times (``--steps``, or a spec's
"steps" and factors) go to the proven brackets of ``refacct.brackets``, as does
``--bracket``; their records carry "lower", "upper" and "proven", and the method says
"proven bracket".  ``--width W`` sets the bracket's target width (relative for delta,
absolute for eps; default 1/100).  ``--steps`` is at most 10^5.

``--time-limit SECONDS`` bounds the whole command (``refacct.progress``): when it runs out,
each query gets the best bound reached so far, marked "time_limited" (and printed to the
digits that bound supports); exit 3 when the limit runs out before any bound.

No command runs for minutes in silence: on a terminal a progress line appears after 2 s;
writing to a pipe or a file, stderr gets "refacct: still computing (N s): <what>" after
10 s and every 30 s after that, with the hint to set ``--time-limit``.

Exit status: 0 success; 1 ``reproduce`` found a row whose verdict differs from the expected
one, ``validate`` found an unsound or failed answer, ``cases --check`` found drift, a
numerical failure, or an internal error (any exception that is not bad input, reported as
"internal error ...; please report it", the traceback with ``--debug``); 2 bad input
(usage, ``refacct.errors.InputError`` naming the parameter, pair spec, unreadable file,
unsupported pair family), reported as one line ``refacct: error: ...`` on stderr; 3 the
time limit ran out before any bound.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Union

from . import __version__, api, mechanisms, progress, routing, tradeoff
from .errors import InputError, TimeLimitError
from .exact import positive
from .exact_text import MAX_SHOWN_DIGITS, fraction_text, shown as exact_shown, size_text
from .exact import MAX_DIGITS
from .reproduce import digits_text, render_markdown, render_text, run_all
from .result import DeltaResult, EpsilonResult, directed_text, format_mpf, printed
from .spec import SpecError, load_pair, load_pair_file, loads
from .validation import command as validation_command
from .validation import dataset, scorecard

__all__ = ["main", "build_parser", "DEFAULT_MARKDOWN"]

DEFAULT_MARKDOWN = "results/reproduce.md"
EXIT_STATUS = ("exit status: 0 success; 1 a finding (reproduce: a verdict changed, validate: "
               "an unsound or failed answer, cases --check: drift), a numerical failure, or "
               "an internal error (reported as such: please report it; --debug shows the "
               "traceback); 2 bad input (usage, a parameter out of range, a pair spec, an "
               "unreadable file), one line 'refacct: error: ...' naming it; 3 --time-limit "
               "ran out before any bound")
_NEGATIVE_NUMBER = re.compile(r"^-\.?\d")


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # read "-1/2" and "-1e-6" as (negative) numbers, not options; argparse's own
        # pattern only knows "-1" and "-0.5" (no option of refacct starts with a digit)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str):  # one line instead of usage + message, no sys.exit
        raise InputError(f"{message} (see '{self.prog} --help')")


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if not 1 <= value <= MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"must lie in [1, {MAX_DIGITS}], got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        return progress.time_limit(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}") \
            from None


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def _mechanism_options(p) -> None:
    m = p.add_argument_group("mechanism (with MECHANISM instead of --pair)")
    m.add_argument("--sigma", metavar="S", help="gaussian noise standard deviation (multiplier)")
    m.add_argument("--scale", metavar="B", help="laplace noise scale")
    m.add_argument("--p", metavar="P", help="rr: probability of reporting the true bit")
    m.add_argument("--sensitivity", metavar="D", help="record norm bound (default 1)")
    m.add_argument("--sampling", default="none", choices=mechanisms.SAMPLINGS, metavar="SCHEME",
                   help=f"{', '.join(mechanisms.SAMPLINGS)} (default none)")
    m.add_argument("--q", metavar="Q", help="poisson sampling probability")
    m.add_argument("--n", type=_count, metavar="N", help="dataset size (wor, truncated-poisson)")
    m.add_argument("--batch", type=_count, metavar="B", help="wor batch size")
    m.add_argument("--p-sample", metavar="P", help="truncated-poisson sampling probability")
    m.add_argument("--max-batch", type=_count, metavar="B", help="truncated-poisson batch cap")
    m.add_argument("--relation", choices=mechanisms.RELATIONS, metavar="REL",
                   help=f"{', '.join(mechanisms.RELATIONS)} (default add-remove; zero-out "
                        "for deterministic and shuffle)")
    m.add_argument("--steps", type=_count, default=1, metavar="K",
                   help=f"compositions (default 1; for shuffle and random-allocation the "
                        f"steps of one epoch; proven brackets take at most "
                        f"{routing.MAX_STEPS}, closed forms {routing.CLOSED_MAX_STEPS}); beyond "
                        f"{routing.QUADRATURE_MAX_STEPS} (continuous) or "
                        f"{routing.EXACT_MAX_STEPS} (discrete; pairs with at most two outcomes of "
                        "finite likelihood ratio stay exact) a proven bracket answers")
    m.add_argument("--group", type=_count, metavar="K", help="group size (003), default 1")
    m.add_argument("--epochs", type=_count, metavar="E",
                   help="random-allocation: epochs of --steps steps each (default 1: proven "
                        "balls; more: the transform's proven digits where sigma^2 steps / E <= "
                        f"{routing.EPOCHS_MAX_SPREAD} and steps >= 3, else proven brackets "
                        "over the epochs)")
    m.add_argument("--exact-shuffle", action="store_true",
                   help="shuffle, steps <= 3: H of 002's pair (P_S, Q_S) itself, both orders, "
                        "by quadrature (T = 3: about a minute) instead of eq. (7)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="refacct",
        description="Reference accountant for differential privacy: exact and verified "
                    "hockey-stick divergences, delta(eps) and eps(delta).",
        epilog=EXIT_STATUS)
    parser.add_argument("--version", action="version", version=f"refacct {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, show the traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p):
        p.add_argument("mechanism", nargs="?", choices=mechanisms.FAMILIES, metavar="MECHANISM",
                       help="gaussian, laplace or rr: build the pair(s) from the catalogue "
                            "instead of --pair")
        p.add_argument("--pair", metavar="SPEC.json",
                       help="pair specification (JSON file, '-' for stdin)")
        p.add_argument("--digits", type=_digits, default=20, metavar="N",
                       help="significant digits to verify and print (default 20)")
        p.add_argument("--json", action="store_true",
                       help="print a JSON list, one object per query")
        p.add_argument("--exact-file", metavar="PATH",
                       help="write the exact rationals / exact forms in full to PATH (JSON); "
                            "the output shows those of more than "
                            f"{MAX_SHOWN_DIGITS} digits by their size")
        p.add_argument("--certified", action="store_true",
                       help="proven enclosures with python-flint (refacct.certified): one step "
                            "and k = 2 of Gaussian / Laplace mixture pairs; from k = 3 the "
                            "Laplace shift and what the transform takes")
        p.add_argument("--bracket", action="store_true",
                       help="a proven bracket (refacct.brackets) whatever the steps; taken "
                            "by itself beyond 3 compositions of a continuous pair or 10^4 "
                            "of a discrete one")
        p.add_argument("--transform", action="store_true",
                       help="proven enclosures for many steps (refacct.transform): "
                            "compositions of Gaussian and Laplace shifts and "
                            "subsampled Gaussians and Laplaces, about 10 or more draws of "
                            "the record")
        p.add_argument("--width", metavar="W",
                       help="target width of a proven bracket: relative for delta, "
                            "absolute for eps (default 1/100)")
        p.add_argument("--time-limit", type=_seconds, metavar="SECONDS",
                       help="stop after SECONDS with the best bound reached so far, marked "
                            "time_limited (exit 3 if none was reached); without it, a query "
                            "that runs long says so on stderr (a progress line on a "
                            "terminal, else a line after 10 s and every 30 s)")
        _mechanism_options(p)

    d = sub.add_parser("delta", help="delta(eps) = H_{e^eps}(P || Q), or H_alpha(P || Q)",
                       description="delta(eps) = H_{e^eps}(P || Q) for each eps, or "
                                   "H_alpha(P || Q) for each alpha (exact rationals for "
                                   "discrete pairs).")
    common(d)
    which = d.add_mutually_exclusive_group(required=True)
    which.add_argument("--eps", nargs="+", metavar="EPS", help="values of eps, e.g. 0 1/2 1")
    which.add_argument("--alpha", nargs="+", metavar="ALPHA",
                       help="values of alpha >= 0, e.g. 4/3 2")
    d.set_defaults(func=_cmd_delta)

    e = sub.add_parser("epsilon", help="eps(delta): the smallest eps >= 0 with delta(eps) <= delta",
                       description="eps(delta): the smallest eps >= 0 with "
                                   "delta(eps) <= delta, for each delta in [0, 1].")
    common(e)
    e.add_argument("--delta", nargs="+", required=True, metavar="DELTA",
                   help="values of delta in [0, 1], e.g. 1e-6 1e-30")
    e.set_defaults(func=_cmd_epsilon)

    b = sub.add_parser("beta", help="the trade-off curve beta(alpha) (f-DP) of a pair or mechanism",
                       description="beta(alpha): the smallest type II error of a test of P "
                                   "against Q at type I error alpha, for each alpha in (0, 1); "
                                   "a bracket from delta(eps) (refacct.tradeoff).")
    b.add_argument("mechanism", nargs="?", choices=mechanisms.FAMILIES, metavar="MECHANISM",
                   help="gaussian, laplace or rr: the mechanism's curve, from the catalogue")
    b.add_argument("--pair", metavar="SPEC.json",
                   help="pair specification (JSON file, '-' for stdin): the curve T(P, Q)")
    b.add_argument("--alpha", nargs="+", required=True, metavar="ALPHA",
                   help="type I errors in (0, 1), e.g. 1e-3 1/10")
    b.add_argument("--width", metavar="W",
                   help="the bracket's width relative to its upper end (default 1e-6)")
    b.add_argument("--json", action="store_true", help="print a JSON list, one object per alpha")
    _mechanism_options(b)
    b.set_defaults(func=_cmd_beta)

    r = sub.add_parser("reproduce", help="recompute the papers' headline numbers",
                       description="Recompute the papers' headline numbers and compare "
                                   "them with the printed values.")
    r.add_argument("--markdown", default=DEFAULT_MARKDOWN, metavar="PATH",
                   help=f"where to write the markdown table (default {DEFAULT_MARKDOWN})")
    r.add_argument("--digits", type=_digits, default=20, metavar="N",
                   help="significant digits to compute and print (default 20)")
    r.set_defaults(func=_cmd_reproduce)

    v = sub.add_parser("validate", help="check accountants against the reference cases",
                       description="Judge accountants (installed peers or "
                                   "package.module:function) against the stored reference "
                                   "cases: sound, unsound, loose or failed; exit 1 if any "
                                   "answer is unsound or failed.")
    validation_command.add_arguments(v)
    v.set_defaults(func=validation_command.run)
    c = sub.add_parser("cases", help="list the reference cases, or recompute them (--check)",
                       description="List the reference cases; --check recomputes the stored "
                                   "values and exits 1 if any drifted beyond its bound.")
    validation_command.add_cases_arguments(c)
    c.set_defaults(func=validation_command.run_cases)
    t = sub.add_parser("dataset", help="check the certified reference dataset (data/), or "
                                       "regenerate it (--write)",
                       description="Check the certified reference dataset against the "
                                   "reference values (exit 1 on drift); --recompute also "
                                   "recomputes the matching cases; --write regenerates it.")
    dataset.add_arguments(t)
    t.set_defaults(func=dataset.run)
    s = sub.add_parser("scorecard", help="judge every installed peer, write docs/scorecard.md",
                       description="Judge every installed peer on the reference cases and "
                                   "the conformance suite and write the scorecard (verdicts "
                                   "per area, findings with reproducers, coverage).")
    scorecard.add_arguments(s)
    s.set_defaults(func=scorecard.run)
    for command in sub.choices.values():  # --debug after the command too
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="on an internal error, show the traceback")
    return parser


# --- commands --------------------------------------------------------------------------

def _load(path: str):
    if path == "-":
        return load_pair(loads(sys.stdin.read()))
    return load_pair_file(path)


_MECHANISM_ONLY = ("sigma", "scale", "p", "sensitivity", "q", "n", "batch", "p_sample",
                   "max_batch", "group", "epochs")


def _route(args):
    """What answers the pair or mechanism of ``_target`` by the method the flags ask
    (``refacct.api.route``, whose rule is ``refacct.routing``'s); the queries, digits and
    width are checked by ``refacct.api.answer`` before anything is computed."""
    chosen = [flag for flag, on in (("--certified", args.certified),
                                    ("--transform", args.transform),
                                    ("--bracket / --width", args.bracket
                                     or args.width is not None)) if on]
    if len(chosen) > 1:
        raise InputError(f"{' and '.join(chosen)} are different methods: give one")
    x, steps = _target(args)
    method = ("certified" if args.certified else "transform" if args.transform
              else "bracket" if args.bracket else "exact" if args.exact_shuffle else "auto")
    return api.route(x, steps, method, args.width)


def _target(args):
    """(x, steps): the pair of --pair or the catalogue entry of MECHANISM (exactly one of
    them) and the steps asked."""
    if args.pair is None and args.mechanism is None:
        raise InputError("the following arguments are required: --pair (or a MECHANISM: "
                         f"{', '.join(mechanisms.FAMILIES)})")
    if args.pair is not None and args.mechanism is not None:
        raise InputError("give either --pair SPEC.json or a MECHANISM, not both")
    if args.pair is not None:
        used = [k for k in _MECHANISM_ONLY if getattr(args, k) is not None]
        if (used or args.sampling != "none" or args.steps != 1 or args.relation is not None
                or args.exact_shuffle):
            raise InputError("mechanism options (--sampling, --q, ...) need a MECHANISM, "
                             "not --pair")
        return _load(args.pair), 1
    return _mechanism(args), args.steps


def _mechanism(args):
    """The one-step catalogue entry of MECHANISM and its options (``mechanisms.build``)."""
    if args.exact_shuffle and args.sampling != "shuffle":
        raise InputError("--exact-shuffle needs --sampling shuffle")
    base = mechanisms.base_mechanism(args.mechanism, sigma=args.sigma, scale=args.scale,
                                     p=args.p, sensitivity=args.sensitivity)
    relation = args.relation or ("zero-out" if args.sampling in ("deterministic", "shuffle")
                                 else "add-remove")
    with progress.task(f"building {args.mechanism} ({args.sampling} sampling)"):
        return mechanisms.build(base, args.sampling, relation, group=args.group, q=args.q,
                                n=args.n, batch=args.batch, p_sample=args.p_sample,
                                max_batch=args.max_batch, epochs=args.epochs)


def _cmd_delta(args) -> int:
    way = _route(args)
    _writable(args.exact_file, "--exact-file ")
    key, queries = ("alpha", args.alpha) if args.alpha is not None else ("eps", args.eps)
    with progress.deadline(args.time_limit):
        results = api.answer(way, "alpha" if key == "alpha" else "delta", queries,
                             digits=args.digits, width=args.width)
    _write_exact(args.exact_file, key, queries, results)
    records = [_record(key, q, "delta", r, args.digits) for q, r in zip(queries, results)]
    value_name = "delta" if key == "eps" else "H_alpha"
    _print(args, records, key, "delta", value_name)
    return 0


def _cmd_epsilon(args) -> int:
    if args.exact_shuffle:
        raise InputError("--exact-shuffle is for delta only")
    way = _route(args)
    _writable(args.exact_file, "--exact-file ")
    with progress.deadline(args.time_limit):
        results = api.answer(way, "epsilon", args.delta, digits=args.digits,
                             width=args.width)
    _write_exact(args.exact_file, "delta_target", args.delta, results)
    records = [_record("delta_target", q, "eps", r, args.digits)
               for q, r in zip(args.delta, results)]
    _print(args, records, "delta_target", "eps", "eps")
    return 0


def _cmd_beta(args) -> int:
    if args.exact_shuffle:
        raise InputError("--exact-shuffle is for delta only")
    for a in args.alpha:  # check every query before the first (possibly slow) evaluation
        tradeoff.alpha_parameter(a)
    width = None if args.width is None else positive(args.width, "--width")
    x, steps = _target(args)
    results = tradeoff.beta(x, args.alpha, steps=steps, width=width)
    records = []
    for a, r in zip(args.alpha, results):
        value, bound = _printed(r, r.digits)
        record = {"alpha": a, "beta": value, "abs_error": bound,
                  "verified_digits": digits_text(r, r.digits), "method": r.method}
        records.append(_catalogue_fields(_proven_fields(record, r, r.digits), r, bound=True))
    _print(args, records, "alpha", "beta", "beta")
    return 0


def _cmd_reproduce(args) -> int:
    _writable(args.markdown, "")
    outcomes = run_all(args.digits)
    print(render_text(outcomes))
    _write(args.markdown, "", render_markdown(outcomes, args.digits))
    agree = sum(o.verdict == "yes" for o in outcomes)
    print(f"\n{agree} of {len(outcomes)} rows agree with the papers; "
          f"markdown written to {args.markdown}")
    unexpected = [i for i, o in enumerate(outcomes, 1) if not o.as_expected]
    if unexpected:
        print(f"refacct: reproduce: row(s) {', '.join(map(str, unexpected))} differ from "
              f"the expected verdict", file=sys.stderr)
        return 1
    return 0


# --- records and printing --------------------------------------------------------------

def _record(key: str, query: str, value_key: str, r: Union[DeltaResult, EpsilonResult],
            digits: int) -> dict:
    """One output row: the query, the value and its bound as printed (the bound covers the
    rounding of the printed digits), the verified digits, the method, and the exact,
    proven and catalogue fields the result has."""
    shown = _shown_digits(r, digits)
    value, bound = _printed(r, shown)
    record = {key: query, value_key: value, "abs_error": bound,
              "verified_digits": digits_text(r, digits), "method": r.method}
    return _catalogue_fields(_proven_fields(_exact_fields(record, r), r, shown), r)


def _exact_fields(record: dict, r) -> dict:
    """"exact" (a rational) and "exact_form" ({"A", "B"}) when small enough to show
    (``exact_text.shown``); else "exact_size" / "exact_form_size", the sizes in words
    (``--exact-file`` writes them in full)."""
    exact = getattr(r, "exact", None)
    if exact is not None:
        text = exact_shown(exact)
        record.update({"exact": text} if text is not None else {"exact_size": size_text(exact)})
    if r.exact_form is not None:
        texts = {name: exact_shown(x) for name, x in zip("AB", r.exact_form)}
        if None in texts.values():
            record["exact_form_size"] = {name: size_text(x) for name, x in zip("AB", r.exact_form)}
        else:
            record["exact_form"] = texts
    return record


def _write_exact(path: Optional[str], key: str, queries: Sequence[str], results) -> None:
    """``--exact-file PATH``: the exact rationals and forms of every query, in full, as a
    JSON list (``null`` where a result is not exact)."""
    if path is None:
        return
    rows = []
    for q, r in zip(queries, results):
        exact, form = getattr(r, "exact", None), r.exact_form
        rows.append({key: q, "exact": None if exact is None else fraction_text(exact),
                     "exact_form": None if form is None else
                     {"A": fraction_text(form[0]), "B": fraction_text(form[1])}})
    _write(path, "--exact-file ", json.dumps(rows, indent=2) + "\n")


def _writable(path: Optional[str], label: str) -> None:
    """Refuse an output file that cannot be written before computing, not after: create
    its folder and open it for appending (``label`` names the option in the message)."""
    if path is not None:
        _write(path, label, None)


def _write(path: str, label: str, text: Optional[str]) -> None:
    """Write ``text`` to ``path`` (None: only check that it can be written)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a" if text is None else "w", encoding="utf-8") as out:
            out.write(text or "")
    except OSError as exc:
        raise InputError(f"cannot write {label}{path}: {exc.strerror or exc}") from None


def _printed(r, digits: int):
    """The value and the bound as printed (``result.printed``: the bound covers the
    rounding of the printed digits); an exact rational is rounded from itself."""
    exact = getattr(r, "exact", None)
    return printed(r.value, r.abs_error, digits) if exact is None else printed(exact, 0, digits)


def _shown_digits(r, digits: int) -> int:
    """Digits printed: ``digits``, or for an enclosure or a time-limited result at most 3
    beyond the verified ones (a bracket 1e-3 wide has no 20 meaningful digits)."""
    if (getattr(r, "enclosure", None) is None and not r.time_limited) \
            or r.verified_digits is None:
        return digits
    return min(digits, max(r.verified_digits, 1) + 3)


def _proven_fields(record: dict, r, shown: int) -> dict:
    """"lower" / "upper" (rounded outward to ``shown`` digits, so they still enclose the
    truth) and "proven" of a result with an enclosure; "time_limited" of the best bound
    reached when the time limit ran out."""
    if getattr(r, "enclosure", None) is not None:
        record["lower"] = directed_text(r.lower, shown, up=False)
        record["upper"] = directed_text(r.upper, shown, up=True)
    if getattr(r, "proven", False):
        record["proven"] = True
    if r.time_limited:
        record["time_limited"] = True
    return record


def _catalogue_fields(record: dict, r, bound: bool = False) -> dict:
    """"attained_by" and "bound" of catalogue results (shuffle: the event's C); "bound"
    also where it is not "tight" or where asked (``bound``: trade-off curves)."""
    catalogue = hasattr(r, "attained_by")
    if catalogue:
        record["attained_by"] = " = ".join(r.attained_by)  # a tie: "add = remove"
    elif getattr(r, "C", None) is not None:
        record["attained_by"] = f"E_C at C = {format_mpf(r.C, 12)}"
    if bound or catalogue or r.bound != "tight":
        record["bound"] = r.bound
    return record


def _print(args, records: List[dict], key: str, value_key: str, value_name: str) -> None:
    if args.json:
        print(json.dumps(records, indent=2))
        return
    has_exact = any("exact" in r or "exact_size" in r for r in records)
    ends = ["lower", "upper", "proven"] if any("lower" in r for r in records) else []
    extra = [k for k in ("bound", "attained_by") if any(k in r for r in records)]
    header = [key, value_name, "± bound", "verified digits"] + (["exact"] if has_exact else []) \
        + ends + [{"bound": "tight/upper/lower", "attained_by": "attained by"}[k] for k in extra] \
        + ["method"]
    rows = [[r[key], r[value_key], r["abs_error"], r["verified_digits"]]
            + ([r.get("exact", _size_cell(r))] if has_exact else [])
            + ([r.get("lower", ""), r.get("upper", ""), "yes" if r.get("proven") else ""]
               if ends else [])
            + [r.get(k, "") for k in extra] + [r["method"]] for r in records]
    print(_table([h.replace("±", "+-") for h in header], rows))


def _size_cell(record: dict) -> str:
    """The table's "exact" cell of a rational too large to show."""
    if "exact_size" not in record:
        return ""
    return f"({record['exact_size']}: --exact-file writes it)"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- entry point -----------------------------------------------------------------------

def _fail(message: str, status: int = 2) -> int:
    print(f"refacct: error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (never raises for bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except InputError as exc:
        return _fail(str(exc))
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    try:
        with progress.heartbeat():
            return args.func(args)
    except SpecError as exc:
        return _fail(f"bad pair spec: {exc}")
    except InputError as exc:
        return _fail(str(exc))
    except BrokenPipeError:  # output piped into e.g. head
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as exc:  # the pair file
        name = exc.filename if exc.filename is not None else getattr(args, "pair", "?")
        return _fail(f"cannot read {name}: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return _fail(f"cannot read {getattr(args, 'pair', '?')}: not UTF-8 text ({exc.reason})")
    except NotImplementedError as exc:
        return _fail(f"unsupported pair: {exc}")
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except TimeLimitError as exc:
        return _fail(str(exc), 3)
    except ArithmeticError as exc:
        if args.debug:
            raise
        return _fail(f"numerical failure: {exc} (refacct's failure, not your input: please "
                     "report it; --debug shows the traceback)", 1)
    except Exception as exc:  # not the user's input: refacct's own failure
        if args.debug:
            raise
        return _fail(f"internal error ({type(exc).__name__}: {exc}); please report it with "
                     "the command line (--debug shows the traceback)", 1)


if __name__ == "__main__":
    sys.exit(main())
