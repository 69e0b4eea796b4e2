# The opening search: alpha-beta (negamax) over win/draw/loss in the placement phase,
# entirely nogil, with the moving-phase databases at the leaves.
#
# Leaves are read from compact views: 2 bits per slot (4 slots a byte, slot s in bits
# 2*(s & 3) of byte s >> 2): WDL_DRAW, WDL_WIN, WDL_LOSS for the side to move, WDL_SLACK.
# The search holds a pointer per moving-phase subspace (m, o); when it meets a leaf
# whose view is not loaded it unwinds at once (storing nothing on the way up) and
# reports which view it needs: the caller loads it and runs the search again.  What the
# transposition table holds stays valid (bounds are exact facts about positions,
# independent of the window), so a rerun repeats only the path to the missing leaf.
# It unwinds the same way when asked to stop (SearchEngine.stop, from another thread)
# or when its deadline passes: both are looked at every LOOK_EVERY nodes, so that
# a server can end a search whose client left, and bound any search's time.
#
# Transposition table: a fixed array of 2^bits uint64 entries in buckets of 4; 0 empty.
# Entry: bits 0-1 lower bound + 1, bits 2-3 upper bound + 1, bits 4-8 target and bits
# 9-13 take of the best move found (for ordering), bits 14-59 the key:
#   slot | m << 30 | o << 34 | hm << 38 | ho << 42   (slots stay below 2^30)
# A new entry replaces the entry of the same key, else an empty one, else the one with
# the fewest stones in hand (the smallest subtree) in its bucket.
#
# Provides: SearchEngine (driven by solver.opening.OpeningSearch), pack_wdl and wdl_at
#           (the 2-bit views of solver.wdl).
# Uses:     movegen.pxi (c_moves_packed, move_* accessors, NO_POINT), index.pxi
#           (c_index_position, c_subspace_slots), board.pxi (ADJ, popcount), retro.pxi
#           (prefetch).

from libc.string cimport memset

cdef extern from *:
    """
    #include <stdlib.h>
    #include <time.h>
    static inline int mu_flag_get(int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void mu_flag_set(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline double mu_monotonic(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    }
    static inline void* mu_aligned_calloc(size_t n) {
        void* p = NULL;
        if (posix_memalign(&p, 64, n) != 0) return NULL;
        memset(p, 0, n);
        return p;
    }
    """
    void* aligned_calloc "mu_aligned_calloc"(size_t n) nogil
    int flag_get "mu_flag_get"(int* p) nogil
    void flag_set "mu_flag_set"(int* p, int v) nogil
    double monotonic "mu_monotonic"() nogil

cdef enum:
    WDL_DRAW = 0
    WDL_WIN = 1
    WDL_LOSS = 2
    WDL_SLACK = 3
    S_ABORT = 99          # returned up the tree: a view is missing (or a slack leaf),
                          # or the search was stopped
    NEED_STOPPED = -2     # need_m when the search unwound because it was stopped
    LOOK_EVERY = 16384    # nodes between looks at the stop flag and the clock (~ms)
    KEY_SHIFT = 14
    BUCKET = 4
    MAX_PLACE_MOVES = 512  # placement: at most 24 targets x 12 takes
    # A side with none in hand slides (or jumps) while the other still places: hands no
    # game from the standard start reaches, but positions the rules allow (docs/design.md §8).
    ORDER_TT = 1 << 30
    ORDER_CAPTURE = 1 << 29
    NO_TT_MOVE = 0x3FF     # no best move known (no move has target 31)

cdef int WDL_VALUE[4]
WDL_VALUE[0] = 0
WDL_VALUE[1] = 1
WDL_VALUE[2] = -1
WDL_VALUE[3] = S_ABORT

# the key holds a slot in 30 bits
assert max(c_subspace_slots(m, o) for m in range(MAX_STONES + 1)
           for o in range(min(MAX_STONES, NPTS - m) + 1)) < (1 << 30)

cdef int DEGREE[NPTS]
for _p in range(NPTS):
    DEGREE[_p] = popcount(ADJ[_p])


# --- compact leaf views ---------------------------------------------------------------

cdef inline uint8_t wdl_of_code(uint16_t c) noexcept nogil:
    if c == 0:
        return WDL_DRAW
    if c == 0xFFFF:
        return WDL_SLACK
    return WDL_WIN if (c & 1) == 0 else WDL_LOSS     # code 1 + plies, odd plies win


def pack_wdl(const uint16_t[::1] codes, uint8_t[::1] out):
    """Pack value codes into 2-bit win/draw/loss (out: (len(codes) + 3) // 4 bytes;
    the unused tail of the last byte is marked slack)."""
    cdef Py_ssize_t n = codes.shape[0], nb = out.shape[0], i, j, k
    cdef uint8_t b
    if nb != (n + 3) // 4:
        raise ValueError(f"{n} codes need {(n + 3) // 4} bytes, not {nb}")
    with nogil:
        for i in range(n // 4):
            k = 4 * i
            out[i] = (wdl_of_code(codes[k]) | (wdl_of_code(codes[k + 1]) << 2)
                      | (wdl_of_code(codes[k + 2]) << 4) | (wdl_of_code(codes[k + 3]) << 6))
        if n % 4:
            b = 0
            for j in range(4):
                k = 4 * (n // 4) + j
                b |= (wdl_of_code(codes[k]) if k < n else WDL_SLACK) << (2 * j)
            out[n // 4] = b


def wdl_at(const uint8_t[::1] view, int64_t slot):
    """The 2-bit value at a slot of a packed view (0 draw, 1 win, 2 loss, 3 slack)."""
    if not 0 <= slot < 4 * view.shape[0]:
        raise IndexError(slot)
    return (view[slot >> 2] >> ((slot & 3) * 2)) & 3


# --- the search -------------------------------------------------------------------------

ctypedef struct SearchCtx:
    uint64_t* table
    int table_bits
    const uint8_t* views[MAX_STONES + 1][MAX_STONES + 1]
    int64_t nodes
    int need_m, need_o          # the view the search needs (-1: a leaf hit a slack slot,
                                # NEED_STOPPED: stopped)
    int rules                   # the rule flags (rules.pxi)
    int stop                    # set by another thread (flag_set): unwind
    double deadline             # monotonic seconds; 0: none
    int64_t next_look           # nodes at which the flag and the clock are looked at next


cdef inline uint32_t tt_move(uint32_t mv) noexcept nogil:
    """The 10 bits a table entry keeps of a placement move: target | take << 5 (a
    placement has no origin)."""
    return <uint32_t>move_target(mv) | (<uint32_t>move_take(mv) << 5)


cdef inline uint64_t tt_key(int m, int o, int hm, int ho, int64_t slot) noexcept nogil:
    return (<uint64_t>slot | (<uint64_t>m << 30) | (<uint64_t>o << 34)
            | (<uint64_t>hm << 38) | (<uint64_t>ho << 42))


cdef inline uint64_t* tt_bucket(SearchCtx* c, uint64_t key) noexcept nogil:
    cdef uint64_t h = (key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - (c.table_bits - 2))
    return c.table + h * BUCKET


cdef inline int entry_depth(uint64_t e) noexcept nogil:
    """Stones in hand of an entry's position (0 for an empty entry)."""
    e >>= KEY_SHIFT
    return <int>((e >> 38) & 15) + <int>((e >> 42) & 15)


cdef inline uint64_t tt_probe(SearchCtx* c, uint64_t key) noexcept nogil:
    cdef uint64_t* b = tt_bucket(c, key)
    cdef int i
    for i in range(BUCKET):
        if (b[i] >> KEY_SHIFT) == key:
            return b[i]
    return 0


cdef inline void tt_store(SearchCtx* c, uint64_t key, int lower, int upper, uint32_t best) noexcept nogil:
    cdef uint64_t* b = tt_bucket(c, key)
    cdef int i, victim = 0, d, dmin = 1 << 30
    cdef uint64_t e = ((key << KEY_SHIFT) | <uint64_t>(lower + 1) | (<uint64_t>(upper + 1) << 2)
                       | (<uint64_t>(best & 0x3FF) << 4))
    for i in range(BUCKET):
        if b[i] == 0 or (b[i] >> KEY_SHIFT) == key:
            b[i] = e
            return
        d = entry_depth(b[i])
        if d < dmin:
            dmin = d
            victim = i
    b[victim] = e


cdef inline int leaf_value(SearchCtx* c, uint32_t own, uint32_t opp) noexcept nogil:
    """Win (1), draw (0) or loss (-1) of a moving-phase position, or S_ABORT."""
    cdef int m = popcount(own), o = popcount(opp)
    cdef const uint8_t* view
    cdef int64_t slot
    cdef int v
    if m < 3:
        return -1
    view = c.views[m][o]
    if view == NULL:
        c.need_m = m
        c.need_o = o
        return S_ABORT
    slot = c_index_position(m, o, own, opp)
    v = WDL_VALUE[(view[slot >> 2] >> ((slot & 3) * 2)) & 3]
    if v == S_ABORT:
        c.need_m = -1
    return v


cdef int leaf_children(SearchCtx* c, uint32_t own, uint32_t opp, uint32_t* moves, int n,
                       int beta, uint32_t* best_move) noexcept nogil:
    """Best value over moves that all lead into the moving phase (the last stone placed):
    every child's slot is computed and its byte prefetched before any is read, so the
    cache misses into the (large) views overlap.  Children count as nodes."""
    cdef int64_t slots[MAX_PLACE_MOVES]
    cdef const uint8_t* view[MAX_PLACE_MOVES]
    cdef int i, take, cm, co = popcount(own) + 1, v, best = -1
    cdef uint32_t mv, own2, opp2
    for i in range(n):
        mv = moves[i]
        take = move_take(mv)
        own2 = own | ((<uint32_t>1) << move_target(mv))
        opp2 = opp & ~((<uint32_t>1) << take) if take != NO_POINT else opp
        cm = popcount(opp2)
        if cm < 3:
            view[i] = NULL          # the opponent is down to two stones: we win
            continue
        view[i] = c.views[cm][co]
        if view[i] == NULL:
            c.need_m = cm
            c.need_o = co
            return S_ABORT
        slots[i] = c_index_position(cm, co, opp2, own2)
        prefetch(&view[i][slots[i] >> 2])
    c.nodes += n
    for i in range(n):
        if view[i] == NULL:
            v = 1
        else:
            v = -WDL_VALUE[(view[i][slots[i] >> 2] >> ((slots[i] & 3) * 2)) & 3]
            if v == -S_ABORT:
                c.need_m = -1
                return S_ABORT
        if v > best:
            best = v
            best_move[0] = tt_move(moves[i])
            if best >= beta:
                break
    return best


cdef int negamax(SearchCtx* c, uint32_t own, uint32_t opp, int hm, int ho,
                 int alpha, int beta) noexcept nogil:
    # MAX_MOVES, not MAX_PLACE_MOVES: with none in hand the side to move slides or jumps
    # (3 stones x 21 targets x takes) while the opponent still has stones in hand.
    cdef uint32_t moves[MAX_MOVES]
    cdef int score[MAX_MOVES]
    cdef int m, o, n, i, k, kbest, s, target, origin, take, value, best, a, lower, upper
    cdef int child_hand
    cdef uint32_t mv, own2, opp2, hint, best_move = NO_TT_MOVE
    cdef uint64_t key, e
    cdef int64_t slot
    c.nodes += 1
    if c.nodes >= c.next_look:          # (not a multiple: leaf_children adds many at once)
        c.next_look = c.nodes + LOOK_EVERY
        if flag_get(&c.stop) or (c.deadline > 0 and monotonic() >= c.deadline):
            c.need_m = NEED_STOPPED
            return S_ABORT
    if hm == 0 and ho == 0:
        return leaf_value(c, own, opp)
    m = popcount(own)
    o = popcount(opp)
    slot = c_index_position(m, o, own, opp)
    key = tt_key(m, o, hm, ho, slot)
    e = tt_probe(c, key)
    if e:
        lower = <int>(e & 3) - 1
        upper = <int>((e >> 2) & 3) - 1
        hint = <uint32_t>((e >> 4) & 0x3FF)
    else:
        lower, upper, hint = -1, 1, NO_TT_MOVE
    if lower >= beta or lower == upper:
        return lower
    if upper <= alpha:
        return upper
    if lower > alpha:
        alpha = lower
    if upper < beta:
        beta = upper
    n = c_moves_packed(own, opp, hm, ho, c.rules, moves)
    if hm == 1 and ho == 0:
        best = leaf_children(c, own, opp, moves, n, beta, &best_move)
        if best == S_ABORT:
            return S_ABORT
    else:
        for i in range(n):
            mv = moves[i]
            take = move_take(mv)
            s = DEGREE[move_target(mv)] << 8
            if take != NO_POINT:
                s += ORDER_CAPTURE + DEGREE[take]
            if tt_move(mv) == hint:
                s += ORDER_TT
            score[i] = s
        best = -1
        a = alpha
        for k in range(n):
            # pick the best-scored move left (most nodes cut off after one or two)
            kbest = k
            for i in range(k + 1, n):
                if score[i] > score[kbest]:
                    kbest = i
            mv = moves[kbest]
            moves[kbest] = moves[k]
            score[kbest] = score[k]
            target = move_target(mv)
            origin = move_origin(mv)
            take = move_take(mv)
            own2 = own | ((<uint32_t>1) << target)
            if origin != NO_POINT:            # a slide or jump: the hand stays (empty)
                own2 &= ~((<uint32_t>1) << origin)
                child_hand = hm
            else:
                child_hand = hm - 1
            if take != NO_POINT:
                opp2 = opp & ~((<uint32_t>1) << take)
                if popcount(opp2) + ho < 3:
                    value = 1
                else:
                    value = negamax(c, opp2, own2, ho, child_hand, -beta, -a)
                    if value == S_ABORT:
                        return S_ABORT
                    value = -value
            else:
                value = negamax(c, opp, own2, ho, child_hand, -beta, -a)
                if value == S_ABORT:
                    return S_ABORT
                value = -value
            if value > best:
                best = value
                best_move = tt_move(mv)
                if best > a:
                    a = best
                if best >= beta:
                    break
    # Fail high: a lower bound; fail low: an upper bound; else exact.
    if best >= beta:
        lower = best
    elif best <= alpha:
        upper = best
    else:
        lower = upper = best
    tt_store(c, key, lower, upper, best_move)
    return best


cdef class SearchEngine:
    """The compiled opening search: transposition table, leaf views, node count.

    Not thread-safe (one search at a time); the Python wrapper serialises calls.
    """
    cdef SearchCtx c
    cdef dict _views

    def __cinit__(self, int table_bits=24, int rules=RULE_JUMPING):
        if not 4 <= table_bits <= 34:
            raise ValueError("table_bits must lie in 4..34")
        memset(&self.c, 0, sizeof(SearchCtx))
        self.c.table_bits = table_bits
        self.c.rules = rules
        self.c.table = <uint64_t*>aligned_calloc((<size_t>1 << table_bits) * sizeof(uint64_t))
        if self.c.table == NULL:
            raise MemoryError(f"transposition table of 2^{table_bits} entries")
        self._views = {}

    def __dealloc__(self):
        free(self.c.table)

    def set_view(self, int m, int o, view):
        """Use a packed view (uint8, (slots + 3) // 4 bytes) for the leaves in m-o."""
        cdef const uint8_t[::1] v = view
        if not (3 <= m <= MAX_STONES and 3 <= o <= MAX_STONES):
            raise ValueError(f"no moving-phase subspace {m}-{o}")
        if v.shape[0] != (c_subspace_slots(m, o) + 3) // 4:
            raise ValueError(f"view of {m}-{o} has {v.shape[0]} bytes, expected "
                             f"{(c_subspace_slots(m, o) + 3) // 4}")
        self._views[m, o] = view          # keeps the memory alive
        self.c.views[m][o] = &v[0]

    def has_view(self, int m, int o):
        return (m, o) in self._views

    def loaded_views(self):
        """The subspaces (m, o) whose views are loaded."""
        return sorted(self._views)

    @property
    def view_bytes(self):
        return sum(v.nbytes for v in self._views.values())

    @property
    def table_bytes(self):
        return (<int64_t>1 << self.c.table_bits) * 8

    @property
    def nodes(self):
        return self.c.nodes

    def table_used(self):
        """Entries in use in the transposition table."""
        cdef int64_t i, used = 0, n = <int64_t>1 << self.c.table_bits
        with nogil:
            for i in range(n):
                used += self.c.table[i] != 0
        return used

    def clear(self):
        """Forget the transposition table and the node count."""
        memset(self.c.table, 0, (<size_t>1 << self.c.table_bits) * sizeof(uint64_t))
        self.c.nodes = 0

    def stop(self):
        """Ask the search running in another thread to unwind (its ``run`` returns
        ``(None, None)`` within a few milliseconds); it stays asked until
        :meth:`clear_stop`."""
        flag_set(&self.c.stop, 1)

    def clear_stop(self):
        flag_set(&self.c.stop, 0)

    @property
    def stopping(self):
        return bool(flag_get(&self.c.stop))

    def run(self, uint32_t own, uint32_t opp, int own_hand, int opp_hand, double deadline=0):
        """Search a position; returns (value, None) with value 1/0/-1 for the side to
        move, (None, (m, o)) when the view of m-o must be loaded first (then run
        again), or (None, None) when it was stopped (:meth:`stop`) or ``deadline`` (in
        ``time.monotonic()`` seconds; 0: none) passed.  Nodes accumulate in ``nodes``;
        what the table learnt stays."""
        cdef int value
        if (own | opp) & ~FULL or own & opp:
            raise ValueError("not a position")
        if not (0 <= own_hand <= MAX_STONES and 0 <= opp_hand <= MAX_STONES):
            raise ValueError("stones in hand out of range")
        if popcount(own) + own_hand > MAX_STONES or popcount(opp) + opp_hand > MAX_STONES:
            raise ValueError("more than nine stones a side")
        self.c.need_m = self.c.need_o = 0
        self.c.deadline = deadline
        self.c.next_look = self.c.nodes + 1       # a look at once: stopped before it began
        with nogil:
            value = negamax(&self.c, own, opp, own_hand, opp_hand, -1, 1)
        if value != S_ABORT:
            return value, None
        if self.c.need_m == NEED_STOPPED:
            return None, None
        if self.c.need_m < 0:
            raise RuntimeError("a leaf maps to a slack slot: damaged view or index")
        return None, (self.c.need_m, self.c.need_o)
