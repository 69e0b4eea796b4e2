#!/usr/bin/env python3
"""Whether two database folders hold the same values: per subspace, the SHA-256 of its
codes recorded in each file (docs/format.md), for every file the two have in common.

Usage: python scripts/compare_builds.py DIR_A DIR_B [--rules standard] [--max-total N]

For proving that a change of the solver keeps the values: build the same pairs with the
old code into DIR_A and with the new into DIR_B (e.g. `muehle build --max-total 8`),
then compare.  Prints one line per subspace and exits 1 if any differs, or if a file is
in one folder only (or unreadable), 0 if all are equal.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from solver import storage
from solver.errors import DatabaseError
from solver.rules import Rules


def stones(name: str) -> int:
    """Stones in a file's name (pair-3-5 or place-0-1+3-2): board and hand, both sides."""
    return sum(int(x) for x in re.findall(r"\d+", name))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--max-total", type=int, default=None,
                    help="only files of at most this many stones")
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    folders = [storage.rules_dir(root, rules) for root in (args.a, args.b)]
    names = [{p.stem for p in f.glob("*.h5")} for f in folders]
    if args.max_total is not None:
        names = [{n for n in ns if stones(n) <= args.max_total} for ns in names]
    bad = 0
    for only, other in ((names[0] - names[1], folders[1]), (names[1] - names[0], folders[0])):
        for name in sorted(only):
            print(f"{name}: missing in {other}")
            bad += 1
    same = 0
    for name in sorted(names[0] & names[1], key=lambda n: (stones(n), n)):
        try:
            stats = [storage.pair_stats(f / f"{name}.h5", rules) for f in folders]
        except DatabaseError as exc:
            print(f"{name}: {exc}")
            bad += 1
            continue
        for sub in sorted(set(stats[0]) | set(stats[1])):
            digests = [s.get(sub, {}).get("sha256") for s in stats]
            equal = digests[0] is not None and digests[0] == digests[1]
            print(f"{name} {sub:>8}: {'same' if equal else 'DIFFERENT'} "
                  f"{digests[0]}" + ("" if equal else f" / {digests[1]}"))
            same += equal
            bad += not equal
    print(f"{same} subspaces equal, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
