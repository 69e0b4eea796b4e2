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

from .errors import UnsupportedRulesError
from .index import Subspace
from .position import Position, parse_position
from .retro import CHECK_BLOCK, MAX_BAD, NO_CODES, check_by_opponent_sets, first_bad, hands, outside
from .rules import Rules
from .values import SLACK_CODE

#: Reads a stored subspace's codes (moving or placement): the children of a pass.
SubspaceLookup = Callable[[Subspace], np.ndarray]


def is_placement(sub: Subspace, rules: Rules) -> bool:
    """Whether ``sub`` is one of the placement subspaces of ``rules`` (in :func:`plan`)."""
    fits = _fits_mixed if rules.mixed else _fits
    return fits(rules.stones, sub.m, sub.o, sub.own_hand, sub.opp_hand)


def _fits(n: int, m: int, o: int, h: int, k: int) -> bool:
    return (1 <= h <= n and k in (h, h - 1) and m <= n - h and o <= n - k
            and m + h >= 3 and o + k >= 3)


def _fits_mixed(n: int, m: int, o: int, h: int, k: int) -> bool:
    """Under mixed placement a side may move instead of placing, so any hands arise
    (also none for the side to move while the other still has some)."""
    return ((h > 0 or k > 0) and 0 <= h <= n and 0 <= k <= n and m <= n - h and o <= n - k
            and m + h >= 3 and o + k >= 3)


def plan(rules: Rules, max_total: Optional[int] = None) -> list[Subspace]:
    """The placement subspaces of ``rules``, children before parents.

    Ordered by stones in hand (one hand level at a time), then by m and o: consecutive
    subspaces share a child, so a build reads each child about once.  ``max_total``:
    only subspaces with at most that many stones on the board and in hand together
    (their children have no more, so the moving pairs up to that total suffice).
    Under mixed placement the two subspaces of a unit (:func:`units`) come together.
    """
    return [sub for unit in units(rules, max_total) for sub in unit]


def units(rules: Rules, max_total: Optional[int] = None) -> list[list[Subspace]]:
    """The placement subspaces of ``rules`` as they are solved, children first: one at a
    time by one pass, or under mixed placement (a side with stones in hand may move,
    keeping the hands) a cycle m-o+h-k / o-m+k-h solved in rounds like a moving pair
    (:func:`solver.retro.solve_unit`).

    >>> from solver.rules import MIXED
    >>> [[s.name for s in u] for u in units(Rules(stones=3, placement=MIXED), 7)][:3]
    [['2-3+1-0', '3-2+0-1'], ['1-3+2-0', '3-1+0-2'], ['2-2+1-1']]
    """
    board = rules.board
    if not rules.mixed:
        return [[Subspace(*shape, board=board)] for shape in shapes(rules.stones, max_total)]
    return [[Subspace(*shape, board=board) for shape in own]
            for own in mixed_shapes(rules.stones, max_total)]


def mixed_shapes(stones: int, max_total: Optional[int] = None) -> list[list[tuple[int, int, int, int]]]:
    """The units of :func:`units` under mixed placement as plain ``(m, o, h, k)``
    tuples (any stone count: plans of rules beyond the index use it), ordered by stones
    in hand, then on the board: placements lead to fewer in hand, captures by a move to
    fewer on the board with the same hands, so every unit comes after what it reads."""
    n, keys = stones, set()
    for h in range(n + 1):
        for k in range(n + 1):
            for m in range(n - h + 1):
                for o in range(n - k + 1):
                    if _fits_mixed(n, m, o, h, k) and (max_total is None or m + o + h + k <= max_total):
                        keys.add(min((m, o, h, k), (o, m, k, h)))
    return [[key] if key == (key[1], key[0], key[3], key[2]) else [key, (key[1], key[0], key[3], key[2])]
            for key in sorted(keys, key=lambda s: (s[2] + s[3], s[0] + s[1], s))]


def reads(sub: Subspace, rules: Rules) -> list[Subspace]:
    """The subspaces whose codes the solve and the check of ``sub`` read: its children
    (one pass), or under mixed placement the other subspace of its unit and the solved
    subspaces its moves lead to out of the unit (:func:`solver.retro.outside`)."""
    if not rules.mixed:
        return [c for c in children(sub) if c is not None]
    return [c for c in [sub.mirror, *outside(sub, rules)] if c is not None and c != sub]


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


def solve(sub: Subspace, rules: Rules, lookup: SubspaceLookup, jobs: int = 2,
          progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The codes of every slot of placement subspace ``sub`` from its children's.

    ``lookup`` gives a child's codes; ``progress(slots)`` is called after each block
    (the calls add up to ``sub.slots``).
    """
    values = np.full(sub.slots, SLACK_CODE, dtype=np.uint16)   # the pass skips slack slots
    quiet, cap = _child_codes(sub, lookup)
    # the pass goes by the opponent's representative sets (docs/design.md §8), in ranges
    reps = sub.kernels.orbit_count(sub.o)
    step = max(1, CHECK_BLOCK // math.comb(sub.board.num_points - sub.o, sub.m))   # positions a rep set holds
    done = 0
    for start in range(0, reps, step):
        stop = min(reps, start + step)
        sub.kernels.placement_solve(sub.m, sub.o, sub.own_hand, sub.opp_hand, values, quiet, cap,
                                 rules.flags, start, stop, jobs)
        if progress:
            now = sub.slots * stop // reps
            progress(now - done)
            done = now
    return values


def check(sub: Subspace, rules: Rules, values: np.ndarray, lookup: SubspaceLookup, jobs: int = 2,
          progress: Callable[[int], None] | None = None, max_bad: int = MAX_BAD) -> list[int]:
    """Forward check: the slots of ``values`` (stored codes of ``sub``) that differ from
    what their children's stored codes give (at most ``max_bad``)."""
    if len(values) != sub.slots:
        raise ValueError(f"{sub.name}: {len(values)} values for {sub.slots} slots")
    values = np.ascontiguousarray(values, dtype=np.uint16)
    if rules.mixed:
        return _check_mixed(sub, rules, values, lookup, jobs, progress, max_bad)
    quiet, cap = _child_codes(sub, lookup)
    # By opponent sets first (children read from cache).  Where that fails, the slot-order
    # pass names the first bad slots, on one thread: threads keep whichever bad slots they
    # meet first (a failing check is rare, so its speed does not matter), as in
    # solver.verify.check.
    flagged, passed = check_by_opponent_sets(sub, values, quiet, cap, rules, jobs, CHECK_BLOCK, progress)
    if passed:
        return []
    bad = first_bad(sub.slots, lambda start, stop: sub.kernels.placement_pass(
        sub.m, sub.o, sub.own_hand, sub.opp_hand, values, quiet, cap, rules.flags,
        start, stop, True, max_bad, 1)[0], max_bad)
    return bad or sorted(flagged)[:max_bad]


def _check_mixed(sub: Subspace, rules: Rules, values: np.ndarray, lookup: SubspaceLookup, jobs: int,
                 progress: Callable[[int], None] | None, max_bad: int) -> list[int]:
    """The check of a subspace of mixed placement: the moving phase's forward check
    (``retro_check``) with the hands, reading the other subspace of its unit and where
    its moves lead out of it."""
    codes = lambda s: NO_CODES if s is None else np.ascontiguousarray(lookup(s), dtype=np.uint16)  # noqa: E731
    if sub.mirror == sub:
        mirror = values
    else:
        mirror = codes(sub.mirror)
    out = [codes(s) for s in outside(sub, rules)]
    return first_bad(sub.slots, lambda start, stop: sub.kernels.retro_check(
        sub.m, sub.o, values, mirror, out[0], rules.flags, start, stop, max_bad,
        jobs, *hands(sub), *out[1:])[0], max_bad, progress)


def _child_codes(sub: Subspace, lookup: SubspaceLookup) -> tuple[np.ndarray, np.ndarray]:
    quiet, capture = children(sub)
    q = np.ascontiguousarray(lookup(quiet), dtype=np.uint16)
    c = np.ascontiguousarray(lookup(capture), dtype=np.uint16) if capture else NO_CODES
    return q, c


def random_placements(rules: Rules, count: int, seed: int,
                     plies: tuple[int, int] | None = None) -> list[Position]:
    """``count`` placement positions (stones in hand, game not over) from random legal
    games: each plays a number of placements drawn from ``plies`` (inclusive; default
    0 .. 2n - 1) from the start, stopping early where the placement phase ends.

    >>> len(random_placements(Rules(stones=4), 5, seed=1))
    5
    """
    low, high = plies if plies is not None else (0, 2 * rules.stones - 1)
    rng, out = random.Random(seed), []
    start = parse_position("startpos", rules)
    while len(out) < count:
        pos = start
        for _ in range(rng.randint(low, high)):
            if pos.terminal_wdl(rules) is not None or not pos.in_placement:
                break
            pos = pos.play_unchecked(rng.choice(pos.legal_moves(rules)))
        if pos.in_placement and pos.terminal_wdl(rules) is None:
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
    of two hand levels at a time (for the standard game up to about 6 GB).  Separate
    placement only (UnsupportedRulesError otherwise)."""
    if rules.mixed:
        raise UnsupportedRulesError(f"rules {rules.name!r}: the count of reachable placement "
                                    f"positions knows separate placement only")
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
                                                   kids[0], kids[1], rules.flags, jobs))
    return counts
