"""Dice mill's tables: the placement phase's expected results, built, stored, checked
and probed (the rules and the reference are :mod:`solver.dice`).

One file a placement subspace and dice rule, beside the plain tables of the same rules:
``<root>/<rules>/dice-<dice rule>-place-m-o+h-k.h5`` (:func:`dice_path`), holding the
subspace's values as two uint16 entries a slot, W then N (:mod:`solver.dice`; format
as every file's, with the attribute ``dice`` naming the dice rule, docs/format.md).
The moving phase has no dice: its values are the plain pair files', which must be
built.  The placement subspaces are the plain build's (:func:`solver.placement.plan`:
every board of at most the stones placed, so also the boards only the power reaches);
each is solved by one pass of the kernel ``dice_pass`` from its children, children
first, by the build's runner (a rerun resumes, every file written atomically).

>>> from solver.rules import Rules
>>> dice_path("data", Rules(), Subspace(2, 3, 1, 0), DiceRule()).name
'dice-triple-place-2-3+1-0.h5'
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from . import build as building
from . import placement, storage
from .dice import (DEFAULT, SLACK, UNIT, DiceRule, Expected, Pair, after_replacement, of_wdl, rank,
                   replacements, require_dice, seen_by_mover)
from .errors import (REBUILD_IT, ConsistencyError, CorruptDatabaseError, DatabaseError, ForeignDatabaseError,
                     MissingSubspaceError, Remedy, with_remedy)
from .index import Subspace
from .position import Move, Position, decided, parse_position
from .probe import Database
from .rules import Rules, as_rules

#: A stored slot's value packed as the kernel holds it: W | N << 16.
WIN_PACKED, DRAW_PACKED, LOSS_PACKED = UNIT | UNIT << 16, UNIT << 16, 0


def dice_path(root: Path | str, rules: Rules, sub: Subspace, dice: DiceRule) -> Path:
    """The file of placement subspace ``sub``'s values under dice rule ``dice``."""
    return storage.rules_dir(root, rules) / f"dice-{dice.name}-{storage.placement_path(root, rules, sub).name}"


def packed(value: Pair) -> int:
    """A fixed-point (W, N) packed as the tables hold it."""
    return int(value[0]) | int(value[1]) << 16


_LEAF = np.where(np.arange(0x10000) == 0, DRAW_PACKED,
                 np.where(np.arange(0x10000) % 2 == 1, LOSS_PACKED, WIN_PACKED)).astype(np.uint32)
_LEAF[0xFFFF] = SLACK


def leaf_values(codes: np.ndarray) -> np.ndarray:
    """The packed values of a moving subspace from its plain codes: a win, draw or loss
    is certain there (the moving phase has no dice); slack stays slack."""
    return _LEAF[codes]


def plan(rules: Rules, max_total: int | None = None) -> list[Subspace]:
    """The placement subspaces whose dice values a build of ``max_total`` stones writes,
    children first (the plain placement plan; dice mill needs separate placement)."""
    require_dice(rules)
    return placement.plan(rules, max_total)


def children(sub: Subspace) -> list[Optional[Subspace]]:
    """The subspaces a position of ``sub`` moves into: a quiet placement, one stone taken
    (a mill, or a replacement) and two (a replacement whose stone closes a mill); None
    where so many taken leave the opponent with fewer than three stones (a win)."""
    out = []
    for taken in range(3):
        o = sub.o - taken
        out.append(Subspace(o, sub.m + 1, sub.opp_hand, sub.own_hand - 1, board=sub.board)
                   if o >= 0 and o + sub.opp_hand >= 3 else None)
    return out


def memory_needed(sub: Subspace) -> int:
    """Bytes a pass over ``sub`` holds: 4 a slot of its values and of each child's."""
    return 4 * (sub.slots + sum(c.slots for c in children(sub) if c is not None))


def solve(sub: Subspace, rules: Rules, dice: DiceRule, lookup: Callable[[Subspace], np.ndarray],
          jobs: int = 2) -> np.ndarray:
    """The packed values of every slot of ``sub`` from its children's (``lookup``), by
    the kernel's pass grouped by the opponent's stones (``dice_solve``)."""
    out = np.full(sub.slots, SLACK, dtype=np.uint32)
    sub.kernels.dice_solve(*sub, out, *_child_arrays(sub, lookup), dice.num, dice.replace_takes,
                           rules.flags, jobs)
    return out


def check(sub: Subspace, rules: Rules, dice: DiceRule, values: np.ndarray,
          lookup: Callable[[Subspace], np.ndarray], jobs: int = 2) -> int:
    """How many slots of ``values`` (stored for ``sub``) differ from what their stored
    children give, by the kernel's other pass (``dice_pass``: slot after slot, every
    child indexed on its own), slack slots included."""
    return sub.kernels.dice_pass(*sub, values, *_child_arrays(sub, lookup), dice.num, dice.replace_takes,
                                 rules.flags, jobs, True)


_NONE = np.empty(0, dtype=np.uint32)


def _child_arrays(sub: Subspace, lookup: Callable[[Subspace], np.ndarray]) -> list[np.ndarray]:
    return [_NONE if c is None else lookup(c) for c in children(sub)]


# --- files ---------------------------------------------------------------------------------

def read(root: Path | str, rules: Rules, dice: DiceRule, sub: Subspace, verify: bool = False) -> np.ndarray:
    """The packed values of placement subspace ``sub`` from its file, every chunk
    verified (``verify``: the SHA-256 of the whole too)."""
    path = dice_path(root, rules, sub, dice)
    with storage.open_file(path, rules, sub, sub, dice=dice.name) as f:
        raw = storage.SubspaceReader(f, path, sub).all(sha256=verify)
    return raw.view(np.uint32)


def reader(root: Path | str, rules: Rules, dice: DiceRule) -> Callable[[Subspace], np.ndarray]:
    """``lookup(sub)`` for a pass: a moving subspace's values from its plain pair file
    (:func:`leaf_values`), a placement subspace's from its dice file."""
    def lookup(sub: Subspace) -> np.ndarray:
        if sub.is_moving:
            path = storage.pair_path(root, rules, (sub.m, sub.o))
            return leaf_values(storage.read_subspace(path, rules, sub.m, sub.o))
        return read(root, rules, dice, sub)
    return lookup


def why_not_built(root: Path | str, rules: Rules, dice: DiceRule, sub: Subspace,
                  verify: bool = True) -> str | None:
    """None where ``sub``'s dice file is built and intact (``verify``: every chunk and
    the SHA-256 read; else its header and datasets looked at, as a dry run does), else
    what is wrong with it (the errors :func:`solver.build.why_not_built` takes for a file
    to build again; any other, a file that could not be looked at, goes up and stops the
    build)."""
    try:
        if verify:
            read(root, rules, dice, sub, verify=True)
        else:
            path = dice_path(root, rules, sub, dice)
            with storage.open_file(path, rules, sub, sub, dice=dice.name) as f:
                storage.SubspaceReader(f, path, sub)
    except (MissingSubspaceError, CorruptDatabaseError, ForeignDatabaseError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class DiceReport(building.Report):
    """What happened to one subspace's dice file: built (time, memory) or skipped."""

    subspace: Subspace
    dice: DiceRule
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool

    def summary(self) -> str:
        """The line the build logs for this file."""
        return self._line(f"placement {self.subspace.name} under dice rule {self.dice.name}", "")


class DicePassWork(building.Work):
    """One placement subspace's dice values for the build's runner: one pass from its
    children (read by ``lookup``), checked by a second pass over what was solved, one
    file."""

    def __init__(self, root: Path, rules: Rules, dice: DiceRule, sub: Subspace,
                 lookup: Callable[[Subspace], np.ndarray]):
        super().__init__(root, rules)
        self.dice, self.sub, self.lookup = dice, sub, lookup
        self.label = f"placement {sub.name} under dice rule {dice.name}"
        self.outputs = [(dice_path(root, rules, sub, dice), self.label)]
        self.memory = memory_needed(sub)

    def problems(self) -> list[str | None]:
        return [why_not_built(self.root, self.rules, self.dice, self.sub)]

    def skipped(self) -> list[DiceReport]:
        return [DiceReport(self.sub, self.dice, self.sub.slots, 0.0, building.peak_rss_mib(), True)]

    def require_inputs(self) -> None:
        needed = [c for c in children(self.sub) if c is not None and c.is_moving]
        building.require_stored(self.root, self.rules, f"dice values of placement {self.sub.name} need", needed)

    def solve(self, cache, jobs, progress, advance):
        values = solve(self.sub, self.rules, self.dice, self.lookup, jobs)
        if advance:
            advance(self.sub.slots)
        return values

    def check(self, values, cache, jobs, verify):
        if not verify:
            return False
        bad = check(self.sub, self.rules, self.dice, values, self.lookup, jobs)
        if bad:
            raise ConsistencyError(f"{self.label} fails the consistency check ({bad} slots)", [])
        return True

    def write(self, values, seconds, checked):
        storage.write_file(self.outputs[0][0], self.rules, {self.sub: values}, dice=self.dice.name,
                           extra={"seconds": seconds, "phase": "placement", "dice_rule": self.dice.describe(),
                                  "checked": checked})

    def reports(self, values, seconds, cpu, check_seconds):
        return [DiceReport(self.sub, self.dice, self.sub.slots, seconds, building.peak_rss_mib(), False)]


def plan_units(rules: Rules, max_total: int | None = None) -> list[building.Unit]:
    """:func:`plan`'s subspaces as the units of a graph (what a cluster runs): each names
    the dice units of its placement children in ``needs`` (the moving pairs it reads are
    built before), and asks for the memory of its pass.

    >>> [(u.name, u.needs) for u in plan_units(Rules(stones=3))][-1]
    ('place-0-0+3-3', ('place-0-1+3-2',))
    """
    subs = plan(rules, max_total)
    shape = {s: (s.m, s.o, s.own_hand, s.opp_hand) for s in subs}
    units = []
    for s in subs:
        kids = [c for c in children(s) if c is not None]
        units.append(building.Unit("placement", (shape[s],), s.slots, memory_needed(s),
                                   needs=tuple(storage.file_stem(*shape[c]) for c in kids if c in shape),
                                   reads=tuple((c.m, c.o, c.own_hand, c.opp_hand) for c in kids),
                                   rounds=False, board=rules.board))
    return units


def require_pairs(root: Path, rules: Rules, subs: list[Subspace]) -> None:
    """MissingSubspaceError (with the command that builds them) unless every moving pair
    that ``subs`` lead into is built: the dice tables' leaves."""
    pairs = sorted({c for s in subs for c in children(s) if c is not None and c.is_moving},
                   key=lambda c: (c.m + c.o, c.m, c.o))
    building.require_stored(root, rules, "dice mill's placement phase needs the moving subspaces", pairs)


def build(root: Path | str, rules: Rules, dice: DiceRule = DEFAULT, *, max_total: int | None = None,
          jobs: int = 2, verify: bool = True, memory: int | None = None, client=None,
          progress: bool = False, timeout: float | None = None) -> list[DiceReport]:
    """Build (or resume) the dice values of every planned placement subspace, children
    first, from the plain moving pairs (which must be built); one report a file.  With
    ``client`` (a Dask client, :mod:`solver.cluster`), on its cluster: a task a file
    (:func:`plan_units`), each after the files it reads, the same files and bits
    (``progress``, ``timeout``: as :func:`solver.cluster.build` takes them)."""
    require_dice(rules)
    root = Path(root)
    subs = plan(rules, max_total)
    if client is not None:
        from . import cluster

        root = root.resolve()         # (the workers find the folder by the same path)
        with building.locked_folder(root, rules):
            require_pairs(root, rules, subs)
            return cluster.run_graph(root, rules, client, plan_units(rules, max_total), _cluster_task,
                                     (dice, verify), prefix=f"dice-{dice.name}-", progress=progress,
                                     timeout=timeout)
    with building.locked_folder(root, rules):
        require_pairs(root, rules, subs)
        read_file = reader(root, rules, dice)
        held: dict[Subspace, np.ndarray] = {}       # children read, kept while a sibling reads them

        def cached(sub: Subspace) -> np.ndarray:
            if sub not in held:
                held[sub] = read_file(sub)
            return held[sub]

        reports = []
        for sub in subs:
            needed = [c for c in children(sub) if c is not None]
            for key in [k for k in held if k not in needed]:
                del held[key]
            reports += building.run(DicePassWork(root, rules, dice, sub, cached), jobs=jobs, verify=verify,
                                    memory=memory)
    return reports


def _cluster_task(root: str, rules: Rules, unit: building.Unit, dice: DiceRule, verify: bool,
                  *needs) -> list[DiceReport]:
    """The task of one dice file on a cluster's worker (``needs``: the reports of the
    files it reads, passed only to order the tasks): the runner's, as :func:`build`
    runs it here, its children read from their files."""
    from .cluster import worker_jobs

    return building.run(DicePassWork(Path(root), rules, dice, unit.key, reader(root, rules, dice)),
                        jobs=worker_jobs(root, rules), verify=verify)


def check_files(root: Path | str, rules: Rules, dice: DiceRule = DEFAULT, *, max_total: int | None = None,
                jobs: int = 2) -> tuple[list[Subspace], list[str]]:
    """``muehle check`` of the dice files: each built one verified (chunks, SHA-256) and
    checked slot by slot against its stored children (a second pass of the recursion).
    Returns (subspaces checked, problems found)."""
    require_dice(rules)
    checked, problems = [], []
    lookup = reader(root, rules, dice)
    for sub in plan(rules, max_total):
        path = dice_path(root, rules, sub, dice)
        if not path.exists():
            continue
        try:
            values = read(root, rules, dice, sub, verify=True)
            bad = check(sub, rules, dice, values, lookup, jobs)
        except DatabaseError as exc:
            problems.append(str(exc))
            continue
        checked.append(sub)
        if bad:
            problems.append(f"{path}: {bad} slot(s) differ from what their children give")
    return checked, problems


# --- probing -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiceMove:
    """A move and its value for the side that plays it (the expected result after it,
    before the opponent's throw); ``replacement``: it needs the power."""

    move: Move
    value: Expected
    replacement: bool
    fixed: Pair


class DiceTables:
    """Read access to dice mill's values of one rule set and dice rule: the placement
    phase from the dice files, the moving phase from the plain tables (a
    :class:`~solver.probe.Database` of the same folder).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     DiceTables(root, "standard-s3").get("startpos", "not built")
    'not built'
    """

    CACHE_CHUNKS = 64

    def __init__(self, root: Path | str = storage.DEFAULT_ROOT, rules: Rules | str = "standard",
                 dice: DiceRule | str = DEFAULT):
        self.rules = as_rules(rules)
        require_dice(self.rules)
        self.dice = dice if isinstance(dice, DiceRule) else DiceRule.from_name(dice)
        self.root = Path(root)
        self.db = Database(root, self.rules)
        self._chunks: OrderedDict[tuple[Subspace, int], np.ndarray] = OrderedDict()

    def close(self) -> None:
        """Close the files."""
        self.db.close()
        self._chunks.clear()

    def __enter__(self) -> "DiceTables":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _position(self, position: Position | str) -> Position:
        return parse_position(position, self.rules) if isinstance(position, str) else position

    def fixed(self, position: Position | str) -> Pair:
        """The stored fixed-point (W, N) of ``position`` for its side to move."""
        pos = self._position(position)
        pos.check_rules(self.rules, lines=False)
        done = decided(pos.own, pos.opp, pos.own_hand, pos.opp_hand, self.rules)
        if done is not None:
            return of_wdl(done)
        if not pos.in_placement:
            return of_wdl(self.db.probe(pos, search=False).wdl)
        sub = Subspace.of(pos)
        if not placement.is_placement(sub, self.rules):
            raise MissingSubspaceError(sub, dice_path(self.root, self.rules, sub, self.dice),
                                       f"no dice table holds hands {pos.white_hand} and {pos.black_hand} "
                                       f"with White {'to move' if pos.turn == 'w' else 'not to move'}: "
                                       f"no game of rules {self.rules.name} reaches them")
        slot = sub.index(pos.own, pos.opp)
        chunk = self._chunk(sub, 2 * slot // storage.CHUNK)
        at = 2 * slot % storage.CHUNK
        w, n = int(chunk[at]), int(chunk[at + 1])
        if w > n:
            raise DatabaseError(f"database error: position maps to a slack slot in "
                                f"{dice_path(self.root, self.rules, sub, self.dice)}")
        return w, n

    def _chunk(self, sub: Subspace, k: int) -> np.ndarray:
        key = (sub, k)
        chunk = self._chunks.get(key)
        if chunk is None:
            path = dice_path(self.root, self.rules, sub, self.dice)
            if not path.exists():
                raise MissingSubspaceError(sub, path, f"dice values of subspace {sub.name} are not built: "
                                           f"missing {path}", Remedy(self.root, self.rules, dice=self.dice.name))
            try:
                with storage.open_file(path, self.rules, sub, sub, dice=self.dice.name) as f:
                    r = storage.SubspaceReader(f, path, sub)
                    chunk = r.read(k * storage.CHUNK, min(r.slots, (k + 1) * storage.CHUNK))
            except (CorruptDatabaseError, ForeignDatabaseError) as error:
                # (the build of these tables makes it again: it reads every file it keeps)
                raise with_remedy(error, Remedy(self.root, self.rules, REBUILD_IT, dice=self.dice.name)) from None
            self._chunks[key] = chunk
            while len(self._chunks) > self.CACHE_CHUNKS:
                self._chunks.popitem(last=False)
        else:
            self._chunks.move_to_end(key)
        return chunk

    def probe(self, position: Position | str) -> Expected:
        """The expected result for the side to move before its throw (MissingSubspaceError
        where a file it needs is not built)."""
        return Expected.of(self.fixed(position))

    def get(self, position: Position | str, default: Any = None) -> Expected | Any:
        """:meth:`probe`, or ``default`` where the tables do not hold the position."""
        try:
            return self.probe(position)
        except (DatabaseError, MissingSubspaceError):
            return default

    def probe_moves(self, position: Position | str, powered: bool) -> list[DiceMove]:
        """Every move of ``position`` after a throw that gives the power (``powered``:
        the placements and the replacements) or not, with its value for the mover,
        best first (the order the tables choose by)."""
        pos = self._position(position)
        pos.check_rules(self.rules, lines=False)
        moves = [(mv, pos.play_unchecked(mv), False) for mv in pos.legal_moves(self.rules)]
        if powered:
            moves += [(mv, after_replacement(pos, mv), True) for mv in replacements(pos, self.rules, self.dice)]
        out = []
        for mv, child, repl in moves:
            v = seen_by_mover(self.fixed(child))
            out.append(DiceMove(mv, Expected.of(v), repl, v))
        out.sort(key=lambda d: rank(d.fixed), reverse=True)     # best first
        return out

    def best_move(self, position: Position | str, powered: bool) -> DiceMove:
        """The move the tables choose (the first of :meth:`probe_moves`)."""
        return self.probe_moves(position, powered)[0]

    def query_object(self, position: Position | str, powered: bool | None = None) -> dict:
        """``query --dice``'s answer as one JSON object: the expected result of
        ``position`` before the throw and each move's for its mover (best first, the
        replacements marked: they need the power), as docs/guide/variants.md documents.
        ``powered``: the moves after a throw that gives the power or not (None: every
        move the position may have, the replacements where it places)."""
        pos = self._position(position)
        value = self.probe(pos)
        over = pos.terminal_wdl(self.rules) is not None
        moves = [] if over else self.probe_moves(pos, pos.in_placement if powered is None else powered)
        return {"position": str(pos), "dice": self.dice.name, "power": f"{self.dice.num}/216",
                "expected": expected_object(value),
                "moves": [{"move": str(m.move), "replacement": m.replacement, **expected_object(m.value)}
                          for m in moves]}


def expected_object(value: Expected) -> dict:
    """An expected result as JSON: ``{"win", "draw", "loss", "score"}`` (probabilities,
    the expected score win 1, draw 1/2)."""
    return {"win": value.win, "draw": value.draw, "loss": value.loss, "score": round(value.score, 5)}


__all__ = ["DiceMove", "DicePassWork", "DiceReport", "DiceTables", "build", "check", "check_files",
           "children", "dice_path", "expected_object", "leaf_values", "memory_needed", "packed", "plan",
           "plan_units", "read", "reader", "require_pairs", "solve"]
