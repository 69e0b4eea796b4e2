"""The one runner of a build: every file is built by the same steps, in this order,

1. **built?** each file it writes is complete and intact: skipped (a rerun resumes);
2. **inputs**: the files it reads are stored (else one line naming them and the build);
3. **memory**: its peak fits in what is available and in the ``--memory`` limit;
4. **solve**: in rounds (a moving pair, a cycle of mixed placement) or by one pass;
5. **check**: the forward check of what was solved (a pass is its own check);
6. **write**: atomically, in a thread where the next unit may run beside it;
7. **report**: one line a file,

and what differs between the kinds of unit is a :class:`Work`: a moving pair
(:class:`PairWork`), a placement subspace (:class:`PassWork`), a cycle of mixed
placement (:class:`CycleWork`), and the tables of the quiet-ply rule
(:mod:`solver.dtz`).  :func:`run` is the steps, :func:`work_of` picks the kind of a
planned :class:`~solver.build.planner.Unit`.
"""

from __future__ import annotations

import logging
import resource
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .. import placement, storage
from ..errors import (REBUILD_IT, ConsistencyError, CorruptDatabaseError, ForeignDatabaseError,
                      InsufficientMemoryError, MissingSubspaceError, Remedy, with_remedy)
from ..index import Pair, Subspace
from ..retro import solve_pair, solve_unit
from ..rules import Rules
from ..verify.check import check_values
from .lock import remove_stale_temporaries
from .planner import Unit
from .resources import memory_available, peak_rss_mib, release_free_memory

log = logging.getLogger("muehle.build")


# --- reports ---------------------------------------------------------------------------

class Report:
    """What the report kinds share: the rate and the log line's frame."""

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


def cpu_seconds() -> float:
    """User and system seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- what a unit reads ---------------------------------------------------------------------

class SubspaceCache:
    """Solved subspaces held in memory for look-ups by later solves, read from disk on demand.

    ``load(sub)`` reads any subspace, moving or placement (a :data:`solver.placement.SubspaceLookup`);
    ``get(m, o)`` a moving one (a :data:`solver.retro.MovingLookup`).  ``reader(sub)``
    reads a subspace from its file: the plain tables' by default, another kind's (Ceylonese
    mill's: :mod:`solver.ceylonese_tables`) where given.
    """

    def __init__(self, root: Path, rules: Rules, reader: Callable[[Subspace], np.ndarray] | None = None):
        self.root, self.rules = Path(root), rules
        self.arrays: dict[Subspace, np.ndarray] = {}
        self.reader = reader or self._plain

    def _plain(self, sub: Subspace) -> np.ndarray:
        return storage.read_subspace(storage.file_of(self.root, self.rules, sub), self.rules, sub.m, sub.o,
                                     own_hand=sub.own_hand, opp_hand=sub.opp_hand)

    def load(self, sub: Subspace) -> np.ndarray:
        if sub not in self.arrays:
            self.arrays[sub] = self.reader(sub)
        return self.arrays[sub]

    def get(self, m: int, o: int) -> np.ndarray:
        return self.load(Subspace(m, o, board=self.rules.board))

    def read(self, m: int, o: int) -> np.ndarray:
        """A moving subspace's values, held or read from disk, without keeping them: the
        look-up of a pair's solve and check, which need one capture target at a time."""
        sub = Subspace(m, o, board=self.rules.board)
        if sub in self.arrays:
            return self.arrays[sub]
        return self.reader(sub)

    def keep_only(self, needed: Iterable[Subspace]) -> None:
        needed = set(needed)
        for key in list(self.arrays):
            if key not in needed:
                del self.arrays[key]


def cache_bytes(cache: "SubspaceCache") -> int:
    return sum(a.nbytes for a in cache.arrays.values())


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


# --- memory ----------------------------------------------------------------------------------

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


class BackgroundWriter:
    """One file at a time written in a thread while the build goes on; ``wait`` joins it
    and raises what the write raised.  The write itself is :func:`storage.write_file`:
    atomic (temporary file, re-read, rename), so a build killed during it leaves no file
    that looks finished, and its rerun builds that pair again."""

    def __init__(self, memory: int | None = None):
        self.memory = memory
        self.key: str | None = None         # the name of the unit being written
        self.bytes = 0                      # what its write holds
        self._thread = None
        self._error: BaseException | None = None

    def submit(self, key: str, nbytes: int, work: Callable[[], None]) -> None:
        self.wait()

        def run() -> None:
            try:
                work()
            except BaseException as exc:    # noqa: BLE001 - raised again by wait()
                self._error = exc
            finally:
                release_free_memory()

        self.key, self.bytes = key, nbytes
        self._thread = threading.Thread(target=run, name=f"write {key}")
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


def write_memory(unit: Unit) -> int:
    """Bytes a pair's file holds while it is written after its solve: its codes (2 a
    slot) and their compressed image (at most as large), twice over; an upper bound, as
    the write lets each subspace's codes go once they are compressed.

    >>> from solver.build import plan_units
    >>> write_memory(plan_units(Rules(stones=3))[0]) == 4 * 210140
    True
    """
    return 4 * unit.slots


# --- the kinds of unit ---------------------------------------------------------------------

class Work:
    """What differs between the kinds of unit, step by step (:func:`run` is the steps).

    ``label`` names the unit in messages, ``outputs`` the files it writes, each with the
    label of what it holds; ``memory`` is its peak in bytes; ``background``: its write may
    run in a thread (:class:`BackgroundWriter`) while the next unit is solved, holding
    ``write_memory`` bytes."""

    label: str
    outputs: list[tuple[Path, str]]
    memory: int
    background: bool = False
    write_memory: int = 0

    def __init__(self, root: Path, rules: Rules):
        self.root, self.rules = Path(root), rules

    def problems(self) -> list[str | None]:
        """Per file of :attr:`outputs`: None where it is built and intact, else why not."""
        raise NotImplementedError

    def skipped(self) -> list[Report]:
        """The reports of a unit found built."""
        raise NotImplementedError

    def require_inputs(self) -> None:
        """Raise (one line, with the build that makes them) where what it reads is not stored."""

    def keep(self) -> list[Subspace]:
        """The subspaces a build's cache may keep while this unit is solved."""
        return []

    def solve(self, cache: SubspaceCache, jobs: int, progress: bool,
              advance: Callable[[int], None] | None):
        raise NotImplementedError

    def check(self, result, cache: SubspaceCache, jobs: int, verify: bool) -> bool:
        """Raise ConsistencyError where the forward check fails; whether it checked."""
        return False

    def write(self, result, seconds: float, checked: bool) -> None:
        raise NotImplementedError

    def reports(self, result, seconds: float, cpu: float, check_seconds: float) -> list[Report]:
        raise NotImplementedError


class PairWork(Work):
    """A moving pair: solved in rounds from its capture targets, checked forwards
    (``verify``), one file; its write may overlap the next pair's solve."""

    background = True

    def __init__(self, root: Path, rules: Rules, unit: Unit):
        super().__init__(root, rules)
        self.unit, self.pair = unit, unit.key
        self.label = f"pair {self.pair.name}"
        self.outputs = [(storage.pair_path(root, rules, self.pair), self.label)]
        self.memory = unit.memory
        self.write_memory = write_memory(unit)

    def problems(self) -> list[str | None]:
        path = self.outputs[0][0]
        return [why_not_built(self.root, self.rules, self.pair) if path.exists() else "not built"]

    def skipped(self) -> list[Report]:
        return [PairReport(self.pair, self.unit.slots, 0.0, peak_rss_mib(), skipped=True)]

    def require_inputs(self) -> None:
        require_stored(self.root, self.rules, f"{self.label} needs",
                       [s for d in self.unit.inputs for s in d.pair.subspaces])

    def solve(self, cache, jobs, progress, advance):
        from tqdm import tqdm

        bar = tqdm(desc=self.label, unit="round", disable=not progress, position=1,
                   leave=False, dynamic_ncols=True)
        result = solve_pair(self.pair, self.rules, cache.read, jobs,
                            progress=lambda msg: (bar.set_postfix_str(msg), bar.update()))
        bar.close()
        return result

    def check(self, result, cache, jobs, verify):
        if not verify:
            return False
        bad = check_values(self.pair, self.rules, result.values, cache.read, jobs, grouped=True)
        if bad:
            raise ConsistencyError(f"{self.label} fails the consistency check at "
                                   f"{bad[0].describe()} ({len(bad)} bad states seen)", bad)
        return True

    def write(self, result, seconds, checked):
        storage.write_file(self.outputs[0][0], self.rules, result.values, release=True,
                           extra={"seconds": seconds, "rounds": result.rounds, "checked": checked})

    def reports(self, result, seconds, cpu, check_seconds):
        return [PairReport(self.pair, self.unit.slots, seconds, peak_rss_mib(), skipped=False,
                           rounds=result.rounds, solve_seconds=result.seconds,
                           check_seconds=check_seconds)]


class PlacementWork(Work):
    """What the placement phase's kinds share: a file a subspace, reading the subspaces
    of ``reads`` (kept in the cache: siblings share them)."""

    def __init__(self, root: Path, rules: Rules, unit: Unit):
        super().__init__(root, rules)
        self.unit, self.subs = unit, unit.subspaces
        self.outputs = [(storage.placement_path(root, rules, s), f"placement {s.name}") for s in self.subs]
        self.memory = unit.memory
        self.reads = unit.inputs

    def problems(self) -> list[str | None]:
        return [why_not_built(self.root, self.rules, s) if path.exists() else "not built"
                for s, (path, _) in zip(self.subs, self.outputs)]

    def skipped(self) -> list[Report]:
        return [PlacementReport(s, s.slots, 0.0, peak_rss_mib(), skipped=True) for s in self.subs]

    def require_inputs(self) -> None:
        require_stored(self.root, self.rules, self.needer, self.reads)

    def keep(self) -> list[Subspace]:
        return self.reads

    def reports(self, result, seconds, cpu, check_seconds):
        # a cycle's time shared out by slots (the reports add up to it)
        slots = sum(s.slots for s in self.subs)
        return [PlacementReport(s, s.slots, seconds * s.slots / slots, peak_rss_mib(), skipped=False,
                                cpu_seconds=cpu * s.slots / slots) for s in self.subs]


class PassWork(PlacementWork):
    """A placement subspace of separate placement: one pass from its stored children.  No
    separate check: the pass computes each slot from its children exactly as the forward
    check would (``muehle check`` rechecks the stored files)."""

    def __init__(self, root: Path, rules: Rules, unit: Unit):
        super().__init__(root, rules, unit)
        self.sub = self.subs[0]
        self.label = f"placement subspace {self.sub.name}"
        self.needer = f"{self.label} needs"

    def solve(self, cache, jobs, progress, advance):
        from tqdm import tqdm

        bar = tqdm(total=self.sub.slots, desc=self.sub.name, unit="slots", unit_scale=True,
                   disable=not progress, position=1, leave=False, dynamic_ncols=True)

        def step(n: int) -> None:
            bar.update(n)
            if advance:
                advance(n)

        values = placement.solve(self.sub, self.rules, cache.load, jobs, progress=step)
        bar.close()
        return values

    def write(self, result, seconds, checked):
        storage.write_file(self.outputs[0][0], self.rules, {self.sub: result},
                           extra={"seconds": seconds, "phase": "placement"})


class CycleWork(PlacementWork):
    """A cycle m-o+h-k / o-m+k-h of mixed placement (a move keeps the hands): solved in
    rounds like a moving pair from the stored subspaces its moves lead to out of it,
    each subspace checked forwards, a file each."""

    def __init__(self, root: Path, rules: Rules, unit: Unit):
        super().__init__(root, rules, unit)
        self.label = f"placement {self.subs[0].name}"
        self.needer = f"placement subspaces {' '.join(s.name for s in self.subs)} need"

    def solve(self, cache, jobs, progress, advance):
        return solve_unit(self.subs, self.rules,
                          lambda *shape: cache.load(Subspace(*shape, board=self.rules.board)), jobs)

    def check(self, result, cache, jobs, verify):
        check_cycle(self.subs, self.rules, result.values, cache.load, jobs)
        return True

    def write(self, result, seconds, checked):
        for s, (path, _) in zip(self.subs, self.outputs):
            storage.write_file(path, self.rules, {s: result.values[s]},
                               extra={"seconds": seconds, "phase": "placement",
                                      "rounds": result.rounds, "checked": True})


def check_cycle(subs: list[Subspace], rules: Rules, values: dict, read: Callable[[Subspace], np.ndarray],
                jobs: int, what: str = "") -> None:
    """The forward check of a solved cycle of mixed placement (``values`` by subspace),
    each subspace reading the other's values and ``read``'s for what its moves lead to
    out of the cycle; ConsistencyError naming the first that fails (``what``: words
    after its name, as " under the 50-ply rule")."""
    lookup = lambda s: values[s] if s in values else read(s)  # noqa: E731
    for s in subs:
        bad = placement.check(s, rules, values[s], lookup, jobs)
        if bad:
            raise ConsistencyError(f"placement {s.name}{what} fails the consistency check at slot {bad[0]} "
                                   f"({len(bad)} bad states seen)", bad)


def work_of(root: Path | str, rules: Rules, unit: Unit) -> Work:
    """The kind of a planned unit of the plain tables."""
    if unit.phase == "moving":
        return PairWork(Path(root), rules, unit)
    return CycleWork(Path(root), rules, unit) if unit.rounds else PassWork(Path(root), rules, unit)


# --- the steps -------------------------------------------------------------------------------

def run(work: Work, cache: SubspaceCache | None = None, *, jobs: int = 2, verify: bool = True,
        progress: bool = False, had_file: bool = False, writer: BackgroundWriter | None = None,
        done: Callable[[list[Report]], None] | None = None, memory: int | None = None,
        advance: Callable[[int], None] | None = None) -> list[Report] | None:
    """Build the files of one unit by the steps (module docstring), unless every one is
    built and intact; returns a report a file, each logged.  ``cache`` holds solved
    subspaces between calls (None: a fresh one); ``progress`` shows a bar of the solve;
    ``advance(slots)`` is called as it goes; ``had_file``: the folder had its file (see
    :func:`solver.build.built_later`), the log says so if it is absent.  With ``writer``
    a unit whose write may overlap the next solve (:attr:`Work.background`) is written
    in its thread: the call returns None once the write has started, and
    ``done(reports)`` is called when it is finished.  ``memory``: the ``--memory``
    limit, for a file found unusable (:func:`require_memory`)."""
    problems = work.problems()
    if not any(problems):
        reports = work.skipped()
        for report in reports:
            log.info("%s", report.summary())
        return reports
    for (path, label), problem in zip(work.outputs, problems):
        if problem and path.exists():
            log.warning("%s: rebuilding it, the file is unusable: %s", label, problem)
        elif problem and had_file:
            log.warning("%s: missing, building it", label)
    work.require_inputs()
    for path, _ in work.outputs:
        remove_stale_temporaries(path.parent, path.name)
    cache = cache if cache is not None else SubspaceCache(work.root, work.rules)
    cache.keep_only(work.keep())
    if writer is not None and not writer.fits(work.memory):
        writer.wait()           # not beside the write in progress: after it
    require_memory(work.label, work.memory, cache, memory)
    start, cpu0 = time.perf_counter(), cpu_seconds()
    result = work.solve(cache, jobs, progress, advance)
    checked_at = time.perf_counter()
    checked = work.check(result, cache, jobs, verify)
    check_seconds = time.perf_counter() - checked_at if checked else 0.0

    def write() -> list[Report]:
        work.write(result, time.perf_counter() - start, checked)
        reports = work.reports(result, time.perf_counter() - start, cpu_seconds() - cpu0, check_seconds)
        for report in reports:
            log.info("%s", report.summary())
        if done is not None:
            done(reports)
        return reports

    if writer is None or not work.background:
        return write()
    writer.submit(work.outputs[0][0].stem, work.write_memory, write)
    return None
