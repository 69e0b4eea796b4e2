"""docs/format.md is true: a reader written from it alone finds the same slots, codes
and attributes as the solver."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import zlib
from math import comb
from pathlib import Path

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter)
import numpy as np
import pytest

import solver
from solver import board, storage
from solver.index import Subspace, random_positions
from solver.rules import Rules

FORMAT = (Path(__file__).parent.parent / "docs" / "format.md").read_text()
FOUR = Rules(stones=4)


def A(obj) -> dict:
    """Attributes with fixed-length strings (bytes) decoded, as a reader without this code would."""
    return {k: (bytes(v).decode() if isinstance(v, bytes) else v) for k, v in obj.attrs.items()}


def images(mask: int, on: board.Board = board.STANDARD_BOARD) -> list[int]:
    """The images of mask under every symmetry of the board (the identity among them)."""
    return [on.apply_symmetry(g, mask) for g in range(len(on.symmetries))]


def documented_slot(m: int, o: int, own: int, opp: int, reps: list[int],
                    on: board.Board = board.STANDARD_BOARD) -> int:
    """Steps 1-6 of "The index" in docs/format.md, in plain Python (on another board:
    its points and its group, as "Other boards" there says)."""
    points = on.num_points
    r = min(images(own, on))
    g = next(g for g, image in enumerate(images(own, on)) if image == r)
    q = on.apply_symmetry(g, opp)
    q = min(image for image, fixed in zip(images(q, on), images(r, on)) if fixed == r)
    free = [p for p in range(points) if not r >> p & 1]
    c = sum(1 << j for j, p in enumerate(free) if q >> p & 1)
    bits = [j for j in range(points) if c >> j & 1]
    rank = sum(comb(b, i + 1) for i, b in enumerate(bits))
    return reps.index(r) * comb(points - m, o) + rank


def representatives(m: int, on: board.Board = board.STANDARD_BOARD) -> list[int]:
    from itertools import combinations
    return sorted({min(images(sum(1 << p for p in pts), on))
                   for pts in combinations(range(on.num_points), m)})


def test_point_numbering_is_the_documented_one():
    table = re.findall(r"(\d+) ([a-g][1-7])", FORMAT.split("```")[3])
    assert [(int(i), name) for i, name in table] == list(enumerate(board.POINT_NAMES))


@pytest.mark.parametrize("m, o", [(3, 3), (3, 4), (4, 3), (2, 5), (0, 3)])
def test_documented_index_finds_the_solvers_slots(m, o):
    reps = representatives(m)
    counts = re.search(r"is ([\d, ]+) for\s+m = 0..9", FORMAT).group(1)
    assert len(reps) == [int(x) for x in counts.replace(" ", "").split(",")][m]
    sub = Subspace(m, o)
    assert sub.slots == len(reps) * comb(24 - m, o)
    own, opp = random_positions(np.random.default_rng(m * 10 + o), m, o, 300)
    for a, b in zip(own.tolist(), opp.tolist()):
        assert documented_slot(m, o, a, b, reps) == sub.index(a, b)


@pytest.mark.parametrize("name, m, o", [("six-mens", 3, 3), ("six-mens", 4, 2), ("six-mens", 0, 5),
                                         ("seven-mens", 3, 4), ("three-mens", 2, 3),
                                         ("morabaraba", 3, 4)])
def test_documented_index_finds_the_slots_on_other_boards(name, m, o):
    """"Other boards" in format.md: the same steps with the board's points, in the order
    `muehle variants --json` names them, and its group of symmetries."""
    from solver.cli import main
    from click.testing import CliRunner
    on = board.board_named(name)
    listing = json.loads(CliRunner().invoke(main, ["variants", "--json"]).output)
    described = next(v["board"] for v in listing["variants"] if v["board"]["name"] == name)
    assert described["point_names"] == [on.point_name(p) for p in range(on.num_points)]
    assert described["symmetries"] == len(on.symmetries)
    reps = representatives(m, on)
    if name == "six-mens":
        counts = re.search(r"Six Men's Morris: ([\d, ]+) for m = 0..5", FORMAT).group(1)
        assert [int(x) for x in counts.split(", ")] == [len(representatives(k, on)) for k in range(6)]
    sub = Subspace(m, o, board=on)
    assert sub.slots == len(reps) * comb(on.num_points - m, o)
    own, opp = random_positions(np.random.default_rng(m * 10 + o), m, o, 200, board=on)
    for a, b in zip(own.tolist(), opp.tolist()):
        assert documented_slot(m, o, a, b, reps, on) == sub.index(a, b)


def documented_crc32s(name: str, codes: np.ndarray) -> list[int]:
    """chunk_crc32 as format.md says: per chunk of 65,536 little-endian values, from the
    start value crc32(b"<dataset name>#<k>")."""
    data = codes.astype("<u2")
    return [zlib.crc32(data[i:i + 65536].tobytes(), zlib.crc32(f"{name}#{i // 65536}".encode()))
            for i in range(0, len(data), 65536)]


def test_placement_files_have_the_documented_attributes(tmp_path):
    """A placement file: `subspace` in place of `pair`, `phase`, and chunk CRC-32s
    started from its dataset's name; a pair file's from its own (3-3 holds 4 chunks)."""
    from solver.build import build
    three = Rules(stones=3)
    build(tmp_path, three, progress=False)
    folder = storage.rules_dir(tmp_path, three)
    with h5py.File(folder / "place-2-3+1-0.h5", "r") as f:
        attrs = A(f)
        assert "pair" not in attrs and attrs["subspace"] == "2-3+1-0" and attrs["phase"] == "placement"
        assert attrs["format"] == "muehle-pair" and "rounds" not in attrs and "checked" not in attrs
        assert list(f) == ["2-3+1-0"]
        ds = f["2-3+1-0"]
        assert list(ds.attrs["chunk_crc32"]) == documented_crc32s("2-3+1-0", ds[()])
    with h5py.File(folder / "pair-3-3.h5", "r") as f:
        assert "subspace" not in A(f) and "phase" not in A(f)
        ds = f["3-3"]
        assert len(ds.attrs["chunk_crc32"]) == 4
        assert list(ds.attrs["chunk_crc32"]) == documented_crc32s("3-3", ds[()])


def test_pair_files_have_the_documented_layout(db4):
    path = storage.pair_path(db4, FOUR, (3, 4))
    assert path.name == "pair-3-4.h5" and path.parent.name == "standard-s4"
    with h5py.File(path, "r") as f:
        for name in ("format", "format_version", "complete", "rules", "rules_json", "stones",
                     "jumping", "mill_rule", "index_scheme", "solver_version", "build_time"):
            assert f"`{name}`" in FORMAT and name in f.attrs
        assert A(f)["format"] == "muehle-pair" and A(f)["index_scheme"] == "sym16-1"
        assert A(f)["solver_version"] == solver.__version__
        assert sorted(f) == ["3-4", "4-3"]
        for name in f:
            ds = f[name]
            codes = ds[()]
            assert ds.dtype == np.uint16 and ds.fletcher32 and ds.chunks[0] <= 65536
            assert A(ds)["slots"] == len(codes) == Subspace.parse(name).slots
            assert A(ds)["sha256"] == hashlib.sha256(codes.astype("<u2").tobytes()).hexdigest()
            real = codes[codes != 0xFFFF].astype(np.int64)
            plies = real[real > 0] - 1
            assert A(ds)["draws"] == int((real == 0).sum())
            assert A(ds)["wins"] == int((plies % 2 == 1).sum())
            assert A(ds)["losses"] == int((plies % 2 == 0).sum())
            assert A(ds)["longest_win"] == int(plies[plies % 2 == 1].max(initial=0))
            assert A(ds)["longest_loss"] == int(plies[plies % 2 == 0].max(initial=0))


@pytest.mark.parametrize("seed", range(40))
def test_statistics_count_codes_by_their_meaning(seed):
    """summarize (a file's wins, losses, draws and longest of each) agrees with counting
    the decoded values, on codes from the smallest to the largest (0xFFFE, a win of
    65,533 plies) beside the slack code."""
    from solver.values import LOSS, WIN, decode, summarize
    rng = np.random.default_rng(seed)
    top = [4, 300, 0x10000][seed % 3]
    codes = rng.integers(0, top, rng.integers(0, 40)).astype(np.uint16)
    if seed % 4 == 0:
        codes = np.concatenate([codes, np.array([0xFFFE, 0xFFFF, 0xFFFD], dtype=np.uint16)])
    values = [decode(int(c)) for c in codes if c != 0xFFFF]
    wins = [v.plies for v in values if v.value == WIN]
    losses = [v.plies for v in values if v.value == LOSS]
    assert summarize(np.bincount(codes, minlength=0x10000)) == {
        "wins": len(wins), "losses": len(losses), "draws": int((codes == 0).sum()),
        "longest_win": max(wins, default=0), "longest_loss": max(losses, default=0)}


@pytest.mark.parametrize("slots", [0, 1, 2, 3, 65535, 65536, 65537, 3 * 65536 + 1, 1_000_003])
def test_code_histogram_counts_every_code(slots):
    """The kernel that counts a subspace's codes for its file's statistics equals numpy's
    bincount, on one, two and three threads, on any length (block edges, odd tails) and on
    runs of one code (the counters it interleaves)."""
    kernels = storage.kernels_for(FOUR.board)
    rng = np.random.default_rng(slots)
    codes = rng.integers(0, 0x10000, slots, dtype=np.uint16)
    codes[: slots // 3] = 0                       # a run of draws
    codes[slots // 3: slots // 2: 5] = 0xFFFF     # slack among them
    expected = np.bincount(codes, minlength=0x10000)
    for jobs in (1, 2, 3):
        hist = kernels.code_histogram(codes, jobs)
        assert hist.dtype == np.int64 and np.array_equal(hist, expected)


def test_compare_databases_reads_folders_and_manifests(db4, tmp_path):
    """scripts/compare_databases.py finds a build equal to itself and to the manifest it
    saved of it, and names a subspace whose SHA-256 differs or is missing (exit 1)."""
    script = Path(__file__).parent.parent / "scripts" / "compare_databases.py"

    def run(*args):
        return subprocess.run([sys.executable, str(script), *map(str, args), "--rules", FOUR.name],
                              capture_output=True, text=True)
    manifest = tmp_path / "m.txt"
    saved = run(db4, "--save", manifest)
    assert saved.returncode == 0 and "4 subspaces written" in saved.stdout
    lines = manifest.read_text().splitlines()
    assert lines[0].startswith("#")
    assert [ln.split()[0] for ln in lines[1:]] == ["3-3", "3-4", "4-3", "4-4"]
    same = run(manifest, db4)
    assert same.returncode == 0
    assert same.stdout.splitlines()[-1] == "4 subspaces: 4 same, 0 different, 0 in one only"
    moving = run(manifest, db4, "--phase", "moving")
    assert moving.stdout.splitlines()[-1] == "4 subspaces: 4 same, 0 different, 0 in one only"
    placing = run(manifest, db4, "--phase", "placement")       # none in either: nothing compared
    assert placing.returncode == 1 and placing.stdout.splitlines()[-1].startswith("0 subspaces")
    name, digest = lines[1].split()
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([f"{name} {'0' * 64}"] + lines[2:-1]) + "\n")
    differ = run(bad, db4)
    assert differ.returncode == 1
    assert f"{name:>12}  DIFFERENT {'0' * 16} {digest[:16]}" in differ.stdout
    assert f"only in {db4}" in differ.stdout
    assert "4 subspaces: 2 same, 1 different, 1 in one only" in differ.stdout
    # a value changed under its recorded digest: "same" by the records, refused by --verify
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(db4, copy)
    with h5py.File(storage.pair_path(copy, FOUR, (4, 4)), "r+") as f:
        f["4-4"][7] = f["4-4"][7] ^ 2
    assert run(manifest, copy).returncode == 0
    verified = run(manifest, copy, "--verify")
    assert verified.returncode == 1 and verified.stdout == ""
    assert verified.stderr.startswith("compare_databases: ") and "subspace 4-4 is damaged" in verified.stderr
    assert run(manifest, db4, "--verify").returncode == 0
    # a file that cannot be read at all: one line, not a traceback
    (storage.pair_path(copy, FOUR, (3, 4))).write_bytes(b"not hdf5")
    unreadable = run(manifest, copy)
    assert unreadable.returncode == 1 and unreadable.stderr.count("\n") == 1
    assert unreadable.stderr.startswith(f"compare_databases: {storage.pair_path(copy, FOUR, (3, 4))}: "
                                        f"cannot read its digests")
    # a FIFO where a file belongs would block the read for ever: named instead
    fifo = tmp_path / "fifo"
    shutil.copytree(db4, fifo)
    storage.pair_path(fifo, FOUR, (3, 4)).unlink()
    os.mkfifo(storage.pair_path(fifo, FOUR, (3, 4)))
    blocked = subprocess.run([sys.executable, str(script), str(manifest), str(fifo), "--rules", FOUR.name],
                             capture_output=True, text=True, timeout=60)
    assert blocked.returncode == 1 and "pair-3-4.h5 is not a regular file" in blocked.stderr
    # a folder without the rule set's folder: what it holds, not "0 subspaces"
    assert f"has no standard folder (it holds {FOUR.name}: give --rules NAME)" in subprocess.run(
        [sys.executable, str(script), str(manifest), str(db4)], capture_output=True, text=True).stderr
    rules_folder = run(manifest, db4 / FOUR.name)
    assert rules_folder.returncode == 1 and f"give the folder above it, {db4}" in rules_folder.stderr
    garbled = tmp_path / "garbled.txt"
    garbled.write_text("3-3 nothex\n")
    assert "expected 'SUBSPACE SHA256'" in run(garbled, db4).stderr
    # the manifest of one phase against a folder of the whole game: that phase (said), exit 0
    from solver.build import build
    whole = tmp_path / "whole"
    shutil.copytree(db4, whole)
    build(whole, FOUR, phase="placement", progress=False)
    phased = run(manifest, whole)
    assert phased.returncode == 0, phased.stdout
    assert phased.stdout.splitlines()[0] == "comparing the moving phase, the manifest's (--phase all: every subspace)"
    assert phased.stdout.splitlines()[-1] == "4 subspaces: 4 same, 0 different, 0 in one only"
    assert run(manifest, whole, "--phase", "all").returncode == 1       # 27 placement files in one only
    both = tmp_path / "both.txt"                        # a save keeps every phase of A all the same
    assert "31 subspaces written" in run(whole, manifest, "--save", both).stdout
    assert len(both.read_text().splitlines()) == 1 + 31
