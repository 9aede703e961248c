"""Progress on stderr for work that takes more than a couple of seconds, when stderr is a
terminal; and, for the command line writing to a pipe or a file, a line every half minute
(``heartbeat``): no command runs for minutes in silence.

Engines open a ``task`` ("delta(eps=1)") and report how far they are with ``note``
("outer piece 12/40, evaluation 1 of 2"); after ``DELAY`` seconds the line

    refacct: delta(eps=1): outer piece 12/40, evaluation 1 of 2 (7 s)

is rewritten in place at most every ``EVERY`` seconds, and ended when the outermost task
ends.  Nothing is printed for work shorter than ``DELAY``.

A time budget (``deadline``, the API's ``time_limit=`` and the command line's
``--time-limit``): past it, ``check`` (which ``note`` calls) raises ``TimeLimitError``.  An
engine that has a bound already catches it and returns that bound, marked
``time_limited`` (``best_reached``); with no bound at all the error reaches the caller.
The limit is checked between units of work (a quadrature piece, a lattice pass, a
composition step), so a run may overshoot it by one unit.
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from functools import wraps
from typing import Callable, Iterator, List, Optional, Sequence, TypeVar

from .errors import InputError, InputTypeError, TimeLimitError

__all__ = ["task", "note", "reported", "deadline", "shared", "check", "limited",
           "remaining", "best_reached", "time_limit", "heartbeat", "DELAY", "EVERY",
           "HEARTBEAT_FIRST", "HEARTBEAT_EVERY"]

DELAY = 2.0
EVERY = 0.5
HEARTBEAT_FIRST = 10.0
HEARTBEAT_EVERY = 30.0
_WIDTH = 120


class _Task:
    def __init__(self, what: str) -> None:
        self.what = what
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False


_stack: List[_Task] = []
_deadlines: List[float] = []
_latest: List[str] = [""]  # the last detail given to ``note`` (read by ``heartbeat``)
_NO_BOUND = ("the time limit was reached before any bound: allow more time (time_limit= / "
             "--time-limit)")
R = TypeVar("R")


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
    """How far the current task is; printed only past ``DELAY`` and every ``EVERY`` s.
    Raises ``TimeLimitError`` past the deadline (``check``)."""
    check()
    _latest[0] = detail
    if not _stack or not _enabled():
        return
    now, top = time.monotonic(), _stack[0]
    if now - top.start < DELAY or now - top.last < EVERY:
        return
    top.last, top.shown = now, True
    line = f"refacct: {' > '.join(t.what for t in _stack)}: {detail} ({now - top.start:.0f} s)"
    _stream().write("\r" + line[:_WIDTH].ljust(_WIDTH))
    _stream().flush()


@contextmanager
def heartbeat() -> Iterator[None]:
    """No silent minutes when stderr is not a terminal (scripts, pipes, log files): while
    the work inside runs, a daemon thread writes one line after ``HEARTBEAT_FIRST``
    seconds and then every ``HEARTBEAT_EVERY`` seconds,

        refacct: still computing (40 s): delta(eps=1) > outer piece 12/40; --time-limit
        SECONDS returns the best bound reached by then

    (without the hint when a time limit is set).  On a terminal ``note``'s line does this
    job and the heartbeat stays quiet.  A unit of work that holds the interpreter (one
    FLINT call) delays a line until it ends."""
    if _enabled():
        yield
        return
    stop = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        wait = HEARTBEAT_FIRST
        while not stop.wait(wait):
            parts = [t.what for t in list(_stack)] + ([_latest[0]] if _latest[0] else [])
            doing = " > ".join(parts) or "working"
            hint = "" if _deadlines else ("; --time-limit SECONDS returns the best bound "
                                          "reached by then")
            _stream().write(f"refacct: still computing ({time.monotonic() - start:.0f} s): "
                            f"{doing}{hint}\n")
            _stream().flush()
            wait = HEARTBEAT_EVERY

    _latest[0] = ""
    thread = threading.Thread(target=beat, name="refacct-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def reported(what: str) -> Callable:
    """Decorator: run the function as a ``task`` named ``what``."""
    def wrap(function: Callable) -> Callable:
        @wraps(function)
        def run(*args, **kwargs):
            with task(what):
                return function(*args, **kwargs)
        return run
    return wrap


def time_limit(seconds: object) -> Optional[float]:
    """A time limit in seconds: None (no limit) or a finite number > 0."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise InputTypeError(f"time_limit must be a number of seconds, got {seconds!r}")
    if not 0 < seconds < float("inf"):
        raise InputError(f"time_limit must be a finite number of seconds > 0, got {seconds}")
    return float(seconds)


@contextmanager
def deadline(seconds: object) -> Iterator[None]:
    """Work inside ends within ``seconds`` from now (None: no limit; nested limits keep the
    earliest end): past it, ``check`` raises ``TimeLimitError``."""
    seconds = time_limit(seconds)
    with _ending(None if seconds is None else time.monotonic() + seconds):
        yield


@contextmanager
def _ending(end: Optional[float]) -> Iterator[None]:
    if end is None:
        yield
        return
    _deadlines.append(min([end] + _deadlines[-1:]))
    try:
        yield
    finally:
        _deadlines.pop()


def shared(items: Sequence[R]) -> Iterator[R]:
    """The items, each under an equal share of the time left (when a deadline is set), so
    that the first of several queries cannot use up the time of the others."""
    for i, item in enumerate(items):
        share = remaining() / (len(items) - i) if _deadlines else None
        with _ending(None if share is None else time.monotonic() + share):
            yield item


def limited() -> bool:
    """Is a deadline set?"""
    return bool(_deadlines)


def remaining() -> float:
    """Seconds left before the deadline (+inf without one)."""
    return _deadlines[-1] - time.monotonic() if _deadlines else float("inf")


def check() -> None:
    """Raise ``TimeLimitError`` once the deadline has passed."""
    if _deadlines and time.monotonic() > _deadlines[-1]:
        raise TimeLimitError(_NO_BOUND)


def best_reached(attempts: Sequence[Callable[[], R]], fallback: Optional[Callable[[], R]],
                 mark: Callable[[R], R]) -> R:
    """Under a deadline: the result of the last of ``attempts`` (each better than the one
    before; None: not applicable) that ends in time, passed through ``mark`` unless it was
    the last one; when none ends in time, ``mark(fallback())`` (a bound known without the
    engines), or the ``TimeLimitError`` when there is no fallback or it returns None."""
    best = None
    for i, attempt in enumerate(attempts):
        if remaining() <= 0:  # an attempt would run one unit of work past the limit
            break
        try:
            result = attempt()
        except TimeLimitError:
            break
        if i == len(attempts) - 1:
            return result
        best = result if result is not None else best
    if best is None and fallback is not None:
        best = fallback()
    if best is None:
        raise TimeLimitError(_NO_BOUND)
    return mark(best)
