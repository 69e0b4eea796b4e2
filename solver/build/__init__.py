"""Building the databases: plan, solve, verify, store, resume.

``build`` builds the moving phase, then the placement phase (``phase`` picks one or
both).  Moving phase: every planned pair in dependency order (captures lead only into
pairs built before), each solved subspace checked with the forward consistency check,
one file per pair.  Placement phase: every placement subspace (:mod:`solver.placement`)
by one backward pass from its stored children, one hand level after the other, one
file per subspace (under mixed placement a cycle of two in rounds, checked).  Files are
written atomically; a rerun skips files that are complete and pass their SHA-256
check, so a killed build loses at most the file in progress.

The package, in the order of a build: :mod:`solver.build.planner` plans it (its units,
their order, what each reads and needs); this module checks the plan before any work
and runs it, unit after unit, each by :func:`solver.build.runner.run` (the steps every
file is built by: built? inputs, memory, solve, check, write, report; the kinds of unit
are what differs); :mod:`solver.build.resources` says how much memory is left,
:mod:`solver.build.lock` keeps one build a folder.  :mod:`solver.cluster` runs the same
units as a Dask task graph, :mod:`solver.dtz` the tables of the quiet-ply rule by the
same runner.

>>> [(u.name, work_of("data", Rules(stones=3), u).label) for u in plan_units(Rules(stones=3), phase="all")][:2]
[('pair-3-3', 'pair 3-3'), ('place-2-3+1-0', 'placement subspace 2-3+1-0')]
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from .. import storage
from ..errors import DatabaseError, MissingSubspaceError, Remedy
from ..index import Pair, Subspace
from ..rules import Rules

from .lock import BuildLock, remove_stale_temporaries
from .planner import (DISK_BYTES_PER_SLOT, DISK_BYTES_PER_SLOT_LEAST, FILE_SECONDS, MOVING_RATE, PHASES,
                      PLACEMENT_RATE, PlannedFile, Unit, build_plan, check_phase, cycle_memory, memory_needed,
                      pair_plan, plan, plan_sizes, plan_summary, plan_units, rounds_memory)
from .resources import memory_available, peak_rss_mib, release_free_memory
from .runner import (UNUSABLE_OVER_LIMIT, BackgroundWriter, CycleWork, PairReport, PairWork, PassWork,
                     PlacementReport, Report, SubspaceCache, Work, cache_bytes, check_cycle, cpu_seconds, over_limit,
                     require_memory, require_stored, run, size_text, why_not_built, work_of, write_memory)

# (the planner's, the runner's, the lock's and the resources' names are the package's
# too: callers import them from solver.build)
__all__ = ["BuildLock", "remove_stale_temporaries", "DISK_BYTES_PER_SLOT", "DISK_BYTES_PER_SLOT_LEAST",
           "FILE_SECONDS", "MOVING_RATE", "PHASES", "PLACEMENT_RATE", "PlannedFile", "Unit", "build_plan",
           "check_phase", "cycle_memory", "memory_needed", "pair_plan", "plan", "plan_sizes", "plan_summary",
           "plan_units", "rounds_memory", "memory_available", "peak_rss_mib", "release_free_memory",
           "UNUSABLE_OVER_LIMIT", "BackgroundWriter", "CycleWork", "PairReport", "PairWork", "PassWork",
           "PlacementReport", "Report", "SubspaceCache", "Work", "cache_bytes", "check_cycle", "cpu_seconds",
           "over_limit",
           "require_memory", "require_stored", "run", "size_text", "why_not_built", "work_of",
           "build", "build_moving", "build_placement", "build_unit", "build_cycle", "build_subspace",
           "run_units", "is_built", "is_stored", "built_later", "prepare_folder", "check_plan",
           "write_memory"]

log = logging.getLogger("muehle.build")


def is_built(root: Path, rules: Rules, pair: tuple[int, int], verify: bool = True) -> bool:
    """Whether the pair's file is complete, for these rules and scheme, and (with verify) intact."""
    return why_not_built(root, rules, Pair(*pair, board=rules.board), verify) is None


def is_stored(root: Path, rules: Rules, sub: Subspace, verify: bool = True) -> bool:
    """Whether ``sub``'s file is complete, for these rules and scheme, and (with verify) intact."""
    return why_not_built(root, rules, sub, verify) is None


def built_later(root: Path, rules: Rules, names: list[str]) -> list[bool]:
    """For units of a build (their names, :attr:`Unit.name`): whether a file built from
    it, directly or through others, is in the folder.  Such a unit's file, if absent, was
    there once (deleted), and a build says it is missing; one that a larger build adds
    (``--max-total 9``, then ``10``) was never there, and the build says nothing of it."""
    full = build_plan(rules, phase="all")
    dependents: dict = {}
    for unit in full:
        for need in unit.needs:
            dependents.setdefault(need, []).append(unit)
    made_from: dict = {}
    for unit in reversed(full):         # (dependents come after what they need)
        made_from[unit.name] = any(any(p.exists() for p in d.paths(root, rules)) or made_from[d.name]
                                   for d in dependents.get(unit.name, ()))
    return [made_from.get(name, False) for name in names]


def locked_folder(root: Path | str, rules: Rules) -> BuildLock:
    """The lock of a build of ``rules`` under ``root`` (:class:`BuildLock`), the rules'
    folder made first (:func:`prepare_folder`); the folders made for it go again if the
    build fails before it writes a file in them."""
    made, part = [], storage.rules_dir(root, rules)
    while not os.path.lexists(part) and part != part.parent:
        made.append(part)               # (the rules' folder, and the folders above it made too)
        part = part.parent
    return BuildLock(prepare_folder(root, rules), tuple(made))


def prepare_folder(root: Path | str, rules: Rules) -> Path:
    """Create the rules' folder and delete the temporaries of killed builds; returns it."""
    folder = storage.rules_dir(root, rules)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        # mkdir says only "File exists" or "Not a directory": name what stands in the way
        for part in (folder, *folder.parents):
            if part.is_symlink() and not part.exists():
                raise DatabaseError(f"{part} is a link to {os.readlink(part)}, which does not exist: "
                                    f"create that folder or give another one") from None
            if part.exists() and not part.is_dir():
                raise DatabaseError(f"{part} is not a folder: a database folder must be one") from None
        raise
    except OSError as exc:           # (a folder where none can be made: /proc, read-only, ...)
        raise DatabaseError(f"cannot make the database folder {folder}: "
                            f"{(exc.strerror or str(exc)).lower()}") from None
    remove_stale_temporaries(folder)
    return folder


def build(root: Path | str, rules: Rules, *, phase: str = "all", max_total: int | None = None,
          pair: tuple[int, int] | None = None, jobs: int = 2, verify: bool = True,
          progress: bool = True, memory: int | None = None) -> list:
    """Build (or resume) the planned files of ``phase``; returns one report per file.

    ``max_total``: only subspaces with at most that many stones (board and hand, both
    sides).  ``pair``: that moving pair and the pairs it needs; the placement phase needs
    the whole moving phase, so with ``pair`` the placement phase is not built.
    ``memory``: bytes the build may hold (None: what the machine has available): a
    plan with a file whose peak is above it is refused before anything is built
    (:func:`check_memory_limit`), and a pair's write overlaps the next pair's solve only
    where both fit in it (None: where both fit in what the largest pair needs alone;
    :func:`build_moving`).
    """
    check_phase(phase, pair)
    root = Path(root)
    reports: list = []
    units = plan_units(rules, max_total, pair, phase)
    with locked_folder(root, rules):
        # (under the lock: a plan checked while another build writes the files it needs
        # would be refused for their want, not for that build)
        check_plan(root, rules, units, memory)
        if phase in ("moving", "all"):
            reports += build_moving(root, rules, max_total=max_total, pair=pair, jobs=jobs,
                                    verify=verify, progress=progress, memory=memory)
        if phase in ("placement", "all"):
            if pair is not None:
                log.info("placement phase not built: it needs every moving pair, not only %d-%d",
                         *pair)
            else:
                reports += build_placement(root, rules, max_total=max_total, jobs=jobs,
                                           progress=progress, memory=memory)
    return reports


def run_units(root: Path | str, rules: Rules, units: list[Unit], *, desc: str, jobs: int = 2,
              verify: bool = True, progress: bool = True, memory: int | None = None,
              writer: BackgroundWriter | None = None) -> list[Report]:
    """Run ``units`` (a plan, every unit after those it needs) in this process, each by
    :func:`run`, with one cache of the subspaces read (siblings share their children)
    and a bar of the slots (``desc``); a report a file.  With ``writer`` a pair's write
    overlaps the next unit's solve, except for a unit that reads it.  The caller holds
    the folder's :class:`BuildLock` (see :func:`build`)."""
    from tqdm import tqdm

    root = Path(root)
    cache = SubspaceCache(root, rules)
    reports: list[list[Report] | None] = [None] * len(units)
    # Files there at the start count as done from the start, so that the rate and the
    # time left are of the work this run does (a resumed build showed 85 M states/s).
    there = [all(p.exists() for p in u.paths(root, rules)) for u in units]
    overall = tqdm(total=sum(u.slots for u in units), unit="slots", unit_scale=True,
                   initial=sum(u.slots for u, t in zip(units, there) if t),
                   desc=desc, disable=not progress, position=0, dynamic_ncols=True)
    later = built_later(root, rules, [u.name for u in units])
    try:
        for i, (unit, had_file, was_there) in enumerate(zip(units, later, there)):
            if writer is not None and writer.key in unit.needs:
                writer.wait()           # the next unit reads the file being written
            advanced = [0]

            def advance(n: int) -> None:
                advanced[0] += n
                overall.update(n)

            got = run(work_of(root, rules, unit), cache, jobs=jobs, verify=verify, progress=progress,
                      had_file=had_file, writer=writer, memory=memory,
                      advance=None if was_there else advance,
                      done=lambda done, i=i: reports.__setitem__(i, done))
            if got is not None:
                reports[i] = got
            release_free_memory()
            if not was_there:
                overall.update(unit.slots - advanced[0])
    finally:
        if writer is not None:
            writer.wait()
        overall.close()
    return [r for done in reports if done for r in done]


def build_moving(root: Path | str, rules: Rules, *, max_total: int | None = None,
                 pair: tuple[int, int] | None = None, jobs: int = 2, verify: bool = True,
                 progress: bool = True, memory: int | None = None,
                 background: bool = True) -> list[PairReport]:
    """Build (or resume) the planned pairs in this process (:func:`run_units`); returns
    one report per pair.  The caller holds the folder's :class:`BuildLock` (see
    :func:`build`).

    ``background``: a pair's file is compressed and written in a thread while the next
    pair is solved (docs/design.md §5), when the next pair does not read it and both fit
    in ``memory`` (bytes; None: in what the plan's largest pair needs alone, so that the
    build's peak is that pair's) and in the memory available; else the build waits for
    the write first."""
    units = plan_units(rules, max_total, pair, "moving")
    budget = memory if memory is not None else max((u.memory for u in units), default=0)
    return run_units(root, rules, units, desc="all pairs", jobs=jobs, verify=verify, progress=progress,
                     memory=memory, writer=BackgroundWriter(budget) if background else None)


def build_placement(root: Path, rules: Rules, *, max_total: int | None = None, jobs: int = 2,
                    progress: bool = True, memory: int | None = None) -> list[PlacementReport]:
    """Build (or resume) the placement subspaces in this process, children first
    (:func:`run_units`); one report each (the caller holds the folder's
    :class:`BuildLock`, see :func:`build`).  ``memory``: the limit (bytes) for a file
    found unusable (:func:`require_memory`)."""
    return run_units(root, rules, plan_units(rules, max_total, phase="placement"), desc="placement",
                     jobs=jobs, progress=progress, memory=memory)


def check_plan(root: Path, rules: Rules, units: list[Unit], memory: int | None = None) -> None:
    """What a build refuses before any work, one line each (a dry run says the same):
    files it needs outside the plan (:func:`check_needs`), a folder where a file belongs
    (:func:`check_places`), a folder the build could not write in (:func:`check_writable`),
    with ``memory`` a file to build whose peak is above it
    (:func:`check_memory_limit`), and files that would not fit on the disk
    (:func:`check_disk`)."""
    check_writable(root, rules)
    check_needs(root, rules, units)
    check_places(root, rules, units)
    left = [u for u in units if not all(p.exists() for p in u.paths(root, rules))]
    if memory is not None:
        check_memory_limit(left, memory)
    check_disk(root, rules, left)


def check_disk(root: Path, rules: Rules, units: list[Unit]) -> None:
    """Before any work (the whole game runs for hours before it writes its last files):
    raise DatabaseError where the files left to build would not fit on the folder's
    file system even at :data:`DISK_BYTES_PER_SLOT_LEAST`, and warn where they may not
    at :data:`DISK_BYTES_PER_SLOT` (the 9-stone game's rate; smaller games take less).
    A build that finds the disk full stops in one line all the same, and a rerun resumes."""
    slots = sum(u.slots for u in units)
    place = storage.rules_dir(root, rules)
    while not place.exists() and place != place.parent:
        place = place.parent
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        return                             # (the folder's own errors are said elsewhere)
    if slots * DISK_BYTES_PER_SLOT_LEAST > free:
        raise DatabaseError(f"the {sum(u.files for u in units)} file(s) left to build need at least "
                            f"{slots * DISK_BYTES_PER_SLOT_LEAST / 1e9:.2f} GB on disk, and {place} "
                            f"has {free / 1e9:.2f} GB free: free some space or give another database folder; "
                            f"nothing was built")
    if slots * DISK_BYTES_PER_SLOT > free:
        log.warning("the %d file(s) left to build may need up to %.2f GB on disk (%s bytes a slot, "
                    "as the 9-stone game's), and %s has %.2f GB free: a full disk stops the build "
                    "(rerun it to resume)", sum(u.files for u in units), slots * DISK_BYTES_PER_SLOT / 1e9,
                    DISK_BYTES_PER_SLOT, place, free / 1e9)


def check_writable(root: Path, rules: Rules) -> None:
    """Raise DatabaseError, before any work, where the build could not write its files:
    the rules' folder (or, in a dry run, the nearest folder above it that exists, where
    it would be made) is not a folder, is on a read-only file system, or is not writable
    for this user.  Otherwise a build would find out only at its first write, after the
    first solve."""
    folder = storage.rules_dir(root, rules)
    place = folder
    while not os.path.lexists(place) and place != place.parent:
        place = place.parent
    if not place.is_dir():
        raise DatabaseError(f"{place} is not a folder: the build puts its files in {folder}")
    try:
        read_only = bool(os.statvfs(place).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False            # (what cannot be asked is found at the first write)
    if read_only:
        raise DatabaseError(f"{place} is on a read-only file system: the build cannot write "
                            f"{'there' if place == folder else folder}; give another database folder")
    if not os.access(place, os.W_OK | os.X_OK):
        raise DatabaseError(f"{place} is not writable for this user: the build cannot write "
                            f"{'there' if place == folder else folder}; give another database folder")


def check_places(root: Path, rules: Rules, units: list[Unit]) -> None:
    """Raise DatabaseError, before any work, where a folder stands in the place of a
    planned file: the build could not put its file there, and would find that out only
    after the solve."""
    refuse_folders([path for u in units for path in u.paths(root, rules)])


def refuse_folders(paths: list[Path]) -> None:
    """:func:`check_places` of the files at ``paths`` (those of the tables of the quiet-ply
    rule, :func:`solver.dtz.build`, too)."""
    blocked = [path for path in paths if path.is_dir()]
    if blocked:
        more = f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""
        raise DatabaseError(f"{blocked[0]} is a folder where a database file belongs{more}: "
                            f"move it away, then build again")


def check_needs(root: Path, rules: Rules, units: list[Unit]) -> None:
    """Raise MissingSubspaceError, before any work, if a unit needs a file outside the
    plan (``--phase placement``: the moving pairs) that does not exist.  Whether it is
    intact each task checks as it starts."""
    planned = {name for unit in units for name in unit.outputs}
    missing = {}        # need (a pair or a subspace) -> (the first unit that needs it, its subspace, its file)
    for unit in units:
        for read in unit.inputs:
            need = read.pair if read.is_moving else read
            sub = need.subspaces[0] if isinstance(need, Pair) else need
            path = storage.file_of(root, rules, sub)
            if path.stem not in planned and need not in missing and not path.exists():
                missing[need] = (unit, sub, path)
    if missing:
        # the hint builds all that is missing at once, not the first file only
        unit, sub, path = next(iter(missing.values()))
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise MissingSubspaceError(sub, path, f"{unit.name} needs {path.name}{more}, not built in "
                                   f"{path.parent}", Remedy(root, rules, needed=tuple(missing)))


def check_memory_limit(units: list[Unit], memory: int | None,
                       outcome: str = "nothing was built") -> None:
    """Refuse, before anything is built, a plan with a unit whose peak is above
    ``memory`` bytes (None: no limit): one line naming the file, the need and the limit
    (and ``outcome``: what became of the build)."""
    if memory is None:
        return
    for unit in units:
        if unit.memory > memory:
            raise over_limit(unit.label, unit.memory, memory, outcome)


def build_unit(root: Path | str, rules: Rules, unit: Unit, cache: SubspaceCache | None = None, *,
               jobs: int = 2, verify: bool = True, progress: bool = False, had_file: bool = False,
               writer: BackgroundWriter | None = None, done=None,
               memory: int | None = None) -> list[Report] | None:
    """Build one planned unit: :func:`run` of its kind (:func:`work_of`); a report a file
    it writes (a cluster's task runs this)."""
    return run(work_of(root, rules, unit), cache, jobs=jobs, verify=verify, progress=progress,
               had_file=had_file, writer=writer, done=done, memory=memory)


def _placement_unit(rules: Rules, sub: Subspace) -> Unit:
    return next(u for u in plan_units(rules, phase="placement") if sub in u.subspaces)


def build_subspace(root: Path, rules: Rules, sub: Subspace, cache: SubspaceCache | None = None, *,
                   jobs: int = 2, progress: bool = False, advance=None, had_file: bool = False,
                   memory: int | None = None) -> PlacementReport:
    """The earlier name of building one placement subspace of separate placement: the
    :func:`run` of its unit; its report."""
    return run(PassWork(Path(root), rules, _placement_unit(rules, sub)), cache, jobs=jobs,
               progress=progress, advance=advance, had_file=had_file, memory=memory)[0]


def build_cycle(root: Path, rules: Rules, sub: Subspace, cache: SubspaceCache | None = None, *,
                jobs: int = 2, had_file: bool = False, memory: int | None = None) -> list[PlacementReport]:
    """The earlier name of building the cycle of mixed placement that holds ``sub``: the
    :func:`run` of its unit; a report a subspace."""
    return run(CycleWork(Path(root), rules, _placement_unit(rules, sub)), cache, jobs=jobs,
               had_file=had_file, memory=memory)
