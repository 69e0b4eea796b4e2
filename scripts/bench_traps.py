"""Time a move of the trap-setting player (ultra) and of perfect, on positions of
games played from the start (every phase), with a warm database.

    python scripts/bench_traps.py --db /work/full --games 20

The games are played by a fallible perfect player (ε = 0.1) so that they reach every
kind of position, drawn ones with traps included; at every position of them both
players choose a move (one UltraPlayer for the whole game, as in play: its
remembered values carry over from move to move).  Before timing, each game's first
position is probed once (the files opened).  Prints, per phase, positions timed, the
median, 95th percentile and largest time of a move of each, and the slowest position.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver.game import Game  # noqa: E402
from solver.players import FalliblePlayer, PerfectPlayer, UltraPlayer  # noqa: E402
from solver.probe import open_database  # noqa: E402
from solver.rules import Rules  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.from_name(args.rules)
    rng = random.Random(args.seed)
    times: dict[str, dict[str, list[float]]] = {"placement": {"perfect": [], "ultra": []},
                                                 "moving": {"perfect": [], "ultra": []}}
    slowest = (0.0, None)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} rules {rules.name}, db {args.db}, {args.games} games, "
          f"seed {args.seed}; load {os.getloadavg()[0]:.2f}", flush=True)
    with open_database(args.db, rules) as db:
        db.probe(Game(rules=rules).position)          # (the files opened: a warm database)
        for _ in range(args.games):
            game = Game(rules=rules)
            driver = FalliblePlayer(rules, random.Random(rng.random()), database=db, epsilon=0.1)
            ultra = UltraPlayer(rules, random.Random(rng.random()), database=db)
            perfect = PerfectPlayer(rules, random.Random(rng.random()), database=db)
            while game.outcome() is None:
                phase = "placement" if game.position.in_placement else "moving"
                for name, player in (("perfect", perfect), ("ultra", ultra)):
                    start = time.perf_counter()
                    player.choose(game)
                    took = time.perf_counter() - start
                    times[phase][name].append(took)
                    if name == "ultra" and took > slowest[0]:
                        slowest = (took, f"{game.position} after {len(game)} plies")
                game.play(driver.choose(game))
    print("| phase | positions | perfect median / p95 / max ms | ultra median / p95 / max ms |")
    print("|---|---:|---|---|")
    for phase, by in times.items():
        if not by["ultra"]:
            continue
        cells = []
        for name in ("perfect", "ultra"):
            t = sorted(by[name])
            p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
            cells.append(f"{statistics.median(t) * 1e3:.1f} / {p95 * 1e3:.1f} / {t[-1] * 1e3:.1f}")
        print(f"| {phase} | {len(by['ultra'])} | {cells[0]} | {cells[1]} |")
    print(f"slowest ultra move: {slowest[0] * 1e3:.1f} ms at {slowest[1]}")


if __name__ == "__main__":
    main()
