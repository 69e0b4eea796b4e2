"""Dice mill (Würfelmühle): the rules of the throw, its moves, and expected results.

The readable reference of dice mill, as :mod:`solver.position` is of the game without
dice; the kernel ``dice_pass`` (ext/dice.pxi) must agree with it exactly, and the tests
prove that (docs/design.md §11).

**The rules read here.** Before each placement the side to place throws three dice.
Certain throws (:class:`DiceRule`'s ``throw``, a rule parameter: the rule books do not
fix them) give it *the power*: for this turn's placement it may instead take a stone of
the opponent that stands in a closed mill off the board and put one of its own from the
hand on that point (a *replacement*; the taken stone leaves the game).  It need not use
the power.  Where the stone so put closes a mill of its own, it takes an enemy stone as
any placement does (``replace_takes``; off: it takes nothing).  The moving phase has no
dice: it is the game's own, so its values are the plain tables'.

**Values** are expected results for the side to move before its throw, with best play
by both and the dice as chance: W, the probability of a win, and N, the probability of
not losing (win or draw); the draw is N - W, the loss 1 - N.  Best play is the highest
expected score W + N (win 1, draw ½, loss 0: the sum is twice that), and among equal
scores the higher W.  Seen by the opponent, (W, N) is (1 - N, 1 - W).

**Fixed point.** Tables hold W and N in units of 1/:data:`UNIT` (16 bits each), and each
position's mix of the two cases (power or not) is rounded to the nearest unit, half up
(:func:`mix`).  The stored value of a position decided ``d`` placements before the
moving phase is within ``d / 2`` units of the exact rational one for each of W and N
(each placement adds at most half a unit of rounding to what its children carry):
18 placements, 9 units, 0.014 %.  :func:`expectimax` computes either, exactly with
:class:`~fractions.Fraction` or in the tables' arithmetic.

>>> rule = DiceRule.from_name("triple")
>>> rule.num, rule.probability
(6, Fraction(1, 36))
>>> DiceRule.from_name("sum14").probability
Fraction(35, 216)
>>> Expected.of((UNIT // 2, UNIT))
Expected(win=0.49999, draw=0.50001, loss=0.0)
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Hashable, Union

from .board import points_of
from .errors import AmbiguousMoveError, IllegalMoveError, InvalidNotationError, NotationError, UnsupportedRulesError
from .game import Game, RecordText, is_record_of, read_record, record_rules
from .position import (Move, Position, mills_closed, mill_points, parse_legal_move, parse_move, parse_position,
                       takeable)
from .notation import BLACK, WHITE, format_position
from .rules import STANDARD, Rules, kernel_gap
from .values import DRAW, WDL, WIN

#: Equally likely throws of three dice.
THROWS = 216
#: One in fixed point: W and N are stored in units of 1/UNIT.
UNIT = 0xFFFF
#: The stored mark of a slot that holds no position (W > N: no value has it).
SLACK = UNIT

_DICE = list(itertools.product(range(1, 7), repeat=3))


def _throws(test: Callable[[tuple[int, int, int]], bool]) -> int:
    return sum(1 for d in _DICE if test(d))


#: Whether a throw of three dice gives the power, by throw rule.
THROW_TESTS: dict[str, Callable[[tuple[int, int, int]], bool]] = {
    "triple": lambda d: d[0] == d[1] == d[2],
    "double": lambda d: len(set(d)) < 3,
    **{f"sum{s}": (lambda d, s=s: sum(d) >= s) for s in range(10, 19)},
}
_WORDS = {"triple": "three alike", "double": "at least two alike",
          **{f"sum{s}": f"a sum of {s} or more" for s in range(10, 19)}}
#: The throws that give the power, by name: (how many of the 216, in words).
THROW_RULES: dict[str, tuple[int, str]] = {name: (_throws(test), _WORDS[name])
                                           for name, test in THROW_TESTS.items()}
NO_TAKE = "no-take"


@dataclass(frozen=True)
class DiceRule:
    """Which throws give the power, and whether a mill closed by a replacing stone
    takes (see the module's docstring).  Named ``triple`` (the default: three dice
    alike, 1/36), ``double``, ``sum10`` .. ``sum18``, with ``-no-take`` after it where
    a replacing stone's mill takes nothing.

    >>> DiceRule.from_name("double-no-take")
    DiceRule(throw='double', replace_takes=False)
    >>> DiceRule.from_name("sum20")
    Traceback (most recent call last):
    ...
    ValueError: no dice rule 'sum20': a throw rule is one of triple, double, sum10..sum18, with -no-take after it where the replacing stone's mill takes nothing
    """

    throw: str = "triple"
    replace_takes: bool = True

    def __post_init__(self) -> None:
        if self.throw not in THROW_RULES:
            raise ValueError(f"no throw rule {self.throw!r}: {_CHOICES}")

    @property
    def name(self) -> str:
        """The rule's name, as file names and ``--dice`` give it."""
        return self.throw if self.replace_takes else f"{self.throw}-{NO_TAKE}"

    @property
    def num(self) -> int:
        """How many of the 216 throws give the power."""
        return THROW_RULES[self.throw][0]

    @property
    def probability(self) -> Fraction:
        """The chance that a throw gives the power."""
        return Fraction(self.num, THROWS)

    def describe(self) -> str:
        """The rule in words."""
        takes = "takes as any placement" if self.replace_takes else "takes nothing"
        return (f"the power comes with {THROW_RULES[self.throw][1]} ({self.num} of {THROWS} throws); "
                f"a mill the replacing stone closes {takes}")

    @classmethod
    def from_name(cls, name: str) -> "DiceRule":
        """The rule of a name (ValueError in one line for any other text)."""
        text = str(name).strip().lower()
        takes = not text.endswith("-" + NO_TAKE)
        throw = text if takes else text[:-len(NO_TAKE) - 1]
        if throw not in THROW_RULES:
            raise ValueError(f"no dice rule {str(name)[:40]!r}: {_CHOICES}")
        return cls(throw, takes)


_CHOICES = ("a throw rule is one of triple, double, sum10..sum18, with -no-take after it "
            "where the replacing stone's mill takes nothing")
DEFAULT = DiceRule()


def dice_gap(rules: Rules) -> str | None:
    """None where dice mill is played (and its tables built) under ``rules``, else why
    not: the kernels must know the rules, placement must come before moving (a side
    that may move instead would throw for a move), and mills must take (a line that
    wins outright has no mills to replace from)."""
    gap = kernel_gap(rules)
    if gap is not None:
        return gap
    if rules.mixed:
        return f"rules {rules.name!r}: dice mill is played with every stone placed before any moves"
    if rules.line_wins:
        return f"rules {rules.name!r}: dice mill needs mills that take, not a line that wins"
    return None


def require_dice(rules: Rules) -> None:
    """UnsupportedRulesError (one line) unless dice mill is played under ``rules``."""
    gap = dice_gap(rules)
    if gap is not None:
        raise UnsupportedRulesError(gap)


# --- moves -------------------------------------------------------------------------------

def is_replacement(pos: Position, move: Move) -> bool:
    """Whether ``move`` puts a stone where an enemy stone stands: a replacement (an
    ordinary placement needs a free point)."""
    return move.origin is None and bool(pos.opp >> move.target & 1)


def replacements(pos: Position, rules: Rules, dice: DiceRule = DEFAULT) -> list[Move]:
    """The moves the power adds (none outside the placement phase or once the game is
    over): onto each enemy stone of a closed mill, with each stone the new stone's mill
    may then take.  Written like placements (``a1``, ``a1xd7``): the point holds an
    enemy stone, so no placement reads the same.

    >>> from solver.position import parse_position
    >>> [str(m) for m in replacements(parse_position("W:a1,d1,g1 B:a7,d7 b 6 7"), Rules())]
    ['a1', 'd1', 'g1']
    """
    if pos.own_hand == 0 or pos.terminal_wdl(rules) is not None:
        return []
    board, out = pos.board, []
    for p in points_of(mill_points(pos.opp, board)):
        own = pos.own | 1 << p
        opp = pos.opp & ~(1 << p)
        victims = takeable(opp, rules) if dice.replace_takes and mills_closed(own, p, board) else 0
        if victims:
            out += [Move(p, None, v, board=board) for v in points_of(victims)]
        else:
            out.append(Move(p, board=board))
    return out


def after_replacement(pos: Position, move: Move) -> Position:
    """The position after replacement ``move``, trusted to be one (:func:`replacements`)."""
    own, opp = pos.own | 1 << move.target, pos.opp & ~(1 << move.target)
    for t in move.takes:
        opp &= ~(1 << t)
    nxt = BLACK if pos.turn == WHITE else WHITE
    return Position.from_view(opp, own, pos.opp_hand, pos.own_hand - 1, nxt, pos.board)


def play(pos: Position, move: Move, rules: Rules, dice: DiceRule, powered: bool) -> Position:
    """The position after ``move``: a replacement where the throw gave the power
    (``powered``), or an ordinary move (:meth:`Position.play`); IllegalMoveError for
    any other.

    >>> from solver.position import parse_move, parse_position
    >>> pos = parse_position("W:a1,d1,g1 B:a7,d7 b 6 7")
    >>> str(play(pos, parse_move("d1"), Rules(), DEFAULT, powered=True))
    'W:a1,g1 B:a7,d1,d7 w 6 6'
    >>> play(pos, parse_move("d1"), Rules(), DEFAULT, powered=False)
    Traceback (most recent call last):
    ...
    solver.errors.IllegalMoveError: illegal move d1: d1 holds a stone of White, and only a throw that gives the power lets Black replace it
    """
    if not is_replacement(pos, move):
        return pos.play(move, rules)
    enemy, mover = ("White", "Black") if pos.turn == BLACK else ("Black", "White")
    name = pos._name(move.target)
    if not powered:
        raise IllegalMoveError(f"illegal move {move}: {name} holds a stone of {enemy}, and only a "
                               f"throw that gives the power lets {mover} replace it", move)
    if move not in replacements(pos, rules, dice):
        why = (f"the stone on {name} stands in no mill" if not mill_points(pos.opp, pos.board) >> move.target & 1
               else "a replacement that closes a mill names the stone it takes"
               if dice.replace_takes and move.take is None else "it takes a stone it may not take")
        raise IllegalMoveError(f"illegal move {move}: {why}", move)
    return after_replacement(pos, move)


# --- values ------------------------------------------------------------------------------

#: (W, N) of a fixed-point value, or of an exact one (Fractions of 1).
Pair = tuple[Union[int, Fraction], Union[int, Fraction]]


@dataclass(frozen=True)
class Expected:
    """Expected result for the side to move: the probabilities of a win, a draw and a
    loss (they sum to 1), with best play by both and the dice as chance."""

    win: float
    draw: float
    loss: float

    @property
    def score(self) -> float:
        """The expected score: win 1, draw ½, loss 0."""
        return self.win + self.draw / 2

    @classmethod
    def of(cls, value: Pair, digits: int = 5) -> "Expected":
        """The probabilities of a fixed-point (W, N), rounded to ``digits`` places."""
        w, n = value
        return cls(round(w / UNIT, digits), round((n - w) / UNIT, digits), round((UNIT - n) / UNIT, digits))

    def __str__(self) -> str:
        return f"win {self.win:.2%}, draw {self.draw:.2%}, loss {self.loss:.2%}"


def of_wdl(wdl: WDL, one: Union[int, Fraction] = UNIT) -> Pair:
    """(W, N) of a certain result (``one``: UNIT in fixed point, 1 exactly)."""
    return (one, one) if wdl == WIN else (0, one) if wdl == DRAW else (0, 0)


def seen_by_mover(child: Pair, one: Union[int, Fraction] = UNIT) -> Pair:
    """The value of a successor (the opponent to move there) for the side that moved."""
    return one - child[1], one - child[0]


def rank(value: Pair) -> tuple:
    """The order of best play: by the expected score (W + N), then by W."""
    return value[0] + value[1], value[0]


def better(a: Pair, b: Pair) -> bool:
    """Whether ``a`` is better than ``b`` for its side: a higher W + N, then a higher W."""
    return rank(a) > rank(b)


def mix(powered: Pair, plain: Pair, num: int) -> Pair:
    """The value before the throw, in fixed point: ``powered`` in ``num`` of 216 throws,
    else ``plain``, each of W and N rounded to the nearest unit (half up), as the kernel
    rounds."""
    return tuple((2 * (num * a + (THROWS - num) * b) + THROWS) // (2 * THROWS)
                 for a, b in zip(powered, plain))


def mix_exact(powered: Pair, plain: Pair, num: int) -> Pair:
    """The value before the throw, exactly."""
    p = Fraction(num, THROWS)
    return tuple(p * a + (1 - p) * b for a, b in zip(powered, plain))


def position_value(pos: Position, rules: Rules, dice: DiceRule, child: Callable[[Position], Pair],
                   exact: bool = False) -> Pair:
    """The value of placement position ``pos`` (the side to move places next) from its
    successors' values (``child``: the value of a position for its side to move), in
    fixed point or (``exact``) in Fractions: the recursion the tables solve."""
    one = Fraction(1) if exact else UNIT
    plain = None
    for mv in pos.legal_moves(rules):
        v = seen_by_mover(child(pos.play_unchecked(mv)), one)
        if plain is None or better(v, plain):
            plain = v
    if plain is None:
        plain = (0, 0)                  # (no placement is ever blocked: a loss all the same)
    powered = plain
    for mv in replacements(pos, rules, dice):
        v = seen_by_mover(child(after_replacement(pos, mv)), one)
        if better(v, powered):
            powered = v
    return (mix_exact if exact else mix)(powered, plain, dice.num)


def expectimax(pos: Position, rules: Rules, dice: DiceRule, leaf: Callable[[Position], WDL],
               exact: bool = False, memo: dict | None = None,
               key: Callable[[Position], Hashable] | None = None) -> Pair:
    """The value of ``pos`` by recursion over the reference's moves down to the moving
    phase, whose values ``leaf`` gives (the side to move's plain result); a finished
    game is its result.  ``memo`` (a dict) keeps values between calls, under
    ``key(position)`` (default: the stones and hands as the side to move sees them; a
    key shared by symmetric positions makes it smaller).  For small games and tests:
    independent of the kernels' moves and recursion.

    >>> from solver.position import parse_position
    >>> pos = parse_position("W:a1,d1 B:a7,d7,b6 w 1 0", Rules(stones=3))
    >>> expectimax(pos, Rules(stones=3), DEFAULT, lambda p: "draw", exact=True)
    (Fraction(1, 1), Fraction(1, 1))
    """
    memo = {} if memo is None else memo
    one = Fraction(1) if exact else UNIT
    key = key or (lambda p: (p.own, p.opp, p.own_hand, p.opp_hand))

    def value(p: Position) -> Pair:
        k = key(p)
        got = memo.get(k)
        if got is None:
            done = p.terminal_wdl(rules)
            if done is not None:
                got = of_wdl(done, one)
            elif p.own_hand == 0 and p.opp_hand == 0:
                got = of_wdl(leaf(p), one)
            else:
                got = position_value(p, rules, dice, value, exact)
            memo[k] = got
        return got

    require_dice(rules)
    return value(pos)


# --- a played game -----------------------------------------------------------------------

@dataclass(frozen=True)
class Throw:
    """Three dice thrown before a placement, and whether they give the power."""

    dice: tuple[int, int, int]
    powered: bool

    def __str__(self) -> str:
        return " ".join(map(str, self.dice))


def throw_of(dice: tuple[int, int, int], rule: DiceRule = DEFAULT) -> Throw:
    """The throw of three given dice (a game played with real ones), judged by ``rule``.

    >>> throw_of((6, 6, 6)).powered, throw_of((6, 6, 5)).powered
    (True, False)
    """
    if len(dice) != 3 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"a throw is three dice of 1 to 6, not {dice!r}"[:120])
    return Throw(tuple(dice), THROW_TESTS[rule.throw](tuple(dice)))


def throw(rng, rule: DiceRule = DEFAULT) -> Throw:
    """Three dice from ``rng`` (a :class:`random.Random`), judged by ``rule``.

    >>> import random
    >>> throw(random.Random(1))
    Throw(dice=(2, 5, 1), powered=False)
    """
    return throw_of(tuple(rng.randint(1, 6) for _ in range(3)), rule)


def turn_throw(seed: int, ply: int, rule: DiceRule = DEFAULT) -> Throw:
    """The throw before the placement at ``ply`` (moves played so far) of a game seeded
    ``seed``: a function of the two, so that a game replayed from its moves (the
    browser's) or taken back (undo) meets the same throws, and the terminal and the
    browser throw alike for one seed.

    >>> turn_throw(7, 0) == turn_throw(7, 0), turn_throw(7, 0).dice
    (True, (4, 2, 6))
    """
    return throw(random.Random(f"dice {seed} {ply}"), rule)


def parse_dice_move(pos: Position, text: str, rules: Rules, dice: DiceRule, powered: bool) -> Move:
    """``text`` as a move of ``pos`` after a throw (``powered``: it gave the power): a
    legal placement or move, or a replacement; the error of :func:`parse_legal_move`
    (or of :func:`play`, for a replacement it refuses) otherwise."""
    try:
        return parse_legal_move(text, pos, rules)
    except AmbiguousMoveError:
        raise
    except (IllegalMoveError, NotationError) as error:
        move = parse_move(text, pos.board)
        if not is_replacement(pos, move):
            raise error
        play(pos, move, rules, dice, powered)          # (its refusal, where it is none)
        return move


class DiceGame:
    """A game of dice mill in its placement phase: the positions, the moves, and the
    throw of each placement turn (:func:`turn_throw` of the game's ``seed``: random
    where not given).  Not thread-safe.

    >>> g = DiceGame(Rules(stones=3), seed=1)
    >>> g.roll().powered, len(g.legal_moves())
    (False, 24)
    >>> g.play(g.legal_moves()[0]); str(g.position), g.pending is None
    ('W:a7 B: b 2 3', True)
    """

    def __init__(self, rules: Rules, dice: DiceRule = DEFAULT, start: Position | None = None,
                 seed: int | None = None):
        require_dice(rules)
        self.rules, self.dice = rules, dice
        self.seed = random.randrange(2 ** 32) if seed is None else seed
        self.positions = [start if start is not None else Position(0, 0, rules.stones, rules.stones,
                                                                   board=rules.board)]
        self.moves: list[Move] = []
        self.throws: list[Throw] = []       # the throw of each move played
        self.pending: Throw | None = None   # the current turn's, once thrown

    @classmethod
    def replay(cls, rules: Rules, dice: DiceRule, start: Position, moves: list[str],
               seed: int) -> tuple["DiceGame", list[str]]:
        """The game after ``moves`` (texts) from ``start`` as far as the placement phase
        goes, its current turn thrown, and the moves left for the moving phase; a move
        that is not legal after its throw is an IllegalMoveError (or NotationError)
        whose text starts with its number."""
        game = cls(rules, dice, start, seed)
        for number, text in enumerate(moves, 1):
            if not game.in_placement:
                return game, moves[number - 1:]
            game.roll()
            try:
                move = parse_dice_move(game.position, text, rules, dice, game.pending.powered)
            except (IllegalMoveError, NotationError) as error:
                raise type(error)(f"move {number}: {error}") from None
            game.play(move)
        if game.in_placement:
            game.roll()
        return game, []

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def in_placement(self) -> bool:
        """Whether the side to move places (and throws) and the game goes on."""
        return self.position.in_placement and self.position.terminal_wdl(self.rules) is None

    def roll(self, dice: tuple[int, int, int] | None = None) -> Throw:
        """The current turn's throw: of ``dice`` where given and the turn has none yet
        (a game played with real dice, a record read), else the seed's (ValueError
        outside the placement phase, or for dice that are not three of 1 to 6)."""
        if not self.in_placement:
            raise ValueError("the dice are thrown before placements only")
        if self.pending is None:
            self.pending = (throw_of(dice, self.dice) if dice is not None
                            else turn_throw(self.seed, len(self.moves), self.dice))
        elif dice is not None and tuple(dice) != self.pending.dice:
            raise ValueError(f"this turn's dice are thrown already: {self.pending}")
        return self.pending

    def legal_moves(self) -> list[Move]:
        """The moves of the side to move: its placements, and its replacements where
        the current throw gives the power."""
        pos = self.position
        moves = pos.legal_moves(self.rules)
        if self.pending is not None and self.pending.powered:
            moves += replacements(pos, self.rules, self.dice)
        return moves

    def play(self, move: Move) -> None:
        """Play ``move`` (IllegalMoveError where it is not legal after this throw)."""
        if self.in_placement and self.pending is None:
            raise ValueError("throw the dice first (roll)")
        powered = self.pending is not None and self.pending.powered
        self.positions.append(play(self.position, move, self.rules, self.dice, powered))
        self.moves.append(move)
        self.throws.append(self.pending)
        self.pending = None

    def undo(self) -> Move:
        """Take back the last move; its throw stays the turn's throw."""
        if not self.moves:
            raise ValueError("no move to take back")
        self.positions.pop()
        self.pending = self.throws.pop()
        return self.moves.pop()

    def record(self, after: Game | None = None) -> str:
        """The game as a record of dice mill that :func:`read_dice_record` reads back:
        the headers of :meth:`Game.record <solver.game.Game.record>` and ``dice: <rule>``,
        a line a placement with its throw first (``[6-6-6] d1``), then the moves of the
        game after it (``after``, a :class:`~solver.game.Game` from this game's last
        position: the moving phase).

        >>> g = DiceGame(Rules(stones=3), seed=1)
        >>> _ = g.roll((6, 6, 6)); g.play(parse_move("d2"))
        >>> print(g.record(), end="")
        rules: standard-s3
        dice: triple
        [6-6-6] d2
        """
        rest = after if after is not None else Game(self.position, self.rules)
        if rest.start != self.position or rest.quiet_counts[0]:
            raise ValueError("the game after the placement phase starts where it ended, with no quiet plies")
        lines = [] if self.rules == STANDARD else [f"rules: {self.rules.name}"]
        lines.append(f"dice: {self.dice.name}")
        if self.positions[0] != Position(0, 0, self.rules.stones, self.rules.stones, board=self.rules.board):
            lines.append(f"start: {format_position(self.positions[0])}")
        body = rest.record().splitlines()
        headers = ("rules:", "start:", "quiet-limit:")
        lines += [line for line in body if line.startswith("quiet-limit:")]
        lines += [f"[{'-'.join(map(str, t.dice))}] {m}" for t, m in zip(self.throws, self.moves)]
        lines += [line for line in body if not line.startswith(headers)]
        return "\n".join(lines) + "\n"


#: A throw in a record of dice mill: ``[a-b-c]`` before its placement.
_THROW = re.compile(r"\[([1-6])-([1-6])-([1-6])\]")


def is_dice_record(text: str) -> bool:
    """Whether ``text`` is a record of dice mill (muehle's record with a ``dice:``
    header); False for any other text, a record of another form or a malformed one.

    >>> is_dice_record("dice: triple\\n[6-6-6] d2\\n"), is_dice_record("d2 f4\\n")
    (True, False)
    """
    return is_record_of(text, "dice")


def read_dice_record(text: str, rules: Rules | None = None, default: Rules = STANDARD) -> tuple[DiceGame, Game]:
    """A record of dice mill (:meth:`DiceGame.record`; a ``dice:`` header) played: its
    placement phase as a :class:`DiceGame` with the throws written, and the game after
    it (the moving phase, or nothing where the game ended placing) as a
    :class:`~solver.game.Game` from its last position.  ``rules`` and ``default`` as
    :meth:`Game.from_record <solver.game.Game.from_record>` takes them.  Every placement
    needs its throw before it and no other move has one; InvalidNotationError (or the
    move's error) names the line where not.

    >>> g, rest = read_dice_record("rules: standard-s3\\ndice: triple\\n[6-6-6] d2\\n")
    >>> str(g.throws[0]), g.throws[0].powered, str(g.position)
    ('6 6 6', True, 'W:d2 B: b 2 3')
    """
    headers, tokens, resigned = read_record(text)
    if "dice" not in headers:
        raise InvalidNotationError("record: not of dice mill (no dice: header)")
    if "ceylonese" in headers:
        raise InvalidNotationError("record: dice: and ceylonese: both: a game is of dice mill or of Ceylonese "
                                   "mill, not of both")
    if "quiet-plies" in headers:
        raise InvalidNotationError("record: quiet-plies: is for a game taken up in its moving phase, "
                                   "not for dice mill's from its placement")
    try:
        dice = DiceRule.from_name(headers["dice"])
    except ValueError as error:
        raise InvalidNotationError(f"record: dice: {error}") from None
    rules = record_rules(headers["rules"], rules) if "rules" in headers else (rules or default)
    gap = dice_gap(rules)
    if gap is not None:
        raise InvalidNotationError(f"record: {gap}")
    try:
        start = parse_position(headers.get("start", "startpos"), rules)
        start.check_rules(rules)
    except ValueError as error:
        raise InvalidNotationError(f"record: {error}") from None
    if not start.in_placement:
        raise InvalidNotationError("record: dice mill's start has stones in hand (the dice are "
                                   "thrown before placements)")
    game = DiceGame(rules, dice, start, seed=0)
    at = 0
    while at < len(tokens) and game.in_placement:
        number, token = tokens[at]
        found = _THROW.fullmatch(token)
        if found is None and token.startswith("["):
            raise InvalidNotationError(f"line {number}: a throw is three dice of 1 to 6, as [6-6-6], "
                                       f"not {token[:20]!r}")
        if found is None:
            raise InvalidNotationError(f"line {number}: the placement {token[:20]!r} needs its throw "
                                       f"before it, as [6-6-6] {token[:20]}")
        if at + 1 == len(tokens):
            raise InvalidNotationError(f"line {number}: the throw {token} has no move after it")
        game.roll(tuple(int(d) for d in found.groups()))
        number, token = tokens[at + 1]
        try:
            game.play(parse_dice_move(game.position, token, rules, dice, game.pending.powered))
        except NotationError as error:
            raise error.prefixed(f"line {number}: ") from None
        at += 2
    for number, token in tokens[at:]:
        if _THROW.fullmatch(token):
            raise InvalidNotationError(f"line {number}: a throw after the placement phase (the dice "
                                       f"are thrown before placements only)")
    rest = Game.from_parts(RecordText(headers, tokens[at:], resigned), rules, start=game.position)
    return game, rest
