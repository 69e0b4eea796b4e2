# The placement phase by one backward pass (the acyclic part of the game).
#
# A placement subspace (m, o, hm, ho) holds the positions with m stones of the side
# to move and o of the opponent on the board and hm, ho in hand (hm >= 1: the side
# to move places).  Every move places a stone, so each position's value follows from
# its successors, which lie in subspaces with one stone fewer in hand: a pass over the
# subspaces in order of stones in hand settles them all, with the same values and plies
# as the moving phase (docs/design.md §3).  The board index is the moving-phase one.
#
# Provides: placement_values (driven by solver.opening.solve_placement), placement_solve
#           (the build's pass, solver.placement.solve), placement_pass (its forward check,
#           solver.placement.check), placement_reach.
# Uses:     movegen.pxi (c_moves_packed, move_* accessors, move_victims, closes_mill,
#           mill_points, won_by_line),
#           index.pxi (c_index_position, IndexFrame, c_index_frame, c_index_in_frame,
#           c_index_of_image, c_position_at, c_is_real_slot, c_subspace_slots, ORBITS,
#           GroupWalk and its functions, successor_frames, prefetch_blocks, prefetch,
#           c_apply_sym_fast, SYM),
#           retro.pxi (Best, best_*, walk_successors, without, V_SLACK, V_LINE_WON, prange),
#           check.pxi (CAPTURE_FLAG, LINE_WON_MARK).


cdef inline int child_code(int m, int o, uint32_t own_after, uint32_t opp_after, int opp_count,
                           const uint16_t* arr) noexcept nogil:
    """Code of a successor (the opponent to move, opp_count stones); arr NULL: it has lost."""
    if arr == NULL:
        return 1
    return arr[c_index_position(opp_count, m + 1, opp_after, own_after)]


cdef int _check_placement(int m, int o, int hm, int ho, int jobs) except -1:
    """What every pass over a placement subspace needs of its arguments before it reads
    a table: m-o a subspace of the index, the side to move with a stone to place, and
    both sides' stones (board and hand) within the index, which covers the child of
    m + 1 stones it indexes; and a thread count OpenMP can start."""
    _check_mo(m, o)
    check_jobs(jobs)
    if not (1 <= hm and 0 <= ho and m + hm <= MAX_STONES and o + ho <= MAX_STONES):
        raise ValueError(f"no placement subspace {m}-{o}+{hm}-{ho} "
                         f"(at most {MAX_STONES} stones a side)")
    return 0


def placement_values(int m, int o, int hm, int ho, uint16_t[::1] out,
                     const uint16_t[::1] quiet_child, const uint16_t[::1] capture_child,
                     int rules, int jobs=2):
    """Values of placement subspace (m, o, hm, ho) from its successors' values, under
    the rule flags ``rules`` (solver.rules.Rules.flags; separate placement, whatever
    their RULE_MIXED).

    ``quiet_child``: subspace (o, m+1) with hands (ho, hm-1); ``capture_child``:
    (o-1, m+1) with the same hands, or empty when a capture leaves the opponent with
    fewer than three stones (board plus hand): then it wins at once.
    """
    cdef int64_t slot, n_slots
    cdef uint32_t own, opp, mv, own2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, target, take, code
    cdef Best* b      # per thread: a variable only used through & would be shared
    cdef const uint16_t* qp = &quiet_child[0] if quiet_child.shape[0] > 0 else NULL
    cdef const uint16_t* cp = &capture_child[0] if capture_child.shape[0] > 0 else NULL
    _check_placement(m, o, hm, ho, jobs)
    n_slots = c_subspace_slots(m, o)
    check_size("out", out.shape[0], n_slots, f"slots of {m}-{o}")
    # an empty child array is one never looked up: this side has already lost
    if quiet_child.shape[0]:
        check_size("quiet_child", quiet_child.shape[0], c_subspace_slots(o, m + 1),
                   f"slots of {o}-{m + 1}, or none")
    if capture_child.shape[0] and o >= 1:      # (no opponent stone: nothing to take)
        check_size("capture_child", capture_child.shape[0], c_subspace_slots(o - 1, m + 1),
                   f"slots of {o - 1}-{m + 1}, or none")
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    b = NULL
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
            if LINE_WINS and won_by_line(own, opp):
                out[slot] = V_LINE_WON
                continue
            n = c_moves_packed(own, opp, hm, ho, rules, moves)
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


# --- the build's pass: one subspace (or a range of its slots) from stored children -----
#
# The same recursion as placement_values, organised for subspaces of up to 6e8 slots
# whose children (1 GB each) are far out of cache: the successors of PLACE_BATCH slots
# are located and prefetched before any is read, so that many memory accesses are in
# flight at once (as in retro_check).  With ``check`` it compares instead of writing:
# the forward check of a stored placement subspace is the same recomputation.

cdef enum:
    PLACE_BATCH = 16


ctypedef struct FixedOwn:
    # c_index_position(o, m + 1, opp, own | bit t) for a fixed opp and own and any free t: the
    # quiet children of one placement position share the child's side to move (opp),
    # so its canonical entry, symmetry and free points are looked up once, and only
    # the placed stone's image changes.
    IndexFrame side
    uint32_t own_image      # g(own)


cdef inline void fixed_own_init(FixedOwn* f, int o, int m1, uint32_t opp, uint32_t own) noexcept nogil:
    c_index_frame(o, m1, opp, &f.side)
    f.own_image = c_apply_sym_fast(f.side.g, own)


cdef inline int64_t fixed_own_index(FixedOwn* f, int t) noexcept nogil:
    return c_index_of_image(&f.side, f.own_image | ((<uint32_t>1) << SYM[f.side.g][t]))


cdef inline int placed_code(uint32_t own, uint32_t free_r, uint32_t victims, bint cap_wins,
                            const IndexFrame* sides, const uint16_t* qp,
                            const uint16_t* cp) noexcept nogil:
    """Code of a placement position (own to move) from its children's codes; sides: of
    the opponent's set (see placement_solve), free_r: the points it leaves free."""
    cdef Best b           # a local of this function: private to the calling thread
    if LINE_WINS:
        if mill_points(FULL & ~free_r):
            return 1                    # the opponent's line stands: lost in 0
        if mill_points(own):
            return V_LINE_WON
    walk_successors(WALK_BEST, &b, own, free_r, True, victims, False, cap_wins, sides, qp, cp,
                    0, NULL)
    return best_code(&b)        # (no free point: nothing taken in, lost in 0)


cdef int _check_children(int m, int o, const uint16_t[::1] val, const uint16_t[::1] quiet,
                         const uint16_t[::1] cap, bint cap_wins) except -1:
    """The sizes of a placement subspace's codes and its children's (placement_solve and
    placement_pass): ``cap`` is read only where a capture leaves the opponent three."""
    check_size("val", val.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    check_size("quiet", quiet.shape[0], c_subspace_slots(o, m + 1), f"slots of {o}-{m + 1}")
    if o >= 1 and not cap_wins:
        check_size("cap", cap.shape[0], c_subspace_slots(o - 1, m + 1),
                   f"slots of {o - 1}-{m + 1}")
    return 0


def placement_solve(int m, int o, int hm, int ho, uint16_t[::1] val,
                    const uint16_t[::1] quiet, const uint16_t[::1] cap,
                    int rules, int64_t rep_start=0, int64_t rep_stop=-1, int jobs=2):
    """Codes of the positions of placement subspace (m, o, hm, ho) whose opponent stones
    are one of the representatives [rep_start, rep_stop) of o-stone sets, from the
    children's stored codes, written to their slots in ``val``; returns how many.

    The positions are visited grouped by the opponent's stones (docs/design.md §8):
    every quiet child of such a group lies in one block of C(NPTS - o, m + 1) slots of
    ``quiet`` (the opponent is the child's side to move), every capture child in one
    of o blocks of ``cap``, so the children are read from cache, and the write of each
    code is the one access far away (a store, which does not wait).  Slack slots are
    not written: ``val`` must hold SLACK (0xFFFF) there.  Over all representatives of
    o stones every real slot is written once.  Children as in :func:`placement_pass`;
    the moves are c_moves_packed's, with the takeable stones found once per opponent set.
    """
    cdef int64_t n_slots
    cdef int64_t r, count = 0
    cdef uint32_t opp, victims
    cdef uint32_t* owns
    cdef int64_t* slots
    cdef GroupWalk* w
    cdef IndexFrame* sides   # [NPTS]: the quiet child's side to move; [p]: after taking p
    cdef int nb, j
    cdef bint cap_wins = o - 1 + ho < 3
    cdef const uint16_t* qp = &quiet[0]
    cdef const uint16_t* cp = &cap[0] if cap.shape[0] > 0 else NULL
    _check_placement(m, o, hm, ho, jobs)
    if m + hm < 3 or o + ho < 3:
        raise ValueError(f"no placement subspace {m}-{o}+{hm}-{ho}")
    if rep_stop < 0 or rep_stop > ORBITS[o]:
        rep_stop = ORBITS[o]
    n_slots = c_subspace_slots(m, o)
    _check_children(m, o, val, quiet, cap, cap_wins)
    if rep_start < 0 or rep_start > rep_stop:
        raise ValueError("bad representative range")
    # (each thread starts from a copy of these: defined, not left uninitialised)
    owns = NULL
    slots = NULL
    w = NULL
    sides = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        slots = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        sides = <IndexFrame*>malloc((NPTS + 1) * sizeof(IndexFrame))
        for r in prange(rep_start, rep_stop, schedule="dynamic", chunksize=1):
            group_walk_start(w, m, o, r)
            opp = w.opp
            victims = move_victims(opp, rules)
            successor_frames(o, m + 1, opp, 0 if cap_wins else victims, sides)
            prefetch_blocks(o, m + 1, victims, sides, qp, cp if not cap_wins else NULL)
            while True:
                nb = group_walk_batch(w, owns, slots, NULL, False)    # (the writes need no wait)
                if nb == 0:
                    break
                for j in range(nb):
                    val[slots[j]] = <uint16_t>placed_code(owns[j], w.free, victims, cap_wins,
                                                          sides, qp, cp)
                count += nb
        free(owns)
        free(slots)
        free(w)
        free(sides)
    return count


def placement_pass(int m, int o, int hm, int ho, uint16_t[::1] val,
                   const uint16_t[::1] quiet, const uint16_t[::1] cap,
                   int rules, int64_t start=0, int64_t stop=-1, bint check=False, int max_bad=16, int jobs=2):
    """Values of slots [start, stop) of placement subspace (m, o, hm, ho) from its
    children's stored codes, written to ``val`` (or, with ``check``, compared with it).

    ``quiet``: the subspace (o, m+1) with hands (ho, hm-1); ``cap``: (o-1, m+1) with the
    same hands, empty when a capture leaves the opponent with fewer than three stones
    (board plus hand), which wins at once.  Returns (slots that disagree, at most
    max_bad, and how many disagree); both empty/0 when writing.
    """
    cdef int64_t s0, s1, slot, blk, e, nblocks
    cdef int64_t n_slots
    cdef uint32_t own, opp, mv, own2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, j, take, code, total
    cdef int64_t* succ
    cdef int* first
    cdef int* count
    cdef Best* b      # per thread: a variable only used through & would be shared
    cdef FixedOwn* fo
    cdef long long nbad = 0, at
    cdef bint cap_wins = o - 1 + ho < 3
    cdef const uint16_t* qp = &quiet[0] if quiet.shape[0] > 0 else NULL
    cdef const uint16_t* cp = &cap[0] if cap.shape[0] > 0 else NULL
    bad_arr = np.full(max_bad, -1, dtype=np.int64)
    cdef int64_t[::1] bad = bad_arr
    _check_placement(m, o, hm, ho, jobs)
    if m + hm < 3 or o + ho < 3:
        raise ValueError(f"no placement subspace {m}-{o}+{hm}-{ho}")
    n_slots = c_subspace_slots(m, o)
    if stop < 0 or stop > n_slots:
        stop = n_slots
    _check_children(m, o, val, quiet, cap, cap_wins)
    if start < 0 or start > stop:
        raise ValueError("bad slot range")
    nblocks = (stop - start + PLACE_BATCH - 1) // PLACE_BATCH
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    b = NULL
    succ = NULL
    first = NULL
    count = NULL
    fo = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        b = <Best*>malloc(sizeof(Best))
        succ = <int64_t*>malloc(PLACE_BATCH * MAX_MOVES * sizeof(int64_t))
        first = <int*>malloc(PLACE_BATCH * sizeof(int))
        count = <int*>malloc(PLACE_BATCH * sizeof(int))
        fo = <FixedOwn*>malloc(sizeof(FixedOwn))
        for blk in prange(nblocks, schedule="dynamic", chunksize=64):
            s0 = start + blk * PLACE_BATCH
            s1 = s0 + PLACE_BATCH if s0 + PLACE_BATCH < stop else stop
            # pass 1: where every successor's value lies (quiet: index; capture:
            # index | CAPTURE_FLAG; a capture that wins at once: -1), prefetched
            total = 0
            for slot in range(s0, s1):
                j = slot - s0
                first[j] = total
                count[j] = -1
                if not c_is_real_slot(m, o, slot):
                    continue
                c_position_at(m, o, slot, &scratch[0], &scratch[1])
                own = scratch[0]
                opp = scratch[1]
                if LINE_WINS and won_by_line(own, opp):
                    count[j] = LINE_WON_MARK
                    continue
                n = c_moves_packed(own, opp, hm, ho, rules, moves)
                fixed_own_init(fo, o, m + 1, opp, own)
                for i in range(n):
                    mv = moves[i]
                    take = move_take(mv)
                    own2 = own | ((<uint32_t>1) << move_target(mv))
                    if take == NO_POINT:
                        e = fixed_own_index(fo, move_target(mv))
                        prefetch(&qp[e])
                    elif cap_wins:
                        e = -1
                    else:
                        e = c_index_position(o - 1, m + 1, without(opp, take), own2)
                        prefetch(&cp[e])
                        e = e | CAPTURE_FLAG
                    succ[total + i] = e
                total = total + n
                count[j] = n
            # pass 2: the values, now (mostly) in cache
            for slot in range(s0, s1):
                j = slot - s0
                if count[j] < 0:
                    code = V_LINE_WON if LINE_WINS and count[j] == LINE_WON_MARK else V_SLACK
                else:
                    best_reset(b)
                    for i in range(first[j], first[j] + count[j]):
                        e = succ[i]
                        if e < 0:
                            best_add(b, 1)          # the opponent is left with two stones
                        elif e & CAPTURE_FLAG:
                            best_add(b, cp[e & ~CAPTURE_FLAG])
                        else:
                            best_add(b, qp[e])
                    code = best_code(b)
                if not check:
                    val[slot] = <uint16_t>code
                elif code != val[slot]:
                    at = atomic_inc_i64(&nbad)
                    if at < max_bad:
                        bad[at] = slot
        free(succ)
        free(first)
        free(count)
        free(fo)
        free(moves)
        free(scratch)
        free(b)
    return bad_arr[:min(nbad, max_bad)], nbad


def placement_reach(int m, int o, int hm, int ho, const uint8_t[::1] reached,
                    uint8_t[::1] quiet_reach, uint8_t[::1] cap_reach,
                    int rules, int jobs=2):
    """Mark the children of the reached slots of placement subspace (m, o, hm, ho).

    ``reached[slot]`` != 0: the slot's position arises from the start.  Sets
    ``quiet_reach`` (subspace (o, m+1) with hands (ho, hm-1)) and ``cap_reach`` ((o-1,
    m+1), same hands) to 1 at every child slot; an empty array: that child is not
    tracked.  Returns the number of reached real slots.
    """
    cdef int64_t slot, n_slots, count = 0
    cdef uint32_t own, opp, mv, own2
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, take
    cdef FixedOwn* fo
    cdef bint track_q = quiet_reach.shape[0] > 0
    cdef bint track_c = cap_reach.shape[0] > 0
    _check_placement(m, o, hm, ho, jobs)
    n_slots = c_subspace_slots(m, o)
    check_size("reached", reached.shape[0], n_slots, f"slots of {m}-{o}")
    if track_q:
        check_size("quiet_reach", quiet_reach.shape[0], c_subspace_slots(o, m + 1),
                   f"slots of {o}-{m + 1}, or none")
    if track_c and o < 1:
        raise ValueError(f"cap_reach given, but {m}-{o} has no opponent stone to take")
    if track_c:
        check_size("cap_reach", cap_reach.shape[0], c_subspace_slots(o - 1, m + 1),
                   f"slots of {o - 1}-{m + 1}, or none")
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    fo = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        fo = <FixedOwn*>malloc(sizeof(FixedOwn))
        for slot in prange(n_slots, schedule="dynamic", chunksize=4096):
            if not reached[slot] or not c_is_real_slot(m, o, slot):
                continue
            count += 1
            c_position_at(m, o, slot, &scratch[0], &scratch[1])
            own = scratch[0]
            opp = scratch[1]
            n = c_moves_packed(own, opp, hm, ho, rules, moves)
            fixed_own_init(fo, o, m + 1, opp, own)
            for i in range(n):
                mv = moves[i]
                take = move_take(mv)
                if take == NO_POINT:
                    if track_q:
                        quiet_reach[fixed_own_index(fo, move_target(mv))] = 1   # all writers store 1
                elif track_c:
                    own2 = own | ((<uint32_t>1) << move_target(mv))
                    cap_reach[c_index_position(o - 1, m + 1, without(opp, take), own2)] = 1
        free(moves)
        free(scratch)
        free(fo)
    return count
