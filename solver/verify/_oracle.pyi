"""Type stub of the oracle's kernels (``ext/oracle.pxi``, its own extension module per board).
Raw entries of subspace m-o are numbered rank(own) * C(24, o) + rank(opp) (colex ranks
among all 24 points); codes are those of :mod:`solver.values`, 0xFFFF an unused entry,
0xFFFE a state not yet decided."""

import numpy as np
from numpy.typing import NDArray

U16 = NDArray[np.uint16]
U32 = NDArray[np.uint32]

def oracle_entries(m: int, o: int) -> int:
    """Raw entries of m-o, overlapping (unused) ones included."""
def oracle_rank(s: int) -> int:
    """Colex rank of a stone set among the sets of its size."""
def oracle_sets(k: int) -> U32:
    """Every k-set of the 24 points in rank order."""
def oracle_new(m: int, o: int) -> U16:
    """A fresh array of m-o: undecided for positions, unused for overlaps."""
def oracle_position(m: int, o: int, i: int) -> tuple[int, int]: ...
def oracle_index(m: int, o: int, own: int, opp: int) -> int: ...
def oracle_sweep(m: int, o: int, val: U16, quiet: U16, cap: U16, k: int, rules: int,
                 cap_win: U16, loss_rows: U16, quiet_loss_rows: U16,
                 blocker: U32, jobs: int = 2, hm: int = 0, ho: int = 0,
                 place: U16 | None = None, place_cap: U16 | None = None) -> int:
    """Sweep k under the rule flags ``rules`` (:attr:`solver.rules.Rules.flags`): decide
    the states whose value is fixed at k plies; returns how many
    (with hands: a subspace of a cycle of mixed placement, see ext/oracle.pxi)."""
def oracle_finish(val: U16) -> None:
    """What is still undecided is a draw."""
def oracle_reach(stones: int, rules: int, most: int) -> tuple[int, int]:
    """(positions, finished games) reachable from the start, ``stones`` a side in hand,
    under the rule flags ``rules``; (-1, -1) if more than ``most``."""
