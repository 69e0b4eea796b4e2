#!/usr/bin/env python3
"""Benchmark of the placement phase: a real build, or an estimate from sampled passes.

Usage:
  python scripts/bench_placement.py build --stones 6 [--db DIR] [--jobs 2]
  python scripts/bench_placement.py sample --stones 9 [--blocks 4] [--block 4096]
  python scripts/bench_placement.py check --stones 9 --db DIR --subspace 7-6+1-0 [--subspace ...]

``build`` builds the moving phase (if not there) and then the placement phase of the
game into --db (default a temporary folder) and prints, per hand level, slots, wall and
CPU seconds, and the peak memory, then the totals and the disk use.

Probing the built files (query, probe, perfect play): ``scripts/bench_query.py``.

``sample`` builds nothing: for every placement subspace of the game it runs the compiled
pass (one thread) over ``--blocks`` ranges of about ``--block`` positions (at least one
representative set of the opponent's stones, by which the pass goes) spread over the
subspace, with children filled with random codes (the work per slot does not depend on
the values, only the memory it touches: children of the real sizes), and extrapolates
CPU time per slot to the whole subspace.  The sum is an ESTIMATE of the placement
phase's CPU time; divided by the cores it estimates the wall time of a quiet machine.

``check`` times the two walks of the forward check (``muehle check --phase placement``)
on stored files of --db: in slot order (``placement_pass`` with ``check``) and by the
opponent's sets (``retro_check_grouped``, what the check runs), alternately, twice each.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from machine import cpu_model
from solver import _kernels, placement
from solver.build import PlacementReport, build, peak_rss_mib
from solver.errors import DatabaseError
from solver.retro import CHECK_BLOCK, NO_CODES
from solver.rules import Rules
from solver.values import SLACK_CODE


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_build(rules: Rules, root: Path, jobs: int) -> None:
    start = time.perf_counter()
    moving = build(root, rules, phase="moving", jobs=jobs, progress=False)
    moving_wall = time.perf_counter() - start
    print(f"moving phase: {sum(r.slots for r in moving):,} slots, {moving_wall:.1f} s wall "
          f"({sum(r.skipped for r in moving)} of {len(moving)} pairs already built)")
    start = time.perf_counter()
    reports = [r for r in build(root, rules, phase="placement", jobs=jobs, progress=False)
               if isinstance(r, PlacementReport)]
    wall = time.perf_counter() - start
    levels: dict = {}
    for r in reports:
        key = (r.subspace.own_hand, r.subspace.opp_hand)
        slots, secs, cpu = levels.get(key, (0, 0.0, 0.0))
        levels[key] = (slots + r.slots, secs + r.seconds, cpu + r.cpu_seconds)
    print(f"{'hands':>6} {'slots':>14} {'wall s':>8} {'CPU s':>8} {'M slots/s':>10}")
    for (h, k), (slots, secs, cpu) in levels.items():
        print(f"{h}-{k:<4} {slots:>14,} {secs:>8.1f} {cpu:>8.1f} {slots / max(secs, 1e-9) / 1e6:>10.2f}")
    total = sum(r.slots for r in reports)
    cpu = sum(r.cpu_seconds for r in reports)
    disk = sum(f.stat().st_size for f in root.rglob("place-*.h5"))
    print(f"placement phase: {len(reports)} subspaces, {total:,} slots in {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU ({total / wall / 1e6:.2f} M slots/s wall, {cpu / total * 1e9:.0f} ns CPU a slot), "
          f"peak memory {peak_rss_mib():.0f} MiB, {disk / 2**20:.1f} MiB on disk")


def run_sample(rules: Rules, blocks: int, block: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    subs = placement.plan(rules)
    biggest = max(max(c.slots for c in placement.children(s) if c is not None) for s in subs)
    # two pools of random codes (draws and odd/even plies); children are views of them
    pools = [rng.integers(0, 60, biggest, dtype=np.uint16) for _ in range(2)]
    # the values: written at random slots, so one array, touched once, serves every subspace
    values = np.full(max(s.slots for s in subs), SLACK_CODE, dtype=np.uint16)
    total_slots, total_cpu, rows = 0, 0.0, []
    for sub in subs:
        quiet, capture = placement.children(sub)
        q = pools[0][:quiet.slots]
        c = pools[1][:capture.slots] if capture else NO_CODES
        val = values[:sub.slots]
        # the pass goes by the opponent's representative sets: ranges of them, each
        # about --block positions, spread over all of them
        reps = _kernels.orbit_count(sub.o)
        n = min(reps, max(1, block // math.comb(24 - sub.o, sub.m)))
        starts = np.unique(np.linspace(0, reps - n, blocks).astype(np.int64))
        c0 = cpu_seconds()
        for s in starts:
            _kernels.placement_solve(sub.m, sub.o, sub.own_hand, sub.opp_hand, val, q, c,
                                     rules.flags, int(s), int(s) + n, 1)
        per_rep = (cpu_seconds() - c0) / (n * len(starts))
        per_slot = per_rep * reps / sub.slots
        total_slots += sub.slots
        total_cpu += per_slot * sub.slots
        rows.append((sub.name, sub.slots, per_slot))
    rows.sort(key=lambda r: -r[1] * r[2])
    print(f"{'subspace':>10} {'slots':>13} {'ns CPU/slot':>11} {'est. CPU s':>10}   (the 8 costliest)")
    for name, slots, per in rows[:8]:
        print(f"{name:>10} {slots:>13,} {per * 1e9:>11.0f} {per * slots:>10.0f}")
    print(f"ESTIMATE for the placement phase of {rules.name}: {len(subs)} subspaces, "
          f"{total_slots:,} slots, {total_cpu:,.0f} s CPU of the pass "
          f"({total_cpu / total_slots * 1e9:.0f} ns a slot), {total_cpu / 2 / 3600:.2f} h wall on 2 "
          f"cores (not counting reading and writing the files)")


def run_check(rules: Rules, root: Path, names: list[str], jobs: int) -> None:
    from solver import storage
    from solver.retro import check_by_opponent_sets

    def read(s):
        return storage.read_subspace(storage.file_of(root, rules, s), rules, s.m, s.o,
                                     verify=True, own_hand=s.own_hand, opp_hand=s.opp_hand)

    by_name = {s.name: s for s in placement.plan(rules)}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        sys.exit(f"bench_placement.py: no placement subspace {', '.join(unknown)} under {rules.name}")
    for name in names:
        sub = by_name[name]
        quiet, capture = placement.children(sub)
        values, q = read(sub), read(quiet)
        cap = read(capture) if capture else NO_CODES
        for walk in ("slot order", "by opponent sets") * 2:
            cpu, wall = cpu_seconds(), time.perf_counter()
            if walk == "slot order":
                ok = all(sub.kernels.placement_pass(
                    sub.m, sub.o, sub.own_hand, sub.opp_hand, values, q, cap, rules.flags,
                    start, min(sub.slots, start + CHECK_BLOCK), True, 16,
                    jobs)[1] == 0 for start in range(0, sub.slots, CHECK_BLOCK))
            else:
                ok = check_by_opponent_sets(sub, values, q, cap, rules, jobs)[1]
            cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
            print(f"{name}: {sub.slots:,} slots, {walk}: {'passed' if ok else 'FAILED'}, "
                  f"{wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / sub.slots * 1e9:.0f} ns a slot)",
                  flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("build", "sample", "check"))
    ap.add_argument("--rules", default="standard", help="a rule set's name (muehle variants)")
    ap.add_argument("--stones", type=int, default=6, help="stones a side")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--db", default=None, help="build here (default: a temporary folder)")
    ap.add_argument("--blocks", type=int, default=4, help="sample: ranges per subspace")
    ap.add_argument("--block", type=int, default=4096, help="sample: positions per range (at least one opponent set)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subspace", action="append", default=[], help="check: a placement subspace (m-o+h-k) of --db")
    args = ap.parse_args()
    rules = replace(Rules.from_name(args.rules), stones=args.stones)   # every option carries over
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; jobs={args.jobs}; rules={rules.name}; mode={args.mode}")
    if args.mode == "check":
        if not args.db or not args.subspace:
            ap.error("check needs --db and at least one --subspace")
        try:
            run_check(rules, Path(args.db), args.subspace, args.jobs)
        except DatabaseError as exc:
            sys.exit(f"bench_placement.py: {exc}")
        return 0
    if args.mode == "sample":
        run_sample(rules, args.blocks, args.block, args.seed)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        run_build(rules, Path(args.db or tmp), args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
