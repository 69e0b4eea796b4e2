"""The pieces every command shares: the group, error reporting and the common options.

Bad input never shows a traceback: a command raises one of the package's errors
(:mod:`solver.errors`), a ValueError or an OSError, or calls :func:`fail`, and the
group prints ONE line ``muehle: error: <message>`` on stderr and exits with status 2.
"""

from __future__ import annotations

import functools
import os
from typing import Callable, NoReturn, Optional

import click

from ..errors import MuehleError
from ..game import Game
from ..position import BLACK, WHITE
from ..rules import MILL_RULES, RULESET_NAMES, Rules
from ..storage import DEFAULT_ROOT

# --- errors ---------------------------------------------------------------------

#: Exit status for bad input (as click uses for usage errors).
EXIT_BAD_INPUT = 2

#: Exceptions that mean bad input (a wrong position, move, file name, a missing or
#: damaged database ...), reported as one line.  Anything else is a bug and keeps
#: its traceback.
KNOWN_ERRORS: tuple[type[BaseException], ...] = (MuehleError, ValueError, OSError)


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


@click.group(cls=MuehleGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Nine Men's Morris (Mühle): rules, positions and a strong solver.

    Positions are written like 'W:a1,d2,g7 B:a4,b6 w' (White's points, Black's
    points, side to move, optionally stones in hand: 'W:d2 B:f4 w 8 8') or
    'startpos'.  Moves: d2 (place), d2xa4 (place and take), d2-d3 (slide or
    jump), d2-d3xa4.
    """


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


def db_option(func: Callable) -> Callable:
    """Add ``--db DIR``, the folder that holds one sub-folder of databases per rule set."""
    return click.option("--db", "db", type=click.Path(file_okay=False), default=str(DEFAULT_ROOT),
                        show_default=True, help="Database folder (one sub-folder per rule set).")(func)


def jobs_option(func: Callable) -> Callable:
    """Add ``--jobs N``, the threads a compiled loop may use (default: all CPUs)."""
    return click.option("--jobs", type=click.IntRange(1, 256), default=os.cpu_count() or 1,
                        show_default=True, help="Threads to use.")(func)


# --- shared words ------------------------------------------------------------------

COLOUR = {WHITE: "White", BLACK: "Black"}


def value_text(value: Optional[str], plies: Optional[int]) -> str:
    """``'win in 5'``, ``'draw'``, or ``'?'`` for no value."""
    if value is None:
        return "?"
    return value if plies is None else f"{value} in {plies}"
