"""The game review of ``muehle analyze``: each kind of mistake in hand-made games of the
4-stone game, marked exactly so, and the summary per player."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from solver.analysis import analyze_object, review_move
from solver.cli import main
from solver.game import Game
from solver.probe import MoveProbe, open_database
from solver.position import Move
from solver.rules import Rules

RULES = Rules(stones=4)

#: (start, moves, marks, plies lost): White keeps the win but slowly (?!), Black defends
#: best, White gives the win for a draw (?), Black the draw for a loss (??).
SLOW_THEN_DRAWN = ("W:a7,c3,g7 B:a1,d5,e5,f2 w", ["g7-e3", "d5-d6", "c3-d1", "d6-d5"],
                   ["?!", None, "?", "??"], [2, None, None, None])
#: White best, Black loses 2 plies sooner than it must (?!), White takes the wrong stone
#: and loses a won game (??).
FAST_LOSS_THEN_LOST = ("W:a4,d3,f6 B:b2,d2,d5,e5 w", ["d3-f2", "b2-b4", "a4-f4xb4"],
                       [None, "?!", "??"], [None, 2, None])


@pytest.fixture(scope="module")
def db(db4):
    with open_database(db4, RULES, in_memory=True) as database:
        yield database


@pytest.mark.parametrize("case", [SLOW_THEN_DRAWN, FAST_LOSS_THEN_LOST])
def test_each_kind_of_mistake_is_marked_exactly(db, case):
    start, moves, marks, lost = case
    game = Game.after(start, moves, RULES)
    obj, problems = analyze_object(db, game)
    assert problems == []
    rows = obj["moves"]
    assert [r["mark"] for r in rows] == marks
    assert [r["plies_lost"] for r in rows] == lost
    for r in rows:
        # the marks agree with the values before and after each move, read on their own
        if r["mark"] == "??":
            assert r["after"] == "loss" and r["before"] in ("win", "draw")
        elif r["mark"] == "?":
            assert (r["before"], r["after"]) == ("win", "draw")
        elif r["mark"] == "?!":
            assert r["before"] == r["after"] != "draw"
            assert r["plies_lost"] == abs(r["after_plies"] - r["before_plies"])
        else:
            assert r["is_best"] and (r["after"], r["after_plies"]) == (r["before"], r["before_plies"])
        assert r["best"] != r["move"] or r["is_best"]
    words = {"??": ("lost the win", "lost the draw"), "?": ("lost the win",), "?!": (None,), None: (None,)}
    assert all(r["blunder"] in words[r["mark"]] for r in rows)


def test_the_summary_counts_each_players_marks_and_accuracy(db):
    start, moves, _, _ = SLOW_THEN_DRAWN
    obj, _ = analyze_object(db, Game.after(start, moves, RULES))
    assert obj["summary"] == {
        "w": {"moves": 2, "best": 0, "accuracy": 0.0, "??": 0, "?": 1, "?!": 1},
        "b": {"moves": 2, "best": 1, "accuracy": 50.0, "??": 1, "?": 0, "?!": 0}}


def test_the_review_in_words_and_json(db4, tmp_path):
    start, moves, _, _ = FAST_LOSS_THEN_LOST
    path = tmp_path / "game.txt"
    path.write_text(Game.after(start, moves, RULES).record())
    runner = CliRunner()
    text = runner.invoke(main, ["analyze", "--db", str(db4), str(path)]).output
    assert "?! 2 plies sooner lost (best d5-d6)" in text
    assert "?? lost the win (best a4-f4xe5)" in text
    assert "White: accuracy 50.0% (1 of 2 moves best); ?? 1, ? 0, ?! 0" in text
    assert "Black: accuracy 0.0% (0 of 1 moves best); ?? 0, ? 0, ?! 1" in text
    data = json.loads(runner.invoke(main, ["analyze", "--db", str(db4), "--json", str(path)]).output)
    assert data["summary"]["b"]["?!"] == 1 and data["moves"][2]["best"] == "a4-f4xe5"


def test_every_drawing_move_of_a_drawn_position_is_best():
    probes = [MoveProbe(Move(1), "draw"), MoveProbe(Move(2), "draw"), MoveProbe(Move(3), "loss", 4)]
    assert [review_move(probes, Move(t))["is_best"] for t in (1, 2, 3)] == [True, True, False]
    assert review_move(probes, Move(3))["mark"] == "??"


def test_a_move_that_draws_by_repetition_from_a_win_lost_the_win(db):
    """The review counts the game's history: White's last move brings a position back a
    third time, which the databases rate a win for it but which the game draws: its
    value after is the game's, a draw (it was the tables' win beside the mark)."""
    cycle = ["a7-d7", "e3-g7", "d7-a7", "g7-e3"]
    game = Game.after("W:a1,e3,g1 B:a4,a7,b6,e4 b", cycle * 2, RULES)
    assert "repetition" in str(game.outcome())
    obj, _ = analyze_object(db, game)
    last = obj["moves"][-1]
    assert (last["side"], last["after"], last["after_plies"], last["mark"], last["blunder"]) == \
        ("w", "draw", None, "?", "lost the win")
