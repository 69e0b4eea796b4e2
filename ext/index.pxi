# Indexing: the map between positions of a subspace m-o (m stones of the side to move,
# o of the opponent) and slots of a flat array.
#
# STUB (no symmetry): slot = rank(own) * C(24-m, o) + rank(opp among the free points).
# Every slot is real.  The symmetry-reduced scheme replaces this with the same interface:
#   num_slots(m, o) -> int64            slots of subspace m-o
#   index_of(m, o, own, opp) -> int64   slot of a position (all 16 images: the same slot)
#   position_of(m, o, slot, &own, &opp) canonical position of a slot
#   slot_is_real(m, o, slot) -> bint    whether a canonical position uses the slot

cdef uint64_t BINOM[25][25]


cdef void _init_binomials():
    cdef int n, k
    for n in range(25):
        for k in range(25):
            BINOM[n][k] = 0
        BINOM[n][0] = 1
        for k in range(1, n + 1):
            BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]

_init_binomials()


cdef inline uint64_t rank_set(uint32_t s) noexcept nogil:
    """Combinatorial number system: rank of a k-set among all k-sets of bit positions."""
    cdef uint64_t r = 0
    cdef int i = 1
    while s:
        r += BINOM[ctz(s)][i]
        i += 1
        s &= s - 1
    return r


cdef inline uint32_t unrank_set(uint64_t r, int k, int n) noexcept nogil:
    cdef uint32_t s = 0
    cdef int p = n - 1
    while k > 0:
        while BINOM[p][k] > r:
            p -= 1
        s |= (<uint32_t>1) << p
        r -= BINOM[p][k]
        k -= 1
        p -= 1
    return s


cdef inline uint32_t compact(uint32_t x, uint32_t mask) noexcept nogil:
    """Software PEXT: gather the bits of x at the positions set in mask."""
    cdef uint32_t out = 0
    cdef int i = 0
    while mask:
        if x & mask & (~mask + 1):
            out |= (<uint32_t>1) << i
        i += 1
        mask &= mask - 1
    return out


cdef inline uint32_t deposit(uint32_t x, uint32_t mask) noexcept nogil:
    """Software PDEP: scatter the low bits of x to the positions set in mask."""
    cdef uint32_t out = 0
    while mask:
        if x & 1:
            out |= mask & (~mask + 1)
        x >>= 1
        mask &= mask - 1
    return out


cdef inline int64_t num_slots(int m, int o) noexcept nogil:
    return <int64_t>(BINOM[24][m] * BINOM[24 - m][o])


cdef inline int64_t index_of(int m, int o, uint32_t own, uint32_t opp) noexcept nogil:
    return <int64_t>(rank_set(own) * BINOM[24 - m][o] + rank_set(compact(opp, FULL & ~own)))


cdef inline void position_of(int m, int o, int64_t slot, uint32_t* own, uint32_t* opp) noexcept nogil:
    cdef uint64_t per = BINOM[24 - m][o]
    own[0] = unrank_set(<uint64_t>slot // per, m, 24)
    opp[0] = deposit(unrank_set(<uint64_t>slot % per, o, 24 - m), FULL & ~own[0])


cdef inline bint slot_is_real(int m, int o, int64_t slot) noexcept nogil:
    return True


def subspace_slots(int m, int o):
    """Number of slots of subspace m-o."""
    return num_slots(m, o)


def index_position(int m, int o, uint32_t own, uint32_t opp):
    """Slot of one position of subspace m-o."""
    return index_of(m, o, own, opp)


def position_at(int m, int o, int64_t slot):
    """(own, opp) masks of the canonical position at a slot."""
    cdef uint32_t a, b
    position_of(m, o, slot, &a, &b)
    return a, b


def is_real_slot(int m, int o, int64_t slot):
    return slot_is_real(m, o, slot)


#: Recorded in every database file; a reader refuses files of another scheme.
INDEX_SCHEME = "plain-1"
