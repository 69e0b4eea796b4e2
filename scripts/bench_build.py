#!/usr/bin/env python3
"""Benchmark of the moving-phase build: per pair, slots per second and peak memory.

Usage: python scripts/bench_build.py [--max-total 10] [--jobs 2] [--db DIR] [--rules standard]
       python scripts/bench_build.py --phase rule --db DIR [--max-total N] [--quiet-limit 50]

Builds into a fresh temporary folder (or --db) and prints one line per pair and a
total.  Slots are counted (a few per cent are slack); peak memory is the process's
maximum resident set size so far.  With ``--phase rule`` it builds the moving pairs'
tables of the quiet-ply rule in --db, which must hold the plain pairs (pair files of
the rule already there are skipped: remove those to be timed), with each pair's
forward check of its roundings and how many solves it took.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_model
from solver import dtz
from solver.build import BuildLock, build, prepare_folder
from solver.game import QUIET_PLY_LIMIT, check_quiet_limit
from solver.rules import Rules


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-total", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--db", default=None, help="build here (default: a temporary folder)")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--phase", choices=["moving", "rule"], default="moving")
    ap.add_argument("--quiet-limit", type=int, default=QUIET_PLY_LIMIT)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    if args.phase == "rule":
        if args.db is None:
            ap.error("--phase rule needs --db: a folder with the plain pairs built")
        return rule_pairs(Path(args.db), rules, args)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; jobs={args.jobs}; rules={rules.name}; "
          f"max total={args.max_total}; verify={not args.no_verify}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.db or tmp)
        start = time.perf_counter()
        reports = build(root, rules, phase="moving", max_total=args.max_total, jobs=args.jobs,
                        verify=not args.no_verify, progress=False)
        wall = time.perf_counter() - start
        print(f"{'pair':>5} {'slots':>13} {'seconds':>8} {'solve s':>8} {'check s':>8} "
              f"{'M slots/s':>9} {'rounds':>6} {'peak MiB':>9}")
        for r in reports:
            print(f"{r.pair[0]}-{r.pair[1]:<3} {r.slots:>13,} {r.seconds:>8.1f} {r.solve_seconds:>8.1f} "
                  f"{r.check_seconds:>8.1f} {r.slots_per_second / 1e6:>9.2f} {r.rounds:>6} "
                  f"{r.peak_rss_mib:>9.0f}")
        total = sum(r.slots for r in reports)
        disk = sum(f.stat().st_size for f in root.rglob("*.h5"))
        print(f"total: {total:,} slots in {wall:.1f} s wall ({total / wall / 1e6:.2f} M slots/s), "
              f"peak memory {max(r.peak_rss_mib for r in reports):.0f} MiB, {disk / 2**20:.1f} MiB on disk")
    return 0


def rule_pairs(root: Path, rules: Rules, args) -> int:
    """The moving pairs' tables of the quiet-ply rule, a pair at a time (no placement
    phase: it needs the plain placement files)."""
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; jobs={args.jobs}; rules={rules.name}; "
          f"max total={args.max_total}; verify={not args.no_verify}; quiet limit={args.quiet_limit}")
    print(f"{'pair':>5} {'slots':>13} {'seconds':>8} {'check s':>8} {'solves':>6} {'peak MiB':>9}")
    dtz.check_rules(rules)
    check_quiet_limit(args.quiet_limit)
    start = time.perf_counter()
    built = []
    # (a unit a pair, in build order: each reads the pairs before it, built or found)
    with BuildLock(prepare_folder(root, rules)):
        for pair in dtz.plan(rules, args.max_total)[0]:
            for r in dtz.build_unit(root, rules, args.quiet_limit, pair, jobs=args.jobs,
                                    verify=not args.no_verify):
                if r.skipped:
                    print(f"{pair.name:>5} skipped: its file of the rule is there")
                    continue
                built.append(r)
                print(f"{pair.name:>5} {r.slots:>13,} {r.seconds:>8.1f} {r.check_seconds:>8.1f} {r.solves:>6} "
                      f"{r.peak_rss_mib:>9.0f}", flush=True)
    wall = time.perf_counter() - start
    print(f"total: {sum(r.slots for r in built):,} slots built in {wall:.1f} s wall, checks "
          f"{sum(r.check_seconds for r in built):.1f} s, peak memory "
          f"{max((r.peak_rss_mib for r in built), default=0):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
