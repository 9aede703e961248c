"""The one interface every engine answers.  The door (``refacct.api``) and the rule
(``refacct.routing``) know the engines only through it, so a new engine is one module
with an ``Engine`` subclass plus one line in ``routing.ENGINES``.

Modelled on dp_accounting's ``PrivacyAccountant`` (an accountant says what it ``supports``
before it is asked) and on mpmath's ``QuadratureRule`` (one method to override).

The door has checked everything before an engine sees it: the target is a pair,
composition, public mixture, catalogue entry or shuffled entry that routing gave this
engine; every query is an exact ``Fraction`` in range; ``digits`` and ``width`` are valid.
The deadline is the one the door set (``refacct.progress.deadline``): an engine calls
``progress.check`` (or ``note``) between units of work, and may return a bound reached so
far marked ``time_limited``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import List, Optional, Tuple

from .exact_text import shown, size_text

__all__ = ["KINDS", "Request", "Engine"]

KINDS = ("delta", "epsilon", "alpha")


@dataclass(frozen=True)
class Request:
    """What the door asks: ``kind`` "delta" (the queries are eps values), "epsilon" (delta
    values) or "alpha" (alpha values of H_alpha); ``digits`` verified digits; ``width`` a
    proven bracket's width (relative for delta, absolute in eps; None: the default);
    ``steps`` the compositions the engine performs itself (above 1 only for a proven
    bracket of a self-composition, whose T-step entry is never built)."""

    kind: str
    queries: Tuple[Fraction, ...]
    digits: int = 20
    width: Optional[Fraction] = None
    steps: int = 1

    def at(self, query: Fraction, digits: Optional[int] = None) -> "Request":
        """The same request for one query (and other digits)."""
        return replace(self, queries=(query,), digits=self.digits if digits is None
                       else digits)

    @property
    def what(self) -> str:
        """The query in words, for progress lines: "delta(eps=1)"."""
        name = {"delta": "delta(eps={})", "epsilon": "eps(delta={})",
                "alpha": "H_alpha(alpha={})"}[self.kind]
        return ", ".join(name.format(shown(q) or size_text(q)) for q in self.queries)


class Engine:
    """An engine: ``answer`` gives one result per query, in order (a ``DeltaResult`` for
    "delta" and "alpha", an ``EpsilonResult`` for "epsilon"; ``proven`` when its bound is
    a proof); ``results`` adds the engine's name to each (``refacct.result``: ``engine``).

    Class attributes the door reads:

    * ``name``: what it is called in refusals ("quadrature", "proven-bracket", ...; the
      methods that select it are ``routing.ENGINES``);
    * ``kinds``: the kinds of query it answers;
    * ``batch``: True if one computation serves all queries (they come in one request),
      False if each query comes alone, with its share of the time limit
      (``progress.shared``);
    * ``entries``: True if it maximises a catalogue entry's terms itself; False: the door
      asks for each term and takes the maximum (``refacct.maximum.over_terms``).
    """

    name = ""
    kinds: Tuple[str, ...] = KINDS
    batch = False
    entries = False

    def supports(self, target) -> Optional[str]:
        """None when this engine answers ``target`` (each term of a catalogue entry when
        ``entries`` is False); else why not, in words, for the refusal."""
        return None

    def answer(self, target, request: Request) -> List:
        """The override point: one result per query, in order."""
        raise NotImplementedError

    def results(self, target, request: Request) -> List:
        """``answer``, each result's ``engine`` field set to ``label(target)`` (the door
        calls this)."""
        label = self.label(target)
        return [r if r.engine else replace(r, engine=label)
                for r in self.answer(target, request)]

    def label(self, target) -> str:
        """The ``engine`` field of its results on ``target``: its name."""
        return self.name

    def staged(self, target, request: Request) -> bool:
        """Is a time limit worth attempts of rising accuracy (a quick proven bracket, then
        ``STAGE_DIGITS``, then the digits asked: ``refacct.api``)?  False for answers that
        take no time."""
        return not self.batch

    def ceiling(self, target, request: Request):
        """A proven upper end of the answer to ``request``'s one query, far cheaper than the
        answer, as a result whose enclosure is [0, that end] (``proven``), or None.  The
        door leaves out a term of a catalogue entry whose ceiling lies below another
        term's answer (``refacct.maximum.over_terms``)."""
        return None

    def known(self, target, request: Request):
        """A result known without computing (the time limit ran out before the first
        attempt ended), or None."""
        return None
