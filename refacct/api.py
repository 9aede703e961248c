"""The front door: delta(eps), eps(delta) and H_alpha of anything refacct computes, by any of
its methods, with one result family.

    >>> import refacct
    >>> from refacct.mechanisms import build, gaussian
    >>> dpsgd = build(gaussian(1), "poisson", "add-remove", q="1/1000")
    >>> r = refacct.delta(dpsgd, 1, steps=1000)            # doctest: +SKIP
    >>> r.lower, r.upper, r.proven, r.method                # doctest: +SKIP

``x`` is

* a pair: ``Pair``, ``Composition`` or ``PublicMixture`` (``refacct.pairs``), composed
  ``steps`` times;
* a catalogue entry (``refacct.mechanisms``: ``Dominated``), its curve the maximum over its
  terms (001 Sec. 5); with ``steps`` = T > 1 the same mechanism run T times as many steps
  (every catalogue builder records how: ``rebuild``);
* a shuffled entry (``Shuffled``: 002's lower bounds).

``method``:

* ``"auto"``: the rule of ``refacct.routing`` (exact PLD / closed forms / quadrature within
  their step limits, a proven bracket beyond);
* ``"exact"``: the exact PLD (discrete pairs only: exact rationals or exact forms); for a
  shuffled entry, 002's exact pair (steps <= 3) instead of the eq. (7) bound;
* ``"quadrature"``: the standard engines (``refacct.hockey``: closed forms, nested
  quadrature, and the exact PLD for discrete factors) whatever the step count;
* ``"certified"``: Arb enclosures (``refacct.certified``: one step and k = 2);
* ``"bracket"``: a proven bracket (``refacct.brackets``; ``width``: relative for delta,
  absolute in eps for eps(delta), default 1/100).

Every result is a ``DeltaResult`` / ``EpsilonResult`` (catalogue entries: ``MechanismDelta``
/ ``MechanismEpsilon``, with ``attained_by``, ``bound`` and ``terms``): ``value``,
``lower``, ``upper``, ``abs_error``, ``verified_digits``, ``proven`` and ``method``.  A list
of eps (or delta) gives a list of results; a bracket composes once for all of them.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from . import certified, hockey, progress, routing, shuffle
from .errors import InputError, InputTypeError
from .exact import digits_parameter, positive
from .mechanisms import Dominated, Shuffled
from .maximum import over_terms
from .pairs import Composition, Pair, PublicMixture, steps as check_steps

__all__ = ["METHODS", "delta", "epsilon", "hockey_stick", "route", "answer"]

METHODS = ("auto", "exact", "quadrature", "certified", "bracket")


def delta(x, eps, *, steps: int = 1, digits: int = 20, method: str = "auto",
          width: object = None, time_limit: Optional[float] = None):
    """delta(eps) = H_{e^eps} of ``x`` run ``steps`` times (001 Definition 4; the maximum
    over a catalogue entry's terms), for one eps or a list (then a list of results), by
    ``method`` (module docstring).  ``width``: a proven bracket's relative width;
    ``time_limit``: seconds for all of them (``refacct.hockey``)."""
    return _answer("delta", x, eps, steps, digits, method, width, time_limit)


def epsilon(x, delta, *, steps: int = 1, digits: int = 20, method: str = "auto",
            width: object = None, time_limit: Optional[float] = None):
    """eps(delta), the smallest eps >= 0 with delta(eps) <= delta, of ``x`` run ``steps``
    times, for one delta or a list; ``width``: a proven bracket's width in eps."""
    return _answer("epsilon", x, delta, steps, digits, method, width, time_limit)


def hockey_stick(x, alpha: object = None, *, eps: object = None, steps: int = 1,
                 digits: int = 20, method: str = "auto", time_limit: Optional[float] = None):
    """H_alpha of ``x`` run ``steps`` times (001 Definition 3), for exactly one of
    ``alpha`` (a rational >= 0) and ``eps`` (alpha = e^eps).  Proven brackets and shuffled
    entries answer eps only."""
    if alpha is None:
        if eps is None or isinstance(eps, (list, tuple)):
            raise InputTypeError("give exactly one of alpha and eps (one value)")
        return delta(x, eps, steps=steps, digits=digits, method=method, time_limit=time_limit)
    if eps is not None:
        raise InputTypeError("give exactly one of alpha and eps")
    return _answer("alpha", x, alpha, steps, digits, method, None, time_limit)


def route(x, steps: int = 1, method: str = "auto") -> routing.Route:
    """What answers ``x`` run ``steps`` times by ``method``: the target and whether by a
    proven bracket (``refacct.routing.Route``); InputError for a method ``x`` has not."""
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    T = check_steps(steps, "steps")
    force = method == "bracket"
    if isinstance(x, Shuffled):
        if force:
            raise InputError("shuffling has no proven-bracket path: its curve is 002's lower "
                             "bound, not a pair")
        if method not in ("auto", "exact"):
            raise InputError(f"a shuffled entry (002's lower bounds) has the methods auto and "
                             f"exact, not {method}")
        return routing.Route(_more_steps(x, T), 1, False, routing.STANDARD)
    if isinstance(x, Dominated):
        if method in ("auto", "bracket"):
            if T == 1:
                return routing.route_pair(x, force)
            return routing.route_entry(lambda k: _more_steps(x, k), T, force)
        target = _more_steps(x, T)
    elif isinstance(x, (Pair, Composition, PublicMixture)):
        target = x if T == 1 else x ** T
        if method in ("auto", "bracket"):
            return routing.route_pair(target, force)
    else:
        raise InputTypeError(f"expected a Pair, Composition, PublicMixture, catalogue entry or "
                             f"shuffled entry, got {type(x).__name__}")
    if method == "exact" and routing.compositions(target)[1]:
        raise InputError("method 'exact' needs discrete pairs (Discrete, randomized response); "
                         "this one has a continuous factor: use 'quadrature' or 'certified'")
    return routing.Route(target, 1, False, f"{method} method")


def _more_steps(x, T: int):
    """The catalogue or shuffled entry ``x`` run T times as many steps."""
    if T == 1:
        return x
    rebuild = getattr(x, "rebuild", None)
    if rebuild is None:
        raise InputError("this catalogue entry was made by hand (Dominated(...)) and does not "
                         "know how to take more steps: compose its terms T times instead")
    return rebuild(T)


def _answer(kind: str, x, values, steps, digits, method, width, time_limit):
    many = isinstance(values, (list, tuple))
    digits = digits_parameter(digits)
    if width is not None:
        width = positive(width, "width")
    way = route(x, steps, method)
    if width is not None and not way.bracket:
        raise InputError("width sets the width of a proven bracket; this query goes to "
                         f"the {way.reason} (use method='bracket')")
    if way.bracket and kind == "alpha":
        raise InputError(f"H_alpha has no proven-bracket path ({way.reason}); ask for delta "
                         "at eps")
    with progress.deadline(time_limit):
        results = answer(way, kind, list(values) if many else [values], digits=digits,
                         method=method, width=width)
    return results if many else results[0]


def answer(way: routing.Route, kind: str, queries: Sequence, *, digits: int = 20,
           method: str = "auto", width: object = None) -> List:
    """Results of ``queries`` ("delta": eps values, "epsilon": delta values, "alpha":
    alpha values) on a ``route``: one proven-bracket composition for all of them, or the
    engine ``method`` names for each (the command line routes first, to word its own
    refusals, then asks here)."""
    if way.bracket:
        return _bracketed(way, kind, queries, width)
    return [_one(kind, way.target, q, digits, method) for q in progress.shared(queries)]


def _bracketed(way: routing.Route, kind: str, queries: Sequence, width):
    """Proven brackets for every query at once; the engine's refusal is bad input."""
    try:
        return routing.bracket(way, kind, queries, width)
    except ValueError as exc:
        raise InputError(f"proven-bracket path ({way.reason}): {exc}") from None


def _shuffled(kind: str, target: Shuffled, query, digits: int, exact: bool):
    """002's lower bounds (``refacct.shuffle``): eq. (7) maximised over C, or with ``exact``
    (steps <= 3) the pair itself in both orders."""
    if kind == "alpha":
        raise InputError("a shuffled entry answers delta at eps and eps at delta, not H_alpha")
    if kind == "epsilon":
        return shuffle.shuffle_lower_bound_epsilon(target.sigma, target.steps, query,
                                                   digits=digits)
    run = shuffle.shuffle_both_orders if exact else shuffle.shuffle_lower_bound
    return run(target.sigma, target.steps, query, digits=digits)


def _one(kind: str, target, query, digits: int, method: str):
    """One query by the standard engines, the certified ones or a shuffled entry's bounds."""
    if isinstance(target, Shuffled):
        return _shuffled(kind, target, query, digits, method == "exact")
    engine = certified if method == "certified" else hockey
    run = {"delta": engine.delta, "epsilon": engine.epsilon, "alpha": engine.hockey_stick}[kind]
    if isinstance(target, Dominated):
        return over_terms(target, kind, lambda pair, q: run(pair, q, digits=digits), query)
    return run(target, query, digits=digits)
