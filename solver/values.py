"""The value of a position, and its encoding as one uint16 per slot.

Values are for the side to move: win, draw or loss (:class:`WDL`, a string enum, so
``json.dumps`` writes ``"win"``), with the plies to the end of the game when the
winner hurries and the loser delays (docs/design.md §3).  A :class:`Value`
holds both; ``plies`` is None for a draw, and where only win/draw/loss is known (the
opening search).

Encoding: 0 draw; 1 + plies when decided (odd plies: win, even: loss);
0xFFFF a slack slot that no position uses.  A value holds what the encoding can mean:
a win in an odd number of plies, a loss in an even one (0: lost already), a draw with
none; a win in 0 is a finished game won for the side to move (one no game reaches,
but whose outcome the rules fix: ``Database.probe`` answers it).  :func:`encode`
refuses what it cannot store (unknown plies, a win in 0, one too long),
:func:`decode` a code outside 0..0xFFFE.

>>> decode(0), decode(1), decode(2), decode(27)
(Value('draw', None), Value('loss', 0), Value('win', 1), Value('loss', 26))
>>> encode(Value(WDL.WIN, 25))
26
>>> Value(WDL.LOSS, 4).for_mover(), WDL.from_score(-1), WDL.WIN.score
(Value('win', 5), 'loss', 1)
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Callable, Optional

import numpy as np

from .errors import integer

DRAW_CODE = 0
SLACK_CODE = 0xFFFF


def _by_score(compare: Callable[[int, int], bool]) -> Callable:
    """A comparison of values of one kind (:class:`WDL`, :class:`RuleWDL`, or their
    words) by score (their str's comparisons would order the words as text)."""
    def method(self, other):
        if not isinstance(other, str) or (isinstance(other, Enum) and not isinstance(other, type(self))):
            return NotImplemented       # (another kind of value: no common scale, a TypeError)
        try:
            score = type(self)(other).score
        except ValueError:
            # (not NotImplemented: str's own comparison would answer, as text)
            raise TypeError(f"a {type(self).__name__} compares with its words, not {str(other)[:20]!r}") from None
        return compare(self.score, score)
    return method


class WDL(StrEnum):
    """Win, draw or loss for the side to move; equal to (and written as) its string,
    ordered as the side to move prefers them (not as strings: a loss is less than a
    draw), as python-chess's WDL numbers are.

    >>> sorted([WDL.WIN, WDL.LOSS, WDL.DRAW]), max(WDL.LOSS, WDL.DRAW)
    (['loss', 'draw', 'win'], 'draw')
    """

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def score(self) -> int:
        """1, 0 or -1: the negamax score (and the opening book's stored byte)."""
        return _SCORE[self]

    @classmethod
    def from_score(cls, score: int) -> "WDL":
        """The value of a negamax score's sign: 1 win, 0 draw, -1 loss (ValueError for a
        score that has none: NaN)."""
        if score != score:
            raise ValueError("a score of NaN has no sign")
        return WIN if score > 0 else LOSS if score < 0 else DRAW

    def __neg__(self) -> "WDL":
        """The same result for the other side."""
        return WDL.from_score(-self.score)

    __lt__ = _by_score(operator.lt)
    __le__ = _by_score(operator.le)
    __gt__ = _by_score(operator.gt)
    __ge__ = _by_score(operator.ge)


WIN, DRAW, LOSS = WDL.WIN, WDL.DRAW, WDL.LOSS
_SCORE = {WIN: 1, DRAW: 0, LOSS: -1}


@functools.total_ordering
@dataclass(frozen=True)
class Value:
    """Game-theoretic value for the side to move, and plies to the end (None: a draw,
    or not known).  ValueError for plies no game has: a win takes an odd number (or 0:
    won already), a loss an even one (0: the side to move has lost already), a draw none.
    Ordered as the side to move prefers them (:attr:`rank`): ``max`` is the best.
    ``wdl`` is the win, draw or loss (``value``: its older name, kept as an alias).

    >>> max(Value("win", 5), Value("win", 3), Value("draw")), Value("loss", 2) < Value("loss", 8)
    (Value('win', 3), True)

    >>> Value("win", 2)
    Traceback (most recent call last):
    ...
    ValueError: a win takes an odd number of plies (0: won already; 1, 3, ...), not 2
    """

    wdl: WDL
    plies: Optional[int] = None

    def __post_init__(self) -> None:
        value = WDL(self.wdl)
        object.__setattr__(self, "wdl", value)
        plies = self.plies
        if plies is None:
            return
        if value == DRAW:
            raise ValueError(f"a draw has no plies to the end, not {plies!r}")
        plies = integer(plies, "plies", "are an integer or None")
        object.__setattr__(self, "plies", plies)
        if value == WIN and (plies < 0 or (plies % 2 == 0 and plies)):
            raise ValueError(f"a win takes an odd number of plies (0: won already; 1, 3, ...), "
                             f"not {plies}")
        if value == LOSS and (plies < 0 or plies % 2):
            raise ValueError(f"a loss takes an even number of plies (0, 2, ...), not {plies}")

    @property
    def value(self) -> WDL:
        """The win, draw or loss: :attr:`wdl` by its older name."""
        return self.wdl

    def __repr__(self) -> str:
        return f"Value({str(self.wdl)!r}, {self.plies!r})"

    def __str__(self) -> str:
        return self.wdl if self.plies is None else f"{self.wdl} in {self.plies}"

    def for_mover(self) -> "Value":
        """The value of a move for the player who makes it, when this is the value of the
        position it leads to (the opponent to move there): win and loss swap, one ply more."""
        if self.wdl == DRAW:
            return Value(DRAW)
        if self.wdl == WIN and self.plies == 0:
            # (won already by the side to move: its opponent's move cannot have made that)
            raise ValueError("no move leads to a position won already by the side to move there "
                             "(Value('win', 0))")
        return Value(-self.wdl, None if self.plies is None else self.plies + 1)

    @property
    def rank(self) -> tuple:
        """Sort key, best first: shortest win, draw, longest loss; a win or loss of
        unknown plies (the opening search's) after those whose plies are known (a win
        in 1 is surely the shortest, and a loss known long the surest defence)."""
        if self.wdl == WIN:
            return (0, math.inf if self.plies is None else self.plies)
        if self.wdl == DRAW:
            return (1, 0)
        return (2, math.inf if self.plies is None else -self.plies)

    def __lt__(self, other):
        if not isinstance(other, Value):
            return NotImplemented
        return self.rank > other.rank          # (worse: later in the order of ranks)


class RuleWDL(StrEnum):
    """A moving-phase position's value under the quiet-ply rule of played games, at a
    fresh count (:mod:`solver.dtz`): win, a *cursed win* (won without the rule, drawn
    with it), draw, a *blessed loss* (lost without it, drawn with it), loss; ordered as
    the side to move prefers them, as python-chess's WDL numbers -2..2.

    >>> sorted([RuleWDL.DRAW, RuleWDL.CURSED_WIN, RuleWDL.LOSS]), RuleWDL.CURSED_WIN.plain
    (['loss', 'draw', 'cursed-win'], 'win')
    """

    WIN = "win"
    CURSED_WIN = "cursed-win"
    DRAW = "draw"
    BLESSED_LOSS = "blessed-loss"
    LOSS = "loss"

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def score(self) -> int:
        """2, 1, 0, -1 or -2, as python-chess numbers them."""
        return _RULE_SCORE[self]

    @property
    def plain(self) -> WDL:
        """The value without the rule: a cursed win is a win, a blessed loss a loss."""
        return WDL.from_score((self.score > 0) - (self.score < 0))

    def __neg__(self) -> "RuleWDL":
        return _RULE_BY_SCORE[-self.score]

    @classmethod
    def from_score(cls, score: int) -> "RuleWDL":
        """The value of a score (:attr:`score`): ``RuleWDL.from_score(1)`` is a cursed win;
        ValueError for a score other than -2..2."""
        try:
            return _RULE_BY_SCORE[integer(score, "a score under the rule", "is -2, -1, 0, 1 or 2")]
        except KeyError:
            raise ValueError(f"a score under the rule is -2, -1, 0, 1 or 2, not {score!r}") from None

    __lt__ = _by_score(operator.lt)
    __le__ = _by_score(operator.le)
    __gt__ = _by_score(operator.gt)
    __ge__ = _by_score(operator.ge)


_RULE_SCORE = {RuleWDL.WIN: 2, RuleWDL.CURSED_WIN: 1, RuleWDL.DRAW: 0, RuleWDL.BLESSED_LOSS: -1,
               RuleWDL.LOSS: -2}
_RULE_BY_SCORE = {v: k for k, v in _RULE_SCORE.items()}


@dataclass(frozen=True)
class RuleValue:
    """A moving-phase position's value under a rule of ``limit`` quiet plies (a played
    game is drawn after that many plies without a mill), with the count at zero:
    ``wdl`` (:class:`RuleWDL`) and ``dtz``, the plies to the next mill (or the end of
    the game: a blocked side has a loss of DTZ 0) when the winner hurries to a mill
    that keeps its win and the loser delays it; None for a draw, and for a position
    with stones in hand, whose count has not started (its value is the one at the count
    0 of the moving phase it leads to).  A cursed win's or blessed loss's DTZ is above
    the limit (docs/design.md §3).

    >>> v = RuleValue("win", 7, 50)
    >>> v.at(43), v.at(44), str(v), str(RuleValue("cursed-win", 63, 50))
    ('win', 'draw', 'win, next mill in 7', 'cursed win (drawn by the 50-ply rule; DTZ 63)')
    """

    wdl: RuleWDL
    dtz: Optional[int]
    limit: int

    def __post_init__(self) -> None:
        wdl = RuleWDL(self.wdl)
        object.__setattr__(self, "wdl", wdl)
        object.__setattr__(self, "limit", integer(self.limit, "the quiet-ply limit", "is a whole number of plies"))
        if wdl == RuleWDL.DRAW:
            if self.dtz is not None:
                raise ValueError(f"a draw has no DTZ, not {self.dtz!r}")
            return
        if self.dtz is None:
            return                          # (a placement position's)
        dtz = integer(self.dtz, "dtz", "is an integer")
        object.__setattr__(self, "dtz", dtz)
        within = dtz <= self.limit
        if dtz < 0 or within != (abs(wdl.score) == 2):
            raise ValueError(f"a {wdl} under a {self.limit}-ply rule has no DTZ {dtz}")

    @classmethod
    def of(cls, plain: WDL, dtz: Optional[int], limit: int) -> "RuleValue":
        """The value of a moving-phase position that is ``plain`` without the rule,
        ``dtz`` plies from its next mill."""
        if plain == DRAW:
            return cls(RuleWDL.DRAW, None, limit)
        if dtz is None:
            raise ValueError(f"a {plain} of the moving phase has a DTZ, not None")
        cursed = dtz > limit
        if plain == WIN:
            return cls(RuleWDL.CURSED_WIN if cursed else RuleWDL.WIN, dtz, limit)
        return cls(RuleWDL.BLESSED_LOSS if cursed else RuleWDL.LOSS, dtz, limit)

    def at(self, quiet_plies: int) -> WDL:
        """The value in a played game that has made ``quiet_plies`` plies without a mill
        (0..limit): a win or loss where its next mill comes within the plies left."""
        rule = f"has made 0..{self.limit} quiet plies"
        quiet_plies = integer(quiet_plies, f"a game under the {self.limit}-ply rule", rule)
        if not 0 <= quiet_plies <= self.limit:
            raise ValueError(f"a game under the {self.limit}-ply rule {rule}, not {quiet_plies!r}")
        if self.wdl == RuleWDL.DRAW or (self.dtz if self.dtz is not None else 0) > self.limit - quiet_plies:
            return DRAW
        return self.wdl.plain if abs(self.wdl.score) == 2 else DRAW

    def __str__(self) -> str:
        if self.wdl == RuleWDL.DRAW:
            return "draw"
        if self.dtz is None:
            return str(self.wdl).replace("-", " ")
        if self.dtz == 0:
            return f"{self.wdl} (the game is over)"
        if abs(self.wdl.score) == 2:
            return f"{self.wdl}, next mill in {self.dtz}"
        return f"{self.wdl.replace('-', ' ')} (drawn by the {self.limit}-ply rule; DTZ {self.dtz})"


def decode(code: int) -> Value:
    """Value of a stored code (0..0xFFFE); ValueError for the slack marker 0xFFFF and
    for what is no code at all."""
    code = integer(code, "a code", "is an integer")
    if code == SLACK_CODE:
        raise ValueError("slack slot: no position is stored here")
    if not 0 <= code < SLACK_CODE:
        raise ValueError(f"codes are 0..{SLACK_CODE - 1:#x}, not {code}")
    if code == DRAW_CODE:
        return Value(DRAW)
    plies = code - 1
    return Value(WIN if plies % 2 else LOSS, plies)


def encode(v: Value) -> int:
    """The stored code of ``v``; ValueError for what no code holds: a win or loss of
    unknown plies, a win in 0 (the shortest win a code holds is 1), or one longer
    than the codes reach (0xFFFD plies).

    >>> encode(Value("loss", 0)), encode(Value("draw"))
    (1, 0)
    """
    if not isinstance(v, Value):
        raise TypeError(f"encode takes a Value, not {type(v).__name__}")
    if v.wdl == DRAW:
        return DRAW_CODE
    if v.plies is None:
        raise ValueError(f"{v}: a {v.wdl} of unknown plies has no code")
    if v.wdl == WIN and v.plies == 0:
        raise ValueError(f"{v}: no code holds a win in 0 (the shortest is a win in 1)")
    if v.plies + 1 >= SLACK_CODE:
        raise ValueError(f"{v}: longer than the codes reach ({SLACK_CODE - 2} plies)")
    return v.plies + 1


def summarize(hist: np.ndarray, quiet_limit: int | None = None) -> dict:
    """Counts of wins, losses and draws and the longest win and loss, over real slots,
    from ``hist``: how many slots hold each of the 65536 codes (the kernels'
    ``code_histogram``, or ``np.bincount(codes, minlength=0x10000)``).  With
    ``quiet_limit`` the codes are DTZ codes under that rule (:mod:`solver.dtz`: 2·DTZ
    a win, 2·DTZ + 1 a loss): the longest are in plies to the next mill, and the wins
    and losses the rule draws (cursed, blessed) are counted too.

    >>> codes = np.array([0, 2, 3, 3, 6, SLACK_CODE], dtype=np.uint16)
    >>> summarize(np.bincount(codes, minlength=0x10000))
    {'wins': 2, 'losses': 2, 'draws': 1, 'longest_win': 5, 'longest_loss': 2}
    >>> summarize(np.bincount(codes, minlength=0x10000), quiet_limit=2)
    {'wins': 2, 'losses': 2, 'draws': 1, 'longest_win': 3, 'longest_loss': 1, 'cursed_wins': 1, 'blessed_losses': 0}
    """
    hist = np.asarray(hist)
    if hist.shape != (0x10000,):
        raise ValueError(f"a histogram of codes has 65536 counts, not {hist.shape}")
    # code = plies + 1: wins at the even codes 2.., losses at the odd codes 1.., both
    # short of the slack code (the last, odd); slices, since every write summarizes
    wins, losses = hist[2:SLACK_CODE:2], hist[1:SLACK_CODE:2]
    longest = lambda counts, first: (first - 1 + 2 * int(np.flatnonzero(counts)[-1])
                                     if counts.any() else 0)
    info = {"wins": int(wins.sum()), "losses": int(losses.sum()), "draws": int(hist[DRAW_CODE]),
            "longest_win": longest(wins, 2), "longest_loss": longest(losses, 1)}
    if quiet_limit is not None:
        # DTZ codes: a win's code is 2 * DTZ, a loss's 2 * DTZ + 1 (the same parities)
        info["longest_win"] = (info["longest_win"] + 1) // 2
        info["longest_loss"] = info["longest_loss"] // 2
        beyond = 2 * (quiet_limit + 1)          # the code of a win of DTZ limit + 1
        info["cursed_wins"] = int(hist[beyond:SLACK_CODE:2].sum())
        info["blessed_losses"] = int(hist[beyond + 1:SLACK_CODE:2].sum())
    return info
