"""The pieces every command shares: the group, error reporting and the common options.

Bad input never shows a traceback: a command raises one of the package's errors
(:mod:`solver.errors`), a ValueError or an OSError, or calls :func:`fail`, and the
group prints ONE line ``muehle: error: <message>`` on stderr and exits with status 2
(``check`` and ``stats`` exit 1 where their verdict is that the database is at fault).
"""

from __future__ import annotations

import functools
import math
import os
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, NoReturn, Optional

import click

from .._version import __version__
from ..commands import build_command, explained
from ..ceylonese import CeylonRule
from ..dice import DEFAULT as DEFAULT_DICE, DiceRule
from ..errors import InvalidNotationError, MuehleError, one_line
from ..formats import read_setup
from ..game import MAX_QUIET_LIMIT, MIN_QUIET_LIMIT, QUIET_PLY_LIMIT, Game, carried_quiet_plies
from ..kernels import MAX_JOBS
from ..notation import COLOUR_NAMES
from ..values import Value
from ..rules import MAX_STONES, MILL_RULES, RULESET_NAMES, Rules, require_kernels
from ..storage import DEFAULT_ROOT, refuse_rules_folder, rules_dir

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
        super().__init__(one_line(message))

    def show(self, file=None) -> None:
        click.echo(f"muehle: error: {self.format_message()}", err=True)


#: Exit status after Ctrl-C: what a shell reports for a program stopped by SIGINT (128 + 2).
INTERRUPTED = 130
#: Exit status when the reader of standard output went away: what a shell reports for
#: a program killed by SIGPIPE (128 + 13), as ``cat`` would end.
EXIT_CLOSED_PIPE = 141


#: Exit status after SIGTERM (``kill``, a batch system's stop): 128 + 15, as a shell reports.
TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C is, so that a command stops the same
    way (a build lets its files and lock go, a cluster's tasks are cancelled) and says so
    in one line instead of vanishing."""


@contextmanager
def stops_as_interrupts() -> Iterator[None]:
    """While a command runs: SIGTERM raised as :class:`Terminated` (Ctrl-C raises
    KeyboardInterrupt), and no stop lost.  Python runs a signal's handler between any two
    steps of the main thread, also inside a finaliser or a weak reference's callback, and
    there it prints the stop as "Exception ignored" and goes on: a build killed then ran
    to its end (exit 0).  Such a stop is taken back (no message) and sent again, a moment
    later, outside that code."""
    import os
    import signal
    import sys
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    active = threading.Event()
    active.set()

    def stop(signum, frame):
        raise Terminated()

    def again(signum: int) -> None:
        if active.is_set():
            os.kill(os.getpid(), signum)

    hook = sys.unraisablehook

    def swallowed(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and active.is_set():
            signum = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
            resend = threading.Timer(0.01, again, (signum,))
            resend.daemon = True
            resend.start()
            return
        hook(unraisable)

    previous = signal.signal(signal.SIGTERM, stop)
    sys.unraisablehook = swallowed
    try:
        yield
    finally:
        active.clear()
        sys.unraisablehook = hook
        signal.signal(signal.SIGTERM, previous)


def _ignore_further_stops() -> None:
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def quiet_exit_on_closed_pipe() -> NoReturn:
    """The reader of our output went away (``muehle moves startpos | head -1``): stop
    quietly, as ``cat`` does, instead of reporting an error, but with a status that
    says the output was not all read (a ``check`` cut short must not look passed)."""
    import sys
    drop_output()
    sys.exit(EXIT_CLOSED_PIPE)


class _Stream:
    """A standard stream as the commands use it: writes and flushes go to the stream,
    what fails in them to :meth:`_failed`; the rest (``fileno``, ``isatty``, what click
    and ``input`` ask) is the stream's."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        stream = self._stream       # (once: another thread may let it go meanwhile)
        if stream is not None and text != "":      # ("": click's probe of the stream)
            try:
                return stream.write(text)
            except (OSError, ValueError) as error:       # EPIPE, ENOSPC, EIO; a closed file
                self._failed(error)
        return len(text)

    def flush(self) -> None:
        stream = self._stream
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError) as error:
                self._failed(error)

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def _failed(self, error: Exception) -> None:
        raise error

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class Diagnostics(_Stream):
    """Standard error as the commands use it, for progress bars and log lines: a
    reader that goes away (``muehle build 2>&1 | less``, then q) or a stream closed
    from the start (``2>&-``) silences them, it does not stop the work (a build of
    hours, a check)."""

    def _failed(self, error: Exception) -> None:
        self._stream = None


class OutputError(OSError):
    """Standard output could not be written (a full disk, an I/O error): the answer is
    lost, and the one line says it was the output, not a database, that failed."""


class Output(_Stream):
    """Standard output as the commands use it: a write that fails raises
    :class:`OutputError` (the reader that went away stays a BrokenPipeError: a quiet
    end, :func:`quiet_exit_on_closed_pipe`)."""

    def _failed(self, error: Exception) -> None:
        if isinstance(error, BrokenPipeError):
            raise error
        why = (getattr(error, "strerror", None) or str(error) or type(error).__name__).lower()
        raise OutputError(f"cannot write the output (standard output): {why}") from error


def drop_output() -> None:
    """Send what is left of standard output to /dev/null: it failed, and the flush as
    Python ends must not fail again (a second message, status 120)."""
    import sys
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def guard_streams() -> None:
    """Before a command runs: standard error as :class:`Diagnostics`, standard output as
    :class:`Output`; standard output closed (``>&-``) refused in one line, as the answer
    would be lost unseen."""
    import sys
    for fd, name in ((0, "stdin"), (2, "stderr")):
        if getattr(sys, name) is None:
            # Closed: the next file opened would get its number, and whatever writes to
            # fd 2 (HDF5, OpenMP, a child process) would write into that file.
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if not isinstance(sys.stderr, Diagnostics):
        sys.stderr = Diagnostics(sys.stderr)
    if sys.stdout is None:
        raise CliError("standard output is closed (send it to a file or to /dev/null)")
    if not isinstance(sys.stdout, Output):
        sys.stdout = Output(sys.stdout)


def stone_marks(unicode: bool) -> tuple[str, str, str]:
    """The marks of White, Black and a free point for ``--unicode`` (○ ● ·) or not
    (W B .); CliError before anything is drawn where the output's encoding cannot write
    the Unicode ones (half a board, then an error, was the output)."""
    from ..diagram import ASCII, UNICODE
    if not unicode:
        return ASCII
    import sys
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        "".join(UNICODE).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        # (the marks themselves not in the message: stderr has the same encoding)
        fail(f"--unicode draws the stones as Unicode circles, which the output's encoding "
             f"({encoding}) cannot write: leave out --unicode, or set PYTHONIOENCODING=utf-8")
    return UNICODE


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
            raise CliError(explained(error)) from error
    return wrapper


def out_of_memory() -> str:
    """The line for a command that ran out of memory, naming a ``ulimit -v`` in force.

    >>> out_of_memory().startswith("out of memory")
    True
    """
    import resource
    limits = [f"ulimit -{flag} {soft // 1024}" for flag, kind in (("v", resource.RLIMIT_AS), ("d", resource.RLIMIT_DATA))
              if (soft := resource.getrlimit(kind)[0]) != resource.RLIM_INFINITY]
    where = f" (under {', '.join(limits)})" if limits else ""
    return (f"out of memory{where}: the machine's memory, a container's limit or a ulimit is too "
            f"small for this command ('muehle build --dry-run' prints what each file needs)")


class MuehleGroup(click.Group):
    """The command group; it reports bad input of every command as one line."""

    def main(self, *args, **kwargs):
        try:
            guard_streams()
        except CliError as error:
            error.show()
            raise SystemExit(error.exit_code) from None
        return super().main(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except BrokenPipeError:             # --help, --version: printed as the options are read
            quiet_exit_on_closed_pipe()
        except OutputError as error:
            drop_output()
            raise CliError(str(error)) from error
        except click.exceptions.NoArgsIsHelpError:
            raise                          # bare 'muehle': the help, as click gives it
        except click.UsageError as error:
            # the group's own options (muehle --verison): one line, as for a command's
            raise CliError(f"{error.format_message()} (see 'muehle --help')") from error

    def invoke(self, ctx: click.Context):
        try:
            with stops_as_interrupts():
                return report_errors(super().invoke)(ctx)
        except KeyboardInterrupt as stop:
            # Ctrl-C again while Python exits (thread joins, Dask's shutdown) would print
            # a traceback after the line: the work is stopped, so further ones are ignored.
            _ignore_further_stops()
            # (click would say "Aborted!" and exit 1, which check uses for a bad database)
            resume = " (the same command resumes the build)" if ctx.invoked_subcommand == "build" else ""
            what, status = (("terminated", TERMINATED) if isinstance(stop, Terminated)
                            else ("interrupted", INTERRUPTED))
            click.echo(f"muehle: {what}{resume}", err=True)
            raise SystemExit(status) from None
        except MemoryError:
            # (numpy's, a kernel's table, a thread that could not start ...: where a
            # command asks for more than the machine or a limit lets it have)
            raise CliError(out_of_memory()) from None
        except CliError as error:
            if isinstance(error.__cause__, BrokenPipeError):
                quiet_exit_on_closed_pipe()
            if isinstance(error.__cause__, OutputError):
                drop_output()
            raise
        except click.UsageError as error:
            # Wrong options or arguments of a command: click would print the usage
            # and a hint over several lines; keep our one-line promise.
            where = error.ctx.command_path if error.ctx else "muehle"
            name = getattr(error, "option_name", "") or ""
            takes_position = error.ctx is not None and any(p.name == "position" for p in error.ctx.command.params)
            if isinstance(error, click.NoSuchOption) and name == "-1" and takes_position:
                # (Malom's text starts -1,: click reads it as an option)
                raise CliError(f"{error.format_message().rstrip('.')}: a position in Malom's text starts "
                               f"with -1; put -- before it ({where} -- '-1,...')") from error
            raise CliError(f"{error.format_message()} (see '{where} --help')") from error


@click.group(cls=MuehleGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="muehle", message="%(prog)s %(version)s")
def main() -> None:
    """Nine Men's Morris (Mühle): rules, positions and a strong solver.

    Positions are written like 'W:a1,d2,g7 B:a4,b6 w' (White's points, Black's
    points, side to move, optionally stones in hand: 'W:d2 B:f4 w 8 8') or
    'startpos'; a Sanmill FEN or Malom's clipboard text is read too (muehle
    convert).  Moves: d2 (place), d2xa4 (place and take), d2-d3 (slide or jump),
    d2-d3xa4.
    """


# --- shared options ---------------------------------------------------------------

class RulesName(click.ParamType):
    """A rule set's name: a variant (``muehle variants``) or any name a database folder
    has (``take-none-s6``, ``six-mens-jumping``)."""

    name = "NAME"

    def convert(self, value, param, ctx) -> Rules:
        if isinstance(value, Rules):
            return value
        try:
            return Rules.from_name(value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


def rules_options(func: Callable) -> Callable:
    """Add the rule options to a command and pass it ``rules: Rules`` instead.

    ``--rules`` picks a named rule set; ``--no-jumping`` (``--jumping``),
    ``--mill-rule`` and ``--stones`` then change single rules of it.
    """
    @click.option("--rules", "ruleset", type=RulesName(), default="standard",
                  show_default=True, help=f"Rule set: {', '.join(RULESET_NAMES)} "
                                          "(muehle variants lists them), or a database folder's name.")
    @click.option("--no-jumping", is_flag=True,
                  help="A side with three stones slides like the others.")
    @click.option("--jumping", is_flag=True,
                  help="A side with three stones jumps (where the rule set has no jumping).")
    @click.option("--mill-rule", type=click.Choice(MILL_RULES), default=None,
                  help="What a mill takes when every enemy stone stands in a mill "
                       "(default: from --rules; standard is take-any).")
    @click.option("--stones", type=click.IntRange(3, MAX_STONES), default=None,
                  help="Stones per side (default: from --rules; standard is 9).")
    @functools.wraps(func)
    def wrapper(*args, ruleset: Rules, no_jumping: bool, jumping: bool, mill_rule: Optional[str],
                stones: Optional[int], **kwargs):
        if jumping and no_jumping:
            fail("--jumping and --no-jumping contradict each other")
        if stones and stones != ruleset.stones and ruleset.name.endswith(f"-s{ruleset.stones}"):
            # (a name that says its stones: one of the two was not meant)
            fail(f"--rules {ruleset.name} names {ruleset.stones} stones a side and --stones {stones} "
                 f"another: give one")
        rules = replace(ruleset, stones=stones or ruleset.stones,
                        jumping=(ruleset.jumping or jumping) and not no_jumping,
                        mill_rule=mill_rule or ruleset.mill_rule)
        return func(*args, rules=rules, **kwargs)
    return wrapper


def needs_kernels(func: Callable) -> Callable:
    """For a command that solves, checks or probes (below ``@rules_options``): refuse,
    in one line, rules the compiled kernels do not handle yet (``rules.kernel_gap``),
    before anything else is read or written."""
    @functools.wraps(func)
    def wrapper(*args, rules: Rules, **kwargs):
        require_kernels(rules)
        return func(*args, rules=rules, **kwargs)
    return wrapper


#: ``--after MOVES``: moves (space-separated) played from POSITION first (:meth:`Game.after`).
#: Longest line of text a command reads (a --batch file's, play's standard input): a
#: position is some 80 bytes, a move or command a few; a longer one (/dev/zero, a binary
#: file) is refused in one line before it is read whole.
MAX_LINE = 4096

after_option = click.option("--after", "after", metavar="MOVES", default="",
                            help="Play these moves (space-separated) from POSITION first.")

#: ``--quiet-limit N``: the plies in a row without a mill that draw a played game, and so
#: the tables of the quiet-ply rule (solver.dtz) that are built and read.
quiet_limit_option = click.option(
    "--quiet-limit", type=click.IntRange(MIN_QUIET_LIMIT, MAX_QUIET_LIMIT), default=QUIET_PLY_LIMIT,
    show_default=True,
    help="Plies in a row without a mill (in the moving phase) that draw a played game: the rule "
         "whose tables (build --phase rule) are built and read (Sanmill's games play 100).")
#: ``--quiet-limit N`` for a game record: its limit where the record names none.
record_quiet_limit_option = click.option(
    "--quiet-limit", type=click.IntRange(MIN_QUIET_LIMIT, MAX_QUIET_LIMIT), default=None,
    help="Plies in a row without a mill that draw the record's game where the record names "
         "none (default 50; a record that names one must agree, and muehle's own records and "
         "PGN name theirs, none written being 50): Sanmill's PGN names none for its 100.")


def _dice_rule(ctx, param, value):
    try:
        return DiceRule.from_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _ceylon_rule(ctx, param, value):
    try:
        return CeylonRule.from_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def ceylon_rule_or_none(ctx, param, value):
    """A ``--ceylonese`` option's rule, or None where it is not given."""
    return None if value is None else _ceylon_rule(ctx, param, value)


#: ``--ceylonese RULE``: the reading of Ceylonese mill (solver.ceylonese) whose tables are
#: built and checked.
ceylon_option = click.option(
    "--ceylonese", "ceylonese", metavar="RULE", default=CeylonRule().name, show_default=True,
    callback=_ceylon_rule,
    help="Ceylonese mill's reading (--phase ceylonese): ceylonese (Parker's: the placement ends with "
         "two points free, a mill while moving gives another move), then -open<N> for N points free "
         "and -no-extra where the turn passes after a mill.")


def dice_rule_or_none(ctx, param, value):
    """A ``--dice`` option's rule, or None where it is not given."""
    return None if value is None else _dice_rule(ctx, param, value)


#: ``--dice RULE``: dice mill's throw rule (solver.dice), whose tables are built and read.
dice_option = click.option(
    "--dice", "dice", metavar="RULE", default=DEFAULT_DICE.name, show_default=True, callback=_dice_rule,
    help="Dice mill's throw rule (--phase dice): which throws of three dice give the power to replace "
         "a stone of an enemy mill: triple (three alike, 1/36), double (two alike), sum10..sum18 (a sum "
         "at least that); add -no-take where the replacing stone's mill takes nothing.")

#: ``--quiet-plies N``: the plies without a mill a game taken up at POSITION has made
#: (None: the count its text carries, :func:`game_at`).
quiet_plies_option = click.option(
    "--quiet-plies", type=click.IntRange(0, MAX_QUIET_LIMIT), default=None,
    help="Plies in a row without a mill that the game had made when it reached POSITION (the "
         "count of the quiet-ply rule; --after's moves count on).  [default: the count a FEN "
         "or Malom's text of POSITION carries, else 0]")


def game_at(text: str, after: str, rules: Rules, quiet_limit: int, quiet_plies: Optional[int]) -> Game:
    """The game of a command's POSITION ``text`` and ``--after`` moves, taken up after
    ``quiet_plies`` plies without a mill, or (None) after as many as the text carries: a
    FEN's rule-50 counter, Malom's moves since a take (at most the limit, where the game
    is drawn, as ``uci`` and ``analyze`` read them; 0 while stones are in hand, where the
    count has not started).  A count given that differs from the text's is refused."""
    try:
        quiet_plies = counted(text, rules, quiet_limit, quiet_plies)
    except ValueError as error:
        fail(str(error))
    note_uncounted(text, rules, quiet_limit)
    return Game.after(text, after.split(), rules, quiet_limit, quiet_plies)


def counted_words(n: int, one: str, many: str) -> str:
    """``n`` and its noun: '1 ply', '3 plies'."""
    return f"{n} {one if n == 1 else many}"


def option_given(name: str) -> bool:
    """Whether the running command's option ``name`` was given (on the command line or
    from the environment), not left at its default."""
    source = click.get_current_context().get_parameter_source(name)
    return source not in (None, click.core.ParameterSource.DEFAULT)


def note_uncounted(text: str, rules: Rules, quiet_limit: int) -> None:
    """Where the text of a position carries a count of quiet plies that the game does
    not take as written, say why on stderr (the answer alone would not): a count past
    the limit (a Sanmill game, played to 100) draws the game here, and the option that
    plays it on is named; a count while stones are in hand is not counted, since the
    count starts when the last stone is placed (Sanmill counts only moves too: such a
    text was written by hand or by another program)."""
    try:
        setup = read_setup(text, rules.stones, rules.board)
    except (ValueError, InvalidNotationError):
        return                  # (the game's own reading says what is wrong)
    if setup.quiet_plies and (setup.white_hand or setup.black_hand):
        click.echo(f"note: the position's text says {setup.quiet_plies} plies without a mill, but stones are "
                   f"in hand: not counted (the count of the quiet-ply rule starts when the last stone is "
                   f"placed)", err=True)
    elif setup.quiet_count(MAX_QUIET_LIMIT) > quiet_limit:
        click.echo(f"note: the position's text says {setup.quiet_plies} plies without a mill, past the "
                   f"{quiet_limit} that draw the game here (a game to another limit: --quiet-limit N)", err=True)


def unruled_note(database, game: Game, what: str = "the answer is") -> Optional[str]:
    """What a command says where a count of quiet plies or a limit other than 50 is
    asked for (``game``'s start) but no tables of the database's rule are built to apply
    it: that ``what`` without the rule, and the command that builds them; else None."""
    given = game.quiet_counts[0]
    if not (given or game.quiet_limit != QUIET_PLY_LIMIT) or database.has_rule_tables():
        return None
    uncounted = f" (its {given} quiet plies not counted)" if given else ""
    return (f"no tables of the {database.quiet_limit}-ply rule are built in "
            f"{rules_dir(database.root, database.rules)}, so {what} without the rule{uncounted}; "
            f"build them with: {build_command(database.root, database.rules, 'rule', quiet_limit=database.quiet_limit)}")


def counted(text: str, rules: Rules, quiet_limit: int, quiet_plies: Optional[int]) -> int:
    """The count of quiet plies a game taken up at the position ``text`` has made:
    ``quiet_plies``, or (None) what the text carries (:func:`game_at`); ValueError where
    both say one and they differ, InvalidNotationError where ``text`` is no position."""
    try:
        return carried_quiet_plies(text, rules, quiet_limit, quiet_plies)
    except InvalidNotationError:
        raise
    except ValueError as error:
        raise ValueError(f"--quiet-plies: {error}") from None


def position_argument(func: Callable) -> Callable:
    """Add a POSITION argument and the options ``--after MOVES`` and ``--quiet-limit N``;
    pass ``game: Game`` (taken up after the quiet plies a FEN's text carries, at most
    that limit, where the game is drawn).

    The position may be given as one quoted argument or as several words
    (``muehle show W:a1 B:a4 w``).  Needs ``rules``: put it below ``@rules_options``.
    """
    @click.argument("position", nargs=-1, required=True)
    @after_option
    @quiet_limit_option
    @functools.wraps(func)
    def wrapper(*args, position: tuple[str, ...], after: str, rules: Rules, quiet_limit: int, **kwargs):
        game = Game.after(" ".join(position), after.split(), rules, quiet_limit)
        note_uncounted(" ".join(position), rules, quiet_limit)
        return func(*args, game=game, rules=rules, **kwargs)
    return wrapper


def db_option(func: Callable) -> Callable:
    """Add ``--db DIR``, the folder that holds one sub-folder of databases per rule set
    (default: ``$MUEHLE_DB``, else ``data`` in the current folder)."""
    def folder(ctx, param, value: str) -> str:
        # (click's own test of a path blamed MUEHLE_DB for a --db given on the line)
        if value is None:
            # (click passes an empty variable over as unset: the default would be used
            # where the user meant to name a folder)
            if os.environ.get("MUEHLE_DB") is not None:
                raise CliError("MUEHLE_DB is set but empty: name the database folder in it, or unset it")
            value = str(DEFAULT_ROOT)
        if not value.strip():
            raise CliError("--db (or MUEHLE_DB) is empty: name the database folder, e.g. data")
        if os.path.exists(value) and not os.path.isdir(value):
            raise CliError(f"{value} is not a folder (--db, or MUEHLE_DB, names the folder that "
                           f"holds one folder of databases per rule set)")
        refuse_rules_folder(value)
        return value
    return click.option("--db", "db", type=click.Path(), default=None, callback=folder,
                        envvar="MUEHLE_DB", show_default=str(DEFAULT_ROOT), show_envvar=True,
                        help="Database folder (one sub-folder per rule set).")(func)


class FiniteRange(click.FloatRange):
    """A FloatRange that also refuses ``nan``, which passes every bound (it compares
    false with all of them): ``--think nan`` left the search without a deadline.

    >>> FiniteRange(0.01, 3600).convert("2.5", None, None)
    2.5
    """

    name = "number"

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number.", param, ctx)
        return number


def jobs_option(func: Callable) -> Callable:
    """Add ``--jobs N``, the threads a compiled loop may use (default: all CPUs)."""
    return click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=os.cpu_count() or 1,
                        show_default=True, help="Threads to use.")(func)


# --- shared words ------------------------------------------------------------------

def value_text(value: Optional[str], plies: Optional[int]) -> str:
    """``'win in 5'``, ``'draw'`` (:class:`~solver.values.Value`'s words), or ``'?'`` for
    no value (a JSON object's null)."""
    return "?" if value is None else str(Value(value, plies))
