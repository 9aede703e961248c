"""The repository stands on its own: no file refers to anything outside it.

The team's reading room beside the clone (notes and the papers' extracted texts) is not
part of the project: papers are cited by key (refacct.references, docs/references.md), the
numerics are explained in docs/numerics.md.  The patterns are assembled here so that this
file does not match them itself.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".git", ".venv", "results", "__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
OUTSIDE = re.compile("|".join([re.escape("../" + "shared"), re.escape("NUMERICS" + ".md"),
                               r"\b\d{3}_[0-9a-f]{16}\." + "txt"]))


def _files():
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if path.is_file() and not parts & SKIP and not any(p.endswith(".egg-info") for p in parts):
            yield path


def test_no_file_refers_outside_the_repository():
    found = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert found == []


def test_every_cited_paper_key_is_in_the_references():
    """"001 Thm 10.1"-style citations name keys that docs/references.md and
    refacct.references both define."""
    from refacct.references import PAPERS
    page = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    assert all(f"| {key} |" in page and PAPERS[key].arxiv in page for key in PAPERS)
    from refacct import reproduce
    assert {row.paper for row in reproduce.REPRODUCTIONS} <= set(PAPERS)
