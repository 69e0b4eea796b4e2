"""A retrograde pass written without the kernels: every position of a small game, its
moves from the readable rules (:meth:`Position.legal_moves <solver.position.Position.legal_moves>`),
and a backward breadth-first search over them, in plain Python (docs/design.md §6).

It shares nothing with the build but the reference rules: no index, no symmetry, no
compiled move generator, no rounds, no counts of the kernels; the placement phase and
the moving phase are one graph, as a game plays them.  The tests compare every value and
every ply count it finds with the files a build wrote (:func:`compare`), for whole small
games (Three Men's Morris; the Six Men's board with three stones; more in the slow run).

The values are the files': for the side to move, win in odd plies, loss in even, to the
end of the game when the winner hurries and the loser delays; a finished game is lost in
0, or where only the side to move holds a line (a position no game reaches) won in 1, a
full board drawn where the rules draw it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Iterable

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


def _terminal_code(pos: Position, rules: Rules) -> int | None:
    """The code of a finished game (1: lost in 0; 2: won, as the files code a line held
    by the side to move alone; 0: a full board drawn), else None."""
    result = pos.terminal_wdl(rules)
    if result is None:
        return None
    return {LOSS: 1, WIN: 2, DRAW: 0}[result]


def solve(rules: Rules, start: list[Key]) -> dict[Key, int]:
    """The code of every position of ``start`` and of every position its moves reach:
    the graph is closed under moves first (a position its moves lead to joins it), then
    solved backwards from the finished games, ply by ply.  Code 0 draw, 1 + p a win in
    p plies (p odd) or a loss in p (p even)."""
    board = rules.board
    index: dict[Key, int] = {}
    keys: list[Key] = []
    parents: list[list[int]] = []

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
        pos = Position.from_view(*keys[i], board=board)
        finished = _terminal_code(pos, rules)
        code.append(finished)
        left.append(0)
        if finished is None:
            for move in pos.legal_moves(rules):
                child = pos.play_unchecked(move)
                parents[node((child.own, child.opp, child.own_hand, child.opp_hand))].append(i)
                left[i] += 1
        i += 1
    # Backwards, ply by ply: a position decided at ply d decides its parents at d + 1.
    layer = [i for i, c in enumerate(code) if c]
    plies = 0
    while layer:
        following = []
        for child in layer:
            lost = (code[child] - 1) % 2 == 0           # (the child's side to move loses)
            for parent in parents[child]:
                if code[parent] is not None:
                    continue
                if not lost:
                    left[parent] -= 1
                    if left[parent]:
                        continue                        # a move may still win or draw
                code[parent] = 1 + plies + 1            # one ply more than this child
                following.append(parent)
        layer = following
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
