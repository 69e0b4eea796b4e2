"""Ceylonese mill (Nerenchi Keliya): the readable reference of its rules.

The specification of the game, as :mod:`solver.position` is of the game without the
Ceylonese rules, and its played game (:class:`CeylonGame`).  The compiled kernels solve
it, in memory or as files (:mod:`solver.ceylonese_tables`; docs/design.md §12), and the
kernel-free retrograde pass over this reference
(:func:`solver.verify.retrograde.solve_ceylonese`) solves its small versions, which the
tests hold the kernels to.

**The source.** H. Parker, *Ancient Ceylon* (London 1909), pp. 577 and 580, on the game
of *Nerenchi Keliya* as it was played in Ceylon: the players "alternately lay down a
small counter ... at one of the angles, or the points where the arms of the cross meet
the sides of the squares.  While doing so, on each occasion when a player forms a row
of three of his own pieces, which is termed 'Nerenchi,' he lays down an additional
piece.  When only two places remain unfilled the next player moves one of his pieces
into one of the vacant points ... Whenever a row is so formed the player who has
obtained the Nerenchi removes an opposition piece from the board and has an additional
move."  (Quoted from the Ludii project's record of the source, DLP.Evidence.1478.)

**The rules read here** (docs/design.md §12 gives the reasons and the points of doubt):

- The board and the take are the standard game's (:class:`~solver.rules.Rules`: a
  closed mill takes a stone not in a mill unless all are; jumping with three stones
  where the rules jump).  Each side has ``rules.stones`` stones (12 on the standard
  board: enough to fill it; Parker gives no number).
- **Placing**: a placement that closes a mill takes nothing; the same side places
  again (each time, also with the additional stone).  A side with no stone left in
  hand is passed over while the other places.
- The placement ends when only :attr:`CeylonRule.open_points` points are free (two in
  Parker) or no stone is left in hand; stones still in hand are then put aside (they
  count for nothing).  The side whose turn it is moves first: the other side, or the
  one whose last placement closed a mill.
- **Moving**: a move that closes a mill takes a stone and the same side moves again
  (:attr:`CeylonRule.extra_move`); a side with fewer than three stones loses, and so
  does a side to move that has no legal move (the first mover of the moving phase can
  be one; an additional move never is: the stone that moved can go back).

**Turns.** A side's *turn* lasts while it is to move: its placements or moves and the
additional ones they earn.  Values count turns as the other tables count plies (a win
in an odd number of them, a loss in an even number), so the side that moves again
keeps its parity; a position where the side to move has just left the opponent two
stones (mid-turn) has won in 1, its turn being the winning one.

>>> rules = Rules(stones=12)
>>> pos = parse_position("W:a1,d1 B:b2,b6 w 10 10", rules)
>>> str(play(pos, parse_move("g1"), rules))       # a mill while placing: no take, White again
'W:a1,d1,g1 B:b2,b6 w 9 10'
>>> str(play(pos, parse_move("g4"), rules))       # no mill: Black's turn
'W:a1,d1,g4 B:b2,b6 b 9 10'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional

from .board import points_of
from .errors import (AmbiguousMoveError, GameOverError, IllegalMoveError, InvalidNotationError,
                     UnsupportedRulesError)
from .game import Outcome, is_record_of, play_record_moves, read_record, record_rules
from .notation import BLACK, WHITE, format_position
from .position import (Move, Position, after_move, decided, mills_closed,  # noqa: F401 (doctests)
                       parse_move, parse_position)
from .rules import Rules
from .values import WDL


@dataclass(frozen=True)
class CeylonRule:
    """The options of Ceylonese mill beyond :class:`~solver.rules.Rules`.

    ``open_points``: the placement ends when so many points are free (Parker: two).
    ``extra_move``: a mill closed by a move gives the same side another move (Parker;
    off: the turn passes as in the standard game).

    >>> CeylonRule().name, CeylonRule(open_points=4, extra_move=False).name
    ('ceylonese', 'ceylonese-open4-no-extra')
    """

    open_points: int = 2
    extra_move: bool = True

    def __post_init__(self) -> None:
        if type(self.open_points) is not int or not 0 <= self.open_points <= 24:
            raise ValueError(f"open points are a whole number 0..24, not {self.open_points!r}")
        if type(self.extra_move) is not bool:
            raise ValueError(f"extra_move is True or False, not {self.extra_move!r}")

    @property
    def name(self) -> str:
        """The rule's name: ``ceylonese``, with ``-open<N>`` and ``-no-extra`` where they
        differ from Parker's reading."""
        return ("ceylonese" + ("" if self.open_points == 2 else f"-open{self.open_points}")
                + ("" if self.extra_move else "-no-extra"))

    @classmethod
    def from_name(cls, name: str) -> "CeylonRule":
        """Inverse of :attr:`name`; ValueError, in one line, for a name it does not know.

        >>> CeylonRule.from_name("ceylonese-open4-no-extra") == CeylonRule(4, False)
        True
        >>> CeylonRule.from_name("ceylonese-open")
        Traceback (most recent call last):
        ...
        ValueError: unknown Ceylonese rule 'ceylonese-open' (ceylonese, then -open<N> and -no-extra)
        """
        text = name.strip().lower() if isinstance(name, str) else ""    # (as dice rules are read)
        rest = text
        open_points, extra = 2, True
        if rest.endswith("-no-extra"):
            rest, extra = rest[:-len("-no-extra")], False
        head, sep, tail = rest.partition("-open")
        if sep and tail.isascii() and tail.isdigit() and len(tail) <= 6:   # (the range: CeylonRule's)
            rest, open_points = head, int(tail)
        if rest != "ceylonese":
            raise ValueError(f"unknown Ceylonese rule {str(name)[:40]!r} (ceylonese, then -open<N> and -no-extra)")
        rule = cls(open_points, extra)
        if rule.name != text:
            raise ValueError(f"Ceylonese rule {name[:40]!r} is called {rule.name!r}")
        return rule


def require_ceylonese(rules: Rules, rule: Optional[CeylonRule] = None) -> None:
    """UnsupportedRulesError where the Ceylonese rules do not apply: a line of three that
    wins (no mill to earn a turn) or moves while stones are in hand (mixed placement);
    given ``rule``, also where its open points leave no point to place on.

    >>> require_ceylonese(Rules.from_name("six-mens"), CeylonRule(open_points=16))
    Traceback (most recent call last):
    ...
    solver.errors.UnsupportedRulesError: rule ceylonese-open16: the placement would end with 16 points free, and the six-mens board has 16: no stone would be placed
    """
    if rule is not None and rule.open_points >= rules.board.num_points:
        raise UnsupportedRulesError(f"rule {rule.name}: the placement would end with {rule.open_points} points "
                                    f"free, and the {rules.board.name} board has {rules.board.num_points}: no "
                                    f"stone would be placed")
    if rules.line_wins:
        raise UnsupportedRulesError(f"rules {rules.name}: a line of three wins the game, so no mill earns "
                                    f"the Ceylonese extra turn")
    if rules.mixed:
        raise UnsupportedRulesError(f"rules {rules.name}: stones move while others are in hand (mixed "
                                    f"placement), which the Ceylonese placement does not have")


def start(rules: Rules) -> Position:
    """The empty board, White to place, ``rules.stones`` a side in hand."""
    return Position(0, 0, rules.stones, rules.stones, board=rules.board)


def why_not_ceylonese(pos: Position, rule: CeylonRule = CeylonRule(), rules: Optional[Rules] = None
                      ) -> Optional[str]:
    """Why no game of Ceylonese mill reaches ``pos`` with its side to move (None where
    one can): stones in hand once only ``rule.open_points`` points are free (they are
    put aside then), a side to move with nothing to place while the other places (it
    is passed over), or in the moving phase fewer points free than the placement leaves
    (it ends with ``rule.open_points`` free, and no move fills one), a side with fewer
    than two stones or both with two (a game ends when a side is left with two), except
    where the placement has just ended so (``rule.open_points`` free: open points that
    leave few stones on the board; the side to move short of three stones has lost
    there, else the other side); given ``rules``,
    also a side whose stones on the board and in hand are not ``rules.stones`` while
    stones are placed (nothing is taken then).

    >>> why_not_ceylonese(parse_position("W:a1 B:a7 w 0 3", Rules(stones=12)))
    'the side to move has nothing to place while the other places: it is passed over'
    >>> why_not_ceylonese(parse_position("W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1,d2,d3 "
    ...                                  "B:d5,d6,d7,e3,e4,e5,f2,f4,f6,g1,g4,g7 w", Rules(stones=12)))
    'only 0 points free in the moving phase: the placement ends with 2 free'
    >>> why_not_ceylonese(parse_position("W:a1 B:a7 w 3 0", Rules(stones=4)), rules=Rules(stones=4))
    'Black has 1 stones on the board and in hand while stones are placed, not 4: nothing is taken then'
    """
    free = pos.board.free(pos.white, pos.black).bit_count()
    if not pos.in_placement:
        counts = {"White": pos.white.bit_count(), "Black": pos.black.bit_count()}
        few = [name for name, n in counts.items() if n < 2]
        if free == rule.open_points and (few or max(counts.values()) < 3):
            # (open points that leave few stones: the placement ended so, nothing taken
            # yet; the side to move short of three has lost, else the other: decided.
            # With a side at one stone or none no mill has been closed, so the turns
            # alternated from White's)
            if min(counts.values()) <= 1 and not 0 <= counts["White"] - counts["Black"] <= 1:
                return (f"White {counts['White']}, Black {counts['Black']} stones where the placement ended "
                        f"before any mill: the sides placed in turn, White first")
            return None
        if few:
            return f"{few[0]} has {counts[few[0]]} stone(s): a game ends when a side is left with two"
        if max(counts.values()) < 3:
            return "both sides have two stones: the game ended when the first was left with two"
        if free < rule.open_points:
            return f"only {free} points free in the moving phase: the placement ends with {rule.open_points} free"
        return None
    for name, stones, hand in (("White", pos.white, pos.white_hand), ("Black", pos.black, pos.black_hand)):
        if rules is not None and stones.bit_count() + hand != rules.stones:
            return (f"{name} has {stones.bit_count() + hand} stones on the board and in hand while stones "
                    f"are placed, not {rules.stones}: nothing is taken then")
    if free <= rule.open_points:
        return (f"stones in hand with only {rule.open_points} points free: the placement is over and "
                f"they are put aside")
    if not pos.own_hand:
        return "the side to move has nothing to place while the other places: it is passed over"
    return None


def unreached(pos: Position, rules: Rules) -> Optional[str]:
    """Why no game of Ceylonese mill from the empty board reaches the placement position
    ``pos`` by its order of turns (``no game from the start reaches it ...``), by a
    condition every reachable one meets; None where it meets it (necessary, not
    sufficient).  Unlike :func:`why_not_ceylonese`'s, such a position is in the tables,
    and the commands answer it with this note, as plain ``query`` does
    (:meth:`Position.unreachable_reason <solver.position.Position.unreachable_reason>`).

    White places first, and a placement passes the turn unless it closes a mill, which
    stays on the board (nothing is taken while placing): so while both sides hold
    stones, White's placements less Black's (less one with Black to move) lie between
    minus Black's mills on the board and White's.

    >>> unreached(parse_position("W: B: b 4 4", Rules(stones=4)), Rules(stones=4))
    'no game from the start reaches it (White has placed 0 stones and Black 0, with Black to place: a placement passes the turn unless it closes a mill, and White has 0 mills on the board, Black 0)'
    >>> unreached(parse_position("W:a1,d1,g1 B:b2,b4 w 9 10", Rules(stones=12)), Rules(stones=12)) is None
    True
    """
    if not pos.white_hand or not pos.black_hand:
        return None         # (one side passed over: the other places on)
    placed = {WHITE: rules.stones - pos.white_hand, BLACK: rules.stones - pos.black_hand}
    mills = {side: sum(stones & mill == mill for mill in pos.board.mills)
             for side, stones in ((WHITE, pos.white), (BLACK, pos.black))}
    ahead = placed[WHITE] - placed[BLACK] - (pos.turn == BLACK)
    if -mills[BLACK] <= ahead <= mills[WHITE]:
        return None
    return (f"no game from the start reaches it (White has placed {placed[WHITE]} stones and Black "
            f"{placed[BLACK]}, with {'White' if pos.turn == WHITE else 'Black'} to place: a placement passes "
            f"the turn unless it closes a mill, and White has {mills[WHITE]} mills on the board, Black "
            f"{mills[BLACK]})")


def legal_moves(pos: Position, rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Move]:
    """Every legal move of the side to move ([] where the game is over): a placement on
    every free point (none takes), or the standard game's moves (:meth:`Position.legal_moves
    <solver.position.Position.legal_moves>`, the takes of a mill included)."""
    if terminal(pos, rules, rule) is not None:
        return []
    if pos.own_hand:
        return [Move(t, board=pos.board) for t in points_of(pos.free)]
    return pos.legal_moves(rules)


def require_reached(pos: Position, rules: Rules, rule: CeylonRule = CeylonRule()) -> None:
    """ValueError, in one line, where no game of Ceylonese mill under ``rules`` reaches
    ``pos`` (:func:`why_not_ceylonese`, the stones counted too): what a position asked of
    the tables, or a game's first, must pass.  (The rules themselves play any other
    position too, as the tests' hand-made ones.)"""
    require_ceylonese(rules, rule)
    why = why_not_ceylonese(pos, rule, rules)
    if why is not None:
        raise ValueError(f"no game of Ceylonese mill reaches {pos}: {why}")


def terminal(pos: Position, rules: Rules, rule: CeylonRule = CeylonRule()) -> Optional[WDL]:
    """None while the game goes on, else the result for the side to move: a side with
    fewer than three stones (board plus hand) has lost (also in mid-turn: the side to
    move that has just left the opponent two has won), and so has a side to move in the
    moving phase without a legal move."""
    require_ceylonese(rules, rule)
    why = why_not_ceylonese(pos, rule)
    if why is not None:
        raise ValueError(f"no game of Ceylonese mill reaches {pos}: {why}")
    result = decided(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules)
    if result is None and not pos.own_hand:
        result = pos.terminal_wdl(rules)
    return result


def play(pos: Position, move: Move, rules: Rules, rule: CeylonRule = CeylonRule()) -> Position:
    """The position after ``move`` (trusted to be one of :func:`legal_moves`), its side
    to move by the Ceylonese turns: the same side after a mill (a placement's or, with
    ``extra_move``, a move's) and while the other has nothing to place, else the other.
    Where the placement ends (only ``rule.open_points`` points free, or no stone in any
    hand), the stones still in hand are put aside."""
    own, opp, own_hand = after_move(pos.own, pos.opp, pos.own_hand, move)
    opp_hand = pos.opp_hand
    if move.origin is None:
        closed = mills_closed(own, move.target, pos.board) > 0
        if pos.board.free(own, opp).bit_count() <= rule.open_points or not (own_hand or opp_hand):
            own_hand = opp_hand = 0                      # the moving phase: hands put aside
            again = closed
        elif not own_hand:
            again = False                                # nothing left to place: the other places
        else:
            again = closed or not opp_hand               # a mill, or the other has nothing to place
    else:
        again = rule.extra_move and move.take is not None
    if again:
        return Position.from_view(own, opp, own_hand, opp_hand, pos.turn, pos.board)
    return Position.from_view(opp, own, opp_hand, own_hand, "b" if pos.turn == "w" else "w", pos.board)


class CeylonGame:
    """A game of Ceylonese mill as it is played: the positions from ``first`` (the empty
    board by default), each move checked against :func:`legal_moves` (the notation of
    the game without the Ceylonese rules: ``d2``, ``d2-d3``, ``d2-d3xa4``).  Over when
    a side has lost (:func:`terminal`) or a position recurs a third time with the same
    side to move (a draw by repetition: a moving phase may go on for ever).

    >>> game = CeylonGame(Rules(stones=12))
    >>> str(game.play("d2")), str(game.play("d6"))
    ('W:d2 B: b 11 12', 'W:d2 B:d6 w 11 11')
    >>> game.play("d2")
    Traceback (most recent call last):
    ...
    solver.errors.IllegalMoveError: illegal move d2 in W:d2 B:d6 w 11 11: not one of the 22 legal moves
    """

    def __init__(self, rules: Rules, rule: CeylonRule = CeylonRule(), first: Optional[Position] = None):
        require_ceylonese(rules, rule)
        self.rules, self.rule = rules, rule
        pos = start(rules) if first is None else first
        require_reached(pos, rules, rule)
        self.positions = [pos]
        self.moves: list[Move] = []
        # how often each position has occurred (a replay of n moves stays linear)
        self._seen: Counter[tuple] = Counter([_key(pos)])

    @property
    def position(self) -> Position:
        return self.positions[-1]

    def legal_moves(self) -> list[Move]:
        """The legal moves now ([] where the game is over)."""
        return [] if self.outcome() is not None else legal_moves(self.position, self.rules, self.rule)

    def parse(self, text: str) -> Move:
        """``text`` as one of the legal moves; IllegalMoveError (AmbiguousMoveError for a
        mill of the moving phase that does not name the stone it takes) says why not."""
        move = parse_move(text, self.position.board)
        legal = self.legal_moves()
        if move in legal:
            return move
        takes = [m for m in legal if (m.origin, m.target) == (move.origin, move.target) and move.take is None]
        if takes:
            raise AmbiguousMoveError(f"move {text} closes a mill: say which stone it takes "
                                     f"({', '.join(str(m) for m in takes)})", move, takes)
        if not legal:
            raise GameOverError(f"illegal move {text}: the game is over", move)
        raise IllegalMoveError(f"illegal move {text} in {self.position}: not one of the {len(legal)} legal moves",
                               move)

    def play(self, move: Move | str) -> Position:
        """Play ``move`` (a Move, or its text): the position after it."""
        move = self.parse(move if isinstance(move, str) else str(move))
        self.positions.append(play(self.position, move, self.rules, self.rule))
        self.moves.append(move)
        self._seen[_key(self.position)] += 1
        return self.position

    def undo(self) -> None:
        """Take back the last move (none: IndexError)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self._seen[_key(self.positions.pop())] -= 1
        self.moves.pop()

    def outcome(self) -> Optional[tuple[Optional[str], str]]:
        """None while the game goes on, else (the winner's colour, or None for a draw, and
        why): fewer than three stones, no legal move, or threefold repetition."""
        pos = self.position
        result = terminal(pos, self.rules, self.rule)
        if result is not None:
            other = "b" if pos.turn == "w" else "w"
            winner = pos.turn if result == WDL.WIN else other
            loser = other if winner == pos.turn else pos.turn
            stones = (pos.white, pos.white_hand) if loser == "w" else (pos.black, pos.black_hand)
            why = "fewer than three stones" if stones[0].bit_count() + stones[1] < 3 else "no legal move"
            return winner, why
        if self.repetitions() >= 3:
            return None, "threefold repetition"
        return None

    def result(self) -> Optional[Outcome]:
        """:meth:`outcome` as the plain game's :class:`~solver.game.Outcome` (its words:
        ``draw (threefold repetition)``, ``White wins (no legal move)``), None while the
        game goes on."""
        outcome = self.outcome()
        return None if outcome is None else Outcome(outcome[0] or "draw", outcome[1])

    @property
    def again(self) -> bool:
        """Whether the side to move made the last move too (a mill, or the other had
        nothing to place): it moves again."""
        return len(self.positions) > 1 and self.positions[-2].turn == self.position.turn

    def record(self) -> str:
        """The game as a record that :func:`read_ceylon_record` reads back: muehle's
        record (docs/guide/playing.md) with the headers ``rules:``, ``ceylonese:`` (the
        reading) and ``start:`` (where the game does not start from the empty board), a
        move a line (a side may move several times in a row, so moves are not numbered
        in pairs).

        >>> game = CeylonGame(Rules(stones=4))
        >>> for move in ["a1", "a4", "d1", "d2"]:
        ...     _ = game.play(move)
        >>> print(game.record(), end="")
        rules: standard-s4
        ceylonese: ceylonese
        a1
        a4
        d1
        d2
        """
        lines = [f"rules: {self.rules.name}", f"ceylonese: {self.rule.name}"]
        if self.positions[0] != start(self.rules):
            lines.append(f"start: {format_position(self.positions[0])}")
        return "\n".join(lines + [str(m) for m in self.moves]) + "\n"

    def repetitions(self) -> int:
        """How many times the position now has occurred in the game, with the same side to
        move (1 the first time; a third is a draw).

        >>> game = CeylonGame(Rules(stones=4), first=parse_position("W:a1,a4,d2 B:g1,g4,f4 w"))
        >>> for move in ["d2-d3", "f4-f2", "d3-d2", "f2-f4"]:
        ...     _ = game.play(move)
        >>> game.repetitions()
        2
        """
        return self._seen[_key(self.position)]


def _key(pos: Position) -> tuple:
    """What makes two positions of a game the same for the repetition rule."""
    return pos.white, pos.black, pos.own_hand, pos.opp_hand, pos.turn


def is_ceylon_record(text: str) -> bool:
    """Whether ``text`` is a record of Ceylonese mill (muehle's record with a
    ``ceylonese:`` header); False for any other text, or a malformed record.

    >>> is_ceylon_record("ceylonese: ceylonese\\nd2\\n"), is_ceylon_record("d2 f4\\n")
    (True, False)
    """
    return is_record_of(text, "ceylonese")


def read_ceylon_record(text: str, rules: Optional[Rules] = None) -> CeylonGame:
    """A record of Ceylonese mill (:meth:`CeylonGame.record`) played by its rules.
    The record names its rules (``rules:``: a game of Ceylonese mill has no default
    one, Parker's being twelve stones a side where the standard game has nine);
    ``rules``, where given, must be them.  InvalidNotationError (or a move's own error)
    names what is wrong, and the line.

    >>> game = read_ceylon_record("rules: standard-s4\\nceylonese: ceylonese\\na1\\na4\\n")
    >>> [str(m) for m in game.moves], str(game.position)
    (['a1', 'a4'], 'W:a1 B:a4 w 3 3')
    """
    headers, tokens, resigned = read_record(text)
    if "ceylonese" not in headers:
        raise InvalidNotationError("record: not of Ceylonese mill (no ceylonese: header)")
    for key in ("dice", "quiet-limit", "quiet-plies"):
        if key in headers:
            raise InvalidNotationError(f"record: {key}: is no part of Ceylonese mill's record (no dice, "
                                       f"no quiet-ply rule: a third repetition draws)")
    if resigned is not None:
        raise InvalidNotationError(f"line {resigned[0]}: a record of Ceylonese mill has no resignation")
    try:
        rule = CeylonRule.from_name(headers["ceylonese"])
    except ValueError as error:
        raise InvalidNotationError(f"record: ceylonese: {error}") from None
    if "rules" not in headers:
        raise InvalidNotationError("record: a record of Ceylonese mill names its rules (rules: standard-s12, "
                                   "say: Parker's game has no default number of stones)")
    rules = record_rules(headers["rules"], rules)
    try:
        first = parse_position(headers["start"], rules) if "start" in headers else None
        game = CeylonGame(rules, rule, first)
    except ValueError as error:
        raise InvalidNotationError(f"record: {error}") from None
    play_record_moves(game, tokens)
    return game
