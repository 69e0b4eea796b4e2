# The placement phase by one backward pass (the acyclic part of the game).
#
# A placement subspace (m, o, hm, ho) holds the positions with m stones of the side
# to move and o of the opponent on the board and hm, ho in hand (hm >= 1: the side
# to move places).  Every move places a stone, so each position's value follows from
# its successors, which lie in subspaces with one stone fewer in hand: a pass over the
# subspaces in order of stones in hand settles them all, with the same values and plies
# as the moving phase (docs/design.md §3).  The board index is the moving-phase one.
#
# Provides: placement_values (driven by solver.opening.solve_placement).
# Uses:     movegen.pxi (c_moves_packed, move_* accessors), index.pxi (c_index_position,
#           c_position_at, c_is_real_slot, c_subspace_slots), retro.pxi (Best, best_*,
#           without, V_SLACK, prange).


cdef inline int child_code(int m, int o, uint32_t own_after, uint32_t opp_after, int opp_count,
                           const uint16_t* arr) noexcept nogil:
    """Code of a successor (the opponent to move, opp_count stones); arr NULL: it has lost."""
    if arr == NULL:
        return 1
    return arr[c_index_position(opp_count, m + 1, opp_after, own_after)]


def placement_values(int m, int o, int hm, int ho, uint16_t[::1] out,
                     const uint16_t[::1] quiet_child, const uint16_t[::1] capture_child,
                     bint jumping, bint take_none, int jobs=2):
    """Values of placement subspace (m, o, hm, ho) from its successors' values.

    ``quiet_child``: subspace (o, m+1) with hands (ho, hm-1); ``capture_child``:
    (o-1, m+1) with the same hands, or empty when a capture leaves the opponent with
    fewer than three stones (board plus hand): then it wins at once.
    """
    cdef int64_t slot, n_slots = c_subspace_slots(m, o)
    cdef uint32_t own, opp, mv, own2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, target, take, code
    cdef Best* b      # per thread: a variable only used through & would be shared
    cdef const uint16_t* qp = &quiet_child[0] if quiet_child.shape[0] > 0 else NULL
    cdef const uint16_t* cp = &capture_child[0] if capture_child.shape[0] > 0 else NULL
    assert hm >= 1 and out.shape[0] == n_slots
    # an empty child array is one never looked up: this side has already lost
    assert quiet_child.shape[0] in (0, c_subspace_slots(o, m + 1))
    assert capture_child.shape[0] in (0, c_subspace_slots(o - 1, m + 1)) if o >= 1 else True
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        b = <Best*>malloc(sizeof(Best))
        for slot in prange(n_slots, schedule="dynamic", chunksize=4096):
            if not c_is_real_slot(m, o, slot):
                out[slot] = V_SLACK
                continue
            c_position_at(m, o, slot, &scratch[0], &scratch[1])
            own = scratch[0]
            opp = scratch[1]
            n = c_moves_packed(own, opp, hm, ho, jumping, take_none, moves)
            best_reset(b)
            for i in range(n):
                mv = moves[i]
                target = move_target(mv)
                take = move_take(mv)
                own2 = own | ((<uint32_t>1) << target)
                if take != NO_POINT:
                    best_add(b, child_code(m, o, own2, without(opp, take), o - 1, cp))
                else:
                    best_add(b, child_code(m, o, own2, opp, o, qp))
            code = best_code(b)
            out[slot] = <uint16_t>code
        free(moves)
        free(scratch)
        free(b)
