"""Three Men's Morris solved whole on the compiled kernels (docs/design.md §9: a line
of three wins, a compile-time rule of the three-mens board's kernels).

The state space is tiny (a few thousand positions), so everything is checked on every
position: the kernels' moves and un-moves against the reference rules, and the built
files (both phases) against a retrograde pass written here over the reference rules
alone (solver.position: no kernel, no index), against the independent oracle (moving
phase) and against the opening search (placement phase).  Then the commands, from the
files, and their bad input.
"""

from __future__ import annotations

import dataclasses
import json
from itertools import combinations

import pytest
from click.testing import CliRunner

from solver import placement
from solver.board import BOARDS, mask_of
from solver.build import build
from solver.cli import main
from solver.index import Subspace
from solver.kernels import kernels_for
from solver.opening import OpeningSearch
from solver.verify.retrograde import positions, solve
from solver.position import Position, mill_points
from solver.probe import open_database
from solver.retro import pairs_in_order
from solver.rules import LINE_BOARDS, VARIANTS, Rules
from solver.values import WIN, Value, decode
from solver.verify.oracle import Oracle, compare

BOARD = BOARDS["three-mens"]
THREE = VARIANTS["three-mens"]
#: The variant, Murray's "nine holes" (every stone jumps), and four stones a side with
#: jumping (the most the index covers on nine points: a side can then have a line and
#: stones in hand, or a line the other side blocks, and a side of three jumps).
RULE_SETS = [THREE, dataclasses.replace(THREE, jumping=True),
             dataclasses.replace(THREE, stones=4, jumping=True)]


def test_the_line_rule_is_compiled_into_exactly_the_line_boards():
    for name, board in BOARDS.items():
        assert kernels_for(board).line_wins() == (name in LINE_BOARDS), name


def sets(k: int) -> list[int]:
    return [mask_of(c) for c in combinations(range(BOARD.num_points), k)]


def game_positions(rules: Rules) -> list[Position]:
    """Every position of the game's subspaces (moving pairs and placement), from the
    side to move's view (White to move)."""
    shapes = [(m, o, 0, 0) for pair in pairs_in_order(rules) for m, o in pair.subspaces]
    shapes += [tuple(s) for s in placement.plan(rules)]
    out = []
    for m, o, h, k in shapes:
        for own in sets(m):
            for opp in sets(o):
                if not own & opp:
                    out.append(Position(own, opp, h, k, board=BOARD))
    return out


def reference_codes(rules: Rules) -> dict[tuple[int, int, int, int], int]:
    """The code of every position of the game by the reference rules alone
    (solver.verify.retrograde: its moves from Position.legal_moves, solved backwards in
    plain Python).  A position the rules decide before any move (a line stands) is lost
    in 0, or, where only the side to move has a line, won: coded as a win in 1
    (docs/design.md §9)."""
    shapes = sorted({(s.m, s.o, s.own_hand, s.opp_hand) for s in map(Subspace.of, game_positions(rules))})
    return solve(rules, positions(rules, shapes))


# --- the kernels' moves ------------------------------------------------------------

@pytest.mark.parametrize("rules", RULE_SETS[:2] + [pytest.param(RULE_SETS[2], marks=pytest.mark.slow)],
                         ids=lambda r: r.name)
def test_moves_and_unmoves_equal_the_reference_on_every_position(rules):
    """(Four stones a side, 23 s at load 9, is slow: tests/test_boards.py checks its
    moves on random positions by default.)"""
    kernels = kernels_for(BOARD)
    seen = {"line": 0, "over": 0, "unmoves": 0}
    for view in game_positions(rules):
        got = kernels.moves_packed(view.own, view.opp, view.own_hand, view.opp_hand, rules.flags)
        assert sorted(got) == sorted(m.pack() for m in view.legal_moves(rules)), str(view)
        back = kernels.unmoves_packed(view.own, view.opp, view.own_hand, view.opp_hand, rules.flags)
        assert sorted(back) == sorted(m.pack() for m, _ in view.quiet_predecessors(rules)), str(view)
        seen["over"] += view.terminal_wdl(rules) is not None and mill_points(view.opp, BOARD) != 0
        seen["line"] += bool(back) and mill_points(view.opp, BOARD) != 0
        seen["unmoves"] += bool(back)
    assert min(seen.values()) > 50, seen


# --- the whole game built and its values -------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each rule set built whole (both phases, with the build's own check)."""
    root = tmp_path_factory.mktemp("three")
    for rules in RULE_SETS:
        build(root, rules, jobs=1, progress=False)
    return root


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_built_values_equal_the_reference_on_every_position(built, rules):
    expected = reference_codes(rules)
    slots: dict[Subspace, set[int]] = {}
    with open_database(built, rules, in_memory=True) as db:
        for (own, opp, h, k), code in expected.items():
            pos = Position(own, opp, h, k, board=BOARD)
            assert db.code(own, opp, h, k) == code, (str(pos), code)
            # probing answers what the rules decide before any move, in 0 plies
            won_by_line = code == 2 and mill_points(own, BOARD) != 0
            assert db.probe(pos) == (Value(WIN, 0) if won_by_line else decode(code)), str(pos)
            sub = Subspace.of(pos)
            slots.setdefault(sub, set()).add(sub.index(own, opp))
        # every real slot of every file was compared
        for sub, seen in slots.items():
            assert len(seen) == int((db.subspace(*sub) != 0xFFFF).sum()), sub


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_moving_phase_equals_the_oracle_and_placement_the_search(built, rules):
    oracle = Oracle(rules, jobs=1)
    with open_database(built, rules, in_memory=True) as db:
        for pair in pairs_in_order(rules):
            for m, o in pair.subspaces:
                mismatches, count, unhit = compare(m, o, oracle.get(m, o), db.subspace(m, o),
                                                   board=BOARD)
                assert count == 0 and unhit == 0, "\n".join(mismatches)
        search = OpeningSearch(rules, db.subspace)
        for sub in placement.plan(rules):
            codes = db.subspace(*sub)
            for slot in range(sub.slots):
                if codes[slot] == 0xFFFF:
                    continue
                pos = Position(*sub.position(slot), sub.own_hand, sub.opp_hand, board=BOARD)
                assert search.solve(pos).value == decode(int(codes[slot])).value, pos


# --- the commands ---------------------------------------------------------------------

def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


#: White closes the diagonal a1-b2-c3 by c2-c3, or the row a2-b2-c2 by a1-a2: won in 1.
WON_IN_ONE = "W:a1,b2,c2 B:a3,b3,c1 w"
WINS_IN_ONE = ("c2-c3", "a1-a2")


def test_commands_work_on_three_mens_from_the_files(tmp_path):
    db = tmp_path
    built = run("build", "--db", db, "--rules", "three-mens", "--jobs", 1)
    assert built.exit_code == 0, built.output
    checked = run("check", "--db", db, "--rules", "three-mens", "--quiet")
    assert checked.exit_code == 0 and "under the 50-ply rule, 886 slots consistent" in checked.stdout, checked.output
    stats = run("stats", "--db", db, "--rules", "three-mens", "--json")
    assert stats.exit_code == 0 and json.loads(stats.stdout), stats.output
    start = run("query", "--db", db, "--rules", "three-mens", "startpos")
    assert start.exit_code == 0 and start.stdout.startswith("W: B: w 3 3: win in 9 plies for White"), start.output
    # the tables of the quiet-ply rule are built with the game (a line's win is its only
    # mill: tests/test_dtz.py holds them to the brute force) and checked by `check`
    assert (db / "three-mens" / "dtz50-pair-3-3.h5").exists()
    assert start.stdout.splitlines()[1] == "under the 50-ply rule: win", start.output
    query = run("query", "--db", db, "--rules", "three-mens", WON_IN_ONE)
    assert query.exit_code == 0 and "win in 1 ply for White" in query.stdout.splitlines()[0], query.output
    assert query.stdout.splitlines()[1] == "under the 50-ply rule: win, next mill in 1", query.output
    best = run("best-move", "--db", db, "--rules", "three-mens", WON_IN_ONE)
    assert best.exit_code == 0 and best.stdout.split()[0] in WINS_IN_ONE, best.output
    # placing, the line that wins now (c1), not a win later (chosen under the rule)
    best = run("best-move", "--db", db, "--rules", "three-mens", "W:a1,b1 B:a3,b3 w 1 1")
    assert best.exit_code == 0 and best.stdout.split()[0] == "c1", best.output
    for level in ("easy", "medium", "hard", "perfect"):
        game = run("play", "--db", db, "--rules", "three-mens", "--level", level, "--seed", 1,
                   "--colour", "black", "--position", WON_IN_ONE, "--think", 0.5, input="quit\n")
        assert game.exit_code == 0 and "Traceback" not in game.output, game.output
        if level != "easy":
            assert "White wins (a line of three)" in game.stdout, game.output
    record = tmp_path / "game.txt"
    record.write_text(f"rules: three-mens\nstart: {WON_IN_ONE}\nc2-c3\n")
    analysis = run("analyze", "--db", db, "--json", record)
    assert analysis.exit_code == 0 and "Traceback" not in analysis.output, analysis.output
    # bad input: a point of another board, a move that takes where a line wins
    bad = run("query", "--db", db, "--rules", "three-mens", "W:d7 B:a1 w")
    assert bad.exit_code == 2 and len(bad.stderr.splitlines()) == 1 and "three-mens board" in bad.stderr
    for move, rule in (("c2-c3xa3", "a line of three wins the game and takes no stone"),
                       ("a1-b2", "b2 is not free"), ("c2-b1", "not adjacent (rules 'three-mens': no jumping)")):
        record.write_text(f"rules: three-mens\nstart: {WON_IN_ONE}\n{move}\n")
        result = run("analyze", "--db", db, record)
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
        assert rule in result.stderr, result.stderr
