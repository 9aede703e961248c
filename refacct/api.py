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
* a shuffled entry (``Shuffled``: 002's lower bounds);
* a random-allocation entry (``Allocated``: one epoch, proven balls; more epochs or
  ``method="bracket"``, proven brackets of its orders composed over the epochs).

``method``:

* ``"auto"``: the rule of ``refacct.routing`` (exact PLD / closed forms / quadrature within
  their step limits, a proven bracket beyond);
* ``"exact"``: the exact PLD (discrete pairs only: exact rationals or exact forms); for a
  shuffled entry, 002's exact pair (steps <= 3) instead of the eq. (7) bound;
* ``"quadrature"``: the standard engines (``refacct.hockey``: closed forms, nested
  quadrature, and the exact PLD for discrete factors) whatever the step count;
* ``"certified"``: Arb enclosures (``refacct.certified``: one step and k = 2; from k = 3
  the Laplace shift's exact convolution and the transform's proven enclosures);
* ``"transform"``: proven enclosures for many steps of Gaussian shifts and
  Poisson-subsampled Gaussians (``refacct.transform``);
* ``"bracket"``: a proven bracket (``refacct.brackets``; ``width``: relative for delta,
  absolute in eps for eps(delta), default 1/100).

Every result is a ``DeltaResult`` / ``EpsilonResult`` (catalogue entries: ``MechanismDelta``
/ ``MechanismEpsilon``, with ``attained_by``, ``bound`` and ``terms``): ``value``,
``lower``, ``upper``, ``abs_error``, ``verified_digits``, ``proven`` and ``method``.  A list
of eps (or delta) gives a list of results; a bracket composes once for all of them.

The door owns the policy; the engines (``refacct.engine``) only compute:

* validation: every query parsed exactly and checked before the first is computed;
* routing: ``route`` (the rule of ``refacct.routing``, and each engine's ``supports``);
* the maximum over a catalogue entry's terms (``refacct.maximum.over_terms``) for
  engines that take single pairs;
* ``time_limit``: seconds for all queries, each with an equal share; attempts of rising
  accuracy, each a bound that holds (``_staged``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

from . import progress, routing
from .engine import Engine, Request
from .errors import InputError, InputTypeError, OutOfReach
from .exact import (alpha_or_eps, count, digits_parameter, eps_parameter, many as is_many,
                    positive, probability)
from .mechanisms import Allocated, Dominated, Shuffled
from .mechanisms.relations import MixedOrders
from .maximum import over_terms
from .pairs import Composition, Pair, PublicMixture
from .result import time_limited

__all__ = ["METHODS", "delta", "epsilon", "hockey_stick", "route", "answer"]

METHODS = tuple(routing.ENGINES)
KIND_WORDS = {"delta": "delta(eps)", "epsilon": "eps(delta)", "alpha": "H_alpha"}
STAGE_DIGITS = 6


def delta(x, eps, *, steps: int = 1, digits: int = 20, method: str = "auto",
          width: object = None, time_limit: Optional[float] = None):
    """delta(eps) = H_{e^eps} of ``x`` run ``steps`` times (001 Definition 4; the maximum
    over a catalogue entry's terms), for one eps or a list (then a list of results), by
    ``method`` (module docstring).  ``width``: a proven bracket's relative width;
    ``time_limit``: seconds for all of them (module docstring)."""
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
        if eps is None or is_many(eps):
            raise InputTypeError("give exactly one of alpha and eps (one value)")
        return delta(x, eps, steps=steps, digits=digits, method=method, time_limit=time_limit)
    if eps is not None:
        raise InputTypeError("give exactly one of alpha and eps")
    return _answer("alpha", x, alpha, steps, digits, method, None, time_limit)


def route(x, steps: int = 1, method: str = "auto", width: object = None) -> routing.Route:
    """What answers ``x`` run ``steps`` times by ``method``: the target, the engine and why
    (``refacct.routing.Route``); InputError for a method ``x`` has not.  A ``width`` asks
    for a proven bracket where ``"auto"`` would give the transform (whose enclosures have
    no width to set: they are as narrow as the digits asked)."""
    way = _route(x, steps, method)
    if width is not None and method == "auto" and way.engine is routing.ENGINES["transform"]:
        return _route(x, steps, "bracket")
    return way


def _route(x, steps: int, method: str) -> routing.Route:
    if method not in routing.ENGINES:
        raise InputError(f"method must be one of {', '.join(routing.ENGINES)}, got "
                         f"{method!r}")
    T = count(steps, "steps")
    force = method == "bracket"
    if isinstance(x, Shuffled):
        if method in ("auto", "bracket"):
            return routing.route_entry(lambda k: _more_steps(x, k), T, force)
        if method not in routing.SHUFFLED_ENGINES:
            raise InputError(f"a shuffled entry (002's lower bounds) has the methods "
                             f"{' and '.join(routing.SHUFFLED_ENGINES)}, not {method}")
        return routing.Route(_more_steps(x, T), 1, routing.SHUFFLED_ENGINES[method],
                             routing.SHUFFLED)
    if isinstance(x, Allocated):
        if method in ("auto", "bracket"):
            return routing.route_entry(lambda k: _more_steps(x, k), T, force)
        raise InputError(f"a random-allocation entry has the method auto (proven balls), "
                         f"not {method}")
    times = 1
    if isinstance(x, Dominated):
        if method in ("auto", "bracket"):
            if T == 1:
                return routing.route_pair(x, force)
            return routing.route_entry(lambda k: _more_steps(x, k), T, force)
        two = _more_steps(x, 2) if method == "transform" and T > 1 else None
        orders = None if two is None else MixedOrders.of(x, two)
        if two is not None and routing.self_composition(x, two):
            # the engine composes the steps itself: a public mixture's T-fold composition,
            # a sum over the counts of its pairs, is never built
            target, times = x, T
        elif orders is not None:   # nor are the T + 1 terms of mixed orders
            target, times = orders, T
        else:
            target = _more_steps(x, T)
    elif isinstance(x, (Pair, Composition, PublicMixture)):
        if method in ("auto", "bracket"):
            return routing.route_pair(x if T == 1 else x ** T, force)
        target, times = (x, T) if method == "transform" else (x if T == 1 else x ** T, 1)
    else:
        raise InputTypeError(f"expected a Pair, Composition, PublicMixture, catalogue entry or "
                             f"shuffled entry, got {type(x).__name__}")
    engine = routing.ENGINES[method]
    for term in _terms(engine, target):
        refusal = engine.supports(term)
        if refusal is not None:
            raise InputError(refusal)
    return routing.Route(target, times, engine, f"{method} method")


def _terms(engine: Engine, target) -> Sequence:
    """What ``engine`` is given: a catalogue entry's terms one by one, unless it maximises
    over them itself."""
    if isinstance(target, Dominated) and not engine.entries:
        return [pair for _, pair in target.terms]
    return [target]


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
    many = is_many(values)
    way = _for_kind(route(x, steps, method, width), kind)
    request = _request(way, kind, list(values) if many else [values], digits, width)
    with progress.deadline(time_limit):
        results = _run(way, request)
    return results if many else results[0]


def answer(way: routing.Route, kind: str, queries: Sequence, *, digits: int = 20,
           width: object = None) -> List:
    """Results of ``queries`` ("delta": eps values, "epsilon": delta values, "alpha":
    alpha values) on a ``route``, every query checked before the first is computed (the
    command line routes first, to word its own refusals, then asks here)."""
    way = _for_kind(way, kind)
    return _run(way, _request(way, kind, queries, digits, width))


def _for_kind(way: routing.Route, kind: str) -> routing.Route:
    """The route's fallback where its engine does not answer ``kind`` and the fallback
    does (eps(delta) of two compositions, which ``auto`` gives the certified engine for
    delta and H_alpha, goes to the standard engines)."""
    if kind not in way.engine.kinds and way.fallback is not None and \
            kind in way.fallback.engine.kinds:
        return way.fallback
    return way


def _request(way: routing.Route, kind: str, queries: Sequence, digits, width) -> Request:
    """The checked request: every query parsed exactly, the kind one the engine answers,
    a width only for a proven bracket."""
    digits = digits_parameter(digits)
    if width is not None:
        width = positive(width, "width")
        if not way.bracket:
            raise InputError("width sets the width of a proven bracket; this query goes to "
                             f"the {way.reason}: ask for the bracket method")
    if kind not in way.engine.kinds:
        raise InputError(f"{KIND_WORDS[kind]} has no {way.engine.name} path ({way.reason}); "
                         f"it answers {', '.join(KIND_WORDS[k] for k in way.engine.kinds)}")
    parse = {"delta": eps_parameter, "epsilon": lambda d: probability(d, "delta"),
             "alpha": lambda a: alpha_or_eps(a, None)[0]}[kind]
    return Request(kind, tuple(parse(q) for q in queries), digits, width, way.steps)


def _run(way: routing.Route, request: Request) -> List:
    """One computation for all queries (``engine.batch``), or one query at a time with its
    share of the time limit."""
    engine = way.engine
    try:
        if engine.batch:
            return engine.results(way.target, request)
        return [_one_or_fallback(way, request.at(q)) for q in progress.shared(request.queries)]
    except OutOfReach as exc:
        raise OutOfReach(f"{engine.name} path ({way.reason}): {exc}") from None
    except InputError as exc:  # the engine's refusal, named with the route
        raise InputError(f"{engine.name} path ({way.reason}): {exc}") from None


def _one_or_fallback(way: routing.Route, request: Request):
    """One query on the route, or on its fallback when the engine finds it out of reach
    and the fallback answers its kind (the brackets have no H_alpha)."""
    try:
        return _one(way.engine, way.target, request)
    except OutOfReach as exc:
        if way.fallback is None and isinstance(way.target, MixedOrders):
            raise OutOfReach(f"{exc.args[0].split('; method=')[0]}; no other engine takes "
                             f"the orders of {way.steps} steps mixed (the "
                             f"brackets take up to {routing.MAX_MIXED_STEPS})") from None
        if way.fallback is None or request.kind not in way.fallback.engine.kinds:
            raise
        return _run(way.fallback, replace(request, steps=way.fallback.steps))[0]


def _one(engine: Engine, target, request: Request):
    """One query; a catalogue entry's maximum over its terms (``over_terms``) when the
    engine takes single pairs."""
    if isinstance(target, Dominated) and not engine.entries:
        return over_terms(target, request.kind,
                          lambda pair, q: _staged(engine, pair, request.at(q)),
                          request.queries[0],
                          lambda pair, q: engine.ceiling(pair, request.at(q)))
    return _staged(engine, target, request)


def _staged(engine: Engine, target, request: Request):
    """The engine's answer to one query.  Under a time limit (when the engine's answer
    takes time): attempts of rising accuracy, each a bound that holds: a proven bracket
    (default width, where the brackets take the pair; not for H_alpha), the engine at
    ``STAGE_DIGITS`` digits, then at the digits asked.  When the limit runs out, the last
    attempt that ended, marked ``time_limited``; with none, the engine's ``known`` bound
    (or a ``TimeLimitError``)."""
    with progress.task(request.what):
        if not progress.limited() or not engine.staged(target, request):
            return engine.results(target, request)[0]
        quick = [] if request.kind == "alpha" else [lambda: _quick_bracket(target, request)]
        digits = request.digits
        stages = [digits] if digits <= STAGE_DIGITS else [STAGE_DIGITS, digits]
        return progress.best_reached(
            quick + [lambda d=d: engine.results(target, request.at(request.queries[0], d))[0]
                     for d in stages],
            lambda: engine.known(target, request), time_limited)


def _quick_bracket(target, request: Request):
    """A proven bracket of default width, or None where the brackets do not take the pair
    (an InputError) or cannot build its lattice (an ArithmeticError or a ValueError from
    Arb: losses spread over less than the lattice's precision resolves, or over 10^80 at
    sigma = 1e-40).  This quick stage is optional: the engine that follows answers then,
    and reports its own failures."""
    try:
        return routing.BRACKET.results(target, request)[0]
    except (ValueError, ArithmeticError):
        return None
