#!/usr/bin/env python3
"""The plan on paper for large builds (docs/scale.md): task graphs, critical paths and
wall times on N machines of M cores, for the standard whole game, Lasker and Morabaraba.

Usage: python scripts/scale_plan.py [--results docs/results.md] [--placement-rate SLOTS_PER_S]

The task graph of each game is the build's own plan (``solver.build.build_plan``, the
files and what each reads, as ``muehle build --dry-run`` prints them).  Measured input:
the seconds of each standard moving-phase pair on 2 cores, read from the build log in
docs/results.md.  Everything else is an ESTIMATE, printed as such:

- seconds of a file: the plan's estimate (``PlannedFile.seconds``: the measured rates of
  the whole standard moving phase for a solve in rounds, and of the whole standard
  placement phase for a placement pass), divided by a factor for the game's extra moves
  (RATE_FACTOR);
- M cores: a unit takes 2 / M of its 2-core time times 1 / efficiency (printed for an
  ideal 1.0 and a memory-bound 0.5); a machine runs one unit at a time with all cores,
  units go to free machines longest-path-first.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, replace
from pathlib import Path

from solver.build import build_plan
from solver.rules import Rules

MACHINES = (1, 4, 16, 64)
CORES = (2, 16, 64)
EFFICIENCIES = (1.0, 0.5)
#: Rate of each game's units relative to the standard game (ESTIMATES): Morabaraba
#: has 40 instead of 32 edges and 20 instead of 16 mills (more moves per state); Lasker's
#: positions with stones in hand may place or slide.
RATE_FACTOR = {"standard": 1.0, "morabaraba": 0.8, "lasker": 0.6}


@dataclass
class Node:
    key: str           # the file's name in the plan
    needs: tuple
    slots: float
    memory: float      # bytes
    seconds: float     # on 2 cores


def plan_nodes(rules: Rules, factor: float = 1.0, phase: str = "all",
               seconds: dict | None = None, placement_rate: float | None = None) -> list[Node]:
    """The build's plan of ``rules`` as nodes: measured ``seconds`` where given, else the
    plan's estimate (a placement pass at ``placement_rate`` where given) over ``factor``."""
    nodes = []
    for f in build_plan(rules, phase=phase):
        if seconds and f.name in seconds:
            time = seconds[f.name]
        elif placement_rate and not f.rounds:
            time = f.slots / placement_rate / factor
        else:
            time = f.seconds / factor
        nodes.append(Node(f.name, f.needs, f.slots, f.memory, time))
    return nodes


def pair_stones(name: str) -> int:
    """Stones of a moving pair's file, 'pair-8-9' -> 17."""
    return sum(map(int, name[len("pair-"):].split("-")))


def measured_moving(results: Path) -> tuple[dict, float, float]:
    """The 2-core seconds of each standard moving pair as the build logged them in
    ``results``; (seconds by file name, solve rate, rest rate) in slots per second on 2
    cores over the pairs of 15 stones or more (the rest: the forward check and the write)."""
    seconds, solve = {}, {}
    for line in results.read_text().splitlines():
        # (logs before 2026-12-05 said "states" for the slots, without separators)
        found = re.match(r"pair (\d)-(\d): ([\d,]+) (?:states|slots) in ([\d.]+) s .*solve ([\d.]+) s", line)
        if found:
            name = f"pair-{found[1]}-{found[2]}"
            seconds[name], solve[name] = float(found[4]), float(found[5])
    big = [f for f in build_plan(Rules(), phase="moving") if pair_stones(f.name) >= 15]
    slots = sum(f.slots for f in big)
    return (seconds, slots / sum(solve[f.name] for f in big),
            slots / sum(seconds[f.name] - solve[f.name] for f in big))


def ordered(nodes: list[Node]) -> list[Node]:
    """Nodes with every node after those it needs (needs outside ``nodes`` count as built)."""
    keys = {n.key for n in nodes}
    nodes = [replace(n, needs=tuple(d for d in n.needs if d in keys)) for n in nodes]
    by_key, done, out = {n.key: n for n in nodes}, set(), []

    def visit(node: Node) -> None:
        if node.key in done:
            return
        done.add(node.key)
        for need in node.needs:
            visit(by_key[need])
        out.append(node)

    for node in nodes:
        visit(node)
    return out


def levels(nodes: list[Node]) -> dict:
    level = {}
    for n in nodes:
        level[n.key] = 1 + max((level[d] for d in n.needs), default=0)
    return level


def critical_path(nodes: list[Node]) -> tuple[float, list]:
    finish, before = {}, {}
    for n in nodes:
        prev = max(n.needs, key=lambda d: finish[d], default=None)
        finish[n.key] = n.seconds + (finish[prev] if prev else 0.0)
        before[n.key] = prev
    key = max(finish, key=finish.get)
    path = []
    while key is not None:
        path.append(key)
        key = before[key]
    return finish[path[0]], path[::-1]


def schedule(nodes: list[Node], machines: int, cores: int, efficiency: float) -> float:
    """Wall seconds of list scheduling: each machine one unit at a time with all cores,
    ready units longest-remaining-path first."""
    scale = 2 / cores / (efficiency if cores > 2 else 1.0)
    rest, needers = {}, {n.key: [] for n in nodes}
    for n in reversed(nodes):
        rest[n.key] = n.seconds * scale + max((rest[x] for x in needers[n.key]), default=0.0)
        for d in n.needs:
            needers[d].append(n.key)
    waiting = {n.key: len(n.needs) for n in nodes}
    by_key = {n.key: n for n in nodes}
    ready = [k for k, c in waiting.items() if c == 0]
    free = [0.0] * machines
    running: list[tuple[float, tuple]] = []
    now = 0.0
    while ready or running:
        ready.sort(key=lambda k: -rest[k])
        while ready and min(free) <= now:
            i = free.index(min(free))
            key = ready.pop(0)
            end = now + by_key[key].seconds * scale
            free[i] = end
            running.append((end, key))
        running.sort()
        end, key = running.pop(0)
        now = max(now, end)
        for x in needers[key]:
            waiting[x] -= 1
            if waiting[x] == 0:
                ready.append(x)
    return now


def hms(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def report(title: str, nodes: list[Node], estimated: bool, detail: bool = False) -> None:
    tag = " (ESTIMATE)" if estimated else ""
    level = levels(nodes)
    rows = [[n for n in nodes if level[n.key] == lv] for lv in sorted(set(level.values()))]
    print(f"\n## {title}{tag}\n")
    print(f"{len(nodes)} units, {sum(n.slots for n in nodes):.3g} slots, "
          f"{hms(sum(n.seconds for n in nodes))} on 2 cores in all; largest unit "
          f"{max(n.slots for n in nodes):.3g} slots, {max(n.memory for n in nodes) / 2**30:.1f} GiB\n")
    print(f"width per level ({len(rows)} levels): {' '.join(str(len(r)) for r in rows)}\n")
    if detail:
        print("| level | units | slots | largest unit's memory (GiB) | 2-core seconds (sum / largest) |")
        print("|---:|---:|---:|---:|---:|")
        for lv, row in enumerate(rows, 1):
            print(f"| {lv} | {', '.join(n.key for n in row) if len(row) <= 4 else len(row)} | "
                  f"{sum(n.slots for n in row):.3g} | {max(n.memory for n in row) / 2**30:.2f} | "
                  f"{sum(n.seconds for n in row):,.0f} / {max(n.seconds for n in row):,.0f} |")
        print()
    seconds, path = critical_path(nodes)
    print(f"critical path: {len(path)} units, {hms(seconds)} on 2 cores "
          f"({seconds / sum(n.seconds for n in nodes):.0%} of the work), ending "
          f"{' > '.join(path[-6:])}\n")
    print("| machines × cores | " + " | ".join(f"e={e}" for e in EFFICIENCIES) + " |")
    print("|---|" + "---:|" * len(EFFICIENCIES))
    for m in MACHINES:
        for c in CORES:
            print(f"| {m} × {c} | " + " | ".join(hms(schedule(nodes, m, c, e)) for e in EFFICIENCIES) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("docs/results.md"))
    parser.add_argument("--placement-rate", type=float, default=None, metavar="SLOTS_PER_S",
                        help="2-core rate of a placement pass (default: the plan's, "
                             "solver.build.PLACEMENT_RATE)")
    args = parser.parse_args()
    measured, solve_rate, rest_rate = measured_moving(args.results)
    moving = plan_nodes(Rules(), phase="moving", seconds=measured)
    big = [n for n in moving if pair_stones(n.key) >= 15]
    print(f"measured on 2 cores (pairs of 15+ stones): retrograde solve {solve_rate / 1e6:.2f} M slots/s, "
          f"forward check + write {rest_rate / 1e6:.2f} M slots/s; whole pair "
          f"{sum(n.slots for n in big) / sum(n.seconds for n in big) / 1e6:.2f} M slots/s")
    report("Standard, moving phase (measured times)", moving, estimated=False, detail=True)
    rate = args.placement_rate
    whole = plan_nodes(Rules(), seconds=measured, placement_rate=rate)
    report("Standard, placement phase (after the moving phase)",
           ordered([n for n in whole if not n.key.startswith("pair-")]), estimated=True, detail=True)
    report("Standard, whole game", whole, estimated=True)
    f = RATE_FACTOR["morabaraba"]
    morabaraba = Rules.from_name("morabaraba")
    report("Morabaraba, moving phase", plan_nodes(morabaraba, f, phase="moving"), estimated=True)
    report("Morabaraba, whole game", plan_nodes(morabaraba, f, placement_rate=rate), estimated=True)
    report("Lasker, whole game", plan_nodes(Rules.from_name("lasker"), RATE_FACTOR["lasker"]),
           estimated=True)


if __name__ == "__main__":
    main()
