"""A retrograde pass written without the kernels: every position of a small game, its
moves from the readable rules (:meth:`Position.legal_moves <solver.position.Position.legal_moves>`),
and a backward breadth-first search over them, in plain Python (docs/design.md §6).

It shares nothing with the build but the reference rules: no index, no compiled move
generator, no rounds, no counts of the kernels, and no symmetry but, where asked, its
own (:func:`least_image`); the placement phase and the moving phase are one graph, as a
game plays them.  The tests compare every value and every ply count it finds with the
files a build wrote (:func:`compare`), for whole small games (Three Men's Morris; the
Six Men's board with three stones; four in the slow run; the 4-stone standard game,
its positions by class, in the long run).  Games whose moves may keep the turn
(Ceylonese mill) go through the same pass (:func:`solve_graph`, :func:`solve_ceylonese`).

The values are the files': for the side to move, win in odd plies, loss in even, to the
end of the game when the winner hurries and the loser delays; a finished game is lost in
0, or where only the side to move holds a line (a position no game reaches) won in 1, a
full board drawn where the rules draw it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable, Iterable

from .. import ceylonese
from ..ceylonese import CeylonRule
from ..board import Board
from ..position import Position
from ..rules import Rules
from ..values import DRAW, LOSS, WIN

#: A position as the pass keys it: (own, opp, own_hand, opp_hand), the side to move's
#: stones first (the colour of the side to move does not change a value).
Key = tuple[int, int, int, int]


def positions(rules: Rules, shapes: Iterable[tuple[int, int, int, int]]) -> list[Key]:
    """Every position with m stones of the side to move on the board, o of the other,
    and h, k in hand, for each (m, o, h, k) of ``shapes``: every placement of the stones
    on the board's points, none left out for symmetry."""
    points = range(rules.board.num_points)
    out = []
    for m, o, h, k in shapes:
        for own in combinations(points, m):
            own_mask = sum(1 << p for p in own)
            rest = [p for p in points if not own_mask >> p & 1]
            for opp in combinations(rest, o):
                out.append((own_mask, sum(1 << p for p in opp), h, k))
    return out


#: A finished game's code by its result for the side to move.
_CODE = {LOSS: 1, WIN: 2, DRAW: 0}


def _terminal_code(pos: Position, rules: Rules) -> int | None:
    """The code of a finished game (1: lost in 0; 2: won, as the files code a line held
    by the side to move alone; 0: a full board drawn), else None."""
    result = pos.terminal_wdl(rules)
    if result is None:
        return None
    return _CODE[result]


def solve(rules: Rules, start: list[Key], symmetric: bool = False) -> dict[Key, int]:
    """The code of every position of ``start`` and of every position its moves reach:
    the graph is closed under moves first (a position its moves lead to joins it), then
    solved backwards from the finished games, ply by ply.  Code 0 draw, 1 + p a win in
    p plies (p odd) or a loss in p (p even).  ``symmetric``: each position reached is
    kept once for its class under the board's symmetries, as its least image
    (:func:`least_image`: the pass's own, not the index's), so a game of a few million
    classes fits (the whole 4-stone standard game: tests/test_boards.py, marked long)."""
    board = rules.board
    canonical = least_image(board) if symmetric else (lambda key: key)

    def expand(key: Key) -> tuple[int | None, list[tuple[Key, bool]]]:
        pos = Position.from_view(*key, board=board)
        finished = _terminal_code(pos, rules)
        if finished is not None:
            return finished, []
        children = []
        for move in pos.legal_moves(rules):
            child = pos.play_unchecked(move)
            children.append((canonical((child.own, child.opp, child.own_hand, child.opp_hand)), False))
        return None, children

    return solve_graph([canonical(key) for key in start], expand)


def least_image(board: Board) -> Callable[[Key], Key]:
    """The function that gives a position's least image under ``board``'s symmetries
    (by (own, opp) as one number, own first; the hands are the same in every image): the
    point permutations of :attr:`Board.symmetries <solver.board.Board.symmetries>`
    applied to the masks a byte at a time from tables made here.

    >>> from solver.board import STANDARD_BOARD
    >>> least = least_image(STANDARD_BOARD)
    >>> least((0b1, 0b10, 5, 4)) == least((1 << 23, 1 << 22, 5, 4)), least((0b1, 0b10, 5, 4))
    (True, (1, 2, 5, 4))
    """
    n = board.num_points
    assert n <= 24, "three bytes a mask"
    tables = [tuple([sum(1 << images[8 * b + j] for j in range(8) if v >> j & 1 and 8 * b + j < n)
                     for v in range(256)] for b in range(3)) for images in board.symmetries]

    def least(key: Key) -> Key:
        own, opp, own_hand, opp_hand = key
        o0, o1, o2 = own & 255, own >> 8 & 255, own >> 16
        p0, p1, p2 = opp & 255, opp >> 8 & 255, opp >> 16
        best = min((a[o0] | b[o1] | c[o2]) << 32 | a[p0] | b[p1] | c[p2] for a, b, c in tables)
        return best >> 32, best & 0xFFFFFFFF, own_hand, opp_hand

    return least


def solve_ceylonese(rules: Rules, rule: CeylonRule = CeylonRule(), start: Position | None = None
                    ) -> dict[Key, int]:
    """Every position a game of Ceylonese mill reaches from ``start`` (the empty board),
    its moves from the reference (:mod:`solver.ceylonese`), solved by :func:`solve_graph`
    (a turn a ply: an additional placement or move keeps the turn): codes as
    :func:`solve`'s, turns for plies.  For small versions: every position is a Python
    object.

    >>> values = solve_ceylonese(Rules.from_name("six-mens-s3"))   # doctest: +SKIP
    >>> len(values), values[(0, 0, 3, 3)]         # (20 s) the start: a draw  # doctest: +SKIP
    (215073, 0)
    """
    board = rules.board
    first = start if start is not None else ceylonese.start(rules)

    def expand(key: Key) -> tuple[int | None, list[tuple[Key, bool]]]:
        pos = Position.from_view(*key, board=board)
        result = ceylonese.terminal(pos, rules, rule)
        if result is not None:
            return _CODE[result], []
        children = []
        for move in ceylonese.legal_moves(pos, rules, rule):
            after = ceylonese.play(pos, move, rules, rule)
            children.append(((after.own, after.opp, after.own_hand, after.opp_hand), after.turn == pos.turn))
        return None, children

    return solve_graph([(first.own, first.opp, first.own_hand, first.opp_hand)], expand)


def solve_graph(start: list[Key], expand: Callable[[Key], tuple[int | None, list[tuple[Key, bool]]]]
                ) -> dict[Key, int]:
    """The codes of a game given by ``expand(key)``: (the code of a finished game, or
    None and every move's (position after it, whether the same side is to move there)).
    A move that leaves the same side to move (the turn goes on: Ceylonese mill's extra
    placements and moves, :mod:`solver.ceylonese`) takes no ply: a ply is a turn, so the
    parity of the plies still tells the winner.  Solved backwards from the finished
    games, a turn count at a time: the positions decided in p plies first, and within
    them in the order found (a move that keeps the turn decides its parent at the same
    count).  Code 0 draw, 1 + p a win in p plies (p odd) or a loss in p (p even)."""
    index: dict[Key, int] = {}
    keys: list[Key] = []
    parents: list[list[int]] = []              # (parent << 1 | keeps the turn), a list a position

    def node(key: Key) -> int:
        j = index.get(key)
        if j is None:
            j = index[key] = len(keys)
            keys.append(key)
            parents.append([])
        return j

    for key in start:
        node(key)
    code: list[int | None] = []
    left: list[int] = []                 # moves of a position not yet known to lose for it
    i = 0
    while i < len(keys):                 # (keys grows: the positions the moves reach)
        finished, children = expand(keys[i])
        code.append(finished)
        left.append(len(children))
        for child, same in children:
            parents[node(child)].append(i << 1 | same)
        i += 1
    # Backwards, a ply count at a time: at count p every move whose value for its
    # parent is p is applied (from a position decided at p - 1 the moves that pass the
    # turn, from one decided at p those that keep it, the latter as they are found), so
    # a winner's first winning move is its fastest and a loser's last refuted its slowest.
    found: dict[int, list[int]] = {}
    for j, c in enumerate(code):
        if c:
            found.setdefault(c - 1, []).append(j)
    before: list[int] = []
    now: list[int] = []                 # decided at the count ``plies``

    def apply(parent: int, child: int, same: bool) -> None:
        if code[parent] is not None:
            return
        lost = (code[child] - 1) % 2 == 0           # (the child's side to move loses)
        # the parent's side wins where the child's side to move loses, unless the
        # move keeps the turn: then the child's side is the parent's
        if lost == same:
            left[parent] -= 1
            if left[parent]:
                return                              # a move may still win or draw
        code[parent] = 1 + plies
        now.append(parent)

    plies = 0
    while before or found:
        now = found.pop(plies, [])
        for child in before:
            for edge in parents[child]:
                if not edge & 1:
                    apply(edge >> 1, child, False)
        for child in now:                   # (grows while it runs)
            for edge in parents[child]:
                if edge & 1:
                    apply(edge >> 1, child, True)
        before = now
        plies += 1
    return {key: (0 if c is None else c) for key, c in zip(keys, code)}


def compare(rules: Rules, values: dict[Key, int], stored) -> list[str]:
    """The positions whose code ``stored(own, opp, own_hand, opp_hand)`` (a database's
    :meth:`~solver.probe.Database.code`) is not the pass's, as lines (at most 10), for
    the positions of ``values`` that are not finished games."""
    bad = []
    for key, value in values.items():
        pos = Position.from_view(*key, board=rules.board)
        if pos.terminal_wdl(rules) is not None:
            continue                    # (finished: no file holds a game over)
        got = int(stored(*key))
        if got != value:
            bad.append(f"{pos}: stored code {got}, the pass {value}")
            if len(bad) == 10:
                break
    return bad
