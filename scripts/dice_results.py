#!/usr/bin/env python3
"""Dice mill's start values (docs/results.md, "Dice mill"): for each rule set named,
build (or resume) its plain moving phase and its dice tables under each throw rule
named, then print one Markdown row a pair: the start position's expected result for
White before its first throw, the plain start value beside it, the files' bytes and
the build's seconds.

    python scripts/dice_results.py --db /tmp/dice-db five-mens six-mens seven-mens \\
        --dice triple double sum14 sum10 triple-no-take
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import dice_tables                      # noqa: E402
from solver.build import build                       # noqa: E402
from solver.dice import DiceRule                      # noqa: E402
from solver.position import parse_position            # noqa: E402
from solver.probe import Database                      # noqa: E402
from solver.rules import Rules                         # noqa: E402


def plain_start(root, rules):
    """The plain start value: from the placement files where built, else the opening search."""
    with Database(root, rules) as db:
        return str(db.probe(parse_position("startpos", rules)).wdl)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rules", nargs="+", help="rule set names (muehle variants)")
    ap.add_argument("--db", required=True, help="database folder (outside the repository)")
    ap.add_argument("--dice", nargs="+", default=["triple"], help="throw rules")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    print("| rules | dice rule | P(power) | White's win | draw | loss | expected score | plain value "
          "| dice files | build s |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for name in args.rules:
        rules = Rules.from_name(name)
        build(args.db, rules, phase="moving", jobs=args.jobs, progress=False)
        plain = plain_start(args.db, rules)
        for text in args.dice:
            dice = DiceRule.from_name(text)
            started = time.perf_counter()
            dice_tables.build(args.db, rules, dice, jobs=args.jobs)
            seconds = time.perf_counter() - started
            size = sum(dice_tables.dice_path(args.db, rules, s, dice).stat().st_size
                       for s in dice_tables.plan(rules))
            with dice_tables.DiceTables(args.db, rules, dice) as tables:
                w, n = tables.fixed("startpos")
                e = tables.probe("startpos")
            print(f"| {name} | {dice.name} | {dice.num}/216 | {w / 65535:.4%} | {(n - w) / 65535:.4%} "
                  f"| {(65535 - n) / 65535:.4%} | {(w + n) / 2 / 65535:.5f} | {plain} | {size:,} B "
                  f"| {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
