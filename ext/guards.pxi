# Checks of what a Python caller hands the kernels, made once at a function's entry
# (never in a loop over slots: the kernels are the solver's speed).  The nogil code
# after them trusts its arguments (index.pxi: "no argument checks on the hot path"),
# so a bad one must be refused here, as a ValueError that names it: else it becomes a
# read or write out of bounds, or OpenMP aborting the interpreter.  The checks are
# plain ifs, not asserts, because ``python -O`` drops asserts.
#
# Provides: check_jobs (the threads of an OpenMP loop), check_size (an array's length),
#           off_board, check_position and check_positions (masks that are a position
#           of the board; arrays of them of one length).
# Uses:     board.pxi (FULL, BOARD_NAME).  Included by kernels.pxi and by oracle.pxi.

from solver import kernels as _kernels_py

# The most threads a compiled loop is given: solver.kernels.MAX_JOBS, the bound of the
# CLI's --jobs too, read once at import so that there is one number to change.
cdef int MAX_JOBS = _kernels_py.MAX_JOBS


cdef int check_jobs(int jobs, str name="jobs") except -1:
    """Refuse thread counts outside 1..MAX_JOBS: OpenMP's num_threads takes any int,
    and libgomp aborts (50000) or crashes (100000) where it cannot start them, and a
    count below 1 is no count of threads."""
    if not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"{name} must lie in 1..{MAX_JOBS}, not {jobs}")
    return 0


cdef int check_size(str name, Py_ssize_t got, int64_t want, str what="") except -1:
    """Refuse an array whose length is not the one the loops index it by (``what``
    says what the expected length counts, for the message)."""
    if got != want:
        raise ValueError(f"array {name} has {got} entries, expected {want}"
                         + (f" ({what})" if what else ""))
    return 0


cdef inline bint off_board(uint32_t own, uint32_t opp) noexcept nogil:
    """Whether (own, opp) is no position of the board: a point beyond it, or a point of
    both sides.  The move generator reads the board's tables at every point of the
    masks, and more stones than the board has points could make more moves than its
    buffers hold."""
    return (own | opp) & ~FULL or own & opp


cdef int check_position(uint32_t own, uint32_t opp, str where="") except -1:
    """Refuse masks that are no position of the board (off_board)."""
    if off_board(own, opp):
        raise ValueError(f"not a position of the {BOARD_NAME} board{where}: "
                         f"own={own:#08x} opp={opp:#08x}")
    return 0


cdef int check_positions(const uint32_t[::1] own, const uint32_t[::1] opp) except -1:
    """Refuse own/opp mask arrays of different lengths, or one pair of them that is no
    position (off_board): a pass of a few instructions a position before the real
    work, as index_batch checks."""
    cdef Py_ssize_t i, n = own.shape[0], bad = -1
    if opp.shape[0] != n:
        raise ValueError(f"arrays differ in length: own has {n} entries, opp {opp.shape[0]}")
    with nogil:
        for i in range(n):
            if off_board(own[i], opp[i]):
                bad = i
                break
    if bad >= 0:
        check_position(own[bad], opp[bad], f" (entry {bad})")
    return 0
