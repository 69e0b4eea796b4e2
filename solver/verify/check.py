"""The forward consistency check of a finished database (docs/design.md §6).

Every stored state's value and plies are recomputed from its successors' stored
values.  With exact plies this proves the whole database right given the rules:
a wrongly labelled state would need a wrongly labelled successor at a smaller
distance, down to the end of the game, where the labels are fixed by the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .. import placement, storage
from ..board import STANDARD_BOARD, Board
from ..index import Pair, Subspace
from ..kernels import kernels_for
from ..position import Position
from ..retro import CHECK_BLOCK, MAX_BAD, NO_CODES, check_by_opponent_sets, first_bad
from ..rules import Rules



@dataclass(frozen=True)
class BadState:
    """A stored state whose value disagrees with its successors."""

    m: int
    o: int
    slot: int
    own_hand: int = 0
    opp_hand: int = 0
    board: Board = STANDARD_BOARD

    def describe(self) -> str:
        sub = Subspace(self.m, self.o, self.own_hand, self.opp_hand, board=self.board)
        own, opp = sub.position(self.slot)
        position = Position.from_view(own, opp, sub.own_hand, sub.opp_hand, board=self.board)
        return f"subspace {sub} slot {self.slot}: {position}"


def check_values(pair: tuple[int, int], rules: Rules, values: dict, lookup, jobs: int = 2,
                 progress: Callable[[int], None] | None = None, max_bad: int = MAX_BAD,
                 grouped: bool = False) -> list[BadState]:
    """Check the solved values of ``pair``; ``lookup(m, o)`` gives capture targets.

    Returns the first ``max_bad`` states that disagree, in slot order, whatever ``jobs``.
    ``grouped``: visit the positions grouped by the opponent's stones
    (``retro_check_grouped``, the build's check: the successors' codes are read from
    cache, several times faster), and only where it finds a fault, walk the subspace in
    slot order to name the bad states.  Without it the check walks the slots in order
    (``retro_check``, what ``muehle check`` runs: a second implementation)."""
    bad: list[BadState] = []
    for m, o in Pair(*pair, board=rules.board).subspaces:
        target = Subspace(m, o, board=rules.board).capture_child
        cap = lookup(*target) if target else NO_CODES
        faults = _grouped_faults if grouped else _slot_order_faults
        bad += faults(m, o, rules, values, cap, jobs, progress, max_bad - len(bad))
        del cap         # one capture target at a time (with a lookup that does not keep it)
        if len(bad) >= max_bad:
            break
    return bad[:max_bad]


def _slot_order_faults(m: int, o: int, rules: Rules, values: dict, cap: np.ndarray, jobs: int,
                       progress: Callable[[int], None] | None, max_bad: int) -> list[BadState]:
    """The check of subspace m-o in slot order: its first ``max_bad`` bad states."""
    kernels = kernels_for(rules.board)

    def check_block(start: int, stop: int):
        args = (m, o, values[m, o], values[o, m], cap, rules.flags, start, stop, max_bad)
        slots, count = kernels.retro_check(*args, jobs)
        if count > len(slots) and jobs > 1:
            # threads kept whichever bad states they met first; one thread meets
            # them in slot order (a failing check is rare: its speed does not matter)
            slots, count = kernels.retro_check(*args, 1)
        return slots
    return [BadState(m, o, s, board=rules.board)
            for s in first_bad(len(values[m, o]), check_block, max_bad, progress)]


def _grouped_faults(m: int, o: int, rules: Rules, values: dict, cap: np.ndarray, jobs: int,
                    progress: Callable[[int], None] | None, max_bad: int) -> list[BadState]:
    """The grouped check of subspace m-o: [] if every real slot agrees with its
    successors and every other slot holds the slack code, else its first ``max_bad``
    bad states, named by the slot-order check (or, should that find none, by the
    grouped one)."""
    sub = Subspace(m, o, board=rules.board)
    flagged, passed = check_by_opponent_sets(sub, values[m, o], values[o, m], cap, rules, jobs,
                                             CHECK_BLOCK, progress)
    if passed:
        return []
    found = _slot_order_faults(m, o, rules, values, cap, 1, None, max_bad)
    return found or [BadState(m, o, s, board=rules.board) for s in sorted(flagged)[:max_bad]]


def check_pair(root: Path | str, rules: Rules, pair: tuple[int, int], jobs: int = 2,
               progress: Callable[[int], None] | None = None) -> list[BadState]:
    """Check a stored pair against itself and the stored pairs its captures reach."""
    def read(m: int, o: int) -> np.ndarray:
        return storage.read_subspace(storage.pair_path(root, rules, (m, o)), rules, m, o, verify=True)

    values = {s: read(*s) for s in Pair(*pair, board=rules.board).subspaces}
    return check_values(pair, rules, values, read, jobs, progress)


def check_placement(root: Path | str, rules: Rules, sub: Subspace, jobs: int = 2,
                    progress: Callable[[int], None] | None = None,
                    lookup: placement.SubspaceLookup | None = None) -> list[BadState]:
    """Check a stored placement subspace: every slot recomputed from its children's
    stored codes (read with ``lookup``, by default from their files, verified)."""
    def read(s: Subspace) -> np.ndarray:
        return storage.read_subspace(storage.file_of(root, rules, s), rules, s.m, s.o,
                                     verify=True, own_hand=s.own_hand, opp_hand=s.opp_hand)

    values = read(sub)
    slots = placement.check(sub, rules, values, lookup or read, jobs, progress)
    return [BadState(sub.m, sub.o, s, sub.own_hand, sub.opp_hand, sub.board) for s in slots]
