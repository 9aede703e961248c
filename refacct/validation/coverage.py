"""What of each peer's vocabulary a set of cases exercises.

Each peer's adapter module lists its ``VOCABULARY``: every entry point, event or mechanism
type, neighbouring relation, composition form, sampling scheme and query kind that the
peer's API offers, as ``"area: name"``, mapped to ``""`` when the conformance suite is meant
to exercise it, or to the reason it cannot (refacct has no reference for it, or it is not a
hockey-stick query).  Its ``features(accountant, case, query)`` names the entries that
asking that query exercises, or None when the adapter does not ask it, with the same
decisions as the adapter's ``prepare`` but without running the peer.

``exercised`` counts the queries per entry without running any peer (user accountants,
which declare no vocabulary, are left out); ``tally`` counts the
judged answers of a validation run per entry and verdict; ``render`` writes one Markdown
table per peer, the unexercised entries with their reasons, and flags an entry that should
be exercised but is not.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Dict, List, Mapping, Optional, Sequence

from .adapters import PEERS, Accountant, peer_module
from .cases import Case
from .harness import Row
from .verdicts import FAILING

__all__ = ["peer_of", "exercised", "tally", "gaps", "render"]


def peer_of(accountant: str) -> str:
    """The peer of an accountant name ("dp_accounting.pld" -> "dp_accounting")."""
    return accountant.split(".", 1)[0]


def exercised(accountants: Sequence[Accountant], cases: Sequence[Case]) -> Dict[str, Counter]:
    """{peer: Counter(entry -> number of queries asked)} over ``cases``, no peer run."""
    out: Dict[str, Counter] = defaultdict(Counter)
    for acc in accountants:
        if peer_of(acc.name) not in PEERS:
            continue
        features = peer_module(peer_of(acc.name)).features
        for case in cases:
            for query in case.queries:
                out[peer_of(acc.name)].update(features(acc.name, case, query) or ())
    return dict(out)


def tally(rows: Sequence[Row]) -> Dict[str, Dict[str, Counter]]:
    """{peer: {entry: Counter(verdict -> answers)}} over the judged rows of a run."""
    out: Dict[str, Dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for row in rows:
        peer = peer_of(row.accountant)
        if peer not in PEERS:
            continue  # a user's accountant has no declared vocabulary
        features = peer_module(peer).features(row.accountant, row.case, row.query)
        for entry in features or ():
            out[peer][entry][row.verdict.verdict] += 1
    return {peer: dict(entries) for peer, entries in out.items()}


def gaps(peer: str, counts: Mapping[str, object]) -> List[str]:
    """Entries of ``peer``'s vocabulary meant to be exercised (no reason given) that
    ``counts`` does not have, then entries ``counts`` has that the vocabulary lacks."""
    vocabulary = peer_module(peer).VOCABULARY
    missing = [e for e, why in vocabulary.items() if not why and not counts.get(e)]
    return missing + [f"{e} (not in the vocabulary)" for e in counts if e not in vocabulary]


def render(peer: str, counts: Mapping[str, object], version: Optional[str] = None) -> str:
    """One peer's coverage as Markdown: every vocabulary entry with its query count (or
    verdict counts, from ``tally``), then what is not covered and why."""
    vocabulary = peer_module(peer).VOCABULARY
    head = f"### {peer}" + (f" {version}" if version else "")
    lines = [head, "", "| entry | queries | verdicts |", "|---|---|---|"]
    for entry in sorted(e for e in vocabulary if counts.get(e)):
        lines.append(f"| {entry} | {_total(counts[entry])} | {_verdicts(counts[entry])} |")
    uncovered = [(e, why) for e, why in sorted(vocabulary.items()) if not counts.get(e)]
    if uncovered:
        lines += ["", "Not covered:", ""]
        lines += [f"- {e}: {why or '**not exercised** (a gap in the suite)'}" for e, why in uncovered]
    return "\n".join(lines)


def _total(count) -> int:
    return sum(count.values()) if isinstance(count, Mapping) else int(count)


def _verdicts(count) -> str:
    if not isinstance(count, Mapping):
        return ""
    failing = sum(n for v, n in count.items() if v in FAILING)
    text = ", ".join(f"{n} {v}" for v, n in sorted(count.items()))
    return text + (f" (**{failing} failing**)" if failing else "")
