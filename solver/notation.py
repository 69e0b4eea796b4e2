"""Text forms of positions and moves.

Position strings name White's points, Black's points and the side to move,
optionally followed by the stones in hand of White and Black (omitted: 0 0)::

    W:a1,d2,g7 B:a4,b6 w
    W:d2 B:f4 w 8 8
    startpos                  (empty board, all stones in hand, White to move)

Moves: ``d2`` (place), ``d2xa4`` (place and take), ``d2-d3`` (slide or jump),
``d2-d3xa4`` (and take).

>>> pos = parse_position("W:g7,a1,d2 B:b6,a4 w")
>>> format_position(pos)
'W:a1,d2,g7 B:a4,b6 w'
>>> format_position(parse_position("startpos"))
'W: B: w 9 9'
>>> str(parse_move("d2-d3xa4"))
'd2-d3xa4'
"""

from __future__ import annotations

import re

from .board import POINT_NAMES, point_index, points_of
from .position import BLACK, WHITE, Move, Position, popcount
from .rules import STANDARD, Rules


class NotationError(ValueError):
    """Text that is not a valid position or move; the message says what is wrong."""


def _sorted_names(mask: int) -> list[str]:
    return sorted(POINT_NAMES[p] for p in points_of(mask))


def format_position(pos: Position) -> str:
    """The canonical position string (points sorted a1, a4, ... g7)."""
    text = f"W:{','.join(_sorted_names(pos.white))} B:{','.join(_sorted_names(pos.black))} {pos.turn}"
    if pos.white_hand or pos.black_hand:
        text += f" {pos.white_hand} {pos.black_hand}"
    return text


def _parse_point(name: str) -> int:
    try:
        return point_index(name)
    except ValueError:
        raise NotationError(f"unknown point {name!r} (points are a1..g7 on the board's lines)") from None


def _parse_stones(token: str, colour: str) -> int:
    prefix = colour + ":"
    if not token.startswith(prefix):
        raise NotationError(f"expected {prefix} followed by {colour}'s points, got {token!r}")
    body = token[len(prefix):]
    mask = 0
    if not body:
        return mask
    for name in body.split(","):
        p = _parse_point(name)
        if mask >> p & 1:
            raise NotationError(f"point {name} given twice for {colour}")
        mask |= 1 << p
    return mask


def _parse_hand(token: str, colour: str) -> int:
    # isdigit() alone also accepts digits like '²' that int() rejects.
    if not (token.isascii() and token.isdigit()):
        raise NotationError(f"stones in hand for {colour} must be a number, got {token!r}")
    return int(token)


def parse_position(text: str, rules: Rules = STANDARD) -> Position:
    """Parse a position string strictly; NotationError says what is wrong.

    ``rules`` fixes the stones per side, against which stones on the board plus
    stones in hand are checked.
    """
    if not isinstance(text, str):
        raise NotationError("a position must be a string")
    tokens = text.split()
    if tokens == ["startpos"]:
        return Position(0, 0, rules.stones, rules.stones, WHITE)
    if len(tokens) not in (3, 5):
        raise NotationError(
            f"cannot parse position {text!r}: expected 'W:<points> B:<points> w|b [white-hand black-hand]' or 'startpos'")
    white = _parse_stones(tokens[0], "W")
    black = _parse_stones(tokens[1], "B")
    both = white & black
    if both:
        raise NotationError(f"point {POINT_NAMES[points_of(both)[0]]} given to both colours")
    turn = tokens[2]
    if turn not in (WHITE, BLACK):
        raise NotationError(f"side to move must be 'w' or 'b', got {turn!r}")
    white_hand = black_hand = 0
    if len(tokens) == 5:
        white_hand = _parse_hand(tokens[3], "White")
        black_hand = _parse_hand(tokens[4], "Black")
    for name, mask, hand in (("White", white, white_hand), ("Black", black, black_hand)):
        if popcount(mask) + hand > rules.stones:
            raise NotationError(
                f"too many stones for {name}: {popcount(mask)} on the board and {hand} in hand, "
                f"but each side has {rules.stones}")
    return Position(white, black, white_hand, black_hand, turn)


_MOVE_RE = re.compile(r"^([a-g][1-7])(?:-([a-g][1-7]))?(?:x([a-g][1-7]))?$")


def parse_move(text: str) -> Move:
    """Parse move notation (``d2``, ``d2xa4``, ``d2-d3``, ``d2-d3xa4``) without a position."""
    m = _MOVE_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise NotationError(f"cannot parse move {text!r}: expected d2, d2xa4, d2-d3 or d2-d3xa4")
    first, second, take = m.groups()
    if second is None:
        origin, target = None, _parse_point(first)
    else:
        origin, target = _parse_point(first), _parse_point(second)
    return Move(target, origin, None if take is None else _parse_point(take))


def parse_legal_move(text: str, pos: Position, rules: Rules = STANDARD) -> Move:
    """Parse ``text`` as a legal move in ``pos``; NotationError says why it is not.

    A move that closes a mill must name the stone it takes when there is a choice.
    """
    move = parse_move(text)
    legal = pos.legal_moves(rules)
    if move in legal:
        return move
    if move.take is None:
        takes = [m for m in legal if (m.origin, m.target) == (move.origin, move.target)]
        if takes:
            options = ", ".join(POINT_NAMES[m.take] for m in takes)
            raise NotationError(f"move {text} closes a mill: say which stone it takes ({options}), e.g. {takes[0]}")
    if not legal:
        raise NotationError(f"illegal move {text}: the game is over")
    raise NotationError(f"illegal move {text} in position {format_position(pos)}")


def format_moves(moves) -> str:
    """Moves as one space-separated line."""
    return " ".join(str(m) for m in moves)
