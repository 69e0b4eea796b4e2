# Move generation on point masks (NPTS bits): forward moves with captures, and quiet un-moves.
# Must agree exactly with solver.position (the reference); tests/test_movegen.py proves it.
#
# Where a line of three wins (LINE_WINS, a compile-time constant of the board's module:
# Three Men's Morris, docs/design.md §9) a move closing a mill takes nothing, and a
# position where either side has a line is over: it has no moves and no un-moves lead
# out of it.  The position after a winning move is an ordinary one of the quiet child
# (the mover's line stands), lost in 0 for the side to move there, as a blocked one.
#
# A move is packed into 15 bits: target | origin << 5 | take << 10, with NO_POINT (31)
# for "no origin" (a placement) and "no take" (solver.position.Move.pack / unpack).
# Under RULE_MILL_ENDS (the solve of the quiet-ply rule's tables only) a mill that takes
# nothing (take-none, every enemy stone in a mill) has the take MILL_NO_TAKE (30): it
# resets the count of quiet plies, so that solve reads it as an end, not a quiet move.
#
# Provides: NO_POINT, MILL_NO_TAKE, MAX_MOVES, UNPLACE, UNSLIDE; pack_move, move_target, move_origin,
#           move_take; mill_points, closes_mill, mill_hot, mill_closers, takeable, move_victims,
#           mill_ends, won_by_line;
#           c_moves_rules and
#           c_unmoves_rules (any placement rule, nogil), c_moves_packed and
#           c_unmoves_packed (separate placement); moves_packed, unmoves_packed,
#           count_moves_batch.
# Uses:     board.pxi (ADJ, MILL, MILL_AT, MILL_THIRDS, FULL, popcount, ctz), LINE_WINS (the module's),
#           rules.pxi (the rule flags: ``rules`` below).

cdef enum:
    NO_POINT = 31
    MILL_NO_TAKE = 30     # (RULE_MILL_ENDS only) the take of a mill that takes nothing
    MAX_MOVES = 1024      # placement 24 targets x 12 takes, jumping 3 x 21 x 12: well below
    UNPLACE = 1           # un-move kinds: the last mover placed a stone ...
    UNSLIDE = 2           # ... or slid / jumped one


cdef inline uint32_t pack_move(int target, int origin, int take) noexcept nogil:
    return <uint32_t>target | (<uint32_t>origin << 5) | (<uint32_t>take << 10)


# The accessors every kernel reads packed moves with (solver.position.Move.pack/unpack
# is the same codec in Python).
cdef inline int move_target(uint32_t mv) noexcept nogil:
    return mv & 31


cdef inline int move_origin(uint32_t mv) noexcept nogil:
    """The origin point, or NO_POINT for a placement."""
    return (mv >> 5) & 31


cdef inline int move_take(uint32_t mv) noexcept nogil:
    """The point taken, or NO_POINT when the move takes nothing."""
    return (mv >> 10) & 31


cdef inline uint32_t mill_points(uint32_t s) noexcept nogil:
    """Stones of s that stand in a closed mill."""
    cdef uint32_t out = 0
    cdef int k
    for k in range(NMILLS):
        if (MILL[k] & s) == MILL[k]:
            out |= MILL[k]
    return out


cdef inline bint closes_mill(uint32_t after, int t) noexcept nogil:
    """Whether the stone on t stands in a closed mill of after."""
    cdef int k
    for k in range(MILLS_AT):         # a constant bound: unrolled (two on the standard board)
        if (MILL_AT[t][k] & after) == MILL_AT[t][k]:
            return True
    return False


cdef inline uint32_t mill_hot(uint32_t own) noexcept nogil:
    """The points of every line that holds two stones (or three) of own: a stone that
    joins own, placed or moved, can close a mill only on one of them (the two other
    points of that mill are own's), so a walk need test closes_mill only there."""
    cdef uint32_t hot = 0, c
    cdef int k
    for k in range(NMILLS):         # by a mask, not a branch taken at random
        c = MILL[k] & own
        hot |= MILL[k] & (<uint32_t>0 - <uint32_t>((c & (c - 1)) != 0))
    return hot


cdef inline uint32_t mill_closers(uint32_t rest) noexcept nogil:
    """Where a stone joining ``rest`` closes a mill when rest is two stones (the third
    points of the lines through both, whatever stands there: one on most boards, two
    where lines of five overlap), else 0: a jumping side of three leaves two stones
    behind when it lifts one, so of its targets only these can close a mill (closes_mill
    of rest | target), and a walk that only counts its quiet steps need not visit the
    others (walk_successors)."""
    if popcount(rest) != 2:
        return 0
    return MILL_THIRDS[ctz(rest)][ctz(rest & (rest - 1))]


cdef inline uint32_t takeable(uint32_t enemy, int rules) noexcept nogil:
    """Enemy stones a closed mill may take (the protection rule) under the rule flags
    ``rules`` (RULE_TAKE_NONE: none where all stand in mills; RULE_TAKE_FROM_MILLS: no
    stone is protected)."""
    cdef uint32_t free
    if rules & RULE_TAKE_FROM_MILLS:
        return enemy
    free = enemy & ~mill_points(enemy)
    if free:
        return free
    return 0 if rules & RULE_TAKE_NONE else enemy


cdef inline uint32_t move_victims(uint32_t opp, int rules) noexcept nogil:
    """The stones of opp that a mill closed by the side to move may take: takeable, or
    none where a line wins (a line takes nothing).  c_moves_rules finds them per
    position; the walks by opponent sets once for all positions of one opponent set."""
    return 0 if LINE_WINS else takeable(opp, rules)


cdef inline bint mill_ends(uint32_t opp, int rules) noexcept nogil:
    """Whether a mill closed against ``opp`` is an end that takes nothing (MILL_NO_TAKE):
    under RULE_MILL_ENDS where move_victims finds none in a game that goes on."""
    return (rules & RULE_MILL_ENDS) != 0 and not LINE_WINS and opp != 0 and move_victims(opp, rules) == 0


cdef inline bint won_by_line(uint32_t own, uint32_t opp) noexcept nogil:
    """Under LINE_WINS: whether only the side to move has a line.  Play cannot reach such
    a position (the side that closes a line is then not to move); the rules count it as
    won, although it has no moves (docs/design.md §9)."""
    return mill_points(own) != 0 and mill_points(opp) == 0


cdef inline int add_steps(uint32_t own, int origin, uint32_t targets, uint32_t victims,
                          bint ends, uint32_t* out, int n) noexcept nogil:
    """Append the moves of one origin (NO_POINT: a placement) to its targets: each step,
    or one move per victim where it closes a mill (``ends``, mill_ends: one move that
    takes MILL_NO_TAKE); returns the new count."""
    cdef int target
    cdef uint32_t after, v
    while targets:
        target = ctz(targets)
        targets &= targets - 1
        after = own | (<uint32_t>1 << target)
        if origin != NO_POINT:
            after &= ~(<uint32_t>1 << origin)
        if victims and closes_mill(after, target):
            v = victims
            while v:
                out[n] = pack_move(target, origin, ctz(v))
                n += 1
                v &= v - 1
        elif ends and closes_mill(after, target):
            out[n] = pack_move(target, origin, MILL_NO_TAKE)
            n += 1
        else:
            out[n] = pack_move(target, origin, NO_POINT)
            n += 1
    return n


cdef inline int c_moves_rules(uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                              int rules, uint32_t* out) noexcept nogil:
    """Legal moves of the side to move (own) under the rule flags ``rules`` into out;
    returns how many (0 if game over).

    A side with stones in hand places; under mixed placement (RULE_MIXED: Lasker) it may
    also move a stone, and it jumps (RULE_JUMPING) when its stones on the board and in
    hand are three (solver.position.Position._steps)."""
    cdef int n = 0, origin
    cdef uint32_t free = FULL & ~(own | opp)
    cdef uint32_t victims = move_victims(opp, rules)
    cdef bint ends = mill_ends(opp, rules)
    cdef uint32_t origins
    cdef bint jump
    if popcount(own) + own_hand < 3 or popcount(opp) + opp_hand < 3:
        return 0
    if LINE_WINS and (mill_points(own) or mill_points(opp)):
        return 0            # a line stands: the game is over
    if own_hand > 0:
        n = add_steps(own, NO_POINT, free, victims, ends, out, n)
        if not rules & RULE_MIXED:
            return n
    jump = (rules & RULE_JUMPING) and popcount(own) + own_hand == 3
    origins = own
    while origins:
        origin = ctz(origins)
        origins &= origins - 1
        n = add_steps(own, origin, free if jump else (ADJ[origin] & free), victims, ends, out, n)
    return n


cdef inline int c_moves_packed(uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                          int rules, uint32_t* out) noexcept nogil:
    """Legal moves of the side to move (own) into out under separate placement (every
    stone placed before any moves): c_moves_rules without mixed placement."""
    return c_moves_rules(own, opp, own_hand, opp_hand, rules & ~RULE_MIXED, out)


cdef inline int c_unmoves_rules(uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                                int rules, int kinds, uint32_t* out) noexcept nogil:
    """Quiet un-moves: moves of the last mover (opp) that took nothing and led here.

    Each is packed like a forward move of the predecessor (take = NO_POINT); kinds
    selects un-placements (UNPLACE) and un-slides/jumps (UNSLIDE).  The last mover
    slid or jumped with none in hand, or with some under mixed placement (RULE_MIXED),
    and jumped when its stones, board plus hand, were three.
    """
    cdef int n = 0, target, origin
    cdef uint32_t free = FULL & ~(own | opp)
    cdef uint32_t movers = opp, origins, before
    # A mill the last move closed took nothing only if nothing was takeable from own
    # (where a line wins, a closed line never takes): takeable(own, rules) == 0,
    # which is own empty, or take-none (where mills protect) with all of own in mills
    # (the mills looked at only then: this runs for every state of a push round's
    # frontier); under RULE_MILL_ENDS such a mill is not quiet (mill_ends).
    cdef bint mills_quiet = LINE_WINS or own == 0 or (
        (rules & RULE_TAKE_NONE) and not (rules & (RULE_TAKE_FROM_MILLS | RULE_MILL_ENDS))
        and mill_points(own) == own)
    cdef bint jump = (rules & RULE_JUMPING) and popcount(opp) + opp_hand == 3
    cdef bint slid = (kinds & UNSLIDE) and (opp_hand == 0 or (rules & RULE_MIXED))
    if popcount(own) + own_hand < 3 or popcount(opp) + opp_hand < 3:
        return 0
    if LINE_WINS and mill_points(own):
        return 0            # own's line stood before the last move: the game was over
    while movers:
        target = ctz(movers)
        movers &= movers - 1
        if not mills_quiet and closes_mill(opp, target):
            continue
        before = opp & ~((<uint32_t>1) << target)
        # Where a line wins, the last mover had none before its move (the game was on).
        if (kinds & UNPLACE) and not (LINE_WINS and mill_points(before)):
            out[n] = pack_move(target, NO_POINT, NO_POINT)
            n += 1
        if slid:
            origins = free if jump else (ADJ[target] & free)
            while origins:
                origin = ctz(origins)
                origins &= origins - 1
                if LINE_WINS and mill_points(before | ((<uint32_t>1) << origin)):
                    continue
                out[n] = pack_move(target, origin, NO_POINT)
                n += 1
    return n


cdef inline int c_unmoves_packed(uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                            int rules, int kinds, uint32_t* out) noexcept nogil:
    """c_unmoves_rules under separate placement."""
    return c_unmoves_rules(own, opp, own_hand, opp_hand, rules & ~RULE_MIXED, kinds, out)


# --- Python access, for tests and tools (not for hot loops) --------------------------

def line_wins():
    """Whether these kernels play a line of three as winning outright (the module's
    LINE_WINS; solver.rules.LINE_BOARDS names the boards compiled so)."""
    return bool(LINE_WINS)


def moves_packed(uint32_t own, uint32_t opp, int own_hand, int opp_hand, int rules=RULE_JUMPING):
    """Forward moves of the kernel as packed ints (see the header of movegen.pxi) under
    the rule flags ``rules`` (solver.rules.Rules.flags; the standard game's by default)."""
    cdef uint32_t buf[MAX_MOVES]
    cdef int n
    check_position(own, opp)
    n = c_moves_rules(own, opp, own_hand, opp_hand, rules, buf)
    return [buf[i] for i in range(n)]


def unmoves_packed(uint32_t own, uint32_t opp, int own_hand, int opp_hand, int rules=RULE_JUMPING,
                   int kinds=UNPLACE | UNSLIDE):
    """Quiet un-moves of the kernel as packed ints (``rules`` as for moves_packed)."""
    cdef uint32_t buf[MAX_MOVES]
    cdef int n
    check_position(own, opp)
    n = c_unmoves_rules(own, opp, own_hand, opp_hand, rules, kinds, buf)
    return [buf[i] for i in range(n)]


def count_moves_batch(const uint32_t[::1] own, const uint32_t[::1] opp,
                      const int8_t[::1] own_hand, const int8_t[::1] opp_hand,
                      int rules=RULE_JUMPING):
    """Number of legal moves of many positions at once (for benchmarks)."""
    cdef Py_ssize_t i, n = own.shape[0]
    cdef uint32_t buf[MAX_MOVES]
    check_positions(own, opp)
    if own_hand.shape[0] != n or opp_hand.shape[0] != n:
        raise ValueError("arrays differ in length")
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] res = out
    with nogil:
        for i in range(n):
            res[i] = c_moves_packed(own[i], opp[i], own_hand[i], opp_hand[i], rules, buf)
    return out
