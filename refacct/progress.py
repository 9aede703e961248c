"""Progress on stderr for work that takes more than a couple of seconds, when stderr is a
terminal (never in pipes, files or tests' captured output).

Engines open a ``task`` ("delta(eps=1)") and report how far they are with ``note``
("outer piece 12/40, evaluation 1 of 2"); after ``DELAY`` seconds the line

    refacct: delta(eps=1): outer piece 12/40, evaluation 1 of 2 (7 s)

is rewritten in place at most every ``EVERY`` seconds, and ended when the outermost task
ends.  Nothing is printed for work shorter than ``DELAY``.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from functools import wraps
from typing import Callable, Iterator, List

__all__ = ["task", "note", "reported", "DELAY", "EVERY"]

DELAY = 2.0
EVERY = 0.5
_WIDTH = 120


class _Task:
    def __init__(self, what: str) -> None:
        self.what = what
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False


_stack: List[_Task] = []


def _stream():
    """Where progress goes (looked up at each write: tests and callers may swap it)."""
    return sys.stderr


def _enabled() -> bool:
    return _stream().isatty()


@contextmanager
def task(what: str) -> Iterator[None]:
    """A unit of work that ``note`` reports on (nested tasks are joined with " > ")."""
    _stack.append(_Task(what))
    try:
        yield
    finally:
        done = _stack.pop()
        if done.shown and not _stack:
            _stream().write("\r" + " " * _WIDTH + "\r")
            _stream().flush()


def note(detail: str) -> None:
    """How far the current task is; printed only past ``DELAY`` and every ``EVERY`` s."""
    if not _stack or not _enabled():
        return
    now, top = time.monotonic(), _stack[0]
    if now - top.start < DELAY or now - top.last < EVERY:
        return
    top.last, top.shown = now, True
    line = f"refacct: {' > '.join(t.what for t in _stack)}: {detail} ({now - top.start:.0f} s)"
    _stream().write("\r" + line[:_WIDTH].ljust(_WIDTH))
    _stream().flush()


def reported(what: str) -> Callable:
    """Decorator: run the function as a ``task`` named ``what``."""
    def wrap(function: Callable) -> Callable:
        @wraps(function)
        def run(*args, **kwargs):
            with task(what):
                return function(*args, **kwargs)
        return run
    return wrap
