"""Commands that ask the databases: ``query`` and ``solve-opening``."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import select
import signal
import stat
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional

import click

from ..analysis import best_move_object, drawn_by_play, query_object, rule_gap
from ..batch import query_lines
from ..commands import build_command, explained, meant
from ..errors import DatabaseError, one_line
from ..game import Game
from ..notation import format_position
from ..ceylonese import unreached
from ..position import Position, parse_position
from ..opening import OpeningBook, OpeningSearch, build_book
from ..probe import open_database
from ..values import RuleValue
from ..rules import Rules
from .. import storage
from ..kernels import MAX_JOBS
from .common import (COLOUR_NAMES, MAX_LINE, after_option, ceylon_rule_or_none, db_option, dice_rule_or_none, fail, main, needs_kernels, option_given,
                     counted, counted_words, unruled_note, game_at, quiet_limit_option, quiet_plies_option, rules_options, value_text)



@main.command()
@db_option
@rules_options
@needs_kernels
@click.argument("position", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option("--batch", type=click.File("rb"), default=None,
              help="Read one position per line from FILE ('-': stdin); print one JSON object per line "
                   "(for a line that is no position: {\"position\", \"error\"}, and exit status 1).")
@click.option("--line", "with_line", is_flag=True,
              help="Also the line of best play (shortest win, longest defence) to the end of "
                   "the game; a draw 20 plies of it.")
@after_option
@quiet_limit_option
@quiet_plies_option
@click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=os.cpu_count() or 1, show_default=True,
              help="Processes that answer a --batch's blocks of lines (from its second on).")
@click.option("--dice", "dice", metavar="RULE", default=None, callback=dice_rule_or_none,
              help="Dice mill (build --phase dice): the expected result before the throw under this throw "
                   "rule (triple, double, sum10..sum18, -no-take), and each move's, replacements marked.")
@click.option("--ceylonese", "ceylonese", metavar="RULE", default=None, callback=ceylon_rule_or_none,
              help="Ceylonese mill (build --phase ceylonese) under this reading (ceylonese, -open<N>, "
                   "-no-extra): the value in turns and each move's, those that keep the turn marked.")
def query(db: str, rules: Rules, position: tuple[str, ...], as_json: bool, batch, with_line: bool,
          after: str, quiet_limit: int, quiet_plies: int, jobs: int, dice, ceylonese) -> None:
    """The value of POSITION for the side to move and of every legal move, best first.

    Each move's value is for the player who makes it.  Positions with stones in
    hand are read from the placement files (with plies); where no placement file
    is built, the opening search answers (values without plies).  In the moving
    phase, where the tables of the quiet-ply rule are built (build --phase rule),
    also the value in a played game under that rule (at the count of quiet plies of
    --after's moves): win, cursed win, draw, blessed loss or loss, and the plies to
    the next mill; with --line, the line of best play under the rule too.

    \b
    Examples:
      muehle query 'W:a1,d1,g1 B:a7,d7,f6 b'
      muehle query --batch positions.txt
    """
    if batch is None and not position:
        fail("give a POSITION or --batch FILE")
    if batch is not None and position:
        fail("give a POSITION or --batch FILE, not both")
    if batch is not None and after.strip():
        fail("--after plays moves from POSITION: not with --batch")
    if ceylonese is not None:
        if batch is not None or with_line or after.strip() or dice is not None:
            fail("--ceylonese answers one POSITION: not with --batch, --line, --after or --dice")
        if quiet_plies is not None or option_given("quiet_limit"):
            fail("Ceylonese mill is played without the quiet-ply rule: not with "
                 "--quiet-plies or --quiet-limit")
        _query_ceylonese(db, rules, ceylonese, " ".join(position), as_json)
        return
    game = None
    if dice is not None:
        if batch is not None or with_line:
            fail("--dice answers one POSITION: not with --batch or --line")
        # (the game's count, repetitions and --quiet-plies as a plain query takes them)
        game = game_at(" ".join(position), after, rules, quiet_limit, quiet_plies)
        if game.position.in_placement:
            _query_dice(db, rules, dice, game.position, as_json)
            return
        # The moving phase has no dice: its values are the plain tables', and there the
        # rules of play (the count, repetition) apply as to any game.
        click.echo("note: no dice are thrown once every stone is placed: the plain tables answer, "
                   "under the rules of play", err=True)
    with open_database(db, rules, quiet_limit=quiet_limit) as database:
        if batch is not None:
            if not answer_batch(database, batch, with_line, quiet_limit, quiet_plies, jobs):
                raise SystemExit(1)     # (as analyze: a script must not take the answers for whole)
            return
        if game is None:
            game = game_at(" ".join(position), after, rules, quiet_limit, quiet_plies)
        pos = game.position
        note_first(database, game)
        obj = query_object(database, pos, with_line, game)
        note_rule_gap(database, game, obj)
    if with_line and obj["line_drawn"] is not None:
        click.echo(f"note: played as a game from here, this line is a draw at ply "
                   f"{obj['line_drawn']['ply']} ({obj['line_drawn']['termination']}): "
                   f"the values count plies to the end, not to the next mill", err=True)
    if as_json:
        click.echo(json.dumps(obj))
        return
    plies = "" if obj["plies"] is None else f" in {counted_words(obj['plies'], 'ply', 'plies')}"
    click.echo(f"{obj['position']}: {obj['value']}{plies} for {COLOUR_NAMES[pos.turn]}")
    if with_line:
        click.echo(f"line: {' '.join(obj['line']) or '(none: the game is over)'}")
    rule = obj.get("rule")
    if rule is not None:
        text = str(RuleValue(rule["wdl"], rule["dtz"], rule["limit"]))
        count = (f"; after {counted_words(rule['quiet_plies'], 'quiet ply', 'quiet plies')}: {rule['value']}"
                 if rule["quiet_plies"] else "")
        click.echo(f"under the {rule['limit']}-ply rule: {text}{_moving(rule)}{count}")
        if with_line:
            click.echo(f"line under the rule: {' '.join(rule['line']) or '(none: the game is over)'}")
    for mv in obj["moves"]:
        plies = "" if mv["plies"] is None else f" in {mv['plies']}"
        under = mv.get("rule")
        if under is not None:
            plies += f"  ({_under_words(under)})"
        click.echo(f"  {mv['move']:<10} {mv['value']}{plies}")


def _under_words(under: dict) -> str:
    """A move's ``"rule"`` (:func:`~solver.analysis.rule_move_object`) in words, as query's
    and best-move's text say it."""
    mill = ("" if under["dtz"] is None else f", next mill in {under['dtz']}") + _moving(under)
    return f"under the rule: {under['value']}{mill}"


def _moving(rule: dict) -> str:
    """Under mixed placement, a win's or loss's plies to the moving phase, in words."""
    plies = rule.get("placing_plies")
    return "" if plies is None else f", moving phase in {plies}"


def _query_dice(db: str, rules: Rules, dice, pos: Position, as_json: bool) -> None:
    """``query --dice`` of a placement position (``--after``'s ordinary moves played:
    a replacement needs a throw): dice mill's expected results (solver.dice_tables)."""
    from ..dice import require_dice
    from ..dice_tables import DiceTables

    require_dice(rules)
    note_unreachable(pos, rules)
    with DiceTables(db, rules, dice) as tables:
        obj = tables.query_object(pos)
    if as_json:
        click.echo(json.dumps(obj))
        return
    e = obj["expected"]
    click.echo(f"{obj['position']}: for {COLOUR_NAMES[pos.turn]} before the throw: win {e['win']:.2%}, "
               f"draw {e['draw']:.2%}, loss {e['loss']:.2%} (dice rule {dice.name}: the power in "
               f"{dice.num} of 216 throws)")
    for mv in obj["moves"]:
        mark = "  (with the power)" if mv["replacement"] else ""
        click.echo(f"  {mv['move']:<10} win {mv['win']:.2%}, draw {mv['draw']:.2%}, loss {mv['loss']:.2%}{mark}")


def _query_ceylonese(db: str, rules: Rules, rule, text: str, as_json: bool) -> None:
    """``query --ceylonese``: Ceylonese mill's values (solver.ceylonese_tables)."""
    from ..ceylonese_tables import FileTables

    pos = parse_position(text, rules)
    storage.check_root(db, rules)          # (a folder that is a file: said so, not "missing")
    tables = FileTables(db, rules, rule)
    try:
        obj = tables.query_object(pos)
    except ValueError as exc:           # (a position no game of Ceylonese mill reaches)
        fail(str(exc))
    note_unreachable(pos, rules, ceylonese=True)
    if as_json:
        click.echo(json.dumps(obj))
        return
    turns = "" if obj["turns"] is None else f" in {counted_words(obj['turns'], 'turn', 'turns')}"
    click.echo(f"{obj['position']}: {obj['value']}{turns} for {COLOUR_NAMES[pos.turn]} (Ceylonese mill, {rule.name})")
    for mv in obj["moves"]:
        turns = "" if mv["turns"] is None else f" in {mv['turns']}"
        click.echo(f"  {mv['move']:<10} {mv['value']}{turns}" + ("  (moves again)" if mv["again"] else ""))


#: Lines of a --batch file answered together (query_lines): their moves' positions
#: read subspace by subspace, each chunk of values once.
BATCH_LINES = 16384
#: The longest line --batch reads past (an error in its place) before it stops: a line
#: without end (/dev/zero) is no collection of positions.
MAX_SKIPPED_LINE = 16 * 1024 * 1024


class LongLine(bytes):
    """The start of a --batch line too long for a position, which was read past: what
    its error object shows of it."""


def answer_batch(database, batch, with_line: bool, quiet_limit: int, quiet_plies: Optional[int],
                 jobs: int) -> bool:
    """Print query's JSON object for each position of ``batch`` (a binary file, one
    position a line), a block of lines at a time, in their order; from the second
    block on in ``jobs`` processes.  Returns whether every line was a position."""
    said: set[str] = set()
    ok = True
    pool = None
    pending: deque = deque()          # (blocks in the pool, answered in order)
    block: list[tuple[int, bytes]] = []

    def emit(result: tuple[list[str], bool, list[tuple[str, str]]]) -> None:
        nonlocal ok
        out, good, notes = result
        for kind, text in notes:       # (each kind of note once, as for one line)
            if kind not in said:
                said.add(kind)
                click.echo(f"note: {text}", err=True)
        if out:
            click.echo("\n".join(out))
        ok = ok and good

    def drain(keep: int = 0) -> None:
        while len(pending) > keep:
            emit(pending.popleft().result())

    def flush(full: bool) -> None:
        nonlocal pool
        if not block:
            return
        lines = block.copy()
        block.clear()
        if pool is None and full and jobs > 1:
            # (spawned: a forked child would share the parent's open HDF5 files)
            pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_batch_worker,
                                       initargs=(database, with_line, quiet_limit, quiet_plies))
        if pool is None:
            drain()
            emit(answer_block(database, lines, with_line, quiet_limit, quiet_plies))
        else:
            pending.append(pool.submit(_batch_block, lines))
            drain(keep=jobs)

    waits = may_wait(batch)
    number = 0
    try:
        while True:
            if (block or pending) and waits():
                flush(False)          # (its writer waits for these answers)
                drain()
            raw = batch.readline(MAX_LINE + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                # (no position is that long: read past it in pieces, not held, and
                # answered as an error in its place; one without end, /dev/zero or a
                # binary file, stops the batch before it is all read)
                skipped = len(raw)
                while skipped <= MAX_SKIPPED_LINE:
                    rest = batch.readline(MAX_LINE)
                    skipped += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
                else:
                    flush(False)
                    drain()
                    fail(f"--batch line {number}: more than {MAX_SKIPPED_LINE} bytes without a line's end: "
                         f"not one position a line; stopped there")
                raw = LongLine(raw[:80])
            block.append((number, raw))
            if len(block) >= BATCH_LINES:
                flush(True)
        flush(False)
        drain()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return ok


def answer_block(database, lines: list[tuple[int, bytes]], with_line: bool, quiet_limit: int,
                 quiet_plies: Optional[int]) -> tuple[list[str], bool, list[tuple[str, str]]]:
    """The output lines of a block of --batch lines (numbered), whether each was a
    position, and the notes they call for (kind, text), first first.  Each line's count
    of quiet plies is ``quiet_plies``, or (None) the one its text carries (:func:`counted`)."""
    notes: list[tuple[str, str]] = []
    block: list[tuple[int, str, object]] = []     # (line number, text, position or its error)
    counts: dict[int, int] = {}                   # line number: its count
    for number, raw in lines:
        if isinstance(raw, LongLine):         # (read past: its start only)
            block.append((number, raw.decode("utf-8", "replace").strip(),
                          ValueError(f"more than {MAX_LINE} bytes: not a position")))
            continue
        try:
            text = raw.decode("utf-8").strip()
            if number == 1:
                text = text.removeprefix("\ufeff").strip()     # (a byte-order mark, as editors write)
        except UnicodeDecodeError:
            block.append((number, raw.decode("utf-8", "replace").strip(), ValueError("not UTF-8 text")))
            continue
        if not text or text.startswith("#"):
            continue
        try:
            pos = parse_position(text, database.rules)
            for kind, note in (("search", search_note(database, pos)),
                               ("unreachable", unreachable_note(pos, database.rules))):
                if note is not None:
                    notes.append((kind, note))
            counts[number] = counted(text, database.rules, quiet_limit, quiet_plies)
            Game(pos, database.rules, quiet_limit, counts[number])       # (its count checked)
        except (ValueError, DatabaseError) as error:
            block.append((number, text, error))
            continue
        block.append((number, text, pos))
    groups: dict[int, list[tuple[int, object]]] = {}     # count: its lines (nearly always one count)
    for number, _, pos in block:
        if not isinstance(pos, Exception):
            groups.setdefault(counts[number], []).append((number, pos))
    answers: dict[int, str] = {}
    for count, members in groups.items():
        found = query_lines(database, [pos for _, pos in members], count, line=with_line)
        answers.update(zip((number for number, _ in members), found))
    out, ok = [], True
    for number, text, pos in block:
        answer = pos if isinstance(pos, Exception) else answers[number]
        if isinstance(answer, str):
            out.append(answer)
            continue
        out.append(json.dumps({"position": text[:80], "error": one_line(f"line {number}: {explained(answer)}")}))
        ok = False
    return out, ok, notes


_worker: tuple = ()


def _batch_worker(database, with_line: bool, quiet_limit: int, quiet_plies: Optional[int]) -> None:
    """A --batch process's start: the database (opened again here when unpickled)."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # (Ctrl-C is the parent's to report)
    _worker = (database, with_line, quiet_limit, quiet_plies)


def _batch_block(lines: list[tuple[int, bytes]]) -> tuple[list[str], bool, list[tuple[str, str]]]:
    database, with_line, quiet_limit, quiet_plies = _worker
    return answer_block(database, lines, with_line, quiet_limit, quiet_plies)


def may_wait(stream) -> Callable[[], bool]:
    """A test of whether reading ``stream`` now may wait for its writer (a pipe or a
    terminal with nothing ready): a program that writes a position and waits for its
    answer gets it before the batch reads on.  Never for a file."""
    try:
        fd = stream.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return lambda: False
    except (AttributeError, OSError, io.UnsupportedOperation):
        return lambda: False
    return lambda: not select.select([fd], [], [], 0)[0]


def note_first(database, game) -> None:
    """What query and best-move say on stderr before they answer: that the moves of
    --after ended the game in a draw by the rules of play (the answer is that draw),
    else that no game holds these hands, and that the opening search answers."""
    drawn = drawn_by_play(game)
    if drawn is not None:
        given = "the moves given end the game" if game.moves else "the game as given is over"
        click.echo(f"note: {given}: {drawn}", err=True)
        return
    note_unreachable(game.position, database.rules)
    note_search(database, game.position)


def note_rule_gap(database, game, answer: dict) -> None:
    """What query and best-move say on stderr after they answer (``answer``), where the
    tables of the quiet-ply rule are built but a file the answer needs is not: that it
    is without the rule, and the command that builds the file.  An answer under the rule
    (its ``"rule"``) needs no look: the moves are not probed again."""
    if "rule" in answer:
        return
    # (a count or a limit asked for, --after's moves' not counted, and no tables of that
    # limit to apply it)
    note = unruled_note(database, game) if game.outcome() is None else None
    if note is not None:
        click.echo(f"note: {note}", err=True)
        return
    gap = rule_gap(database, game)
    if gap is not None:
        click.echo(f"note: the tables of the {database.quiet_limit}-ply rule lack a file this answer needs, "
                   f"so it is without the rule: {one_line(explained(gap), MAX_LINE)}", err=True)


def note_unreachable(pos, rules: Rules, ceylonese: bool = False) -> bool:
    """Say on stderr :func:`unreachable_note`; returns whether it said it."""
    note = unreachable_note(pos, rules, ceylonese)
    if note is not None:
        click.echo(f"note: {note}", err=True)
    return note is not None


def unreachable_note(pos, rules: Rules, ceylonese: bool = False) -> Optional[str]:
    """Where no game from the start reaches the position (a typing slip, or a study;
    :meth:`Position.unreachable_reason`, or with ``ceylonese`` Ceylonese mill's order of
    turns, :func:`solver.ceylonese.unreached`), that the answer is for the position as
    given; else None."""
    reason = unreached(pos, rules) if ceylonese else pos.unreachable_reason(rules)
    if reason is None:
        return None
    return f"{format_position(pos)}: {reason}; answered for the position as given"


def note_search(database, pos) -> bool:
    """Say on stderr :func:`search_note`; returns whether it said it."""
    note = search_note(database, pos)
    if note is not None:
        click.echo(f"note: {note}", err=True)
    return note is not None


def search_note(database, pos) -> Optional[str]:
    """Before a search that may take minutes without a word, that a position with
    stones in hand is answered by the opening search (no placement file is built);
    else None."""
    if not database.needs_search(pos):
        return None
    return explained(database.search_note())


@main.command("best-move")
@db_option
@rules_options
@needs_kernels
@click.argument("position", nargs=-1, required=True)
@after_option
@click.option("--seed", type=int, default=None,
              help="Choose at random among equally good moves (repeatable with the seed).")
@click.option("--traps", is_flag=True,
              help="Among the best moves, the one that gives a fallible opponent the most chances "
                   "to go wrong (as play --level ultra chooses).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@quiet_limit_option
@quiet_plies_option
def best_move(db: str, rules: Rules, position: tuple[str, ...], after: str, seed: Optional[int],
              traps: bool, as_json: bool, quiet_limit: int, quiet_plies: int) -> None:
    """The database's best move in POSITION: the shortest win, else a draw, else the
    longest loss, and its value for the side to move.

    With --json: {"position", "move", "value", "plies"}; move is null when the game
    is over.  Without --seed the first of equally good moves (in move order).  In the
    moving phase, where the tables of the quiet-ply rule are built, the best move under
    that rule at the count of --after's moves (the nearest winning mill first), with
    "rule" too, as query's moves have it: {"value" (at that count), "dtz" (plies to the
    next mill), "wdl" (its value at a fresh count)}; "value" and "plies" stay the plain
    ones (a move the game draws by repetition or the quiet plies: that draw).
    With --traps, "trap_chance": the chance that a fallible opponent (one that plays
    each move in proportion to how natural it looks) errs on its next move or the one
    after (docs/design.md §10).

    \b
    Example:
      muehle best-move 'W:a1,d1,g1 B:a7,d7,f6 b'
    """
    import random

    game = game_at(" ".join(position), after, rules, quiet_limit, quiet_plies)
    pos = game.position
    with open_database(db, rules, quiet_limit=quiet_limit) as database:
        note_first(database, game)
        obj = best_move_object(database, pos, None if seed is None else random.Random(seed), game,
                               traps=traps)
        note_rule_gap(database, game, obj)
    if as_json:
        click.echo(json.dumps(obj))
        return
    if obj["move"] is None:
        click.echo(f"{obj['position']}: no move, the game is over ({obj['value']} for {COLOUR_NAMES[pos.turn]})")
        return
    trap = f"; the opponent errs with chance {obj['trap_chance']:.1%}" if traps else ""
    under = obj.get("rule")
    # (said where the rule changes the move's value, as a cursed win's draw, or where
    # the plies to the moving phase rank it: --json has the whole of it)
    rule = ("" if under is None or (under["value"] == obj["value"] and "placing_plies" not in under)
            else f"; {_under_words(under)}")
    click.echo(f"{obj['move']} ({value_text(obj['value'], obj['plies'])} for {COLOUR_NAMES[pos.turn]}{rule}{trap})")


@main.command("solve-opening")
@db_option
@rules_options
@needs_kernels
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
    pos = parse_position(" ".join(position) or "startpos", rules)
    if book is not None:                 # (said before the search, not after its minutes)
        if not pos.in_placement:
            fail("an opening book starts from a placement position")
        OpeningBook.check_target(book[1])
    with open_database(db, rules) as database:
        if not database.has_moving():       # (the search's leaves: said as every command says it)
            fail(f"no databases for rules {rules.name} in {db} (build them with: "
                 f"{build_command(db, rules)}){meant(db, rules)}")
        search = OpeningSearch(rules, wdl=database.wdl, table_bits=table_bits)
        if pos.in_placement and rules.stones >= 9:
            # (otherwise a minute without a word; measured in docs/results.md)
            click.echo("note: searching the placement phase; from the start of a 9-stone game "
                       "this takes about a minute", err=True)
        result = search.solve(pos)
        if book is not None:
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
    click.echo(f"{format_position(pos)}: {result.value} for {COLOUR_NAMES[pos.turn]} "
               f"({result.nodes:,} nodes, {result.seconds:.1f} s)")
