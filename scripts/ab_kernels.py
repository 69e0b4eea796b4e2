#!/usr/bin/env python3
"""A/B of two builds of the standard board's kernels in one process, run alternately.

Usage:
    python scripts/ab_kernels.py DB WHAT NAME A.so B.so [--runs 5] [--jobs 2]

WHAT is ``check`` (the build's grouped check of pair NAME, e.g. 4-6), ``solve`` (the
solve of pair NAME: initialisation and rounds), ``init`` (the initialisation of both
subspaces of pair NAME, ``retro_init`` as each build does it by default), ``round``
(one push round: NAME is m-o:d, e.g. 7-5:13, the round d whose frontier lies in m-o,
taken from a solve of the pair by A and replayed, every call of ``retro_round`` it
made, on copies of the arrays as they were before it) or ``placement`` (the pass of
placement subspace NAME, e.g. 6-5+2-3).  DB must hold what NAME reads (a pair's
capture targets, a placement subspace's children; for ``check`` the pair itself).  A.so and B.so are two
builds of ``solver._kernels`` (for example a worktree of the base commit built with
``MUEHLE_BOARDS=standard python setup.py build_ext --inplace``, and this checkout).

Why one process: on a shared machine the speed drifts by 10-20 % within minutes, more
than most single changes gain.  Loading both builds and alternating them run by run (A B,
B A, A B, ...) on the same data in memory exposes both to the same drift; the medians of
CPU seconds (all threads) are then comparable; the wall seconds too, where a change
turns serial work parallel (an idle thread's spinning counts as CPU time).  The results of A and B must agree: a
check must pass, and solves and passes must give the same SHA-256.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import kernels as kernels_module  # noqa: E402
from solver import placement, storage  # noqa: E402
from solver.board import STANDARD_BOARD  # noqa: E402
from solver.build import SubspaceCache  # noqa: E402
from solver.index import Pair, Subspace  # noqa: E402
from solver.retro import solve_pair  # noqa: E402
from solver.rules import Rules  # noqa: E402
from solver.verify.check import check_values  # noqa: E402


def load(path: str):
    """A build of solver._kernels from its file, as a module of its own."""
    spec = importlib.util.spec_from_file_location("solver._kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "retro_floor"):
        # a build from before the counts moved into the codes: its rounds take the
        # separate counts its driver allocated in this place
        module.retro_floor = lambda val, jobs=2: module.retro_counts(len(val))
    if module.retro_due(1)[1].dtype == np.uint8:
        # a build from before the frontier was gathered in threads: one byte a block
        # says whether it holds the frontier, and the gather takes no jobs
        scan = module.retro_scan
        module.retro_scan = lambda val, holds, d, block, out, jobs=2: scan(val, holds, d, block, out)
    return module


class _Taken(Exception):
    """The round to replay has been taken (round_workload stops the solve so)."""


def round_workload(rules: Rules, cache: SubspaceCache, name: str, jobs: int, taker):
    """The push round m-o:d of ``name`` as a function (see ``round`` in the module's
    doc): the solve of the pair by the build ``taker`` is stopped once the round's
    calls of retro_round are copied; the replay returns the SHA-256 of the
    predecessors' codes and due codes after it (the number decided is not compared:
    two threads may both count a win they write)."""
    sub, d = name.split(":")
    m, o = (int(x) for x in sub.split("-"))
    d = int(d)
    taken: dict = {}
    original = taker.retro_round

    def spy(m1, o1, frontier, child, pred, floor, due, d1, *rest):
        if (m1, o1, d1) == (m, o, d):
            if not taken:
                taken.update(child=child.copy(), pred=pred.copy(), floor=floor.copy(),
                             due=due.copy(), rest=rest, fronts=[])
            taken["fronts"].append(np.array(frontier))
        elif taken:
            raise _Taken
        return original(m1, o1, frontier, child, pred, floor, due, d1, *rest)

    kernels_module._LOADED[STANDARD_BOARD.module_suffix] = taker
    taker.retro_round = spy
    try:
        solve_pair(tuple(sorted((m, o))), rules, cache.get, jobs)
    except _Taken:
        pass
    finally:
        taker.retro_round = original
    if not taken:
        sys.exit(f"the solve of pair {min(m, o)}-{max(m, o)} has no push round {d} from {m}-{o}")

    def run():
        kernels = kernels_module.kernels_for(rules.board)
        pred, due = taken["pred"].copy(), taken["due"].copy()
        for frontier in taken["fronts"]:
            kernels.retro_round(m, o, frontier, taken["child"], pred, taken["floor"], due, d,
                                *taken["rest"])
        return storage.sha256_of(pred), storage.sha256_of(due)
    return run


def workload(db: Path, what: str, name: str, jobs: int, taker=None):
    """A function that runs the work once and returns what A and B must agree on."""
    rules = Rules.from_name("standard")
    cache = SubspaceCache(db, rules)
    if what == "round":
        return round_workload(rules, cache, name, jobs, taker)
    if what == "placement":
        sub = Subspace.parse(name)
        for child in placement.reads(sub, rules):
            cache.load(child)
        return lambda: storage.sha256_of(placement.solve(sub, rules, cache.load, jobs))
    pair = Pair.parse(name)
    m, o = pair
    for target in pair.capture_targets:
        cache.get(*target)
    if what == "init":
        work = [(s, cache.get(*s.capture_child) if s.capture_child else np.zeros(0, np.uint16))
                for s in pair.subspaces]

        def run():
            kernels = kernels_module.kernels_for(rules.board)
            out = []
            for s, cap in work:
                val = np.empty(s.slots, dtype=np.uint16)
                kernels.retro_init(s.m, s.o, val, cap, rules.flags, jobs)
                out.append(storage.sha256_of(val))
            return tuple(out)
        return run
    if what == "solve":
        def run():
            result = solve_pair((m, o), rules, cache.get, jobs)
            return tuple(storage.sha256_of(v) for v in result.values.values())
        return run
    values = {s: cache.get(*s) for s in pair.subspaces}
    return lambda: not check_values(pair, rules, values, cache.get, jobs, grouped=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", type=Path)
    ap.add_argument("what", choices=["check", "solve", "init", "round", "placement"])
    ap.add_argument("name")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    builds = {"A": load(args.a), "B": load(args.b)}
    run = workload(args.db, args.what, args.name, args.jobs, builds["A"])
    times: dict[str, list[float]] = {"A": [], "B": []}
    walls: dict[str, list[float]] = {"A": [], "B": []}
    results = set()
    for i in range(args.runs):
        for tag in ("A", "B") if i % 2 == 0 else ("B", "A"):
            kernels_module._LOADED[STANDARD_BOARD.module_suffix] = builds[tag]
            cpu, wall = time.process_time(), time.perf_counter()
            results.add(run())
            times[tag].append(time.process_time() - cpu)
            walls[tag].append(time.perf_counter() - wall)
    if len(results) != 1 or results == {False}:
        sys.exit(f"A and B disagree (or the check failed): {results}")
    for tag, path in (("A", args.a), ("B", args.b)):
        t, w = times[tag], walls[tag]
        print(f"{tag} {args.what} {args.name}: median {statistics.median(t):.2f} CPU s, "
              f"min {min(t):.2f}  ({' '.join(f'{x:.2f}' for x in t)}); median "
              f"{statistics.median(w):.2f} wall s ({' '.join(f'{x:.2f}' for x in w)})  {path}")
    ratio = statistics.median(times["B"]) / statistics.median(times["A"])
    wall_ratio = statistics.median(walls["B"]) / statistics.median(walls["A"])
    print(f"B / A (medians): {ratio:.3f} of the CPU time, {wall_ratio:.3f} of the wall time")


if __name__ == "__main__":
    main()
