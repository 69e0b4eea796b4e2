"""Symmetry-reduced index of positions: a subspace's positions as slots of a flat array.

A position is (own, opp): masks of the stones of the side to move and of the opponent
(24 bits on the standard board).  A :class:`Subspace` groups the positions with ``m``
stones of the side to move and ``o`` of the opponent on the board (and, in the
placement phase, stones in hand) of one :class:`~solver.board.Board` (``board``,
the standard one unless given).  Its index maps a position and its symmetric images
(16 on the standard board) to one slot, and a slot back to the canonical position
(the representative of the orbit); the compiled kernels of the subspace's board do
the work (:func:`solver.kernels.kernels_for`).  A few slots hold no
canonical position (*slack*); :meth:`Subspace.is_real` tells them apart.

The index depends only on the stones on the board: the placement subspace ``3-2+6-7``
(3 and 2 on the board, 6 and 7 in hand) uses the same slots as the moving subspace
``3-2``.  Names are ``"m-o"`` with nothing in hand and ``"m-o+h-k"`` otherwise
(h = stones in hand of the side to move, k = of the opponent).

Scheme (docs/design.md §2): a table over all C(24, m) stone sets (C(n, m) on a board of n points) gives the dense number
of the set's orbit representative and a symmetry mapping it there; that symmetry maps
opp, which is then ranked among the 24 - m free points (combinatorial number system).
``slot = representative * C(24 - m, o) + rank``.  For representatives fixed by some
symmetries, the smallest image of opp under them is taken; the other slots are slack.
Over the 49 moving-phase subspaces there are 1.0325 slots per orbit.

>>> s = Subspace(3, 3)
>>> s.name, s.slots
('3-3', 210140)
>>> own, opp = 0b111, 0b111000
>>> slot = s.index(own, opp)
>>> s.index(*s.position(slot)) == slot and s.is_real(slot)
True
>>> Subspace(3, 3, board=BOARDS["six-mens"]).slots
12012
"""

from __future__ import annotations

import re
from types import ModuleType

import numpy as np

from .board import BOARDS, STANDARD_BOARD, Board, as_board
from .errors import integer
from .kernels import MAX_JOBS, kernels_for
from .notation import STANDARD_STONES

_NAME = re.compile(r"^([0-9]{1,2})-([0-9]{1,2})(?:\+([0-9]{1,2})-([0-9]{1,2}))?$")    # (ASCII digits: \d also takes other scripts')


def max_stones(board: Board = STANDARD_BOARD) -> int:
    """Most stones a side the index of ``board`` covers (9 on the standard board).

    >>> max_stones(), max_stones(BOARDS["six-mens"])
    (9, 8)
    """
    return int(kernels_for(board).max_stones())


def count_orbits(m: int, board: Board = STANDARD_BOARD) -> int:
    """Orbits of m-stone sets on the board under its symmetries (from the index table).

    >>> [count_orbits(m) for m in range(5)]
    [1, 4, 30, 158, 757]
    """
    return int(kernels_for(board).orbit_count(m))


def canonical_set(own: int, board: Board = STANDARD_BOARD) -> tuple[int, int]:
    """(representative, g): the representative of own's orbit and a symmetry number g
    with ``board.apply_symmetry(g, own) == representative``; ValueError for a mask
    that is no set of the board's points."""
    board = as_board(board)
    rep, _, g = kernels_for(board).canonical_set(_mask(own, board))
    return int(rep), int(g)


def _mask(value, board: Board) -> int:
    """One mask as a plain int; ValueError outside the board (the kernels check the
    bits of what fits their uint32)."""
    mask = integer(value, "a mask")
    if not 0 <= mask <= board.full_mask:
        raise ValueError(f"masks must be integers in 0 .. 2**{board.num_points} - 1, not {mask}")
    return mask


def _slot(value, sub: "Subspace") -> int:
    """One slot as a plain int: ValueError for no integer, IndexError outside the
    subspace (as the kernels say for slots they can hold)."""
    slot = integer(value, "a slot")
    if not 0 <= slot < 1 << 62:
        raise IndexError(f"slot {slot} out of range for {sub.name} ({sub.slots} slots)")
    return slot


def _slots(values, sub: "Subspace") -> np.ndarray:
    """Slots as a contiguous int64 array: ValueError for what are no integers,
    IndexError for integers no int64 holds (the kernels check the rest)."""
    arr = np.asarray(values)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "O":          # Python ints too large for any integer dtype
            flat = [integer(v, "a slot") for v in arr.ravel()]
            bad = next(v for v in flat if not -(1 << 63) <= v < 1 << 63)
            raise IndexError(f"slot {bad} out of range for {sub.name} ({sub.slots} slots)")
        raise ValueError(f"slots must be integers, not {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and arr.max() >= 1 << 63:
        raise IndexError(f"slot {int(arr.max())} out of range for {sub.name} ({sub.slots} slots)")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _masks(values, board: Board) -> np.ndarray:
    """values as a contiguous uint32 array; ValueError for values outside the board."""
    arr = np.asarray(values)
    if arr.dtype != np.uint32:            # uint32: the kernels check the bits
        if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0
                         or arr.max() > board.full_mask):
            raise ValueError(f"masks must be integers in 0 .. 2**{board.num_points} - 1")
    return np.ascontiguousarray(arr, dtype=np.uint32)


def uses_bmi2() -> bool:
    """Whether the compiled index uses the BMI2 instructions PEXT/PDEP."""
    return bool(kernels_for().have_bmi2())


Shape = tuple[int, int, int, int]


def shape_name(m: int, o: int, h: int = 0, k: int = 0) -> str:
    """The name of subspace m-o+h-k (:attr:`Subspace.name`), for any stone count."""
    return f"{m}-{o}+{h}-{k}" if h or k else f"{m}-{o}"


def successors(m: int, o: int, h: int = 0, k: int = 0, *,
               place: bool | None = None) -> tuple[Shape, Shape | None]:
    """(quiet, capture or None) successors of the subspace m-o+h-k as plain
    ``(m, o, h, k)`` tuples, seen from the opponent, who moves next: what
    :attr:`Subspace.quiet_child` and :attr:`Subspace.capture_child` are made of, for any
    stone count (the plans of rules beyond the index use it too).  ``place``: the ply
    places a stone (default: when h > 0) or moves one, keeping the hands (mixed
    placement).  No capture child when a capture ends the game or nothing can be taken.

    >>> successors(3, 2, 1, 0), successors(10, 3, 2, 4, place=False)
    (((2, 4, 0, 0), None), ((3, 10, 4, 2), (2, 10, 4, 2)))
    """
    place = h > 0 if place is None else place
    mover, hand = (m + 1, h - 1) if place else (m, h)
    capture = None if o < 1 or o - 1 + k < 3 else (o - 1, mover, k, hand)
    return (o, mover, k, hand), capture


class Subspace(tuple):
    """Positions with m and o stones on the board (own_hand, opp_hand in hand).

    A tuple: ``(m, o)`` with nothing in hand, ``(m, o, own_hand, opp_hand)`` otherwise,
    so a subspace is its own key and ``m, o = sub`` unpacks a moving one.  Immutable and
    hashable.  ``board`` (keyword, default the standard board) is the board whose
    compiled index it uses; it is not part of the tuple (subspaces of one rule set are
    compared and used as keys), and every subspace derived from this one has it too.
    All methods take and return plain ints or numpy arrays; the batch methods run one
    compiled loop, no Python per position.

    >>> Subspace(8, 7), Subspace(8, 7) == (8, 7), Subspace(3, 2, 6, 7).name
    (Subspace(8, 7), True, '3-2+6-7')
    >>> Subspace(5, 4).pair, Subspace(5, 4).capture_child, Subspace(5, 3).capture_child
    (Pair(4, 5), Subspace(3, 5), None)
    """

    board: Board
    kernels: ModuleType    # the board's compiled kernels (solver.kernels.kernels_for)

    def __new__(cls, m: int, o: int, own_hand: int = 0, opp_hand: int = 0, *,
                board: Board = STANDARD_BOARD) -> "Subspace":
        board = as_board(board)
        kernels = kernels_for(board)
        most = kernels.max_stones()
        fields = {"m": m, "o": o, "own_hand": own_hand, "opp_hand": opp_hand}
        for name, value in fields.items():
            if (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                    or not 0 <= value <= most):
                raise ValueError(f"{name} must be an int in 0..{most}, not {value!r}")
        values = tuple(int(v) for v in fields.values())
        self = tuple.__new__(cls, values if own_hand or opp_hand else values[:2])
        self.__dict__.update(board=board, kernels=kernels)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("a Subspace is immutable")

    def __delattr__(self, name):
        raise AttributeError("a Subspace is immutable")

    def __reduce__(self):
        return _subspace, (tuple(self), self.board.name, self.board.index_stones)

    def __repr__(self) -> str:
        board = "" if self.board == STANDARD_BOARD else f", board={self.board.name!r}"
        return f"Subspace({', '.join(map(str, self))}{board})"

    def _derived(self, *shape: int) -> "Subspace":
        """A subspace of the same board."""
        return Subspace(*shape, board=self.board)

    @property
    def m(self) -> int:
        """Stones of the side to move on the board."""
        return self[0]

    @property
    def o(self) -> int:
        """Stones of the opponent on the board."""
        return self[1]

    @property
    def own_hand(self) -> int:
        return self[2] if len(self) > 2 else 0

    @property
    def opp_hand(self) -> int:
        return self[3] if len(self) > 2 else 0

    # --- naming ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        """``"m-o"``, or ``"m-o+h-k"`` with stones in hand."""
        return shape_name(self.m, self.o, self.own_hand, self.opp_hand)

    @classmethod
    def parse(cls, name: str, board: Board = STANDARD_BOARD) -> Subspace:
        """Inverse of :attr:`name`: ``Subspace.parse("3-2+6-7")``; ValueError for what
        is no name (not a string included)."""
        match = _NAME.match(name.strip()) if isinstance(name, str) else None
        if not match:
            raise ValueError(f"not a subspace name: {name!r} (expected 'm-o' or 'm-o+h-k')")
        m, o, h, k = match.groups()
        return cls(int(m), int(o), int(h or 0), int(k or 0), board=board)

    @classmethod
    def of(cls, position) -> Subspace:
        """The subspace of a :class:`~solver.position.Position` (stones of the side to move
        first), on its board."""
        return cls(position.own.bit_count(), position.opp.bit_count(), position.own_hand,
                   position.opp_hand, board=position.board)

    def __str__(self) -> str:
        return self.name

    @property
    def is_moving(self) -> bool:
        """Nothing in hand: a subspace of the moving phase."""
        return len(self) == 2

    @property
    def moving(self) -> Subspace:
        """The moving subspace with the same stones on the board (it has the same index)."""
        return self._derived(self.m, self.o)

    @property
    def pair(self) -> Pair:
        """The pair {m-o, o-m} whose file holds this (moving) subspace."""
        return Pair(self.m, self.o, board=self.board)

    # --- where moves lead -----------------------------------------------------------
    # A move hands the turn over: the successor's side to move is this opponent.  A
    # placement takes a stone from the hand to the board; a capture takes one enemy stone.

    @property
    def quiet_child(self) -> Subspace:
        """Where moves that take nothing lead."""
        return self._derived(*successors(self.m, self.o, self.own_hand, self.opp_hand)[0])

    @property
    def mirror(self) -> Subspace:
        """``o-m+k-h``: where slides and jumps that take nothing lead, keeping the hands
        (the quiet child of the moving phase; under mixed placement the other subspace
        of a cycle solved in rounds, solver.retro.unit_of).

        >>> Subspace(5, 4).mirror, Subspace(2, 3, 1, 4).mirror
        (Subspace(4, 5), Subspace(3, 2, 4, 1))
        """
        return self._derived(self.o, self.m, self.opp_hand, self.own_hand)

    @property
    def capture_child(self) -> Subspace | None:
        """Where moves that take a stone lead, or None when a capture ends the game (the
        opponent is left with fewer than three stones, board plus hand) or there is
        nothing to take."""
        capture = successors(self.m, self.o, self.own_hand, self.opp_hand)[1]
        return None if capture is None else self._derived(*capture)

    # --- single positions -----------------------------------------------------------

    @property
    def slots(self) -> int:
        """Number of slots (orbits plus slack)."""
        return int(self.kernels.subspace_slots(self.m, self.o))

    def index(self, own: int, opp: int) -> int:
        """Slot of the position (own, opp); the same for all its symmetric images.
        ValueError for masks that are no position of this subspace."""
        own, opp = _mask(own, self.board), _mask(opp, self.board)
        return int(self.kernels.index_position(self.m, self.o, own, opp))

    def position(self, slot: int) -> tuple[int, int]:
        """Canonical (own, opp) of a slot (of a slack slot: a position indexed elsewhere);
        IndexError for a slot outside 0..slots-1, ValueError for no integer."""
        own, opp = self.kernels.position_at(self.m, self.o, _slot(slot, self))
        return int(own), int(opp)

    def is_real(self, slot: int) -> bool:
        """Whether a canonical position uses the slot (False: slack); errors as
        :meth:`position`."""
        return bool(self.kernels.is_real_slot(self.m, self.o, _slot(slot, self)))

    # --- batches --------------------------------------------------------------------

    def index_many(self, own, opp) -> np.ndarray:
        """Slots (int64) of the positions own[i], opp[i] (array-likes of masks)."""
        own_a = _masks(own, self.board)
        opp_a = _masks(opp, self.board)
        if own_a.shape != opp_a.shape or own_a.ndim != 1:
            raise ValueError("own and opp must be 1-d arrays of the same length")
        out = np.empty(own_a.shape[0], dtype=np.int64)
        self.kernels.index_batch(self.m, self.o, own_a, opp_a, out)
        return out

    def positions_many(self, slots) -> tuple[np.ndarray, np.ndarray]:
        """(own, opp) uint32 arrays of the positions at the given slots (integers:
        ValueError for others, IndexError for a slot outside the subspace)."""
        slots_a = _slots(slots, self)
        if slots_a.ndim != 1:
            raise ValueError("slots must be a 1-d array")
        own = np.empty(slots_a.shape[0], dtype=np.uint32)
        opp = np.empty(slots_a.shape[0], dtype=np.uint32)
        self.kernels.position_batch(self.m, self.o, slots_a, own, opp)
        return own, opp

    def real_mask(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Boolean array: which of the slots start..stop-1 are real (default: all)."""
        start = integer(start, "start")
        stop = self.slots if stop is None else integer(stop, "stop")
        if not 0 <= start <= stop <= self.slots:
            raise IndexError(f"slot range {start}..{stop} outside 0..{self.slots}")
        out = np.empty(stop - start, dtype=np.uint8)
        self.kernels.real_batch(self.m, self.o, start, out)
        return out.view(np.bool_)

    def is_real_many(self, slots) -> np.ndarray:
        """Boolean array: whether each of the given slots is real (errors as
        :meth:`positions_many`)."""
        slots_a = _slots(slots, self)
        if slots_a.ndim != 1:
            raise ValueError("slots must be a 1-d array")
        out = np.empty(slots_a.shape[0], dtype=np.uint8)
        self.kernels.real_at_batch(self.m, self.o, slots_a, out)
        return out.view(np.bool_)

    def count_real(self, threads: int = 2) -> int:
        """Real slots, i.e. orbits of positions, counted from the index (compiled,
        `threads` threads): every slot of a representative with a trivial stabiliser is
        real, the slots of the others are tested one by one.  ValueError where
        `threads` is no integer in 1..:data:`solver.kernels.MAX_JOBS` (the kernel checks
        the range; here what Cython would truncate or overflow on: 2.5, 2**40)."""
        threads = integer(threads, "threads")
        if not 1 <= threads <= MAX_JOBS:
            raise ValueError(f"threads must lie in 1..{MAX_JOBS}, not {threads}")
        return int(self.kernels.count_real_slots(self.m, self.o, threads))


class Pair(tuple):
    """A moving-phase pair {m-o, o-m} (m <= o), solved together and stored in one file.

    A tuple ``(m, o)`` with m <= o, whichever order it is given in; ``board`` (keyword)
    as for :class:`Subspace`, which its subspaces have.

    >>> Pair(8, 7), Pair(7, 8).name, Pair.parse("4-3").subspaces
    (Pair(7, 8), '7-8', [Subspace(3, 4), Subspace(4, 3)])
    >>> Pair(4, 5).dependencies, Pair(3, 3).dependencies
    ([Pair(4, 4), Pair(3, 5)], [])
    """

    board: Board

    def __new__(cls, m: int, o: int, *, board: Board = STANDARD_BOARD) -> "Pair":
        board = as_board(board)
        most = max_stones(board)
        for value in (m, o):
            if (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                    or not 3 <= value <= most):
                raise ValueError(f"stone counts of a pair must be ints in 3..{most}, "
                                 f"not {value!r}")
        self = tuple.__new__(cls, (min(int(m), int(o)), max(int(m), int(o))))
        self.__dict__["board"] = board
        return self

    def __setattr__(self, name, value):
        raise AttributeError("a Pair is immutable")

    def __delattr__(self, name):
        raise AttributeError("a Pair is immutable")

    def __reduce__(self):
        return _pair, (tuple(self), self.board.name, self.board.index_stones)

    def __repr__(self) -> str:
        board = "" if self.board == STANDARD_BOARD else f", board={self.board.name!r}"
        return f"Pair({self[0]}, {self[1]}{board})"

    @property
    def name(self) -> str:
        """``"m-o"`` with m <= o (also the file name's part)."""
        return f"{self[0]}-{self[1]}"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str, stones: int = STANDARD_STONES, board: Board = STANDARD_BOARD) -> Pair:
        """``'8-7'`` -> Pair(7, 8); ValueError naming what is wrong (counts must lie in
        3..stones, the stones per side of the rules)."""
        return cls(*parse_pair(text, stones), board=board)

    @property
    def subspaces(self) -> list[Subspace]:
        """m-o and o-m (one if m == o)."""
        m, o = self
        shapes = [(m, o)] if m == o else [(m, o), (o, m)]
        return [Subspace(*shape, board=self.board) for shape in shapes]

    @property
    def capture_targets(self) -> list[Subspace]:
        """The solved subspaces that captures from this pair lead into."""
        return [t for s in self.subspaces if (t := s.capture_child) is not None]

    @property
    def dependencies(self) -> list[Pair]:
        """The pairs that hold :attr:`capture_targets`: to be solved before this one."""
        deps: list[Pair] = []
        for target in self.capture_targets:
            if target.pair not in deps:
                deps.append(target.pair)
        return deps

    @property
    def slots(self) -> int:
        return sum(s.slots for s in self.subspaces)


def parse_pair(text: str, stones: int) -> tuple[int, int]:
    """``'8-7'`` -> (7, 8), for any stone count (:meth:`Pair.parse` makes a Pair of it);
    ValueError naming what is wrong (counts must lie in 3..stones; not a string included)."""
    try:
        if not isinstance(text, str) or not re.fullmatch(r"[0-9]+-[0-9]+", text.strip()):
            raise ValueError
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        raise ValueError(f"cannot parse pair {text!r}: expected M-O such as 8-7") from None
    if not (3 <= a <= stones and 3 <= b <= stones):
        raise ValueError(f"pair {text}: stone counts must be 3..{stones}")
    return min(a, b), max(a, b)


def _subspace(shape: tuple, board: str, index_stones: int = 0) -> Subspace:
    """Unpickles a Subspace (its board by name, with its kernels: Board.indexing)."""
    return Subspace(*shape, board=BOARDS[board].indexing(index_stones))


def _pair(shape: tuple, board: str, index_stones: int = 0) -> Pair:
    """Unpickles a Pair (its board by name, with its kernels: Board.indexing)."""
    return Pair(*shape, board=BOARDS[board].indexing(index_stones))


def moving_subspaces(board: Board = STANDARD_BOARD, stones: int = STANDARD_STONES) -> list[Subspace]:
    """The moving-phase subspaces m-o of ``board`` with 3 <= m, o <= ``stones`` that fit
    on it, in order of m then o: for the standard game the 49 of 3-3 to 9-9.

    >>> len(moving_subspaces()), len(moving_subspaces(BOARDS["six-mens"], 8))
    (49, 36)
    """
    counts = range(3, stones + 1)
    return [Subspace(m, o, board=board) for m in counts for o in counts if m + o <= board.num_points]


def index_stats(threads: int = 2, board: Board = STANDARD_BOARD, stones: int = STANDARD_STONES) -> dict:
    """Orbits, slots and slots per orbit of each moving-phase subspace of ``board`` with
    at most ``stones`` a side (:func:`moving_subspaces`), plus totals.

    Orbits are counted from the index itself (:meth:`Subspace.count_real`)."""
    rows = []
    for sub in moving_subspaces(board, stones):
        orbits = sub.count_real(threads)
        slots = sub.slots
        rows.append({"subspace": sub.name, "orbits": orbits, "slots": slots,
                     "slots_per_orbit": slots / orbits})
    orbits = sum(r["orbits"] for r in rows)
    slots = sum(r["slots"] for r in rows)
    return {"subspaces": rows, "orbits": orbits, "slots": slots,
            "slots_per_orbit": slots / orbits}


def format_index_stats(stats: dict) -> str:
    """The stats of :func:`index_stats` as a text table."""
    lines = [f"{'subspace':>8} {'orbits':>15} {'slots':>15} {'slots/orbit':>11}"]
    for r in stats["subspaces"]:
        lines.append(f"{r['subspace']:>8} {r['orbits']:>15,} {r['slots']:>15,} "
                     f"{r['slots_per_orbit']:>11.4f}")
    lines.append(f"{'total':>8} {stats['orbits']:>15,} {stats['slots']:>15,} "
                 f"{stats['slots_per_orbit']:>11.4f}")
    return "\n".join(lines)


def random_positions(rng: np.random.Generator, m: int, o: int, n: int,
                     board: Board = STANDARD_BOARD) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uniformly random positions of subspace m-o of ``board`` as (own, opp) uint32
    mask arrays (numpy only: independent of the compiled index, for tests and benchmarks)."""
    keys = rng.random((n, board.num_points)).argsort(axis=1).astype(np.uint32)
    one = np.uint32(1)
    own = (one << keys[:, :m]).sum(axis=1, dtype=np.uint32)
    opp = (one << keys[:, m:m + o]).sum(axis=1, dtype=np.uint32)
    return own, opp
