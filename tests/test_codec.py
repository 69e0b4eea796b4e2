"""The chunk codec (solver.codec): chunks coded in threads outside HDF5 are the bytes
HDF5's own pipeline (shuffle -> zstd -> fletcher32) makes and reads, and a damaged chunk
is refused, never decoded into wrong values."""

from __future__ import annotations

import h5py
import hdf5plugin
import numpy as np
import pytest
import zstandard

from solver import codec, storage
from solver._kernels import fletcher32, shuffle_chunk, unshuffle_chunk
from solver.errors import CorruptDatabaseError

LENGTHS = [1, 2, 3, 1000, 65535, 65536, 65537, 3 * 65536 + 5, 40 * 65536 + 17]


def codes_of(n: int, seed: int) -> np.ndarray:
    """Codes like a subspace's: runs of draws and slack, short wins and losses, some
    long ones (so that chunks compress to odd and even sizes)."""
    rng = np.random.default_rng(seed)
    codes = rng.choice(np.array([0, 0, 0, 1, 2, 3, 4, 7, 0xFFFF], dtype=np.uint16), n)
    codes[rng.random(n) < 0.01] = rng.integers(0, 0x10000, n, dtype=np.uint16)[:1]
    return codes.astype(np.uint16)


def hdf5_dataset(f: h5py.File, name: str, codes: np.ndarray) -> h5py.Dataset:
    """A dataset written by HDF5's own filters, as format 2 files were before the codec."""
    return f.create_dataset(name, data=codes, chunks=(codec.chunk_length(len(codes)),),
                            shuffle=True, fletcher32=True, **hdf5plugin.Zstd(clevel=3))


@pytest.fixture
def h5(tmp_path):
    with h5py.File(tmp_path / "chunks.h5", "w") as f:
        yield f


@pytest.mark.parametrize("n", LENGTHS)
def test_hdf5_reads_what_the_codec_writes(h5, n):
    codes = codes_of(n, n)
    ds = codec.create(h5, "5-7", n)
    crcs = codec.write(ds, "5-7", codes)
    assert ds[()].tolist() == codes.tolist()            # HDF5's filters undo ours
    assert np.array_equal(crcs, storage.chunk_crcs("5-7", codes))
    assert codec.codable(ds)


@pytest.mark.parametrize("n", LENGTHS)
def test_the_codec_reads_what_hdf5_writes(h5, n):
    codes = codes_of(n, n + 1)
    ds = hdf5_dataset(h5, "7-5", codes)
    assert codec.codable(ds)
    crcs = storage.chunk_crcs("7-5", codes)
    assert np.array_equal(codec.read(ds, "7-5", 0, len(crcs), crcs, "f"), codes)
    # any run of chunks, as a probe and a block-wise verify ask for them
    for first in range(len(crcs)):
        last = min(len(crcs), first + 1 + first % 3)
        part = codec.read(ds, "7-5", first, last, crcs, "f")
        assert np.array_equal(part, codes[first * 65536:last * 65536])


def test_fletcher32_is_hdf5s(h5):
    """Checked against the checksums HDF5 appended to chunks of many compressed sizes,
    odd and even."""
    sizes = set()
    for seed in range(12):
        codes = codes_of(65536 * 3, 100 + seed)
        codes[: 1000 * seed] = np.arange(1000 * seed, dtype=np.uint16)
        ds = hdf5_dataset(h5, f"d{seed}", codes)
        for k in range(3):
            mask, raw = ds.id.read_direct_chunk((k * 65536,))
            assert mask == 0
            sizes.add(len(raw) % 2)
            assert fletcher32(raw[:-4]) == int.from_bytes(raw[-4:], "little")
    assert sizes == {0, 1}
    assert fletcher32(b"") == 0


def test_shuffle_round_trip_and_padding():
    rng = np.random.default_rng(3)
    for n, length in [(0, 1), (1, 1), (5, 8), (65536, 65536), (700, 1024)]:
        codes = rng.integers(0, 0x10000, n, dtype=np.uint16)
        out = np.full(2 * length, 0xAB, dtype=np.uint8)
        shuffle_chunk(codes, out)
        assert out[:n].tolist() == (codes & 0xFF).tolist()
        assert out[length:length + n].tolist() == (codes >> 8).tolist()
        assert not out[n:length].any() and not out[length + n:].any()
        back = np.empty(n, dtype=np.uint16)
        unshuffle_chunk(out, back)
        assert np.array_equal(back, codes)
    with pytest.raises(ValueError):
        shuffle_chunk(np.zeros(3, dtype=np.uint16), np.zeros(4, dtype=np.uint8))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_thread_count_writes_and_reads_the_same(h5, monkeypatch, threads):
    monkeypatch.setattr(codec, "THREADS", threads)
    codes = codes_of(50 * 65536 + 3, 9)
    ds = codec.create(h5, "6-6", len(codes))
    crcs = codec.write(ds, "6-6", codes)
    assert np.array_equal(codec.read(ds, "6-6", 0, len(crcs), crcs, "f"), codes)
    assert np.array_equal(ds[()], codes)


def rewrite(ds: h5py.Dataset, k: int, body: bytes) -> None:
    """Store ``body`` as chunk k with a Fletcher-32 that fits it."""
    ds.id.write_direct_chunk((k * 65536,), body + fletcher32(body).to_bytes(4, "little"))


def damage_cases(length: int):
    other = codes_of(65536, 77)
    shuffled = np.empty(2 * length, dtype=np.uint8)
    shuffle_chunk(other, shuffled)
    z = zstandard.ZstdCompressor(level=3)
    yield "Fletcher-32", None                                           # a flipped byte
    yield "(zstd frame|decompressed)", b"\x28\xb5\x2f\xfd" + bytes(40)  # a broken frame
    yield "(zstd frame|decompressed)", bytes(64)                        # no frame at all
    yield "not a zstd frame of 131072 bytes", z.compress(shuffled[:1000].tobytes())
    yield "CRC-32", z.compress(shuffled.tobytes())                      # another chunk's


@pytest.mark.parametrize("case", range(5))
def test_a_damaged_chunk_is_refused(h5, case):
    codes = codes_of(5 * 65536, 21)
    ds = codec.create(h5, "8-8", len(codes))
    crcs = codec.write(ds, "8-8", codes)
    what, body = list(damage_cases(65536))[case]
    if body is None:
        raw = bytearray(ds.id.read_direct_chunk((2 * 65536,))[1])
        raw[len(raw) // 2] ^= 0x10
        ds.id.write_direct_chunk((2 * 65536,), bytes(raw))
    else:
        rewrite(ds, 2, body)
    with pytest.raises(CorruptDatabaseError, match=f"8-8 is damaged.*slot 131072.*{what}"):
        codec.read(ds, "8-8", 0, len(crcs), crcs, "f")
    # the chunks around it still read
    assert np.array_equal(codec.read(ds, "8-8", 3, 5, crcs, "f"), codes[3 * 65536:])


def test_a_chunk_from_another_place_fails_its_crc(h5):
    codes = codes_of(4 * 65536, 5)
    ds = codec.create(h5, "4-4", len(codes))
    crcs = codec.write(ds, "4-4", codes)
    moved = ds.id.read_direct_chunk((0,))[1]
    ds.id.write_direct_chunk((65536,), moved)               # a valid chunk, wrong place
    with pytest.raises(CorruptDatabaseError, match="slot 65536 fails its CRC-32"):
        codec.read(ds, "4-4", 0, 4, crcs, "f")


def test_other_pipelines_are_left_to_hdf5(h5):
    codes = codes_of(70000, 1)
    assert not codec.codable(h5.create_dataset("a", data=codes, chunks=(65536,), compression="gzip"))
    assert not codec.codable(h5.create_dataset("b", data=codes, chunks=(1000,), shuffle=True,
                                               fletcher32=True, **hdf5plugin.Zstd(clevel=3)))
    assert not codec.codable(h5.create_dataset("c", data=codes.astype(np.uint32),
                                               chunks=(65536,), shuffle=True, fletcher32=True,
                                               **hdf5plugin.Zstd(clevel=3)))


@pytest.mark.parametrize("function", [shuffle_chunk, unshuffle_chunk, fletcher32])
def test_the_kernels_examples_hold(function):
    """The compiled functions' docstring examples (doctest does not find them itself)."""
    import doctest
    test = doctest.DocTestParser().get_doctest(function.__doc__, {function.__name__: function},
                                               function.__name__, None, 0)
    assert test.examples
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0


def test_a_variants_write_imports_no_other_boards_kernels(tmp_path):
    """The chunks' byte work knows no board: a build of another board codes its files
    with the kernels it has loaded, without importing the standard board's (whose index
    tables took 30 ms of the first pair's write); the file reads back."""
    import subprocess
    import sys

    script = f"""
import sys
import numpy as np
from pathlib import Path
from solver.kernels import kernels_for
from solver.board import BOARDS
from solver.rules import Rules
from solver import storage
rules = Rules.from_name("six-mens")
kernels = kernels_for(rules.board)
values = {{(m, o): (np.arange(kernels.subspace_slots(m, o)) % 7).astype(np.uint16)
          for m, o in ((3, 4), (4, 3))}}
path = Path({str(tmp_path)!r}) / "pair.h5"
storage.write_file(path, rules, {{key: codes.copy() for key, codes in values.items()}})
assert "solver._kernels" not in sys.modules, "the standard board's kernels were imported"
for (m, o), codes in values.items():
    assert np.array_equal(storage.read_subspace(path, rules, m, o), codes)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
