"""Compact win/draw/loss views of moving-phase subspaces: 2 bits a slot, 4 slots a byte.

The opening search needs only win, draw or loss at its leaves, so it reads these
instead of the uint16 codes: all 49 subspaces of the standard game (9.2e9 slots) take
2.3 GB.  Slot s sits in bits 2*(s % 4) of byte s // 4: 0 draw, 1 win, 2 loss (for the
side to move), 3 slack.

>>> import numpy as np
>>> view = pack(np.array([0, 1, 2, 0xFFFF, 27], dtype=np.uint16))
>>> [value_at(view, s) for s in range(5)]
['draw', 'loss', 'win', None, 'loss']
>>> view.nbytes
2
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels import kernels_for
from .values import DRAW, LOSS, WDL, WIN

DRAW_BITS, WIN_BITS, LOSS_BITS, SLACK_BITS = 0, 1, 2, 3
_NAMES = {DRAW_BITS: DRAW, WIN_BITS: WIN, LOSS_BITS: LOSS, SLACK_BITS: None}


def packed_size(slots: int) -> int:
    """Bytes of the view of a subspace with this many slots."""
    return (slots + 3) // 4


def pack(codes: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The 2-bit view of an array of value codes (a nogil kernel)."""
    codes = np.ascontiguousarray(codes, dtype=np.uint16)
    if out is None:
        out = np.empty(packed_size(len(codes)), dtype=np.uint8)
    kernels_for().pack_wdl(codes, out)       # the same code in every board's kernels
    return out


def value_at(view: np.ndarray, slot: int) -> Optional[WDL]:
    """Win, draw or loss at a slot of a view (None for a slack slot)."""
    return _NAMES[kernels_for().wdl_at(view, slot)]
