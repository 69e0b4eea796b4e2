"""Building the databases: plan, solve, verify, store, resume.

``build`` builds the moving phase, then the placement phase (``phase`` picks one or
both).  Moving phase: every planned pair in dependency order (captures lead only into
pairs built before), each solved subspace checked with the forward consistency check,
one file per pair.  Placement phase: every placement subspace (:mod:`solver.placement`)
by one backward pass from its stored children, one hand level after the other, one
file per subspace.  Files are written atomically; a rerun skips files that are complete
and pass their SHA-256 check, so a killed build loses at most the file in progress.
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

from . import placement, storage
from .index import Pair, Subspace, successors
from .retro import pair_order, solve_pair, solve_unit, unit_of
from .verify.check import check_values
from .errors import (ConsistencyError, CorruptDatabaseError, DatabaseError, ForeignDatabaseError,
                     InsufficientMemoryError, MissingSubspaceError)
from .rules import Rules, kernel_gap, require_kernels

log = logging.getLogger("muehle.build")

class Report:
    """What the two report kinds share: the rate and the log line's frame."""

    slots: int
    seconds: float
    skipped: bool

    @property
    def states_per_second(self) -> float:
        return self.slots / self.seconds if self.seconds > 0 else 0.0

    def _line(self, name: str, detail: str) -> str:
        if self.skipped:
            return f"{name}: already built and verified, skipped"
        return (f"{name}: {self.slots} states in {self.seconds:.1f} s ({self.states_per_second / 1e6:.2f} "
                f"M states/s{detail}), peak memory {self.peak_rss_mib:.0f} MiB")


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


def memory_available() -> int | None:
    """Bytes this process can still take (None where unknown): the least of the system's
    MemAvailable (/proc/meminfo), what its cgroup's limit leaves (a container's, cgroup v2
    or v1, and the limits of the groups above it) and what ``ulimit -v`` / ``-d``
    (RLIMIT_AS, RLIMIT_DATA) leave above the process's present size.  A build that asks
    for more than this is refused in one line, not killed or failed half-way."""
    found = [n for n in (_meminfo_available(), _cgroup_available(), _rlimit_available())
             if n is not None]
    return min(found, default=None)


def _meminfo_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_available() -> int | None:
    """The least that a memory limit of this process's cgroup, or of one above it, leaves."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    least = None
    for line in lines:
        _, controllers, group = line.split(":", 2)
        if controllers == "":                         # cgroup v2
            base, limit_name, usage_name = Path("/sys/fs/cgroup"), "memory.max", "memory.current"
        elif "memory" in controllers.split(","):      # cgroup v1
            base = Path("/sys/fs/cgroup/memory")
            limit_name, usage_name = "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        where = base / group.lstrip("/")
        for folder in (where, *where.parents):
            if not folder.is_relative_to(base):
                break
            try:
                limit = (folder / limit_name).read_text().strip()
                usage = int((folder / usage_name).read_text())
            except (OSError, ValueError):
                continue
            if limit.isdigit() and int(limit) < 1 << 60:   # ("max", or v1's huge "no limit")
                left = max(0, int(limit) - usage)
                least = left if least is None else min(least, left)
    return least


def _rlimit_available() -> int | None:
    """What RLIMIT_AS and RLIMIT_DATA (``ulimit -v``, ``-d``) leave above this process's
    address space (VmSize) and data (VmData).  (VmSize counts what threads reserve and do
    not use, so this is on the safe side; a build that still runs out is one line, see
    :func:`solver.cli.common.out_of_memory`.)"""
    try:
        status = {line.split(":")[0]: int(line.split()[1]) * 1024
                  for line in Path("/proc/self/status").read_text().splitlines()
                  if line.startswith(("VmSize:", "VmData:"))}
    except (OSError, ValueError, IndexError):
        return None
    least = None
    for limit, used in ((resource.RLIMIT_AS, "VmSize"), (resource.RLIMIT_DATA, "VmData")):
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY and used in status:
            left = max(0, soft - status[used])
            least = left if least is None else min(least, left)
    return least


def release_free_memory() -> None:
    """Give the pages of freed memory back to the system (glibc's ``malloc_trim``; nothing
    elsewhere).  A file's image is built in the writer thread, whose malloc arena keeps
    the pages of the freed compression buffers: a process that had written three large
    pairs held about 1 GiB more during the next than a fresh one (docs/benchmarks.md)."""
    if _malloc_trim is not None:
        _malloc_trim(0)


def _libc_malloc_trim():
    try:
        import ctypes
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _libc_malloc_trim()


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


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


class BuildLock:
    """One build per database folder: ``<folder>/.build.lock``, held with ``flock`` (so a
    killed build's lock is free again at once: the kernel drops it with the process), and
    naming its holder (pid, host, start time) for the build that finds it taken."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / ".build.lock"
        self._fd: int | None = None
        self._folder_fd: int | None = None

    def __enter__(self) -> "BuildLock":
        import fcntl
        import json
        import socket
        import stat
        try:
            # not through a link: it is emptied below, and a link planted in a shared
            # folder would have a build empty whatever it points to
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            why = ("it is a symbolic link: remove it, a build makes its own"
                   if self.path.is_symlink() else exc.strerror or str(exc))
            raise DatabaseError(f"cannot open the build lock {self.path}: {why}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise DatabaseError(f"the build lock {self.path} is not a regular file: remove it, "
                                f"a build makes its own")
        def taken(held_fd: int) -> DatabaseError:
            try:
                holder = json.loads(os.pread(held_fd, 4096, 0) or b"{}")
                who = (f"pid {int(holder['pid'])} on {str(holder['host'])[:64]} since "
                       f"{str(holder['start'])[:32]}")
            except (ValueError, KeyError, TypeError, OSError):
                who = "another process"
            return DatabaseError(f"{self.path.parent} is being built by {who}; "
                                 f"wait for it to finish (lock {self.path})")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            error = taken(fd)
            os.close(fd)
            raise error from None
        # The folder is locked too: a lock file deleted while a build holds it (by hand,
        # a clean-up script) would let a second build make a new one and run beside it;
        # the folder cannot go while it holds the files.  (Where the file system cannot
        # lock a folder, the file's lock is all there is.)
        try:
            folder_fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            folder_fd = None
        if folder_fd is not None:
            try:
                fcntl.flock(folder_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._folder_fd = folder_fd
            except BlockingIOError:
                os.close(folder_fd)
                error = taken(fd)     # (a new, empty lock file: "another process")
                os.close(fd)
                raise error from None
            except OSError:
                os.close(folder_fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                      "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}).encode(), 0)
        except OSError as exc:      # a full disk: say which file, as every write error does
            os.close(fd)
            raise DatabaseError(f"cannot write the build lock {self.path}: {exc.strerror or exc}") from None
        self._fd = fd
        try:
            self._clear_leftovers()
        except OSError as exc:      # (__exit__ will not run: let the lock go here)
            self.__exit__()
            raise DatabaseError(f"cannot clear what killed builds left in {self.path.parent}: "
                                f"{exc.strerror or exc} ({exc.filename})") from None
        return self

    def _clear_leftovers(self) -> None:
        """What killed runs left that only a run holding this lock uses: the token files
        of a cluster build's check (deleted), the database files' temporaries written on
        this host (deleted, whatever process now has the number in their name: only a
        build holding this lock writes them, and none has started yet) and those written
        on other hosts (named in a warning: a machine of the cluster may still be
        writing one)."""
        folder = self.path.parent
        for token in folder.glob(".cluster-token-*"):
            token.unlink(missing_ok=True)
        for tmp in sorted(folder.glob(".*.tmp-*")):
            if not tmp.name.startswith((".pair-", ".place-", ".dtz")):
                continue                   # (an opening book's, written without the lock)
            host, _ = storage.temporary_owner(tmp)
            if host == storage.HOST:
                tmp.unlink(missing_ok=True)
            else:
                log.warning("leftover temporary file %s, written on host %s (a build killed "
                            "there?): delete it unless a build there is still writing it", tmp, host)

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)          # releases the flock
            self._fd = None
        if self._folder_fd is not None:
            os.close(self._folder_fd)
            self._folder_fd = None


def remove_stale_temporaries(folder: Path, name: str = "pair-*.h5") -> None:
    """Delete temporary files of ``name`` (a file name or pattern) left by killed writers.

    A temporary file names the host and process writing it (:func:`storage.temporary_path`);
    only those of this host whose process is gone are removed, so a folder shared by the
    machines of a cluster keeps the files other machines are writing.
    """
    if not folder.exists():
        return
    for tmp in folder.glob(f".{name}.tmp-*"):
        host, pid = storage.temporary_owner(tmp)
        if host == storage.HOST and not (pid is not None and _pid_alive(pid)):
            tmp.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


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
        raise ValueError("--pair names a moving-phase pair; the placement phase is limited by --max-total")


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
                                    f"create that folder or give another --db") from None
            if part.exists() and not part.is_dir():
                raise DatabaseError(f"{part} is not a folder: a database folder must be one") from None
        raise
    except OSError as exc:           # (a folder where none can be made: /proc, read-only, ...)
        raise DatabaseError(f"cannot make the database folder {folder}: "
                            f"{(exc.strerror or str(exc)).lower()}") from None
    remove_stale_temporaries(folder)
    return folder


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
    overall = tqdm(total=sum(u.slots for u in units), unit="states", unit_scale=True,
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
                            f"has {free / 1e9:.2f} GB free: free some space or give another --db; "
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
                            f"{'there' if place == folder else folder}; give another --db")
    if not os.access(place, os.W_OK | os.X_OK):
        raise DatabaseError(f"{place} is not writable for this user: the build cannot write "
                            f"{'there' if place == folder else folder}; give another --db")


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
                                   f"{path.parent} (build it with: "
                                   f"{storage.repair_command(root, rules, list(missing))})")


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
    return InsufficientMemoryError(f"{what} needs about {size_text(need)} of memory, more than the "
                                   f"limit of {size_text(memory)} (--memory); {outcome}", need, memory)


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
    and raises what the write raised.  The write itself is :func:`storage.write_pair`:
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
        storage.write_pair(path, rules, result.values, release=True,
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
    overall = tqdm(total=sum(s.slots for s in subs), unit="states", unit_scale=True,
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
        raise storage.with_repair(CorruptDatabaseError(
            f"{who} {missing[0].name}, whose file {path.name} is unusable: {problems[missing[0]]}"),
            root, rules, missing)
    if missing:
        raise MissingSubspaceError(
            missing[0], storage.file_of(root, rules, missing[0]),
            f"{who} {', '.join(c.name for c in missing)}, not built in "
            f"{storage.rules_dir(root, rules)} (build it with: "
            f"{storage.repair_command(root, rules, missing)})")


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
        storage.write_pair(p, rules, {s: result.values[s]},
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
    bar = tqdm(total=sub.slots, desc=sub.name, unit="states", unit_scale=True,
               disable=not progress, position=1, leave=False, dynamic_ncols=True)

    def step(n: int) -> None:
        bar.update(n)
        if advance:
            advance(n)

    values = placement.solve(sub, rules, cache.load, jobs, progress=step)
    bar.close()
    storage.write_pair(path, rules, {sub: values},
                       extra={"seconds": time.perf_counter() - start, "phase": "placement"})
    report = PlacementReport(sub, sub.slots, time.perf_counter() - start, peak_rss_mib(),
                             skipped=False, cpu_seconds=_cpu_seconds() - cpu0)
    log.info("%s", report.summary())
    return report
