#!/usr/bin/env python3
"""Reachable positions of whole games (docs/results.md, "Reachable positions, against
the published counts"): for each rule set named (``NAME`` or ``NAME:flying``, the
published rows' name for jumping with three stones), the oracle's census of every
position the empty board reaches (raw: stones, hands, colour to move; finished games
included), one Markdown row each, beside the published count of tests/data/published.toml
where it has one.  Without names: every published row.

    python scripts/census.py                          # the published rows
    python scripts/census.py six-mens-s3 standard-s4  # any rule sets (standard-s4: about 6 GB)
"""
import argparse
import dataclasses
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machine import cpu_model                    # noqa: E402
from solver.rules import Rules                   # noqa: E402
from solver.verify.oracle import census          # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("rules", nargs="*", help="rule set names, NAME:flying for jumping (default: the published rows)")
    args = ap.parse_args()
    rows = tomllib.loads((ROOT / "tests" / "data" / "published.toml").read_text(encoding="utf-8"))["census"]
    published = {(row["rules"], row["jumping"]): row["positions"] for row in rows}
    names = args.rules or [row["rules"] + (":flying" if row["jumping"] else "") for row in rows]
    games = []
    for name in names:      # (every name read before a census runs: a slip is one line at once)
        base, colon, flying = name.partition(":")
        if colon and flying != "flying":
            ap.error(f"{name!r}: the only suffix is ':flying' (jumping with three stones)")
        try:
            rules = Rules.from_name(base)
        except ValueError as error:
            ap.error(str(error))
        games.append((name, base, dataclasses.replace(rules, jumping=True) if flying else rules, bool(flying)))
    print(f"machine: {cpu_model()}")
    print("| game | reachable positions | published | of them finished | seconds |")
    print("|---|---:|---:|---:|---:|")
    differ = 0
    for name, base, rules, flying in games:
        started = time.perf_counter()
        got = census(rules)
        seconds = time.perf_counter() - started
        known = published.get((base, flying))
        differ += known is not None and known != got.positions
        print(f"| {name} | {got.positions:,} | {'-' if known is None else f'{known:,}'} | {got.finished:,} "
              f"| {seconds:.1f} |", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:             # (| head: the reader has what it wanted)
        sys.stderr.close()
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
