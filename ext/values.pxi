# Statistics of stored value codes (docs/design.md §5): the histogram from which
# solver.values.summarize takes the counts and longest values that every file records.
#
# Provides: code_histogram, dtz_codes, against_plain.
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


# --- the codes of the tables of the quiet-ply rule (solver.dtz, docs/design.md §3) ----
#
# The build of those tables turns codes of one kind into another some five times a slot
# (the capture targets' codes into the codes a solve reads, a solve's codes into DTZ
# codes, DTZ codes into each solve's rounding for the check): in numpy each is a dozen
# passes with temporaries, and took a third of the build of pair 4-8.  Here one pass.

cdef enum:
    DTZ_ROUND_FIRST = 0     # DTZ codes -> the first solve's codes (1 + rounded plies)
    DTZ_ROUND_SECOND = 1    # DTZ codes -> the second solve's
    DTZ_EXIT_FIRST = 2      # a capture target's DTZ codes -> the taker's codes, first solve
    DTZ_EXIT_SECOND = 3     # the same for the second solve
    DTZ_FROM_PLIES = 4      # a solve's codes whose plies are the DTZ -> DTZ codes
    DTZ_ENTRY = 5           # DTZ codes -> what the placement phase's pass under the rule
                            # reads: a win in 1, a loss in 0, a cursed win or blessed loss a
                            # draw (only the value: the placement files then hold plies to
                            # the moving phase, nearly one number a subspace, and compress)
    DTZ_FROM_SECOND = 6     # the second rounding's codes -> DTZ codes, where the DTZ is of
                            # the first rounding's parity (two plies less; the check keeps
                            # the others aside)


cdef inline uint16_t dtz_convert(uint16_t c, int mode, int limit) noexcept nogil:
    cdef int t, win, lost, real, taker
    if c == 0 or c == 0xFFFF:           # a draw and a slack slot stay as they are
        return c
    if mode == DTZ_FROM_PLIES:
        t = c - 1
        return <uint16_t>(2 * t if t & 1 else 2 * t + 1)
    if mode == DTZ_FROM_SECOND:
        t = c - 1
        return <uint16_t>(2 * (t - 2) if t & 1 else 2 * (t - 2) + 1)
    t = c >> 1
    win = (c & 1) == 0
    if mode == DTZ_ENTRY:
        return 0 if t > limit else 2 if win else 1
    if mode == DTZ_ROUND_FIRST:
        return <uint16_t>(1 + ((t | 1) if win else ((t + 1) & ~1)))
    if mode == DTZ_ROUND_SECOND:
        return <uint16_t>(1 + (((t + 1) | 1) if win else ((t + 2) & ~1)))
    # a capture target: the opponent to move there; its loss is the taker's win
    lost = not win
    real = t <= limit
    if real and not lost:
        return 2                        # the loser's mill into a win the rule keeps
    taker = 1 if real else ((limit + 1) | 1) if lost else ((limit + 2) & ~1)
    return <uint16_t>(taker + 2 if mode == DTZ_EXIT_SECOND else taker)


def dtz_codes(const uint16_t[::1] codes, uint16_t[::1] out, int mode, int limit, int jobs=2):
    """Convert ``codes`` into ``out`` (the same length; it may be ``codes`` itself) as
    ``mode`` says: 0, 1 the first or second solve's rounding of DTZ codes, 2, 3 the codes
    a first or second solve reads for a capture target of these DTZ codes under a rule of
    ``limit`` plies, 4 a solve's codes whose plies are the DTZ into DTZ codes, 5 the
    first rounding of DTZ codes with those above ``limit`` drawn (the moving positions
    where the placement phase's pass under the rule enters; solver.dtz's ``rounded``,
    ``exit_codes``, the first solve's result and ``entry_codes``), 6 the second
    rounding back into DTZ codes where they are of the first rounding's parity (the
    check's way back)."""
    cdef int64_t i, n = codes.shape[0]
    check_jobs(jobs)
    check_size("out", out.shape[0], n, "the length of codes")
    if not 0 <= mode <= DTZ_FROM_SECOND:
        raise ValueError(f"no conversion {mode}")
    for i in prange(n, nogil=True, num_threads=jobs, schedule="static"):
        out[i] = dtz_convert(codes[i], mode, limit)


# --- the placement phase's files of the rule, stored against the plain ones ---------
#
# (solver.dtz, docs/format.md) A slot stores 0 where the plain code predicts the code
# under the rule (a win at the plies ``win``, a loss at ``loss``, a draw a draw), else
# that code + 1; slack stays slack.  In numpy the ten passes of a block cost some 8 ns
# a slot, a quarter of the placement phase's pass under the rule, which reads each of
# its children so (docs/benchmarks.md).  Here one pass.

def against_plain(uint16_t[::1] codes, const uint16_t[::1] plain, int win, int loss, bint store,
                  int jobs=2):
    """Turn ``codes`` (the same length as ``plain``), in place, into their differences
    from what the plain codes predict (``store``) or back.  Returns the number of slots
    where one of the two is slack and the other not (0: the conversion is whole).

    >>> import numpy as np
    >>> c = np.array([2, 0, 3, 0xFFFF], dtype=np.uint16)
    >>> against_plain(c, np.array([4, 6, 3, 0xFFFF], dtype=np.uint16), 2, 3, True), c.tolist()
    (0, [0, 1, 0, 65535])
    >>> against_plain(c, np.array([4, 6, 3, 0xFFFF], dtype=np.uint16), 2, 3, False), c.tolist()
    (0, [2, 0, 3, 65535])
    """
    cdef int64_t i, n = codes.shape[0], bad = 0
    cdef uint16_t p, c, guess
    check_jobs(jobs)
    check_size("plain", plain.shape[0], n, "the length of codes")
    for i in prange(n, nogil=True, num_threads=jobs, schedule="static"):
        p = plain[i]
        c = codes[i]
        if (p == 0xFFFF) != (c == 0xFFFF):
            bad += 1
        elif p != 0xFFFF:
            guess = 0 if p == 0 else <uint16_t>(win if (p & 1) == 0 else loss)
            if store:
                codes[i] = 0 if c == guess else <uint16_t>(c + 1)
            else:
                codes[i] = guess if c == 0 else <uint16_t>(c - 1)
    return bad
