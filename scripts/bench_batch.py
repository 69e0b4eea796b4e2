#!/usr/bin/env python3
"""Benchmark of ``muehle query --batch``: positions a second and peak memory.

Usage:
  python scripts/bench_batch.py --db DIR [--rules standard] [--games 1000] [--plies 80]
                                [--seed 1] [--moving] [--keep FILE] [--repeat 1] [--jobs N]

Writes every position of --games random games (random legal moves from the start, at
most --plies plies each; --moving: only the moving phase's positions) to a file, as a
collection of games is analysed, and runs ``python -m solver query --db DIR --batch
FILE [--jobs N]`` on it as a whole process (imports and start-up included), --repeat
times.
Prints the positions, the wall and CPU seconds of each run, positions a second, and
the process's peak resident memory.  --keep FILE keeps the positions there.

Target (issue 51, item 7; docs/benchmarks.md): >= 20,000 positions a second on 2
cores, memory flat in the number of positions.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machine import cpu_model  # noqa: E402
from solver.kernels import kernels_for  # noqa: E402
from solver.notation import format_position  # noqa: E402
from solver.position import Move, parse_position  # noqa: E402
from solver.rules import Rules  # noqa: E402


def game_positions(rules: Rules, games: int, plies: int, seed: int, moving: bool) -> list[str]:
    """Every position of ``games`` random games (the start's too), in play order."""
    rng = random.Random(seed)
    kernels = kernels_for(rules.board)
    lines = []
    for _ in range(games):
        pos = parse_position("startpos", rules)
        for _ in range(plies + 1):
            if not moving or not pos.in_placement:
                lines.append(format_position(pos))
            moves = kernels.moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
            if not moves or pos.terminal_wdl(rules) is not None:
                break
            pos = pos.play_unchecked(Move.unpack(rng.choice(moves), rules.board))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--plies", type=int, default=80)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moving", action="store_true")
    parser.add_argument("--keep", default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None, help="query's --jobs (default: its own)")
    args = parser.parse_args()
    rules = Rules.from_name(args.rules)
    lines = game_positions(rules, args.games, args.plies, args.seed, args.moving)
    path = Path(args.keep) if args.keep else Path(tempfile.mkstemp(suffix=".txt")[1])
    path.write_text("\n".join(lines) + "\n")
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}")
    print(f"{len(lines):,} positions of {args.games} random games ({args.rules}"
          f"{', moving phase only' if args.moving else ''}), {path}; query --jobs "
          f"{args.jobs or 'default'}")
    command = [sys.executable, "-m", "solver", "query", "--db", args.db, "--rules", args.rules,
               "--batch", str(path)] + ([] if args.jobs is None else ["--jobs", str(args.jobs)])
    try:
        for run in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = time.perf_counter() - wall
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            if done.returncode:
                sys.exit(f"query --batch exited {done.returncode}: {done.stderr.decode()[-400:]}")
            print(f"run {run + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, {len(lines) / wall:,.0f} positions/s, "
                  f"peak {after.ru_maxrss / 1024:,.0f} MiB (the largest child so far)")
    finally:
        if not args.keep:
            path.unlink()


if __name__ == "__main__":
    main()
