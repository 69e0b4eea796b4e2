"""The stored value of a position, and its encoding as one uint16 per slot.

Values are for the side to move: win, loss or draw, with the plies to the end of
the game when the winner hurries and the loser delays (DESIGN.md section 3).
Encoding: 0 draw; 1 + plies when decided (odd plies: win, even: loss);
0xFFFF a slack slot that no position uses.

>>> decode(0), decode(1), decode(2), decode(27)
(Value('draw', None), Value('loss', 0), Value('win', 1), Value('loss', 26))
>>> encode(Value("win", 25))
26
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

WIN, LOSS, DRAW = "win", "loss", "draw"
DRAW_CODE = 0
SLACK_CODE = 0xFFFF
SUMMARY_BLOCK = 1 << 24


@dataclass(frozen=True)
class Value:
    """Game-theoretic value for the side to move; ``plies`` is None for a draw."""

    value: str
    plies: Optional[int] = None

    def __repr__(self) -> str:
        return f"Value({self.value!r}, {self.plies!r})"

    def __str__(self) -> str:
        return self.value if self.plies is None else f"{self.value} in {self.plies}"


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


def subspace_name(m: int, o: int) -> str:
    """Name of a moving-phase subspace: stones of the side to move, then the opponent's."""
    return f"{m}-{o}"


def summarize(codes: np.ndarray) -> dict:
    """Counts of wins, losses and draws and the longest win and loss, over real slots."""
    # bincount widens its input to 64-bit integers: count in blocks so that a
    # subspace of half a billion slots does not take 4 GB more for a moment
    hist = np.zeros(0x10000, dtype=np.int64)
    for start in range(0, len(codes), SUMMARY_BLOCK):
        hist += np.bincount(codes[start:start + SUMMARY_BLOCK], minlength=0x10000)
    plies = np.arange(0x10000) - 1
    real = np.ones(0x10000, dtype=bool)
    real[SLACK_CODE] = False
    win = real & (plies % 2 == 1) & (plies >= 0)
    loss = real & (plies % 2 == 0) & (plies >= 0)
    wins, losses = int(hist[win].sum()), int(hist[loss].sum())
    longest = lambda sel: int(plies[sel & (hist > 0)].max()) if (hist[sel] > 0).any() else 0
    return {"wins": wins, "losses": losses, "draws": int(hist[DRAW_CODE]),
            "longest_win": longest(win), "longest_loss": longest(loss)}
