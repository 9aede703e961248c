"""Every script in proofs/ runs and proves its claims (exit status 0, no FAILED line).

Each script is its own oracle chain (exact enumeration, sympy identities, printed numbers);
this module only runs them, as a user would, with ``sys.executable`` and the repository on
PYTHONPATH.  The ones that take minutes are marked slow.  The checker itself is tested on a
claim that fails."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROOFS = ROOT / "proofs"
SLOW = {"001_sec7_substitution_terms.py", "002_thm42_conj44.py"}
SCRIPTS = sorted(p.name for p in PROOFS.glob("[0-9]*.py"))


def run(args, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, **kwargs)


def test_every_claim_of_the_issue_has_a_script():
    assert len(SCRIPTS) >= 8
    for paper in ("001", "002", "003", "004"):
        assert any(name.startswith(paper) for name in SCRIPTS)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in SCRIPTS])
def test_proof_script(name):
    done = run([str(PROOFS / name)], timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAILED" not in done.stdout
    assert done.stdout.count("PROVED:") >= 2 and "all claims proved" in done.stdout


def test_a_failed_claim_exits_non_zero(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nfrom _common import claim, done\n"
                      "claim(True, 'one', 'exact')\nclaim(1 == 2, 'two', 'exact')\ndone()\n"
                      % str(PROOFS))
    done = run([str(script)])
    assert done.returncode == 1
    assert "PROVED: one" in done.stdout and "FAILED: two" in done.stdout
