"""Commands about rules, positions and moves, no database needed: ``variants``,
``show``, ``moves`` and ``convert``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from ..analysis import convert_object, moves_object
from ..diagram import diagram
from ..ceylonese import CeylonRule, require_ceylonese
from ..ceylonese_tables import require_tables
from .. import dtz
from ..errors import InvalidNotationError, UnsupportedRulesError
from ..formats import FORMATS
from ..game import Game, describe_phase
from ..notation import format_position
from ..position import popcount
from ..rules import VARIANTS, Rules, kernel_gap
from ..dice import DEFAULT as DEFAULT_DICE, THROW_RULES, dice_gap
from ..svg import board_svg
from .common import COLOUR_NAMES, counted_words, fail, main, position_argument, rules_options, stone_marks


@main.command()
@rules_options
@position_argument
@click.option("--unicode", is_flag=True, help="Draw stones as ○ (White) and ● (Black).")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the board as SVG to this file (the last move of --after marked).")
def show(game: Game, rules: Rules, unicode: bool, svg_file: Optional[str]) -> None:
    """Draw POSITION as a board with side to move, stones in hand and phase.

    \b
    Examples:
      muehle show 'W:a1,d2,g7 B:a4,b6 w'
      muehle show startpos --after 'd2 f4' --svg board.svg
    """
    pos = game.position
    marks = stone_marks(unicode)
    if svg_file is not None:
        try:
            Path(svg_file).write_text(board_svg(pos, last_move=game.moves[-1] if game.moves else None))
        except OSError as error:          # (the system's words alone did not say which file)
            fail(f"cannot write {svg_file}: {(error.strerror or str(error)).lower()}")
    click.echo(diagram(pos, marks))
    click.echo()
    white, black = marks[:2]
    click.echo(f"Position:  {format_position(pos)}")
    click.echo(f"To move:   {COLOUR_NAMES[pos.turn]}")
    click.echo(f"White ({white}): {popcount(pos.white)} on the board, {pos.white_hand} in hand")
    click.echo(f"Black ({black}): {popcount(pos.black)} on the board, {pos.black_hand} in hand"
               + ("" if pos.hands_arise(rules) else " (hands no game from the start holds "
                                                     "with this side to move)"))
    reason = pos.unreachable_reason(rules)
    if reason is not None and pos.hands_arise(rules):      # (the hands: said above)
        click.echo(f"Note:      {reason}")
    click.echo(f"Phase:     {describe_phase(game)}")
    if game.quiet_plies and game.outcome() is None:
        # (a FEN's count, or --after's quiet moves: the game is drawn at the limit)
        click.echo(f"Quiet:     {counted_words(game.quiet_plies, 'ply', 'plies')} without a mill, of the "
                   f"{game.quiet_limit} that draw")
    if rules != Rules():
        click.echo(f"Rules:     {rules.name}")


@main.command()
@rules_options
@position_argument
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def moves(game: Game, rules: Rules, as_json: bool) -> None:
    """List every legal move in POSITION, one per line.

    With --json: {"position", "side", "moves", "game_over"}, where game_over is
    null, "win" or "loss" for the side to move ("draw": a full board where the rules
    draw it, as Twelve Men's, or --after moves that repeat a position or make the
    --quiet-limit's quiet plies, counted on from those a FEN's text carries).

    \b
    Example:
      muehle moves 'W:a1,d1 B:a4,b6,d6,f6 w 1 3'
    """
    obj = moves_object(game)
    if as_json:
        click.echo(json.dumps(obj))
        return
    for move in obj["moves"]:
        click.echo(move)
    result = game.outcome()
    if result is not None:
        click.echo(f"no moves: game over, {result}", err=True)


def variant_object(rules: Rules) -> dict:
    """A rule set as plain values: its board, every option, the rules in words and
    whether the compiled kernels solve it yet (else why not)."""
    board = rules.board
    gap = kernel_gap(rules)
    return {"name": rules.name,
            "board": {"name": board.name, "points": board.num_points, "mills": len(board.mills),
                      "edges": len(board.edges), "symmetries": len(board.symmetries),
                      "point_names": list(board.points)},
            **rules.options(),
            "moving_orbits": rules.moving_orbits,
            "description": rules.describe(), "kernels": gap is None, "kernel_gap": gap,
            "dice": dice_object(rules), "ceylonese": ceylonese_object(rules),
            "quiet_rule": quiet_rule_object(rules, gap)}


def quiet_rule_object(rules: Rules, gap: Optional[str]) -> dict:
    """Whether the tables of the quiet-ply rule (solver.dtz: values in played games,
    ``build --phase rule``, part of a whole build) are made under ``rules`` (else why
    not: the kernels' gap first)."""
    why = gap or dtz.unserved(rules)
    return {"tables": why is None, "gap": why}


def ceylonese_object(rules: Rules) -> dict:
    """Ceylonese mill under ``rules`` (solver.ceylonese): whether its reference plays
    them and its tables are made (solver.ceylonese_tables: build, check and query
    --phase/--ceylonese, play and analyze, the browser; else why not: ``gap``), its
    options with their defaults (docs/design.md §12)."""
    try:
        require_ceylonese(rules)
        why = None
    except UnsupportedRulesError as exc:
        why = str(exc)
    try:
        require_tables(rules)
        why_kernels = None
    except UnsupportedRulesError as exc:
        why_kernels = str(exc)
    rule = CeylonRule()
    return {"tables": why_kernels is None, "reference": why is None, "kernels": why_kernels is None,
            "gap": why or why_kernels,
            "options": {"open_points": rule.open_points, "extra_move": rule.extra_move},
            "source": "H. Parker, Ancient Ceylon (1909), pp. 577 and 580 (Nerenchi Keliya)"}


def dice_object(rules: Rules) -> dict:
    """Dice mill under ``rules`` (solver.dice): whether its tables are built here (else
    why not), and the throw rules with the throws of 216 that give the power."""
    gap = dice_gap(rules)
    return {"tables": gap is None, "gap": gap,
            "throw_rules": {name: num for name, (num, _) in THROW_RULES.items()},
            "default": DEFAULT_DICE.name, "options": ["replace_takes (the -no-take suffix turns it off)"]}


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def variants(as_json: bool) -> None:
    """List the named rule sets (for --rules NAME) with their board and rules.

    The reference rules play every variant (show, moves, play --level easy); the
    commands that solve or probe (build, query, ...) need the compiled kernels and
    refuse, in one line, the variants they do not handle yet.

    With --json: {"variants": [{"name", "board": {"name", "points", "mills", "edges",
    "symmetries", "point_names"}, "stones", "jumping", "mill_rule", "placement",
    "two_mill_takes", "line_wins", "full_board" (every option of the rules),
    "moving_orbits", "description", "kernels", "kernel_gap", "dice": {"tables", "gap",
    "throw_rules", "default", "options"}, "ceylonese": {"tables", "reference", "kernels",
    "gap", "options", "source"}, "quiet_rule": {"tables", "gap"}}]}; moving_orbits counts the positions with nothing in hand up
    to symmetry (Burnside's lemma over the board's group); "dice" says whether dice
    mill's tables (build --phase dice) are made under these rules; "ceylonese" whether
    Ceylonese mill's reference plays them and its tables are made (build --phase
    ceylonese, query --ceylonese), and why not ("gap", null where they are); "quiet_rule" whether the tables of the 50-ply rule are
    made under them (a whole build makes them).
    """
    objs = [variant_object(rules) for rules in VARIANTS.values()]
    if as_json:
        click.echo(json.dumps({"variants": objs}))
        return
    width = max(len(o["name"]) for o in objs)
    for o in objs:
        kernels = "" if o["kernels"] else "  (reference rules only, not solved yet)"
        click.echo(f"{o['name']:<{width}}  {o['description']}{kernels}")


@main.command(context_settings={"ignore_unknown_options": True})   # (Malom's text starts -1,)
@rules_options
@click.argument("position", nargs=-1, required=True)
@click.option("--to", "target", type=click.Choice(FORMATS + ("all",)), default="all", show_default=True,
              help="The format to write: muehle's position string, Sanmill's FEN, Malom's clipboard text.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"muehle", "fen", "malom", "take", "note", "notes"} instead.')
def convert(position: tuple[str, ...], rules: Rules, target: str, as_json: bool) -> None:
    """Write POSITION, given in any format muehle reads (its own position string,
    Sanmill's FEN, Malom's clipboard text), in another.

    What a format has and the other lacks is kept or defaulted: a FEN's count of plies
    without a take carries over to Malom's text (as the moves since the last take) and
    back; a FEN's move number, Malom's move count and the other fields muehle has no use
    for are written back as read to the format they came from only (the other format
    gets its default), and two takes pending (a rule of two takes) have no Malom text.  A position with a take pending (a mill just closed) has
    no muehle position string: converting it to one is refused.  Malom's text starts
    with -1: put -- before it for the other commands (muehle show -- '-1,...').

    \b
    Examples:
      muehle convert 'W:a1,d2,g7 B:a4,b6 w 6 7' --to fen
      muehle convert '********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1'
    """
    unknown = next((word for word in position if word.startswith("--") and len(word) > 2), None)
    if unknown is not None:      # (options pass as words here, for Malom's -1,...; none starts --)
        fail(f"no such option {unknown[:40]!r} (see 'muehle convert --help')")
    obj = convert_object(" ".join(position), rules)
    if as_json:
        click.echo(json.dumps(obj))
    elif target == "all":
        for name in FORMATS:
            click.echo(f"{name + ':':<8}{obj[name] if obj[name] is not None else '- (' + obj['notes'][name] + ')'}")
    elif obj[target] is None:
        raise InvalidNotationError(obj["notes"][target])
    else:
        click.echo(obj[target])
