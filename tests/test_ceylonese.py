"""Ceylonese mill (solver.ceylonese): its rules, read from Parker's account, held by
positions typed by hand; the kernel-free retrograde pass over them
(solver.verify.retrograde.solve_ceylonese) held to a second algorithm written here, a
value iteration over the count of turns, on every position of a small version; and the
kernels' tables (solver.ceylonese_tables) held to that value iteration on every position
of small versions under several rules."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from solver import ceylonese, ceylonese_tables, storage
from solver.ceylonese import CeylonRule, legal_moves, play, terminal
from solver.errors import UnsupportedRulesError
from solver.index import Subspace
from solver.position import Position, parse_move, parse_position
from solver.rules import Rules, VARIANTS
from solver.values import LOSS, WIN
from solver.verify.retrograde import solve_ceylonese, solve_graph

RULES = Rules(stones=12)                 # the standard board, twelve stones a side
PARKER = CeylonRule()


def after(text: str, move: str, rules: Rules = RULES, rule: CeylonRule = PARKER) -> str:
    pos = parse_position(text, rules)
    m = parse_move(move, rules.board)
    assert m in legal_moves(pos, rules, rule), f"{move} is not legal in {text}"
    return str(play(pos, m, rules, rule))


def test_a_mill_while_placing_takes_nothing_and_the_same_side_places_again():
    pos = parse_position("W:a1,d1 B:a7,g7 w 10 10", RULES)
    # no placement takes: one move a free point, a mill's included
    assert sorted(str(m) for m in legal_moves(pos, RULES)) == sorted(
        p for p in RULES.board.points if p not in ("a1", "d1", "a7", "g7"))
    assert after("W:a1,d1 B:a7,g7 w 10 10", "g1") == "W:a1,d1,g1 B:a7,g7 w 9 10"
    # a placement without a mill passes the turn
    assert after("W:a1,d1 B:a7,g7 w 10 10", "b2") == "W:a1,b2,d1 B:a7,g7 b 9 10"
    # each mill earns one more: the additional stone's too
    assert after("W:a1,d1,g1,b2,d2 B:a7,g7,b6 w 7 9", "f2") == "W:a1,b2,d1,d2,f2,g1 B:a7,b6,g7 w 6 9"


def test_a_side_with_nothing_to_place_is_passed_over():
    # the mill's maker has no stone left: the other places
    assert after("W:a1,d1 B:a7,g7 w 1 3", "g1") == "W:a1,d1,g1 B:a7,g7 b 0 3"
    # the other has none: the same side places on
    assert after("W:a1,d1 B:a7,g7,d7 w 3 0", "b2") == "W:a1,b2,d1 B:a7,d7,g7 w 2 0"


def _near_full(free: list[str], rules: Rules = RULES) -> tuple[int, int]:
    """White and Black stones filling every point but ``free``, alternately, so that
    no line of either colour is closed where the test does not want one."""
    white = black = 0
    rng = random.Random(7)
    points = [p for p in range(rules.board.num_points) if rules.board.point_name(p) not in free]
    rng.shuffle(points)
    for i, p in enumerate(points):
        if i % 2 == 0:
            white |= 1 << p
        else:
            black |= 1 << p
    return white, black


def test_the_placement_ends_with_two_points_free_and_the_hands_are_put_aside():
    board = RULES.board
    white, black = _near_full(["a1", "d1", "g1"])
    # 21 stones on the board (11 White, 10 Black), three points free, White to place
    pos = Position(white, black, 1, 2, "w", board)
    for target in ("a1", "d1", "g1"):
        move = parse_move(target, board)
        nxt = play(pos, move, RULES)
        assert (nxt.white_hand, nxt.black_hand) == (0, 0), "the stones in hand are put aside"
        assert not nxt.in_placement and bin(board.free(nxt.white, nxt.black)).count("1") == 2
        closed = any(m & nxt.white == m for m in board.mills_through[move.target])
        # the next side moves first: Black, or White where its last stone closed a mill
        assert nxt.turn == ("w" if closed else "b"), target
    # with more points left free (a rule option) the placement ends earlier
    white, black = _near_full(["a1", "d1", "g1", "b2"])
    pos = Position(white, black, 2, 2, "w", board)          # 20 stones, four points free
    for rule, placing in ((PARKER, True), (CeylonRule(open_points=3), False)):
        nxt = play(pos, parse_move("b2", board), RULES, rule)
        assert nxt.in_placement == placing and bin(board.free(nxt.white, nxt.black)).count("1") == 3
    # and where no stone is left in hand, whatever is free
    small = Rules(stones=3)
    nxt = play(parse_position("W:a1,d1 B:a7,d7,b6 w 1 0", small), parse_move("b2", small.board), small)
    assert str(nxt) == "W:a1,b2,d1 B:a7,b6,d7 b" and not nxt.in_placement


def test_a_mill_while_moving_takes_and_the_same_side_moves_again():
    text = "W:a1,d1,g4,b2 B:a7,d7,f6,b6 w"
    pos = parse_position(text, RULES)
    assert parse_move("g4-g1xa7", RULES.board) in legal_moves(pos, RULES)
    assert after(text, "g4-g1xa7") == "W:a1,b2,d1,g1 B:b6,d7,f6 w"
    # a move without a mill passes the turn
    assert after(text, "b2-b4") == "W:a1,b4,d1,g4 B:a7,b6,d7,f6 b"
    # where the option is off, a mill's move passes it too (the standard game)
    assert after(text, "g4-g1xa7", rule=CeylonRule(extra_move=False)) == "W:a1,b2,d1,g1 B:b6,d7,f6 b"


def test_a_take_that_leaves_two_has_won_in_mid_turn_and_a_blocked_side_loses():
    text = "W:a1,d1,g4 B:a7,d7,f6 w"
    won = play(parse_position(text, RULES), parse_move("g4-g1xa7", RULES.board), RULES)
    assert won.turn == "w" and terminal(won, RULES) == WIN and legal_moves(won, RULES) == []
    # on boards two points from full: every take keeps the turn, and the additional
    # move always has the stone that moved to go back with; a side to move with no
    # legal move (the first mover of the moving phase can be one) has lost
    rng = random.Random(3)
    board = RULES.board
    takes = blocked = 0
    for _ in range(400):
        white, black = _near_full(rng.sample(board.points, 2))
        pos = Position(white, black, 0, 0, rng.choice("wb"), board)
        if not pos.legal_moves(RULES):
            assert terminal(pos, RULES) == LOSS and legal_moves(pos, RULES) == []
            blocked += 1
        for move in legal_moves(pos, RULES):
            if move.take is not None:
                nxt = play(pos, move, RULES)
                assert nxt.turn == pos.turn and legal_moves(nxt, RULES)
                assert any((m.origin, m.target) == (move.target, move.origin) for m in legal_moves(nxt, RULES))
                takes += 1
    assert takes > 100 and blocked > 3


def test_rules_where_the_ceylonese_turns_do_not_apply_are_refused():
    for rules in (VARIANTS["three-mens"], Rules(placement="mixed")):
        with pytest.raises(UnsupportedRulesError):
            terminal(ceylonese.start(rules), rules)
    with pytest.raises(ValueError):
        CeylonRule(open_points=-1)
    for rule in (PARKER, CeylonRule(4, True), CeylonRule(2, False), CeylonRule(0, False)):
        assert CeylonRule.from_name(rule.name) == rule
    for bad in ("ceylonese-open2", "ceylon", "ceylonese-no-extra-open3", "ceylonese-open-1", ""):
        with pytest.raises(ValueError):
            CeylonRule.from_name(bad)
    # positions no game of it reaches are refused, saying why
    for text in ("W:a1 B:a7 w 0 3", "W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1,d2 B:d3,d5,d6,d7,e3,e4,e5,f2,f4,f6,g1 w 1 1"):
        with pytest.raises(ValueError, match="no game of Ceylonese mill reaches"):
            legal_moves(parse_position(text, RULES), RULES)


def test_every_placement_position_a_game_reaches_meets_the_order_of_turns():
    """ceylonese.unreached is a necessary condition: no placement position of 3,000
    random games (Parker's 12 stones on the standard board, and 4 on the Six Men's
    board) is said to be unreached; positions that break it are (Black to place first,
    or a side ahead by more placements than its mills can have earned)."""
    rng = random.Random(56)
    for rules in (Rules(stones=12), Rules(board="six-mens", stones=4, jumping=False)):
        seen = 0
        for _ in range(1500):
            pos = ceylonese.start(rules)
            while pos.in_placement and terminal(pos, rules, PARKER) is None:
                assert ceylonese.unreached(pos, rules) is None, str(pos)
                seen += 1
                pos = play(pos, rng.choice(legal_moves(pos, rules, PARKER)), rules, PARKER)
        assert seen > 10_000
    four = Rules(board="six-mens", stones=4, jumping=False)
    for text in ("W: B: b 4 4", "W:a1,c5,e5 B:c4 w 1 3", "W:a1 B:c4,b3,e5 b 3 1"):
        assert ceylonese.unreached(parse_position(text, four), four).startswith("no game from the start reaches it")


def _graph(rules: Rules, rule: CeylonRule, first: Position):
    """Every position the reference reaches from ``first``: keys, finished codes and the
    moves as arrays (source, target, keeps the turn)."""
    board = rules.board
    keys = [(first.own, first.opp, first.own_hand, first.opp_hand)]
    index = {keys[0]: 0}
    finished, src, dst, same = [], [], [], []
    i = 0
    while i < len(keys):
        pos = Position.from_view(*keys[i], board=board)
        result = terminal(pos, rules, rule)
        finished.append({None: -1, LOSS: 1, WIN: 2}.get(result, 0))
        if result is None:
            for move in legal_moves(pos, rules, rule):
                nxt = play(pos, move, rules, rule)
                key = (nxt.own, nxt.opp, nxt.own_hand, nxt.opp_hand)
                if key not in index:
                    index[key] = len(keys)
                    keys.append(key)
                src.append(i)
                dst.append(index[key])
                same.append(nxt.turn == pos.turn)
        i += 1
    return keys, np.array(finished), np.array(src), np.array(dst), np.array(same, dtype=bool)


def _value_iteration(finished, src, dst, same) -> np.ndarray:
    """Codes by another algorithm than the pass's: for t = 0, 1, ... the positions won
    and lost within t turns, from those within t - 1 through the moves that pass the
    turn and, to a fixed point, from those within t through the moves that keep it."""
    n = len(finished)
    degree = np.bincount(src, minlength=n)
    won = np.zeros(n, dtype=bool)
    lost = np.zeros(n, dtype=bool)
    code = np.zeros(n, dtype=np.int64)
    live = finished == -1
    t = 0
    while True:
        won_before, lost_before = won.copy(), lost.copy()
        won_t = won | ((finished == 2) & (t >= 1))
        lost_t = lost | (finished == 1)
        while True:
            win_move = np.where(same, won_t[dst], lost_before[dst])
            refuted = np.where(same, lost_t[dst], won_before[dst])
            new_won = won_t | (live & (np.bincount(src, weights=win_move, minlength=n) > 0))
            new_lost = lost_t | (live & (degree > 0) & (np.bincount(src, weights=refuted, minlength=n) == degree))
            if np.array_equal(new_won, won_t) and np.array_equal(new_lost, lost_t):
                break
            won_t, lost_t = new_won, new_lost
        code[won_t & ~won] = 1 + t
        code[lost_t & ~lost] = 1 + t
        assert not (won_t & lost_t).any()
        if np.array_equal(won_t, won) and np.array_equal(lost_t, lost) and t > 1:
            return code
        won, lost = won_t, lost_t
        t += 1


_EXPECTED: dict = {}


def _expected(rules: Rules, rule: CeylonRule, first: Position):
    """The graph from ``first`` and its value iteration's codes, computed once a session
    (the pass's test and the kernels' share them)."""
    key = (rules, rule, str(first))
    if key not in _EXPECTED:
        keys, finished, src, dst, same = _graph(rules, rule, first)
        _EXPECTED[key] = keys, finished, src, dst, same, _value_iteration(finished, src, dst, same)
    return _EXPECTED[key]


def _compare(rules: Rules, rule: CeylonRule, first: Position, whole: bool = True) -> dict:
    """The pass's codes against the value iteration's on every position reached from
    ``first``; ``whole``: the pass closes the graph itself (solve_ceylonese), else it
    reads the moves found here (solve_graph alone: half the time)."""
    keys, finished, src, dst, same, expected = _expected(rules, rule, first)
    if whole:
        values = solve_ceylonese(rules, rule, first)
    else:
        order = np.argsort(src, kind="stable")
        starts = np.searchsorted(src[order], np.arange(len(keys) + 1))
        at = {k: i for i, k in enumerate(keys)}

        def expand(key):
            i = at[key]
            moves = order[starts[i]:starts[i + 1]]
            return (None if finished[i] == -1 else int(finished[i]),
                    [(keys[dst[j]], bool(same[j])) for j in moves])

        values = solve_graph([keys[0]], expand)
    assert len(values) == len(keys)
    got = np.array([values[k] for k in keys])
    bad = np.flatnonzero(got != expected)
    assert not len(bad), [(keys[i], int(got[i]), int(expected[i])) for i in bad[:5]]
    return values


def test_the_pass_equals_a_value_iteration_over_turns_on_a_small_game():
    """Four stones a side on the Six Men's board without jumping, the placement ending
    with ten points free (the stones in hand put aside), from a position with two stones
    of each placed (156,261 positions): wins, losses and draws, turns kept by mills of
    both kinds.  The pass reads the moves found here (the slow test below lets it find
    them itself over the reference)."""
    rules = Rules(board="six-mens", stones=4, jumping=False)
    rule = CeylonRule(open_points=10)
    first = parse_position("W:a1,c5 B:c4,e1 w 2 2", rules)
    values = _compare(rules, rule, first, whole=False)
    codes = np.array(list(values.values()))
    assert (codes == 0).any() and (codes % 2 == 1).any() and (codes % 2 == 0)[codes > 0].any()
    assert codes.max() >= 6


@pytest.mark.slow
def test_the_pass_equals_a_value_iteration_over_turns_on_the_whole_six_mens_board_game():
    """The whole game of three stones a side on the Six Men's board, from the empty
    board (215,073 positions), with Parker's two open points and the extra move."""
    values = _compare(Rules(board="six-mens", stones=3), PARKER, ceylonese.start(Rules(board="six-mens", stones=3)))
    assert values[(0, 0, 3, 3)] == 0


def _kernels_against_iteration(rules: Rules, rule: CeylonRule, first: Position):
    """The kernels' tables of the whole game against the value iteration on every
    position reached from ``first``; returns the tables and the reached keys."""
    keys, *_, expected = _expected(rules, rule, first)
    tables = ceylonese_tables.solve(rules, rule, jobs=2)
    got = np.array([tables.code(Position.from_view(*k, board=rules.board)) for k in keys])
    bad = np.flatnonzero(got != expected)
    assert not len(bad), [(str(Position.from_view(*keys[i], board=rules.board)), int(got[i]), int(expected[i]))
                          for i in bad[:5]]
    return tables, keys


def test_the_kernels_equal_the_value_iteration_on_every_position_of_a_small_game():
    """The game of the pass's test above (its value iteration shared): the kernels'
    tables (moving pairs by the standard rounds with the captures' view, the placement
    by ceylon_place) agree on all 156,261 positions, among them placements that end the
    placement with stones in hand, mills while placing and while moving, and moving
    positions where a side was left with two stones by the end of the placement."""
    rules = Rules(board="six-mens", stones=4, jumping=False)
    rule = CeylonRule(open_points=10)
    tables, keys = _kernels_against_iteration(rules, rule, parse_position("W:a1,c5 B:c4,e1 w 2 2", rules))
    moving = [k for k in keys if not (k[2] or k[3])]
    assert any(min(k[0].bit_count(), k[1].bit_count()) < 3 for k in moving)     # a side left with two
    assert any(k[0].bit_count() + k[1].bit_count() == 6 for k in moving)        # the end by open points
    assert any(k[0].bit_count() + k[1].bit_count() == 5 for k in moving)        # after a take


def _by_turns(pos: Position, tables) -> int:
    """The code of ``pos`` from its moves by the reference and its children's codes in
    the tables: a move that keeps the turn gives its child's code, one that passes it
    the child's seen from the other side a turn later; the shortest win, else a draw,
    else the longest loss."""
    rules, rule = tables.rules, tables.rule
    result = terminal(pos, rules, rule)
    if result is not None:
        return 1 if result == LOSS else 2
    best = None
    for move in legal_moves(pos, rules, rule):
        nxt = play(pos, move, rules, rule)
        code = tables.code(nxt)
        if nxt.turn != pos.turn:
            code = code + 1 if code else 0
        key = 0x10000 if code == 0 else code if code % 2 else 0x30000 - code
        if best is None or key > best[0]:
            best = (key, code)
    return best[1]


@pytest.mark.parametrize("name, rule", [("six-mens-s4", "ceylonese"), ("six-mens-jumping-s4", "ceylonese"),
                                        ("six-mens-s4", "ceylonese-no-extra"),
                                        ("standard-s4", "ceylonese-open17")])
def test_every_code_of_the_kernels_follows_from_its_moves_by_the_reference(name, rule):
    """Sampled positions of every subspace, moving and placement, of games whose moving
    phase has captures into pairs of three stones and more (which the whole-game
    comparisons above, of at most three stones a side moving, do not reach): each
    code is the one its moves by the reference give from the tables' codes of the
    positions they lead to, turns kept by mills counted as the rules say."""
    rules = Rules.from_name(name)
    rule = CeylonRule.from_name(rule)
    tables = ceylonese_tables.solve(rules, rule, jobs=2)
    rng = np.random.default_rng(56)
    checked = takes = 0
    for sub in tables.codes:
        real = np.flatnonzero(sub.real_mask())
        for slot in rng.choice(real, size=min(len(real), 150), replace=False):
            own, opp = sub.position(int(slot))
            pos = Position.from_view(own, opp, sub.own_hand, sub.opp_hand, board=rules.board)
            if ceylonese.why_not_ceylonese(pos, rule) is not None:
                continue
            assert tables.code(pos) == _by_turns(pos, tables), str(pos)
            checked += 1
            takes += not pos.own_hand and any(m.take is not None for m in legal_moves(pos, rules, rule))
    assert checked > 1000 and takes > 20


@pytest.mark.parametrize("name, rule", [("six-mens-s4", "ceylonese"), ("standard-s4", "ceylonese-open17")])
def test_the_check_passes_the_tables_and_names_the_subspace_of_a_changed_code(name, rule):
    """ceylonese_tables.check: nothing on the tables as solved; a code changed in the
    largest moving subspace and in a placement subspace is named, each in its own
    subspace (and in those whose positions lead into it)."""
    rules, rule = Rules.from_name(name), CeylonRule.from_name(rule)
    tables = ceylonese_tables.solve(rules, rule, jobs=2)
    assert ceylonese_tables.check(tables) == []
    for sub in (ceylonese_tables.moving_pairs(rules, rule)[-1].subspaces[-1],
                ceylonese_tables.placement_subspaces(rules, rule)[3]):
        codes = tables.codes[sub]
        slot = np.flatnonzero(codes != 0xFFFF)[len(codes) // 3]
        old = codes[slot]
        codes[slot] = old + 2 if old else 3          # a win or loss two turns longer, or a loss
        assert str(sub) in ceylonese_tables.check(tables)
        codes[slot] = old
    assert ceylonese_tables.check(tables) == []


@pytest.mark.slow
@pytest.mark.parametrize("rules, rule", [
    ("six-mens-s3", "ceylonese"),
    ("six-mens-s3", "ceylonese-no-extra"),
    ("six-mens-take-none-s3", "ceylonese"),
    ("six-mens-jumping-s3", "ceylonese"),
])
def test_the_kernels_equal_the_value_iteration_under_other_rules(rules, rule):
    """Parker's reading, the turn passing after a take, take-none and jumping, each on
    every position of a three-stone game on the Six Men's board from two stones a side
    placed (the placement ending with the hands empty there)."""
    rules = Rules.from_name(rules)
    _kernels_against_iteration(rules, CeylonRule.from_name(rule), parse_position("W:a1,c5 B:c4,e1 w 1 1", rules))


def test_variants_lists_ceylonese_mill_with_its_tables_and_what_is_missing():
    import json

    from click.testing import CliRunner

    from solver.cli import main

    result = CliRunner().invoke(main, ["variants", "--json"])
    assert result.exit_code == 0, result.output
    data = {v["name"]: v["ceylonese"] for v in json.loads(result.stdout)["variants"]}
    assert data["standard"] == {
        "tables": True, "reference": True, "kernels": True,
        "gap": None,
        "options": {"open_points": 2, "extra_move": True},
        "source": "H. Parker, Ancient Ceylon (1909), pp. 577 and 580 (Nerenchi Keliya)"}
    for name in ("three-mens", "lasker", "mixed"):
        assert not data[name]["reference"] and data[name]["gap"].startswith(f"rules {name}")
        assert not data[name]["kernels"] and not data[name]["tables"]


# --- the files: build, resume, check, query ------------------------------------------------

def _cli(*args):
    from click.testing import CliRunner

    from solver.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def six4_files(tmp_path_factory):
    """Ceylonese mill's files of Six Men's Morris, four stones a side (Parker's reading),
    built by the command, and the tables solved in memory."""
    root = tmp_path_factory.mktemp("ceylonese-six4")
    result = _cli("build", "--db", root, "--rules", "six-mens-s4", "--phase", "ceylonese", "--quiet")
    assert result.exit_code == 0, result.output
    rules = Rules.from_name("six-mens-s4")
    return root, rules, ceylonese_tables.solve(rules, PARKER, jobs=2)


def test_a_dry_run_counts_an_unusable_file_to_build(six4_files, tmp_path):
    import shutil

    root, rules, _ = six4_files
    shutil.copytree(storage.rules_dir(root, rules), tmp_path / rules.name)
    files = sorted(storage.rules_dir(tmp_path, rules).glob("ceylonese-*.h5"))
    files[0].write_bytes(b"")
    files[3].unlink()
    files[3].mkdir()
    plan = _cli("build", "--db", tmp_path, "--rules", "six-mens-s4", "--phase", "ceylonese", "--dry-run")
    assert plan.exit_code == 0 and f"{len(files)} file(s) ({len(files) - 2} built)" in plan.output, plan.output


def test_options_of_other_tables_are_refused_not_passed_over(six4_files):
    """--dice or --ceylonese with another phase, and a count of the quiet-ply rule with
    --ceylonese, were passed over in silence (a hostile trial): now one line, status 2."""
    root, rules, _ = six4_files
    for args in (["build", "--dice", "sum12"], ["check", "--dice", "sum12"],
                 ["build", "--phase", "ceylonese", "--dice", "sum14", "--dry-run"],
                 ["build", "--phase", "dice", "--ceylonese", "ceylonese", "--dry-run"],
                 ["check", "--ceylonese", "ceylonese-no-extra"],
                 ["query", "--ceylonese", "ceylonese", "--quiet-plies", "30", "W:a1 B:b2 w 3 3"],
                 ["query", "--ceylonese", "ceylonese", "--quiet-limit", "30", "W:a1 B:b2 w 3 3"]):
        result = _cli(*args[:1], "--db", root, "--rules", "six-mens-s4", *args[1:])
        assert result.exit_code == 2 and result.output.count("\n") == 1, (args, result.output)
        assert "--phase" in result.output or "quiet-ply rule" in result.output, result.output


def test_the_files_hold_the_tables_solved_in_memory_and_a_rerun_resumes(six4_files):
    root, rules, tables = six4_files
    keys = ceylonese_tables.files(rules, PARKER)
    assert sum(isinstance(k, ceylonese_tables.Pair) for k in keys) == len(ceylonese_tables.moving_pairs(rules))
    for sub in ceylonese_tables.planned(rules, PARKER):
        assert np.array_equal(ceylonese_tables.read(root, rules, sub, PARKER, verify=True), tables.codes[sub]), sub
    reports = ceylonese_tables.build(root, rules, PARKER)
    assert len(reports) == len(keys) and all(r.skipped for r in reports)
    result = _cli("check", "--db", root, "--rules", "six-mens-s4", "--phase", "ceylonese")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"ok: {len(keys)} file(s) of Ceylonese mill (ceylonese), consistent\n"
    # the plain check of the folder checks them too, and calls none of them stray
    result = _cli("check", "--db", root, "--rules", "six-mens-s4")
    assert "that no build" not in result.output
    assert f"ok: {len(keys)} file(s) of Ceylonese mill (ceylonese)" in result.output


def test_query_answers_from_the_files_with_each_moves_value_by_the_reference(six4_files):
    """query --ceylonese: the position's value, and each move's for its mover from the
    position it leads to (kept turns as they are, passed ones a turn more), best first;
    the best move's value is the position's."""
    import json

    root, rules, tables = six4_files
    files = ceylonese_tables.FileTables(root, rules)
    rng = random.Random(12)
    subs = ceylonese_tables.planned(rules, PARKER)
    asked = 0
    for sub in rng.sample(subs, 8):
        real = np.flatnonzero(sub.real_mask())
        for slot in rng.sample(list(real), min(10, len(real))):
            pos = Position.from_view(*sub.position(int(slot)), sub.own_hand, sub.opp_hand, board=rules.board)
            if ceylonese.why_not_ceylonese(pos, PARKER) is not None or terminal(pos, rules, PARKER) is not None:
                continue
            moves = files.probe_moves(pos)
            assert moves and moves[0].value == files.value(pos) == tables.value(pos), str(pos)
            for m in moves:
                nxt = play(pos, m.move, rules, PARKER)
                assert m.again == (nxt.turn == pos.turn)
                assert m.value == (tables.value(nxt) if m.again else tables.value(nxt).for_mover())
            asked += 1
    assert asked > 30
    pos = "W:a1,b2,a5 B:e5,c5,e3 w"
    result = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", pos, "--json")
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    value = tables.value(parse_position(pos, rules))
    assert (obj["value"], obj["turns"]) == (value.wdl, value.plies) and obj["ceylonese"] == "ceylonese"
    assert [m["move"] for m in obj["moves"]] == [str(m.move) for m in files.probe_moves(parse_position(pos, rules))]
    text = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", pos)
    assert text.stdout.splitlines()[0] == f"{parse_position(pos, rules)}: {value} turns for White (Ceylonese mill, ceylonese)"
    turns = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "W: B: b 4 4")
    assert turns.exit_code == 0 and turns.stderr.startswith(
        "note: W: B: b 4 4: no game from the start reaches it (White has placed 0 stones and Black 0, with Black to "
        "place"), turns.stderr
    assert turns.stdout.startswith("W: B: b 4 4: "), turns.stdout
    unreachable = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "W:a1 B:e5 w 0 2")
    assert unreachable.exit_code == 2 and unreachable.output.startswith("muehle: error: no game of Ceylonese mill")
    # the placement ends with 12 points free there: no moving position has 10
    full = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese-open12", pos)
    assert full.exit_code == 2 and full.output == (f"muehle: error: no game of Ceylonese mill reaches "
                                                   f"{parse_position(pos, rules)}: only 10 points free in the "
                                                   f"moving phase: the placement ends with 12 free\n")


def test_damaged_wrong_and_missing_files_are_named_and_built_again(six4_files, tmp_path):
    """A flipped byte: check names the file (exit 1), query refuses it in one line, a
    build replaces it.  A file well formed but wrong (a code changed, written with its
    checksums): the check names it.  A file deleted: what needs it says so, with the
    build that makes it; a plain file is no Ceylonese one."""
    import shutil

    from solver import storage

    root = tmp_path / "db"
    shutil.copytree(six4_files[0], root)
    rules, tables = six4_files[1], six4_files[2]
    sub = ceylonese_tables.placement_subspaces(rules)[-3]
    path = ceylonese_tables.table_path(root, rules, sub)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    result = _cli("check", "--db", root, "--rules", "six-mens-s4", "--phase", "ceylonese")
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()      # the file, then each that reads it
    assert lines[0].startswith(f"muehle: error: {path} is damaged") and all(
        line.startswith("muehle: error: ") and path.name in line for line in lines)
    positions = (Position.from_view(*sub.position(int(i)), sub.own_hand, sub.opp_hand, board=rules.board)
                 for i in np.flatnonzero(sub.real_mask()))
    pos = next(p for p in positions if ceylonese.why_not_ceylonese(p, PARKER) is None)
    result = _cli("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", str(pos))
    assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1, result.output
    assert path.name in result.output and result.output.rstrip().endswith(
        f"rebuild it with: muehle build --db {root} --rules six-mens-s4 --phase ceylonese"), result.output
    reports = ceylonese_tables.build(root, rules, PARKER)
    assert [r.name for r in reports if not r.skipped] == [f"placement {sub.name} of ceylonese"]
    assert np.array_equal(ceylonese_tables.read(root, rules, sub, verify=True), tables.codes[sub])
    # well formed but wrong
    pair = ceylonese_tables.moving_pairs(rules)[-1]
    wrong = {s: tables.codes[s].copy() for s in pair.subspaces}
    codes = wrong[pair.subspaces[0]]
    slot = np.flatnonzero((codes != 0xFFFF) & (codes > 2))[len(codes) // 5]
    codes[slot] += 2
    storage.write_file(ceylonese_tables.table_path(root, rules, pair), rules, wrong, ceylonese="ceylonese")
    result = _cli("check", "--db", root, "--rules", "six-mens-s4", "--phase", "ceylonese")
    assert result.exit_code == 1 and "fails the consistency check" in result.output, result.output
    storage.write_file(ceylonese_tables.table_path(root, rules, pair), rules, {s: tables.codes[s] for s in pair.subspaces},
                       ceylonese="ceylonese")
    # a plain file under a Ceylonese name is foreign to it
    plain = storage.pair_path(root, rules, pair)
    storage.write_file(plain, rules, {s: tables.codes[s] for s in pair.subspaces})
    shutil.copy(plain, ceylonese_tables.table_path(root, rules, pair))
    with pytest.raises(ceylonese_tables.ForeignDatabaseError, match="holds plain values, not Ceylonese mill's"):
        ceylonese_tables.read(root, rules, pair.subspaces[0])
    # and one of dice mill is named as such (it said "plain values")
    storage.write_file(ceylonese_tables.table_path(root, rules, pair), rules,
                       {s: tables.codes[s] for s in pair.subspaces}, dice="triple")
    with pytest.raises(ceylonese_tables.ForeignDatabaseError, match="holds dice mill's values, not Ceylonese mill's$"):
        ceylonese_tables.read(root, rules, pair.subspaces[0])
    # missing: the placement that reads it says so, with the build
    ceylonese_tables.table_path(root, rules, pair).unlink()
    first_reader = next(s for s in ceylonese_tables.placement_subspaces(rules)
                        if pair.subspaces[0] in ceylonese_tables.children(s, rules))
    ceylonese_tables.table_path(root, rules, first_reader).unlink()
    with pytest.raises(ceylonese_tables.MissingSubspaceError) as err:
        ceylonese_tables.PlaceWork(root, rules, PARKER, first_reader).require_inputs()
    from solver.commands import explained
    assert explained(err.value).endswith(f"(build it with: muehle build --db {root} --rules six-mens-s4 "
                                         f"--phase ceylonese)")
    assert ceylonese_tables.build(root, rules, PARKER)       # both built again, in order
    assert ceylonese_tables.check_files(root, rules, PARKER)[1] == []


def test_without_the_extra_move_the_moving_files_are_the_plain_ones(tmp_path):
    rules, rule = Rules.from_name("six-mens-s3"), CeylonRule(extra_move=False)
    refused = _cli("build", "--db", tmp_path, "--rules", "six-mens-s3", "--phase", "ceylonese",
                   "--ceylonese", "ceylonese-no-extra")
    assert refused.exit_code == 2
    assert refused.output.strip().endswith(f"(build it with: muehle build --db {tmp_path} --rules six-mens-s3 "
                                           f"--phase moving)")
    assert _cli("build", "--db", tmp_path, "--rules", "six-mens-s3", "--phase", "moving", "--quiet").exit_code == 0
    reports = ceylonese_tables.build(tmp_path, rules, rule)
    assert len(reports) == len(ceylonese_tables.placement_subspaces(rules, rule))
    tables = ceylonese_tables.solve(rules, rule, jobs=2)
    for sub in ceylonese_tables.planned(rules, rule):
        assert np.array_equal(ceylonese_tables.read(tmp_path, rules, sub, rule), tables.codes[sub]), sub
    assert not list((tmp_path / "six-mens-s3").glob("ceylonese-no-extra-pair-*.h5"))
    # a plain pair they read gone: check names the build that makes it, not their own
    (tmp_path / "six-mens-s3" / "pair-3-3.h5").unlink()
    result = _cli("check", "--db", tmp_path, "--rules", "six-mens-s3", "--phase", "ceylonese",
                  "--ceylonese", "ceylonese-no-extra")
    assert result.exit_code == 1 and result.output.splitlines()[0].endswith(
        f"needs 3-3, not built in {tmp_path / 'six-mens-s3'} (build it with: muehle build --db {tmp_path} "
        f"--rules six-mens-s3 --phase moving)"), result.output


def test_the_perfect_computer_never_loses_and_wins_what_a_random_player_gives_away(six4_files, tmp_path):
    """play --ceylonese: whole games from the empty board against a player of random
    legal moves (also a wrong move, 'moves', 'hint' and 'undo' typed on the way): the
    tables' player never loses, and wins most; every game ends by the rules, and the
    record saved then reads back as the same game."""
    from solver.ceylonese import CeylonGame
    from solver.cli.games import CeylonSession

    root, rules, _ = six4_files
    tables = ceylonese_tables.FileTables(root, rules)
    rng = random.Random(3)
    results = []
    for n in range(12):
        game = CeylonGame(rules, PARKER)
        said: list[str] = []
        typed = iter(["z9", "moves", "hint"] + ["undo"] * (n % 2))

        saved = tmp_path / f"game-{n}.txt"
        ends: list[str] = []

        def read(prompt: str) -> str | None:
            if game.outcome() is not None:     # once over: the game saved, then the end of input
                ends.append(prompt)
                return f"save {saved}" if len(ends) == 1 else None
            extra = next(typed, None)
            return extra if extra is not None else str(rng.choice(game.legal_moves()))

        human = "w" if n % 2 else "b"
        outcome = CeylonSession(game, human, tables, rng, read=read, out=said.append).run()
        assert outcome is not None and outcome == game.outcome()
        assert outcome[0] != human, "\n".join(said[-6:])
        assert any(line.startswith("cannot parse move 'z9'") for line in said)
        assert any(line.startswith("best: ") for line in said)
        # the record saved after the end is the game: the same moves, the same end
        assert ends[0] == "game over (save FILE, quit) > " and f"game saved to {saved}" in said
        again = ceylonese.read_ceylon_record(saved.read_text())
        assert again.moves == game.moves and again.positions == game.positions and again.outcome() == outcome
        results.append(outcome)
    assert sum(winner is not None for winner, _ in results) >= 8, results


def test_play_ceylonese_from_the_command_line(six4_files):
    root = six4_files[0]
    result = _cli("play", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "--level", "easy",
                  "--seed", "1", "--position", "W:a1,b2,a5 B:e5,c5,e3 w")
    assert result.exit_code == 0, result.output
    assert "Ceylonese mill under rules six-mens-s4" in result.output
    missing = _cli("play", "--db", root / "nothing", "--rules", "six-mens-s4", "--ceylonese", "ceylonese",
                   "--level", "perfect")
    assert missing.exit_code == 2 and missing.output.count("\n") == 1
    assert missing.output.rstrip().endswith("; or play --level easy, which plays at random")
    unreachable = _cli("play", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese",
                       "--position", "W:a1 B:e5 w 0 2")
    assert unreachable.exit_code == 2 and "no game of Ceylonese mill reaches" in unreachable.output


def test_the_dry_run_plans_the_files_and_their_largest_unit(tmp_path):
    rules = Rules(stones=12)            # Parker's game: planned, not built here
    result = _cli("build", "--db", tmp_path, "--stones", 12, "--phase", "ceylonese", "--dry-run")
    assert result.exit_code == 0, result.output
    keys = ceylonese_tables.files(rules)
    largest = max(keys, key=lambda k: ceylonese_tables.memory_needed(k, rules))
    assert result.stdout.startswith(f"ceylonese phase (ceylonese): {len(keys)} file(s) (0 built), "
                                    f"{sum(k.slots for k in keys):,} slots, 2 bytes each; largest unit ")
    assert result.stdout.rstrip().endswith(f"({largest.name})") and largest.name == "8-9"
    assert not (tmp_path / "standard-s12").exists() or not any((tmp_path / "standard-s12").iterdir())
    refused = _cli("build", "--db", tmp_path, "--stones", 5, "--phase", "ceylonese", "--max-total", 8)
    assert refused.exit_code == 2 and "not by --pair or --max-total" in refused.output


def test_stats_of_the_files_count_the_tables(six4_files):
    """stats --ceylonese: the counts each file recorded when it was built, added up, are
    the tables' own (every real slot's code counted here) and docs/results.md's row."""
    import json

    root, rules, tables = six4_files
    result = _cli("stats", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "--json")
    assert result.exit_code == 0, result.output
    total = json.loads(result.stdout)["total"]
    codes = np.concatenate([c[c != 0xFFFF] for c in tables.codes.values()]).astype(np.int64)
    assert total == {"wins": int(np.sum((codes % 2 == 0) & (codes > 0))), "losses": int(np.sum(codes % 2 == 1)),
                     "draws": int(np.sum(codes == 0)), "longest_win": int(codes[codes % 2 == 0].max()) - 1,
                     "longest_loss": int(codes[codes % 2 == 1].max()) - 1}
    assert (total["wins"], total["losses"], total["draws"]) == (100_218, 46_050, 23_099)


def test_what_no_game_reaches_and_what_cannot_be_built_are_refused_in_one_line(six4_files, tmp_path):
    """Found by a hostile trial: positions whose stones do not add up while placing
    (nothing is taken then) were looked for in files no build makes, or answered "win
    in 1"; --dice beside --ceylonese answered dice mill's values; -open<N> with N the
    board's points built nothing and said so as a success; a folder that is a file was
    "missing"."""
    root = six4_files[0]

    def refused(*args) -> str:
        result = _cli(*args)
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        return result.output

    for pos, side, count in [("W:a1 B:e5 b 2 3", "White", 3), ("W:a1 B:e5 w 3 0", "Black", 1),
                             ("W: B: w 3 4", "White", 3)]:
        for command in ("query", "play"):
            where = [pos] if command == "query" else ["--position", pos]
            out = refused(command, "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", *where)
            assert out.rstrip().endswith(f"{side} has {count} stones on the board and in hand while stones are "
                                         f"placed, not 4: nothing is taken then"), out
    out = refused("query", "--db", root, "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "--dice", "triple",
                  "startpos")
    assert out == "muehle: error: --ceylonese answers one POSITION: not with --batch, --line, --after or --dice\n"
    for command in (["build", "--phase", "ceylonese"], ["query", "startpos"]):
        out = refused(*command[:1], "--db", tmp_path, "--rules", "six-mens-s4", *command[1:],
                      "--ceylonese", "ceylonese-open16")
        assert "the placement would end with 16 points free, and the six-mens board has 16" in out, out
    (tmp_path / "file").mkdir()
    (tmp_path / "file" / "six-mens-s4").write_text("x")
    out = refused("query", "--db", tmp_path / "file", "--rules", "six-mens-s4", "--ceylonese", "ceylonese", "startpos")
    assert "is a file where the folder of rules six-mens-s4 belongs" in out


def test_the_page_plays_ceylonese_mill_with_its_turns_and_hints(six4_files):
    """/api/game and /api/play with ``ceylonese``: whole games of a human who plays at
    random but closes a mill where one can, against the perfect computer.  Every state
    is the reference's game after the moves, who made each move included (a mill earns
    another, so the page asks the computer again, and its undo goes back over the
    human's whole turn); the hints are query --ceylonese's values, the computer plays
    the tables' best move, and never loses."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from solver.ceylonese import CeylonGame
    from solver.web import create_app

    root, rules, _ = six4_files
    files = ceylonese_tables.FileTables(root, rules)
    rng = random.Random(5)
    with TestClient(create_app(root, rules)) as client:
        def post(path, **params):
            reply = client.post(path, json={"rules": rules.name, "ceylonese": "ceylonese", **params})
            return reply.json() if reply.status_code == 200 else (reply.status_code, reply.json()["error"])

        twice = human_twice = 0         # turns of more than one move: the computer's, the human's
        for n in range(6):
            human = "wb"[n % 2]
            # (the last two from where White closes a mill by a5-c5-e5: the perfect player
            # leaves a random one few chances to)
            start = None if n < 4 else "W:a5,c5 B:b2,b4 w 2 2"
            moves: list[str] = []
            st = post("/api/game", start=start, moves=moves)
            for _ in range(200):
                game = CeylonGame(rules, PARKER, None if start is None else parse_position(start, rules))
                for m in moves:
                    game.play(m)
                pos = game.position
                assert st["played"] == moves and st["position"] == str(pos)
                assert st["ceylonese"]["movers"] == [p.turn for p in game.positions[:-1]]
                assert st["ceylonese"]["again"] == (len(moves) > 0 and game.positions[-2].turn == pos.turn)
                assert set(st["moves"]) == {str(m) for m in game.legal_moves()}
                if st["game_over"] is not None:
                    break
                hints = st["hints"]
                query = files.query_object(pos)
                assert (hints["value"], hints["turns"]) == (query["value"], query["turns"])
                assert [(h["move"], h["value"], h["turns"], h["again"]) for h in hints["moves"]] == \
                    [(q["move"], q["value"], q["turns"], q["again"]) for q in query["moves"]]
                if pos.turn == human:
                    human_twice += st["ceylonese"]["again"]
                    mills = [h["move"] for h in hints["moves"] if h["again"]]
                    moves.append(rng.choice(mills or st["moves"]))
                    st = post("/api/game", start=start, moves=moves)
                else:
                    twice += st["ceylonese"]["again"]
                    st = post("/api/play", start=start, moves=moves, level="perfect", seed=n)
                    assert st["computer_move"] == str(files.probe_moves(pos)[0].move)
                    assert st["notes"] == [] and st["played"] == moves + [st["computer_move"]]
                    moves = st["played"]
            assert st["game_over"] is not None, moves
            assert st["winner"] != human, st["result"]
            assert st["result"] == ("draw" if game.outcome()[0] is None else
                                    f"{'White' if game.outcome()[0] == 'w' else 'Black'} wins") + \
                f" ({game.outcome()[1]})"
        assert twice and human_twice
        # level easy plays at random, seeded: the same seed, the same move
        easy = [post("/api/play", moves=["a1"], level="easy", seed=7)["computer_move"] for _ in range(2)]
        assert easy[0] == easy[1] and easy[0] in {str(m) for m in legal_moves(parse_position("W:a1 B: b 3 4", rules),
                                                                                rules)}
        # refusals, in one line each
        for params, status, message in [
                ({"dice": "triple"}, 400, "give dice or ceylonese, not both"),
                ({"ceylonese": "ceylonese-x"}, 400, "unknown Ceylonese rule 'ceylonese-x'"),
                ({"rules": "three-mens"}, 400, "a line of three wins the game"),
                ({"moves": ["a1", "a1"]}, 400, "move 2: illegal move a1"),
                ({"start": "W:a1 B:e5 w 0 3"}, 400, "no game of Ceylonese mill reaches"),
                ({"level": "genius"}, 400, "unknown level 'genius'")]:
            code, error = post("/api/play", **params)
            assert code == status and message in error and "\n" not in error, error
        # a start no game from the empty board reaches by the order of turns: played, with a note
        st = post("/api/game", start="W: B: b 4 4")
        assert st["ceylonese"]["note"].startswith("no game from the start reaches it") and st["moves"]
        assert post("/api/game")["ceylonese"]["note"] is None
        # tables not built: the game goes on by the rules, and the hints say what builds them
        st = post("/api/game", ceylonese="ceylonese-no-extra")
        assert st["moves"] and st["hints"]["error"].endswith("--phase ceylonese --ceylonese ceylonese-no-extra)")
        over = post("/api/play", start=start, moves=moves)
        assert over[0] == 400 and over[1].startswith("the game is over: ")


def test_a_record_of_ceylonese_mill_reads_back_and_its_analysis_is_the_tables(six4_files, tmp_path):
    """CeylonGame.record and read_ceylon_record: random games (mills and all) read back
    move for move; analyze (text and --json) gives each move the tables' values before
    and after it for its mover, in turns, and marks a move that throws the win away;
    bad records are refused in one line, and the plain readers refuse this one."""
    import json

    from solver.ceylonese import CeylonGame, read_ceylon_record
    from solver.errors import InvalidNotationError
    from solver.game import Game

    root, rules, tables = six4_files
    rng = random.Random(8)
    for n in range(20):
        game = CeylonGame(rules, PARKER)
        while game.outcome() is None and len(game.moves) < 80:
            game.play(rng.choice(game.legal_moves()))
        again = read_ceylon_record(game.record())
        assert again.moves == game.moves and again.positions == game.positions
    # a game where White, drawing, plays its worst move (into a loss), then the best
    start = parse_position("W:a5,c5,b2 B:a1,e1,d2 w", rules)
    game = CeylonGame(rules, PARKER, start)
    while game.outcome() is None and len(game.moves) < 6:
        moves = ceylonese_tables.FileTables(root, rules).probe_moves(game.position)
        game.play(moves[-1 if len(game.moves) == 0 else 0].move)
    path = tmp_path / "game.txt"
    path.write_text(game.record())
    assert game.record().startswith("rules: six-mens-s4\nceylonese: ceylonese\nstart: W:a5,b2,c5 B:a1,d2,e1 w\n")
    result = _cli("analyze", "--db", root, path, "--json")
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert (obj["ceylonese"], obj["counts"], obj["start"]) == ("ceylonese", "turns", str(start))
    assert [r["move"] for r in obj["moves"]] == [str(m) for m in game.moves]
    for i, row in enumerate(obj["moves"]):
        pos, after = game.positions[i], game.positions[i + 1]
        value = tables.value(pos)
        mover = tables.value(after) if after.turn == pos.turn else tables.value(after).for_mover()
        assert (row["before"], row["before_plies"]) == (value.wdl, value.plies)
        assert (row["after"], row["after_plies"]) == (mover.wdl, mover.plies), row
        assert row["again"] == (after.turn == pos.turn) and row["side"] == pos.turn
    first = obj["moves"][0]            # the worst of a drawn position: a loss in 4 turns
    assert (first["before"], first["after"], first["after_plies"]) == ("draw", "loss", 4)
    assert (first["mark"], first["blunder"], first["best"]) == ("??", "lost the draw", "b2-c2")
    assert obj["summary"]["w"]["??"] == 1
    text = _cli("analyze", "--db", root, path)
    assert text.exit_code == 0 and text.stdout.startswith(
        "Ceylonese mill (ceylonese), rules six-mens-s4, start W:a5,b2,c5 B:a1,d2,e1 w; values for the mover, in turns")
    # refusals, one line each
    for bad, words in [("ceylonese: ceylonese\nrules: six-mens-s4\na1\na1\n", "line 4: illegal move a1"),
                       ("ceylonese: nope\n", "record: ceylonese: unknown Ceylonese rule 'nope'"),
                       ("ceylonese: ceylonese\ndice: triple\n", "a game is of dice mill or of Ceylonese mill"),
                       ("ceylonese: ceylonese\nquiet-limit: 40\n", "quiet-limit: is no part of Ceylonese mill's"),
                       ("ceylonese: ceylonese\nrules: six-mens-s4\nresigned: w\n", "has no resignation")]:
        path.write_text(bad)
        refused = _cli("analyze", "--db", root, path)
        assert refused.exit_code == 2 and refused.output.count("\n") == 1 and words in refused.output, refused.output
    path.write_text(game.record())
    missing = _cli("analyze", "--db", tmp_path / "none", path)
    assert missing.exit_code == 2 and missing.output.count("\n") == 1 and "--phase ceylonese" in missing.output
    plain = _cli("record", path)
    assert plain.exit_code == 2 and "a record of Ceylonese mill" in plain.output
    with pytest.raises(InvalidNotationError, match="of Ceylonese mill"):
        Game.from_record(game.record())


def test_found_by_a_hostile_trial_of_the_records_and_the_page(six4_files, monkeypatch):
    """A legal record of thousands of moves was replayed in quadratic time (each move
    counted the repetitions over the whole game: 4,000 moves took 4 s, 100,000 some 45
    minutes); a record without rules: was a 12-stone game to analyze and a 9-stone one to
    the page; starts where a side had fewer than two stones, or both two, were played
    and given a winner; dice 'NONE' beside ceylonese was refused; think was not checked."""
    import warnings

    from solver.ceylonese import CeylonGame, read_ceylon_record
    from solver.errors import InvalidNotationError

    root, rules, _ = six4_files
    # the repetitions are counted as the game goes (a replay is linear): a few counts a
    # move, not one a position played before; undo takes its count back
    game = CeylonGame(rules, PARKER)
    rng = random.Random(4)
    while game.outcome() is None:
        game.play(rng.choice(game.legal_moves()))
    assert len(game.moves) > 60
    counted = []
    monkeypatch.setattr(ceylonese, "_key", lambda pos, key=ceylonese._key: counted.append(1) or key(pos))
    again = read_ceylon_record(game.record())
    assert again.positions == game.positions and again.outcome() == game.outcome()
    assert len(counted) <= 3 * len(game.moves) + 3, (len(counted), len(game.moves))
    while again.moves:
        again.undo()
        assert again.repetitions() == sum(p == again.position for p in again.positions)
    # the record names its rules
    with pytest.raises(InvalidNotationError, match="names its rules"):
        read_ceylon_record("ceylonese: ceylonese\na1\n")
    # starts no game reaches: refused, not given a winner
    for text, words in [("W: B: w", "White has 0 stone(s)"), ("W:a1,a3,a5 B: w", "Black has 0 stone(s)"),
                        ("W:a1,a3 B:e1,e3 w", "both sides have two stones")]:
        assert words in ceylonese.why_not_ceylonese(parse_position(text, rules), PARKER)
    assert ceylonese.why_not_ceylonese(parse_position("W:a1,a3,a5 B:e1,e3 w", rules), PARKER) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from solver.web import create_app
    with TestClient(create_app(root, rules)) as client:
        def post(path, **params):
            return client.post(path, json={"rules": rules.name, "ceylonese": "ceylonese", **params})
        refused = post("/api/game", start="W:a1,a3 B:e1,e3 w")
        assert refused.status_code == 400 and "both sides have two stones" in refused.json()["error"]
        for none in ("NONE", " none ", "  "):
            assert post("/api/game", dice=none).status_code == 200
        assert post("/api/play", think="abc").json()["error"] == "think must be a number"
        bare = client.post("/api/analyze", json={"record": "ceylonese: ceylonese\na1\n"})
        assert bare.status_code == 400 and "names its rules" in bare.json()["error"]
    quiet = _cli("play", "--db", root, "--rules", rules.name, "--ceylonese", "ceylonese", "--quiet-limit", "10")
    assert quiet.exit_code == 2 and "no quiet-ply rule" in quiet.output


def test_the_files_are_probed_a_chunk_at_a_time(tmp_path):
    """FileTables reads the chunk of each position it is asked, not its whole subspace
    (a game of twelve stones a side has subspaces of gigabytes): on the 4-stone standard
    game, whose pair 4-4 spans dozens of chunks, every probed value equals the file's
    whole read, and the chunks kept are few and bounded."""
    from solver import storage

    rules = Rules(stones=4)
    ceylonese_tables.build(tmp_path, rules, PARKER, jobs=2)
    files = ceylonese_tables.FileTables(tmp_path, rules)
    sub = Subspace(4, 4)
    whole = ceylonese_tables.read(tmp_path, rules, sub)
    assert len(whole) > 10 * storage.CHUNK
    rng = random.Random(6)
    real = np.flatnonzero(sub.real_mask())
    for slot in rng.sample(list(real), 300):
        pos = Position.from_view(*sub.position(int(slot)), 0, 0, board=rules.board)
        if ceylonese.why_not_ceylonese(pos, PARKER) is None:
            assert files.code(pos) == whole[slot], str(pos)
    kept = files.codes.chunks
    assert 0 < len(kept) <= files.codes.CHUNKS and all(len(c) <= storage.CHUNK for c in kept.values())


def test_open_points_that_end_the_placement_short_of_three_stones_are_played_out(tmp_path):
    """With open points that leave few stones (six-mens-s3, -open12: four on the board),
    the placement can end with a side, or both, short of three stones: the tables said
    who had lost, but play and query refused the position as one no game reaches. The
    side to move short of three has lost there, else the other (design.md §12)."""
    rule = CeylonRule.from_name("ceylonese-open12")
    rules = Rules.from_name("six-mens-s3")
    both = parse_position("W:a5,e5 B:b4,c5 w", rules)
    assert ceylonese.why_not_ceylonese(both, rule, rules) is None
    assert "both sides have two stones" in ceylonese.why_not_ceylonese(both, PARKER, rules)
    assert terminal(both, rules, rule) == LOSS
    # with a side at one stone no mill was closed: the turns alternated, White first
    lone = parse_position("W:a1 B:" + ",".join(["a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
                                                "d5"]) + " w", Rules(stones=12))
    assert "the sides placed in turn, White first" in ceylonese.why_not_ceylonese(
        lone, CeylonRule.from_name("ceylonese-open12"), Rules(stones=12))
    one = parse_position("W:a5 B:c5 w 2 2", rules)
    thirteen = CeylonRule.from_name("ceylonese-open13")
    after = play(one, parse_move("e5", rules.board), rules, thirteen)
    assert (str(after), terminal(after, rules, thirteen)) == ("W:a5,e5 B:c5 b", LOSS)
    assert ceylonese.why_not_ceylonese(after, CeylonRule.from_name("ceylonese-open13"), rules) is None
    built = _cli("build", "--db", tmp_path, "--rules", "six-mens-s3", "--phase", "ceylonese",
                 "--ceylonese", "ceylonese-open12", "--quiet")
    assert built.exit_code == 0, built.output
    from click.testing import CliRunner
    from solver.cli import main
    played = CliRunner().invoke(main, ["play", "--db", str(tmp_path), "--rules", "six-mens-s3", "--ceylonese",
                                       "ceylonese-open12", "--level", "perfect"], input="a5\ne5\n")
    assert played.exit_code == 0, played.output
    assert "Game over: Black wins (fewer than three stones)" in played.output
    query = _cli("query", "--db", tmp_path, "--rules", "six-mens-s3", "--ceylonese", "ceylonese-open12",
                 "W:a5,e5 B:c5 b 1 2")
    assert query.exit_code == 0 and "win in 1 turn for Black" in query.output, query.output
