"""A full board on the compiled kernels: lost for the blocked side (Morabaraba) or drawn
(Twelve Men's Morris), the rule ``Rules.full_board`` (docs/design.md §9).

Only a board of twice the stones a side fills up, so the test bed is the Six Men's
board (16 points) with 8 stones a side, under both rules: the full board is the
moving-phase pair 8-8, every position of which is blocked, and the placement phase
reaches it by the last placement that closes no mill.  The kernels' values are proven
against the reference rules (``Position.outcome``), the independent oracle, the forward
check and, for the whole game (slow), the in-memory backward pass and the search.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver import placement, storage
from solver.build import build
from solver.index import Pair, Subspace
from solver.kernels import kernels_for
from solver.opening import OpeningSearch
from solver.position import Position, parse_position
from solver.probe import open_database
from solver.retro import solve_pair
from solver.rules import FULL_DRAW, FULL_LOSS, VARIANTS, kernel_gap
from solver.values import DRAW, LOSS, SLACK_CODE, WIN
from solver.verify.check import check_values
from solver.verify.oracle import Oracle, compare

#: Six Men's Morris with 8 stones a side, the full board lost and drawn.
RULES = {rule: dataclasses.replace(VARIANTS["six-mens"], stones=8, full_board=rule)
         for rule in (FULL_LOSS, FULL_DRAW)}
BOARD = RULES[FULL_LOSS].board
FULL = Subspace(8, 8, board=BOARD)
SEED = 20261130


def reference_code(position: Position, rules) -> int | None:
    """The code the rules give a finished position (None: the game goes on)."""
    outcome = position.terminal_wdl(rules)
    return None if outcome is None else {LOSS: 1, DRAW: 0, WIN: 2}[outcome]


def never_read(m: int, o: int) -> np.ndarray:
    """A capture target of the full pair: the full board has no move, so nothing reads
    it; slack codes make a read show."""
    return np.full(Subspace(m, o, board=BOARD).slots, SLACK_CODE, dtype=np.uint16)


def solved_full_pair(rules) -> np.ndarray:
    return solve_pair((8, 8), rules, never_read, jobs=2).values[8, 8]


def test_kernels_know_the_full_board_rule():
    assert kernel_gap(VARIANTS["twelve-mens"]) is None
    assert all(kernel_gap(rules) is None for rules in RULES.values())
    assert RULES[FULL_DRAW].name == "six-mens-full-draw-s8" and RULES[FULL_DRAW].full_draw


@pytest.mark.parametrize("rule", [FULL_LOSS, FULL_DRAW])
def test_the_full_pair_is_scored_as_the_reference_rules_say(rule):
    """Every position of 8-8 is a full board: the backward pass gives each the outcome of
    Position.outcome (loss in 0, or a draw)."""
    rules = RULES[rule]
    values = solved_full_pair(rules)
    real = FULL.real_mask().astype(bool)
    slots = np.flatnonzero(real)
    assert len(slots) == BOARD.orbits(8, 8) and (values[~real] == SLACK_CODE).all()
    own, opp = FULL.positions_many(slots)
    for slot, w, b in zip(slots, own, opp):
        position = Position.from_view(int(w), int(b), 0, 0, board=BOARD)
        assert values[slot] == reference_code(position, rules), (rule, position)
    assert set(values[slots]) == {0 if rule == FULL_DRAW else 1}


@pytest.mark.slow
@pytest.mark.parametrize("rule", [FULL_LOSS, FULL_DRAW])
def test_the_full_pair_equals_the_oracle(rule):
    """The oracle's value of every raw position of 8-8 (165,636,900 entries, 1.4 GB of
    oracle arrays; about 5 CPU s) equals the backward pass's at its slot."""
    rules = RULES[rule]
    values = solved_full_pair(rules)
    mismatches, count, unhit = compare(8, 8, Oracle(rules).get(8, 8), values, board=BOARD)
    assert count == 0 and unhit == 0, "\n".join(mismatches)


@pytest.mark.parametrize("grouped", [False, True])
def test_the_check_holds_the_full_pair_to_its_rule(grouped):
    """The forward check accepts the full pair solved under its own rule and rejects
    every position of it under the other."""
    for rule, other in ((FULL_LOSS, FULL_DRAW), (FULL_DRAW, FULL_LOSS)):
        values = {(8, 8): solved_full_pair(RULES[rule])}
        assert check_values((8, 8), RULES[rule], values, never_read, grouped=grouped) == []
        bad = check_values((8, 8), RULES[other], values, never_read, grouped=grouped, max_bad=4)
        assert len(bad) == 4 and all((b.m, b.o) == (8, 8) for b in bad)


def test_the_last_placement_fills_the_board():
    """The placement subspace 7-8+1-0: one stone left to place and one point free.
    With the same capture child (random codes) and the full pair of each rule as quiet
    child, the build's pass and the check's pass equal, position by position, the best
    of the children valued by the reference rules; the two rules differ exactly where
    the last stone closes no mill and so fills the board (won in 1, or drawn).  (A
    capture child's random code stands for its value, also where the rules would
    decide it: the passes read it, as they read a stored file.)"""
    sub = Subspace(7, 8, 1, 0, board=BOARD)
    quiet, capture = placement.children(sub)
    assert quiet == FULL and capture == Subspace(7, 8, board=BOARD)
    rng = np.random.default_rng(SEED)
    cap = rng.integers(0, 40, capture.slots, dtype=np.uint16)
    kernels = kernels_for(BOARD)
    real = np.flatnonzero(sub.real_mask())
    own, opp = sub.positions_many(real)
    codes, fills = {}, []
    for rule, rules in RULES.items():
        kids = {quiet: solved_full_pair(rules), capture: cap}
        by_sets = placement.solve(sub, rules, kids.__getitem__, jobs=2)
        in_order = np.empty(sub.slots, dtype=np.uint16)
        kernels.placement_pass(*sub, in_order, kids[quiet], cap, rules.flags)
        assert by_sets.tobytes() == in_order.tobytes()
        fills = []
        for slot, w, b in zip(real, own, opp):
            position = Position.from_view(int(w), int(b), 1, 0, board=BOARD)
            children = []
            for move in position.legal_moves(rules):
                child = position.play(move, rules)
                if move.takes:          # a capture: the random code of its slot
                    children.append(int(cap[capture.index(child.own, child.opp)]))
                else:                   # the full board: what the rules say
                    children.append(reference_code(child, rules))
            assert by_sets[slot] == best(children), (rule, position)
            fills.append(not child.free)        # the one free point, taken: no capture
        codes[rule] = by_sets[real]
    differ = codes[FULL_LOSS] != codes[FULL_DRAW]
    assert np.array_equal(differ, fills) and 0 < differ.sum() < len(differ)
    assert set(codes[FULL_LOSS][differ]) == {2} and set(codes[FULL_DRAW][differ]) == {0}


def best(children: list[int]) -> int:
    """The code of a position from its children's codes (solver.values): the shortest
    win, else a draw, else the longest loss."""
    lost = [c for c in children if c and (c - 1) % 2 == 0]
    if lost:
        return min(lost) + 1
    if 0 in children:
        return 0
    return max(children) + 1


def test_twelve_mens_plans_the_whole_game_of_morabaraba(tmp_path):
    """Twelve Men's Morris is Morabaraba's positions under another rule: the same files
    in the kernels' slots (the whole game, 1,270 files), in its own folder."""
    from click.testing import CliRunner

    from solver.cli import main
    plans = {}
    for name in ("morabaraba", "twelve-mens"):
        result = CliRunner().invoke(main, ["build", "--db", str(tmp_path), "--rules", name, "--dry-run"])
        assert result.exit_code == 0, result.output
        plans[name] = result.stdout.replace(name, "RULES")
    assert plans["twelve-mens"] == plans["morabaraba"]
    assert "0-0+12-12" in plans["twelve-mens"] and "1270 file(s) (0 built)" in plans["twelve-mens"]
    assert list(tmp_path.iterdir()) == []


def test_probe_and_search_player_score_the_full_board_by_the_rule(tmp_path):
    """Without any file: the probe answers a full board from the rules (lost in 0 or
    drawn), and the search player values Black's last placement, which fills the
    board, as a win or a draw."""
    from solver.game import Game
    from solver.players import DECIDED, SearchPlayer

    for rule, rules in RULES.items():
        full = Position(0b0101010101010101, 0b1010101010101010, 0, 0, "w", BOARD)
        last = Position(0b0101010101010101, 0b0010101010101010, 0, 1, "b", BOARD)
        assert len(last.legal_moves(rules)) == 1 and not last.play(last.legal_moves(rules)[0], rules).free
        with open_database(tmp_path, rules) as db:
            assert db.probe(full).value == (DRAW if rule == FULL_DRAW else LOSS)
        score, _ = SearchPlayer(rules, depth=2).search(Game(str(last), rules))
        assert score == 0 if rule == FULL_DRAW else score >= DECIDED


# --- the whole game (slow): both phases, both rules -----------------------------------

def moving_codes(root, rules, m, o):
    return storage.read_subspace(storage.pair_path(root, rules, Pair(min(m, o), max(m, o))),
                                 rules, m, o, verify=True)


def placement_codes(root, rules, sub):
    return storage.read_subspace(storage.placement_path(root, rules, sub), rules, sub.m, sub.o,
                                 verify=True, own_hand=sub.own_hand, opp_hand=sub.opp_hand)


@pytest.mark.slow
def test_whole_game_under_both_rules(tmp_path):
    """Both games built and checked (moving and placement; about 90 CPU s)."""
    for rules in RULES.values():
        build(tmp_path, rules, progress=False)
    print(assert_the_games_differ_only_by_the_full_board(tmp_path))


def assert_the_games_differ_only_by_the_full_board(root) -> dict:
    """Of both games built under ``root``: the stored placement codes equal the
    in-memory backward pass, the start value the search's; the two games differ only
    where a full board can still come: the pair 8-8 (every position) and placement
    positions with all 16 stones still on the board or in hand.  Returns the start
    values and how many placement positions differ."""
    from test_placement import assert_equals_backward_pass

    start = {}
    for rules in RULES.values():
        assert_equals_backward_pass(root, rules)
        position = parse_position("startpos", rules)
        with open_database(root, rules, in_memory=True) as db:
            start[rules.full_board] = db.probe(position)
            assert OpeningSearch(rules, db.subspace).solve(position).value == start[rules.full_board].value
    loss, draw = RULES[FULL_LOSS], RULES[FULL_DRAW]
    for pair in (Pair(m, o, board=BOARD) for m in range(3, 9) for o in range(m, 9)):
        for m, o in pair.subspaces:
            a, b = moving_codes(root, loss, m, o), moving_codes(root, draw, m, o)
            if (m, o) == (8, 8):
                real = a != SLACK_CODE
                assert (a[real] == 1).all() and (b[real] == 0).all()
            else:
                assert a.tobytes() == b.tobytes(), (m, o)
    differ = 0
    for sub in placement.plan(loss):
        a, b = placement_codes(root, loss, sub), placement_codes(root, draw, sub)
        if sum(sub) < 16:
            assert a.tobytes() == b.tobytes(), sub.name
        else:
            differ += int(np.count_nonzero(a != b))
    assert differ > 0
    return {"start": {rule: str(value) for rule, value in start.items()}, "differ": differ}
