"""The placement phase: exact search from any position with stones in hand, and an
independent backward pass over all placement positions for smaller games.

The search is alpha-beta over win/draw/loss (the leaves are moving-phase positions,
read from the databases), with a transposition table keyed by the symmetry-reduced
placement position and move ordering that closes mills first, then takes the
best-connected points.

>>> from solver.rules import Rules
>>> placement_subspaces(Rules(stones=3))[:3]
[(0, 3, 1, 0), (1, 3, 1, 0), (2, 3, 1, 0)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import _kernels
from .board import ADJACENT
from .position import DRAW, LOSS, WIN, Position, popcount
from .rules import Rules
from .values import decode

NO_POINT = 31
# Points with more neighbours first: they make and block more mills.
_DEGREE = [bin(ADJACENT[p]).count("1") for p in range(24)]

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
    """Outcome of an opening search: value for the side to move, effort spent."""

    value: str
    nodes: int
    seconds: float


class OpeningSearch:
    """Alpha-beta over the placement phase, with moving-phase databases at the leaves."""

    def __init__(self, rules: Rules, moving: MovingLookup):
        self.rules = rules
        self.moving = moving
        self.table: dict[tuple, tuple[int, int]] = {}   # key -> (lower, upper) bound
        self.nodes = 0

    def leaf(self, own: int, opp: int) -> int:
        """Win (1), draw (0) or loss (-1) of a moving-phase position, side to move own."""
        m, o = popcount(own), popcount(opp)
        if m < 3:
            return -1
        code = int(self.moving(m, o)[_kernels.index_position(m, o, own, opp)])
        v = decode(code)
        return 0 if v.value == DRAW else (1 if v.value == WIN else -1)

    def ordered_moves(self, own: int, opp: int, hm: int, ho: int) -> list[int]:
        moves = _kernels.moves_packed(own, opp, hm, ho, self.rules.jumping, self.rules.take_none)
        return sorted(moves, key=lambda mv: (((mv >> 10) & 31) == NO_POINT, -_DEGREE[mv & 31]))

    def negamax(self, own: int, opp: int, hm: int, ho: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if hm == 0 and ho == 0:
            return self.leaf(own, opp)
        m, o = popcount(own), popcount(opp)
        key = (m, o, hm, ho, _kernels.index_position(m, o, own, opp))
        lower, upper = self.table.get(key, (-1, 1))
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        moves = self.ordered_moves(own, opp, hm, ho)
        best = -1
        a = alpha
        for mv in moves:
            target, take = mv & 31, (mv >> 10) & 31
            own2 = own | 1 << target
            if take != NO_POINT:
                opp2 = opp & ~(1 << take)
                if popcount(opp2) + ho < 3:
                    value = 1
                else:
                    value = -self.negamax(opp2, own2, ho, hm - 1, -beta, -a)
            else:
                value = -self.negamax(opp, own2, ho, hm - 1, -beta, -a)
            if value > best:
                best = value
                a = max(a, value)
                if best >= beta:
                    break
        # Store what was proven: fail-high gives a lower bound, fail-low an upper one.
        if best >= beta:
            lower = max(lower, best)
        elif best <= alpha:
            upper = min(upper, best)
        else:
            lower = upper = best
        self.table[key] = (lower, upper)
        return best

    def solve(self, position: Position) -> SearchResult:
        """Exact value of a placement position for the side to move."""
        start = time.perf_counter()
        self.nodes = 0
        if position.own_hand == 0 and position.opp_hand > 0:
            raise ValueError("positions where only the side not to move has stones in hand "
                             "do not arise in the game and are not supported")
        outcome = position.outcome(self.rules)
        if outcome is not None:
            value = {WIN: 1, LOSS: -1}[outcome]
        else:
            value = self.negamax(position.own, position.opp, position.own_hand,
                                 position.opp_hand, -1, 1)
        name = {1: WIN, 0: DRAW, -1: LOSS}[value]
        return SearchResult(name, self.nodes, time.perf_counter() - start)
