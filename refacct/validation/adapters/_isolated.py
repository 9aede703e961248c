"""A peer's call in a worker process that its time limit can stop.

``alarm.alarm_after`` raises in the main thread at the next Python bytecode, so a peer that
spends minutes inside native code (a numba or C loop) runs on past its limit: the signal
is only handled when the loop returns.  ``Isolated`` sends each call to a worker process
and kills that process when the limit passes; the next call starts a fresh worker, so a
peer's state (imported modules, compiled kernels) is kept between calls that finish.

The worker is a new interpreter (``python -c``), not a ``multiprocessing`` child: a forked
copy would inherit the parent's threads and locks (numba, BLAS and python-flint hold
some), and a spawned one imports the parent's ``__main__`` again, which runs a user's
script without a main guard twice.  It sees the parent's ``sys.path`` and talks over a
pipe pair of its own (the peer may print).  ``function`` is sent by reference, so it must
be a module-level function; its arguments and result must pickle.  POSIX only.
"""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Callable, Optional, Tuple

__all__ = ["Isolated", "serve"]


class Isolated:
    """``Isolated(function)(limit, *args)`` = ``function(*args)`` computed in a worker
    process; ``make_timeout()`` is raised (and the worker killed) when no result came
    within ``limit`` seconds.  An exception of ``function`` is raised again here."""

    def __init__(self, function: Callable, make_timeout: Callable[[float], BaseException]):
        self._function = function
        self._make_timeout = make_timeout
        self._worker: Optional[Tuple[subprocess.Popen, Connection, Connection]] = None
        atexit.register(self.close)  # a worker inside a long call outlives its pipes

    def __call__(self, limit: float, *args):
        if self._worker is None or self._worker[0].poll() is not None:
            self._start()
        try:
            self._worker[1].send((self._function, args))
        except OSError:  # the worker died since the last call: a new one
            self._start()
            self._worker[1].send((self._function, args))
        connection = self._worker[2]
        if not connection.poll(limit):
            self.close()
            raise self._make_timeout(limit)
        try:
            ok, value = connection.recv()
        except EOFError:  # the worker died (a crash in native code)
            self.close()
            raise RuntimeError("the peer's worker process died without an answer") from None
        if not ok:
            raise value
        return value

    def _start(self) -> None:
        self.close()
        calls_read, calls_write = os.pipe()
        replies_read, replies_write = os.pipe()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        process = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import serve; "
                                   f"serve({calls_read}, {replies_write})"],
            pass_fds=(calls_read, replies_write), env=env, stdin=subprocess.DEVNULL)
        os.close(calls_read)
        os.close(replies_write)
        self._worker = (process, Connection(calls_write, readable=False),
                        Connection(replies_read, writable=False))

    def close(self) -> None:
        """Kill the worker (if any); the next call starts a new one."""
        if self._worker is not None:
            process, calls, replies = self._worker
            process.kill()
            process.wait()
            calls.close()
            replies.close()
            self._worker = None


def serve(calls_fd: int, replies_fd: int) -> None:
    """The worker's loop: answer each (function, args) sent until the parent's end closes."""
    calls, replies = Connection(calls_fd, writable=False), Connection(replies_fd, readable=False)
    while True:
        try:
            function, args = calls.recv()
        except EOFError:
            return
        try:
            reply = (True, function(*args))
        except Exception as error:  # the peer's failure, raised again in the parent
            reply = (False, error)
        try:
            replies.send(reply)
        except Exception:  # a result or an exception that does not pickle: its text
            value = reply[1]
            replies.send((False, RuntimeError(f"{type(value).__name__}: {value}")))
