"""Retrograde analysis of the moving phase, one pair {m-o, o-m} at a time.

A pair is solved from its own positions and the already solved subspaces that its
captures lead into (docs/design.md §3-4).  The hot loops are the Cython kernels
``retro_init``, ``retro_round`` and ``retro_finish`` in ``ext/retro.pxi``.

>>> from solver.rules import Rules
>>> pairs_in_order(Rules(stones=4))
[Pair(3, 3), Pair(3, 4), Pair(4, 4)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import _kernels
from .index import Pair, Subspace
from .rules import Rules, require_kernels

#: Reads a solved moving-phase subspace's values, called as ``lookup(*subspace)`` (m, o).
Lookup = Callable[[int, int], np.ndarray]


def pairs_in_order(rules: Rules) -> list[Pair]:
    """Every moving-phase pair in an order where captures lead to earlier pairs."""
    return [Pair(m, o) for m, o in pair_order(rules.stones)]


def pair_order(stones: int) -> list[tuple[int, int]]:
    """The pairs (m, o), m <= o, of ``stones`` a side as plain tuples, in the order of
    :func:`pairs_in_order` (any stone count: plans of rules beyond the index use it).

    >>> pair_order(4)
    [(3, 3), (3, 4), (4, 4)]
    """
    pairs = [(m, o) for m in range(3, stones + 1) for o in range(m, stones + 1)]
    return sorted(pairs, key=lambda p: (p[0] + p[1], p[0]))


SCAN_BLOCK = 1 << 26


def _frontier(codes: np.ndarray, d: int):
    """Slots decided with plies d (code d + 1), in blocks to bound the temporary memory."""
    for start in range(0, len(codes), SCAN_BLOCK):
        found = np.flatnonzero(codes[start:start + SCAN_BLOCK] == d + 1)
        if len(found):
            yield found + start if start else found


@dataclass
class PairResult:
    """The solved values of a pair and how the solve went."""

    values: dict[Subspace, np.ndarray]
    rounds: int
    seconds: float


def solve_pair(pair: tuple[int, int], rules: Rules, lookup: Lookup, jobs: int = 2,
               progress: Callable[[str], None] | None = None) -> PairResult:
    """Solve both subspaces of ``pair``; ``lookup(*target)`` (a subspace's m and o)
    supplies the solved subspaces its captures lead into."""
    require_kernels(rules)
    start = time.perf_counter()
    subs = Pair(*pair).subspaces
    val = {s: np.empty(s.slots, dtype=np.uint16) for s in subs}
    cnt = {s: np.empty(s.slots, dtype=np.uint8) for s in subs}
    empty = np.zeros(0, dtype=np.uint16)
    maxd = 0
    for s in subs:
        target = s.capture_child
        cap = np.ascontiguousarray(lookup(*target), dtype=np.uint16) if target else empty
        if progress:
            progress(f"init {s}")
        maxd = max(maxd, _kernels.retro_init(s.m, s.o, val[s], cnt[s], cap,
                                             rules.jumping, rules.take_none, jobs))
    d = 0
    while d <= maxd:
        decided = 0
        for s in subs:
            child = s.quiet_child
            for frontier in _frontier(val[s], d):
                decided += _kernels.retro_round(s.m, s.o, frontier, val[child], cnt[child], d,
                                                rules.jumping, rules.take_none, jobs)
        if decided:
            maxd = max(maxd, d + 1)
        if progress:
            progress(f"round {d}: {decided} decided")
        d += 1
    for s in subs:
        _kernels.retro_finish(val[s])
    return PairResult(values=val, rounds=d, seconds=time.perf_counter() - start)
