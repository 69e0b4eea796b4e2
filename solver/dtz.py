"""Values under the quiet-ply rule of played games: tables of plies to the next mill.

A played game is drawn after ``limit`` plies of the moving phase in a row that close no
mill (:data:`solver.game.QUIET_PLY_LIMIT`, 50; the board's verdict comes first: a move
that blocks the opponent on the last allowed ply wins, and so does a mill on it).  The
databases' plain values ignore that rule.  These tables hold, for every moving-phase
position with the count of quiet plies at zero, its value in the game with the rule
and its **DTZ**: the plies to the next mill (or to the end of the game) when the
winner hurries to a mill that keeps the win and the loser delays it, as chess's DTZ50
tables count them (docs/design.md §3, "The quiet-ply rule").

A position whose count of quiet plies is c is won under the rule iff it is a win of
DTZ ≤ limit − c, lost iff a loss of DTZ ≤ limit − c, drawn otherwise.  So, at c = 0:

- a **win**: DTZ ≤ limit;
- a **cursed win**: won without the rule, drawn with it (DTZ > limit);
- a **draw**;
- a **blessed loss**: lost without the rule, drawn with it (DTZ > limit);
- a **loss**: DTZ ≤ limit.

A mill leads into a smaller pair whose position has a fresh count, so each pair is
solved (by the moving phase's kernels, :func:`solver.retro.solve_pair`) with every
mill an end whose value is its target's value under the rule: a mill into a loss of
the opponent's (under the rule) ends 1 ply away, and so does a losing side's mill into
a win the rule keeps, which it makes only where it must; one into a blessed loss of the
opponent's (a cursed win for the taker) or a cursed win (a blessed loss for it) counts
the least plies above ``limit`` of the taker's parity (limit + 1 or + 2), so that the
wins that need one are cursed (chess's tables count a capture into a cursed win past
100 so too).  What the values are for positions of DTZ above ``limit`` is thus the DTZ
of that game.

**Roundings.** The kernels' codes tell a win from a loss by the parity of the plies
(docs/design.md §3), but a mill made by the losing side is an end at an odd ply of
its own: no one solve's codes hold every DTZ.  The solve counts each end the least
plies of its side's parity not below its own (the loser's forced mill: 2, not 1), and
min and max commute with that rounding, so its values are the exact DTZ rounded up to
the side's parity.  They are the DTZ but on the lines that end in a losing side's forced
mill, whose first positions (:func:`seeds`) and the positions above them
(:func:`shifted`) are found by following those lines by un-moves: a few hundred to a
few thousand a pair of the standard game.  Where they are more than
:data:`MAX_SHIFTED`, the pair is solved a second time with every end two plies further
where it had its parity already (a blocked side loses in 2, a winning mill wins in 3:
:func:`solver.retro.shift_ends`), whose values are the DTZ rounded strictly up, and the
two give it: DTZ = second − 1 where they agree, second − 2 where not (:func:`combine`).
The build's forward check (:func:`check_pair`) runs on the first rounding, and on the
second where some DTZ is not of its first rounding's parity (with the check's ``end``;
only at the slots where it is not the first's plus two: :func:`second_rounding_slots`),
so the tables are checked as exactly as the plain ones.

**Codes.** One uint16 per slot: 0 a draw, 2·DTZ a win (DTZ ≥ 1), 2·DTZ + 1 a loss
(DTZ ≥ 0: 1 is a side to move that is blocked), 0xFFFF a slack slot.  Wins have even
codes and losses odd ones, as in the plain tables, so the same statistics count them.

>>> encode("win", 3), encode("loss", 0), decode(7), decode(0)
(6, 1, ('loss', 3), ('draw', None))
>>> [int(c) for c in exit_codes(np.array([1, 2, 103, 104, 0], dtype=np.uint16), 50, second=False)]
[1, 2, 51, 52, 0]
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from . import build as building
from . import placement, storage
from .build import Report
from .errors import (BUILD_IT, REBUILD_IT, ConsistencyError, CorruptDatabaseError, DatabaseError,
                     ForeignDatabaseError, MissingSubspaceError, Remedy, UnsupportedRulesError, with_remedy)
from .game import QUIET_PLY_LIMIT, check_quiet_limit
from .board import points_of
from .index import Pair, Subspace
from .kernels import loaded_kernels
from .position import NO_POINT
from .retro import (MAX_BAD, check_by_opponent_sets, first_bad, kernel_flags, outside, solve_pair, solve_unit,
                    unit_of)
from .rules import Rules
from .values import DRAW_CODE, SLACK_CODE

log = logging.getLogger("muehle.build")

#: Slots one numpy step of the conversions below handles (temporaries of some 20 bytes a
#: slot: 4 Mi slots, some 80 MiB, where a whole large pair's would be gigabytes).
BLOCK = 1 << 22
#: The conversions of the kernels' ``dtz_codes`` (ext/values.pxi).
ROUND_FIRST, ROUND_SECOND, EXIT_FIRST, EXIT_SECOND, FROM_PLIES, ENTRY, FROM_SECOND = range(7)
#: The plies the second solve adds to the game's own ends (a blocked side, a take that
#: leaves two stones): the next ones of the same parity (ext/check.pxi ``ended``).
SECOND_END = 2


def encode(wdl: str, dtz: int | None) -> int:
    """The code of a win or loss with ``dtz`` plies to the next mill, or of a draw."""
    if wdl == "draw":
        return DRAW_CODE
    if wdl == "win" and dtz >= 1:
        return 2 * dtz
    if wdl == "loss" and dtz >= 0:
        return 2 * dtz + 1
    raise ValueError(f"no code holds a {wdl} with DTZ {dtz!r}")


def decode(code: int) -> tuple[str, int | None]:
    """(win/draw/loss, DTZ) of a code (ValueError for the slack code)."""
    code = int(code)
    if code == SLACK_CODE or not 0 <= code < SLACK_CODE:
        raise ValueError(f"no value has code {code}")
    if code == DRAW_CODE:
        return "draw", None
    return ("loss", code // 2) if code & 1 else ("win", code // 2)


def _blocks(n: int):
    for start in range(0, n, BLOCK):
        yield slice(start, min(n, start + BLOCK))


def _convert(codes: np.ndarray, mode: int, limit: int = 0, out: np.ndarray | None = None,
             jobs: int = 2) -> np.ndarray:
    """``codes`` converted by the kernels' ``dtz_codes`` (one pass; ``out`` may be
    ``codes`` itself)."""
    codes = np.ascontiguousarray(codes, dtype=np.uint16)
    out = np.empty_like(codes) if out is None else out
    loaded_kernels().dtz_codes(codes, out, mode, limit, jobs)
    return out


def rounded(codes: np.ndarray, second: bool, jobs: int = 2) -> np.ndarray:
    """The codes (plain tables' codes: 1 + plies) that the first solve (``second``
    False) or the second gives positions of these DTZ codes: a win's DTZ rounded up to
    odd (second: strictly), a loss's up to even (second: strictly); draws and slack
    slots as they are.  What the forward check of the tables checks.

    >>> [int(c) for c in rounded(np.array([2, 4, 1, 3, 0], dtype=np.uint16), False)]
    [2, 4, 1, 3, 0]
    >>> [int(c) for c in rounded(np.array([2, 4, 1, 3, 0], dtype=np.uint16), True)]
    [4, 4, 3, 3, 0]
    """
    return _convert(codes, ROUND_SECOND if second else ROUND_FIRST, jobs=jobs)


def exit_codes(codes: np.ndarray, limit: int, second: bool, jobs: int = 2, in_place: bool = False) -> np.ndarray:
    """The codes a solve reads for the positions of a capture target (the opponent to
    move there, a fresh count of quiet plies) from the target's DTZ codes ``codes``: a
    mill into a loss of the opponent's under the rule ends 1 ply away for the taker,
    into a win of the opponent's too (the taker's loss); a mill into a blessed loss or a
    cursed win of the opponent's counts the least plies above ``limit`` of the taker's
    parity (odd for the taker's win, even for its loss: limit + 1 or + 2), so that it is
    never one of the ends the first solve rounds; rounded as the solve rounds
    (:func:`rounded`).  The taker's value X at a target of code X: a loss of the
    opponent's in X - 1 plies.  ``in_place``: made in ``codes`` itself (an array the
    caller owns: a read of a file), which then needs no second array."""
    return _convert(codes, EXIT_SECOND if second else EXIT_FIRST, limit, jobs=jobs,
                    out=codes if in_place else None)


def combine(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The DTZ codes from the two solves' codes of the same subspace: DTZ = second's
    plies − 1 where the two agree, − 2 where the first is two below.  ValueError where
    they are not two roundings of one value (a win, draw or loss of one that the other
    has not, or plies apart otherwise)."""
    out = np.empty_like(second)
    for s in _blocks(len(second)):
        a, d = first[s].astype(np.int32), second[s].astype(np.int32)
        plain = (d == DRAW_CODE) | (d == SLACK_CODE)
        if not (np.array_equal(a[plain], d[plain]) and np.all(((d - a)[~plain] == 0) | ((d - a)[~plain] == 2))
                and np.all(a[~plain] >= 1) and np.all((a[~plain] & 1) == (d[~plain] & 1))):
            raise ValueError("the two solves of the quiet-ply rule disagree beyond their roundings")
        dtz = (d - 1) - np.where(a == d, 1, 2)
        win = (d & 1) == 0
        out[s] = np.where(plain, d, np.where(win, 2 * dtz, 2 * dtz + 1))
    return out


def unserved(rules: Rules) -> str | None:
    """Why these tables are not made for ``rules`` (None where they are): mills that take
    nothing for ever (:func:`endless_mills`).  Under take-none a mill that takes
    nothing resets the count inside its own pair: the pair is solved again until its
    values are a fixed point (:func:`solve_rule_pair`).  Under mixed placement (Lasker)
    the count starts, as everywhere, when the last stone is placed: a move made while
    stones are in hand counts nothing, and the placement phase's cycles are solved in
    rounds from the moving phase's values under the rule (:class:`RuleCycleWork`).

    Where a line of three wins (Three Men's Morris), the game's end is the only mill,
    so the DTZ is the plies to the end and the tables are the plain ones in these
    tables' codes (the rule draws the wins longer than its limit); the same solve makes
    them, as the tests prove against the brute force with the count in the state.

    >>> unserved(Rules.from_name("three-mens")) is None
    True
    >>> unserved(Rules.from_name("lasker")) is None
    True
    """
    endless = endless_mills(rules)
    if endless is not None:
        return (f"no tables of the quiet-ply rule for rules {rules.name}: mills that take nothing can follow "
                f"each other for ever on its board ({endless}), so no table could tell the wins that end "
                f"from those that go round")
    return None


def plan(rules: Rules, max_total: int | None = None,
         pair: tuple[int, int] | None = None) -> tuple[list[Pair], list[Subspace]]:
    """(pairs, placement subspaces) of these tables for ``max_total`` and ``pair`` as
    :func:`solver.build.build` takes them, in build order (no placement phase with
    ``pair``): what :func:`build` builds and :func:`check_files` checks."""
    return building.plan(rules, max_total, pair), [] if pair is not None else placement.plan(rules, max_total)


def mill_unions(board, most: int) -> frozenset[int]:
    """The sets of at most ``most`` points of ``board`` that are unions of its mills: the
    stones of a side all of which stand in closed mills, so that under take-none a mill
    closed against them takes nothing.

    >>> sorted({s.bit_count() for s in mill_unions(Rules().board, 9)})
    [3, 5, 6, 7, 8, 9]
    """
    key = (board.name, most)
    if key not in _MILL_UNIONS:
        unions = {0}
        for mill in board.mills:
            unions |= {u | mill for u in unions if (u | mill).bit_count() <= most}
        unions.discard(0)
        _MILL_UNIONS[key] = frozenset(unions)
    return _MILL_UNIONS[key]


_MILL_UNIONS: dict[tuple[str, int], frozenset[int]] = {}


def mills_end(pair: Pair, rules: Rules) -> bool:
    """Whether a mill of ``pair`` may take nothing (take-none, every stone of the other
    side in a mill): such a mill resets the count, an end of the pair that leads into
    the pair itself, so the pair is solved until its values are a fixed point
    (:func:`solve_rule_pair`), with the kernels' flag ``RuleFlag.MILL_ENDS``."""
    if not rules.take_none or rules.line_wins:
        return False
    sizes = {s.bit_count() for s in mill_unions(rules.board, rules.stones)}
    return pair.subspaces[0].m in sizes or pair.subspaces[0].o in sizes


def endless_mills(rules: Rules) -> str | None:
    """Where a game of ``rules`` can go round through mills that take nothing only, an
    example round (its first position and moves), else None.  In a round without takes,
    the move before a mill that takes nothing leaves every stone of its mover in a mill,
    so it closed a mill itself, which took nothing: every move of the round is such a
    mill, and both sides keep all their stones in mills throughout.  So a round is a
    cycle of the graph whose states are two disjoint unions of mills (the side to move's
    stones, the other's: :func:`mill_unions`) and whose moves keep the mover's stones a
    union of mills (:func:`_round_steps`), searched whole here (a fraction of a second).
    Where it has none, every line of play makes finitely many such mills between takes,
    the solve's least fixed point is the only one (so the forward check proves it), and
    following the DTZ wins; where it has one, both fail, so those rules are refused
    (:func:`unserved`).  On the Seven Men's boards a side can keep its seven stones in
    mills across a move, but two such sides do not fit on the board together.

    >>> endless_mills(Rules.from_name("take-none")) is None
    True
    >>> endless_mills(Rules.from_name("seven-mens-take-none")) is None
    True
    >>> endless_mills(Rules.from_name("morabaraba-take-none"))
    'W:a1,b2,c3,d2,d3,e3,f2 B:a7,b6,d5,d6,d7,f6,g7 w, then a1-d1 d5-c5 d1-a1 c5-d5'
    """
    if not rules.take_none or rules.line_wins:
        return None
    return _endless_mills(rules)


@functools.lru_cache(maxsize=None)
def _endless_mills(rules: Rules) -> str | None:
    """:func:`endless_mills`, searched once a rule set (Morabaraba's board: 2 s)."""
    steps = _round_steps(rules)
    states = sorted((a, b) for a in steps for b in steps if not a & b)
    into: dict[tuple[int, int], list] = {s: [] for s in states}
    for a, b in states:
        for origin, target, after in steps[a]:
            if not b >> target & 1:
                into[b, after].append(((a, b), origin, target))
    # Take away the states nothing leads into, again and again; what is left (each
    # state with a way in from another left) holds a cycle, found by walking back.
    ways = {s: len(w) for s, w in into.items()}
    out: dict[tuple[int, int], list] = {s: [] for s in states}
    for s, w in into.items():
        for before, _, _ in w:
            out[before].append(s)
    free = [s for s in states if not ways[s]]
    while free:
        for nxt in out[free.pop()]:
            ways[nxt] -= 1
            if not ways[nxt]:
                free.append(nxt)
    left = [s for s in states if ways[s]]
    if not left:
        return None
    walk, seen = [left[0]], {left[0]: 0}
    while True:
        before, origin, target = next(w for w in into[walk[-1]] if ways[w[0]])
        if before in seen:
            break
        seen[before] = len(walk)
        walk.append(before)
    cycle = walk[seen[before]:][::-1]           # (forwards, ending at ``before``)
    moves = []
    for here, there in zip(cycle, cycle[1:] + cycle[:1]):
        origin, target = next((o, t) for w, o, t in into[there] if w == here)
        moves.append(f"{rules.board.points[origin]}-{rules.board.points[target]}")
    names = lambda stones: ",".join(sorted(rules.board.points[p] for p in points_of(stones)))  # noqa: E731
    own, opp = cycle[0]
    return f"W:{names(own)} B:{names(opp)} w, then {' '.join(moves)}"


def _round_steps(rules: Rules) -> dict[int, list[tuple[int, int, int]]]:
    """Each union of mills of at least three points that a round can hold (its side's
    stones) with its moves that keep it a union of mills: (origin, target, stones
    after), a slide, or a jump of three stones where they jump; pruned until every move
    leads to a union that moves on too (a round moves each side again)."""
    board = rules.board
    unions = {u for u in mill_unions(board, rules.stones) if u.bit_count() >= 3}
    full = (1 << board.num_points) - 1
    steps = {}
    for stones in unions:
        jump = rules.jumping and stones.bit_count() == 3
        found = [(a, b, stones & ~(1 << a) | 1 << b) for a in points_of(stones)
                 for b in points_of((full if jump else board.adjacent[a]) & ~stones)]
        steps[stones] = [m for m in found if m[2] in unions]
    while True:
        kept = {s: [m for m in ms if steps.get(m[2])] for s, ms in steps.items()}
        kept = {s: ms for s, ms in kept.items() if ms}
        if kept.keys() == steps.keys():
            return kept
        steps = kept


def check_rules(rules: Rules) -> None:
    """UnsupportedRulesError where these tables are not made for ``rules`` (:func:`unserved`)."""
    why = unserved(rules)
    if why:
        raise UnsupportedRulesError(why)


def seeds(sub: Subspace, first: np.ndarray, rules: Rules, ends: bool = False) -> np.ndarray:
    """The slots of ``sub`` whose first solve's code is ``first`` that are losses whose
    every move is a mill into a win the rule keeps (the first solve's loss in 2, and no
    quiet move): the only ends that the first solve counts a ply too long, and so the
    first positions of every line whose DTZ is not its first rounding.  ``ends``: a mill
    that takes nothing is an end, not a quiet move (:func:`mills_end`)."""
    kernels = sub.kernels
    found = []
    for part in _blocks(len(first)):
        slots = np.flatnonzero(first[part] == 3) + part.start      # (code 3: a loss in 2)
        if len(slots):
            own = np.empty(len(slots), dtype=np.uint32)
            opp = np.empty(len(slots), dtype=np.uint32)
            kernels.position_batch(sub.m, sub.o, slots.astype(np.int64), own, opp)
            steps = kernels.quiet_step_counts(own, opp, 0, 0, kernel_flags(rules, ends))
            found.append(slots[steps == 0])
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


#: Positions :func:`shifted` follows at most before a pair is solved the second time
#: instead (the standard game's pairs have a few hundred).
MAX_SHIFTED = 200_000


def shifted(pair: Pair, rules: Rules, first: dict[Subspace, np.ndarray],
            lookup: Callable[[int, int], np.ndarray], limit: int,
            code_at: Callable[[int, int, int], int] | None = None,
            mills: dict[Subspace, np.ndarray] | None = None) -> dict[Subspace, set[int]] | None:
    """The slots whose DTZ is one ply less than the first solve's plies ``first`` (codes
    by subspace): the :func:`seeds`, and level by level above them (a position's plies
    are one more than its best successors'), every winner one of whose best successors
    is shifted and every loser all of whose best moves are (a loser's mill into a win
    the rule keeps is a shifted end, any other mill not).  Walked from the seeds by the
    kernels' un-moves (``unmoves_packed``, which the tests hold to the reference rules'),
    so it costs what the few shifted lines hold, where a second solve costs a whole
    solve; None where more than :data:`MAX_SHIFTED` are found (the caller solves a
    second time).  ``code_at(m, o, slot)``: a capture target's code (else read from
    ``lookup``'s whole subspace, once).  ``mills``: the pair's own DTZ codes that a mill
    that takes nothing reads, where it is an end (:func:`mills_end`)."""
    flags = kernel_flags(rules, mills is not None)
    targets: dict[tuple[int, int], np.ndarray] = {}

    def whole(m: int, o: int, slot: int) -> int:
        if (m, o) not in targets:
            targets[m, o] = lookup(m, o)
        return int(targets[m, o][slot])

    codes_of = code_at or whole
    if mills is not None:
        outer = codes_of
        own_codes = {(s.m, s.o): v for s, v in mills.items()}

        def codes_of(m: int, o: int, slot: int) -> int:
            return int(own_codes[m, o][slot]) if (m, o) in own_codes else outer(m, o, slot)

    found = {s: set(int(x) for x in seeds(s, first[s], rules, mills is not None)) for s in pair.subspaces}
    level = [(s, slot) for s in pair.subspaces for slot in sorted(found[s])]
    a = 2                                   # the seeds' plies: a loss in 2
    total = len(level)
    while level:
        above: dict[tuple[Subspace, int], tuple[int, int]] = {}
        for sub, slot in level:
            mirror = sub.mirror
            for at, before, own in _quiet_predecessors(sub, slot, flags):
                if at not in found[mirror] and int(first[mirror][at]) - 1 == a + 1:
                    above[mirror, at] = (before, own)
        level = []
        for (sub, slot), (own, opp) in sorted(above.items()):
            if (a + 1) % 2 == 0 and not _all_best_shifted(own, opp, sub, a + 1, found, first, codes_of, limit,
                                                          flags):
                continue                    # (a loser: every best move must be shifted)
            found[sub].add(slot)
            level.append((sub, slot))
        total += len(level)
        if total > MAX_SHIFTED:
            return None
        a += 1
    return found


#: (ext/movegen.pxi) the un-moves that slide or jump a stone, not those that place one
UNSLIDE = 2


def _quiet_predecessors(sub: Subspace, slot: int, flags: int) -> Iterator[tuple[int, int, int]]:
    """(slot in ``sub.mirror``, its mover's stones, the other's) of every position with a
    quiet move into ``slot`` of ``sub``: the kernels' un-moves (``unmoves_packed``, which
    the tests hold to the reference rules) of the last mover, who slid or jumped a stone."""
    kernels, mirror = sub.kernels, sub.mirror
    own, opp = sub.position(int(slot))
    for mv in kernels.unmoves_packed(own, opp, 0, 0, flags, UNSLIDE):
        target, origin = mv & 31, (mv >> 5) & 31
        before = opp & ~(1 << target) | 1 << origin
        yield int(kernels.index_position(mirror.m, mirror.o, before, own)), before, own
#: (ext/movegen.pxi) the take of a mill that takes nothing, under ``RuleFlag.MILL_ENDS``
MILL_NO_TAKE = 30


def _all_best_shifted(own: int, opp: int, sub: Subspace, value: int, found, first, lookup, limit: int,
                      flags: int) -> bool:
    """Whether every move of the losing side's position (own, opp) of ``sub`` (first
    solve's plies ``value``) that attains ``value`` is shifted: a quiet one into a
    shifted winner, or a mill into a win the rule keeps (one that takes nothing too,
    where ``flags`` make it an end: its take is MILL_NO_TAKE, no stone of opp's)."""
    kernels = sub.kernels
    best = []
    for mv in kernels.moves_packed(own, opp, 0, 0, flags):
        target, origin, take = mv & 31, (mv >> 5) & 31, (mv >> 10) & 31
        mover = own & ~(1 << origin) | 1 << target
        if take != NO_POINT:
            left = opp & ~(1 << take) if take != MILL_NO_TAKE else opp
            if mv >> 15:                    # (a second stone taken: two mills at once)
                left &= ~(1 << ((mv >> 15) - 1))
            m, o = left.bit_count(), mover.bit_count()
            code = lookup(m, o, int(kernels.index_position(m, o, left, mover)))
            rounded_plies = int(exit_codes(np.array([code], dtype=np.uint16), limit, False)[0])
            shift = code != DRAW_CODE and code & 1 == 0 and code >> 1 <= limit
            best.append((rounded_plies, shift))
        else:
            mirror = sub.mirror
            at = int(kernels.index_position(mirror.m, mirror.o, opp, mover))
            best.append((int(first[mirror][at]), at in found[mirror]))
    most = max(v for v, _ in best)
    assert most == value, f"({own:#x}, {opp:#x}) of {sub}: the first solve's plies {value}, its moves' {most}"
    return all(shift for v, shift in best if v == value)


@dataclass
class RuleSolve:
    """The DTZ codes of a pair's subspaces, how many solves they took (1 or 2 a round, as
    :func:`solve_rule_pair` says) and in how many rounds (more than 1 only where a mill
    may take nothing: :func:`mills_end`)."""

    values: dict[Subspace, np.ndarray]
    solves: int
    rounds: int = 1


#: Solves of one pair at most where a mill may take nothing (:func:`solve_rule_pair`):
#: each adds the positions won or lost by one more such mill in a row.
MAX_MILL_SOLVES = 64


def solve_rule_pair(pair: tuple[int, int], rules: Rules, lookup: Callable[[int, int], np.ndarray],
                    limit: int, jobs: int = 2, progress: Callable[[str], None] | None = None,
                    code_at: Callable[[int, int, int], int] | None = None, fresh: bool = False
                    ) -> RuleSolve:
    """The DTZ codes of both subspaces of ``pair`` under a rule of ``limit`` quiet plies;
    ``lookup(m, o)`` supplies the DTZ codes of the (solved) subspaces its mills lead into.
    The first solve, and the few positions whose DTZ is one less than its plies found by
    :func:`shifted`; where they are too many, the second solve (see the module's
    docstring), the first one's values waiting meanwhile as one bit a slot (which of the
    two roundings they are), and the DTZ codes made in the second's arrays.  ``fresh``:
    ``lookup`` gives arrays of the caller's own (reads of files), which are converted
    in place; ``code_at`` as for :func:`shifted`.

    Where a mill may take nothing (take-none: :func:`mills_end`), it resets the count
    and leads into the pair itself: an end whose value is a position of the pair at
    count 0.  The pair is then solved with those ends read from its values of the
    solve before (all draws at first) until they no longer change: each solve can only
    decide more positions and shorten wins (a game value's least fixed point, reached
    from below: a position is won only where the win ends the game after finitely many
    such mills). A solve reads the one before only by each position's class (win, cursed
    win, draw, blessed loss, loss), so once those stop changing the next solve would
    give the same values: they are a fixed point (the build's check proves it), the only
    one where the rules are served (:func:`endless_mills`)."""
    check_rules(rules)
    whole = Pair(*pair, board=rules.board)
    if not mills_end(whole, rules):
        return _solve_rule_pair(pair, rules, lookup, limit, jobs, progress, code_at, fresh, None)
    before = {s: np.zeros(s.slots, dtype=np.uint16) for s in whole.subspaces}     # all draws
    solves = 0
    for rounds in range(1, MAX_MILL_SOLVES + 1):
        got = _solve_rule_pair(pair, rules, lookup, limit, jobs, progress, code_at, fresh, before)
        solves += got.solves
        if all(_same_classes(got.values[s], before[s], limit, jobs) for s in before):
            # a solve reads the one before only by its classes (exit_codes: win, cursed
            # win, draw, blessed loss, loss), so the next would give these values again
            return RuleSolve(got.values, solves, rounds)
        before = got.values
    raise ConsistencyError(f"pair {whole.name} under the quiet-ply rule: its mills that take nothing reach "
                           f"no fixed point in {MAX_MILL_SOLVES} solves", [])


def _same_classes(new: np.ndarray, old: np.ndarray, limit: int, jobs: int) -> bool:
    """Whether DTZ codes ``new`` and ``old`` put every real slot of ``new`` in the same
    class under the rule (what :func:`exit_codes` reads of them), a block at a time."""
    for part in _blocks(len(new)):
        a = exit_codes(new[part], limit, False, jobs)
        b = exit_codes(old[part], limit, False, jobs)
        real = new[part] != SLACK_CODE
        if not np.array_equal(a[real], b[real]):
            return False
    return True


def _solve_rule_pair(pair: tuple[int, int], rules: Rules, lookup: Callable[[int, int], np.ndarray],
                     limit: int, jobs: int, progress: Callable[[str], None] | None,
                     code_at: Callable[[int, int, int], int] | None, fresh: bool,
                     mills: dict[Subspace, np.ndarray] | None) -> RuleSolve:
    """One solve of :func:`solve_rule_pair`; ``mills``: the pair's DTZ codes that its mills
    that take nothing read (None: they are quiet moves, as where none takes nothing)."""
    def ends(second: bool):
        return None if mills is None else lambda sub: exit_codes(mills[sub], limit, second, jobs)

    first = solve_pair(pair, rules, lambda m, o: exit_codes(lookup(m, o), limit, False, jobs, fresh), jobs,
                       progress, mills=ends(False))
    late = shifted(Pair(*pair, board=rules.board), rules, first.values, lookup, limit, code_at, mills)
    if late is not None:
        for s, v in first.values.items():
            _convert(v, FROM_PLIES, out=v, jobs=jobs)
            at = np.array(sorted(late[s]), dtype=np.int64)
            # a DTZ one less than the plies: a win's code 2 * (plies - 1), a loss's + 1
            v[at] -= 2
        return RuleSolve(first.values, 1)
    # first = second or second - 2: bit 1 of the plies tells which
    bits = {s: np.concatenate([np.packbits(((v[part] - 1) >> 1) & 1) for part in _blocks(len(v))])
            for s, v in first.values.items()}      # (a block at a time: no full-size temporary)
    del first
    second = solve_pair(pair, rules, lambda m, o: exit_codes(lookup(m, o), limit, True, jobs, fresh), jobs,
                        progress, end=SECOND_END, mills=ends(True))
    for s, d in second.values.items():
        bit = bits.pop(s)
        for part in _blocks(len(d)):
            # (BLOCK is a multiple of 8: the block's bits are whole bytes)
            b = np.unpackbits(bit[part.start // 8:(part.stop + 7) // 8], count=part.stop - part.start)
            codes = d[part]
            a = np.where((((codes.astype(np.int32) - 1) >> 1) & 1) == b, codes, codes - 2).astype(np.uint16)
            plain = (codes == DRAW_CODE) | (codes == SLACK_CODE)
            a[plain] = codes[plain]
            d[part] = combine(a, codes)
    return RuleSolve(second.values, 2)


def check_pair(pair: Pair, rules: Rules, values: dict[Subspace, np.ndarray],
               lookup: Callable[[int, int], np.ndarray], limit: int, jobs: int = 2,
               fresh: bool = False) -> list[str]:
    """The build's forward check of a pair's DTZ codes (``values`` by subspace): their
    first rounding (:func:`rounded`) must be a fixed point of the plain tables' value
    rule with the ends of the first solve (the kernels' check, docs/design.md §6), and
    so must the second, with its ends, where some DTZ is not of its rounding's parity;
    where none is, the pair must have no :func:`seeds` (else some should be).  Returns
    what fails, one line a subspace (empty: all passed).

    The roundings are made in ``values`` itself and undone after (the few DTZ that are
    not their first rounding are kept aside), so that the check holds no second copy of
    the pair; ``fresh`` as for :func:`solve_rule_pair`.

    Where a mill may take nothing (:func:`mills_end`), its end reads the pair's own
    codes, rounded as the solve's were (made before the roundings in place, a copy a
    rounding), and the check walks the slots in order (``retro_check``: the grouped
    walk plays no such end)."""
    failed = []
    # the DTZ that are not of their first rounding's parity: their slots and codes
    aside = {s: _shifted_slots(v) for s, v in values.items()}
    kept = {s: values[s][slots].copy() for s, slots in aside.items()}
    shifted_any = any(len(slots) for slots in aside.values())
    ends = mills_end(pair, rules)
    near = None                 # (the slots the second rounding's check visits; None: all)
    mill_codes = {second: {s: exit_codes(v, limit, second, jobs) for s, v in values.items()}
                  for second in ((False, True) if shifted_any else (False,))} if ends else {}
    # each subspace's codes: DTZ codes, or which rounding (the way back: FROM_PLIES or
    # FROM_SECOND, then the codes kept aside)
    back: dict[Subspace, int | None] = dict.fromkeys(values)
    try:
        for s, v in values.items():
            _convert(v, ROUND_FIRST, out=v, jobs=jobs)
            back[s] = FROM_PLIES
        if shifted_any and not ends and not rules.line_wins:
            near = second_rounding_slots(pair, rules, values, aside)
        for second in (False, True) if shifted_any else (False,):
            if second:
                for s, v in values.items():
                    _to_dtz(v, back, s, aside[s], kept[s], jobs)
                    _convert(v, ROUND_SECOND, out=v, jobs=jobs)
                    back[s] = FROM_SECOND
            for sub in pair.subspaces:
                target = outside(sub, rules)[0]
                cap = (np.zeros(0, dtype=np.uint16) if target is None
                       else exit_codes(lookup(target.m, target.o), limit, second, jobs, fresh))
                if ends:
                    bad = _slot_order_check(sub, values, cap, kernel_flags(rules, True), jobs,
                                            SECOND_END if second else 0, mill_codes[second][sub.mirror])
                    passed = not bad
                elif second and near is not None:
                    bad, count = sub.kernels.retro_check(sub.m, sub.o, values[sub], values[sub.mirror], cap,
                                                         kernel_flags(rules), max_bad=MAX_BAD, jobs=jobs,
                                                         end=SECOND_END, slots=near[sub])
                    bad, passed = [int(x) for x in bad], count == 0
                else:
                    bad, passed = check_by_opponent_sets(sub, values[sub], values[sub.mirror], cap, rules, jobs,
                                                         end=SECOND_END if second else 0)
                del cap
                if not passed:
                    failed.append(f"subspace {sub} under the quiet-ply rule: {len(bad)} slot(s) disagree with "
                                  f"their successors ({'second' if second else 'first'} rounding), "
                                  f"first at slot {min(bad) if bad else '?'}")
                if not second and not shifted_any and passed:
                    found = len(seeds(sub, values[sub], rules, ends))
                    if found:
                        failed.append(f"subspace {sub} under the quiet-ply rule: {found} loss(es) in 1 by a "
                                      f"forced mill that no DTZ counts")
    finally:
        for s, v in values.items():
            _to_dtz(v, back, s, aside[s], kept[s], jobs)
    return failed


def _to_dtz(codes: np.ndarray, back: dict, sub: Subspace, aside: np.ndarray, kept: np.ndarray, jobs: int) -> None:
    """A subspace's codes of a rounding (``back[sub]``: the way back, None: DTZ codes
    already) made DTZ codes again in place: all but those ``aside`` (not of the first
    rounding's parity) by the way back, and those from ``kept``."""
    if back[sub] is not None:
        _convert(codes, back[sub], out=codes, jobs=jobs)
        codes[aside] = kept
        back[sub] = None


def second_rounding_slots(pair: Pair, rules: Rules, first: dict[Subspace, np.ndarray],
                          aside: dict[Subspace, np.ndarray]) -> dict[Subspace, np.ndarray] | None:
    """The slots of ``pair`` (by subspace) where a check of the second rounding can fail
    though the check of the first (``first``: the pair's codes in it) passes: the DTZ
    kept ``aside`` (those not of their first rounding's parity, where the two roundings
    agree), every position with a quiet move into one of them, and the :func:`seeds` of
    ``first``.  None where more than :data:`MAX_SHIFTED` are kept aside (the caller
    checks every slot).

    Everywhere else the second rounding is the first plus two (a draw stays a draw), and
    so are the codes its successors give it: those of its quiet successors (none kept
    aside), a take's (:func:`exit_codes`: the next ones of the same parity) and the
    game's own ends (``SECOND_END``), but a loser's mill into a win the rule keeps (2 in
    both).  A winner's best is a loss of the opponent's, which none of these is, so it
    moves two plies with them; a loser's is its longest move, a quiet one (two or more
    plies in the first rounding, four or more in the second) where it has one besides
    such mills, and where it has none it is a seed.  So ``best_code`` gives such a slot
    the first's code plus two, which it holds: its check in the second rounding is its
    check in the first, and the build's forward check visits those slots once.  Not
    where a mill may take nothing (:func:`mills_end`: a mill reads the pair's own codes)
    nor where a line wins (its end is no code of a rounding); the caller checks every
    slot there."""
    if sum(len(a) for a in aside.values()) > MAX_SHIFTED:
        return None
    flags = kernel_flags(rules)
    near: dict[Subspace, set[int]] = {s: set() for s in pair.subspaces}
    for sub in pair.subspaces:
        near[sub].update(int(x) for x in aside[sub])
        near[sub].update(int(x) for x in seeds(sub, first[sub], rules))
        for slot in aside[sub]:
            near[sub.mirror].update(at for at, _, _ in _quiet_predecessors(sub, slot, flags))
    return {s: np.array(sorted(slots), dtype=np.int64) for s, slots in near.items()}


def _slot_order_check(sub: Subspace, values: dict[Subspace, np.ndarray], cap: np.ndarray, flags: int,
                      jobs: int, end: int, mills: np.ndarray) -> list[int]:
    """The first slots of ``sub`` that disagree with their successors (``retro_check``, in
    slot order), a mill that takes nothing reading ``mills``."""
    return first_bad(sub.slots, lambda start, stop: sub.kernels.retro_check(
        sub.m, sub.o, values[sub], values[sub.mirror], cap, flags, start, stop, MAX_BAD, jobs,
        end=end, mills=mills)[0])


def _shifted_slots(codes: np.ndarray) -> np.ndarray:
    """The slots whose DTZ code is of the other parity than its rounding's: a win of
    even DTZ, or a loss of odd (a win's code is even, a loss's odd; bit 1 is the DTZ's
    parity)."""
    found = []
    for part in _blocks(len(codes)):
        c = codes[part]
        hit = np.flatnonzero((c != DRAW_CODE) & (c != SLACK_CODE) & ((c & 1) == ((c >> 1) & 1)))
        if len(hit):
            found.append(hit + part.start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


# --- the build: one file a pair or placement subspace, beside the plain tables -------

@dataclass(frozen=True)
class RuleReport(Report):
    """What happened to the file of one pair or placement subspace under the quiet-ply
    rule: built or skipped."""

    key: Pair | Subspace
    limit: int
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool
    check_seconds: float = 0.0
    solves: int = 0

    def summary(self) -> str:
        """The line the build logs for this file."""
        if isinstance(self.key, Pair):
            return self._line(f"pair {self.key.name} under the {self.limit}-ply rule",
                              f"; {self.solves} solve{'s' if self.solves > 1 else ''}, "
                              f"check {self.check_seconds:.1f} s")
        return self._line(f"placement {self.key.name} under the {self.limit}-ply rule", "")


def rule_memory(pair: Pair, rules: Rules | None = None) -> int:
    """Bytes a pair's tables of the rule hold at their peak: its solve's (the plain
    tables' rounds, :func:`solver.build.memory_needed`: the capture targets read are
    converted in place), with the bit a slot a second solve keeps between the two; the
    check's is less (the DTZ codes, rounded in place, and one target read at a time).
    Where a mill of ``rules`` may take nothing (:func:`mills_end`), 4 bytes a slot more:
    the solve keeps the codes of the solve before and reads one subspace's ends, and the
    check those ends of the pair in each rounding."""
    own = sum(s.slots for s in pair.subspaces)
    again = 4 * own if rules is not None and mills_end(pair, rules) else 0
    return building.memory_needed(pair) + own // 8 + again


def reader(root: Path, rules: Rules, limit: int) -> Callable[[int, int], np.ndarray]:
    """``lookup(m, o)``: a moving subspace's DTZ codes read from its pair's file (a file
    missing, damaged or foreign: an error whose remedy builds it, :func:`_mended`)."""
    def lookup(m: int, o: int) -> np.ndarray:
        sub = Subspace(m, o, board=rules.board)
        try:
            return storage.read_subspace(storage.rule_path(root, rules, sub, limit), rules, m, o,
                                         quiet_limit=limit)
        except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
            raise _mended(exc, root, rules, limit, sub) from None
    return lookup


def _mended(error: DatabaseError, root: Path, rules: Rules, limit: int, sub: Subspace) -> DatabaseError:
    """``error``, met reading ``sub``'s file of the rule, with the build that makes that
    file (again, :func:`rule_remedy`) where it has no remedy yet."""
    if getattr(error, "remedy", None) is None:
        with_remedy(error, rule_remedy(root, rules, limit, sub,
                                       BUILD_IT if isinstance(error, MissingSubspaceError) else REBUILD_IT))
    return error


def rule_remedy(root: Path | str, rules: Rules, limit: int, key: Pair | Subspace, advice: str = BUILD_IT) -> Remedy:
    """The build that makes ``key``'s file of the rule: a pair's (or a moving subspace's
    pair's) alone (``--pair``, which builds what it reads too), a placement subspace's
    with the rule's phase."""
    pair = tuple(key) if isinstance(key, Pair) else tuple(key.pair) if key.is_moving else None
    return Remedy(root, rules, advice, phase="rule", quiet_limit=limit, pair=pair)


def code_reader(root: Path, rules: Rules, limit: int) -> Callable[[int, int, int], int]:
    """``code_at(m, o, slot)``: one DTZ code of a moving subspace, read and verified a
    chunk at a time from its pair's file (a few chunks kept), for :func:`shifted`, which
    reads a few thousand codes where a whole capture target would hold gigabytes."""
    chunks: dict[tuple[int, int, int], np.ndarray] = {}

    def code_at(m: int, o: int, slot: int) -> int:
        k = slot // storage.CHUNK
        if (m, o, k) not in chunks:
            if len(chunks) >= 64:
                chunks.pop(next(iter(chunks)))
            sub = Subspace(m, o, board=rules.board)
            path = storage.rule_path(root, rules, sub, limit)
            try:
                with storage.open_file(path, rules, sub, sub, quiet_limit=limit) as f:
                    reader = storage.SubspaceReader(f, path, sub)
                    chunks[m, o, k] = reader.read(k * storage.CHUNK, min(sub.slots, (k + 1) * storage.CHUNK))
            except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
                raise _mended(exc, root, rules, limit, sub) from None
        return int(chunks[m, o, k][slot % storage.CHUNK])
    return code_at


def entry_codes(codes: np.ndarray, limit: int, jobs: int = 2) -> np.ndarray:
    """What the placement phase's pass under the rule reads for the moving positions it
    enters (the count starts there, at 0): their value under the rule as plain codes, a
    win as a win in 1 (2), a loss as a loss in 0 (1), a cursed win and a blessed loss a
    draw.  Only the value: the moving phase's DTZ says the way on from there, and the
    placement files' plies then count the plies to the moving phase, nearly one number
    a subspace, which their chunks' coding shrinks to almost nothing (docs/format.md).

    >>> [int(c) for c in entry_codes(np.array([2, 1, 3, 8, 102, 103, 0], dtype=np.uint16), 50)]
    [2, 1, 1, 2, 0, 0, 0]
    """
    return _convert(codes, ENTRY, limit, jobs=jobs)


# --- the placement phase's files of the rule: stored against the plain ones ----------
#
# A placement position's value under the rule is its plain value but where the rule
# draws it (a cursed win, a blessed loss: 0.2-0.4 % of the standard game's placement
# slots), and its plies, counting to the moving phase, are one number a subspace's hands
# give (:func:`predicted_codes`).  So a file of the rule stores each slot's code as its
# difference from what the plain placement file predicts: 0 where the prediction holds,
# code + 1 where not (a draw the rule makes: 1), the slack code on slack slots.  Its
# chunks are then nearly all zeros: the standard game's 497 files shrink to some 6 % of
# the codes themselves (docs/benchmarks.md).  The files say so by the attribute
# ``against`` (the plain file's name); their statistics are the restored values'.

def predicted_codes(sub: Subspace) -> tuple[int, int]:
    """The codes under the rule of a win and of a loss the plain placement file of
    ``sub`` predicts: the plies to the moving phase (the stones left to place, n) rounded
    up to the side's parity, since the moving phase is entered as a win in 1 or a loss
    in 0 (:func:`entry_codes`).

    >>> predicted_codes(Subspace(8, 8, 1, 0)), predicted_codes(Subspace(7, 7, 2, 2))
    ((2, 3), (6, 5))
    """
    n = sub.own_hand + sub.opp_hand
    return 1 + (n | 1), 1 + ((n + 1) & ~1)


def _against(codes: np.ndarray, plain_path: Path, rules: Rules, sub: Subspace, store: bool,
             jobs: int = 2) -> np.ndarray:
    """``codes`` (the whole subspace) made, in place, the differences from the plain
    file's prediction (``store``) or the codes again from them (the kernels'
    ``against_plain``), a block of the plain file at a time (:func:`plain_blocks`); an
    error where the two have different slack slots (the index's: alike in any file of
    the subspace)."""
    win, loss = predicted_codes(sub)
    for start, plain in plain_blocks(plain_path, rules, sub):
        part = codes[start:start + len(plain)]
        if sub.kernels.against_plain(part, plain, win, loss, store, jobs):
            if store:
                raise ConsistencyError(f"placement {sub.name} under the rule: its values and "
                                       f"{plain_path.name} have different slack slots", [])
            raise CorruptDatabaseError(f"the file of the rule of {sub.name} and {plain_path.name} have "
                                       f"different slack slots: one of them is damaged")
    return codes


def store_placement(root: Path, rules: Rules, limit: int, sub: Subspace, values: np.ndarray, jobs: int = 2,
                    **extra) -> dict:
    """Write the values of placement subspace ``sub`` under the rule into its file,
    against its plain placement file (which must be built): ``values`` are made the
    differences in place.  Returns the statistics written (of the values)."""
    plain_path = storage.placement_path(root, rules, sub)
    hist = sub.kernels.code_histogram(np.ascontiguousarray(values, dtype=np.uint16))
    if hist[SLACK_CODE - 1]:          # (its difference would be the slack code)
        raise ConsistencyError(f"placement {sub.name} under the rule: a code no value has", [])
    _against(values, plain_path, rules, sub, store=True, jobs=jobs)
    return storage.write_file(storage.rule_path(root, rules, sub, limit), rules, {sub: values},
                              quiet_limit=limit, histograms={sub: hist},
                              extra={**extra, "against": plain_path.name})


def require_plain_placement(root: Path, rules: Rules, limit: int, subs: list[Subspace]) -> None:
    """MissingSubspaceError, in one line with the command that builds them, where the
    plain placement files of ``subs`` are not there: their files of the rule are stored
    against them."""
    missing = []
    for sub in subs:
        path = storage.placement_path(root, rules, sub)
        if not path.exists():
            missing.append(sub)
            continue
        try:                            # (a header the reads would refuse: said before the work)
            with storage.open_file(path, rules, sub, sub) as f:
                storage.SubspaceReader(f, path, sub)
        except (CorruptDatabaseError, ForeignDatabaseError) as exc:
            raise with_remedy(exc, Remedy(root, rules, REBUILD_IT, needed=(sub,))) from None
    if missing:
        raise MissingSubspaceError(
            missing[0], storage.placement_path(root, rules, missing[0]),
            f"the placement phase's tables of the {limit}-ply rule are stored against its plain tables, "
            f"and {len(missing)} of their {len(subs)} subspace(s) are not built in "
            f"{storage.rules_dir(root, rules)}, first {missing[0].name}",
            Remedy(root, rules, " (build them with: {})", needed=tuple(missing)))


def require_rule_files(root: Path, rules: Rules, limit: int, who: str, needed) -> None:
    """MissingSubspaceError, in one line with the build that makes them, where the files
    of the rule that ``who`` reads (``needed``: subspaces, moving or placement) are not
    there: said before its work starts, not in the middle of its solve.  Only whether
    they are there (not :func:`solver.build.require_stored`'s whole read of each, which
    would decode a large pair's capture targets twice): a damaged one is refused, in one
    line with the build that makes it again, where the solve reads it (:func:`reader`)."""
    missing = [s for s in dict.fromkeys(needed) if not storage.rule_path(root, rules, s, limit).exists()]
    if missing:
        first = missing[0]
        raise MissingSubspaceError(
            first, storage.rule_path(root, rules, first, limit),
            f"{who} reads {', '.join(s.name for s in missing)} under the {limit}-ply rule, not built in "
            f"{storage.rules_dir(root, rules)}", rule_remedy(root, rules, limit, first))


def read_placement(root: Path, rules: Rules, limit: int, sub: Subspace, verify: bool = False,
                   jobs: int = 2) -> np.ndarray:
    """The codes of placement subspace ``sub`` under the rule (plain codes: the value
    under the rule, plies to the moving phase), restored from its file and its plain
    placement file (under mixed placement the file holds the codes themselves:
    :func:`store_cycle`); ``verify`` also checks the SHA-256 of the file's codes and the
    statistics it records (of the values restored).  MissingSubspaceError where either
    file is missing; each error's remedy builds the file at fault again."""
    path = storage.rule_path(root, rules, sub, limit)
    against = storage.placement_path(root, rules, sub)
    try:
        with storage.open_file(path, rules, sub, sub, quiet_limit=limit) as f:
            stored = storage.SubspaceReader(f, path, sub)
            codes = stored.all(sha256=verify)
            expected = None if rules.mixed else against.name
            if stored.against != expected:
                raise ForeignDatabaseError(f"{path} is stored against {stored.against!r}, not "
                                           f"{'nothing' if expected is None else expected}")
            try:
                if not rules.mixed:
                    _against(codes, against, rules, sub, store=False, jobs=jobs)
            except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
                # (the plain file's fault, or either's where their slack slots differ)
                advice = BUILD_IT if isinstance(exc, MissingSubspaceError) else REBUILD_IT
                raise with_remedy(exc, Remedy(root, rules, advice, needed=(sub,))) from None
            if verify:
                stored.check_stats(stored.histogram(codes), restored=True)
    except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
        raise _mended(exc, root, rules, limit, sub) from None
    return codes


def placement_scores(stored: np.ndarray, plain: np.ndarray, mixed: bool = False) -> np.ndarray:
    """The values under the rule (RuleWDL scores: 2 a win, 1 a cursed win, 0 a draw,
    -1 a blessed loss, -2 a loss) of placement positions from their stored codes in
    the files of the rule (differences, as :func:`store_placement` writes them; under
    ``mixed`` placement the codes themselves, :func:`store_cycle`) and their plain
    codes: a plain value the rule keeps, or the rule's own code.

    >>> [int(v) for v in placement_scores(np.array([0, 0, 1, 1, 3, 0]), np.array([2, 5, 2, 5, 2, 0]))]
    [2, -2, 1, -1, 2, 0]
    >>> [int(v) for v in placement_scores(np.array([4, 3, 0, 0, 0]), np.array([2, 5, 2, 5, 0]), mixed=True)]
    [2, -2, 1, -1, 0]
    """
    stored, plain = np.asarray(stored, dtype=np.int64), np.asarray(plain, dtype=np.int64)
    sign = np.where(plain == DRAW_CODE, 0, np.where(plain % 2 == 0, 1, -1))
    code = stored if mixed else stored - 1
    own = np.where(code == DRAW_CODE, sign, np.where(code % 2 == 0, 2, -2))
    return own if mixed else np.where(stored == 0, 2 * sign, own)


def store_cycle(root: Path, rules: Rules, limit: int, sub: Subspace, values: np.ndarray, **extra) -> dict:
    """Write the values of placement subspace ``sub`` of mixed placement under the rule:
    the codes themselves (plies to the moving phase, or to the end where a take ends
    the game while placing), since moves while stones are in hand make those plies
    vary where separate placement's are one number a subspace (:func:`predicted_codes`)."""
    return storage.write_file(storage.rule_path(root, rules, sub, limit), rules, {sub: values},
                              quiet_limit=limit, extra=extra)


def placement_reader(root: Path, rules: Rules, limit: int, jobs: int = 2) -> Callable[[Subspace], np.ndarray]:
    """``lookup(sub)`` for the placement phase's pass under the rule: a moving subspace's
    :func:`entry_codes`, a placement subspace's codes from its file of the rule
    (:func:`read_placement`)."""
    moving = reader(root, rules, limit)

    def lookup(sub: Subspace) -> np.ndarray:
        if sub.is_moving:
            codes = moving(sub.m, sub.o)            # (a read of ours: converted where it lies)
            return _convert(codes, ENTRY, limit, out=codes, jobs=jobs)
        return read_placement(root, rules, limit, sub, jobs=jobs)
    return lookup


def plan_units(rules: Rules, max_total: int | None = None,
               pair: tuple[int, int] | None = None) -> list[building.Unit]:
    """The units of these tables (:func:`plan`'s pairs and placement subspaces) as a
    graph, every unit after the units it reads, with the memory each needs here: the
    plain build's graph (:func:`solver.build.plan_units`), what a cluster runs."""
    check_rules(rules)
    units = building.plan_units(rules, max_total, pair, "moving" if pair is not None else "all")
    return [replace(u, memory=rule_memory(u.key, rules) if isinstance(u.key, Pair)
                    else placement_memory(u.key, rules)) for u in units]


class RulePairWork(building.Work):
    """A pair's tables of the rule, for the build's runner (:func:`solver.build.run`):
    solved in rounds from the tables of the rule of its capture targets (``lookup``,
    :func:`reader`), checked forwards (``verify``), one file."""

    def __init__(self, root: Path, rules: Rules, limit: int, pair: Pair, lookup: Callable | None = None):
        super().__init__(root, rules)
        self.limit, self.pair, self.lookup = limit, pair, lookup
        self.label = f"pair {pair.name} under the {limit}-ply rule"
        self.outputs = [(storage.rule_path(root, rules, pair, limit), self.label)]
        self.memory = rule_memory(pair, rules)

    def problems(self) -> list[str | None]:
        return [building.why_not_built(self.root, self.rules, self.pair, quiet_limit=self.limit)]

    def skipped(self) -> list[RuleReport]:
        return [RuleReport(self.pair, self.limit, self.pair.slots, 0.0, building.peak_rss_mib(), skipped=True)]

    def require_inputs(self) -> None:
        targets = [outside(s, self.rules)[0] for s in self.pair.subspaces]
        require_rule_files(self.root, self.rules, self.limit, self.label, [t for t in targets if t is not None])

    def solve(self, cache, jobs, progress, advance):
        from tqdm import tqdm

        self.lookup = self.lookup or reader(self.root, self.rules, self.limit)
        bar = tqdm(desc=f"pair {self.pair.name} ({self.limit}-ply rule)", unit="round",
                   disable=not progress, leave=False, dynamic_ncols=True)
        solved = solve_rule_pair(tuple(self.pair), self.rules, self.lookup, self.limit, jobs,
                                 progress=lambda msg: (bar.set_postfix_str(msg), bar.update()),
                                 code_at=code_reader(self.root, self.rules, self.limit), fresh=True)
        bar.close()
        return solved

    def check(self, solved, cache, jobs, verify):
        if not verify:
            return False
        failed = check_pair(self.pair, self.rules, solved.values, self.lookup, self.limit, jobs, fresh=True)
        if failed:
            raise ConsistencyError(f"pair {self.pair.name} fails the consistency check: {failed[0]}", [])
        return True

    def write(self, solved, seconds, checked):
        storage.write_file(self.outputs[0][0], self.rules, solved.values, quiet_limit=self.limit, release=True,
                           extra={"seconds": seconds, "checked": checked, "solves": solved.solves})
        solved.values.clear()
        building.release_free_memory()

    def reports(self, solved, seconds, cpu, check_seconds):
        return [RuleReport(self.pair, self.limit, self.pair.slots, seconds, building.peak_rss_mib(),
                           skipped=False, check_seconds=check_seconds, solves=solved.solves)]


class RulePassWork(building.Work):
    """A placement subspace's file of the rule, for the build's runner: one pass from its
    children under the rule (``read``: :func:`placement_reader`), stored against its
    plain placement file (:func:`store_placement`), which must be built.  No check of
    its own, as the plain placement phase's: the pass computes each value from its
    children as the check would (:func:`check_files` checks them)."""

    def __init__(self, root: Path, rules: Rules, limit: int, sub: Subspace, read: Callable | None = None):
        super().__init__(root, rules)
        self.limit, self.sub, self.read = limit, sub, read
        self.label = f"placement {sub.name} under the {limit}-ply rule"
        self.outputs = [(storage.rule_path(root, rules, sub, limit), self.label)]
        self.memory = placement.memory_needed(sub)
        self.jobs = 2

    def problems(self) -> list[str | None]:
        return [building.why_not_built(self.root, self.rules, self.sub, quiet_limit=self.limit)]

    def skipped(self) -> list[RuleReport]:
        return [RuleReport(self.sub, self.limit, self.sub.slots, 0.0, building.peak_rss_mib(), skipped=True)]

    def require_inputs(self) -> None:
        require_plain_placement(self.root, self.rules, self.limit, [self.sub])
        require_rule_files(self.root, self.rules, self.limit, self.label, placement.reads(self.sub, self.rules))

    def solve(self, cache, jobs, progress, advance):
        self.jobs = jobs
        read = self.read or placement_reader(self.root, self.rules, self.limit, jobs)
        return placement.solve(self.sub, self.rules, read, jobs)

    def write(self, values, seconds, checked):
        store_placement(self.root, self.rules, self.limit, self.sub, values, self.jobs, seconds=seconds,
                        phase="placement")

    def reports(self, values, seconds, cpu, check_seconds):
        return [RuleReport(self.sub, self.limit, self.sub.slots, seconds, building.peak_rss_mib(), skipped=False)]


class RuleCycleWork(building.Work):
    """A cycle m-o+h-k / o-m+k-h of mixed placement under the rule, for the build's
    runner: no count runs while stones are in hand, so it is solved in rounds as its
    plain files are (:func:`solver.retro.solve_unit`), from the values under the rule of
    what its placements and takes lead to (``read``: :func:`placement_reader`, the
    moving phase entered at a fresh count), checked forwards, a file a subspace holding
    its codes (:func:`store_cycle`): plies to the moving phase, by which the winner
    makes progress where moves could go round."""

    def __init__(self, root: Path, rules: Rules, limit: int, sub: Subspace, read: Callable | None = None):
        super().__init__(root, rules)
        self.limit, self.read = limit, read
        self.subs = unit_of(sub)
        self.label = f"placement {self.subs[0].name} under the {limit}-ply rule"
        self.outputs = [(storage.rule_path(root, rules, s, limit), f"placement {s.name} under the {limit}-ply rule")
                        for s in self.subs]
        self.memory = placement_memory(sub, rules)

    def problems(self) -> list[str | None]:
        return [building.why_not_built(self.root, self.rules, s, quiet_limit=self.limit) for s in self.subs]

    def skipped(self) -> list[RuleReport]:
        return [RuleReport(s, self.limit, s.slots, 0.0, building.peak_rss_mib(), skipped=True) for s in self.subs]

    def require_inputs(self) -> None:
        reads = [t for s in self.subs for t in placement.reads(s, self.rules) if t not in self.subs]
        require_rule_files(self.root, self.rules, self.limit, self.label, reads)

    def _lookup(self, jobs: int) -> Callable[[Subspace], np.ndarray]:
        self.read = self.read or placement_reader(self.root, self.rules, self.limit, jobs)
        return self.read

    def solve(self, cache, jobs, progress, advance):
        read = self._lookup(jobs)
        return solve_unit(self.subs, self.rules, lambda *shape: read(Subspace(*shape, board=self.rules.board)),
                          jobs)

    def check(self, solved, cache, jobs, verify):
        if not verify:
            return False
        building.check_cycle(self.subs, self.rules, solved.values, self._lookup(jobs), jobs,
                             f" under the {self.limit}-ply rule")
        return True

    def write(self, solved, seconds, checked):
        for s in self.subs:
            store_cycle(self.root, self.rules, self.limit, s, solved.values[s], seconds=seconds,
                        phase="placement", rounds=solved.rounds, checked=checked)

    def reports(self, solved, seconds, cpu, check_seconds):
        slots = sum(s.slots for s in self.subs)
        return [RuleReport(s, self.limit, s.slots, seconds * s.slots / slots, building.peak_rss_mib(),
                           skipped=False, check_seconds=check_seconds * s.slots / slots) for s in self.subs]


def rule_cycle_memory(subs: list[Subspace], rules: Rules) -> int:
    """Bytes a cycle of mixed placement holds under the rule: as its plain build
    (:func:`solver.build.planner.cycle_memory`), the subspaces it reads held throughout."""
    reads = {t for s in subs for t in placement.reads(s, rules)} - set(subs)
    return building.cycle_memory([s.slots for s in subs], [t.slots for t in reads])


def placement_memory(sub: Subspace, rules: Rules) -> int:
    """Bytes the file of the rule of placement subspace ``sub`` needs built: its pass's
    (:func:`solver.placement.memory_needed`), or under mixed placement its cycle's
    (:func:`rule_cycle_memory`)."""
    return rule_cycle_memory(unit_of(sub), rules) if rules.mixed else placement.memory_needed(sub)


def build_unit(root: Path | str, rules: Rules, limit: int, key: Pair | Subspace, *, jobs: int = 2,
               verify: bool = True, progress: bool = False, memory: int | None = None,
               lookup: Callable | None = None, read: Callable | None = None) -> list[RuleReport]:
    """Build (or find built) the files of ``key`` of these tables by the build's runner
    (:func:`solver.build.run`): a pair solved in rounds and (``verify``) checked before
    it is written (:class:`RulePairWork`), a placement subspace by one pass from its
    children under the rule (:class:`RulePassWork`), or under mixed placement the cycle
    that holds it, in rounds (:class:`RuleCycleWork`).  ``lookup`` and ``read``: the
    readers of the files it reads (:func:`reader`, :func:`placement_reader`), made here
    where not given (a build shares them between its files, a cluster's task has its
    own).  Its reports, a file each, logged."""
    root = Path(root)
    work = (RulePairWork(root, rules, limit, key, lookup) if isinstance(key, Pair)
            else RuleCycleWork(root, rules, limit, key, read) if rules.mixed
            else RulePassWork(root, rules, limit, key, read))
    return building.run(work, jobs=jobs, verify=verify, progress=progress, memory=memory)


def check_places(root: Path | str, rules: Rules, limit: int, max_total: int | None = None,
                 pair: tuple[int, int] | None = None) -> None:
    """DatabaseError, before any work, where a folder stands in the place of a file of
    these tables that the build (``max_total``, ``pair`` as :func:`build` takes them)
    writes (:func:`solver.build.check_places` of theirs): the write would find it only
    after the solve."""
    pairs, subs = plan(rules, max_total, pair)
    building.refuse_folders([storage.rule_path(root, rules, k, limit) for k in [*pairs, *subs]])


def build(root: Path | str, rules: Rules, limit: int = QUIET_PLY_LIMIT, *, max_total: int | None = None,
          pair: tuple[int, int] | None = None, jobs: int = 2, verify: bool = True,
          progress: bool = True, memory: int | None = None) -> list[RuleReport]:
    """Build (or resume) the tables of the rule of ``limit`` quiet plies for the planned
    pairs (``max_total``, ``pair`` as :func:`solver.build.build` takes them), smallest
    first, one file a pair (:func:`solver.storage.rule_path`), each checked by the
    forward check of its roundings before it is written (``verify``); then (unless
    ``pair``) the placement subspaces, children first, each by one pass from its
    children under the rule (:func:`solver.placement.solve`: where the count starts, at
    the moving positions, :func:`entry_codes`).  Returns one report a file.  Each reads
    the tables of the rule of what its moves lead into
    (:func:`build_unit`; :func:`solver.cluster.build` runs the same units on a cluster),
    but for the plain placement files the placement phase's are stored against
    (:func:`store_placement`), which must be built."""
    check_rules(rules)
    limit = check_quiet_limit(limit)
    root = Path(root)
    pairs, subs = plan(rules, max_total, pair)
    units = [[s] for s in subs] if not rules.mixed else placement.units(rules, max_total) if subs else []
    with building.locked_folder(root, rules):
        if not rules.mixed:
            require_plain_placement(root, rules, limit, subs)
        check_places(root, rules, limit, max_total, pair)
        need = [(f"pair {p.name}", rule_memory(p, rules)) for p in pairs]
        need += [(f"placement {u[0].name}", placement_memory(u[0], rules)) for u in units]
        for (what, bytes_), key in zip(need, [*pairs, *(u[0] for u in units)]):
            if memory is not None and bytes_ > memory and not storage.rule_path(root, rules, key, limit).exists():
                raise building.over_limit(f"{what} under the {limit}-ply rule", bytes_, memory, "nothing was built")
        lookup = reader(root, rules, limit)
        reports = []
        for p in pairs:
            reports += build_unit(root, rules, limit, p, jobs=jobs, verify=verify, progress=progress,
                                  memory=memory, lookup=lookup)
        held: dict[Subspace, np.ndarray] = {}       # children read, kept while a sibling reads them
        read = placement_reader(root, rules, limit, jobs)

        def cached(sub: Subspace) -> np.ndarray:
            if sub not in held:
                held[sub] = read(sub)
            return held[sub]

        for unit in units:
            reads = {c for s in unit for c in placement.reads(s, rules)}
            for key in [k for k in held if k not in reads]:
                del held[key]
            reports += build_unit(root, rules, limit, unit[0], jobs=jobs, verify=verify, memory=memory,
                                  read=cached)
    return reports


def plain_blocks(path: Path, rules: Rules, sub: Subspace) -> Iterator[tuple[int, np.ndarray]]:
    """(start, codes): ``sub``'s plain codes in its file, :data:`BLOCK` slots at a time,
    each chunk verified: a comparison with the tables of the rule holds one block of
    them beside the subspace, where the whole subspace and its temporaries took the
    check of the standard game to 7.1 GB."""
    with storage.open_file(path, rules, sub, sub) as f:
        reader = storage.SubspaceReader(f, path, sub)
        for start in range(0, sub.slots, BLOCK):
            yield start, reader.read(start, min(sub.slots, start + BLOCK))


def check_files(root: Path | str, rules: Rules, limit: int = QUIET_PLY_LIMIT, *,
                max_total: int | None = None, pair: tuple[int, int] | Subspace | None = None, jobs: int = 2,
                plain: bool = True) -> tuple[list[Pair | Subspace], list[str | DatabaseError]]:
    """``muehle check`` of the tables of the rule: every built file read and verified;
    a pair's values checked by the forward check of its roundings (:func:`check_pair`)
    against the tables of the pairs its mills lead into, a placement subspace's by the
    placement phase's forward check (:func:`solver.placement.check`) against its
    children under the rule; and (``plain``) their win, draw or loss compared with the
    plain tables (a pair's where they are built; a placement subspace's file is stored
    against them; the rule only draws: a pair's values are the plain ones, cursed wins
    and blessed losses included; a placement position won or lost under the rule is won
    or lost without it).  Returns the files checked (pairs, placement subspaces) and what
    failed, one line or error (with its remedy) each.  ``pair``: that pair alone (as
    the plain check's ``--pair``; the pairs its mills lead into are read, not checked),
    or that placement subspace alone (its children read, not checked)."""
    check_rules(rules)
    limit = check_quiet_limit(limit)
    root = Path(root)
    lookup = reader(root, rules, limit)
    checked, failed = [], []
    if isinstance(pair, Subspace) and not pair.is_moving:
        pairs, subs = [], [s for s in plan(rules, max_total)[1] if s == pair]
    else:
        pairs, subs = plan(rules, max_total, pair)
        if pair is not None:
            pairs = [p for p in pairs if tuple(p) == tuple(pair)]
    for p in pairs:
        path = storage.rule_path(root, rules, p, limit)
        if not path.exists():
            continue
        checked.append(p)
        try:
            try:
                values = {s: storage.read_subspace(path, rules, s.m, s.o, verify=True, quiet_limit=limit)
                          for s in p.subspaces}
            except (CorruptDatabaseError, ForeignDatabaseError) as exc:
                # (said as a read of it by another pair's check says it: once, deduplicated)
                raise _mended(exc, root, rules, limit, p.subspaces[0]) from None
            failed += check_pair(p, rules, values, lookup, limit, jobs, fresh=True)
            plain_path = storage.pair_path(root, rules, p)
            if plain and plain_path.exists():
                for s, v in values.items():
                    for start, codes in plain_blocks(plain_path, rules, s):
                        part = v[start:start + len(codes)]
                        if not (np.array_equal(part == DRAW_CODE, codes == DRAW_CODE)
                                and np.array_equal(part & 1, codes & 1)):
                            failed.append(f"subspace {s} under the quiet-ply rule: its win, draw or loss "
                                          f"is not the plain tables' ({plain_path.name})")
                            break
        except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
            failed.append(exc)
    read = placement_reader(root, rules, limit, jobs)
    for sub in subs:
        path = storage.rule_path(root, rules, sub, limit)
        if not path.exists():
            continue
        checked.append(sub)
        try:
            values = read_placement(root, rules, limit, sub, verify=True, jobs=jobs)
            bad = placement.check(sub, rules, values, read, jobs)
            if bad:
                failed.append(f"placement subspace {sub.name} under the quiet-ply rule: {len(bad)}+ slot(s) "
                              f"disagree with their children, first at slot {bad[0]}")
            plain_path = storage.placement_path(root, rules, sub)
            if plain and plain_path.exists():
                for start, codes in plain_blocks(plain_path, rules, sub):
                    part = values[start:start + len(codes)]
                    decided = (part != DRAW_CODE) & (part != SLACK_CODE)
                    if not np.array_equal(part[decided] & 1, codes[decided] & 1) or np.any(codes[decided] == DRAW_CODE):
                        failed.append(f"placement subspace {sub.name} under the quiet-ply rule: a win or loss "
                                      f"under the rule that is not one without it ({plain_path.name})")
                        break
        except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as exc:
            failed.append(exc)
    return checked, failed
