"""Positions in other programs' text: Sanmill's FEN and Malom's clipboard format.

Both name the stones of the 24-point board (the standard and Morabaraba boards) in an
order of their own, and carry what a position string does not: a take pending (the
side to move has closed a mill and takes next), the count of plies without a mill,
the move number, and fields muehle has no use for, kept as read.  A :class:`Setup`
holds all of it; :func:`read_setup` reads either format (or muehle's own position
string), :func:`fen_text` and :func:`malom_text` write them.

Sanmill's FEN (its ``Position::fen``; the app's engine protocol, ``muehle uci``, takes
it after ``position fen``)::

    O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1

is the board (three groups of 8 points: the inner square, the middle one, the outer
one, each from its top middle point clockwise: :data:`FEN_POINTS`; ``O`` White, ``@``
Black, ``*`` empty), the side to move (``w``/``b``), the phase (``r`` ready, ``p``
placing, ``m`` moving, ``o`` over), the action (``p`` place, ``s`` select a stone to
move, ``r`` remove), White's stones on the board and in hand, Black's, the stones
White and Black have to remove now, four fields of the last mill each side closed
and one of the mills formed (kept as read; an older form of 12 fields lacks these
five), the plies without a take (Sanmill's rule-50 counter: muehle's quiet plies)
and the move number (from 1, counted up after Black's move).

>>> setup = read_setup("O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1")
>>> position_text(*setup.position_fields())
'W:d5 B: b 8 9'
>>> fen_text(setup) == "O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1"
True
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from .board import STANDARD_BOARD, Board, points_of
from .errors import InvalidNotationError
from .notation import BLACK, STANDARD_STONES, WHITE, position_text, read_position, too_many_stones

__all__ = ["Setup", "read_setup", "read_fen", "fen_text", "malom_text", "read_malom",
           "FEN_POINTS", "is_fen", "FORMATS"]

#: The points of a FEN's board field, in its order: Sanmill's squares 8..31 (the inner
#: square from d5 clockwise, then the middle one from d6, the outer one from d7).
FEN_POINTS = ("d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5",
              "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6",
              "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7")

#: The text formats a position is read from and written in (``muehle convert``).
FORMATS = ("muehle", "fen", "malom")

#: Fields 11..15 of a FEN where nothing is known of them (no mill closed yet).
_FEN_UNKNOWN = ("0", "0", "0", "0", "0")
_FEN_STONE = {"O": WHITE, "@": BLACK, "*": None}
_FEN_PHASES = {"r": "ready", "p": "placing", "m": "moving", "o": "over"}


class Setup(NamedTuple):
    """A position as another program writes it: the stones, the side to move, and what
    the format adds.  ``take``: stones the side to move takes now (it has just closed a
    mill; 0 between turns); ``quiet_plies``: plies in a row without a mill (Sanmill's
    rule-50 counter); ``fullmove``: the move number; ``placed``: the pending take's mill
    was closed by a stone placed (not moved); ``kept``: fields muehle has no use for, as
    read, written back as they were to the format they were read from (``source``:
    ``muehle``, ``fen``, ``fen12`` for the older FEN of 12 fields, ``malom``);
    ``phase``: the FEN's phase letter as read (``r`` before the first stone, ``o`` a
    game over: written back; else derived)."""

    white: int
    black: int
    white_hand: int
    black_hand: int
    turn: str
    take: int = 0
    quiet_plies: int = 0
    fullmove: int = 1
    placed: bool = False
    kept: tuple[str, ...] = ()
    source: str = "muehle"
    phase: str = ""

    def position_fields(self) -> tuple[int, int, int, int, str]:
        """(white, black, white_hand, black_hand, turn): a position string's fields.
        InvalidNotationError where a take is pending: muehle's positions lie between
        turns, and the move that closed the mill is not known."""
        if self.take:
            colour = "White" if self.turn == WHITE else "Black"
            raise InvalidNotationError(
                f"{colour} has closed a mill and takes next: muehle's positions lie between turns "
                f"(give the position before the mill's move, or send this one to muehle uci, which "
                f"plays the take)")
        return self.white, self.black, self.white_hand, self.black_hand, self.turn

    def quiet_count(self, quiet_limit: int) -> int:
        """The count of quiet plies a game taken up here has made: :attr:`quiet_plies`,
        at most ``quiet_limit`` (where the game is drawn), and 0 while stones are in
        hand (the count starts when the last is placed)."""
        return 0 if self.white_hand or self.black_hand else min(self.quiet_plies, quiet_limit)


def is_fen(text: str) -> bool:
    """Whether ``text`` looks like a FEN (its first field holds a ``/``)."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return "/" in first


def _fen_board(board: Board) -> None:
    if board.num_points != 24 or not set(FEN_POINTS) <= set(board.points):
        raise InvalidNotationError(f"a FEN names the points of a 24-point board, not of the {board.name} board")


def _number(text: str, what: str, column: int, low: int = 0, high: int = 10 ** 6) -> int:
    if not re.fullmatch(r"-?[0-9]{1,7}", text) or not low <= int(text) <= high:
        raise InvalidNotationError(f"FEN field {column} ({what}): a whole number from {low} to {high}, "
                                   f"not {text[:20]!r}")
    return int(text)


def read_fen(text: str, stones: int = STANDARD_STONES, board: Board = STANDARD_BOARD) -> Setup:
    """The :class:`Setup` of a Sanmill FEN, checked field by field: InvalidNotationError
    names the field (counted from 1) and what is wrong with it.

    >>> read_fen("********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1")[:5]
    (0, 0, 9, 9, 'w')
    >>> read_fen("********/********/******** w p p 0 9 0 9 0 0 1")   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    solver.errors.InvalidNotationError: FEN: 11 fields, but a FEN has 12 (...) or 17 (...)
    """
    if not isinstance(text, str):
        raise InvalidNotationError("a FEN is a string")
    _fen_board(board)
    fields = text.split()
    if len(fields) not in (12, 17) and len(fields) < 17:
        raise InvalidNotationError(
            f"FEN: {len(fields)} fields, but a FEN has 12 (board, side, phase, action, 4 counts of "
            f"stones, 2 of stones to remove, rule-50 plies, move number) or 17 (and the last mills "
            f"closed and the mills formed before the last two)")
    rows = fields[0].split("/")
    if len(rows) != 3 or any(len(row) != 8 for row in rows):
        raise InvalidNotationError(f"FEN field 1 (board): three groups of 8 points joined by '/', "
                                   f"not {fields[0][:40]!r}")
    white = black = 0
    for i, char in enumerate("".join(rows)):
        if char not in _FEN_STONE:
            what = "a banned point (X) muehle's rules have none of" if char == "X" else repr(char)
            raise InvalidNotationError(f"FEN field 1 (board), point {i + 1} ({FEN_POINTS[i]}): {what}; "
                                       f"points are O (White), @ (Black) or * (empty)")
        bit = 1 << board.point_index(FEN_POINTS[i])
        if _FEN_STONE[char] == WHITE:
            white |= bit
        elif _FEN_STONE[char] == BLACK:
            black |= bit
    turn = fields[1]
    if turn not in (WHITE, BLACK):
        raise InvalidNotationError(f"FEN field 2 (side to move): w or b, not {turn[:20]!r}")
    phase, action = fields[2], fields[3]
    if phase not in _FEN_PHASES:
        raise InvalidNotationError(f"FEN field 3 (phase): r, p, m or o, not {phase[:20]!r}")
    if action not in ("p", "s", "r"):
        raise InvalidNotationError(f"FEN field 4 (action): p (place), s (select) or r (remove), "
                                   f"not {action[:20]!r}")
    counts = [_number(fields[4 + i], what, 5 + i, 0, stones) for i, what in enumerate(
        ("White's stones on the board", "White's stones in hand",
         "Black's stones on the board", "Black's stones in hand"))]
    for colour, mask, count, column in (("White", white, counts[0], 5), ("Black", black, counts[2], 7)):
        if mask.bit_count() != count:
            raise InvalidNotationError(f"FEN field {column} ({colour}'s stones on the board): {count}, "
                                       f"but the board field has {mask.bit_count()}")
    white_hand, black_hand = counts[1], counts[3]
    removes = [_number(fields[8 + i], f"{colour}'s stones to remove", 9 + i, -stones, stones)
               for i, colour in enumerate(("White", "Black"))]
    mover, other = (removes[0], removes[1]) if turn == WHITE else (removes[1], removes[0])
    if action == "r" and not (mover or other):
        mover = 1               # (as Sanmill's newest reader: one take pending)
    if other or mover < 0:
        raise InvalidNotationError(
            "FEN fields 9-10 (stones to remove): only the side to move removes, and a positive count "
            "(muehle's rules have no negative one)")
    if (action == "r") != (mover > 0):
        raise InvalidNotationError(
            f"FEN field 4 (action) {action!r} and fields 9-10 (stones to remove) disagree: the action "
            f"is r exactly where the side to move has stones to remove")
    if phase == "p" and action == "s" or phase == "m" and action == "p":
        raise InvalidNotationError(f"FEN field 4 (action): {action!r} is no action of the "
                                   f"{_FEN_PHASES[phase]} phase")
    if phase == "m" and (white_hand or black_hand):
        raise InvalidNotationError("FEN field 3 (phase): m (moving), but stones are in hand")
    if phase in ("r", "p") and not (white_hand or black_hand) and action != "r":
        raise InvalidNotationError("FEN field 3 (phase): placing, but no stone is in hand")
    if phase == "r" and (white or black):
        raise InvalidNotationError("FEN field 3 (phase): r (ready), but stones are on the board")
    kept = tuple(fields[10:15]) if len(fields) >= 17 else ()
    tail = fields[15:] if len(fields) >= 17 else fields[10:]
    extra = tuple(tail[2:])         # (fields of Sanmill's other games: kept as read)
    quiet = _number(tail[0], "plies without a take", 11 if len(fields) == 12 else 16)
    fullmove = _number(tail[1], "move number", 12 if len(fields) == 12 else 17, 0)
    why = too_many_stones(white, black, white_hand, black_hand, stones)
    if why is not None:
        raise InvalidNotationError(f"FEN: {why}")
    return Setup(white, black, white_hand, black_hand, turn, mover, quiet, fullmove,
                 mover > 0 and phase == "p", kept + extra, "fen12" if len(fields) == 12 else "fen",
                 phase if phase in ("r", "o") else "")


def fen_text(setup: Setup, board: Board = STANDARD_BOARD) -> str:
    """The FEN of ``setup`` (the form of 17 fields, or of 12 where it was read so)."""
    _fen_board(board)
    chars = []
    for name in FEN_POINTS:
        bit = 1 << board.point_index(name)
        chars.append("O" if setup.white & bit else "@" if setup.black & bit else "*")
    squares = "".join(chars)
    in_hand = setup.white_hand or setup.black_hand
    if setup.take:
        # (a mill closed by the last stone placed is still the placing phase's)
        phase, action = ("p" if in_hand or setup.placed else "m"), "r"
    elif not in_hand:
        phase, action = "m", "s"
    else:
        phase, action = "p", "p"
    if setup.phase in ("r", "o") and setup.source.startswith("fen"):
        phase = setup.phase
    removes = (setup.take, 0) if setup.turn == WHITE else (0, setup.take)
    fields = [f"{squares[:8]}/{squares[8:16]}/{squares[16:]}", setup.turn, phase, action,
              str(setup.white.bit_count()), str(setup.white_hand), str(setup.black.bit_count()),
              str(setup.black_hand), str(removes[0]), str(removes[1])]
    kept = setup.kept if setup.source == "fen" else _FEN_UNKNOWN
    if setup.source != "fen12":
        fields += list(kept[:5])
    fields += [str(setup.quiet_plies), str(setup.fullmove)] + list(kept[5:])
    return " ".join(fields)


def read_setup(text: str, stones: int = STANDARD_STONES, board: Board = STANDARD_BOARD) -> Setup:
    """The :class:`Setup` of a position in any format muehle reads: its own position
    string, a FEN, Malom's clipboard text; InvalidNotationError says what is wrong."""
    if not isinstance(text, str):
        raise InvalidNotationError("a position must be a string")
    setup = (read_fen(text, stones, board) if is_fen(text) else read_malom(text, stones, board) if is_malom(text)
             else Setup(*read_position(text, stones, board)))
    if setup.take:
        # (said here, as every reader of the text says it: a take pending needs a mill)
        own, colour = (setup.white, "White") if setup.turn == WHITE else (setup.black, "Black")
        opp = setup.black if setup.turn == WHITE else setup.white
        # (nothing to take is said first, where the rules are known: turn_of_setup)
        if opp and not any(mill & own == mill for mill in board.mills):
            raise InvalidNotationError(f"{colour} is to take a stone, but no mill of {colour}'s could have "
                                       f"just been closed")
    return setup


#: The points of Malom's board fields 0..23, in its order: the outer square, the
#: middle one, the inner one, each from its left middle point clockwise.
MALOM_POINTS = ("a4", "a7", "d7", "g7", "g4", "g1", "d1", "a1",
                "b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2",
                "c4", "c5", "d5", "e5", "e4", "e3", "d3", "c3")
#: Field counts of Malom's clipboard text, by where its marker stands: the current form
#: (``malom2`` last of 38 fields) and older ones (``malom`` as field 34, 35 or 36).
_MALOM_FORMS = {38: "malom2", 34: "malom", 35: "malom", 36: "malom"}
#: What Malom writes in the fields muehle keeps as read (numbered from 0).
_MALOM_KEPT = {25: "a field Malom writes 0 in", 26: "a field Malom writes 0 in", 33: "the move count",
               34: "moves since the last placement or take", 35: "White's player", 36: "Black's player"}


def is_malom(text: str) -> bool:
    """Whether ``text`` looks like Malom's clipboard text (comma-separated, ending in its
    marker ``malom`` or ``malom2``)."""
    return text.rstrip().rstrip(",").rsplit(",", 1)[-1].strip() in ("malom", "malom2") and "," in text


def read_malom(text: str, stones: int = STANDARD_STONES, board: Board = STANDARD_BOARD) -> Setup:
    """The :class:`Setup` of Malom's clipboard text (its ``GameState.ToString`` and the
    player types: 38 comma-separated fields; also its older forms of 34 to 36)::

        24 points (-1 empty, 0 White, 1 Black), side to move (0 White, 1 Black), 0, 0,
        phase (1 placing, 2 moving), stones placed by White and by Black, stones on the
        board of White and of Black, a take pending (True/False), the move count, the
        moves since the last placement or take, the two players' kinds, malom2

    InvalidNotationError names the field (counted from 1) and what is wrong.

    >>> s = read_malom(",".join(["-1"] * 24) + ",0,0,0,1,0,0,0,0,False,0,0,0,0,malom2")
    >>> s[:5]
    (0, 0, 9, 9, 'w')
    """
    if board.num_points != 24 or not set(MALOM_POINTS) <= set(board.points):
        raise InvalidNotationError(f"Malom's text names the points of a 24-point board, not of the {board.name} board")
    fields = [f.strip() for f in text.strip().split(",")]
    form = _MALOM_FORMS.get(len(fields))
    if form is None or fields[-1] != form:
        raise InvalidNotationError(
            f"Malom's text has 38 comma-separated fields ending in malom2 (or 34 to 36 ending in malom), not "
            f"{len(fields)} ending in {fields[-1][:20]!r}")

    def number(i: int, what: str, low: int, high: int) -> int:
        if not re.fullmatch(r"-?[0-9]{1,7}", fields[i]) or not low <= int(fields[i]) <= high:
            raise InvalidNotationError(f"Malom's text, field {i + 1} ({what}): a whole number from "
                                       f"{low} to {high}, not {fields[i][:20]!r}")
        return int(fields[i])

    white = black = 0
    for i, name in enumerate(MALOM_POINTS):
        stone = number(i, f"point {name}", -1, 1)
        if stone == 0:
            white |= 1 << board.point_index(name)
        elif stone == 1:
            black |= 1 << board.point_index(name)
    turn = WHITE if number(24, "side to move", 0, 1) == 0 else BLACK
    phase = number(27, "phase", 1, 2)
    placed = [number(28 + c, f"stones {name} has placed", 0, stones) for c, name in enumerate(("White", "Black"))]
    on_board = [number(30 + c, f"{name}'s stones on the board", 0, stones) for c, name in enumerate(("White", "Black"))]
    for c, (name, mask) in enumerate((("White", white), ("Black", black))):
        if mask.bit_count() != on_board[c]:
            raise InvalidNotationError(f"Malom's text, field {31 + c} ({name}'s stones on the board): "
                                       f"{on_board[c]}, but the points hold {mask.bit_count()}")
    if fields[32] not in ("True", "False"):
        raise InvalidNotationError(f"Malom's text, field 33 (a take pending): True or False, not {fields[32][:20]!r}")
    take = int(fields[32] == "True")
    hands = [stones - placed[0], stones - placed[1]]
    if phase == 2 and any(hands):
        raise InvalidNotationError("Malom's text, field 28 (phase): 2 (moving), but not every stone is placed")
    if phase == 1 and not any(hands) and not take:
        raise InvalidNotationError("Malom's text, field 28 (phase): 1 (placing), but every stone is placed")
    for i in (25, 26, *range(33, len(fields) - 1)):
        # (fields muehle keeps as read: Malom writes whole numbers there)
        number(i, _MALOM_KEPT[i], -10 ** 6, 10 ** 6)
    quiet = 0
    if len(fields) >= 36:
        quiet = max(number(34, "moves since the last placement or take", -10 ** 6, 10 ** 6), 0)
    why = too_many_stones(white, black, hands[0], hands[1], stones)
    if why is not None:
        raise InvalidNotationError(f"Malom's text: {why}")
    # fields 26-27, the move count and what follows the moves since the last take:
    # nothing muehle uses, written back as read
    kept = tuple(fields[25:27]) + tuple(fields[33:-1])
    return Setup(white, black, hands[0], hands[1], turn, take, quiet, 1, take > 0 and phase == 1,
                 kept, "malom" if form == "malom2" else f"malom{len(fields)}")


def malom_text(setup: Setup, board: Board = STANDARD_BOARD, stones: int = STANDARD_STONES) -> str:
    """Malom's clipboard text of ``setup`` (38 fields, or the older form it was read in).

    >>> malom_text(read_setup("startpos"))   # doctest: +ELLIPSIS
    '-1,-1,...,-1,0,0,0,1,0,0,0,0,False,0,0,0,0,malom2'
    """
    if board.num_points != 24 or not set(MALOM_POINTS) <= set(board.points):
        raise InvalidNotationError(f"Malom's text names the points of a 24-point board, not of the {board.name} board")
    if setup.take > 1:
        raise InvalidNotationError(f"Malom's text says whether a take is pending, not that {setup.take} are")
    points = []
    for name in MALOM_POINTS:
        bit = 1 << board.point_index(name)
        points.append("0" if setup.white & bit else "1" if setup.black & bit else "-1")
    phase = 1 if setup.white_hand or setup.black_hand or setup.placed else 2
    if setup.source.startswith("malom"):
        kept = list(setup.kept)
        head, tail = kept[:2], kept[2:]
        if len(tail) >= 2:
            tail[1] = str(setup.quiet_plies) if int(tail[1]) >= 0 or setup.quiet_plies else tail[1]
        marker = "malom2" if setup.source == "malom" else "malom"
    else:
        head, tail, marker = ["0", "0"], ["0", str(setup.quiet_plies), "0", "0"], "malom2"
    fields = points + ["0" if setup.turn == WHITE else "1", *head, str(phase),
                       str(stones - setup.white_hand), str(stones - setup.black_hand),
                       str(setup.white.bit_count()), str(setup.black.bit_count()),
                       "True" if setup.take else "False", *tail, marker]
    return ",".join(fields)
