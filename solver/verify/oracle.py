"""The independent oracle: naive value iteration over raw positions of small
moving-phase subspaces (kernel ``ext/oracle.pxi``, compiled as :mod:`solver.verify._oracle`),
and the comparison of its values with the fast solver's.

Like the kernels, the oracle is compiled once per board (``solver.verify._oracle`` for
the standard board, ``_oracle_<board>`` for the others: :func:`oracle_kernels`).
The oracle shares nothing with the fast solver but the rules kernel ``c_moves_packed``: its
own raw indexing, its own sweeps, its own notion of pairs and capture targets (below,
deliberately not imported from :mod:`solver.retro`).  The comparison reads the fast
solver's answer through the fast solver's own map (``index_batch``): that map is under
test together with the values (docs/design.md §6).
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ..board import BOARDS, STANDARD_BOARD, Board, points_of
from ..kernels import kernels_for
from ..rules import Rules, require_kernels

NONE = 0xFFFF


def oracle_kernels(board: Board) -> ModuleType:
    """The compiled oracle of ``board`` (setup.py builds one per board, as the kernels).
    It has no index, so a board's one oracle serves all its kernels modules (the
    standard board's of nine and of twelve stones a side)."""
    kernels_for(board)          # its error, if this installation lacks the board
    return importlib.import_module(f"solver.verify._oracle{BOARDS[board.name].module_suffix}")


class Oracle:
    """Solved raw subspaces for one rule set, solving smaller ones on demand."""

    def __init__(self, rules: Rules, jobs: int = 2):
        require_kernels(rules)
        self.rules, self.jobs = rules, jobs
        self.kernels = oracle_kernels(rules.board)
        self.values: dict[tuple, np.ndarray] = {}     # (m, o), or (m, o, h, k) with hands
        self.sweeps: dict[tuple[int, int], int] = {}
        self.seconds: dict[tuple[int, int], float] = {}

    def get(self, m: int, o: int, h: int = 0, k: int = 0) -> np.ndarray:
        """The solved raw array of subspace m-o (m-o+h-k: with stones in hand, under
        mixed placement), solving its pair (its cycle) if needed."""
        key = (m, o, h, k) if h or k else (m, o)
        if key not in self.values:
            self.solve_pair(m, o, h, k)
        return self.values[key]

    def targets(self, m: int, o: int, h: int = 0, k: int = 0) -> list[tuple | None]:
        """Where the moves of m-o+h-k lead out of its pair or cycle, as (m, o, h, k):
        [capture by a move, placement, placement that takes]; None where there is none
        or a capture leaves the opponent fewer than three stones (board plus hand).
        A full board (m + o stones on as many points, both hands empty) has no move."""
        capture_ends = o < 1 or o - 1 + k < 3
        moves = m > 0 and (h == 0 or self.rules.mixed) and m + o < self.rules.board.num_points
        return [None if capture_ends or not moves else (o - 1, m, k, h),
                (o, m + 1, k, h - 1) if h else None,
                None if capture_ends or not h else (o - 1, m + 1, k, h - 1)]

    def solve_pair(self, a: int, b: int, h: int = 0, k: int = 0) -> None:
        """Solve the pair {a-b, b-a}, or with stones in hand the cycle
        {a-b+h-k, b-a+k-h} (mixed placement: a move keeps the hands)."""
        start = time.perf_counter()
        subs = list(dict.fromkeys([(a, b, h, k), (b, a, k, h)]))
        # Captures from m-o leave the opponent o-1 stones: subspace (o-1)-m, or the end;
        # placements lead to one stone fewer in hand.
        empty = np.zeros(0, np.uint16)
        outs = {s: [empty if t is None else self.get(*t) for t in self.targets(*s)] for s in subs}
        longest_cap = 0
        for arrays in outs.values():
            for arr in arrays:
                decided = arr[(arr != NONE) & (arr != 0)]
                if decided.size:
                    longest_cap = max(longest_cap, int(decided.max()) - 1)
        val = {s: self.kernels.oracle_new(*s[:2]) for s in subs}
        cap_win = {s: np.full(len(val[s]), NONE, np.uint16) for s in subs}
        loss_rows = {s: np.full(len(self.kernels.oracle_sets(s[0])), NONE, np.uint16) for s in subs}
        blocker = {s: np.full(len(val[s]), 0xFFFFFFFF, np.uint32) for s in subs}
        sweep = 0
        while True:
            n = 0
            for s in subs:
                m, o, own_hand, opp_hand = s
                mirror = (o, m, opp_hand, own_hand)
                n += self.kernels.oracle_sweep(m, o, val[s], val[mirror], outs[s][0], sweep,
                                               self.rules.flags, cap_win[s], loss_rows[s],
                                               loss_rows[mirror], blocker[s], self.jobs, own_hand, opp_hand,
                                               outs[s][1], outs[s][2])
            # Once a sweep decides nothing, later sweeps can only be fed by capture
            # targets with more plies; past the longest of those, nothing can change.
            if n == 0 and sweep > longest_cap + 1:
                break
            sweep += 1
        for s in subs:
            self.kernels.oracle_finish(val[s])
            key = s if s[2] or s[3] else s[:2]
            self.values[key] = val[s]
            self.sweeps[key] = sweep + 1
            self.seconds[key] = time.perf_counter() - start


@dataclass(frozen=True)
class Census:
    """What a game reaches from its start (:func:`census`): ``positions`` (the stones of
    both colours, both hands and the colour to move; no symmetry), of which
    ``finished`` are finished games (fewer than three stones, board plus hand, or no
    legal move)."""

    positions: int
    finished: int


def census(rules: Rules, most: int = 1 << 28) -> Census:
    """Every position reachable from the start of ``rules`` by legal play, counted raw as
    other solvers publish such counts (tests/data/published.toml): a breadth-first walk
    of the oracle's kernel (``oracle_reach``) over the rules kernel's moves, its own
    packed keys in its own table, nothing of the index.  The walk starts again with a
    table four times as large until it holds them all (24 to 40 bytes a position it
    may hold); ValueError past ``most`` positions.

    >>> from solver.rules import Rules
    >>> census(Rules.from_name("six-mens-s3"))
    Census(positions=368513, finished=1352)
    """
    require_kernels(rules)
    if type(most) is not int or most < 1:
        raise ValueError(f"most: a number of positions of at least 1, not {most!r}")
    kernels = oracle_kernels(rules.board)
    size = 1 << 20
    while True:
        positions, finished = kernels.oracle_reach(rules.stones, rules.flags, min(size, most))
        if positions >= 0:
            return Census(positions, finished)
        if size >= most:
            raise ValueError(f"rules {rules.name!r}: more than {most:,} positions reachable: "
                             f"too many to count here")
        size *= 4


COMPARE_BLOCK = 1 << 22


def compare(m: int, o: int, oracle_values: np.ndarray, fast_values: np.ndarray, max_bad: int = 16,
            board: Board = STANDARD_BOARD):
    """Every raw position of m-o (on ``board``): oracle code against the fast solver's
    code at its slot.

    Returns (mismatches, count, unhit): readable descriptions of up to ``max_bad``
    positions that disagree, how many disagree, and how many real fast slots no
    position maps to (each should be reached by some position).
    """
    oracle, kernels = oracle_kernels(board), kernels_for(board)
    own_sets, opp_sets = oracle.oracle_sets(m), oracle.oracle_sets(o)
    per = len(opp_sets)
    fast = np.ascontiguousarray(fast_values, np.uint16)
    hit = np.zeros(len(fast), dtype=bool)
    bad: list[int] = []
    count = 0
    for start in range(0, len(oracle_values), COMPARE_BLOCK):
        raw = np.arange(start, min(start + COMPARE_BLOCK, len(oracle_values)), dtype=np.int64)
        raw = raw[oracle_values[raw] != NONE]
        own, opp = own_sets[raw // per], opp_sets[raw % per]
        slots = np.empty(len(raw), dtype=np.int64)
        kernels.index_batch(m, o, own, opp, slots)
        hit[slots] = True
        wrong = raw[oracle_values[raw] != fast[slots]]
        count += len(wrong)
        bad += wrong[:max_bad - len(bad)].tolist()
    real = np.empty(len(fast), dtype=np.uint8)
    kernels.real_batch(m, o, 0, real)
    unhit = int(np.count_nonzero(real.astype(bool) & ~hit))
    out = []
    for i in bad:
        own, opp = oracle.oracle_position(m, o, int(i))
        slot = kernels.index_position(m, o, own, opp)
        out.append(f"{m}-{o} own {describe(own, board)} opp {describe(opp, board)} (to move: own): "
                   f"oracle {show(int(oracle_values[i]))}, fast {show(int(fast[slot]))} at slot {slot}")
    return out, count, unhit


def describe(mask: int, board: Board = STANDARD_BOARD) -> str:
    return ",".join(board.point_name(p) for p in points_of(mask))


def show(code: int) -> str:
    if code == NONE:
        return "slack"
    if code == 0:
        return "draw"
    plies = code - 1
    return f"{'win' if plies % 2 else 'loss'} in {plies}"


# --- orbit statistics, to compare the oracle itself with published numbers -------------

def _sym_tables(board: Board) -> np.ndarray:
    """tab[g, byte, b]: image under symmetry g of byte b of a mask at byte position `byte`."""
    tab = np.zeros((len(board.symmetries), 3, 256), dtype=np.uint32)
    for g in range(len(board.symmetries)):
        for byte in range(3):
            for b in range(256):
                tab[g, byte, b] = board.apply_symmetry(g, (b << (8 * byte)) & board.full_mask)
    return tab


def orbit_summary(m: int, o: int, values: np.ndarray, board: Board = STANDARD_BOARD) -> dict:
    """Wins, losses, draws and longest win and loss counted over orbits (canonical positions)."""
    oracle = oracle_kernels(board)
    own_sets, opp_sets = oracle.oracle_sets(m), oracle.oracle_sets(o)
    idx = np.flatnonzero(values != NONE)
    per = len(opp_sets)
    own = own_sets[idx // per].astype(np.uint64)
    opp = opp_sets[idx % per].astype(np.uint64)
    key = (own << np.uint64(24)) | opp
    canonical = np.ones(len(idx), dtype=bool)
    tab = _sym_tables(board)
    for g in range(1, len(tab)):
        img = lambda s: (tab[g, 0][s & 0xFF] | tab[g, 1][(s >> 8) & 0xFF]
                         | tab[g, 2][(s >> 16) & 0xFF]).astype(np.uint64)
        canonical &= key <= ((img(own) << np.uint64(24)) | img(opp))
    codes = values[idx[canonical]].astype(np.int64)
    plies = codes - 1
    win, loss = (codes > 0) & (plies % 2 == 1), (codes > 0) & (plies % 2 == 0)
    return {"wins": int(win.sum()), "losses": int(loss.sum()), "draws": int((codes == 0).sum()),
            "longest_win": int(plies[win].max()) if win.any() else 0,
            "longest_loss": int(plies[loss].max()) if loss.any() else 0}
