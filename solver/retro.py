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
from typing import Callable, Iterable

import numpy as np

from .index import Pair, Subspace, successors
from .kernels import kernels_for
from .rules import RuleFlag, Rules, require_kernels
from .values import SLACK_CODE

#: Reads a solved moving-phase subspace's values, called as ``lookup(*subspace)`` (m, o).
MovingLookup = Callable[[int, int], np.ndarray]


def pairs_in_order(rules: Rules) -> list[Pair]:
    """Every moving-phase pair in an order where captures lead to earlier pairs."""
    return [Pair(m, o, board=rules.board) for m, o in pair_order(rules.stones)]


def pair_order(stones: int) -> list[tuple[int, int]]:
    """The pairs (m, o), m <= o, of ``stones`` a side as plain tuples, in the order of
    :func:`pairs_in_order` (any stone count: plans of rules beyond the index use it).

    >>> pair_order(4)
    [(3, 3), (3, 4), (4, 4)]
    """
    pairs = [(m, o) for m in range(3, stones + 1) for o in range(m, stones + 1)]
    return sorted(pairs, key=lambda p: (p[0] + p[1], p[0]))


#: Frontier slots handed to one push round (int64: 8 MiB).
FRONTIER_CHUNK = 1 << 20
#: A round pulls (``retro_pull``: the states it can decide look at their successors)
#: when its frontier is larger than this many times the undecided states; else it
#: pushes (``retro_round``: the frontier walks its un-moves).  Both walk about as many
#: moves per state (the same side moves), so the break-even is near 1.
PULL_RATIO = 1.0
#: The same for a round into losses of a subspace whose side to move jumps (3-x): a
#: push walks about 45 un-moves per frontier state and computes the count of every
#: state it reaches first (another 45 moves), so pulling pays far sooner (0.5 was no
#: better on pair 3-8 once pull rounds read their successors from cache: 71-73 CPU s
#: of solve against 74-76; 2 was worse, 83-84).  (Using this
#: ratio for sliding sides too made pair 4-7 take 1.8 times the CPU time: there the
#: states a push reaches mostly have their counts already.)  0.03 against 0.125: the
#: solve of 3-7 in 10.2-10.4 CPU s against 11.7, of 3-8 in 18.9 against 21.4 (0.01 and
#: 0 no better on 3-8; 3-3 and 3-9 the same), with the pulls' tables
#: (rest_pull_table) and without: docs/benchmarks.md.
PULL_RATIO_JUMPING = 0.03
#: A pull round visits the states grouped by the opponent's stones
#: (``retro_pull_grouped``) when the undecided states are more than this share of the
#: subspace, else in slot order (``retro_pull``).  Grouped, a state that may be decided
#: costs some hundred ns less (its successors come from cache), but every state costs
#: about 20 ns more (its slot is computed): break-even near a tenth.
GROUPED_PULL_SHARE = 0.1
#: States that disagree a check names at most (it stops looking there).
MAX_BAD = 16
#: Slots a check hands the kernels at a time, and about as many positions a placement pass
#: (progress, and a check's stop at MAX_BAD, between).
CHECK_BLOCK = 1 << 22
#: The codes of no subspace (a move that leads nowhere: no capture target).
NO_CODES = np.zeros(0, dtype=np.uint16)


def first_bad(slots: int, check_block: Callable[[int, int], Iterable[int]], max_bad: int = MAX_BAD,
              progress: Callable[[int], None] | None = None) -> list[int]:
    """The first ``max_bad`` slots of ``0..slots`` that ``check_block(start, stop)`` (a
    kernel's check of that block: the bad slots it met) names, in order, block by
    block: the slot-order walk of every forward check (moving pairs, placement
    subspaces, cycles of mixed placement), which stops once it has named enough."""
    bad: list[int] = []
    for start in range(0, slots, CHECK_BLOCK):
        stop = min(slots, start + CHECK_BLOCK)
        bad += sorted(int(s) for s in check_block(start, stop))
        if progress:
            progress(stop - start)
        if len(bad) >= max_bad:
            break
    return bad[:max_bad]


@dataclass
class PairResult:
    """The solved values of a pair and how the solve went."""

    values: dict[Subspace, np.ndarray]
    rounds: int
    seconds: float


def solve_pair(pair: tuple[int, int], rules: Rules, lookup: MovingLookup, jobs: int = 2,
               progress: Callable[[str], None] | None = None,
               pull: bool | Callable[[int], bool] | None = None, end: int = 0,
               mills: Callable[[Subspace], np.ndarray] | None = None) -> PairResult:
    """Solve both subspaces of ``pair``; ``lookup(*target)`` (a subspace's m and o)
    supplies the solved subspaces its captures lead into.  ``pull``: every round pulls
    (True) or pushes (False), or ``pull(d)`` says for round d; None chooses per round
    by :data:`PULL_RATIO`.  The values are the same whatever the choice (tests prove it).
    ``end``: plies (even) that the game's own ends count beyond their own, as
    :func:`shift_ends` says (the second solve of :mod:`solver.dtz`).  ``mills(sub)``:
    the codes that a mill that takes nothing (take-none) reads in ``sub``, one of the
    pair's own, where such a mill is an end (the tables of the quiet-ply rule, where it
    resets the count: ``RuleFlag.MILL_ENDS``); without it such a mill is a quiet move."""
    return solve_unit(Pair(*pair, board=rules.board).subspaces, rules, lookup, jobs, progress, pull, end, mills)


def kernel_flags(rules: Rules, mill_ends: bool = False) -> int:
    """The kernels' rule flags of a solve: ``rules``' own, with ``RuleFlag.MILL_ENDS``
    where a mill that takes nothing is an end (``mills`` of :func:`solve_pair`: the
    tables of the quiet-ply rule under take-none, :func:`solver.dtz.mills_end`)."""
    return int(rules.flags | (RuleFlag.MILL_ENDS if mill_ends else 0))


def shift_ends(val: np.ndarray, end: int, block: int = 1 << 24) -> None:
    """Give the game's own ends in an initialised subspace ``end`` plies more (even, so
    that a loss stays a loss): a blocked side's loss in 0 and a take's win in 1 (the
    opponent left with two stones) are the only codes 1 and 2 the initialisation
    writes where no capture target holds a loss in 0, as the second solve of
    :mod:`solver.dtz` gives none.  The check's twin is ext/check.pxi ``ended``."""
    for start in range(0, len(val), block):
        part = val[start:start + block]
        part[(part == 1) | (part == 2)] += end


def unit_of(sub: Subspace) -> list[Subspace]:
    """The subspaces solved together with ``sub``: it and :attr:`Subspace.mirror`, where
    its slides and jumps lead (a moving pair, or under mixed placement a cycle
    m-o+h-k / o-m+k-h: a move keeps the hands), the smaller first.

    >>> unit_of(Subspace(4, 2, 1, 3)), unit_of(Subspace(3, 3, 2, 2))
    ([Subspace(2, 4, 3, 1), Subspace(4, 2, 1, 3)], [Subspace(3, 3, 2, 2)])
    """
    return sorted({sub, sub.mirror})


def outside(sub: Subspace, rules: Rules) -> list[Subspace | None]:
    """The solved subspaces the moves of ``sub`` lead into out of its unit (see
    :func:`unit_of`): [capture by a move, placement, placement that takes], None where
    there is no such move or it ends the game (a capture leaving two stones)."""
    moves = sub.m > 0 and (sub.own_hand == 0 or rules.mixed)
    capture = successors(*sub, place=False)[1] if moves else None
    placed = successors(*sub, place=True) if sub.own_hand else (None, None)
    return [None if s is None else Subspace(*s, board=sub.board) for s in (capture, *placed)]


def solve_unit(subs: list[Subspace], rules: Rules, lookup: Callable[..., np.ndarray],
               jobs: int = 2, progress: Callable[[str], None] | None = None,
               pull: bool | Callable[[int], bool] | None = None, end: int = 0,
               mills: Callable[[Subspace], np.ndarray] | None = None) -> PairResult:
    """Solve the subspaces of a unit (:func:`unit_of`) in rounds: a moving pair, or under
    mixed placement a cycle of placement subspaces, whose placements lead out of it
    (docs/design.md §4).  ``lookup(*target)`` (a subspace's m, o and, with stones in
    hand, its hands) supplies the solved subspaces its moves lead into out of the unit;
    ``pull`` and ``mills`` as for :func:`solve_pair`.  The stages, each a function below:

    1. :func:`_init`: every position's moves out of the unit (captures, placements) and
       its blocked end, looked up; what they decide, and the rest undecided;
    2. :func:`_floor`: the counts of undecided successors into the codes, the longest
       loss the moves out allow into the loss floor;
    3. :func:`_rounds`: round d = 0, 1, ... decides the positions of plies d + 1 from
       those of plies d, pushed from them or pulled by their predecessors;
    4. :func:`_finish`: what is still undecided is a draw.
    """
    require_kernels(rules)
    start = time.perf_counter()
    solve = _Solve(subs, rules, kernels_for(rules.board), jobs, progress, mills is not None)
    _init(solve, lookup, end, mills)
    _floor(solve)
    rounds = _rounds(solve, pull)
    _finish(solve)
    return PairResult(values=solve.val, rounds=rounds, seconds=time.perf_counter() - start)


class _Solve:
    """The state of a unit's solve between its stages (:func:`solve_unit`).

    Peak memory (docs/design.md §4): the codes, 2 bytes a slot, throughout; the capture
    targets one at a time during the initialisation (the caller's lookup should not keep
    them); the loss floor, 1 byte a slot, only from the rounds on."""

    def __init__(self, subs: list[Subspace], rules: Rules, kernels, jobs: int,
                 progress: Callable[[str], None] | None, mill_ends: bool = False):
        self.subs, self.rules, self.kernels, self.jobs, self.progress = subs, rules, kernels, jobs, progress
        # with a mill that takes nothing an end, which the walks grouped by opponent sets
        # do not play: those go in slot order
        self.flags = kernel_flags(rules, mill_ends)
        self.grouped = not mill_ends
        self.val = {s: np.empty(s.slots, dtype=np.uint16) for s in subs}
        self.due, self.holds = {}, {}
        for s in subs:
            self.due[s], self.holds[s] = kernels.retro_due(s.slots)
        self.undecided: dict[Subspace, int] = {}     # an estimate, per subspace
        self.maxd = 0                                # the largest plies decided or pending
        self.floor: dict[Subspace, np.ndarray] = {}


def _init(solve: _Solve, lookup: Callable[..., np.ndarray], end: int,
          mills: Callable[[Subspace], np.ndarray] | None = None) -> None:
    """Stage 1 (``retro_init``): with ``end``, the game's own ends shifted (:func:`shift_ends`);
    ``mills`` as for :func:`solve_pair`."""
    kernels, rules = solve.kernels, solve.rules
    for s in solve.subs:
        targets = [np.zeros(0, dtype=np.uint16) if t is None else
                   np.ascontiguousarray(lookup(*t), dtype=np.uint16) for t in outside(s, rules)]
        if solve.progress:
            solve.progress(f"init {s}")
        ends = None if mills is None else np.ascontiguousarray(mills(s.mirror), dtype=np.uint16)
        plies, solve.undecided[s] = kernels.retro_init(s.m, s.o, solve.val[s], targets[0], solve.flags,
                                                        solve.jobs, *hands(s), *targets[1:], mills=ends)
        if end:
            shift_ends(solve.val[s], end)
            plies = max(plies, end + 1)
        solve.maxd = max(solve.maxd, plies)
        del targets


def _floor(solve: _Solve) -> None:
    """Stage 2 (``retro_floor``): once the targets are let go, the loss floor allocated."""
    solve.floor = {s: solve.kernels.retro_floor(solve.val[s], solve.jobs) for s in solve.subs}


def _rounds(solve: _Solve, pull: bool | Callable[[int], bool] | None) -> int:
    """Stage 3: the rounds, until one past the last that decided anything and past
    every pending plies; returns how many.  A round pulls where its frontier is large
    beside the states it may decide (:data:`PULL_RATIO`), else pushes (``retro_round``)."""
    kernels, rules, jobs, val = solve.kernels, solve.rules, solve.jobs, solve.val
    flags = solve.flags
    recount = {s: False for s in solve.subs}
    chunk = np.empty(FRONTIER_CHUNK, dtype=np.int64)
    d = 0
    while d <= solve.maxd:
        decided, pulled, front = 0, [], 0
        for s in solve.subs:
            child = s.mirror
            size = kernels.retro_frontier_size(val[s], solve.due[s], solve.holds[s], d, jobs)
            if not size:
                continue
            front += size
            args = (val[s], val[child], solve.floor[child], solve.due[child], d, flags)
            jumps = rules.jumping and child.m + child.own_hand == 3
            ratio = PULL_RATIO_JUMPING if d % 2 == 1 and jumps else PULL_RATIO
            pulling = (size > ratio * solve.undecided[child] if pull is None
                       else pull(d) if callable(pull) else pull)
            if pulling:
                # grouped by opponent sets where many states may be decided (their
                # successors then come from cache), else in slot order (it skips the
                # others without computing their slots)
                grouped = solve.grouped and solve.undecided[child] > GROUPED_PULL_SHARE * child.slots
                kernel = kernels.retro_pull_grouped if grouped else kernels.retro_pull
                n = kernel(s.m, s.o, *args, jobs, *hands(s))
                pulled.append(str(child))
                recount[child] |= d % 2 == 1        # it may have left counts unknown
            else:
                n, block = 0, 0
                while block < len(solve.holds[s]):
                    found, block = kernels.retro_scan(val[s], solve.holds[s], d, block, chunk, jobs)
                    n += kernels.retro_round(s.m, s.o, chunk[:found], *args, recount[child], jobs,
                                             *hands(s))
            solve.undecided[child] -= n     # (less overwritten tentative wins: an estimate)
            decided += n
        if decided:
            solve.maxd = max(solve.maxd, d + 1)
        if solve.progress:
            solve.progress(f"round {d}: {decided} decided from a frontier of {front}"
                           + (f", pulled into {' '.join(pulled)}" if pulled else ""))
        d += 1
    return d


def _finish(solve: _Solve) -> None:
    """Stage 4 (``retro_finish``)."""
    for s in solve.subs:
        solve.kernels.retro_finish(solve.val[s])


def check_by_opponent_sets(sub: Subspace, val: np.ndarray, quiet: np.ndarray, cap: np.ndarray,
                           rules: Rules, jobs: int = 2, block: int = 1 << 22,
                           progress: Callable[[int], None] | None = None, end: int = 0
                           ) -> tuple[list[int], bool]:
    """The forward check of ``sub`` (a moving subspace, or a placement subspace of
    separate placement) with its positions grouped by the opponent's stones
    (``retro_check_grouped``, docs/design.md §6): the children of a group lie close
    together in ``quiet`` and ``cap``, so they are read from cache.  Returns some slots
    that disagree (at most 16 a call of about ``block`` slots, in no order) and whether
    everything passed: every real slot agrees with its children and every other slot
    holds the slack code (counted: the kernel visits each real slot once).

    The walk reads no stored code: it sums a 64-bit fingerprint of every real slot and
    the code its children give it, which must equal the same sum over the stored codes,
    read in order (``retro_fingerprint``; a wrong code passes with probability 2^-64).
    Only where they differ does a second walk read the stored codes to find slots
    that disagree.  The moving check (:mod:`solver.verify.check`) and the placement
    check (:func:`solver.placement.check`) both run it; their slot-order walks name the
    bad slots in order when it fails.  ``end``: as for :func:`solve_pair`."""
    kernels = sub.kernels
    orbits = kernels.orbit_count(sub.o)
    step = max(1, orbits * block // max(1, len(val)))       # about ``block`` slots a call

    def walk(fingerprint: bool) -> tuple[list[int], int, int]:
        flagged, checked, prints = [], 0, 0
        for start in range(0, orbits, step):
            stop = min(orbits, start + step)
            slots, _, seen, walked = kernels.retro_check_grouped(
                sub.m, sub.o, val, quiet, cap, rules.flags, start, stop, MAX_BAD,
                jobs, h=sub.own_hand, k=sub.opp_hand,
                fingerprint=fingerprint, end=end)
            flagged += [int(s) for s in slots]
            checked += seen
            prints = (prints + walked) % 2**64
            if progress and fingerprint:
                progress(round(len(val) * stop / orbits) - round(len(val) * start / orbits))
        return flagged, checked, prints

    _, checked, prints = walk(fingerprint=True)
    if kernels.retro_fingerprint(val, SLACK_CODE, jobs) == (checked, prints):
        return [], True
    return walk(fingerprint=False)[0], False


def hands(sub: Subspace) -> tuple[int, int]:
    """The kernels' hand arguments for ``sub``: the stones in hand of the side to move
    and of the other (what mixed placement does with them the rule flags say)."""
    return sub.own_hand, sub.opp_hand
