"""The value of a position, and its encoding as one uint16 per slot.

Values are for the side to move: win, draw or loss (:class:`WDL`, a string enum, so
``json.dumps`` writes ``"win"``), with the plies to the end of the game when the
winner hurries and the loser delays (docs/design.md §3).  A :class:`Value`
holds both; ``plies`` is None for a draw, and where only win/draw/loss is known (the
opening search).

Encoding: 0 draw; 1 + plies when decided (odd plies: win, even: loss);
0xFFFF a slack slot that no position uses.

>>> decode(0), decode(1), decode(2), decode(27)
(Value('draw', None), Value('loss', 0), Value('win', 1), Value('loss', 26))
>>> encode(Value(WDL.WIN, 25))
26
>>> Value(WDL.LOSS, 4).for_mover(), WDL.from_score(-1), WDL.WIN.score
(Value('win', 5), 'loss', 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Optional

import numpy as np

DRAW_CODE = 0
SLACK_CODE = 0xFFFF


class WDL(StrEnum):
    """Win, draw or loss for the side to move; equal to (and written as) its string."""

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
        """The value of a negamax score's sign: 1 win, 0 draw, -1 loss."""
        return WIN if score > 0 else LOSS if score < 0 else DRAW

    def __neg__(self) -> "WDL":
        """The same result for the other side."""
        return WDL.from_score(-self.score)


WIN, DRAW, LOSS = WDL.WIN, WDL.DRAW, WDL.LOSS
_SCORE = {WIN: 1, DRAW: 0, LOSS: -1}


@dataclass(frozen=True)
class Value:
    """Game-theoretic value for the side to move, and plies to the end (None: a draw,
    or not known)."""

    value: WDL
    plies: Optional[int] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", WDL(self.value))

    def __repr__(self) -> str:
        return f"Value({str(self.value)!r}, {self.plies!r})"

    def __str__(self) -> str:
        return self.value if self.plies is None else f"{self.value} in {self.plies}"

    def for_mover(self) -> "Value":
        """The value of a move for the player who makes it, when this is the value of the
        position it leads to (the opponent to move there): win and loss swap, one ply more."""
        if self.value == DRAW:
            return Value(DRAW)
        return Value(-self.value, None if self.plies is None else self.plies + 1)

    @property
    def rank(self) -> tuple:
        """Sort key, best first: shortest win, draw, longest loss (unknown plies: 0)."""
        if self.value == WIN:
            return (0, self.plies or 0)
        if self.value == DRAW:
            return (1, 0)
        return (2, -(self.plies or 0))


def decode(code: int) -> Value:
    """Value of a stored code; ValueError for the slack marker."""
    code = int(code)
    if code == SLACK_CODE:
        raise ValueError("slack slot: no position is stored here")
    if code == DRAW_CODE:
        return Value(DRAW)
    plies = code - 1
    return Value(WIN if plies % 2 else LOSS, plies)


def encode(v: Value) -> int:
    if v.value == DRAW:
        return DRAW_CODE
    if (v.plies % 2 == 1) != (v.value == WIN):
        raise ValueError(f"{v}: wins take an odd number of plies, losses an even one")
    return v.plies + 1


def summarize(hist: np.ndarray) -> dict:
    """Counts of wins, losses and draws and the longest win and loss, over real slots,
    from ``hist``: how many slots hold each of the 65536 codes (the kernels'
    ``code_histogram``, or ``np.bincount(codes, minlength=0x10000)``).

    >>> codes = np.array([0, 2, 3, 3, 6, SLACK_CODE], dtype=np.uint16)
    >>> summarize(np.bincount(codes, minlength=0x10000))
    {'wins': 2, 'losses': 2, 'draws': 1, 'longest_win': 5, 'longest_loss': 2}
    """
    hist = np.asarray(hist)
    if hist.shape != (0x10000,):
        raise ValueError(f"a histogram of codes has 65536 counts, not {hist.shape}")
    # code = plies + 1: wins at the even codes 2.., losses at the odd codes 1.., both
    # short of the slack code (the last, odd); slices, since every write summarizes
    wins, losses = hist[2:SLACK_CODE:2], hist[1:SLACK_CODE:2]
    longest = lambda counts, first: (first - 1 + 2 * int(np.flatnonzero(counts)[-1])
                                     if counts.any() else 0)
    return {"wins": int(wins.sum()), "losses": int(losses.sum()), "draws": int(hist[DRAW_CODE]),
            "longest_win": longest(wins, 2), "longest_loss": longest(losses, 1)}
