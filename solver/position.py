"""Positions and moves: the readable reference for the rules of play.

This module is the specification.  The Cython kernels in ``ext/`` must agree with
it exactly, and the test suite proves that on many random positions.

A :class:`Position` holds both stone sets (24-bit masks, see :mod:`solver.board`),
the stones each side still has in hand, and the side to move.  A side with stones
in hand places; a side with none in hand slides its stones to adjacent free points,
or jumps anywhere when it has exactly three (if the rules allow jumping).  Closing a
mill takes one enemy stone.

>>> pos = parse_position("startpos")
>>> len(pos.legal_moves())
24
>>> pos = parse_position("W:a1,d1,a4,d2 B:g7,b6,f6 w")
>>> [str(m) for m in pos.legal_moves()]
['a4-a7', 'a4-b4', 'd2-d3', 'd2-b2', 'd2-f2', 'd1-g1']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from . import board
from .board import ADJACENT, FULL_MASK, MILLS, MILLS_THROUGH, NUM_POINTS
from .errors import AmbiguousMoveError, GameOverError, IllegalMoveError
from .notation import BLACK, WHITE, format_position, move_text, read_move, read_position
from .rules import STANDARD, Rules
from .values import DRAW, LOSS, WDL, WIN


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def in_mill(stones: int, point: int) -> bool:
    """Whether the stone on ``point`` stands in a closed mill of ``stones``."""
    return any(m & stones == m for m in MILLS_THROUGH[point])


def mill_points(stones: int) -> int:
    """Mask of the stones of ``stones`` that stand in a closed mill."""
    out = 0
    for m in MILLS:
        if m & stones == m:
            out |= m
    return out


def closes_mill(stones_after: int, target: int) -> bool:
    """Whether a stone arriving on ``target`` closes a mill of ``stones_after``."""
    return in_mill(stones_after, target)


def takeable(enemy: int, rules: Rules) -> int:
    """Mask of enemy stones a closed mill may take.

    Stones in mills are protected, unless every enemy stone stands in a mill: then
    ``take-any`` lets any be taken and ``take-none`` lets none be.  With no enemy
    stone on the board there is nothing to take.
    """
    free = enemy & ~mill_points(enemy)
    if free:
        return free
    return 0 if rules.take_none else enemy


#: Stands for "no origin" (a placement) and "no take" in a packed move.
NO_POINT = 31


@dataclass(frozen=True)
class Move:
    """A move: place on ``target`` (``origin`` None), or go from ``origin`` to
    ``target``; ``take`` is the enemy stone taken when the move closes a mill.

    >>> str(Move(target=19)), str(Move(target=19, origin=16, take=9))
    ('d2', 'd3-d2xa4')

    The kernels pass moves packed into 15 bits, ``target | origin << 5 | take << 10``
    with :data:`NO_POINT` for no origin and no take (ext/movegen.pxi reads them with
    ``move_target``, ``move_origin`` and ``move_take``):

    >>> Move(19, 16, 9).pack(), Move.unpack(Move(19).pack())
    (9747, Move(target=19, origin=None, take=None))
    """

    target: int
    origin: Optional[int] = None
    take: Optional[int] = None

    def __str__(self) -> str:
        return move_text(self.target, self.origin, self.take)

    def pack(self) -> int:
        """The kernels' packed form of this move."""
        origin = NO_POINT if self.origin is None else self.origin
        take = NO_POINT if self.take is None else self.take
        return self.target | origin << 5 | take << 10

    @classmethod
    def unpack(cls, packed: int) -> "Move":
        """The move of a packed form (as the kernels' move generators return them)."""
        target, origin, take = packed & 31, (packed >> 5) & 31, (packed >> 10) & 31
        return cls(target, None if origin == NO_POINT else origin,
                   None if take == NO_POINT else take)

    @property
    def is_placement(self) -> bool:
        return self.origin is None


@dataclass(frozen=True)
class Position:
    """A position: stone masks, stones in hand and the side to move (``'w'``/``'b'``).

    Immutable; :meth:`play` returns the position after a move.
    """

    white: int
    black: int
    white_hand: int = 0
    black_hand: int = 0
    turn: str = WHITE

    def __post_init__(self) -> None:
        if self.white & self.black:
            raise ValueError("a point holds stones of both colours")
        if (self.white | self.black) & ~FULL_MASK:
            raise ValueError("stone masks have 24 bits")
        if self.white_hand < 0 or self.black_hand < 0:
            raise ValueError("stones in hand cannot be negative")
        if self.turn not in (WHITE, BLACK):
            raise ValueError("side to move must be 'w' or 'b'")

    # --- the side to move's view -------------------------------------------------
    @property
    def own(self) -> int:
        """Stones of the side to move."""
        return self.white if self.turn == WHITE else self.black

    @property
    def opp(self) -> int:
        """Stones of the side not to move."""
        return self.black if self.turn == WHITE else self.white

    @property
    def own_hand(self) -> int:
        return self.white_hand if self.turn == WHITE else self.black_hand

    @property
    def opp_hand(self) -> int:
        return self.black_hand if self.turn == WHITE else self.white_hand

    @classmethod
    def from_view(cls, own: int, opp: int, own_hand: int = 0, opp_hand: int = 0,
                  turn: str = WHITE) -> "Position":
        """Build a position from the side to move's view."""
        if turn == WHITE:
            return cls(own, opp, own_hand, opp_hand, WHITE)
        return cls(opp, own, opp_hand, own_hand, BLACK)

    @property
    def in_placement(self) -> bool:
        """Whether any stone is still in hand (the placement phase)."""
        return self.white_hand > 0 or self.black_hand > 0

    def swap_colours(self) -> "Position":
        """The same game with colours exchanged (values for the side to move are equal)."""
        return Position(self.black, self.white, self.black_hand, self.white_hand,
                        BLACK if self.turn == WHITE else WHITE)

    def transform(self, sym: int) -> "Position":
        """Image under board symmetry number ``sym`` (0..15)."""
        return replace(self, white=board.apply_symmetry(sym, self.white),
                       black=board.apply_symmetry(sym, self.black))

    # --- rules of play ----------------------------------------------------------
    def can_jump(self, rules: Rules = STANDARD) -> bool:
        """Whether the side to move jumps: exactly three stones, none in hand."""
        return rules.jumping and self.own_hand == 0 and popcount(self.own) == 3

    def legal_moves(self, rules: Rules = STANDARD) -> list[Move]:
        """Every legal move, in a fixed order (origin, target, take); [] if the game is over."""
        if self._lost_on_material(rules) is not None:
            return []
        return self._moves(rules)

    def _steps(self, rules: Rules) -> list[tuple[Optional[int], int]]:
        """Every (origin, target) the side to move may move a stone along, before any
        take; origin None for a placement."""
        own, opp = self.own, self.opp
        free = FULL_MASK & ~(own | opp)
        if self.own_hand > 0:
            return [(None, t) for t in board.points_of(free)]
        jump = self.can_jump(rules)
        steps: list[tuple[Optional[int], int]] = []
        for o in board.points_of(own):
            targets = free if jump else ADJACENT[o] & free
            steps += [(o, t) for t in board.points_of(targets)]
        return steps

    def _completed(self, origin: Optional[int], target: int, rules: Rules) -> list[Move]:
        """The moves of one step: one per stone it may take if it closes a mill, else
        the step alone (also when the mill finds nothing to take)."""
        after = self.own | 1 << target
        if origin is not None:
            after &= ~(1 << origin)
        victims = takeable(self.opp, rules) if closes_mill(after, target) else 0
        if victims:
            return [Move(target, origin, v) for v in board.points_of(victims)]
        return [Move(target, origin)]

    def _moves(self, rules: Rules) -> list[Move]:
        return [m for origin, target in self._steps(rules)
                for m in self._completed(origin, target, rules)]

    def is_legal(self, move: Move, rules: Rules = STANDARD) -> bool:
        """Whether ``move`` is legal here: the same as ``move in self.legal_moves(rules)``,
        without generating every move (retrograde checks call it very often).

        >>> pos = parse_position("W:a1,d1 B:a4 w 1 2")
        >>> pos.is_legal(parse_move("g1xa4")), pos.is_legal(parse_move("g1"))
        (True, False)
        """
        return (self._lost_on_material(rules) is None
                and (move.origin, move.target) in self._steps(rules)
                and move in self._completed(move.origin, move.target, rules))

    def _lost_on_material(self, rules: Rules) -> Optional[WDL]:
        if popcount(self.own) + self.own_hand < 3:
            return LOSS
        if popcount(self.opp) + self.opp_hand < 3:
            return WIN
        return None

    def outcome(self, rules: Rules = STANDARD) -> Optional[WDL]:
        """``None`` while the game goes on, else WIN or LOSS for the side to move.

        The side to move loses with fewer than three stones (board plus hand) or with
        no legal move; it has won if the opponent has fewer than three.
        """
        result = self._lost_on_material(rules)
        if result is None and not self._moves(rules):
            result = LOSS
        return result

    def play(self, move: Move, rules: Rules = STANDARD) -> "Position":
        """The position after ``move``; IllegalMoveError (a ValueError) if it is not legal here."""
        if not self.is_legal(move, rules):
            raise IllegalMoveError(f"illegal move {move} in this position", move)
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> "Position":
        """The position after ``move``, trusting it to be legal."""
        own, opp = self.own, self.opp
        own_hand = self.own_hand
        if move.origin is None:
            own_hand -= 1
        else:
            own &= ~(1 << move.origin)
        own |= 1 << move.target
        if move.take is not None:
            opp &= ~(1 << move.take)
        nxt = BLACK if self.turn == WHITE else WHITE
        return Position.from_view(opp, own, self.opp_hand, own_hand, nxt)

    def quiet_predecessors(self, rules: Rules = STANDARD) -> list[tuple[Move, "Position"]]:
        """Every (move, position) such that playing ``move`` in ``position`` is legal,
        takes no stone, and leads here: the un-moves of retrograde analysis.

        The last mover is the side not to move now; it placed a stone (then it had one
        more in hand) or, with none in hand, slid or jumped one.  Written by definition:
        candidates are kept only if the forward rules reproduce this position.
        """
        mover = self.opp
        free = FULL_MASK & ~(self.own | self.opp)
        prev_turn = BLACK if self.turn == WHITE else WHITE
        found = []
        for target in board.points_of(mover):
            before = mover & ~(1 << target)
            candidates = [(None, before, self.opp_hand + 1)]
            if self.opp_hand == 0:
                candidates += [(o, before | 1 << o, 0) for o in board.points_of(free)]
            for origin, stones, hand in candidates:
                prev = Position.from_view(stones, self.own, hand, self.own_hand, prev_turn)
                move = Move(target, origin)
                # A legal move implies the game was not over (is_legal checks material,
                # and a side with a legal move is not blocked).
                if prev.is_legal(move, rules) and prev.play_unchecked(move) == self:
                    found.append((move, prev))
        return found

    def __str__(self) -> str:
        return format_position(self)

    def _repr_svg_(self) -> str:
        """The board as SVG, which Jupyter shows for a position (see :mod:`solver.svg`)."""
        from .svg import board_svg           # depends on solver.board only
        return board_svg(self)


# --- from text (the notation itself: solver.notation) -------------------------------

def parse_position(text: str, rules: Rules = STANDARD) -> Position:
    """Parse a position string strictly; InvalidNotationError says what is wrong.

    ``rules`` fixes the stones per side, against which stones on the board plus
    stones in hand are checked.

    >>> str(parse_position("W:g7,a1,d2 B:b6,a4 w"))
    'W:a1,d2,g7 B:a4,b6 w'
    """
    return Position(*read_position(text, rules.stones))


def parse_move(text: str) -> Move:
    """Parse move notation (``d2``, ``d2xa4``, ``d2-d3``, ``d2-d3xa4``) without a position.

    >>> parse_move("d2-d3xa4")
    Move(target=16, origin=19, take=9)
    """
    return Move(*read_move(text))


def parse_legal_move(text: str, pos: Position, rules: Rules = STANDARD) -> Move:
    """Parse ``text`` as a legal move in ``pos``; the error says why it is not:
    InvalidNotationError (no move at all), IllegalMoveError (GameOverError when no
    move is legal), or AmbiguousMoveError for a move that closes a mill without
    naming the stone it takes (its ``takes`` are the moves it may mean).
    """
    move = parse_move(text)
    legal = pos.legal_moves(rules)
    if move in legal:
        return move
    if move.take is None:
        takes = [m for m in legal if (m.origin, m.target) == (move.origin, move.target)]
        if takes:
            options = ", ".join(move_text(m.take) for m in takes)
            raise AmbiguousMoveError(f"move {text} closes a mill: say which stone it takes "
                                     f"({options}), e.g. {takes[0]}", move, takes)
    if not legal:
        raise GameOverError(f"illegal move {text}: the game is over", move)
    raise IllegalMoveError(f"illegal move {text} in position {format_position(pos)}", move)


__all__ = ["WHITE", "BLACK", "WIN", "LOSS", "DRAW", "NO_POINT", "Move", "Position", "in_mill",
           "mill_points", "closes_mill", "takeable", "popcount", "NUM_POINTS",
           "parse_position", "parse_move", "parse_legal_move"]
