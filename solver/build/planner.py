"""The plan of a build: which files, in which order, each needing which others, and
what each takes (memory, disk, time); the same plan serves the build, its ``--dry-run``,
the cluster's task graph, the tables of the quiet-ply rule and a folder's inventory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import placement, storage
from ..index import Pair, Subspace, successors
from ..retro import pair_order, unit_of
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
    """Bytes a cycle of mixed placement (:func:`build_cycle`) holds at its peak: as
    :func:`rounds_memory`, but every subspace it reads is held throughout (a subspace of
    the cycle reads up to three at once in its initialisation, and the check reads them
    again), so 2 per slot of all of them beside the codes and the loss floor."""
    return 3 * sum(own) + 2 * sum(reads) + (16 << 20)


@dataclass(frozen=True)
class Unit:
    """One unit of work of a build: the file of ``key`` (a moving-phase pair or a
    placement subspace), made from the files of the units in ``needs``, with its slots
    and the bytes of memory its solve (or pass) holds.

    A build's plan (:func:`plan_units`) is a graph of units, listed so that every unit
    comes after those it needs; :func:`build` runs them in that order in this process,
    :mod:`solver.cluster` runs them as a Dask task graph.
    """

    key: Pair | Subspace
    needs: tuple[Pair | Subspace, ...]
    slots: int
    memory: int
    #: Files it writes: one, or one a subspace of a cycle of mixed placement
    files: int = 1

    @property
    def name(self) -> str:
        """The unit's name, unique in a build (its file's name without the suffix)."""
        key = self.key
        return storage.file_stem(*key) if isinstance(key, Pair) else \
            storage.file_stem(key.m, key.o, key.own_hand, key.opp_hand)


def plan_units(rules: Rules, max_total: int | None = None, pair: tuple[int, int] | None = None,
               phase: str = "moving") -> list[Unit]:
    """The planned units of ``phase`` with their dependencies, every unit after the units
    it needs.  A placement subspace needs the units of its children (a moving child:
    its pair); with ``pair`` the placement phase is left out (see :func:`build`).

    >>> [(u.name, [n.name for n in u.needs]) for u in plan_units(Rules(stones=3), phase="all")][-2:]
    [('place-0-1+3-2', ['1-1+2-2']), ('place-0-0+3-3', ['0-1+3-2'])]
    """
    require_kernels(rules)
    check_phase(phase, pair)
    units = []
    if phase in ("moving", "all"):
        units += [Unit(p, tuple(p.dependencies), p.slots, memory_needed(p))
                  for p in (Pair(*q, board=rules.board) for q in plan(rules, max_total, pair))]
    if phase in ("placement", "all") and pair is None:
        for own in placement.units(rules, max_total):
            reads = [c for s in own for c in placement.reads(s, rules) if c not in own]
            needs = tuple(dict.fromkeys(unit_key(c, rules) for c in reads))
            memory = (cycle_memory([s.slots for s in own], [c.slots for c in dict.fromkeys(reads)])
                      if rules.mixed else placement.memory_needed(own[0]))
            units.append(Unit(own[0], needs, sum(s.slots for s in own), memory, files=len(own)))
    return units


def unit_key(sub: Subspace, rules: Rules) -> Pair | Subspace:
    """The key of the unit that solves ``sub``: its pair (moving phase), itself (a
    placement subspace), or under mixed placement the first subspace of its cycle."""
    if sub.is_moving:
        return sub.pair
    return unit_of(sub)[0] if rules.mixed else sub


def check_phase(phase: str, pair: tuple[int, int] | None) -> None:
    """Raise ValueError for an unknown phase, or a pair with the placement phase alone."""
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r} (one of {', '.join(PHASES)})")
    if pair is not None and phase == "placement":
        raise ValueError("a pair is of the moving phase; the placement phase is limited by a total of stones")


PHASES = ("moving", "placement", "all")
#: Slots per second of a build with 2 threads on the 2-core development machines
#: (docs/benchmarks.md, docs/results.md), only for the estimate of ``--dry-run``: the
#: whole standard moving phase as measured on the slowest of them with issue 15's
#: kernels (an AMD EPYC of family 25: 9,193,626,407 slots in 3,232 s at 64d5c17; an
#: Intel Xeon took 1,671 s at 34704c0, the first build 5,416.6 s), for every solve in
#: rounds; the whole standard placement phase as measured (18,667,084,700 slots in
#: 6,264 s wall, with about one core free of other work: on two idle cores it should be
#: up to twice as fast, not measured), for every placement pass.
MOVING_RATE = 2.84e6
PLACEMENT_RATE = 3.0e6
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


@dataclass(frozen=True)
class PlannedFile:
    """One unit of a build's work, named after the file it writes: its phase, name, slots
    and the memory it needs.  ``rounds``: solved in rounds (a moving pair, a cycle of
    mixed placement) rather than by one pass (a placement subspace of separate
    placement).  A cycle m-o+h-k, o-m+k-h of mixed placement is one unit that writes a
    file per subspace: ``also`` names the others (:attr:`outputs`)."""

    phase: str
    name: str
    slots: int
    memory: int
    rounds: bool = True
    #: The names of the planned files it reads (a build's task graph, scripts/scale_plan.py)
    needs: tuple[str, ...] = ()
    also: tuple[str, ...] = ()

    @property
    def outputs(self) -> tuple[str, ...]:
        """The names of the files it writes."""
        return (self.name, *self.also)

    @property
    def seconds(self) -> float:
        """Estimated build time at the measured rates (:data:`MOVING_RATE`, ...) and a
        file's own cost (:data:`FILE_SECONDS`) for each it writes."""
        return self.slots / (MOVING_RATE if self.rounds else PLACEMENT_RATE) + FILE_SECONDS * len(self.outputs)


def plan_sizes(rules: Rules) -> Callable[[int, int], int]:
    """Slots of a subspace with m and o stones on the board, for a plan of ``rules``: the
    kernels' index (orbits plus slack) where the kernels handle them, else the positions
    up to the board's symmetries (:meth:`~solver.board.Board.orbits`)."""
    if kernel_gap(rules) is None:
        return lambda m, o: Subspace(m, o, board=rules.board).slots
    return rules.board.orbits


def build_plan(rules: Rules, *, phase: str = "all", max_total: int | None = None,
               pair: tuple[int, int] | None = None) -> list[PlannedFile]:
    """The files :func:`build` would write (all of them, built or not), in build order,
    for any rules: sized by :func:`plan_sizes`, so for rules beyond the kernels a plan
    of symmetry classes.  Under mixed placement a placement unit is a cycle
    {m-o+h-k, o-m+k-h} (a side with stones in hand may move, keeping the hands), solved
    in rounds like a moving pair and written as a file per subspace (``also``).

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
    cycle_of: dict = {}             # a subspace of mixed placement -> its cycle's file

    def file_of(shape: tuple) -> str:
        """The name of the planned file that holds ``shape`` (a cycle's: its first's)."""
        return storage.file_stem(*cycle_of.get(shape, shape))

    def needs(reads: list) -> tuple[str, ...]:
        return tuple(dict.fromkeys(file_of(c) for c in reads))

    files = []
    if phase in ("moving", "all"):
        for p in pair_plan(rules.stones, max_total, pair):
            own = _pair_shapes(p)
            reads = [c for s in own if (c := successors(*s)[1]) is not None]
            files.append(PlannedFile("moving", file_of(own[0]), sum(slots(own)),
                                     rounds_memory(slots(own), slots(reads)), needs=needs(reads)))
    if phase in ("placement", "all") and pair is None:
        if rules.mixed:
            for own, reads in _mixed_units(rules.stones, max_total):
                cycle_of.update((s, own[0]) for s in own)
                files.append(PlannedFile("placement", file_of(own[0]), sum(slots(own)),
                                         cycle_memory(slots(own), slots(reads)), needs=needs(reads),
                                         also=tuple(storage.file_stem(*s) for s in own[1:])))
        else:
            for s in placement.shapes(rules.stones, max_total):
                kids = [c for c in successors(*s) if c is not None]
                files.append(PlannedFile("placement", file_of(s), size(s[0], s[1]),
                                         placement.pass_memory(size(s[0], s[1]), slots(kids)),
                                         rounds=False, needs=needs(kids)))
    return files


def plan_summary(files: list[PlannedFile]) -> list[dict]:
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
    the placed stones on the board; it reads what placements (one stone fewer in hand)
    and captures by a move (one stone fewer on the board) lead to."""
    out = []
    for own in placement.mixed_shapes(stones, max_total):
        reads = []
        for s in own:
            for place in ([True] if s[2] else []) + ([False] if s[0] else []):
                reads += [c for c in successors(*s, place=place)
                          if c is not None and c not in own and c not in reads]
        out.append((own, reads))
    return out
