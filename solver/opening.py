"""The placement phase: exact search from any position with stones in hand, and an
independent backward pass over all placement positions for smaller games.

The search is compiled alpha-beta over win/draw/loss (the leaves are moving-phase
positions, read from 2-bit views of the databases), with a fixed-size transposition
table keyed by the symmetry-reduced placement position and move ordering that tries the
table's best move first, then moves that close mills, then the best-connected points.

>>> from solver.rules import Rules
>>> placement_subspaces(Rules(stones=3))[:3]
[(0, 0, 1, 0), (0, 1, 1, 0), (0, 2, 1, 0)]
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import _kernels
from . import wdl as _wdl
from .position import DRAW, LOSS, WIN, Position
from .rules import Rules

Subspace = tuple[int, int, int, int]
#: Reads a solved moving-phase subspace's codes by (m, o).
MovingLookup = Callable[[int, int], np.ndarray]


def placement_subspaces(rules: Rules) -> list[Subspace]:
    """Every placement subspace (m, o, hm, ho) of a game, children before parents.

    The side to move places (hm >= 1) and, as White places first, has as many stones
    in hand as the opponent or one more.  Boards hold at most the stones placed.
    """
    n = rules.stones
    subs = []
    for hm in range(1, n + 1):
        for ho in (hm - 1, hm):
            for m in range(0, n - hm + 1):
                for o in range(0, n - ho + 1):
                    if o + ho >= 3:           # else the game already ended
                        subs.append((m, o, hm, ho))
    return sorted(subs, key=lambda s: (s[2] + s[3], s))


def _child_subspaces(sub: Subspace) -> tuple[tuple, Optional[tuple]]:
    m, o, hm, ho = sub
    quiet = (o, m + 1, ho, hm - 1)
    capture = (o - 1, m + 1, ho, hm - 1) if o >= 1 and o - 1 + ho >= 3 else None
    return quiet, capture


def solve_placement(rules: Rules, moving: MovingLookup, jobs: int = 2,
                    progress: Callable[[Subspace], None] | None = None) -> dict[Subspace, np.ndarray]:
    """Values (codes, as in the databases) of every placement position, by one backward pass.

    Feasible for smaller games (stones <= 6 or so); the standard game uses the search.
    """
    empty = np.zeros(0, dtype=np.uint16)
    values: dict[Subspace, np.ndarray] = {}

    def codes(key) -> np.ndarray:
        if key is None:
            return empty
        m, o, hm, ho = key
        if m + hm < 3 or o + ho < 3:
            return empty          # someone has fewer than three stones: never looked up
        if hm == 0 and ho == 0:
            return moving(m, o)
        return values[key]

    for sub in placement_subspaces(rules):
        m, o, hm, ho = sub
        if progress:
            progress(sub)
        out = np.empty(_kernels.subspace_slots(m, o), dtype=np.uint16)
        quiet, capture = _child_subspaces(sub)
        _kernels.placement_values(m, o, hm, ho, out, codes(quiet), codes(capture),
                                  rules.jumping, rules.take_none, jobs)
        values[sub] = out
    return values


@dataclass(frozen=True)
class SearchResult:
    """Outcome of an opening search: value for the side to move, effort spent.

    ``seconds`` includes ``load_seconds``, the time spent loading leaf views.
    """

    value: str
    nodes: int
    seconds: float
    load_seconds: float = 0.0


class OpeningSearch:
    """Alpha-beta over the placement phase, with moving-phase databases at the leaves.

    The search runs in the compiled kernel (``ext/search.pxi``): negamax over
    win/draw/loss with a fixed-size transposition table of ``2**table_bits`` entries
    (8 bytes each; kept across calls of :meth:`solve`).  Leaves are read from 2-bit
    views (:mod:`solver.wdl`), loaded the first time the search reaches a subspace:
    ``wdl(m, o)`` gives the view, or by default it is packed from ``moving(m, o)``.
    """

    def __init__(self, rules: Rules, moving: Optional[MovingLookup] = None, *,
                 wdl: Optional[Callable[[int, int], np.ndarray]] = None, table_bits: int = 24):
        if moving is None and wdl is None:
            raise ValueError("give the moving-phase codes (moving) or their views (wdl)")
        self.rules = rules
        self._view = wdl if wdl is not None else (lambda m, o: _wdl.pack(moving(m, o)))
        self.engine = _kernels.SearchEngine(table_bits, rules.jumping, rules.take_none)
        self._lock = threading.Lock()

    @property
    def memory_bytes(self) -> int:
        """Bytes held: transposition table plus the leaf views loaded so far."""
        return self.engine.table_bytes + self.engine.view_bytes

    def solve(self, position: Position) -> SearchResult:
        """Exact value of a placement position for the side to move."""
        if position.own_hand == 0 and position.opp_hand > 0:
            raise ValueError("positions where only the side not to move has stones in hand "
                             "do not arise in the game and are not supported")
        with self._lock:
            start = time.perf_counter()
            nodes0 = self.engine.nodes
            loading = 0.0
            outcome = position.outcome(self.rules)
            if outcome is not None:
                value = {WIN: 1, LOSS: -1}[outcome]
            else:
                while True:
                    value, need = self.engine.run(position.own, position.opp,
                                                  position.own_hand, position.opp_hand)
                    if need is None:
                        break
                    t = time.perf_counter()
                    self.engine.set_view(*need, self._view(*need))
                    loading += time.perf_counter() - t
            name = {1: WIN, 0: DRAW, -1: LOSS}[value]
            return SearchResult(name, self.engine.nodes - nodes0,
                                time.perf_counter() - start, loading)
