# The forward consistency check of a solved subspace (docs/design.md §6).
#
# Provides: CHECK_BATCH, CAPTURE_FLAG, LINE_WON_MARK; retro_check (slot order: `muehle check`),
#           retro_check_grouped (by opponent sets: the build's check), retro_fingerprint.
# Uses:     c_moves_rules, move_victims, mill_points, won_by_line (movegen.pxi);
#           c_index_position, c_index_frame, c_index_in_frame, c_position_at, c_is_real_slot,
#           c_subspace_slots, ORBITS, GroupWalk and its functions, successor_frames,
#           prefetch_blocks, prefetch (index.pxi);
#           Best, best_reset, best_add, best_code, walk_successors, RestBest, rest_table,
#           rest_best, blocked_code, V_LINE_WON, moved,
#           atomic_inc_i64, Outside, inside, outside_entry, outside_at, outside_read, outside_of (retro.pxi).
#
# The check recomputes every state's code from its successors' stored codes with the
# same rule of best_code that the solve uses, so what it proves is that the stored
# values are a fixed point of the value definition, not how the solve got there.

cdef enum:
    CHECK_BATCH = 16        # states whose successors the check prefetches together
    LINE_WON_MARK = -2      # a batch's count of a state won by a line (V_LINE_WON)

cdef int64_t CAPTURE_FLAG = (<int64_t>1) << 62


cdef inline int ended(int expect, int end) noexcept nogil:
    """The code a check expects where the game's own ends (a blocked side, a take
    that leaves two stones: the only ways to a loss in 0 or a win in 1) count ``end``
    plies more: the second solve of the tables of the quiet-ply rule (solver.dtz,
    docs/design.md §3), whose other ends come in through the capture targets."""
    if end and (expect == 1 or expect == 2):
        return expect + end
    return expect


def retro_check(int m, int o, const uint16_t[::1] val, const uint16_t[::1] quiet,
                const uint16_t[::1] cap, int rules,
                int64_t start=0, int64_t stop=-1, int max_bad=16, int jobs=2,
                int h=0, int k=0, place=None, place_cap=None, int end=0, mills=None, slots=None):
    """Forward consistency check of slots [start, stop) of a solved subspace m-o under
    the rule flags ``rules`` (solver.rules.Rules.flags).

    Recomputes each state's value and plies from its successors' stored values
    (``quiet``: subspace o-m, ``cap``: (o-1)-m; a blocked state's from the rules,
    blocked_code) and returns the slots that disagree
    (at most max_bad, as a numpy array) and how many disagree.  Under mixed placement
    the subspace is m-o+h-k of a unit (retro_init): ``quiet`` is o-m+k-h, and ``cap``,
    ``place``, ``place_cap`` where its other moves lead (Outside).  RULE_MILL_ENDS: a
    mill that takes nothing reads ``mills`` (o-m's codes), as retro_init's.  ``slots``
    (an array of integers): check those slots instead of [start, stop), which must then
    be left as they are (solver.dtz checks a second rounding only where it is not the
    first's plus two).

    The successors' values are random reads: the loop gathers the successors of
    CHECK_BATCH states and prefetches them all before reading any, so that many
    memory accesses are in flight at once.
    """
    cdef int64_t s0, s1, slot, blk, e, nblocks, q
    cdef int64_t n_slots, n_listed
    cdef bint by_list = slots is not None
    cdef const int64_t[::1] listed
    cdef uint32_t own, opp, mv
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int n, i, j, expect, total
    cdef int64_t* succ
    cdef int* first
    cdef int* count
    cdef Best* b      # per thread: a variable only used through & would be shared
    cdef IndexFrame* frame
    cdef long long nbad = 0, at
    cdef Outside x
    if by_list and (start != 0 or stop != -1):
        raise ValueError("retro_check: slots listed and a slot range given: give one")
    if by_list and np.asarray(slots).dtype.kind not in "iu" and len(slots):
        raise TypeError(f"retro_check: slots must be integers, not {np.asarray(slots).dtype}")
    listed = np.ascontiguousarray(slots, dtype=np.int64) if by_list else np.zeros(1, dtype=np.int64)
    # (the sizes are those of m-o: m and o first, so that they index the tables)
    _check_mo(m, o)
    check_jobs(jobs)
    x = outside_of(m, o, h, k, cap, place, place_cap, mills, rules)
    n_slots = c_subspace_slots(m, o)
    check_size("val", val.shape[0], n_slots, f"slots of {m}-{o}")
    check_size("quiet", quiet.shape[0], c_subspace_slots(o, m), f"slots of {o}-{m}")
    bad_arr = np.full(max_bad, -1, dtype=np.int64)
    cdef int64_t[::1] bad = bad_arr
    if stop < 0 or stop > n_slots:
        stop = n_slots
    if start < 0 or start > stop:
        raise ValueError(f"bad slot range {start}..{stop} of {m}-{o}")
    if by_list:
        n_listed = listed.shape[0]
        if n_listed and (np.min(listed) < 0 or np.max(listed) >= n_slots):
            raise ValueError(f"a slot listed outside 0..{n_slots - 1} of {m}-{o}")
        start, stop = 0, n_listed       # (positions in the list, then)
    nblocks = (stop - start + CHECK_BATCH - 1) // CHECK_BATCH
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    b = NULL
    frame = NULL
    succ = NULL
    first = NULL
    count = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        b = <Best*>malloc(sizeof(Best))
        frame = <IndexFrame*>malloc(sizeof(IndexFrame))
        succ = <int64_t*>malloc(CHECK_BATCH * MAX_MOVES * sizeof(int64_t))
        first = <int*>malloc(CHECK_BATCH * sizeof(int))
        count = <int*>malloc(CHECK_BATCH * sizeof(int))
        for blk in prange(nblocks, schedule="dynamic", chunksize=64):
            s0 = start + blk * CHECK_BATCH
            s1 = s0 + CHECK_BATCH if s0 + CHECK_BATCH < stop else stop
            # pass 1: where every successor's value lies (quiet: index; out of the
            # unit, a capture or a placement: outside_entry; -1: a win), prefetched
            total = 0
            for q in range(s0, s1):
                j = q - s0
                slot = listed[q] if by_list else q
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
                n = c_moves_rules(own, opp, h, k, rules, moves)
                c_index_frame(o, m, opp, frame)     # quiet moves keep opp's stones
                for i in range(n):
                    mv = moves[i]
                    if inside(mv):
                        e = c_index_in_frame(frame, moved(own, mv))
                        prefetch(&quiet[e])
                    else:
                        e = outside_entry(m, o, own, opp, mv, &x)
                        if e >= 0:
                            prefetch(outside_at(e, &x))
                    succ[total + i] = e
                total = total + n
                count[j] = n
            # pass 2: the values, now (mostly) in cache
            for q in range(s0, s1):
                j = q - s0
                slot = listed[q] if by_list else q
                if count[j] < 0:
                    expect = V_LINE_WON if LINE_WINS and count[j] == LINE_WON_MARK else V_SLACK
                else:
                    best_reset(b)
                    for i in range(first[j], first[j] + count[j]):
                        e = succ[i]
                        if e < 0 or e & OUT_ANY:
                            best_add(b, outside_read(e, &x))
                        else:
                            best_add(b, quiet[e])
                    expect = best_code(b) if count[j] else blocked_code(m, o, rules)
                    expect = ended(expect, end)
                if expect != val[slot]:
                    at = atomic_inc_i64(&nbad)
                    if at < max_bad:
                        bad[at] = slot
        free(succ)
        free(first)
        free(count)
        free(moves)
        free(scratch)
        free(b)
        free(frame)
    return bad_arr[:min(nbad, max_bad)], nbad


# --- the build's check: positions grouped by the opponent's stones ----------------------
#
# The same recomputation as retro_check, visiting the positions grouped by the
# opponent's stones (as the placement pass does, docs/design.md §8): for one
# representative X of the o-stone sets, every position (own, X) has its quiet
# successors (X, own') in one block of C(NPTS - o, m) slots of o-m (X is their side to
# move) and its captures in one of o blocks of (o-1)-m, so the successors' codes come
# from cache; the state's own code is the one read far away.  retro_check reads every
# successor far away (about 10 reads a position when sliding, 45 when jumping).

cdef inline uint64_t slot_print(int64_t slot, uint16_t code) noexcept nogil:
    """The fingerprint term of code at slot: splitmix64's finaliser of both, so that
    sums over different (slot, code) sets differ but with probability 2^-64."""
    cdef uint64_t z = ((<uint64_t>slot << 16) | code) + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


def retro_check_grouped(int m, int o, const uint16_t[::1] val, const uint16_t[::1] quiet,
                        const uint16_t[::1] cap, int rules,
                        int64_t rep_start=0, int64_t rep_stop=-1, int max_bad=16, int jobs=2,
                        int h=0, int k=0, bint fingerprint=False, int end=0):
    """Forward consistency check of the positions of subspace m-o whose opponent stones
    are the representatives [rep_start, rep_stop) of the o-stone sets.

    Arguments as for retro_check (``end``: the game's own ends count that many plies
    more, as ``ended`` says).  Returns the slots that disagree (at most max_bad, in
    no particular order), how many disagree, how many slots were checked, and 0.  Over
    all representatives every real slot is checked exactly once (an own set is taken
    once per orbit under the stabiliser of X), so the checked slots number the real
    ones; that the others hold the slack code the caller proves by counting
    (retro_fingerprint).

    With ``fingerprint`` the stored codes are not read (each is a read far away, the
    walk's only one): the last value returned is the sum (mod 2^64) of slot_print of
    every checked slot and the code its successors give it, which retro_fingerprint
    of the stored codes must equal; no slot is named.

    With h >= 1 the subspace is the placement subspace m-o+h-k (separate placement:
    the side to move places): ``quiet`` is o-(m+1)+k-(h-1) and ``cap`` (o-1)-(m+1), as
    for placement_pass, whose slot-order check this is the grouped twin of.
    """
    if rules & RULE_MILL_ENDS:
        raise ValueError("the grouped walks count a mill that takes nothing as quiet: check in slot order")
    cdef int64_t n_slots
    cdef int64_t r, visited = 0
    cdef uint32_t opp, own
    cdef uint32_t* owns
    cdef int64_t* slots
    cdef GroupWalk* w
    cdef IndexFrame* frames     # [NPTS]: quiet successors' side; [t]: after taking t
    cdef Best* b
    cdef RestBest* rests        # [NPTS * NPTS] (rest_table), where the mover jumps
    cdef int n, j, nb, expect
    cdef uint32_t victims, vacant
    cdef bint opp_line
    cdef bint jump = (rules & RULE_JUMPING) and m + h == 3     # (every own set of the subspace has m stones)
    cdef bint by_rests = jump and h == 0        # (a jump, not a placement: rest_best)
    cdef bint over = m + h < 3 or o + k < 3     # (c_moves_rules: no moves then)
    cdef long long nbad = 0, at
    cdef uint64_t prints = 0
    cdef const uint16_t* codes
    cdef int m1 = m + 1 if h > 0 else m       # the mover's stones after its move
    cdef bint cap_wins = o - 1 + k < 3
    cdef const uint16_t* capp = &cap[0] if cap.shape[0] > 0 else NULL
    bad_arr = np.full(max_bad, -1, dtype=np.int64)
    cdef int64_t[::1] bad = bad_arr
    _check_mo(m, o)
    check_jobs(jobs)
    # (a placement's child has m + 1 stones of the mover's: within the tables)
    if h < 0 or k < 0 or (h > 0 and m + h < 3) or m + h > MAX_STONES or o + k > MAX_STONES:
        raise ValueError(f"no subspace {m}-{o}+{h}-{k}")
    if rep_stop < 0 or rep_stop > ORBITS[o]:
        rep_stop = ORBITS[o]
    if rep_start < 0 or rep_start > rep_stop:
        raise ValueError("bad representative range")
    n_slots = c_subspace_slots(m, o)
    check_size("val", val.shape[0], n_slots, f"slots of {m}-{o}")
    check_size("quiet", quiet.shape[0], c_subspace_slots(o, m1), f"slots of {o}-{m1}")
    # (no opponent stone, no capture: cap is never read)
    if not cap_wins and o >= 1:
        check_size("cap", cap.shape[0], c_subspace_slots(o - 1, m1), f"slots of {o - 1}-{m1}")
    codes = &val[0] if not fingerprint else NULL     # (this order: the pointer keeps its const)
    # (each thread starts from a copy of these: defined, not left uninitialised)
    owns = NULL
    slots = NULL
    w = NULL
    frames = NULL
    b = NULL
    rests = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        slots = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        frames = <IndexFrame*>malloc((NPTS + 1) * sizeof(IndexFrame))
        b = <Best*>malloc(sizeof(Best))
        rests = <RestBest*>malloc(NPTS * NPTS * sizeof(RestBest)) if by_rests else NULL
        for r in prange(rep_start, rep_stop, schedule="dynamic", chunksize=1):
            group_walk_start(w, m, o, r)
            opp = w.opp
            # (Y is a representative: frames[NPTS] has g = 0)
            vacant = FULL & ~opp
            victims = move_victims(opp, rules)
            opp_line = LINE_WINS and mill_points(opp) != 0
            successor_frames(o, m1, opp, 0 if cap_wins else victims, frames)
            if not over:
                prefetch_blocks(o, m1, victims, frames, &quiet[0], capp if not cap_wins else NULL)
            if by_rests and not over and not (LINE_WINS and opp_line):
                rest_table(rests, vacant, victims, cap_wins, frames, &quiet[0], capp)
            while True:
                nb = group_walk_batch(w, owns, slots, codes, False)
                if nb == 0:
                    break
                visited += nb
                # each state's code from its successors' (near) codes
                for j in range(nb):
                    own = owns[j]
                    if over or (LINE_WINS and (opp_line or mill_points(own))):
                        n = 0       # the game is over (as c_moves_rules says)
                    elif by_rests:
                        rest_best(b, own, rests)
                        n = popcount(vacant & ~own)
                    else:
                        n = walk_successors(WALK_BEST, b, own, vacant, h > 0, victims, jump,
                                            cap_wins, frames, &quiet[0], capp, 0, NULL)
                    expect = ended(best_code(b) if n else blocked_code(m, o, rules), end)
                    if LINE_WINS and won_by_line(own, opp):
                        expect = V_LINE_WON
                    if fingerprint:
                        prints += slot_print(slots[j], <uint16_t>expect)
                    elif expect != val[slots[j]]:
                        at = atomic_inc_i64(&nbad)
                        if at < max_bad:
                            bad[at] = slots[j]
        free(owns)
        free(slots)
        free(w)
        free(frames)
        free(b)
        free(rests)
    return bad_arr[:min(nbad, max_bad)], nbad, visited, prints


def retro_fingerprint(const uint16_t[::1] val, uint16_t code, int jobs=2):
    """How many slots of val hold a code other than ``code``, and the sum (mod 2^64) of
    slot_print over those slots and their codes (read in order)."""
    cdef int64_t i, n = 0
    cdef uint64_t prints = 0
    check_jobs(jobs)
    for i in prange(val.shape[0], nogil=True, num_threads=jobs, schedule="static"):
        if val[i] != code:
            n += 1
            prints += slot_print(i, val[i])
    return n, prints
