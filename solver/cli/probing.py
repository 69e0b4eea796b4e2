"""Commands that ask the databases: ``query`` and ``solve-opening``."""

from __future__ import annotations

import json
import time
from typing import Optional

import click

from ..analysis import best_move_object, drawn_by_play, query_object
from ..errors import DatabaseError, one_line
from ..game import Game
from ..notation import format_position
from ..position import parse_position
from ..opening import OpeningBook, OpeningSearch, build_book
from ..probe import open_database
from ..values import RuleValue
from ..rules import Rules
from .common import (COLOUR_NAMES, MAX_LINE, after_option, db_option, fail, main, needs_kernels,
                     quiet_limit_option, quiet_plies_option, rules_options, value_text)



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
def query(db: str, rules: Rules, position: tuple[str, ...], as_json: bool, batch, with_line: bool,
          after: str, quiet_limit: int, quiet_plies: int) -> None:
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
    with open_database(db, rules, quiet_limit=quiet_limit) as database:
        if batch is not None:
            noted = odd = failed = False
            for number, raw in enumerate(iter(lambda: batch.readline(MAX_LINE + 1), b""), 1):
                if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                    # (no position is that long: /dev/zero, a binary file; stop before
                    # reading all of it into one line)
                    fail(f"--batch line {number}: more than {MAX_LINE} bytes: not one position a "
                         f"line; stopped there")
                try:
                    text = raw.decode("utf-8").strip()
                except UnicodeDecodeError:
                    click.echo(json.dumps({"position": raw.decode("utf-8", "replace").strip()[:80],
                                           "error": f"line {number}: not UTF-8 text"}))
                    failed = True
                    continue
                if not text or text.startswith("#"):
                    continue
                try:
                    pos = parse_position(text, rules)
                    noted = noted or note_search(database, pos)
                    odd = odd or note_unreachable(pos, rules)
                    # (each line a game taken up at --quiet-plies)
                    game = Game(pos, rules, quiet_limit, quiet_plies)
                    click.echo(json.dumps(query_object(database, pos, with_line, game)))
                except (ValueError, DatabaseError) as error:
                    click.echo(json.dumps({"position": text[:80], "error": one_line(f"line {number}: {error}")}))
                    failed = True
            if failed:
                raise SystemExit(1)     # (as analyze: a script must not take the answers for whole)
            return
        game = Game.after(" ".join(position), after.split(), rules, quiet_limit, quiet_plies)
        pos = game.position
        note_first(database, game)
        obj = query_object(database, pos, with_line, game)
    if with_line and obj["line_drawn"] is not None:
        click.echo(f"note: played as a game from here, this line is a draw at ply "
                   f"{obj['line_drawn']['ply']} ({obj['line_drawn']['termination']}): "
                   f"the values count plies to the end, not to the next mill", err=True)
    if as_json:
        click.echo(json.dumps(obj))
        return
    plies = "" if obj["plies"] is None else f" in {obj['plies']} plies"
    click.echo(f"{obj['position']}: {obj['value']}{plies} for {COLOUR_NAMES[pos.turn]}")
    if with_line:
        click.echo(f"line: {' '.join(obj['line']) or '(none: the game is over)'}")
    rule = obj.get("rule")
    if rule is not None:
        text = str(RuleValue(rule["wdl"], rule["dtz"], rule["limit"]))
        count = (f"; after {rule['quiet_plies']} quiet plies: {rule['value']}" if rule["quiet_plies"] else "")
        click.echo(f"under the {rule['limit']}-ply rule: {text}{count}")
        if with_line:
            click.echo(f"line under the rule: {' '.join(rule['line']) or '(none: the game is over)'}")
    for mv in obj["moves"]:
        plies = "" if mv["plies"] is None else f" in {mv['plies']}"
        under = mv.get("rule")
        if under is not None:
            mill = "" if under["dtz"] is None else f", next mill in {under['dtz']}"
            plies += f"  (under the rule: {under['value']}{mill})"
        click.echo(f"  {mv['move']:<10} {mv['value']}{plies}")


def note_first(database, game) -> None:
    """What query and best-move say on stderr before they answer: that the moves of
    --after ended the game in a draw by the rules of play (the answer is that draw),
    else that no game holds these hands, and that the opening search answers."""
    drawn = drawn_by_play(game)
    if drawn is not None:
        click.echo(f"note: the moves given end the game: {drawn}", err=True)
        return
    note_unreachable(game.position, database.rules)
    note_search(database, game.position)


def note_unreachable(pos, rules: Rules) -> bool:
    """Say on stderr where no game from the start reaches the position (a typing slip, or
    a study; :meth:`Position.unreachable_reason`): the answer is for the position as
    given; returns whether it said so."""
    reason = pos.unreachable_reason(rules)
    if reason is None:
        return False
    click.echo(f"note: {format_position(pos)}: {reason}; answered for the position as given", err=True)
    return True


def note_search(database, pos) -> bool:
    """Say on stderr, before a search that may take minutes without a word, that a
    position with stones in hand is answered by the opening search (no placement
    file is built); returns whether it said so."""
    if not database.needs_search(pos):
        return False
    click.echo(f"note: {database.search_note()}", err=True)
    return True


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
    "dtz" (plies to the next mill) and "rule" (its value at a fresh count) too.
    With --traps, "trap_chance": the chance that a fallible opponent (one that plays
    each move in proportion to how natural it looks) errs on its next move or the one
    after (docs/design.md §10).

    \b
    Example:
      muehle best-move 'W:a1,d1,g1 B:a7,d7,f6 b'
    """
    import random

    game = Game.after(" ".join(position), after.split(), rules, quiet_limit, quiet_plies)
    pos = game.position
    with open_database(db, rules, quiet_limit=quiet_limit) as database:
        note_first(database, game)
        obj = best_move_object(database, pos, None if seed is None else random.Random(seed), game,
                               traps=traps)
    if as_json:
        click.echo(json.dumps(obj))
        return
    if obj["move"] is None:
        click.echo(f"{obj['position']}: no move, the game is over ({obj['value']} for {COLOUR_NAMES[pos.turn]})")
        return
    trap = f"; the opponent errs with chance {obj['trap_chance']:.1%}" if traps else ""
    click.echo(f"{obj['move']} ({value_text(obj['value'], obj['plies'])} for {COLOUR_NAMES[pos.turn]}{trap})")


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
