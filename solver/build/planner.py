"""The plan of a build: which files, in which order, each needing which others, and
what each takes (memory, disk, time); the same plan serves the build, its ``--dry-run``,
the cluster's task graph, the tables of the quiet-ply rule and a folder's inventory."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import placement, storage
from ..board import STANDARD_BOARD, Board
from ..index import Pair, Subspace, shape_name, successors
from ..retro import pair_order
from ..rules import Rules, kernel_gap, require_kernels

def plan(rules: Rules, max_total: int | None = None, pair: tuple[int, int] | None = None) -> list[Pair]:
    """The pairs to build, in dependency order (``pair``: it and the pairs it needs)."""
    return [Pair(*p, board=rules.board) for p in pair_plan(rules.stones, max_total, pair)]


def pair_plan(stones: int, max_total: int | None = None,
              pair: tuple[int, int] | None = None) -> list[tuple[int, int]]:
    """:func:`plan` as plain (m, o) tuples, for any stone count."""
    order = pair_order(stones)
    if pair is not None:
        wanted, todo = set(), [tuple(sorted(pair))]
        while todo:
            p = todo.pop()
            if p not in wanted:
                wanted.add(p)
                todo += [tuple(sorted(c[:2])) for s in _pair_shapes(p)
                         if (c := successors(*s)[1]) is not None]
        order = [p for p in order if p in wanted]
    if max_total is not None:
        order = [p for p in order if sum(p) <= max_total]
    return order


def _pair_shapes(pair: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    m, o = pair
    return [(m, o, 0, 0)] if m == o else [(m, o, 0, 0), (o, m, 0, 0)]


def memory_needed(pair: Pair) -> int:
    """Bytes a pair's build holds at its peak (:func:`rounds_memory`)."""
    return rounds_memory([s.slots for s in pair.subspaces], [t.slots for t in pair.capture_targets])


def rounds_memory(own: list[int], reads: list[int]) -> int:
    """Bytes a unit solved in rounds (a moving pair, :func:`solver.retro.solve_pair`,
    the check and the write; planned alike, a cycle of mixed placement) holds at its
    peak, for subspaces of ``own`` slots that read subspaces of ``reads`` slots
    (docs/design.md §4): 2 per slot of its own codes throughout, with either 1 per slot
    of its loss floor (the rounds) or 2 per slot of one subspace it reads (a subspace's
    initialisation or check: they are read one at a time), and 16 MiB for the frontier
    and the write's blocks."""
    return 2 * sum(own) + max(sum(own), 2 * max(reads, default=0)) + (16 << 20)


def cycle_memory(own: list[int], reads: list[int]) -> int:
    """Bytes a cycle of mixed placement (:class:`~solver.build.runner.CycleWork`) holds at its peak: as
    :func:`rounds_memory`, but every subspace it reads is held throughout (a subspace of
    the cycle reads up to three at once in its initialisation, and the check reads them
    again), so 2 per slot of all of them beside the codes and the loss floor."""
    return 3 * sum(own) + 2 * sum(reads) + (16 << 20)


@dataclass(frozen=True)
class Unit:
    """One unit of a build's work, named after the file it writes: the subspaces it
    solves together (``shapes``, plain ``(m, o, h, k)`` tuples: a moving pair's one or
    two, a placement subspace, or a cycle m-o+h-k, o-m+k-h of mixed placement), solved
    in rounds (``rounds``: a moving pair, a cycle) or by one pass (a placement subspace
    of separate placement), from the subspaces it reads (``reads``), which the units
    named in ``needs`` write; its slots and the bytes of memory its solve (or pass)
    holds at its peak.  A pair writes one file, a placement unit one a subspace
    (:attr:`outputs`).

    The plan (:func:`build_plan`) is a graph of units, every unit after those it needs:
    :func:`solver.build.build` runs them in that order in this process,
    :mod:`solver.cluster` as a Dask task graph, ``--dry-run`` and scripts/scale_plan.py
    estimate them.  Plain tuples, so that it plans rules beyond the kernels' index too;
    :attr:`key`, :attr:`subspaces` and :attr:`inputs` are the kernels' objects.
    """

    phase: str
    shapes: tuple[tuple[int, int, int, int], ...]
    slots: int
    memory: int
    #: The names of the units whose files it reads (a build's task graph)
    needs: tuple[str, ...] = ()
    reads: tuple[tuple[int, int, int, int], ...] = ()
    rounds: bool = True
    board: Board = field(default=STANDARD_BOARD, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The unit's name, unique in a build: its (first) file's name without ``.h5``."""
        return storage.file_stem(*self.shapes[0])

    @property
    def outputs(self) -> tuple[str, ...]:
        """The names of the files it writes (a pair's one, a placement subspace's each)."""
        if self.phase == "moving":
            return (self.name,)
        return tuple(storage.file_stem(*s) for s in self.shapes)

    @property
    def also(self) -> tuple[str, ...]:
        """The files it writes beside the one it is named after (a cycle's second)."""
        return self.outputs[1:]

    @property
    def files(self) -> int:
        return len(self.outputs)

    @property
    def label(self) -> str:
        """What the build's messages call it: ``pair 3-4``, ``placement 2-3+1-0``."""
        m, o, h, k = self.shapes[0]
        return f"pair {min(m, o)}-{max(m, o)}" if self.phase == "moving" else f"placement {shape_name(m, o, h, k)}"

    @property
    def seconds(self) -> float:
        """Estimated build time at the measured rates (:data:`MOVING_RATE`, ...) and a
        file's own cost (:data:`FILE_SECONDS`) for each it writes."""
        return self.slots / (MOVING_RATE if self.rounds else PLACEMENT_RATE) + FILE_SECONDS * self.files

    def paths(self, root: Path | str, rules: Rules) -> list[Path]:
        """The files it writes in the folder of ``rules`` under ``root``."""
        return [storage.rules_dir(root, rules) / f"{name}.h5" for name in self.outputs]

    @property
    def key(self) -> Pair | Subspace:
        """The kernels' object of the unit (rules the kernels index): its :class:`Pair`,
        or its (first) placement :class:`Subspace`."""
        m, o, h, k = self.shapes[0]
        return Pair(m, o, board=self.board) if self.phase == "moving" else Subspace(m, o, h, k, board=self.board)

    @property
    def subspaces(self) -> list[Subspace]:
        """The subspaces it solves, as the kernels' objects."""
        return [Subspace(*s, board=self.board) for s in self.shapes]

    @property
    def inputs(self) -> list[Subspace]:
        """The subspaces it reads, as the kernels' objects."""
        return [Subspace(*s, board=self.board) for s in self.reads]


#: The unit of a build's plan by its earlier name (:func:`build_plan` listed these, and
#: :func:`plan_units` the same units with the kernels' keys): one type now.
PlannedFile = Unit


def plan_units(rules: Rules, max_total: int | None = None, pair: tuple[int, int] | None = None,
               phase: str = "moving") -> list[Unit]:
    """:func:`build_plan` of rules the kernels solve (UnsupportedRulesError for others):
    the units a build runs.

    >>> [(u.name, u.needs) for u in plan_units(Rules(stones=3), phase="all")][-2:]
    [('place-0-1+3-2', ('place-1-1+2-2',)), ('place-0-0+3-3', ('place-0-1+3-2',))]
    """
    require_kernels(rules)
    return build_plan(rules, phase=phase, max_total=max_total, pair=pair)


def check_phase(phase: str, pair: tuple[int, int] | None) -> None:
    """Raise ValueError for an unknown phase, or a pair with the placement phase alone."""
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r} (one of {', '.join(PHASES)})")
    if pair is not None and phase == "placement":
        raise ValueError("a pair is of the moving phase; the placement phase is limited by a total of stones")


PHASES = ("moving", "placement", "all")
#: Slots per second of a build with 2 threads on the 2-core development machines (an
#: AMD EPYC of family 25, idle), only for the estimate of ``--dry-run``: the whole
#: standard moving phase, 9,193,626,407 slots in 2,190 s at 4e665bb, for every solve in
#: rounds; the whole standard placement phase, 18,667,084,700 slots in 1,373 s wall at
#: b35ae71, for every placement pass (docs/benchmarks.md, "Build of the placement
#: phase": the rates of the whole standard game, whose large files dominate).
MOVING_RATE = 4.2e6
PLACEMENT_RATE = 13.6e6
#: Seconds a file takes beyond its slots (plan, open, check, compress, write, log), for
#: the estimate of ``--dry-run``: fitted on whole builds of small games, where it is most
#: of the time (on the 2-core machine, idle, --jobs 2: five-mens-mixed, 222 files,
#: 5.9 s; six-mens, 140 files, 3.8 s; standard-s4, 30 files, 1.6 s; standard
#: --max-total 8, 44 files, 2.5 s, each with 0.5 s of start-up: about 19 ms a file;
#: docs/benchmarks.md, "The dry run's estimate").
FILE_SECONDS = 0.02
#: Bytes a slot on disk: the whole standard game's files, 10.24 GB for 27,860,711,107
#: slots (moving phase 0.36, placement phase 0.37; docs/results.md): the estimate of a
#: plan, and of a build's need (a warning where the free space is less).
DISK_BYTES_PER_SLOT = 0.37
#: Fewer bytes a slot than any game's files take (the 5-stone game's: 0.018 moving,
#: 0.041 placement; small games compress far better): a build that would not fit even
#: so is refused (:func:`check_disk`).
DISK_BYTES_PER_SLOT_LEAST = 0.01


def plan_sizes(rules: Rules) -> Callable[[int, int], int]:
    """Slots of a subspace with m and o stones on the board, for a plan of ``rules``: the
    kernels' index (orbits plus slack) where the kernels handle them, else the positions
    up to the board's symmetries (:meth:`~solver.board.Board.orbits`)."""
    if kernel_gap(rules) is None:
        return lambda m, o: Subspace(m, o, board=rules.board).slots
    return rules.board.orbits


def build_plan(rules: Rules, *, phase: str = "all", max_total: int | None = None,
               pair: tuple[int, int] | None = None) -> list[Unit]:
    """The units of a build of ``phase`` (all of them, built or not: what
    :func:`solver.build.build` would write), in build order, every unit after the units
    it needs, for any rules: sized by :func:`plan_sizes`, so for rules beyond the kernels
    a plan of symmetry classes.  ``max_total``: only subspaces with at most that many
    stones (board and hand, both sides); ``pair``: that moving pair and the pairs it
    needs (without the placement phase, which needs every pair: see
    :func:`solver.build.build`).  Under mixed placement a placement unit is a cycle
    {m-o+h-k, o-m+k-h} (a side with stones in hand may move, keeping the hands), solved
    in rounds like a moving pair and written as a file per subspace.

    >>> [(f.name, f.slots) for f in build_plan(Rules(stones=3))]
    [('pair-3-3', 210140), ('place-2-3+1-0', 46200), ('place-2-2+1-1', 6930), ('place-1-2+2-1', 1012), ('place-1-1+2-2', 92), ('place-0-1+3-2', 24), ('place-0-0+3-3', 1)]
    >>> [(f.name, f.slots) for f in build_plan(Rules.from_name("three-mens-no-line-wins"),
    ...                                        phase="placement")][:2]
    [('place-2-3+1-0', 174), ('place-2-2+1-1', 108)]
    >>> build_plan(Rules(stones=3))[1].needs        # the last placement: a quiet one and a capture
    ('pair-3-3',)
    """
    check_phase(phase, pair)
    size = plan_sizes(rules)
    slots = lambda shapes: [size(s[0], s[1]) for s in shapes]      # noqa: E731
    cycle_of: dict = {}             # a subspace of mixed placement -> its cycle's first

    def needs(reads: list) -> tuple[str, ...]:
        """The units that write ``reads``: a pair's, a placement subspace's, a cycle's."""
        return tuple(dict.fromkeys(storage.file_stem(*cycle_of.get(c, c)) for c in reads))

    def unit(phase: str, own: list, reads: list, memory: int, rounds: bool = True) -> Unit:
        return Unit(phase, tuple(own), sum(slots(own)), memory, needs(reads), tuple(reads), rounds,
                    board=rules.board)

    units = []
    if phase in ("moving", "all"):
        for p in pair_plan(rules.stones, max_total, pair):
            own = _pair_shapes(p)
            reads = [c for s in own if (c := successors(*s)[1]) is not None]
            units.append(unit("moving", own, reads, rounds_memory(slots(own), slots(reads))))
    if phase in ("placement", "all") and pair is None:
        if rules.mixed:
            for own, reads in _mixed_units(rules.stones, max_total):
                cycle_of.update((s, own[0]) for s in own)
                units.append(unit("placement", own, reads, cycle_memory(slots(own), slots(reads))))
        else:
            for s in placement.shapes(rules.stones, max_total):
                kids = [c for c in successors(*s) if c is not None]
                units.append(unit("placement", [s], kids, placement.pass_memory(size(s[0], s[1]), slots(kids)),
                                  rounds=False))
    return units


def plan_summary(files: list[Unit]) -> list[dict]:
    """Per phase of a plan (moving, then placement, where planned): files (a cycle of
    mixed placement writes one per subspace), slots, the
    largest file, the largest step's memory and file, disk (:data:`DISK_BYTES_PER_SLOT`),
    estimated seconds, and whether its files are solved in rounds."""
    rows = []
    for phase in ("moving", "placement"):
        mine = [f for f in files if f.phase == phase]
        if mine:
            slots = sum(f.slots for f in mine)
            largest = max(mine, key=lambda f: f.slots)
            step = max(mine, key=lambda f: f.memory)
            rows.append({"phase": phase, "files": sum(len(f.outputs) for f in mine), "slots": slots,
                         "largest": largest.name, "largest_slots": largest.slots,
                         "memory": step.memory, "memory_file": step.name,
                         "disk": round(slots * DISK_BYTES_PER_SLOT),
                         "seconds": sum(f.seconds for f in mine), "rounds": mine[0].rounds})
    return rows


def _mixed_units(stones: int, max_total: int | None) -> list[tuple[list, list]]:
    """(own subspaces, subspaces read) of each unit of the placement phase under mixed
    placement, children first: a unit is {m-o+h-k, o-m+k-h} (a move keeps the hands,
    so the two lead into each other), over every pair of hands but none, with at most
    the placed stones on the board; it reads what captures by a move (one stone fewer on
    the board) and placements (one stone fewer in hand) lead to, in the order
    :func:`solver.placement.reads` names them."""
    out = []
    for own in placement.mixed_shapes(stones, max_total):
        reads = []
        for s in own:
            for place in ([False] if s[0] else []) + ([True] if s[2] else []):
                reads += [c for c in successors(*s, place=place)
                          if c is not None and c not in own and c not in reads]
        out.append((own, reads))
    return out
