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
from typing import Callable, NoReturn, Optional

import click

from .diagram import ASCII, UNICODE, diagram
from .game import Game, describe_result
from .notation import format_position
from .position import BLACK, LOSS, WHITE, WIN, popcount
from .rules import MILL_RULES, RULESET_NAMES, Rules

# --- errors ---------------------------------------------------------------------

#: Exit status for bad input (as click uses for usage errors).
EXIT_BAD_INPUT = 2

#: Exceptions that mean bad input (a wrong position, move, file name ...), reported
#: as one line.  Anything else is a bug and keeps its traceback.
KNOWN_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError)


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


if __name__ == "__main__":  # pragma: no cover
    main()
