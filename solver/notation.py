"""Text forms of positions and moves: the one place that knows the notation.

Position strings name White's points, Black's points and the side to move,
optionally followed by the stones in hand of White and Black (omitted: 0 0)::

    W:a1,d2,g7 B:a4,b6 w
    W:d2 B:f4 w 8 8
    startpos                  (empty board, all stones in hand, White to move)

Moves: ``d2`` (place), ``d2xa4`` (place and take), ``d2-d3`` (slide or jump),
``d2-d3xa4`` (and take); where two mills at once take two stones, ``d2-d3xa4xb6``.

Point names are those of the board (:mod:`solver.board`): a1..g7 on the standard and
Morabaraba boards, a1..e5 on the boards of Six and Seven Men's Morris, a1..c3 on Three
Men's Morris.  Every function takes the ``board`` (default: the standard board); a name
the board does not have is an :class:`InvalidNotationError`.

This module works on plain values (masks, point numbers), so that the types of
:mod:`solver.position` can use it for their text form without an import cycle; the
parsers that build those types are :func:`solver.position.parse_position`,
:func:`~solver.position.parse_move` and :func:`~solver.position.parse_legal_move`.

>>> read_position("W:g7,a1,d2 B:b6,a4 w") == (read_position("W:a1,d2,g7 B:a4,b6 w"))
True
>>> position_text(*read_position("W:g7,a1,d2 B:b6,a4 w"))
'W:a1,d2,g7 B:a4,b6 w'
>>> position_text(*read_position("startpos"))
'W: B: w 9 9'
>>> move_text(*read_move("d2-d3xa4"))
'd2-d3xa4'
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from .board import STANDARD_BOARD, Board, points_of
from .errors import InvalidNotationError, NotationError, echoed

__all__ = ["NotationError", "read_position", "read_move", "position_text", "move_text",
           "format_position", "format_moves", "parse_point", "too_many_stones", "COLOUR_NAMES"]

WHITE = "w"
BLACK = "b"
#: The sides as words say them.
COLOUR_NAMES = {WHITE: "White", BLACK: "Black"}
#: Stones per side where no rules say otherwise (the standard game).
STANDARD_STONES = 9


def _sorted_names(mask: int, board: Board) -> list[str]:
    return sorted(board.points[p] for p in points_of(mask))


def position_text(white: int, black: int, white_hand: int = 0, black_hand: int = 0,
                  turn: str = WHITE, board: Board = STANDARD_BOARD) -> str:
    """The canonical position string (points sorted a1, a4, ... g7; hands 0 0 left out)."""
    text = (f"W:{','.join(_sorted_names(white, board))} "
            f"B:{','.join(_sorted_names(black, board))} {turn}")
    if white_hand or black_hand:
        text += f" {white_hand} {black_hand}"
    return text


def format_position(pos) -> str:
    """The canonical string of a :class:`~solver.position.Position` (also ``str(pos)``)."""
    if not all(hasattr(pos, name) for name in ("white", "black", "white_hand", "black_hand", "turn")):
        raise TypeError(f"format_position takes a Position, not {type(pos).__name__}")
    return position_text(pos.white, pos.black, pos.white_hand, pos.black_hand, pos.turn,
                         getattr(pos, "board", STANDARD_BOARD))


def move_text(target: int, origin: Optional[int] = None, take: Optional[int] = None,
              take2: Optional[int] = None, board: Board = STANDARD_BOARD) -> str:
    """``d2``, ``d2xa4``, ``d2-d3`` or ``d2-d3xa4`` (also ``str(move)``); ``take2``, the
    second stone of a move that closes two mills where that takes two, adds ``xb6``."""
    names = board.points
    text = names[target]
    if origin is not None:
        text = f"{names[origin]}-{text}"
    for t in (take, take2):
        if t is not None:
            text += f"x{names[t]}"
    return text


def format_moves(moves: Iterable) -> str:
    """Moves as one space-separated line."""
    return " ".join(str(m) for m in moves)


def parse_point(name: str, board: Board = STANDARD_BOARD) -> int:
    """The number of the point ``name`` of ``board``; InvalidNotationError for anything
    else (a move such as ``a1-a4`` included).

    >>> parse_point("a7"), parse_point("d2")
    (0, 19)
    """
    try:
        return board.point_index(name)
    except ValueError:
        where = "the board's lines" if board == STANDARD_BOARD else f"the lines of the {board.name} board"
        raise InvalidNotationError(f"unknown point {name[:20]!r} (points are a1..{board.files[-1]}{board.size} "
                                   f"on {where})") from None


def _parse_stones(token: str, colour: str, board: Board) -> int:
    prefix = colour + ":"
    if not token.startswith(prefix):
        raise InvalidNotationError(f"expected {prefix} followed by {COLOUR_NAMES[colour.lower()]}'s points, "
                                   f"got {echoed(token)}")
    body = token[len(prefix):]
    mask = 0
    if not body:
        return mask
    for name in body.split(","):
        p = parse_point(name, board)
        if mask >> p & 1:
            raise InvalidNotationError(f"point {name} given twice for {colour}")
        mask |= 1 << p
    return mask


def _parse_hand(token: str, colour: str) -> int:
    # isdigit() alone also accepts digits like '²' that int() rejects.
    if not (token.isascii() and token.isdigit()):
        what = "a whole number, not negative" if token.startswith("-") else "a number"
        raise InvalidNotationError(f"stones in hand for {colour} must be {what}, got {token[:20]!r}")
    digits = token.lstrip("0") or "0"
    if len(digits) > 2:           # no int() of a 5,000-digit string (no stone count has 3)
        raise InvalidNotationError(f"stones in hand for {colour}: {token[:20]}"
                                   f"{'…' if len(token) > 20 else ''} is too many")
    return int(digits)


def read_position(text: str, stones: int = STANDARD_STONES,
                  board: Board = STANDARD_BOARD) -> tuple[int, int, int, int, str]:
    """(white, black, white_hand, black_hand, turn) of a position string, read strictly;
    InvalidNotationError says what is wrong.

    ``stones`` (per side, from the rules) bounds stones on the board plus in hand.
    """
    if not isinstance(text, str):
        raise InvalidNotationError("a position must be a string")
    tokens = text.split()
    if tokens == ["startpos"]:
        return 0, 0, stones, stones, WHITE
    if len(tokens) not in (3, 5):
        raise InvalidNotationError(
            f"cannot parse position {echoed(text)}: expected 'W:<points> B:<points> w|b [white-hand black-hand]' or 'startpos'")
    white = _parse_stones(tokens[0], "W", board)
    black = _parse_stones(tokens[1], "B", board)
    both = white & black
    if both:
        raise InvalidNotationError(f"point {board.points[points_of(both)[0]]} given to both colours")
    turn = tokens[2]
    if turn not in (WHITE, BLACK):
        raise InvalidNotationError(f"side to move must be 'w' or 'b', got {echoed(turn, 20)}")
    white_hand = black_hand = 0
    if len(tokens) == 5:
        white_hand = _parse_hand(tokens[3], "White")
        black_hand = _parse_hand(tokens[4], "Black")
    why = too_many_stones(white, black, white_hand, black_hand, stones)
    if why is not None:
        raise InvalidNotationError(why)
    return white, black, white_hand, black_hand, turn


def too_many_stones(white: int, black: int, white_hand: int, black_hand: int, stones: int) -> Optional[str]:
    """What is wrong where a side has more than ``stones`` on the board and in hand (the
    rules' stones a side: no game reaches it, and no database file holds it), else None;
    the caller raises the error of its kind (text read, or a Position given).

    >>> too_many_stones(0b111, 0, 7, 0, 9)
    'too many stones for White: 3 on the board and 7 in hand, but each side has 9'
    """
    for name, mask, hand in (("White", white, white_hand), ("Black", black, black_hand)):
        if mask.bit_count() + hand > stones:
            return (f"too many stones for {name}: {mask.bit_count()} on the board and {hand} in hand, "
                    f"but each side has {stones}")
    return None


# Points of any board's grid; which exist is the board's to say (parse_point).
_POINT = r"[a-z][1-9][0-9]?"
_MOVE_RE = re.compile(rf"^({_POINT})(?:-({_POINT}))?(?:x({_POINT}))?(?:x({_POINT}))?$")


def read_move(text: str, board: Board = STANDARD_BOARD
              ) -> tuple[int, Optional[int], Optional[int], Optional[int]]:
    """(target, origin, take, take2) of move notation, without a position; origin None
    for a placement, take None for no take, take2 None but for the second stone of a
    move that takes two."""
    m = _MOVE_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise InvalidNotationError(f"cannot parse move {echoed(text, 40)}: expected d2, d2xa4, d2-d3 or d2-d3xa4")
    first, second, take, take2 = m.groups()
    try:
        if second is None:
            origin, target = None, parse_point(first, board)
        else:
            origin, target = parse_point(first, board), parse_point(second, board)
        return (target, origin, None if take is None else parse_point(take, board),
                None if take2 is None else parse_point(take2, board))
    except InvalidNotationError as error:
        raise InvalidNotationError(f"cannot parse move {text[:40]!r}: {error}") from None
