"""Facts typed by hand from the rule book, not derived from the project's tables.

solver/position.py (the reference) and ext/movegen.pxi (the kernel) read the same board
tables, so a wrong table would pass every test that compares the two.  Here the board
is typed point by point, each special rule has a hand-made position whose moves are
listed by hand, and the orbit counts are computed by Burnside's lemma from symmetries
typed as point maps: a mistake shared by the reference and the kernel fails here.
"""

from __future__ import annotations

import functools

import pytest

from solver import _kernels, board
from solver.index import Subspace, count_orbits
from solver.position import parse_position
from solver.position import LOSS
from solver.probe import open_database
from solver.rules import Rules

from test_movegen import unpack

STANDARD, NO_JUMPING, TAKE_NONE = Rules(), Rules(jumping=False), Rules(mill_rule="take-none")
FOUR = Rules(stones=4)

POINTS = """a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1""".split()

# The 32 lines between neighbouring points: three squares of 8, and 8 spokes.
EDGES = """a7-d7 d7-g7 g7-g4 g4-g1 g1-d1 d1-a1 a1-a4 a4-a7
           b6-d6 d6-f6 f6-f4 f4-f2 f2-d2 d2-b2 b2-b4 b4-b6
           c5-d5 d5-e5 e5-e4 e4-e3 e3-d3 d3-c3 c3-c4 c4-c5
           d7-d6 d6-d5 a4-b4 b4-c4 e4-f4 f4-g4 d3-d2 d2-d1""".split()

# The 16 mills: 8 along the rows, 8 along the columns (the middle ones split at the centre).
MILLS = """a7,d7,g7 b6,d6,f6 c5,d5,e5 a4,b4,c4 e4,f4,g4 c3,d3,e3 b2,d2,f2 a1,d1,g1
           a7,a4,a1 b6,b4,b2 c5,c4,c3 d7,d6,d5 d3,d2,d1 e5,e4,e3 f6,f4,f2 g7,g4,g1""".split()

# Generators of the board's symmetries as point maps: a quarter turn clockwise, the
# mirror left-right, and the swap of the outer and inner squares.
TURN = dict(zip("a7 d7 g7 g4 g1 d1 a1 a4 b6 d6 f6 f4 f2 d2 b2 b4 c5 d5 e5 e4 e3 d3 c3 c4".split(),
                "g7 g4 g1 d1 a1 a4 a7 d7 f6 f4 f2 d2 b2 b4 b6 d6 e5 e4 e3 d3 c3 c4 c5 d5".split()))
MIRROR = {p: "gfedcba"["abcdefg".index(p[0])] + p[1] for p in POINTS}
SWAP = dict(zip("a7 d7 g7 g4 g1 d1 a1 a4 c5 d5 e5 e4 e3 d3 c3 c4".split(),
                "c5 d5 e5 e4 e3 d3 c3 c4 a7 d7 g7 g4 g1 d1 a1 a4".split()))
SWAP.update({p: p for p in POINTS if p not in SWAP})


def mask(names) -> int:
    return sum(1 << board.point_index(n) for n in names)


@functools.cache
def group() -> list[dict[str, str]]:
    """Closure of the generators under composition."""
    ident = {p: p for p in POINTS}
    found = {tuple(ident[p] for p in POINTS): ident}
    todo = [ident]
    while todo:
        g = todo.pop()
        for h in (TURN, MIRROR, SWAP):
            gh = {p: h[g[p]] for p in POINTS}
            key = tuple(gh[p] for p in POINTS)
            if key not in found:
                found[key] = gh
                todo.append(gh)
    return list(found.values())


def test_the_board_is_the_one_in_the_rule_book():
    assert len(POINTS) == len(set(POINTS)) == 24 and len(EDGES) == 32 and len(MILLS) == 16
    assert sorted(board.POINT_NAMES) == sorted(POINTS)
    typed = {frozenset(e.split("-")) for e in EDGES}
    assert len(typed) == 32
    derived = {frozenset((board.point_name(p), board.point_name(q)))
               for p in range(24) for q in board.points_of(board.ADJACENT[p])}
    assert derived == typed
    assert set(board.MILLS) == {mask(m.split(",")) for m in MILLS}


def test_the_symmetries_are_the_ones_of_the_drawn_board():
    elements = group()
    assert len(elements) == 16
    edges = {frozenset(e.split("-")) for e in EDGES}
    mills = {frozenset(m.split(",")) for m in MILLS}
    for g in elements:
        assert {frozenset(g[p] for p in e) for e in edges} == edges
        assert {frozenset(g[p] for p in m) for m in mills} == mills
    as_perms = {tuple(board.point_index(g[board.point_name(p)]) for p in range(24)) for g in elements}
    assert as_perms == {tuple(perm) for perm in board.SYMMETRIES}


# --- orbit counts by Burnside's lemma ---------------------------------------------------

@functools.cache
def burnside(m: int, o: int) -> int:
    """Orbits of positions with m own and o enemy stones: the mean, over the 16
    symmetries, of the positions each leaves fixed (constant on each of its cycles)."""
    total = 0
    for g in group():
        cycles, seen = [], set()
        for p in POINTS:
            if p not in seen:
                length, q = 0, p
                while q not in seen:
                    seen.add(q)
                    q, length = g[q], length + 1
                cycles.append(length)
        # ways[(a, b)]: fillings of the cycles so far with a own and b enemy stones
        ways = {(0, 0): 1}
        for length in cycles:
            nxt: dict[tuple[int, int], int] = {}
            for (a, b), n in ways.items():
                for da, db in ((0, 0), (length, 0), (0, length)):
                    if a + da <= m and b + db <= o:
                        nxt[a + da, b + db] = nxt.get((a + da, b + db), 0) + n
            ways = nxt
        total += ways.get((m, o), 0)
    assert total % 16 == 0
    return total // 16


def test_orbits_of_stone_sets_by_burnside():
    assert [count_orbits(m) for m in range(10)] == [burnside(m, 0) for m in range(10)]


@pytest.mark.parametrize("m,o", [(3, 3), (3, 4), (4, 3), (2, 5), (1, 1), (0, 4)])
def test_orbits_of_positions_by_burnside(m, o):
    assert Subspace(m, o).count_real() == burnside(m, o)


# --- each special rule in a hand-made position ------------------------------------------

def both_generators(text: str, rules: Rules) -> set[str]:
    """The moves by the reference and by the kernel, which must be the same."""
    pos = parse_position(text, rules)
    reference = {str(m) for m in pos.legal_moves(rules)}
    kernel = _kernels.moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
    assert {str(unpack(c)) for c in kernel} == reference and len(kernel) == len(reference)
    return reference


def test_a_double_mill_takes_one_stone():
    # placing d7 closes a7-d7-g7 and d7-d6-d5 at once
    text = "W:a7,g7,d6,d5 B:a1,g1,b4,f4 w 5 5"
    moves = both_generators(text, STANDARD)
    assert {m for m in moves if m.startswith("d7")} == {"d7xa1", "d7xg1", "d7xb4", "d7xf4"}
    after = parse_position(text).play(next(m for m in parse_position(text).legal_moves()
                                           if str(m) == "d7xb4"))
    assert after.black == mask(["a1", "g1", "f4"])


ALL_IN_MILLS = "W:a7,d7,g4,b2 B:a1,d1,g1 w"
QUIET = {"a7-a4", "d7-g7", "d7-d6", "g4-f4", "b2-b4", "b2-d2"}


def test_all_in_mills_take_any():
    assert both_generators(ALL_IN_MILLS, STANDARD) == QUIET | {"g4-g7xa1", "g4-g7xd1", "g4-g7xg1"}


def test_all_in_mills_take_none():
    assert both_generators(ALL_IN_MILLS, TAKE_NONE) == QUIET | {"g4-g7"}


def test_one_free_stone_protects_the_mills():
    for rules in (STANDARD, TAKE_NONE):
        assert both_generators("W:a7,d7,g4,b2 B:a1,d1,g1,c5 w", rules) == QUIET | {"g4-g7xc5"}


def test_taking_from_mills_needs_no_stone_outside_them():
    """The Sanmill app's "may remove from mills always" (Rules.take_from_mills): the free
    stone protects nothing, every black stone may be taken; a mill may take from mills
    only in the rules that say so, and take-none has nothing left to say there."""
    unprotected = Rules(take_from_mills=True)
    takes = {f"g4-g7x{p}" for p in ("a1", "d1", "g1", "c5")}
    assert both_generators("W:a7,d7,g4,b2 B:a1,d1,g1,c5 w", unprotected) == QUIET | takes
    assert both_generators(ALL_IN_MILLS, unprotected) == both_generators(ALL_IN_MILLS, STANDARD)
    assert unprotected.name == "standard-take-from-mills" and Rules.from_name(unprotected.name) == unprotected
    with pytest.raises(ValueError, match="take-none"):
        Rules(mill_rule="take-none", take_from_mills=True)


def test_jumping_at_three_stones():
    text = "W:a7,d7,b2 B:a1,d1,g1,c5 w"
    free = [p for p in POINTS if p not in {"a7", "d7", "b2", "a1", "d1", "g1", "c5"}]
    expected = {f"{a}-{b}" for a in ("a7", "d7", "b2") for b in free} - {"b2-g7"} | {"b2-g7xc5"}
    assert both_generators(text, STANDARD) == expected and len(expected) == 3 * 17
    assert both_generators(text, NO_JUMPING) == {"a7-a4", "d7-g7", "d7-d6", "b2-b4", "b2-d2"}


def test_blocked_loses():
    blocked = "W:a1,g1,a7,g7 B:a4,d1,g4,d7 w"
    assert both_generators(blocked, STANDARD) == set()
    assert parse_position(blocked).terminal_wdl(STANDARD) == LOSS
    # three stones jump out of the same blockade, unless the rules forbid it
    three = "W:a1,g1,a7 B:a4,d1,d7,g4 w"
    assert len(both_generators(three, STANDARD)) == 3 * 17
    assert both_generators(three, NO_JUMPING) == set()
    assert parse_position(three).terminal_wdl(NO_JUMPING) == LOSS


def test_capture_to_two_stones_wins():
    pos = parse_position(ALL_IN_MILLS)
    for move in pos.legal_moves(STANDARD):
        if move.take is not None:
            after = pos.play(move)
            assert after.terminal_wdl(STANDARD) == LOSS and after.legal_moves(STANDARD) == []
    assert pos.terminal_wdl(STANDARD) is None


def test_the_databases_know_the_rule_book(db4):
    """The hand-made positions through the built 4-stone databases."""
    with open_database(db4, FOUR) as db:
        assert str(db.probe(parse_position("W:a1,g1,a7,g7 B:a4,d1,g4,d7 w", FOUR))) == "loss in 0"
        assert str(db.probe(parse_position(ALL_IN_MILLS, FOUR))) == "win in 1"
