"""What the machine leaves a build: memory (the system's, its cgroup's, ``ulimit``'s),
and giving freed memory back; a build asks before it starts a file."""

from __future__ import annotations

import resource
from pathlib import Path


def memory_available() -> int | None:
    """Bytes this process can still take (None where unknown): the least of the system's
    MemAvailable (/proc/meminfo), what its cgroup's limit leaves (a container's, cgroup v2
    or v1, and the limits of the groups above it) and what ``ulimit -v`` / ``-d``
    (RLIMIT_AS, RLIMIT_DATA) leave above the process's present size.  A build that asks
    for more than this is refused in one line, not killed or failed half-way."""
    found = [n for n in (meminfo_available(), cgroup_available(), rlimit_available())
             if n is not None]
    return min(found, default=None)


def meminfo_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def cgroup_available() -> int | None:
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


def rlimit_available() -> int | None:
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
