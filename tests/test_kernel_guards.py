"""Bad input to the compiled kernels is refused with a ValueError (an IndexError for a
slot out of range) that names what is wrong, never a crash of the interpreter or a
read out of bounds (ext/guards.pxi), also under ``python -O``, which drops the asserts
that used to guard the array sizes.

A bad call could kill the process that makes it (a segfault, libgomp aborting), so the
calls run in child processes: a crash fails the case that caused it, and the remaining
cases run in a fresh child.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

#: Made once in the child: valid arguments of each kernel, so that a case spoils one.
PREAMBLE = """
import numpy as np
from solver import Subspace
from solver.board import BOARDS
from solver.kernels import MAX_JOBS, kernels_for
import solver._kernels as K
import solver.verify._oracle_three_mens as O3
K3 = kernels_for(BOARDS["three-mens"])
u8 = lambda n: np.zeros(n, np.uint8)
u16 = lambda n: np.zeros(n, np.uint16)
u32 = lambda *a: np.array(a, np.uint32)
S33, S22, S23 = K.subspace_slots(3, 3), K.subspace_slots(2, 2), K.subspace_slots(2, 3)
V33, V22, V23 = u16(S33), u16(S22), u16(S23)
FLOOR33 = u8(S33)
DUE33, HOLDS33 = K.retro_due(S33)
NONE = u16(0)                          # an array never read (3-3: a capture wins outright)
NO_FRONT = np.zeros(0, np.int64)
N3 = O3.oracle_entries(3, 3)          # the oracle of Three Men's Morris: small arrays
OV = O3.oracle_new(3, 3)
ROWS = len(O3.oracle_sets(3))
def sweep(**spoil):
    args = dict(val=OV, quiet=OV, cap=NONE, cap_win=u16(N3), loss_rows=u16(ROWS),
                quiet_loss_rows=u16(ROWS), blocker=np.zeros(N3, np.uint32))
    keywords = {k: v for k, v in spoil.items() if k not in args}     # (jobs, hm, ...)
    args.update((k, v) for k, v in spoil.items() if k in args)
    return O3.oracle_sweep(3, 3, args["val"], args["quiet"], args["cap"], 1, 1,
                           args["cap_win"], args["loss_rows"], args["quiet_loss_rows"],
                           args["blocker"], **keywords)
"""

BAD_JOBS = 100000       # libgomp segfaulted here; 50000 made it abort

#: (name, call, exception, pattern its message must match)
CASES: list[tuple[str, str, str, str]] = [
    # 1. threads: the public count and every kernel that runs an OpenMP loop
    ("count_real 100000", "Subspace(3, 3).count_real(100000)", "ValueError",
     r"threads must lie in 1\.\.256, not 100000"),
    ("count_real 50000", "Subspace(3, 3).count_real(50000)", "ValueError", r"threads must lie in 1\.\.256"),
    ("count_real 0", "Subspace(3, 3).count_real(0)", "ValueError", r"threads must lie in 1\.\.256, not 0"),
    ("count_real -3", "K.count_real_slots(3, 3, -3)", "ValueError", r"threads must lie"),
    *[(f"{name} jobs", call.replace("JOBS", str(BAD_JOBS)), "ValueError", rf"jobs must lie in 1\.\.256, not {BAD_JOBS}")
      for name, call in [
          ("retro_init", "K.retro_init(3, 3, V33, NONE, 1, JOBS)"),
          ("retro_floor", "K.retro_floor(V33, JOBS)"),
          ("retro_frontier_size", "K.retro_frontier_size(V33, DUE33, HOLDS33, 0, JOBS)"),
          ("retro_scan", "K.retro_scan(V33, HOLDS33, 0, 0, np.zeros(1 << 16, np.int64), JOBS)"),
          ("retro_round", "K.retro_round(3, 3, NO_FRONT, V33, V33, FLOOR33, DUE33, 0, 1, False, JOBS)"),
          ("retro_pull", "K.retro_pull(3, 3, V33, V33, FLOOR33, DUE33, 0, 1, JOBS)"),
          ("retro_pull_grouped", "K.retro_pull_grouped(3, 3, V33, V33, FLOOR33, DUE33, 0, 1, JOBS)"),
          ("retro_check", "K.retro_check(3, 3, V33, V33, NONE, 1, jobs=JOBS)"),
          ("retro_check_grouped", "K.retro_check_grouped(3, 3, V33, V33, NONE, 1, jobs=JOBS)"),
          ("retro_fingerprint", "K.retro_fingerprint(V33, 0, JOBS)"),
          ("placement_values", "K.placement_values(2, 2, 1, 1, V22, V23, NONE, 1, JOBS)"),
          ("placement_solve", "K.placement_solve(2, 2, 1, 1, V22, V23, NONE, 1, jobs=JOBS)"),
          ("placement_pass", "K.placement_pass(2, 2, 1, 1, V22, V23, NONE, 1, jobs=JOBS)"),
          ("placement_reach", "K.placement_reach(2, 2, 1, 1, u8(S22), u8(0), u8(0), 1, JOBS)"),
          ("code_histogram", "K.code_histogram(V22, JOBS)"),
          ("oracle_sweep", "sweep(jobs=JOBS)"),
      ]],
    # 2. array sizes, which asserts guarded (gone under python -O)
    ("retro_init val", "K.retro_init(3, 3, u16(10), u16(10), 1)", "ValueError",
     r"array val has 10 entries, expected \d+ \(slots of 3-3\)"),
    ("retro_init hands", "K.retro_init(3, 3, V33, NONE, 1, h=7, k=0, place=V23)", "ValueError",
     r"no subspace 3-3\+7-0"),
    ("placement_values out", "K.placement_values(5, 5, 1, 1, u16(10), u16(10), u16(10), 1)",
     "ValueError", r"array out has 10 entries, expected \d+ \(slots of 5-5\)"),
    ("placement_values quiet_child", "K.placement_values(2, 2, 1, 1, V22, u16(10), NONE, 1)",
     "ValueError", r"array quiet_child has 10 entries, expected \d+"),
    ("placement_values capture_child", "K.placement_values(3, 3, 1, 1, V33, u16(0), u16(7), 1)",
     "ValueError", r"array capture_child has 7 entries"),
    ("placement_values hands", "K.placement_values(9, 3, 1, 0, u16(10), NONE, NONE, 1)",
     "ValueError", r"no placement subspace 9-3\+1-0"),
    ("placement_values no hand", "K.placement_values(2, 2, 0, 1, V22, V23, NONE, 1)",
     "ValueError", r"no placement subspace 2-2\+0-1"),
    ("placement_solve quiet", "K.placement_solve(2, 2, 1, 1, V22, u16(3), NONE, 1)",
     "ValueError", r"array quiet has 3 entries"),
    ("placement_reach reached", "K.placement_reach(2, 2, 1, 1, u8(5), u8(0), u8(0), 1)",
     "ValueError", r"array reached has 5 entries"),
    ("retro_check val", "K.retro_check(3, 3, u16(10), u16(10), NONE, 1)", "ValueError",
     r"array val has 10 entries, expected \d+ \(slots of 3-3\)"),
    ("retro_check quiet", "K.retro_check(3, 3, V33, u16(10), NONE, 1)", "ValueError",
     r"array quiet has 10 entries"),
    ("retro_check start", "K.retro_check(3, 3, V33, V33, NONE, 1, -5)", "ValueError",
     r"bad slot range -5\.\."),
    ("retro_check_grouped val", "K.retro_check_grouped(3, 3, u16(10), V33, NONE, 1)",
     "ValueError", r"array val has 10 entries"),
    ("retro_round child", "K.retro_round(3, 3, NO_FRONT, u16(10), V33, FLOOR33, DUE33, 0, 1)",
     "ValueError", r"array child has 10 entries"),
    ("retro_round pred_floor", "K.retro_round(3, 3, NO_FRONT, V33, V33, u8(10), DUE33, 0, 1)",
     "ValueError", r"array pred_floor has 10 entries"),
    ("retro_round pred_due", "K.retro_round(3, 3, NO_FRONT, V33, V33, FLOOR33, u16(1), 0, 1)",
     "ValueError", r"array pred_due has 1 entries"),
    ("retro_round frontier", "K.retro_round(3, 3, np.array([0, S33], np.int64), V33, V33, FLOOR33, DUE33, 0, 1)",
     "IndexError", r"frontier\[1\] = \d+: no slot of 3-3"),
    ("retro_round subspace", "K.retro_round(10, 3, NO_FRONT, V33, V33, FLOOR33, DUE33, 0, 1)",
     "ValueError", r"no index for 10 and 3 stones"),
    ("retro_pull pred", "K.retro_pull(3, 3, V33, u16(10), FLOOR33, DUE33, 0, 1)",
     "ValueError", r"array pred has 10 entries"),
    ("retro_pull_grouped child", "K.retro_pull_grouped(3, 3, u16(10), V33, FLOOR33, DUE33, 0, 1)",
     "ValueError", r"array child has 10 entries"),
    ("retro_frontier_size due", "K.retro_frontier_size(V33, u16(1), HOLDS33, 0)", "ValueError",
     r"array due has 1 entries"),
    ("retro_scan out", "K.retro_scan(V33, HOLDS33, 0, 0, np.zeros(5, np.int64))", "ValueError",
     r"array out has 5 entries, at least \d+ needed"),
    ("retro_scan block", "K.retro_scan(V33, HOLDS33, 0, -4, np.zeros(1 << 16, np.int64))", "ValueError",
     r"block -4 out of range"),
    ("quiet_step_counts lengths", "K.quiet_step_counts(u32(7, 7), u32(56))", "ValueError",
     r"arrays differ in length"),
    ("quiet_step_counts masks", "K.quiet_step_counts(u32(7, 0xFF000000), u32(56, 56))", "ValueError",
     r"not a position of the standard board \(entry 1\)"),
    ("oracle_sweep val", "sweep(val=u16(5))", "ValueError", r"array val has 5 entries"),
    ("oracle_sweep blocker", "sweep(blocker=np.zeros(3, np.uint32))", "ValueError", r"array blocker has 3"),
    ("oracle_sweep place", "sweep(hm=1)", "ValueError", r"needs its placement targets"),
    # 3. count_moves_batch: lengths and masks
    ("count_moves_batch lengths",
     "K.count_moves_batch(u32(7, 7), u32(56), np.array([0], np.int8), np.array([0], np.int8))",
     "ValueError", r"arrays differ in length"),
    ("count_moves_batch hands",
     "K.count_moves_batch(u32(7), u32(56), np.array([0, 0], np.int8), np.array([0], np.int8))",
     "ValueError", r"arrays differ in length"),
    ("count_moves_batch masks",
     "K.count_moves_batch(u32(0xFF000007), u32(56), np.array([0], np.int8), np.array([0], np.int8))",
     "ValueError", r"not a position of the standard board"),
    ("moves_packed masks", "K.moves_packed(0xFF000007, 0x38, 0, 0)", "ValueError", r"not a position"),
    ("unmoves_packed masks", "K.unmoves_packed(7, 7, 0, 0)", "ValueError", r"not a position"),
    # 4. the unchecked index: m and o and the lengths checked all the same
    ("index_batch_unchecked 12-12",
     "K.index_batch_unchecked(12, 12, u32(7), u32(56), np.zeros(1, np.int64))", "ValueError",
     r"no index for 12 and 12 stones \(0\.\.9 each\)"),
    ("index_batch_unchecked three-mens",
     "K3.index_batch_unchecked(12, 12, u32(7), u32(56), np.zeros(1, np.int64))", "ValueError",
     r"no index for 12 and 12 stones \(0\.\.4 each\)"),
    ("index_batch_unchecked lengths",
     "K.index_batch_unchecked(3, 3, u32(7), u32(56), np.zeros(5, np.int64))", "ValueError",
     r"arrays differ in length"),
    ("index_batch_unchecked_sum", "K3.index_batch_unchecked_sum(-1, 3, u32(7), u32(56))", "ValueError",
     r"no index for -1 and 3"),
    # the oracle's tables
    ("oracle_sets", "O3.oracle_sets(30)", "ValueError", r"no subspace 30-0 on the three-mens board"),
    ("oracle_position", "O3.oracle_position(3, 3, N3)", "IndexError", r"entry \d+ out of range for 3-3"),
    ("oracle_rank", "O3.oracle_rank(0xFFFFFFFF)", "ValueError", r"not a set of points 0\.\.8"),
    ("oracle_index", "O3.oracle_index(3, 3, 7, 1)", "ValueError", r"not sets of 3 and 3 points"),
]

#: Runs the cases named on its command line from the first, one JSON line each.
CHILD = PREAMBLE + """
import json, sys
cases = json.loads(sys.argv[1])
for name, call in cases:
    print(json.dumps({"start": name}), flush=True)
    try:
        eval(call)
        got = {"name": name, "raised": None, "message": ""}
    except Exception as e:
        got = {"name": name, "raised": type(e).__name__, "message": str(e)}
    print(json.dumps(got), flush=True)
"""


def run_cases(optimize: bool) -> dict[str, dict]:
    """Every case's outcome in child processes (``python -O`` if ``optimize``): where one
    crashes, it is recorded with the exit status and the rest go on in a new child."""
    todo = [(name, call) for name, call, _, _ in CASES]
    results: dict[str, dict] = {}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    while todo:
        done = subprocess.run([sys.executable, *(["-O"] if optimize else []), "-c", CHILD, json.dumps(todo)],
                              capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
        started = None
        for line in done.stdout.splitlines():
            record = json.loads(line)
            if "start" in record:
                started = record["start"]
            else:
                results[record["name"]] = record
                started = None
        if done.returncode != 0:
            if started is None:     # (it died before the first case: the preamble)
                raise AssertionError(f"the child failed (exit {done.returncode}): {done.stderr[-2000:]}")
            results[started] = {"name": started, "raised": f"crash (exit {done.returncode})",
                                "message": done.stderr[-2000:]}
        todo = [(name, call) for name, call in todo if name not in results]
    return results


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "python -O"])
def outcomes(request):
    return run_cases(request.param)


@pytest.mark.parametrize("name, call, kind, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused(outcomes, name, call, kind, pattern):
    got = outcomes[name]
    assert got["raised"] == kind, f"{call}: {got['raised']}: {got['message']}"
    assert re.search(pattern, got["message"]), f"{call}: {got['message']!r}"


def test_the_bound_is_inclusive_and_shared():
    """MAX_JOBS threads are accepted (the bound is the CLI's --jobs range too)."""
    from solver import Subspace
    from solver.cli.common import jobs_option
    from solver.kernels import MAX_JOBS

    assert Subspace(3, 3).count_real(MAX_JOBS) == Subspace(3, 3).count_real(1)
    option = jobs_option(lambda jobs: None).__click_params__[0]
    assert (option.type.min, option.type.max) == (1, MAX_JOBS)
