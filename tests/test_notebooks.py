"""Every notebook in notebooks/ runs as a plain script on its small grid (``--quick``) and
writes its PNG figure(s) and markdown table.  The values in them are checked where they come
from: the proofs, tests/test_reproduce.py and the catalogue's tests; here the notebooks are
executed as a user would, into a temporary results folder."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9a-z]*.py"))


def test_every_notebook_of_the_issue_exists():
    for prefix in ("001_fig1_fig3", "001_fig4_left", "002_fig2_fig3", "003_fig1",
                   "004_truncated_poisson", "tiny_delta", "random_allocation"):
        assert f"{prefix}.py" in NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_and_writes_its_outputs(name, tmp_path):
    source = (ROOT / "notebooks" / name).read_text(encoding="utf-8")
    assert "format_name: percent" in source and "# %%" in source  # Jupytext percent format
    env = dict(os.environ, REFACCT_NOTEBOOK_RESULTS=str(tmp_path), MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in os.environ.get(
                   "PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run([sys.executable, name, "--quick"], cwd=ROOT / "notebooks", env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    pngs = re.findall(r'_nb\.finish\(fig, ax, "([^"]+)"', source)
    tables = re.findall(r'_nb\.table\(\s*"([^"]+)"', source)
    assert pngs and tables
    for stem in pngs:
        assert (tmp_path / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for stem in tables:
        text = (tmp_path / f"{stem}.md").read_text(encoding="utf-8")
        assert text.startswith("# ") and "|---|" in text
