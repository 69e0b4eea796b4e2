"""Shared fixtures: small databases built once per test session."""

from __future__ import annotations

import os

import pytest

from solver.build import build
from solver.rules import Rules

FOUR = Rules(stones=4)

# The tests name their folders; a user's default folder (muehle's --db) is not theirs.
os.environ.pop("MUEHLE_DB", None)


@pytest.fixture(scope="session")
def db4(tmp_path_factory):
    """Every moving-phase pair of the 4-stone game (3-3, 3-4, 4-4), standard rules."""
    root = tmp_path_factory.mktemp("db4")
    build(root, FOUR, phase="moving", progress=False)
    return root
