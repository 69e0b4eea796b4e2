#!/usr/bin/env python3
"""Perfect play under the quiet-ply rule, checked by playing: from sampled positions of
the moving phase, each at a random count of quiet plies, both sides play
``PerfectPlayer`` with the tables of the rule (the winner the nearest winning mill, the
loser the farthest), and every game must end as the tables say at that count.  With
``--level hard`` both sides are ``HardPlayer``, whose search reads the same tables at
each line's count.

Usage: python scripts/rule_play.py DB [--rules standard] [--limit 50] [--games 1000]
                                      [--seed 1] [--pairs 4-5 ...] [--level perfect|hard]

Positions are drawn from the built files of the rule (``muehle build --phase rule``):
a third wins whose DTZ allows a count c ≤ limit − DTZ (c drawn at random there; the
winner must win, within the rule), a third cursed wins and blessed losses at c = 0
(the defender must draw: by the rule's 50 quiet plies, or by a threefold repetition
that the winner of the plain game, with nothing better, walks into), a third losses
under the rule (the defender must lose).  Prints one line a kind and exits 1 if any game ended
otherwise, naming its position, count and result.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import storage  # noqa: E402
from solver.build import plan  # noqa: E402
from solver.game import QUIET_PLY_LIMIT, Game  # noqa: E402
from solver.players import LEVELS  # noqa: E402
from solver.position import Position  # noqa: E402
from solver.probe import open_database  # noqa: E402
from solver.rules import Rules  # noqa: E402
from solver.values import SLACK_CODE  # noqa: E402


def sample(db_root: Path, rules: Rules, limit: int, pairs, rng: random.Random, per_kind: int):
    """(position, slot) lists of each kind: rule wins, cursed wins and blessed losses, rule
    losses; each subspace read once, an equal share of each kind taken from it."""
    kinds = {"win": [], "cursed": [], "loss": []}
    files = [p for p in pairs if storage.rule_path(db_root, rules, p, limit).exists()]
    if not files:
        raise SystemExit(f"no tables of the {limit}-ply rule of rules {rules.name} in {db_root}")
    subs = [(pair, sub) for pair in files for sub in pair.subspaces]
    share = -(-per_kind // len(subs)) + 1
    for pair, sub in rng.sample(subs, len(subs)):
        codes = storage.read_subspace(storage.rule_path(db_root, rules, pair, limit), rules, sub.m, sub.o,
                                      quiet_limit=limit)
        t = codes >> 1
        decided = (codes != 0) & (codes != SLACK_CODE)
        win = decided & (codes % 2 == 0)
        picks = {"win": win & (t <= limit) & (t > 0), "cursed": decided & (t > limit),
                 "loss": decided & ~win & (t <= limit) & (t > 0)}
        del codes, t, decided, win
        for kind, pick in picks.items():
            slots = np.flatnonzero(pick)
            for slot in rng.sample(list(slots), min(len(slots), share)) if len(slots) < 10**6 else \
                    [int(slots[i]) for i in rng.sample(range(len(slots)), share)]:
                kinds[kind].append((Position.from_view(*sub.position(int(slot)), board=rules.board), slot))
        del picks
    return {kind: rng.sample(found, min(per_kind, len(found))) for kind, found in kinds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--limit", type=int, default=QUIET_PLY_LIMIT)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", nargs="*", help="pairs to sample from, e.g. 4-5 6-4 (default: all built)")
    parser.add_argument("--level", choices=("perfect", "hard"), default="perfect", help="both sides' player")
    args = parser.parse_args()
    rules = Rules.from_name(args.rules)
    rng = random.Random(args.seed)
    pairs = plan(rules)
    if args.pairs:
        wanted = {tuple(sorted(map(int, p.split("-")))) for p in args.pairs}
        pairs = [p for p in pairs if tuple(p) in wanted]
    db = open_database(args.db, rules, quiet_limit=args.limit)
    player = LEVELS[args.level](rules, random.Random(args.seed), database=db)
    kinds = sample(Path(args.db), rules, args.limit, pairs, rng, args.games // 3)
    failed = 0
    start = time.perf_counter()
    for kind, found in kinds.items():
        results: dict[str, int] = {}
        plies = 0
        for pos, _ in found:
            value = db.probe_rule(pos)
            count = rng.randint(0, args.limit - value.dtz) if kind in ("win", "loss") else 0
            expected = value.at(count)
            game = Game(pos, rules, args.limit, count)
            while game.outcome() is None:
                game.play(player.choose(game))
            outcome = game.outcome()
            got = outcome.value_for(pos.turn)
            plies += len(game)
            key = f"{got} ({outcome.termination})"
            results[key] = results.get(key, 0) + 1
            if got != expected:
                failed += 1
                print(f"FAILED: {pos} after {count} quiet plies: {value} says {expected}, the game: {outcome}",
                      flush=True)
        print(f"{kind:>6}: {len(found)} games, {plies} plies, results for the side to move: "
              + ", ".join(f"{k} {v}" for k, v in sorted(results.items())), flush=True)
    print(f"{sum(len(f) for f in kinds.values())} games in {time.perf_counter() - start:.1f} s; "
          f"{failed} not as the tables say", file=sys.stderr)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
