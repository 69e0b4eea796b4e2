"""Position strings and move notation: strict parsing and round trips."""

import pytest
from hypothesis import given, strategies as st

from solver.board import NUM_POINTS, mask_of, point_index
from solver.notation import NotationError, format_moves, format_position
from solver.position import parse_legal_move, parse_move, parse_position
from solver.position import Move, Position
from solver.rules import Rules


def test_position_string_with_sorted_points():
    pos = parse_position("W:g7,a1,d2 B:b6,a4 w")
    assert pos.white == sum(1 << point_index(n) for n in ("a1", "d2", "g7"))
    assert pos.black == sum(1 << point_index(n) for n in ("a4", "b6"))
    assert (pos.white_hand, pos.black_hand, pos.turn) == (0, 0, "w")
    assert format_position(pos) == "W:a1,d2,g7 B:a4,b6 w"


def test_hands_and_startpos():
    pos = parse_position("W:d2 B:f4 w 8 8")
    assert (pos.white_hand, pos.black_hand) == (8, 8)
    assert format_position(pos) == "W:d2 B:f4 w 8 8"
    # Hands of 0 0 are the default and are not written.
    assert format_position(parse_position("W:d2 B:f4 b 0 0")) == "W:d2 B:f4 b"
    start = parse_position("startpos")
    assert start == Position(0, 0, 9, 9, "w")
    assert parse_position(format_position(start)) == start
    assert parse_position("startpos", Rules(stones=5)) == Position(0, 0, 5, 5, "w")
    # Extra whitespace between fields is harmless, and so are leading zeros of a hand
    # (any number of them: "07" was read, "007" was 'too many').
    assert parse_position("  W:d2   B:f4\tw  ") == parse_position("W:d2 B:f4 w")
    assert parse_position("W:d2 B:f4 w 008 " + "0" * 5000 + "8") == pos
    with pytest.raises(NotationError, match="100 is too many"):
        parse_position("W:d2 B:f4 w 100 8")


@pytest.mark.parametrize("text, message", [
    ("W:a1,d4 B: w", "unknown point 'd4'"),
    ("W:a1,a1 B: w", "given twice"),
    ("W:a1 B:a1 w", "both colours"),
    ("W:a1 B: x", "side to move"),
    ("W:a1 B: w 9", "cannot parse"),
    ("W:a1 B: w 9 x", "must be a number"),
    ("W:a1 B: w -1 0", "must be a whole number, not negative"),
    ("W:a1 B: w ² 0", "must be a number"),
    ("W:a1,d1 B: w 8 0", "too many stones for White"),
    ("W: B:a1,a4,a7,d7,g7,g4,g1,d1,b2,b4 w", "too many stones for Black"),
    ("B:a1 W: w", "expected W:"),
    ("W:a1 b:a4 w", "expected B:"),
    ("W:a1, B: w", "unknown point ''"),
    ("W:A1 B: w", "unknown point 'A1'"),
    ("", "cannot parse"),
    ("startpos w", "cannot parse"),
    ("garbage", "cannot parse"),
])
def test_bad_positions_are_rejected_with_a_reason(text, message):
    with pytest.raises(NotationError, match=message):
        parse_position(text)


def test_stone_limit_follows_the_rules():
    assert parse_position("W:a1,d1,g1 B: w 2 5", Rules(stones=5))
    with pytest.raises(NotationError, match="each side has 5"):
        parse_position("W:a1,d1,g1 B: w 3 5", Rules(stones=5))


@st.composite
def positions(draw) -> Position:
    """Any position with at most nine stones per side, board plus hand."""
    points = draw(st.permutations(range(NUM_POINTS)))
    nw, nb = draw(st.integers(0, 9)), draw(st.integers(0, 9))
    white, black = mask_of(points[:nw]), mask_of(points[nw:nw + nb])
    hands = draw(st.integers(0, 9 - nw)), draw(st.integers(0, 9 - nb))
    return Position(white, black, *hands, draw(st.sampled_from("wb")))


@given(positions())
def test_position_round_trip(pos):
    text = format_position(pos)
    assert parse_position(text) == pos
    assert format_position(parse_position(text)) == text
    assert str(pos) == text


@pytest.mark.parametrize("text, move", [
    ("d2", Move(point_index("d2"))),
    ("d2xa4", Move(point_index("d2"), take=point_index("a4"))),
    ("d2-d3", Move(point_index("d3"), origin=point_index("d2"))),
    ("d2-d3xa4", Move(point_index("d3"), origin=point_index("d2"), take=point_index("a4"))),
])
def test_move_notation_round_trip(text, move):
    assert parse_move(text) == move
    assert str(move) == text


@pytest.mark.parametrize("text", ["", "d4", "d2-", "d2x", "d2-d3-d4", "D2", "d2 d3", "d2xa4xb6xc4",
                                  "d2xd4", "h1", "-d3", "xa4"])
def test_bad_moves_are_rejected(text):
    with pytest.raises(NotationError):
        parse_move(text)


def test_legal_move_parsing_explains_itself():
    pos = parse_position("W:a1,d1 B:a4,b6,d6,f6 w 1 3")
    assert parse_legal_move("g1xa4", pos) == Move(point_index("g1"), take=point_index("a4"))
    with pytest.raises(NotationError, match=r"closes a mill: say which stone it takes \(a4\)"):
        parse_legal_move("g1", pos)
    with pytest.raises(NotationError, match="illegal move g1xb6"):
        parse_legal_move("g1xb6", pos)  # b6 stands in a mill
    with pytest.raises(NotationError, match="illegal move a1-a7"):
        parse_legal_move("a1-a7", pos)  # White still has a stone in hand
    with pytest.raises(NotationError, match="game is over"):
        parse_legal_move("g1", parse_position("W:a1,d1 B:a4,b6,d6 w"))


def test_format_moves():
    assert format_moves([parse_move("d2"), parse_move("d2-d3xa4")]) == "d2 d2-d3xa4"
