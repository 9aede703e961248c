"""The documentation (docs/, Sphinx + MyST) builds from the repository with warnings as
errors: a broken link, a missing anchor, a page outside every table of contents, a stale
name in a docstring or a malformed docstring fails here, as in CI.  The README stays a
front page: its links resolve, and it fits on a few screens.  Skipped without the ``docs``
extra."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#([^)\s]+))?\)")


def slug(heading: str) -> str:
    """The anchor GitHub and MyST (myst_heading_anchors) give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set:
    fenced, found = False, set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def test_slug_matches_the_anchor_convention():
    assert slug("What it is not") == "what-it-is-not"
    assert slug("The conformance suite (`--suite conformance`)") == \
        "the-conformance-suite---suite-conformance"


def test_the_readme_links_resolve():
    links = LINK.findall(README.read_text(encoding="utf-8"))
    assert len(links) >= 15
    for target, anchor in links:
        if target.startswith("http"):
            continue
        page = ROOT / target
        assert page.is_file(), target
        if anchor:
            assert anchor in anchors(page), f"{target}#{anchor}"


def test_the_readme_fits_on_a_few_screens():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_documentation_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
         str(ROOT / "docs"), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-5000:]
    assert (tmp_path / "html" / "api" / "front-door.html").is_file()
