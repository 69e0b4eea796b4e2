#!/usr/bin/env python3
"""The plan on paper for large builds (docs/scale.md): task graphs, critical paths and
wall times on N machines of M cores, for the standard whole game, Lasker and Morabaraba.

Usage: python scripts/scale_plan.py [--results docs/results.md]

Measured input: the seconds of each standard moving-phase pair on 2 cores, read from the
build log in docs/results.md.  Everything else is an ESTIMATE, printed as such:

- slots of a subspace of the other games: C(24, m) * C(24 - m, o) / 16 (raw boards over the
  16 symmetries; for the standard moving phase this gives 8.90e9, the orbit count);
- seconds of a unit: slots / rate, the rate of the standard moving phase as measured
  (retrograde units) or of its forward check (placement passes, one forward pass over
  the slots), times a factor for the game's extra moves (RATE_FACTOR);
- M cores: a unit takes 2 / M of its 2-core time times 1 / efficiency (printed for an
  ideal 1.0 and a memory-bound 0.5); a machine runs one unit at a time with all cores,
  units go to free machines longest-path-first.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, replace
from math import comb
from pathlib import Path

from solver import build as building
from solver.rules import Rules

MACHINES = (1, 4, 16, 64)
CORES = (2, 16, 64)
EFFICIENCIES = (1.0, 0.5)
#: Rate of each game's units relative to the standard moving phase (ESTIMATES): Morabaraba
#: has 40 instead of 32 edges and 20 instead of 16 mills (more moves per state); Lasker's
#: positions with stones in hand may place or slide.
RATE_FACTOR = {"standard": 1.0, "morabaraba": 0.8, "lasker": 0.6}


@dataclass
class Node:
    key: tuple
    needs: tuple
    slots: float
    memory: float      # bytes
    seconds: float     # on 2 cores


def board_slots(m: int, o: int) -> float:
    return comb(24, m) * comb(24 - m, o) / 16


def measured_moving(results: Path) -> tuple[list[Node], float, float]:
    """The standard moving pairs with their measured 2-core seconds; (nodes, solve rate,
    check rate) in slots per second on 2 cores over the pairs of 9 stones or more."""
    seconds, solve = {}, {}
    for line in results.read_text().splitlines():
        found = re.match(r"pair (\d)-(\d): (\d+) states in ([\d.]+) s .*solve ([\d.]+) s", line)
        if found:
            key = (int(found[1]), int(found[2]))
            seconds[key], solve[key] = float(found[4]), float(found[5])
    nodes = [Node(u.key, u.needs, u.slots, u.memory, seconds[u.key])
             for u in building.plan_units(Rules())]
    big = [n for n in nodes if sum(n.key) >= 15]
    slots = sum(n.slots for n in big)
    return (nodes, slots / sum(solve[n.key] for n in big),
            slots / sum(seconds[n.key] - solve[n.key] for n in big))


def pair_of(sub: tuple) -> tuple:
    """The unit a subspace belongs to: it and its mirror, solved together."""
    m, o, h, k = sub
    return min(sub, (o, m, k, h))


def moving_model(stones: int, rate: float) -> list[Node]:
    nodes = []
    for total in range(6, 2 * stones + 1):
        for m in range(3, stones + 1):
            o = total - m
            if m <= o <= stones:
                subs = [(m, o), (o, m)] if m != o else [(m, o)]
                own = sum(board_slots(*s) for s in subs)
                reads = [(b - 1, a) for a, b in subs if b - 1 >= 3]
                needs = tuple({(min(s), max(s)) for s in reads})
                mem = 3 * own + 2 * sum(board_slots(*s) for s in reads)
                nodes.append(Node((m, o), needs, own, mem, own / rate))
    return nodes


def placement_model(stones: int, rate: float, moving_key) -> list[Node]:
    """Placement subspaces m-o+h-k (k = h or h - 1; every board of at most the placed
    stones; no side below three stones with its hand), one node each, as solver.placement."""
    nodes = []
    for level in range(1, 2 * stones + 1):
        h, k = (level + 1) // 2, level // 2
        for m in range(0, stones - h + 1):
            for o in range(0, stones - k + 1):
                if m + h < 3 or o + k < 3 or m + o > 24:
                    continue
                children = [(o, m + 1, k, h - 1)]
                if o >= 1 and o - 1 + k >= 3:
                    children.append((o - 1, m + 1, k, h - 1))
                needs = tuple(moving_key(c) if c[2] == c[3] == 0 else c for c in children)
                slots = board_slots(m, o)
                reads = sum(board_slots(c[0], c[1]) for c in children)
                nodes.append(Node((m, o, h, k), needs, slots, 2 * (2 * slots + reads), slots / rate))
    return nodes


def lasker_model(stones: int, rate: float) -> list[Node]:
    """Lasker: with stones in hand a side places or slides, so m-o+h-k and o-m+k-h form a
    cycle (a unit, solved retrogradely like a moving pair); placements and captures lead
    to units with fewer stones in hand or on the board."""
    units: dict[tuple, list] = {}
    for h in range(stones + 1):
        for k in range(stones + 1):
            for m in range(stones - h + 1):
                for o in range(stones - k + 1):
                    if m + h >= 3 and o + k >= 3:
                        units.setdefault(pair_of((m, o, h, k)), []).append((m, o, h, k))
    nodes = []
    for key, subs in units.items():
        needs = set()
        for m, o, h, k in subs:
            if h:
                needs.add(pair_of((o, m + 1, k, h - 1)))
                if o - 1 + k >= 3:
                    needs.add(pair_of((o - 1, m + 1, k, h - 1)))
            if m and o - 1 + k >= 3:
                needs.add(pair_of((o - 1, m, k, h)))
        needs = tuple(n for n in needs if n in units)
        own = sum(board_slots(s[0], s[1]) for s in subs)
        reads = sum(sum(board_slots(s[0], s[1]) for s in units[n]) for n in needs)
        nodes.append(Node(key, needs, own, 3 * own + 2 * reads, own / rate))
    return ordered(nodes)


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


def name(key: tuple) -> str:
    return "-".join(map(str, key[:2])) + ("+" + "-".join(map(str, key[2:])) if len(key) > 2 else "")


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
            print(f"| {lv} | {', '.join(name(n.key) for n in row) if len(row) <= 4 else len(row)} | "
                  f"{sum(n.slots for n in row):.3g} | {max(n.memory for n in row) / 2**30:.2f} | "
                  f"{sum(n.seconds for n in row):,.0f} / {max(n.seconds for n in row):,.0f} |")
        print()
    seconds, path = critical_path(nodes)
    print(f"critical path: {len(path)} units, {hms(seconds)} on 2 cores "
          f"({seconds / sum(n.seconds for n in nodes):.0%} of the work), ending "
          f"{' > '.join(name(k) for k in path[-6:])}\n")
    print("| machines × cores | " + " | ".join(f"e={e}" for e in EFFICIENCIES) + " |")
    print("|---|" + "---:|" * len(EFFICIENCIES))
    for m in MACHINES:
        for c in CORES:
            print(f"| {m} × {c} | " + " | ".join(hms(schedule(nodes, m, c, e)) for e in EFFICIENCIES) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("docs/results.md"))
    parser.add_argument("--placement-rate", type=float, default=None, metavar="SLOTS_PER_S",
                        help="2-core rate of a placement pass (default: the forward check's)")
    args = parser.parse_args()
    moving, solve_rate, check_rate = measured_moving(args.results)
    if args.placement_rate:
        check_rate = args.placement_rate
    print(f"measured on 2 cores (pairs of 15+ stones): retrograde solve {solve_rate / 1e6:.2f} M slots/s, "
          f"forward check + write {check_rate / 1e6:.2f} M slots/s; whole pair "
          f"{sum(n.slots for n in moving if sum(n.key) >= 15) / sum(n.seconds for n in moving if sum(n.key) >= 15) / 1e6:.2f} M slots/s")
    pair_rate = sum(n.slots for n in moving) / sum(n.seconds for n in moving)
    report("Standard, moving phase (measured times)", moving, estimated=False, detail=True)

    def moving_key(sub):
        return (min(sub[0], sub[1]), max(sub[0], sub[1]))

    place = placement_model(9, check_rate, moving_key)
    report("Standard, placement phase (after the moving phase)", ordered(place), estimated=True,
           detail=True)
    report("Standard, whole game", ordered(moving + place), estimated=True)
    f = RATE_FACTOR["morabaraba"]
    mmoving = moving_model(12, pair_rate * f)
    report("Morabaraba, moving phase", ordered(mmoving), estimated=True)
    report("Morabaraba, whole game", ordered(mmoving + placement_model(12, check_rate * f, moving_key)),
           estimated=True)
    report("Lasker, whole game", lasker_model(9, pair_rate * RATE_FACTOR["lasker"]), estimated=True)


if __name__ == "__main__":
    main()
