#!/usr/bin/env python3
"""Compare two folders of databases subspace by subspace: the SHA-256 of the values
each file records (docs/format.md), so that a change to the kernels can prove that it
left every value as it was.

Usage: python scripts/compare_databases.py A B [--rules standard] [--save FILE] [--verify]
                                            [--phase moving|placement|all]

A and B are each a database folder (its RULES subfolder is read) or a manifest: a
text file of lines ``SUBSPACE SHA256`` (``#`` starts a comment), as ``--save`` writes
A's.  docs/checksums-standard.txt is the manifest of the standard moving phase, so a
new build can be compared with it without the old files.  Prints one line per
subspace (``same`` or ``DIFFERENT``) and exits with status 1 if a subspace differs or
is in one only (with --save and no B: writes the manifest and compares nothing).
docs/checksums-standard-placement.txt holds the standard placement phase's; ``--phase``
compares one phase of a folder that holds both (default: a manifest of one phase
against a folder compares that phase, and says so; else all).

A file's digest is what its build recorded; ``--verify`` first reads every value of a
folder's files and checks it against that digest (each chunk's CRC-32, the SHA-256 of
the whole, the recorded statistics: minutes for the whole moving phase), so that
"same" says the values are the same, not only the records.  ``muehle check`` does that
and more (it recomputes every value from its successors).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def digests(folder: Path, rules: str, verify: bool = False) -> dict[str, str]:
    """Subspace name -> the SHA-256 its file records, for every finished file (``verify``:
    after checking the values against it)."""
    if verify:
        from solver.errors import DatabaseError
        from solver.index import Subspace
        from solver.rules import Rules
        from solver.storage import SubspaceReader
        board = Rules.from_name(rules).board
    out = {}
    for path in sorted(folder.glob("*.h5")):
        if not path.is_file():       # (a FIFO would block the read for ever; a folder)
            raise SystemExit(f"compare_databases: {path} is not a regular file; muehle check "
                             f"names what is wrong")
        try:
            with h5py.File(path, "r") as f:
                for name, dataset in f.items():
                    if verify:
                        try:
                            SubspaceReader(f, path, Subspace.parse(name, board)).verify()
                        except DatabaseError as error:
                            raise SystemExit(f"compare_databases: {error}") from None
                    value = dataset.attrs["sha256"]
                    out[name] = value.decode() if isinstance(value, bytes) else str(value)
        except (OSError, KeyError) as error:
            # (a damaged file, a folder in a file's place, a file without digests)
            why = " ".join(str(error).split())[:120]
            raise SystemExit(f"compare_databases: {path}: cannot read its digests "
                             f"({type(error).__name__}: {why}); muehle check names what is "
                             f"wrong") from None
    return out


def read_manifest(path: Path) -> dict[str, str]:
    """Subspace name -> SHA-256 from a manifest (see the module's docstring)."""
    out = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or len(words[1]) != 64:
            raise SystemExit(f"compare_databases: {path}:{number}: expected 'SUBSPACE SHA256'")
        out[words[0]] = words[1]
    return out


def load(where: Path, rules: str, verify: bool = False) -> dict[str, str]:
    """The digests of a folder's rule set, or of a manifest file."""
    if where.is_file():
        return read_manifest(where)
    if not where.is_dir():
        raise SystemExit(f"compare_databases: {where}: no such folder or manifest")
    folder = where / rules
    if not folder.is_dir():
        held = sorted(p.name for p in where.iterdir() if p.is_dir() and any(p.glob("*.h5")))
        if any(where.glob("*.h5")):
            hint = f"it holds database files itself: give the folder above it, {where.parent}"
        elif held:
            hint = f"it holds {', '.join(held)}: give --rules NAME"
        else:
            hint = "it holds no databases"
        raise SystemExit(f"compare_databases: {where} has no {rules} folder ({hint})")
    found = digests(folder, rules, verify)
    if not found:
        raise SystemExit(f"compare_databases: {folder} holds no database files")
    return found


def order(name: str) -> list[int]:
    return [int(x) for x in name.replace("+", "-").split("-")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path, nargs="?")
    ap.add_argument("--rules", default="standard", help="the rule set's folder name")
    ap.add_argument("--save", type=Path, help="write A's digests to this manifest")
    ap.add_argument("--verify", action="store_true",
                    help="check a folder's values against the digests its files record first")
    ap.add_argument("--phase", choices=("moving", "placement", "all"), default=None,
                    help="compare only the moving pairs' subspaces (m-o) or the placement "
                         "subspaces (m-o+h-k) (default: a manifest's one phase, else all)")
    args = ap.parse_args()
    if args.b is None and args.save is None:
        ap.error("give B, or --save FILE")
    def phase(digests: dict[str, str]) -> dict[str, str]:
        keep = {"moving": lambda n: "+" not in n, "placement": lambda n: "+" in n,
                "all": lambda n: True}[args.phase]
        return {name: d for name, d in digests.items() if keep(name)}

    a_all = load(args.a, args.rules, args.verify)
    b_all = None if args.b is None else load(args.b, args.rules, args.verify)
    automatic = args.phase is None
    if automatic:
        # A manifest of one phase (docs/ holds one per phase) against a folder of the
        # whole game: that phase, not 497 files "in one only" and a failed exit status.
        kind = lambda names: {"placement" if "+" in n else "moving" for n in names}  # noqa: E731
        held = [kind(d) for where, d in ((args.a, a_all), (args.b, b_all)) if where is not None
                and where.is_file()]
        args.phase = "all"
        if b_all is not None and held and len(held[0]) == 1 and kind(a_all) | kind(b_all) != held[0]:
            args.phase = next(iter(held[0]))
            print(f"comparing the {args.phase} phase, the manifest's (--phase all: every subspace)")
    a = phase(a_all)
    if args.save:
        # (A's digests of the phase --phase names: a phase chosen for B's manifest is
        # the comparison's, and a save keeps every phase of A)
        saved = a_all if automatic else a
        lines = [f"# SHA-256 of the values of each subspace ({args.rules}), "
                 "scripts/compare_databases.py --save"]
        lines += [f"{name} {saved[name]}" for name in sorted(saved, key=order)]
        args.save.write_text("\n".join(lines) + "\n")
        print(f"{len(saved)} subspaces written to {args.save}")
        if args.b is None:
            return 0 if a else 1
    b = phase(b_all)
    same = different = alone = 0
    for name in sorted(set(a) | set(b), key=order):
        if name not in a or name not in b:
            print(f"{name:>12}  only in {args.a if name in a else args.b}")
            alone += 1
        elif a[name] != b[name]:
            print(f"{name:>12}  DIFFERENT {a[name][:16]} {b[name][:16]}")
            different += 1
        else:
            print(f"{name:>12}  same {a[name][:16]}")
            same += 1
    print(f"{same + different + alone} subspaces: {same} same, {different} different, "
          f"{alone} in one only")
    return 1 if different or alone or not a else 0


if __name__ == "__main__":
    sys.exit(main())
