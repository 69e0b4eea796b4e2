#!/usr/bin/env python3
"""What chunk length ``query --batch`` would need (issue 51, item 7): its answers on
the standard game are bound by the chunks it decodes (docs/benchmarks.md, "A block of
lines at a time").  This answers a collection of moving-phase positions of random games
in blocks, as ``query --batch`` does (``solver.batch.query_lines``), records every code
it reads (``Database.codes_at``), and counts the distinct chunks those codes fall in
for other chunk lengths; then times, for each length, the reading of such a chunk by
the files' own coder (``solver.codec``: fetched, its Fletcher-32, zstd, the byte
shuffle undone, its CRC-32) on stretches of a stored file's codes, and its size coded.  It prints, for each length, the chunks, their
decoding time in all, the positions a second that decoding alone allows on ``--cores``
cores (a bound: nothing else counted), and the coded size against the files' 65,536.

    python scripts/bench_chunks.py --db /work/full --games 300 --sample /work/full/standard/pair-8-8.h5
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import h5py
import hdf5plugin  # noqa: F401  (the files' zstd filter)
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_batch import game_positions  # noqa: E402
from bench_compression import datasets  # noqa: E402
from solver import batch, codec, storage  # noqa: E402
from solver.position import parse_position  # noqa: E402
from solver.probe import Database  # noqa: E402
from solver.rules import Rules  # noqa: E402

LENGTHS = (2048, 4096, 8192, 16384, 32768, 65536)


def decode_cost(path: str, length: int, runs: int, rng: random.Random) -> tuple[float, float]:
    """(CPU seconds to fetch, check and decode one chunk of ``length`` codes, coded size /
    raw size): ``runs`` random stretches of the file's largest subspace written to a
    dataset in memory by the files' own coder (``solver.codec.write``) in chunks of
    ``length``, then read back as a block of probes reads them (``solver.codec.read_chunks``
    of them all: the Fletcher-32, zstd, the shuffle undone, the CRC-32, in threads; CPU
    time of all threads); best of 3."""
    with h5py.File(path, "r") as f:
        data = max(datasets(f, []), key=lambda d: d.shape[0])
        stored = data.chunks[0]
        picks = rng.sample(range(data.shape[0] // stored), runs)
        codes = np.concatenate([data[k * stored:(k + 1) * stored][:length] for k in picks])
    with h5py.File(f"bench-{length}.h5", "w", driver="core", backing_store=False) as f:
        ds = f.create_dataset("s", shape=(len(codes),), dtype=np.uint16, chunks=(length,), shuffle=True,
                              fletcher32=True, **hdf5plugin.Zstd(clevel=codec.LEVEL))
        crcs = codec.write(ds, "s", codes)
        size = sum(ds.id.get_chunk_info(k).size - 4 for k in range(runs))
        best = float("inf")
        for _ in range(3):
            began = time.process_time()
            codec.read_chunks(ds, "s", list(range(runs)), crcs, "memory")
            best = min(best, (time.process_time() - began) / runs)
    return best, size / codes.nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--plies", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--block", type=int, default=16384, help="positions a block, as query --batch")
    ap.add_argument("--sample", required=True, help="a stored file whose chunks are timed")
    ap.add_argument("--runs", type=int, default=200, help="chunks timed a length")
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    lines = game_positions(rules, args.games, args.plies, args.seed, moving=True)
    positions = [parse_position(text, rules) for text in lines]
    reads: list[tuple[bool, object, np.ndarray]] = []
    original = Database.codes_at

    def recording(self, sub, slots, rule=False):
        reads.append((rule, sub, np.asarray(slots, dtype=np.int64).copy()))
        return original(self, sub, slots, rule)

    Database.codes_at = recording
    began = time.perf_counter()
    with Database(args.db, rules) as database:
        for at in range(0, len(positions), args.block):
            batch.query_lines(database, positions[at:at + args.block])
    answered = time.perf_counter() - began
    Database.codes_at = original
    codes = sum(len(s) for _, _, s in reads)
    print(f"{len(positions):,} moving-phase positions of {args.games} random games answered in "
          f"{answered:.1f} s ({len(positions) / answered:,.0f} a second, one process); {codes:,} codes read "
          f"in {len(reads):,} calls (plain and under the rule)")
    rng = random.Random(args.seed)
    print("| chunk length | distinct chunks | CPU a chunk | in all | bound (positions/s) | coded size |")
    print("|---:|---:|---:|---:|---:|---:|")
    base = None
    for length in LENGTHS:
        keys = set()
        for rule, sub, slots in reads:
            keys.update((rule, sub.m, sub.o, sub.own_hand, sub.opp_hand, int(k)) for k in np.unique(slots // length))
        seconds, ratio = decode_cost(args.sample, length, args.runs, rng)
        base = ratio if length == storage.CHUNK else base
        total = len(keys) * seconds
        print(f"| {length:,} | {len(keys):,} | {seconds * 1e6:.0f} µs | {total:.2f} s | "
              f"{len(positions) / (total / args.cores):,.0f} | {ratio:.4f} |", flush=True)
    print(f"(coded size: share of the raw codes; the files' length, {storage.CHUNK:,}, codes at {base:.4f})")


if __name__ == "__main__":
    main()
