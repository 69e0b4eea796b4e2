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


def digests(root, rules=FOUR, files="*.h5") -> dict[str, str]:
    """The SHA-256 of the values of every subspace of every file under ``root``'s folder
    of ``rules`` (matching ``files``), by file and subspace: what an uninterrupted build
    must equal."""
    folder = storage.rules_dir(root, rules)
    out = {}
    for path in sorted(folder.glob(files)):
        limit = int(path.name[3:path.name.index("-")]) if path.name.startswith("dtz") else None
        for name, info in storage.pair_stats(path, rules, quiet_limit=limit).items():
            out[f"{path.name}:{name}"] = info["sha256"]
    return out


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The 4-stone game's pairs 3-3 and 3-4 built without a kill."""
    root = tmp_path_factory.mktemp("uninterrupted")
    assert build(root).returncode == 0
    return digests(root)


def test_builds_of_one_or_two_threads_write_the_same_values(tmp_path):
    """The whole 4-stone game (moving and placement phase, and the tables of the
    quiet-ply rule) built with --jobs 1 and --jobs 2: every subspace's values the same."""
    for jobs in ("1", "2"):
        for phase in ("all", "rule"):
            done = subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(tmp_path / jobs),
                                   "--stones", "4", "--phase", phase, "--quiet", "--jobs", jobs],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
    one, two = digests(tmp_path / "1"), digests(tmp_path / "2")
    assert len(one) == 2 * (4 + 27) and one == two


@pytest.mark.parametrize("point", ["temporary-complete", "before-rename", "after-rename"])
def test_a_kill_while_writing_a_pair(tmp_path, point, uninterrupted):
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
    assert digests(tmp_path) == uninterrupted


@pytest.mark.slow
def test_a_kill_while_a_write_overlaps_the_next_pair(tmp_path):
    """Pair 4-4 (5 stones) does not read 3-5, so its solve runs while 3-5 is written in
    the background (under --memory 1G: without a limit the two would have to fit in what
    the plan's largest pair needs alone, and here they do not): a kill there leaves
    neither published, and the rerun builds both, equal to an uninterrupted build."""
    args = ["--stones", "5", "--max-total", "8", "--phase", "moving", "--quiet", "--jobs", "2",
            "--memory", "1G"]
    env = dict(os.environ, MUEHLE_CRASH_AT="temporary-complete:pair-3-5.h5")
    killed = subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(tmp_path / "a"), *args],
                            env=env, capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    five = Rules(stones=5)
    assert is_built(tmp_path / "a", five, (3, 4))
    assert not storage.pair_path(tmp_path / "a", five, (3, 5)).exists()
    assert not storage.pair_path(tmp_path / "a", five, (4, 4)).exists()
    env.pop("MUEHLE_CRASH_AT")
    done = {root: subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(tmp_path / root),
                                  *args], env=env, capture_output=True, text=True)
            for root in "ab"}
    assert all(d.returncode == 0 for d in done.values()), done["a"].stderr + done["b"].stderr
    assert "2 pair(s) built, 2 already there" in done["a"].stdout
    for pair in [(3, 3), (3, 4), (3, 5), (4, 4)]:
        a, b = (storage.pair_stats(storage.pair_path(tmp_path / r, five, pair), five) for r in "ab")
        assert {k: v["sha256"] for k, v in a.items()} == {k: v["sha256"] for k, v in b.items()}
