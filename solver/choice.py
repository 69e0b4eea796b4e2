"""How the database players choose a move in a game: the values of its moves under the
rules of play (:func:`probe_game_moves`), and, among the best of them, the move that
gives a fallible opponent the most chances to go wrong (:func:`trap_moves`, the
``ultra`` level; docs/design.md §10 "Playing to win").

Nine Men's Morris is a draw: a perfect player that picks at random among its drawing
moves waits, and a person who knows a few safe patterns draws for ever.  Every move
the trap-setting choice considers keeps the value (the shortest win, a draw, the
longest loss, under the quiet-ply rule where its tables are built), so it never gives
up anything; among those it prefers the one after which the opponent's replies lose
most often, each reply weighted by how natural it looks (:func:`naturalness`), and
looks a move deeper where the first look leaves a choice (:data:`DEEPER_MOVES`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Optional, Sequence

from .errors import MissingSubspaceError
from .game import Game
from .position import Move, Position
from .probe import Database, MoveProbe, RuleMoveProbe, first_rank
from .values import WIN

__all__ = ["probe_game_moves", "MoveValues", "naturalness", "error_chance", "trap_moves", "trap_choice",
           "TrapMove", "CLOSES_MILL", "BLOCKS_MILL", "DEEPER_MOVES", "DEEPER_REPLIES",
           "DEEPER_ANSWERS"]

#: How much more often a fallible player makes a move that closes a mill than a
#: quiet one, and one that blocks a mill the other side would close next (factors of
#: the weights of :func:`naturalness`; a move that does both multiplies them).
CLOSES_MILL = 4.0
BLOCKS_MILL = 2.5
#: The look a move deeper: for the DEEPER_MOVES moves of the best first look, the
#: DEEPER_REPLIES most natural replies that keep the opponent's value, and after each
#: of them DEEPER_ANSWERS of this player's best moves (about 60 probes of a position's
#: moves in all: docs/benchmarks.md "The trap-setting player").
DEEPER_MOVES = 3
DEEPER_REPLIES = 3
DEEPER_ANSWERS = 5


class MoveValues:
    """The values of a position's moves as the databases give them (the rule's at a
    count, else the plain ones), remembered for the last ``size`` positions asked: a
    player that looks ahead meets the positions of one move's look again at the next.
    The values of a position never change, so nothing remembered goes stale."""

    def __init__(self, size: int = 50_000):
        self.size = size
        self._known: dict = {}
        self._rule: dict = {}          # database id -> whether its tables of the rule are built
        #: The first file of the tables of the rule found missing where the others are
        #: built (the plain values chose there): what a player or a hint says once
        self.gap: Optional[MissingSubspaceError] = None

    def __call__(self, database: Database, game: Game) -> list[MoveProbe | RuleMoveProbe]:
        built = self._rule.get(id(database))
        if built is None:
            built = self._rule[id(database)] = database.has_rule_tables()
        rule = database.quiet_limit == game.quiet_limit and built
        key = (id(database), game.position, game.quiet_plies if rule else None)
        known = self._known.get(key)
        if known is None:
            if rule:
                try:
                    known = database.probe_rule_moves(game.position, game.quiet_plies)
                except MissingSubspaceError as exc:
                    # (a file not built: the plain values choose; hands no game reaches
                    # have none to build)
                    if exc.remedy is not None:
                        self.gap = self.gap or exc
            if known is None:
                known = database.probe_moves(game.position)
            if len(self._known) >= self.size:
                self._known.clear()     # (cheaper than an LRU's upkeep; it fills again fast)
            self._known[key] = known
        return known


def probe_game_moves(database: Database, game: Game,
                     values: Optional[MoveValues] = None) -> list[MoveProbe | RuleMoveProbe]:
    """Every legal move of ``game`` with the value it leaves for its mover, best first:
    the database's (:meth:`~solver.probe.Database.probe_moves`), but a move that ends the
    game in a draw by the rules of play (threefold repetition, 50 plies without a mill)
    is that draw.

    Where the tables of the quiet-ply rule of the game's limit are built
    (:meth:`~solver.probe.Database.probe_rule_moves`), the values are those of the game
    under that rule at its real count of quiet plies (in the placement phase: from the
    count 0 where the moving phase starts), and among wins the nearest mill comes
    first: following them wins every game the rule lets be won, never loses one it
    saves.  Where they are not built (for this position's file), the plain values.

    The databases know positions, not games: a move the database rates a win may repeat
    a position for the third time where earlier moves were not the winner's own (its
    shortest win never comes back to a position), and a side that loses may draw by
    repetition at once.  Only the move's own effect is looked at, not where a line leads
    later.  [] once the game is over (as :meth:`Game.legal_moves`).  Raises what
    ``probe_moves`` raises (DatabaseError).  ``values``: where the positions' values
    are remembered (:class:`MoveValues`), else nowhere.
    """
    if game.outcome() is not None:
        return []
    probes = [probe.drawn() if game.draw_after(probe.move) is not None else probe
              for probe in (values or MoveValues(0))(database, game)]
    probes.sort(key=lambda mp: mp.rank)             # stable: the database's order in a rank
    return probes


def naturalness(position: Position, move: Move, mills: Sequence[int]) -> float:
    """How likely a fallible player is to make ``move`` in ``position`` against a quiet
    move (1): :data:`CLOSES_MILL` times as likely where it closes a mill,
    :data:`BLOCKS_MILL` times where it puts a stone on the free point of a line where
    the other side has two stones (a mill it would close next).  These two are what
    every beginner's book teaches first, and what a player in a hurry sees.

    >>> from solver.board import STANDARD_BOARD
    >>> from solver.position import parse_move, parse_position
    >>> pos = parse_position("W:a1,d1,a4 B:g7,d7,b6,g4 w")
    >>> naturalness(pos, parse_move("a4-b4"), STANDARD_BOARD.mills)       # a quiet move
    1.0
    >>> naturalness(pos, parse_move("a4-a7"), STANDARD_BOARD.mills)       # blocks a7-d7-g7
    2.5
    >>> naturalness(pos, parse_move("a4-g1xg4"), STANDARD_BOARD.mills)    # closes a1-d1-g1, blocks g1-g4-g7
    10.0
    """
    point = 1 << move.target
    # (a mill that takes nothing, under take-none, is as natural a move as one that takes)
    weight = CLOSES_MILL if position.closes_mill(move) else 1.0
    for mill in mills:
        if mill & point and not mill & position.own and (mill & position.opp).bit_count() == 2:
            weight *= BLOCKS_MILL
            break
    return weight


def error_chance(position: Position, replies: Sequence[MoveProbe | RuleMoveProbe],
                 mills: Sequence[int]) -> tuple[float, list[tuple[float, MoveProbe | RuleMoveProbe]]]:
    """(the chance that a fallible player to move in ``position`` makes a reply of a
    worse value for itself (win, draw, loss) than its best, the safe replies with their
    weights, most natural first), where it plays each reply in ``replies`` (its moves with
    their values, best first: :func:`probe_game_moves`) in proportion to its
    :func:`naturalness`.  (0.0, []) where it has no move."""
    if not replies:
        return 0.0, []
    best = replies[0].value
    total = errors = 0.0
    safe = []
    for reply in replies:
        weight = naturalness(position, reply.move, mills)
        total += weight
        if reply.value < best:
            errors += weight
        else:
            safe.append((weight, reply))
    safe.sort(key=lambda pair: -pair[0])            # stable: the database's order in a weight
    return errors / total, safe


@dataclass(frozen=True)
class TrapMove:
    """One of the best moves of a game (``probe``, as :func:`probe_game_moves` gives it),
    with ``chance``: the chance that a fallible opponent goes wrong on its next move, or
    on the one after where the choice looked that far (:func:`trap_moves`)."""

    probe: MoveProbe | RuleMoveProbe
    chance: float

    @property
    def move(self) -> Move:
        return self.probe.move


def _after(game: Game, move: Move) -> Game:
    after = game.copy()
    after.play(move)
    return after


def _first_look(database: Database, game: Game, probe, values: MoveValues) -> tuple[Game, float, list]:
    after = _after(game, probe.move)
    chance, safe = error_chance(after.position, probe_game_moves(database, after, values),
                                game.rules.board.mills)
    return after, chance, safe


def trap_moves(database: Database, game: Game, values: Optional[MoveValues] = None) -> list[TrapMove]:
    """The best moves of ``game`` (those of the first rank of :func:`probe_game_moves`:
    none gives up value), each with the chance that a fallible opponent errs after it,
    the greatest chance first.  [] once the game is over.

    The opponent is modelled as a player that makes each legal move in proportion to
    its :func:`naturalness`; an error is a reply of a worse value for it than its best
    (a loss where it could draw, ...).  First look: that chance on the reply to each best
    move.  Where a win is already certain, none is needed: the shortest wins stand as
    they are, chance 0.  A move deeper, for the :data:`DEEPER_MOVES` moves with the
    greatest chance: where the opponent's reply is safe (its :data:`DEEPER_REPLIES` most
    natural safe replies, in their proportions), the chance of an error after this
    player's best answer to it (the greatest among :data:`DEEPER_ANSWERS` of its best
    answers); the move's chance is then p1 + (1 - p1) * p2, the chance of an error on
    either of the opponent's next two moves.  ``values``: where the positions' values
    are remembered between calls (:class:`MoveValues`; a player keeps one for its game).
    """
    values = values if values is not None else MoveValues()
    best = first_rank(probe_game_moves(database, game, values))
    if not best or best[0].value == WIN:
        return [TrapMove(probe, 0.0) for probe in best]
    looks = {}
    for probe in best:
        looks[probe.move] = _first_look(database, game, probe, values)
    order = sorted(best, key=lambda p: -looks[p.move][1])
    chances = {p.move: looks[p.move][1] for p in best}
    if len(best) > 1:
        for probe in order[:DEEPER_MOVES]:
            after, first, safe = looks[probe.move]
            total = later = 0.0
            for weight, reply in safe[:DEEPER_REPLIES]:
                again = _after(after, reply.move)
                answers = first_rank(probe_game_moves(database, again, values))[:DEEPER_ANSWERS]
                second = max((_first_look(database, again, answer, values)[1] for answer in answers),
                             default=0.0)
                total += weight
                later += weight * second
            if total:
                chances[probe.move] = first + (1.0 - first) * later / total
    result = [TrapMove(probe, chances[probe.move]) for probe in best]
    result.sort(key=lambda t: -t.chance)            # stable: the database's order in a chance
    return result


def trap_choice(database: Database, game: Game, rng: Optional[random.Random] = None,
                values: Optional[MoveValues] = None) -> Optional[TrapMove]:
    """The move of :func:`trap_moves` with the greatest chance (with ``rng``, one chosen
    at random among those of that chance); None once the game is over."""
    moves = trap_moves(database, game, values)
    if not moves:
        return None
    top = [t for t in moves if math.isclose(t.chance, moves[0].chance, rel_tol=1e-9, abs_tol=1e-12)]
    return rng.choice(top) if rng is not None else top[0]
