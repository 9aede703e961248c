"""A catalogue entry: the dominating pair(s) of a mechanism, where they come from, and
whether they are tight, and the privacy curve as the maximum over its terms.

A ``Dominated`` object holds one or more *terms*, each a labelled pair (a ``Pair``,
``Composition`` or ``PublicMixture``).  Its privacy curve is

    delta(eps) = max_i H_{e^eps}(P_i || Q_i)

(001 Sec. 5, "Avoiding incorrect upper bounds": add and remove are composed separately and the
maximum is taken per eps; 001 Sec. 7: the k + 1 mixed-direction terms under substitution).
``bound`` says what the maximum is: ``"tight"`` (a concrete pair of datasets realises every
term), ``"upper"`` (a dominating pair without a matching pair of datasets) or ``"lower"``
(realised by datasets, but not proven to be the worst case).

eps(delta) of a maximum of non-increasing curves: max_i delta_i(eps) <= delta iff every
delta_i(eps) <= delta, so eps(delta) = max_i eps_i(delta).  Error bounds: |max_i v_i -
max_i t_i| <= max_i |v_i - t_i|, so the bound of the maximum is the largest term bound.

With a single term the object is also a plain pair for ``refacct.delta`` / ``epsilon`` /
``hockey_stick`` (through ``public_mixture()``); with several terms use this module's
``delta`` / ``epsilon`` / ``hockey_stick``, which also report ``attained_by``.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple, Union


from .. import hockey, progress
from ..exact import positive, rational
from ..pairs import PublicMixture, as_public_mixture, steps as check_steps
from ..result import DeltaResult, EpsilonResult, midpoint_radius
from ..errors import InputError, InputTypeError

__all__ = ["BOUNDS", "Provenance", "Dominated", "MechanismDelta", "MechanismEpsilon",
           "maximum_epsilon",
           "delta", "epsilon", "hockey_stick", "maximum", "switch_point", "steppable"]

BOUNDS = ("tight", "upper", "lower")


@dataclass(frozen=True)
class Provenance:
    """Which theorem a pair comes from: ``theorem`` (e.g. "Zhu et al. Thm 11 = 001 Thm 10.1"),
    ``paper`` (its key in ``refacct.references.PAPERS``) and ``section``."""

    theorem: str
    paper: str
    section: str

    def __str__(self) -> str:
        return f"{self.theorem} ({self.paper}, {self.section})"


@dataclass(frozen=True)
class Dominated:
    """A mechanism's privacy curve as max_i H(P_i || Q_i) over labelled ``terms``.

    ``description`` names the mechanism (base, sampling, relation, steps); ``bound`` is one
    of ``BOUNDS``; ``provenance`` one or more ``Provenance`` records; ``rebuild(k)``, when
    set (by every catalogue builder, ``steppable``), is the same mechanism for k times as
    many steps."""

    description: str
    terms: Tuple[Tuple[str, hockey.PairLike], ...]
    bound: str
    provenance: Tuple[Provenance, ...]
    rebuild: Optional[Callable[[int], "Dominated"]] = field(default=None, compare=False,
                                                            repr=False)

    def __post_init__(self) -> None:
        if self.bound not in BOUNDS:
            raise InputError(f"bound must be one of {BOUNDS}, got {self.bound!r}")
        if not self.terms:
            raise InputError("a catalogue entry needs at least one term")

    def public_mixture(self) -> PublicMixture:
        """The single pair, for ``refacct.delta``; several terms are a maximum of curves,
        which a single pair cannot express."""
        if len(self.terms) != 1:
            labels = ", ".join(label for label, _ in self.terms)
            raise InputTypeError(
                f"{self.description} has {len(self.terms)} terms ({labels}) whose maximum is "
                "the curve; use refacct.mechanisms.delta / epsilon / hockey_stick")
        return as_public_mixture(self.terms[0][1])

    def term(self, label: str) -> "Dominated":
        """The entry restricted to one term (a single pair for ``refacct.delta``)."""
        for name, pair in self.terms:
            if name == label:
                return Dominated(f"{self.description} [{label}]", ((name, pair),), self.bound,
                                 self.provenance)
        raise KeyError(label)

    @property
    def source(self) -> str:
        return "; ".join(str(p) for p in self.provenance)


def steppable(builder: Callable[..., Dominated]) -> Callable[..., Dominated]:
    """``builder`` (a catalogue builder with a ``steps`` parameter) whose entries carry
    ``rebuild(k)``: the same call with k times the steps.  So ``refacct.delta(entry, eps,
    steps=T)`` takes an entry from any builder, and routing reads how the terms depend on
    the steps from the 1- and 2-step entries without building T steps."""
    signature = inspect.signature(builder)

    @functools.wraps(builder)
    def build(*args, **kwargs) -> Dominated:
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        entry = builder(*call.args, **call.kwargs)
        steps = check_steps(call.arguments["steps"], "steps")

        def rebuild(k: int) -> Dominated:
            return build(**{**call.arguments, "steps": steps * k})
        return replace(entry, rebuild=rebuild)
    return build


@dataclass(frozen=True, repr=False)
class MechanismDelta(DeltaResult):
    """``DeltaResult`` of a maximum of terms: ``attained_by`` names the term(s) that can
    attain the maximum within the error bounds, ``bound`` is tight / upper / lower and
    ``terms`` holds every (label, DeltaResult)."""

    attained_by: str = ""
    bound: str = "tight"
    terms: Tuple[Tuple[str, DeltaResult], ...] = ()


@dataclass(frozen=True, repr=False)
class MechanismEpsilon(EpsilonResult):
    """``EpsilonResult`` of a maximum of curves: eps = max_i eps_i(delta)."""

    attained_by: str = ""
    bound: str = "tight"
    terms: Tuple[Tuple[str, EpsilonResult], ...] = ()


def _attained(results: Sequence[Tuple[str, object]]):
    """(best result, labels that may attain the max): a term attains it unless its upper
    end v + e lies below the best lower end."""
    best_label, best = max(results, key=lambda lr: lr[1].value)
    floor = best.value - best.abs_error
    labels = [label for label, r in results if r.value + r.abs_error >= floor]
    return best, " = ".join(labels) if len(labels) > 1 else best_label


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
    err = max(r.abs_error for _, r in results)
    method = best.method if len(results) == 1 else (
        best.method + f"; max over {len(results)} terms ({', '.join(n for n, _ in results)})")
    fields = dict(value=best.value, abs_error=err, method=method, digits=best.digits,
                  attained_by=attained, bound=bound, terms=tuple(results),
                  time_limited=any(r.time_limited for _, r in results))
    if all(r.enclosure for _, r in results):
        # max of enclosed values lies in [max of lower ends, max of upper ends]
        ends = (max(r.lower for _, r in results), max(r.upper for _, r in results))
        value, err = midpoint_radius(*ends)
        fields.update(value=value, abs_error=err, enclosure=ends,
                      proven=all(r.proven for _, r in results))
    fields.update(extra(best, results))
    if " = " in attained:  # a tie: the exact form of one term does not describe the max
        fields["exact_form"] = None
    return cls(**fields)


def _delta_extra(best: DeltaResult, results) -> dict:
    exacts = [r.exact for _, r in results]
    exact = max(exacts) if all(e is not None for e in exacts) else None
    return dict(alpha=best.alpha, eps=best.eps, exact=exact, exact_form=best.exact_form)


def _epsilon_extra(best: EpsilonResult, results) -> dict:
    return dict(delta_target=best.delta_target, exact_form=best.exact_form)


def _per_query(mech: Dominated, fn, queries, cls, extra):
    """Run ``fn(pair, query)`` for every term and query (each with its share of a time
    limit); combine per query."""
    single = not isinstance(queries, (list, tuple))
    qs = [queries] if single else list(queries)
    per_term = [(label, [fn(pair, q) for q in progress.shared(qs)])
                for label, pair in progress.shared(mech.terms)]
    out = [_combine(mech.bound, [(label, rs[i]) for label, rs in per_term], cls, extra)
           for i in range(len(qs))]
    return out[0] if single else out


def delta(mech: Dominated, eps, *, digits: int = 20, time_limit: Optional[float] = None
          ) -> Union[MechanismDelta, List[MechanismDelta]]:
    """delta(eps) = max_i H_{e^eps}(P_i || Q_i) for one eps or a list (then a list), as
    ``MechanismDelta`` with ``attained_by`` and ``bound``.  ``time_limit``: seconds for
    all of them (``refacct.hockey``)."""
    _check(mech)
    with progress.deadline(time_limit):
        return _per_query(mech, lambda pair, e: hockey.delta(pair, e, digits=digits), eps,
                          MechanismDelta, _delta_extra)


def hockey_stick(mech: Dominated, alpha: object = None, *, eps: object = None,
                 digits: int = 20, time_limit: Optional[float] = None) -> MechanismDelta:
    """max_i H_alpha(P_i || Q_i) (or alpha = e^eps), as ``MechanismDelta``."""
    _check(mech)
    with progress.deadline(time_limit):
        return _per_query(
            mech, lambda pair, a: hockey.hockey_stick(pair, a, eps=eps, digits=digits), alpha,
            MechanismDelta, _delta_extra)


def epsilon(mech: Dominated, delta_target, *, digits: int = 20,
            time_limit: Optional[float] = None
            ) -> Union[MechanismEpsilon, List[MechanismEpsilon]]:
    """eps(delta) = max_i eps_i(delta) (the smallest eps with every delta_i(eps) <= delta),
    for one delta or a list, as ``MechanismEpsilon``.  ``time_limit``: as for ``delta``."""
    _check(mech)
    with progress.deadline(time_limit):
        return _per_query(mech, lambda pair, d: hockey.epsilon(pair, d, digits=digits),
                          delta_target, MechanismEpsilon, _epsilon_extra)


def _check(mech) -> None:
    if not isinstance(mech, Dominated):
        raise InputTypeError(f"expected a catalogue entry (Dominated), got {type(mech).__name__}")


def switch_point(mech: Dominated, first: str, second: str, lo: object, hi: object, *,
                 width: object = "1e-12", digits: int = 15) -> Tuple[Fraction, Fraction]:
    """A bracket [a, b] (exact rationals, b - a <= ``width``) in which delta_first(eps) -
    delta_second(eps) changes sign, by bisection on verified values: the sign at each
    point counts only when |difference| exceeds the sum of the two error bounds (001 Sec. 5
    crossing of add and remove, Sec. 7 switch points of the mixed terms).

    The signs at ``lo`` and ``hi`` must be verified and opposite; a midpoint whose sign the
    bounds cannot decide at ``digits`` is retried at 2 * digits, then ArithmeticError."""
    _check(mech)
    pairs = dict(mech.terms)
    a, b, tol = rational(lo, "lo"), rational(hi, "hi"), positive(width, "width")

    def sign(eps: Fraction) -> int:
        for dig in (digits, 2 * digits):
            x = hockey.delta(pairs[first], eps, digits=dig)
            y = hockey.delta(pairs[second], eps, digits=dig)
            gap = x.value - y.value
            if abs(gap) > x.abs_error + y.abs_error:
                return 1 if gap > 0 else -1
        raise ArithmeticError(f"sign of delta_{first} - delta_{second} undecided at eps = {eps}")

    sa, sb = sign(a), sign(b)
    if sa == sb:
        raise InputError(f"delta_{first} - delta_{second} has the same sign at lo and hi")
    while b - a > tol:
        mid = (a + b) / 2
        if sign(mid) == sa:
            a = mid
        else:
            b = mid
    return a, b
