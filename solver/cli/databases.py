"""Commands that build and inspect the databases: ``build``, ``check``, ``stats`` and
``index-stats``."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Optional

import click
from tqdm import tqdm

from .. import build as building
from .. import ceylonese_tables, dice_tables, dtz, index, placement, storage
from ..ceylonese import CeylonRule
from ..dice import DiceRule, dice_gap
from ..verify.check import MAX_BAD, check_pair, check_placement
from ..index import Pair, Subspace, parse_pair
from ..commands import build_command, explained, meant, remedy_command, repair_command, with_repair
from ..folder import DatabaseFolder
from ..errors import (REBUILD_IT, CorruptDatabaseError, DatabaseError, ForeignDatabaseError, MissingSubspaceError,
                      Remedy, one_line, with_remedy)
from ..game import QUIET_PLY_LIMIT
from ..kernels import MAX_JOBS
from ..rules import MAX_STONES, Rules, kernel_gap
from .common import ceylon_option, ceylon_rule_or_none, db_option, dice_option, fail, jobs_option, main, needs_kernels, option_given, quiet_limit_option, rules_options


def parse_size(text: str) -> int:
    """Bytes of a size like 4G, 4GiB, 3500M, 512MiB or 1000000 (K, M, G, T: powers of 1024).

    >>> parse_size("4G"), parse_size("3500MiB"), parse_size("1000")
    (4294967296, 3670016000, 1000)
    """
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not match or float(match[1]) <= 0:
        raise ValueError(f"--memory {text!r} is no size (examples: 4G, 3500M)")
    return int(float(match[1]) * 1024 ** " KMGT".index(match[2].upper() or " "))


#: The phase of the commands that is the tables of the quiet-ply rule (solver.dtz: the
#: moving phase's, then the placement phase's): built after the plain tables by the
#: whole build ("all", unless --no-rule), or on their own.
RULE_PHASE = "rule"
#: The phase of the commands that is dice mill's tables (solver.dice_tables: its placement
#: phase, from the plain moving phase), built on their own.
DICE_PHASE = "dice"
#: The phase of the commands that is Ceylonese mill's tables (solver.ceylonese_tables: its
#: moving pairs, where the extra move makes them its own, and its placement phase).
CEYLON_PHASE = "ceylonese"
PHASE_CHOICES = (*building.PHASES, RULE_PHASE, DICE_PHASE, CEYLON_PHASE)


@main.command()
@db_option
@rules_options
@click.option("--phase", type=click.Choice(PHASE_CHOICES), default="all", show_default=True,
              help="The moving phase (pairs), the placement phase (needs the moving phase) or both; "
                   "'rule': the tables under the rule of --quiet-limit quiet plies (the values in "
                   "played games, and in the moving phase the plies to the next mill); 'dice': dice "
                   "mill's placement phase under the throw rule of --dice (needs the moving phase); "
                   "'ceylonese': Ceylonese mill's tables under the reading of --ceylonese.")
@quiet_limit_option
@dice_option
@ceylon_option
@click.option("--max-total", type=click.IntRange(6, 2 * MAX_STONES), default=None,
              help="Build only subspaces with at most this many stones in total "
                   "(on the board and in hand, both sides).")
@click.option("--pair", "pair_text", metavar="M-O", default=None,
              help="Build this moving-phase pair (e.g. 8-7) and the pairs it needs (no placement).")
@jobs_option
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Run the build on a Dask LocalCluster of N worker processes on this "
                   "machine (the --jobs threads and the --memory limit shared out among "
                   "them; at least one thread each).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run the build on the Dask cluster of this scheduler (its workers must "
                   "see the --db folder at the same path).")
@click.option("--no-verify", is_flag=True, help="Skip the consistency check of each new pair.")
@click.option("--dry-run", is_flag=True, help="Print the files the build would write, with "
                                               "slots, memory and estimated time; build nothing "
                                               "(for every rule set, also those the kernels "
                                               "cannot build yet).")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--no-rule", is_flag=True,
              help="Leave out the tables of the quiet-ply rule, which the whole build (--phase all) "
                   "makes after the plain ones ('--phase rule' makes them later).")
@click.option("--memory", "memory_text", metavar="LIMIT", default=None,
              help="Memory the build may hold, e.g. 4G or 3500M: a plan with a file that "
                   "needs more is refused before anything is built, and a pair's file is "
                   "written beside the next pair's solve only where both fit (with "
                   "--workers: shared out, each worker offers its share).")
def build(db: str, rules: Rules, phase: str, quiet_limit: int, dice: DiceRule, ceylonese: CeylonRule,
          max_total: Optional[int],
          pair_text: Optional[str], jobs: int, workers: Optional[int], scheduler: Optional[str],
          no_verify: bool, dry_run: bool, quiet: bool, no_rule: bool, memory_text: Optional[str]) -> None:
    """Build the databases of the whole game: the moving phase, the placement phase,
    then the tables of the quiet-ply rule (resumable).

    Moving phase: one file per pair, in dependency order, each checked before it is
    written.  Placement phase: one file per placement subspace (stones in hand), children
    first.  The rule (--phase rule alone; part of --phase all unless --no-rule): the values
    in played games, where --quiet-limit plies without a mill draw (a file per pair,
    dtz50-pair-M-O.h5, then per placement subspace, stored against the plain placement
    files, which they need; not for
    rules they do not serve: a note says so).  Files already
    built and intact are skipped, so rerunning after a kill
    resumes; a file in progress is never left looking finished.  Logs, per file, states,
    seconds and peak memory.  With --workers or --scheduler the pairs are tasks of a
    Dask task graph (pip install -e '.[cluster]'), and so are the placement subspaces:
    the whole game is one graph, run on as many machines and cores as the cluster has;
    the tables of the rule, and dice mill's (--phase dice), too.

    \b
    Examples:
      muehle build --stones 5
      muehle build --max-total 8
      muehle build --pair 8-7 --jobs 2
      muehle build --phase moving --memory 4G
      muehle build --phase placement --dry-run
      muehle build --phase rule --quiet-limit 50
      muehle build --stones 5 --phase dice --dice sum14
      muehle build --rules six-mens-s4 --phase ceylonese
      muehle build --rules morabaraba --dry-run
      muehle build --workers 2
      muehle build --scheduler tcp://10.0.0.1:8786 --db /shared/muehle
    """
    _refuse_other_tables(phase)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    gap = kernel_gap(rules)
    if gap is not None and not dry_run:
        fail(f"{gap}; 'muehle build --rules {rules.name} --dry-run' prints the plan")
    pair = None
    if pair_text is not None:     # a plan may name pairs beyond the kernels' index (Pair)
        pair = Pair.parse(pair_text, rules.stones, rules.board) if gap is None else parse_pair(pair_text, rules.stones)
        _refuse_beyond(f"pair {min(pair)}-{max(pair)}", sum(pair), max_total)
    if workers is not None and scheduler is not None:
        fail("give --workers (a cluster on this machine) or --scheduler (a running one), not both")
    memory = None
    if memory_text is not None:
        try:
            memory = parse_size(memory_text)
        except ValueError as exc:
            fail(str(exc))
        if scheduler is not None:
            fail("--memory limits a build on this machine; a running cluster's workers offer "
                 "their own (dask worker --resources memory=BYTES)")
    share = _share(memory, workers)
    if phase == RULE_PHASE:
        _build_rule(db, rules, quiet_limit, max_total, pair, jobs, workers, scheduler, not no_verify,
                    dry_run, quiet, memory)
        return
    if phase == DICE_PHASE:
        _build_dice(db, rules, dice, max_total, pair, jobs, workers, scheduler, not no_verify, dry_run, memory)
        return
    if phase == CEYLON_PHASE:
        _build_ceylonese(db, rules, ceylonese, max_total, pair, jobs, workers, scheduler, not no_verify,
                         dry_run, memory)
        return
    # The tables of the quiet-ply rule after the plain ones, where the rules have them and
    # the build runs here; else why not, said after the plain build (a failing one's error
    # stays its one line).
    skip_rule = None
    if phase == "all" and not no_rule and gap is None:
        skip_rule = _no_rule_tables(rules)
    rule_too = phase == "all" and not no_rule and gap is None and skip_rule is None
    if dry_run:
        files = building.build_plan(rules, phase=phase, max_total=max_total, pair=pair)
        _print_plan(db, rules, files, gap)
        if rule_too:         # (a note: the plan's lines stay as scripts read them)
            pairs, subs = dtz.plan(rules, max_total, pair)
            there = sum(_rule_built(db, rules, k, quiet_limit) for k in pairs + subs)
            click.echo(f"note: then the tables of the {quiet_limit}-ply rule: {len(pairs) + len(subs)} file(s) "
                       f"({there} built), {sum(k.slots for k in pairs + subs):,} slots, about the moving "
                       f"phase's time again ('--phase rule --dry-run' lists them; --no-rule leaves them out)",
                       err=True)
        if gap is None:          # and what the build would refuse before any work, as it would
            building.check_plan(Path(db), rules, building.plan_units(rules, max_total, pair, phase),
                                share)
            if rule_too:
                dtz.check_places(db, rules, quiet_limit, max_total, pair)
            if scheduler is not None:
                from .. import cluster
                cluster.check_scheduler(scheduler)
        if skip_rule is not None:
            click.echo(f"note: {skip_rule}", err=True)
        return
    if rule_too:             # (a folder where a file of the rule belongs: said before hours of work)
        dtz.check_places(db, rules, quiet_limit, max_total, pair)
    options = dict(max_total=max_total, pair=pair, verify=not no_verify, progress=not quiet)
    started = time.perf_counter()
    client = None
    if workers is None and scheduler is None:
        reports = building.build(db, rules, phase=phase, jobs=jobs, memory=memory, **options)
    else:
        from .. import cluster

        # A scheduler that does not answer, another build of the folder, or a plan the
        # build would refuse: said before a cluster is started for nothing, the scheduler
        # before a folder is made for a build that cannot run (cluster.build takes the
        # lock and checks the plan again for the build itself).
        if scheduler is not None:
            cluster.check_scheduler(scheduler)
        with building.locked_folder(db, rules):
            building.check_plan(Path(db), rules, building.plan_units(rules, max_total, pair, phase), share)
        with _cluster(workers, scheduler, jobs, memory) as client:
            reports = cluster.build(db, rules, client, phase=phase, **options)
            _report_plain(db, rules, reports, started)
            if rule_too:             # (the same cluster: its workers are up)
                _build_rule(db, rules, quiet_limit, max_total, pair, jobs, workers, scheduler, not no_verify,
                            False, quiet, memory, client=client)
        if skip_rule is not None:
            click.echo(f"note: {skip_rule}", err=True)
        return
    _report_plain(db, rules, reports, started)
    if rule_too:
        _build_rule(db, rules, quiet_limit, max_total, pair, jobs, None, None, not no_verify,
                    False, quiet, memory)
    if skip_rule is not None:
        click.echo(f"note: {skip_rule}", err=True)


def _share(memory: Optional[int], workers: Optional[int]) -> Optional[int]:
    """The memory each worker of ``--workers`` offers: its share of ``--memory`` (a
    file must fit in one)."""
    return memory if memory is None or workers is None else memory // workers


@contextmanager
def _cluster(workers: Optional[int], scheduler: Optional[str], jobs: int, memory: Optional[int]):
    """A client of the running cluster of ``scheduler`` (checked first), or of a
    LocalCluster of ``workers`` started here (and stopped after) that share ``memory``
    out; its dashboard's address said."""
    from .. import cluster

    if scheduler is not None:
        cluster.check_scheduler(scheduler)

    # Dask logs every worker and connection at INFO; the build's own lines suffice.
    logging.getLogger("distributed").setLevel(logging.WARNING)
    # A worker killed while the client gathers a result: Dask gathers it again elsewhere
    # (and says so in a warning), but a task of its client's loop ends with an exception
    # nobody retrieves, which asyncio logs with a traceback.  The build goes on and says
    # what matters itself (tests/test_cluster.py kills a worker of a running build).
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    where = (cluster.connect(scheduler) if scheduler is not None
             else cluster.local(workers, threads=max(1, jobs // workers), memory=_share(memory, workers)))
    with where as client:
        click.echo(f"Dask dashboard: {client.dashboard_link}", err=True)
        yield client


def _report_plain(db: str, rules: Rules, reports: list, started: float) -> None:
    """The plain build's line: files built and there, their times, memory, where."""
    built = [r for r in reports if not r.skipped]
    seconds = sum(r.seconds for r in built)
    text = _built_text([r for r in reports if isinstance(r, building.PairReport)],
                       [r for r in reports if not isinstance(r, building.PairReport)])
    # (the files' own times, summed: more than the wall time where writes overlapped the
    # next solve, less where a build waited on the folder or the cluster)
    click.echo(f"{text}, {seconds:.1f} s summed over the files, {time.perf_counter() - started:.1f} s wall, "
               f"peak memory {max((r.peak_rss_mib for r in reports), default=0):.0f} MiB; "
               f"databases in {Path(db) / rules.name}")


def _no_rule_tables(rules: Rules) -> Optional[str]:
    """Why the whole build leaves out the tables of the quiet-ply rule (a note for after
    the plain build), or None where it builds them."""
    unserved = dtz.unserved(rules)
    if unserved is not None:
        return f"{unserved}; the plain tables are built"
    return None


def _built_text(moving: list, placed: list, under: str = "") -> str:
    """'N pair(s) built[ under ...], M already there[; K placement subspace(s) ...]'."""
    done = sum(not r.skipped for r in moving)
    text = f"{done} pair(s) built{under}, {len(moving) - done} already there"
    if placed:
        done = sum(not r.skipped for r in placed)
        text += f"; {done} placement subspace(s) built, {len(placed) - done} already there"
    return text


def _build_rule(db: str, rules: Rules, limit: int, max_total: Optional[int], pair, jobs: int,
                workers: Optional[int], scheduler: Optional[str], verify: bool, dry_run: bool,
                quiet: bool, memory: Optional[int], client=None) -> None:
    """``build --phase rule``: the tables of the quiet-ply rule (solver.dtz), in this
    process, or on a cluster (``--workers``, ``--scheduler``; ``client``: one running)."""
    dtz.check_rules(rules)
    pairs, subs = dtz.plan(rules, max_total, pair)
    dtz.check_places(db, rules, limit, max_total, pair)
    if dry_run:
        for what, keys, need in (("moving", pairs, lambda p: dtz.rule_memory(p, rules)),
                                 ("placement", subs, lambda s: dtz.placement_memory(s, rules))):
            there = sum(_rule_built(db, rules, k, limit) for k in keys)
            click.echo(f"{what} phase under the {limit}-ply rule of rules {rules.name} in "
                       f"{storage.rules_dir(db, rules)}: {len(keys)} file(s) ({there} built), "
                       f"{sum(k.slots for k in keys):,} slots, largest "
                       f"{max((need(k) for k in keys), default=0) / 2**30:.2f} GiB of memory")
        return
    started = time.perf_counter()
    if client is None and (workers is not None or scheduler is not None):
        with _cluster(workers, scheduler, jobs, memory) as started_client:
            _build_rule(db, rules, limit, max_total, pair, jobs, workers, scheduler, verify, False, quiet,
                        memory, client=started_client)
        return
    if client is not None:
        from .. import cluster

        reports = cluster.build(db, rules, client, max_total=max_total, pair=pair, verify=verify,
                                progress=not quiet, quiet_limit=limit)
    else:
        reports = dtz.build(db, rules, limit, max_total=max_total, pair=pair, jobs=jobs, verify=verify,
                            progress=not quiet, memory=memory)
    text = _built_text([r for r in reports if isinstance(r.key, Pair)],
                       [r for r in reports if not isinstance(r.key, Pair)], f" under the {limit}-ply rule")
    click.echo(f"{text}, {time.perf_counter() - started:.1f} s wall, peak memory "
               f"{max((r.peak_rss_mib for r in reports), default=0):.0f} MiB; "
               f"databases in {Path(db) / rules.name}")


def _rule_built(db: str, rules: Rules, key, limit: int) -> bool:
    """Whether a dry run counts ``key``'s file of the quiet-ply rule built: there, for
    these rules and limit, of its kind and whole as far as its header says (as the plain
    plan looks: ``check`` reads the values)."""
    return building.why_not_built(Path(db), rules, key, verify=False, quiet_limit=limit) is None


def _build_dice(db: str, rules: Rules, dice: DiceRule, max_total: Optional[int], pair, jobs: int,
                workers: Optional[int], scheduler: Optional[str], verify: bool, dry_run: bool,
                memory: Optional[int]) -> None:
    """``build --phase dice``: dice mill's placement phase, a file a subspace, here or on
    a cluster (``--workers``, ``--scheduler``)."""
    gap = dice_gap(rules)
    if gap is not None:
        fail(gap)
    if pair is not None:
        fail("dice mill's tables are the placement phase's: --pair names a moving pair (use --max-total)")
    subs = dice_tables.plan(rules, max_total)
    if dry_run:
        there = sum(dice_tables.why_not_built(db, rules, dice, s, verify=False) is None for s in subs)
        most = max(subs, key=dice_tables.memory_needed)
        click.echo(f"dice phase ({dice.name}: {dice.describe()}): {len(subs)} file(s) ({there} built), "
                   f"{sum(s.slots for s in subs):,} positions, 4 bytes each; largest pass "
                   f"{building.size_text(dice_tables.memory_needed(most))} ({most.name})")
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    started = time.perf_counter()
    if workers is None and scheduler is None:
        reports = dice_tables.build(db, rules, dice, max_total=max_total, jobs=jobs, verify=verify, memory=memory)
    else:
        reports = _on_cluster(db, rules, workers, scheduler, jobs, memory,
                              lambda: dice_tables.require_pairs(Path(db), rules, subs),
                              lambda client: dice_tables.build(db, rules, dice, max_total=max_total,
                                                               verify=verify, client=client))
    made = [r for r in reports if not r.skipped]
    click.echo(f"{len(made)} placement subspace(s) built under dice rule {dice.name}, "
               f"{len(reports) - len(made)} already there, {time.perf_counter() - started:.1f} s wall, "
               f"peak memory {building.peak_rss_mib():.0f} MiB; databases in {storage.rules_dir(db, rules)}")


def _on_cluster(db: str, rules: Rules, workers: Optional[int], scheduler: Optional[str], jobs: int,
                memory: Optional[int], require: Callable[[], None], run: Callable) -> list:
    """The build of other tables (dice mill's, Ceylonese mill's) on a cluster, as the
    plain build starts one: the scheduler checked before a folder is made, what the
    tables read (``require``) before a cluster is started for nothing; then
    ``run(client)``'s reports."""
    if scheduler is not None:
        from .. import cluster
        cluster.check_scheduler(scheduler)
    with building.locked_folder(db, rules):
        require()
    with _cluster(workers, scheduler, jobs, memory) as client:
        return run(client)


def _build_ceylonese(db: str, rules: Rules, rule: CeylonRule, max_total: Optional[int], pair, jobs: int,
                     workers: Optional[int], scheduler: Optional[str], verify: bool, dry_run: bool,
                     memory: Optional[int]) -> None:
    """``build --phase ceylonese``: Ceylonese mill's tables, a file a moving pair (with the
    extra move) and a file a placement subspace, here or on a cluster (``--workers``,
    ``--scheduler``)."""
    ceylonese_tables.require_tables(rules, rule)
    if pair is not None or max_total is not None:
        fail("Ceylonese mill's tables are built whole for the stones of the rules (--stones N for "
             "a smaller game), not by --pair or --max-total")
    subs = ceylonese_tables.planned(rules, rule)
    if dry_run:
        written = [s for s in subs if rule.extra_move or not s.is_moving]
        files: dict = {}            # (a moving pair's two subspaces share its file)
        for s in written:
            path = ceylonese_tables.table_path(db, rules, s, rule)
            files[path] = (files.get(path, True)
                           and ceylonese_tables.why_not_built(db, rules, s, rule, verify=False) is None)
        largest = max(ceylonese_tables.files(rules, rule), key=lambda k: ceylonese_tables.memory_needed(k, rules, rule))
        click.echo(f"ceylonese phase ({rule.name}): {len(files)} file(s) "
                   f"({sum(files.values())} built), {sum(s.slots for s in written):,} slots, "
                   f"2 bytes each; largest unit "
                   f"{building.size_text(ceylonese_tables.memory_needed(largest, rules, rule))} ({largest.name})"
                   + ("" if rule.extra_move else "; the moving pairs are the plain moving phase's "
                                                 "(muehle build --phase moving)"))
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    started = time.perf_counter()
    if workers is None and scheduler is None:
        reports = ceylonese_tables.build(db, rules, rule, jobs=jobs, verify=verify, memory=memory)
    else:
        reports = _on_cluster(db, rules, workers, scheduler, jobs, memory,
                              lambda: ceylonese_tables.require_plain_pairs(Path(db), rules, rule),
                              lambda client: ceylonese_tables.build(db, rules, rule, verify=verify, client=client))
    made = [r for r in reports if not r.skipped]
    click.echo(f"{len(made)} file(s) of Ceylonese mill ({rule.name}) built, {len(reports) - len(made)} "
               f"already there, {time.perf_counter() - started:.1f} s wall, peak memory "
               f"{building.peak_rss_mib():.0f} MiB; databases in {storage.rules_dir(db, rules)}")


def duration(seconds: float) -> str:
    """An estimate's time in the unit that says it: '40.6 h', '12 min', '35 s'.

    >>> duration(146_160), duration(700), duration(34.6), duration(0.2)
    ('40.6 h', '12 min', '35 s', '0 s')
    """
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _print_plan(db: str, rules: Rules, files: list, gap: Optional[str]) -> None:
    """The plan's table and totals.  ``gap`` (the kernels cannot build these rules): no
    file is looked for, and lines per phase follow, sizes being symmetry classes."""
    built, left, left_slots = 0, 0.0, 0
    click.echo(f"{'file':>16} {'slots':>15} {'memory':>10} {'estimate':>10}  state")
    for f in files:
        done = gap is None and all(building.is_stored(
            Path(db), rules, Subspace.parse(name.removeprefix("pair-").removeprefix("place-"), rules.board), verify=False)
            for name in f.outputs)
        built += len(f.outputs) if done else 0
        left += 0.0 if done else f.seconds
        left_slots += 0 if done else f.slots
        state = "built" if done else "to build" if gap is None else "plan only"
        names = " ".join(f.outputs)      # a cycle of mixed placement: a file per subspace
        click.echo(f"{names:>16} {f.slots:>15,} {f.memory / 2**30:>8.2f}Gi {f.seconds:>9.0f}s  {state}")
    click.echo(f"{sum(len(f.outputs) for f in files)} file(s) ({built} built), {sum(f.slots for f in files):,} slots, "
               f"peak memory about {max((f.memory for f in files), default=0) / 2**30:.1f} GiB, "
               f"about {duration(left)} left to build on 2 cores"
               + (f" and {left_slots * building.DISK_BYTES_PER_SLOT / 1e9:.1f} GB more on disk"
                  if gap is None else "")
               + f" (rates of docs/benchmarks.md; rules {rules.name})")
    if gap is None:
        return
    for row in building.plan_summary(files):
        how = ("in rounds at the moving phase's measured rate" if row["rounds"]
               else "one pass each at the placement rate")
        click.echo(f"{row['phase']} phase: {row['files']} file(s), {row['slots']:,} positions, "
                   f"largest {row['largest']} ({row['largest_slots']:,}), peak memory "
                   f"{row['memory'] / 2**30:.1f} GiB ({row['memory_file']}), about "
                   f"{row['disk'] / 1e9:.1f} GB on disk, about {duration(row['seconds'])} "
                   f"on 2 cores ({how})")
    if rules.mixed:
        click.echo("mixed placement: a side with stones in hand may move, so the placement "
                   "subspaces are not acyclic; each row is a cycle m-o+h-k, o-m+k-h solved "
                   "in rounds like a moving pair, a file per subspace")
    click.echo(f"slots here are positions up to the board's {len(rules.board.symmetries)} "
               f"symmetries (Board.orbits), without the kernels' slack; disk at "
               f"{building.DISK_BYTES_PER_SLOT} bytes a slot (the standard moving phase's files); "
               f"{gap}: only this plan is available")


def _collect_stats(db: str, rules: Rules, quiet_limit: Optional[int] = None,
                   ceylon: Optional[CeylonRule] = None) -> tuple[list[dict], list[str]]:
    """One row per built subspace, the moving phase's then the placement phase's, and a
    line per problem: files missing, files damaged or holding something else.  With
    ``quiet_limit``: the files of that quiet-ply rule (a pair's longest in plies to the
    next mill, and its cursed wins and blessed losses); with ``ceylon``: Ceylonese
    mill's files of that rule (turns for plies)."""
    rows, problems = [], []
    folder = DatabaseFolder(db, rules, quiet_limit)
    built = folder.built()
    if ceylon is not None:
        keys = ceylonese_tables.moving_pairs(rules, ceylon) + ceylonese_tables.placement_subspaces(rules, ceylon)
        built = [(ceylonese_tables.table_path(db, rules, key, ceylon), key) for key in keys]
        built = [(path, held) for path, held in built if path.exists()]
    for path, held in built:
        try:
            # ``held``: a file copied over another (pair-3-3.h5 as pair-3-4.h5) is refused.
            kind = None if ceylon is None else ceylonese_tables.file_kind(held, ceylon)
            stats = storage.pair_stats(path, rules, held, quiet_limit=quiet_limit, ceylonese=kind)
        except DatabaseError as error:
            if ceylon is not None:
                problems.append(explained(with_remedy(error, Remedy(db, rules, REBUILD_IT, ceylonese=ceylon.name))))
            elif quiet_limit is None:
                problems.append(explained(with_repair(error, db, rules, [held])))
            else:
                error.remedy = dtz.rule_remedy(db, rules, quiet_limit, held, REBUILD_IT)
                problems.append(explained(error))
            continue
        for sub in (held.subspaces if isinstance(held, Pair) else [held]):
            info = stats[sub.name]
            rows.append({"subspace": sub.name, "wins": info["wins"], "losses": info["losses"],
                         "draws": info["draws"], "longest_win": info["longest_win"],
                         "longest_loss": info["longest_loss"]})
            if "cursed_wins" in info:
                # (the rule's values: its cursed wins and blessed losses are draws, counted
                # on their own too)
                cursed, blessed = info["cursed_wins"], info["blessed_losses"]
                rows[-1].update(wins=info["wins"] - cursed, losses=info["losses"] - blessed,
                                draws=info["draws"] + cursed + blessed, cursed_wins=cursed,
                                blessed_losses=blessed)
    if ceylon is None:
        missing = folder.missing()
        if missing:
            problems.insert(0, explained(folder.missing_error(missing)))
    return rows, problems


@main.command()
@db_option
@rules_options
@needs_kernels
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option("--reachable", is_flag=True,
              help="Also count, per placement subspace, the positions that arise from the start "
                   "(a forward pass over the placement phase: minutes and up to 6 GB for 9 stones).")
@jobs_option
@click.option("--rule", is_flag=True, help="The tables of the quiet-ply rule (of --quiet-limit plies): "
                                            "wins, losses and draws under the rule at a fresh count, "
                                            "and of the moving phase's draws the cursed wins and "
                                            "blessed losses; its longest in plies to the next mill.")
@quiet_limit_option
@click.option("--ceylonese", "ceylonese", metavar="RULE", default=None, callback=ceylon_rule_or_none,
              help="Ceylonese mill's tables under this reading (build --phase ceylonese): longest in turns.")
def stats(db: str, rules: Rules, as_json: bool, reachable: bool, jobs: int, rule: bool,
          quiet_limit: int, ceylonese: Optional[CeylonRule]) -> None:
    """Wins, losses and draws (for the side to move) and longest win and loss, per subspace.

    Counts are of positions up to symmetry, as in the published tables.  Placement
    subspaces (m-o+h-k: h and k stones in hand) count every board with at most the
    stones placed, also boards no game reaches.

    A file missing that built ones need, or a file damaged or holding another
    subspace than its name says, gets a warning line on stderr (the totals are then
    of the other files) and exit status 1.  The figures are those the build counted
    and stored in each file's header (under its checksum), so this takes seconds
    (without --reachable); muehle check reads and verifies the values and counts
    them again.
    """
    if (rule or ceylonese is not None) and reachable:
        fail("--reachable counts positions of the plain placement files: not with --rule or --ceylonese")
    if rule and ceylonese is not None:
        fail("give --rule or --ceylonese, not both")
    if quiet_limit != QUIET_PLY_LIMIT and not rule:
        fail(f"--quiet-limit {quiet_limit} counts the tables of that quiet-ply rule: give --rule too")
    rows, problems = _collect_stats(db, rules, quiet_limit if rule else None, ceylonese)
    for problem in problems:
        click.echo(f"muehle: warning: {one_line(problem)}", err=True)
    if rows or problems:
        note_stray(db, rules, "counted")
    if not rows and not problems:
        storage.check_root(db, rules)
        command = build_command(db, rules, RULE_PHASE if rule else None, quiet_limit=quiet_limit,
                                ceylonese=None if ceylonese is None else ceylonese.name)
        what = (f"no tables of the {quiet_limit}-ply rule of rules" if rule else
                f"no tables of Ceylonese mill ({ceylonese.name}) of rules" if ceylonese is not None else
                "no databases for rules")
        fail(f"{what} {rules.name} in {db} (build them with: {command}){meant(db, rules)}")
    if reachable:
        # minutes for 9 stones: a bar on stderr (a terminal only) shows it going
        subs = placement.plan(rules)
        with tqdm(total=sum(s.slots for s in subs), unit="states", unit_scale=True,
                  desc="reachable", disable=None, leave=False) as bar:
            done = placement.reachable(rules, jobs, progress=lambda sub: bar.update(sub.slots))
        counts = {sub.name: n for sub, n in done.items()}
        for r in rows:
            if r["subspace"] in counts:
                r["reachable"] = counts[r["subspace"]]
        if not any("reachable" in r for r in rows):
            click.echo(f"note: --reachable counts the positions of the placement files, and none is "
                       f"built here (build them with: {build_command(db, rules, 'placement')})",
                       err=True)
    totals = {k: sum(r.get(k, 0) for r in rows)
              for k in ("wins", "losses", "draws") + (("cursed_wins", "blessed_losses") if rule else ())}
    # (under the rule the longest are DTZ, of the moving phase's rows only: a placement
    # row's plies are of another measure)
    longest = [r for r in rows if "+" not in r["subspace"]] if rule else rows
    totals["longest_win"] = max((r["longest_win"] for r in longest), default=0)
    totals["longest_loss"] = max((r["longest_loss"] for r in longest), default=0)
    if reachable:
        # (null where no row was counted: no placement file, not a count of none)
        counted = [r["reachable"] for r in rows if "reachable" in r]
        totals["reachable"] = sum(counted) if counted else None
    if as_json:
        click.echo(json.dumps({"rules": rules.name, "subspaces": rows, "total": totals}))
    else:
        _print_stats(rules, rows, totals, reachable)
    if problems:
        raise SystemExit(1)


def note_stray(db: str, rules: Rules, what: str) -> None:
    """Name on stderr the ``.h5`` files of the rules' folder that no build of them writes
    (a pair of more stones than the rules have, a file copied in), not ``what`` (checked,
    counted): a note, since the files of the plan are judged without them."""
    stray = DatabaseFolder(db, rules).stray()
    if stray:
        names = ", ".join(path.name for path in stray[:5]) + (" ..." if len(stray) > 5 else "")
        click.echo(f"note: {len(stray)} file(s) in {storage.rules_dir(db, rules)} that no build of "
                   f"rules {rules.name} writes, not {what}: {names}", err=True)


def _print_stats(rules: Rules, rows: list[dict], totals: dict, reachable: bool) -> None:
    rule = "cursed_wins" in totals
    header = (f"{'subspace':>8} {'wins':>14} {'losses':>14} {'draws':>14} {'longest win':>12} "
              f"{'longest loss':>12}" + (f" {'reachable':>14}" if reachable else "")
              + (f" {'cursed wins':>14} {'blessed losses':>14}" if rule else ""))
    click.echo(f"rules: {rules.name}")
    click.echo(header)
    for r in rows + [dict(totals, subspace="total")]:
        click.echo(f"{r['subspace']:>8} {r['wins']:>14,} {r['losses']:>14,} {r['draws']:>14,} "
                   f"{r['longest_win']:>12} {r['longest_loss']:>12}"
                   + (f" {r['reachable']:>14,}" if r.get("reachable") is not None else
                      f" {'-':>14}" if "reachable" in r else "")
                   + (f" {r['cursed_wins']:>14,} {r['blessed_losses']:>14,}" if "cursed_wins" in r else
                      f" {'':>14} {'':>14}" if rule else ""))


@main.command()
@db_option
@rules_options
@needs_kernels
@click.option("--pair", "pair_text", metavar="M-O", default=None,
              help="Check only this pair, or this placement subspace (with stones in hand, e.g. 3-2+6-5).")
@click.option("--phase", type=click.Choice(PHASE_CHOICES), default="all", show_default=True,
              help="Check the moving phase, the placement phase or both; 'rule': the tables of "
                   "the quiet-ply rule (of --quiet-limit plies); 'dice': dice mill's (of --dice); "
                   "'ceylonese': Ceylonese mill's (of --ceylonese).")
@quiet_limit_option
@dice_option
@ceylon_option
@click.option("--max-total", type=click.IntRange(6, 2 * MAX_STONES), default=None,
              help="Check only subspaces with at most this many stones in total (a folder "
                   "built with build --max-total: rules of more stones a side than the "
                   "kernels' index holds, such as lasker, are checked so).")
@jobs_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
def check(db: str, rules: Rules, pair_text: Optional[str], phase: str, quiet_limit: int, dice: DiceRule,
          ceylonese: CeylonRule, max_total: Optional[int], jobs: int, quiet: bool) -> None:
    """Recompute every stored state from its successors and compare.

    Every built file of the chosen phase is checked (placement subspaces from their
    children's stored values); --phase all checks the tables of the quiet-ply rule (of
    --quiet-limit) too where any are built (with --pair, that pair's or subspace's).
    Exit status 1 where the database is at fault: states that disagree with their
    successors, a file damaged, foreign or missing (each named, with the command that
    builds it again); 2 where the command cannot run.
    """
    _refuse_other_tables(phase)
    if phase == RULE_PHASE:
        _check_rule(db, rules, quiet_limit, pair_text, max_total, jobs)
        return
    if phase == DICE_PHASE:
        _check_dice(db, rules, dice, pair_text, max_total, jobs)
        return
    if phase == CEYLON_PHASE:
        _check_ceylonese(db, rules, ceylonese, pair_text, max_total, jobs)
        return
    pairs, subs = [], []
    named: set[str] = set()          # (files already said to be missing or unusable)
    if pair_text is not None and "+" in pair_text and phase == "moving":
        fail(f"{pair_text} is a placement subspace (stones in hand), not a pair of the moving phase")
    if pair_text is not None and (phase == "placement" or "+" in pair_text):
        subs = [Subspace.parse(pair_text, rules.board)]
        if not placement.is_placement(subs[0], rules):
            fail(f"{pair_text} is not a placement subspace of rules {rules.name}")
        sub = subs[0]
        _refuse_beyond(f"subspace {sub.name}", sub.m + sub.o + sub.own_hand + sub.opp_hand, max_total)
    elif pair_text is not None:
        pairs = [Pair.parse(pair_text, rules.stones, rules.board)]
        _refuse_beyond(f"pair {pairs[0].name}", sum(pairs[0]), max_total)
    else:
        planned = 0
        if phase in ("moving", "all"):
            plan = building.plan(rules, max_total)
            pairs = [p for p in plan if storage.pair_path(db, rules, p).exists()]
            planned += len(plan)
        if phase in ("placement", "all"):
            plan = placement.plan(rules, max_total)
            subs = [s for s in plan if storage.placement_path(db, rules, s).exists()]
            planned += len(plan)
        if not pairs and not subs and phase == "all" and max_total is None \
                and (found := DatabaseFolder(db, rules).ceylon_rules()):
            for rule in found:             # (a folder of Ceylonese mill's tables alone)
                _check_ceylonese(db, rules, rule, None, None, jobs)
            return
        if not pairs and not subs:
            storage.check_root(db, rules)
            what = {"moving": "moving-phase files", "placement": "placement files"}.get(phase, "databases")
            fail(f"no {what} of rules {rules.name} in {db} (build them with: "
                 f"{build_command(db, rules, None if phase == 'all' else phase, max_total)})")
        named = _name_incomplete(db, rules, max_total, phase)
        unbuilt = planned - len(pairs) - len(subs)
        note_stray(db, rules, "checked")
    pairs = [Pair(*p, board=rules.board) for p in pairs]
    for held in pairs + subs:
        path = storage.file_of(db, rules, held)
        if not path.exists():              # (the verdict on the database: exit 1, below)
            click.echo(f"muehle: error: missing database file {path} (build it with: "
                       f"{repair_command(db, rules, [held])})", err=True)
            raise SystemExit(1)
    total = sum(p.slots for p in pairs) + sum(s.slots for s in subs)
    cache = building.SubspaceCache(Path(db), rules)
    # Every file is checked and each bad one named, not the first alone (a user mends
    # them all from one run); a file that a later one reads is named once, where it is
    # checked itself (children come first in the plan).
    failed: set[str] = set(named)       # (the files named bad)
    walk_bad = bool(named)               # (the plain walk's verdict, whichever file)
    with tqdm(total=total, unit="states", unit_scale=True, desc="check", disable=quiet) as bar:
        def say(line: str) -> None:
            tqdm.write(line, file=sys.stderr) if not quiet else click.echo(line, err=True)

        for what, held, run in ([(f"pair {p}", p, lambda p=p: check_pair(db, rules, p, jobs, progress=bar.update))
                                 for p in pairs]
                                + [(f"placement subspace {s.name}", s,
                                    lambda s=s: _check_placement(db, rules, s, jobs, bar.update, cache))
                                   for s in subs]):
            path = storage.file_of(db, rules, held)
            try:
                bad = run()
            except (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError) as error:
                # the check's verdict, as for values that disagree: the database is bad
                # (exit 1), not the command (2)
                line = one_line(explained(_at_fault(error, db, rules, what, held)))
                if not _names_any(line + f" {getattr(error, 'path', '')}", failed):
                    say(f"muehle: error: {line}")
                if _names_any(line, {path.name}):
                    failed.add(path.name)
                elif (own := building.why_not_built(Path(db), rules, held)) is not None:
                    # (a file it reads is at fault, and so is its own: both said now)
                    say(f"muehle: error: {one_line(own)}; rebuild it with: {repair_command(db, rules, [held])}")
                    failed.add(path.name)
                walk_bad = True
                continue
            except DatabaseError as error:
                raise _at_fault(error, db, rules, what, held) from None
            if bad:
                count = (f"{len(bad)}+ states disagree with their" if len(bad) >= MAX_BAD
                         else "1 state disagrees with its" if len(bad) == 1     # (it stops there)
                         else f"{len(bad)} states disagree with their")
                say(f"{what}: {count} successors; first:")
                for state in bad[:5]:
                    say(f"  {state.describe()}")
                say(f"where the files it reads pass their checks, its file {path} is well "
                    f"formed but wrong (its checksums match what was written): delete it "
                    f"and build it again with: {repair_command(db, rules, [held])}")
                failed.add(path.name)
                walk_bad = True
                break           # (the files after it may read its wrong values: not judged)
    if not walk_bad:
        click.echo(f"ok: {len(pairs)} pair(s) and {len(subs)} placement subspace(s), "
                   f"{total:,} slots consistent")
        if pair_text is None and unbuilt:
            # (what is built is right, but a builder asking whether the build is done
            # should not read "ok" as yes)
            command = build_command(db, rules, phase=None if phase == "all" else phase,
                                            max_total=max_total)
            click.echo(f"not built yet: {unbuilt} more file(s) of the plan ('{command}' builds them)",
                       err=True)
    others: list[Callable[[frozenset[str]], None]] = []      # (with --pair: that file's rule tables)
    if phase == "all" and dtz.unserved(rules) is None and _has_rule_files(db, rules, quiet_limit):
        others.append(lambda said: _check_rule(db, rules, quiet_limit, pair_text, max_total, jobs, said))
    if phase == "all" and pair_text is None and dice_gap(rules) is None:
        for found in DatabaseFolder(db, rules).dice_rules():     # (dice mill's tables, where built)
            others.append(lambda said, found=found: _check_dice(db, rules, found, None, max_total, jobs, said))
    if phase == "all" and pair_text is None and max_total is None:
        for found in DatabaseFolder(db, rules).ceylon_rules():   # (Ceylonese mill's, where built)
            others.append(lambda said, found=found: _check_ceylonese(db, rules, found, None, None, jobs, said))
    bad = walk_bad
    for other in others:
        try:
            other(frozenset(failed))
        except SystemExit as verdict:        # (bad files there too: named, and on to the next)
            if verdict.code != 1:
                raise
            bad = True
    if bad:
        raise SystemExit(1)


def _check_ceylonese(db: str, rules: Rules, rule: CeylonRule, pair_text: Optional[str],
                     max_total: Optional[int], jobs: int, said: frozenset[str] = frozenset()) -> None:
    """``check --phase ceylonese``: every built file of Ceylonese mill's tables of ``rule``."""
    ceylonese_tables.require_tables(rules, rule)
    if pair_text is not None or max_total is not None:
        fail("check --phase ceylonese checks every built file of the game, not --pair or --max-total")
    storage.check_root(db, rules)
    checked, problems = ceylonese_tables.check_files(db, rules, rule, jobs=jobs)
    _verdict(problems, len(checked), len(ceylonese_tables.files(rules, rule)),
             build_command(db, rules, ceylonese=rule.name),
             f"no tables of Ceylonese mill ({rule.name}) of rules {rules.name} in {db}",
             f"ok: {len(checked)} file(s) of Ceylonese mill ({rule.name}), consistent", said)


def _refuse_other_tables(phase: str) -> None:
    """``--dice`` names dice mill's tables and ``--ceylonese`` Ceylonese mill's: given
    with another ``--phase``, build and check would pass them over in silence."""
    for name, wanted, what in (("dice", DICE_PHASE, "dice mill's tables"),
                               ("ceylonese", CEYLON_PHASE, "Ceylonese mill's tables")):
        if option_given(name) and phase != wanted:
            fail(f"--{name} names {what}: give it with --phase {wanted} (not --phase {phase})")


def _names_any(line: str, names: set[str] | frozenset[str]) -> bool:
    """Whether ``line`` names a file of ``names`` (a whole file name, not a part of one:
    ``pair-4-4.h5`` is not named by ``dtz50-pair-4-4.h5``)."""
    return any(re.search(rf"(?<![\w.-]){re.escape(name)}", line) for name in names)


def _verdict(problems: list, checked: int, planned: int, command: str, none: str, ok: str,
             said: frozenset[str] = frozenset()) -> None:
    """The end of a check of other tables (dice mill's, Ceylonese mill's): each problem in
    one line (an error with a ``remedy`` with its own build, else a file's own fault:
    delete it and build it again) and exit status 1; where none was checked ``none``
    (exit status 2); else ``ok``, and how many files of the plan are not built yet.
    ``said``: names of files a check before named (a problem that names one is left
    unsaid: its tables read that file)."""
    lines = []
    for problem in problems:
        if _names_any(str(problem), said):
            continue
        if getattr(problem, "remedy", None) is not None or str(problem).endswith("then build again"):
            lines.append(one_line(explained(problem)))      # (its own advice)
        else:
            lines.append(f"{one_line(str(problem))} (delete it and build it again with: {command})")
    for line in dict.fromkeys(lines):       # (a file at fault for two tables that read it: once)
        click.echo(f"muehle: error: {line}", err=True)
    if problems:
        raise SystemExit(1)
    if not checked:
        fail(f"{none} (build them with: {command})")
    click.echo(ok)
    if checked < planned:
        click.echo(f"not built yet: {planned - checked} more file(s) of the plan ('{command}' builds them)",
                   err=True)


def _check_dice(db: str, rules: Rules, dice: DiceRule, pair_text: Optional[str], max_total: Optional[int],
                jobs: int, said: frozenset[str] = frozenset()) -> None:
    """``check --phase dice``: every built file of dice mill's tables of ``dice``."""
    gap = dice_gap(rules)
    if gap is not None:
        fail(gap)
    if pair_text is not None:
        fail("check --phase dice checks every built file (--max-total narrows it), not --pair")
    storage.check_root(db, rules)
    checked, problems = dice_tables.check_files(db, rules, dice, max_total=max_total, jobs=jobs)
    _verdict(problems, len(checked), len(dice_tables.plan(rules, max_total)),
             build_command(db, rules, max_total=max_total, dice=dice.name),
             f"no dice tables of rules {rules.name} under dice rule {dice.name} in {db}",
             f"ok: {len(checked)} placement subspace(s) under dice rule {dice.name}, "
             f"{sum(s.slots for s in checked):,} slots consistent", said)


def _check_rule(db: str, rules: Rules, limit: int, pair_text: Optional[str], max_total: Optional[int],
                jobs: int, said: frozenset[str] = frozenset()) -> None:
    """``check --phase rule``: every built file of the tables of the quiet-ply rule
    (``pair_text``: one pair's, or one placement subspace's)."""
    dtz.check_rules(rules)
    pair = None
    if pair_text is not None and "+" in pair_text:
        pair = Subspace.parse(pair_text, rules.board)
        if not placement.is_placement(pair, rules):
            fail(f"{pair_text} is not a placement subspace of rules {rules.name}")
        _refuse_beyond(f"subspace {pair.name}", pair.m + pair.o + pair.own_hand + pair.opp_hand, max_total)
    elif pair_text is not None:
        pair = Pair.parse(pair_text, rules.stones, rules.board)
        _refuse_beyond(f"pair {pair.name}", sum(pair), max_total)
    storage.check_root(db, rules)
    path = None if pair is None else storage.rule_path(db, rules, pair, limit)
    if path is not None and not path.exists() and _has_rule_files(db, rules, limit):
        # (the tables are built, but not the file asked for: the verdict on the database, exit 1)
        click.echo(f"muehle: error: missing database file {path} (build it with: "
                   f"{remedy_command(dtz.rule_remedy(db, rules, limit, pair))})", err=True)
        raise SystemExit(1)
    checked, failed = dtz.check_files(db, rules, limit, max_total=max_total, pair=pair, jobs=jobs)
    command = build_command(db, rules, RULE_PHASE, max_total, quiet_limit=limit)
    if not checked:
        fail(f"no tables of the {limit}-ply rule of rules {rules.name} in {db} (build them with: {command})")
    if failed:
        # (a file at fault fails its own check and those of the files that read it: once)
        lines = [line for line in dict.fromkeys(one_line(explained(line)) for line in failed)
                 if not _names_any(line, said)]
        for line in lines[:5]:
            click.echo(f"muehle: error: {line}", err=True)
        missing = all(isinstance(line, MissingSubspaceError) for line in failed)
        if lines:
            click.echo(f"build them with: {command}" if missing else
                       f"delete the file(s) named and build them again with: {command}", err=True)
        raise SystemExit(1)
    pairs = sum(isinstance(k, Pair) for k in checked)
    click.echo(f"ok: {pairs} pair(s) and {len(checked) - pairs} placement subspace(s) under the {limit}-ply "
               f"rule, {sum(k.slots for k in checked):,} slots consistent")


def _has_rule_files(db: str, rules: Rules, limit: int) -> bool:
    """Whether any file of the tables of the ``limit``-ply rule is in the folder."""
    return any(storage.rules_dir(db, rules).glob(f"dtz{limit}-*.h5"))


def _at_fault(error: DatabaseError, db: str, rules: Rules, what: str,
              held: Pair | Subspace) -> DatabaseError:
    """The error met checking ``held`` (``what``), naming the file at fault and the
    command that builds it again: the file itself or one it reads."""
    if building.why_not_built(Path(db), rules, held, verify=False) is not None:
        return with_repair(error, db, rules, [held])        # its own file
    reads = (list(held.dependencies) if isinstance(held, Pair) else placement.reads(held, rules))
    try:
        building.require_stored(Path(db), rules, f"{what} reads",
                                [s for x in reads for s in (x.subspaces if isinstance(x, Pair) else [x])])
    except DatabaseError as named:         # missing, or a damaged or foreign header
        return named
    for x in [held, *reads]:               # damaged data, found by the check's reads
        if str(storage.file_of(db, rules, x)) in str(error):
            return with_repair(error, db, rules, [x])
    return error


def _refuse_beyond(what: str, stones: int, max_total: Optional[int]) -> None:
    """--pair and --max-total together: ``what`` (a pair or subspace of ``stones`` in
    all) must be within the total (else the plan would leave it out, and the command do
    nothing it was asked for)."""
    if max_total is not None and stones > max_total:
        fail(f"{what} has {stones} stones in all, more than --max-total {max_total}: "
             f"give one or the other")


def _name_incomplete(db: str, rules: Rules, max_total: Optional[int] = None,
                     phase: str = "all") -> set[str]:
    """Before a check of the whole folder (its subspaces of at most ``max_total``
    stones, of ``phase``): every file missing that built ones need, and every file
    that does not hold what its name says, one line each; returns their names (the
    check goes on with the others, naming each of these once)."""
    folder = DatabaseFolder(db, rules)
    problems, names = [], set()
    missing = folder.missing(max_total, phase)
    if missing:
        problems.append(explained(folder.missing_error(missing)))
        names |= {path.name for path in missing}
    for held, error in folder.damaged(max_total, phase):
        problems.append(explained(with_repair(error, db, rules, [held])))
        names.add(storage.file_of(db, rules, held).name)
    for problem in problems:
        click.echo(f"muehle: error: {one_line(problem)}", err=True)
    return names


def _check_placement(db, rules, sub, jobs, progress, cache):
    """Children read through one cache: consecutive subspaces share them."""
    cache.keep_only(placement.reads(sub, rules))
    return check_placement(db, rules, sub, jobs, progress, lookup=cache.load)


@main.command("index-stats")
@rules_options
@needs_kernels
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@jobs_option
@click.option("--threads", "threads", type=click.IntRange(1, MAX_JOBS), default=None, hidden=True,
              help="The old name of --jobs (kept: scripts that give it still run).")
def index_stats(rules: Rules, as_json: bool, jobs: int, threads: Optional[int]) -> None:
    """Orbits, slots and slots per orbit of each moving-phase subspace, plus totals.

    Orbits are counted from the index itself (its real slots), not from a formula;
    the board and the stones a side are the rules' (--rules six-mens).
    """

    jobs = threads if threads is not None else jobs
    start = time.perf_counter()
    stats = index.index_stats(jobs, rules.board, rules.stones)
    elapsed = time.perf_counter() - start
    if as_json:
        click.echo(json.dumps(stats, indent=1))
    else:
        click.echo(index.format_index_stats(stats))
        click.echo(f"counted in {elapsed:.1f} s on {jobs} thread(s)", err=True)
