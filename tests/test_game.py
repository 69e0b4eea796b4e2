"""Played games: history, undo, the draw rules and game records."""

import random

import pytest

from solver.game import (DRAW, FEWER_THAN_THREE, NO_LEGAL_MOVE, QUIET_PLIES, REPETITION, Game,
                         describe_result)
from solver.notation import NotationError
from solver.position import in_mill, parse_position
from solver.rules import Rules

SHUFFLE = "W:a1,d1,a4,d2 B:g7,b6,f6 w"
CYCLE = ["d2-d3", "b6-b4", "d3-d2", "b4-b6"]


def test_history_and_undo():
    game = Game()
    start = game.position
    for text in ["d2", "f4", "d3"]:
        game.play(text)
    assert [str(m) for m in game.moves] == ["d2", "f4", "d3"]
    assert len(game.positions) == 4 and game.positions[0] == start
    assert str(game.position) == "W:d2,d3 B:f4 b 7 8"
    assert str(game.undo()) == "d3"
    assert str(game.position) == "W:d2 B:f4 w 8 8" and len(game) == 2
    game.undo(), game.undo()
    assert game.position == start
    with pytest.raises(IndexError):
        game.undo()


def test_start_position_must_fit_the_rules():
    assert Game(parse_position("W:a1,d1,g1 B:a4 w 0 2"), Rules(stones=3)).position.black_hand == 2
    with pytest.raises(ValueError, match="too many stones"):        # (a Position: no notation was read)
        Game(parse_position("W:a1,d1,g1 B:a4 w 1 2"), Rules(stones=3))


def test_illegal_moves_are_refused_and_change_nothing():
    game = Game()
    game.play("d2")
    with pytest.raises(NotationError, match="illegal move d2"):
        game.play("d2")
    with pytest.raises(NotationError, match="cannot parse"):
        game.play("zz")
    assert len(game) == 1


def test_threefold_repetition_is_a_draw():
    game = Game(SHUFFLE)
    for i, text in enumerate(CYCLE * 2):
        assert game.outcome() is None, i
        game.play(text)
    # The start position is back for the third time.
    assert game.repetitions == 3
    assert game.outcome() == (DRAW, REPETITION)
    assert game.legal_moves() == []
    with pytest.raises(NotationError, match="game is over"):
        game.play("d2-d3")
    game.undo()
    assert game.outcome() is None and game.repetitions == 2


def test_repetition_needs_the_same_side_to_move():
    game = Game(SHUFFLE)
    for text in CYCLE:
        game.play(text)
    assert game.repetitions == 2
    # Same stones, other side to move: a different position.
    assert game.positions.count(game.positions[1]) == 1


@pytest.mark.parametrize("rules, start", [
    (Rules(), None), (Rules(stones=4), None),
    (Rules(mill_rule="take-none", jumping=False), "W:a1,g1,d2 B:b6,d6,f6 w")])
def test_repetitions_are_counted_as_over_the_whole_game(rules, start):
    # Game counts only since the last placement or take (nothing earlier can come back):
    # the same count as over every position, also across mills that took nothing.
    rng = random.Random(7)
    repeated = took_nothing = 0
    for _ in range(30):
        game = Game(start, rules)
        while not game.is_over() and len(game) < 300:
            move = rng.choice(game.legal_moves())
            game.play(move)
            assert game.repetitions == game.positions.count(game.position)
            repeated += game.repetitions > 1
            took_nothing += not move.is_placement and move.take is None and game.quiet_plies == 0
        copy = game.copy()
        while len(copy):
            copy.undo()
            assert copy.repetitions == copy.positions.count(copy.position)
    assert repeated > 0
    assert took_nothing > 0 or rules.mill_rule != "take-none"


@pytest.mark.parametrize("rules, start, limit", [
    (Rules(), None, 50), (Rules(stones=4), None, 6), (Rules(stones=3), None, 2),
    (Rules(mill_rule="take-none", jumping=False), "W:a1,g1,d2 B:b6,d6,f6 w", 4),
    (Rules.from_name("three-mens"), None, 3), (Rules.from_name("six-mens"), None, 5)])
def test_draw_after_says_what_playing_the_move_would(rules, start, limit):
    """Game.draw_after (no copy, no play) agrees with playing each move and asking the
    game's outcome, at every position of random games, short quiet limits included."""
    rng = random.Random(11)
    drawn = set()
    for _ in range(20):
        game = Game(start, rules, quiet_limit=limit)
        while not game.is_over() and len(game) < 200:
            moves = game.legal_moves()
            for move in moves:
                after = game.copy()
                after.play(move)
                outcome = after.outcome()
                expected = (outcome.termination if outcome is not None
                            and outcome.termination in (REPETITION, QUIET_PLIES) else None)
                assert game.draw_after(move) == expected, (game, move)
                drawn.add(expected)
            game.play(rng.choice(moves))
    assert QUIET_PLIES in drawn
    # a shuffle back and forth comes to a third repetition
    game = Game(SHUFFLE)
    for text in CYCLE * 3:
        if game.is_over():
            break
        for move in game.legal_moves():
            after = game.copy()
            after.play(move)
            outcome = after.outcome()
            drawn.add(game.draw_after(move))
            assert game.draw_after(move) == (None if outcome is None else outcome.termination)
        game.play(text)
    assert REPETITION in drawn


def _fresh_quiet_walk(game: Game, plies: int) -> None:
    """Play ``plies`` moves that close no mill and repeat no position."""
    for _ in range(plies):
        seen = set(game.positions)
        for move in game.legal_moves():
            after = game.position.play(move)
            if after not in seen and not in_mill(after.opp, move.target):
                game.play(move)
                break
        else:
            raise AssertionError("no fresh quiet move found")


def test_fifty_quiet_plies_are_a_draw():
    game = Game("W:a1,d1,b4,f2,e5 B:g7,d6,c5,e4,b2 w")
    _fresh_quiet_walk(game, 49)
    assert game.quiet_plies == 49 and game.outcome() is None
    _fresh_quiet_walk(game, 1)
    assert game.outcome() == (DRAW, QUIET_PLIES)
    assert str(game.outcome()) == "draw (50 plies without a mill)"
    game.undo()
    assert game.outcome() is None


def test_the_draw_names_the_games_own_limit():
    """A game of another quiet-ply limit (Sanmill's 100, a short one) says its own."""
    for limit in (100, 7):
        game = Game("W:a1,d1,b4,f2,e5 B:g7,d6,c5,e4,b2 w", quiet_limit=limit, quiet_plies=limit - 1)
        _fresh_quiet_walk(game, 1)
        outcome = game.outcome()
        assert outcome == (DRAW, QUIET_PLIES) and outcome.reason == f"{limit} plies without a mill"
        assert str(outcome) == f"draw ({limit} plies without a mill)"
        assert game.record().endswith(f"# result: draw ({limit} plies without a mill)\n")


def test_mills_and_placements_reset_the_quiet_count():
    game = Game("W:a1,a7,b4,g1 B:g7,d6,f6,d2 w")
    game.play("g1-g4")
    game.play("d2-b2")
    assert game.quiet_plies == 2
    game.play("b4-a4xb2")  # closes a1-a4-a7
    assert game.quiet_plies == 0
    game.play("d6-b6")
    assert game.quiet_plies == 1
    game.undo(), game.undo()
    assert game.quiet_plies == 2
    # The count runs in the moving phase only: not while the other side still places,
    # even where one side slides (the tables of the rule start it at the moving phase,
    # and a position with stones in hand has no count to probe them with).
    placing = Game("W:a1,d1 B:a4,b6,d7 w 2 0")
    placing.play("d2")
    assert placing.quiet_plies == 0
    placing.play("b6-d6")
    assert placing.quiet_plies == 0
    placing.play("b2")
    assert placing.quiet_plies == 0
    placing.play("d6-b6")
    assert placing.quiet_plies == 1
    # mixed placement (Lasker): a move made while stones are in hand counts nothing either
    lasker = Game("W:a1,d1,g1 B:a7,d7,b6 w 1 1", "lasker-s4")
    lasker.play("d1-d2")
    lasker.play("b6-b4")
    assert lasker.quiet_plies == 0


@pytest.mark.parametrize("rules, move", [(Rules(mill_rule="take-none"), "d2-d1"),
                                         (Rules(), "d2-d1xb6")])
def test_a_mill_counts_even_when_it_takes_nothing(rules, move):
    # Every black stone stands in a mill: under take-none White's mill takes nothing,
    # but it was still closed, so it is not a quiet ply.
    game = Game("W:a1,g1,d2 B:b6,d6,f6 w", rules)
    assert move in [str(m) for m in game.legal_moves()]
    game.play(move)
    assert game.quiet_plies == 0
    game.undo()
    game.play("d2-f2")
    assert game.quiet_plies == 1


def test_wins_and_their_reasons():
    assert Game("W:a1,d1 B:a4,a7,d7 w").outcome() == ("b", FEWER_THAN_THREE)
    assert Game("W:a1,g1,a7,g7 B:a4,d1,g4,d7 w").outcome() == ("b", NO_LEGAL_MOVE)
    game = Game("W:a1,d1,b2 B:a4,b6,d6 w 1 0")
    game.play("g1xa4")
    assert game.outcome() == ("w", FEWER_THAN_THREE)
    assert describe_result(game.outcome()) == "White wins (fewer than three stones)"


def _random_game(seed: int, rules: Rules, plies: int = 80) -> Game:
    rng = random.Random(seed)
    game = Game(rules=rules)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


@pytest.mark.parametrize("rules", [Rules(), Rules(jumping=False, mill_rule="take-none"),
                                   Rules(stones=5)], ids=lambda r: r.name)
@pytest.mark.parametrize("seed", range(5))
def test_record_round_trip(rules, seed):
    game = _random_game(seed, rules)
    text = game.record()
    again = Game.from_record(text)
    assert again.rules == rules
    assert again.moves == game.moves and again.positions == game.positions
    assert again.outcome() == game.outcome()
    assert again.record() == text


def test_record_with_start_comments_and_several_moves_a_line():
    text = """# a study
rules: no-jumping
start: W:a1,d1,a4 B:g7,b6,f6 w

a4-a7 g7-g4   # not a comment: but see below
"""
    with pytest.raises(NotationError, match="line 5"):
        Game.from_record(text)
    game = Game.from_record(text.replace("   # not a comment: but see below", ""))
    assert game.rules == Rules(jumping=False)
    assert game.start == parse_position("W:a1,d1,a4 B:g7,b6,f6 w")
    assert [str(m) for m in game.moves] == ["a4-a7", "g7-g4"]
    assert game.record() == ("rules: no-jumping\nstart: W:a1,a4,d1 B:b6,f6,g7 w\n"
                             "a4-a7\ng7-g4\n")


@pytest.mark.parametrize("text, message", [
    ("d2\nd2\n", "line 2: illegal move d2"),
    ("d2\nstart: startpos\n", "line 2: header start: after the first move"),
    ("result: 1-0\n", "unknown header"),
    ("rules: standard\nrules: standard\n", "given twice"),
    ("rules: fast\n", "unknown rule set"),
    ("start: W:a1 B: x\n", "side to move"),
])
def test_bad_records(text, message):
    with pytest.raises(NotationError, match=message):
        Game.from_record(text)


def test_record_rules_must_agree_with_the_callers():
    assert Game.from_record("d2\n", Rules(stones=5)).rules == Rules(stones=5)
    with pytest.raises(NotationError, match="not standard"):
        Game.from_record("rules: no-jumping\nd2\n", Rules())


def test_record_of_a_finished_game_says_the_result():
    game = Game(SHUFFLE)
    for text in CYCLE * 2:
        game.play(text)
    assert game.record().endswith("# result: draw (threefold repetition)\n")


def test_a_game_takes_rules_by_name_and_says_what_it_is():
    game = Game(rules="no-jumping")
    assert game.rules == Rules(jumping=False)
    game.play("d2")
    assert repr(game) == "<Game of rules no-jumping: 1 move from 'startpos', now 'W:d2 B: b 8 9'>"
    with pytest.raises(TypeError, match="rules are a Rules or a rule set's name"):
        Game(rules=9)
    with pytest.raises(ValueError, match="unknown rule set"):
        Game(rules="nine-mens")


def test_a_line_that_the_rules_of_play_draw_is_found():
    # (query --line's note: the values count plies to the end, the rules of play also
    # draw 50 plies without a mill and a third repetition)
    from solver.analysis import drawn_in_play
    start = "W:a1,d1,b4,f2,e5 B:g7,d6,c5,e4,b2 w"
    walk = Game(start)
    _fresh_quiet_walk(walk, 50)
    assert drawn_in_play(Game(start), list(walk.moves)) == (50, "50 plies without a mill")
    assert drawn_in_play(Game(start), list(walk.moves[:49])) is None
    assert drawn_in_play(Game(SHUFFLE), CYCLE * 2) == (8, "threefold repetition")
    won = Game("W:a1,d1,g4 B:a7,d7,b4 b")               # a game won is no draw; a copy is played
    assert drawn_in_play(won, ["b4-g7xg4"]) is None and len(won) == 0


def test_copy_copy_of_a_game_is_independent_and_players_take_rule_set_names():
    import copy
    import random
    from solver.players import HardPlayer, make_player
    game = Game(rules="standard-s4")
    game.play("d2")
    twin = copy.copy(game)
    twin.play("f4")
    assert (len(game), len(twin)) == (1, 2)
    move = make_player("medium", "standard-s4", random.Random(1)).choose(game)
    assert move in game.legal_moves()
    with pytest.raises(ValueError, match="a player's thinking time is seconds"):
        HardPlayer("standard-s4", seconds="x")
    with pytest.raises(ValueError, match="a player of rules standard-s5 cannot play a game of rules standard-s4"):
        make_player("easy", "standard-s5", random.Random(1)).choose(game)
    from solver.game import RESIGNATION, Outcome
    with pytest.raises(ValueError, match="a colour is 'w' or 'b'"):
        Outcome("w", RESIGNATION).value_for("x")
    with pytest.raises(ValueError, match="a game that ends by resignation is won, not 'draw'"):
        Outcome("draw", RESIGNATION)


def test_an_outcome_under_another_limit_shows_it_in_its_repr():
    game = Game("W:a1,d1,a4 B:a7,d7,g7 w", quiet_limit=2)
    game.play("a4-b4")
    game.play("a7-b6")
    assert repr(game.outcome()).endswith(", quiet_limit=2)") and str(game.outcome()) == "draw (2 plies without a mill)"
    again = eval(repr(game.outcome()), vars(__import__("solver.game").game))
    assert again == game.outcome() and again.quiet_limit == 2          # (tuples compare without it)


def test_game_after_refuses_moves_that_are_no_moves():
    """None failed inside ('NoneType' is not iterable) and bytes were played as their
    numbers ('not int'): both are a TypeError that says what moves are."""
    for moves in (None, b"d2 f4", 3):
        with pytest.raises(TypeError, match=r"^moves are Moves or their text \(a list, or one string\), not "):
            Game.after("startpos", moves)
    assert len(Game.after("startpos", iter(["d2", "f4"]))) == 2
