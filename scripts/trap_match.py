"""Measure playing to win (issue 50): ultra (the trap-setting choice) and perfect (the
random tie-break), each against the same opponents on the same seeds, and whether
ultra wins more often (Newcombe's 95 % interval of the difference of win rates).

    python scripts/trap_match.py --db /work/full --games 1000 --hard-games 200 \\
        --opponents fallible:0.02 fallible:0.05 fallible:0.1 fallible:0.2 hard --think 0.1

Prints one line per match as it ends (games, W/D/L, wall seconds, seconds per game) and
then a table: opponent, perfect's and ultra's W/D/L, the win rates' difference with its
interval, and whether the interval excludes equality.  --records DIR keeps every game
(DIR/<player>-vs-<opponent>/game-NNNNN.txt, readable by ``muehle analyze``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver.match import PlayerSpec, Score, difference_interval, play_match  # noqa: E402
from solver.rules import Rules  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--games", type=int, default=1000, help="games per match against each fallible model")
    parser.add_argument("--hard-games", type=int, default=200, help="games per match against hard")
    parser.add_argument("--opponents", nargs="+",
                        default=["fallible:0.02", "fallible:0.05", "fallible:0.1", "fallible:0.2", "hard"])
    parser.add_argument("--players", nargs="+", default=["perfect", "ultra"])
    parser.add_argument("--think", type=float, default=0.1, help="hard's seconds a move")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--records", default=None)
    args = parser.parse_args()
    rules = Rules.from_name(args.rules)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} rules {rules.name}, db {args.db}, jobs {args.jobs}, "
          f"seed {args.seed}, hard thinks {args.think} s; load {os.getloadavg()[0]:.2f}", flush=True)
    table = {}
    for opponent in args.opponents:
        games = args.hard_games if opponent.startswith("hard") else args.games
        for player in args.players:
            start = time.perf_counter()
            score = Score()
            folder = None
            if args.records:
                folder = Path(args.records) / f"{player}-vs-{opponent.replace(':', '')}"
                folder.mkdir(parents=True, exist_ok=True)
            for result in play_match(PlayerSpec.parse(player), PlayerSpec.parse(opponent), games, rules,
                                     args.db, seed=args.seed, jobs=args.jobs, seconds=args.think):
                score = score.add(result.result)
                if folder is not None:
                    (folder / f"game-{result.number:05d}.txt").write_text(result.record)
            wall = time.perf_counter() - start
            table[player, opponent] = score
            print(f"{player} vs {opponent}: {score.wins} W {score.draws} D {score.losses} L in {score.games} "
                  f"games, {wall:.0f} s wall ({wall / score.games:.2f} s a game); "
                  f"{score.describe(player)}; load {os.getloadavg()[0]:.2f}", flush=True)
    if len(args.players) == 2:
        base, trap = args.players
        print(f"\n| opponent | games | {base} W/D/L | {trap} W/D/L | win rate {trap} - {base} [95 %] | "
              f"excludes equality |")
        print("|---|---:|---|---|---|---|")
        for opponent in args.opponents:
            a, b = table[trap, opponent], table[base, opponent]
            d, low, high = difference_interval(a.wins, a.games, b.wins, b.games)
            print(f"| {opponent} | {a.games} | {b.wins}/{b.draws}/{b.losses} | {a.wins}/{a.draws}/{a.losses} | "
                  f"{d:+.1%} [{low:+.1%}, {high:+.1%}] | {'yes' if low > 0 or high < 0 else 'no'} |")


if __name__ == "__main__":
    main()
