#!/usr/bin/env python3
"""Compare two folders of databases subspace by subspace: the SHA-256 of the values
each file records (docs/format.md), so that a change to the kernels can prove that it
left every value as it was.

Usage: python scripts/compare_databases.py DIR_A DIR_B [--rules standard]

Prints one line per subspace (``same`` or ``DIFFERENT``) and exits with status 1 if a
subspace differs or is in one folder only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter)


def digests(folder: Path) -> dict[str, str]:
    """Subspace name -> the SHA-256 its file records, for every finished file."""
    out = {}
    for path in sorted(folder.glob("*.h5")):
        with h5py.File(path, "r") as f:
            for name, dataset in f.items():
                value = dataset.attrs["sha256"]
                out[name] = value.decode() if isinstance(value, bytes) else str(value)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--rules", default="standard", help="the rule set's folder name")
    args = ap.parse_args()
    a, b = digests(args.a / args.rules), digests(args.b / args.rules)
    bad = 0
    for name in sorted(set(a) | set(b), key=lambda n: [int(x) for x in n.replace("+", "-").split("-")]):
        if name not in a or name not in b:
            print(f"{name:>12}  only in {args.a if name in a else args.b}")
            bad += 1
        elif a[name] != b[name]:
            print(f"{name:>12}  DIFFERENT {a[name][:16]} {b[name][:16]}")
            bad += 1
        else:
            print(f"{name:>12}  same {a[name][:16]}")
    print(f"{len(set(a) | set(b))} subspaces, {bad} differ")
    return 1 if bad or not a else 0


if __name__ == "__main__":
    sys.exit(main())
