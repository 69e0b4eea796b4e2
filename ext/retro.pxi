# Retrograde analysis of one moving-phase pair {m-o, o-m} (DESIGN.md sections 3-4).
#
# Values, one uint16 per slot, for the side to move:
#   0                 draw (during the solve: undecided, nothing known)
#   1 + plies         decided; a win when plies is odd, a loss when even
#   0x8000 | c        (solve only) undecided, and its captures all lead to wins, the
#                     longest of which makes a loss in c plies
#   0xFFFF            slack slot: no position uses it
# A capture into a loss makes a *tentative* win at initialisation, which a shorter
# quiet win found in an earlier round overwrites; scanning round d only picks states
# whose value is exactly d + 1, so each state propagates once, at its final value.
#
# Counts (uint8) are the number of distinct successor slots reached by quiet moves
# (+1 when a capture leads to a draw, so the state can never become a loss).  The
# propagation decrements once per distinct predecessor slot of each decided child:
# both sides count orbit-to-orbit edges, so they agree even for symmetric positions.

from cython.parallel cimport prange, parallel
from libc.stdlib cimport malloc, free

cdef extern from *:
    """
    static inline unsigned char mu_atomic_dec_u8(unsigned char* p) {
        return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
    }
    static inline long long mu_atomic_inc_i64(long long* p) {
        return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    }
    """
    uint8_t atomic_dec_u8 "mu_atomic_dec_u8"(uint8_t* p) nogil
    long long atomic_inc_i64 "mu_atomic_inc_i64"(long long* p) nogil

cdef enum:
    V_DRAW = 0
    V_PENDING = 0x8000
    V_SLACK = 0xFFFF
    MAX_SUCC = 1024


cdef inline bint is_undecided(uint16_t v) noexcept nogil:
    return v == 0 or (v & V_PENDING and v != V_SLACK)


cdef inline int sort_unique(int64_t* a, int n) noexcept nogil:
    """Sort a small array in place and drop repeats; returns the new length."""
    cdef int i, j, k
    cdef int64_t x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
    if n == 0:
        return 0
    k = 1
    for i in range(1, n):
        if a[i] != a[k - 1]:
            a[k] = a[i]
            k += 1
    return k


cdef inline int capture_child_value(int m, int o, uint32_t own_after, uint32_t opp_after,
                                    const uint16_t* cap) noexcept nogil:
    """Stored value of the position after a capture (opponent to move, o-1 stones)."""
    if o - 1 < 3:
        return 1      # the opponent is left with two stones: loss in 0
    return cap[index_of(o - 1, m, opp_after, own_after)]


def retro_init(int m, int o, uint16_t[::1] val, uint8_t[::1] cnt, const uint16_t[::1] cap,
               bint jumping, bint take_none, int jobs=2):
    """Initialise subspace m-o: blocked, capture outcomes, quiet-successor counts.

    ``cap`` holds the solved subspace (o-1)-m (ignored when o == 3).  Returns the
    largest plies any state may be decided at so far.
    """
    cdef int64_t slot, n_slots = num_slots(m, o)
    cdef uint32_t own, opp, mv, own2, opp2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int64_t* succ
    cdef int n, k, i, target, origin, take, cv, best_win, cmax, draw_cap
    cdef const uint16_t* capp = &cap[0] if cap.shape[0] > 0 else NULL
    assert val.shape[0] == n_slots and cnt.shape[0] == n_slots
    if o > 3:
        assert cap.shape[0] == num_slots(o - 1, m)
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))  # private out-parameters
        succ = <int64_t*>malloc(MAX_MOVES * sizeof(int64_t))
        for slot in prange(n_slots, schedule="dynamic", chunksize=4096):
            if not slot_is_real(m, o, slot):
                val[slot] = V_SLACK
                cnt[slot] = 0
                continue
            position_of(m, o, slot, &scratch[0], &scratch[1])
            own = scratch[0]
            opp = scratch[1]
            n = gen_moves(own, opp, 0, 0, jumping, take_none, moves)
            if n == 0:
                val[slot] = 1          # blocked: loss in 0
                cnt[slot] = 0
                continue
            k = 0
            best_win = 1 << 30
            cmax = 0
            draw_cap = 0
            for i in range(n):
                mv = moves[i]
                target = mv & 31
                origin = (mv >> 5) & 31
                take = (mv >> 10) & 31
                own2 = (own & ~((<uint32_t>1) << origin)) | ((<uint32_t>1) << target)
                if take != NO_POINT:
                    opp2 = opp & ~((<uint32_t>1) << take)
                    cv = capture_child_value(m, o, own2, opp2, capp)
                    if cv == V_DRAW:
                        draw_cap = 1
                    elif (cv - 1) % 2 == 0:
                        if cv < best_win:
                            best_win = cv        # child loss in cv-1: win in cv
                    elif cv > cmax:
                        cmax = cv                # child win in cv-1: loss in cv at best
                else:
                    succ[k] = index_of(o, m, opp, own2)
                    k += 1
            k = sort_unique(succ, k)
            if best_win < (1 << 30):
                val[slot] = <uint16_t>(best_win + 1)
                cnt[slot] = <uint8_t>k
            elif k + draw_cap == 0:
                val[slot] = <uint16_t>(cmax + 1)  # every move captures into a win
                cnt[slot] = 0
            else:
                val[slot] = <uint16_t>(V_PENDING | cmax) if cmax else 0
                cnt[slot] = <uint8_t>(k + draw_cap)
        free(moves)
        free(scratch)
        free(succ)
    return _max_plies(val)


cdef int _max_plies(uint16_t[::1] val):
    """Largest plies stored or pending in val."""
    cdef int64_t i
    cdef int best = 0, p
    cdef uint16_t v
    with nogil:
        for i in range(val.shape[0]):
            v = val[i]
            if v == V_SLACK or v == 0:
                continue
            p = (v & 0x7FFF) if (v & V_PENDING) else v - 1
            if p > best:
                best = p
    return best


def retro_round(int m, int o, const uint16_t[::1] child, uint16_t[::1] pred, uint8_t[::1] pred_cnt,
                int d, bint jumping, bint take_none, int jobs=2):
    """One round: every state of m-o decided with plies d informs its predecessors in o-m.

    Returns the number of predecessors decided in this round.  ``child`` and ``pred``
    may be the same array (m == o).
    """
    cdef int64_t slot, n_slots = num_slots(m, o), p, decided = 0
    cdef uint32_t own, opp, mv, before
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int64_t* preds
    cdef int n, k, i, target, origin, cmax
    cdef uint16_t want = <uint16_t>(d + 1), v
    cdef bint child_lost = d % 2 == 0
    assert child.shape[0] == n_slots and pred.shape[0] == num_slots(o, m)
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))  # private out-parameters
        preds = <int64_t*>malloc(MAX_MOVES * sizeof(int64_t))
        for slot in prange(n_slots, schedule="dynamic", chunksize=16384):
            if child[slot] != want:
                continue
            position_of(m, o, slot, &scratch[0], &scratch[1])
            own = scratch[0]
            opp = scratch[1]
            n = gen_unmoves(own, opp, 0, 0, jumping, take_none, UNSLIDE, moves)
            for i in range(n):
                mv = moves[i]
                target = mv & 31
                origin = (mv >> 5) & 31
                before = (opp & ~((<uint32_t>1) << target)) | ((<uint32_t>1) << origin)
                preds[i] = index_of(o, m, before, own)
            k = sort_unique(preds, n)
            for i in range(k):
                p = preds[i]
                v = pred[p]
                if child_lost:
                    # a move into a loss in d: the predecessor wins in d + 1 (unless it
                    # already wins faster); all writers of this round write the same value
                    if is_undecided(v) or (v - 1) > d + 1:
                        pred[p] = <uint16_t>(d + 2)
                        decided += 1
                elif is_undecided(v):
                    if atomic_dec_u8(&pred_cnt[p]) == 0:
                        cmax = (v & 0x7FFF) if (v & V_PENDING) else 0
                        pred[p] = <uint16_t>((d + 1 if d + 1 > cmax else cmax) + 1)
                        decided += 1
        free(moves)
        free(scratch)
        free(preds)
    return decided


def retro_finish(uint16_t[::1] val):
    """Turn every still-undecided state into a draw."""
    cdef int64_t i
    cdef uint16_t v
    with nogil:
        for i in range(val.shape[0]):
            v = val[i]
            if v != V_SLACK and (v & V_PENDING):
                val[i] = V_DRAW


def retro_check(int m, int o, const uint16_t[::1] val, const uint16_t[::1] quiet,
                const uint16_t[::1] cap, bint jumping, bint take_none,
                int64_t start=0, int64_t stop=-1, int max_bad=16, int jobs=2):
    """Forward consistency check of slots [start, stop) of a solved subspace m-o.

    Recomputes each state's value and plies from its successors' stored values
    (``quiet``: subspace o-m, ``cap``: (o-1)-m) and returns the slots that disagree
    (at most max_bad), as a numpy array.
    """
    cdef int64_t slot, n_slots = num_slots(m, o)
    cdef uint32_t own, opp, mv, own2, opp2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, target, origin, take, cv, best_win, worst_loss, has_draw, expect
    cdef long long nbad = 0, at
    cdef const uint16_t* capp = &cap[0] if cap.shape[0] > 0 else NULL
    bad_arr = np.full(max_bad, -1, dtype=np.int64)
    cdef int64_t[::1] bad = bad_arr
    if stop < 0 or stop > n_slots:
        stop = n_slots
    assert val.shape[0] == n_slots and quiet.shape[0] == num_slots(o, m)
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))  # private out-parameters
        for slot in prange(start, stop, schedule="dynamic", chunksize=4096):
            if val[slot] == V_SLACK:
                if slot_is_real(m, o, slot):
                    expect = -1      # a real state marked slack
                else:
                    continue
            else:
                if not slot_is_real(m, o, slot):
                    expect = -1
                else:
                    position_of(m, o, slot, &scratch[0], &scratch[1])
                    own = scratch[0]
                    opp = scratch[1]
                    n = gen_moves(own, opp, 0, 0, jumping, take_none, moves)
                    best_win = 1 << 30
                    worst_loss = 0
                    has_draw = 0
                    for i in range(n):
                        mv = moves[i]
                        target = mv & 31
                        origin = (mv >> 5) & 31
                        take = (mv >> 10) & 31
                        own2 = (own & ~((<uint32_t>1) << origin)) | ((<uint32_t>1) << target)
                        if take != NO_POINT:
                            opp2 = opp & ~((<uint32_t>1) << take)
                            cv = capture_child_value(m, o, own2, opp2, capp)
                        else:
                            cv = quiet[index_of(o, m, opp, own2)]
                        if cv == V_DRAW:
                            has_draw = 1
                        elif (cv - 1) % 2 == 0:
                            if cv < best_win:
                                best_win = cv
                        elif cv > worst_loss:
                            worst_loss = cv
                    if best_win < (1 << 30):
                        expect = best_win + 1
                    elif has_draw:
                        expect = V_DRAW
                    else:
                        expect = worst_loss + 1      # n == 0: loss in 0
            if expect != val[slot]:
                at = atomic_inc_i64(&nbad)
                if at < max_bad:
                    bad[at] = slot
        free(moves)
        free(scratch)
    return bad_arr[:min(nbad, max_bad)], nbad
