"""Commands that build and inspect the databases: ``build``, ``check``, ``stats`` and
``index-stats``."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Optional

import click
from tqdm import tqdm

from .. import build as building
from .. import index, storage
from ..check import check_pair
from ..index import Pair
from ..retro import pairs_in_order
from ..rules import Rules
from .common import db_option, fail, jobs_option, main, rules_options


@main.command()
@db_option
@rules_options
@click.option("--max-total", type=click.IntRange(6, 18), default=None,
              help="Build every pair with at most this many stones in total.")
@click.option("--pair", "pair_text", metavar="M-O", default=None,
              help="Build this pair (e.g. 8-7) and the pairs it needs.")
@jobs_option
@click.option("--no-verify", is_flag=True, help="Skip the consistency check of each new pair.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def build(db: str, rules: Rules, max_total: Optional[int], pair_text: Optional[str], jobs: int,
          no_verify: bool, quiet: bool) -> None:
    """Build the moving-phase databases in dependency order (resumable).

    Pairs already built and intact are skipped, so rerunning after a kill resumes;
    a pair in progress is never left looking finished.  Logs, per pair, states,
    seconds and peak memory.

    \b
    Examples:
      muehle build --max-total 8
      muehle build --pair 8-7 --jobs 2
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    pair = Pair.parse(pair_text, rules.stones) if pair_text else None
    reports = building.build(db, rules, max_total=max_total, pair=pair, jobs=jobs,
                             verify=not no_verify, progress=not quiet)
    built = [r for r in reports if not r.skipped]
    seconds = sum(r.seconds for r in built)
    click.echo(f"{len(built)} pair(s) built, {len(reports) - len(built)} already there, "
               f"{seconds:.1f} s, peak memory {max((r.peak_rss_mib for r in reports), default=0):.0f} MiB; "
               f"databases in {Path(db) / rules.name}")


def _collect_stats(db: str, rules: Rules) -> list[dict]:
    """One row of recorded statistics per built subspace, in build order."""
    rows = []
    for pair in pairs_in_order(rules):
        path = storage.pair_path(db, rules, pair)
        if not path.exists():
            continue
        stats = storage.pair_stats(path, rules)
        for sub in pair.subspaces:
            info = stats[sub.name]
            rows.append({"subspace": sub.name, "wins": info["wins"], "losses": info["losses"],
                         "draws": info["draws"], "longest_win": info["longest_win"],
                         "longest_loss": info["longest_loss"]})
    return rows


@main.command()
@db_option
@rules_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def stats(db: str, rules: Rules, as_json: bool) -> None:
    """Wins, losses and draws (for the side to move) and longest win and loss, per subspace.

    Counts are of positions up to symmetry, as in the published tables.
    """
    rows = _collect_stats(db, rules)
    if not rows:
        fail(f"no databases for rules {rules.name} in {db} (build them with: muehle build --db {db})")
    totals = {k: sum(r[k] for r in rows) for k in ("wins", "losses", "draws")}
    totals["longest_win"] = max(r["longest_win"] for r in rows)
    totals["longest_loss"] = max(r["longest_loss"] for r in rows)
    if as_json:
        click.echo(json.dumps({"rules": rules.name, "subspaces": rows, "total": totals}))
        return
    header = f"{'subspace':>8} {'wins':>14} {'losses':>14} {'draws':>14} {'longest win':>12} {'longest loss':>12}"
    click.echo(f"rules: {rules.name}")
    click.echo(header)
    for r in rows + [dict(totals, subspace="total")]:
        click.echo(f"{r['subspace']:>8} {r['wins']:>14,} {r['losses']:>14,} {r['draws']:>14,} "
                   f"{r['longest_win']:>12} {r['longest_loss']:>12}")


@main.command()
@db_option
@rules_options
@click.option("--pair", "pair_text", metavar="M-O", default=None, help="Check only this pair.")
@jobs_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
def check(db: str, rules: Rules, pair_text: Optional[str], jobs: int, quiet: bool) -> None:
    """Recompute every stored state from its successors and compare (exit 1 on a mismatch)."""
    if pair_text:
        pairs = [Pair.parse(pair_text, rules.stones)]
        if not storage.pair_path(db, rules, pairs[0]).exists():
            fail(f"missing database file {storage.pair_path(db, rules, pairs[0])}")
    else:
        pairs = [p for p in building.plan(rules) if storage.pair_path(db, rules, p).exists()]
        if not pairs:
            fail(f"no databases for rules {rules.name} in {db}")
    total = sum(p.slots for p in pairs)
    with tqdm(total=total, unit="states", unit_scale=True, desc="check", disable=quiet) as bar:
        for pair in pairs:
            bad = check_pair(db, rules, pair, jobs, progress=bar.update)
            if bad:
                bar.close()
                click.echo(f"pair {pair}: {len(bad)}+ states disagree with their successors; first:", err=True)
                for state in bad[:5]:
                    click.echo(f"  {state.describe()}", err=True)
                raise SystemExit(1)
    click.echo(f"ok: {len(pairs)} pair(s), {total:,} slots consistent")


@main.command("index-stats")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--threads", default=2, show_default=True, type=click.IntRange(1, 256),
              help="Threads for counting the real slots.")
def index_stats(as_json: bool, threads: int) -> None:
    """Orbits, slots and slots per orbit of each moving-phase subspace, plus totals.

    Orbits are counted from the index itself (its real slots), not from a formula.
    """

    start = time.perf_counter()
    stats = index.index_stats(threads)
    elapsed = time.perf_counter() - start
    if as_json:
        click.echo(json.dumps(stats, indent=1))
    else:
        click.echo(index.format_index_stats(stats))
        click.echo(f"counted in {elapsed:.1f} s on {threads} thread(s)", err=True)
