# Retrograde analysis of one moving-phase pair {m-o, o-m} (docs/design.md §3-4), and
# alike of a unit {m-o+h-k, o-m+k-h} of mixed placement, where a move keeps the hands.
#
# Provides: retro_init, retro_floor, retro_due, retro_frontier_size, retro_scan,
#           retro_round, retro_pull, retro_pull_grouped, retro_finish (the solve of a
#           pair, or of a unit of mixed placement, driven by solver.retro);
#           quiet_step_counts (a round's counts, for tests); Outside, inside, outside_entry, outside_at,
#           outside_read, outside_of (where a unit's moves lead out of
#           it, also for check.pxi);
#           to other kernels (check.pxi, placement.pxi) the value codes V_* (V_LINE_WON:
#           a position won by the line of the side to move), Best with
#           best_reset / best_add / best_code (a position's code from its successors'
#           codes), walk_successors (the successors of a position in a walk grouped by
#           the opponent's stones: the initialisation, the grouped pull, the build's
#           check, the placement pass), rest_slot, RestBest with rest_table / rest_best (the same
#           for a jumping side of three, its successors read once per two stones it
#           keeps: the build's check; RestPull with rest_pull_table / rest_pull: the
#           grouped pull), blocked_code, moved, without, atomic_inc_i64, prange.
# Uses:     movegen.pxi (c_moves_rules, move_victims, closes_mill, mill_points,
#           c_unmoves_rules, mill_closers, move_* accessors, NO_POINT, MAX_MOVES, won_by_line), board.pxi
#           (ADJ, FULL), index.pxi
#           (c_index_position, IndexFrame, c_index_frame, canon_entry, c_index_frame_of,
#           c_index_in_frame, c_index_of_image, c_position_at, c_is_real_slot,
#           c_subspace_slots, the tables REP_STAB, ORBITS, BINOM, GroupWalk and its
#           functions, batch_slots, successor_frames, prefetch_blocks, mark_slack,
#           prefetch, prefetch_w).
#
# Values, one uint16 per slot, for the side to move:
#   0                 draw (during the solve: undecided, nothing known)
#   1 + plies         decided; a win when plies is odd, a loss when even
#   0x8000 | f | c    (solve only) undecided; from the initialisation: c (< 0x4000) is
#                     the longest loss its captures allow (all into wins), f = 0x4000
#                     if a capture leads to a draw (then the state can never become a
#                     loss); in the rounds (retro_floor has moved c into the loss floor):
#                     0xC000 for f, else 0x2000 (V_HAS_FLOOR) where c was not 0, and
#                     the count below in the 13 bits under it (0x1FFF: unknown)
#   0xFFFF            slack slot: no position uses it
# Where a line wins (LINE_WINS), a position where a line stands has no moves: lost in 0
# (code 1) when the side not to move has it, as a blocked one; won when only the side
# to move has one (movegen.pxi won_by_line: play cannot reach it), coded V_LINE_WON,
# a win in 1, the shortest win a code says (docs/design.md §9).
# A capture into a loss makes a *tentative* win at initialisation, which a shorter
# quiet win found in an earlier round overwrites; round d picks exactly the states
# whose value is d + 1, so each state propagates once, at its final value.
#
# Counts are the number of distinct successor slots reached by quiet moves and not yet
# won.  They are computed lazily, the first time a won child reaches a state (most
# states are never reached that way), with the same index as the propagation: both
# sides count orbit-to-orbit edges, so they agree even for symmetric positions.  They
# live in the pending code itself, so that a round into losses touches one cache line
# per predecessor, not two; the longest capture loss the code held moves into the loss
# floor (plies / 2, one byte a slot), read only when a count of a state whose code says
# it has one reaches 0 (a read far away, so not for the states without captures).

from cython.parallel cimport prange, parallel
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cdef extern from *:
    """
    static inline unsigned short mu_atomic_dec_u16(unsigned short* p) {
        return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
    }
    static inline int mu_atomic_cas_u16(unsigned short* p, unsigned short expected, unsigned short desired) {
        return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    static inline long long mu_atomic_inc_i64(long long* p) {
        return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    }
    """
    uint16_t atomic_dec_u16 "mu_atomic_dec_u16"(uint16_t* p) nogil
    bint atomic_cas_u16 "mu_atomic_cas_u16"(uint16_t* p, uint16_t expected, uint16_t desired) nogil
    long long atomic_inc_i64 "mu_atomic_inc_i64"(long long* p) nogil

cdef enum:
    V_DRAW = 0
    V_PENDING = 0x8000
    V_DRAW_CAPTURE = 0x4000
    V_PLIES_MASK = 0x3FFF
    V_SLACK = 0xFFFF
    V_LINE_WON = 2
    V_HAS_FLOOR = 0x2000        # (rounds) a pending code whose captures allow a loss
    V_COUNT_MASK = 0x1FFF       # (rounds) its count of undecided successors; all set:
                                # unknown (0, undecided with nothing known, is unknown too)
    DEDUPE_TABLE = 256     # open-addressing table for at most DEDUPE_MAX slots
    DEDUPE_MAX = 128
    NO_WIN = 1 << 30
    SCAN_SHIFT = 12        # the frontier scan's blocks: 4096 slots (see retro_scan)
    SCAN_SLOTS = 1 << SCAN_SHIFT
    PULL_BATCH = 8         # successors a pull round prefetches together
    ROUND_BATCH = 64       # frontier states whose predecessors a push round prefetches together
    INIT_BATCH = 16        # states whose capture targets the initialisation prefetches together


cdef inline bint is_undecided(uint16_t v) noexcept nogil:
    return v == 0 or (v & V_PENDING and v != V_SLACK)


# --- the value of a position from its successors' values ----------------------------

ctypedef struct Best:
    int win         # smallest code of a successor that is a loss (NO_WIN: none)
    int loss        # largest code of a successor that is a win (0: none)
    bint draw       # some successor is a draw


cdef inline void best_reset(Best* b) noexcept nogil:
    b.win = NO_WIN
    b.loss = 0
    b.draw = False


cdef inline void best_add(Best* b, int code) noexcept nogil:
    """Take in the code of one successor (the opponent to move there): an odd code is
    a successor lost in code - 1 plies (a win in code), an even one other than V_DRAW a
    successor won (a loss in code at best).  Without branches: whether a successor won
    or lost is a coin toss to the branch predictor, and the check and the placement
    pass take in some ten codes a position (docs/design.md §4)."""
    cdef int odd = code & 1
    cdef int w = code if odd else NO_WIN
    cdef int l = 0 if odd else code        # (V_DRAW is 0: no loss)
    b.win = w if w < b.win else b.win
    b.loss = l if l > b.loss else b.loss
    b.draw = b.draw | (code == V_DRAW)


cdef inline int best_code(Best* b) noexcept nogil:
    """Code of the position: shortest win, else draw, else longest loss (no move: loss in
    0; blocked_code says where a blocked side draws instead)."""
    if b.win != NO_WIN:
        return b.win + 1
    if b.draw:
        return V_DRAW
    return b.loss + 1


cdef enum:
    # what walk_successors does with the successors of a position (a constant of each
    # call, so that the compiler makes one loop of each)
    WALK_BEST = 0       # every successor's code into b (the build's check, the placement pass)
    WALK_CAPTURES = 1   # the captures' codes into b, the quiet steps only counted (the
                        # initialisation of a moving subspace)
    WALK_PULL = 2       # the quiet steps' codes looked at for pull round d, until one
                        # settles the position (retro_pull_grouped)
    WALK_COUNT = 3      # the quiet steps only counted (a count of a push round)


cdef inline int walk_successors(int mode, Best* into, uint32_t own, uint32_t vacant,
                                bint placing, uint32_t victims, bint jump, bint cap_wins,
                                const IndexFrame* frames, const uint16_t* quiet,
                                const uint16_t* capp, int d, int* out) noexcept nogil:
    """Walk the successors of (own, opp) in a walk grouped by opp, as ``mode`` says;
    returns how many steps lead to them (a step that closes a mill counts once: 0 is
    blocked).  opp's free points ``vacant``, its ``victims`` (move_victims: 0 where a line
    wins) and whether own ``jump``s are found once for all of its positions; the game
    must go on (c_moves_rules's conditions).  ``frames`` as successor_frames makes
    them: the quiet successors' codes lie in ``quiet`` (frames[NPTS]), the captures' in
    ``capp`` (frames[victim]), unless ``cap_wins`` (the opponent is left with two
    stones: a loss in 0 there).  WALK_BEST and WALK_CAPTURES reset b first;
    WALK_CAPTURES and WALK_COUNT write the number of quiet steps to ``out`` (WALK_COUNT
    reads nothing: b, frames and the arrays may be NULL), WALK_PULL the PULL_* flags
    of what it found (then the return value counts only the steps walked).

    The moves are c_moves_rules's (add_steps: a step, or one move per victim where it
    closes a mill; ``placing``: placements, from no origin), visited where they are
    made instead of packed into a list and unpacked: this is the innermost loop of
    those walks, some ten successors a position; the check of a subspace takes 5-26 %
    less time so (docs/benchmarks.md).  Where WALK_CAPTURES and WALK_COUNT only count
    a jumping side's quiet steps, they are counted without being made (mill_closers);
    WALK_CAPTURES makes only the steps onto the points of mill_hot, a sliding side's
    too."""
    cdef uint32_t free = vacant & ~own
    cdef uint32_t origins = 1 if placing else own
    cdef uint32_t rest, targets, after, v, hot, zs
    cdef int a, t, look, n = 0, q = 0, f, z
    # b is local, copied to ``into`` at the end: through the caller's pointer every
    # best_add was a store to memory, as the compiler must assume that a code read
    # may alias it (Python's flags build without strict aliasing); the check of 5-7
    # takes 0.98 of its time so
    cdef Best acc
    cdef Best* b = &acc
    if mode == WALK_BEST or mode == WALK_CAPTURES:
        best_reset(b)
    if jump and not placing and (mode == WALK_CAPTURES or mode == WALK_COUNT):
        # Every origin of a jumping side reaches every free point, and of those only
        # mill_closers(rest) can close a mill: the other steps are counted, not made
        # (a count of a jumping side: 3 table look-ups, not some 40 steps each
        # tested for a mill).
        f = popcount(free)
        while origins:
            rest = own & ~((<uint32_t>1) << ctz(origins))
            origins &= origins - 1
            n += f
            q += f
            zs = mill_closers(rest) & free if victims else 0
            while zs:
                z = ctz(zs)
                zs &= zs - 1
                q -= 1                      # the step to z takes: it leaves the unit
                if mode == WALK_CAPTURES:
                    if cap_wins:
                        best_add(b, 1)
                        continue
                    after = rest | ((<uint32_t>1) << z)
                    v = victims
                    while v:
                        best_add(b, capp[c_index_in_frame(&frames[ctz(v)], after)])
                        v &= v - 1
        if mode == WALK_CAPTURES:
            into[0] = acc
        out[0] = q
        return n
    # Only a step onto a point of a line that holds two stones of own can close a mill
    # (mill_hot): the initialisation counts the other quiet steps by popcount and tests
    # only those (a test per step, a branch the predictor cannot learn, was much of
    # its time: 5-7's takes 0.91 of it so).  The other walks keep the test per step:
    # there finding hot costs more than it saves (with it the check of 5-7 took 1.2
    # times as long, its solve with the counts of push rounds 1.02; docs/benchmarks.md).
    hot = mill_hot(own) & free if mode == WALK_CAPTURES and victims else FULL
    while origins:
        if placing:
            rest = own
            targets = free
        else:
            a = ctz(origins)
            rest = own & ~((<uint32_t>1) << a)
            targets = free if jump else ADJ[a] & free
        origins &= origins - 1
        if mode == WALK_CAPTURES:
            n += popcount(targets)
            q += popcount(targets & ~hot)
            targets &= hot
        while targets:
            t = ctz(targets)
            targets &= targets - 1
            after = rest | ((<uint32_t>1) << t)
            if mode != WALK_CAPTURES:
                n += 1
            if victims and closes_mill(after, t):
                if mode == WALK_PULL or mode == WALK_COUNT:
                    continue                # a capture leaves the unit
                if cap_wins:
                    best_add(b, 1)          # the opponent is left with two stones
                    continue
                v = victims
                while v:
                    best_add(b, capp[c_index_in_frame(&frames[ctz(v)], after)])
                    v &= v - 1
            elif mode == WALK_CAPTURES or mode == WALK_COUNT:
                q += 1
            elif mode == WALK_PULL:     # frames[NPTS] is a representative's: g = 0
                look = pull_look(quiet[c_index_of_image(&frames[NPTS], after)], d)
                q |= look
                if look & PULL_STOP:
                    out[0] = q
                    return n
            else:
                best_add(b, quiet[c_index_of_image(&frames[NPTS], after)])
    if mode == WALK_BEST or mode == WALK_CAPTURES:
        into[0] = acc
    if mode != WALK_BEST:
        out[0] = q
    return n


cdef inline int blocked_code(int m, int o, int rules) noexcept nogil:
    """Code of a position of m-o whose side to move has no legal move: lost in 0, but
    drawn where the rules draw a full board (RULE_FULL_DRAW: Twelve Men's Morris) and m + o stones fill
    it (docs/design.md §9).  The full board is a moving-phase position: stones in hand
    would need free points (rules.Rules allows at most NPTS / 2 stones a side), so
    only the moving phase's kernels ask (mixed placement's too, where m + o == NPTS
    leaves both hands empty); the placement phase reads its values."""
    if (rules & RULE_FULL_DRAW) and m + o == NPTS:
        return V_DRAW
    return 1


# --- a jumping side's successors, by the two stones it keeps (docs/design.md §4) ----
#
# A side of three that jumps reaches from (own, opp) every set rest + t, rest being
# own less the stone a it lifts and t a point free of both: the 3-sets of opp's free
# points that share two stones with own, some 50 of them.  For one opponent set opp
# (a walk grouped by it), the successors of rest + t over all free t are the same for
# every own that keeps rest, save t = a (own itself, not a move).  So such a walk reads
# the successors of each rest once into a table (rest_table: per rest, the smallest
# win code and the largest loss code with the target each came from, the next best
# from another target, and the targets that give a draw), and each position combines
# its three rests less its own target a (rest_best): three table reads instead of
# some 50 successors, each an index computed and a code read.

cdef inline int rest_slot(uint32_t rest) noexcept nogil:
    """The entry of two stones ``rest`` in a table of rests (rest_table, rest_pull_table):
    p * NPTS + q for its points p < q."""
    return ctz(rest) * NPTS + ctz(rest & (rest - 1))


ctypedef struct RestBest:
    int win1, win2      # best_add's b.win over the rest's targets; the best at another target
    int loss1, loss2    # best_add's b.loss alike
    int win_t, loss_t   # the target of win1, of loss1 (NO_POINT: none)
    uint32_t draws      # the targets whose successor (or one of whose captures) is a draw


cdef inline void rest_add(RestBest* e, int t, Best* bt) noexcept nogil:
    if bt.win < e.win1:
        e.win2 = e.win1
        e.win1 = bt.win
        e.win_t = t
    elif bt.win < e.win2:
        e.win2 = bt.win
    if bt.loss > e.loss1:
        e.loss2 = e.loss1
        e.loss1 = bt.loss
        e.loss_t = t
    elif bt.loss > e.loss2:
        e.loss2 = bt.loss
    if bt.draw:
        e.draws |= (<uint32_t>1) << t


cdef inline void rest_table(RestBest* tab, uint32_t vacant, uint32_t victims, bint cap_wins,
                            const IndexFrame* frames, const uint16_t* quiet,
                            const uint16_t* capp) noexcept nogil:
    """Fill tab[rest_slot(rest)] for every rest {p, q} of opp's free points
    ``vacant``, with the codes walk_successors (WALK_BEST, a jumping side of three)
    reads for the steps rest + t, t in vacant less rest: a quiet successor's code, or,
    where t closes a mill (mill_closers: the targets that can) and there are
    ``victims``, the codes after each capture (1 where ``cap_wins``).  ``frames``,
    ``quiet`` and ``capp`` as for walk_successors."""
    cdef uint32_t ps = vacant, qs, ts, rest, after, v, zs
    cdef int p, q, t
    cdef RestBest* e
    cdef Best bt
    while ps:
        p = ctz(ps)
        ps &= ps - 1
        qs = ps
        while qs:
            q = ctz(qs)
            qs &= qs - 1
            rest = ((<uint32_t>1) << p) | ((<uint32_t>1) << q)
            e = &tab[rest_slot(rest)]
            e.win1 = NO_WIN
            e.win2 = NO_WIN
            e.loss1 = 0
            e.loss2 = 0
            e.win_t = NO_POINT
            e.loss_t = NO_POINT
            e.draws = 0
            zs = MILL_THIRDS[p][q] if victims else 0
            ts = vacant & ~rest
            while ts:
                t = ctz(ts)
                ts &= ts - 1
                after = rest | ((<uint32_t>1) << t)
                best_reset(&bt)
                if (zs >> t) & 1:
                    if cap_wins:
                        best_add(&bt, 1)        # the opponent is left with two stones
                    else:
                        v = victims
                        while v:
                            best_add(&bt, capp[c_index_in_frame(&frames[ctz(v)], after)])
                            v &= v - 1
                else:
                    best_add(&bt, quiet[c_index_of_image(&frames[NPTS], after)])
                rest_add(e, t, &bt)


cdef inline void rest_best(Best* b, uint32_t own, const RestBest* tab) noexcept nogil:
    """What walk_successors (WALK_BEST) makes of the successors of (own, opp), own
    three stones of a jumping side, from rest_table's table of opp: each rest of own
    with its own target a left out."""
    cdef uint32_t origins = own, bit
    cdef int a
    cdef const RestBest* e
    best_reset(b)
    while origins:
        a = ctz(origins)
        bit = (<uint32_t>1) << a
        origins &= origins - 1
        e = &tab[rest_slot(own & ~bit)]
        if e.win_t != a:
            if e.win1 < b.win:
                b.win = e.win1
        elif e.win2 < b.win:
            b.win = e.win2
        if e.loss_t != a:
            if e.loss1 > b.loss:
                b.loss = e.loss1
        elif e.loss2 > b.loss:
            b.loss = e.loss2
        if e.draws & ~bit:
            b.draw = True


cdef inline uint32_t moved(uint32_t stones, uint32_t mv) noexcept nogil:
    """Stones after the (sliding or jumping) move mv."""
    return (stones & ~((<uint32_t>1) << move_origin(mv))) | ((<uint32_t>1) << move_target(mv))


cdef inline uint32_t without(uint32_t stones, int point) noexcept nogil:
    return stones & ~((<uint32_t>1) << point)


ctypedef struct Outside:
    # Where the moves of subspace m-o+h-k that leave its unit lead (docs/design.md §4):
    # the solved subspaces read by a unit's solve and check.  A moving pair's only way
    # out is a capture (``cap``: (o-1)-m); under mixed placement a placement leads to
    # o-(m+1)+k-(h-1) (``place``) or, taking, to (o-1)-(m+1)+k-(h-1) (``place_cap``), and
    # a capture by a move to (o-1)-m+k-h.  ``cap_wins``: a capture leaves the opponent
    # fewer than three stones, board plus hand (o - 1 + k < 3): a win, nothing read.
    # ``mills`` (RULE_MILL_ENDS only): the codes a mill that takes nothing reads, o-m's,
    # NULL where none is given.
    const uint16_t* cap
    const uint16_t* mills
    const uint16_t* place
    const uint16_t* place_cap
    bint cap_wins


cdef inline bint inside(uint32_t mv) noexcept nogil:
    """Whether move mv stays in its unit: a slide or jump that takes nothing (it keeps
    the hands and the stone counts: m-o+h-k leads to o-m+k-h)."""
    return move_take(mv) == NO_POINT and move_origin(mv) != NO_POINT


cdef uint32_t NO_STONES = 0xFFFFFFFF               # (retro_round) stones not kept
cdef int64_t OUT_CAP = (<int64_t>1) << 62      # outside_entry: a slot of Outside.cap
cdef int64_t OUT_PLACE = (<int64_t>1) << 61    # ... of Outside.place (both: place_cap)
cdef int64_t OUT_MILL = (<int64_t>1) << 60     # ... of Outside.mills (MILL_NO_TAKE)
cdef int64_t OUT_ANY = OUT_CAP | OUT_PLACE | OUT_MILL


cdef inline int64_t outside_entry(int m, int o, uint32_t own, uint32_t opp, uint32_t mv,
                                  const Outside* x) noexcept nogil:
    """Where the code of the successor of (own, opp) in m-o by a move mv that leaves the
    unit lies: its slot with the flag of its array (OUT_CAP, OUT_PLACE, both for
    place_cap), or -1 when the capture wins at once; outside_read reads it."""
    cdef int take = move_take(mv)
    cdef uint32_t own2 = own | ((<uint32_t>1) << move_target(mv))
    if take == MILL_NO_TAKE:        # (a slide or jump: mixed placement has no such tables)
        return c_index_position(o, m, opp, moved(own, mv)) | OUT_MILL
    if move_origin(mv) == NO_POINT:
        if take == NO_POINT:
            return c_index_position(o, m + 1, opp, own2) | OUT_PLACE
        if x.cap_wins:
            return -1
        return c_index_position(o - 1, m + 1, without(opp, take), own2) | OUT_PLACE | OUT_CAP
    if x.cap_wins:
        return -1
    return c_index_position(o - 1, m, without(opp, take), moved(own, mv)) | OUT_CAP


cdef inline const uint16_t* outside_at(int64_t e, const Outside* x) noexcept nogil:
    """The address of the code at entry e (not -1) of outside_entry."""
    cdef int64_t slot = e & ~OUT_ANY
    if e & OUT_MILL:
        return &x.mills[slot]
    if not (e & OUT_PLACE):
        return &x.cap[slot]
    return &x.place_cap[slot] if e & OUT_CAP else &x.place[slot]


cdef inline int outside_read(int64_t e, const Outside* x) noexcept nogil:
    """The code at entry e of outside_entry (the opponent to move there)."""
    if e < 0:
        return 1      # the opponent is left with two stones: loss in 0
    return outside_at(e, x)[0]


cdef Outside outside_of(int m, int o, int h, int k, const uint16_t[::1] cap,
                        object place, object place_cap, object mills=None, int rules=0) except *:
    """The Outside of m-o+h-k from the solved arrays, their sizes checked (``place`` and
    ``place_cap``: None where the side to move has nothing in hand; ``mills``, o-m's
    codes for the mills that take nothing, given exactly where ``rules`` has
    RULE_MILL_ENDS); m-o must be a subspace of the index (_check_mo), checked by the
    caller."""
    cdef Outside x
    cdef const uint16_t[::1] arr
    x.mills = NULL
    if (mills is None) != (not rules & RULE_MILL_ENDS):
        raise ValueError("the codes of the mills that take nothing go with RULE_MILL_ENDS, and only with it")
    if mills is not None:
        if h or k:
            raise ValueError("mills that take nothing are ends of a moving pair only")
        arr = mills
        check_size("mills", arr.shape[0], c_subspace_slots(o, m), f"slots of {o}-{m}")
        x.mills = &arr[0]
    # (a placement leads to m + 1 stones of the mover's: within the index's tables)
    if h < 0 or k < 0 or m + h > MAX_STONES or o + k > MAX_STONES:
        raise ValueError(f"no subspace {m}-{o}+{h}-{k}")
    x.cap_wins = o - 1 + k < 3
    x.cap = NULL
    x.place = NULL
    x.place_cap = NULL
    if not x.cap_wins and o >= 1 and m >= 1:        # (no stone on the board: no move)
        check_size("cap", cap.shape[0], c_subspace_slots(o - 1, m), f"slots of {o - 1}-{m}")
        x.cap = &cap[0]
    if h > 0:
        if place is None or (place_cap is None and not x.cap_wins and o >= 1):
            raise ValueError("a subspace with stones in hand needs its placement targets")
        arr = place
        check_size("place", arr.shape[0], c_subspace_slots(o, m + 1), f"slots of {o}-{m + 1}")
        x.place = &arr[0]
        if not x.cap_wins and o >= 1:
            arr = place_cap
            check_size("place_cap", arr.shape[0], c_subspace_slots(o - 1, m + 1),
                       f"slots of {o - 1}-{m + 1}")
            x.place_cap = &arr[0]
    return x


# --- distinct slots ------------------------------------------------------------------

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


cdef inline int dedupe(int64_t* a, int n, int64_t* table) noexcept nogil:
    """Drop repeated slots from a (order kept); table: DEDUPE_TABLE entries, all -1,
    left all -1 again.  Linear in n, where sorting would be quadratic."""
    cdef int i, k = 0, h
    if n > DEDUPE_MAX:
        return sort_unique(a, n)
    for i in range(n):
        h = <int>((<uint64_t>a[i] * <uint64_t>0x9E3779B97F4A7C15) >> 56)
        while table[h] != -1 and table[h] != a[i]:
            h = (h + 1) & (DEDUPE_TABLE - 1)
        if table[h] == -1:
            table[h] = a[i]
            a[k] = a[i]
            k += 1
    for i in range(k):
        h = <int>((<uint64_t>a[i] * <uint64_t>0x9E3779B97F4A7C15) >> 56)
        while table[h] != -1:
            table[h] = -1
            h = (h + 1) & (DEDUPE_TABLE - 1)
    return k


cdef inline int64_t* new_dedupe_table() noexcept nogil:
    cdef int64_t* t = <int64_t*>malloc(DEDUPE_TABLE * sizeof(int64_t))
    cdef int i
    for i in range(DEDUPE_TABLE):
        t[i] = -1
    return t


cdef inline bint won_by(uint16_t c, int d) noexcept nogil:
    """Whether code c is a win in at most d plies (final from round d on: a win is only
    ever overwritten by a shorter one, written in the round of its plies minus one)."""
    return c != 0 and (c & 1) == 0 and c <= d + 1


cdef inline int quiet_step_count(int m, int o, int h, int k, uint32_t own, uint32_t opp,
                                 int rules) noexcept nogil:
    """The quiet steps (slides or jumps that take nothing) of (own, opp) of m-o+h-k: its
    count of distinct successors in the unit where no symmetry fixes opp (distinct moves
    then reach distinct slots; no slot is needed, a jumping side's 40-odd indexes
    saved); none where c_moves_rules has none, or only placements (separate placement
    with stones in hand).  Any image of the position has the same count."""
    cdef int j = 0, i, n
    cdef uint32_t moves[MAX_MOVES]
    if (m + h < 3 or o + k < 3 or (h > 0 and not rules & RULE_MIXED)
            or (LINE_WINS and (mill_points(own) or mill_points(opp)))):
        return 0
    if mill_ends(opp, rules):
        # (the walk would count a mill that takes nothing as a quiet step: rare, listed)
        n = c_moves_rules(own, opp, h, k, rules, moves)
        for i in range(n):
            if inside(moves[i]):
                j += 1
        return j
    walk_successors(WALK_COUNT, NULL, own, FULL & ~opp, False, move_victims(opp, rules),
                    (rules & RULE_JUMPING) and m + h == 3, False, NULL, NULL, NULL, 0, &j)
    return j


cdef inline int quiet_successor_count(int m, int o, int h, int k, uint32_t own, uint32_t opp,
                                      int rules, uint32_t* moves,
                                      int64_t* succ, int64_t* table, const uint16_t* codes,
                                      int d) noexcept nogil:
    """Distinct slots of o-m+k-h reached from (own, opp) of m-o+h-k by moves that stay in
    the unit (inside); given ``codes`` (of o-m), only those not won in fewer than d plies."""
    cdef int n, i, j = 0, left = 0
    cdef IndexFrame f
    c_index_frame(o, m, opp, &f)
    if codes == NULL and not f.stab:
        return quiet_step_count(m, o, h, k, own, opp, rules)
    n = c_moves_rules(own, opp, h, k, rules, moves)
    for i in range(n):
        if inside(moves[i]):
            succ[j] = c_index_in_frame(&f, moved(own, moves[i]))
            j += 1
    if f.stab:      # else distinct moves reach distinct slots
        j = dedupe(succ, j, table)
    if codes == NULL:
        return j
    for i in range(j):
        if not won_by(codes[succ[i]], d - 1):
            left += 1
    return left


# --- the solve -----------------------------------------------------------------------

cdef inline int init_code(Best* b, int nmoves, int quiet, int m, int o,
                          int rules) noexcept nogil:
    """The code a state of m-o with ``nmoves`` moves, ``quiet`` of them inside its unit,
    starts the rounds with, ``b`` holding the codes of the others (captures): a
    (tentative) win, the value where all moves leave the unit or none exists, else
    undecided with what the captures allow (0: nothing)."""
    if b.win != NO_WIN or quiet == 0:
        return best_code(b) if nmoves else blocked_code(m, o, rules)
    if b.draw:
        return V_PENDING | V_DRAW_CAPTURE | b.loss
    if b.loss:
        return V_PENDING | b.loss
    return 0


def retro_init(int m, int o, uint16_t[::1] val, const uint16_t[::1] cap, int rules,
               int jobs=2, int h=0, int k=0, place=None, place_cap=None, bint grouped=True,
               mills=None):
    """Initialise subspace m-o under the rule flags ``rules`` (solver.rules.Rules.flags):
    blocked states and capture outcomes.

    ``cap`` holds the solved subspace (o-1)-m (ignored when o == 3).  RULE_FULL_DRAW:
    a side blocked on a full board draws (blocked_code; the draw is the undecided
    code 0, which no round changes: a full board has neither moves nor un-moves, and
    retro_finish leaves it a draw).  The rounds need the codes
    made ready by retro_floor, which the caller calls after it has let the capture
    targets go (the loss floor is the rounds' memory).  Returns the
    largest plies any state may be decided at so far and the number of undecided states.

    Under mixed placement the subspace is m-o+h-k, one of a unit solved in rounds like
    a moving pair (a move keeps the hands): ``cap`` is (o-1)-m+k-h, and ``place``,
    ``place_cap`` the solved subspaces its placements lead to (see Outside); every move
    out of the unit counts as a capture does.

    A moving subspace (no stones in hand) is visited grouped by the opponent's stones
    (_init_grouped: its captures read from cache) unless ``grouped`` is False (slot
    order, as a subspace with stones in hand always is; the same codes).

    RULE_MILL_ENDS (the quiet-ply rule's tables under take-none): a mill that takes
    nothing is an end whose code is read from ``mills`` (o-m's), visited in slot order.
    """
    cdef int64_t slot, s0, s1, blk, n_slots
    cdef uint32_t own, opp, mv
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int64_t* ents
    cdef int* first     # per state of a batch: its first entry in ents, -1: no moves to
    cdef int* quiet     # look at (slack, won by a line); its quiet moves; all its moves
    cdef int* nmoves
    cdef int n, i, j, total, q
    cdef Best* b      # per thread: a variable only used through & would be shared
    cdef Outside x
    _check_mo(m, o)
    check_jobs(jobs)
    x = outside_of(m, o, h, k, cap, place, place_cap, mills, rules)
    n_slots = c_subspace_slots(m, o)
    check_size("val", val.shape[0], n_slots, f"slots of {m}-{o}")
    if grouped and h == 0 and k == 0 and not rules & RULE_MILL_ENDS:
        return _init_grouped(m, o, val, &x, rules, jobs)
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    ents = NULL
    first = NULL
    quiet = NULL
    nmoves = NULL
    b = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))  # private out-parameters
        ents = <int64_t*>malloc(INIT_BATCH * MAX_MOVES * sizeof(int64_t))
        first = <int*>malloc(INIT_BATCH * sizeof(int))
        quiet = <int*>malloc(INIT_BATCH * sizeof(int))
        nmoves = <int*>malloc(INIT_BATCH * sizeof(int))
        b = <Best*>malloc(sizeof(Best))
        for blk in prange((n_slots + INIT_BATCH - 1) // INIT_BATCH, schedule="dynamic",
                          chunksize=256):
            s0 = blk * INIT_BATCH
            s1 = s0 + INIT_BATCH if s0 + INIT_BATCH < n_slots else n_slots
            # pass 1: where the codes of the moves out of the unit (captures) lie,
            # prefetched for the whole batch (random reads far apart)
            total = 0
            for slot in range(s0, s1):
                j = slot - s0
                first[j] = -1
                if not c_is_real_slot(m, o, slot):
                    val[slot] = V_SLACK
                    continue
                c_position_at(m, o, slot, &scratch[0], &scratch[1])
                own = scratch[0]
                opp = scratch[1]
                if LINE_WINS and won_by_line(own, opp):
                    val[slot] = V_LINE_WON
                    continue
                n = c_moves_rules(own, opp, h, k, rules, moves)
                first[j] = total
                nmoves[j] = n
                q = 0
                for i in range(n):
                    mv = moves[i]
                    if inside(mv):
                        q = q + 1
                    else:
                        ents[total] = outside_entry(m, o, own, opp, mv, &x)
                        if ents[total] >= 0:
                            prefetch(outside_at(ents[total], &x))
                        total = total + 1
                quiet[j] = q
            # pass 2: the codes
            for slot in range(s0, s1):
                j = slot - s0
                if first[j] < 0:
                    continue
                best_reset(b)
                for i in range(first[j], first[j] + nmoves[j] - quiet[j]):
                    best_add(b, outside_read(ents[i], &x))
                val[slot] = <uint16_t>init_code(b, nmoves[j], quiet[j], m, o, rules)
        free(moves)
        free(scratch)
        free(ents)
        free(first)
        free(quiet)
        free(nmoves)
        free(b)
    return _max_plies(val)


cdef tuple _init_grouped(int m, int o, uint16_t[::1] val, const Outside* x,
                         int rules, int jobs):
    """retro_init of a moving subspace m-o (no stones in hand): the same codes, with the
    positions visited grouped by the opponent's stones, as retro_check_grouped visits
    them.  For one representative Y of the o-stone sets, the captures of every
    position (own, Y) lead into the blocks of the o - 1 sets Y minus a stone in
    (o-1)-m, so their codes come from cache (in slot order every capture is a read far
    away: in a large pair, a miss each).  The array starts all undecided (0) and slack,
    and only the positions whose code is not 0 are written, far away, a batch
    prefetched together (docs/design.md §4).  ``x``: retro_init's Outside (only its
    capture targets: no hands).  Returns as retro_init."""
    cdef int64_t n_slots = c_subspace_slots(m, o)
    cdef int64_t r, blk, lo, hi, nblk = (n_slots + SCAN_SLOTS - 1) >> SCAN_SHIFT
    cdef uint32_t own, opp, vacant, victims
    cdef bint opp_line
    cdef bint jump = (rules & RULE_JUMPING) and m == 3
    cdef uint32_t* owns
    cdef int64_t* wslot       # the batch's positions to write: slots, codes, own sets
    cdef int* wcode           # and their entries of CANON[m]
    cdef uint32_t* wown
    cdef const uint32_t** ents
    cdef GroupWalk* w
    cdef IndexFrame* frames   # [t]: the successors' after taking t ([NPTS]: unused)
    cdef Best* b              # per thread (see retro_init)
    cdef int n, nb, nw, j, q, code
    for blk in prange(nblk, nogil=True, num_threads=jobs, schedule="static"):
        lo = blk << SCAN_SHIFT
        hi = min(lo + SCAN_SLOTS, n_slots)
        memset(&val[lo], 0, (hi - lo) * sizeof(uint16_t))
    with nogil:
        mark_slack(m, o, &val[0], V_SLACK, jobs)
    # (each thread starts from a copy of these: defined, not left uninitialised)
    owns = NULL
    wslot = NULL
    wcode = NULL
    wown = NULL
    ents = NULL
    w = NULL
    frames = NULL
    b = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        wslot = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        wcode = <int*>malloc(GROUP_BATCH * sizeof(int))
        wown = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        ents = <const uint32_t**>malloc(GROUP_BATCH * sizeof(uint32_t*))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        frames = <IndexFrame*>malloc((NPTS + 1) * sizeof(IndexFrame))
        b = <Best*>malloc(sizeof(Best))
        for r in prange(ORBITS[o], schedule="dynamic", chunksize=1):
            group_walk_start(w, m, o, r)
            opp = w.opp
            vacant = FULL & ~opp
            victims = move_victims(opp, rules)
            opp_line = LINE_WINS and mill_points(opp) != 0
            successor_frames(o, m, opp, 0 if x.cap_wins else victims, frames)
            if not x.cap_wins:
                prefetch_blocks(o, m, victims, frames, NULL, x.cap)
            while True:
                nb = group_walk_batch(w, owns, NULL, NULL, False)
                if nb == 0:
                    break
                nw = 0
                for j in range(nb):
                    own = owns[j]
                    if LINE_WINS and won_by_line(own, opp):
                        code = V_LINE_WON
                    else:
                        q = 0       # (assigned here: private to the thread, as &q alone is not)
                        if LINE_WINS and (opp_line or mill_points(own)):
                            n = 0       # a line stands: the game is over (c_moves_rules)
                            best_reset(b)
                        else:
                            n = walk_successors(WALK_CAPTURES, b, own, vacant, False, victims,
                                                jump, x.cap_wins, frames, NULL, x.cap, 0, &q)
                        code = init_code(b, n, q, m, o, rules)
                    if code != 0:
                        wown[nw] = own
                        wcode[nw] = code
                        ents[nw] = canon_entry(m, own)
                        prefetch(ents[nw])
                        nw = nw + 1
                # their slots, from the entries of CANON[m] (far away for 7-9 stones)
                # fetched meanwhile; then their codes, fetched for the write
                batch_slots(m, o, opp, wown, ents, nw, wslot, &val[0], True)
                for j in range(nw):
                    val[wslot[j]] = <uint16_t>wcode[j]
        free(owns)
        free(wslot)
        free(wcode)
        free(wown)
        free(ents)
        free(w)
        free(frames)
        free(b)
    return _max_plies(val)


cdef tuple _max_plies(uint16_t[::1] val):
    """Largest plies stored or pending in val, and the number of undecided states."""
    cdef int64_t i, undecided = 0
    cdef int best = 0, p
    cdef uint16_t v
    with nogil:
        for i in range(val.shape[0]):
            v = val[i]
            if v == V_SLACK:
                continue
            if is_undecided(v):
                undecided += 1
            if v == 0:
                continue
            p = (v & V_PLIES_MASK) if (v & V_PENDING) else v - 1
            if p > best:
                best = p
    return best, undecided


# --- the frontier: states decided with plies d ----------------------------------------
#
# Round d needs the slots whose code is d + 1.  Rather than compare every slot in every
# round, each block of SCAN_SLOTS slots keeps a due code: no slot of the block holds a
# decided code from d + 1 (the code the round looks for) up to below its due code.  A
# round scans only the blocks due; the scan raises a block's due code to the smallest
# decided code above d + 1 it saw, and every writer of a code (at least d + 2 in round d)
# lowers the due code of its block to d + 2 (all writers of a round write the same).

cdef inline void mark_due(uint16_t* due, int64_t slot, int d) noexcept nogil:
    """A code of at least d + 2 was written at slot in round d."""
    cdef uint16_t* b = &due[slot >> SCAN_SHIFT]
    if b[0] > d + 2:
        b[0] = <uint16_t>(d + 2)


cdef extern from *:
    """
    /* Written in C so that the compiler vectorises them (no branches). */
    /* (int64_t as Cython's int64_t: a long long here where the generated code passes an
       int64_t, a long on Linux, is an incompatible pointer, an error since GCC 14) */
    static inline uint16_t mu_scan_block(const uint16_t* restrict val, int64_t lo,
                                         int64_t hi, uint16_t at, int64_t* n) {
        uint32_t k = 0;                 /* a block holds at most SCAN_SLOTS slots */
        uint16_t low = 0xFFFF;
        uint16_t span = (uint16_t)(0x7FFF - at);
        for (int64_t i = lo; i < hi; i++) {
            uint16_t v = val[i];
            k += v == at;
            uint16_t decided_above = (uint16_t)(v - at - 1) < span;    /* at < v < 0x8000 */
            uint16_t x = v | (uint16_t)(decided_above - 1);          /* else 0xFFFF */
            low = low < x ? low : x;
        }
        *n += k;
        return low;
    }
    /* Which of 64 codes from p equal at, as a mask: one compare instruction per 32 or
       16 codes where the build targets AVX-512BW or AVX2 (the frontier's gather took
       0.8-0.9 ns a slot with 16 compares and a shift each, 0.36 with AVX-512BW). */
    #if defined(__AVX512BW__)
    #include <immintrin.h>
    static inline uint64_t mu_eq_mask64(const uint16_t* p, uint16_t at) {
        __m512i a = _mm512_set1_epi16((short)at);
        return (uint64_t)_mm512_cmpeq_epi16_mask(_mm512_loadu_si512((const void*)p), a)
               | ((uint64_t)_mm512_cmpeq_epi16_mask(_mm512_loadu_si512((const void*)(p + 32)), a) << 32);
    }
    #elif defined(__AVX2__)
    #include <immintrin.h>
    static inline uint32_t mu_eq_mask32(const uint16_t* p, __m256i a) {
        __m256i c0 = _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i*)p), a);
        __m256i c1 = _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i*)(p + 16)), a);
        /* packs works within 128-bit lanes: put the four quarters back in order */
        __m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(c0, c1), 0xD8);
        return (uint32_t)_mm256_movemask_epi8(b);
    }
    static inline uint64_t mu_eq_mask64(const uint16_t* p, uint16_t at) {
        __m256i a = _mm256_set1_epi16((short)at);
        return (uint64_t)mu_eq_mask32(p, a) | ((uint64_t)mu_eq_mask32(p + 32, a) << 32);
    }
    #else
    static inline uint64_t mu_eq_mask64(const uint16_t* p, uint16_t at) {
        uint64_t mask = 0;
        for (int j = 0; j < 64; j++)
            mask |= (uint64_t)(p[j] == at) << j;
        return mask;
    }
    #endif
    static inline int64_t mu_gather_block(const uint16_t* restrict val, int64_t lo,
                                          int64_t hi, uint16_t at, int64_t* out,
                                          int64_t n) {
        int64_t i = lo;
        for (; i + 64 <= hi; i += 64) {
            uint64_t mask = mu_eq_mask64(val + i, at);
            int c = __builtin_popcountll(mask);     /* (a loop of known length: fewer
                                                       mispredicted branches) */
            for (int q = 0; q < c; q++) {
                out[n + q] = i + __builtin_ctzll(mask);
                mask &= mask - 1;
            }
            n += c;
        }
        for (; i < hi; i++)             /* (threads gather next to each other: */
            if (val[i] == at)           /* no write past a block's own slots) */
                out[n++] = i;
        return n;
    }
    """
    # How many slots of [lo, hi) hold code at (added to n), and the smallest decided
    # code above at (V_SLACK: none).
    uint16_t scan_block "mu_scan_block"(const uint16_t* val, int64_t lo, int64_t hi, uint16_t at,
                                        int64_t* n) nogil
    # Slots of [lo, hi) that hold code at, appended to out[n:]; returns the new n.
    int64_t gather_block "mu_gather_block"(const uint16_t* val, int64_t lo, int64_t hi, uint16_t at,
                                           int64_t* out, int64_t n) nogil


def retro_floor(uint16_t[::1] val, int jobs=2):
    """Make the codes of an initialised subspace ready for the rounds: the longest loss
    the captures of an undecided state allow moves out of its code into the returned
    loss floor, and the code keeps V_HAS_FLOOR and the count of its undecided
    successors instead (V_COUNT_MASK, unknown, until a round computes it; 0, undecided
    with nothing known, is unknown too), so that a round into losses reads and
    decrements one code where it read a code and a count (docs/design.md §4).  A state whose capture leads to a draw
    can never lose and needs neither: its code becomes V_PENDING | V_DRAW_CAPTURE.

    The floor holds plies / 2 (a loss has even plies): one byte a slot, or, where some
    loss is longer than 510 plies, two (a uint16 array viewed as bytes, twice as many;
    loss_floor reads either).  Call it after the capture targets are let go: it is
    the rounds' memory, as the counts were.
    """
    cdef int64_t i, n = val.shape[0]
    cdef uint16_t v
    cdef int over = 0
    cdef bint wide
    cdef uint8_t* f8
    cdef uint16_t* f16
    check_jobs(jobs)
    for i in prange(n, nogil=True, num_threads=jobs, schedule="static"):
        v = val[i]
        if v != V_SLACK and (v & V_PENDING) and not (v & V_DRAW_CAPTURE):
            over |= (v & V_PLIES_MASK) > 2 * 255
    wide = over != 0
    floor = np.zeros(2 * n if wide else n, dtype=np.uint8)
    cdef uint8_t[::1] fv = floor
    f8 = &fv[0] if n else NULL
    f16 = <uint16_t*>f8
    for i in prange(n, nogil=True, num_threads=jobs, schedule="static"):
        v = val[i]
        if v == V_SLACK or not (v & V_PENDING):
            continue
        if v & V_DRAW_CAPTURE:
            val[i] = V_PENDING | V_DRAW_CAPTURE
            continue
        if wide:
            f16[i] = (v & V_PLIES_MASK) // 2
        else:
            f8[i] = (v & V_PLIES_MASK) // 2
        val[i] = V_PENDING | V_HAS_FLOOR | V_COUNT_MASK     # (init_code: c is not 0)
    return floor


cdef int floor_is_wide(const uint8_t[::1] floor, int64_t n) except -1:
    """Whether the loss floor of a subspace of n slots (retro_floor) holds two bytes a
    slot; a ValueError where its length fits neither (the rounds index it by slot)."""
    if n > 0 and floor.shape[0] == 2 * n:
        return True
    check_size("pred_floor", floor.shape[0], n, "one byte a slot, or two")
    return False


cdef inline int loss_floor(const uint8_t* floor, bint wide, int64_t p) noexcept nogil:
    """The longest loss (plies) the captures of the state at p allow (retro_floor)."""
    if wide:
        return 2 * (<const uint16_t*>floor)[p]
    return 2 * floor[p]


cdef inline int loss_code(uint16_t v, const uint8_t* floor, bint wide, int64_t p,
                          int d) noexcept nogil:
    """The code of the state at p (code v in the rounds) lost in round d (every
    successor won, one in d plies): a loss in d + 1 plies, or longer where a capture
    allows."""
    cdef int most = loss_floor(floor, wide, p) if v & V_HAS_FLOOR else 0
    return (d + 1 if d + 1 > most else most) + 1


cdef inline bint count_unknown(uint16_t v) noexcept nogil:
    """Whether the code v of a state that may still lose has no count yet."""
    return v == 0 or (v & V_COUNT_MASK) == V_COUNT_MASK


def retro_due(int64_t slots):
    """Due codes for a subspace of that many slots: one uint16 per block, all 0 (every
    block scanned in round 0), then one uint16 per block (how many slots of the
    frontier of the round the block holds, for retro_scan)."""
    cdef int64_t nb = (slots + SCAN_SLOTS - 1) >> SCAN_SHIFT
    return np.zeros(nb, dtype=np.uint16), np.zeros(nb, dtype=np.uint16)


def retro_frontier_size(const uint16_t[::1] val, uint16_t[::1] due, uint16_t[::1] holds,
                        int d, int jobs=2):
    """How many slots of val hold code d + 1 (the frontier of round d).  Scans the
    blocks due, raises their due codes to the smallest decided code above d + 1 they
    hold, and counts in ``holds`` the frontier's slots of each block (for retro_scan)."""
    cdef int64_t b, n_slots = val.shape[0], total = 0, n
    cdef uint16_t at = <uint16_t>(d + 1)
    check_jobs(jobs)
    check_size("due", due.shape[0], (n_slots + SCAN_SLOTS - 1) >> SCAN_SHIFT, "blocks of val")
    check_size("holds", holds.shape[0], due.shape[0], "blocks of val")
    for b in prange(due.shape[0], nogil=True, num_threads=jobs, schedule="static", chunksize=64):
        holds[b] = 0
        if due[b] <= at:
            n = 0
            due[b] = scan_block(&val[0], b << SCAN_SHIFT, min((b + 1) << SCAN_SHIFT, n_slots), at, &n)
            holds[b] = <uint16_t>n         # (at most SCAN_SLOTS)
            total += n
    return total


def retro_scan(const uint16_t[::1] val, const uint16_t[::1] holds, int d, int64_t block,
               int64_t[::1] out, int jobs=2):
    """The frontier of round d (slots with code d + 1) from the blocks that hold it
    (counted by retro_frontier_size) from ``block`` on, into out while a whole block
    fits; returns how many and the block to go on from (len(holds) when done).

    The blocks are gathered in threads, each into its place in out (known from the
    counts), so the frontier comes in slot order as from one thread: gathered in one,
    it took an eighth of the solve's wall time of pair 5-7 (docs/benchmarks.md)."""
    cdef int64_t n_slots = val.shape[0], n = 0, nb = holds.shape[0], lo, b, first = block
    cdef int64_t* at
    cdef uint16_t code = <uint16_t>(d + 1)
    check_jobs(jobs)
    check_size("holds", nb, (n_slots + SCAN_SLOTS - 1) >> SCAN_SHIFT, "blocks of val")
    if out.shape[0] < SCAN_SLOTS:       # (else a full block may never fit: no progress)
        raise ValueError(f"array out has {out.shape[0]} entries, at least {SCAN_SLOTS} needed")
    if not 0 <= block <= nb:
        raise ValueError(f"block {block} out of range 0..{nb}")
    offsets = np.empty(nb - first, dtype=np.int64)     # (each block's place in out)
    cdef int64_t[::1] off = offsets
    while block < nb and n + holds[block] <= out.shape[0]:
        off[block - first] = n
        n += holds[block]
        block += 1
    if n == 0:
        return 0, block
    at = &out[0]
    for b in prange(first, block, nogil=True, num_threads=jobs, schedule="dynamic",
                    chunksize=16):
        if holds[b]:
            lo = b << SCAN_SHIFT
            gather_block(&val[0], lo, min(lo + SCAN_SLOTS, n_slots), code, at,
                         off[b - first])
    return n, block


cdef int _check_round(int m, int o, const uint16_t[::1] child, const uint16_t[::1] pred,
                     const uint16_t[::1] pred_due, int jobs) except -1:
    """The arguments of a round (retro_round, retro_pull, retro_pull_grouped) that say
    where it reads and writes, checked before any is used."""
    _check_mo(m, o)
    check_jobs(jobs)
    check_size("child", child.shape[0], c_subspace_slots(m, o), f"slots of {m}-{o}")
    check_size("pred", pred.shape[0], c_subspace_slots(o, m), f"slots of {o}-{m}")
    check_size("pred_due", pred_due.shape[0], (pred.shape[0] + SCAN_SLOTS - 1) >> SCAN_SHIFT,
               "blocks of pred")
    return 0


def retro_round(int m, int o, const int64_t[::1] frontier, const uint16_t[::1] child,
                uint16_t[::1] pred, const uint8_t[::1] pred_floor, uint16_t[::1] pred_due,
                int d, int rules, bint recount=False, int jobs=2, int h=0, int k=0):
    """One round: the states of m-o decided with plies d (``frontier``, their slots)
    inform their predecessors in o-m.

    Returns the number of predecessors decided in this round that were undecided (not
    the tentative wins it shortened: the caller keeps count of the undecided states).
    (The caller finds the
    frontier with ``retro_scan``: a compare per slot in this loop cost more than all
    the rest of the round.)  ``pred_due``: the due codes of pred's blocks (retro_scan);
    ``child``: the codes of m-o; ``pred_floor``: o-m's loss floor (retro_floor), whose
    codes hold the counts.  ``recount``: a pull round may have left counts unknown
    that won successors had reached (see retro_pull), so a count computed now leaves
    out the successors won in fewer than d plies (else it needs no look at them).
    Under mixed placement m-o is m-o+h-k and o-m is o-m+k-h (see retro_init).
    """
    cdef int64_t j, j1, blk, slot, p, decided = 0, f, bad
    cdef int64_t n_front = frontier.shape[0], per
    cdef uint32_t own, opp, mv, before
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int64_t* preds
    cdef uint32_t* stones   # per predecessor: its mover's stones and its opponent's
    cdef int64_t* succ
    cdef int64_t* table
    cdef const uint32_t** ents     # per predecessor: its mover's entry of CANON[o]
    cdef uint32_t* owns             # per frontier state of a batch: its own stones,
    cdef int* counts                # its number of un-moves,
    cdef uint8_t* stabs             # whether a symmetry fixes them
    cdef IndexFrame* frame
    cdef int n, total, i, c, i0, jj
    cdef uint16_t v
    cdef bint child_lost = d % 2 == 0
    cdef const uint16_t* codes = &child[0] if recount else NULL
    # a round into losses computes counts; without recount, from the stones it has
    cdef bint keep = not child_lost and not recount
    cdef bint wide
    _check_round(m, o, child, pred, pred_due, jobs)
    per = <int64_t>BINOM[NPTS - m][o]
    # the frontier's slots are read as slots of m-o (its positions): one out of range,
    # an IndexError as position_batch gives, before any is read (a pass of a compare a
    # state, where a state's un-moves take hundreds of nanoseconds)
    with nogil:
        bad = -1
        for f in range(n_front):
            if not 0 <= frontier[f] < child.shape[0]:
                bad = f
                break
    if bad >= 0:
        raise IndexError(f"frontier[{bad}] = {frontier[bad]}: no slot of {m}-{o} "
                         f"({child.shape[0]} slots)")
    wide = floor_is_wide(pred_floor, pred.shape[0])
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    preds = NULL
    stones = NULL
    succ = NULL
    table = NULL
    ents = NULL
    owns = NULL
    counts = NULL
    stabs = NULL
    frame = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        preds = <int64_t*>malloc(ROUND_BATCH * MAX_MOVES * sizeof(int64_t))
        stones = <uint32_t*>malloc(2 * ROUND_BATCH * MAX_MOVES * sizeof(uint32_t))
        succ = <int64_t*>malloc(MAX_MOVES * sizeof(int64_t))
        table = new_dedupe_table()
        ents = <const uint32_t**>malloc(ROUND_BATCH * MAX_MOVES * sizeof(uint32_t*))
        owns = <uint32_t*>malloc(ROUND_BATCH * sizeof(uint32_t))
        counts = <int*>malloc(ROUND_BATCH * sizeof(int))
        stabs = <uint8_t*>malloc(ROUND_BATCH * sizeof(uint8_t))
        frame = <IndexFrame*>malloc(sizeof(IndexFrame))
        # (a thread takes 32 batches at a time, 2048 frontier states: with 4 at a time,
        # 64 a batch gained nothing on 5-7; docs/benchmarks.md)
        for blk in prange((n_front + ROUND_BATCH - 1) // ROUND_BATCH, schedule="dynamic",
                          chunksize=32):
            # pass 1: the distinct predecessor slots of ROUND_BATCH frontier states (a
            # predecessor reached from two of them counts twice), their codes (and so
            # their counts) prefetched: the reads of pass 2 are random and far apart, so
            # many must be in flight at once
            # (1a: the un-moves, each predecessor's mover's entry of CANON prefetched,
            # a read far away for 7-9 stones; 1b: the slots, with those entries)
            total = 0
            j1 = blk * ROUND_BATCH + ROUND_BATCH
            if j1 > n_front:
                j1 = n_front
            for j in range(blk * ROUND_BATCH, j1):
                slot = frontier[j]
                c_position_at(m, o, slot, &scratch[0], &scratch[1])
                own = scratch[0]
                opp = scratch[1]
                jj = j - blk * ROUND_BATCH
                owns[jj] = own
                stabs[jj] = REP_STAB[m][slot // per] != 0      # a symmetry fixes own
                n = c_unmoves_rules(own, opp, h, k, rules, UNSLIDE, moves)
                counts[jj] = n
                for i in range(n):
                    mv = moves[i]
                    # the predecessor's stones: back from the target to the origin
                    before = (opp & ~((<uint32_t>1) << move_target(mv))) | ((<uint32_t>1) << move_origin(mv))
                    stones[2 * (total + i)] = before
                    ents[total + i] = canon_entry(o, before)
                    prefetch(ents[total + i])
                total = total + n
            # (1b packs the slots as it goes: where a symmetry fixes a state's own
            # stones, fewer than its un-moves; total <= i0, so the stones it keeps
            # overwrite none that it has yet to read)
            i0 = 0
            total = 0
            for jj in range(j1 - blk * ROUND_BATCH):
                n = counts[jj]
                own = owns[jj]
                for i in range(n):
                    before = stones[2 * (i0 + i)]
                    c_index_frame_of(o, m, before, ents[i0 + i][0], frame)
                    p = c_index_in_frame(frame, own)
                    preds[total + i] = p
                    if keep:
                        # (where a symmetry fixes own, a count needs the slots)
                        stones[2 * (total + i)] = before
                        stones[2 * (total + i) + 1] = NO_STONES if stabs[jj] else own
                    prefetch_w(&pred[p])
                i0 = i0 + n
                if stabs[jj]:
                    # two un-moves may reach one slot (dedupe reorders the slots: the
                    # stones kept beside them are all NO_STONES, so none is misread)
                    n = dedupe(preds + total, n, table)
                total = total + n
            # pass 2: inform them
            for i in range(total):
                p = preds[i]
                v = pred[p]
                if child_lost:
                    # a move into a loss in d: the predecessor wins in d + 1 (unless it
                    # already wins faster); all writers of this round write the same value
                    if is_undecided(v) or (v - 1) > d + 1:
                        pred[p] = <uint16_t>(d + 2)
                        mark_due(&pred_due[0], p, d)
                        if is_undecided(v):     # (an overwritten tentative win was counted)
                            decided += 1
                elif is_undecided(v) and not (v & V_DRAW_CAPTURE):
                    # v is a count (or unknown) until this round's last decrement, which
                    # only the last of its won successors makes: counts are exact
                    if count_unknown(v):
                        if keep and stones[2 * i + 1] != NO_STONES:
                            # no symmetry fixes the predecessor's opponent (the frontier
                            # state's own): its quiet steps, from the stones at hand
                            c = quiet_step_count(o, m, k, h, stones[2 * i], stones[2 * i + 1],
                                                 rules)
                        else:
                            c_position_at(o, m, p, &scratch[0], &scratch[1])
                            c = quiet_successor_count(o, m, k, h, scratch[0], scratch[1], rules,
                                                      moves, succ, table, codes, d)
                        # all compute the same c; where another thread's stands, it may
                        # have been decremented already
                        atomic_cas_u16(&pred[p], v, <uint16_t>(V_PENDING | (v & V_HAS_FLOOR) | c))
                    if atomic_dec_u16(&pred[p]) & ~V_HAS_FLOOR == V_PENDING:
                        pred[p] = <uint16_t>loss_code(v, &pred_floor[0], wide, p, d)
                        mark_due(&pred_due[0], p, d)
                        decided += 1
        free(moves)
        free(scratch)
        free(preds)
        free(stones)
        free(succ)
        free(table)
        free(ents)
        free(owns)
        free(counts)
        free(stabs)
        free(frame)
    return decided


# --- pull rounds: what both walks share ----------------------------------------------

cdef enum:
    PULL_HIT = 1        # pull_look: a successor decided with plies d
    PULL_STOP = 2       # pull_look: the state needs no more successors this round


cdef inline bint pull_may_decide(uint16_t v, int d) noexcept nogil:
    """Whether round d of a pull may decide a state with code v: in a round into wins
    (d even) one undecided or winning more slowly, in a round into losses one undecided
    that may still lose."""
    if d % 2 == 0:
        return is_undecided(v) or ((v & 1) == 0 and v > d + 2 and v != V_SLACK)
    return is_undecided(v) and not (v & V_DRAW_CAPTURE)


cdef inline int pull_look(uint16_t c, int d) noexcept nogil:
    """What a successor's code c tells a state in round d of a pull (PULL_* flags)."""
    if c == d + 1:
        return PULL_HIT | PULL_STOP if d % 2 == 0 else PULL_HIT
    if d % 2 == 1 and not won_by(c, d):
        return PULL_STOP        # not all won: no loss this round
    return 0


cdef inline int pull_settle(uint16_t* pred, const uint8_t* pred_floor, bint wide,
                            uint16_t* pred_due, int64_t p, uint16_t v, int d, bint hit,
                            bint stopped) noexcept nogil:
    """Write what a pull found for the state at p (code v before the round): a win in
    d + 1 (d even, a successor lost in d), a loss (d odd, every successor won, one in
    d), or, where a round into losses did not decide it, its count made unknown (the
    next push round recomputes it).  Returns 1 where an undecided state was decided."""
    if d % 2 == 0:
        if not hit:
            return 0
        pred[p] = <uint16_t>(d + 2)
        mark_due(pred_due, p, d)
        return is_undecided(v)
    if hit and not stopped:
        pred[p] = <uint16_t>loss_code(v, pred_floor, wide, p, d)
        mark_due(pred_due, p, d)
        return 1
    if not count_unknown(v):
        pred[p] = v | V_COUNT_MASK
    return 0


ctypedef struct RestPull:
    uint32_t hits       # the targets whose successor pull_look finds decided with plies d
    uint32_t stops      # the targets whose successor settles the state (PULL_STOP)


cdef inline void rest_pull_table(RestPull* tab, uint32_t vacant, uint32_t victims,
                                 const IndexFrame* frame, const uint16_t* child,
                                 int d) noexcept nogil:
    """For a pull round d into a jumping side of three (as rest_table for the check):
    fill tab[rest_slot(rest)] for every rest {p, q} of the opponent's free points
    ``vacant`` with what pull_look finds at each quiet step rest + t (the step that
    closes a mill leaves the unit where there are ``victims``: not looked at);
    ``frame`` is the successors' frame (a representative's: g = 0)."""
    cdef uint32_t ps = vacant, qs, ts, rest, hits, stops
    cdef int p, q, t, look
    while ps:
        p = ctz(ps)
        ps &= ps - 1
        qs = ps
        while qs:
            q = ctz(qs)
            qs &= qs - 1
            rest = ((<uint32_t>1) << p) | ((<uint32_t>1) << q)
            ts = vacant & ~rest
            if victims:
                ts &= ~MILL_THIRDS[p][q]
            hits = 0
            stops = 0
            while ts:
                t = ctz(ts)
                ts &= ts - 1
                look = pull_look(child[c_index_of_image(frame, rest | ((<uint32_t>1) << t))], d)
                if look & PULL_HIT:
                    hits |= (<uint32_t>1) << t
                if look & PULL_STOP:
                    stops |= (<uint32_t>1) << t
            tab[rest_slot(rest)].hits = hits
            tab[rest_slot(rest)].stops = stops


cdef inline int rest_pull(uint32_t own, const RestPull* tab) noexcept nogil:
    """What walk_successors (WALK_PULL) finds for own, three stones of a jumping side,
    from rest_pull_table's table: the PULL_* flags of every step, each rest of own with
    its own target left out.  (The walk stops at the first step that settles the state;
    what pull_settle makes of the flags is the same.)"""
    cdef uint32_t origins = own, bit
    cdef int look = 0
    cdef const RestPull* e
    while origins:
        bit = (<uint32_t>1) << ctz(origins)
        origins &= origins - 1
        e = &tab[rest_slot(own & ~bit)]
        if e.hits & ~bit:
            look |= PULL_HIT
        if e.stops & ~bit:
            look |= PULL_STOP
    return look


def retro_pull(int m, int o, const uint16_t[::1] child, uint16_t[::1] pred,
               const uint8_t[::1] pred_floor, uint16_t[::1] pred_due, int d, int rules,
               int jobs=2, int h=0, int k=0):
    """Round d the other way round (pull): every state of o-m (``pred``) that round d
    can decide looks at its quiet successors in m-o (``child``) for ones decided with
    plies d.  Decides exactly what ``retro_round`` with the frontier of m-o at d would,
    and leaves the counts so that push rounds can go on (see below): rounds may switch
    between the two.  It pays when the frontier is larger than the states it can decide.

    Rounds with d even (successors lost in d): a state that is undecided, or wins only
    in more than d + 1 (a tentative capture win), wins in d + 1 if a successor is lost
    in d.  Rounds with d odd (successors won in d): an undecided state that may still
    lose is lost when every successor is a win in at most d plies and one in exactly d;
    else it stops at the first successor not won, and its count, if known, becomes
    unknown again: the push round that next needs it computes it afresh, leaving out
    the successors already won (retro_round with recount).  Returns the number of
    states decided that were undecided.  Hands and ``rules`` as for retro_round.

    This walk goes in slot order, reading each state's successors far away; it suits
    rounds where few states can be decided (it skips the others at the cost of a
    sequential read).  retro_pull_grouped does the same where many can.
    """
    cdef int64_t p, s, decided = 0, n_pred
    cdef uint32_t own, opp, mv
    cdef uint32_t* moves
    cdef uint32_t* scratch
    cdef int64_t* succ
    cdef int n, nb, i, j, look
    cdef uint16_t v
    cdef bint hit, stopped
    cdef IndexFrame* frame     # per thread (see Best in retro_init)
    cdef bint wide
    _check_round(m, o, child, pred, pred_due, jobs)
    n_pred = pred.shape[0]
    wide = floor_is_wide(pred_floor, n_pred)
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    scratch = NULL
    succ = NULL
    frame = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
        scratch = <uint32_t*>malloc(2 * sizeof(uint32_t))
        succ = <int64_t*>malloc(PULL_BATCH * sizeof(int64_t))
        frame = <IndexFrame*>malloc(sizeof(IndexFrame))
        for p in prange(n_pred, schedule="dynamic", chunksize=4096):
            v = pred[p]
            if not pull_may_decide(v, d):
                continue
            c_position_at(o, m, p, &scratch[0], &scratch[1])
            own = scratch[0]
            opp = scratch[1]
            n = c_moves_rules(own, opp, k, h, rules, moves)
            c_index_frame(m, o, opp, frame)
            # successors in batches of PULL_BATCH, prefetched, so that the first
            # one that settles the state stops the work
            hit = False
            stopped = False
            i = 0
            while i < n and not stopped:
                nb = 0
                while i < n and nb < PULL_BATCH:
                    mv = moves[i]
                    i = i + 1
                    if inside(mv):
                        s = c_index_in_frame(frame, moved(own, mv))
                        succ[nb] = s
                        nb = nb + 1
                        prefetch(&child[s])
                for j in range(nb):
                    look = pull_look(child[succ[j]], d)
                    if look & PULL_HIT:
                        hit = True
                    if look & PULL_STOP:
                        stopped = True
                        break
            decided += pull_settle(&pred[0], &pred_floor[0], wide, &pred_due[0], p, v, d, hit,
                                   stopped)
        free(moves)
        free(scratch)
        free(succ)
        free(frame)
    return decided


def retro_pull_grouped(int m, int o, const uint16_t[::1] child, uint16_t[::1] pred,
                       const uint8_t[::1] pred_floor, uint16_t[::1] pred_due, int d, int rules,
                       int jobs=2, int h=0, int k=0):
    """Round d the other way round (pull): every state of o-m (``pred``) that round d
    can decide looks at its quiet successors in m-o (``child``) for ones decided with
    plies d.  Decides exactly what ``retro_round`` with the frontier of m-o at d would,
    and leaves the counts so that push rounds can go on (see below): rounds may switch
    between the two.  It pays when the frontier is larger than the states it can decide.

    Rounds with d even (successors lost in d): a state that is undecided, or wins only
    in more than d + 1 (a tentative capture win), wins in d + 1 if a successor is lost
    in d.  Rounds with d odd (successors won in d): an undecided state that may still
    lose is lost when every successor is a win in at most d plies and one in exactly d;
    else it stops at the first successor not won, and its count, if known, becomes
    unknown again: the push round that next needs it computes it afresh, leaving out
    the successors already won (retro_round with recount).  Returns the number of
    states decided that were undecided.  Hands and ``rules`` as for retro_round.

    The states of o-m are visited grouped by the opponent's stones (as
    retro_check_grouped does): for one representative Y of the m-stone sets, the
    successors (Y, own') of every state (own, Y) lie in one block of C(NPTS - m, o)
    slots of m-o, so they come from cache, and a state stops at the first successor
    that settles it without waiting for memory (read in slot order, those reads were
    37 % of a pull round of 3-8).  Only each state's own code is read far away, a batch
    of GROUP_BATCH prefetched together.  But every state's slot is computed, so where
    few states can be decided retro_pull (slot order) costs less.  Where the states'
    side to move jumps with three stones, a group's states walk their steps until they
    have read as many as a table of its rests would (rest_pull_table), and the rest of
    the group reads that table (rest_pull).
    """
    if rules & RULE_MILL_ENDS:
        raise ValueError("the grouped walks count a mill that takes nothing as quiet: pull in slot order")
    cdef int64_t n_pred
    cdef int64_t r, p, decided = 0
    cdef uint32_t own, opp
    cdef uint16_t v
    cdef uint32_t* owns
    cdef int64_t* slots
    cdef GroupWalk* w          # per thread (see Best in retro_init)
    cdef IndexFrame* fy        # [NPTS]: the successors' frame (their side to move: Y)
    cdef int nb, nd, j, look
    cdef uint32_t vacant, victims
    cdef bint hit, stopped, opp_line
    cdef bint jump = (rules & RULE_JUMPING) and o + k == 3
    cdef bint by_rests = jump and k == 0        # (three stones on the board: rest_pull)
    cdef RestPull* rests        # [NPTS * NPTS], per thread
    cdef bint tabled
    cdef int64_t spent, budget
    # no quiet move at all (c_moves_rules): the game is over, or the side to move has
    # stones in hand and may only place (separate placement)
    cdef bint over = o + k < 3 or m + h < 3 or (k > 0 and not rules & RULE_MIXED)
    cdef bint wide
    _check_round(m, o, child, pred, pred_due, jobs)
    n_pred = pred.shape[0]
    wide = floor_is_wide(pred_floor, n_pred)
    # (each thread starts from a copy of these: defined, not left uninitialised)
    owns = NULL
    slots = NULL
    w = NULL
    fy = NULL
    rests = NULL
    with nogil, parallel(num_threads=jobs):
        owns = <uint32_t*>malloc(GROUP_BATCH * sizeof(uint32_t))
        slots = <int64_t*>malloc(GROUP_BATCH * sizeof(int64_t))
        w = <GroupWalk*>malloc(sizeof(GroupWalk))
        fy = <IndexFrame*>malloc((NPTS + 1) * sizeof(IndexFrame))
        rests = <RestPull*>malloc(NPTS * NPTS * sizeof(RestPull)) if by_rests else NULL
        for r in prange(ORBITS[m], schedule="dynamic", chunksize=1):
            group_walk_start(w, o, m, r)
            opp = w.opp
            c_index_frame(m, o, opp, &fy[NPTS])     # a representative's: g = 0
            prefetch_blocks(m, o, 0, fy, &child[0], NULL)
            vacant = FULL & ~opp
            victims = move_victims(opp, rules)
            opp_line = LINE_WINS and mill_points(opp) != 0
            # A jumping side's table (rest_pull_table) costs 3 C(v, 3) reads, its states'
            # own walks stop at the first step that settles them: they walk until they
            # have read as much, then the table serves the rest of the group.
            tabled = False
            spent = 0
            budget = 3 * <int64_t>BINOM[popcount(vacant)][3]
            while True:
                nb = group_walk_batch(w, owns, slots, &pred[0], True)
                if nb == 0:
                    break
                # the states this round may decide
                nd = 0
                for j in range(nb):
                    if pull_may_decide(pred[slots[j]], d):
                        owns[nd] = owns[j]
                        slots[nd] = slots[j]
                        nd = nd + 1
                for j in range(nd):
                    p = slots[j]
                    v = pred[p]
                    own = owns[j]
                    look = 0        # (no move: nothing found)
                    if over or (LINE_WINS and (opp_line or mill_points(own))):
                        pass
                    elif tabled:
                        look = rest_pull(own, rests)
                    else:
                        spent = spent + walk_successors(WALK_PULL, NULL, own, vacant, False,
                                                        victims, jump, False, fy, &child[0],
                                                        NULL, d, &look)
                        if by_rests and spent > budget:
                            rest_pull_table(rests, vacant, victims, &fy[NPTS], &child[0], d)
                            tabled = True
                    hit = (look & PULL_HIT) != 0
                    stopped = (look & PULL_STOP) != 0
                    decided += pull_settle(&pred[0], &pred_floor[0], wide, &pred_due[0], p, v,
                                           d, hit, stopped)
        free(owns)
        free(slots)
        free(w)
        free(fy)
        free(rests)
    return decided


def quiet_step_counts(const uint32_t[::1] own, const uint32_t[::1] opp, int h=0, int k=0,
                      int rules=RULE_JUMPING):
    """quiet_step_count of many positions (own to move, stones in hand h and k): the count
    a push round gives a state that no symmetry fixes (for tests: it must equal the
    number of c_moves_rules's moves that stay in the unit)."""
    cdef Py_ssize_t i, n = own.shape[0]
    check_positions(own, opp)
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] res = out
    with nogil:
        for i in range(n):
            res[i] = quiet_step_count(popcount(own[i]), popcount(opp[i]), h, k, own[i], opp[i],
                                      rules)
    return out


def retro_finish(uint16_t[::1] val):
    """Turn every still-undecided state into a draw."""
    cdef int64_t i
    cdef uint16_t v
    with nogil:
        for i in range(val.shape[0]):
            v = val[i]
            if v != V_SLACK and (v & V_PENDING):
                val[i] = V_DRAW
