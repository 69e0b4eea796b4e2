"""The rules of play in the reference (solver.position), case by case."""

import pytest

from solver.board import point_index
from solver.position import parse_move, parse_position
from solver.position import LOSS, WIN, Move, Position, popcount
from solver.rules import Rules

STANDARD = Rules()
TAKE_NONE = Rules(mill_rule="take-none")
NO_JUMPING = Rules(jumping=False)


def moves(text: str, rules: Rules = STANDARD) -> list[str]:
    return sorted(str(m) for m in parse_position(text, rules).legal_moves(rules))


def steps(text: str, rules: Rules = STANDARD) -> set[str]:
    """The moves without their takes: where stones go."""
    return {m.split("x")[0] for m in moves(text, rules)}


def test_start_position_has_24_placements():
    pos = parse_position("startpos")
    assert (pos.white, pos.black, pos.white_hand, pos.black_hand, pos.turn) == (0, 0, 9, 9, "w")
    assert len(pos.legal_moves()) == 24
    assert all(m.is_placement and m.take is None for m in pos.legal_moves())


def test_mill_takes_only_unprotected_stones():
    # g1 closes a1-d1-g1; Black's b6-d6-f6 is a mill, so only a4 may be taken.
    text = "W:a1,d1 B:a4,b6,d6,f6 w 1 3"
    assert [m for m in moves(text) if m.startswith("g1")] == ["g1xa4"]
    assert "g1" not in moves(text)  # closing a mill must take when it can


@pytest.mark.parametrize("rules, expected", [
    (STANDARD, ["g1xb6", "g1xd6", "g1xf6"]),
    (TAKE_NONE, ["g1"]),
])
def test_all_enemy_stones_in_mills(rules, expected):
    text = "W:a1,d1 B:b6,d6,f6 w 1 6"
    assert [m for m in moves(text, rules) if m.startswith("g1")] == expected


def test_double_mill_takes_one_stone():
    # g1 closes both a1-d1-g1 and g1-g4-g7.
    pos = parse_position("W:a1,d1,g4,g7 B:b2,d2,f6,b6 w 1 2")
    takes = [m for m in pos.legal_moves() if m.target == point_index("g1")]
    assert sorted(str(m) for m in takes) == ["g1xb2", "g1xb6", "g1xd2", "g1xf6"]
    after = pos.play(parse_move("g1xb6"))
    assert popcount(after.black) == 3 and after.black_hand == 2


def test_jumping_only_with_exactly_three_and_none_in_hand():
    three = "W:a1,d1,g4 B:b6,d6,f4,d2 w"
    jumps = moves(three)
    assert "a1-g7" in jumps and "d1-c3" in jumps
    assert len(steps(three)) == 3 * (24 - 7)
    assert "g4-g1xb6" in jumps  # a jump closes a mill too
    # Three on the board but one in hand: place instead.
    assert all("-" not in m for m in moves("W:a1,d1,g4 B:b6,d6,f4,d2 w 1 0"))
    # Four stones slide only.
    assert steps("W:a1,d1,g4,a7 B:b6,d6,f4,d2 w") == {
        "a1-a4", "d1-g1", "g4-g1", "g4-g7", "a7-a4", "a7-d7"}


def test_no_jumping_rule_slides_with_three():
    three = "W:a1,d1,g4 B:b6,d6,f4,d2 w"
    assert steps(three, NO_JUMPING) == {"a1-a4", "d1-g1", "g4-g1", "g4-g7"}
    assert not parse_position(three).can_jump(NO_JUMPING)


def test_blocked_side_loses():
    pos = parse_position("W:a1,g1,a7,g7 B:a4,d1,g4,d7 w")
    assert pos.legal_moves() == [] and pos.terminal_wdl() == LOSS
    # The same with three white stones jumps, so it is not blocked.
    pos3 = parse_position("W:a1,g1,a7 B:a4,d1,d7,g4 w")
    assert pos3.terminal_wdl() is None and pos3.terminal_wdl(NO_JUMPING) == LOSS


def test_fewer_than_three_loses():
    assert parse_position("W:a1,d1 B:a4,b6,d6 w").terminal_wdl() == LOSS
    assert parse_position("W:a1,d1 B:a4,b6,d6 w").legal_moves() == []
    # Stones in hand count: two on the board and one to place is still a game.
    assert parse_position("W:a1,d1 B:a4,b6,d6 w 1 0").terminal_wdl() is None
    # The opponent below three: the side to move has won.
    assert parse_position("W:a1,d1,d2 B:a4,b6 w").terminal_wdl() == WIN


def test_placement_with_nothing_to_take():
    # g1 closes a mill but Black has no stone on the board: a plain placement.
    for rules in (STANDARD, TAKE_NONE):
        assert "g1" in moves("W:a1,d1 B: w 1 3", rules)
        assert not any("x" in m for m in moves("W:a1,d1 B: w 1 3", rules))


def test_sliding_back_into_a_mill_closes_it_again():
    pos = parse_position("W:a1,d1,g4 B:b6,d6,f4,d2,b2 w")
    assert "g4-g1xb2" in moves(str(pos), NO_JUMPING)


def test_play_and_is_legal_agree_with_legal_moves():
    pos = parse_position("W:a1,d1 B:a4,b6,d6,f6 w 1 3")
    for move in pos.legal_moves():
        assert pos.is_legal(move)
    assert not pos.is_legal(Move(point_index("g1")))           # must take
    assert not pos.is_legal(Move(point_index("g1"), take=point_index("b6")))  # protected
    assert not pos.is_legal(Move(point_index("a1")))           # occupied
    with pytest.raises(ValueError, match="illegal"):
        pos.play(Move(point_index("a1")))
    after = pos.play(parse_move("g1xa4"))
    assert str(after) == "W:a1,d1,g1 B:b6,d6,f6 b 0 3"


def test_positions_are_immutable_values():
    pos = parse_position("W:a1 B:a4 w 8 8")
    with pytest.raises(AttributeError):
        pos.white = 0  # type: ignore[misc]
    assert pos == parse_position("W:a1 B:a4 w 8 8") and hash(pos) == hash(parse_position("W:a1 B:a4 w 8 8"))
    assert pos.swap_colours().swap_colours() == pos
    with pytest.raises(ValueError):
        Position(1, 1)


def test_quiet_predecessors():
    # Black just moved; under take-any a black mill closed by the last move would
    # have taken a stone, so the mill stones b6-d6-f6 cannot have just arrived.
    pos = parse_position("W:a1,d1,g1,a4 B:b6,d6,f6,b2 w")
    found = {str(m) for m, _ in pos.quiet_predecessors()}
    # b2 may also have been Black's last placement (then it had one in hand).
    assert found == {"b2", "b4-b2", "d2-b2"}
    assert {str(m): str(p) for m, p in pos.quiet_predecessors()} == {
        "b2": "W:a1,a4,d1,g1 B:b6,d6,f6 b 0 1",
        "b4-b2": "W:a1,a4,d1,g1 B:b4,b6,d6,f6 b",
        "d2-b2": "W:a1,a4,d1,g1 B:b6,d2,d6,f6 b"}
    # White's a4 is not in a mill, so take-none changes nothing here.
    assert {str(m) for m, _ in pos.quiet_predecessors(TAKE_NONE)} == found
    # With White all in mills and take-none, the mill may just have closed.
    pos2 = parse_position("W:a1,d1,g1 B:b6,d6,f6,b2 w")
    found2 = {str(m) for m, _ in pos2.quiet_predecessors(TAKE_NONE)}
    assert {"d5-d6", "b4-b6", "f4-f6"} <= found2
    # Under take-any that mill would have taken a white stone: not quiet.
    assert not {"d5-d6", "b4-b6", "f4-f6"} & {str(m) for m, _ in pos2.quiet_predecessors()}
    # During placement an un-placement gives the stone back to the hand.
    pos3 = parse_position("W:d2 B:f4 w 8 8")
    assert [(str(m), str(p)) for m, p in pos3.quiet_predecessors()] == [("f4", "W:d2 B: b 8 9")]


def test_is_legal_agrees_with_legal_moves_on_random_positions():
    import random

    from randpos import ALL_RULES, random_position

    rng = random.Random(3)
    maybe = [None] * 8 + list(range(24))
    checked = 0
    for i in range(3000):
        pos = random_position(rng)
        rules = ALL_RULES[i % 4]
        legal = pos.legal_moves(rules)
        candidates = legal + [Move(rng.randrange(24), rng.choice(maybe), rng.choice(maybe))
                              for _ in range(20)]
        for move in candidates:
            assert pos.is_legal(move, rules) == (move in legal), (str(pos), str(move))
            checked += 1
    assert checked > 60_000


# --- hostile input: the documented kinds of error, numpy integers accepted ------------

def test_move_points_are_validated_and_always_print():
    import numpy as np
    for bad in (-1, 24, 99, 31, 1.5, "d2", True, None):
        with pytest.raises(ValueError):
            Move(bad)
    with pytest.raises(ValueError):
        Move(19, take=99)
    with pytest.raises(ValueError):
        Move(19, origin=-1)
    with pytest.raises(ValueError):
        Move.unpack(31)                    # target 31: NO_POINT, no point
    with pytest.raises(ValueError):
        Move.unpack(-1)
    move = Move(np.int64(19), None, np.int64(5), np.uint8(3))
    assert move == Move(19, None, 3, 5) and (move.take, move.take2) == (3, 5)
    assert type(move.target) is int and str(move) == "d2xb6xf6"
    assert parse_move(str(move)) == move
    assert Move(8, board="three-mens").board.name == "three-mens"
    with pytest.raises(ValueError):
        Move(9, board="three-mens")        # three-mens points are 0..8


def test_play_refuses_points_off_its_board_and_reads_text():
    from solver.errors import IllegalMoveError
    three = Rules.from_name("three-mens")
    pos = parse_position("startpos", three)
    with pytest.raises(IllegalMoveError, match="a move of the standard board, and this position is on the three-mens"):
        pos.play(Move(19), three)
    # Numbered like another board's points, a move would be recorded as a point it did
    # not take (d7 is c5 on the Six Men's board): refused, in a game too.
    from solver.game import Game
    six = Rules.from_name("six-mens")
    game = Game(rules=six)
    with pytest.raises(IllegalMoveError, match="on the six-mens board"):
        game.play(parse_move("d7"))
    start6 = parse_position("startpos", six)         # is_legal and why_illegal agree with play
    assert not start6.is_legal(parse_move("d7"), six) and "standard board" in start6.why_illegal(parse_move("d7"), six)
    assert len(game) == 0
    game.play(parse_move("c5", six.board))
    assert game.record().splitlines()[-1] == "c5" and Game.from_record(game.record()).position == game.position
    # A board whose points are named as the standard board's takes its moves.
    mora = Rules.from_name("morabaraba")
    assert parse_position("startpos", mora).play(parse_move("d7"), mora) == parse_position("W:d7 B: b 11 12", mora)
    # The game is over: GameOverError for a Move as for its text.
    from solver.errors import GameOverError
    over = parse_position("W:a1,d1 B:a4,a7,d7 w")
    for move in ("a1-b2", parse_move("a1-b2")):
        with pytest.raises(GameOverError):
            over.play(move)
    start = parse_position("startpos")
    assert start.play("d2") == start.play(parse_move("d2"))
    with pytest.raises(IllegalMoveError):
        start.play("d2-d3")
    with pytest.raises(TypeError, match="a move is a Move"):
        start.play(19)


def test_position_fields_are_validated():
    import numpy as np
    from solver.index import Subspace
    own, opp = Subspace(3, 3).positions_many([1000])
    pos = Position(own[0], opp[0])
    assert type(pos.white) is int and pos == Position(int(own[0]), int(opp[0]))
    view = Position.from_view(np.uint32(7), np.uint32(56), np.int64(2), np.int8(1), "b")
    assert (view.black, view.white, view.black_hand, view.white_hand) == (7, 56, 2, 1)
    assert type(view.black_hand) is int
    for hands in ((100, 0), (0, 10), (1.5, 0), (True, 0), ("1", 0), (-1, 0)):
        with pytest.raises(ValueError):
            Position(7, 56, *hands)
    with pytest.raises(ValueError):
        Position(-1, 0)
    with pytest.raises(ValueError):
        Position(7.0, 56)
    with pytest.raises(ValueError, match="at most 8"):
        Position(7, 56, 6, 0, board="six-mens")
    # every position that exists prints text that parses back
    twelve = Rules(stones=12)
    full = Position(7, 56, 9, 9, board=twelve.board)
    assert parse_position(str(full), twelve) == full
    assert parse_position(str(Position(7, 56, 6, 6))) == Position(7, 56, 6, 6)
    assert Position(7, 56, board="standard") == Position(7, 56)
    with pytest.raises(ValueError, match="unknown board"):
        Position(7, 56, board="nine")
    with pytest.raises(ValueError, match="a board is"):
        Position(7, 56, board=3)


def test_transform_refuses_numbers_that_are_no_symmetry():
    pos = parse_position("W:a1 B: w")
    for bad in (16, -1, 1.0, "1"):
        with pytest.raises(ValueError):
            pos.transform(bad)
    import numpy as np
    assert pos.transform(np.int64(3)) == pos.transform(3)


def test_parse_position_and_parse_move_refuse_wrong_types():
    with pytest.raises(TypeError, match="rules are a Rules or a rule set.s name"):
        parse_position("startpos", None)
    assert parse_move("a1", "three-mens") == Move(6, board="three-mens")


def test_a_move_keeps_its_board_in_equality_and_repr():
    """A move's numbers are other points on another board: equal only on its own board
    (as `in legal_moves` and `play` then agree), and its repr gives it back."""
    from solver.game import Game
    six = Rules.from_name("six-mens")
    move = parse_move("c5", six.board)
    assert move != Move(1) and len({move, Move(1)}) == 2
    assert eval(repr(move), {"Move": Move}) == move and str(eval(repr(move), {"Move": Move})) == "c5"
    game = Game(rules=six)
    assert move in game.legal_moves() and Move(1) not in game.legal_moves()
    game.play(move)
    mora = Rules.from_name("morabaraba")            # points named as the standard board's
    start = parse_position("startpos", mora)
    assert start.is_legal(parse_move("d7"), mora) and parse_move("d7") not in start.legal_moves(mora)


def test_a_game_records_a_move_of_a_board_named_alike_on_its_own_board():
    from solver.game import Game
    mora = Rules.from_name("morabaraba")
    by_move, by_text = Game(rules=mora), Game(rules=mora)
    by_move.play(parse_move("d2"))          # a standard board's move, taken on Morabaraba's
    by_text.play("d2")
    assert by_move.moves == by_text.moves and by_move.moves[0] in by_move.start.legal_moves(mora)


def test_parse_position_takes_a_rule_set_name_as_game_and_open_database_do():
    from solver.position import parse_legal_move, parse_position
    pos = parse_position("startpos", "standard-s4")
    assert (pos.white_hand, pos.black_hand) == (4, 4)
    assert str(parse_legal_move("d2", pos, "standard-s4")) == "d2"
    with pytest.raises(TypeError, match="^rules are a Rules or a rule set's name, not int$"):
        parse_position("startpos", 3)
