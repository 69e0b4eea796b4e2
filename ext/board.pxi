# Board tables as flat C arrays, filled once at import from solver.board (the single
# source of truth), so kernels never touch Python objects.
#
# Provides: FULL, ADJ, MILL, MILL_AT, SYM, SYM_INV; popcount, ctz, popcount64,
#           apply_sym_slow; the C integer types and numpy for the other files.
# Uses:     nothing from the other .pxi files (it is included first).

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t, int8_t
import numpy as np
cimport numpy as cnp

from solver import board as _board

cnp.import_array()

cdef extern from *:
    """
    static inline int mu_popcount(unsigned int x) { return __builtin_popcount(x); }
    static inline int mu_ctz(unsigned int x) { return __builtin_ctz(x); }
    static inline int mu_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    """
    int popcount "mu_popcount"(uint32_t x) nogil
    int ctz "mu_ctz"(uint32_t x) nogil
    int popcount64 "mu_popcount64"(uint64_t x) nogil

cdef uint32_t FULL = (1 << 24) - 1

cdef uint32_t ADJ[24]            # neighbours of each point
cdef uint32_t MILL[16]           # the 16 mills
cdef uint32_t MILL_AT[24][2]     # the two mills through each point
cdef uint8_t SYM[16][24]         # SYM[g][p]: image of point p under symmetry g
cdef uint8_t SYM_INV[16]         # inverse of each symmetry


cdef void _init_board_tables():
    cdef int p, g, k
    for p in range(24):
        ADJ[p] = _board.ADJACENT[p]
        mills = _board.MILLS_THROUGH[p]
        assert len(mills) == 2
        MILL_AT[p][0] = mills[0]
        MILL_AT[p][1] = mills[1]
    for k in range(16):
        MILL[k] = _board.MILLS[k]
    for g in range(16):
        for p in range(24):
            SYM[g][p] = _board.SYMMETRIES[g][p]
        SYM_INV[g] = _board.inverse_symmetry(g)

_init_board_tables()


cdef inline uint32_t apply_sym_slow(int g, uint32_t mask) noexcept nogil:
    """Image of a point set under symmetry g, bit by bit (tables elsewhere are faster)."""
    cdef uint32_t out = 0
    while mask:
        out |= (<uint32_t>1) << SYM[g][ctz(mask)]
        mask &= mask - 1
    return out
