#!/usr/bin/env python3
"""How many wins of the moving phase the draw rule of played games takes away: the
plies to the next mill (a take, or the end of the game) under best play, per pair.

Usage: python scripts/mill_distance.py DB [PAIR ...] [--rules standard] [--jobs 2]
                                           [--limit 50] [--json]

For each pair (default: every built pair of the rules, smallest first) the pair is
solved again by the compiled kernels with every capture leading to an end: the
captures' targets are read from DB and keep only win, draw or loss (a win in 1 or a
loss in 0), so that the plies a solve gives are the plies to the next take, the
winner hurrying to a take that keeps the win and the loser delaying it, as chess's
DTZ tables count them.  It checks the result by the build's forward check (with the
same ends) and that every position keeps its win, draw or loss, and prints per subspace: the wins, the longest win by the databases (plies to the end)
and by the next take, the wins whose next take lies more than ``--limit`` plies away
even under best play (a played game from a fresh count of quiet plies draws them by
the rule: solver.game.QUIET_PLY_LIMIT), the wins whose end does, and the losses that
the rule saves so.  Nothing is written; the solve needs the pair's memory as a build
does (docs/benchmarks.md), the figures about as much again.

A code holds no win in 0, so a take into a position the taker has lost counts as a
loss in 2, not 1: where the losing side has nothing but such takes, its plies (and
the winner's before them) count one more than they are.  The losing side takes only
where it must, so this touches few positions, and only at the limit can it move one
between the columns.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.game import QUIET_PLY_LIMIT  # noqa: E402
from solver.index import Pair  # noqa: E402
from solver.probe import open_database  # noqa: E402
from solver.retro import check_by_opponent_sets, outside, pairs_in_order, solve_pair  # noqa: E402
from solver.rules import Rules  # noqa: E402
from solver.storage import pair_path  # noqa: E402
from solver.values import DRAW_CODE, SLACK_CODE  # noqa: E402

LOSS_IN_0, WIN_IN_1 = 1, 2          # codes (solver.values: 1 + plies)


def ends_only(codes: np.ndarray) -> np.ndarray:
    """``codes`` with every win a win in 1 and every loss a loss in 0 (draws and slack
    slots as they are): a take is where the count of quiet plies starts again."""
    out = codes.copy()
    decided = (codes != SLACK_CODE) & (codes != DRAW_CODE)
    out[decided & (codes % 2 == 0)] = WIN_IN_1
    out[decided & (codes % 2 == 1)] = LOSS_IN_0
    return out


def targets(db, m: int, o: int, *hands) -> np.ndarray:
    return ends_only(db.subspace(m, o))


def pair_figures(db, rules: Rules, pair: Pair, jobs: int, limit: int) -> list[dict]:
    result = solve_pair(tuple(pair), rules, lambda m, o, *hands: targets(db, m, o), jobs=jobs)
    rows = []
    for sub, to_take in sorted(result.values.items()):
        # the build's forward check, with the same ends: every position's plies follow
        # from its moves' (an independent pass over the successors, docs/design.md §6)
        capture = outside(sub, rules)[0]
        cap = np.zeros(0, dtype=np.uint16) if capture is None else targets(db, capture.m, capture.o)
        _, passed = check_by_opponent_sets(sub, to_take, result.values[sub.mirror], cap, rules, jobs)
        del cap
        if not passed:
            raise SystemExit(f"{sub}: the plies to the next take fail the forward check")
        # (on the uint16 codes, 1 + plies, and boolean masks: a large pair's figures in
        # about the memory of its solve)
        to_end = db.subspace(sub.m, sub.o)
        real = to_end != SLACK_CODE
        if not (np.array_equal(to_take == DRAW_CODE, to_end == DRAW_CODE)
                and np.array_equal(to_take[real] & 1, to_end[real] & 1)):
            raise SystemExit(f"{sub}: the solve to the next take changed a position's win, draw or loss")
        wins = real & (to_end != DRAW_CODE) & (to_end % 2 == 0)
        del real
        losses = (to_end % 2 == 1) & (to_end != SLACK_CODE)
        beyond = limit + 1                      # the code of plies == limit
        n_wins = int(np.count_nonzero(wins))
        rows.append({
            "subspace": str(sub), "wins": n_wins,
            "longest_win": int(to_end[wins].max()) - 1 if n_wins else None,
            "longest_to_take": int(to_take[wins].max()) - 1 if n_wins else None,
            "wins_take_beyond_limit": int(np.count_nonzero(wins & (to_take > beyond))),
            "wins_end_beyond_limit": int(np.count_nonzero(wins & (to_end > beyond))),
            "losses": int(np.count_nonzero(losses)),
            "losses_take_beyond_limit": int(np.count_nonzero(losses & (to_take > beyond))),
            "seconds": round(result.seconds, 1),
        })
        del wins, losses, to_end
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("pairs", nargs="*", help="pairs such as 4-6 (default: every built one)")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=QUIET_PLY_LIMIT,
                        help="quiet plies a played game allows (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="one JSON object per subspace")
    args = parser.parse_args()
    rules = Rules.from_name(args.rules)
    db = open_database(args.db, rules)
    pairs = ([Pair(*map(int, p.split("-")), board=rules.board) for p in args.pairs] if args.pairs
             else [p for p in pairs_in_order(rules) if pair_path(args.db, rules, tuple(p)).exists()])
    if not args.json:
        print(f"{'subspace':>8} {'wins':>14} {'longest':>8} {'to take':>8} "
              f"{'take>' + str(args.limit):>13} {'end>' + str(args.limit):>13} {'losses':>14} "
              f"{'saved':>13}")
    start = time.perf_counter()
    for pair in pairs:
        for row in pair_figures(db, rules, pair, args.jobs, args.limit):
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(f"{row['subspace']:>8} {row['wins']:>14,} {row['longest_win'] or 0:>8} "
                      f"{row['longest_to_take'] or 0:>8} {row['wins_take_beyond_limit']:>13,} "
                      f"{row['wins_end_beyond_limit']:>13,} {row['losses']:>14,} "
                      f"{row['losses_take_beyond_limit']:>13,}", flush=True)
    print(f"{len(pairs)} pair(s) in {time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
