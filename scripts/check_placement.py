#!/usr/bin/env python3
"""Check the placement files against the opening search (an independent solver).

Usage: python scripts/check_placement.py --db DIR [--rules standard] [--stones N]
                                         [--count 10000] [--plies 4 17] [--seed 1]
                                         [--skip N]

Compares the win/draw/loss read from the placement files with the opening search's for
the start position, every position after the first two placements (up to symmetry) and
``--count`` positions reached by random legal games after a number of plies drawn from
``--plies`` (inclusive).  Prints the counts and every disagreement; exit status 1 if any.
The positions come in a fixed order for a given seed, so ``--skip N`` continues a run that
was stopped after N positions (its last progress line says N) without repeating them.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from solver.opening import OpeningSearch, book_key
from solver.placement import random_placements
from solver.position import parse_position
from solver.probe import open_database
from solver.rules import Rules


def opening_positions(rules: Rules) -> list:
    """The start position and every position after the first two placements, up to symmetry."""
    start = parse_position("startpos", rules)
    out, seen = [start], set()
    for first in start.legal_moves(rules):
        after1 = start.play_unchecked(first)
        for second in after1.legal_moves(rules):
            pos = after1.play_unchecked(second)
            if book_key(pos) not in seen:
                seen.add(book_key(pos))
                out.append(pos)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--rules", default="standard", help="a rule set's name (muehle variants)")
    ap.add_argument("--stones", type=int, default=None, help="stones a side (default: the rules')")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--plies", type=int, nargs=2, default=(4, 17))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip", type=int, default=0,
                    help="leave out the first N positions (opening ones first), checked by an earlier run")
    args = ap.parse_args()
    if args.skip < 0 or args.count < 0:
        ap.error("--skip and --count take a number of positions, 0 or more")
    rules = Rules.from_name(args.rules)      # every option of the rule set carries over
    if args.stones is not None:
        rules = replace(rules, stones=args.stones)
    begin = time.perf_counter()
    checked = bad = 0
    with open_database(args.db, rules) as db:
        if not db.has_placement():
            print(f"no placement files for {rules.name} in {args.db}")
            return 1
        search = OpeningSearch(rules, wdl=db.wdl)
        opening = opening_positions(rules)
        positions = opening + list(random_placements(rules, args.count, args.seed, tuple(args.plies)))
        checked = min(args.skip, len(positions))
        for pos in positions[checked:]:
            files = db.probe(pos).value
            searched = search.solve(pos).value
            checked += 1
            if files != searched:
                bad += 1
                print(f"DISAGREE {pos}: files {files}, search {searched}")
            # progress often enough that a run stopped early still says what it covered
            if checked <= len(opening) or checked % 100 == 0:
                print(f"{checked} positions checked ({min(checked, len(opening))} of the "
                      f"{len(opening)} opening ones), {bad} disagreements, "
                      f"{time.perf_counter() - begin:.0f} s", flush=True)
    skipped = f", the first {args.skip} left out" if args.skip else ""
    print(f"{rules.name}: {checked} placement positions{skipped}, {bad} disagreements "
          f"({time.perf_counter() - begin:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
