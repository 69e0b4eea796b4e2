"""The placement phase as databases: which subspaces, their children, one backward pass each.

A placement subspace ``m-o+h-k`` holds the positions with m stones of the side to move
and o of the opponent on the board, h and k in hand (h >= 1: the side to move places).
Every ply places a stone, so the phase is acyclic: a subspace's values follow from its
children's by one pass, children first, down to the moving phase (h = k = 0).

- quiet child: ``o-(m+1)+k-(h-1)``; capture child: ``(o-1)-(m+1)+k-(h-1)``, or none when
  the capture leaves the opponent with fewer than three stones (board plus hand): a win.
- From the start only k = h (White to move) and k = h - 1 (Black to move) arise.
- Every board with at most the stones placed is included (m <= n - h, o <= n - k),
  whether or not a game reaches it: the index stays the moving phase's; the counts say so.
  Left out: subspaces where a side has fewer than three stones (board plus hand), the
  game is over there.

The values are the moving phase's codes (:mod:`solver.values`): plies count every
placement and move to the end, continuous with the moving phase (docs/design.md §8).

>>> from solver.rules import Rules
>>> [s.name for s in plan(Rules(stones=3))]
['2-3+1-0', '2-2+1-1', '1-2+2-1', '1-1+2-2', '0-1+3-2', '0-0+3-3']
>>> children(Subspace(3, 2, 1, 0))
(Subspace(2, 4), None)
"""

from __future__ import annotations

import math
import random
from typing import Callable, Optional

import numpy as np

from .index import Subspace
from .position import Position, parse_position
from .rules import Rules
from .values import SLACK_CODE

#: Reads a stored subspace's codes (moving or placement): the children of a pass.
Lookup = Callable[[Subspace], np.ndarray]
#: Slots (a check) or about as many positions (a pass) per kernel call: the progress bar
#: moves and a check stops early at this grain.
BLOCK = 1 << 22
EMPTY = np.zeros(0, dtype=np.uint16)


def is_placement(sub: Subspace, rules: Rules) -> bool:
    """Whether ``sub`` is one of the placement subspaces of ``rules`` (in :func:`plan`)."""
    return _fits(rules.stones, sub.m, sub.o, sub.own_hand, sub.opp_hand)


def _fits(n: int, m: int, o: int, h: int, k: int) -> bool:
    return (1 <= h <= n and k in (h, h - 1) and m <= n - h and o <= n - k
            and m + h >= 3 and o + k >= 3)


def plan(rules: Rules, max_total: Optional[int] = None) -> list[Subspace]:
    """The placement subspaces of ``rules``, children before parents.

    Ordered by stones in hand (one hand level at a time), then by m and o: consecutive
    subspaces share a child, so a build reads each child about once.  ``max_total``:
    only subspaces with at most that many stones on the board and in hand together
    (their children have no more, so the moving pairs up to that total suffice).
    """
    return [Subspace(*shape, board=rules.board) for shape in shapes(rules.stones, max_total)]


def shapes(stones: int, max_total: Optional[int] = None) -> list[tuple[int, int, int, int]]:
    """The placement subspaces of :func:`plan` for ``stones`` a side as plain
    ``(m, o, h, k)`` tuples, in its order (any stone count: plans of rules beyond the
    index use it)."""
    n, out = stones, []
    for level in range(1, 2 * n + 1):
        h, k = (level + 1) // 2, level // 2
        for m in range(0, n - h + 1):
            for o in range(0, n - k + 1):
                if _fits(n, m, o, h, k) and (max_total is None or m + o + h + k <= max_total):
                    out.append((m, o, h, k))
    return out


def children(sub: Subspace) -> tuple[Subspace, Optional[Subspace]]:
    """(quiet child, capture child or None when a capture wins at once) of a placement subspace."""
    return sub.quiet_child, sub.capture_child


def memory_needed(sub: Subspace) -> int:
    """Bytes the pass over ``sub`` holds: its values, its children's, and the write's re-read."""
    return pass_memory(sub.slots, [c.slots for c in children(sub) if c is not None])


def pass_memory(slots: int, reads: list[int]) -> int:
    """Bytes a placement pass holds for a subspace of ``slots`` slots whose children have
    ``reads`` slots: 2 bytes a slot of its values and of its children's, and the
    write's re-read of its own (docs/design.md §8)."""
    return 2 * (2 * slots + sum(reads))


def solve(sub: Subspace, rules: Rules, lookup: Lookup, jobs: int = 2,
          progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The codes of every slot of placement subspace ``sub`` from its children's.

    ``lookup`` gives a child's codes; ``progress(slots)`` is called after each block
    (the calls add up to ``sub.slots``).
    """
    values = np.full(sub.slots, SLACK_CODE, dtype=np.uint16)   # the pass skips slack slots
    quiet, cap = _child_codes(sub, lookup)
    # the pass goes by the opponent's representative sets (docs/design.md §8), in ranges
    reps = sub.kernels.orbit_count(sub.o)
    step = max(1, BLOCK // math.comb(sub.board.num_points - sub.o, sub.m))   # positions a rep set holds
    done = 0
    for start in range(0, reps, step):
        stop = min(reps, start + step)
        sub.kernels.placement_solve(sub.m, sub.o, sub.own_hand, sub.opp_hand, values, quiet, cap,
                                 rules.jumping, rules.take_none, start, stop, jobs)
        if progress:
            now = sub.slots * stop // reps
            progress(now - done)
            done = now
    return values


def check(sub: Subspace, rules: Rules, values: np.ndarray, lookup: Lookup, jobs: int = 2,
          progress: Callable[[int], None] | None = None, max_bad: int = 16) -> list[int]:
    """Forward check: the slots of ``values`` (stored codes of ``sub``) that differ from
    what their children's stored codes give (at most ``max_bad``)."""
    if len(values) != sub.slots:
        raise ValueError(f"{sub.name}: {len(values)} values for {sub.slots} slots")
    values = np.ascontiguousarray(values, dtype=np.uint16)
    quiet, cap = _child_codes(sub, lookup)
    bad: list[int] = []
    for start in range(0, sub.slots, BLOCK):
        stop = min(sub.slots, start + BLOCK)
        slots, _ = sub.kernels.placement_pass(sub.m, sub.o, sub.own_hand, sub.opp_hand, values,
                                           quiet, cap, rules.jumping, rules.take_none,
                                           start, stop, True, max_bad, jobs)
        bad += [int(s) for s in slots]
        if progress:
            progress(stop - start)
        if len(bad) >= max_bad:
            break
    return bad[:max_bad]


def _child_codes(sub: Subspace, lookup: Lookup) -> tuple[np.ndarray, np.ndarray]:
    quiet, capture = children(sub)
    q = np.ascontiguousarray(lookup(quiet), dtype=np.uint16)
    c = np.ascontiguousarray(lookup(capture), dtype=np.uint16) if capture else EMPTY
    return q, c


def random_positions(rules: Rules, count: int, seed: int,
                     plies: tuple[int, int] | None = None) -> list[Position]:
    """``count`` placement positions (stones in hand, game not over) from random legal
    games: each plays a number of placements drawn from ``plies`` (inclusive; default
    0 .. 2n - 1) from the start, stopping early where the placement phase ends.

    >>> len(random_positions(Rules(stones=4), 5, seed=1))
    5
    """
    low, high = plies if plies is not None else (0, 2 * rules.stones - 1)
    rng, out = random.Random(seed), []
    start = parse_position("startpos", rules)
    while len(out) < count:
        pos = start
        for _ in range(rng.randint(low, high)):
            if pos.outcome(rules) is not None or not pos.in_placement:
                break
            pos = pos.play_unchecked(rng.choice(pos.legal_moves(rules)))
        if pos.in_placement and pos.outcome(rules) is None:
            out.append(pos)
    return out


def slot_counts(rules: Rules) -> dict:
    """Slots of the placement phase of ``rules``: per hand level and in all, and the largest."""
    subs = plan(rules)
    levels: dict[tuple[int, int], int] = {}
    for s in subs:
        levels[s.own_hand, s.opp_hand] = levels.get((s.own_hand, s.opp_hand), 0) + s.slots
    largest = max(subs, key=lambda s: s.slots)
    return {"subspaces": len(subs), "slots": sum(levels.values()), "levels": levels,
            "largest": largest.name, "largest_slots": largest.slots}


def reachable(rules: Rules, jobs: int = 2,
              progress: Callable[[Subspace], None] | None = None) -> dict[Subspace, int]:
    """Positions (symmetry classes) of each placement subspace that arise from the start
    position by legal play: a forward pass, parents before children, one byte per slot
    of two hand levels at a time (for the standard game up to about 6 GB)."""
    subs = plan(rules)
    marks: dict[Subspace, np.ndarray] = {}
    counts: dict[Subspace, int] = {}
    start = subs[-1]            # nothing on the board, all stones in hand, White to move
    assert start.m == start.o == 0 and start.own_hand == start.opp_hand == rules.stones
    marks[start] = np.ones(1, dtype=np.uint8)
    empty = np.zeros(0, dtype=np.uint8)
    level = None
    for sub in reversed(subs):
        if (sub.own_hand, sub.opp_hand) != level:
            level = (sub.own_hand, sub.opp_hand)
            for key in [k for k in marks if k.own_hand + k.opp_hand > sum(level)]:
                del marks[key]          # a finished level: nothing marks it any more
        if progress:
            progress(sub)
        own = marks.pop(sub, None)
        if own is None:
            counts[sub] = 0
            continue
        kids = []
        for child in children(sub):
            if child is None or child.is_moving:
                kids.append(empty)
            else:
                if child not in marks:
                    marks[child] = np.zeros(child.slots, dtype=np.uint8)
                kids.append(marks[child])
        counts[sub] = int(sub.kernels.placement_reach(sub.m, sub.o, sub.own_hand, sub.opp_hand, own,
                                                   kids[0], kids[1], rules.jumping, rules.take_none,
                                                   jobs))
    return counts
