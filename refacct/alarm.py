"""A wall-clock limit on code that never checks one (a peer's loop without an iteration cap,
a fuzzed input): after ``seconds`` SIGALRM raises ``make()`` inside that code.

Only the main thread of a POSIX process receives SIGALRM; elsewhere the code runs without a
limit.  Cooperative deadlines of refacct's own engines are ``refacct.progress``'s.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Callable, Iterator

__all__ = ["alarm_after"]


@contextlib.contextmanager
def alarm_after(seconds: float, make: Callable[[], BaseException]) -> Iterator[None]:
    """Run the body; raise ``make()`` in it once ``seconds`` have passed (main thread, POSIX
    only), restoring the previous SIGALRM handler either way."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise make()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
