#!/usr/bin/env python3
"""Solve smaller games (3..6 stones a side, or the small boards) completely, both ways, and compare.

Usage: python scripts/solve_small_games.py [--rules six-mens] [--stones 4 5 6] [--db data]
       [--jobs 2] [--samples 300]

For each game: build its moving-phase databases (`muehle build --stones N`), solve
every placement position by one backward pass, solve the start position (and sampled
placement positions) by the opening search, and check that the two agree; then build
the placement files (`muehle build --phase placement`) and check that they equal the
backward pass on every placement position, values and plies.  Prints the value of the
start position, the sizes and the times.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import numpy as np

from solver import placement
from solver.build import build, peak_rss_mib
from solver.index import Subspace
from solver.notation import format_position
from solver.opening import OpeningSearch, placement_value, solve_placement
from solver.position import Position, parse_position
from solver.probe import open_database
from solver.rules import Rules


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stones", type=int, nargs="+", default=None,
                    help="stone counts (default: 4 5 for standard, else the variant's)")
    ap.add_argument("--db", default="data")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--rules", default="standard")
    args = ap.parse_args()
    failures = 0
    base = Rules.from_name(args.rules)
    stones = args.stones or ([4, 5] if base.name == "standard" else [base.stones])
    for n in stones:
        rules = replace(base, stones=n)
        t0 = time.perf_counter()
        build(args.db, rules, phase="moving", jobs=args.jobs, progress=False)
        t1 = time.perf_counter()
        db = open_database(args.db, rules, in_memory=True)
        values = solve_placement(rules, db.subspace, jobs=args.jobs)
        t2 = time.perf_counter()
        slots = sum(len(v) for v in values.values())
        start = parse_position("startpos", rules)

        def backward(pos: Position) -> str:
            return placement_value(values, pos)

        search = OpeningSearch(rules, db.subspace)
        result = search.solve(start)
        t3 = time.perf_counter()
        agree = result.value == backward(start)
        # sampled placement positions from every subspace, decided ones included
        rng = np.random.default_rng(n)
        checked = mismatches = 0
        keys = list(values)
        for _ in range(args.samples):
            m, o, hm, ho = keys[rng.integers(len(keys))]
            codes = values[m, o, hm, ho]
            slot = int(rng.integers(len(codes)))
            if codes[slot] == 0xFFFF:
                continue
            pos = Position.from_view(*Subspace(m, o, board=rules.board).position(slot), hm, ho,
                                     board=rules.board)
            if pos.terminal_wdl(rules) is not None:
                continue
            checked += 1
            if search.solve(pos).value != backward(pos):
                mismatches += 1
                print(f"  MISMATCH at {format_position(pos)}")
        t4 = time.perf_counter()
        build(args.db, rules, phase="placement", jobs=args.jobs, progress=False)
        t5 = time.perf_counter()
        differ = [s.name for s in placement.plan(rules)
                  if not np.array_equal(db.subspace(s.m, s.o, s.own_hand, s.opp_hand),
                                        values[s.m, s.o, s.own_hand, s.opp_hand])]
        print(f"{rules.name}: placement files built in {t5 - t4:.1f} s; "
              f"{'equal to the backward pass' if not differ else 'DIFFER in ' + ', '.join(differ)}")
        ok = agree and mismatches == 0 and not differ
        failures += not ok
        print(f"{rules.name}: start position {result.value} (search, {result.nodes:,} nodes, "
              f"{result.seconds:.1f} s) / {backward(start)} (backward pass over {slots:,} placement "
              f"slots, {t2 - t1:.1f} s); moving phase built in {t1 - t0:.1f} s; "
              f"{checked} sampled positions checked in {t4 - t3:.1f} s, {mismatches} mismatches; "
              f"peak memory {peak_rss_mib():.0f} MiB; {'AGREE' if ok else 'DISAGREE'}")
        sys.stdout.flush()
        db.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
