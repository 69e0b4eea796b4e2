"""Shared fixtures: small databases built once per test session."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

# The suite runs in two processes on two cores (README: pytest -n 2), each kernel with
# two OpenMP threads: four threads on two cores.  OpenMP's threads spin while they wait
# at a barrier, so a thread whose partner is off the core spins out its time slice
# (set before the kernels' OpenMP runtime loads, which reads it once).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest  # noqa: E402

from solver.build import build  # noqa: E402
from solver.rules import Rules  # noqa: E402

FOUR = Rules(stones=4)

# The tests name their folders; a user's default folder (muehle's --db) is not theirs.
os.environ.pop("MUEHLE_DB", None)

# A suite started in the background by a shell without job control (`pytest ... &` in a
# script, nohup) inherits SIGINT ignored, and so would every command it starts: the tests
# that press Ctrl-C on a build or a match would then wait out their timeouts (5 min
# each).  A Python handler is reset to the default at exec, so the commands the tests
# start get Ctrl-C as a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    """Where Python is told not to write bytecode (PYTHONDONTWRITEBYTECODE, as on this
    project's machines), every process the tests start (the CLI, a cluster's workers, a
    process pool's) compiled the whole package again: 0.25 s each, hundreds of them.
    Compiled once here, by the first process, they read it (a source edited later is
    compiled again, as always)."""
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        import compileall
        compileall.compile_dir(Path(__file__).resolve().parent.parent / "solver", quiet=1)


@pytest.fixture(scope="session")
def db4(tmp_path_factory):
    """Every moving-phase pair of the 4-stone game (3-3, 3-4, 4-4), standard rules."""
    root = tmp_path_factory.mktemp("db4")
    build(root, FOUR, phase="moving", progress=False)
    return root
