#!/usr/bin/env python3
"""Profile of one moving-phase pair by phase: initialisation, rounds, check, write.

Usage: python scripts/profile_pair.py DB PAIR [PAIR ...] [--jobs 2] [--rules standard] [--slot-order] [--rounds]

DB must hold the pairs that PAIR's captures read (e.g. a folder built by
scripts/bench_build.py).  Each phase is timed in wall seconds and in CPU seconds of
the process (all threads), so that the figures mean something on a loaded machine;
the rounds are split into push and pull rounds (solver.retro) and the slowest rounds
are listed (``--rounds``: every round, its frontier, what it decided and how, wall and
CPU seconds).  The check is the build's (grouped by opponent sets); ``--slot-order`` also
times the slot-order check that ``muehle check`` runs.  The pair is written into a temporary folder, not into DB.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from solver import storage
from solver.build import SubspaceCache
from solver.index import Pair
from solver.retro import solve_pair
from solver.rules import Rules
from solver.verify.check import check_values


class Clock:
    """Wall and CPU seconds since the last lap."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        out = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return out


def profile(db: Path, rules: Rules, pair: Pair, jobs: int, slot_order: bool = False,
            every_round: bool = False) -> None:
    cache = SubspaceCache(db, rules)
    for t in pair.capture_targets:          # read before timing: not part of the solve
        cache.get(*t)
    rounds: list[tuple[str, float, float]] = []
    phases = {"init": [0.0, 0.0], "rounds": [0.0, 0.0]}
    clock = Clock()

    def progress(msg: str) -> None:
        wall, cpu = clock.lap()
        if msg.startswith("init"):
            # the message comes before the subspace's init: time since then is the
            # previous init (or nothing); attributed when the first round reports
            phases["init"][0] += wall
            phases["init"][1] += cpu
        else:
            phases["rounds"][0] += wall
            phases["rounds"][1] += cpu
            rounds.append((msg, wall, cpu))

    clock.lap()
    result = solve_pair(pair, rules, cache.get, jobs, progress=progress)
    # the first round's lap holds the last init: split it off by the solver's own figure
    finish_wall, finish_cpu = clock.lap()
    check_wall0, check_cpu0 = time.perf_counter(), time.process_time()
    bad = check_values(pair, rules, result.values, cache.get, jobs, grouped=True)
    check = (time.perf_counter() - check_wall0, time.process_time() - check_cpu0)
    assert not bad, bad[0].describe()
    if slot_order:
        w0, c0 = time.perf_counter(), time.process_time()
        assert not check_values(pair, rules, result.values, cache.get, jobs)
        slot_check = (time.perf_counter() - w0, time.process_time() - c0)
    with tempfile.TemporaryDirectory() as tmp:
        w0, c0 = time.perf_counter(), time.process_time()
        storage.write_file(storage.pair_path(tmp, rules, pair), rules, result.values)
        write = (time.perf_counter() - w0, time.process_time() - c0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    slots = pair.slots
    print(f"pair {pair.name}: {slots:,} slots, {result.rounds} rounds, peak RSS {peak:.0f} MiB")
    print(f"  {'phase':<22} {'wall s':>8} {'CPU s':>8}")
    first = rounds[0] if rounds else ("", 0.0, 0.0)
    print(f"  {'init (+ round 0)':<22} {phases['init'][0] + first[1]:>8.2f} {phases['init'][1] + first[2]:>8.2f}")
    rest = (phases["rounds"][0] - first[1], phases["rounds"][1] - first[2])
    print(f"  {'rounds 1..':<22} {rest[0]:>8.2f} {rest[1]:>8.2f}")
    print(f"  {'finish':<22} {finish_wall:>8.2f} {finish_cpu:>8.2f}")
    print(f"  {'check':<22} {check[0]:>8.2f} {check[1]:>8.2f}")
    if slot_order:
        print(f"  {'(slot-order check)':<22} {slot_check[0]:>8.2f} {slot_check[1]:>8.2f}")
    print(f"  {'write':<22} {write[0]:>8.2f} {write[1]:>8.2f}")
    total_cpu = sum(r[2] for r in rounds) + phases["init"][1] + finish_cpu + check[1] + write[1]
    print(f"  {'total':<22} {'':>8} {total_cpu:>8.2f}  ({slots / total_cpu / 1e6:.2f} M slots per CPU s)")
    print("  slowest rounds (CPU s):", ", ".join(
        f"{m.split(':')[0]} {c:.2f}" + (" pull" if "pull" in m else "")
        for m, w, c in sorted(rounds[1:], key=lambda r: -r[2])[:6]))
    if every_round:
        # rounds into wins (d even) and into losses (d odd) cost differently:
        # the first mostly reach states already won, the second compute counts
        for parity, what in ((0, "into wins (d even)"), (1, "into losses (d odd)")):
            picked = [r for r in rounds[1:] if int(r[0].split()[1].rstrip(":")) % 2 == parity]
            print(f"  rounds {what}: {sum(r[1] for r in picked):.2f} s wall, "
                  f"{sum(r[2] for r in picked):.2f} s CPU")
        for msg, wall, cpu in rounds[1:]:
            print(f"    {msg:<72} {wall:>7.2f} {cpu:>7.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("pairs", nargs="+", help="pairs like 3-7")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--rounds", action="store_true", help="also list every round")
    ap.add_argument("--slot-order", action="store_true",
                    help="also time the slot-order check (muehle check's), outside the total")
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    print(f"load average {os.getloadavg()[0]:.2f}; jobs={args.jobs}")
    for name in args.pairs:
        m, o = map(int, name.split("-"))
        profile(Path(args.db), rules, Pair(m, o), args.jobs, args.slot_order, args.rounds)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
