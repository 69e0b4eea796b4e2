"""The board as SVG: for the browser page, ``muehle show --svg`` and notebooks.

Drawn from the board data (coordinates and mill lines of :mod:`solver.board`), like
the text diagram of :mod:`solver.diagram`, so it cannot disagree with the rules.
Modelled on python-chess's ``chess.svg.board``: one function, keyword options, a
string out.  Jupyter shows a :class:`~solver.position.Position` through
``Position._repr_svg_``, which calls :func:`board_svg`.

>>> from solver.position import parse_position, parse_move
>>> svg = board_svg(parse_position("W:a1,d2,g7 B:a4,b6 w"), last_move=parse_move("a7-a4"))
>>> svg.startswith("<svg") and svg.count('class="stone white"'), svg.count('class="stone black"')
(3, 2)
>>> 'data-point="d2"' in svg
True

Every point carries an invisible hit circle (``class="point"``, ``data-point="d2"``),
a mark circle (``class="mark"``, ``id="mark-d2"``) and a label (``id="label-d2"``),
present whether used or not, so that a page can colour and label points in place
(the browser page does that for its hints).

This module depends on :mod:`solver.board` only: it reads a position's ``white``,
``black``, ``white_hand`` and ``black_hand`` and a move's ``origin``, ``target`` and
``take``, so the rules' own modules may use it.
"""

from __future__ import annotations

from html import escape
from typing import Any, Iterable, Mapping, Optional

from .board import STANDARD_BOARD, Board

#: Colours of the values of moves (for the player who makes them), as tablebase
#: explorers colour them.
VALUE_COLOURS = {"win": "#2e8b3d", "draw": "#7a7f87", "loss": "#c8323a"}

#: Default colours; override any of them with ``colours={...}``.
COLOURS = {
    "board": "#e9c98f", "line": "#5a4126", "point": "#5a4126", "coord": "#5a4126",
    "white": "#fbfaf5", "white_edge": "#3a3a3a", "black": "#26262b", "black_edge": "#000000",
    "last": "#1f6fd1", "taken": "#c8323a", "arrow": "#1f6fd1",
}

_STEP = 60          # units between neighbouring files or ranks
_MARGIN = 52        # around the board, holding the coordinates outside the marks
_HAND_ROW = 34      # height of a strip of stones in hand (above: Black, below: White)
_STONE_R = 22
_MARK_R = 27        # marks ring a stone; neighbours' rings (60 apart) do not overlap


def _point_xy(point: int, top: int, board: Board = STANDARD_BOARD) -> tuple[int, int]:
    x, y = board.coords[point]
    return _MARGIN + x * _STEP, top + _MARGIN + (board.size - 1 - y) * _STEP


def board_svg(position: Any = None, *, size: Optional[int] = 400,
              coordinates: bool = True, last_move: Any = None,
              marks: Optional[Mapping[int, str]] = None, labels: Optional[Mapping[int, str]] = None,
              arrows: Iterable = (), hands: Optional[bool] = None,
              colours: Optional[Mapping[str, str]] = None) -> str:
    """The position (a :class:`~solver.position.Position`, or None for the empty board)
    as an SVG document string.

    ``last_move``: a :class:`~solver.position.Move`, its origin and target ringed,
    the point it took crossed.  ``marks``: point -> colour, a ring of that colour
    around the point (e.g. :data:`VALUE_COLOURS` of the moves to it); ``labels``:
    point -> a short text drawn beside it.  ``arrows``: moves or (origin, target)
    point pairs, drawn as arrows.  ``hands``: draw the stones in hand as rows of
    small stones, Black's above the board and White's below (default: when either
    side has any).  ``size``: width in pixels (None: scale to the container).

    >>> svg = board_svg(marks={0: "#2e8b3d"}, labels={0: "3"}, arrows=[(21, 9)], coordinates=False)
    >>> 'stroke="#2e8b3d"' in svg, svg.count("<line"), '>3</text>' in svg
    (True, 17, True)
    """
    col = dict(COLOURS, **(colours or {}))
    marks, labels = dict(marks or {}), dict(labels or {})
    white = getattr(position, "white", 0)
    black = getattr(position, "black", 0)
    white_hand = getattr(position, "white_hand", 0)
    black_hand = getattr(position, "black_hand", 0)
    board: Board = getattr(position, "board", STANDARD_BOARD)
    if hands is None:
        hands = bool(white_hand or black_hand)
    top = _HAND_ROW if hands else 0
    span = board.size - 1
    width = 2 * _MARGIN + span * _STEP

    def _xy(point: int, top: int) -> tuple[int, int]:
        return _point_xy(point, top, board)

    height = width + 2 * top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
           + (f' width="{size}" height="{size * height // width}"' if size else "")
           + ' class="muehle-board" role="img">',
           '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" '
           f'markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
           f'fill="{col["arrow"]}"/></marker></defs>',
           f'<rect class="board" x="0" y="0" width="{width}" height="{height}" rx="12" fill="{col["board"]}"/>']
    # The lines: every mill line from its first point to its last, and the edges on no mill.
    for line in board.drawn_lines:
        (x1, y1), (x2, y2) = _xy(line[0], top), _xy(line[-1], top)
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{col["line"]}" '
                   f'stroke-width="4" stroke-linecap="square"/>')
    if coordinates:
        base = top + _MARGIN + span * _STEP
        for i, letter in enumerate(board.files):
            x = _MARGIN + i * _STEP
            out.append(f'<text x="{x}" y="{base + _MARGIN - 8}" font-size="15" '
                       f'text-anchor="middle" fill="{col["coord"]}" font-family="sans-serif">{letter}</text>')
        for rank in range(1, board.size + 1):
            y = top + _MARGIN + (board.size - rank) * _STEP + 5
            out.append(f'<text x="{_MARGIN // 4 + 2}" y="{y}" font-size="15" text-anchor="middle" '
                       f'fill="{col["coord"]}" font-family="sans-serif">{rank}</text>')
    last_points = {}
    if last_move is not None:
        last_points[last_move.target] = "last-to"
        if last_move.origin is not None:
            last_points[last_move.origin] = "last-from"
    for p in range(board.num_points):
        x, y = _xy(p, top)
        name = board.points[p]
        colour = marks.get(p)
        out.append(f'<circle class="mark" id="mark-{name}" cx="{x}" cy="{y}" r="{_MARK_R}" '
                   f'fill="none" stroke="{escape(colour) if colour else "none"}" stroke-width="5"/>')
        if p in last_points:
            out.append(f'<circle class="{last_points[p]}" cx="{x}" cy="{y}" r="{_STONE_R + 3}" '
                       f'fill="none" stroke="{col["last"]}" stroke-width="3" stroke-dasharray='
                       f'"{"none" if last_points[p] == "last-to" else "5,4"}"/>')
        if white >> p & 1 or black >> p & 1:
            kind = "white" if white >> p & 1 else "black"
            out.append(f'<circle class="stone {kind}" cx="{x}" cy="{y}" r="{_STONE_R}" '
                       f'fill="{col[kind]}" stroke="{col[kind + "_edge"]}" stroke-width="2"/>')
        else:
            out.append(f'<circle class="spot" cx="{x}" cy="{y}" r="6" fill="{col["point"]}"/>')
    for taken in (() if last_move is None else (last_move.take, getattr(last_move, "take2", None))):
        if taken is None:
            continue
        x, y = _xy(taken, top)
        d = 10
        out.append(f'<path class="taken" d="M{x - d},{y - d} L{x + d},{y + d} M{x - d},{y + d} '
                   f'L{x + d},{y - d}" stroke="{col["taken"]}" stroke-width="4" stroke-linecap="round"/>')
    for arrow in arrows:
        origin, target = (arrow.origin, arrow.target) if hasattr(arrow, "target") else arrow
        if origin is None:
            continue
        (x1, y1), (x2, y2) = _xy(origin, top), _xy(target, top)
        # Stop short of the target's centre so the head stays visible on a stone.
        dx, dy = x2 - x1, y2 - y1
        length = max((dx * dx + dy * dy) ** 0.5, 1)
        x2, y2 = x2 - dx * 16 / length, y2 - dy * 16 / length
        out.append(f'<line class="arrow" x1="{x1}" y1="{y1}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'stroke="{col["arrow"]}" stroke-width="7" stroke-opacity="0.8" '
                   f'marker-end="url(#arrowhead)"/>')
    for p in range(board.num_points):
        x, y = _xy(p, top)
        name = board.points[p]
        text = escape(labels.get(p, ""))
        out.append(f'<text class="label" id="label-{name}" x="{x + 21}" y="{y - 19}" font-size="15" '
                   f'font-weight="bold" text-anchor="middle" font-family="sans-serif" '
                   f'fill="{escape(marks.get(p, col["coord"]))}">{text}</text>')
        # Last, on top of everything: the target of clicks.
        out.append(f'<circle class="point" data-point="{name}" cx="{x}" cy="{y}" r="{_MARK_R + 1}" '
                   f'fill="transparent"><title>{name}</title></circle>')
    if hands:
        for kind, count, y in (("black", black_hand, top // 2),
                               ("white", white_hand, height - top // 2)):
            for i in range(count):
                x = _MARGIN + i * 24
                out.append(f'<circle class="hand {kind}" cx="{x}" cy="{y}" r="9" fill="{col[kind]}" '
                           f'stroke="{col[kind + "_edge"]}" stroke-width="1.5"/>')
    out.append("</svg>")
    return "\n".join(out)


__all__ = ["board_svg", "VALUE_COLOURS", "COLOURS"]
