"""The chunks of a stored subspace, compressed and decompressed in threads outside HDF5.

Every subspace's dataset declares the filter pipeline shuffle -> zstd -> fletcher32
(docs/format.md), and any HDF5 reader with the zstd filter (hdf5plugin) reads it.  But
HDF5 runs filters under one lock a process: through it a pair's file was compressed,
and the capture targets of the next pair decompressed, on one core while the other
waited (docs/benchmarks.md, "Chunks coded in threads").  Here the same bytes are made
and undone by :data:`THREADS` threads (zstd from the zstandard package, the shuffle and
Fletcher-32 from the kernels; both hold no GIL), and HDF5 only stores and fetches the
finished chunks (``write_direct_chunk``, ``read_direct_chunk``).

Each chunk's CRC-32 of decoded values (the format's check, :func:`chunk_crc`, seeded with
the subspace and the chunk number) is computed or checked by the thread that holds the
chunk.  A damaged chunk (its Fletcher-32, its zstd frame, its size or its CRC-32) is one
:class:`~solver.errors.CorruptDatabaseError`.

>>> import h5py, numpy as np
>>> codes = np.arange(200_000, dtype=np.uint16)
>>> with h5py.File("codec-example.h5", "w", driver="core", backing_store=False) as f:
...     ds = create(f, "3-3", len(codes))
...     crcs = write(ds, "3-3", codes)
...     back = read(ds, "3-3", 0, len(crcs), crcs, "codec-example.h5")
>>> bool((back == codes).all()), len(crcs)
(True, 4)
"""

from __future__ import annotations

import os
import threading
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence

import h5py
import hdf5plugin
import numpy as np
import zstandard

from .errors import CorruptDatabaseError
from .kernels import loaded_kernels

CHUNK = 1 << 16          # 128 KiB of values: a probe decompresses one chunk
LEVEL = 3                # zstd's level (its default)
#: The threads that code a subspace's chunks (zstd releases the GIL): this machine's cores
THREADS = max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count() or 1))
BATCH = 16               # chunks a thread takes at a time (2 MiB of values)
#: HDF5's filter numbers of the pipeline this module writes and reads itself
PIPELINE = (h5py.h5z.FILTER_SHUFFLE, hdf5plugin.ZSTD_ID, h5py.h5z.FILTER_FLETCHER32)

_local = threading.local()


def _kernels():
    return loaded_kernels()      # the byte work knows no board


def chunk_crc(name: str, k: int, codes: np.ndarray) -> int:
    """The CRC-32 of chunk ``k`` of subspace ``name`` (its codes as little-endian uint16),
    seeded with the name and the chunk number: a chunk moved to another place fails."""
    return zlib.crc32(codes, zlib.crc32(f"{name}#{k}".encode()))


def chunk_length(slots: int) -> int:
    """The chunk length of a subspace of ``slots`` values (one chunk where it is smaller
    than :data:`CHUNK`)."""
    return min(CHUNK, max(1, slots))


def create(group: h5py.Group, name: str, slots: int) -> h5py.Dataset:
    """An empty dataset of ``slots`` codes with the pipeline every subspace declares."""
    return group.create_dataset(name, shape=(slots,), dtype=np.uint16,
                                chunks=(chunk_length(slots),), shuffle=True, fletcher32=True,
                                **hdf5plugin.Zstd(clevel=LEVEL))


def codable(ds: h5py.Dataset) -> bool:
    """Whether ``ds``'s chunks are this module's to read: uint16 in chunks of
    :func:`chunk_length`, with exactly :data:`PIPELINE` (else the reader asks HDF5)."""
    if ds.dtype != np.uint16 or ds.ndim != 1 or ds.chunks != (chunk_length(ds.shape[0]),):
        return False
    plist = ds.id.get_create_plist()
    return tuple(plist.get_filter(i)[0] for i in range(plist.get_nfilters())) == PIPELINE


def _pipeline(tasks: Iterator[Callable[[], object]], consume: Callable[[object], None],
              many: bool) -> None:
    """Run ``tasks`` on up to :data:`THREADS` threads (in this thread unless ``many``)
    and hand their results to ``consume`` in order, in this thread; at most two tasks a
    thread wait, so that what they hold stays small.  The first failure is raised."""
    if not many or THREADS == 1:
        for task in tasks:
            consume(task())
        return
    with ThreadPoolExecutor(THREADS) as pool:
        pending: deque = deque()
        try:
            for task in tasks:
                pending.append(pool.submit(task))
                if len(pending) >= 2 * THREADS:
                    consume(pending.popleft().result())
            while pending:
                consume(pending.popleft().result())
        finally:
            for future in pending:
                future.cancel()


def write(ds: h5py.Dataset, name: str, codes: np.ndarray) -> np.ndarray:
    """Store ``codes`` (the whole subspace) into ``ds`` (made by :func:`create`) chunk by
    chunk; returns the chunks' CRC-32s (the format's chunk table)."""
    codes = np.ascontiguousarray(codes, dtype="<u2")
    n, length = len(codes), ds.chunks[0]
    count = -(-n // length)
    crcs = np.empty(count, dtype=np.uint32)

    def encode(k0: int) -> tuple[int, list[bytes]]:       # in a thread
        z = getattr(_local, "compressor", None)
        if z is None:
            z = _local.compressor = zstandard.ZstdCompressor(level=LEVEL)
        kern, buf, out = _kernels(), np.empty(2 * length, dtype=np.uint8), []
        for k in range(k0, min(count, k0 + BATCH)):
            part = codes[k * length:(k + 1) * length]
            crcs[k] = chunk_crc(name, k, part)
            kern.shuffle_chunk(part, buf)
            body = z.compress(buf)
            out.append(body + kern.fletcher32(body).to_bytes(4, "little"))
        return k0, out

    def store(done: tuple[int, list[bytes]]) -> None:
        k0, chunks = done
        for j, data in enumerate(chunks):
            ds.id.write_direct_chunk(((k0 + j) * length,), data)

    _pipeline((lambda k0=k0: encode(k0) for k0 in range(0, count, BATCH)), store,
              count > BATCH)
    return crcs


def _decoder(ds: h5py.Dataset, name: str, crcs: np.ndarray, path: object) -> Callable:
    """``decode(k, raw, part)``: chunk ``k``'s stored bytes ``raw`` checked (its
    Fletcher-32, its zstd frame and size) and decoded into ``part``, whose CRC-32 must
    be ``crcs[k]``; in any thread.  ``path`` names the file in errors."""
    length = ds.chunks[0]

    def damaged(k: int, what: str) -> CorruptDatabaseError:
        return CorruptDatabaseError(f"{path}: subspace {name} is damaged (the chunk at slot "
                                    f"{k * length} {what})")

    def decode(k: int, raw: bytes, part: np.ndarray) -> None:
        d = getattr(_local, "decompressor", None)
        if d is None:
            d = _local.decompressor = zstandard.ZstdDecompressor()
        kern = _kernels()
        body = memoryview(raw)[:-4]
        if len(raw) < 4 or kern.fletcher32(body) != int.from_bytes(raw[-4:], "little"):
            raise damaged(k, "fails its Fletcher-32")
        try:
            if zstandard.frame_content_size(body) != 2 * length:
                raise damaged(k, f"is not a zstd frame of {2 * length} bytes")
            plain = d.decompress(body)
        except zstandard.ZstdError as exc:
            raise damaged(k, f"cannot be decompressed: {exc}") from None
        kern.unshuffle_chunk(plain, part)
        if chunk_crc(name, k, part) != int(crcs[k]):
            raise damaged(k, "fails its CRC-32")

    def fetch(k: int) -> bytes:          # HDF5 only fetches (under its lock)
        mask, raw = ds.id.read_direct_chunk((k * length,))
        if mask:
            raise damaged(k, "skipped a filter")
        return raw

    decode.fetch = fetch
    return decode


def read(ds: h5py.Dataset, name: str, first: int, last: int, crcs: np.ndarray,
         path: object) -> np.ndarray:
    """The codes of chunks ``first``..``last - 1`` of ``ds`` (:func:`codable`), each
    checked against its Fletcher-32 and its CRC-32 in ``crcs`` (the whole table);
    ``path`` names the file in errors."""
    n, length = ds.shape[0], ds.chunks[0]
    lo, hi = first * length, min(n, last * length)
    out = np.empty(max(0, hi - lo), dtype=np.uint16)
    decode = _decoder(ds, name, crcs, path)

    def task(k0: int, raws: list[bytes]) -> None:     # in a thread
        for k, raw in enumerate(raws, k0):
            decode(k, raw, out[k * length - lo:min(hi, (k + 1) * length) - lo])

    def tasks() -> Iterator[Callable[[], None]]:
        for k0 in range(first, last, BATCH):
            raws = [decode.fetch(k) for k in range(k0, min(last, k0 + BATCH))]
            yield lambda k0=k0, raws=raws: task(k0, raws)

    _pipeline(tasks(), lambda _: None, last - first > BATCH)
    return out


def read_chunks(ds: h5py.Dataset, name: str, chunks: Sequence[int], crcs: np.ndarray,
                path: object) -> list[np.ndarray]:
    """The codes of the chunks numbered ``chunks`` (any, in any order) of ``ds``, checked
    as :func:`read` checks them, decoded in threads where there are many: a batch of
    probes scattered over a subspace reads each chunk it needs once."""
    n, length = ds.shape[0], ds.chunks[0]
    out = [np.empty(min(n, (k + 1) * length) - k * length, dtype=np.uint16) for k in chunks]
    decode = _decoder(ds, name, crcs, path)

    def task(group: list[tuple[int, bytes, np.ndarray]]) -> None:    # in a thread
        for k, raw, part in group:
            decode(k, raw, part)

    def tasks() -> Iterator[Callable[[], None]]:
        for j0 in range(0, len(chunks), BATCH // 4):
            group = [(k, decode.fetch(k), out[j]) for j, k in
                     enumerate(chunks[j0:j0 + BATCH // 4], j0)]
            yield lambda group=group: task(group)

    _pipeline(tasks(), lambda _: None, len(chunks) > BATCH // 4)
    return out
