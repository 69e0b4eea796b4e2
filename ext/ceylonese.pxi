# Ceylonese mill's placement phase by one backward pass (solver.ceylonese is the readable
# reference and says the rules; docs/design.md §12).
#
# A placement takes nothing, so a subspace's stones on the board are the stones each
# side has placed, and every placement leads into one of two subspaces: the same side's
# (m+1)-o, where it places (or, once the placement is over, moves) again, its code the
# mover's own; or the other side's o-(m+1), its code seen from the other side, one turn
# further.  Which of the two a placement leads into is the mill it closes and what the
# subspace's hands allow (ceylon_again); whether the placement is over after it (only
# open_points points free, or nothing left in any hand) is the same for every placement
# of a subspace.  Codes count turns as the other tables count plies (docs/design.md §3):
# 0 draw, 1 + turns, odd turns a win.
#
# The moving phase needs no kernel of its own: a capture that keeps the turn enters the
# moving rounds (retro.pxi) as a capture into the other side's subspace would, through a
# view of the same side's codes one turn shorter and seen from the other side
# (ceylon_capture_view).
#
# Provides: ceylon_place (the check's pass), ceylon_place_grouped (the solve's),
#           ceylon_capture_view.
# Uses:     movegen.pxi (closes_mill), index.pxi (c_position_at, c_index_position,
#           c_is_real_slot, c_subspace_slots, IndexFrame, c_index_frame, c_index_of_image,
#           GroupWalk and its functions, ORBITS, c_apply_sym_fast, SYM), placement.pxi (_check_placement),
#           retro.pxi (V_SLACK, prange), guards.pxi (check_size).


cdef inline int ceylon_key(int code) noexcept nogil:
    """Orders a code as its side prefers it: a shorter win, a draw, a longer loss."""
    if code == 0:
        return 0x10000
    if code & 1:
        return code                         # a loss in code - 1 turns
    return 0x30000 - code                   # a win in code - 1 turns


cdef inline int ceylon_seen(int code) noexcept nogil:
    """The other side's code after a placement that passes the turn, for the mover: its
    win is the mover's loss and the other way round, one turn later (a draw stays one)."""
    return code + 1 if code else 0


cdef inline bint ceylon_again(bint closed, bint over, int hand_after, int other_hand) noexcept nogil:
    """Whether the side that placed is to move again (solver.ceylonese.play): after a
    mill; where the placement is not over, also while the other has nothing to place,
    and never while it has nothing left itself."""
    if over:
        return closed
    if hand_after == 0:
        return False
    return closed or other_hand == 0


cdef inline int ceylon_finished(int mover, int other) noexcept nogil:
    """The code of a moving-phase position whose side to move has ``mover`` stones and
    the other ``other`` where one of them has fewer than three (the stones in hand put
    aside count for nothing: solver.position.decided), else 0."""
    if mover < 3:
        return 1
    if other < 3:
        return 2
    return 0


cdef const uint16_t* ceylon_array(const uint16_t[::1] arr, int m, int o, bint needed,
                                  str name) except? NULL:
    """The first code of a child subspace's codes, NULL where no placement leads there
    or the game is over there (ceylon_finished)."""
    if not needed:
        return NULL
    check_size(name, arr.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    return &arr[0]


cdef inline int ceylon_code(uint32_t own, uint32_t opp, int m, int o, int hm, int ho, bint over,
                            const uint16_t* sp, const uint16_t* op, int same_end,
                            int other_end) noexcept nogil:
    """The code of one placement position: the best of its placements (every subspace
    has a free point); same_end, other_end: the code of a child whose game is over
    (ceylon_finished), else 0."""
    cdef uint32_t free_r = FULL & ~(own | opp)
    cdef uint32_t own2
    cdef int t, code, key, best = 1, best_key = -1
    while free_r:
        t = ctz(free_r)
        free_r &= free_r - 1
        own2 = own | ((<uint32_t>1) << t)
        if ceylon_again(closes_mill(own2, t), over, hm - 1, ho):
            code = same_end if same_end else sp[c_index_position(m + 1, o, own2, opp)]
        else:
            code = ceylon_seen(other_end if other_end else op[c_index_position(o, m + 1, opp, own2)])
        key = ceylon_key(code)
        if key > best_key:
            best_key = key
            best = code
    return best


cdef int _ceylon_arguments(int m, int o, int hm, int ho, const uint16_t[::1] out,
                          const uint16_t[::1] same, const uint16_t[::1] other, int open_points,
                          int jobs, bint* over, const uint16_t** sp, const uint16_t** op,
                          int* same_end, int* other_end) except -1:
    """What both passes need of their arguments (a placement subspace of a board whose
    mills do not win outright, the sizes of the codes and of the children they read),
    whether the placement is over after this one, and the children's first codes (NULL
    where none is read) or the codes of a game over there (ceylon_finished)."""
    _check_placement(m, o, hm, ho, jobs)
    if LINE_WINS or m + o >= NPTS:
        raise ValueError(f"no Ceylonese placement subspace {m}-{o}+{hm}-{ho} on this board")
    if open_points < 0:
        raise ValueError(f"open points are 0 or more, not {open_points}")
    check_size("out", out.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    over[0] = NPTS - m - o - 1 <= open_points or (hm == 1 and ho == 0)
    if over[0]:
        same_end[0] = ceylon_finished(m + 1, o)
        other_end[0] = ceylon_finished(o, m + 1)
    # the placements that close a mill and those that close none each lead one way
    sp[0] = ceylon_array(same, m + 1, o, not same_end[0] and (ceylon_again(True, over[0], hm - 1, ho)
                         or ceylon_again(False, over[0], hm - 1, ho)), "same")
    op[0] = ceylon_array(other, o, m + 1, not other_end[0] and (not ceylon_again(True, over[0], hm - 1, ho)
                         or not ceylon_again(False, over[0], hm - 1, ho)), "other")
    return 0


def ceylon_place(int m, int o, int hm, int ho, uint16_t[::1] out, const uint16_t[::1] same,
                 const uint16_t[::1] other, int open_points, int jobs=2, bint check=False):
    """Codes of Ceylonese placement subspace (m, o, hm, ho) from its children's: ``same``
    the codes of (m+1, o), where the side that placed is to move again, and ``other``
    those of (o, m+1), where the other side is (each empty where no placement of the
    subspace leads there).  The placement is over after this one where at most
    ``open_points`` points are then free or no stone is left in any hand: the children
    are then moving-phase codes (none where a side is left with fewer than three stones
    on the board: the game is over there).  ``check``: compare with ``out`` instead of
    writing it; returns the number of slots that differ (0 when writing).  Slot by slot,
    each child indexed from scratch: the check's pass (ceylon_place_grouped solves)."""
    cdef int64_t slot, n_slots, bad = 0
    cdef uint32_t own, opp
    cdef uint32_t* scratch
    cdef int best, same_end = 0, other_end = 0
    cdef bint over
    cdef const uint16_t* sp
    cdef const uint16_t* op
    _ceylon_arguments(m, o, hm, ho, out, same, other, open_points, jobs, &over, &sp, &op,
                      &same_end, &other_end)
    n_slots = c_subspace_slots(m, o)
    scratch = NULL
    with nogil, parallel(num_threads=jobs):
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        for slot in prange(n_slots, schedule="dynamic", chunksize=4096):
            if not c_is_real_slot(m, o, slot):
                best = V_SLACK
            else:
                c_position_at(m, o, slot, &scratch[0], &scratch[1])
                own = scratch[0]
                opp = scratch[1]
                best = ceylon_code(own, opp, m, o, hm, ho, over, sp, op, same_end, other_end)
            if check:
                if out[slot] != best:
                    bad += 1
            else:
                out[slot] = best
        free(scratch)
    return bad


def ceylon_capture_view(int m, int o, const uint16_t[::1] same, uint16_t[::1] out, int jobs=2):
    """The codes a capture that keeps the turn enters the moving rounds with: ``out``
    over subspace (o, m), the position (own, opp) there holding the code of (opp, own)
    in ``same`` (the codes of subspace (m, o), the side that took to move again) seen
    from the other side: a win in d turns a loss in d - 1 and the other way round, as
    the rounds count one more for the move into it (a draw stays one).  No capture
    leads where the side that took is lost already (its stone can go back), so code 1
    is kept as it is; slack slots get the slack code."""
    cdef int64_t slot, n_slots
    cdef uint32_t* scratch
    cdef int code
    _check_mo(m, o)
    _check_mo(o, m)
    check_jobs(jobs)
    n_slots = c_subspace_slots(o, m)
    check_size("same", same.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    check_size("out", out.shape[0], n_slots, f"slots of {o}-{m}")
    scratch = NULL
    with nogil, parallel(num_threads=jobs):
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        for slot in prange(n_slots, schedule="static", chunksize=65536):
            if not c_is_real_slot(o, m, slot):
                out[slot] = V_SLACK
            else:
                c_position_at(o, m, slot, &scratch[0], &scratch[1])
                code = same[c_index_position(m, o, scratch[1], scratch[0])]
                out[slot] = code - 1 if code >= 2 else code
        free(scratch)


# --- the pass grouped by the opponent's stones -------------------------------------------
#
# The same recursion as ceylon_place, organised as the placement build's pass is
# (placement_solve, docs/design.md §8): the positions of one representative opponent set
# Y come together, so every placement that passes the turn leads into the other side's
# subspace at a slot of one index frame (that side's stones are Y), made once for the
# group; a placement that keeps the turn is indexed from scratch (its side's stones
# change).  ceylon_place, which visits slots in order and indexes every child from
# scratch, is then the second pass: the check.

cdef inline int ceylon_grouped(uint32_t own, uint32_t opp, int m, int o, int hm, int ho, bint over,
                               const IndexFrame* q, const uint16_t* sp, const uint16_t* op,
                               int same_end, int other_end) noexcept nogil:
    """ceylon_code of position (own, opp), the other side's children through frame q."""
    cdef uint32_t free_r = FULL & ~(own | opp)
    cdef uint32_t image = 0, own2
    cdef int t, code, key, best = 1, best_key = -1
    if op != NULL:
        image = c_apply_sym_fast(q.g, own)
    while free_r:
        t = ctz(free_r)
        free_r &= free_r - 1
        own2 = own | ((<uint32_t>1) << t)
        if ceylon_again(closes_mill(own2, t), over, hm - 1, ho):
            code = same_end if same_end else sp[c_index_position(m + 1, o, own2, opp)]
        else:
            code = ceylon_seen(other_end if other_end else
                               op[c_index_of_image(q, image | ((<uint32_t>1) << SYM[q.g][t]))])
        key = ceylon_key(code)
        if key > best_key:
            best_key = key
            best = code
    return best


def ceylon_place_grouped(int m, int o, int hm, int ho, uint16_t[::1] out, const uint16_t[::1] same,
                         const uint16_t[::1] other, int open_points, int jobs=2):
    """ceylon_place's codes of the real slots of subspace (m, o, hm, ho) into ``out``,
    the positions grouped by the opponent's stones; slack slots are not written (``out``
    must hold the slack code there).  Returns how many slots were written."""
    cdef int64_t r, count = 0
    cdef uint32_t opp
    cdef uint32_t* owns
    cdef int64_t* slots
    cdef GroupWalk* w
    cdef IndexFrame* q
    cdef int nb, j, same_end = 0, other_end = 0
    cdef bint over
    cdef const uint16_t* sp
    cdef const uint16_t* op
    _ceylon_arguments(m, o, hm, ho, out, same, other, open_points, jobs, &over, &sp, &op,
                      &same_end, &other_end)
    owns = NULL
    slots = NULL
    w = NULL
    q = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        slots = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        q = <IndexFrame*>malloc(sizeof(IndexFrame))
        for r in prange(ORBITS[o], schedule="dynamic", chunksize=1):
            group_walk_start(w, m, o, r)
            opp = w.opp
            c_index_frame(o, m + 1, opp, q)
            while True:
                nb = group_walk_batch(w, owns, slots, NULL, False)    # (the writes need no wait)
                if nb == 0:
                    break
                for j in range(nb):
                    out[slots[j]] = ceylon_grouped(owns[j], opp, m, o, hm, ho, over, q, sp, op,
                                                   same_end, other_end)
                count += nb
        free(owns)
        free(slots)
        free(w)
        free(q)
    return count
