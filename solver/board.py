"""The board of Nine Men's Morris as data: points, adjacency, mills and symmetries.

Points are numbered 0..23 and named like chess squares (files a-g from the left,
ranks 1-7 from the bottom).  A set of points is a 24-bit integer mask, bit ``i``
standing for point ``i``; every other module relies on this numbering.

>>> POINT_NAMES[0], POINT_NAMES[23]
('a7', 'g1')
>>> sorted(POINT_NAMES[p] for p in neighbours(point_index("d2")))
['b2', 'd1', 'd3', 'f2']
>>> len(MILLS), len(SYMMETRIES)
(16, 16)
"""

from __future__ import annotations

# Row by row from the top, left to right: the order the developers' guide lists them.
POINT_NAMES: tuple[str, ...] = (
    "a7", "d7", "g7",
    "b6", "d6", "f6",
    "c5", "d5", "e5",
    "a4", "b4", "c4", "e4", "f4", "g4",
    "c3", "d3", "e3",
    "b2", "d2", "f2",
    "a1", "d1", "g1",
)
NUM_POINTS = 24
FULL_MASK = (1 << NUM_POINTS) - 1

_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}

# Coordinates (x, y) with x = file 0..6 (a..g) and y = rank 0..6 (1..7).
COORDS: tuple[tuple[int, int], ...] = tuple(
    (ord(name[0]) - ord("a"), int(name[1]) - 1) for name in POINT_NAMES
)
_AT = {xy: i for i, xy in enumerate(COORDS)}


def point_index(name: str) -> int:
    """Number of the point called ``name`` (``'a1'``..``'g7'``); ValueError if none."""
    try:
        return _INDEX[name]
    except KeyError:
        raise ValueError(f"unknown point {name!r}") from None


def point_name(index: int) -> str:
    """Name of point number ``index``."""
    return POINT_NAMES[index]


def _lines() -> list[tuple[int, int, int]]:
    """The 16 straight lines of three points: 8 horizontal, 8 vertical."""
    lines = []
    for axis in (0, 1):
        groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for i, (x, y) in enumerate(COORDS):
            along, across = (x, y) if axis == 0 else (y, x)
            # The middle row/column (3) holds two lines, split by the centre.
            side = 0 if across != 3 else (0 if along < 3 else 1)
            groups.setdefault((across, side), []).append((along, i))
        for key in sorted(groups):
            pts = [i for _, i in sorted(groups[key])]
            assert len(pts) == 3
            lines.append(tuple(pts))
    return lines


MILL_LINES: tuple[tuple[int, int, int], ...] = tuple(_lines())
MILLS: tuple[int, ...] = tuple(sum(1 << p for p in line) for line in MILL_LINES)

# Neighbours are consecutive points on a line; every edge of the board lies on a mill line.
_adj = [0] * NUM_POINTS
for _a, _b, _c in MILL_LINES:
    for _u, _v in ((_a, _b), (_b, _c)):
        _adj[_u] |= 1 << _v
        _adj[_v] |= 1 << _u
ADJACENT: tuple[int, ...] = tuple(_adj)
del _adj

# For each point, the masks of the (two) mills through it.
MILLS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in MILLS if m >> p & 1) for p in range(NUM_POINTS)
)


def neighbours(point: int) -> list[int]:
    """Points adjacent to ``point``."""
    return [q for q in range(NUM_POINTS) if ADJACENT[point] >> q & 1]


def _ring_and_direction(i: int) -> tuple[int, int, int]:
    x, y = COORDS[i]
    dist = max(abs(x - 3), abs(y - 3))  # 3 outer, 2 middle, 1 inner
    sx = (x > 3) - (x < 3)
    sy = (y > 3) - (y < 3)
    return dist, sx, sy


def _symmetries() -> list[tuple[int, ...]]:
    """The 16 automorphisms as permutations: perm[i] is the image of point i."""
    perms = []
    for swap_rings in (False, True):
        for transpose in (False, True):
            for flip_x in (False, True):
                for flip_y in (False, True):
                    perm = []
                    for i in range(NUM_POINTS):
                        dist, sx, sy = _ring_and_direction(i)
                        if swap_rings:
                            dist = 4 - dist
                        if transpose:
                            sx, sy = sy, sx
                        if flip_x:
                            sx = -sx
                        if flip_y:
                            sy = -sy
                        perm.append(_AT[(3 + sx * dist, 3 + sy * dist)])
                    perms.append(tuple(perm))
    return perms


SYMMETRIES: tuple[tuple[int, ...], ...] = tuple(_symmetries())
IDENTITY = 0
assert SYMMETRIES[IDENTITY] == tuple(range(NUM_POINTS))


def apply_symmetry(sym: int, mask: int) -> int:
    """Image of the point set ``mask`` under symmetry number ``sym``."""
    perm = SYMMETRIES[sym]
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << perm[low.bit_length() - 1]
        mask ^= low
    return out


def inverse_symmetry(sym: int) -> int:
    """Number of the symmetry that undoes ``sym``."""
    perm = SYMMETRIES[sym]
    inv = [0] * NUM_POINTS
    for i, j in enumerate(perm):
        inv[j] = i
    return SYMMETRIES.index(tuple(inv))


def mask_of(points) -> int:
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
    # Peel off the lowest set bit: as many steps as stones, not 24 (the reference
    # move generator calls this in its inner loops).
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _check() -> None:
    edges = {(u, v) for u in range(NUM_POINTS) for v in neighbours(u)}
    assert len(edges) == 64  # 32 undirected edges
    mills = set(MILLS)
    for perm in SYMMETRIES:
        assert sorted(perm) == list(range(NUM_POINTS))
        assert {(perm[u], perm[v]) for u, v in edges} == edges
        assert {sum(1 << perm[p] for p in points_of(m)) for m in mills} == mills
    assert len(set(SYMMETRIES)) == 16


_check()
