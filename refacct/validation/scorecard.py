"""The scorecard: every installed peer judged on refacct's suites, as one Markdown page.

    refacct scorecard [--output docs/scorecard.md] [--quick] [--accountant NAME ...]
                      [--cache docs/scorecard-rows]

runs ``refacct validate`` on the reference cases and the conformance suite (``--quick``:
the quick slice, ``QUICK``) and writes the peers and their versions, the verdict counts per
accountant and per area (mechanism, sampling, relation, composition form), every unsound or
failed answer grouped by cause with a reproducer that uses only the peer's own API, and
each peer's coverage of its vocabulary (``coverage``).  The page is regenerated, never
edited by hand; ``docs/scorecard.md`` in the repository is its output.  ``--cache DIR``
keeps each (accountant, case)'s judged answers in ``DIR`` (``rowcache``): a run that is
stopped resumes where it was, and the full run (more than an hour) can be done peer by peer
with ``--accountant``; the page's time is then the peers' own time, summed.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import coverage
from .adapters import PEERS, available_peers, peer_module, resolve_all
from .cases import Case, load_cases, select, show_reference
from .harness import Row, validate
from .report import summary
from .rowcache import cached_validate
from .verdicts import FAILING, VERDICTS

__all__ = ["QUICK", "area", "findings", "render", "quick_cases", "main"]

# the quick slice of the conformance suite: one case per area, few steps, plus one case
# of many steps (the regime of the findings) and two trade-off cases (f-DP
# accountants); measured at about three minutes for the ten peers
QUICK = ("gauss-none-add-remove-s1-T1", "gauss-none-zero-out-s10-T100",
         "gauss-none-substitution-s200-T10000", "gauss-det-zero-out-s1",
         "gauss-poisson-add-remove-s1-q1e-2-T2", "gauss-poisson-zero-out-s1-q1e-2-T1",
         "gauss-poisson-substitution-s1-q1e-2-T2", "gauss-poisson-add-remove-s1-q1e-3-T1000",
         "laplace-none-add-remove-b1-T1", "laplace-poisson-add-remove-b1-q1_10-T2",
         "alloc-remove-s2-t10", "alloc-add-s2-t10",
         "rr-none-replace-one-p3_5-T3", "truncpoisson-add-remove-p1_20-T1",
         "wor-substitution-s1-b10-T1", "form-count-rr-p3_5-T10",
         "form-repeated-gauss-poisson-s1-q1e-2-T2", "form-list-gauss-poisson-s1-q1e-2-T2",
         "hetero-poisson-s1q1e-2x1-s2q1_10x1", "tradeoff-gauss-none-s2-T1",
         "tradeoff-laplace-poisson-b1-q1_10-T1", "laplace-wor-add-remove-n1000-batch10-T1000")
# Known causes, first match wins: (accountant prefix or prefixes, reason pattern, case-name
# pattern, cause, explanation).  Each was read off the peer's source or checked with its reproducer.
CAUSES: Tuple[Tuple[object, str, str, str, str], ...] = (
    ("", "noise-level", "", "float64 noise",
     "The peer's float64 noise (its FFT composition, or the rounding of a closed form) is "
     "of the size of the gap to the truth (`noise-level`): this verdict may differ from one "
     "CPU to another."),
    ("prv_accountant.upper", "non-monotone", "", "non-monotone at its error floor",
     "Its upper delta is the FFT estimate plus `delta_error` (1e-12).  Where the truth is far "
     "below 1e-12 (1e-15 down to 0) every answer sits at that floor, and the estimate's "
     "float64 noise (about 1e-20) orders them: 9.99999991e-13 at eps = 1/2, 9.99999998e-13 at "
     "eps = 1 for Laplace of scale 5, whose truth is 0 at both."),
    ("", "non-monotone", "", "non-monotone answers",
     "Answers that grow with eps (or delta): float64 noise of the FFT or of a root search."),
    ("dp_accounting.pld", "below the truth", "rr-|form-.*-rr-", "randomized response counted once",
     "PLDAccountant builds the PLD of a `RandomizedResponseDpEvent` once, whatever its count "
     "(`SelfComposedDpEvent` or `compose(event, count)`): k steps answer the one-step curve. "
     "One `compose` call per step is right."),
    ("tensorflow_privacy.statement", "below", "", "eps rounded to nearest",
     "The privacy statement prints eps with three decimals rounded to nearest (`{eps:12.3f}`), "
     "so the printed upper bound lies up to 5e-4 below the accountant's own, and below the "
     "truth when the accountant is closer to it than that: 0.000 for a truth of 3.0e-4 "
     "(sigma 5, q 1e-3), 0.369 for 0.36903669.  Where dp_accounting's PLD is itself below "
     "the truth (sigma 1/2, q 1e-4, T 10^4: 5.0807 for a proven 5.08433 at delta 1e-10) the "
     "statement inherits it."),
    (("dp_accounting.pld", "riskcal.ctd", "tensorflow_privacy.statement-pld", "jax_privacy"),
     "^inf$", "",
     "eps = inf at small delta",
     "The composed PLD (dp_accounting's, which riskcal's CTDAccountant and TF Privacy's "
     "PLD statement compose with) keeps "
     "the tail mass it truncates (`tail_mass_truncation`, 1e-15) at loss +inf, so every "
     "delta below that mass gets eps = inf where the truth is finite."),
    ("dp_accounting.pld-optimistic", "lower bound above", "", "optimistic PLD above the truth",
     "An optimistic PLD (`pessimistic_estimate=False`) is no longer a lower bound once "
     "composed: `compose` / `self_compose` put the truncated tail mass (1e-15) at loss +inf, "
     "so delta(eps) >= 1e-15 where the truth is smaller, or 0."),
    ("dp_accounting.rdp", "below the truth",
     "gauss-none-substitution|gauss-det-substitution|wor-|laplace-none-substitution",
     "REPLACE_ONE at half the shift",
     "Under REPLACE_ONE the RDP accountant takes `GaussianDpEvent(z)` (alone or inside "
     "`SampledWithoutReplacementDpEvent`) as a mean shift of 1 in units of z (RDP "
     "alpha / (2 z^2)), and `LaplaceDpEvent(b)` as a shift of 1 in units of b, while "
     "PLDAccountant, for the same events and relation, shifts them by 2 (a replaced record "
     "moves the sum from -1 to +1): the RDP answer is the curve of half the shift, below the "
     "truth (Laplace of scale 1/2: eps(1e-100) = 2.2 for 4)."),
    (("prv_accountant", "opacus.prv"), "Floating point errors|Discrete mean differs", "",
     "refuses small delta",
     "The PRV accountant (prv_accountant's, and Opacus's copy of it) raises `ValueError: "
     "Floating point errors will dominate` for delta below its float64 resolution instead of "
     "answering a bound; at sigma = 1/2, q = 1/10, where the domain needed for delta = 1e-30 "
     "is wide, its own discretisation check raises `RuntimeError: Discrete mean differs from "
     "continuous mean significantly` instead."),
    ("prv_accountant.lower", "negative", "", "negative delta",
     "The lower end of its delta(eps) interval is the estimate minus the error bound, "
     "negative when the estimate is near 0."),
    ("fourier_accountant", "OverflowError", "", "q = 1 crashes",
     "The unsampled Gaussian is its q = 1, which its argument check accepts; "
     "`int(nx * (L + log(1 - q)) / (2 L))` then overflows."),
    ("fourier_accountant", "below", "", "grid error unbounded",
     "Its FFT on nx = 10^6 points over [-L, L] = [-20, 20] bounds neither the discretisation "
     "nor the truncation beyond L: delta a little below the truth, and eps(delta) at small "
     "delta stopped where the grid or its Newton tolerance (1e-10) ends."),
    ("fourier_accountant", "no answer within", "", "Newton iteration without a cap",
     "Its eps(delta) is a Newton iteration that stops only within 1e-10 of the target or "
     "outside [-L, L], with no iteration cap: on sigma = (1, 1/2), q = 1e-3, ncomp = "
     "(1000, 100) at delta = 1e-30 it cycles forever (the adapter stops it after 60 s)."),
    ("riskcal.dpsgd", "below", "tradeoff-", "err-rates calibration on the wrong side",
     "`find_noise_multiplier_for_err_rates` bisects on beta(alpha) with `increasing=True` "
     "and returns the bisection's lower end, the largest noise found whose beta is still at "
     "most the target, within its tolerances (1e-3 in beta and in sigma): sigma 0.77994 "
     "where beta(1/10) >= 1/2 needs 0.780304, so beta(1/10) = 0.4998 misses the target."),
    ("random_allocation.recursive", "^inf$", "", "no bound for few steps",
     "The recursive method bounds eps only where its induced sampling probability "
     "e^{2 eps'} / t is at most 1 / sqrt(t) (eps' from its decomposition bound at delta / 2); "
     "elsewhere it answers eps = inf: no bound, where the truth is finite."),
    ("random_allocation.lower-bound", "above", "^alloc-add-s", "direction ignored",
     "`allocation_delta_lower_bound` takes a `direction` and ignores it: it returns the "
     "lower bound of the add-remove curve (Chua et al.'s), which the remove direction "
     "attains, so under add alone its delta and eps lie above the truth (sigma 2, t = 10: "
     "delta(1) = 1.1e-9 for a proven 2.05e-11)."),
    ("random_allocation.lower-bound", "above", "", "eps search rounds a lower bound up",
     "Its eps(delta) searches its own (sound) delta lower bound with "
     "`search_function_with_bounds` and the default `BoundType.UPPER`, which returns a point "
     "where delta(eps) <= delta: eps rounded up, by up to `epsilon_tolerance` (1e-3), which "
     "a lower bound must not do (sigma 1/2, t = 1000, delta 1e-5: 3.134265 for a proven "
     "3.1341522; with `epsilon_tolerance=1e-6` it gives 3.133965, sound)."),
    ("pld_accounting", "no answer within", "", "over a minute at small sigma or many steps",
     "Its geometric discretisation grows with the loss's spread and the number of steps: "
     "at sigma 1/2, t = 1000 one configurable call takes 70-80 s, and the adaptive range "
     "more than 300 s at sigma 1, t = 10^4; over 10 and 20 epochs (sigma 2, t = 1000) "
     "eps(1e-5) takes 76 s at 5 epochs and more than 200 s from 10 on (measured). The "
     "adapter stops an answer after its `time_limit` (60 s) by killing the worker process "
     "that computes it."),
    ("autodp", "below", "", "root search stops below",
     "eps(delta) from a numerical root search on the Gaussian's analytic curve, stopped a few "
     "units of the 11th digit below the truth."),
    (("opacus.gdp", "tensorflow_privacy.gdp"), "different signs", "", "root bracket fails",
     "`eps_from_mu` (Opacus's and TF Privacy's) searches [0, 500] with brentq, which raises "
     "`ValueError: f(a) and f(b) must have different signs` when delta(0) is already below "
     "the target delta, instead of answering eps = 0 (sigma 5, q 1e-4, one step: the truth "
     "is eps(1e-5) = 0, the advantage being 8e-6)."),
    (("opacus.gdp", "tensorflow_privacy.gdp"), "", "", "central limit approximation",
     "The CLT approximation mu = q sqrt(T (e^{1/sigma^2} - 1)) of Bu et al. (Opacus's "
     "GaussianAccountant, TF Privacy's gdp_accountant), which Opacus itself says can "
     "underestimate: not a bound."),
)


def area(case: Case) -> str:
    """The part of the vocabulary a case exercises: family, sampling, relation, form."""
    kinds = " + ".join(dict.fromkeys(f"{p.family}/{p.scheme}" for p in case.parts()))
    group = f", group {case.group}" if case.group != 1 else ""
    form = "" if case.form == "default" else f", {case.form}"
    return f"{kinds}, {case.relation}{group}{form}"


def quick_cases() -> List[Case]:
    """The quick slice (``QUICK``) of the conformance suite."""
    return select(load_cases(suite="conformance"), list(QUICK))


def findings(rows: Sequence[Row]) -> Dict[Tuple[str, str, str], List[Row]]:
    """Unsound and failed rows grouped by (accountant, verdict, cause): a known cause
    (``CAUSES``), else the reason with its numbers blanked, so that one cause is one group."""
    out: Dict[Tuple[str, str, str], List[Row]] = defaultdict(list)
    for row in rows:
        if row.verdict.verdict in FAILING:
            out[(row.accountant, row.verdict.verdict, cause_of(row)[0])].append(row)
    return dict(out)


def cause_of(row: Row) -> Tuple[str, str]:
    """(cause, explanation) of an unsound or failed row: the first of ``CAUSES`` that
    matches its accountant, reason (with its noise flag) and case, else its blanked reason
    and no explanation."""
    reason = f"{row.verdict.reason} {row.noise}".strip()
    for prefix, pattern, names, cause, text in CAUSES:
        if row.accountant.startswith(prefix) and re.search(pattern, reason) \
                and re.match(names, row.case.name):
            return cause, text
    return re.sub(r"[-+]?\d[\d.e+-]*", "#", row.verdict.reason)[:90], ""


def _reproducer(row: Row) -> Optional[str]:
    peer = row.accountant.split(".", 1)[0]
    if peer not in PEERS:
        return None
    return peer_module(peer).reproducer(row.accountant, row.case, row.query)


def _version(peer: str) -> str:
    try:
        return metadata.version(peer_module(peer).PEER.distribution)
    except metadata.PackageNotFoundError:  # fourier_accountant from pld-accountant
        return metadata.version("pld-accountant")


def render(rows: Sequence[Row], peers: Sequence[str], *, suites: str, seconds: float) -> str:
    """The scorecard page (module docstring) from a run's ``rows``."""
    out = ["# Scorecard: the peers judged by refacct", "",
           f"Written by `refacct scorecard` ({suites}; {len(rows)} answers judged in "
           f"{seconds / 60:.1f} minutes on this machine); regenerate it, do not edit it.",
           "Verdicts: [Validating an accountant](validation.md).  An answer flagged noise-level may "
           "get another verdict on another CPU.", "",
           "## Peers", "", "| peer | version | accountants |", "|---|---|---|"]
    for peer in peers:
        names = sorted({r.accountant for r in rows if r.accountant.split(".")[0] == peer})
        out.append(f"| {peer} | {_version(peer)} | {', '.join(names)} |")
    out += ["", "## Verdicts per accountant", "", _verdict_table(summary(rows), "accountant"),
            "", "Time per accountant (seconds, this machine): " + ", ".join(
                f"{acc} {sum(r.seconds for r in rows if r.accountant == acc):.0f}"
                for acc in sorted({r.accountant for r in rows})) + "."]
    out += ["", "## Verdicts per area", ""]
    for acc in sorted({r.accountant for r in rows}):
        counts: Dict[str, Counter] = defaultdict(Counter)
        for r in rows:
            if r.accountant == acc and r.verdict.verdict != "n/a":
                counts[area(r.case)][r.verdict.verdict] += 1
        if counts:
            out += [f"### {acc}", "", _verdict_table(counts, "area"), ""]
    out += ["## Findings: every unsound or failed answer, by cause", ""]
    groups = findings(rows)
    if not groups:
        out.append("None.")
    for (acc, verdict, cause), group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out += _finding(acc, verdict, cause, group)
    out += ["## Coverage of each peer's vocabulary", ""]
    tally = coverage.tally(rows)
    out += [coverage.render(peer, tally.get(peer, {}), _version(peer)) + "\n" for peer in peers]
    return "\n".join(out).rstrip() + "\n"


def _verdict_table(counts, label: str) -> str:
    lines = [f"| {label} | " + " | ".join(VERDICTS) + " |", "|---" * (len(VERDICTS) + 1) + "|"]
    for key in sorted(counts):
        lines.append(f"| {key} | " + " | ".join(str(counts[key].get(v, 0) or "")
                                                for v in VERDICTS) + " |")
    return "\n".join(lines)


def _finding(acc: str, verdict: str, cause: str, group: List[Row]) -> List[str]:
    noisy = sum(1 for r in group if r.noise)
    head = (f"### {acc}: {verdict}, {cause or 'no reason given'} ({len(group)} "
            f"answer{'s' if len(group) > 1 else ''}")
    head += f", {noisy} noise-level)" if noisy else ")"
    lines = [head, ""]
    why = cause_of(group[0])[1]
    if why:
        lines += [why, ""]
    for r in group[:3]:
        ref = r.query.reference
        lines.append(f"- `{r.case.name}` {r.query}: refacct "
                     f"{'-' if ref is None else show_reference(ref, 12)}, reported "
                     f"{r.reported if r.error == '' else r.error.splitlines()[0][:100]}")
    if len(group) > 3:
        lines.append(f"- and {len(group) - 3} more: "
                     + ", ".join(sorted({r.case.name for r in group[3:]}))[:400])
    code = _reproducer(group[0])
    if code:
        lines += ["", f"Reproducer of `{group[0].case.name}` {group[0].query} "
                  "(the peer alone, default knobs):", "", "```python", code, "```"]
    return lines + [""]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``refacct scorecard``: 0 written (findings are the page's content), 2 bad usage."""
    parser = argparse.ArgumentParser(prog="refacct scorecard", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", type=Path, default=Path("docs/scorecard.md"))
    parser.add_argument("--quick", action="store_true",
                        help="the quick slice of the conformance suite only (minutes)")
    parser.add_argument("--accountant", nargs="+", action="extend", default=[],
                        metavar="NAME", help="peers or peer.accountant (default: installed)")
    parser.add_argument("--cache", type=Path, metavar="DIR",
                        help="keep judged answers in DIR and reuse them (resumable runs)")


def run(args: argparse.Namespace) -> int:
    try:
        accountants = resolve_all(args.accountant)
    except (ValueError, ImportError) as exc:
        print(f"refacct: error: {exc}", file=sys.stderr)
        return 2
    if args.quick:
        cases, suites = quick_cases(), "the quick slice of the conformance suite"
    else:
        cases = load_cases() + load_cases(suite="conformance")
        suites = "the reference cases and the conformance suite"
    start = time.perf_counter()
    if args.cache is None:
        rows = validate(accountants, cases)
        seconds = time.perf_counter() - start
    else:
        rows = cached_validate(accountants, cases, args.cache, _version)
        seconds = sum(r.seconds for r in rows)
    peers = [p for p in available_peers() if any(a.name.split(".")[0] == p for a in accountants)]
    text = render(rows, peers, suites=suites, seconds=seconds)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: {len(rows)} answers, "
          f"{sum(len(g) for g in findings(rows).values())} unsound or failed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
