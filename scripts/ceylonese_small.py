"""Solve small versions of Ceylonese mill with the kernel-free pass over its reference
(solver.verify.retrograde.solve_ceylonese) and print each start position's value: the
figures of docs/results.md, "Ceylonese mill".

    python scripts/ceylonese_small.py six-mens-s3 six-mens-s4 ...

Each argument is a rule set name (solver.rules.Rules.from_name), optionally followed by
':' and a Ceylonese rule name (``ceylonese-open4``, ``ceylonese-no-extra``).  Every
position is a Python object: a few minutes and about 2 GB for four stones a side.
"""

from __future__ import annotations

import collections
import resource
import sys
import time

from solver.ceylonese import CeylonRule, start
from solver.rules import Rules
from solver.verify.retrograde import solve_ceylonese


def describe(code: int) -> str:
    if code == 0:
        return "draw"
    turns = code - 1
    return f"{'win' if turns % 2 else 'loss'} in {turns} turns"


def main(names: list[str]) -> None:
    games = []
    for name in names:                 # (every name read before any game is solved)
        rules_name, _, rule_name = name.partition(":")
        games.append((Rules.from_name(rules_name), CeylonRule.from_name(rule_name or "ceylonese")))
    print("| rules | Ceylonese rule | positions | start (White to place) | wins | losses | draws | longest | seconds |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for rules, rule in games:
        t = time.perf_counter()
        values = solve_ceylonese(rules, rule)
        seconds = time.perf_counter() - t
        first = start(rules)
        counts = collections.Counter("draw" if c == 0 else "win" if (c - 1) % 2 else "loss"
                                     for c in values.values())
        print(f"| {rules.name} | {rule.name} | {len(values):,} | "
              f"{describe(values[(first.own, first.opp, first.own_hand, first.opp_hand)])} | "
              f"{counts['win']:,} | {counts['loss']:,} | {counts['draw']:,} | {max(values.values()) - 1} | "
              f"{seconds:.0f} |", flush=True)
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB", file=sys.stderr)


if __name__ == "__main__":
    try:
        main(sys.argv[1:] or ["six-mens-s3"])
    except ValueError as exc:          # (a rule set or Ceylonese rule it does not know)
        sys.exit(f"error: {exc}")
