#!/usr/bin/env python3
"""Benchmark of probing: probes per second on random moving-phase positions.

Usage: python scripts/bench_probe.py [--db data] [--rules standard] [--count 20000]

Uses every subspace built under --db (build some first, e.g. `muehle build
--max-total 8`).  Positions are drawn uniformly from the real slots, shown to the
probe in a random symmetric image and colour; the cache is warmed by one pass first.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from solver import storage
from solver.position import Position
from solver.probe import open_database
from solver.retro import pairs_in_order
from solver.rules import Rules


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="data")
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--count", type=int, default=20000)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    subs = [s for p in pairs_in_order(rules) if storage.pair_path(args.db, rules, p).exists()
            for s in p.subspaces]
    if not subs:
        print(f"no databases under {args.db}; build some first", file=sys.stderr)
        return 2
    rng = np.random.default_rng(1)
    pick = random.Random(1)
    positions = []
    for _ in range(args.count):
        sub = subs[rng.integers(len(subs))]
        while True:
            slot = int(rng.integers(sub.slots))
            if sub.is_real(slot):
                break
        pos = Position.from_view(*sub.position(slot)).transform(pick.randrange(16))
        positions.append(pos.swap_colours() if pick.random() < 0.5 else pos)
    print(f"{len(positions):,} random positions from {len(subs)} subspaces under {args.db}")
    for in_memory in (False, True):
        with open_database(args.db, rules, in_memory=in_memory) as db:
            for pos in positions:          # warm-up: open files, fill caches
                db.probe(pos)
            start = time.perf_counter()
            for pos in positions:
                db.probe(pos)
            seconds = time.perf_counter() - start
        mode = "in memory" if in_memory else "from files (chunk cache)"
        print(f"probe, {mode}: {len(positions) / seconds:,.0f} probes/s, "
              f"{seconds / len(positions) * 1e6:.1f} µs each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
