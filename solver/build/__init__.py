"""Building the databases: plan, solve, verify, store, resume.

``build`` builds the moving phase, then the placement phase (``phase`` picks one or
both).  Moving phase: every planned pair in dependency order (captures lead only into
pairs built before), each solved subspace checked with the forward consistency check,
one file per pair.  Placement phase: every placement subspace (:mod:`solver.placement`)
by one backward pass from its stored children, one hand level after the other, one
file per subspace.  Files are written atomically; a rerun skips files that are complete
and pass their SHA-256 check, so a killed build loses at most the file in progress.

The package: :mod:`solver.build.planner` plans the build (its files, their order,
what each needs), this module runs it; :mod:`solver.build.resources` says how much
memory is left, :mod:`solver.build.lock` keeps one build a folder.
"""

from __future__ import annotations

import logging
import os
import resource
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .. import placement, storage
from ..index import Pair, Subspace
from ..retro import solve_pair, solve_unit, unit_of
from ..verify.check import check_values
from ..errors import (REBUILD_IT, ConsistencyError, CorruptDatabaseError, DatabaseError, ForeignDatabaseError, Remedy, with_remedy,
                     InsufficientMemoryError, MissingSubspaceError)
from ..rules import Rules

from .lock import BuildLock, remove_stale_temporaries
from .planner import (DISK_BYTES_PER_SLOT, DISK_BYTES_PER_SLOT_LEAST, FILE_SECONDS, MOVING_RATE, PHASES,
                      PLACEMENT_RATE, PlannedFile, Unit, build_plan, check_phase, cycle_memory, memory_needed,
                      pair_plan, plan, plan_sizes, plan_summary, plan_units, rounds_memory, unit_key)
from .resources import memory_available, peak_rss_mib, release_free_memory

# (the planner's, the lock's and the resources' names are the package's too: callers
# import them from solver.build)
__all__ = ["BuildLock", "remove_stale_temporaries", "DISK_BYTES_PER_SLOT", "DISK_BYTES_PER_SLOT_LEAST",
           "FILE_SECONDS", "MOVING_RATE", "PHASES", "PLACEMENT_RATE", "PlannedFile", "Unit", "build_plan",
           "check_phase", "cycle_memory", "memory_needed", "pair_plan", "plan", "plan_sizes", "plan_summary",
           "plan_units", "rounds_memory", "unit_key", "memory_available", "peak_rss_mib", "release_free_memory",
           "Report", "PairReport", "PlacementReport", "SubspaceCache", "BackgroundWriter", "build",
           "build_moving", "build_placement", "build_unit", "build_cycle", "build_subspace", "is_built",
           "is_stored", "why_not_built", "built_later", "prepare_folder", "require_stored", "check_plan",
           "size_text", "over_limit", "require_memory", "write_memory", "cache_bytes"]

log = logging.getLogger("muehle.build")

class Report:
    """What the two report kinds share: the rate and the log line's frame."""

    slots: int
    seconds: float
    skipped: bool

    @property
    def slots_per_second(self) -> float:
        """Slots (positions and slack of the files written) solved a second."""
        return self.slots / self.seconds if self.seconds > 0 else 0.0

    #: The name :attr:`slots_per_second` had (kept for programs that read it).
    states_per_second = slots_per_second

    def _line(self, name: str, detail: str) -> str:
        if self.skipped:
            return f"{name}: already built and verified, skipped"
        return (f"{name}: {self.slots:,} slots in {self.seconds:.1f} s ({self.slots_per_second / 1e6:.2f} "
                f"M slots/s{detail}), peak memory {self.peak_rss_mib:.0f} MiB")


@dataclass(frozen=True)
class PairReport(Report):
    """What happened to one pair: built (with time and memory) or skipped."""

    pair: Pair
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool
    rounds: int = 0
    solve_seconds: float = 0.0     # initialisation and rounds
    check_seconds: float = 0.0     # the forward consistency check

    def summary(self) -> str:
        """The line the build logs for this pair."""
        return self._line(f"pair {self.pair.name}",
                          f"; solve {self.solve_seconds:.1f} s, {self.rounds} rounds")


def is_built(root: Path, rules: Rules, pair: tuple[int, int], verify: bool = True) -> bool:
    """Whether the pair's file is complete, for these rules and scheme, and (with verify) intact."""
    return why_not_built(root, rules, Pair(*pair, board=rules.board), verify) is None


def is_stored(root: Path, rules: Rules, sub: Subspace, verify: bool = True) -> bool:
    """Whether ``sub``'s file is complete, for these rules and scheme, and (with verify) intact."""
    return why_not_built(root, rules, sub, verify) is None


def why_not_built(root: Path, rules: Rules, held: Pair | Subspace, verify: bool = True,
                  quiet_limit: int | None = None) -> str | None:
    """None if the file of ``held`` (a pair, or a subspace: its pair's file or its own
    placement file; with ``quiet_limit``, its file of that quiet-ply rule's tables,
    :func:`storage.rule_path`) is built and (with verify) intact, else what is wrong
    with it."""
    subs = held.subspaces if isinstance(held, Pair) else [Subspace(*held, board=rules.board)]
    try:
        for sub in subs:
            path = (storage.file_of(root, rules, sub) if quiet_limit is None
                    else storage.rule_path(root, rules, sub, quiet_limit))
            storage.read_subspace(path, rules, sub.m, sub.o, verify=verify, own_hand=sub.own_hand,
                                  opp_hand=sub.opp_hand, quiet_limit=quiet_limit)
    except (MissingSubspaceError, CorruptDatabaseError, ForeignDatabaseError) as exc:
        return str(exc)
    # (any other DatabaseError, a file that could not be opened at all, goes up: a build
    # stops there rather than replace a file it could not look at)
    return None


def built_later(root: Path, rules: Rules, keys: list) -> list[bool]:
    """For units of a build (their keys): whether a file built from it, directly or
    through others, is in the folder.  Such a unit's file, if absent, was there once
    (deleted), and a build says it is missing; one that a larger build adds (``--max-total
    9``, then ``10``) was never there, and the build says nothing of it."""
    full = plan_units(rules, phase="all")
    dependents: dict = {}
    for unit in full:
        for need in unit.needs:
            dependents.setdefault(need, []).append(unit)
    made_from: dict = {}
    for unit in reversed(full):         # (dependents come after what they need)
        made_from[unit.key] = any(storage.file_of(root, rules, d.key).exists() or made_from[d.key]
                                  for d in dependents.get(unit.key, ()))
    return [made_from.get(key, False) for key in keys]


class SubspaceCache:
    """Solved subspaces held in memory for look-ups by later solves, read from disk on demand.

    ``load(sub)`` reads any subspace, moving or placement (a :data:`solver.placement.SubspaceLookup`);
    ``get(m, o)`` a moving one (a :data:`solver.retro.MovingLookup`).
    """

    def __init__(self, root: Path, rules: Rules):
        self.root, self.rules = Path(root), rules
        self.arrays: dict[Subspace, np.ndarray] = {}

    def load(self, sub: Subspace) -> np.ndarray:
        if sub not in self.arrays:
            path = storage.file_of(self.root, self.rules, sub)
            self.arrays[sub] = storage.read_subspace(path, self.rules, sub.m, sub.o,
                                                     own_hand=sub.own_hand, opp_hand=sub.opp_hand)
        return self.arrays[sub]

    def get(self, m: int, o: int) -> np.ndarray:
        return self.load(Subspace(m, o, board=self.rules.board))

    def read(self, m: int, o: int) -> np.ndarray:
        """A moving subspace's values, held or read from disk, without keeping them: the
        look-up of a pair's solve and check, which need one capture target at a time."""
        sub = Subspace(m, o, board=self.rules.board)
        if sub in self.arrays:
            return self.arrays[sub]
        return storage.read_subspace(storage.file_of(self.root, self.rules, sub),
                                     self.rules, m, o)

    def keep_only(self, needed: Iterable[Subspace]) -> None:
        needed = set(needed)
        for key in list(self.arrays):
            if key not in needed:
                del self.arrays[key]


def cache_bytes(cache: "SubspaceCache") -> int:
    return sum(a.nbytes for a in cache.arrays.values())


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
    with BuildLock(prepare_folder(root, rules)):
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


def build_moving(root: Path | str, rules: Rules, *, max_total: int | None = None,
                 pair: tuple[int, int] | None = None, jobs: int = 2, verify: bool = True,
                 progress: bool = True, memory: int | None = None,
                 background: bool = True) -> list[PairReport]:
    """Build (or resume) the planned pairs in this process; returns one report per pair.
    The caller holds the folder's :class:`BuildLock` (see :func:`build`).

    ``background``: a pair's file is compressed and written in a thread while the next
    pair is solved (docs/design.md §5), when the next pair does not read it and both fit
    in ``memory`` (bytes; None: in what the plan's largest pair needs alone, so that the
    build's peak is that pair's) and in the memory available; else the build waits for
    the write first."""
    from tqdm import tqdm

    root = Path(root)
    units = plan_units(rules, max_total, pair, "moving")
    cache = SubspaceCache(root, rules)
    reports: list[PairReport | None] = [None] * len(units)
    budget = memory if memory is not None else max((u.memory for u in units), default=0)
    writer = BackgroundWriter(budget) if background else None
    # Files there at the start count as done from the start, so that the rate and the
    # time left are of the work this run does (a resumed build showed 85 M states/s).
    there = [storage.file_of(root, rules, u.key).exists() for u in units]
    overall = tqdm(total=sum(u.slots for u in units), unit="slots", unit_scale=True,
                   initial=sum(u.slots for u, t in zip(units, there) if t),
                   desc="all pairs", disable=not progress, position=0, dynamic_ncols=True)
    later = built_later(root, rules, [u.key for u in units])
    try:
        for i, (unit, had_file) in enumerate(zip(units, later)):
            if writer is not None and writer.key in unit.needs:
                writer.wait()           # the next pair reads the file being written
            reports[i] = build_unit(root, rules, unit, cache, jobs=jobs, verify=verify,
                                    progress=progress, had_file=had_file, writer=writer, memory=memory,
                                    done=lambda report, i=i: reports.__setitem__(i, report))
            release_free_memory()
            if not there[i]:
                overall.update(unit.slots)
    finally:
        if writer is not None:
            writer.wait()
        overall.close()
    return [r for r in reports if r is not None]


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
    left = [u for u in units if not storage.file_of(root, rules, u.key).exists()]
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
    blocked = [path for path in (storage.file_of(root, rules, u.key) for u in units) if path.is_dir()]
    if blocked:
        more = f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""
        raise DatabaseError(f"{blocked[0]} is a folder where a database file belongs{more}: "
                            f"move it away, then build again")


def check_needs(root: Path, rules: Rules, units: list[Unit]) -> None:
    """Raise MissingSubspaceError, before any work, if a unit needs a file outside the
    plan (``--phase placement``: the moving pairs) that does not exist.  Whether it is
    intact each task checks as it starts."""
    planned = {unit.key for unit in units}
    missing = {}        # need -> (the first unit that needs it, its subspace, its file)
    for unit in units:
        for need in unit.needs:
            sub = need.subspaces[0] if isinstance(need, Pair) else need
            path = storage.file_of(root, rules, sub)
            if need not in planned and need not in missing and not path.exists():
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
            what = f"pair {unit.key.name}" if isinstance(unit.key, Pair) else f"placement {unit.key.name}"
            raise over_limit(what, unit.memory, memory, outcome)


def size_text(n: int) -> str:
    """Bytes in the unit that says them.

    >>> size_text(3 << 30), size_text(5 << 20), size_text(1000)
    ('3.00 GiB', '5 MiB', '1,000 bytes')
    """
    if n >= 2**30:
        return f"{n / 2**30:.2f} GiB"
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def over_limit(what: str, need: int, memory: int, outcome: str) -> InsufficientMemoryError:
    """The one line for ``what`` needing ``need`` bytes above the ``--memory`` limit."""
    return InsufficientMemoryError(f"{what} needs about {size_text(need)} of memory, more than the memory "
                                   f"limit of {size_text(memory)}; {outcome}", need, memory)


#: What a build says when a file found unusable would need more than ``--memory``.
UNUSABLE_OVER_LIMIT = "its file is unusable and was not built again; the files built before it are kept"


def require_memory(what: str, need: int, cache: "SubspaceCache", memory: int | None) -> None:
    """Before a file's solve or pass: its ``need`` (bytes) within what is available (the
    cache's arrays can be let go) and within the ``--memory`` limit.  The limit was
    checked for the files missing at the build's start (:func:`check_plan`); here it
    holds for one that was there but is found unusable, too."""
    have = memory_available()
    if have is not None and need > have + cache_bytes(cache):
        raise InsufficientMemoryError(
            f"{what} needs about {size_text(need)} of memory, only {size_text(have)} is "
            f"available (the machine's, a container's limit or ulimit -v); the files built "
            f"before it are kept", need, have)
    if memory is not None and need > memory:
        raise over_limit(what, need, memory, UNUSABLE_OVER_LIMIT)


def write_memory(unit: Unit) -> int:
    """Bytes a pair's file holds while it is written after its solve: its codes (2 a
    slot) and the compressed image, twice (at most as large as the codes).  An upper
    bound: the write lets each subspace's codes go once they are compressed."""
    return 4 * unit.slots


class BackgroundWriter:
    """One file at a time written in a thread while the build goes on; ``wait`` joins it
    and raises what the write raised.  The write itself is :func:`storage.write_file`:
    atomic (temporary file, re-read, rename), so a build killed during it leaves no file
    that looks finished, and its rerun builds that pair again."""

    def __init__(self, memory: int | None = None):
        self.memory = memory
        self.key: Pair | Subspace | None = None        # the unit being written
        self.bytes = 0                                   # what its write holds
        self._thread = None
        self._error: BaseException | None = None

    def submit(self, key, nbytes: int, work: Callable[[], None]) -> None:
        self.wait()

        def run() -> None:
            try:
                work()
            except BaseException as exc:    # noqa: BLE001 - raised again by wait()
                self._error = exc
            finally:
                release_free_memory()

        self.key, self.bytes = key, nbytes
        self._thread = threading.Thread(target=run, name=f"write {key.name}")
        self._thread.start()

    def fits(self, need: int) -> bool:
        """Whether a unit needing ``need`` bytes may run beside the write in progress."""
        if self._thread is None:
            return True
        have = memory_available()
        return ((self.memory is None or need + self.bytes <= self.memory)
                and (have is None or need <= have))

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread, self.key, self.bytes = None, None, 0
        error, self._error = self._error, None
        if error is not None:
            raise error


def build_unit(root: Path, rules: Rules, unit: Unit, cache: SubspaceCache | None = None, *,
               jobs: int = 2, verify: bool = True, progress: bool = False,
               had_file: bool = False, writer: BackgroundWriter | None = None,
               done: Callable[[PairReport], None] | None = None,
               memory: int | None = None) -> "PairReport | PlacementReport | None":
    """Build one unit (solve, check, write its file) unless its file is built and intact;
    returns its report.  ``cache`` holds solved subspaces between calls (None: a fresh
    one); ``progress`` shows a bar of the solve's rounds; ``had_file``: the folder had
    its file (see :func:`built_later`), the log says so if it is absent.  A placement
    unit is built by :func:`build_subspace` (its pass needs no separate check:
    ``verify`` is not used).  With ``writer`` a pair's file is written in its thread:
    the call returns None once the write has started, and ``done(report)`` is called
    when it is finished.  ``memory``: the ``--memory`` limit, for a file found unusable
    (:func:`require_memory`)."""
    from tqdm import tqdm

    root = Path(root)
    if not isinstance(unit.key, Pair):
        if rules.mixed:
            return build_cycle(root, rules, unit.key, cache, jobs=jobs, had_file=had_file,
                               memory=memory)[0]
        return build_subspace(root, rules, unit.key, cache, jobs=jobs, progress=progress,
                              had_file=had_file, memory=memory)
    p, name, slots = unit.key, unit.key.name, unit.slots
    folder = storage.rules_dir(root, rules)
    path = storage.pair_path(root, rules, p)
    problem = why_not_built(root, rules, p) if path.exists() else "not built"
    if problem is None:
        report = PairReport(p, slots, 0.0, peak_rss_mib(), skipped=True)
        log.info("%s", report.summary())
        return report
    if path.exists():
        log.warning("pair %s: rebuilding it, the file is unusable: %s", name, problem)
    elif had_file:
        log.warning("pair %s: missing, building it", name)
    require_stored(root, rules, f"pair {name} needs", [s for d in unit.needs for s in d.subspaces])
    remove_stale_temporaries(folder, storage.pair_path(root, rules, p).name)
    cache = cache if cache is not None else SubspaceCache(root, rules)
    cache.keep_only(())         # capture targets are read when needed, one at a time
    need = unit.memory
    if writer is not None and not writer.fits(need):
        writer.wait()           # not beside the write in progress: after it
    require_memory(f"pair {name}", need, cache, memory)
    start = time.perf_counter()
    bar = tqdm(desc=f"pair {name}", unit="round", disable=not progress, position=1,
               leave=False, dynamic_ncols=True)
    result = solve_pair(p, rules, cache.read, jobs,
                        progress=lambda msg: (bar.set_postfix_str(msg), bar.update()))
    bar.close()
    checked_at = time.perf_counter()
    if verify:
        bad = check_values(p, rules, result.values, cache.read, jobs, grouped=True)
        if bad:
            raise ConsistencyError(f"pair {name} fails the consistency check at "
                                   f"{bad[0].describe()} ({len(bad)} bad states seen)", bad)
    check_seconds = time.perf_counter() - checked_at if verify else 0.0

    def write() -> PairReport:
        storage.write_file(path, rules, result.values, release=True,
                           extra={"seconds": time.perf_counter() - start,
                                  "rounds": result.rounds, "checked": bool(verify)})
        report = PairReport(p, slots, time.perf_counter() - start, peak_rss_mib(), skipped=False,
                            rounds=result.rounds, solve_seconds=result.seconds,
                            check_seconds=check_seconds)
        log.info("%s", report.summary())
        if done is not None:
            done(report)
        return report

    if writer is None:
        return write()
    writer.submit(p, write_memory(unit), write)
    return None


# --- the placement phase -------------------------------------------------------------

@dataclass(frozen=True)
class PlacementReport(Report):
    """What happened to one placement subspace: built (with time and memory) or skipped."""

    subspace: Subspace
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool
    cpu_seconds: float = 0.0       # user + system time of the process during the pass

    def summary(self) -> str:
        """The line the build logs for this subspace."""
        return self._line(f"placement {self.subspace.name}", f", {self.cpu_seconds:.1f} s CPU")


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def build_placement(root: Path, rules: Rules, *, max_total: int | None = None, jobs: int = 2,
                    progress: bool = True, memory: int | None = None) -> list[PlacementReport]:
    """Build (or resume) the placement subspaces in this process, children first; one
    report each (the caller holds the folder's :class:`BuildLock`, see :func:`build`).
    ``memory``: the limit (bytes) for a file found unusable (:func:`require_memory`)."""
    from tqdm import tqdm

    subs = placement.plan(rules, max_total)
    cache = SubspaceCache(root, rules)
    reports: list[PlacementReport] = []
    if rules.mixed:
        later = built_later(root, rules, [u[0] for u in placement.units(rules, max_total)])
        for unit, had_file in zip(placement.units(rules, max_total), later):
            reports += build_cycle(root, rules, unit[0], cache, jobs=jobs, had_file=had_file,
                                   memory=memory)
        return reports
    there = [storage.file_of(root, rules, s).exists() for s in subs]     # (as build_moving)
    overall = tqdm(total=sum(s.slots for s in subs), unit="slots", unit_scale=True,
                   initial=sum(s.slots for s, t in zip(subs, there) if t),
                   desc="placement", disable=not progress, position=0, dynamic_ncols=True)
    later = built_later(root, rules, subs)
    try:
        for sub, had_file, was_there in zip(subs, later, there):
            advance = (lambda n: None) if was_there else overall.update
            reports.append(build_subspace(root, rules, sub, cache, jobs=jobs, progress=progress,
                                          advance=advance, had_file=had_file, memory=memory))
            if reports[-1].skipped and not was_there:
                overall.update(sub.slots)
    finally:
        overall.close()
    return reports


def require_stored(root: Path, rules: Rules, who: str, needed: list[Subspace]) -> None:
    """MissingSubspaceError, ``who`` (what needs them) naming the subspaces of ``needed``
    that are not built, and the command that builds them; CorruptDatabaseError where the
    first of them has a file, damaged or foreign (not "not built": it is there)."""
    problems = {c: why_not_built(root, rules, c, verify=False) for c in needed}
    missing = [c for c, problem in problems.items() if problem is not None]
    if missing and (path := storage.file_of(root, rules, missing[0])).exists():
        raise with_remedy(CorruptDatabaseError(
            f"{who} {missing[0].name}, whose file {path.name} is unusable: {problems[missing[0]]}"),
            Remedy(root, rules, REBUILD_IT, needed=tuple(missing)))
    if missing:
        raise MissingSubspaceError(
            missing[0], storage.file_of(root, rules, missing[0]),
            f"{who} {', '.join(c.name for c in missing)}, not built in {storage.rules_dir(root, rules)}",
            Remedy(root, rules, needed=tuple(missing)))


def build_cycle(root: Path, rules: Rules, sub: Subspace, cache: SubspaceCache | None = None, *,
                jobs: int = 2, had_file: bool = False, memory: int | None = None) -> list[PlacementReport]:
    """Build the unit of ``sub`` under mixed placement (:func:`solver.retro.unit_of`: a
    cycle m-o+h-k / o-m+k-h, where a move keeps the hands) in rounds, like a moving
    pair, from the stored subspaces its moves lead to out of it; check each subspace
    forwards and write one file per subspace (as every placement subspace has), unless
    both are built and intact.  One report per subspace."""
    root = Path(root)
    own = unit_of(sub)
    folder = storage.rules_dir(root, rules)
    paths = [storage.placement_path(root, rules, s) for s in own]
    problems = [why_not_built(root, rules, s) if p.exists() else "not built" for s, p in zip(own, paths)]
    if not any(problems):
        reports = [PlacementReport(s, s.slots, 0.0, peak_rss_mib(), skipped=True) for s in own]
        for report in reports:
            log.info("%s", report.summary())
        return reports
    for s, p, problem in zip(own, paths, problems):
        if p.exists() and problem:
            log.warning("placement %s: rebuilding it, the file is unusable: %s", s.name, problem)
        elif had_file and problem:
            log.warning("placement %s: missing, building it", s.name)
    needed = list(dict.fromkeys(c for s in own for c in placement.reads(s, rules) if c not in own))
    need = cycle_memory([s.slots for s in own], [c.slots for c in needed])
    if memory is not None and need > memory:       # (a file found unusable: see require_memory)
        raise over_limit(f"placement {own[0].name}", need, memory, UNUSABLE_OVER_LIMIT)
    require_stored(root, rules, f"placement subspaces {' '.join(s.name for s in own)} need", needed)
    for p in paths:
        remove_stale_temporaries(folder, p.name)
    cache = cache if cache is not None else SubspaceCache(root, rules)
    cache.keep_only(needed)
    start, cpu0 = time.perf_counter(), _cpu_seconds()
    result = solve_unit(own, rules, lambda *shape: cache.load(Subspace(*shape, board=rules.board)), jobs)
    lookup = lambda s: result.values[s] if s in result.values else cache.load(s)  # noqa: E731
    for s in own:
        bad = placement.check(s, rules, result.values[s], lookup, jobs)
        if bad:
            raise ConsistencyError(f"placement {s.name} fails the consistency check at slot {bad[0]} "
                                   f"({len(bad)} bad states seen)", bad)
    for s, p in zip(own, paths):
        storage.write_file(p, rules, {s: result.values[s]},
                           extra={"seconds": time.perf_counter() - start, "phase": "placement",
                                  "rounds": result.rounds, "checked": True})
    # the cycle's time, shared out by slots (the reports add up to it)
    seconds, cpu, slots = time.perf_counter() - start, _cpu_seconds() - cpu0, sum(s.slots for s in own)
    reports = [PlacementReport(s, s.slots, seconds * s.slots / slots, peak_rss_mib(), skipped=False,
                               cpu_seconds=cpu * s.slots / slots) for s in own]
    for report in reports:
        log.info("%s", report.summary())
    return reports


def build_subspace(root: Path, rules: Rules, sub: Subspace, cache: SubspaceCache | None = None, *,
                   jobs: int = 2, progress: bool = False,
                   advance: Callable[[int], None] | None = None,
                   had_file: bool = False, memory: int | None = None) -> PlacementReport:
    """Build one placement subspace by one pass from its stored children, unless its file
    is built and intact; returns its report.  ``cache``, ``had_file``: as for
    :func:`build_unit`; ``progress`` shows a bar of the pass, ``advance(slots)`` is
    called as it goes.

    No separate check: the pass computes each slot from its children exactly as the
    forward check would (``muehle check`` rechecks the stored files).
    """
    from tqdm import tqdm

    root = Path(root)
    folder = storage.rules_dir(root, rules)
    path = storage.placement_path(root, rules, sub)
    problem = why_not_built(root, rules, sub) if path.exists() else "not built"
    if problem is None:
        report = PlacementReport(sub, sub.slots, 0.0, peak_rss_mib(), skipped=True)
        log.info("%s", report.summary())
        return report
    if path.exists():
        log.warning("placement %s: rebuilding it, the file is unusable: %s", sub.name, problem)
    elif had_file:
        log.warning("placement %s: missing, building it", sub.name)
    needed = [c for c in placement.children(sub) if c is not None]
    require_stored(root, rules, f"placement subspace {sub.name} needs", needed)
    remove_stale_temporaries(folder, path.name)
    cache = cache if cache is not None else SubspaceCache(root, rules)
    cache.keep_only(needed)
    require_memory(f"placement subspace {sub.name}", placement.memory_needed(sub), cache, memory)
    start, cpu0 = time.perf_counter(), _cpu_seconds()
    bar = tqdm(total=sub.slots, desc=sub.name, unit="slots", unit_scale=True,
               disable=not progress, position=1, leave=False, dynamic_ncols=True)

    def step(n: int) -> None:
        bar.update(n)
        if advance:
            advance(n)

    values = placement.solve(sub, rules, cache.load, jobs, progress=step)
    bar.close()
    storage.write_file(path, rules, {sub: values},
                       extra={"seconds": time.perf_counter() - start, "phase": "placement"})
    report = PlacementReport(sub, sub.slots, time.perf_counter() - start, peak_rss_mib(),
                             skipped=False, cpu_seconds=_cpu_seconds() - cpu0)
    log.info("%s", report.summary())
    return report
