# A stored chunk's filters done outside HDF5 (docs/design.md §5, docs/format.md): the
# byte shuffle and the Fletcher-32 checksum of the pipeline shuffle -> zstd -> fletcher32
# that every subspace's dataset declares.  solver.codec compresses and decompresses
# the chunks itself, in threads (the zstd step is the zstandard package's), and hands
# HDF5 the finished bytes (write_direct_chunk / read_direct_chunk): HDF5 runs its
# filters under one lock a process, so through it a pair's file was compressed and
# read on one core while the other waited (docs/benchmarks.md).  The bodies hold no GIL,
# so the threads run side by side.
#
# Provides: shuffle_chunk, unshuffle_chunk, fletcher32.
# Uses:     nothing of the board.


def shuffle_chunk(const uint16_t[::1] codes, uint8_t[::1] out):
    """Write into ``out`` (2 L bytes: a chunk of L codes) what HDF5's shuffle filter
    makes of the chunk: every code's low byte, then every high byte; the codes past
    ``codes`` (the last chunk's tail outside the dataset) are 0, HDF5's fill value.

    >>> import numpy as np
    >>> out = np.empty(6, dtype=np.uint8)
    >>> shuffle_chunk(np.array([0x0102, 0x0304], dtype=np.uint16), out)
    >>> out.tolist()
    [2, 4, 0, 1, 3, 0]
    """
    cdef Py_ssize_t n = codes.shape[0], L = out.shape[0] // 2, i
    if out.shape[0] % 2 or n > L:
        raise ValueError("a shuffled chunk holds 2 bytes a code, and at least the codes given")
    with nogil:
        for i in range(n):
            out[i] = codes[i] & 0xFF
            out[L + i] = codes[i] >> 8
        for i in range(n, L):
            out[i] = 0
            out[L + i] = 0


def unshuffle_chunk(const uint8_t[::1] data, uint16_t[::1] out):
    """The codes of a shuffled chunk ``data`` (2 L bytes), the first len(out) of them.

    >>> import numpy as np
    >>> out = np.empty(2, dtype=np.uint16)
    >>> unshuffle_chunk(bytes([2, 4, 0, 1, 3, 0]), out)
    >>> [hex(c) for c in out]
    ['0x102', '0x304']
    """
    cdef Py_ssize_t n = out.shape[0], L = data.shape[0] // 2, i
    if data.shape[0] % 2 or n > L:
        raise ValueError("a shuffled chunk holds 2 bytes a code, and at least the codes asked for")
    with nogil:
        for i in range(n):
            out[i] = data[i] | (<uint16_t>data[L + i] << 8)


def fletcher32(const uint8_t[::1] data):
    """HDF5's Fletcher-32 of ``data`` (H5_checksum_fletcher32): 16-bit words, the first
    byte high, an odd last byte as a word's high byte; stored after the chunk's bytes,
    little-endian.

    >>> hex(fletcher32(b"abcde"))
    '0x4ff029c7'
    """
    cdef Py_ssize_t n = data.shape[0], words = n // 2, i = 0, t
    cdef uint32_t sum1 = 0, sum2 = 0
    with nogil:
        while words > 0:
            # 360 words keep the sums below 2^32 before they are folded
            t = 360 if words > 360 else words
            words -= t
            while t > 0:
                sum1 += (<uint32_t>data[i] << 8) | data[i + 1]
                sum2 += sum1
                i += 2
                t -= 1
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        if n % 2:
            sum1 += <uint32_t>data[i] << 8
            sum2 += sum1
            sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
            sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    return (sum2 << 16) | sum1
