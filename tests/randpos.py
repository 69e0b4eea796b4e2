"""Random positions for cross-checks, biased towards the rules' special cases.

Plain uniform positions rarely show what matters: closed mills, stones protected
in mills, every enemy stone in a mill, three stones that jump, an empty enemy
board.  So stones are built from whole mills, one stone is often nudged out of a
mill (so that a move can close it again), and the stone counts favour 0..3.
"""

from __future__ import annotations

import random

from solver.board import ADJACENT, FULL_MASK, MILLS, points_of
from solver.position import Position, popcount
from solver.rules import Rules

# Stones on the board per side: the small counts hold most special cases
# (jumping, fewer than three, empty board), so they get extra weight.
_COUNTS = list(range(10))
_COUNT_WEIGHTS = [2, 1, 2, 8, 4, 4, 3, 3, 3, 3]

ALL_RULES = [Rules(jumping=j, mill_rule=m) for j in (True, False)
             for m in ("take-any", "take-none")]


def _random_point(rng: random.Random, free: int) -> int:
    return rng.choice(points_of(free))


def _stones(rng: random.Random, count: int, taken: int) -> int:
    """``count`` stones on points outside ``taken``, often made of whole mills."""
    stones = 0
    if rng.random() < 0.6:
        for mill in rng.sample(MILLS, len(MILLS)):
            if popcount(stones | mill) <= count and not mill & taken:
                stones |= mill
            if popcount(stones) >= count - 1 or rng.random() < 0.3:
                break
    while popcount(stones) < count:
        stones |= 1 << _random_point(rng, FULL_MASK & ~(stones | taken))
    if stones and rng.random() < 0.4:
        # Nudge one stone to a free neighbour: often it just left a mill it can re-close.
        p = _random_point(rng, stones)
        free = ADJACENT[p] & ~(stones | taken)
        if free:
            stones = stones & ~(1 << p) | 1 << _random_point(rng, free)
    return stones


def _hand(rng: random.Random, on_board: int) -> int:
    if rng.random() < 0.4 and on_board < 9:
        return rng.randint(1, 9 - on_board)
    return 0


def random_position(rng: random.Random) -> Position:
    """A random position (not necessarily reachable) with at most 9 stones per side."""
    n_own, n_opp = rng.choices(_COUNTS, _COUNT_WEIGHTS, k=2)
    # Build the side not to move first half of the time, so that both colours get
    # the whole-mill shapes without the other side's stones in the way.
    if rng.random() < 0.5:
        opp = _stones(rng, n_opp, 0)
        own = _stones(rng, n_own, opp)
    else:
        own = _stones(rng, n_own, 0)
        opp = _stones(rng, n_opp, own)
    own_hand, opp_hand = _hand(rng, n_own), _hand(rng, n_opp)
    return Position.from_view(own, opp, own_hand, opp_hand, rng.choice("wb"))
