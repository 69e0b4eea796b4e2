"""Computer players: one class per level, all with ``choose(game) -> Move``.

========  ====================================================================
easy      closes mills and blocks the opponent's, otherwise plays at random;
          now and then (``mistakes``) plays any move that gives no mill away
medium    alpha-beta to depth 3 with a material / mobility / open-mill evaluation
hard      iterative deepening alpha-beta within a time budget, transposition
          table, exact database values where the moving-phase databases have
          them (under the quiet-ply rule at the line's count where its tables
          are built, as perfect); random among equally good moves
perfect   the databases: shortest win, else a draw, else the longest loss,
          random among equals (a move that draws the game by repetition or by
          the 50-ply rule counts as the draw it makes: :func:`probe_game_moves`);
          where the tables of the quiet-ply rule are built, the values under
          that rule at the game's count (in the placement phase from the count 0
          where the moving phase starts), the nearest mill first among wins;
          where they cannot answer, it says so once and plays like hard
ultra     perfect, but among the best moves the one that gives a fallible
          opponent the most chances to go wrong (:mod:`solver.choice`): from a
          drawn position it sets traps, and it never gives up value
========  ====================================================================

:class:`FalliblePlayer` (not a level: a model for ``muehle match``) plays perfect's
move, or with probability ``epsilon`` any legal move.

Every player takes a :class:`random.Random` (``rng``) for its random choices, so a
seeded game replays (hard's time budget aside: a faster machine searches deeper).
``say`` receives notices such as a missing database, each at most once.

>>> import random
>>> from solver.game import Game
>>> from solver.rules import Rules
>>> game = Game("W:a1,d1,g4,b4 B:g7,b6,d6,f6 w", Rules(stones=4))
>>> str(MediumPlayer(game.rules, random.Random(1)).choose(game))   # closes a1-d1-g1
'g4-g1xg7'
"""

from __future__ import annotations

import collections
import random
import time
from typing import Any, Callable, Iterable, Optional

from .board import STANDARD_BOARD, Board
from .choice import MoveValues, probe_game_moves, trap_choice
from .dtz import decode as decode_dtz
from .game import QUIET_PLY_LIMIT, REPETITION_LIMIT, Game
from .kernels import kernels_for
from .position import Move, Position, after_move, blocked_wdl, decided, in_mill
from .errors import DatabaseError, GameOverError, SearchStoppedError, seconds_of
from .probe import Database, best_of
from .rules import Rules, as_rules, require_kernels
from .values import DRAW, WDL, WIN, RuleValue, decode

__all__ = ["Player", "EasyPlayer", "MediumPlayer", "HardPlayer", "PerfectPlayer", "UltraPlayer",
           "FalliblePlayer", "LEVELS", "make_player", "probe_game_moves"]

#: Score of a won game at the root; a win in k plies scores WIN_SCORE - k.
WIN_SCORE = 100_000
#: Scores at least this far from 0 are wins or losses, not evaluations.
DECIDED = WIN_SCORE - 10_000

Say = Callable[[str], None]


def _apply(own: int, opp: int, own_hand: int, opp_hand: int, packed: int, count: int,
           board: Board) -> tuple[int, int, int, int, int]:
    """The state (own, opp, own_hand, opp_hand) after a packed move, the opponent to move
    (:func:`~solver.position.after_move`), and the game's count of quiet plies after it
    (``count`` before): 0 after a mill (one that takes nothing too) or while stones are
    in hand, where no count runs, else one more (as :meth:`solver.game.Game.play`)."""
    move = Move.unpack(packed)
    placing = own_hand or opp_hand
    mover, opp, own_hand = after_move(own, opp, own_hand, move)
    quiet = not placing and not in_mill(mover, move.target, board)
    return opp, mover, opp_hand, own_hand, count + 1 if quiet else 0


def _open_mills(own: int, opp: int, board: Board) -> int:
    """Mills with two own stones and the third point free."""
    n = 0
    for mill in board.mills:
        if not mill & opp and (mill & own).bit_count() == 2:
            n += 1
    return n


def _mobility(stones: int, free: int, board: Board) -> int:
    n = 0
    s = stones
    while s:
        low = s & -s
        n += (board.adjacent[low.bit_length() - 1] & free).bit_count()
        s ^= low
    return n


def evaluate(own: int, opp: int, own_hand: int, opp_hand: int, board: Board = STANDARD_BOARD) -> int:
    """Heuristic score for the side to move: material, then mobility and open mills."""
    m, o = own.bit_count(), opp.bit_count()
    score = 100 * ((m + own_hand) - (o + opp_hand)) + 20 * (_open_mills(own, opp, board)
                                                - _open_mills(opp, own, board))
    free = board.free(own, opp)
    # Mobility matters for a side that slides (a jumping side goes anywhere).
    own_mob = 0 if own_hand == 0 and m == 3 else _mobility(own, free, board)
    opp_mob = 0 if opp_hand == 0 and o == 3 else _mobility(opp, free, board)
    return score + 4 * (own_mob - opp_mob)


class Player:
    """A computer player.  ``choose(game)`` returns a legal move of ``game``'s side to
    move (the game must not be over)."""

    level = "?"
    #: How an error or notice is put in what the player says (an interface gives
    #: solver.commands.explained, which adds the command that mends it)
    explain: Callable[[Any], str] = staticmethod(str)

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None):
        self.rules = as_rules(rules)
        self.rng = rng if rng is not None else random.Random()
        self._say = say
        self._said: set[str] = set()

    def say(self, message: str, key: Optional[str] = None) -> None:
        """Pass ``message`` to ``say`` once: later calls with the same ``key`` (default:
        the same text) are dropped."""
        key = message if key is None else key
        if key in self._said:
            return
        self._said.add(key)
        if self._say is not None:
            self._say(message)

    def choose(self, game: Game, among: Optional[Iterable[Move]] = None) -> Move:
        """A legal move of ``game`` (of this player's rules; ValueError for another's,
        GameOverError once it is over); with ``among``, one of those moves, chosen as
        this player chooses (an engine's take after a mill whose move the GUI played:
        the moves that go on from it), ValueError where none of them is legal."""
        raise NotImplementedError

    def stop(self) -> None:
        """Cut short a ``choose`` under way in another thread (an engine's ``stop``): a
        search ends at its next look at the clock with the best of the depths it has
        done; one asked before the search starts ends it at once.  Nothing for a player
        that does not search."""

    def resume(self) -> None:
        """Let a player that was stopped search again (an engine's next ``go``, which keeps
        the game's player and so what it has learnt: a search's transposition table)."""

    def _legal(self, game: Game, among: Optional[Iterable[Move]] = None) -> list[Move]:
        if game.rules != self.rules:
            raise ValueError(f"a player of rules {self.rules.name} cannot play a game of rules "
                             f"{game.rules.name}")
        moves = game.legal_moves()
        if not moves:
            raise GameOverError("the game is over: there is no move to choose")
        if among is not None:
            allowed = set(among)
            moves = [m for m in moves if m in allowed]
            if not moves:
                raise ValueError("none of the moves to choose among is legal here")
        return moves


class EasyPlayer(Player):
    """Closes a mill when it can, blocks the opponent's, and avoids opening one for the
    opponent; with probability ``mistakes`` it plays any move that gives no mill away."""

    level = "easy"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, mistakes: float = 0.25):
        super().__init__(rules, rng, say)
        self.mistakes = mistakes

    def _score(self, pos: Position, move: Move) -> int:
        """Closing a mill 100, blocking one of the opponent's 50, taking a stone out of an
        open opponent mill 20, letting the opponent close a mill next -40."""
        own, opp = pos.own, pos.opp
        after = pos.play_unchecked(move)       # the opponent to move now
        score = 0
        mills = self.rules.board.mills
        if self._closes(pos, move):
            score += 100
        if move.take is not None:
            if any(m >> move.take & 1 and (m & opp).bit_count() == 2 and not m & own
                   for m in mills):
                score += 20
        # Points where the opponent had two in a line with the third point free.
        threats = [m & ~opp for m in mills if (m & opp).bit_count() == 2 and not m & own]
        if any(t == 1 << move.target for t in threats):
            score += 50
        # Can the opponent close a mill right after this move?
        if any(self._closes(after, m) for m in after.legal_moves(self.rules)):
            score -= 40
        return score

    def _closes(self, pos: Position, move: Move) -> bool:
        """Whether ``move`` closes a mill (where a line wins, that wins the game; under
        take-none also one that takes nothing)."""
        return pos.closes_mill(move)

    def choose(self, game: Game, among: Optional[Iterable[Move]] = None) -> Move:
        moves = self._legal(game, among)
        pos = game.position
        scored = [(self._score(pos, m), m) for m in moves]
        if self.rng.random() < self.mistakes:
            decent = [m for s, m in scored if s >= 0] or moves
            return self.rng.choice(decent)
        best = max(s for s, _ in scored)
        return self.rng.choice([m for s, m in scored if s == best])


class _Timeout(Exception):
    pass


# Transposition table entry flags.
_EXACT, _LOWER, _UPPER = 0, 1, 2


class SearchPlayer(Player):
    """Alpha-beta (negamax) over the kernel's packed moves.

    ``depth``: the deepest iteration; ``seconds``: time budget per move (None: none);
    ``database``: a :class:`~solver.probe.Database` whose moving-phase values are used
    as exact scores wherever they exist.  A position the game has had twice already
    (the third time draws the game) or that is on the line searched already scores as
    a draw; one the game has had once is scored as any other (under the quiet-ply rule
    it may be lost now where it was drawn then).  Among root moves of the best score,
    one is chosen at random.

    The search counts the game's quiet plies as the game does (:class:`~solver.game.Game`):
    a line that reaches the game's limit without a mill is drawn there (unless its last
    move blocks the other side).  Where the database's tables of the quiet-ply rule of
    the game's limit are built, a moving-phase position's exact score is its value
    under the rule at the line's count (a win only where its next mill comes in time,
    nearer mills scoring higher); else, and for a pair whose file of the rule is
    missing (said once), its plain value.
    """

    level = "search"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, depth: int = 3, seconds: Optional[float] = None,
                 database: Optional[Database] = None, table: bool = False):
        rules = as_rules(rules)
        require_kernels(rules)               # it searches with the kernels' move generator
        if seconds is not None:
            seconds = seconds_of(seconds, "a player's thinking time", zero=False)
        self._kernels = kernels_for(rules.board)
        super().__init__(rules, rng, say)
        self.depth, self.seconds, self.database = depth, seconds, database
        self.use_table = table
        #: (depth, bound, score, best move, whether an evaluation went into the score)
        self.table: dict[tuple, tuple[int, int, int, int, bool]] = {}
        self._missing: set[tuple[int, int]] = set()
        self._rule_missing: set[tuple[int, int]] = set()
        self._limit = QUIET_PLY_LIMIT       # (the searched game's; set by search)
        self._rule = False                  # whether the database's tables of that limit are built
        self._history: collections.Counter = collections.Counter()    # the searched game's positions
        self.nodes = 0
        self.reached = 0            # depth of the last completed iteration
        self._stopped = False
        self._deadline: Optional[float] = None

    # --- the search ------------------------------------------------------------
    def _moves(self, own: int, opp: int, own_hand: int, opp_hand: int) -> list[int]:
        return self._kernels.moves_packed(own, opp, own_hand, opp_hand, self.rules.flags)

    def _rule_tables(self, limit: int) -> bool:
        """Whether the database's tables of the quiet-ply rule of ``limit`` are built."""
        if self.database is None or self.database.quiet_limit != limit:
            return False
        try:
            return self.database.has_rule_tables()
        except DatabaseError:
            return False            # (closed: its leaves say so, once, as without the rule)

    def _db_score(self, own: int, opp: int, ply: int, count: int) -> Optional[int]:
        """Exact score of a moving-phase position after ``count`` quiet plies from the
        database (under the quiet-ply rule where its tables are built), or None."""
        m, o = own.bit_count(), opp.bit_count()
        if self.database is None or m < 3 or o < 3:
            return None
        if self._rule and (m, o) not in self._rule_missing:
            try:
                plain, dtz = decode_dtz(self.database.rule_code(own, opp))
            except DatabaseError as error:
                self._rule_missing.add((m, o))
                # (the error names the file, not the side that met it: one notice a file)
                self.say(f"{self.level}: the tables of the {self._limit}-ply rule cannot answer "
                         f"({self.explain(error)}); searching by the plain values where they cannot",
                         key="rule")
            else:
                if RuleValue.of(WDL(plain), dtz, self._limit).at(count) == DRAW:
                    return 0
                # (the nearest mill first among wins, the farthest among losses: as perfect ranks)
                return WIN_SCORE - ply - dtz if plain == WIN else -(WIN_SCORE - ply - dtz)
        if (m, o) in self._missing:
            return None
        try:
            v = decode(self.database.code(own, opp))
        except DatabaseError as error:
            self._missing.add((m, o))
            self.say(f"{self.level}: the database cannot answer ({self.explain(error)}); "
                     f"searching without it where it cannot", key="database")
            return None
        if v.wdl == DRAW:
            return 0
        if v.wdl == WIN:
            return WIN_SCORE - ply - v.plies
        return -(WIN_SCORE - ply - v.plies)

    def _move_score(self, own: int, opp: int, own_hand: int, opp_hand: int, side: int, count: int,
                    packed: int, depth: int, ply: int, alpha: int, beta: int, seen: set) -> int:
        """Score of the move ``packed`` for its mover at ``ply`` (within the window
        ``alpha``, ``beta``, searched to ``depth`` - 1 beyond it).  Under the quiet-ply
        rule a moving-phase move that closes a mill scores a win or loss as one whose
        next mill is one ply away (as perfect ranks it, :class:`~solver.probe.RuleMoveProbe`:
        a win's next mill, not its end), so a winner closes its mill where waiting would
        keep the win too, and makes progress; such a move is searched with the whole
        window, since a bound would not survive that mapping."""
        o2, w2, h2, k2, c2 = _apply(own, opp, own_hand, opp_hand, packed, count, self.rules.board)
        if not (self._rule and c2 == 0 and not (own_hand or opp_hand)):
            return -self._negamax(o2, w2, h2, k2, 1 - side, c2, depth - 1, ply + 1, -beta, -alpha, seen)
        value = -self._negamax(o2, w2, h2, k2, 1 - side, 0, depth - 1, ply + 1, -WIN_SCORE - 1, WIN_SCORE + 1,
                               seen)
        if value >= DECIDED:
            return WIN_SCORE - ply - 1
        if value <= -DECIDED:
            return -(WIN_SCORE - ply - 1)
        return value

    def _negamax(self, own: int, opp: int, own_hand: int, opp_hand: int, side: int, count: int,
                 depth: int, ply: int, alpha: int, beta: int, seen: set) -> int:
        self.nodes += 1
        if self._deadline is not None and self.nodes & 1023 == 0 and time.perf_counter() > self._deadline:
            raise _Timeout
        ended = decided(own, opp, own_hand, opp_hand, self.rules)
        if ended is not None:
            return WIN_SCORE - ply if ended == WIN else -(WIN_SCORE - ply)
        key = (own, opp, own_hand, opp_hand, side)
        if ply > 0 and (key in seen or self._history.get(key, 0) >= REPETITION_LIMIT - 1):
            return 0              # back on the line (heading for a draw), or the game's third time
        if own_hand == 0 and opp_hand == 0 and count < self._limit:
            exact = self._db_score(own, opp, ply, count)
            if exact is not None:
                return exact
        moves = self._moves(own, opp, own_hand, opp_hand)
        if not moves:                                    # blocked: lost, or drawn on a full board
            return 0 if blocked_wdl(own, opp, self.rules) == DRAW else -(WIN_SCORE - ply)
        if count >= self._limit:
            return 0                                     # drawn by the quiet-ply rule
        # (a value depends on the count where the rule's tables score the leaves, or a line
        # from here may reach the limit; elsewhere positions met at other counts share it)
        entry_key = (*key, count) if self._rule or count + depth >= self._limit else key
        if depth <= 0:
            self._heuristic = True
            return evaluate(own, opp, own_hand, opp_hand, self.rules.board)
        alpha0 = alpha
        best_move = None
        if self.use_table:
            entry = self.table.get(entry_key)
            if entry is not None:
                e_depth, flag, value, best_move, guessed = entry
                if e_depth >= depth:
                    value = self._from_table(value, ply)
                    if (flag == _EXACT or (flag == _LOWER and value >= beta)
                            or (flag == _UPPER and value <= alpha)):
                        # (a value an evaluation went into is one still: deeper may change it)
                        self._heuristic = self._heuristic or guessed
                        return value
        moves.sort(key=lambda mv: (mv != best_move, Move.unpack(mv).take is None))
        seen.add(key)
        best, best_move = -WIN_SCORE - 1, moves[0]
        outer, self._heuristic = self._heuristic, False     # (whether this node's lines met one)
        try:
            for mv in moves:
                value = self._move_score(own, opp, own_hand, opp_hand, side, count, mv, depth, ply,
                                         alpha, beta, seen)
                if value > best:
                    best, best_move = value, mv
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            break
        finally:
            seen.discard(key)
        guessed = self._heuristic
        self._heuristic = outer or guessed
        if self.use_table:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            self.table[entry_key] = (depth, flag, self._to_table(best, ply), best_move, guessed)
        return best

    @staticmethod
    def _to_table(value: int, ply: int) -> int:
        # Win scores count plies from the root; stored counting from this node.
        if value >= DECIDED:
            return value + ply
        if value <= -DECIDED:
            return value - ply
        return value

    @staticmethod
    def _from_table(value: int, ply: int) -> int:
        if value >= DECIDED:
            return value - ply
        if value <= -DECIDED:
            return value + ply
        return value

    def _root(self, own, opp, own_hand, opp_hand, side, count, depth, moves, seen) -> tuple[int, list[int]]:
        """Score of the best root moves and all moves of that score, at ``depth``."""
        best, ties = None, []
        for mv in moves:
            # A window just below the best so far finds every move as good as it.
            alpha = -WIN_SCORE - 1 if best is None else best - 1
            value = self._move_score(own, opp, own_hand, opp_hand, side, count, mv, depth, 0,
                                     alpha, WIN_SCORE + 1, seen)
            if best is None or value > best:
                best, ties = value, [mv]
            elif value == best:
                ties.append(mv)
        return best, ties

    def search(self, game: Game, among: Optional[list[Move]] = None) -> tuple[int, list[Move]]:
        """(score, best moves) for the side to move in ``game``, of ``among`` where given
        (legal moves of it)."""
        pos = game.position
        own, opp, own_hand, opp_hand = pos.own, pos.opp, pos.own_hand, pos.opp_hand
        side = 0 if pos.turn == "w" else 1
        # How often the game has had each position (the root's is one of them): a line
        # that would make it three is drawn; a line that comes back to one of its own
        # positions (the root's first) is heading for a draw.
        self._history = collections.Counter((p.own, p.opp, p.own_hand, p.opp_hand, 0 if p.turn == "w" else 1)
                                            for p in game.positions)
        seen = {(own, opp, own_hand, opp_hand, side)}
        moves = self._moves(own, opp, own_hand, opp_hand)
        if among is not None:
            allowed = set(among)
            moves = [mv for mv in moves if Move.unpack(mv, self.rules.board) in allowed]
        self.rng.shuffle(moves)
        self.nodes = 0
        self._deadline = (0.0 if self._stopped else None if self.seconds is None
                          else time.perf_counter() + self.seconds)
        rule = self._rule_tables(game.quiet_limit)
        if len(self.table) > 2_000_000 or (self._limit, self._rule) != (game.quiet_limit, rule):
            self.table.clear()      # (its scores were of another limit, or without the rule)
        self._limit, self._rule = game.quiet_limit, rule
        result = None
        for depth in range(1, self.depth + 1):
            self._heuristic = False
            try:
                score, ties = self._root(own, opp, own_hand, opp_hand, side, game.quiet_plies, depth, moves,
                                         seen)
            except _Timeout:
                break
            result = score, ties
            self.reached = depth
            # Best moves first in the next iteration (the others keep their random order).
            moves = ties + [mv for mv in moves if mv not in ties]
            if not self._heuristic or abs(score) >= DECIDED:
                break               # every line ended in a known result: deeper changes nothing
            if self._deadline is not None and time.perf_counter() > self._deadline:
                break
        if result is None:          # not even depth 1 in time: any move
            result = 0, moves[:1]
        score, ties = result
        return score, [Move.unpack(mv, self.rules.board) for mv in ties]

    def choose(self, game: Game, among: Optional[Iterable[Move]] = None) -> Move:
        moves = self._legal(game, among)
        self.reached = 0                # (this move's depth: none where there is no choice)
        if len(moves) == 1:
            return moves[0]
        _, best = self.search(game, None if among is None else moves)
        return self.rng.choice(best)

    def stop(self) -> None:
        self._stopped = True        # (asked before the search starts: it starts stopped)
        self._deadline = 0.0        # (past: the search's next look at the clock ends it)

    def resume(self) -> None:
        self._stopped = False


class MediumPlayer(SearchPlayer):
    """Alpha-beta to a fixed depth (3) with the heuristic evaluation; no databases."""

    level = "medium"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, depth: int = 3):
        super().__init__(rules, rng, say, depth=depth)


class HardPlayer(SearchPlayer):
    """Iterative deepening within ``seconds`` per move, a transposition table, and the
    databases' exact values where they are built."""

    level = "hard"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, database: Optional[Database] = None, seconds: float = 3.0,
                 depth: int = 64):
        super().__init__(rules, rng, say, depth=depth, seconds=seconds,
                         database=database, table=True)
        if database is None:
            self.say("hard: no database; searching without it", key="database")


class PerfectPlayer(Player):
    """Plays the databases' best move in this game (shortest win, else draw, else
    longest loss, random among equals; :func:`probe_game_moves`).  Where the databases
    cannot answer it says so once and plays like :class:`HardPlayer` for that move."""

    level = "perfect"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, database: Optional[Database] = None, seconds: float = 3.0):
        super().__init__(rules, rng, say)
        self.database = database
        self.gap: Optional[DatabaseError] = None     # (a file of the rule found missing: said once)
        self.fallback = HardPlayer(rules, self.rng, say=None, database=database, seconds=seconds)
        self.fallback._said = self._said            # one set of notices for both
        self.fallback._say = say
        if database is None:
            self.say("perfect: no database; playing by search instead", key="database")

    def choose(self, game: Game, among: Optional[Iterable[Move]] = None) -> Move:
        moves = self._legal(game, among)
        among = None if among is None else moves
        if self.database is not None:
            try:
                if game.position.in_placement:
                    self._note_opening_search(game.position)
                best = self._best(game, among)
                if self.gap is not None:
                    self.say(f"{self.level}: the tables of the quiet-ply rule are built, but not all it needs "
                             f"({self.explain(self.gap)}); playing by the plain values where they are not",
                             key="rule")
                if best is not None:
                    return best
            except (DatabaseError, SearchStoppedError) as error:
                if isinstance(error, SearchStoppedError) and not error.timed_out:
                    raise              # asked to stop (a server's client left): no move wanted
                # (out of time: a server's time for the opening search is up)
                self.say(f"perfect: the database cannot answer ({self.explain(error)}); playing by search "
                         f"where it cannot", key="database")
        return self.fallback.choose(game, among) if len(moves) > 1 else moves[0]

    def stop(self) -> None:
        self.fallback.stop()

    def resume(self) -> None:
        self.fallback.resume()

    def _best(self, game: Game, among: Optional[list[Move]] = None) -> Optional[Move]:
        """One of the database's best moves in ``game`` (of ``among`` where given; None:
        none); raises DatabaseError."""
        values = MoveValues(0)              # (nothing remembered: it notes a missing file of the rule)
        probes = probe_game_moves(self.database, game, values)
        if among is not None:
            probes = [mp for mp in probes if mp.move in among]
        best = best_of(probes, self.rng)
        self.gap = self.gap or values.gap
        return None if best is None else best.move

    def _note_opening_search(self, position: Position) -> None:
        """Say once, before it starts, that the opening search values this placement
        position (a wait of a minute or more early in the 9-stone game, which looks like a
        hang).  Raises DatabaseError where the database cannot say."""
        if self.database.needs_search(position):
            self.say(f"perfect: {self.explain(self.database.search_note())}", key="opening")


class UltraPlayer(PerfectPlayer):
    """Plays a best move as :class:`PerfectPlayer` does, never giving up value, but
    among the best moves the one after which a fallible opponent most likely goes wrong
    (:func:`~solver.choice.trap_choice`): from a drawn position it sets traps."""

    level = "ultra"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.values = MoveValues()          # (its looks ahead meet their positions again)

    def _best(self, game: Game, among: Optional[list[Move]] = None) -> Optional[Move]:
        if among is not None:               # (a take to name: the best of those, no traps)
            return super()._best(game, among)
        best = trap_choice(self.database, game, self.rng, self.values)
        self.gap = self.gap or self.values.gap
        return None if best is None else best.move


class FalliblePlayer(PerfectPlayer):
    """A model of a strong player who now and then errs: with probability ``epsilon`` a
    legal move chosen at random, else :class:`PerfectPlayer`'s move.  What trap-setting
    is measured against (``muehle match``)."""

    level = "fallible"

    def __init__(self, rules: Rules, rng: Optional[random.Random] = None,
                 say: Optional[Say] = None, database: Optional[Database] = None, seconds: float = 3.0,
                 epsilon: float = 0.1):
        if not (isinstance(epsilon, (int, float)) and 0.0 <= epsilon <= 1.0):
            raise ValueError(f"a fallible player errs with a probability from 0 to 1, not {epsilon!r}")
        super().__init__(rules, rng, say, database, seconds)
        self.epsilon = float(epsilon)

    def choose(self, game: Game, among: Optional[Iterable[Move]] = None) -> Move:
        moves = self._legal(game, among)
        if self.rng.random() < self.epsilon:
            return self.rng.choice(moves)
        return super().choose(game, None if among is None else moves)


LEVELS = {"easy": EasyPlayer, "medium": MediumPlayer, "hard": HardPlayer,
          "perfect": PerfectPlayer, "ultra": UltraPlayer}


def make_player(level: str, rules: Rules, rng: random.Random, database: Optional[Database] = None,
                say: Optional[Say] = None, seconds: float = 3.0,
                explain: Optional[Callable[[Any], str]] = None) -> Player:
    """The player of ``level`` (one of :data:`LEVELS`); ``explain``: its :attr:`Player.explain`."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
    if level in ("easy", "medium"):
        player = LEVELS[level](rules, rng, say)
    else:
        player = LEVELS[level](rules, rng, say, database=database, seconds=seconds)
    if explain is not None:
        player.explain = explain
    return player
