"""Board diagrams in plain text: the squares with their lines.

Drawn from the board data (coordinates, mills and edges of the position's board), not
typed in, so it cannot disagree with :mod:`solver.board`; every board of the variants
is drawn the same way (diagonals as ``/`` and ``\\``).

>>> from solver.position import parse_position
>>> print(diagram(parse_position("W:a1,d2,g7 B:a4,b6 w")))
7 .-----------.-----------W
  |           |           |
6 |   B-------.-------.   |
  |   |       |       |   |
5 |   |   .---.---.   |   |
  |   |   |       |   |   |
4 B---.---.       .---.---.
  |   |   |       |   |   |
3 |   |   .---.---.   |   |
  |   |       |       |   |
2 |   .-------W-------.   |
  |           |           |
1 W-----------.-----------.
  a   b   c   d   e   f   g

Optional ``marks`` put brackets around points, e.g. the last move (``LAST_FROM``,
``LAST_TO``) and the stones a mill may take (``TAKEABLE``):

>>> from solver.board import point_index
>>> marks = {point_index("d1"): LAST_FROM, point_index("g1"): LAST_TO, point_index("a4"): TAKEABLE}
>>> print(diagram(parse_position("W:a1,g1,d2 B:a4,b6 b"), marks=marks).splitlines()[6])
4 <B>--.---.       .---.---.
>>> print(diagram(parse_position("W:a1,g1,d2 B:a4,b6 b"), marks=marks).splitlines()[12])
1  W----------(.)---------[W]
"""

from __future__ import annotations

from typing import Mapping, Optional

from .board import Board
from .position import Position

#: Brackets drawn around marked points: the last move's origin and target, and the
#: stones a closed mill may take.
LAST_FROM = "()"
LAST_TO = "[]"
TAKEABLE = "<>"

#: Symbols for (white, black, empty).
ASCII = ("W", "B", ".")
UNICODE = ("○", "●", "·")

# Each file is 4 characters wide and each rank 2 lines high, after a 2-character
# margin for the rank numbers: wide enough for lines between every pair of points.
_X0, _DX, _DY = 2, 4, 2


def _cell(x: int, y: int, x0: int = _X0, size: int = 7) -> tuple[int, int]:
    """(row, column) of board coordinates in the text grid; the top rank is the top row."""
    return (size - 1 - y) * _DY, x0 + x * _DX


def diagram(pos: Position, symbols: tuple[str, str, str] = ASCII,
            marks: Optional[Mapping[int, str]] = None) -> str:
    """The position as a text diagram with the files below (a-g on the standard board)
    and the ranks on the left.

    ``marks`` maps points to two characters drawn left and right of them (over the
    lines), e.g. :data:`LAST_TO`.  With ``marks`` given (even empty) the left margin
    is one wider, so that a mark in file a stays clear of the rank numbers.
    """
    board: Board = pos.board
    size, coords = board.size, board.coords
    x0 = _X0 if marks is None else _X0 + 1
    rows, cols = (size - 1) * _DY + 1, x0 + (size - 1) * _DX + 2
    grid = [[" "] * cols for _ in range(rows)]

    def cell(p: int) -> tuple[int, int]:
        return _cell(*coords[p], x0, size)

    for line in board.drawn_lines:
        for a, b in zip(line, line[1:]):
            (r1, c1), (r2, c2) = sorted((cell(a), cell(b)))
            if r1 == r2:
                for c in range(c1 + 1, c2):
                    grid[r1][c] = "-"
            elif c1 == c2:
                for r in range(r1 + 1, r2):
                    grid[r][c1] = "|"
            else:                                   # a diagonal: one mark per text row
                for r in range(r1 + 1, r2):
                    grid[r][c1 + (c2 - c1) * (r - r1) // (r2 - r1)] = "/" if c2 < c1 else "\\"
    white, black, empty = symbols
    for p in range(board.num_points):
        r, c = cell(p)
        grid[r][c] = white if pos.white >> p & 1 else black if pos.black >> p & 1 else empty
    for p, (left, right) in (marks or {}).items():
        r, c = cell(p)
        grid[r][c - 1], grid[r][c + 1] = left, right
    for y in range(size):
        grid[_cell(0, y, _X0, size)[0]][0] = str(y + 1)
    lines = ["".join(row).rstrip() for row in grid]
    lines.append(" " * x0 + "   ".join(board.files))
    return "\n".join(lines)
