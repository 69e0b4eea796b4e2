#!/usr/bin/env python3
"""Print the table of every variant's whole-game plan in docs/scale.md: the plans that
``muehle build --rules NAME --dry-run`` prints (``solver.build.build_plan`` and
``plan_summary``), one row a variant, for the 2-core machine's rates.

    python scripts/variant_plans.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.build import build_plan, plan_summary
from solver.rules import VARIANTS


def size(x, units):     # bytes or seconds in the largest unit that keeps it >= 1
    for scale, unit in units:
        if x >= scale:
            return f"{x / scale:.1f} {unit}"
    return f"{x:.0f} {units[-1][1] if units[-1][0] == 1 else ''}".strip()


MEM = [(2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"), (1, "B")]
DISK = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1, "B")]
TIME = [(3600, "h"), (60, "min"), (1, "s")]
print("| variant | stones | moving phase | placement phase | whole game | largest step (memory) | disk | time on 2 cores |")
print("|---|---:|---:|---:|---:|---|---:|---:|")
for name, rules in VARIANTS.items():
    files = build_plan(rules)
    rows = {r["phase"]: r for r in plan_summary(files)}
    big = max(files, key=lambda f: f.memory)
    total = sum(f.slots for f in files)
    seconds = sum(f.seconds for f in files)
    print(f"| `{name}` | {rules.stones} | {rows['moving']['slots']:,} | {rows['placement']['slots']:,}"
          f"{' (cycles)' if rules.mixed else ''} | {total:,} | {big.name} ({size(big.memory, MEM)}) | "
          f"{size(sum(r['disk'] for r in rows.values()), DISK)} | "
          f"{size(seconds, TIME) if seconds >= 1 else '< 1 s'} |")
