#!/usr/bin/env python3
"""Time the opening search on the start position of an N-stone game.

Usage: python scripts/bench_opening.py --db /tmp/dbs5 --stones 5 [--table-bits 24] [--repeat 3]
       python scripts/bench_opening.py --synthetic SECONDS [--stones 9]

The moving-phase databases must exist (muehle build --db DIR --stones N).  Prints the
time to load the 2-bit leaf views (read from the files block by block), then, with the
views loaded, the best of --repeat searches from an empty transposition table: value,
nodes, seconds, nodes per second, and the memory held (table + views).

--synthetic measures speed only, without databases: the leaf views are random (each
slot a draw with probability 5/8, else a win or a loss), made when the search first
needs them, at the real sizes (so leaf reads miss the caches as in the real search).
The search runs for at most SECONDS and the node rate is sampled; its value means nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from solver.position import parse_position
from solver.opening import OpeningSearch
from solver.probe import open_database
from solver.rules import Rules


def synthetic(rules: Rules, seconds: float, table_bits: int) -> None:
    from solver import _kernels, wdl

    rng = np.random.default_rng(1)
    lut = np.array([sum((((b >> 2 * j) & 3) % 3) << 2 * j for j in range(4)) for b in range(256)],
                   dtype=np.uint8)            # field 3 (slack) becomes 0 (draw)
    made = []

    def view(m, o):
        t = time.perf_counter()
        n = wdl.packed_size(_kernels.subspace_slots(m, o))
        v = lut[rng.integers(0, 256, n, dtype=np.uint8) & rng.integers(0, 256, n, dtype=np.uint8)]
        made.append(time.perf_counter() - t)
        return v

    search = OpeningSearch(rules, wdl=view, table_bits=table_bits)
    result = []
    worker = threading.Thread(target=lambda: result.append(search.solve(parse_position("startpos", rules))),
                              daemon=True)
    worker.start()
    t0 = time.perf_counter()
    last_n, last_t, last_views = 0, t0, 0
    while time.perf_counter() - t0 < seconds and worker.is_alive():
        worker.join(5)
        n, t, views = search.engine.nodes, time.perf_counter(), len(made)
        note = f" (made {views - last_views} views meanwhile)" if views > last_views else ""
        print(f"  {t - t0:6.1f} s: {n:,} nodes, {(n - last_n) / (t - last_t) / 1e6:.2f} M nodes/s"
              f"{note}; {views} views ({search.engine.view_bytes / 2**30:.2f} GiB, "
              f"{sum(made):.1f} s to make)", flush=True)
        last_n, last_t, last_views = n, t, views
    if result:
        print(f"finished: {result[0]} (value of random leaves: meaningless), "
              f"{search.engine.table_used():,} table entries used")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    os._exit(0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db")
    ap.add_argument("--synthetic", type=float, default=None, metavar="SECONDS")
    ap.add_argument("--stones", type=int, default=9)
    ap.add_argument("--table-bits", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rules = Rules(stones=args.stones)
    start = parse_position("startpos", rules)
    if args.synthetic is not None:
        return synthetic(rules, args.synthetic, args.table_bits)
    with open_database(args.db, rules) as db:
        search = OpeningSearch(rules, wdl=db.wdl, table_bits=args.table_bits)
        first = search.solve(start)
        print(f"{rules.name}: first search {first.value}, {first.nodes:,} nodes, "
              f"{first.seconds:.2f} s, of which loading {len(search.engine.loaded_views())} "
              f"views {first.load_seconds:.2f} s ({search.engine.view_bytes / 2**20:.1f} MiB)")
        best = None
        for _ in range(args.repeat):
            search.engine.clear()
            r = search.solve(start)
            best = r if best is None or r.seconds < best.seconds else best
        used = search.engine.table_used()
        print(f"  views loaded, empty table: {best.value}, {best.nodes:,} nodes in "
              f"{best.seconds:.3f} s = {best.nodes / best.seconds / 1e6:.2f} M nodes/s; "
              f"table 2^{args.table_bits} entries ({search.engine.table_bytes / 2**20:.0f} MiB), "
              f"{used:,} used; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
              f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
