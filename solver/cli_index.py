"""``muehle index-stats``: orbits and slots of the symmetry-reduced index.

Register on the CLI group with ``main.add_command(index_stats)``.
"""

from __future__ import annotations

import json
import time

import click


@click.command("index-stats")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--threads", default=2, show_default=True, type=click.IntRange(1, 256),
              help="Threads for counting the real slots.")
def index_stats(as_json: bool, threads: int) -> None:
    """Orbits, slots and slots per orbit of each moving-phase subspace, plus totals.

    Orbits are counted from the index itself (its real slots), not from a formula.
    """
    from solver.index import format_index_stats
    from solver.index import index_stats as compute

    start = time.perf_counter()
    stats = compute(threads)
    elapsed = time.perf_counter() - start
    if as_json:
        click.echo(json.dumps(stats, indent=1))
    else:
        click.echo(format_index_stats(stats))
        click.echo(f"counted in {elapsed:.1f} s on {threads} thread(s)", err=True)


if __name__ == "__main__":  # python -m solver.cli_index
    index_stats()
