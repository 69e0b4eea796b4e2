# Indexing: the map between positions of a subspace m-o (m stones of the side to move,
# o of the opponent, 0 <= m, o <= MAX_STONES) and slots of a flat array, reduced by the
# board's NSYM symmetries (on the standard board: 24 points, 16 symmetries, 9 stones).
# Stones in hand are not part of the index (a placement subspace uses the
# same board index as the moving subspace with the same stones on the board).
#
# Scheme (see docs/design.md §2):
#   - CANON[m][rank(own)] (one entry per m-stone set, C(24, m) of them) holds the dense
#     number of the orbit representative of own (the smallest mask of its orbit), a
#     symmetry g with g(own) = representative, and a flag "representative has a
#     non-trivial stabiliser".
#   - g is applied to opp with per-byte tables (3 lookups); if the representative has a
#     non-trivial stabiliser H, opp is replaced by the smallest mask among its images
#     under H (for subsets of the same free points, a smaller mask is a smaller rank).
#   - opp is compacted into the 24 - m free points of the representative (PEXT: BMI2
#     when the compiler targets it, else per-byte tables) and ranked with the
#     combinatorial number system (colex; per-byte tables, 3 lookups).
#   slot = rep_number * C(24 - m, o) + rank.
#   Back: own = REP_MASK[m][slot // C(24 - m, o)], and opp = PDEP of the o-set with colex
#   rank slot % C(24 - m, o) (SETS[o], all o-sets in colex order) into the free points.
# A slot is real when its opp set is the smallest of its images under H; the other
# slots of representatives with non-trivial stabilisers are slack.
#
# Provides to the other kernels (all nogil, unchecked):
#   c_subspace_slots(m, o) -> int64              slots of subspace m-o
#   c_index_position(m, o, own, opp) -> int64    slot of a position (all 16 images: the same slot)
#   IndexFrame, c_index_frame(m, o, own, &f), c_index_in_frame(&f, opp): the same in
#                                                two steps, the first shared by all opp
#   c_index_of_image(&f, image)                  the second step for image = f.g(opp)
#   canon_entry(m, own), c_index_frame_of(m, o, own, e, &f): the first step in two, so
#                                                that a batch prefetches own's CANON entry
#   GroupWalk, group_walk_start, group_walk_batch, GROUP_BATCH: the positions of one
#                                                opponent set, in batches
#   batch_slots(m, o, opp, owns, ents, n, slots, codes, for_write): the slots of a
#                                                batch of own sets (group_walk_batch's)
#   successor_frames(o, m1, opp, victims, frames): the frames of their successors
#   prefetch_blocks(o, m1, victims, frames, quiet, capp): the blocks those frames
#                                                point into, fetched at a group's start
#   mark_slack(m, o, codes, code, jobs)          code at every slack slot
#   prefetch, prefetch_w                         (for a read, for a write)
#   c_position_at(m, o, slot, &own, &opp)        canonical position of a slot
#   c_is_real_slot(m, o, slot) -> bint           whether a canonical position uses the slot
#   MAX_STONES, ORBITS, c_apply_sym_fast; max_stones() for Python
# No argument checks on the hot path: own must have m stones, opp o stones, disjoint,
# and slots must lie in [0, c_subspace_slots).  The Python wrappers (subspace_slots,
# index_position, position_at, is_real_slot, the *_batch functions, ...; solver.index
# wraps them) check.  INDEX_SCHEME names the scheme in every database file.
# Uses: board.pxi (SYM, popcount, ctz, FULL).

cimport cython
from cython.parallel cimport prange

cdef extern from *:
    """
    #if defined(__BMI2__) && !defined(MUEHLE_SOFT_PEXT)
    #include <immintrin.h>
    #define MU_HAVE_BMI2 1
    static inline unsigned int mu_hw_pext(unsigned int x, unsigned int m) { return _pext_u32(x, m); }
    static inline unsigned int mu_hw_pdep(unsigned int x, unsigned int m) { return _pdep_u32(x, m); }
    #else
    #define MU_HAVE_BMI2 0
    /* never called: MU_HAVE_BMI2 == 0 selects the table versions */
    static inline unsigned int mu_hw_pext(unsigned int x, unsigned int m) { (void)x; (void)m; return 0; }
    static inline unsigned int mu_hw_pdep(unsigned int x, unsigned int m) { (void)x; (void)m; return 0; }
    #endif
    #if defined(__POPCNT__)
    #define MU_HAVE_POPCNT 1
    #else
    #define MU_HAVE_POPCNT 0
    #endif
    """
    const int MU_HAVE_POPCNT
    const int MU_HAVE_BMI2
    uint32_t hw_pext "mu_hw_pext"(uint32_t x, uint32_t m) nogil
    uint32_t hw_pdep "mu_hw_pdep"(uint32_t x, uint32_t m) nogil

cdef extern from *:
    """
    static inline void mu_prefetch(const void* p) { __builtin_prefetch(p, 0, 1); }
    static inline void mu_prefetch_w(void* p) { __builtin_prefetch(p, 1, 1); }
    """
    void prefetch "mu_prefetch"(const void* p) nogil
    void prefetch_w "mu_prefetch_w"(void* p) nogil      # (for a write)

# MAX_STONES (the stones a side the tables cover) is the board module's constant.
cdef uint64_t BINOM[25][25]
cdef uint32_t BINOM_T[MAX_STONES + 1][32]   # BINOM_T[k][q] = C(q, k) for q < NPTS, else 2^32 - 1
cdef uint32_t RANK8[3][25][256]   # colex rank share of byte b of a set, c stones below it
cdef uint32_t SYM8[NSYM][3][256]  # image under symmetry g of the points in byte b
cdef uint8_t PEXT8[256][256]      # [mask byte][x byte]: software PEXT of one byte
cdef uint8_t PDEP8[256][256]      # [mask byte][x byte]: software PDEP of one byte
cdef uint8_t POP8[256]            # popcount of a byte, where there is no POPCNT instruction

# Per stone count m = 0..9 (pointers into the numpy arrays kept in _TABLES)
cdef uint32_t* CANON[MAX_STONES + 1]     # rep << 5 | has_stabiliser << 4 | symmetry
cdef uint32_t* REP_MASK[MAX_STONES + 1]  # representative of each orbit
cdef uint16_t* REP_STAB[MAX_STONES + 1]  # bit g set: symmetry g != 0 fixes the representative
cdef uint32_t* SETS[MAX_STONES + 1]      # all m-sets in colex order: SETS[m][rank] = set
cdef int64_t ORBITS[MAX_STONES + 1]
_TABLES = {}


cdef void _init_binomials():
    cdef int n, k
    for n in range(25):
        for k in range(25):
            BINOM[n][k] = 0
        BINOM[n][0] = 1
        for k in range(1, n + 1):
            BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]

_init_binomials()


cdef void _init_binom_t():
    cdef int k, q
    for k in range(MAX_STONES + 1):
        for q in range(32):
            BINOM_T[k][q] = <uint32_t>BINOM[q][k] if q < NPTS else 0xFFFFFFFFu

_init_binom_t()


# ---------------------------------------------------------------------------------------
# Bit helpers

cdef inline int popcount8(uint32_t b) noexcept nogil:
    """Popcount of a byte: the instruction if the build targets it, else a table."""
    if MU_HAVE_POPCNT:
        return popcount(b)
    return POP8[b]


cdef inline uint32_t c_apply_sym_fast(int g, uint32_t s) noexcept nogil:
    """Image of the point set s under symmetry g (3 table lookups)."""
    return SYM8[g][0][s & 0xFF] | SYM8[g][1][(s >> 8) & 0xFF] | SYM8[g][2][(s >> 16) & 0xFF]


cdef inline uint32_t rank_fast(uint32_t s) noexcept nogil:
    """Colex rank of the set s among all sets of popcount(s) points (of at most 24)."""
    cdef uint32_t b0 = s & 0xFF, b1 = (s >> 8) & 0xFF
    cdef int c1 = popcount8(b0)
    cdef int c2 = c1 + popcount8(b1)
    return RANK8[0][0][b0] + RANK8[1][c1][b1] + RANK8[2][c2][(s >> 16) & 0xFF]


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
    """The k-set of the points 0..n-1 with colex rank r."""
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


cdef inline uint32_t unrank_fast(uint32_t r, int k) noexcept nogil:
    """The k-set (k <= MAX_STONES) with colex rank r among the k-sets of the NPTS points,
    branch-free: the largest element is the number of q with C(q, k) <= r, minus one."""
    cdef uint32_t s = 0
    cdef int q, p
    while k > 0:
        p = -1
        for q in range(NPTS):
            p += BINOM_T[k][q] <= r
        s |= (<uint32_t>1) << p
        r -= BINOM_T[k][p]
        k -= 1
    return s


cdef inline uint32_t soft_pext(uint32_t x, uint32_t mask) noexcept nogil:
    cdef uint32_t m0 = mask & 0xFF, m1 = (mask >> 8) & 0xFF, m2 = (mask >> 16) & 0xFF
    cdef int c1 = popcount8(m0)
    cdef int c2 = c1 + popcount8(m1)
    return (<uint32_t>PEXT8[m0][x & 0xFF]
            | (<uint32_t>PEXT8[m1][(x >> 8) & 0xFF] << c1)
            | (<uint32_t>PEXT8[m2][(x >> 16) & 0xFF] << c2))


cdef inline uint32_t soft_pdep(uint32_t x, uint32_t mask) noexcept nogil:
    cdef uint32_t m0 = mask & 0xFF, m1 = (mask >> 8) & 0xFF, m2 = (mask >> 16) & 0xFF
    cdef uint32_t out = PDEP8[m0][x & 0xFF]
    x >>= popcount8(m0)
    out |= <uint32_t>PDEP8[m1][x & 0xFF] << 8
    x >>= popcount8(m1)
    return out | (<uint32_t>PDEP8[m2][x & 0xFF] << 16)


cdef inline uint32_t compact(uint32_t x, uint32_t mask) noexcept nogil:
    """PEXT on 24-bit masks: gather the bits of x at the positions set in mask."""
    if MU_HAVE_BMI2:
        return hw_pext(x, mask)
    return soft_pext(x, mask)


cdef inline uint32_t deposit(uint32_t x, uint32_t mask) noexcept nogil:
    """PDEP on 24-bit masks: scatter the low bits of x to the positions set in mask."""
    if MU_HAVE_BMI2:
        return hw_pdep(x, mask)
    return soft_pdep(x, mask)


# ---------------------------------------------------------------------------------------
# Tables

cdef void _init_byte_tables():
    cdef int g, b, v, c, j, k, i
    cdef uint32_t img, r, mbyte, x, out
    for g in range(NSYM):
        for b in range(3):
            for v in range(256):
                img = 0
                for j in range(8):
                    if v >> j & 1 and 8 * b + j < NPTS:
                        img |= (<uint32_t>1) << SYM[g][8 * b + j]
                SYM8[g][b][v] = img
    for b in range(3):
        for c in range(25):
            for v in range(256):
                r = 0
                k = c
                for j in range(8):
                    if v >> j & 1:
                        k += 1
                        if k <= 24:
                            r += <uint32_t>BINOM[8 * b + j][k]
                RANK8[b][c][v] = r
    for mbyte in range(256):
        POP8[mbyte] = <uint8_t>popcount(mbyte)
        for x in range(256):
            out = 0
            i = 0
            for j in range(8):
                if mbyte >> j & 1:
                    if x >> j & 1:
                        out |= (<uint32_t>1) << i
                    i += 1
            PEXT8[mbyte][x] = <uint8_t>out
            out = 0
            i = 0
            for j in range(8):
                if mbyte >> j & 1:
                    if x >> i & 1:
                        out |= (<uint32_t>1) << j
                    i += 1
            PDEP8[mbyte][x] = <uint8_t>out

_init_byte_tables()


cdef inline uint32_t next_same_popcount(uint32_t s) noexcept nogil:
    """Gosper's hack: the next larger mask with as many bits as s (s != 0); the division
    by the lowest bit is a shift by its position."""
    cdef uint32_t r = s + (s & (~s + 1))
    return ((r ^ s) >> (ctz(s) + 2)) | r


cdef enum:
    UNSEEN = 0xFFFFFFFF       # a canonical entry not yet written (no orbit has that many reps)

cdef int64_t _build_canon(int m, uint32_t* canon, uint32_t* reps, uint16_t* stabs,
                          uint32_t* sets) noexcept nogil:
    """Fill the canonical table of the m-stone sets and the table of all m-sets in colex
    order; returns the number of orbits.

    Sets are visited in increasing mask order, which is colex (rank) order, so the first
    set of an orbit met is its representative (the orbit's smallest mask).  Its images
    are written then, their entries fetched together: the table is larger than the
    caches, and one miss at a time (a set's look-up of its representative) made this
    most of the package's import time.  The image t = h(rep) gets the smallest g with
    g(t) = rep, which is the smallest inverse of an h taking rep to t."""
    cdef int64_t n = <int64_t>BINOM[NPTS][m], r, nreps = 0
    cdef uint32_t s = ((<uint32_t>1) << m) - 1, base, c
    cdef uint32_t img[16]
    cdef uint32_t at[16]
    cdef int g
    cdef uint16_t stab
    for r in range(n):
        canon[r] = UNSEEN
    for r in range(n):
        sets[r] = s
        if canon[r] == UNSEEN:
            stab = 0
            for g in range(1, NSYM):
                img[g] = c_apply_sym_fast(g, s)
                at[g] = rank_fast(img[g])
                prefetch_w(&canon[at[g]])
                if img[g] == s:
                    stab |= <uint16_t>(1 << g)
            base = <uint32_t>(nreps << 5) | (16 if stab else 0)
            reps[nreps] = s
            stabs[nreps] = stab
            canon[r] = base
            for g in range(1, NSYM):
                if img[g] != s:
                    c = canon[at[g]]
                    if c == UNSEEN or (c & 15) > SYM_INV[g]:
                        canon[at[g]] = base | SYM_INV[g]
            nreps += 1
        if m > 0 and r + 1 < n:
            s = next_same_popcount(s)
    return nreps


def _init_index_tables():
    cdef int m
    cdef int64_t n, nreps
    cdef uint32_t[::1] canon, reps, sets
    cdef uint16_t[::1] stabs
    for m in range(MAX_STONES + 1):
        n = <int64_t>BINOM[NPTS][m]
        canon_arr = np.empty(n, dtype=np.uint32)
        reps_arr = np.empty(n, dtype=np.uint32)
        stabs_arr = np.empty(n, dtype=np.uint16)
        sets_arr = np.empty(n, dtype=np.uint32)
        sets = sets_arr
        canon = canon_arr
        reps = reps_arr
        stabs = stabs_arr
        with nogil:
            nreps = _build_canon(m, &canon[0], &reps[0], &stabs[0], &sets[0])
        reps_arr = reps_arr[:nreps].copy()
        stabs_arr = stabs_arr[:nreps].copy()
        reps = reps_arr
        stabs = stabs_arr
        CANON[m] = &canon[0]
        REP_MASK[m] = &reps[0]
        REP_STAB[m] = &stabs[0]
        SETS[m] = &sets[0]
        ORBITS[m] = nreps
        for arr in (canon_arr, reps_arr, stabs_arr, sets_arr):
            arr.flags.writeable = False
        _TABLES[m] = (canon_arr, reps_arr, stabs_arr, sets_arr)

_init_index_tables()


# ---------------------------------------------------------------------------------------
# The index

cdef inline int64_t c_subspace_slots(int m, int o) noexcept nogil:
    return ORBITS[m] * <int64_t>BINOM[NPTS - m][o]


cdef inline uint32_t min_over_stabiliser(uint16_t stab, uint32_t opp) noexcept nogil:
    """Smallest image of opp under the symmetries in stab (and the identity)."""
    cdef uint32_t best = opp, t
    cdef int g
    while stab:
        g = ctz(stab)
        stab &= stab - 1
        t = c_apply_sym_fast(g, opp)
        if t < best:
            best = t
    return best


ctypedef struct IndexFrame:
    # What the slot of (own, opp) in m-o takes from own alone: the moves of one side
    # keep the other side's stones, so the successors of a position share one frame.
    int64_t base        # first slot of own's representative
    uint32_t free       # the representative's free points
    uint16_t stab       # its non-trivial stabiliser (0: trivial)
    int g               # the symmetry taking own to it


cdef inline const uint32_t* canon_entry(int m, uint32_t own) noexcept nogil:
    """Where own's entry of CANON[m] lies: a table of 1.4-5.2 MB for 7-9 stones, so a
    read far away, which a batch prefetches before c_index_frame_of reads it."""
    return &CANON[m][rank_fast(own)]


cdef inline void c_index_frame_of(int m, int o, uint32_t own, uint32_t e, IndexFrame* f) noexcept nogil:
    """c_index_frame, given own's entry e of CANON[m] (canon_entry)."""
    cdef uint32_t rep = e >> 5
    f.g = e & 15
    f.free = FULL & ~c_apply_sym_fast(f.g, own)
    f.stab = REP_STAB[m][rep] if e & 16 else 0
    f.base = <int64_t>rep * <int64_t>BINOM[NPTS - m][o]


cdef inline void c_index_frame(int m, int o, uint32_t own, IndexFrame* f) noexcept nogil:
    c_index_frame_of(m, o, own, CANON[m][rank_fast(own)], f)


cdef inline int64_t c_index_of_image(const IndexFrame* f, uint32_t image) noexcept nogil:
    """Slot of (own, opp), own being the stones f was made from and image = f.g(opp).
    A representative's frame has g = 0 (_build_canon), so there image is opp itself."""
    if f.stab:
        image = min_over_stabiliser(f.stab, image)
    return f.base + rank_fast(compact(image, f.free))


cdef inline int64_t c_index_in_frame(const IndexFrame* f, uint32_t opp) noexcept nogil:
    """Slot of (own, opp), own being the stones f was made from."""
    return c_index_of_image(f, c_apply_sym_fast(f.g, opp))


cdef inline int64_t c_index_position(int m, int o, uint32_t own, uint32_t opp) noexcept nogil:
    cdef IndexFrame f
    c_index_frame(m, o, own, &f)
    return c_index_in_frame(&f, opp)


cdef inline void c_position_at(int m, int o, int64_t slot, uint32_t* own, uint32_t* opp) noexcept nogil:
    cdef int64_t per = <int64_t>BINOM[NPTS - m][o]
    cdef uint32_t rep_own = REP_MASK[m][slot // per]
    own[0] = rep_own
    opp[0] = deposit(SETS[o][slot % per], FULL & ~rep_own)


cdef inline bint opp_is_canonical(uint16_t stab, uint32_t opp) noexcept nogil:
    """Whether opp is the smallest of its images under the stabiliser stab."""
    cdef int g
    while stab:
        g = ctz(stab)
        stab &= stab - 1
        if c_apply_sym_fast(g, opp) < opp:
            return False
    return True


# --- walks grouped by the opponent's stones (docs/design.md §4) --------------------------
#
# The positions (own, Y) of m-o for one representative Y of the o-stone sets: own runs
# over the m-sets of Y's free points in colex order (compacted into them), one of each
# orbit under Y's stabiliser, so over all representatives every real slot of m-o comes
# once.  The kernels that walk so (the build's check, the grouped pull, the placement
# pass) find the successors of all these positions in a few blocks near each other;
# each position's own slot is the one access far away, which a batch prefetches.

cdef enum:
    GROUP_BATCH = 16       # positions of a walk whose own slots are prefetched together


ctypedef struct GroupWalk:
    uint32_t opp        # Y
    uint32_t free       # Y's free points
    uint32_t x          # the next own set, compacted into free
    uint16_t stab       # Y's stabiliser (0: trivial)
    int m, o
    int64_t left        # own sets not yet enumerated


cdef inline void group_walk_start(GroupWalk* w, int m, int o, int64_t rep) noexcept nogil:
    """A walk over the positions of m-o whose opponent set is representative rep of o."""
    w.m = m
    w.o = o
    w.opp = REP_MASK[o][rep]
    w.stab = REP_STAB[o][rep]
    w.free = FULL & ~w.opp
    w.x = ((<uint32_t>1) << m) - 1
    w.left = <int64_t>BINOM[NPTS - o][m]


cdef inline int group_walk_batch(GroupWalk* w, uint32_t* owns, int64_t* slots,
                                 const uint16_t* codes, bint for_write) noexcept nogil:
    """The walk's next positions, at most GROUP_BATCH: their own sets and, where
    ``slots`` is given, their slots, and where ``codes`` is given too, the codes at
    those slots prefetched (``for_write``: to be written).  Returns how many; 0 when
    the walk is over."""
    cdef uint32_t own
    cdef const uint32_t* ents[GROUP_BATCH]     # the own sets' entries of CANON[m]
    cdef int nb = 0, j
    while w.left > 0 and nb < GROUP_BATCH:
        own = deposit(w.x, w.free)
        w.left -= 1
        if w.m > 0 and w.left > 0:
            w.x = next_same_popcount(w.x)
        if w.stab == 0 or opp_is_canonical(w.stab, own):
            owns[nb] = own
            if slots != NULL:       # (else the caller computes the slots it needs)
                ents[nb] = canon_entry(w.m, own)
                prefetch(ents[nb])
            nb += 1
    if slots != NULL:
        batch_slots(w.m, w.o, w.opp, owns, ents, nb, slots, codes, for_write)
    return nb


cdef inline void batch_slots(int m, int o, uint32_t opp, const uint32_t* owns,
                             const uint32_t** ents, int n, int64_t* slots,
                             const uint16_t* codes, bint for_write) noexcept nogil:
    """The slots of (owns[j], opp) in m-o, j < n, from the owns' entries of CANON[m]
    (``ents``, canon_entry, prefetched by the caller), into ``slots``; where ``codes``
    is given, the codes at those slots prefetched (``for_write``: to be written)."""
    cdef IndexFrame f
    cdef int j
    for j in range(n):
        c_index_frame_of(m, o, owns[j], ents[j][0], &f)
        slots[j] = c_index_in_frame(&f, opp)
        if codes != NULL:
            if for_write:
                prefetch_w(<void*>&codes[slots[j]])
            else:
                prefetch(&codes[slots[j]])


cdef inline void successor_frames(int o, int m1, uint32_t opp, uint32_t victims,
                                  IndexFrame* frames) noexcept nogil:
    """The index frames of the successors of positions (own, opp) whose mover has m1
    stones after its move: frames[NPTS] for the quiet ones (opp to move, o stones),
    frames[t] for those after taking t, for each point t of victims."""
    c_index_frame(o, m1, opp, &frames[NPTS])
    while victims:
        c_index_frame(o - 1, m1, opp & ~((<uint32_t>1) << ctz(victims)), &frames[ctz(victims)])
        victims &= victims - 1


cdef enum:
    BLOCK_PREFETCH_MAX = 1 << 20    # bytes of a group's successor blocks fetched ahead


cdef inline void prefetch_blocks(int o, int m1, uint32_t victims, const IndexFrame* frames,
                                 const uint16_t* quiet, const uint16_t* capp) noexcept nogil:
    """Fetch ahead the blocks where the successors of a group of opponent sets Y lie
    (frames as successor_frames makes them): the quiet ones' in ``quiet`` (unless NULL)
    and the captures' of each of ``victims`` in ``capp`` (unless NULL), where they are
    BLOCK_PREFETCH_MAX bytes or less together.  A walk reads each such line first at a
    place no hardware prefetcher can guess (the slots of a block are permuted by the
    symmetry of Y - v), a miss each, one after another; fetched together at the start
    of the group, the misses overlap."""
    cdef int64_t i, base
    cdef int64_t qn = <int64_t>BINOM[NPTS - o][m1] if quiet != NULL else 0
    cdef int64_t cn = <int64_t>BINOM[NPTS - o + 1][m1] if capp != NULL else 0
    if 2 * (qn + cn * popcount(victims)) > BLOCK_PREFETCH_MAX:
        return
    base = frames[NPTS].base
    i = 0
    while i < qn:
        prefetch(&quiet[base + i])
        i += 32
    while victims and cn:
        base = frames[ctz(victims)].base
        victims &= victims - 1
        i = 0
        while i < cn:
            prefetch(&capp[base + i])
            i += 32


cdef inline bint c_is_real_slot(int m, int o, int64_t slot) noexcept nogil:
    cdef int64_t per = <int64_t>BINOM[NPTS - m][o]
    cdef int64_t rep = slot // per
    cdef uint16_t stab = REP_STAB[m][rep]
    if stab == 0:
        return True
    return opp_is_canonical(
        stab, deposit(SETS[o][slot % per], FULL & ~REP_MASK[m][rep]))


cdef int64_t _real_slots_of_rep(int m, int o, int64_t rep, uint16_t* mark=NULL,
                                uint16_t code=0) noexcept nogil:
    """Real slots of one representative: all C(24-m, o) if its stabiliser is trivial,
    else the slots (walked in slot order) whose opp set passes opp_is_canonical.  Where
    ``mark`` is given, ``code`` is written at each of its other slots (the slack ones)."""
    cdef int64_t per = <int64_t>BINOM[NPTS - m][o], r, count = 0
    cdef uint16_t stab = REP_STAB[m][rep]
    cdef uint32_t free, x
    if stab == 0:
        return per
    free = FULL & ~REP_MASK[m][rep]
    x = ((<uint32_t>1) << o) - 1          # colex order: slot rep * per + r holds x
    for r in range(per):
        if opp_is_canonical(stab, deposit(x, free)):
            count += 1
        elif mark != NULL:
            mark[rep * per + r] = code
        if o > 0 and r + 1 < per:
            x = next_same_popcount(x)
    return count


cdef void mark_slack(int m, int o, uint16_t* codes, uint16_t code, int jobs) noexcept nogil:
    """Write ``code`` at every slack slot of m-o: only representatives with a
    non-trivial stabiliser have them, a few per cent of the blocks."""
    cdef int64_t rep
    for rep in prange(ORBITS[m], num_threads=jobs, schedule="dynamic", chunksize=64):
        if REP_STAB[m][rep]:
            _real_slots_of_rep(m, o, rep, codes, code)


# ---------------------------------------------------------------------------------------
# Python access (checked; the module solver.index wraps these)

def max_stones():
    """Most stones a side the index covers (the board module's MAX_STONES)."""
    return MAX_STONES


def have_bmi2():
    """Whether the build uses the BMI2 PEXT/PDEP instructions (else byte tables)."""
    return bool(MU_HAVE_BMI2)


cdef inline int _check_mo(int m, int o) except -1:
    if not (0 <= m <= MAX_STONES and 0 <= o <= MAX_STONES and m + o <= NPTS):
        raise ValueError(f"no index for {m} and {o} stones (0..{MAX_STONES} each)")
    return 0


cdef inline int _check_pos(int m, int o, uint32_t own, uint32_t opp) except -1:
    if (own | opp) & ~FULL or own & opp or popcount(own) != m or popcount(opp) != o:
        raise ValueError(f"not a position of {m}-{o}: own={own:#08x} opp={opp:#08x}")
    return 0


cdef inline int _check_slot(int m, int o, int64_t slot) except -1:
    if not 0 <= slot < c_subspace_slots(m, o):
        raise IndexError(f"slot {slot} out of range for {m}-{o} ({c_subspace_slots(m, o)} slots)")
    return 0


def subspace_slots(int m, int o):
    """Number of slots of subspace m-o."""
    _check_mo(m, o)
    return c_subspace_slots(m, o)


def index_position(int m, int o, uint32_t own, uint32_t opp):
    """Slot of one position of subspace m-o."""
    _check_mo(m, o)
    _check_pos(m, o, own, opp)
    return c_index_position(m, o, own, opp)


def position_at(int m, int o, int64_t slot):
    """(own, opp) masks of the canonical position at a slot (for a slack slot: the
    position whose canonical form lives at another slot)."""
    cdef uint32_t a, b
    _check_mo(m, o)
    _check_slot(m, o, slot)
    c_position_at(m, o, slot, &a, &b)
    return a, b


def is_real_slot(int m, int o, int64_t slot):
    _check_mo(m, o)
    _check_slot(m, o, slot)
    return c_is_real_slot(m, o, slot)


def orbit_count(int m):
    """Number of orbits of m-stone sets under the board's symmetries (from the table)."""
    _check_mo(m, 0)
    return ORBITS[m]


def index_tables(int m):
    """Read-only arrays (canon, representatives, stabilisers, all sets in colex order)
    of the m-stone sets."""
    _check_mo(m, 0)
    return _TABLES[m]


def canonical_set(uint32_t own):
    """(representative mask, orbit number, symmetry g with g(own) = representative)."""
    cdef int m = popcount(own)
    if own & ~FULL:
        raise ValueError(f"not a set of points 0..{NPTS - 1}")
    _check_mo(m, 0)
    cdef uint32_t e = CANON[m][rank_fast(own)]
    return REP_MASK[m][e >> 5], e >> 5, e & 15


def apply_sym_fast(int g, uint32_t mask):
    """Image of mask under symmetry g via the byte tables (tests compare with board)."""
    if not 0 <= g < NSYM:
        raise ValueError("symmetry number out of range")
    return c_apply_sym_fast(g, mask & FULL)


def bit_ops_check(uint32_t x, uint32_t mask):
    """(fast rank, loop rank, compact, soft pext, deposit, soft pdep, fast unrank, loop
    unrank) for tests (the unranks of x's rank, if x has at most MAX_STONES points)."""
    x &= FULL
    mask &= FULL
    cdef int k = popcount(x)
    cdef uint32_t r = rank_fast(x)
    return (rank_fast(x), rank_set(x), compact(x, mask), soft_pext(x, mask),
            deposit(x, mask), soft_pdep(x, mask),
            unrank_fast(r, k) if k <= MAX_STONES else x, unrank_set(r, k, NPTS))


def index_batch(int m, int o, const uint32_t[::1] own, const uint32_t[::1] opp,
                int64_t[::1] out):
    """out[i] = slot of (own[i], opp[i]); raises ValueError if any is not a position."""
    cdef Py_ssize_t i, n = own.shape[0], bad = -1
    _check_mo(m, o)
    if opp.shape[0] != n or out.shape[0] != n:
        raise ValueError("arrays differ in length")
    with nogil:
        for i in range(n):
            if ((own[i] | opp[i]) & ~FULL or own[i] & opp[i]
                    or popcount(own[i]) != m or popcount(opp[i]) != o):
                bad = i
                break
        if bad < 0:
            for i in range(n):
                out[i] = c_index_position(m, o, own[i], opp[i])
    if bad >= 0:
        _check_pos(m, o, own[bad], opp[bad])


def index_batch_unchecked_sum(int m, int o, const uint32_t[::1] own,
                              const uint32_t[::1] opp):
    """Sum of the slots, without checks of the positions or stores (for the benchmark
    only: see index_batch_unchecked)."""
    cdef Py_ssize_t i, n = own.shape[0]
    cdef int64_t total = 0
    _check_mo(m, o)
    if opp.shape[0] != n:
        raise ValueError("arrays differ in length")
    with nogil:
        for i in range(n):
            total += c_index_position(m, o, own[i], opp[i])
    return total


def index_batch_unchecked(int m, int o, const uint32_t[::1] own,
                          const uint32_t[::1] opp, int64_t[::1] out):
    """out[i] = slot of (own[i], opp[i]) without checks of the positions (for the
    benchmark only: it measures the index alone).  The masks are trusted: one that is
    no position of m-o gives a wrong slot, or reads out of the tables.  m, o and the
    lengths are checked (once a call, nothing to measure): m or o beyond the tables
    would read far out of them for every position."""
    cdef Py_ssize_t i, n = own.shape[0]
    _check_mo(m, o)
    if opp.shape[0] != n or out.shape[0] != n:
        raise ValueError("arrays differ in length")
    with nogil:
        for i in range(n):
            out[i] = c_index_position(m, o, own[i], opp[i])


def position_batch(int m, int o, const int64_t[::1] slots, uint32_t[::1] own,
                   uint32_t[::1] opp):
    """(own[i], opp[i]) = position at slots[i]; raises IndexError for a bad slot."""
    cdef Py_ssize_t i, n = slots.shape[0], bad = -1
    cdef int64_t total
    _check_mo(m, o)
    total = c_subspace_slots(m, o)
    if own.shape[0] != n or opp.shape[0] != n:
        raise ValueError("arrays differ in length")
    with nogil:
        for i in range(n):
            if not 0 <= slots[i] < total:
                bad = i
                break
        if bad < 0:
            for i in range(n):
                c_position_at(m, o, slots[i], &own[i], &opp[i])
    if bad >= 0:
        _check_slot(m, o, slots[bad])


def real_batch(int m, int o, int64_t start, uint8_t[::1] out):
    """out[i] = whether slot start + i is real."""
    cdef Py_ssize_t i, n = out.shape[0]
    _check_mo(m, o)
    if n and not (0 <= start and start + n <= c_subspace_slots(m, o)):
        raise IndexError(f"slots {start}..{start + n - 1} out of range for {m}-{o}")
    with nogil:
        for i in range(n):
            out[i] = c_is_real_slot(m, o, start + i)


def real_at_batch(int m, int o, const int64_t[::1] slots, uint8_t[::1] out):
    """out[i] = whether slots[i] is real; raises IndexError for a bad slot."""
    cdef Py_ssize_t i, n = slots.shape[0], bad = -1
    cdef int64_t total
    _check_mo(m, o)
    total = c_subspace_slots(m, o)
    if out.shape[0] != n:
        raise ValueError("arrays differ in length")
    with nogil:
        for i in range(n):
            if not 0 <= slots[i] < total:
                bad = i
                break
        if bad < 0:
            for i in range(n):
                out[i] = c_is_real_slot(m, o, slots[i])
    if bad >= 0:
        _check_slot(m, o, slots[bad])


def count_real_slots(int m, int o, int threads=2):
    """Real slots of m-o (= orbits of positions), counted representative by
    representative with c_is_real_slot's test, over `threads` threads."""
    cdef int64_t rep, total = 0
    cdef int64_t nreps
    _check_mo(m, o)
    check_jobs(threads, "threads")
    nreps = ORBITS[m]
    for rep in prange(nreps, nogil=True, schedule="dynamic", chunksize=16,
                      num_threads=threads):
        total += _real_slots_of_rep(m, o, rep)
    return total


#: Recorded in every database file; a reader refuses files of another scheme.
INDEX_SCHEME = "sym16-1"
