"""Ceylonese mill solved by the compiled kernels: its moving pairs by the moving phase's
rounds, its placement by one backward pass (docs/design.md §12).

:mod:`solver.ceylonese` is the readable reference of the rules;
:func:`solver.verify.retrograde.solve_ceylonese` solves small versions of it without
kernels, and the tests hold the two equal on every position.  Codes count turns as the
other tables count plies (:mod:`solver.values`): a placement or move that earns another
adds none.

- **The moving phase.**  A quiet move passes the turn as in the standard game; a
  capture keeps it (:attr:`CeylonRule.extra_move`), so it leads into the same side's
  subspace m-(o−1), whose code is the mover's own.  The moving rounds
  (:func:`solver.retro.solve_pair`) take it as a capture into (o−1)-m through a view of
  those codes seen from the other side one turn shorter (``ceylon_capture_view``), so
  a pair is solved by the standard kernels, the pairs in the standard order (m-(o−1)
  belongs to pair {o−1, m}, the capture target's pair).  Without the extra move the
  moving phase is the standard game's.
- **The placement phase** takes nothing: a side's stones on the board are the stones
  it has placed, so each pair of hands is one subspace (12 − h)-(12 − k)+h-k (with
  ``rules.stones`` for 12), solved in order of stones in hand, the
  last placement leading into the moving pairs with the hands put aside
  (``ceylon_place_grouped``: the positions grouped by the opponent's stones, as the
  placement build's pass; ``ceylon_place``, slot by slot, is the check's).

The tables are held in memory (2 bytes a slot): for the small boards and stone counts
of the tests and of docs/results.md.  The 12-stone game of the standard board needs
3.4·10¹⁰ slots, which the build's files and units would hold (design.md §12).

>>> from solver.rules import Rules
>>> tables = solve(Rules(board="six-mens", stones=3), jobs=1)
>>> tables.start_value()
Value('draw', None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .ceylonese import CeylonRule, require_ceylonese, terminal
from .index import Pair, Subspace
from .kernels import kernels_for
from .position import Position
from .retro import check_by_opponent_sets, pair_order, solve_pair
from .rules import Rules, require_kernels
from .values import SLACK_CODE, WDL, Value, decode


#: The codes of no subspace (ceylon_place's child where none is read).
_NONE = np.zeros(0, dtype=np.uint16)


def moving_pairs(rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Pair]:
    """The moving pairs a game reaches, in the order they are solved: every pair of the
    stone count whose stones fit on the board once the placement is over (at most all
    but ``rule.open_points`` points filled).

    >>> moving_pairs(Rules(board="six-mens", stones=8))[-1]
    Pair(7, 7, board='six-mens')
    """
    most = min(2 * rules.stones, rules.board.num_points - rule.open_points)
    return [Pair(m, o, board=rules.board) for m, o in pair_order(rules.stones) if m + o <= most]


def placement_subspaces(rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Subspace]:
    """The placement subspaces, in the order they are solved (fewest stones in hand
    first): one per pair of hands h >= 1 (the side to move places), k >= 0, with more
    than ``rule.open_points`` points free.

    >>> [str(s) for s in placement_subspaces(Rules(board="six-mens", stones=3))][:3]
    ['2-3+1-0', '2-2+1-1', '1-3+2-0']
    """
    stones, points = rules.stones, rules.board.num_points
    subs = [Subspace(stones - h, stones - k, h, k, board=rules.board)
            for h in range(1, stones + 1) for k in range(stones + 1)
            if points - (2 * stones - h - k) > rule.open_points]
    return sorted(subs, key=lambda s: (s.own_hand + s.opp_hand, s.own_hand))


def require_tables(rules: Rules, rule: CeylonRule = CeylonRule()) -> None:
    """UnsupportedRulesError where the kernels cannot solve the game: rules the Ceylonese
    turns do not apply to, or rules the kernels do not play."""
    require_ceylonese(rules)
    require_kernels(rules)


@dataclass
class CeylonTables:
    """The codes of every subspace of a Ceylonese game, moving and placement."""

    rules: Rules
    rule: CeylonRule
    codes: dict[Subspace, np.ndarray] = field(default_factory=dict)

    def code(self, pos: Position) -> int:
        """The code of a position for its side to move: the stored one, or where the
        game is over (a side with fewer than three stones) the rules' (loss in 0, or win
        in 1 for the side that has just taken).  ValueError where no game reaches it
        (:func:`~solver.ceylonese.why_not_ceylonese`)."""
        result = terminal(pos, self.rules, self.rule)      # (it refuses what no game reaches)
        if min(pos.own.bit_count() + pos.own_hand, pos.opp.bit_count() + pos.opp_hand) < 3:
            return 1 if result == WDL.LOSS else 2
        sub = Subspace.of(pos)
        return int(self.codes[sub][sub.index(pos.own, pos.opp)])

    def value(self, pos: Position) -> Value:
        """The position's value for its side to move, turns for plies."""
        return decode(self.code(pos))

    def start_value(self) -> Value:
        """The value of the empty board, White to place."""
        stones = self.rules.stones
        return self.value(Position(0, 0, stones, stones, board=self.rules.board))


def capture_codes(codes: dict[Subspace, np.ndarray], m: int, o: int, rules: Rules,
                  rule: CeylonRule, jobs: int = 2) -> np.ndarray:
    """The codes the moving rounds and their check read for a capture into the other
    side's subspace (m, o) (out of o-(m+1)): with the extra move a view of the same
    side's (o, m), one turn shorter and seen from the other side
    (``ceylon_capture_view``); without it, the codes of (m, o) themselves."""
    if not rule.extra_move:
        return codes[Subspace(m, o, board=rules.board)]
    out = np.empty(Subspace(m, o, board=rules.board).slots, dtype=np.uint16)
    kernels_for(rules.board).ceylon_capture_view(o, m, codes[Subspace(o, m, board=rules.board)], out, jobs)
    return out


def solve_moving(rules: Rules, rule: CeylonRule = CeylonRule(), jobs: int = 2,
                 progress: Callable[[str], None] | None = None) -> dict[Subspace, np.ndarray]:
    """The codes of every moving subspace of :func:`moving_pairs`."""
    codes: dict[Subspace, np.ndarray] = {}
    for pair in moving_pairs(rules, rule):
        if progress:
            progress(f"pair {pair}")
        codes.update(solve_pair(tuple(pair), rules, lambda m, o: capture_codes(codes, m, o, rules, rule, jobs),
                                jobs).values)
    return codes


def solve_placement(rules: Rules, moving: dict[Subspace, np.ndarray], rule: CeylonRule = CeylonRule(),
                    jobs: int = 2, progress: Callable[[str], None] | None = None
                    ) -> dict[Subspace, np.ndarray]:
    """The codes of every subspace of :func:`placement_subspaces`, from the moving
    phase's ``moving``."""
    kernels = kernels_for(rules.board)
    known = dict(moving)
    codes: dict[Subspace, np.ndarray] = {}
    for sub in placement_subspaces(rules, rule):
        if progress:
            progress(f"placement {sub}")
        out = np.full(sub.slots, SLACK_CODE, dtype=np.uint16)     # (the pass writes the real slots)
        kernels.ceylon_place_grouped(*sub, out, *_children(sub, rules, rule, known), rule.open_points, jobs)
        codes[sub] = known[sub] = out
    return codes


def _children(sub: Subspace, rules: Rules, rule: CeylonRule, codes: dict[Subspace, np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray]:
    """The codes ``ceylon_place`` reads for placement subspace ``sub``: the same side's
    (m+1)-o and the other side's o-(m+1), moving-phase ones where the placement is over
    after this one, each empty where ``codes`` has none (the game over there)."""
    m, o, h, k = sub
    over = rules.board.num_points - m - o - 1 <= rule.open_points or (h == 1 and k == 0)
    same, other = ((), ()) if over else ((h - 1, k), (k, h - 1))
    return (codes.get(Subspace(m + 1, o, *same, board=rules.board), _NONE),
            codes.get(Subspace(o, m + 1, *other, board=rules.board), _NONE))


def solve(rules: Rules, rule: CeylonRule = CeylonRule(), jobs: int = 2,
          progress: Callable[[str], None] | None = None) -> CeylonTables:
    """Both phases of the game of ``rules`` under ``rule``, in memory."""
    require_tables(rules, rule)
    moving = solve_moving(rules, rule, jobs, progress)
    tables = CeylonTables(rules, rule, dict(moving))
    tables.codes.update(solve_placement(rules, moving, rule, jobs, progress))
    return tables


def check(tables: CeylonTables, jobs: int = 2) -> list[str]:
    """A second pass over every subspace of ``tables``: the names of those where some
    position disagrees with its moves (none: []).  A moving subspace by the moving
    phase's forward check (``retro_check_grouped``, another algorithm than the rounds
    that made it: each position from its successors' codes, its captures' through the
    view), a placement subspace by ``ceylon_place`` comparing instead of writing (the
    pass's recursion, organised another way: slot by slot, each child indexed from
    scratch, where the pass groups the positions by the opponent's stones; the tests
    hold the recursion to the reference)."""
    rules, rule, codes = tables.rules, tables.rule, tables.codes
    kernels = kernels_for(rules.board)
    bad = []
    for pair in moving_pairs(rules, rule):
        for sub in pair.subspaces:
            # (o <= 3: every capture leaves two stones and wins)
            cap = _NONE if sub.o <= 3 else capture_codes(codes, sub.o - 1, sub.m, rules, rule, jobs)
            _, passed = check_by_opponent_sets(sub, codes[sub], codes[sub.mirror], cap, rules, jobs)
            if not passed:
                bad.append(str(sub))
    for sub in placement_subspaces(rules, rule):
        if kernels.ceylon_place(*sub, codes[sub], *_children(sub, rules, rule, codes), rule.open_points,
                                jobs, check=True):
            bad.append(str(sub))
    return bad
