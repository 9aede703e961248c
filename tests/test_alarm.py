"""refacct.alarm.alarm_after: a loop that never checks a clock is stopped with the given
exception; the previous SIGALRM handler comes back; off the main thread there is no limit."""
from __future__ import annotations

import signal
import threading
import time

import pytest

from refacct.alarm import alarm_after


class Stop(Exception):
    pass


def test_a_loop_without_a_cap_is_stopped_and_the_handler_restored():
    before = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    with pytest.raises(Stop):
        with alarm_after(0.2, Stop):
            while True:
                pass
    assert 0.15 < time.monotonic() - start < 5
    assert signal.getsignal(signal.SIGALRM) is before


def test_a_body_that_ends_in_time_is_untouched():
    with alarm_after(5, Stop):
        value = sum(range(10))
    assert value == 45 and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_off_the_main_thread_there_is_no_limit():
    done = []

    def work():
        with alarm_after(0.05, Stop):
            time.sleep(0.2)
            done.append(True)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert done == [True]
