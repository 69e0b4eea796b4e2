"""Board diagrams in plain text: the three squares with their lines.

Drawn from the board data (coordinates and mill lines), not typed in, so it
cannot disagree with :mod:`solver.board`.

>>> from solver.notation import parse_position
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
"""

from __future__ import annotations

from .board import COORDS, MILL_LINES
from .position import Position

#: Symbols for (white, black, empty).
ASCII = ("W", "B", ".")
UNICODE = ("○", "●", "·")

# Each file is 4 characters wide and each rank 2 lines high, after a 2-character
# margin for the rank numbers: wide enough for lines between every pair of points.
_X0, _DX, _DY = 2, 4, 2


def _cell(x: int, y: int) -> tuple[int, int]:
    """(row, column) of board coordinates in the text grid; rank 7 is the top row."""
    return (6 - y) * _DY, _X0 + x * _DX


def diagram(pos: Position, symbols: tuple[str, str, str] = ASCII) -> str:
    """The position as a text diagram with files a-g below and ranks 1-7 on the left."""
    rows, cols = 6 * _DY + 1, _X0 + 6 * _DX + 1
    grid = [[" "] * cols for _ in range(rows)]
    for line in MILL_LINES:
        for a, b in zip(line, line[1:]):
            (r1, c1), (r2, c2) = sorted((_cell(*COORDS[a]), _cell(*COORDS[b])))
            if r1 == r2:
                for c in range(c1 + 1, c2):
                    grid[r1][c] = "-"
            else:
                for r in range(r1 + 1, r2):
                    grid[r][c1] = "|"
    white, black, empty = symbols
    for p, (x, y) in enumerate(COORDS):
        r, c = _cell(x, y)
        grid[r][c] = white if pos.white >> p & 1 else black if pos.black >> p & 1 else empty
    for y in range(7):
        grid[_cell(0, y)[0]][0] = str(y + 1)
    lines = ["".join(row).rstrip() for row in grid]
    lines.append(" " * _X0 + "   ".join("abcdefg"))
    return "\n".join(lines)
