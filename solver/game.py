"""A played game: the history of positions and the draw rules of play.

:class:`~solver.position.Position` knows only the rules that depend on the position
itself (fewer than three stones, blocked).  A played game also ends in a draw

- when the same position with the same side to move occurs for the third time
  (threefold repetition), or
- after 50 plies (both sides counted) in the moving phase without a mill closed.

:class:`Game` keeps the start position, the moves and the positions they led to,
and applies these rules; :meth:`Game.undo` takes moves back.

>>> game = Game()
>>> for text in "d2 f4 d3 b4".split():
...     _ = game.play(text)
>>> str(game.position)
'W:d2,d3 B:b4,f4 w 7 7'
>>> game.outcome() is None
True
>>> str(game.undo()), len(game.moves)
('b4', 3)

Game records are plain text, one move per token::

    # lines starting with '#' are comments
    rules: no-jumping
    start: W:a1,d1,g1 B:a4,a7,d7 b
    a4-b4
    a1-a4
    resigned: b

The last line, after the moves, says which side resigned (records before it kept a
resignation only in the comment ``# result: ...``; they still read, without it).
"""

from __future__ import annotations

import re
from dataclasses import replace
from enum import StrEnum
from typing import Iterable, NamedTuple, Optional, Union

from .errors import GameOverError, IllegalMoveError, InvalidNotationError, NotationError, integer
from .formats import read_setup
from .notation import COLOUR_NAMES, format_position
from .position import (BLACK, WHITE, Move, Position, mill_points, parse_legal_move,
                       parse_position, popcount)
from .rules import STANDARD, Rules, as_rules
from .values import DRAW, LOSS, WDL, WIN

#: The same position (side to move included) for this many times is a draw.
REPETITION_LIMIT = 3
#: This many plies in a row that move a stone (not place one) without closing a mill: a draw.
QUIET_PLY_LIMIT = 50
#: The shortest and the longest limit a game (and the tables of the rule, solver.dtz)
#: takes: under a limit of 1 a mill into a draw of the rule's would count as many plies
#: as a mill into a win it keeps, which the tables cannot tell apart (docs/design.md §3);
#: DTZ codes (2 * DTZ + 1) must stay below the slack code, and the solves' codes below
#: their pending bit, with a cursed win's DTZ some hundreds of plies past the limit.
MIN_QUIET_LIMIT, MAX_QUIET_LIMIT = 2, 1000


def check_quiet_limit(limit: int) -> int:
    """``limit`` as an int (numpy integers too), ValueError unless it is a quiet-ply limit
    a game and the tables of the rule take (:data:`MIN_QUIET_LIMIT` ..
    :data:`MAX_QUIET_LIMIT` plies)."""
    rule = f"is a whole number of plies from {MIN_QUIET_LIMIT} to {MAX_QUIET_LIMIT}"
    limit = integer(limit, "the quiet-ply limit", rule)
    if not MIN_QUIET_LIMIT <= limit <= MAX_QUIET_LIMIT:
        raise ValueError(f"the quiet-ply limit {rule}, not {limit!r}")
    return limit

def read_quiet_limit(text: str) -> int:
    """A quiet-ply limit written in a record (ASCII digits: ``str.isdigit`` takes '²'
    too), as :func:`check_quiet_limit` takes it; ValueError saying what a limit is,
    quoting at most 20 characters of ``text``.

    >>> read_quiet_limit("100")
    100
    """
    if not re.fullmatch("[0-9]{1,6}", text):
        raise ValueError(f"the quiet-ply limit is a whole number of plies from {MIN_QUIET_LIMIT} to "
                         f"{MAX_QUIET_LIMIT}, not {text[:20]!r}")
    return check_quiet_limit(int(text))


def record_limit(written: Optional[str], given: Optional[int] = None) -> int:
    """The quiet-ply limit of a game record: the one it writes (:func:`read_quiet_limit`),
    which must be ``given`` where one is given; else ``given``, else 50 (a record writes
    none for 50).  ValueError says what is wrong.

    >>> record_limit(None), record_limit(None, 100), record_limit("100", 100)
    (50, 100, 100)
    """
    if written is None:
        return QUIET_PLY_LIMIT if given is None else check_quiet_limit(given)
    limit = read_quiet_limit(written)
    if given is not None and limit != check_quiet_limit(given):
        raise ValueError(f"the record's game is drawn after {limit} quiet plies, not the {given} asked for")
    return limit


def over_by_quiet_plies_words(game: "Game") -> str:
    """Where ``game`` is drawn by its quiet plies, a word on the limit (else ''): a
    record of a game to another limit (the Sanmill app's games draw after 100) that does
    not name it reads at 50."""
    over = game.outcome()
    if over is None or over.termination != QUIET_PLIES:
        return ""
    return (f" (a game of another quiet-ply limit than {game.quiet_limit}, as the Sanmill app's 100, is "
            f"read at its own: the record names it, or it is given as the quiet-ply limit)")


def over_by_quiet_plies(game: "Game", error: NotationError) -> NotationError:
    """``error`` (a record's move refused) with :func:`over_by_quiet_plies_words`."""
    words = over_by_quiet_plies_words(game)
    return type(error)(f"{error}{words}") if words else error


def _other(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


class Termination(StrEnum):
    """How a game ended; equal to (and written as) the words for it."""

    FEWER_THAN_THREE = "fewer than three stones"     # the loser has lost a mill too many
    NO_LEGAL_MOVE = "no legal move"                   # the loser is blocked
    REPETITION = "threefold repetition"
    # (both sides counted: 25 moves each; Outcome.reason says a game's own limit)
    QUIET_PLIES = "50 plies without a mill"
    RESIGNATION = "resignation"
    LINE_OF_THREE = "a line of three"                 # where a line wins (Three Men's)
    FULL_BOARD = "full board"                         # blocked on a full board, drawn


    def __repr__(self) -> str:
        return repr(self.value)


FEWER_THAN_THREE = Termination.FEWER_THAN_THREE
NO_LEGAL_MOVE = Termination.NO_LEGAL_MOVE
REPETITION = Termination.REPETITION
QUIET_PLIES = Termination.QUIET_PLIES
RESIGNATION = Termination.RESIGNATION
LINE_OF_THREE = Termination.LINE_OF_THREE
FULL_BOARD = Termination.FULL_BOARD
#: The ends that are draws (the others are won by one side).
_DRAWN_BY = frozenset({REPETITION, QUIET_PLIES, FULL_BOARD})


class _Outcome(NamedTuple):
    winner: str
    termination: Termination


class Outcome(_Outcome):
    """The end of a game: ``winner`` (``'w'``, ``'b'`` or ``'draw'``) and how it came
    (a :class:`Termination` or its words); ValueError for anything else.

    A tuple, so ``winner, termination = game.outcome()`` works.

    >>> str(Outcome("b", RESIGNATION)), str(Outcome(DRAW, REPETITION))
    ('Black wins (White resigns)', 'draw (threefold repetition)')
    >>> Outcome("b", NO_LEGAL_MOVE).value_for("w")
    'loss'
    >>> Outcome("x", RESIGNATION)
    Traceback (most recent call last):
    ...
    ValueError: the winner is 'w', 'b' or 'draw', not 'x'
    """

    def __new__(cls, winner: str, termination: Termination,
                quiet_limit: int = QUIET_PLY_LIMIT) -> "Outcome":
        if not (isinstance(winner, str) and winner in (WHITE, BLACK, DRAW)):
            raise ValueError(f"the winner is 'w', 'b' or 'draw', not {str(winner)[:20]!r}")
        try:
            termination = Termination(termination)
        except ValueError:
            raise ValueError(f"a game ends by one of {', '.join(map(repr, map(str, Termination)))}, "
                             f"not {str(termination)[:40]!r}") from None
        if (winner == DRAW) != (termination in _DRAWN_BY):
            raise ValueError(f"a game that ends by {termination} is "
                             f"{'a draw' if termination in _DRAWN_BY else 'won'}, not {winner!r}")
        outcome = super().__new__(cls, winner, termination)
        # (not a field: an outcome is the pair (winner, termination), unpacked as such)
        outcome.quiet_limit = quiet_limit
        return outcome

    def __repr__(self) -> str:
        limit = "" if self.quiet_limit == QUIET_PLY_LIMIT else f", quiet_limit={self.quiet_limit}"
        return f"Outcome(winner={self.winner!r}, termination={str(self.termination)!r}{limit})"

    @property
    def reason(self) -> str:
        """How the game ended, in words: the termination's, with the game's own limit of
        quiet plies (``Outcome(DRAW, QUIET_PLIES, 100).reason`` is '100 plies without a
        mill')."""
        if self.termination == QUIET_PLIES:
            return f"{self.quiet_limit} plies without a mill"
        return str(self.termination)

    def value_for(self, colour: str) -> WDL:
        """The outcome for ``colour`` ('w' or 'b'): win, draw or loss."""
        if colour not in (WHITE, BLACK):
            raise ValueError(f"a colour is 'w' or 'b', not {str(colour)[:20]!r}")
        return DRAW if self.winner == DRAW else WIN if self.winner == colour else LOSS

    def __str__(self) -> str:
        if self.winner == DRAW:
            return f"draw ({self.reason})"
        reason = (f"{COLOUR_NAMES[_other(self.winner)]} resigns"
                  if self.termination == RESIGNATION else self.reason)
        return f"{COLOUR_NAMES[self.winner]} wins ({reason})"


def carried_quiet_plies(text: str, rules: Rules | str = STANDARD, quiet_limit: int = QUIET_PLY_LIMIT,
                        quiet_plies: Optional[int] = None) -> int:
    """The count of quiet plies a game taken up at the position ``text`` has made:
    ``quiet_plies``, or (None) the count the text carries: a FEN's rule-50 counter,
    Malom's moves since a take, at most the limit (where the game is drawn) and 0 while
    stones are in hand (where the count has not started); 0 for muehle's own position
    text, which carries none.  ValueError where both say one and they differ,
    InvalidNotationError where ``text`` is no position.

    >>> carried_quiet_plies("*******@/******@O/O@@****O w m s 3 0 4 0 0 0 0 0 0 0 0 46 1", "standard-s4")
    46
    """
    rules = as_rules(rules)
    setup = read_setup(text, rules.stones, rules.board)
    carried = setup.quiet_count(quiet_limit)
    if quiet_plies is None or (carried and quiet_plies in (setup.quiet_plies, carried)):
        return carried          # (a count past the limit as given, or as read: the limit)
    if carried:
        raise ValueError(f"{quiet_plies} quiet plies given, but the position's text says {setup.quiet_plies} "
                         f"plies without a mill: give one count")
    return quiet_plies


class Game:
    """A game in progress: start position, moves played and the positions after them.

    ``start`` is a :class:`Position`, a position string, or None for the start
    position of ``rules``.  ``quiet_limit``: the plies in a row of the moving phase
    without a mill that draw the game (50; Sanmill's games play 100); ``quiet_plies``:
    how many of them the game had made before ``start`` (a game taken up in the
    middle); None: the count ``start``'s text carries (:func:`carried_quiet_plies`: a
    FEN's or Malom's), else 0.

    >>> game = Game("W:a1,d1,a4 B:g7,b6,f6 w")
    >>> _ = game.play("d1-g1")
    >>> game.position.turn, game.quiet_plies
    ('b', 1)
    """

    def __init__(self, start: Union[Position, str, None] = None, rules: Rules | str = STANDARD,
                 quiet_limit: int = QUIET_PLY_LIMIT, quiet_plies: Optional[int] = None):
        rules = as_rules(rules)
        quiet_limit = check_quiet_limit(quiet_limit)
        if quiet_plies is not None:
            quiet_plies = integer(quiet_plies, "a game", f"starts with 0..{quiet_limit} quiet plies played")
        if isinstance(start, str):
            quiet_plies = carried_quiet_plies(start, rules, quiet_limit, quiet_plies)
        elif quiet_plies is None:
            quiet_plies = 0
        if not 0 <= quiet_plies <= quiet_limit:
            raise ValueError(f"a game starts with 0..{quiet_limit} quiet plies played, not {quiet_plies!r}")
        if start is None:
            start = "startpos"
        if not isinstance(start, (Position, str)):
            raise TypeError(f"a start is a Position, its string or None, not {type(start).__name__}")
        # A Position given directly gets the same checks as a string (the rules' board and
        # stones).
        start = parse_position(start, rules) if isinstance(start, str) else start
        start.check_rules(rules)
        if quiet_plies and start.in_placement:
            raise ValueError("the quiet plies are counted in the moving phase: a position with stones "
                             "in hand has none")
        self.rules = rules
        #: Plies in a row without a mill (in the moving phase) that draw the game.
        self.quiet_limit = quiet_limit
        self.start: Position = start
        self._moves: list[Move] = []
        self._positions: list[Position] = [start]
        # _quiet[i]: quiet plies in a row up to position i (the 50-move counter).
        self._quiet: list[int] = [quiet_plies]
        # _since[i]: the first position with the stones (board and hand) of position i;
        # no earlier one can repeat it, as placements and takes cannot be undone.
        self._since: list[int] = [0]
        self._resigned: Optional[str] = None      # the colour that resigned

    @classmethod
    def after(cls, start: Union[Position, str, None], moves: Iterable[Move | str],
              rules: Rules | str = STANDARD, quiet_limit: int = QUIET_PLY_LIMIT,
              quiet_plies: Optional[int] = None) -> "Game":
        """The game from ``start`` after ``moves`` (Moves or their text, in order; or one
        string of them, space-separated): what the command line's ``--after`` and the
        API's ``after`` mean.

        >>> Game.after("startpos", ["d2", "f4"]).position.turn, len(Game.after("startpos", "d2 f4"))
        ('w', 2)
        """
        if isinstance(moves, (bytes, bytearray)) or not isinstance(moves, (str, Iterable)):
            # (bytes would be played as their numbers, None would fail inside)
            raise TypeError(f"moves are Moves or their text (a list, or one string), not {type(moves).__name__}")
        game = cls(start, rules, quiet_limit, quiet_plies)
        for move in (moves.split() if isinstance(moves, str) else moves):
            game.play(move)
        return game

    # --- the history ------------------------------------------------------------
    @property
    def position(self) -> Position:
        """The current position."""
        return self._positions[-1]

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves played, in order."""
        return tuple(self._moves)

    @property
    def positions(self) -> tuple[Position, ...]:
        """The start position and the position after each move."""
        return tuple(self._positions)

    @property
    def quiet_plies(self) -> int:
        """Plies in a row, up to now, that moved a stone without closing a mill."""
        return self._quiet[-1]

    @property
    def quiet_counts(self) -> tuple[int, ...]:
        """The count of quiet plies at the start and after each move (:attr:`quiet_plies`
        at every position of :attr:`positions`)."""
        return tuple(self._quiet)

    @property
    def repetitions(self) -> int:
        """How often the current position has occurred (1 the first time)."""
        return self._positions[self._since[-1]:].count(self.position)

    def __len__(self) -> int:
        return len(self._moves)

    def __repr__(self) -> str:
        """
        >>> game = Game(); _ = game.play("d2"); game
        <Game of rules standard: 1 move from 'startpos', now 'W:d2 B: b 8 9'>
        """
        start = format_position(self.start)
        moves = f"{len(self)} move{'' if len(self) == 1 else 's'}"
        if start == format_position(parse_position("startpos", self.rules)):
            start = "startpos"
        return f"<Game of rules {self.rules.name}: {moves} from {start!r}, now {format_position(self.position)!r}>"

    def copy(self) -> "Game":
        """An independent copy: moves played on it leave this game unchanged.

        >>> game = Game()
        >>> _ = game.play("d2")
        >>> other = game.copy(); _ = other.play("f4")
        >>> len(game), len(other)
        (1, 2)
        """
        twin = Game.__new__(Game)
        twin.__dict__.update(self.__dict__)          # immutable values are shared
        twin._moves, twin._positions = list(self._moves), list(self._positions)
        twin._quiet, twin._since = list(self._quiet), list(self._since)
        return twin

    __copy__ = copy         # copy.copy(game): as independent as game.copy() (its lists too)

    # --- playing ------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The legal moves now; [] once the game is over, draws included."""
        if self.outcome() is not None:
            return []
        return self.position.legal_moves(self.rules)

    def parse_legal_move(self, text: str) -> Move:
        """``text`` as a legal move now; NotationError says why it is not."""
        result = self.outcome()
        if result is not None:
            raise GameOverError(f"move {text}: the game is over ({result})")
        return parse_legal_move(text, self.position, self.rules)

    def play(self, move: Union[Move, str]) -> Position:
        """Play ``move`` (a :class:`Move` or its notation) and return the new position.

        IllegalMoveError (GameOverError once the game is over) if it is not legal;
        for text also InvalidNotationError or AmbiguousMoveError (see
        :func:`~solver.position.parse_legal_move`).
        """
        if isinstance(move, str):
            move = self.parse_legal_move(move)
        elif not isinstance(move, Move):
            raise TypeError(f"a move is a Move or its notation, not {type(move).__name__}")
        elif not all(p is None or (isinstance(p, int) and 0 <= p < self.rules.board.num_points)
                     for p in (move.target, move.origin, move.take, move.take2)) or move.target is None:
            raise IllegalMoveError(f"move {repr(move)[:80]}: points are numbered "
                                   f"0..{self.rules.board.num_points - 1}", move)
        else:
            result = self.outcome()
            if result is not None:
                raise GameOverError(f"move {move}: the game is over ({result})", move)
        before = self.position
        after = before.play(move, self.rules)
        if move.board is not self.rules.board:       # (taken: a board whose points are named alike)
            move = replace(move, board=self.rules.board)
        # A take-none mill that took nothing still closed a mill: it resets the counter too.
        # The count runs in the moving phase only: under mixed placement a move made while
        # stones are in hand counts nothing either.
        closed = before.closes_mill(move)
        quiet = not before.in_placement and not closed
        self._moves.append(move)
        self._positions.append(after)
        self._quiet.append(self._quiet[-1] + 1 if quiet else 0)
        self._since.append(self._since[-1] if not move.is_placement and move.take is None
                           else len(self._positions) - 1)
        return after

    def draw_after(self, move: Move) -> Optional[Termination]:
        """The draw by the rules of play that the legal ``move`` would end the game in
        (:data:`REPETITION`, :data:`QUIET_PLIES`), else None, without playing it: what
        ``play(move)`` then ``outcome()`` would say of a draw, fast (the perfect players
        ask it of every move they look at).  A win on the board comes first, as in
        :meth:`outcome`.  The move is not checked: give one of :meth:`legal_moves`.

        >>> game = Game("W:a1,d1,a4 B:g7,b6,f6 w", quiet_plies=49)
        >>> game.draw_after(game.parse_legal_move("a4-a7")), game.draw_after(game.parse_legal_move("a4-g1xg7"))
        ('50 plies without a mill', None)
        """
        after = self.position.play_unchecked(move)
        quiet = not self.position.in_placement and not self.position.closes_mill(move)
        count = self._quiet[-1] + 1 if quiet else 0
        fresh = move.is_placement or move.take is not None
        seen = 0 if fresh else self._positions[self._since[-1]:].count(after)
        if seen + 1 < REPETITION_LIMIT and count < self.quiet_limit:
            return None
        if after.terminal_wdl(self.rules) is not None:
            return None                     # (decided on the board, or a full board's draw)
        return REPETITION if seen + 1 >= REPETITION_LIMIT else QUIET_PLIES

    def undo(self) -> Optional[Move]:
        """Take back what was done last: a resignation (None), else the last move (returned).
        IndexError if neither was.

        >>> game = Game(); _ = game.play("d2"); _ = game.resign("b")
        >>> game.undo(), str(game.undo()), game.outcome()
        (None, 'd2', None)
        """
        if self._resigned is not None:
            self._resigned = None
            return None
        if not self._moves:
            raise IndexError("no move to take back")
        self._positions.pop()
        self._quiet.pop()
        self._since.pop()
        return self._moves.pop()

    def resign(self, colour: str) -> Outcome:
        """``colour`` (``'w'`` or ``'b'``; ValueError otherwise) gives up; the game is over
        (:meth:`undo` takes that back).

        GameOverError if the game is already over.
        """
        if not (isinstance(colour, str) and colour in (WHITE, BLACK)):
            raise ValueError(f"the side that resigns is 'w' or 'b', not {str(colour)[:20]!r}")
        result = self.outcome()
        if result is not None:
            raise GameOverError(f"cannot resign: the game is over ({result})")
        self._resigned = colour
        return self.outcome()

    def outcome(self) -> Optional[Outcome]:
        """None while the game goes on, else the :class:`Outcome`.

        A win or loss on the board comes first: a move that blocks the opponent on
        the 50th quiet ply wins.

        >>> Game("W:a1,d1 B:a4,a7,d7 w").outcome()
        Outcome(winner='b', termination='fewer than three stones')
        """
        if self._resigned is not None:
            return Outcome(_other(self._resigned), RESIGNATION)
        pos = self.position
        outcome = pos.terminal_wdl(self.rules)
        if outcome == DRAW:
            return Outcome(DRAW, FULL_BOARD)
        if outcome is not None:
            winner = pos.turn if outcome == WIN else _other(pos.turn)
            loser = _other(winner)
            stones = pos.white if loser == WHITE else pos.black
            hand = pos.white_hand if loser == WHITE else pos.black_hand
            line = self.rules.line_wins and mill_points(pos.white if winner == WHITE else pos.black, pos.board)
            reason = (LINE_OF_THREE if line else FEWER_THAN_THREE if popcount(stones) + hand < 3
                      else NO_LEGAL_MOVE)
            return Outcome(winner, reason)
        if self.repetitions >= REPETITION_LIMIT:
            return Outcome(DRAW, REPETITION)
        if self.quiet_plies >= self.quiet_limit:
            return Outcome(DRAW, QUIET_PLIES, self.quiet_limit)
        return None

    def is_over(self) -> bool:
        """Whether :meth:`result` has ended the game."""
        return self.outcome() is not None

    # --- records ------------------------------------------------------------------
    def record(self) -> str:
        """The game as a record that :meth:`from_record` reads back, a resignation
        included (``resigned: <colour>`` after the moves).

        >>> game = Game(rules=Rules(jumping=False))
        >>> _ = game.play("d2")
        >>> print(game.record(), end="")
        rules: no-jumping
        d2
        >>> _ = game.resign("b")
        >>> print(game.record(), end="")
        rules: no-jumping
        d2
        resigned: b
        # result: White wins (Black resigns)
        """
        lines = []
        if self.rules != STANDARD:
            lines.append(f"rules: {self.rules.name}")
        if self.start != parse_position("startpos", self.rules):
            lines.append(f"start: {format_position(self.start)}")
        if self.quiet_limit != QUIET_PLY_LIMIT:
            lines.append(f"quiet-limit: {self.quiet_limit}")
        if self._quiet[0]:
            lines.append(f"quiet-plies: {self._quiet[0]}")
        if not lines and not self._moves:
            lines.append("start: startpos")     # (a record of nothing would be an empty file)
        lines += [str(m) for m in self._moves]
        if self._resigned is not None:
            lines.append(f"resigned: {self._resigned}")
        result = self.outcome()
        if result is not None:
            lines.append(f"# result: {result}")
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_record(cls, text: str, rules: Optional[Rules] = None,
                    default: Rules = STANDARD, quiet_limit: Optional[int] = None) -> "Game":
        """Read a game record, checking every move; NotationError names the bad line.

        Header lines (``rules: <name>``, ``start: <position>``, ``quiet-limit: <plies>``
        where not 50, ``quiet-plies: <plies>`` made before the start where not 0) come
        before the first move; ``rules``, where given, must agree with the record's when it names
        them, and is the game's rules when it does not (else ``default``); ``quiet_limit``
        likewise (:func:`record_limit`).  A last line ``resigned: w`` (or ``b``), after
        the moves, resigns for that side.

        >>> game = Game.from_record("# a short game\\nd2 f4\\nd3")
        >>> [str(m) for m in game.moves]
        ['d2', 'f4', 'd3']
        """
        record = read_record(text)
        if "dice" in record.headers:
            raise InvalidNotationError("record: of dice mill (a dice: header): its placements are read "
                                       "with their throws (solver.dice.read_dice_record)")
        if "ceylonese" in record.headers:
            raise InvalidNotationError("record: of Ceylonese mill (a ceylonese: header): its moves are "
                                       "played by its rules (solver.ceylonese.read_ceylon_record)")
        return cls.from_parts(record, rules, default, quiet_limit=quiet_limit)

    @classmethod
    def from_parts(cls, record: "RecordText", rules: Optional[Rules] = None, default: Rules = STANDARD,
                   start: Optional[Position] = None, quiet_limit: Optional[int] = None) -> "Game":
        """The game of a record's parts (:func:`read_record`), as :meth:`from_record`
        plays them; from ``start`` where given instead of the ``start:`` header (the
        moves after those another reader played: dice mill's placements)."""
        headers, tokens, resigned = record
        if "rules" in headers:
            rules = record_rules(headers["rules"], rules)
        rules = rules or default
        try:
            # (a record of muehle's names its limit where it is not 50: none is 50)
            limit = record_limit(headers.get("quiet-limit", str(QUIET_PLY_LIMIT)), quiet_limit)
        except ValueError as error:
            raise InvalidNotationError(f"record: quiet-limit: {error}") from None
        played = headers.get("quiet-plies")
        if played is not None and not (re.fullmatch("[0-9]{1,6}", played) and int(played) <= limit):
            raise InvalidNotationError(f"record: quiet-plies: is a whole number of plies from 0 to "
                                       f"{limit}, not {played[:20]!r}")
        try:
            # (the start's text, not its position: a FEN's count is the game's where no
            # quiet-plies: says one, and must agree with one that does)
            game = cls(headers.get("start", "startpos") if start is None else start, rules, limit,
                       None if played is None else int(played))
        except ValueError as error:
            raise InvalidNotationError(f"record: {error}") from None
        play_record_moves(game, tokens)
        if resigned is not None:
            try:
                game.resign(resigned[1])
            except NotationError as error:
                raise error.prefixed(f"line {resigned[0]}: ") from None
        return game


def is_record_of(text: str, header: str) -> bool:
    """Whether ``text`` is muehle's record with the header ``header`` (``dice``,
    ``ceylonese``: a record of another game); False for any other text, or a malformed
    record.

    >>> is_record_of("dice: triple\\n[6-6-6] d2\\n", "dice"), is_record_of("d2 f4\\n", "dice")
    (True, False)
    """
    try:
        return header in read_record(text).headers
    except NotationError:
        return False


def play_record_moves(game, tokens: list[tuple[int, str]]) -> None:
    """Play a record's moves (:attr:`RecordText.moves`) on ``game`` (any game with
    ``play(text)``: this module's, Ceylonese mill's); a move's error names its line."""
    for number, token in tokens:
        try:
            game.play(token)
        except NotationError as error:
            if isinstance(game, Game):
                error = over_by_quiet_plies(game, error)
            raise error.prefixed(f"line {number}: ") from None


def record_rules(name: str, given: Optional[Rules] = None) -> Rules:
    """The rules a record names (a rule set's name), which must be ``given`` where rules
    are given: InvalidNotationError says what is wrong (muehle's records and the PGN of
    other programs ask it).

    >>> record_rules("standard-s4").stones
    4
    """
    try:
        named = Rules.from_name(name)
    except ValueError as error:
        raise InvalidNotationError(f"record: {error}") from None
    if given is not None and named != given:
        raise InvalidNotationError(f"record is for rules {named.name}, not {given.name}")
    return named


class RecordText(NamedTuple):
    """A game record's parts as written, not yet played (:func:`read_record`)."""

    headers: dict[str, str]                 # rules, start, quiet-limit, quiet-plies, dice, ceylonese: the text after the colon
    moves: list[tuple[int, str]]            # (line number, a move's notation)
    resigned: Optional[tuple[int, str]]     # (line number, 'w' or 'b')


def read_record(text: str) -> RecordText:
    """The headers, moves and resignation of a game record, checked for their form
    only (:meth:`Game.from_record` plays them); InvalidNotationError names a bad line.
    A byte-order mark at the start (as some editors write) is no part of the record.

    >>> read_record("rules: standard-s4\\nd2 f4\\n")
    RecordText(headers={'rules': 'standard-s4'}, moves=[(2, 'd2'), (2, 'f4')], resigned=None)
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"a game record is a string, not {type(text).__name__}")
    headers: dict[str, str] = {}
    tokens: list[tuple[int, str]] = []
    resigned: Optional[tuple[int, str]] = None
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if resigned is not None:
            raise InvalidNotationError(f"line {number}: nothing follows the resignation "
                                       f"(line {resigned[0]}) but comments")
        key, colon, value = line.partition(":")
        if colon and key.strip() == "resigned":
            colour = value.strip()
            if colour not in (WHITE, BLACK):
                raise InvalidNotationError(f"line {number}: resigned: is followed by w or b, "
                                           f"not {colour[:20]!r}")
            resigned = (number, colour)
            continue
        if colon:
            key = key.strip()
            if key not in ("rules", "start", "quiet-limit", "quiet-plies", "dice", "ceylonese"):
                raise InvalidNotationError(f"line {number}: unknown header {key!r} (rules:, start:, "
                                           f"quiet-limit:, quiet-plies:, dice:, ceylonese: or resigned:)")
            if tokens:
                raise InvalidNotationError(f"line {number}: header {key}: after the first move")
            if key in headers:
                raise InvalidNotationError(f"line {number}: header {key}: given twice")
            headers[key] = value.strip()
            continue
        tokens += [(number, token) for token in line.split()]
    return RecordText(headers, tokens, resigned)


def describe_result(result: tuple[str, str]) -> str:
    """Words for a result of :meth:`Game.result` (``str`` of the :class:`Outcome`).

    >>> describe_result(("w", "no legal move"))
    'White wins (no legal move)'
    """
    return str(Outcome(result[0], Termination(result[1])))


def describe_phase(game: Game) -> str:
    """Words for what the side to move does now, or how the game ended.

    >>> describe_phase(Game())
    'placement (White places a stone)'
    >>> describe_phase(Game("W:a1,d1,g1 B:a4,a7,d7,b6 b"))
    'moving (Black slides a stone)'
    >>> describe_phase(Game(rules=Rules.from_name("lasker")))
    'placement (White places a stone or moves one)'
    """
    result = game.outcome()
    if result is not None:
        return f"game over: {result}"
    pos, name = game.position, COLOUR_NAMES[game.position.turn]
    if pos.own_hand:
        # Where a player may place or move (Lasker), say so: "placement" alone misleads.
        also = "" if not game.rules.mixed else " or jumps" if pos.can_jump(game.rules) else " or moves one"
        return f"placement ({name} places a stone{also})"
    if pos.can_jump(game.rules):
        return f"jumping ({name} has three stones and jumps)"
    return f"moving ({name} slides a stone)"


__all__ = ["Game", "Outcome", "Termination", "RecordText", "read_record", "describe_result", "describe_phase", "REPETITION_LIMIT",
           "QUIET_PLY_LIMIT", "DRAW", "FEWER_THAN_THREE", "NO_LEGAL_MOVE", "REPETITION",
           "QUIET_PLIES", "RESIGNATION", "LINE_OF_THREE", "FULL_BOARD"]
