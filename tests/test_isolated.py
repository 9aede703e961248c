"""``validation.adapters._isolated.Isolated``: a call in a worker process, killed at its
time limit.  The functions below are module-level so that the worker imports them."""
from __future__ import annotations

import os
import time

import pytest

from refacct.validation.adapters._isolated import Isolated


class Late(Exception):
    pass


def _add(a, b):
    return a + b


def _fail():
    raise KeyError("no such order")


def _sleep(seconds):
    time.sleep(seconds)
    return os.getpid()


def _die():
    os._exit(3)


def _lambda():
    return lambda: None  # does not pickle


@pytest.fixture
def isolated():
    made = []

    def make(function):
        made.append(Isolated(function, lambda limit: Late(f"{limit} s")))
        return made[-1]
    yield make
    for worker in made:
        worker.close()


def test_answers_and_keeps_its_worker(isolated):
    run = isolated(_sleep)
    first, second = run(30, 0), run(30, 0)
    assert first == second != os.getpid()
    assert isolated(_add)(30, 2, 3) == 5


def test_the_function_s_exception_is_raised_again(isolated):
    with pytest.raises(KeyError, match="no such order"):
        isolated(_fail)(30)


def test_a_call_past_its_limit_is_killed_and_the_next_gets_a_new_worker(isolated):
    run = isolated(_sleep)
    before = run(30, 0)
    start = time.monotonic()
    with pytest.raises(Late, match="0.5 s"):
        run(0.5, 600)
    assert time.monotonic() - start < 60  # not the 600 s of the call
    assert run(30, 0) != before


def test_a_dead_worker_is_an_internal_failure(isolated):
    run = isolated(_die)
    with pytest.raises(RuntimeError, match="died"):
        run(30)


def test_a_result_that_does_not_pickle_fails_with_its_text(isolated):
    with pytest.raises(RuntimeError, match="function"):
        isolated(_lambda)(30)
