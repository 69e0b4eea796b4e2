"""Benchmark of the symmetry-reduced index: positions per second on one core.

    python scripts/bench_index.py [--n 4000000] [--repeat 5] [SUBSPACE ...]

Random positions are generated first (not timed); then one compiled nogil loop
(``c_index_position`` over numpy arrays, storing the slots) is timed, best of --repeat runs.
Also times ``c_position_at`` over random slots and a fresh ``import solver.index``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from solver import _kernels  # noqa: E402
from machine import cpu_model  # noqa: E402
from solver.index import Subspace, random_positions, uses_bmi2  # noqa: E402


def best_rate(fn, n, repeat):
    """(best wall rate, median wall rate, best rate by the thread's CPU time).

    On a shared machine the wall rate drops when another process takes the core; the
    CPU-time rate counts only the time this thread ran."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.thread_time()
        fn()
        cpu.append(time.thread_time() - c)
        wall.append(time.perf_counter() - t)
    return n / min(wall), n / float(np.median(wall)), n / min(cpu)


def report(label, rates, note=""):
    best, med, cpu = (r / 1e6 for r in rates)
    print(f"{label:<22} {best:7.1f} M/s best, {med:7.1f} M/s median wall; "
          f"{cpu:7.1f} M/s by CPU time{note}")


def import_time() -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh ``import solver.index``, numpy already imported."""
    code = ("import time, numpy; t, c = time.perf_counter(), time.process_time(); "
            "import solver.index; print(time.perf_counter() - t, time.process_time() - c)")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    runs = [tuple(map(float, subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
        check=True).stdout.split())) for _ in range(5)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("subspaces", nargs="*", default=["9-9", "3-3"])
    ap.add_argument("--n", type=int, default=4_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    print(f"cpu: {cpu_model()}, {os.cpu_count()} cores; BMI2 PEXT/PDEP: {uses_bmi2()}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"solver from {_kernels.__file__}")
    wall, cpu = import_time()
    print(f"import solver.index (numpy already imported): {wall * 1000:.0f} ms wall, "
          f"{cpu * 1000:.0f} ms CPU (best of 5)")
    rng = np.random.default_rng(12345)
    for name in args.subspaces:
        sub = Subspace.parse(name)
        own, opp = random_positions(rng, sub.m, sub.o, args.n)
        out = np.empty(args.n, dtype=np.int64)
        report(f"{sub.name}: c_index_position", best_rate(
            lambda: _kernels.index_batch_unchecked(sub.m, sub.o, own, opp, out), args.n, args.repeat))
        report(f"{sub.name}: index_many", best_rate(
            lambda: sub.index_many(own, opp), args.n, args.repeat), " (checked, allocates)")
        slots = rng.integers(0, sub.slots, args.n, dtype=np.int64)
        a = np.empty(args.n, dtype=np.uint32)
        b = np.empty(args.n, dtype=np.uint32)
        report(f"{sub.name}: c_position_at", best_rate(
            lambda: _kernels.position_batch(sub.m, sub.o, slots, a, b), args.n, args.repeat))


if __name__ == "__main__":
    main()
