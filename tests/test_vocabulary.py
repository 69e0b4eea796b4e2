"""The pipeline's shared types: Subspace and Pair, WDL and Value, Outcome."""

from __future__ import annotations

import json
import pickle

import pytest

from solver.game import Game, Outcome, Termination
from solver.index import Pair, Subspace
from solver.opening import placement_subspaces
from solver.position import parse_position
from solver.retro import pairs_in_order
from solver.rules import Rules
from solver.values import DRAW, LOSS, WDL, WIN, Value


def test_a_subspace_is_its_own_key_and_name():
    s = Subspace(8, 7)
    assert s == (8, 7) and hash(s) == hash((8, 7)) and {(8, 7): 1}[s] == 1
    m, o = s
    assert (m, o, s.own_hand, s.opp_hand) == (8, 7, 0, 0) and s.is_moving
    p = Subspace(3, 2, 6, 7)
    assert p == (3, 2, 6, 7) and p.moving == (3, 2) and not p.is_moving
    assert Subspace(3, 2, 0, 0) == (3, 2) and len(Subspace(3, 2, 0, 0)) == 2
    for sub in (s, p):
        assert Subspace.parse(sub.name) == sub and pickle.loads(pickle.dumps(sub)) == sub
        assert eval(repr(sub)) == sub
    assert Subspace.of(parse_position("W:a1,d1,g1 B:a7 b 1 5")) == Subspace(1, 3, 5, 1)


def test_children_of_moving_and_placement_subspaces():
    assert Subspace(8, 7).quiet_child == Subspace(7, 8)
    assert Subspace(8, 7).capture_child == Subspace(6, 8)
    assert Subspace(4, 3).capture_child is None                 # the opponent would have two
    placing = Subspace(2, 3, 5, 4)
    assert placing.quiet_child == Subspace(3, 3, 4, 4)
    assert placing.capture_child == Subspace(2, 3, 4, 4)
    assert Subspace(1, 0, 1, 1).capture_child is None           # nothing to take
    assert Subspace(3, 3, 1, 0).quiet_child == Subspace(3, 4)   # the last stone placed
    # every placement subspace's children come before it (or are moving subspaces)
    order = placement_subspaces(Rules(stones=6))
    for i, sub in enumerate(order):
        for child in (sub.quiet_child, sub.capture_child):
            if child is not None and not child.is_moving and child.o + child.opp_hand >= 3:
                assert child in order[:i], (sub, child)


def test_pairs():
    assert Pair(8, 7) == Pair(7, 8) == (7, 8) and Pair(7, 8).name == "7-8"
    assert Pair.parse("8-7") == Pair(7, 8) and Subspace(8, 7).pair == Pair(7, 8)
    assert Pair(7, 8).subspaces == [(7, 8), (8, 7)] and Pair(5, 5).subspaces == [(5, 5)]
    assert Pair(7, 8).capture_targets == [Subspace(7, 7), Subspace(6, 8)]
    assert Pair(7, 8).dependencies == [Pair(7, 7), Pair(6, 8)]
    assert Pair(3, 3).dependencies == [] and Pair(3, 3).capture_targets == []
    assert Pair(3, 4).slots == Subspace(3, 4).slots + Subspace(4, 3).slots
    for bad in ("8x7", "2-5", "8-"):
        with pytest.raises(ValueError):
            Pair.parse(bad)
    with pytest.raises(ValueError, match="3..5"):
        Pair.parse("6-5", stones=5)
    order = pairs_in_order(Rules())
    assert all(isinstance(p, Pair) for p in order)
    assert all(d in order[:i] for i, p in enumerate(order) for d in p.dependencies)


def test_values_are_strings_in_json():
    assert json.dumps({"value": WIN}) == '{"value": "win"}'
    assert f"{LOSS}" == "loss" and WDL("draw") is DRAW and -WIN is LOSS and -DRAW is DRAW
    assert [WDL.from_score(s) for s in (3, 0, -1)] == [WIN, DRAW, LOSS]
    assert Value("win", 3) == Value(WIN, 3) and isinstance(Value("win", 3).value, WDL)
    assert str(Value(WIN, 3)) == "win in 3" and str(Value(DRAW)) == "draw"
    assert Value(WIN, 3).for_mover() == Value(LOSS, 4)
    assert Value(LOSS, 0).for_mover() == Value(WIN, 1) and Value(DRAW).for_mover() == Value(DRAW)
    assert Value(WIN).for_mover() == Value(LOSS)                # no plies known: none after
    # won already by the side to move: no move makes that, said as such (it said "a loss
    # takes an even number of plies, not 1")
    with pytest.raises(ValueError, match="no move leads to a position won already"):
        Value(WIN, 0).for_mover()
    ranked = sorted([Value(LOSS, 2), Value(WIN, 5), Value(DRAW), Value(LOSS, 8), Value(WIN, 1)],
                    key=lambda v: v.rank)
    assert ranked == [Value(WIN, 1), Value(WIN, 5), Value(DRAW), Value(LOSS, 8), Value(LOSS, 2)]


def test_outcomes_and_resignation():
    game = Game("W:a1,d1,g1,b2 B:a4,a7,d7,g7 w", Rules(stones=4))
    assert game.outcome() is None
    outcome = game.resign("w")
    assert outcome == Outcome("b", Termination.RESIGNATION) == game.outcome()
    assert str(outcome) == "Black wins (White resigns)" and outcome.value_for("b") == WIN
    assert game.legal_moves() == [] and game.record().endswith("# result: Black wins (White resigns)\n")
    with pytest.raises(ValueError, match="game is over"):
        game.resign("b")
    game = Game("W:a1,d1,g1,b2 B:a4,a7,d7,g7 w", Rules(stones=4))
    game.play("b2-b4")
    game.resign("b")
    assert game.undo() is None                           # takes back the resignation
    assert game.outcome() is None and len(game.moves) == 1
    game.resign("w")
    assert game.undo() is None and str(game.undo()) == "b2-b4" and len(game.moves) == 0
    fresh = Game()
    fresh.resign("w")                                    # before any move: taken back too
    assert fresh.undo() is None and fresh.outcome() is None
    with pytest.raises(IndexError):
        fresh.undo()
    draw = Outcome(DRAW, Termination.REPETITION)
    assert draw.value_for("w") == draw.value_for("b") == DRAW
    assert draw == ("draw", "threefold repetition")


def test_values_hold_only_what_a_game_has():
    import numpy as np
    from solver.values import decode, encode
    for value, plies in (("win", 2), ("win", -1), ("win", 4), ("win", "3"), ("win", 1.0),
                         ("win", True), ("loss", 1), ("loss", -2), ("draw", 5), ("draw", 0),
                         ("foo", 3)):
        with pytest.raises(ValueError):
            Value(value, plies)
    assert Value("win", np.int64(3)) == Value(WIN, 3) and type(Value("win", np.int64(3)).plies) is int
    assert Value("loss", 0).plies == 0 and Value("win").plies is None
    assert Value("win", 0).plies == 0          # a finished game won (Database.probe says so)
    for code in (0, 1, 2, 27, 0xFFFE):
        assert encode(decode(code)) == code
    assert decode(np.uint16(2)) == Value(WIN, 1)
    for code in (-1, 0xFFFF, 70000, 1.5, "2", None):
        with pytest.raises(ValueError):
            decode(code)
    for value in (Value(WIN), Value(LOSS), Value(WIN, 0), Value(WIN, 0xFFFF), Value(LOSS, 0xFFFE)):
        with pytest.raises(ValueError):
            encode(value)
    with pytest.raises(TypeError):
        encode("win")


def test_outcomes_and_resignations_are_validated():
    from solver.errors import InvalidNotationError
    from solver.game import RESIGNATION
    with pytest.raises(ValueError):
        Outcome("x", RESIGNATION)
    with pytest.raises(ValueError):
        Outcome("w", "gave up")
    assert Outcome("w", "resignation").termination is RESIGNATION
    for colour in (None, "white", "W", 1):
        game = Game()
        with pytest.raises(ValueError):
            game.resign(colour)
        assert game.outcome() is None
    game = Game()
    game.play("d2")
    game.resign("b")
    again = Game.from_record(game.record())
    assert again.outcome() == game.outcome() == Outcome("w", RESIGNATION)
    assert again.record() == game.record() and again.moves == game.moves
    # a record of before 'resigned:' (the result only a comment) still reads, as a game on
    old = "d2\n# result: White wins (Black resigns)\n"
    assert Game.from_record(old).outcome() is None
    for bad in ("d2\nresigned: x\n", "resigned: b\nd2\n", "d2\nresigned: b\nresigned: w\n"):
        with pytest.raises(InvalidNotationError):
            Game.from_record(bad)
    for bad in (None, b"d2", 3):
        with pytest.raises(InvalidNotationError, match="a game record is a string"):
            Game.from_record(bad)
    with pytest.raises(TypeError):
        Game(3)


def test_a_value_names_its_result_wdl_and_keeps_the_old_name_as_an_alias():
    v = Value("win", 3)
    assert v.wdl == WIN and v.value is v.wdl and v.for_mover().wdl == LOSS
    assert Value(wdl="draw") == Value(DRAW) and repr(v) == "Value('win', 3)"
    with pytest.raises(AttributeError):
        v.wdl = LOSS                      # (immutable, as before)
