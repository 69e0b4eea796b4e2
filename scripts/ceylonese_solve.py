"""Solve Ceylonese mill and print each start position's value: the figures of
docs/results.md, "Ceylonese mill".

    python scripts/ceylonese_solve.py six-mens-s7 seven-mens-s8 standard-s6 ...
    python scripts/ceylonese_solve.py --reference six-mens-s3 ...

Each argument is a rule set name (solver.rules.Rules.from_name), optionally followed by
':' and a Ceylonese rule name (``ceylonese-open4``, ``ceylonese-no-extra``).  By default
the compiled kernels solve every subspace in memory (solver.ceylonese_tables: 2 bytes a
slot, so up to about seven stones a side on the standard board on a 24 GiB machine),
checks them by a second pass (solver.ceylonese_tables.check; the seconds include it),
and the counts are of every position of the tables (real slots: one a symmetry class).
``--reference``: the kernel-free pass over the readable reference
(solver.verify.retrograde.solve_ceylonese), counting the positions a game reaches from
the empty board, every one a Python object (a few minutes and about 2 GB for four
stones a side on the Six Men's board).
"""

from __future__ import annotations

import collections
import resource
import sys
import time

import numpy as np

from solver import ceylonese_tables
from solver.ceylonese import CeylonRule, start
from solver.kernels import kernels_for
from solver.rules import Rules
from solver.values import summarize
from solver.verify.retrograde import solve_ceylonese


def describe(code: int) -> str:
    if code == 0:
        return "draw"
    turns = code - 1
    return f"{'win' if turns % 2 else 'loss'} in {turns} turns"


def by_reference(rules: Rules, rule: CeylonRule) -> tuple[int, collections.Counter, int, int]:
    """The start code, counts and longest over the positions the reference reaches."""
    values = solve_ceylonese(rules, rule)
    first = start(rules)
    counts = collections.Counter("draw" if c == 0 else "win" if (c - 1) % 2 else "loss"
                                 for c in values.values())
    return values[(first.own, first.opp, first.own_hand, first.opp_hand)], counts, len(values), max(values.values())


def by_kernels(rules: Rules, rule: CeylonRule) -> tuple[int, collections.Counter, int, int]:
    """The start code, counts and longest over every real slot of the kernels' tables,
    once the check has passed them (solver.ceylonese_tables.check)."""
    tables = ceylonese_tables.solve(rules, rule, jobs=2)
    bad = ceylonese_tables.check(tables, jobs=2)
    if bad:
        raise SystemExit(f"error: {rules.name} {rule.name}: the check finds positions that disagree "
                         f"with their moves in {', '.join(bad)}")
    start_code = tables.code(start(rules))     # (a one-line error where no game starts)
    hist = sum((kernels_for(rules.board).code_histogram(codes, 2) for codes in tables.codes.values()),
               np.zeros(0x10000, dtype=np.int64))
    info = summarize(hist)                     # (over real slots: the slack code left out)
    counts = collections.Counter(win=info["wins"], loss=info["losses"], draw=info["draws"])
    longest = 1 + max(info["longest_win"], info["longest_loss"])     # (as a code, as by_reference's)
    return start_code, counts, sum(counts.values()), longest


def main(args: list[str]) -> None:
    reference = "--reference" in args
    games = []
    for name in (a for a in args if a != "--reference"):  # (every name read before any game is solved)
        rules_name, _, rule_name = name.partition(":")
        games.append((Rules.from_name(rules_name), CeylonRule.from_name(rule_name or "ceylonese")))
    what = "positions reached" if reference else "positions (tables)"
    print(f"| rules | Ceylonese rule | {what} | start (White to place) | wins | losses | draws | longest | seconds |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for rules, rule in games or [(Rules.from_name("six-mens-s3"), CeylonRule())]:
        t = time.perf_counter()
        code, counts, positions, longest = (by_reference if reference else by_kernels)(rules, rule)
        seconds = time.perf_counter() - t
        print(f"| {rules.name} | {rule.name} | {positions:,} | {describe(code)} | "
              f"{counts['win']:,} | {counts['loss']:,} | {counts['draw']:,} | {max(longest - 1, 0)} | "
              f"{seconds:.1f} |", flush=True)
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB", file=sys.stderr)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ValueError as exc:          # (a rule set or Ceylonese rule it does not know)
        sys.exit(f"error: {exc}")
