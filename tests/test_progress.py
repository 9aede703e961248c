"""Progress on stderr: shown for long work when stderr is a terminal,
never otherwise."""
from __future__ import annotations

import io

import pytest

from refacct import Gaussian, Mixture, Pair, delta, epsilon, progress
from refacct.pairs import Composition


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    err = _Terminal()
    monkeypatch.setattr(progress, "_stream", lambda: err)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    return err


SUB = Pair(Mixture([("9/10", Gaussian(0, 1)), ("1/10", Gaussian(1, 1))]), Gaussian(0, 1))


def test_a_composition_reports_its_outer_pieces(terminal):
    delta(Composition.of(SUB, Pair(Gaussian(2, 3), Gaussian(0, 3))), 1, digits=8,
          method="quadrature")
    text = terminal.getvalue()
    assert "refacct: delta(eps=1): outer piece 1" in text
    assert "evaluation 2 of 2" in text
    assert text.endswith("\r")   # the line is cleared at the end


def test_epsilon_reports_its_search(terminal):
    epsilon(SUB ** 2, "1e-6", digits=6)
    assert "refacct: eps(delta=1/1000000)" in terminal.getvalue()
    assert "delta at eps = " in terminal.getvalue()


def test_silent_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    delta(Composition.of(SUB, Pair(Gaussian(2, 3), Gaussian(0, 3))), 1, digits=8,
          method="quadrature")
    assert capsys.readouterr().err == ""


def test_silent_for_short_work(monkeypatch):
    err = _Terminal()
    monkeypatch.setattr(progress, "_stream", lambda: err)
    delta(Pair(Gaussian(1, 1), Gaussian(0, 1)), 1)   # milliseconds: below DELAY
    assert err.getvalue() == ""


def test_the_command_line_is_never_silent_for_long_in_a_pipe(monkeypatch):
    """stderr not a terminal: the heartbeat writes "still computing" lines while a long
    query runs (its first line and its period shrunk here from 10 s and 30 s), naming the
    query and the piece reached, with the hint to set --time-limit; and nothing for work
    shorter than its first delay."""
    from refacct.cli import main
    err = io.StringIO()
    monkeypatch.setattr(progress, "_stream", lambda: err)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    monkeypatch.setattr(progress, "HEARTBEAT_FIRST", 0.05)
    monkeypatch.setattr(progress, "HEARTBEAT_EVERY", 0.05)
    spec = '{"P": [{"mixture": [["9/10", {"gaussian": {"mean": "0", "sigma": "1"}}], ' \
           '["1/10", {"gaussian": {"mean": "1", "sigma": "1"}}]]}], ' \
           '"Q": [{"gaussian": {"mean": "0", "sigma": "1"}}], "steps": 3}'
    monkeypatch.setattr("sys.stdin", io.StringIO(spec))
    # about a second (the transform); at 2 steps the certified engine can answer in
    # less than the first line's delay once its caches are warm
    assert main(["delta", "--pair", "-", "--eps", "1", "--digits", "10"]) == 0
    lines = err.getvalue().splitlines()
    assert lines and all(line.startswith("refacct: still computing (") for line in lines)
    assert "delta(eps=1)" in lines[0] and "--time-limit SECONDS" in lines[0]
    err.truncate(0)
    err.seek(0)
    monkeypatch.setattr(progress, "HEARTBEAT_FIRST", 30.0)
    assert main(["delta", "gaussian", "--sigma", "1", "--eps", "1"]) == 0
    assert err.getvalue() == ""


def test_the_heartbeat_names_the_peer_being_asked(monkeypatch):
    """Validating a peer: a long wait on its answer names the accountant, the case and the
    query, not refacct's own work (a peer's FFT can run for minutes)."""
    import time

    from refacct.validation.adapters import Accountant
    from refacct.validation.cases import load_cases, select
    from refacct.validation.harness import validate
    err = io.StringIO()
    monkeypatch.setattr(progress, "_stream", lambda: err)
    monkeypatch.setattr(progress, "HEARTBEAT_FIRST", 0.05)
    monkeypatch.setattr(progress, "HEARTBEAT_EVERY", 0.05)

    def slow(query):
        time.sleep(0.3)
        return None

    case = select(load_cases(suite="reference"), ["*"])[0]
    with progress.heartbeat():
        rows = validate([Accountant("slowpoke", "upper", lambda c: slow)], [case])
    assert rows and {r.verdict.verdict for r in rows} == {"n/a"}
    text = err.getvalue()
    assert f"asking slowpoke: {case.name} {case.queries[0]}" in text
