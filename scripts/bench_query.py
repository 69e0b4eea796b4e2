#!/usr/bin/env python3
"""Benchmark of answering from the files: query, probe and perfect play from the start.

Usage:
  python scripts/bench_query.py --db DIR [--rules standard] [--stones N]
                                [--count 2000] [--games 4] [--repeat 7] [--seed 1]

Works on any built database folder (the whole game of the rules: moving and placement
phase) and prints, beside wall time, the CPU time of the process (this machine is
shared; CPU seconds are the steadier figure):

- start-up: ``python -m solver query --json startpos`` as a whole process (imports, the
  files opened, the answer printed), and ``import solver.cli`` alone, best of --repeat;
- query: ``query_object`` (what ``muehle query --json`` and the browser's API print: the
  value and plies of the start position and of every move) with ``json.dumps``, in a
  fresh Database (files opened, chunks read and verified), then warm, best and median
  of --repeat;
- probe: ``Database.probe`` of --count placement positions from random games (1 to
  2n - 1 placements), cold (first touch of their chunks) and warm (again), per probe;
- play: --games games from the start in which the perfect player (``muehle play
  --level perfect``: the database opened as ``play`` opens it) plays one colour and
  random legal moves the other (colours alternate); every computer move timed, the first
  in a fresh Database (its first after start-up); and ``muehle play --level perfect
  --color black`` as a whole process that makes White's first move and quits.

Targets (issue 12, docs/benchmarks.md): query warm <= 50 ms, a warm probe <= 100 us,
every computer move <= 0.2 s including the first after start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent     # this checkout: its package, here and in children
sys.path.insert(0, str(ROOT))

from machine import cpu_model  # noqa: E402
from solver.analysis import query_object  # noqa: E402
from solver.cli.games import open_optional_database  # noqa: E402
from solver.game import Game  # noqa: E402
from solver.placement import random_placements  # noqa: E402
from solver.players import make_player  # noqa: E402
from solver.position import parse_position  # noqa: E402
from solver.probe import open_database  # noqa: E402
from solver.rules import Rules  # noqa: E402


def timed(work) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result) of ``work()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def process(argv: list[str], stdin: str = "", repeat: int = 1) -> tuple[float, float]:
    """Best wall and best CPU seconds (user + system) of a child process over ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed: {done.stderr.strip()[-300:]}")
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def bench_startup(db: Path, rules: Rules, repeat: int) -> None:
    where = ["--db", str(db), "--rules", rules.name]
    wall, cpu = process([sys.executable, "-c", "import solver.cli"], repeat=repeat)
    print(f"start-up: import solver.cli {ms(wall)} wall, {ms(cpu)} CPU (best of {repeat})")
    wall, cpu = process([sys.executable, "-m", "solver", "query", "--json", "startpos", *where],
                        repeat=repeat)
    print(f"start-up: muehle query --json startpos, whole process {ms(wall)} wall, "
          f"{ms(cpu)} CPU (best of {repeat})")
    wall, cpu = process([sys.executable, "-m", "solver", "play", "--level", "perfect", "--color",
                         "black", "--seed", "1", *where], stdin="quit\n", repeat=repeat)
    print(f"start-up: muehle play --level perfect --color black (White's first move, quit), "
          f"whole process {ms(wall)} wall, {ms(cpu)} CPU (best of {repeat})")


def bench_query(db: Path, rules: Rules, repeat: int) -> None:
    start = parse_position("startpos", rules)
    with open_database(db, rules) as database:
        wall, cpu, text = timed(lambda: json.dumps(query_object(database, start)))
        warm = [timed(lambda: json.dumps(query_object(database, start)))[:2] for _ in range(repeat)]
        placement_files = database.has_placement()
    answer = json.loads(text)
    values = sorted({(m["value"], m["plies"]) for m in answer["moves"]}, key=str)
    shown = ", ".join(f"{v}" + (f" in {p}" if p is not None else "") for v, p in values[:6])
    print(f"query startpos: {answer['value']}, {len(answer['moves'])} moves ({shown}"
          f"{', ...' if len(values) > 6 else ''}); fresh Database {ms(wall)} wall, {ms(cpu)} CPU; "
          f"warm best {ms(min(w for w, _ in warm))} wall, {ms(min(c for _, c in warm))} CPU, "
          f"median {ms(statistics.median(w for w, _ in warm))} wall")
    if not placement_files:
        print("  (no placement files: the opening search answered, without plies)")


def bench_probe(db: Path, rules: Rules, count: int, seed: int) -> None:
    positions = random_placements(rules, count, seed, plies=(1, 2 * rules.stones - 1))
    with open_database(db, rules) as database:
        probe = database.probe
        cold = timed(lambda: [probe(p) for p in positions])
        warm = min((timed(lambda: [probe(p) for p in positions]) for _ in range(3)),
                   key=lambda t: t[0])
    n = len(positions)
    print(f"probe of {n} placement positions (random games, 1..{2 * rules.stones - 1} "
          f"placements): cold {cold[0] / n * 1e6:.1f} us wall, {cold[1] / n * 1e6:.1f} us CPU "
          f"each; warm {warm[0] / n * 1e6:.1f} us wall, {warm[1] / n * 1e6:.1f} us CPU each "
          f"(best of 3 passes)")


def bench_play(db: Path, rules: Rules, games: int, seed: int) -> None:
    rng = random.Random(seed)
    firsts, placing, moving = [], [], []
    for number in range(games):
        computer = "w" if number % 2 == 0 else "b"
        database, reason = open_optional_database(str(db), rules)
        if database is None:
            sys.exit(f"play: {reason}")
        notes: list[str] = []
        player = make_player("perfect", rules, random.Random(seed + number), database,
                             say=notes.append)
        game, first = Game(None, rules), True
        try:
            while game.outcome() is None:
                pos = game.position
                if pos.turn == computer:
                    wall, cpu, move = timed(lambda: player.choose(game))
                    (placing if pos.in_placement else moving).append((wall, cpu))
                    if first:
                        firsts.append((wall, cpu))
                        first = False
                else:
                    move = rng.choice(game.legal_moves())
                game.play(move)
        finally:
            database.close()
        for note in notes:
            print(f"  note from the player: {note}")
    every = placing + moving
    worst = max(every, key=lambda t: t[0])
    print(f"play --level perfect: {games} games, {len(every)} computer moves "
          f"({len(placing)} placing); first move in a fresh Database: "
          f"{', '.join(ms(w) for w, _ in firsts)} wall ({', '.join(ms(c) for _, c in firsts)} CPU); "
          f"placing: median "
          f"{ms(statistics.median(w for w, _ in placing))}, max {ms(max(w for w, _ in placing))} "
          f"wall; every move: max {ms(worst[0])} wall ({ms(worst[1])} CPU)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="database folder (built by muehle build)")
    ap.add_argument("--rules", default="standard", help="a rule set's name (muehle variants)")
    ap.add_argument("--stones", type=int, default=None, help="stones a side (default: the rules')")
    ap.add_argument("--count", type=int, default=2000, help="probe: placement positions")
    ap.add_argument("--games", type=int, default=4, help="play: games from the start")
    ap.add_argument("--repeat", type=int, default=7, help="runs of the timed processes and queries")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    if args.stones is not None:
        rules = replace(rules, stones=args.stones)
    db = Path(args.db).resolve()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; rules {rules.name}; db {db}")
    bench_startup(db, rules, args.repeat)
    bench_query(db, rules, args.repeat)
    bench_probe(db, rules, args.count, args.seed)
    bench_play(db, rules, args.games, args.seed)
    print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
