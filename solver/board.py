"""Boards as data: points, adjacency, mills and the symmetry group computed from them.

A :class:`Board` is a value: named points with coordinates, the edges a stone slides
along and the mills (lines of three).  Its symmetries are *computed*: every permutation
of the points that keeps the edges and the mills (:attr:`Board.symmetries`).

Points are named like chess squares on the board's own grid (files a, b, ... from the
left, ranks 1, 2, ... from the bottom) and numbered row by row from the top left; a set
of points is an integer mask, bit ``i`` standing for point ``i``.  The boards of the
rule books (docs/design.md §9), with points, mills and symmetries:

- ``standard``: 24 points a1..g7, 16 mills, 16 symmetries;
- ``morabaraba``: the standard board and its four diagonals, 24 points, 20 mills, 16;
- ``six-mens``: two squares on a 5×5 grid, a1..e5, 16 points, 8 mills, 16;
- ``seven-mens``: six-mens and the centre c3, 17 points, 10 mills, 8;
- ``seven-mens-lines``: the same points and paths, every three points in a row of the
  two 5-point lines through the centre a mill (a3-b3-c3 ... c3-c4-c5): 14 mills, the
  centre in 6 of them, 8 (the other reading of the rule books' board: docs/results.md);
- ``three-mens``: 3×3 points a1..c3, 8 lines, 8.

The standard board's tables stay available under their module-level names
(``POINT_NAMES``, ``ADJACENT``, ``MILLS``, ``SYMMETRIES``, ...), which the kernels and
the index read; its numbering never changes (database files depend on it).

>>> POINT_NAMES[0], POINT_NAMES[23]
('a7', 'g1')
>>> sorted(POINT_NAMES[p] for p in neighbours(point_index("d2")))
['b2', 'd1', 'd3', 'f2']
>>> len(MILLS), len(SYMMETRIES)
(16, 16)
>>> [(b.name, b.num_points, len(b.mills), len(b.symmetries)) for b in BOARDS.values()][2:]
[('six-mens', 16, 8, 16), ('seven-mens', 17, 10, 8), ('seven-mens-lines', 17, 14, 8), ('three-mens', 9, 8, 8)]
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Iterable, Mapping

#: Most points a board may have: masks, packed moves (5 bits a point) and the
#: kernels' tables are sized for it.
MAX_POINTS = 25
#: Most stones a side the kernels' index of any board covers (a board of 24 or 25
#: points: every stone count its rules allow, ``2 * stones <= points``).
MAX_INDEX_STONES = 12
#: Stones a side of the standard board's first module (``solver._kernels``), kept as it
#: always was: its machine code, speed and files do not change (docs/design.md §9).
STANDARD_INDEX_STONES = 9


def mask_of(points: Iterable[int]) -> int:
    """Mask of an iterable of point numbers."""
    out = 0
    for p in points:
        out |= 1 << p
    return out


def points_of(mask: int) -> list[int]:
    """Point numbers in ``mask``, ascending.

    >>> points_of(0b1000_0101)
    [0, 2, 7]
    """
    # A byte at a time from a table: the reference move generator and every brute-force
    # test call this in their inner loops, and a bit at a time was their largest cost.
    out: list[int] = []
    base = 0
    while mask:
        out += _BYTE_POINTS[base][mask & 0xFF]
        mask >>= 8
        base += 1
    return out


# _BYTE_POINTS[k][b]: the points of byte b at byte k of a mask, for masks of up to
# MAX_POINTS points.
_BYTE_POINTS = [[[8 * k + i for i in range(8) if b >> i & 1] for b in range(256)]
                for k in range((MAX_POINTS + 7) // 8)]


def _number_below(value, end: int, rule: str) -> int:
    """``value`` as an int in 0..end-1 (numpy integers too, not bools, as
    :func:`solver.errors.integer` takes them: this module imports nothing of the package,
    as setup.py reads it alone); ValueError saying ``rule`` otherwise."""
    number = -1
    if not isinstance(value, bool):
        try:
            number = operator.index(value)
        except TypeError:
            pass
    if not 0 <= number < end:
        raise ValueError(f"{rule}, not {str(value)[:20]!r}")
    return number


@lru_cache(maxsize=None)
def _fixed_colourings(perm: tuple[int, ...]) -> dict[tuple[int, int], int]:
    """(m, o) -> the colourings with m stones of one colour and o of the other that
    ``perm`` maps onto themselves: the coefficients of the product, over its cycles
    of length l, of (1 + x^l + y^l)."""
    seen = [False] * len(perm)
    counts = {(0, 0): 1}
    for start in range(len(perm)):
        length, p = 0, start
        while not seen[p]:
            seen[p], p, length = True, perm[p], length + 1
        if length:
            grown: dict[tuple[int, int], int] = {}
            for (a, b), c in counts.items():
                for key in ((a, b), (a + length, b), (a, b + length)):
                    grown[key] = grown.get(key, 0) + c
            counts = grown
    return counts


def _automorphisms(n: int, edges: frozenset, mills: frozenset) -> list[tuple[int, ...]]:
    """Every permutation of range(n) that maps edges onto edges and mills onto mills,
    in increasing (lexicographic) order, the identity first.

    Backtracking, point by point: a partial map is pruned as soon as an edge or a mill
    among the mapped points has no image, and a point only goes to a point of the same
    degree and number of mills."""
    nbrs = [set() for _ in range(n)]
    for u, v in edges:
        nbrs[u].add(v)
        nbrs[v].add(u)
    through = [[m for m in mills if p in m] for p in range(n)]
    kind = [(len(nbrs[p]), len(through[p])) for p in range(n)]
    found: list[tuple[int, ...]] = []
    perm = [-1] * n
    used = [False] * n

    def fits(p: int) -> bool:
        q = perm[p]
        for r in nbrs[p]:
            if perm[r] >= 0 and perm[r] not in nbrs[q]:
                return False
        for m in through[p]:
            if all(perm[r] >= 0 for r in m) and frozenset(perm[r] for r in m) not in mills:
                return False
        return True

    def extend(p: int) -> None:
        if p == n:
            found.append(tuple(perm))
            return
        for q in range(n):
            if not used[q] and kind[q] == kind[p]:
                perm[p], used[q] = q, True
                if fits(p):
                    extend(p + 1)
                perm[p], used[q] = -1, False

    extend(0)
    return found


@dataclass(frozen=True)
class Board:
    """A Morris board: named points, the edges stones slide along, and the mills.

    ``points``: names (``'a7'``), numbered in this order; ``mill_lines``: the mills as
    lines of three point numbers, each in order along the line (``mills`` are their
    masks); ``edges``: pairs of adjacent points.  The
    rest is derived: coordinates from the names, masks, and the symmetry group (found
    by a search on first use and kept: a program that never plays on a board never
    pays for its group).

    ``lines_win`` (keyword, not part of the identity either): a line of three wins
    here outright, the rule its compiled kernels play (setup.py compiles it in).
    ``kernel_stones`` is the most stones a side its compiled kernels index (the widest
    of its modules).

    ``index_stones`` (keyword, not part of the board's identity: boards that differ in
    it are equal, and files name the board alone) is the most stones a side the index
    of the compiled kernels this object stands for covers: as many as fit on the board,
    at most :data:`MAX_INDEX_STONES`, by default.  The standard board has two modules:
    ``STANDARD_BOARD`` keeps the nine of its first one, and rules of more stones use
    :meth:`indexing` (docs/design.md §9).

    >>> board = BOARDS["three-mens"]
    >>> board.points, len(board.edges), board.point_index("b2")
    (('a3', 'b3', 'c3', 'a2', 'b2', 'c2', 'a1', 'b1', 'c1'), 12, 4)
    >>> [board.point_name(p) for p in board.neighbours(board.point_index("a1"))]
    ['a2', 'b1']
    """

    name: str
    points: tuple[str, ...]
    mill_lines: tuple[tuple[int, ...], ...]
    edges: tuple[tuple[int, int], ...]
    index_stones: int = field(default=0, compare=False, repr=False, kw_only=True)
    #: Whether a line of three wins outright on this board (the rule of its games, which
    #: its compiled kernels play: Three Men's Morris) rather than take a stone.
    lines_win: bool = field(default=False, compare=False, repr=False, kw_only=True)
    # Derived in __post_init__ (not compared: they follow from the fields above).
    num_points: int = field(init=False, compare=False, repr=False)
    full_mask: int = field(init=False, compare=False, repr=False)
    coords: tuple[tuple[int, int], ...] = field(init=False, compare=False, repr=False)
    size: int = field(init=False, compare=False, repr=False)
    adjacent: tuple[int, ...] = field(init=False, compare=False, repr=False)
    mills: tuple[int, ...] = field(init=False, compare=False, repr=False)
    mills_through: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    _index: dict = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.points)
        if not 3 <= n <= MAX_POINTS or len(set(self.points)) != n:
            raise ValueError(f"board {self.name}: 3..{MAX_POINTS} points with distinct names")
        coords = tuple((ord(name[0]) - ord("a"), int(name[1:]) - 1) for name in self.points)
        adjacent = [0] * n
        for u, v in self.edges:
            adjacent[u] |= 1 << v
            adjacent[v] |= 1 << u
        mills = tuple(mask_of(line) for line in self.mill_lines)
        if any(len(line) != 3 for line in self.mill_lines) or len(set(mills)) != len(mills):
            raise ValueError(f"board {self.name}: mills are distinct lines of three points")
        put = object.__setattr__
        widest = min(MAX_INDEX_STONES, n // 2)
        if not self.index_stones:
            put(self, "index_stones", widest)
        if not 3 <= self.index_stones <= widest:
            raise ValueError(f"board {self.name}: an index of 3..{widest} stones a side")
        put(self, "num_points", n)
        put(self, "full_mask", (1 << n) - 1)
        put(self, "coords", coords)
        put(self, "size", 1 + max(max(xy) for xy in coords))
        put(self, "adjacent", tuple(adjacent))
        put(self, "mills", mills)
        put(self, "mills_through", tuple(tuple(m for m in mills if m >> p & 1) for p in range(n)))
        put(self, "_index", {name: i for i, name in enumerate(self.points)})

    def __repr__(self) -> str:
        return f"<Board {self.name}: {self.num_points} points, {len(self.mills)} mills>"

    @property
    def kernel_stones(self) -> int:
        """The most stones a side the compiled kernels of this board index (its widest
        module: :meth:`indexing`)."""
        return min(MAX_INDEX_STONES, self.num_points // 2)

    def __hash__(self) -> int:
        return hash(self.name)

    # --- the compiled kernels (setup.py builds them, solver.kernels imports them) -----
    def indexing(self, stones: int) -> "Board":
        """This board, with the kernels of the fewest stones a side whose index covers
        ``stones``: the board of :data:`BOARDS` where its module does, else its widest
        module (equal to it, cached: one object).

        >>> STANDARD_BOARD.indexing(9) is STANDARD_BOARD, STANDARD_BOARD.indexing(10).index_stones
        (True, 12)
        >>> STANDARD_BOARD.indexing(10) == STANDARD_BOARD, STANDARD_BOARD.indexing(10).module_suffix
        (True, '_standard_12')
        >>> STANDARD_BOARD.indexing(10).indexing(9) is STANDARD_BOARD, BOARDS["six-mens"].indexing(12) is BOARDS["six-mens"]
        (True, True)
        """
        first = BOARDS.get(self.name)
        if first != self:           # a board of its own (not one of BOARDS): its module
            first = self
        return first if stones <= first.index_stones else _widest(first)

    @property
    def module_suffix(self) -> str:
        """The name suffix of this board's compiled modules, ``_kernels`` and
        ``verify._oracle``: ``''`` for the standard board's first module (nine stones),
        ``'_standard_12'`` for its module of twelve, ``'_six_mens'`` for six-mens."""
        if self.name == "standard":
            return "" if self.index_stones == STANDARD_INDEX_STONES else f"_standard_{self.index_stones}"
        return "_" + self.name.replace("-", "_")

    # --- points ---------------------------------------------------------------------
    def free(self, white: int, black: int) -> int:
        """Mask of the points neither stone mask holds (a full board: 0).

        >>> bin(STANDARD_BOARD.free(0b1, 0b110) & 0b1111)
        '0b1000'
        """
        return self.full_mask & ~(white | black)

    def point_index(self, name: str) -> int:
        """Number of the point called ``name``; ValueError if the board has none."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown point {name!r}") from None

    def point_name(self, index: int) -> str:
        """Name of point number ``index``; ValueError if the board has none (-1 is no
        point, not the last).

        >>> STANDARD_BOARD.point_name(0), STANDARD_BOARD.point_name(23)
        ('a7', 'g1')
        """
        return self.points[self._number(index)]

    def neighbours(self, point: int) -> list[int]:
        """Points adjacent to ``point``, ascending; ValueError if the board has no such point."""
        return points_of(self.adjacent[self._number(point)])

    def _number(self, point: int) -> int:
        if type(point) is int and 0 <= point < self.num_points:
            return point
        return _number_below(point, self.num_points,
                             f"points of the {self.name} board are numbered 0..{self.num_points - 1}")

    @property
    def drawn_lines(self) -> tuple[tuple[int, ...], ...]:
        """What a picture of the board draws: the mills, then the edges that lie on no mill
        (the spokes of the six men's board)."""
        on_mill = {frozenset(pair) for line in self.mill_lines for pair in zip(line, line[1:])}
        return self.mill_lines + tuple(e for e in self.edges if frozenset(e) not in on_mill)

    @property
    def files(self) -> str:
        """The file letters of the grid: ``'abcdefg'`` for the standard board."""
        return "abcdefghijklmnopqrstuvwxyz"[:self.size]

    # --- symmetries -----------------------------------------------------------------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Every permutation of the points that keeps the edges and the mills, in
        increasing order, the identity first (computed on first use, then kept)."""
        return tuple(_automorphisms(self.num_points, frozenset(frozenset(e) for e in self.edges),
                                    frozenset(frozenset(line) for line in self.mill_lines)))

    def apply_symmetry(self, sym: int, mask: int) -> int:
        """Image of the point set ``mask`` under symmetry number ``sym`` (0 ..
        ``len(symmetries) - 1``); ValueError for another number or a mask of points the
        board does not have."""
        symmetries = self.symmetries
        if not (type(sym) is int and 0 <= sym < len(symmetries)):
            sym = _number_below(sym, len(symmetries), f"the {self.name} board has symmetries "
                                                       f"0..{len(symmetries) - 1}")
        if not (type(mask) is int and 0 <= mask <= self.full_mask):
            mask = _number_below(mask, self.full_mask + 1, f"a mask of the {self.name} board is "
                                                           f"an int of {self.num_points} bits")
        perm = symmetries[sym]
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << perm[low.bit_length() - 1]
            mask ^= low
        return out

    def orbits(self, m: int, o: int = 0) -> int:
        """Positions with ``m`` stones of one colour and ``o`` of the other up to the
        board's symmetries, by Burnside's lemma: the mean over the group of the
        colourings each symmetry fixes (a fixed colouring gives each of its cycles one
        colour).  Independent of the kernels' index, whose real slots it counts.

        >>> [STANDARD_BOARD.orbits(m) for m in range(5)], STANDARD_BOARD.orbits(3, 3)
        ([1, 4, 30, 158, 757], 169626)
        """
        fixed = sum(_fixed_colourings(perm).get((m, o), 0) for perm in self.symmetries)
        return fixed // len(self.symmetries)

    def inverse_symmetry(self, sym: int) -> int:
        """Number of the symmetry that undoes ``sym``; ValueError for a number the board
        has no symmetry of (as :meth:`apply_symmetry`)."""
        symmetries = self.symmetries
        sym = _number_below(sym, len(symmetries), f"the {self.name} board has symmetries "
                                                   f"0..{len(symmetries) - 1}")
        inv = [0] * self.num_points
        for i, j in enumerate(symmetries[sym]):
            inv[j] = i
        return self.symmetries.index(tuple(inv))


@lru_cache(maxsize=None)
def _widest(board: Board) -> Board:
    """``board`` with the index of the most stones that fit (:meth:`Board.indexing`),
    one object per board (its symmetry group found once): itself where its index does."""
    most = board.kernel_stones
    if board.index_stones == most:
        return board
    wide = replace(board, index_stones=most)
    wide.__dict__["symmetries"] = board.symmetries
    return wide


def _make(name: str, rows: list[str], mills: list[str], extra_edges: list[str] = (),
          slide_along_mills: bool = True, index_stones: int = 0, lines_win: bool = False) -> Board:
    """A board from text: ``rows`` of point names from the top, ``mills`` as 'a7 d7 g7';
    stones slide between consecutive points of a mill (``slide_along_mills``) and along
    ``extra_edges`` ('b4 c4')."""
    points = tuple(p for row in rows for p in row.split())
    at = {p: i for i, p in enumerate(points)}
    lines = tuple(tuple(at[p] for p in m.split()) for m in mills)
    edges: list[tuple[int, int]] = []
    segments = [line for line in lines if slide_along_mills] + [tuple(at[p] for p in e.split())
                                                                 for e in extra_edges]
    for line in segments:
        for u, v in zip(line, line[1:]):
            if (u, v) not in edges and (v, u) not in edges:
                edges.append((u, v))
    return Board(name, points, lines, tuple(edges), index_stones=index_stones, lines_win=lines_win)


_STANDARD_ROWS = ["a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4 e4 f4 g4", "c3 d3 e3",
                  "b2 d2 f2", "a1 d1 g1"]
# The order of the mills is the kernels' table order: rows from the bottom, the middle
# row's left half first, then the columns from the left.
_STANDARD_MILLS = ["a1 d1 g1", "b2 d2 f2", "c3 d3 e3", "a4 b4 c4", "e4 f4 g4", "c5 d5 e5",
                   "b6 d6 f6", "a7 d7 g7", "a1 a4 a7", "b2 b4 b6", "c3 c4 c5", "d1 d2 d3",
                   "d5 d6 d7", "e3 e4 e5", "f2 f4 f6", "g1 g4 g7"]
_DIAGONALS = ["a1 b2 c3", "g1 f2 e3", "a7 b6 c5", "g7 f6 e5"]
_SMALL_ROWS = ["a5 c5 e5", "b4 c4 d4", "a3 b3 d3 e3", "b2 c2 d2", "a1 c1 e1"]
_SMALL_MILLS = ["a1 c1 e1", "b2 c2 d2", "b4 c4 d4", "a5 c5 e5", "a1 a3 a5", "b2 b3 b4",
                "d2 d3 d4", "e1 e3 e5"]
_SPOKES = ["a3 b3", "d3 e3", "c1 c2", "c4 c5"]

STANDARD_BOARD = _make("standard", _STANDARD_ROWS, _STANDARD_MILLS, index_stones=STANDARD_INDEX_STONES)
#: Every board by name.  Three men's morris slides along rows and columns only: the
#: diagonals are lines that win, not paths (Murray's "smaller merels").
BOARDS: Mapping[str, Board] = MappingProxyType({b.name: b for b in (
    STANDARD_BOARD,
    _make("morabaraba", _STANDARD_ROWS, _STANDARD_MILLS + _DIAGONALS),
    _make("six-mens", _SMALL_ROWS, _SMALL_MILLS, _SPOKES),
    _make("seven-mens", _SMALL_ROWS[:2] + ["a3 b3 c3 d3 e3"] + _SMALL_ROWS[3:],
          _SMALL_MILLS + ["b3 c3 d3", "c2 c3 c4"], _SPOKES),
    _make("seven-mens-lines", _SMALL_ROWS[:2] + ["a3 b3 c3 d3 e3"] + _SMALL_ROWS[3:],
          _SMALL_MILLS + ["a3 b3 c3", "b3 c3 d3", "c3 d3 e3", "c1 c2 c3", "c2 c3 c4", "c3 c4 c5"]),
    _make("three-mens", ["a3 b3 c3", "a2 b2 c2", "a1 b1 c1"],
          ["a1 b1 c1", "a2 b2 c2", "a3 b3 c3", "a1 a2 a3", "b1 b2 b3", "c1 c2 c3",
           "a1 b2 c3", "a3 b2 c1"], ["a1 b1 c1", "a2 b2 c2", "a3 b3 c3", "a1 a2 a3",
                                   "b1 b2 b3", "c1 c2 c3"], slide_along_mills=False, lines_win=True),
)})


def board_named(name: str) -> Board:
    """The board called ``name``; ValueError naming the boards there are."""
    try:
        return BOARDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown board {str(name)[:40]!r} (boards: {', '.join(BOARDS)})") from None


def as_board(board: "Board | str") -> Board:
    """``board`` itself, or the board of that name (as :class:`~solver.rules.Rules` takes
    either); ValueError for anything else.

    >>> as_board("six-mens").num_points, as_board(STANDARD_BOARD) is STANDARD_BOARD
    (16, True)
    """
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return board_named(board)
    raise ValueError(f"a board is a Board or its name ({', '.join(BOARDS)}), "
                     f"not {type(board).__name__}")


# --- the standard board under the names the rest of the package has always used ------

POINT_NAMES: tuple[str, ...] = STANDARD_BOARD.points
NUM_POINTS = STANDARD_BOARD.num_points
FULL_MASK = STANDARD_BOARD.full_mask
COORDS: tuple[tuple[int, int], ...] = STANDARD_BOARD.coords
MILL_LINES: tuple[tuple[int, ...], ...] = STANDARD_BOARD.mill_lines
MILLS: tuple[int, ...] = STANDARD_BOARD.mills
ADJACENT: tuple[int, ...] = STANDARD_BOARD.adjacent
MILLS_THROUGH: tuple[tuple[int, ...], ...] = STANDARD_BOARD.mills_through
SYMMETRIES: tuple[tuple[int, ...], ...] = STANDARD_BOARD.symmetries
IDENTITY = 0
point_index = STANDARD_BOARD.point_index
point_name = STANDARD_BOARD.point_name
neighbours = STANDARD_BOARD.neighbours
apply_symmetry = STANDARD_BOARD.apply_symmetry
inverse_symmetry = STANDARD_BOARD.inverse_symmetry


def _check() -> None:
    """Facts the kernels rely on (ext/board.pxi): 24 points, 32 edges, two mills through
    every point, 16 symmetries with the identity first."""
    assert NUM_POINTS == 24 and len(STANDARD_BOARD.edges) == 32 and len(MILLS) == 16
    assert all(len(ms) == 2 for ms in MILLS_THROUGH)
    assert len(SYMMETRIES) == 16 and SYMMETRIES[IDENTITY] == tuple(range(NUM_POINTS))


_check()
