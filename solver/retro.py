"""Retrograde analysis of the moving phase, one pair {m-o, o-m} at a time.

A pair is solved from its own positions and the already solved subspaces that its
captures lead into (DESIGN.md sections 3-4).  The hot loops are the Cython kernels
``retro_init``, ``retro_round`` and ``retro_finish`` in ``ext/retro.pxi``.

>>> from solver.rules import Rules
>>> pairs_in_order(Rules(stones=4))
[(3, 3), (3, 4), (4, 4)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import _kernels
from .rules import Rules
from .values import subspace_name

#: Reads a solved subspace's values by (side to move stones, opponent stones).
Lookup = Callable[[int, int], np.ndarray]


def pairs_in_order(rules: Rules) -> list[tuple[int, int]]:
    """Every moving-phase pair (m <= o) in an order where captures lead to earlier pairs."""
    n = rules.stones
    pairs = [(m, o) for m in range(3, n + 1) for o in range(m, n + 1)]
    return sorted(pairs, key=lambda p: (p[0] + p[1], p[0]))


def pair_subspaces(pair: tuple[int, int]) -> list[tuple[int, int]]:
    """The subspaces of a pair: m-o and o-m (one if m == o)."""
    m, o = pair
    return [(m, o)] if m == o else [(m, o), (o, m)]


def capture_subspace(m: int, o: int) -> tuple[int, int] | None:
    """Where captures from m-o lead: (o-1)-m, or None when they end the game."""
    return (o - 1, m) if o - 1 >= 3 else None


def pair_of(m: int, o: int) -> tuple[int, int]:
    return (min(m, o), max(m, o))


def dependencies(pair: tuple[int, int]) -> list[tuple[int, int]]:
    """The pairs whose subspaces the captures of ``pair`` lead into."""
    deps = []
    for m, o in pair_subspaces(pair):
        sub = capture_subspace(m, o)
        if sub is not None and pair_of(*sub) not in deps:
            deps.append(pair_of(*sub))
    return deps


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

    values: dict[tuple[int, int], np.ndarray]
    rounds: int
    seconds: float


def solve_pair(pair: tuple[int, int], rules: Rules, lookup: Lookup, jobs: int = 2,
               progress: Callable[[str], None] | None = None) -> PairResult:
    """Solve both subspaces of ``pair``; ``lookup`` supplies solved capture targets."""
    start = time.perf_counter()
    subs = pair_subspaces(pair)
    val = {s: np.empty(_kernels.subspace_slots(*s), dtype=np.uint16) for s in subs}
    cnt = {s: np.empty(_kernels.subspace_slots(*s), dtype=np.uint8) for s in subs}
    empty = np.zeros(0, dtype=np.uint16)
    maxd = 0
    for m, o in subs:
        target = capture_subspace(m, o)
        cap = np.ascontiguousarray(lookup(*target), dtype=np.uint16) if target else empty
        if progress:
            progress(f"init {subspace_name(m, o)}")
        maxd = max(maxd, _kernels.retro_init(m, o, val[m, o], cnt[m, o], cap,
                                             rules.jumping, rules.take_none, jobs))
    d = 0
    while d <= maxd:
        decided = 0
        for m, o in subs:
            for frontier in _frontier(val[m, o], d):
                decided += _kernels.retro_round(m, o, frontier, val[o, m], cnt[o, m], d,
                                                rules.jumping, rules.take_none, jobs)
        if decided:
            maxd = max(maxd, d + 1)
        if progress:
            progress(f"round {d}: {decided} decided")
        d += 1
    for s in subs:
        _kernels.retro_finish(val[s])
    return PairResult(values=val, rounds=d, seconds=time.perf_counter() - start)
