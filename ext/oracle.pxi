# The independent oracle: a deliberately naive solver over RAW positions, for small
# subspaces, used to check the fast solver (docs/design.md §6).  Its own extension
# module per board (solver.verify._oracle, solver.verify._oracle_<board>: setup.py
# generates them as for the kernels, ext/kernels.pxi), so that nothing of it ships in
# the kernels; the driver is solver/verify/oracle.py.
#
# Provides: oracle_entries, oracle_rank, oracle_sets, oracle_new, oracle_position,
#           oracle_index, oracle_sweep, oracle_finish, oracle_reach (solver/verify/_oracle.pyi).
# Uses:     board.pxi, rules.pxi, guards.pxi and movegen.pxi, compiled into this module (c_moves_rules, the
#           move_* accessors and won_by_line); nothing of index.pxi, retro.pxi or check.pxi.
#
# Why it is independent of the fast solver (retro.pxi + index.pxi):
# - It shares only the rules kernel c_moves_rules (forward moves, itself proven equal to the
#   reference rules in solver.position by a separate cross-check test).
# - Its own indexing, with no symmetry and no canonical forms: the raw index of a position
#   of subspace m-o is orc_rank(own) * C(NPTS, o) + orc_rank(opp), both ranked among ALL
#   NPTS points (colex rank = place among the sets of that size in increasing numeric
#   order), so overlapping (own & opp != 0) pairs are unused entries.  The rank comes
#   from its own split 12-bit tables and its own binomial table; unranking is a lookup
#   in a sorted table of all sets of a size.  Nothing of index.pxi is compiled in: the
#   comparison with the fast solver (solver/verify/oracle.py) looks the fast solver's
#   answer up through the fast solver's own map, solver._kernels.index_batch.
# - No predecessors, un-moves, counts, pending flags or rounds: plain value iteration
#   forwards.  Sweep k looks at every still undecided state and decides it if, by the
#   definitions of docs/design.md §3, its value is fixed at exactly k plies:
#     win in k  : some move leads to a loss in k-1 (a capture that leaves the opponent
#                 two stones counts as a child lost in 0; a capture into a smaller
#                 subspace reads that subspace's solved oracle values);
#     loss in k : every move leads to a decided win and the longest is k-1 (no moves,
#                 i.e. blocked, is the case k = 0: the longest of nothing is -1),
#                 except on a full board (no point free) where the rules draw it
#                 (RULE_FULL_DRAW, Twelve Men's Morris): no sweep decides that one.
#   Where a line wins (LINE_WINS), a position where a line stands has no moves
#   (c_moves_packed): lost in 0 as a blocked one, unless only the side to move has a
#   line (movegen.pxi won_by_line): the rules count that as won, and its code is that
#   of a win in 1 (docs/design.md §9), decided by sweep 1.
#   The driver (solver/verify/oracle.py) repeats sweeps until one decides nothing and no
#   capture target holds a longer value; what is left is a draw.
#
# Wins have odd plies and losses even ones, so an odd sweep can only decide wins and an
# even sweep only losses; each sweep tests just that (a win test stops at the first
# child lost in k-1, a loss test at the first child not won).
#
# Two shortcuts keep the win tests (the costly sweeps: most states are draws, and a
# draw's win test reads every child) from re-reading what cannot have changed; both are
# exact and use nothing but the oracle's own arrays:
# - cap_win: a capture child's value never changes (it lies in a solved subspace or
#   ends the game), so sweep 1 reads every capture once and remembers, per state, the
#   smallest code of a capture child that is lost (the sweep whose win test it passes);
#   later odd sweeps compare that number instead.
# - loss_rows: a quiet child of (own, opp) in m-o is (opp, own') in o-m, always in row
#   rank(opp) of that array.  A child lost in k-1 was decided by sweep k-1 (each state
#   is decided by the sweep equal to its plies), so an odd sweep k skips a state's quiet
#   children unless sweep k-1 decided a loss in that row.  Even sweeps write the rows,
#   odd sweeps only read them, so no thread reads a row another writes.
# - blocker: a loss test stops at the first child not won and remembers it (its raw
#   index in o-m, or ORC_NEVER for a capture child, whose value never changes).  Until
#   that child is won the test would stop there again, so later even sweeps read that one
#   child and skip the state.  Children only go from undecided to decided, so the first
#   child not won is the same whatever other threads have written in this sweep.
#
# Sweeps update in place.  That is exact, not an approximation: sweep k only creates
# values of its own parity, while its tests read children of the other parity (a loss
# k-1 for a win in k; wins for a loss in k, where a child newly decided in this sweep is
# a loss that was undecided before the sweep, and blocks the loss either way).  For the
# same reason the threads may read each other's fresh writes: either version of a
# child gives the same decision.
#
# Codes are those of solver.values: 0 draw, 1 + plies decided; in oracle arrays
# ORC_NONE (0xFFFF) marks an unused raw entry and ORC_UNDECIDED (0xFFFE) a state not
# yet decided during the solve.

# Compiled in: the board tables and the rules kernel c_moves_rules, the one thing shared.
include "board.pxi"
include "rules.pxi"
include "guards.pxi"
include "movegen.pxi"

from cython.parallel cimport prange, parallel
from libc.stdlib cimport malloc, free


cdef enum:
    ORC_NONE = 0xFFFF
    ORC_UNDECIDED = 0xFFFE
    ORC_MAX_MOVES = 1024

cdef uint32_t ORC_SCAN = 0xFFFFFFFF     # blocker unknown: read every child
cdef uint32_t ORC_NEVER = 0xFFFFFFFE    # a capture child is not won: never a loss

cdef int64_t ORC_C[25][25]               # binomial coefficients, its own table
cdef uint32_t ORC_LOW_RANK[4096]         # colex rank of the low 12 bits
cdef uint32_t ORC_HIGH_RANK[4096][13]    # rank share of the high 12 bits, given j low stones
cdef uint32_t* ORC_SETS[25]              # all k-sets of the NPTS points, increasing (lazy)


cdef void _orc_init_tables():
    cdef int n, k, x, j, i, p
    cdef int64_t c
    for n in range(25):
        # multiplicative formula, row by row: C(n, k) = C(n, k-1) * (n-k+1) / k
        c = 1
        for k in range(25):
            if k > n:
                ORC_C[n][k] = 0
            else:
                ORC_C[n][k] = c
                c = c * (n - k) // (k + 1)
    for x in range(4096):
        ORC_LOW_RANK[x] = 0
        i = 0
        for p in range(12):
            if x >> p & 1:
                i += 1
                ORC_LOW_RANK[x] += <uint32_t>ORC_C[p][i]
        for j in range(13):
            ORC_HIGH_RANK[x][j] = 0
            i = j
            for p in range(12):
                if x >> p & 1:
                    i += 1
                    ORC_HIGH_RANK[x][j] += <uint32_t>ORC_C[12 + p][i]

_orc_init_tables()
for _k in range(25):
    ORC_SETS[_k] = NULL


cdef inline int64_t orc_rank(uint32_t s) noexcept nogil:
    """Colex rank of s among the sets of its size: its place in increasing numeric order."""
    cdef uint32_t low = s & 0xFFF
    return ORC_LOW_RANK[low] + ORC_HIGH_RANK[s >> 12][popcount(low)]


cdef void _orc_make_sets(int k):
    """Fill ORC_SETS[k] once: every k-set of the NPTS points, in increasing order."""
    cdef uint32_t s
    cdef int64_t fill = 0
    cdef uint32_t* sets
    if ORC_SETS[k] != NULL:
        return
    sets = <uint32_t*>malloc(ORC_C[NPTS][k] * sizeof(uint32_t))
    for s in range(1 << NPTS):
        if popcount(s) == k:
            sets[fill] = s
            fill += 1
    assert fill == ORC_C[NPTS][k]
    ORC_SETS[k] = sets


cdef inline int64_t orc_entries(int m, int o) noexcept nogil:
    return ORC_C[NPTS][m] * ORC_C[NPTS][o]


cdef inline int64_t orc_index(int m, int o, uint32_t own, uint32_t opp) noexcept nogil:
    return orc_rank(own) * ORC_C[NPTS][o] + orc_rank(opp)


cdef int _orc_check_mo(int m, int o) except -1:
    """Refuse stone counts outside the oracle's tables (ORC_C, ORC_SETS: 0..NPTS)."""
    if not (0 <= m and 0 <= o and m + o <= NPTS):
        raise ValueError(f"no subspace {m}-{o} on the {BOARD_NAME} board ({NPTS} points)")
    return 0


cdef int _orc_check_set(uint32_t s) except -1:
    """Refuse a set with a point beyond the board: ORC_HIGH_RANK has a row for each of
    the 2^12 high parts of a set of 24 points, no more."""
    if s & ~FULL:
        raise ValueError(f"not a set of points 0..{NPTS - 1}: {s:#08x}")
    return 0


def oracle_entries(int m, int o):
    """Raw entries of subspace m-o in the oracle (including unused overlapping ones)."""
    _orc_check_mo(m, o)
    return orc_entries(m, o)


def oracle_rank(uint32_t s):
    _orc_check_set(s)
    return orc_rank(s)


def oracle_sets(int k):
    """All k-sets of the NPTS points in rank order, as a numpy array (a copy)."""
    _orc_check_mo(k, 0)
    _orc_make_sets(k)
    out = np.empty(ORC_C[NPTS][k], dtype=np.uint32)
    cdef uint32_t[::1] o = out
    cdef int64_t i
    for i in range(ORC_C[NPTS][k]):
        o[i] = ORC_SETS[k][i]
    return out


def oracle_new(int m, int o):
    """A fresh oracle array of m-o: ORC_UNDECIDED for positions, ORC_NONE for overlaps."""
    _orc_check_mo(m, o)
    _orc_make_sets(m)
    _orc_make_sets(o)
    cdef int64_t i, n = orc_entries(m, o), per = ORC_C[NPTS][o]
    out = np.empty(n, dtype=np.uint16)
    cdef uint16_t[::1] val = out
    cdef uint32_t* owns = ORC_SETS[m]
    cdef uint32_t* opps = ORC_SETS[o]
    with nogil:
        for i in range(n):
            val[i] = ORC_NONE if (owns[i // per] & opps[i % per]) else ORC_UNDECIDED
    return out


def oracle_position(int m, int o, int64_t i):
    """(own, opp) masks of raw entry i of m-o."""
    _orc_check_mo(m, o)
    if not 0 <= i < orc_entries(m, o):
        raise IndexError(f"entry {i} out of range for {m}-{o} ({orc_entries(m, o)} entries)")
    _orc_make_sets(m)
    _orc_make_sets(o)
    cdef int64_t per = ORC_C[NPTS][o]
    return ORC_SETS[m][i // per], ORC_SETS[o][i % per]


def oracle_index(int m, int o, uint32_t own, uint32_t opp):
    _orc_check_mo(m, o)
    _orc_check_set(own)
    _orc_check_set(opp)
    if popcount(own) != m or popcount(opp) != o:
        raise ValueError(f"not sets of {m} and {o} points: own={own:#08x} opp={opp:#08x}")
    return orc_index(m, o, own, opp)


def oracle_sweep(int m, int o, uint16_t[::1] val, const uint16_t[::1] quiet,
                 const uint16_t[::1] cap, int k, int rules,
                 uint16_t[::1] cap_win, uint16_t[::1] loss_rows,
                 const uint16_t[::1] quiet_loss_rows, uint32_t[::1] blocker, int jobs=2,
                 int hm=0, int ho=0, place=None, place_cap=None):
    """Sweep k over subspace m-o: decide every undecided state whose value is fixed at k plies.

    ``quiet``: the oracle array of o-m (the same array as ``val`` when m == o);
    ``cap``: the solved oracle array of (o-1)-m (ignored when o == 3, and on a full
    board, which has no move).  ``rules``: the rule flags (solver.rules.Rules.flags;
    RULE_FULL_DRAW: a full board is drawn, not lost).
    With stones in hand (mixed placement) the subspace is m-o+hm-ho: ``quiet`` is
    o-m+ho-hm (a move keeps the hands), ``cap`` (o-1)-m+ho-hm, and ``place`` and
    ``place_cap`` the solved oracle arrays of o-(m+1)+ho-(hm-1) and (o-1)-(m+1)+ho-(hm-1)
    (placements, taking or not).  Every move but a quiet slide or jump leads into a
    solved array, whose value never changes: it counts as a capture does below.
    ``cap_win`` (one per raw entry of m-o), ``loss_rows`` (one per own set of m-o),
    ``quiet_loss_rows`` (the ``loss_rows`` of o-m) and ``blocker`` (one per raw entry)
    are the shortcuts of the header, filled by the sweeps themselves: start them at
    ORC_NONE (``blocker`` at ORC_SCAN).
    Returns how many states this sweep decided.
    """
    cdef int64_t i, n, per, per_child, opp_part, per_placed = 0
    cdef int64_t decided = 0
    cdef uint32_t own, opp, mv, own2, opp2
    cdef uint32_t* moves
    cdef uint32_t* owns
    cdef uint32_t* opps
    cdef int nm, j, target, origin, take, longest, best_cap
    cdef bint found
    cdef uint16_t c
    cdef uint32_t b
    cdef const uint16_t* capp = &cap[0] if cap.shape[0] > 0 else NULL
    cdef const uint16_t[::1] arr
    cdef const uint16_t* placep = NULL
    cdef const uint16_t* place_capp = NULL
    cdef bint cap_wins = o - 1 + ho < 3
    _orc_check_mo(m, o)
    check_jobs(jobs)
    if hm < 0 or ho < 0 or (hm > 0 and m + o >= NPTS):     # (no point to place on)
        raise ValueError(f"no subspace {m}-{o}+{hm}-{ho} on the {BOARD_NAME} board")
    n = orc_entries(m, o)
    per = ORC_C[NPTS][o]
    per_child = ORC_C[NPTS][m]
    if hm > 0:
        if place is None or (place_cap is None and not cap_wins and o >= 1):
            raise ValueError("a subspace with stones in hand needs its placement targets")
        per_placed = ORC_C[NPTS][m + 1]
        arr = place
        check_size("place", arr.shape[0], orc_entries(o, m + 1), f"entries of {o}-{m + 1}")
        placep = &arr[0]
        if not cap_wins and o >= 1:
            arr = place_cap
            check_size("place_cap", arr.shape[0], orc_entries(o - 1, m + 1),
                       f"entries of {o - 1}-{m + 1}")
            place_capp = &arr[0]
    check_size("val", val.shape[0], n, f"entries of {m}-{o}")
    check_size("quiet", quiet.shape[0], orc_entries(o, m), f"entries of {o}-{m}")
    check_size("cap_win", cap_win.shape[0], n, f"entries of {m}-{o}")
    check_size("blocker", blocker.shape[0], n, f"entries of {m}-{o}")
    check_size("loss_rows", loss_rows.shape[0], per_child, f"sets of {m} points")
    check_size("quiet_loss_rows", quiet_loss_rows.shape[0], per, f"sets of {o} points")
    if not cap_wins and o >= 1 and m >= 1 and m + o < NPTS:
        check_size("cap", cap.shape[0], orc_entries(o - 1, m), f"entries of {o - 1}-{m}")
    _orc_make_sets(m)
    _orc_make_sets(o)
    owns = ORC_SETS[m]
    opps = ORC_SETS[o]
    # (each thread starts from a copy of these: defined, not left uninitialised)
    moves = NULL
    with nogil, parallel(num_threads=jobs):
        moves = <uint32_t*>malloc(ORC_MAX_MOVES * sizeof(uint32_t))
        for i in prange(n, schedule="dynamic", chunksize=8192):
            if val[i] != ORC_UNDECIDED:
                continue
            own = owns[i // per]
            opp = opps[i % per]
            if LINE_WINS and won_by_line(own, opp):
                if k == 1:
                    val[i] = 2
                    decided += 1
                continue
            if (rules & RULE_FULL_DRAW) and (own | opp) == FULL:
                continue        # blocked on a full board: drawn, left to oracle_finish
            found = False
            if k % 2 == 1 and k > 1:
                # win in k: a capture child lost in k-1 (remembered from sweep 1), or a
                # quiet child lost in k-1, which sweep k-1 decided in row rank(opp) of o-m
                if cap_win[i] == k:
                    found = True
                elif quiet_loss_rows[orc_rank(opp)] != k - 1:
                    continue
            if k % 2 == 0:
                # loss in k: skip while the child that blocked the last loss test blocks
                b = blocker[i]
                if b == ORC_NEVER:
                    continue
                if b != ORC_SCAN:
                    c = quiet[b]
                    if c == ORC_UNDECIDED or c == 0 or (c - 1) % 2 == 0:
                        continue
            if not found:
                nm = c_moves_rules(own, opp, hm, ho, rules, moves)
                opp_part = orc_rank(opp) * per_child     # children have opp to move
                longest = -1
                best_cap = ORC_NONE
                for j in range(nm):
                    mv = moves[j]
                    target = move_target(mv)
                    origin = move_origin(mv)
                    take = move_take(mv)
                    # (a placement's origin, NO_POINT, is bit 31: no point's)
                    own2 = (own & ~((<uint32_t>1) << origin)) | ((<uint32_t>1) << target)
                    if take == NO_POINT and origin != NO_POINT:
                        b = <uint32_t>(opp_part + orc_rank(own2))
                        c = quiet[b]                 # the child: o-m
                    else:
                        b = ORC_NEVER
                        if k > 1 and k % 2 == 1:
                            continue             # captures were read in sweep 1
                        opp2 = opp & ~((<uint32_t>1) << take)
                        if take != NO_POINT and cap_wins:
                            c = 1                # the opponent keeps two stones: lost in 0
                        elif origin != NO_POINT:
                            c = capp[orc_rank(opp2) * per_child + orc_rank(own2)]
                        elif take == NO_POINT:
                            c = placep[orc_rank(opp) * per_placed + orc_rank(own2)]
                        else:
                            c = place_capp[orc_rank(opp2) * per_placed + orc_rank(own2)]
                        if k == 1 and c != 0 and (c - 1) % 2 == 0 and c < best_cap:
                            best_cap = c         # the sweep that wins by this capture
                    if k % 2 == 1:
                        # win in k: a child lost in k-1 (codes: 1 + plies)
                        if c == k:
                            found = True
                            if k > 1:
                                break
                    else:
                        # loss in k: every child won (odd plies), the longest in k-1;
                        # stop at the first child undecided, drawn or lost
                        if c == ORC_UNDECIDED or c == 0 or (c - 1) % 2 == 0:
                            found = True         # found a reason it is no loss (yet)
                            blocker[i] = b       # a capture child blocks for ever
                            break
                        if c - 1 > longest:
                            longest = c - 1
                if k == 1:
                    cap_win[i] = best_cap
                if k % 2 == 0 and not found:
                    blocker[i] = ORC_SCAN        # every child won: a loss, now or later
            if (k % 2 == 1 and found) or (k % 2 == 0 and not found and longest == k - 1):
                val[i] = <uint16_t>(k + 1)
                decided += 1
                if k % 2 == 0:
                    loss_rows[i // per] = <uint16_t>k
        free(moves)
    return decided


def oracle_finish(uint16_t[::1] val):
    """Whatever is still undecided is a draw."""
    cdef int64_t i
    with nogil:
        for i in range(val.shape[0]):
            if val[i] == ORC_UNDECIDED:
                val[i] = 0


# --- The census: every position reachable from the start, raw --------------------------
# A breadth-first walk from the empty board over c_moves_rules, each position once by its
# raw stones, hands and colour to move (no symmetry, no index: nothing of the solver's),
# the way other solvers publish their counts of reachable positions (tests/data/
# published.toml).  A finished game (fewer than three stones, board plus hand, or no move)
# is counted and not walked on.  The set is an open-addressing table of the packed keys.

cdef uint64_t ORC_EMPTY_KEY = 0xFFFFFFFFFFFFFFFF


cdef inline uint64_t orc_reach_key(uint32_t white, uint32_t black, int wh, int bh, int side) noexcept nogil:
    return (<uint64_t>white | (<uint64_t>black << 24) | (<uint64_t>wh << 48) | (<uint64_t>bh << 52)
            | (<uint64_t>side << 56))


cdef inline bint orc_reach_add(uint64_t* table, uint64_t mask, int shift, uint64_t key) noexcept nogil:
    """Put key in the table; whether it was new."""
    cdef uint64_t at = (key * <uint64_t>0x9E3779B97F4A7C15) >> shift
    while table[at] != ORC_EMPTY_KEY:
        if table[at] == key:
            return False
        at = (at + 1) & mask
    table[at] = key
    return True


def oracle_reach(int stones, int rules, int64_t most):
    """(positions, finished): the positions reachable from the start (``stones`` a side in
    hand, White to move) under the rule flags ``rules``, and how many of them are
    finished games; (-1, -1) if they are more than ``most``."""
    if most < 1 or not 0 <= stones <= 15:
        raise ValueError(f"oracle_reach: most must be at least 1 and stones 0..15, not {most}, {stones}")
    cdef int bits = 1
    while (<int64_t>1 << bits) < 2 * most:
        bits += 1
    cdef uint64_t size = <uint64_t>1 << bits, mask = size - 1
    cdef int shift = 64 - bits
    cdef uint64_t* table = <uint64_t*>malloc(size * sizeof(uint64_t))
    cdef uint64_t* queue = <uint64_t*>malloc(<size_t>most * sizeof(uint64_t))
    cdef uint32_t* moves = <uint32_t*>malloc(MAX_MOVES * sizeof(uint32_t))
    if table == NULL or queue == NULL or moves == NULL:
        free(table); free(queue); free(moves)
        raise MemoryError(f"the census of {most} positions needs {(size + most) * 8 >> 20} MiB")
    cdef int64_t head = 0, tail = 0, finished = 0
    cdef uint64_t key, child
    cdef uint32_t white, black, own, opp, own2, opp2, mv
    cdef int wh, bh, side, oh, ph, oh2, n, j, target, origin, take
    cdef bint over = False
    with nogil:
        for key in range(size):
            table[key] = ORC_EMPTY_KEY
        key = orc_reach_key(0, 0, stones, stones, 0)
        orc_reach_add(table, mask, shift, key)
        queue[tail] = key
        tail += 1
        while head < tail:
            key = queue[head]
            head += 1
            white = key & 0xFFFFFF
            black = (key >> 24) & 0xFFFFFF
            wh = (key >> 48) & 15
            bh = (key >> 52) & 15
            side = key >> 56
            if side == 0:
                own = white; opp = black; oh = wh; ph = bh
            else:
                own = black; opp = white; oh = bh; ph = wh
            # (no move in a finished game: fewer than three stones, a line that wins,
            # a blocked side, a full board; c_moves_rules is the one statement of it)
            n = c_moves_rules(own, opp, oh, ph, rules, moves)
            if n == 0:
                finished += 1
                continue
            for j in range(n):
                mv = moves[j]
                target = move_target(mv)
                origin = move_origin(mv)
                take = move_take(mv)
                # (a placement's origin, NO_POINT, is bit 31: no point's)
                own2 = (own & ~((<uint32_t>1) << origin)) | ((<uint32_t>1) << target)
                opp2 = opp
                if take != NO_POINT and take != MILL_NO_TAKE:
                    opp2 = opp & ~((<uint32_t>1) << take)
                oh2 = oh
                if origin == NO_POINT:
                    oh2 = oh - 1
                if side == 0:
                    child = orc_reach_key(own2, opp2, oh2, ph, 1)
                else:
                    child = orc_reach_key(opp2, own2, ph, oh2, 0)
                if orc_reach_add(table, mask, shift, child):
                    if tail == most:
                        over = True
                        break
                    queue[tail] = child
                    tail += 1
            if over:
                break
    free(table); free(queue); free(moves)
    if over:
        return -1, -1
    return tail, finished
