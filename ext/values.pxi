# Statistics of stored value codes (docs/design.md §5): the histogram from which
# solver.values.summarize takes the counts and longest values that every file records.
#
# Provides: code_histogram.
# Uses:     prange (retro.pxi), threadid.
#
# numpy's bincount widens every code to 64 bits and counts on one core: 2.4-7 ns a slot
# a block at a time, 1.8-2.7 s of a large pair's 11-17 s write, which the build waits
# for (docs/benchmarks.md, "The whole phase on an AMD EPYC of family 25").  Here each
# thread counts its share of the slots into histograms of its own (0.4-0.6 ns a slot on
# two), two of them so that runs of one code (the draws, the slack) do not wait on the
# same counter, and the rows are added at the end.

from cython.parallel cimport threadid

cdef enum:
    HIST_BLOCK = 1 << 16    # slots a thread takes at a time


def code_histogram(const uint16_t[::1] codes, int jobs=2):
    """How many slots hold each code: an int64 array of 65536 counts.

    >>> import numpy as np
    >>> h = code_histogram(np.array([0, 3, 3, 0xFFFF], dtype=np.uint16))
    >>> int(h[0]), int(h[3]), int(h[0xFFFF]), int(h.sum())
    (1, 2, 1, 4)
    """
    check_jobs(jobs)        # (each thread's rows take 1 MiB: a bound on them too)
    rows = np.zeros((2 * jobs, 0x10000), dtype=np.int64)
    cdef int64_t[:, ::1] h = rows
    cdef int64_t n = codes.shape[0]
    cdef int64_t blocks = (n + HIST_BLOCK - 1) // HIST_BLOCK
    cdef int64_t b, i, lo, hi
    cdef int t
    for b in prange(blocks, nogil=True, num_threads=jobs, schedule="static"):
        t = 2 * threadid()
        lo = b * HIST_BLOCK
        hi = min(lo + HIST_BLOCK, n)
        i = lo
        while i + 1 < hi:
            h[t, codes[i]] += 1
            h[t + 1, codes[i + 1]] += 1
            i = i + 2
        if i < hi:
            h[t, codes[i]] += 1
    return rows.sum(axis=0)
