"""Shared by the proof scripts: a checker that prints each claim with how it was proved and
exits non-zero if any failed, exact enumeration of subsampled sum queries, and printing of
verified values.  Not a proof itself (the test suite runs only the numbered scripts)."""
from __future__ import annotations

import itertools
import sys
from fractions import Fraction
from typing import Dict, Iterable, Iterator, Sequence, Tuple

from refacct.result import printed

_failed = []


def claim(ok: bool, what: str, how: str) -> None:
    """Print "PROVED" or "FAILED" with the claim and the method; remember failures."""
    print(f"{'PROVED' if ok else 'FAILED'}: {what}\n        how: {how}")
    if not ok:
        _failed.append(what)


def done() -> None:
    """Exit 1 if any claim failed, 0 otherwise."""
    if _failed:
        print(f"\n{len(_failed)} claim(s) FAILED", file=sys.stderr)
        sys.exit(1)
    print("\nall claims proved")


def shown(result, digits: int = 12) -> str:
    """A verified value as "v (± bound, N verified digits)"."""
    vd = result.verified_digits
    value, bound = printed(result.value, result.abs_error, digits)
    return f"{value} (± {bound}, {'exact' if vd is None else vd} verified digits)"


def separated(a, b) -> int:
    """+1 / -1 if a > b / a < b is decided by the two error bounds, 0 if not."""
    gap = a.value - b.value
    if abs(gap) <= a.abs_error + b.abs_error:
        return 0
    return 1 if gap > 0 else -1


# --- exact enumeration of a subsampled sum query ------------------------------------------

Batches = Iterator[Tuple[Fraction, Tuple[int, ...]]]


def poisson_batches(n: int, q: Fraction) -> Batches:
    """Every subset of range(n) with its probability q^|S| (1 - q)^(n - |S|)."""
    for bits in itertools.product((0, 1), repeat=n):
        prob = Fraction(1)
        for b in bits:
            prob *= q if b else 1 - q
        yield prob, tuple(i for i, b in enumerate(bits) if b)


def fixed_batches(n: int, b: int) -> Batches:
    """Every b-subset of range(n), each with probability 1 / C(n, b)."""
    subsets = list(itertools.combinations(range(n), b))
    for s in subsets:
        yield Fraction(1, len(subsets)), s


def sum_law(batches: Iterable[Tuple[Fraction, Tuple[int, ...]]],
            values: Sequence[object]) -> Dict[Fraction, Fraction]:
    """The law of the batch sum: {sum: probability}, exactly.  The mechanism's output is
    this law convolved with the noise, i.e. the mixture sum_s w_s Noise(s)."""
    law: Dict[Fraction, Fraction] = {}
    for prob, batch in batches:
        s = sum((Fraction(values[i]) for i in batch), Fraction(0))
        law[s] = law.get(s, Fraction(0)) + prob
    return {s: w for s, w in law.items() if w}


def locations(dist, kind) -> Dict[Fraction, Fraction]:
    """{location: weight} of a Gaussian / Laplace mixture whose components are all of
    ``kind`` with one common width (ValueError otherwise)."""
    law: Dict[Fraction, Fraction] = {}
    for w, comp in dist.components:
        if not isinstance(comp, kind):
            raise ValueError(f"component {comp!r} is not a {kind.__name__}")
        loc = comp.mean if hasattr(comp, "mean") else comp.loc
        law[loc] = law.get(loc, Fraction(0)) + w
    return law


def width(dist) -> set:
    """The set of widths (sigma or scale) of a mixture's components."""
    return {getattr(c, "sigma", None) or getattr(c, "scale") for _, c in dist.components}

