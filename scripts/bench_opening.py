#!/usr/bin/env python3
"""Time the opening search on the start position of an N-stone game.

Usage: python scripts/bench_opening.py --db /tmp/dbs5 --stones 5 [--table-bits 24] [--repeat 3]

The moving-phase databases must exist (muehle build --db DIR --stones N).  Prints the
time to load the 2-bit leaf views (read from the files block by block), then, with the
views loaded, the best of --repeat searches from an empty transposition table: value,
nodes, seconds, nodes per second, and the memory held (table + views).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from solver.notation import parse_position
from solver.opening import OpeningSearch
from solver.probe import open_database
from solver.rules import Rules


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--stones", type=int, default=9)
    ap.add_argument("--table-bits", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rules = Rules(stones=args.stones)
    start = parse_position("startpos", rules)
    with open_database(args.db, rules) as db:
        search = OpeningSearch(rules, wdl=db.wdl, table_bits=args.table_bits)
        t = time.perf_counter()
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
