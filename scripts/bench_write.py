#!/usr/bin/env python3
"""Benchmark of a pair's write (storage.write_file), whole and piece by piece.

Usage: python scripts/bench_write.py DB PAIR [PAIR ...] [--rules standard] [--repeat 1]

Reads the pair's two subspaces from DB (a built folder) and writes them again into a
temporary folder beside DB (same disk), as the build does after a pair's check: the
statistics (histogram of the codes), SHA-256 and chunk CRCs, the zstd compression into
an in-memory HDF5 image, the file write with fsync, and the re-read that verifies the
temporary before it is renamed.  Then it times the pieces alone on the same codes, so
that one sees where a write's seconds go, and the chunks compressed and read by
solver.codec's threads against HDF5's own filters (one core).  Wall and CPU seconds of the process (all
threads); a write blocks the next pair wherever the two would not fit in memory together
(solver.build.BackgroundWriter).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import h5py
import hdf5plugin
import numpy as np

from machine import cpu_model
from solver import codec, storage
from solver.index import Pair
from solver.kernels import kernels_for
from solver.rules import Rules


def timed(what: str, fn, slots: int) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {what:<34} {wall:7.2f} s wall {cpu:7.2f} s CPU {wall / slots * 1e9:6.1f} ns/slot")


def bincount(codes: np.ndarray, block: int = 1 << 24) -> np.ndarray:
    """The histogram as solver.values.summarize counted it before code_histogram: numpy's
    bincount a block at a time (it widens its input to 64 bits)."""
    hist = np.zeros(0x10000, dtype=np.int64)
    for start in range(0, len(codes), block):
        hist += np.bincount(codes[start:start + block], minlength=0x10000)
    return hist


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("pairs", nargs="+", help="pairs such as 5-7")
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    kernels = kernels_for(rules.board)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; rules={rules.name}")
    for name in args.pairs:
        m, o = map(int, name.split("-"))
        pair = Pair(m, o, board=rules.board)
        src = storage.pair_path(args.db, rules, pair)
        subs = pair.subspaces
        codes = {(s.m, s.o): storage.read_subspace(src, rules, s.m, s.o) for s in subs}
        slots = sum(len(c) for c in codes.values())
        print(f"pair {pair.name}: {slots:,} slots, file {src.stat().st_size / 2**20:.0f} MiB")
        with tempfile.TemporaryDirectory(dir=Path(args.db)) as tmp:
            for _ in range(args.repeat):
                timed("write_file (all of it)", lambda: storage.write_file(
                    Path(tmp) / src.name, rules, dict(codes), release=True), slots)
        for _ in range(args.repeat):
            timed("histogram (code_histogram)",
                  lambda: [kernels.code_histogram(c) for c in codes.values()], slots)
            timed("histogram (numpy, blocks of 2^24)", lambda: [bincount(c) for c in codes.values()],
                  slots)
            timed("SHA-256", lambda: [storage.sha256_of(c) for c in codes.values()], slots)
            timed("chunk CRC-32s", lambda: [storage.chunk_crcs(f"{k[0]}-{k[1]}", c)
                                            for k, c in codes.items()], slots)
            # the chunks: coded by solver.codec in threads, or by HDF5's filters on one core
            with h5py.File("bench.h5", "w", driver="core", backing_store=False) as f:
                timed(f"compress, codec ({codec.THREADS} threads)", lambda: [
                    codec.write(codec.create(f, f"{k[0]}-{k[1]}", len(c)), f"{k[0]}-{k[1]}", c)
                    for k, c in codes.items()], slots)
            with h5py.File("bench.h5", "w", driver="core", backing_store=False) as f:
                timed("compress, HDF5's filters", lambda: [f.create_dataset(
                    f"{k[0]}-{k[1]}", data=c, chunks=(codec.chunk_length(len(c)),), shuffle=True,
                    fletcher32=True, **hdf5plugin.Zstd(clevel=codec.LEVEL)) for k, c in codes.items()],
                    slots)
            timed(f"read, codec ({codec.THREADS} threads)", lambda: [
                storage.read_subspace(src, rules, s.m, s.o) for s in subs], slots)
            with h5py.File(src, "r") as f:
                timed("read, HDF5's filters", lambda: [f[s.name][()] for s in subs], slots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
