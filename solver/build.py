"""Building the moving-phase databases: plan, solve, verify, store, resume.

``build`` solves every planned pair in dependency order (captures lead only into
pairs built before), checks each solved subspace with the forward consistency check,
and writes one file per pair atomically.  A rerun skips pairs whose files are complete
and pass their SHA-256 check, so a killed build loses at most the pair in progress.
"""

from __future__ import annotations

import logging
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from . import _kernels, storage
from .retro import capture_subspace, dependencies, pair_subspaces, pairs_in_order, solve_pair
from .verify.check import check_values
from .errors import ConsistencyError, DatabaseError, InsufficientMemoryError, MissingSubspaceError
from .rules import Rules

log = logging.getLogger("muehle.build")

@dataclass(frozen=True)
class PairReport:
    """What happened to one pair: built (with time and memory) or skipped."""

    pair: tuple[int, int]
    slots: int
    seconds: float
    peak_rss_mib: float
    skipped: bool
    rounds: int = 0
    solve_seconds: float = 0.0     # initialisation and rounds
    check_seconds: float = 0.0     # the forward consistency check

    @property
    def states_per_second(self) -> float:
        return self.slots / self.seconds if self.seconds > 0 else 0.0


def parse_pair(text: str, rules: Rules) -> tuple[int, int]:
    """``'8-7'`` -> (7, 8); ValueError naming what is wrong."""
    try:
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        raise ValueError(f"cannot parse pair {text!r}: expected M-O such as 8-7") from None
    if not (3 <= a <= rules.stones and 3 <= b <= rules.stones):
        raise ValueError(f"pair {text}: stone counts must be 3..{rules.stones}")
    return (min(a, b), max(a, b))


def plan(rules: Rules, max_total: int | None = None, pair: tuple[int, int] | None = None) -> list[tuple[int, int]]:
    """The pairs to build, in dependency order."""
    order = pairs_in_order(rules)
    if pair is not None:
        wanted, todo = set(), [pair]
        while todo:
            p = todo.pop()
            if p not in wanted:
                wanted.add(p)
                todo += dependencies(p)
        order = [p for p in order if p in wanted]
    if max_total is not None:
        order = [p for p in order if sum(p) <= max_total]
    return order


def pair_slots(pair: tuple[int, int]) -> int:
    return sum(_kernels.subspace_slots(m, o) for m, o in pair_subspaces(pair))


def memory_needed(pair: tuple[int, int]) -> int:
    """Bytes a pair's solve holds: 3 per slot of its own (value and count) and 2 per slot
    of the subspaces its captures read, plus room for the write's re-read."""
    own = sum(_kernels.subspace_slots(m, o) for m, o in pair_subspaces(pair))
    reads = sum(_kernels.subspace_slots(*t) for t in capture_targets(pair))
    biggest = max(_kernels.subspace_slots(m, o) for m, o in pair_subspaces(pair))
    return 3 * own + 2 * reads + 2 * biggest


def memory_available() -> int | None:
    """MemAvailable from /proc/meminfo, in bytes (None where unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def is_built(root: Path, rules: Rules, pair: tuple[int, int], verify: bool = True) -> bool:
    """Whether the pair's file is complete, for these rules and scheme, and (with verify) intact."""
    path = storage.pair_path(root, rules, pair)
    try:
        for m, o in pair_subspaces(pair):
            storage.read_subspace(path, rules, m, o, verify=verify)
    except DatabaseError:
        return False
    return True


def remove_stale_temporaries(folder: Path) -> None:
    """Delete temporary files left by killed builds (their process is gone)."""
    if not folder.exists():
        return
    for tmp in folder.glob(".pair-*.tmp-*"):
        pid = tmp.name.rsplit("-", 1)[-1]
        alive = pid.isdigit() and _pid_alive(int(pid))
        if not alive:
            tmp.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


class SubspaceCache:
    """Solved subspaces held in memory for capture look-ups, read from disk on demand."""

    def __init__(self, root: Path, rules: Rules):
        self.root, self.rules = Path(root), rules
        self.arrays: dict[tuple[int, int], np.ndarray] = {}

    def get(self, m: int, o: int) -> np.ndarray:
        if (m, o) not in self.arrays:
            path = storage.pair_path(self.root, self.rules, (m, o))
            self.arrays[m, o] = storage.read_subspace(path, self.rules, m, o)
        return self.arrays[m, o]

    def keep_only(self, needed: Iterable[tuple[int, int]]) -> None:
        needed = set(needed)
        for key in list(self.arrays):
            if key not in needed:
                del self.arrays[key]


def cache_bytes(cache: "SubspaceCache") -> int:
    return sum(a.nbytes for a in cache.arrays.values())


def capture_targets(pair: tuple[int, int]) -> list[tuple[int, int]]:
    return [t for s in pair_subspaces(pair) if (t := capture_subspace(*s)) is not None]


def build(root: Path | str, rules: Rules, *, max_total: int | None = None,
          pair: tuple[int, int] | None = None, jobs: int = 2, verify: bool = True,
          progress: bool = True) -> list[PairReport]:
    """Build (or resume) the planned pairs; returns one report per pair."""
    from tqdm import tqdm

    root = Path(root)
    folder = storage.rules_dir(root, rules)
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(folder)
    pairs = plan(rules, max_total, pair)
    cache = SubspaceCache(root, rules)
    reports = []
    total = sum(pair_slots(p) for p in pairs)
    overall = tqdm(total=total, unit="states", unit_scale=True, desc="all pairs",
                   disable=not progress, position=0, dynamic_ncols=True)
    try:
        for p in pairs:
            name = f"{p[0]}-{p[1]}"
            slots = pair_slots(p)
            if is_built(root, rules, p):
                log.info("pair %s: already built and verified, skipped", name)
                reports.append(PairReport(p, slots, 0.0, peak_rss_mib(), skipped=True))
                overall.update(slots)
                continue
            missing = [d for d in dependencies(p) if not is_built(root, rules, d, verify=False)]
            if missing:
                raise MissingSubspaceError(
                    f"{missing[0][0]}-{missing[0][1]}", storage.pair_path(root, rules, missing[0]),
                    f"pair {name} needs pair(s) {', '.join(f'{a}-{b}' for a, b in missing)}, "
                    f"which are not built in {folder}")
            cache.keep_only(capture_targets(p))
            need, have = memory_needed(p), memory_available()
            if have is not None and need > have + cache_bytes(cache):
                raise InsufficientMemoryError(
                    f"pair {name} needs about {need / 2**30:.1f} GiB of memory, "
                    f"only {have / 2**30:.1f} GiB is available", need, have)
            start = time.perf_counter()
            bar = tqdm(desc=f"pair {name}", unit="round", disable=not progress, position=1,
                       leave=False, dynamic_ncols=True)
            result = solve_pair(p, rules, cache.get, jobs,
                                progress=lambda msg: (bar.set_postfix_str(msg), bar.update()))
            bar.close()
            checked_at = time.perf_counter()
            if verify:
                bad = check_values(p, rules, result.values, cache.get, jobs)
                if bad:
                    raise ConsistencyError(f"pair {name} fails the consistency check at "
                                           f"{bad[0].describe()} ({len(bad)} bad states seen)", bad)
            storage.write_pair(storage.pair_path(root, rules, p), rules, result.values,
                               extra={"seconds": time.perf_counter() - start,
                                      "rounds": result.rounds, "checked": bool(verify)})
            seconds = time.perf_counter() - start
            report = PairReport(p, slots, seconds, peak_rss_mib(), skipped=False, rounds=result.rounds,
                                solve_seconds=result.seconds,
                                check_seconds=time.perf_counter() - checked_at if verify else 0.0)
            reports.append(report)
            log.info("pair %s: %d states in %.1f s (%.2f M states/s; solve %.1f s, %d rounds), "
                     "peak memory %.0f MiB", name, slots, seconds, report.states_per_second / 1e6,
                     result.seconds, result.rounds, report.peak_rss_mib)
            overall.update(slots)
    finally:
        overall.close()
    return reports
