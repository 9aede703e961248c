"""Sphinx configuration of refacct's documentation.

Build (warnings are errors, as in the test suite's tests/test_docs.py):

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Pages are Markdown (MyST); the API reference is generated from the docstrings (autodoc).
The optional peers that ``refacct.accountants`` builds on are mocked when not installed, so
the documentation builds from the ``docs`` extra alone.
"""
import importlib.util

project = "refacct"
author = "the refacct developers"
copyright = "2026, the refacct developers"

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "scorecard-rows", "figures"]

myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_inherit_docstrings = False  # the peers' docstrings are not reStructuredText
# Every cross-reference must resolve (a stale name in a docstring or a page fails the build),
# except types of other libraries (no intersphinx: the build needs no network) and private
# helpers.
nitpicky = True
nitpick_ignore_regex = [
    ("py:class", r"(fractions|mpmath|pathlib|decimal|concurrent|typing|flint)\..*"),
    ("py:class", r"refacct\..*\._\w+"),
    ("py:class", r"NeighboringRelation"),  # dp_accounting's, in DpAccountant's signature
]
autodoc_mock_imports = [m for m in ("dp_accounting", "opacus", "torch")
                        if importlib.util.find_spec(m) is None]

html_theme = "alabaster"
html_title = "refacct"
