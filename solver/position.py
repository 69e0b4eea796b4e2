"""Positions and moves: the readable reference for the rules of play.

This module is the specification.  The Cython kernels in ``ext/`` must agree with
it exactly, and the test suite proves that on many random positions.

A :class:`Position` holds both stone sets (masks of its board's points, see :mod:`solver.board`),
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

from dataclasses import dataclass, field, replace
from typing import Optional, Union

from .board import STANDARD_BOARD, Board, as_board, points_of
from .errors import (AmbiguousMoveError, GameOverError, IllegalMoveError, InvalidNotationError,
                     integer)
from .formats import read_setup
from .notation import BLACK, WHITE, format_position, move_text, read_move, too_many_stones
from .rules import MAX_STONES, STANDARD, Rules, as_rules
from .values import DRAW, LOSS, WDL, WIN

from .board import NUM_POINTS  # noqa: F401,E402  (the standard board's size, as always exported)


def popcount(mask: int) -> int:
    """Stones in ``mask`` (points set)."""
    return bin(mask).count("1")


def in_mill(stones: int, point: int, board: Board = STANDARD_BOARD) -> bool:
    """Whether the stone on ``point`` stands in a closed mill of ``stones``.  ``point``
    is a point number of ``board``, unchecked (the reference rules' inner loops call this;
    :meth:`Board.point_index <solver.board.Board.point_index>` gives one from a name)."""
    return any(m & stones == m for m in board.mills_through[point])


def mills_closed(stones: int, point: int, board: Board = STANDARD_BOARD) -> int:
    """How many closed mills of ``stones`` run through ``point`` (a move that closes two
    at once may take two stones: ``Rules.two_mill_takes``)."""
    return sum(m & stones == m for m in board.mills_through[point])


def mill_points(stones: int, board: Board = STANDARD_BOARD) -> int:
    """Mask of the stones of ``stones`` that stand in a closed mill."""
    out = 0
    for m in board.mills:
        if m & stones == m:
            out |= m
    return out


def takeable(enemy: int, rules: Rules) -> int:
    """Mask of enemy stones a closed mill may take.

    Stones in mills are protected, unless every enemy stone stands in a mill: then
    ``take-any`` lets any be taken and ``take-none`` lets none be; where the rules take
    from mills (``Rules.take_from_mills``) none is protected.  With no enemy stone on the
    board there is nothing to take.
    """
    if rules.take_from_mills:
        return enemy
    free = enemy & ~mill_points(enemy, rules.board)
    if free:
        return free
    return 0 if rules.take_none else enemy


def decided(own: int, opp: int, own_hand: int, opp_hand: int, rules: Rules) -> Optional[WDL]:
    """WIN or LOSS for the side to move (stones ``own``, the other side's ``opp``) where
    the game ended before any move, else None: a line of three stands (where a line
    wins: the side that closed it has won), or a side has fewer than three stones,
    board plus hand.  The one statement of these rules: the reference
    (:meth:`Position.terminal_wdl`), the probe and the search players ask it; whether a
    side is blocked is the move generator's to tell, and what that means
    :func:`blocked_wdl`'s.

    >>> decided(0b111, 0b11000, 0, 0, STANDARD), decided(0b111, 0b111000, 0, 6, STANDARD)
    ('win', None)
    """
    if rules.line_wins:
        if mill_points(opp, rules.board):
            return LOSS
        if mill_points(own, rules.board):
            return WIN
    if own.bit_count() + own_hand < 3:
        return LOSS
    if opp.bit_count() + opp_hand < 3:
        return WIN
    return None


def blocked_wdl(own: int, opp: int, rules: Rules) -> WDL:
    """The result for a side to move that has no legal move: LOSS, or DRAW where the
    rules draw a full board (Twelve Men's Morris) and the stones ``own`` and ``opp`` fill
    it.  The one statement of this rule, for the reference (:meth:`Position.terminal_wdl`),
    the probe and the search players (the kernels' is ``blocked_code``, ext/retro.pxi).

    >>> blocked_wdl(0b111, 0b111000, STANDARD)
    'loss'
    >>> twelve = Rules.from_name("twelve-mens")
    >>> blocked_wdl(twelve.board.full_mask & 0xFFF, twelve.board.full_mask & ~0xFFF, twelve)
    'draw'
    """
    if rules.full_draw and not rules.board.free(own, opp):
        return DRAW
    return LOSS


def after_move(own: int, opp: int, own_hand: int, move: "Move") -> tuple[int, int, int]:
    """(own, opp, own_hand) of the mover after ``move``, trusted to be legal: its stone
    placed or moved, the stones it takes gone.  The one move application of the
    reference (:meth:`Position.play_unchecked`) and of the search players."""
    if move.origin is None:
        own_hand -= 1
    else:
        own &= ~(1 << move.origin)
    own |= 1 << move.target
    for t in (move.take, move.take2):
        if t is not None:
            opp &= ~(1 << t)
    return own, opp, own_hand


#: Stands for "no origin" (a placement) and "no take" in a packed move.
NO_POINT = 31


def _point(value, what: str, board: Board) -> int:
    """``value`` as a point number of ``board``; ValueError if it is none."""
    if value is None:
        raise ValueError(f"a move has a {what} point")
    point = integer(value, f"the {what} point")
    if not 0 <= point < board.num_points:
        raise ValueError(f"the {what} point is {point}, but points of the {board.name} board "
                         f"are numbered 0..{board.num_points - 1}")
    return point


@dataclass(frozen=True)
class Move:
    """A move: place on ``target`` (``origin`` None), or go from ``origin`` to
    ``target``; ``take`` is the enemy stone taken when the move closes a mill, and
    ``take2`` the second one where a move closing two mills takes two (then
    ``take < take2``).  ``board`` (a :class:`~solver.board.Board` or its name) names
    the points in its text; moves compare by their points alone.

    Points are ints (numpy integers are converted) numbered 0.. of ``board``; anything
    else is a ValueError here, so every move prints (and ``parse_move`` reads the text
    back).  Whether a move is legal is the position's to say (:meth:`Position.play`).

    >>> Move(24)
    Traceback (most recent call last):
    ...
    ValueError: the target point is 24, but points of the standard board are numbered 0..23

    >>> str(Move(target=19)), str(Move(target=19, origin=16, take=9))
    ('d2', 'd3-d2xa4')

    The kernels pass moves packed into 15 bits, ``target | origin << 5 | take << 10``
    with :data:`NO_POINT` for no origin and no take (ext/movegen.pxi reads them with
    ``move_target``, ``move_origin`` and ``move_take``); a second take adds
    ``(take2 + 1) << 15``:

    >>> Move(19, 16, 9).pack(), Move.unpack(Move(19).pack())
    (9747, Move(target=19, origin=None, take=None))
    """

    target: int
    origin: Optional[int] = None
    take: Optional[int] = None
    take2: Optional[int] = None
    board: Board = field(default=STANDARD_BOARD, repr=False)

    def __post_init__(self) -> None:
        board = self.board
        if board is not STANDARD_BOARD:
            board = as_board(board)
            object.__setattr__(self, "board", board)
        n = board.num_points
        target, origin, take, take2 = self.target, self.origin, self.take, self.take2
        # The common moves (plain ints on the board) pay one test a point.
        if not (type(target) is int and 0 <= target < n):
            object.__setattr__(self, "target", _point(target, "target", board))
        for name, p in (("origin", origin), ("take", take), ("take2", take2)):
            if p is not None and not (type(p) is int and 0 <= p < n):
                object.__setattr__(self, name, _point(p, name, board))
        # One form per move: the two stones in increasing order (``d2xa4xb6`` and
        # ``d2xb6xa4`` are one move), a single take always in ``take``.
        if self.take2 is not None:          # rare: the common moves pay one test
            first, second = self.take, self.take2
            if first is None or first > second:
                object.__setattr__(self, "take", second)
                object.__setattr__(self, "take2", first)

    @classmethod
    def _made(cls, target: int, origin: Optional[int], take: Optional[int] = None,
              take2: Optional[int] = None, board: Board = STANDARD_BOARD) -> "Move":
        """The move of points the move generator found on ``board`` (ints there, a second
        take after the first), without the checks of ``__post_init__``: the reference
        rules make millions (the kernels' tests, the brute forces), and the checks were a
        third of their time."""
        move = object.__new__(cls)
        move.__dict__.update(target=target, origin=origin, take=take, take2=take2, board=board)
        return move

    def __repr__(self) -> str:
        """The fields, the board too where it is not the standard one (the same numbers
        are other points there: a move of one board is not equal to one of another).

        >>> parse_move("c5", "six-mens")
        Move(target=1, origin=None, take=None, board='six-mens')
        """
        second = "" if self.take2 is None else f", take2={self.take2}"
        board = "" if self.board is STANDARD_BOARD else f", board={self.board.name!r}"
        return f"Move(target={self.target}, origin={self.origin}, take={self.take}{second}{board})"

    def __str__(self) -> str:
        return move_text(self.target, self.origin, self.take, self.take2, self.board)

    def pack(self) -> int:
        """The kernels' packed form of this move."""
        origin = NO_POINT if self.origin is None else self.origin
        take = NO_POINT if self.take is None else self.take
        second = 0 if self.take2 is None else (self.take2 + 1) << 15
        return self.target | origin << 5 | take << 10 | second

    @classmethod
    def unpack(cls, packed: int, board: Board = STANDARD_BOARD) -> "Move":
        """The move of a packed form (as the kernels' move generators return them);
        ValueError for a form that holds no move of ``board``."""
        packed = integer(packed, "a packed move")
        if packed < 0:
            raise ValueError(f"a packed move is not negative: {packed}")
        target, origin, take = packed & 31, (packed >> 5) & 31, (packed >> 10) & 31
        second = packed >> 15
        return cls(target, None if origin == NO_POINT else origin,
                   None if take == NO_POINT else take, second - 1 if second else None, board)

    @property
    def is_placement(self) -> bool:
        """Whether the move places a stone from the hand (no origin)."""
        return self.origin is None

    @property
    def takes(self) -> tuple[int, ...]:
        """The stones taken: none, one or two."""
        return tuple(t for t in (self.take, self.take2) if t is not None)


@dataclass(frozen=True)
class Position:
    """A position: stone masks, stones in hand and the side to move (``'w'``/``'b'``),
    on ``board`` (a :class:`~solver.board.Board` or its name; the standard board unless
    given).

    Immutable; :meth:`play` returns the position after a move.  Masks and hands are
    ints (numpy integers, such as the index's uint32 masks, are converted); each side
    has at most as many stones, board plus hand, as any rules of its board allow
    (12, or half the points), so every position prints text that
    :func:`parse_position` reads back under rules of enough stones.  Anything else is
    a ValueError:

    >>> Position(7, 56, 13, 0)
    Traceback (most recent call last):
    ...
    ValueError: White has 16 stones (3 on the board, 13 in hand), but a side has at most 12 on the standard board
    """

    white: int
    black: int
    white_hand: int = 0
    black_hand: int = 0
    turn: str = WHITE
    board: Board = field(default=STANDARD_BOARD, repr=False)

    def __post_init__(self) -> None:
        put = object.__setattr__
        board = self.board
        if board is not STANDARD_BOARD:
            board = as_board(board)
            put(self, "board", board)
        for name in ("white", "black", "white_hand", "black_hand"):
            value = getattr(self, name)
            if type(value) is not int:
                put(self, name, integer(value, name.replace("_", " ")))
        if self.white & self.black:
            raise ValueError("a point holds stones of both colours")
        if (self.white | self.black) & ~self.board.full_mask:
            raise ValueError(f"stone masks have {self.board.num_points} bits")
        if self.white_hand < 0 or self.black_hand < 0:
            raise ValueError("stones in hand cannot be negative")
        if self.turn not in (WHITE, BLACK):
            raise ValueError("side to move must be 'w' or 'b'")
        most = min(MAX_STONES, board.num_points // 2)
        for colour, stones, hand in (("White", self.white, self.white_hand),
                                     ("Black", self.black, self.black_hand)):
            on_board = stones.bit_count()
            if on_board + hand > most:
                raise ValueError(f"{colour} has {on_board + hand} stones ({on_board} on the board, "
                                 f"{hand} in hand), but a side has at most {most} on the "
                                 f"{board.name} board")

    def __repr__(self) -> str:
        """The fields, the board too where it is not the standard one (the same masks
        are other points there); evaluated, it gives the position back.

        >>> parse_position("W:a1 B:c5 w 2 3", Rules.from_name("six-mens"))
        Position(white=8192, black=2, white_hand=2, black_hand=3, turn='w', board='six-mens')
        """
        board = "" if self.board is STANDARD_BOARD else f", board={self.board.name!r}"
        return (f"Position(white={self.white}, black={self.black}, white_hand={self.white_hand}, "
                f"black_hand={self.black_hand}, turn={self.turn!r}{board})")

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
        """Stones in hand of the side to move."""
        return self.white_hand if self.turn == WHITE else self.black_hand

    @property
    def opp_hand(self) -> int:
        """Stones in hand of the side not to move."""
        return self.black_hand if self.turn == WHITE else self.white_hand

    @classmethod
    def from_view(cls, own: int, opp: int, own_hand: int = 0, opp_hand: int = 0,
                  turn: str = WHITE, board: Board = STANDARD_BOARD) -> "Position":
        """Build a position from the side to move's view (``turn``: ``'w'`` or ``'b'``,
        ValueError otherwise)."""
        if turn == WHITE:
            return cls(own, opp, own_hand, opp_hand, WHITE, board)
        if turn != BLACK:
            raise ValueError(f"side to move must be 'w' or 'b', not {str(turn)[:20]!r}")
        return cls(opp, own, opp_hand, own_hand, BLACK, board)

    @property
    def in_placement(self) -> bool:
        """Whether any stone is still in hand (the placement phase)."""
        return self.white_hand > 0 or self.black_hand > 0

    def hands_arise(self, rules: Rules) -> bool:
        """Whether a game from the start can hold these hands with this side to move:
        under separate placement White to move holds as many stones in hand as Black,
        Black to move one more; under mixed placement any hands arise.  (Positions with
        other hands are answered all the same, as the rules play them on.)

        >>> from solver.rules import Rules
        >>> parse_position("W:a1 B:a7 b 7 8").hands_arise(Rules()), parse_position("W:a1 B:a7 w 7 8").hands_arise(Rules())
        (True, False)
        """
        self.check_board(rules)
        if rules.mixed or not self.in_placement:
            return True
        if self.turn == WHITE:
            return self.white_hand == self.black_hand
        return self.black_hand == self.white_hand + 1

    def unreachable_reason(self, rules: Rules) -> Optional[str]:
        """Why no game from the start reaches this position, in words (``no game from
        the start ...``), by conditions every reachable position meets; None where it meets them (it may still be unreachable:
        these conditions are necessary, not sufficient).  The position is answered all
        the same, as the rules play it on; the commands say the reason in a note.

        - the hands (:meth:`hands_arise`);
        - the side that moved last has at least 3 stones (board and hand): with fewer it
          had lost before its move, so at most the side to move has fewer than 3;
        - a side with a mill on the board has taken a stone (where a mill takes one:
          not ``take-none``, where it may take nothing, nor a line that wins outright),
          so the other side has fewer than all its stones.

        >>> from solver.rules import Rules
        >>> full = parse_position("W:a1,a4,a7,b2,b4,b6,c3,c4,c5 B:d1,d2,d3,e3,e4,e5,f2,f4,f6 w")
        >>> full.unreachable_reason(Rules())
        'no game from the start reaches it (White has a mill on the board and Black all 9 stones: closing a mill takes one)'
        >>> parse_position("W:a1,a4 B:d1,d2 w").unreachable_reason(Rules())
        'no game from the start reaches it (Black, who moved last, has 2 stones: it had lost before that move)'
        >>> parse_position("W:a1,a4,g7 B:d1,d2,d3 w").unreachable_reason(Rules()) is None
        True
        """
        if not self.hands_arise(rules):
            rule = ("with White to move, both sides hold as many stones in hand" if self.turn == WHITE else
                    "with Black to move, Black holds one more stone in hand than White")
            return f"no game from the start holds these hands (in a game, {rule})"
        names = {WHITE: "White", BLACK: "Black"}
        last = BLACK if self.turn == WHITE else WHITE
        stones = {WHITE: (self.white, self.white_hand), BLACK: (self.black, self.black_hand)}
        board, hand = stones[last]
        unreached = "no game from the start reaches it"
        if popcount(board) + hand < 3:
            return (f"{unreached} ({names[last]}, who moved last, has {popcount(board) + hand} stones: "
                    f"it had lost before that move)")
        if rules.take_none or rules.line_wins:
            return None
        for side, other in ((WHITE, BLACK), (BLACK, WHITE)):
            own = stones[side][0]
            if popcount(stones[other][0]) + stones[other][1] == rules.stones and any(
                    own & mill == mill for mill in self.board.mills):
                return (f"{unreached} ({names[side]} has a mill on the board and {names[other]} all "
                        f"{rules.stones} stones: closing a mill takes one)")
        return None

    def swap_colours(self) -> "Position":
        """The same game with colours exchanged (values for the side to move are equal)."""
        return Position(self.black, self.white, self.black_hand, self.white_hand,
                        BLACK if self.turn == WHITE else WHITE, self.board)

    def transform(self, sym: int) -> "Position":
        """Image under the board's symmetry number ``sym`` (0..15 on the standard board);
        ValueError for another number."""
        count = len(self.board.symmetries)
        sym = integer(sym, "a symmetry number")
        if not 0 <= sym < count:
            raise ValueError(f"symmetries of the {self.board.name} board are numbered "
                             f"0..{count - 1}, not {sym}")
        return replace(self, white=self.board.apply_symmetry(sym, self.white),
                       black=self.board.apply_symmetry(sym, self.black))

    @property
    def free(self) -> int:
        """Mask of the empty points."""
        return self.board.free(self.white, self.black)

    def _name(self, point: int) -> str:
        return self.board.points[point]

    # --- rules of play ----------------------------------------------------------
    def check_board(self, rules: Rules) -> None:
        """ValueError unless ``rules`` are played on this position's board (masks of one
        board mean other points on another); TypeError if ``rules`` are no Rules."""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules are a Rules (Rules.from_name reads a rule set's name), "
                            f"not {type(rules).__name__}")
        if rules.board is not self.board and rules.board != self.board:
            raise ValueError(f"a position of the {self.board.name} board cannot be played under "
                             f"rules {rules.name!r} (the {rules.board.name} board)")

    def check_rules(self, rules: Rules, lines: bool = True) -> None:
        """ValueError unless this position can arise under ``rules``, as its text would be
        read (:func:`parse_position`, which says it as an InvalidNotationError): their
        board (:meth:`check_board`), at most their stones a side, board and hand, and with
        ``lines``, where a line of three wins, not both sides with one (no game reaches
        it, but a database file holds a slot for it).

        >>> Position(0b111, 0, 7, 0).check_rules(Rules(stones=4))
        Traceback (most recent call last):
        ...
        ValueError: too many stones for White: 3 on the board and 7 in hand, but each side has 4
        """
        self.check_board(rules)
        why = too_many_stones(self.white, self.black, self.white_hand, self.black_hand, rules.stones)
        if why is not None:
            raise ValueError(why)
        if lines and rules.line_wins and mill_points(self.white, self.board) and mill_points(self.black, self.board):
            raise ValueError(f"both sides have a line of three, but the first line closed "
                             f"ends the game (rules {rules.name!r}: a line of three wins)")

    def can_jump(self, rules: Rules = STANDARD) -> bool:
        """Whether the side to move jumps: three stones, board plus hand, and (unless a
        player may place or move) none in hand."""
        self.check_board(rules)
        return (rules.jumping and popcount(self.own) + self.own_hand == 3
                and (self.own_hand == 0 or rules.mixed))

    def legal_moves(self, rules: Rules = STANDARD) -> list[Move]:
        """Every legal move, in a fixed order (placements, then origin, target, take);
        [] if the game is over."""
        self.check_board(rules)
        if self._decided(rules) is not None:
            return []
        return self._moves(rules)

    def _steps(self, rules: Rules) -> list[tuple[Optional[int], int]]:
        """Every (origin, target) the side to move may move a stone along, before any
        take; origin None for a placement.  Separate placement: a side with stones in
        hand places; mixed: it may also move."""
        own = self.own
        free = self.free
        steps: list[tuple[Optional[int], int]] = []
        if self.own_hand > 0:
            steps = [(None, t) for t in points_of(free)]
            if not rules.mixed:
                return steps
        adjacent = self.board.adjacent
        if self.can_jump(rules):
            anywhere = points_of(free)
            return steps + [(o, t) for o in points_of(own) for t in anywhere]
        for o in points_of(own):
            steps += [(o, t) for t in points_of(adjacent[o] & free)]
        return steps

    def _completed(self, origin: Optional[int], target: int, rules: Rules) -> list[Move]:
        """The moves of one step: one per stone (or pair of stones) it may take if it
        closes a mill, else the step alone (also when the mill finds nothing to take,
        and always where a line of three wins outright)."""
        board = self.board
        after = self.own | 1 << target
        if origin is not None:
            after &= ~(1 << origin)
        closed = 0 if rules.line_wins else mills_closed(after, target, board)
        victims = takeable(self.opp, rules) if closed else 0
        if not victims:
            return [Move._made(target, origin, board=board)]
        if closed < 2 or rules.two_mill_takes == 1:
            return [Move._made(target, origin, v, board=board) for v in points_of(victims)]
        # Two mills take two stones, one after the other, the second by the same rule
        # among those left; a move names the pair in increasing order.
        takes: set[tuple[int, ...]] = set()
        for first in points_of(victims):
            seconds = takeable(self.opp & ~(1 << first), rules)
            if not seconds:
                takes.add((first,))
            takes.update(tuple(sorted((first, second))) for second in points_of(seconds))
        return [Move._made(target, origin, *t, board=board) for t in sorted(takes)]

    def _moves(self, rules: Rules) -> list[Move]:
        return [m for origin, target in self._steps(rules)
                for m in self._completed(origin, target, rules)]

    def is_legal(self, move: Move, rules: Rules = STANDARD) -> bool:
        """Whether ``move`` is legal here: the same as ``move in self.legal_moves(rules)``
        for a move of this board (one of a board whose points are named alike, the
        standard board's on Morabaraba's, is taken as this board's; one named otherwise
        is not legal here), without generating every move (retrograde checks call it
        very often).

        >>> pos = parse_position("W:a1,d1 B:a4 w 1 2")
        >>> pos.is_legal(parse_move("g1xa4")), pos.is_legal(parse_move("g1"))
        (True, False)
        """
        if not isinstance(move, Move):
            raise TypeError(f"a move is a Move, not {type(move).__name__}")
        self.check_board(rules)
        if self._named_elsewhere(move):
            return False
        if move.board is not self.board:
            move = replace(move, board=self.board)
        return (self._decided(rules) is None
                and (move.origin, move.target) in self._steps(rules)
                and move in self._completed(move.origin, move.target, rules))

    def _named_elsewhere(self, move: Move) -> bool:
        """Whether ``move`` was made on a board whose points are named otherwise: its
        text names other points than its numbers do here, so played, a game would record
        a move that is not the one made."""
        return move.board is not self.board and move.board.points != self.board.points

    def why_illegal(self, move: Move, rules: Rules = STANDARD) -> Optional[str]:
        """None if ``move`` is legal here, else the rule it breaks, in words that name
        the rule set where the rule is one of its options.

        >>> pos = parse_position("W:a1,d1 B:a4 w 1 2")
        >>> pos.why_illegal(parse_move("a1-a7"))
        "White has stones in hand and places them before moving (rules 'standard': separate placement)"
        """
        if self.is_legal(move, rules):
            return None
        if self._named_elsewhere(move):
            return (f"it is a move of the {move.board.name} board, and this position is on the "
                    f"{self.board.name} board (parse it with board={self.board.name!r})")
        name, colour = rules.name, "White" if self.turn == WHITE else "Black"
        enemy = "Black" if self.turn == WHITE else "White"
        n = self.board.num_points
        if not all(isinstance(p, int) and 0 <= p < n for p in (move.origin, *move.takes)
                   if p is not None) or not (isinstance(move.target, int) and 0 <= move.target < n):
            return f"points of the {self.board.name} board are numbered 0..{n - 1}"
        if self._decided(rules) is not None or not self._moves(rules):
            return "the game is over"
        target = self._name(move.target)
        if move.origin is None:
            if self.own_hand == 0:
                return f"{colour} has no stones in hand and moves a stone instead"
        else:
            origin = self._name(move.origin)
            if self.own_hand > 0 and not rules.mixed:
                return (f"{colour} has stones in hand and places them before moving "
                        f"(rules {name!r}: separate placement)")
            if not self.own >> move.origin & 1:
                return f"no {colour} stone on {origin}"
        if not self.free >> move.target & 1:
            return f"{target} is not free"
        if move.origin is not None and (move.origin, move.target) not in self._steps(rules):
            if not rules.jumping:
                return f"{origin} and {target} are not adjacent (rules {name!r}: no jumping)"
            return f"{origin} and {target} are not adjacent (jumping only with three stones)"
        legal = self._completed(move.origin, move.target, rules)
        if move.takes and len(legal) == 1 and not legal[0].takes:
            if rules.line_wins:
                return f"rules {name!r}: a line of three wins the game and takes no stone"
            after = self.own | 1 << move.target
            if move.origin is not None:
                after &= ~(1 << move.origin)
            if not in_mill(after, move.target, self.board):
                return "the move closes no mill and takes nothing"
            return (f"every {enemy} stone stands in a mill, and a mill takes none of them "
                    f"(rules {name!r}: take-none)")
        if not move.takes:
            return "the move closes a mill: say which stone it takes"
        for t in move.takes:
            if not self.opp >> t & 1:
                return f"no {enemy} stone on {self._name(t)} to take"
        if rules.two_mill_takes == 2 and any(len(m.takes) == 2 for m in legal) and len(move.takes) == 1:
            return f"the move closes two mills and takes two stones (rules {name!r})"
        if len(move.takes) == 2 and all(len(m.takes) == 1 for m in legal):
            return "the move takes one stone only"
        if move.take == move.take2:
            return f"the move takes {self._name(move.take)} twice"
        # The stone no order of taking lets go: one that stands in a mill while the
        # enemy has stones outside mills (taking a free stone frees no other).
        free = takeable(self.opp, rules)
        protected = next((t for t in move.takes if not free >> t & 1), move.takes[0])
        return (f"{self._name(protected)} stands in a mill while {enemy} has stones "
                f"outside mills")

    def _decided(self, rules: Rules) -> Optional[WDL]:
        """WIN or LOSS for the side to move if the game ended before any move
        (:func:`decided`)."""
        return decided(self.own, self.opp, self.own_hand, self.opp_hand, rules)

    def terminal_wdl(self, rules: Rules = STANDARD) -> Optional[WDL]:
        """``None`` while the game goes on, else WIN, LOSS or DRAW for the side to move.

        The side to move loses with fewer than three stones (board plus hand) or with
        no legal move; it has won if the opponent has fewer than three.  Where a line of
        three wins, the side that closed one has won.  A side blocked because the board
        is full has lost, or the game is drawn where the rules say so (Twelve Men's).
        (A game's end, with draws by repetition and resignation, is
        :meth:`Game.outcome <solver.game.Game.outcome>`.)

        >>> parse_position("W:a1,d1 B:a4,b6,d6 w").terminal_wdl(), parse_position("startpos").terminal_wdl()
        ('loss', None)
        """
        self.check_board(rules)
        result = self._decided(rules)
        # Every step completes to at least one move (_completed), so no step is no move;
        # the steps alone are an order of magnitude cheaper than every take of every mill.
        if result is None and not self._steps(rules):
            result = blocked_wdl(self.own, self.opp, rules)
        return result

    def play(self, move: Union[Move, str], rules: Rules = STANDARD) -> "Position":
        """The position after ``move`` (a :class:`Move`, or its notation as
        :meth:`Game.play <solver.game.Game.play>` takes it); IllegalMoveError (a
        ValueError) if it is not legal here, saying which rule it breaks (a point the
        board does not have is one); for text also InvalidNotationError or
        AmbiguousMoveError (:func:`parse_legal_move`).

        >>> str(parse_position("startpos").play("d2"))
        'W:d2 B: b 8 9'
        >>> six = Rules.from_name("six-mens")
        >>> parse_position("startpos", six).play(parse_move("d7"), six)
        Traceback (most recent call last):
        ...
        solver.errors.IllegalMoveError: illegal move d7 in this position: it is a move of the standard board, and this position is on the six-mens board (parse it with board='six-mens')
        """
        if isinstance(move, str):
            return self.play_unchecked(parse_legal_move(move, self, rules))
        reason = self.why_illegal(move, rules)
        if reason is not None:
            kind = GameOverError if self.terminal_wdl(rules) is not None else IllegalMoveError
            raise kind(f"illegal move {move} in this position: {reason}", move)
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> "Position":
        """The position after ``move``, trusting it to be legal (:func:`after_move`)."""
        own, opp, own_hand = after_move(self.own, self.opp, self.own_hand, move)
        board = self.board
        if (own & opp or own_hand < 0 or own & ~board.full_mask
                or move.origin is not None and not self.own >> move.origin & 1):
            # (a move that was not legal here, one that may even add a stone: the checks
            # of a new position say what broke)
            return Position.from_view(opp, own, self.opp_hand, own_hand,
                                      BLACK if self.turn == WHITE else WHITE, board)
        # Made without the checks of __post_init__, whose other conditions such a move
        # cannot break (its fields are ints of this board, and no side gains a stone):
        # they were a quarter of the kernel-free passes' time.
        after = object.__new__(Position)
        if self.turn == WHITE:
            after.__dict__.update(white=own, black=opp, white_hand=own_hand, black_hand=self.black_hand,
                                  turn=BLACK, board=board)
        else:
            after.__dict__.update(white=opp, black=own, white_hand=self.white_hand, black_hand=own_hand,
                                  turn=WHITE, board=board)
        return after

    def closes_mill(self, move: Move) -> bool:
        """Whether ``move`` (trusted to be legal) closes a mill of the side to move: one
        that takes, one that takes nothing (take-none), or a line that wins.  Any of them
        restarts the count of quiet plies (:class:`solver.game.Game`).

        >>> pos = parse_position("W:a1,d1,a4 B:a7,d7,g7 w")
        >>> pos.closes_mill(parse_move("g1")), pos.closes_mill(parse_move("b2"))
        (True, False)
        """
        own = after_move(self.own, self.opp, self.own_hand, move)[0]
        return in_mill(own, move.target, self.board)

    def quiet_predecessors(self, rules: Rules = STANDARD) -> list[tuple[Move, "Position"]]:
        """Every (move, position) such that playing ``move`` in ``position`` is legal,
        takes no stone, and leads here: the un-moves of retrograde analysis.

        The last mover is the side not to move now; it placed a stone (then it had one
        more in hand) or slid or jumped one (with none in hand, or any where a player
        may place or move).  Written by definition: candidates are kept only if the
        forward rules reproduce this position.
        """
        self.check_board(rules)
        mover = self.opp
        free = self.free
        prev_turn = BLACK if self.turn == WHITE else WHITE
        found = []
        for target in points_of(mover):
            before = mover & ~(1 << target)
            candidates = [(None, before, self.opp_hand + 1)]
            if self.opp_hand == 0 or rules.mixed:
                candidates += [(o, before | 1 << o, self.opp_hand) for o in points_of(free)]
            for origin, stones, hand in candidates:
                prev = Position.from_view(stones, self.own, hand, self.own_hand, prev_turn, self.board)
                move = Move._made(target, origin, board=self.board)
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

def parse_position(text: str, rules: Rules | str = STANDARD) -> Position:
    """Parse a position string strictly; InvalidNotationError says what is wrong.
    Sanmill's FEN and Malom's clipboard text are read too (:mod:`solver.formats`).

    ``rules`` (a :class:`Rules` or a rule set's name) fixes the board, whose point names
    the text uses, and the stones per side, against which stones on the board plus stones in hand are checked.

    >>> str(parse_position("W:g7,a1,d2 B:b6,a4 w"))
    'W:a1,d2,g7 B:a4,b6 w'
    >>> parse_position("W:a1,b2 B:c3 b", Rules.from_name("three-mens")).black
    4
    """
    rules = as_rules(rules)
    pos = Position(*read_setup(text, rules.stones, rules.board).position_fields(), board=rules.board)
    try:
        pos.check_rules(rules)
    except ValueError as error:
        raise InvalidNotationError(str(error)) from None
    return pos


def parse_move(text: str, board: Board = STANDARD_BOARD) -> Move:
    """Parse move notation (``d2``, ``d2xa4``, ``d2-d3``, ``d2-d3xa4``) without a position;
    the point names are ``board``'s (a :class:`~solver.board.Board` or its name).

    >>> parse_move("d2-d3xa4")
    Move(target=16, origin=19, take=9)
    """
    board = as_board(board)
    return Move(*read_move(text, board), board=board)


def parse_legal_move(text: str, pos: Position, rules: Rules | str = STANDARD) -> Move:
    """Parse ``text`` as a legal move in ``pos``; the error says why it is not:
    InvalidNotationError (no move at all), IllegalMoveError (GameOverError when no
    move is legal), or AmbiguousMoveError for a move that closes a mill without
    naming the stone it takes (its ``takes`` are the moves it may mean).
    """
    rules = as_rules(rules)
    move = parse_move(text, rules.board)
    legal = pos.legal_moves(rules)
    if move in legal:
        return move
    if move.take is None:
        takes = [m for m in legal if (m.origin, m.target) == (move.origin, move.target)]
        if takes:
            options = ", ".join("x".join(pos.board.points[t] for t in m.takes) for m in takes)
            raise AmbiguousMoveError(f"move {text} closes a mill: say which stone it takes "
                                     f"({options}), e.g. {takes[0]}", move, takes)
    if not legal:
        raise GameOverError(f"illegal move {text}: the game is over", move)
    raise IllegalMoveError(f"illegal move {text} in position {format_position(pos)}: "
                           f"{pos.why_illegal(move, rules)}", move)


__all__ = ["WHITE", "BLACK", "WIN", "LOSS", "DRAW", "NO_POINT", "Move", "Position", "in_mill",
           "mill_points", "mills_closed", "takeable", "popcount", "NUM_POINTS",
           "parse_position", "parse_move", "parse_legal_move"]
