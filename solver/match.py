"""Matches: many games between two players, the score with its 95 % interval and the
Elo difference (``muehle match``).

Games alternate colours: the first player has White in games 0, 2, 4, ... and Black
in the others, and games 2k and 2k + 1 start from the same position (the start, or
the positions of a file in turn), so that neither a colour nor a start favours one
player.  Each game's random choices come from its own seed, derived from the
match's seed and the game's number, so a game replays alike whichever process plays
it and however many run (hard's thinking time aside).  Games run in parallel in
``jobs`` processes, each with its own reader of the databases.

>>> s = Score(wins=30, draws=60, losses=10)
>>> s.games, s.points, round(s.score, 3)
(100, 60.0, 0.6)
>>> [round(x, 3) for x in s.interval()]
[0.502, 0.691]
>>> round(s.elo()), [round(x) for x in s.elo_interval()]
(70, [1, 139])
"""

from __future__ import annotations

import math
import multiprocessing
import random
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from .errors import InvalidNotationError
from .game import QUIET_PLY_LIMIT, Game
from .players import LEVELS, FalliblePlayer, Player, make_player
from .position import BLACK, WHITE, Position
from .probe import Database
from .rules import Rules
from .values import DRAW, LOSS, WIN, WDL

__all__ = ["PlayerSpec", "Score", "GameResult", "read_starts", "play_match", "wilson",
           "difference_interval", "elo_of", "Z95",
           "FALLIBLE", "NEEDS_DATABASE"]

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054
#: The name of the fallible perfect player: ``fallible:EPSILON``.
FALLIBLE = "fallible"
#: Levels that play by the databases (and need them built to be what they are).
NEEDS_DATABASE = frozenset({"perfect", "ultra", FALLIBLE})


@dataclass(frozen=True)
class PlayerSpec:
    """A player of a match, as written on the command line: a level (``easy``,
    ``medium``, ``hard``, ``perfect``, ``ultra``) or ``fallible:EPSILON`` (a
    :class:`~solver.players.FalliblePlayer`: a best move, else with probability
    EPSILON in 0..1 a random legal move).

    >>> PlayerSpec.parse("fallible:0.05"), str(PlayerSpec.parse("ultra"))
    (PlayerSpec(level='fallible', epsilon=0.05), 'ultra')
    >>> PlayerSpec.parse("fallible:2")
    Traceback (most recent call last):
    ...
    ValueError: player 'fallible:2': a fallible player errs with a probability from 0 to 1, not 2
    """

    level: str
    epsilon: Optional[float] = None

    @classmethod
    def parse(cls, text: str) -> "PlayerSpec":
        name, colon, arg = text.strip().partition(":")
        known = ", ".join([*LEVELS, f"{FALLIBLE}:EPSILON"])
        if name == FALLIBLE:
            try:
                epsilon = float(arg)
            except ValueError:
                raise ValueError(f"player {text!r}: give the probability of an error, as in "
                                 f"{FALLIBLE}:0.05") from None
            if not 0.0 <= epsilon <= 1.0:       # (NaN too)
                raise ValueError(f"player {text!r}: a fallible player errs with a probability "
                                 f"from 0 to 1, not {arg}")
            return cls(FALLIBLE, epsilon)
        if name not in LEVELS or colon:
            raise ValueError(f"unknown player {text!r} (one of {known})")
        return cls(name)

    def __str__(self) -> str:
        return self.level if self.epsilon is None else f"{self.level}:{self.epsilon:g}"

    @property
    def needs_database(self) -> bool:
        return self.level in NEEDS_DATABASE

    def make(self, rules: Rules, rng: random.Random, database: Optional[Database],
             seconds: float, say: Optional[Callable[[str], None]] = None) -> Player:
        if self.level == FALLIBLE:
            return FalliblePlayer(rules, rng, say, database, seconds, epsilon=self.epsilon)
        return make_player(self.level, rules, rng, database, say, seconds)


@dataclass(frozen=True)
class Score:
    """The first player's wins, draws and losses, with the usual statistics.

    ``interval``: Wilson's 95 % interval of the score (points per game, a draw half a
    point), which never shrinks to a point at 0 %, 50 % (all draws) or 100 %; it treats
    a game as a coin of the score's odds, wider than the true interval where draws are
    many, so it errs on the side of doubt.  ``elo``: the rating difference that
    expects the score, 400 log10(s / (1 - s)) (infinite at 0 % and 100 %).
    """

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else math.nan

    def add(self, result: WDL) -> "Score":
        return Score(self.wins + (result == WIN), self.draws + (result == DRAW),
                     self.losses + (result == LOSS))

    def interval(self, z: float = Z95) -> tuple[float, float]:
        return wilson(self.score, self.games, z)

    def elo(self) -> float:
        return elo_of(self.score)

    def elo_interval(self) -> tuple[float, float]:
        low, high = self.interval()
        return (elo_of(low), elo_of(high))

    def describe(self, name: str) -> str:
        low, high = self.interval()
        elo, (elo_low, elo_high) = self.elo(), self.elo_interval()
        return (f"{name}: {self.wins} wins, {self.draws} draws, {self.losses} losses in {self.games} "
                f"games; score {self.score:.1%} [{low:.1%}, {high:.1%}] (95 %); Elo difference "
                f"{_elo_text(elo)} [{_elo_text(elo_low)}, {_elo_text(elo_high)}]")


def wilson(share: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of a share observed in ``n`` trials ((0, 1) for none).

    >>> [round(x, 3) for x in wilson(0.0, 100)], [round(x, 3) for x in wilson(0.5, 100)]
    ([0.0, 0.037], [0.404, 0.596])
    """
    if not n:
        return (0.0, 1.0)
    p = share
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def difference_interval(a: int, n: int, b: int, m: int, z: float = Z95) -> tuple[float, float, float]:
    """(a/n - b/m, and its 95 % interval) by Newcombe's method from the two Wilson
    intervals: whether one player wins more often than another, each over its games.

    >>> [round(x, 3) for x in difference_interval(60, 1000, 30, 1000)]
    [0.03, 0.012, 0.049]
    """
    p, q = a / n, b / m
    (pl, pu), (ql, qu) = wilson(p, n, z), wilson(q, m, z)
    d = p - q
    return (d, d - math.sqrt((p - pl) ** 2 + (qu - q) ** 2), d + math.sqrt((pu - p) ** 2 + (q - ql) ** 2))


def elo_of(score: float) -> float:
    """The Elo difference that expects ``score`` (0..1).

    >>> elo_of(0.5), round(elo_of(0.76)), elo_of(1.0)
    (0.0, 200, inf)
    """
    if math.isnan(score):
        return math.nan
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400 * math.log10(score / (1 - score))


def _elo_text(elo: float) -> str:
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    return f"{elo:+.0f}"


@dataclass(frozen=True)
class GameResult:
    """One game of a match: its number, the players by colour, the result for the
    match's first player, and the game's record (:meth:`~solver.game.Game.record`, with
    comment lines naming the match), ``notes``: what its players said (a missing
    database, ...)."""

    number: int
    white: str
    black: str
    result: WDL
    plies: int
    termination: str
    record: str
    notes: tuple[str, ...] = field(default=())


def read_starts(text: str, rules: Rules, name: str = "positions",
                quiet_limit: int = QUIET_PLY_LIMIT) -> list[str]:
    """The positions of a positions file: one per line (as ``query`` reads them, a FEN's
    count of quiet plies with it), blank lines and lines starting with ``#`` skipped;
    each line as written, checked to start a game that is not over (under a rule of
    ``quiet_limit`` quiet plies).  A bad line raises ValueError naming it, and a file of
    none is refused too."""
    starts = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if Game(line, rules, quiet_limit).outcome() is not None:
                raise InvalidNotationError("the game is already over there")
        except (InvalidNotationError, ValueError) as error:
            raise ValueError(f"{name}: line {number}: {error}") from None
        starts.append(line)
    if not starts:
        raise ValueError(f"{name}: no positions in it")
    return starts


@dataclass(frozen=True)
class _Match:
    """What every game of a match needs (sent to each worker once)."""

    first: PlayerSpec
    second: PlayerSpec
    rules: Rules
    root: Optional[str]
    seed: int
    starts: tuple[Position | str, ...]      # (a text: with the count of quiet plies it carries)
    seconds: float
    quiet_limit: int


_WORKER: dict = {}


def _init_worker(match: _Match) -> None:
    # Ctrl-C is the parent's to handle: it stops the pool and reports the score so far.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["match"] = match
    _WORKER["database"] = _open(match)


def _open(match: _Match) -> Optional[Database]:
    if match.root is None:
        return None
    return Database(match.root, match.rules, in_memory=match.rules.stones <= 4,
                    quiet_limit=match.quiet_limit)


def _play_one(number: int) -> GameResult:
    return _play(_WORKER["match"], _WORKER["database"], number)


def _play(match: _Match, database: Optional[Database], number: int) -> GameResult:
    first_white = number % 2 == 0
    start = match.starts[(number // 2) % len(match.starts)] if match.starts else None
    game = Game(start, match.rules, match.quiet_limit)
    notes: list[str] = []
    specs = {WHITE: match.first if first_white else match.second,
             BLACK: match.second if first_white else match.first}
    players = {colour: spec.make(match.rules, random.Random(f"{match.seed}/{number}/{colour}"),
                                 database, match.seconds, notes.append)
               for colour, spec in specs.items()}
    while game.outcome() is None:
        game.play(players[game.position.turn].choose(game))
    outcome = game.outcome()
    result = outcome.value_for(WHITE if first_white else BLACK)
    header = (f"# match game {number} (seed {match.seed}): White {specs[WHITE]}, "
              f"Black {specs[BLACK]}\n")
    return GameResult(number, str(specs[WHITE]), str(specs[BLACK]), result, len(game),
                      outcome.reason, header + game.record(), tuple(dict.fromkeys(notes)))


def play_match(first: PlayerSpec, second: PlayerSpec, games: int, rules: Rules,
               root: Optional[str | Path], seed: int = 0, jobs: int = 1,
               starts: Sequence[Position | str] = (), seconds: float = 0.1,
               quiet_limit: int = QUIET_PLY_LIMIT) -> Iterator[GameResult]:
    """Play ``games`` games of ``first`` against ``second`` (colours alternating) and
    yield each game's :class:`GameResult` as it ends (in any order where ``jobs`` > 1).
    ``root``: the database folder (None: none; players that need it then search).
    ``seconds``: the thinking time of hard.  ``starts``: the games' start positions in
    turn (texts: a FEN's count of quiet plies counts, as :class:`~solver.game.Game`
    reads it).  Closing the iterator (or a Ctrl-C in it) stops the processes at once."""
    if games < 1:
        raise ValueError(f"a match has at least one game, not {games}")
    match = _Match(first, second, rules, None if root is None else str(root), seed,
                   tuple(starts), seconds, quiet_limit)
    if jobs <= 1 or games == 1:
        database = _open(match)
        try:
            for number in range(games):
                yield _play(match, database, number)
        finally:
            if database is not None:
                database.close()
        return
    context = multiprocessing.get_context("forkserver")
    pool = context.Pool(min(jobs, games), initializer=_init_worker, initargs=(match,))
    try:
        yield from pool.imap_unordered(_play_one, range(games))
        pool.close()
    finally:
        pool.terminate()
        pool.join()
