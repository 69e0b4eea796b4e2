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

import functools
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from . import build as building
from . import storage
from .ceylonese import CeylonRule, legal_moves, play, require_ceylonese, require_reached, terminal
from .errors import (BUILD_IT, REBUILD_IT, ConsistencyError, CorruptDatabaseError, DatabaseError,
                     ForeignDatabaseError, MissingSubspaceError, Remedy, with_remedy)
from .index import Pair, Subspace
from .kernels import kernels_for
from .position import Move, Position
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
    turns do not apply to (or ``rule`` places no stone on their board), or rules the
    kernels do not play."""
    require_ceylonese(rules, rule)
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
        (:func:`~solver.ceylonese.require_reached`)."""
        require_reached(pos, self.rules, self.rule)
        result = terminal(pos, self.rules, self.rule)
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

    def probe_moves(self, pos: Position) -> list["CeylonMove"]:
        """Every legal move of ``pos`` with its value for the side that makes it, best
        first (the shortest win, then draws, then the longest loss).  A move that keeps
        the turn (a mill; a placement while the other has nothing to place) is worth
        what the position after it is worth, turns as they are; one that passes it is
        worth the opposite, a turn more."""
        out = []
        for move in legal_moves(pos, self.rules, self.rule):
            after = play(pos, move, self.rules, self.rule)
            value = self.value(after)
            again = after.turn == pos.turn
            out.append(CeylonMove(move, value if again else value.for_mover(), again))
        return sorted(out, key=lambda m: m.value.rank)

    def query_object(self, pos: Position) -> dict:
        """``query --ceylonese``'s answer as one JSON object: the position's value for
        the side to move (turns to the end: a turn is a side's moves until the other's)
        and each move's for its mover, best first, with whether it keeps the turn."""
        value = self.value(pos)
        return {"position": str(pos), "ceylonese": self.rule.name, "value": str(value.wdl), "turns": value.plies,
                "moves": [{"move": str(m.move), "value": str(m.value.wdl), "turns": m.value.plies,
                           "again": m.again} for m in self.probe_moves(pos)]}


@dataclass(frozen=True)
class CeylonMove:
    """A move of Ceylonese mill with its value for the side that makes it, and whether
    that side moves again after it."""

    move: Move
    value: Value
    again: bool


def capture_codes(codes: Callable[[Subspace], np.ndarray], m: int, o: int, rules: Rules,
                  rule: CeylonRule, jobs: int = 2) -> np.ndarray:
    """The codes the moving rounds and their check read for a capture into the other
    side's subspace (m, o) (out of o-(m+1)), ``codes(sub)`` giving a solved subspace's:
    with the extra move a view of the same side's (o, m), one turn shorter and seen from
    the other side (``ceylon_capture_view``); without it, the codes of (m, o) themselves."""
    if not rule.extra_move:
        return codes(Subspace(m, o, board=rules.board))
    out = np.empty(Subspace(m, o, board=rules.board).slots, dtype=np.uint16)
    kernels_for(rules.board).ceylon_capture_view(o, m, codes(Subspace(o, m, board=rules.board)), out, jobs)
    return out


def solve_moving(rules: Rules, rule: CeylonRule = CeylonRule(), jobs: int = 2,
                 progress: Callable[[str], None] | None = None) -> dict[Subspace, np.ndarray]:
    """The codes of every moving subspace of :func:`moving_pairs`."""
    codes: dict[Subspace, np.ndarray] = {}
    for pair in moving_pairs(rules, rule):
        if progress:
            progress(f"pair {pair}")
        codes.update(solve_pair(tuple(pair), rules,
                                lambda m, o: capture_codes(codes.__getitem__, m, o, rules, rule, jobs), jobs).values)
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
        kernels.ceylon_place_grouped(*sub, out, *_children(sub, rules, rule, lambda c: known.get(c, _NONE)),
                                     rule.open_points, jobs)
        codes[sub] = known[sub] = out
    return codes


def children(sub: Subspace, rules: Rules, rule: CeylonRule = CeylonRule()) -> tuple[Subspace, Subspace]:
    """The subspaces a placement of ``sub`` leads into: the same side's (m+1)-o (a mill
    earns another placement) and the other side's o-(m+1), moving-phase ones where the
    placement is over after this one (a game over there has no codes: solved by
    neither phase).

    >>> children(Subspace(2, 3, 1, 0), Rules(stones=3)), children(Subspace(1, 1, 2, 2), Rules(stones=3))
    ((Subspace(3, 3), Subspace(3, 3)), (Subspace(2, 1, 1, 2), Subspace(1, 2, 2, 1)))
    """
    m, o, h, k = sub
    over = rules.board.num_points - m - o - 1 <= rule.open_points or (h == 1 and k == 0)
    same, other = ((), ()) if over else ((h - 1, k), (k, h - 1))
    return Subspace(m + 1, o, *same, board=rules.board), Subspace(o, m + 1, *other, board=rules.board)


def _children(sub: Subspace, rules: Rules, rule: CeylonRule, codes: Callable[[Subspace], np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray]:
    """The codes ``ceylon_place`` reads for placement subspace ``sub``: its
    :func:`children`'s by ``codes(child)``, empty where the game is over there."""
    return tuple(codes(c) for c in children(sub, rules, rule))


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
            cap = _NONE if sub.o <= 3 else capture_codes(codes.__getitem__, sub.o - 1, sub.m, rules, rule, jobs)
            _, passed = check_by_opponent_sets(sub, codes[sub], codes[sub.mirror], cap, rules, jobs)
            if not passed:
                bad.append(str(sub))
    for sub in placement_subspaces(rules, rule):
        if kernels.ceylon_place(*sub, codes[sub], *_children(sub, rules, rule, lambda c: codes.get(c, _NONE)),
                                rule.open_points, jobs, check=True):
            bad.append(str(sub))
    return bad


# --- files ---------------------------------------------------------------------------------

def table_path(root: Path | str, rules: Rules, key: Pair | Subspace, rule: CeylonRule = CeylonRule()) -> Path:
    """The file of ``key`` (a moving pair or subspace, or a placement subspace) under
    ``rule``: its plain file's name with the rule's before, beside the plain tables.
    Without the extra move the moving phase is the standard game's, so its pairs are the
    plain files themselves (``muehle build --phase moving`` builds them).

    >>> table_path("db", Rules(stones=3), Subspace(2, 3, 1, 0)).name
    'ceylonese-place-2-3+1-0.h5'
    >>> table_path("db", Rules(), Pair(3, 4), CeylonRule(extra_move=False)).name
    'pair-3-4.h5'
    """
    plain = storage.file_of(root, rules, key)
    return plain if file_kind(key, rule) is None else plain.with_name(f"{rule.name}-{plain.name}")


def file_kind(key: Pair | Subspace, rule: CeylonRule) -> str | None:
    """The ``ceylonese`` attribute of ``key``'s file: the rule's name, or None where the
    file is the plain moving phase's."""
    moving = isinstance(key, Pair) or key.is_moving
    return None if moving and not rule.extra_move else rule.name


@contextmanager
def _opened(root: Path | str, rules: Rules, sub: Subspace, rule: CeylonRule) -> Iterator[storage.SubspaceReader]:
    """The reader of ``sub`` in its file, the file's header and the subspace's dataset
    checked as every read checks them (:func:`solver.storage.open_file`)."""
    path = table_path(root, rules, sub, rule)
    with storage.open_file(path, rules, sub, sub, ceylonese=file_kind(sub, rule)) as f:
        yield storage.SubspaceReader(f, path, sub)


def read(root: Path | str, rules: Rules, sub: Subspace, rule: CeylonRule = CeylonRule(),
         verify: bool = False) -> np.ndarray:
    """The codes of ``sub`` from its file, every chunk verified (``verify``: the SHA-256
    of the whole too)."""
    with _opened(root, rules, sub, rule) as reader:
        return reader.all(sha256=verify)


def why_not_built(root: Path | str, rules: Rules, key: Pair | Subspace, rule: CeylonRule,
                  verify: bool = True) -> str | None:
    """None where ``key``'s file is built and intact (``verify``: every chunk and the
    SHA-256 read; else its header and datasets looked at, no values read), else what is
    wrong with it (any other error, a file that could not be looked at, goes up and
    stops a build)."""
    try:
        for sub in (key.subspaces if isinstance(key, Pair) else [key]):
            with _opened(root, rules, sub, rule) as reader:
                if verify:
                    reader.all(sha256=True)
    except (MissingSubspaceError, CorruptDatabaseError, ForeignDatabaseError) as exc:
        return str(exc)
    return None


def _remedy(root: Path | str, rules: Rules, rule: CeylonRule, key: Pair | Subspace, advice: str) -> Remedy:
    """The build that makes ``key``'s file: the plain moving phase's where it is one."""
    if file_kind(key, rule) is None:
        return Remedy(root, rules, advice, phase="moving")
    return Remedy(root, rules, advice, ceylonese=rule.name)


def require_built(root: Path | str, rules: Rules, rule: CeylonRule, who: str, needed: list) -> None:
    """MissingSubspaceError (CorruptDatabaseError for a file that is there but unusable),
    ``who`` naming what needs them, with the build that makes them, unless every pair
    or subspace of ``needed`` is built."""
    problems = {key: why_not_built(root, rules, key, rule, verify=False) for key in needed}
    missing = [key for key, problem in problems.items() if problem is not None]
    if not missing:
        return
    first = missing[0]
    path = table_path(root, rules, first, rule)
    if path.exists():
        raise with_remedy(CorruptDatabaseError(f"{who} {first.name}, whose file {path.name} is unusable: "
                                               f"{problems[first]}"), _remedy(root, rules, rule, first, REBUILD_IT))
    raise MissingSubspaceError(first, path, f"{who} {', '.join(k.name for k in missing)}, not built in "
                                            f"{storage.rules_dir(root, rules)}",
                               _remedy(root, rules, rule, first, BUILD_IT))


@dataclass(frozen=True)
class CeylonReport(building.Report):
    """What happened to one file of Ceylonese mill's tables: built (time, memory) or skipped."""

    name: str
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool

    def summary(self) -> str:
        """The line the build logs for this file."""
        return self._line(self.name, "")


class _Work(building.Work):
    """What the two kinds of file share: one file of ``key`` under ``rule``, the
    subspaces it reads (:func:`reads`) held in the runner's cache (:func:`file_cache`)."""

    def __init__(self, root: Path, rules: Rules, rule: CeylonRule, key: Pair | Subspace, label: str,
                 memory: int):
        super().__init__(root, rules)
        self.rule, self.key, self.label, self.memory = rule, key, label, memory
        self.outputs = [(table_path(root, rules, key, rule), label)]

    def keep(self) -> list[Subspace]:
        return reads(self.key, self.rules, self.rule)

    def problems(self) -> list[str | None]:
        return [why_not_built(self.root, self.rules, self.key, self.rule)
                if self.outputs[0][0].exists() else "not built"]

    def skipped(self) -> list[CeylonReport]:
        return [CeylonReport(self.label, self.key.slots, 0.0, building.peak_rss_mib(), True)]

    def reports(self, values, seconds, cpu, check_seconds):
        return [CeylonReport(self.label, self.key.slots, seconds, building.peak_rss_mib(), False)]

    def write(self, values, seconds, checked):
        storage.write_file(self.outputs[0][0], self.rules, values, ceylonese=self.rule.name,
                           extra={"seconds": seconds, "checked": checked, "open_points": self.rule.open_points,
                                  "extra_move": self.rule.extra_move})


class PairWork(_Work):
    """A moving pair with the extra move: solved by the moving phase's rounds, each
    capture read through the view of the same side's subspace (:func:`capture_codes`),
    checked forwards by the other algorithm (``verify``)."""

    def __init__(self, root: Path, rules: Rules, rule: CeylonRule, pair: Pair):
        super().__init__(root, rules, rule, pair, f"pair {pair.name} of {rule.name}",
                         memory_needed(pair, rules, rule))

    def _captures(self, cache: building.SubspaceCache, m: int, o: int, jobs: int) -> np.ndarray:
        return capture_codes(cache.load, m, o, self.rules, self.rule, jobs)

    def require_inputs(self) -> None:
        require_built(self.root, self.rules, self.rule, f"{self.label} needs",
                      self.key.dependencies)

    def solve(self, cache, jobs, progress, advance):
        values = solve_pair(tuple(self.key), self.rules, lambda m, o: self._captures(cache, m, o, jobs), jobs).values
        if advance:
            advance(self.key.slots)
        return values

    def check(self, values, cache, jobs, verify):
        if not verify:
            return False
        for sub in self.key.subspaces:
            cap = _NONE if sub.o <= 3 else self._captures(cache, sub.o - 1, sub.m, jobs)
            _, passed = check_by_opponent_sets(sub, values[sub], values[sub.mirror], cap, self.rules, jobs)
            if not passed:
                raise ConsistencyError(f"{self.label} fails the consistency check in {sub.name}", [])
        return True


class PlaceWork(_Work):
    """A placement subspace: one pass from its stored children (``ceylon_place_grouped``),
    checked by the slot-by-slot pass (``verify``)."""

    def __init__(self, root: Path, rules: Rules, rule: CeylonRule, sub: Subspace):
        super().__init__(root, rules, rule, sub, f"placement {sub.name} of {rule.name}",
                         memory_needed(sub, rules, rule))

    def _children(self, cache: building.SubspaceCache) -> tuple[np.ndarray, np.ndarray]:
        stored = self.keep()
        return _children(self.key, self.rules, self.rule, lambda c: cache.load(c) if c in stored else _NONE)

    def require_inputs(self) -> None:
        require_built(self.root, self.rules, self.rule, f"{self.label} needs",
                      [Pair(*c, board=self.rules.board) if c.is_moving else c for c in self.keep()])

    def solve(self, cache, jobs, progress, advance):
        out = np.full(self.key.slots, SLACK_CODE, dtype=np.uint16)     # (the pass writes the real slots)
        kernels_for(self.rules.board).ceylon_place_grouped(*self.key, out, *self._children(cache),
                                                           self.rule.open_points, jobs)
        if advance:
            advance(self.key.slots)
        return {self.key: out}

    def check(self, values, cache, jobs, verify):
        if not verify:
            return False
        bad = kernels_for(self.rules.board).ceylon_place(*self.key, values[self.key], *self._children(cache),
                                                         self.rule.open_points, jobs, check=True)
        if bad:
            raise ConsistencyError(f"{self.label} fails the consistency check ({bad} slots)", [])
        return True


def memory_needed(key: Pair | Subspace, rules: Rules, rule: CeylonRule = CeylonRule()) -> int:
    """Bytes the build of ``key``'s file holds at its peak: a pair's as the moving
    phase's rounds (:func:`solver.build.memory_needed`) and its capture targets' codes
    held beside them with their view; a placement subspace's codes and its children's.

    >>> memory_needed(Subspace(2, 3, 1, 0), Rules(stones=3)) >> 10     # KiB: 16 MiB of blocks, and codes
    16884
    """
    if isinstance(key, Pair):
        return building.memory_needed(key) + 4 * max((t.slots for t in key.capture_targets), default=0)
    return 2 * (key.slots + sum(c.slots for c in set(children(key, rules, rule)))) + (16 << 20)


def planned(rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Subspace]:
    """Every subspace of the game's tables, in the order they are solved: the moving
    pairs' (:func:`moving_pairs`), then the placement's (:func:`placement_subspaces`)."""
    return [s for p in moving_pairs(rules, rule) for s in p.subspaces] + placement_subspaces(rules, rule)


def files(rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Pair | Subspace]:
    """What each file of the tables of ``rule`` holds, in build order: a moving pair (only
    with the extra move: without it they are the plain moving phase's) or a placement
    subspace.

    >>> [k.name for k in files(Rules(board="six-mens", stones=3))][:3]
    ['3-3', '2-3+1-0', '2-2+1-1']
    """
    return (moving_pairs(rules, rule) if rule.extra_move else []) + placement_subspaces(rules, rule)


def file_cache(root: Path | str, rules: Rules, rule: CeylonRule = CeylonRule()) -> building.SubspaceCache:
    """The runner's cache of subspaces, reading the files of ``rule``'s tables
    (:func:`read`): a pair's captures and a placement's children are read once for the
    units that share them, and counted in the memory the runner checks."""
    return building.SubspaceCache(Path(root), rules, lambda sub: read(root, rules, sub, rule))


@functools.lru_cache(maxsize=8)
def _planned_set(rules: Rules, rule: CeylonRule) -> frozenset:
    return frozenset(planned(rules, rule))


def reads(key: Pair | Subspace, rules: Rules, rule: CeylonRule = CeylonRule()) -> list[Subspace]:
    """The stored subspaces the unit of ``key`` reads: a pair's capture targets' pairs, a
    placement subspace's children where they have codes (not where the game is over).

    >>> reads(Subspace(2, 3, 1, 0), Rules(stones=3)), reads(Pair(3, 4), Rules(stones=4))
    ([Subspace(3, 3)], [Subspace(3, 3)])
    """
    if isinstance(key, Pair):
        return list(dict.fromkeys(s for p in key.dependencies for s in p.subspaces))
    return [c for c in dict.fromkeys(children(key, rules, rule)) if c in _planned_set(rules, rule)]


def plan_units(rules: Rules, rule: CeylonRule = CeylonRule()) -> list[building.Unit]:
    """:func:`files` as the units of a graph (what a cluster runs): each names the units
    of the files it reads in ``needs`` (a pair its capture targets' pairs, a placement
    subspace its children's files; the plain moving pairs of a rule without the extra
    move are built before) and asks for the memory of its build
    (:func:`memory_needed`).

    >>> [(u.name, u.needs) for u in plan_units(Rules(board="six-mens", stones=3))][:2]
    [('pair-3-3', ()), ('place-2-3+1-0', ('pair-3-3',))]
    """
    names = {}
    units = []
    for key in files(rules, rule):
        subs = key.subspaces if isinstance(key, Pair) else [key]
        shapes = tuple((s.m, s.o, s.own_hand, s.opp_hand) for s in subs)
        needed = reads(key, rules, rule)
        held = [Pair(*s, board=rules.board) if s.is_moving else s for s in needed]
        unit = building.Unit("moving" if isinstance(key, Pair) else "placement", shapes, key.slots,
                             memory_needed(key, rules, rule),
                             needs=tuple(dict.fromkeys(names[h] for h in held if h in names)),
                             reads=tuple((s.m, s.o, s.own_hand, s.opp_hand) for s in needed),
                             rounds=isinstance(key, Pair), board=rules.board)
        names[key] = unit.name
        units.append(unit)
    return units


def _work(root: Path, rules: Rules, rule: CeylonRule, key: Pair | Subspace) -> building.Work:
    return (PairWork if isinstance(key, Pair) else PlaceWork)(root, rules, rule, key)


def build(root: Path | str, rules: Rules, rule: CeylonRule = CeylonRule(), *, jobs: int = 2,
          verify: bool = True, memory: int | None = None, client=None, progress: bool = False,
          timeout: float | None = None) -> list[CeylonReport]:
    """Build (or resume) the files of Ceylonese mill's tables under ``rule``: the moving
    pairs with the extra move (without it they are the plain moving phase's, which must
    be built), then the placement subspaces, each checked by the other pass
    (``verify``), written atomically; one report a file.  With ``client`` (a Dask
    client, :mod:`solver.cluster`), on its cluster: a task a file (:func:`plan_units`),
    each after the files it reads, the same files and bits (``progress``, ``timeout``:
    as :func:`solver.cluster.build` takes them)."""
    require_tables(rules, rule)
    root = Path(root)
    if client is not None:
        from . import cluster

        root = root.resolve()         # (the workers find the folder by the same path)
        with building.locked_folder(root, rules):
            require_plain_pairs(root, rules, rule)
            return cluster.run_graph(root, rules, client, plan_units(rules, rule), _cluster_task, (rule, verify),
                                     prefix=f"{rule.name}-", progress=progress, timeout=timeout)
    with building.locked_folder(root, rules):
        require_plain_pairs(root, rules, rule)
        held = file_cache(root, rules, rule)
        reports = []
        for key in files(rules, rule):
            reports += building.run(_work(root, rules, rule, key), held, jobs=jobs, verify=verify, memory=memory)
    return reports


def require_plain_pairs(root: Path, rules: Rules, rule: CeylonRule) -> None:
    """Without the extra move: MissingSubspaceError unless the plain moving pairs the
    placement reads are built (with the build that makes them)."""
    if not rule.extra_move:
        require_built(root, rules, rule, f"Ceylonese mill's placement ({rule.name}) needs the moving pairs",
                      moving_pairs(rules, rule))


def _cluster_task(root: str, rules: Rules, unit: building.Unit, rule: CeylonRule, verify: bool,
                  *needs) -> list[CeylonReport]:
    """The task of one file on a cluster's worker (``needs``: the reports of the files it
    reads, passed only to order the tasks): the runner's, as :func:`build` runs it here,
    what it reads read from the files."""
    from .cluster import worker_jobs

    return building.run(_work(Path(root), rules, rule, unit.key), file_cache(root, rules, rule),
                        jobs=worker_jobs(root, rules), verify=verify)


def check_files(root: Path | str, rules: Rules, rule: CeylonRule = CeylonRule(), *, jobs: int = 2
                ) -> tuple[list[str], list[Exception]]:
    """``muehle check`` of Ceylonese mill's files under ``rule``: each built one verified
    (chunks, SHA-256) and checked against its stored neighbours by the other pass (the
    forward check of a pair, the slot-by-slot pass of a placement subspace); the plain
    moving files of a rule without the extra move are the plain check's.  Returns (the
    files checked, the problems found: a file's own, or of a file it reads, which
    carries the build that mends it as its ``remedy``)."""
    require_tables(rules, rule)
    root = Path(root)
    held = file_cache(root, rules, rule)
    checked, problems = [], []
    for key in files(rules, rule):
        path = table_path(root, rules, key, rule)
        if not path.exists():
            continue
        work = _work(root, rules, rule, key)
        held.keep_only(work.keep())
        try:
            values = {sub: read(root, rules, sub, rule, verify=True)
                      for sub in (key.subspaces if isinstance(key, Pair) else [key])}
            work.require_inputs()
            work.check(values, held, jobs, True)
        except (DatabaseError, ConsistencyError) as exc:
            problems.append(exc)
            continue
        checked.append(path.name)
    return checked, problems


class FileTables(CeylonTables):
    """:class:`CeylonTables` whose codes are read from the files of a built folder as
    they are asked for (a subspace whole, kept while it is asked again: a game asks the
    same few), refused in one line where a file is missing or damaged.

    >>> import tempfile
    >>> rules = Rules(board="six-mens", stones=3)
    >>> root = tempfile.mkdtemp()
    >>> reports = build(root, rules, jobs=1)
    >>> FileTables(root, rules).start_value()
    Value('draw', None)
    """

    def __init__(self, root: Path | str, rules: Rules, rule: CeylonRule = CeylonRule()):
        require_tables(rules, rule)
        super().__init__(rules, rule, _StoredCodes(Path(root), rules, rule))


class _StoredCodes(dict):
    """The codes of :class:`FileTables` by subspace, each read from its file a chunk at a
    time as positions ask for them (the last :attr:`CHUNKS` chunks kept), as the plain
    tables are probed: a position of a game of twelve stones a side, whose subspaces
    hold up to gigabytes, is answered by one chunk, not by its whole subspace."""

    CHUNKS = 64             # (8 MiB of codes)

    def __init__(self, root: Path, rules: Rules, rule: CeylonRule):
        super().__init__()
        self.root, self.rules, self.rule = root, rules, rule
        self.chunks: OrderedDict[tuple[Subspace, int], np.ndarray] = OrderedDict()

    def __missing__(self, sub: Subspace) -> "_StoredSubspace":
        self._reading(sub, lambda reader: None)     # (its file there and its own: else say so now)
        view = self[sub] = _StoredSubspace(self, sub)
        return view

    def chunk(self, sub: Subspace, number: int) -> np.ndarray:
        """The codes of chunk ``number`` of ``sub``, verified (CRC-32) as every read is."""
        key = (sub, number)
        codes = self.chunks.get(key)
        if codes is None:
            codes = self.chunks[key] = self._reading(sub, lambda reader: reader.read_chunks([number])[0])
            if len(self.chunks) > self.CHUNKS:
                self.chunks.popitem(last=False)
        self.chunks.move_to_end(key)
        return codes

    def _reading(self, sub: Subspace, work: Callable[[storage.SubspaceReader], object]):
        """``work`` on the reader of ``sub``'s file; a file missing, damaged or not
        Ceylonese mill's is refused with the build that makes it."""
        try:
            with _opened(self.root, self.rules, sub, self.rule) as reader:
                return work(reader)
        except (MissingSubspaceError, CorruptDatabaseError, ForeignDatabaseError) as error:
            advice = BUILD_IT if isinstance(error, MissingSubspaceError) else REBUILD_IT
            raise with_remedy(error, _remedy(self.root, self.rules, self.rule, sub, advice)) from None


class _StoredSubspace:
    """One subspace's codes in its file, read by slot (``codes[slot]``) a chunk at a time."""

    def __init__(self, store: _StoredCodes, sub: Subspace):
        self.store, self.sub = store, sub

    def __getitem__(self, slot: int) -> int:
        return self.store.chunk(self.sub, slot // storage.CHUNK)[slot % storage.CHUNK]
