"""The privacy curve of a catalogue entry is the maximum over its terms (001 Sec. 5):

    delta(eps) = max_i delta_i(eps),   eps(delta) = max_i eps_i(delta)

(max_i delta_i(eps) <= delta iff every delta_i(eps) <= delta).  Error bounds: |max_i v_i -
max_i t_i| <= max_i |v_i - t_i|, so the bound of the maximum is the largest term bound, over
the terms that may attain it (a term j with v_j + e_j below v_b - e_b has t_j < t_b, so the
maximum is the one over the others); of enclosed values, the maximum lies in [max of lower
ends, max of upper ends].  Every engine
that answers a catalogue entry term by term combines here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import mpmath

from . import progress
from .distributions import Gaussian, Laplace
from .exact import many as is_many
from .pairs import Composition, Pair, as_composition, shift_pair
from .result import DeltaResult, EpsilonResult, midpoint_radius

__all__ = ["MechanismDelta", "MechanismEpsilon", "maximum", "maximum_epsilon", "combine",
           "over_terms"]


@dataclass(frozen=True, repr=False)
class MechanismDelta(DeltaResult):
    """``DeltaResult`` of a maximum of terms: ``attained_by`` holds the labels of the
    term(s) that can attain the maximum within the error bounds (one label, or several: a
    tie), ``bound`` is tight / upper / lower and ``terms`` holds every (label,
    DeltaResult)."""

    attained_by: Tuple[str, ...] = ()
    terms: Tuple[Tuple[str, DeltaResult], ...] = ()


@dataclass(frozen=True, repr=False)
class MechanismEpsilon(EpsilonResult):
    """``EpsilonResult`` of a maximum of curves: eps = max_i eps_i(delta)."""

    attained_by: Tuple[str, ...] = ()
    terms: Tuple[Tuple[str, EpsilonResult], ...] = ()


def _attained(results: Sequence[Tuple[str, object]]):
    """(best result, labels that may attain the max): a term attains it unless its upper
    end v + e lies below the best lower end."""
    best_label, best = max(results, key=lambda lr: lr[1].value)
    floor = best.value - best.abs_error
    labels = [label for label, r in results if r.value + r.abs_error >= floor]
    return best, tuple(labels) if len(labels) > 1 else (best_label,)


def maximum(results: Sequence[Tuple[str, DeltaResult]], bound: str) -> MechanismDelta:
    """The maximum of labelled ``DeltaResult``s (one eps or alpha) as a ``MechanismDelta``
    labelled ``bound``."""
    return _combine(bound, list(results), MechanismDelta, _delta_extra)


def maximum_epsilon(results: Sequence[Tuple[str, EpsilonResult]],
                    bound: str) -> MechanismEpsilon:
    """eps of the maximum of labelled curves, max_i eps_i(delta), as a
    ``MechanismEpsilon`` labelled ``bound``."""
    return _combine(bound, list(results), MechanismEpsilon, _epsilon_extra)


def _combine(bound: str, results, cls, extra):
    best, attained = _attained(results)
    err = max(r.abs_error for label, r in results if label in attained)
    method = best.method if len(results) == 1 else (
        best.method + f"; max over {len(results)} terms ({', '.join(n for n, _ in results)})")
    engines = sorted({r.engine for _, r in results if r.engine})
    fields = dict(value=best.value, abs_error=err, method=method, digits=best.digits,
                  attained_by=attained, bound=bound, terms=tuple(results),
                  time_limited=any(r.time_limited for _, r in results),
                  engine=" + ".join(engines))
    if all(r.enclosure for _, r in results):
        # max of enclosed values lies in [max of lower ends, max of upper ends]
        ends = (max(r.lower for _, r in results), max(r.upper for _, r in results))
        value, err = midpoint_radius(*ends)
        fields.update(value=value, abs_error=err, enclosure=ends,
                      proven=all(r.proven for _, r in results))
    fields.update(extra(best, results))
    if len(attained) > 1:  # a tie: the exact form of one term does not describe the max
        fields["exact_form"] = None
    return cls(**fields)


def _delta_extra(best: DeltaResult, results) -> dict:
    exacts = [r.exact for _, r in results]
    exact = max(exacts) if all(e is not None for e in exacts) else None
    return dict(alpha=best.alpha, eps=best.eps, exact=exact, exact_form=best.exact_form)


def _epsilon_extra(best: EpsilonResult, results) -> dict:
    return dict(delta_target=best.delta_target, exact_form=best.exact_form)


def combine(kind: str, results: Sequence[Tuple[str, object]], bound: str):
    """``maximum`` of labelled results for ``kind`` "delta" or "alpha", ``maximum_epsilon``
    for "epsilon"."""
    return (maximum_epsilon if kind == "epsilon" else maximum)(results, bound)


def over_terms(entry, kind: str, run: Callable, queries,
               ceiling: Optional[Callable] = None) -> Union[object, List[object]]:
    """``run(pair, query)`` for every term of the catalogue entry ``entry`` (its ``terms``
    and ``bound``) and every query (one or a list: then a list), each with its share of a
    time limit, maximised per query (``combine``).  ``ceiling(pair, query)``: a proven
    upper end of a term's answer, cheap (a result enclosing [0, it], or None); the terms
    run in the order of their ceilings, highest first, and a term whose ceiling lies below
    the largest lower end found is left out, its ceiling standing in its place: it cannot
    attain the maximum."""
    single = not is_many(queries)
    qs = [queries] if single else list(queries)
    out = [_maximum_of_terms(entry, kind, run, q, ceiling) for q in progress.shared(qs)]
    return out[0] if single else out


def _maximum_of_terms(entry, kind: str, run: Callable, query, ceiling: Optional[Callable]):
    terms = list(entry.terms)
    tops = {label: ceiling(pair, query) if ceiling and len(terms) > 1 else None
            for label, pair in terms}
    order = sorted(terms, key=lambda term: _height(tops[term[0]]), reverse=True)
    found: Dict[str, object] = {}
    curves: Dict[object, object] = {}
    floor = None   # the largest lower end found
    for label, pair in progress.shared(order):
        top = tops[label]
        key = _curve(pair)
        if key is not None and key in curves:
            found[label] = curves[key]
            continue
        found[label] = top if top is not None and floor is not None and top.upper < floor \
            else run(pair, query)
        lower = found[label].lower
        floor = lower if floor is None else max(floor, lower)
        if key is not None:
            curves[key] = found[label]
    return combine(kind, [(label, found[label]) for label, _ in terms], entry.bound)


def _curve(pair) -> Optional[Tuple]:
    """A key that two terms share when they have one privacy curve, or None: compositions
    of shift pairs of a symmetric family (Gaussian or Laplace, one width a pair), whose
    privacy-loss law depends on each factor's family, width and distance |a - b| alone (the
    reflection y -> a + b - y swaps the two sides of a pair and keeps the family's law), as
    the multiset of those with their multiplicities.  The two directions of the unsampled
    mechanisms under add-remove are then computed once."""
    if not isinstance(pair, (Pair, Composition)):
        return None
    factors = []
    for one, n in as_composition(pair).factors:
        shift = next((s for s in (shift_pair(one, f) for f in (Gaussian, Laplace)) if s), None)
        if shift is None:
            return None
        p, q = shift
        factors.append((type(p).__name__, p.width, abs(p.location - q.location), n))
    return tuple(sorted(factors))


def _height(top) -> object:
    """The sort key of a ceiling: its upper end, +inf where there is none."""
    return mpmath.inf if top is None else top.upper
