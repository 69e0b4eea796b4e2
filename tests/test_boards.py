"""The compiled kernels of every board (docs/design.md §9): the same source compiled once
per board with its sizes as constants, picked by :func:`solver.kernels.kernels_for`.

Each board's module is checked against what is independent of it: its move generator
against the readable reference rules (solver.position) on random positions biased
towards closed mills, its index against Burnside's count of the board's orbits
(:meth:`Board.orbits`) and against the board's symmetries, and its backward pass
against the independent oracle (compiled per board too) on the small boards' pairs.
"""

from __future__ import annotations

import dataclasses
import os
import random

import numpy as np
import pytest

from solver.board import BOARDS, STANDARD_BOARD, points_of
from solver.index import Pair, Subspace, max_stones, random_positions
from solver.kernels import kernels_for
from solver.position import Move, Position, in_mill
from solver.retro import solve_pair
from solver.rules import KERNEL_BOARDS, VARIANTS, Rules, kernel_gap
from solver.verify.oracle import Oracle, compare

SEED = 20261130
#: Random positions per rule set for the move generators (the reference is slow Python).
POSITIONS = int(os.environ.get("MUEHLE_BOARD_POSITIONS", "600"))

#: Rule sets whose move generation the kernels must share with the reference: the
#: small boards' variants with every option the kernels know, Morabaraba (three mills
#: through a point) and Three Men's Morris (four lines through the centre, a line wins:
#: every position in tests/test_three_mens.py).
MOVEGEN_RULES = [
    VARIANTS["six-mens"], dataclasses.replace(VARIANTS["six-mens"], jumping=True),
    dataclasses.replace(VARIANTS["five-mens"], mill_rule="take-none"),
    VARIANTS["seven-mens"], dataclasses.replace(VARIANTS["seven-mens"], jumping=True,
                                                mill_rule="take-none"),
    Rules(board="morabaraba", stones=12), Rules(board="morabaraba", stones=9, jumping=False),
    dataclasses.replace(VARIANTS["three-mens"], stones=4, jumping=True), VARIANTS["three-mens"],
    # the standard board's module of twelve stones a side (more than nine; Lasker's
    # mixed placement on it: tests/test_mixed.py)
    Rules(stones=10), Rules(stones=12, jumping=False),
    # a mill takes from mills too (the Sanmill app's option), sliding and jumping
    Rules(take_from_mills=True), dataclasses.replace(VARIANTS["six-mens"], take_from_mills=True),
]


def biased_position(rng: random.Random, rules: Rules) -> Position:
    """A random position of the rules' board: stones often made of whole mills (closed,
    protected, or one stone off so that a move closes one), counts favouring three."""
    board, n = rules.board, rules.stones
    taken, sides = 0, []
    for _ in range(2):
        count = rng.choice([0, 2, 3, 3, 3, 4] + list(range(3, n + 1)))
        count = min(count, board.num_points - taken.bit_count())
        stones = 0
        for mill in rng.sample(board.mills, len(board.mills)):
            if rng.random() < 0.5 and not mill & taken and (stones | mill).bit_count() <= count:
                stones |= mill
        while stones.bit_count() < count:
            stones |= 1 << rng.choice(points_of(board.full_mask & ~(stones | taken)))
        if stones and rng.random() < 0.4:          # one stone off its mill
            p = rng.choice(points_of(stones))
            free = board.adjacent[p] & ~(stones | taken)
            if free:
                stones = stones & ~(1 << p) | 1 << rng.choice(points_of(free))
        taken |= stones
        sides.append(stones)
    hands = [rng.randint(1, n - s.bit_count()) if rng.random() < 0.4 and s.bit_count() < n
             else 0 for s in sides]
    return Position(sides[0], sides[1], hands[0], hands[1], rng.choice("wb"), board)


def takes_or_wins(pos: Position, move: Move, rules: Rules) -> bool:
    """Whether ``move`` takes a stone or, where a line wins, closes one (taking nothing)."""
    if move.take is not None:
        return True
    after = pos.own & ~(0 if move.origin is None else 1 << move.origin) | 1 << move.target
    return rules.line_wins and in_mill(after, move.target, rules.board)


@pytest.mark.parametrize("name", list(BOARDS))
def test_kernels_for_gives_each_board_its_module(name):
    board = BOARDS[name]
    kernels = kernels_for(board)
    assert kernels.BOARD == board and kernels_for(board) is kernels
    assert (kernels is kernels_for(STANDARD_BOARD)) == (name == "standard")
    # the boards the kernels are proven on are refused beyond their index's stones:
    # every stone count that fits, at most twelve (the standard board's second module)
    if name in KERNEL_BOARDS:
        assert KERNEL_BOARDS[name] == max_stones(board.indexing(12)) == min(12, board.num_points // 2)


def test_the_standard_board_has_a_module_of_twelve_stones():
    """Rules of more than nine stones carry the standard board whose module indexes
    twelve a side; equal to the standard board (files and names do not see it), and
    the standard game's module stays the one of nine."""
    import pickle

    wide = VARIANTS["lasker"].board
    assert wide == STANDARD_BOARD and wide is STANDARD_BOARD.indexing(10) is Rules(stones=12).board
    assert VARIANTS["standard"].board is STANDARD_BOARD and VARIANTS["mixed"].board is STANDARD_BOARD
    assert dataclasses.replace(VARIANTS["lasker"], stones=9).board is STANDARD_BOARD
    assert kernels_for(wide).__name__ == "solver._kernels_standard_12" and max_stones(wide) == 12
    assert kernels_for(STANDARD_BOARD).__name__ == "solver._kernels" and max_stones() == 9
    assert kernels_for(wide).BOARD == STANDARD_BOARD and kernels_for(wide) is not kernels_for()
    sub = Subspace(10, 3, board=wide)
    again = pickle.loads(pickle.dumps(sub))
    assert again.board is wide and again.kernels is sub.kernels and again.slots == sub.slots
    assert pickle.loads(pickle.dumps(Pair(3, 10, board=wide))).board is wide
    from solver.storage import holding           # a probe's file of a subspace: its own board
    assert holding(sub) == Pair(3, 10, board=wide) and holding(sub).board is wide
    with pytest.raises(ValueError, match="0..9"):
        Subspace(10, 3)


def test_the_two_standard_modules_number_the_slots_alike():
    """The module of twelve gives every subspace of at most nine a side the slots of the
    module of nine (docs/design.md §9: one index scheme, each reads the other's files):
    sizes and orbits of every such subspace, and the slots, positions and real slots of
    random positions and slots of several."""
    wide = STANDARD_BOARD.indexing(12)
    narrow_k, wide_k = kernels_for(STANDARD_BOARD), kernels_for(wide)
    assert narrow_k.INDEX_SCHEME == wide_k.INDEX_SCHEME
    for m in range(10):
        assert narrow_k.orbit_count(m) == wide_k.orbit_count(m)
        for o in range(10):
            assert Subspace(m, o).slots == Subspace(m, o, board=wide).slots, (m, o)
    rng = np.random.default_rng(SEED)
    for m, o in [(3, 3), (4, 2), (9, 9), (3, 9), (9, 4), (7, 8)]:
        narrow, broad = Subspace(m, o), Subspace(m, o, board=wide)
        own, opp = random_positions(rng, m, o, 2000)
        slots = narrow.index_many(own, opp)
        assert (broad.index_many(own, opp) == slots).all()
        picks = rng.integers(0, narrow.slots, 2000)
        for a, b in zip(narrow.positions_many(picks), broad.positions_many(picks)):
            assert (a == b).all()
        assert (narrow.is_real_many(picks) == broad.is_real_many(picks)).all()
    assert (Subspace(3, 3).real_mask() == Subspace(3, 3, board=wide).real_mask()).all()


def assert_images_share_a_slot(sub: Subspace, rng: np.random.Generator) -> None:
    """Random positions of ``sub``: real slots, every image under the board's symmetries
    indexed to its position's slot, and each slot's position indexed back to it."""
    board = sub.board
    own, opp = random_positions(rng, sub.m, sub.o, 300, board)
    slots = sub.index_many(own, opp)
    assert sub.is_real_many(slots).all()
    for g in range(len(board.symmetries)):
        img_own = [board.apply_symmetry(g, int(x)) for x in own]
        img_opp = [board.apply_symmetry(g, int(x)) for x in opp]
        assert (sub.index_many(img_own, img_opp) == slots).all()
    back_own, back_opp = sub.positions_many(slots)
    assert (sub.index_many(back_own, back_opp) == slots).all()


@pytest.mark.parametrize("m, o", [(10, 3), (3, 10), (10, 10), (12, 12), (11, 1)])
def test_the_module_of_twelve_indexes_ten_and_more_stones(m, o):
    """Subspaces with more than nine stones a side on the standard board: every image
    of a position under the 16 symmetries has its slot, a slot's position is indexed
    back to it, and the slots are the orbits plus the index's slack."""
    board = STANDARD_BOARD.indexing(max(m, o))
    sub = Subspace(m, o, board=board)
    assert_images_share_a_slot(sub, np.random.default_rng(SEED + m * 32 + o))
    orbits = board.orbits(m, o)
    assert sub.count_real(2) == orbits <= sub.slots      # the rest: slack


def test_the_module_of_twelve_solves_as_the_module_of_nine():
    """The backward pass on the standard board's module of twelve gives the standard
    game's values (moving pairs 3-3 and 3-4: the rules of ten stones are the standard
    game's once the hands are empty)."""
    narrow_rules, wide_rules = Rules(), Rules(stones=10)
    assert wide_rules.board.index_stones == 12
    solved: dict = {}
    for pair in [(3, 3), (3, 4)]:
        narrow = solve_pair(pair, narrow_rules, lambda m, o: solved[m, o], jobs=1)
        wide = solve_pair(pair, wide_rules, lambda m, o: solved[m, o], jobs=1)
        assert narrow.values.keys() == wide.values.keys()
        for key, values in narrow.values.items():
            assert (wide.values[key] == values).all(), key
        solved.update(narrow.values)


@pytest.mark.parametrize("rules", MOVEGEN_RULES, ids=lambda r: r.name)
def test_kernel_moves_equal_reference(rules):
    kernels = kernels_for(rules.board)
    rng = random.Random(f"{SEED} {rules.name}")
    seen = {"takes": 0, "blocked": 0, "jumps": 0, "unmoves": 0, "placement": 0, "ten": 0}
    for _ in range(POSITIONS):
        pos = biased_position(rng, rules)
        reference = sorted(m.pack() for m in pos.legal_moves(rules))
        got = kernels.moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
        assert sorted(got) == reference, (
            f"{pos} under {rules.name}: kernel {sorted(str(Move.unpack(c, rules.board)) for c in got)}")
        back = sorted(m.pack() for m, _ in pos.quiet_predecessors(rules))
        got_back = kernels.unmoves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
        assert sorted(got_back) == back, f"{pos} under {rules.name}: un-moves differ"
        seen["takes"] += any(takes_or_wins(pos, Move.unpack(c, rules.board), rules) for c in got)
        seen["blocked"] += not got and pos.own.bit_count() + pos.own_hand >= 3
        seen["jumps"] += bool(pos.can_jump(rules) and got)
        seen["unmoves"] += bool(back)
        seen["placement"] += pos.own_hand > 0
        seen["ten"] += max(pos.own.bit_count(), pos.opp.bit_count()) >= 10
    for case in ("takes", "unmoves", "placement"):
        assert seen[case] >= POSITIONS // 25, (case, seen)
    assert seen["ten"] >= (POSITIONS // 25 if rules.stones >= 10 else 0), seen
    assert seen["jumps"] >= (POSITIONS // 25 if rules.jumping else 0), seen


@pytest.mark.parametrize("name", ["six-mens", "seven-mens", "three-mens"])
def test_index_counts_the_orbits_of_every_subspace(name):
    """Real slots equal Burnside's count of positions up to the board's symmetries, for
    every stone count the board's index covers (the standard board: test_index.py)."""
    board = BOARDS[name]
    most = max_stones(board)
    for m in range(most + 1):
        for o in range(min(most, board.num_points - m) + 1):
            sub = Subspace(m, o, board=board)
            assert sub.count_real(1) == board.orbits(m, o), sub


@pytest.mark.parametrize("name", ["six-mens", "seven-mens", "three-mens", "morabaraba"])
def test_index_maps_every_image_to_one_slot(name):
    board = BOARDS[name]
    rng = np.random.default_rng(SEED)
    for m, o in [(3, 3), (4, 2), (min(6, max_stones(board)), 3)]:
        assert_images_share_a_slot(Subspace(m, o, board=board), rng)
    with pytest.raises(ValueError):
        Subspace(3, 3, board=board).index(1 << board.num_points | 3, 0b111000)


def test_subspaces_keep_their_board():
    six = BOARDS["six-mens"]
    sub = Subspace(4, 3, 1, 0, board=six)
    assert sub.quiet_child.board is six and sub.moving.board is six
    assert Pair(3, 4, board=six).subspaces[0].board is six
    assert repr(Pair(3, 4, board=six)) == "Pair(3, 4, board='six-mens')"
    import pickle
    again = pickle.loads(pickle.dumps(sub))
    assert again == sub and again.board is six and again.slots == sub.slots
    with pytest.raises(ValueError, match="0..8"):
        Subspace(9, 3, board=six)


def assert_backward_pass_equals_the_oracle(rules: Rules, pairs: list[tuple[int, int]]) -> None:
    """Every raw position of the pairs: the oracle's value and plies equal the fast
    solver's code at its slot, and every real slot is reached."""
    assert kernel_gap(rules) is None
    oracle = Oracle(rules)
    solved: dict = {}
    for pair in pairs:
        result = solve_pair(pair, rules, lambda m, o: solved[m, o])
        solved.update(result.values)
        for (m, o), fast in result.values.items():
            mismatches, count, unhit = compare(m, o, oracle.get(m, o), fast, board=rules.board)
            assert count == 0 and unhit == 0, "\n".join(mismatches)


@pytest.mark.parametrize("name, jumping, pairs", [
    ("six-mens", False, [(3, 3), (3, 4)]),      # captures into 3-3 and to two stones
    ("seven-mens", True, [(3, 3)]),
    # lines of five, three mills each: two points on two mills (mill_closers)
    ("seven-mens-lines", True, [(3, 3)]),
    # diagonal mills, three through a point; 3-4 (a minute of oracle) is slow, below
    ("morabaraba", True, [(3, 3)]),
])
def test_backward_pass_equals_the_oracle(name, jumping, pairs):
    assert_backward_pass_equals_the_oracle(dataclasses.replace(VARIANTS[name], jumping=jumping), pairs)


@pytest.mark.slow
@pytest.mark.parametrize("name, pairs", [
    ("six-mens", [(3, 3), (3, 4), (4, 4), (3, 5)]),
    ("seven-mens", [(3, 3), (3, 4), (4, 4)]),
])
@pytest.mark.parametrize("jumping", [False, True])
@pytest.mark.parametrize("mill_rule", ["take-any", "take-none"])
def test_backward_pass_equals_the_oracle_on_more_pairs(name, pairs, jumping, mill_rule):
    rules = dataclasses.replace(VARIANTS[name], jumping=jumping, mill_rule=mill_rule)
    assert_backward_pass_equals_the_oracle(rules, pairs)


@pytest.mark.slow
@pytest.mark.parametrize("jumping, mill_rule, pairs", [
    (False, "take-none", [(3, 3), (3, 4)]),       # 41 s at load 2-4
    (True, "take-any", [(3, 3), (3, 4), (4, 4)]),  # 149 s (most of it the oracle of 4-4)
])
def test_backward_pass_equals_the_oracle_on_morabaraba(jumping, mill_rule, pairs):
    rules = dataclasses.replace(VARIANTS["morabaraba"], jumping=jumping, mill_rule=mill_rule)
    assert_backward_pass_equals_the_oracle(rules, pairs)


# --- the commands on a small board --------------------------------------------------

def run(*args, input=None):
    from click.testing import CliRunner

    from solver.cli import main
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


#: White to move closes a1-c1-e1 by e3-e1 and leaves Black two stones: won in 1.
WON_IN_ONE = "W:a1,c1,e3 B:a5,c5,b4 w"


def test_commands_work_on_the_six_mens_board(tmp_path):
    """build (both phases), check, stats, query, best-move, play at every level and
    analyze on the pairs and placement subspaces of at most 7 stones of Six Men's."""
    db = tmp_path
    built = run("build", "--db", db, "--rules", "six-mens", "--max-total", 7, "--jobs", 1)
    assert built.exit_code == 0, built.output
    assert (db / "six-mens" / "pair-3-4.h5").exists() and list((db / "six-mens").glob("place-*.h5"))
    checked = run("check", "--db", db, "--rules", "six-mens", "--quiet")
    assert checked.exit_code == 0 and "consistent" in checked.output, checked.output
    stats = run("stats", "--db", db, "--rules", "six-mens", "--json")
    assert stats.exit_code == 0, stats.output
    query = run("query", "--db", db, "--rules", "six-mens", WON_IN_ONE)
    assert query.exit_code == 0 and "win" in query.stdout.splitlines()[0], query.output
    best = run("best-move", "--db", db, "--rules", "six-mens", WON_IN_ONE)
    assert best.exit_code == 0 and "e3-e1x" in best.stdout, best.output
    for level in ("easy", "medium", "hard", "perfect"):
        game = run("play", "--db", db, "--rules", "six-mens", "--level", level, "--seed", 1,
                   "--colour", "black", "--position", WON_IN_ONE, "--think", 0.5,
                   input="quit\n")
        assert game.exit_code == 0 and "Traceback" not in game.output, game.output
        if level in ("hard", "perfect"):
            assert "e3-e1x" in game.stdout, game.output           # it takes the win
    record = tmp_path / "game.txt"
    record.write_text(f"rules: six-mens\nstart: {WON_IN_ONE}\ne3-e1xb4\n")
    analysis = run("analyze", "--db", db, "--json", record)
    assert analysis.exit_code == 0, analysis.output
    # a point of another board is an error naming the board, not a crash
    bad = run("query", "--db", db, "--rules", "six-mens", "W:d7 B:a1 w")
    assert bad.exit_code == 2 and "six-mens board" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", ["five-mens", "six-mens"])
def test_whole_game_of_a_small_board(name, tmp_path):
    """The whole game built and checked, and the start position's value from the
    placement files equal to the opening search's over the moving-phase files."""
    from solver.opening import OpeningSearch
    from solver.position import parse_position
    from solver.probe import open_database

    rules = VARIANTS[name]
    built = run("build", "--db", tmp_path, "--rules", name)
    assert built.exit_code == 0, built.output
    assert run("check", "--db", tmp_path, "--rules", name, "--quiet").exit_code == 0
    start = parse_position("startpos", rules)
    with open_database(tmp_path, rules, in_memory=True) as db:
        stored = db.probe(start).value
        assert OpeningSearch(rules, db.subspace).solve(start).value == stored


@pytest.mark.parametrize("jumping", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_seven_mens_morris_of_fourteen_mills_is_the_first_players_win_by_the_centre(jumping, tmp_path):
    """The published value (Dries De Clercq, "5-6-7 Men's Morris",
    http://puzzles.net23.net/6mm.htm): "a win for the first player in 25 moves with
    perfect play ... if the first player doesn't put his first pawn on the central
    square, it is a win for the second player".  It holds on the board whose 5-point
    lines through the centre are three mills each (seven-mens-lines, 14 mills), with
    jumping or without, and not on the board where only the lines through the centre are
    mills (seven-mens: a draw, docs/results.md)."""
    from solver.build import build
    from solver.probe import open_database

    rules = dataclasses.replace(VARIANTS["seven-mens-lines"], jumping=jumping)
    build(tmp_path, rules, progress=False)
    with open_database(tmp_path, rules) as db:
        start = db.probe("startpos")
        assert (start.value, start.plies) == ("win", 25)
        firsts = {str(mp.move): mp.value for mp in db.probe_moves("startpos")}
    assert firsts.pop("c3") == "win" and set(firsts.values()) == {"loss"} and len(firsts) == 16


def _whole_game_shapes(rules: Rules) -> list[tuple[int, int, int, int]]:
    from solver import build as building, placement
    return ([(s.m, s.o, 0, 0) for p in building.plan(rules) for s in p.subspaces]
            + [(s.m, s.o, s.own_hand, s.opp_hand) for s in placement.plan(rules)])


@pytest.mark.parametrize("rules", [dataclasses.replace(VARIANTS["six-mens"], stones=3),
                                   pytest.param(dataclasses.replace(VARIANTS["six-mens"], stones=4),
                                                marks=pytest.mark.slow)],
                         ids=["six-mens-s3", "six-mens-s4"])
def test_a_kernel_free_retrograde_pass_equals_the_whole_built_game(rules, tmp_path):
    """Every position of a whole small game (placement and moving phase, every point
    arrangement, no symmetry), its moves from the readable rules, solved backwards in
    plain Python (solver.verify.retrograde): every value and every ply count equals the
    files of the build (the kernels' index, symmetry, rounds and passes).  Three Men's
    Morris is compared so in tests/test_three_mens.py; four stones on the Six Men's
    board, 2 M positions, in the slow run."""
    from solver.build import build
    from solver.probe import open_database
    from solver.verify.retrograde import compare, positions, solve

    build(tmp_path, rules, progress=False)
    start = positions(rules, _whole_game_shapes(rules))
    values = solve(rules, start)
    assert len(values) >= len(start) and len({v for v in values.values()}) > 10     # wins and losses of many lengths
    with open_database(tmp_path, rules) as db:
        assert compare(rules, values, db.code) == []


@pytest.mark.long
def test_a_kernel_free_retrograde_pass_equals_the_whole_4_stone_standard_game(tmp_path):
    """The whole 4-stone standard game from the empty board (placement and moving phase,
    4-4 and the captures to 3-4 and 3-3), every position a game reaches kept once for
    its class under the board's 16 symmetries (the pass's own least image, not the
    index), solved in plain Python over Position.legal_moves: every value and every ply
    count equals the build's files.  Too long for CI: marked long, run by
    ``python -m pytest -m long`` (docs/guide/development.md gives its time and memory)."""
    from solver.build import build
    from solver.probe import open_database
    from solver.rules import Rules
    from solver.verify.retrograde import compare, solve

    rules = Rules.from_name("standard-s4")
    build(tmp_path, rules, progress=False)
    values = solve(rules, [(0, 0, 4, 4)], symmetric=True)
    print(f"{len(values):,} classes of positions")
    with open_database(tmp_path, rules) as db:
        assert compare(rules, values, db.code) == []
    # the whole game: every moving pair and every placement hand is reached
    hands = {(h, k) for _, _, h, k in values}
    pieces = {(own.bit_count(), opp.bit_count()) for own, opp, h, k in values if not h and not k}
    assert {(4, 4), (3, 4), (4, 3), (3, 3)} <= pieces
    assert hands == {(h, k) for h in range(5) for k in range(5) if h - k in (0, 1)}
    assert len(values) > 1_000_000
