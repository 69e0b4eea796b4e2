"""Type stub of the compiled kernels (``ext/kernels.pxi`` and the ``.pxi`` files it
includes), the same for every board's module (``solver._kernels``,
``solver._kernels_six_mens``, ...: :func:`solver.kernels.kernels_for`).  These are the
checked Python entry points; each ``nogil`` function that does the work has the same
name with the prefix ``c_`` (see ext/kernels.pxi).
Subspaces are given as their stone counts ``m, o`` (``*subspace`` for a
:class:`solver.index.Subspace`); moves are packed ints (:meth:`solver.position.Move.pack`);
value arrays hold uint16 codes (:mod:`solver.values`).  ``rules`` is the rule options
as one int (:attr:`solver.rules.Rules.flags`, the bits of :class:`solver.rules.RuleFlag`);
where it has a default, the standard game's (jumping, take-any, separate placement).
Bad arguments raise ValueError at entry, before any work (ext/guards.pxi): a subspace
or hands beyond the index, an array of another length than the subspace needs, masks
that are no position of the board, ``jobs``/``threads`` outside 1..MAX_JOBS
(:data:`solver.kernels.MAX_JOBS`); a slot out of range raises IndexError."""

from typing import Optional

import numpy as np
from numpy.typing import NDArray

U16 = NDArray[np.uint16]
U8 = NDArray[np.uint8]
U32 = NDArray[np.uint32]
I64 = NDArray[np.int64]

from solver.board import Board

# --- board.pxi: the board compiled in -----------------------------------------------------

BOARD: Board

# --- rules.pxi: the rule flags --------------------------------------------------------------

def rule_flag_bits() -> dict[str, int]:
    """The bits of the rule flags compiled in (equal to solver.rules.RuleFlag)."""

# --- movegen.pxi: moves on point masks ------------------------------------------------

def moves_packed(own: int, opp: int, own_hand: int, opp_hand: int, rules: int = 1) -> list[int]:
    """Legal moves of the side to move (own), packed; [] when the game is over."""
def line_wins() -> bool:
    """Whether these kernels play a line of three as winning outright (LINE_WINS)."""
def unmoves_packed(own: int, opp: int, own_hand: int, opp_hand: int, rules: int = 1,
                   kinds: int = 3) -> list[int]:
    """Quiet un-moves of the last mover (opp), packed like its forward moves."""
def count_moves_batch(own: U32, opp: U32, own_hand: NDArray[np.int8], opp_hand: NDArray[np.int8],
                      rules: int = 1) -> NDArray[np.int32]: ...

# --- index.pxi: the symmetry-reduced index ------------------------------------------------

INDEX_SCHEME: str
def max_stones() -> int: ...
def have_bmi2() -> bool: ...
def subspace_slots(m: int, o: int) -> int: ...
def index_position(m: int, o: int, own: int, opp: int) -> int: ...
def position_at(m: int, o: int, slot: int) -> tuple[int, int]: ...
def is_real_slot(m: int, o: int, slot: int) -> bool: ...
def orbit_count(m: int) -> int: ...
def index_tables(m: int) -> tuple[U32, U32, NDArray[np.uint16], U32]: ...
def canonical_set(own: int) -> tuple[int, int, int]: ...
def apply_sym_fast(g: int, mask: int) -> int: ...
def bit_ops_check(x: int, mask: int) -> tuple[int, int, int, int, int, int, int, int]: ...
def index_batch(m: int, o: int, own: U32, opp: U32, out: I64) -> None: ...
def index_batch_unchecked_sum(m: int, o: int, own: U32, opp: U32) -> int: ...
def index_batch_unchecked(m: int, o: int, own: U32, opp: U32, out: I64) -> None: ...
def position_batch(m: int, o: int, slots: I64, own: U32, opp: U32) -> None: ...
def real_batch(m: int, o: int, start: int, out: U8) -> None: ...
def real_at_batch(m: int, o: int, slots: I64, out: U8) -> None: ...
def count_real_slots(m: int, o: int, threads: int = 2) -> int: ...

# --- retro.pxi: retrograde analysis; check.pxi: the forward check --------------------------

def retro_init(m: int, o: int, val: U16, cap: U16, rules: int, jobs: int = 2, h: int = 0,
               k: int = 0, place: U16 | None = None, place_cap: U16 | None = None,
               grouped: bool = True, mills: U16 | None = None) -> tuple[int, int]:
    """Initialise subspace m-o (m-o+h-k of a cycle of mixed placement, whose placements
    lead to ``place`` and ``place_cap``); returns the largest plies decided or pending so
    far and the number of undecided states.  ``grouped``: a moving subspace's positions are visited by opponent sets (False:
    in slot order; the same codes)."""
def retro_floor(val: U16, jobs: int = 2) -> U8:
    """Codes made ready for the rounds (counts inside them); returns the loss floor."""
def retro_due(slots: int) -> tuple[U16, U16]: ...
def retro_frontier_size(val: U16, due: U16, holds: U16, d: int, jobs: int = 2) -> int: ...
def retro_scan(val: U16, holds: U16, d: int, block: int, out: I64, jobs: int = 2) -> tuple[int, int]: ...
def retro_round(m: int, o: int, frontier: I64, child: U16, pred: U16, pred_floor: U8,
                pred_due: U16, d: int, rules: int, recount: bool = False,
                jobs: int = 2, h: int = 0, k: int = 0) -> int:
    """One round at plies d, pushed from the frontier; returns how many it decided."""
def retro_pull(m: int, o: int, child: U16, pred: U16, pred_floor: U8, pred_due: U16, d: int,
               rules: int, jobs: int = 2, h: int = 0, k: int = 0) -> int:
    """One round at plies d, pulled by the states it can decide, in slot order; returns
    how many."""
def retro_pull_grouped(m: int, o: int, child: U16, pred: U16, pred_floor: U8, pred_due: U16,
                       d: int, rules: int, jobs: int = 2, h: int = 0, k: int = 0) -> int:
    """retro_pull with the states grouped by the opponent's stones (successors from cache)."""
def retro_finish(val: U16) -> None: ...
def quiet_step_counts(own: U32, opp: U32, h: int = 0, k: int = 0,
                      rules: int = 1) -> NDArray[np.int32]:
    """The quiet steps (moves that stay in the unit) of each position (own, opp): a push
    round's count of a state that no symmetry fixes."""
def retro_check(m: int, o: int, val: U16, quiet: U16, cap: U16, rules: int,
                start: int = 0, stop: int = -1, max_bad: int = 16,
                jobs: int = 2, h: int = 0, k: int = 0,
                place: U16 | None = None, place_cap: U16 | None = None,
                end: int = 0, mills: U16 | None = None, slots: I64 | None = None) -> tuple[I64, int]:
    """Slots of [start, stop) (or those of ``slots``) whose code disagrees with their
    successors', and how many; ``end``: a blocked side and a take that leaves two stones
    count that many plies more."""
def retro_check_grouped(m: int, o: int, val: U16, quiet: U16, cap: U16, rules: int,
                        rep_start: int = 0, rep_stop: int = -1, max_bad: int = 16,
                        jobs: int = 2, h: int = 0, k: int = 0, fingerprint: bool = False,
                        end: int = 0) -> tuple[I64, int, int, int]:
    """The same check over the positions whose opponent stones are the representatives
    [rep_start, rep_stop): slots that disagree, how many, how many were checked, and
    with ``fingerprint`` (no stored code read, none named) the sum mod 2^64 of the
    fingerprints of the checked slots with the codes their successors give them.
    With h >= 1: placement subspace m-o+h-k, children as for placement_pass."""
def retro_fingerprint(val: U16, code: int, jobs: int = 2) -> tuple[int, int]:
    """How many slots hold a code other than ``code``, and the sum mod 2^64 of the
    fingerprints of those slots with their codes."""

# --- placement.pxi: the placement phase by one backward pass -----------------------------

def placement_values(m: int, o: int, hm: int, ho: int, out: U16, quiet_child: U16,
                     capture_child: U16, rules: int, jobs: int = 2) -> None: ...
def placement_solve(m: int, o: int, hm: int, ho: int, val: U16, quiet: U16, cap: U16,
                    rules: int, rep_start: int = 0, rep_stop: int = -1,
                    jobs: int = 2) -> int: ...
def placement_pass(m: int, o: int, hm: int, ho: int, val: U16, quiet: U16, cap: U16,
                   rules: int, start: int = 0, stop: int = -1,
                   check: bool = False, max_bad: int = 16,
                   jobs: int = 2) -> tuple[np.ndarray, int]: ...
def placement_reach(m: int, o: int, hm: int, ho: int, reached: U8, quiet_reach: U8,
                    cap_reach: U8, rules: int, jobs: int = 2) -> int: ...

# --- dice.pxi: dice mill's placement phase (expected results) by one backward pass --------

def dice_pass(m: int, o: int, hm: int, ho: int, out: U32, quiet: U32, single: U32, twice: U32,
              num: int, replace_takes: bool, rules: int, jobs: int = 2, check: bool = False) -> int: ...
def dice_solve(m: int, o: int, hm: int, ho: int, out: U32, quiet: U32, single: U32, twice: U32,
               num: int, replace_takes: bool, rules: int, jobs: int = 2) -> int: ...

# --- ceylonese.pxi: Ceylonese mill's placement phase by one backward pass --------------------

def ceylon_place(m: int, o: int, hm: int, ho: int, out: U16, same: U16, other: U16,
                 open_points: int, jobs: int = 2, check: bool = False) -> int: ...
def ceylon_place_grouped(m: int, o: int, hm: int, ho: int, out: U16, same: U16, other: U16,
                         open_points: int, jobs: int = 2) -> int: ...
def ceylon_capture_view(m: int, o: int, same: U16, out: U16, jobs: int = 2) -> None: ...

# --- search.pxi: 2-bit views and the opening search ----------------------------------------

def pack_wdl(codes: U16, out: U8) -> None: ...
def wdl_at(view: U8, slot: int) -> int: ...

class SearchEngine:
    def __init__(self, table_bits: int = 24, rules: int = 1) -> None: ...
    def set_view(self, m: int, o: int, view: U8) -> None: ...
    def has_view(self, m: int, o: int) -> bool: ...
    def loaded_views(self) -> list[tuple[int, int]]: ...
    @property
    def view_bytes(self) -> int: ...
    @property
    def table_bytes(self) -> int: ...
    @property
    def nodes(self) -> int: ...
    def table_used(self) -> int: ...
    def clear(self) -> None: ...
    def stop(self) -> None:
        """Ask a run in another thread to unwind; stays asked until clear_stop()."""
    def clear_stop(self) -> None: ...
    @property
    def stopping(self) -> bool: ...
    def run(self, own: int, opp: int, own_hand: int, opp_hand: int, deadline: float = 0
            ) -> tuple[Optional[int], Optional[tuple[int, int]]]:
        """(value 1/0/-1, None); (None, (m, o)) when that view must be loaded first;
        (None, None) when stopped or past ``deadline`` (time.monotonic(); 0: none)."""

# --- values.pxi: statistics of value codes ---------------------------------------------------

def code_histogram(codes: U16, jobs: int = 2) -> I64:
    """How many slots hold each code: 65536 counts (solver.values.summarize reads them)."""


def dtz_codes(codes: U16, out: U16, mode: int, limit: int, jobs: int = 2) -> None:
    """One pass converting codes of the tables of the quiet-ply rule (solver.dtz): mode 0, 1
    the first or second solve's rounding of DTZ codes, 2, 3 a capture target's codes for
    the first or second solve, 4 a solve's plies into DTZ codes."""

def against_plain(codes: U16, plain: U16, win: int, loss: int, store: bool, jobs: int = 2) -> int:
    """``codes`` made, in place, their differences from what ``plain`` predicts (a win at
    code ``win``, a loss at ``loss``), or back (solver.dtz); the count of slots slack in
    one of the two only."""

# --- chunks.pxi: a stored chunk's filters, for solver.codec ---

def shuffle_chunk(codes: U16, out: U8) -> None:
    """HDF5's byte shuffle of a chunk into out (2 L bytes): low bytes, then high bytes;
    codes past len(codes) are 0."""

def unshuffle_chunk(data: bytes | memoryview | U8, out: U16) -> None:
    """The first len(out) codes of a shuffled chunk."""

def fletcher32(data: bytes | memoryview | U8) -> int:
    """HDF5's Fletcher-32 of data (H5_checksum_fletcher32)."""
