#!/usr/bin/env python3
"""How small the stored codes get under other coders (issue 55, item 1: the whole
game's files in 5 GB): random chunks of a file's largest subspace, decoded, then coded
again with the byte shuffle the files use and zstd at several levels (the files use
``solver.codec.LEVEL``), without the shuffle, and with xz; prints each coder's size as a
share of the raw codes, and its time a chunk to code and to decode, and the order-0
entropy of the codes (what a coder of each value alone could reach).

    python scripts/bench_compression.py /work/full/standard/pair-8-8.h5 --chunks 60
"""
import argparse
import lzma
import random
import sys
import time
from pathlib import Path

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter the files use)
import numpy as np
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import codec  # noqa: E402
from solver.kernels import loaded_kernels  # noqa: E402


def datasets(group, out):
    for item in group.values():
        if isinstance(item, h5py.Dataset):
            out.append(item)
        else:
            datasets(item, out)
    return out


def shuffled(chunk: np.ndarray) -> bytes:
    """The chunk's low bytes, then its high bytes, as the files' writer shuffles it."""
    out = np.empty(2 * len(chunk), dtype=np.uint8)
    loaded_kernels().shuffle_chunk(np.ascontiguousarray(chunk, dtype=np.uint16), out)
    return out.tobytes()


def timed(code, decode, chunks):
    """(size, seconds a chunk to code, seconds a chunk to decode) of a coder."""
    start = time.perf_counter()
    frames = [code(c) for c in chunks]
    coding = (time.perf_counter() - start) / len(chunks)
    start = time.perf_counter()
    for frame in frames:
        decode(frame)
    return sum(map(len, frames)), coding, (time.perf_counter() - start) / len(chunks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="database files (.h5)")
    ap.add_argument("--chunks", type=int, default=60, help="random chunks a file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", type=int, nargs="+", default=[3, 9, 15, 19])
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for path in args.files:
        with h5py.File(path, "r") as f:
            data = max(datasets(f, []), key=lambda d: d.shape[0])
            name, length = data.name, data.chunks[0]
            picks = sorted(rng.sample(range(data.shape[0] // length), min(args.chunks, data.shape[0] // length)))
            chunks = [data[i * length:(i + 1) * length] for i in picks]
        raw = sum(c.nbytes for c in chunks)
        print(f"{path}: {name} ({data.shape[0]:,} codes), {len(chunks)} chunks of {length:,} codes "
              f"(the files: shuffle + zstd level {codec.LEVEL})")
        for level in args.levels:
            z, d = zstandard.ZstdCompressor(level=level), zstandard.ZstdDecompressor()
            size, coding, decoding = timed(lambda c: z.compress(shuffled(c)), d.decompress, chunks)
            print(f"  shuffle + zstd {level:>2}: {size / raw:.4f} of raw, code {coding * 1e3:6.2f} ms, "
                  f"decode {decoding * 1e6:4.0f} us a chunk")
        z, d = zstandard.ZstdCompressor(level=codec.LEVEL), zstandard.ZstdDecompressor()
        size, coding, decoding = timed(lambda c: z.compress(c.tobytes()), d.decompress, chunks)
        print(f"  zstd {codec.LEVEL} without shuffle: {size / raw:.4f} of raw")
        # (the bound of a coder that codes each value alone, each chunk with its own table)
        bits = 0.0
        for c in chunks:
            counts = np.unique(c, return_counts=True)[1]
            bits -= float((counts * np.log2(counts / c.size)).sum())
        print(f"  order-0 entropy of the codes: {bits / 8 / raw:.4f} of raw")
        size, coding, decoding = timed(lambda c: lzma.compress(shuffled(c), preset=6), lzma.decompress, chunks)
        print(f"  shuffle + xz 6: {size / raw:.4f} of raw, code {coding * 1e3:6.2f} ms, "
              f"decode {decoding * 1e6:4.0f} us a chunk")


if __name__ == "__main__":
    main()
