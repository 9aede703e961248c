"""The error a user's bad input raises, and only bad input.

``InputError`` is a ``ValueError`` (and ``InputTypeError`` also a ``TypeError``), so the
Python API keeps its contract (``except ValueError`` catches bad input), while the command
line tells the user's mistake from refacct's own failure: an ``InputError`` prints as one
line naming the parameter and exits 2; any other exception is an internal error, exit 1,
reported as such (``refacct --debug`` shows the traceback).
"""
from __future__ import annotations

__all__ = ["InputError", "InputTypeError", "OutOfReach", "TimeLimitError"]


class InputError(ValueError):
    """Bad input: a parameter outside what refacct accepts; the message names the
    parameter and the allowed range."""


class InputTypeError(InputError, TypeError):
    """Bad input of the wrong type (an ``InputError`` and a ``TypeError``)."""


class OutOfReach(InputError):
    """The method asked for would need more than its budget on this query (the transform's
    nodes, when the transform of the loss decays too slowly): the message names the
    methods that answer it.  Under ``method="auto"`` the door takes the route's fallback
    (``refacct.routing.Route``) instead; a method the user chose is refused as input."""


class TimeLimitError(RuntimeError):
    """The time limit (``time_limit=``, ``--time-limit``) was reached before any bound:
    neither bad input nor a failure (the command line exits 3)."""
