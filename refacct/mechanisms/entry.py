"""A catalogue entry: the dominating pair(s) of a mechanism, where they come from, and
whether they are tight.  Data only: this module imports no engine.

A ``Dominated`` object holds one or more *terms*, each a labelled pair (a ``Pair``,
``Composition`` or ``PublicMixture``).  Its privacy curve is

    delta(eps) = max_i H_{e^eps}(P_i || Q_i)

(001 Sec. 5, "Avoiding incorrect upper bounds": add and remove are composed separately and the
maximum is taken per eps; 001 Sec. 7: the k + 1 mixed-direction terms under substitution),
computed through the front door ``refacct.delta`` / ``epsilon`` / ``hockey_stick`` (the
maximum itself: ``refacct.maximum``).  ``bound`` says what the maximum is: ``"tight"`` (a
concrete pair of datasets realises every term), ``"upper"`` (a dominating pair without a
matching pair of datasets) or ``"lower"`` (realised by datasets, but not proven to be the
worst case).
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Tuple

from ..errors import InputError, InputTypeError
from ..exact import count
from ..pairs import PairLike, PublicMixture, as_public_mixture

__all__ = ["BOUNDS", "Provenance", "Dominated", "steppable"]

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
    terms: Tuple[Tuple[str, PairLike], ...]
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
                "the curve; use refacct.delta / epsilon / hockey_stick")
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
        steps = count(call.arguments["steps"], "steps")

        def rebuild(k: int) -> Dominated:
            return build(**{**call.arguments, "steps": steps * k})
        return replace(entry, rebuild=rebuild)
    return build
