"""Every docstring example in the package runs and prints what it shows (doctest).  The
modules are found by their ``>>>`` prompts, so a new example cannot be left out; an example
that cannot run alone (a peer and a model) is written as a plain code block instead."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "refacct"


def _modules_with_examples():
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    assert {"refacct.exact", "refacct.api", "refacct.mechanisms"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
