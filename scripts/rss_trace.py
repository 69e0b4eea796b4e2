#!/usr/bin/env python3
"""Run a command and trace its resident memory over time: where a build's peak comes from.

Usage: python scripts/rss_trace.py [--every 0.5] [--step 64] -- COMMAND [ARG ...]

Samples VmRSS of the command's process (all its threads share it) every ``--every``
seconds and prints a line, with the UTC time of day, whenever it moved by ``--step``
MiB since the last line, then the peak and when it was reached.  The build's log lines
carry the same clock (HH:MM:SS), so the two read side by side: the peak falls in the
phase (solve, check, background write of the previous pair) running at that time.
The command's output goes to its own stdout and stderr; the trace goes to stderr.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def stamp() -> str:
    return time.strftime("%H:%M:%S", time.gmtime())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    ap.add_argument("--step", type=float, default=64, help="MiB of change worth a line")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command after --")
    proc = subprocess.Popen(command)
    last = peak = 0.0
    peak_at = stamp()
    while proc.poll() is None:
        rss = rss_mib(proc.pid)
        if rss is not None:
            if abs(rss - last) >= args.step:
                print(f"rss {stamp()} {rss:8.0f} MiB", file=sys.stderr, flush=True)
                last = rss
            if rss > peak:
                peak, peak_at = rss, stamp()
        time.sleep(args.every)
    print(f"rss peak {peak:.0f} MiB at {peak_at} (sampled every {args.every} s); exit {proc.returncode}",
          file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
