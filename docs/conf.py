"""Sphinx configuration of muehle's guide and reference (``python -m sphinx -W -b html
docs docs/_build/html``; CI builds it so, warnings as errors)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver._version import __version__  # noqa: E402

project = "muehle"
author = "the muehle authors"
copyright = "2026, the muehle authors"
version = release = __version__

extensions = ["myst_parser", "sphinx_click", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "checksums-*.txt"]
myst_heading_anchors = 4          # (the pages link to each other's sections, GitHub's way)
myst_enable_extensions = ["colon_fence"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
html_theme = "alabaster"
html_static_path: list[str] = []
# The pages are written for GitHub as well: their links to the code (README.md, a
# module's file) are not pages here.
suppress_warnings: list[str] = []
