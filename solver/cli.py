"""The command line: ``muehle <command> ...``.

Layout: the shared pieces come first (error reporting, the rules options, the
position argument), then one function per command.  A new command is a function
decorated with ``@main.command()``, usually ``@rules_options`` and, if it reads
a position, ``@position_argument`` below that.

Bad input never shows a traceback: a command raises ValueError (NotationError is
one), OSError or :class:`CliError`, and the group prints ONE line
``muehle: error: <message>`` on stderr and exits with status 2.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Callable, NoReturn, Optional

import click

from .diagram import ASCII, UNICODE, diagram
from .game import Game, describe_result
from .notation import format_position
from .position import BLACK, LOSS, WHITE, WIN, popcount
from .rules import MILL_RULES, RULESET_NAMES, Rules
from .storage import DEFAULT_ROOT, DatabaseError

# --- errors ---------------------------------------------------------------------

#: Exit status for bad input (as click uses for usage errors).
EXIT_BAD_INPUT = 2

#: Exceptions that mean bad input (a wrong position, move, file name ...), reported
#: as one line.  Anything else is a bug and keeps its traceback.
KNOWN_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, DatabaseError)


class CliError(click.ClickException):
    """Bad input: shown as ``muehle: error: <message>``, exit status 2."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str):
        # One line, whatever the message: tools that read our stderr rely on it.
        super().__init__(" ".join(str(message).split()) or "error")

    def show(self, file=None) -> None:
        click.echo(f"muehle: error: {self.format_message()}", err=True)


def fail(message: str) -> NoReturn:
    """Stop the command with one line of error and exit status 2."""
    raise CliError(message)


def report_errors(func: Callable) -> Callable:
    """Turn :data:`KNOWN_ERRORS` raised by ``func`` into :class:`CliError`.

    The group applies this to every command; use it directly for helpers run
    outside a command (callbacks, ...).
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KNOWN_ERRORS as error:
            raise CliError(str(error)) from error
    return wrapper


class MuehleGroup(click.Group):
    """The command group; it reports bad input of every command as one line."""

    def invoke(self, ctx: click.Context):
        try:
            return report_errors(super().invoke)(ctx)
        except CliError:
            raise
        except click.UsageError as error:
            # Wrong options or arguments of a command: click would print the usage
            # and a hint over several lines; keep our one-line promise.
            where = error.ctx.command_path if error.ctx else "muehle"
            raise CliError(f"{error.format_message()} (see '{where} --help')") from error


# --- shared options ---------------------------------------------------------------

def rules_options(func: Callable) -> Callable:
    """Add the rule options to a command and pass it ``rules: Rules`` instead.

    ``--rules`` picks a named rule set; ``--no-jumping``, ``--mill-rule`` and
    ``--stones`` then change single rules of it.
    """
    @click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), default="standard",
                  show_default=True, help="Named rule set.")
    @click.option("--no-jumping", is_flag=True,
                  help="A side with three stones slides like the others.")
    @click.option("--mill-rule", type=click.Choice(MILL_RULES), default=None,
                  help="What a mill takes when every enemy stone stands in a mill "
                       "(default: from --rules; standard is take-any).")
    @click.option("--stones", type=click.IntRange(3, 9), default=None,
                  help="Stones per side (default 9).")
    @functools.wraps(func)
    def wrapper(*args, ruleset: str, no_jumping: bool, mill_rule: Optional[str],
                stones: Optional[int], **kwargs):
        base = Rules.from_name(ruleset)
        rules = Rules(stones=stones or base.stones,
                      jumping=base.jumping and not no_jumping,
                      mill_rule=mill_rule or base.mill_rule)
        return func(*args, rules=rules, **kwargs)
    return wrapper


def position_argument(func: Callable) -> Callable:
    """Add a POSITION argument and an ``--after MOVES`` option; pass ``game: Game``.

    The position may be given as one quoted argument or as several words
    (``muehle show W:a1 B:a4 w``).  Needs ``rules``: put it below ``@rules_options``.
    """
    @click.argument("position", nargs=-1, required=True)
    @click.option("--after", "after", metavar="MOVES", default="",
                  help="Play these moves (space-separated) from POSITION first.")
    @functools.wraps(func)
    def wrapper(*args, position: tuple[str, ...], after: str, rules: Rules, **kwargs):
        game = Game(" ".join(position), rules)
        for text in after.split():
            game.play(text)
        return func(*args, game=game, rules=rules, **kwargs)
    return wrapper


_COLOUR = {WHITE: "White", BLACK: "Black"}


def phase(game: Game) -> str:
    """Words for what the side to move does now, or how the game ended."""
    result = game.result()
    if result is not None:
        return f"game over: {describe_result(result)}"
    pos, name = game.position, _COLOUR[game.position.turn]
    if pos.own_hand:
        return f"placement ({name} places a stone)"
    if pos.can_jump(game.rules):
        return f"jumping ({name} has three stones and jumps)"
    return f"moving ({name} slides a stone)"


# --- commands -------------------------------------------------------------------

@click.group(cls=MuehleGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Nine Men's Morris (Mühle): rules, positions and a strong solver.

    Positions are written like 'W:a1,d2,g7 B:a4,b6 w' (White's points, Black's
    points, side to move, optionally stones in hand: 'W:d2 B:f4 w 8 8') or
    'startpos'.  Moves: d2 (place), d2xa4 (place and take), d2-d3 (slide or
    jump), d2-d3xa4.
    """


@main.command()
@rules_options
@position_argument
@click.option("--unicode", is_flag=True, help="Draw stones as ○ (White) and ● (Black).")
def show(game: Game, rules: Rules, unicode: bool) -> None:
    """Draw POSITION as a board with side to move, stones in hand and phase.

    \b
    Example:
      muehle show 'W:a1,d2,g7 B:a4,b6 w'
    """
    pos = game.position
    click.echo(diagram(pos, UNICODE if unicode else ASCII))
    click.echo()
    white, black = (UNICODE if unicode else ASCII)[:2]
    click.echo(f"Position:  {format_position(pos)}")
    click.echo(f"To move:   {_COLOUR[pos.turn]}")
    click.echo(f"White ({white}): {popcount(pos.white)} on the board, {pos.white_hand} in hand")
    click.echo(f"Black ({black}): {popcount(pos.black)} on the board, {pos.black_hand} in hand")
    click.echo(f"Phase:     {phase(game)}")
    if rules != Rules():
        click.echo(f"Rules:     {rules.name}")


@main.command()
@rules_options
@position_argument
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def moves(game: Game, rules: Rules, as_json: bool) -> None:
    """List every legal move in POSITION, one per line.

    With --json: {"position", "side", "moves", "game_over"}, where game_over is
    null, "win" or "loss" for the side to move ("draw" only after --after moves
    that repeat a position or make 50 quiet plies).

    \b
    Example:
      muehle moves 'W:a1,d1 B:a4,b6,d6,f6 w 1 3'
    """
    pos = game.position
    legal = [str(m) for m in game.legal_moves()]
    result = game.result()
    game_over = None
    if result is not None:
        winner = result[0]
        game_over = "draw" if winner == "draw" else WIN if winner == pos.turn else LOSS
    if as_json:
        click.echo(json.dumps({"position": format_position(pos), "side": pos.turn,
                               "moves": legal, "game_over": game_over}))
        return
    for move in legal:
        click.echo(move)
    if result is not None:
        click.echo(f"no moves: game over, {describe_result(result)}", err=True)


def db_option(func: Callable) -> Callable:
    """Add ``--db DIR``, the folder that holds one sub-folder of databases per rule set."""
    return click.option("--db", "db", type=click.Path(file_okay=False), default=str(DEFAULT_ROOT),
                        show_default=True, help="Database folder (one sub-folder per rule set).")(func)


def jobs_option(func: Callable) -> Callable:
    import os
    return click.option("--jobs", type=click.IntRange(1, 256), default=os.cpu_count() or 1,
                        show_default=True, help="Threads to use.")(func)


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
    import logging
    from . import build as building

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    pair = building.parse_pair(pair_text, rules) if pair_text else None
    reports = building.build(db, rules, max_total=max_total, pair=pair, jobs=jobs,
                             verify=not no_verify, progress=not quiet)
    built = [r for r in reports if not r.skipped]
    seconds = sum(r.seconds for r in built)
    click.echo(f"{len(built)} pair(s) built, {len(reports) - len(built)} already there, "
               f"{seconds:.1f} s, peak memory {max((r.peak_rss_mib for r in reports), default=0):.0f} MiB; "
               f"databases in {Path(db) / rules.name}")


def _collect_stats(db: str, rules: Rules) -> list[dict]:
    from . import storage
    from .retro import pair_subspaces, pairs_in_order

    rows = []
    for pair in pairs_in_order(rules):
        path = storage.pair_path(db, rules, pair)
        if not path.exists():
            continue
        stats = storage.pair_stats(path, rules)
        for m, o in pair_subspaces(pair):
            info = stats[f"{m}-{o}"]
            rows.append({"subspace": f"{m}-{o}", "wins": info["wins"], "losses": info["losses"],
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
    from tqdm import tqdm
    from . import build as building
    from . import storage
    from .verify.check import check_pair

    if pair_text:
        pairs = [building.parse_pair(pair_text, rules)]
        if not storage.pair_path(db, rules, pairs[0]).exists():
            fail(f"missing database file {storage.pair_path(db, rules, pairs[0])}")
    else:
        pairs = [p for p in building.plan(rules) if storage.pair_path(db, rules, p).exists()]
        if not pairs:
            fail(f"no databases for rules {rules.name} in {db}")
    total = sum(building.pair_slots(p) for p in pairs)
    with tqdm(total=total, unit="states", unit_scale=True, desc="check", disable=quiet) as bar:
        for pair in pairs:
            bad = check_pair(db, rules, pair, jobs, progress=bar.update)
            if bad:
                bar.close()
                click.echo(f"pair {pair[0]}-{pair[1]}: {len(bad)}+ states disagree with their successors; first:", err=True)
                for state in bad[:5]:
                    click.echo(f"  {state.describe()}", err=True)
                raise SystemExit(1)
    click.echo(f"ok: {len(pairs)} pair(s), {total:,} slots consistent")


def _query_object(database, pos) -> dict:
    probe = database.probe(pos)
    result = {"position": format_position(pos), "value": probe.value, "plies": probe.plies,
              "moves": [{"move": str(mp.move), "value": mp.value, "plies": mp.plies}
                        for mp in database.probe_moves(pos)]}
    return result


@main.command()
@db_option
@rules_options
@click.argument("position", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option("--batch", type=click.File("r"), default=None,
              help="Read one position per line from FILE ('-': stdin); print one JSON object per line.")
def query(db: str, rules: Rules, position: tuple[str, ...], as_json: bool, batch) -> None:
    """The value of POSITION for the side to move and of every legal move, best first.

    Each move's value is for the player who makes it.  Positions with stones in
    hand are answered by the opening search (values without plies).

    \b
    Examples:
      muehle query 'W:a1,d1,g1 B:a7,d7,f6 b'
      muehle query --batch positions.txt
    """
    from .notation import parse_position
    from .probe import open_database

    if batch is None and not position:
        fail("give a POSITION or --batch FILE")
    with open_database(db, rules) as database:
        if batch is not None:
            for number, line in enumerate(batch, 1):
                text = line.strip()
                if not text or text.startswith("#"):
                    continue
                try:
                    click.echo(json.dumps(_query_object(database, parse_position(text, rules))))
                except (ValueError, DatabaseError) as error:
                    click.echo(json.dumps({"position": text, "error": f"line {number}: {error}"}))
            return
        pos = parse_position(" ".join(position), rules)
        obj = _query_object(database, pos)
    if as_json:
        click.echo(json.dumps(obj))
        return
    plies = "" if obj["plies"] is None else f" in {obj['plies']} plies"
    click.echo(f"{obj['position']}: {obj['value']}{plies} for {_COLOUR[pos.turn]}")
    for mv in obj["moves"]:
        plies = "" if mv["plies"] is None else f" in {mv['plies']}"
        click.echo(f"  {mv['move']:<10} {mv['value']}{plies}")


@main.command("solve-opening")
@db_option
@rules_options
@click.argument("position", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option("--book", nargs=2, type=(click.IntRange(0, 18), click.Path(dir_okay=False)),
              default=None, metavar="K FILE",
              help="Also write an opening book: the values of all placement positions up to "
                   "ply K from POSITION, to FILE (.npz).  Probes read it from "
                   "<db>/<rules>/opening-book.npz.")
@click.option("--table-bits", type=click.IntRange(10, 32), default=24, show_default=True,
              help="Transposition table of 2^N entries (8 bytes each).")
def solve_opening(db: str, rules: Rules, position: tuple[str, ...], as_json: bool,
                  book: Optional[tuple[int, str]], table_bits: int) -> None:
    """Solve a placement position (default: the start position) by exact search.

    With all moving-phase databases of the standard rules built, this proves that
    Nine Men's Morris is a draw.
    """
    import time

    from .notation import parse_position
    from .opening import OpeningSearch, build_book
    from .probe import open_database

    pos = parse_position(" ".join(position) or "startpos", rules)
    with open_database(db, rules) as database:
        search = OpeningSearch(rules, wdl=database.wdl, table_bits=table_bits)
        result = search.solve(pos)
        if book is not None:
            if not pos.in_placement:
                fail("an opening book starts from a placement position")
            start = time.perf_counter()
            written = build_book(search, book[0], pos)
            written.write(book[1])
            if not as_json:
                click.echo(f"opening book: {len(written):,} positions up to ply {book[0]} "
                           f"written to {book[1]} ({time.perf_counter() - start:.1f} s)")
    if as_json:
        out = {"position": format_position(pos), "value": result.value,
               "nodes": result.nodes, "seconds": round(result.seconds, 3)}
        if book is not None:
            out["book_positions"] = len(written)
        click.echo(json.dumps(out))
        return
    click.echo(f"{format_position(pos)}: {result.value} for {_COLOUR[pos.turn]} "
               f"({result.nodes:,} nodes, {result.seconds:.1f} s)")


from .cli_index import index_stats  # noqa: E402  (defined in its own module)

main.add_command(index_stats)

if __name__ == "__main__":  # pragma: no cover
    # python -m solver.cli: run the package's copy of this module, so that the
    # commands defined in modules importing it (cli_play) attach to the same group.
    from solver.cli import main as _main
    _main()
else:
    from .cli_play import analyze, play  # noqa: E402  (defined in its own module)

    main.add_command(play)
    main.add_command(analyze)
