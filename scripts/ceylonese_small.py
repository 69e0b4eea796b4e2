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


def rule_named(name: str) -> CeylonRule:
    words = name.split("-")
    if words[0] != "ceylonese":
        raise SystemExit(f"not a Ceylonese rule: {name}")
    rule = CeylonRule()
    for w in words[1:]:
        if w.startswith("open") and w[4:].isdigit():
            rule = CeylonRule(int(w[4:]), rule.extra_move)
        elif w in ("no", "extra"):
            rule = CeylonRule(rule.open_points, False)
        else:
            raise SystemExit(f"unknown Ceylonese option {w!r} in {name}")
    return rule


def describe(code: int) -> str:
    if code == 0:
        return "draw"
    turns = code - 1
    return f"{'win' if turns % 2 else 'loss'} in {turns} turns"


def main(names: list[str]) -> None:
    print("| rules | Ceylonese rule | positions | start (White to place) | wins | losses | draws | longest | seconds |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for name in names:
        rules_name, _, rule_name = name.partition(":")
        rules = Rules.from_name(rules_name)
        rule = rule_named(rule_name or "ceylonese")
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
    main(sys.argv[1:] or ["six-mens-s3"])
