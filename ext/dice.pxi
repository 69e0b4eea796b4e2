# Dice mill (Würfelmühle): the placement phase with a throw of three dice before each
# placement, by one backward pass per subspace (solver.dice is the readable reference
# and says the rules; docs/design.md §11).
#
# A value is the side to move's expected result before its throw, in fixed point: W, the
# probability of a win, and N, the probability of not losing (a win or a draw), each in
# units of 1/DICE_UNIT, packed as W | N << 16 (W <= N; DICE_SLACK, W > N, marks slots
# that hold no position).  Seen from the opponent, (W, N) is (UNIT - N, UNIT - W).
# A position's value: with probability num/216 the throw gives the power, and the side
# to move picks the best of its placements and its replacements (a stone of an enemy
# mill taken off and one of its own put there); otherwise the best of its placements.
# "Best" is the highest expected score W + N, then the highest W.  The mix is rounded to
# the nearest unit (half up) in integers, the same arithmetic solver.dice.combine
# states: a table equals its reference exactly, and differs from exact rationals by at
# most half a unit a ply (tests/test_dice.py).
#
# Provides: DICE_UNIT, DICE_SLACK, dice_pass.
# Uses:     movegen.pxi (c_moves_packed, move_target, move_take, mill_points, closes_mill,
#           takeable, NO_POINT, MAX_MOVES), index.pxi (c_position_at, c_index_position,
#           c_is_real_slot, c_subspace_slots), retro.pxi (without, prange),
#           guards.pxi (check_jobs, check_size), rules.pxi.

cdef enum:
    DICE_UNIT = 0xFFFF
    DICE_THROWS = 216                     # 6 x 6 x 6 equally likely throws


cdef uint32_t DICE_SLACK = DICE_UNIT      # W = UNIT, N = 0: no value has W > N


cdef inline uint32_t dice_child(const uint32_t* arr, int opp_count, int own_count,
                                uint32_t opp_after, uint32_t own_after) noexcept nogil:
    """The value of a successor (the opponent to move, opp_count stones) seen by the
    side that moved into it; arr NULL: the opponent has fewer than three stones, a win."""
    cdef uint32_t v, w, n
    if arr == NULL:
        return DICE_UNIT | (<uint32_t>DICE_UNIT << 16)
    v = arr[c_index_position(opp_count, own_count, opp_after, own_after)]
    w = v & 0xFFFF
    n = v >> 16
    return (DICE_UNIT - n) | ((DICE_UNIT - w) << 16)


cdef inline bint dice_better(uint32_t a, uint32_t b) noexcept nogil:
    """Whether value a is better than b for the side it belongs to: a higher expected
    score (W + N), then a higher W."""
    cdef uint32_t sa = (a & 0xFFFF) + (a >> 16)
    cdef uint32_t sb = (b & 0xFFFF) + (b >> 16)
    return sa > sb or (sa == sb and (a & 0xFFFF) > (b & 0xFFFF))


cdef inline uint32_t dice_mix(uint32_t powered, uint32_t plain, int num) noexcept nogil:
    """The expected value before the throw: powered with probability num/216, else
    plain, each part rounded to the nearest unit (half up)."""
    cdef uint64_t w = <uint64_t>num * (powered & 0xFFFF) + <uint64_t>(DICE_THROWS - num) * (plain & 0xFFFF)
    cdef uint64_t n = <uint64_t>num * (powered >> 16) + <uint64_t>(DICE_THROWS - num) * (plain >> 16)
    w = (2 * w + DICE_THROWS) // (2 * DICE_THROWS)
    n = (2 * n + DICE_THROWS) // (2 * DICE_THROWS)
    return <uint32_t>w | (<uint32_t>n << 16)


cdef inline uint32_t dice_position(uint32_t own, uint32_t opp, int m, int o, int hm, int ho,
                                   const uint32_t* quiet, const uint32_t* single,
                                   const uint32_t* twice, int num, bint replace_takes,
                                   int rules, uint32_t* moves) noexcept nogil:
    """The value of one placement position (solver.dice.position_value's recursion)."""
    cdef int n, i, take, p, v
    cdef uint32_t mv, own2, opp2, val, plain, powered, targets, victims
    cdef bint seen = False
    n = c_moves_packed(own, opp, hm, ho, rules, moves)
    plain = 0                                   # (W, N) = (0, 0): no move, a loss
    for i in range(n):
        mv = moves[i]
        own2 = own | ((<uint32_t>1) << move_target(mv))
        take = move_take(mv)
        if take != NO_POINT:
            val = dice_child(single, o - 1, m + 1, without(opp, take), own2)
        else:
            val = dice_child(quiet, o, m + 1, opp, own2)
        if not seen or dice_better(val, plain):
            plain = val
            seen = True
    powered = plain
    targets = mill_points(opp)
    while targets:
        p = ctz(targets)
        targets &= targets - 1
        own2 = own | ((<uint32_t>1) << p)
        opp2 = without(opp, p)
        victims = takeable(opp2, rules) if replace_takes and closes_mill(own2, p) else 0
        if victims:
            while victims:
                v = ctz(victims)
                victims &= victims - 1
                val = dice_child(twice, o - 2, m + 1, without(opp2, v), own2)
                if dice_better(val, powered):
                    powered = val
        else:
            val = dice_child(single, o - 1, m + 1, opp2, own2)
            if dice_better(val, powered):
                powered = val
    return dice_mix(powered, plain, num)


cdef const uint32_t* dice_array(const uint32_t[::1] arr, int m, int o, str name) except? NULL:
    """The first entry of a child's values, or NULL for an empty array (no child: that
    capture wins); a child of the wrong size is refused."""
    if arr.shape[0] == 0:
        return NULL
    check_size(name, arr.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}, or none")
    return &arr[0]


cdef int _dice_arguments(int m, int o, int hm, int ho, const uint32_t[::1] out,
                         const uint32_t[::1] quiet, const uint32_t[::1] single,
                         const uint32_t[::1] twice, int num, int rules, int jobs,
                         const uint32_t** qp, const uint32_t** sp, const uint32_t** tp) except -1:
    """What both passes need of their arguments (the rules, the throws, the sizes of the
    values and of the children that are not wins), and the children's first entries
    (NULL: that many stones taken win)."""
    _check_placement(m, o, hm, ho, jobs)
    if LINE_WINS or rules & RULE_MIXED:
        raise ValueError("dice mill is played with separate placement and mills that take")
    if not 0 <= num <= DICE_THROWS:
        raise ValueError(f"throws that give the power lie in 0..{DICE_THROWS}, not {num}")
    check_size("out", out.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    qp[0] = dice_array(quiet, o, m + 1, "quiet")
    sp[0] = dice_array(single, o - 1, m + 1, "single") if o >= 1 else NULL
    tp[0] = dice_array(twice, o - 2, m + 1, "twice") if o >= 2 else NULL
    if qp[0] == NULL:
        raise ValueError("a placement always has a quiet child")
    if o >= 1 and sp[0] == NULL and o - 1 + ho >= 3:
        raise ValueError(f"the child {o - 1}-{m + 1} is needed")
    if o >= 2 and tp[0] == NULL and o - 2 + ho >= 3:
        raise ValueError(f"the child {o - 2}-{m + 1} is needed")
    return 0


def dice_pass(int m, int o, int hm, int ho, uint32_t[::1] out, const uint32_t[::1] quiet,
              const uint32_t[::1] single, const uint32_t[::1] twice, int num,
              bint replace_takes, int rules, int jobs=2, bint check=False):
    """Dice values of placement subspace (m, o, hm, ho) from its children's: ``quiet``
    (o, m+1) with hands (ho, hm-1), ``single`` (o-1, m+1) and ``twice`` (o-2, m+1)
    with the same hands, each empty where that many stones taken leave the opponent
    with fewer than three (a win).  ``num``: throws of 216 that give the power;
    ``replace_takes``: a mill the replacing stone closes takes a stone.  ``check``:
    compare with ``out`` instead of writing it; returns the number of slots that
    differ (0 when writing)."""
    cdef int64_t slot, n_slots, bad = 0
    cdef uint32_t own, opp, val
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef const uint32_t* qp
    cdef const uint32_t* sp
    cdef const uint32_t* dp
    n_slots = c_subspace_slots(m, o)
    _dice_arguments(m, o, hm, ho, out, quiet, single, twice, num, rules, jobs, &qp, &sp, &dp)
    moves = NULL
    scratch = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        for slot in prange(n_slots, schedule="dynamic", chunksize=4096):
            if not c_is_real_slot(m, o, slot):
                val = DICE_SLACK
            else:
                c_position_at(m, o, slot, &scratch[0], &scratch[1])
                own = scratch[0]
                opp = scratch[1]
                val = dice_position(own, opp, m, o, hm, ho, qp, sp, dp, num, replace_takes,
                                    rules, moves)
            if check:
                if out[slot] != val:
                    bad += 1
            else:
                out[slot] = val
        free(moves)
        free(scratch)
    return bad


# --- the build's pass: grouped by the opponent's stones ------------------------------------
#
# The same recursion as dice_pass, organised as the placement phase's build pass is
# (placement_solve, docs/design.md §8): the positions of one representative opponent
# set Y come together, so that every child of theirs lies in a few blocks of the
# children's arrays (the quiet child's, and the single child's of each stone of Y a
# placement may take or a replacement replaces) whose index frames are made once for
# the group.  dice_pass, which visits slots in order and indexes every child from
# scratch, is then an independent second pass: the build's check.

cdef inline uint32_t dice_seen(uint32_t v) noexcept nogil:
    """A child's value (its side to move's) for the side that moved into it."""
    return (DICE_UNIT - (v >> 16)) | ((DICE_UNIT - (v & 0xFFFF)) << 16)


cdef inline uint32_t dice_in_frame(const IndexFrame* f, uint32_t own_after,
                                   const uint32_t* arr) noexcept nogil:
    """The mover's value of the child whose side to move's frame is f (its other stones
    own_after); arr NULL: the opponent is left with fewer than three stones, a win."""
    if arr == NULL:
        return DICE_UNIT | (<uint32_t>DICE_UNIT << 16)
    return dice_seen(arr[c_index_of_image(f, c_apply_sym_fast(f.g, own_after))])


cdef inline uint32_t dice_grouped(uint32_t own, uint32_t opp, int m, int o, uint32_t victims,
                                  uint32_t targets, const IndexFrame* sides, const uint32_t* qp,
                                  const uint32_t* sp, const uint32_t* tp, int num,
                                  bint replace_takes, int rules) noexcept nogil:
    """The value of placement position (own, opp) (dice_position's recursion) with the
    frames of its group: sides[NPTS] the quiet child's, sides[p] the single child's
    after p is taken or replaced (where sp is not NULL)."""
    cdef const IndexFrame* q = &sides[NPTS]
    cdef uint32_t image = c_apply_sym_fast(q.g, own)
    cdef uint32_t free_r = FULL & ~(own | opp)
    cdef uint32_t own2, opp2, val, v, plain = 0, powered, rest
    cdef int t, p
    cdef bint seen = False
    while free_r:
        t = ctz(free_r)
        free_r &= free_r - 1
        own2 = own | ((<uint32_t>1) << t)
        if victims and closes_mill(own2, t):
            v = victims
            while v:
                val = dice_in_frame(&sides[ctz(v)], own2, sp)
                v &= v - 1
                if not seen or dice_better(val, plain):
                    plain = val
                    seen = True
        else:
            val = dice_seen(qp[c_index_of_image(q, image | ((<uint32_t>1) << SYM[q.g][t]))])
            if not seen or dice_better(val, plain):
                plain = val
                seen = True
    powered = plain
    while targets:
        p = ctz(targets)
        targets &= targets - 1
        own2 = own | ((<uint32_t>1) << p)
        opp2 = without(opp, p)
        rest = takeable(opp2, rules) if replace_takes and closes_mill(own2, p) else 0
        if rest:
            while rest:
                v = ctz(rest)
                rest &= rest - 1
                val = dice_child(tp, o - 2, m + 1, without(opp2, v), own2)
                if dice_better(val, powered):
                    powered = val
        else:
            val = dice_in_frame(&sides[p], own2, sp)
            if dice_better(val, powered):
                powered = val
    return dice_mix(powered, plain, num)


def dice_solve(int m, int o, int hm, int ho, uint32_t[::1] out, const uint32_t[::1] quiet,
               const uint32_t[::1] single, const uint32_t[::1] twice, int num,
               bint replace_takes, int rules, int jobs=2):
    """Dice values of the real slots of placement subspace (m, o, hm, ho) into ``out``
    (children and arguments as dice_pass's), the positions grouped by the opponent's
    stones; slack slots are not written (``out`` must hold DICE_SLACK there).  Returns
    how many slots were written."""
    cdef int64_t r, count = 0
    cdef uint32_t opp, victims, targets
    cdef uint32_t* owns
    cdef int64_t* slots
    cdef GroupWalk* w
    cdef IndexFrame* sides
    cdef int nb, j
    cdef const uint32_t* qp
    cdef const uint32_t* sp
    cdef const uint32_t* tp
    _dice_arguments(m, o, hm, ho, out, quiet, single, twice, num, rules, jobs, &qp, &sp, &tp)
    owns = NULL
    slots = NULL
    w = NULL
    sides = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        slots = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        sides = <IndexFrame*>malloc((NPTS + 1) * sizeof(IndexFrame))
        for r in prange(ORBITS[o], schedule="dynamic", chunksize=1):
            group_walk_start(w, m, o, r)
            opp = w.opp
            victims = move_victims(opp, rules)
            targets = mill_points(opp)
            successor_frames(o, m + 1, opp, (victims | targets) if sp != NULL else 0, sides)
            while True:
                nb = group_walk_batch(w, owns, slots, NULL, False)    # (the writes need no wait)
                if nb == 0:
                    break
                for j in range(nb):
                    out[slots[j]] = dice_grouped(owns[j], opp, m, o, victims, targets, sides,
                                                 qp, sp, tp, num, replace_takes, rules)
                count += nb
        free(owns)
        free(slots)
        free(w)
        free(sides)
    return count
