"""Crash safety by construction: a build killed (SIGKILL) at each chosen moment of
writing a pair leaves either no file under the pair's name or a complete, verified one,
and a rerun finishes the job.  The moments are set by solver.storage's test hook
MUEHLE_CRASH_AT, so each test knows where the kill landed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from solver import storage
from solver.build import is_built
from solver.rules import Rules

FOUR = Rules(stones=4)


def build(root, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MUEHLE_CRASH_AT", None)
    if crash_at:
        env["MUEHLE_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(root), "--stones", "4",
                           "--pair", "3-4", "--quiet", "--jobs", "1"],
                          env=env, capture_output=True, text=True)


@pytest.mark.parametrize("point", ["temporary-complete", "before-rename", "after-rename"])
def test_a_kill_while_writing_a_pair(tmp_path, point):
    folder = storage.rules_dir(tmp_path, FOUR)
    killed = build(tmp_path, f"{point}:pair-3-4.h5")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # the pair before is published and intact whatever happened after it
    assert is_built(tmp_path, FOUR, (3, 3))
    final = storage.pair_path(tmp_path, FOUR, (3, 4))
    leftovers = list(folder.glob(".pair-3-4.h5.tmp-*"))
    if point == "after-rename":
        assert is_built(tmp_path, FOUR, (3, 4)) and not leftovers
    else:
        # never a file under the pair's name; the temporary stays until the next run
        assert not final.exists() and len(leftovers) == 1
        if point == "before-rename":
            # complete and re-read, yet unpublished: the rename is the commit point
            assert storage.read_subspace(leftovers[0], FOUR, 3, 4, verify=True) is not None
    again = build(tmp_path)
    assert again.returncode == 0, again.stderr
    assert ("0 pair(s) built, 2 already there" if point == "after-rename"
            else "1 pair(s) built, 1 already there") in again.stdout
    assert is_built(tmp_path, FOUR, (3, 4)) and not list(folder.glob(".pair-*"))
