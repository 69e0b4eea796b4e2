"""``muehle play`` (a game against the computer in the terminal), ``muehle analyze``
(the database's verdict on every move of a saved game) and ``muehle match`` (many games
between two players, and what their score says).

``play`` reads one move or command
per line from standard input, so programs and tests can drive it; when standard
input is not a terminal, each line read is echoed after its prompt (the output is
then a readable transcript), and end of input ends the game.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from pathlib import Path
from typing import Callable, Optional

import click

from ..analysis import analyze_object, ceylon_analyze_object, dice_analyze_object, plies_to, ranked_plies
from ..records import PGN_DATE, pgn_text, read_any_record, record_tags
from ..diagram import ASCII, LAST_FROM, LAST_TO, TAKEABLE, diagram
from ..errors import AmbiguousMoveError, DatabaseError, IllegalMoveError, NotationError
from ..game import QUIET_PLY_LIMIT, RESIGNATION, Game, Outcome
from ..notation import format_position
from ..choice import MoveValues, probe_game_moves
from ..players import LEVELS, make_player
from ..dice import DiceGame, dice_gap, is_dice_record, is_replacement, read_dice_record, replacements
from ..dice_tables import DiceTables
from ..ceylonese import CeylonGame, CeylonRule, is_ceylon_record, read_ceylon_record, require_ceylonese
from ..ceylonese_tables import FileTables
from ..position import BLACK, WHITE, Move, Position, parse_legal_move, parse_move, parse_position, popcount
from ..probe import RuleMoveProbe, open_database
from ..rules import STANDARD, Rules, kernel_gap
from ..commands import build_command, explained, meant
from ..values import DRAW, LOSS, WIN, Value
from .common import (COLOUR_NAMES, MAX_LINE, FiniteRange, ceylon_rule_or_none, counted_words, db_option, dice_rule_or_none, fail, main, needs_kernels,
                     game_at, quiet_limit_option, record_quiet_limit_option, rules_options, stone_marks, unruled_note, value_text)
from .probing import note_unreachable

HELP = """\
Type a move in notation: d2 (place), d2-d3 (slide or jump), d2-d3xa4 (and take a4).
A move that closes a mill without naming the stone to take asks for it.
Commands:
  help       this text
  moves      the legal moves
  hint       the database's best move and the value of every move
  undo       take back your last move and the computer's reply (or a resignation)
  resign     give up the game
  save FILE  save the game record (read it with: muehle analyze FILE)
  quit       leave (end of input does the same)"""


def open_optional_database(db: str, rules: Rules, quiet_limit: int = QUIET_PLY_LIMIT):
    """(database, None), or (None, why not) when there are no databases for ``rules``
    (or the kernels cannot read any for them yet)."""
    gap = kernel_gap(rules)
    if gap is not None:
        return None, gap
    folder = Path(db) / rules.name
    if not folder.is_dir():
        return None, (f"no databases for rules {rules.name} in {db} "
                      f"(build them with: {build_command(db, rules)}){meant(db, rules)}")
    return open_database(db, rules, in_memory=rules.stones <= 4, quiet_limit=quiet_limit), None


def take_back_turn(game, human: str) -> Optional[list[Move]]:
    """Take back ``human``'s last move and the replies after it (a :class:`Game` or a
    dice game: their ``positions`` and ``undo``); the moves taken back in the order they
    were played, or None where ``human`` has not moved yet."""
    if not any(p.turn == human for p in game.positions[:-1]):
        return None
    taken = [game.undo()]
    while game.position.turn != human:
        taken.append(game.undo())
    return taken[::-1]


#: What the plies of a hint count to (:func:`solver.analysis.plies_to`), in words
_PLIES_TO = {"mill": "next mill", "moving": "moving phase"}


class Session:
    """One game between a human (reading ``read``) and a computer player (writing ``out``)."""

    def __init__(self, game: Game, human: str, player, database=None, no_db_reason: str = "",
                 symbols=ASCII, read: Optional[Callable[[str], Optional[str]]] = None,
                 out: Callable[[str], None] = click.echo, placed: Optional[DiceGame] = None):
        # placed: the placement phase of dice mill that led to this game (its record's first part)
        self.game, self.human, self.player, self.placed = game, human, player, placed
        self.database, self.no_db_reason = database, no_db_reason
        self.symbols = symbols
        self.read = read or read_line
        self.out = out
        self.announced = False

    # --- state ---------------------------------------------------------------------
    def outcome(self) -> Optional[Outcome]:
        return self.game.outcome()

    def show_board(self, takeable: int = 0) -> None:
        game, marks = self.game, {}
        if game.moves:
            last = game.moves[-1]
            marks[last.target] = LAST_TO
            if last.origin is not None:
                marks[last.origin] = LAST_FROM
        for p in range(game.rules.board.num_points):
            if takeable >> p & 1:
                marks[p] = TAKEABLE
        self.out(diagram(game.position, self.symbols, marks))
        pos = game.position
        white, black = self.symbols[:2]
        status = (f"White ({white}) {popcount(pos.white)} on the board, {pos.white_hand} in hand; "
                  f"Black ({black}) {popcount(pos.black)} on the board, {pos.black_hand} in hand")
        if game.moves:
            mover = COLOUR_NAMES[game.positions[-2].turn]
            legend = "<> may be taken" if takeable else "[] last move" + (", () from" if game.moves[-1].origin is not None else "")
            self.out(f"Last move: {mover} {game.moves[-1]}   ({legend})")
        elif takeable:
            self.out("(<> may be taken)")
        self.out(status)

    def prompt(self) -> str:
        if self.outcome() is not None:
            return "game over (undo, save FILE, quit) > "
        return f"{COLOUR_NAMES[self.game.position.turn]} to move (you) > "

    # --- the loop ------------------------------------------------------------------
    def run(self) -> None:
        you = COLOUR_NAMES[self.human]
        self.out(f"You play {you} against the computer ({self.player.level}), rules {self.game.rules.name}. "
                 f"Type a move or 'help'.")
        self.show_board()
        while True:
            result = self.outcome()
            if result is not None and not self.announced:
                self.announce(result)
            if result is None and self.game.position.turn != self.human:
                self.computer_move()
                continue
            line = self.read(self.prompt())
            if line is None:
                if self.outcome() is None:
                    self.out("End of input: the game is left unfinished.")
                return
            if not line.strip():
                continue
            if self.command(line.strip()) == "quit":
                return

    def announce(self, result: Outcome) -> None:
        self.announced = True
        verdict = {WIN: "You win!", DRAW: "Draw.", LOSS: "You lose."}[result.value_for(self.human)]
        self.out(f"Game over: {result}. {verdict}")

    def computer_move(self) -> None:
        move = self.player.choose(self.game)
        colour = COLOUR_NAMES[self.game.position.turn]
        self.game.play(move)
        self.out(f"{colour} (computer, {self.player.level}) plays {move}")
        self.show_board()

    def command(self, line: str) -> Optional[str]:
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("help", "?"):
            self.out(HELP)
            board = self.game.rules.board
            if board.points != STANDARD.board.points:      # the examples above are standard points
                self.out(f"Points of the {board.name} board: {' '.join(sorted(board.points))}")
        elif word in ("quit", "exit"):
            if self.outcome() is None:
                self.out("You leave the game unfinished.")
            return "quit"
        elif word == "moves":
            legal = self.game.legal_moves()
            self.out(" ".join(str(m) for m in legal) if legal else "no moves: the game is over")
        elif word == "hint":
            self.hint()
        elif word == "undo":
            self.undo()
        elif word == "resign":
            if self.outcome() is not None:
                self.out("the game is already over")
            else:
                self.game.resign(self.human)
        elif word == "save":
            self.save(rest)
        else:
            self.human_move(line)
        return None

    # --- commands ------------------------------------------------------------------
    def human_move(self, text: str) -> None:
        if self.outcome() is not None:
            self.out(f"the game is over: {self.outcome()} (undo, save FILE or quit)")
            return
        try:
            move = self.game.parse_legal_move(text)
        except AmbiguousMoveError as error:
            # A mill closed without naming the stone to take: the only one, or ask.
            if len(error.takes) == 1:
                move = error.takes[0]
                self.out(f"{text} closes a mill and takes the only stone it may: {move}")
            else:
                move = self.ask_take(error.move, error.takes)
                if move is None:
                    return
        except IllegalMoveError as error:
            # The rule it breaks, in the words of the reference rules.
            why = self.game.position.why_illegal(error.move, self.game.rules)
            self.out(f"illegal move {error.move}{f': {why}' if why else ''} "
                     f"(type 'moves' for the legal ones)")
            return
        except NotationError as error:
            self.out(f"{explained(error)} (type 'help' for the commands)")
            return
        self.game.play(move)
        self.show_board()

    def ask_take(self, move: Move, takes: list[Move]) -> Optional[Move]:
        """Ask which stone the mill takes; None (and the move is not played) for a bad answer."""
        board = self.game.rules.board
        victims = 0
        for m in takes:
            for t in m.takes:
                victims |= 1 << t
        self.out(f"{move} closes a mill: which stone do you take?")
        self.show_board(takeable=victims)
        # One stone ("a4"), or two where two mills at once take two ("b6xa4"), named
        # in either order.
        texts = {"x".join(board.points[t] for t in m.takes): m for m in takes}
        names = ", ".join(sorted(texts))
        texts.update({"x".join(board.points[t] for t in reversed(m.takes)): m for m in takes})
        answer = self.read(f"take which stone ({names}) > ")
        if answer is None:
            return None
        answer = answer.strip().lower().lstrip("x")
        if answer in texts:
            return texts[answer]
        self.out(f"{answer or 'nothing'} is not a stone this mill may take ({names}); the move is not played")
        return None

    def undo(self) -> None:
        game = self.game
        result = game.outcome()
        if result is not None and result.termination == RESIGNATION:
            game.undo()
            self.announced = False
            self.out("taken back: the resignation")
            self.show_board()
            return
        taken = take_back_turn(game, self.human)
        if taken is None:
            self.out("nothing to take back: you have not moved yet")
            return
        self.announced = False
        self.out(f"taken back: {' '.join(str(m) for m in taken)}")
        self.show_board()

    def save(self, name: str) -> None:
        save_record(name, self.game.record() if self.placed is None else self.placed.record(self.game), self.out)

    def hint(self) -> None:
        if self.outcome() is not None:
            self.out("the game is over")
            return
        if self.database is None:
            self.out(f"no hint: {self.no_db_reason}")
            return
        values = MoveValues(0)
        try:
            probes = probe_game_moves(self.database, self.game, values)   # a draw by the rules of play too
        except DatabaseError as error:
            self.out(f"no hint: the database cannot answer ({explained(error)})")
            return
        if values.gap is not None:
            self.out(f"note: the tables of the {self.game.quiet_limit}-ply rule are built, but not all this "
                     f"hint needs ({explained(values.gap)}): the values are without the rule")
        best = probes[0]
        # (under the quiet-ply rule: the plies to the next mill, not to the end; while
        # placing to the end, and under mixed placement to the moving phase)
        ruled = isinstance(best, RuleMoveProbe)
        decided = [p for p in probes if p.value != DRAW]
        to = plies_to(decided[0]) if ruled and decided else "end"
        said = (f"{best.value}, {_PLIES_TO[to]} in {ranked_plies(best)}" if best.value != DRAW and to != "end"
                else value_text(best.value, ranked_plies(best)))
        self.out(f"hint: {best.move} ({said}); every move, for you"
                 + (f" (under the {self.game.quiet_limit}-ply rule, (n): plies to the {_PLIES_TO[to]})"
                    if ruled and to != "end" else "")
                 + ":")
        for value in (WIN, DRAW, LOSS):
            group = [p for p in probes if p.value == value]
            if group:
                self.out(f"  {value}: " + " ".join(
                    str(p.move) if ranked_plies(p) is None else f"{p.move}({ranked_plies(p)})" for p in group))


def read_line(prompt: str) -> Optional[str]:
    """A line from standard input, None at its end.  Not a terminal: the line is
    echoed after the prompt, so the output reads as a transcript.

    A line that is not text in standard input's encoding (a byte 0xff, or any
    non-ASCII byte under a strict ASCII locale) gets one complaint and reads as an
    empty line: the game goes on.  A closed standard input (``<&-``: Python has none)
    is at its end.  A line longer than MAX_LINE bytes (no move or command is; an
    endless one, ``< /dev/zero``, could not be skipped) ends the command with one line
    of error, unread past its first MAX_LINE bytes."""
    if sys.stdin is None:
        return None
    if sys.stdin.isatty():
        try:
            return input(prompt)
        except (EOFError, KeyboardInterrupt):
            click.echo()
            return None
        except UnicodeDecodeError as error:
            click.echo(undecodable(error))
            return ""
    encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    binary = getattr(sys.stdin, "buffer", None)
    try:
        if binary is None:
            line = sys.stdin.readline(MAX_LINE + 1)
            long = len(line) > MAX_LINE and not line.endswith("\n")
        else:
            raw = binary.readline(MAX_LINE + 1)
            long = len(raw) > MAX_LINE and not raw.endswith(b"\n")
            line = "" if long else raw.decode(encoding)
        if long:
            fail(f"a line of standard input longer than {MAX_LINE} bytes: no move or command is; stopped there")
    except UnicodeDecodeError as error:
        if binary is not None:
            click.echo(prompt + raw.decode(encoding, "backslashreplace").rstrip("\r\n")
                       .encode("ascii", "backslashreplace").decode("ascii"))
        click.echo(undecodable(error))
        return ""
    if not line:
        return None
    click.echo(prompt + line.rstrip("\r\n"))
    return line


def undecodable(error: UnicodeDecodeError) -> str:
    """The complaint about an input line that is not text in the input's encoding."""
    byte = error.object[error.start:error.start + 1]
    return (f"that line is not {error.encoding} text (byte 0x{byte.hex() or '??'} at "
            f"{error.start + 1}); type it again")


@main.command()
@db_option
@rules_options
@click.option("--level", type=click.Choice(list(LEVELS)), default="medium", show_default=True,
              help="Strength of the computer.")
@click.option("--color", "--colour", "colour", type=click.Choice(["white", "black", "random"]),
              default="white", show_default=True, help="Your colour (White moves first).")
@click.option("--seed", type=int, default=None, help="Seed of the computer's random choices.")
@click.option("--position", "start", metavar="POSITION", default=None,
              help="Start from this position instead of the empty board.")
@click.option("--think", type=FiniteRange(0.01, 3600), default=3.0, show_default=True,
              help="Seconds per move for the search of hard (and of perfect without a database).")
@click.option("--unicode", is_flag=True, help="Draw stones as ○ (White) and ● (Black).")
@quiet_limit_option
@click.option("--dice", "dice", metavar="RULE", default=None, callback=dice_rule_or_none,
              help="Play dice mill under this throw rule (triple, double, sum10..sum18, -no-take): "
                   "three dice thrown before each placement, seeded by --seed; the computer places "
                   "by dice mill's tables (build --phase dice), at level easy at random.")
@click.option("--ceylonese", "ceylonese", metavar="RULE", default=None, callback=ceylon_rule_or_none,
              help="Play Ceylonese mill under this reading (ceylonese, -open<N>, -no-extra): a mill "
                   "while placing earns another placement, one while moving takes and earns another "
                   "move; the computer plays by its tables (build --phase ceylonese), at level easy "
                   "at random.")
def play(db: str, rules: Rules, level: str, colour: str, seed: Optional[int], start: Optional[str],
         think: float, unicode: bool, quiet_limit: int, dice, ceylonese) -> None:
    """Play a game against the computer in the terminal.

    Moves and commands (help, moves, hint, undo, resign, save FILE, quit; a game of
    dice mill or Ceylonese mill has no resign: its own help lists its commands) are
    read one per line from standard input, so the game can also be scripted:

    \b
      printf 'd2\\nd3\\n...' | muehle play --stones 4 --level easy
      muehle play --rules five-mens --dice sum14 --seed 7 --level perfect
      muehle play --rules six-mens-s4 --ceylonese ceylonese --level perfect
    """
    marks = stone_marks(unicode)
    rng = random.Random(seed)
    human = {"white": WHITE, "black": BLACK}.get(colour) or rng.choice([WHITE, BLACK])
    if ceylonese is not None:
        if dice is not None:
            fail("give --dice or --ceylonese, not both")
        if quiet_limit != QUIET_PLY_LIMIT:
            fail("--quiet-limit: Ceylonese mill has no quiet-ply rule (a position seen a third time draws)")
        _play_ceylonese(db, rules, ceylonese, level, human, rng, start, marks)
        return
    placed = None
    if dice is not None:
        placed = _play_dice(db, rules, dice, level, human, seed, start, marks)
        if placed is None:
            return          # (the game ended, or was left, while placing)
        start = format_position(placed.position)
    # (a FEN's or Malom's count of quiet plies is the game's)
    game = Game(start, rules, quiet_limit) if start is None else game_at(start, "", rules, quiet_limit, None)
    database, reason = open_optional_database(db, rules, quiet_limit)
    if database is None and reason and level not in ("easy", "medium"):
        click.echo(f"note: {reason}")       # (which folder was looked in: a typo of --db shows)
    player = make_player(level, rules, rng, database, say=lambda msg: click.echo(f"note: {msg}"),
                         seconds=think, explain=explained)
    note = None if database is None or level in ("easy", "medium") else \
        unruled_note(database, game, f"{level} plays")
    if note is not None:
        click.echo(f"note: {note}")
    try:
        Session(game, human, player, database, reason or "", marks, placed=placed).run()
    finally:
        if database is not None:
            database.close()


def _play_dice(db: str, rules: Rules, dice, level: str, human: str, seed: Optional[int],
               start: Optional[str], marks) -> Optional[DiceGame]:
    """The placement phase of dice mill (:class:`DiceSession`): its game, whose last
    position the moving phase starts from, or None where the game ended or was left
    before it."""
    gap = dice_gap(rules)
    if gap is not None:
        fail(gap)
    pos = parse_position(start, rules) if start else None
    if pos is not None and not pos.in_placement:
        fail("--dice plays the placement phase with dice: give a position with stones in hand")
    tables = None
    if level != "easy":
        tables = DiceTables(db, rules, dice)
        try:
            tables.fixed(pos if pos is not None else "startpos")
        except DatabaseError as error:
            tables.close()
            fail(f"{explained(error)}; or play --level easy, which places at random")
    try:
        game = DiceGame(rules, dice, pos, seed)
        end = DiceSession(game, human, tables, random.Random(seed), marks).run()
    finally:
        if tables is not None:
            tables.close()
    return None if end is None else game


def _play_ceylonese(db: str, rules: Rules, rule: CeylonRule, level: str, human: str, rng: random.Random,
                    start: Optional[str], marks) -> None:
    """A game of Ceylonese mill (:class:`CeylonSession`): the computer perfect by its
    tables (any level but easy), or at random (easy)."""
    try:
        require_ceylonese(rules)
        game = CeylonGame(rules, rule, parse_position(start, rules) if start else None)
    except ValueError as error:         # (a position no game of Ceylonese mill reaches)
        fail(str(error))
    note_unreachable(game.position, rules, ceylonese=True)
    tables = None
    if level != "easy":
        tables = FileTables(db, rules, rule)
        try:
            tables.value(game.position)
        except DatabaseError as error:
            fail(f"{explained(error)}; or play --level easy, which plays at random")
    CeylonSession(game, human, tables, rng, marks).run()


CEYLON_HELP = """Ceylonese mill: a mill closed while placing takes nothing, and the same side places again;
the placement ends when only the rule's free points are left (the stones still in hand are
put aside); a mill closed while moving takes a stone (name it: d2-d3xa4), and the same side
moves again.  A position seen a third time with the same side to move is a draw.
Commands:
  help       this text
  moves      the legal moves
  hint       the tables' best move and every move's value for you (turns to the end)
  undo       take back your last move and the computer's replies
  save FILE  save the game record (read it with: muehle analyze FILE)
  quit       leave (end of input does the same)"""


class TablesSession:
    """What the sessions of the games beside the plain one share (dice mill's placement,
    Ceylonese mill): a human (reading ``read``) against the computer, perfect by a
    game's ``tables`` or at random where there are none (level easy), which ``rng``
    makes; the commands each line may be (:meth:`command`).  A kind says its
    :attr:`HELP`, and how a move is made, hinted and taken back."""

    HELP = ""

    def __init__(self, game, human: str, tables, rng, symbols=ASCII,
                 read: Optional[Callable[[str], Optional[str]]] = None, out: Callable[[str], None] = click.echo):
        self.game, self.human, self.tables = game, human, tables
        self.rng, self.symbols = rng, symbols
        self.read = read or read_line
        self.out = out

    def command(self, prompt: str) -> bool:
        """Read one line of the human's and do it: a command or a move.  False where the
        human leaves (quit, or the end of input)."""
        line = self.read(prompt)
        if line is None:
            self.out("End of input: the game is left unfinished.")
            return False
        word, _, rest = line.strip().partition(" ")
        word = word.lower()
        if word in ("quit", "exit"):
            self.out("You leave the game unfinished.")
            return False
        if word in ("help", "?"):
            self.out(self.HELP)
        elif word == "moves":
            self.out(" ".join(str(m) for m in self.game.legal_moves()))
        elif word == "hint":
            self.hint()
        elif word == "undo":
            self.undo()
        elif word == "save" and self.saves:
            save_record(rest.strip(), self.game.record(), self.out)
        elif word:
            self.human_move(line.strip())
        return True

    #: Whether ``save FILE`` writes the game's record (``game.record()``)
    saves = False

    def after_the_end(self) -> None:
        """Once the game is over: ``save FILE`` or ``quit`` (the end of input too)."""
        while (line := self.read("game over (save FILE, quit) > ")) is not None:
            word, _, rest = line.strip().partition(" ")
            if word.lower() == "save":
                save_record(rest.strip(), self.game.record(), self.out)
            elif word.lower() in ("quit", "exit"):
                break
            elif word:
                self.out("the game is over: save FILE or quit")

    def hint(self) -> None:
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def human_move(self, text: str) -> None:
        raise NotImplementedError


class CeylonSession(TablesSession):
    """A game of Ceylonese mill (:class:`TablesSession`; ``tables``:
    :class:`~solver.ceylonese_tables.FileTables`).  A side moves again after a mill, so
    either may make several moves in a row."""

    HELP = CEYLON_HELP
    saves = True

    def run(self) -> Optional[tuple]:
        """Play to the end: the outcome (:meth:`CeylonGame.outcome`), or None where the
        human left."""
        game = self.game
        level = f"perfect, the tables of {game.rule.name}" if self.tables is not None else "easy"
        self.out(f"You play {COLOUR_NAMES[self.human]} against the computer ({level}), Ceylonese mill "
                 f"under rules {game.rules.name}. Type a move or 'help'.")
        self.out(diagram(game.position, self.symbols))
        while (outcome := game.outcome()) is None:
            if game.position.turn != self.human:
                self.computer_move()
            elif not self.command(f"{COLOUR_NAMES[self.human]} to move (you) > "):
                return None
        winner = outcome[0]
        verdict = ("Draw." if winner is None else "You win!" if winner == self.human else "You lose.")
        self.out(f"Game over: {game.result()}. {verdict}")
        self.after_the_end()
        return outcome

    def computer_move(self) -> None:
        game = self.game
        move = (self.tables.probe_moves(game.position)[0].move if self.tables is not None
                else self.rng.choice(game.legal_moves()))
        colour = COLOUR_NAMES[game.position.turn]
        game.play(move)
        again = " and moves again" if game.again else ""
        self.out(f"{colour} (computer) plays {move}{again}")
        self.out(diagram(game.position, self.symbols))

    def human_move(self, text: str) -> None:
        game = self.game
        try:
            game.play(text)
        except AmbiguousMoveError as error:
            self.out(f"{error} (type 'moves' for the legal ones)")
            return
        except (IllegalMoveError, NotationError) as error:
            self.out(f"{explained(error)} (type 'moves' for the legal ones, 'help' for the commands)")
            return
        if game.position.turn == self.human and game.outcome() is None:
            self.out("A mill: you move again.")
        self.out(diagram(game.position, self.symbols))

    def hint(self) -> None:
        if self.tables is None:
            self.out("no hints at level easy (it plays without the tables)")
            return
        moves = self.tables.probe_moves(self.game.position)
        self.out(f"best: {moves[0].move} ({turns(moves[0].value)})")
        self.out("  ".join(f"{m.move}: {turns(m.value)}" for m in moves))

    def undo(self) -> None:
        game = self.game
        if not any(p.turn == self.human for p in game.positions[:-1]):
            self.out("no move of yours to take back")
            return
        while game.moves:               # (to the start of the human's last turn: a mill's moves too)
            mover = game.positions[-2].turn
            game.undo()
            if mover == self.human and (len(game.positions) == 1 or game.positions[-2].turn != self.human):
                break
        self.out(diagram(game.position, self.symbols))


def turns(value) -> str:
    """A value of Ceylonese mill's tables in words: 'win in 3 turns', 'win in 1 turn',
    'draw'."""
    return str(value) if value.plies is None else f"{value.wdl} in {counted_words(value.plies, 'turn', 'turns')}"


def save_record(name: str, text: str, out: Callable[[str], None]) -> None:
    """``save FILE`` of a session: ``text`` (a game record) written to ``name``, or why
    not in one line (the game goes on)."""
    if not name:
        out("save needs a file name: save FILE")
        return
    try:
        Path(name).write_text(text)
    except (OSError, ValueError) as error:
        # ValueError: a name the system cannot take (a NUL byte in it)
        why = getattr(error, "strerror", None) or error
        out(f"cannot save to {name!r}: {why}")
        return
    out(f"game saved to {name}")


DICE_HELP = """\
Before each placement the side to place throws three dice; a throw that gives the power
lets it put its stone on a point where a stone of an enemy mill stands (that stone leaves
the game): type the point (d1), and the stone to take where the new stone closes a mill
(d1xa4).  Other moves as in the game without dice.
Commands:
  help       this text
  moves      the legal moves after this throw
  hint       the tables' best move and every move's expected result for you
  undo       take back your last move and the computer's reply (the throws stay)
  save FILE  save the game with its throws (read it with: muehle analyze FILE)
  quit       leave (end of input does the same)"""


class DiceSession(TablesSession):
    """The placement phase of dice mill (:class:`TablesSession`; ``tables``: dice mill's);
    the game throws the dice (its seed)."""

    HELP = DICE_HELP
    saves = True

    def run(self) -> Optional[Position]:
        """Play until every stone is placed: the position then, or None where the game
        ended (one side below three stones) or the human left."""
        game = self.game
        level = "perfect, dice mill's tables" if self.tables is not None else "easy"
        self.out(f"You play {COLOUR_NAMES[self.human]} against the computer ({level}), dice mill under "
                 f"rules {game.rules.name}: {game.dice.describe()}. Type a move or 'help'.")
        self.out(diagram(game.position, self.symbols))
        shown = None            # (the turn, its throw) last announced
        while game.in_placement:
            t = game.roll()
            if shown != (len(game.moves), t):
                self.announce(t)
                shown = (len(game.moves), t)
            if game.position.turn != self.human:
                self.computer_move()
            elif not self.command(f"{COLOUR_NAMES[self.human]} to place (you) > "):
                return None
        result = game.position.terminal_wdl(game.rules)
        if result is not None:
            mover = game.position.turn
            winner = mover if result == WIN else (WHITE if mover == BLACK else BLACK)
            verdict = "You win!" if winner == self.human else "You lose."
            self.out(f"Game over while placing: {COLOUR_NAMES[winner]} wins. {verdict}")
            self.after_the_end()
            return None
        self.out("Every stone is placed: the game goes on without dice.")
        return game.position

    def announce(self, t) -> None:
        pos, game = self.game.position, self.game
        enemy = COLOUR_NAMES[BLACK if pos.turn == WHITE else WHITE]
        targets = sorted({game.rules.board.points[m.target] for m in replacements(pos, game.rules, game.dice)})
        what = ("no power" if not t.powered else
                f"the power: a stone of {enemy}'s mills may be replaced ({' '.join(targets)})" if targets
                else f"the power, but {enemy} has no mill")
        self.out(f"{COLOUR_NAMES[pos.turn]} throws {t}: {what}")

    def computer_move(self) -> None:
        game = self.game
        powered = game.pending.powered
        move = (self.tables.best_move(game.position, powered).move if self.tables is not None
                else self.rng.choice(game.legal_moves()))
        replacing = is_replacement(game.position, move)
        colour = COLOUR_NAMES[game.position.turn]
        game.play(move)
        self.out(f"{colour} (computer) plays {move}{' (replacing)' if replacing else ''}")
        self.out(diagram(game.position, self.symbols))

    def human_move(self, text: str) -> None:
        game = self.game
        pos = game.position
        try:
            move = parse_legal_move(text, pos, game.rules)
        except AmbiguousMoveError as error:
            self.out(f"{error.move} closes a mill: name the stone it takes ("
                     f"{', '.join(str(m) for m in error.takes)})")
            return
        except (IllegalMoveError, NotationError) as error:
            try:
                move = parse_move(text, game.rules.board)
            except NotationError:
                self.out(f"{explained(error)} (type 'help' for the commands)")
                return
            if not is_replacement(pos, move):
                self.out(f"{explained(error)} (type 'moves' for the legal ones)")
                return
        try:
            game.play(move)
        except IllegalMoveError as error:
            self.out(f"{error} (type 'moves' for the legal ones)")
            return
        self.out(diagram(game.position, self.symbols))

    def hint(self) -> None:
        if self.tables is None:
            self.out("no hint: level easy plays without dice mill's tables")
            return
        try:
            probes = self.tables.probe_moves(self.game.position, self.game.pending.powered)
        except DatabaseError as error:
            self.out(f"no hint: the tables cannot answer ({explained(error)})")
            return
        self.out(f"hint: {probes[0].move}; every move, your expected result after it:")
        for p in probes:
            mark = "  (with the power)" if p.replacement else ""
            self.out(f"  {str(p.move):<8} {p.value}{mark}")

    def undo(self) -> None:
        game = self.game
        taken = take_back_turn(game, self.human)
        if taken is None:
            self.out("nothing to take back: you have not moved yet")
            return
        self.out(f"taken back: {' '.join(str(m) for m in taken)} (your throw stays {game.pending})")
        self.out(diagram(game.position, self.symbols))


@main.command()
@db_option
@rules_options
@needs_kernels
@click.argument("game_file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@record_quiet_limit_option
def analyze(db: str, rules: Rules, game_file: str, as_json: bool, quiet_limit: Optional[int]) -> None:
    """The value of every move of a saved game (a record of 'save' or Game.record(), the
    Sanmill app's PGN, a PlayOK move list; GAME_FILE '-': standard input; at most 16 MiB
    of UTF-8 text).

    For each move: the value before it and after it, both for the player who made
    it, from the databases (placement files for positions with stones in hand; the
    opening search where none is built), and a review against the best move there:
    '??' a win or draw given away for a loss, '?' a win for a draw, '?!' the value kept
    but a slower win or a sooner loss (by how many plies); per player the share of best
    moves (accuracy) and the count of each mark.  Moves are judged as the perfect player
    sees them in the game: under the quiet-ply rule where its tables are built, a draw
    by threefold repetition or the quiet plies counted as that draw.

    With --json: {"rules", "start", "result", "moves": [{"ply", "side", "move",
    "before", "before_plies", "after", "after_plies", "rule_before", "rule_after",
    "blunder", "mark", "plies_lost", "best", "best_value", "best_plies", "plies_to", "is_best"}],
    "summary": {"w": {...}, "b": {...}}} (docs/guide/playing.md: muehle analyze).

    A record of dice mill (a 'dice: RULE' header, each placement after its throw, as
    play --dice saves it): each placement against the best move after its throw by
    dice mill's tables (build --phase dice), marked by the expected score it gave away
    ('??' 0.25 or more, '?' 0.10, '?!' 0.02), then the moves after the placement phase
    as above; with --json the placements in "placements" (docs/guide/playing.md).

    A record of Ceylonese mill (a 'ceylonese: RULE' header and its 'rules:', a move a
    line, as play --ceylonese saves it): every move by Ceylonese mill's tables (build
    --phase ceylonese) as above, in turns (a side's moves until the other's), a move that
    kept the turn marked; with --json also "ceylonese", "counts": "turns" and each
    move's "again" (docs/guide/playing.md).

    Where a database cannot answer (missing, damaged or foreign), a warning line on
    stderr says why, the values there are '?' (null), and the exit status is 1.
    """
    text = read_record_file(game_file)
    if quiet_limit is not None and (is_dice_record(text) or is_ceylon_record(text)):
        fail(f"--quiet-limit: a record of {'dice' if is_dice_record(text) else 'Ceylonese'} mill is read as "
             f"it is written (muehle's records name a limit other than 50: quiet-limit:)")
    if is_dice_record(text):
        _analyze_dice(db, text, None if rules == STANDARD else rules, as_json)
        return
    if is_ceylon_record(text):
        _analyze_ceylonese(db, text, None if rules == STANDARD else rules, as_json)
        return
    game, notes = read_any_record(text, None if rules == STANDARD else rules, quiet_limit=quiet_limit)
    for note in notes:
        click.echo(f"muehle: note: {note}", err=True)
    with open_database(db, game.rules, quiet_limit=game.quiet_limit) as database:
        obj, problems = analyze_object(database, game, explained)
    _report(obj, problems, as_json, lambda: _print_analysis(obj, game))


def _report(obj: dict, problems: list[str], as_json: bool, show: Callable[[], None]) -> None:
    """An analysis's end: its warnings on stderr, then ``obj`` as JSON or ``show``n as
    text; exit status 1 where it has holes (an analysis with holes is not a whole one,
    as for stats)."""
    for problem in problems:
        click.echo(f"muehle: warning: {problem}", err=True)
    if as_json:
        click.echo(json.dumps(obj))
    else:
        show()
    if problems:
        raise SystemExit(1)


@main.command()
@rules_options
@click.argument("game_file", type=click.Path(dir_okay=False))
@click.option("--to", "target", type=click.Choice(["pgn", "muehle"]), default="pgn", show_default=True,
              help="Write the game as PGN (as the Sanmill app reads it) or as muehle's own record.")
@click.option("--white", default=None, help="PGN: White's name (default: the record's White tag, else '?').")
@click.option("--black", default=None, help="PGN: Black's name (default: the record's Black tag, else '?').")
@record_quiet_limit_option
def record(rules: Rules, game_file: str, target: str, white: Optional[str], black: Optional[str],
           quiet_limit: Optional[int]) -> None:
    """Write a game record (muehle's, the Sanmill app's PGN, a PlayOK move list; GAME_FILE
    '-': standard input) as PGN or as muehle's record; every move is checked.

    \b
    Examples:
      muehle record game.txt > game.pgn
      muehle record --to muehle playok.txt > game.txt
    """
    text = read_record_file(game_file)
    if is_dice_record(text):
        fail("a record of dice mill: PGN and the plain record have no place for its throws "
             "(muehle analyze reads it)")
    if is_ceylon_record(text):
        fail("a record of Ceylonese mill: PGN and the plain record have no place for its turns "
             "(muehle analyze reads it)")
    game, notes = read_any_record(text, None if rules == STANDARD else rules, quiet_limit=quiet_limit)
    for note in notes:
        click.echo(f"muehle: note: {note}", err=True)
    if target == "muehle":
        click.echo(game.record(), nl=False)
        return
    # (a PGN written from a PGN or PlayOK record keeps its players, event, round and
    # date: PGN's text of one, '?' where not known; one that is none: today's. Its site
    # is muehle's: a PlayOK site would make it read as PlayOK's numbered points)
    tags = record_tags(text)
    date = tags.get("Date")
    if date is None or not PGN_DATE.fullmatch(date):
        date = None
    click.echo(pgn_text(game, white if white is not None else tags.get("White", "?"),
                        black if black is not None else tags.get("Black", "?"),
                        tags.get("Event", "muehle game"), date, tags.get("Round", "1")), nl=False)


#: Largest game record read (one of 5,000 moves is some 40 KB; comments may be long).
MAX_RECORD = 16 * 1024 * 1024


def read_record_file(name: str, kind: str = "a game record") -> str:
    """The text of the game record ``name`` ('-': standard input), at most
    :data:`MAX_RECORD` bytes of UTF-8: ValueError (one line naming the file) for a file
    that is none (a folder, longer, not text), before more than that is read.  ``kind``:
    what the file should be, as the error names it (a positions file)."""
    if not name:
        raise ValueError(f"give the file of {kind} (or - for standard input)")
    if name == "-":
        import sys
        stream = sys.stdin.buffer
        data = stream.read(MAX_RECORD + 1)
    else:
        if Path(name).is_dir():
            raise ValueError(f"{name} is a folder, not {kind}")
        try:
            with open(name, "rb") as stream:
                data = stream.read(MAX_RECORD + 1)
        except OSError as error:
            raise ValueError(f"cannot read {name}: {(error.strerror or str(error)).lower()}") from None
    if len(data) > MAX_RECORD:
        raise ValueError(f"{name}: more than {MAX_RECORD // 2 ** 20} MiB: not {kind}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not UTF-8 text (byte {data[error.start]:#04x} at offset "
                         f"{error.start}): not {kind}") from None
    if not text.strip():        # (an empty file is a slip, not a game of no moves: as the API says)
        raise ValueError(f"{'standard input' if name == '-' else name} is empty: not {kind}")
    return text


def _analyze_dice(db: str, text: str, rules: Optional[Rules], as_json: bool) -> None:
    """``analyze`` of a record of dice mill: its placements by dice mill's tables, the
    rest of the game as any game's."""
    game, rest = read_dice_record(text, rules)
    with DiceTables(db, game.rules, game.dice) as tables, \
            open_database(db, game.rules, quiet_limit=rest.quiet_limit) as database:
        obj, problems = dice_analyze_object(tables, database, game, rest, explained)
    _report(obj, problems, as_json, lambda: _show_dice(obj, game, rest))


def _show_dice(obj: dict, game: DiceGame, rest: Game) -> None:
    """The text of ``analyze`` of a game of dice mill."""
    click.echo(f"dice mill, throw rule {game.dice.name} ({game.dice.describe()}); expected results "
               f"for the mover (score: win 1, draw 1/2)")
    click.echo(f"{'ply':>4}  {'side':<5}  {'throw':<6}  {'move':<10}  {'before':>6}  {'after':>6}  review")
    for r in obj["placements"]:
        before, after = (f"{r[k]['score']:.4f}" if r[k] is not None else "?" for k in ("before", "after"))
        review = ("-" if r["is_best"] is None else "" if r["mark"] is None else
                  f"{r['mark']} {r['score_lost']:.4f} lost (best {r['best']}, {r['best_after']['score']:.4f})")
        click.echo(f"{r['ply']:>4}  {COLOUR_NAMES[r['side']]:<5}  {r['throw']:<6}  "
                   f"{r['move'] + (' (power)' if r['replacement'] else ''):<10}  {before:>6}  {after:>6}  "
                   f"{review}".rstrip())
    for side, s in obj["placement_summary"].items():
        if s["moves"]:
            click.echo(f"{COLOUR_NAMES[side]}: placements {s['accuracy']}% best ({s['best']} of {s['moves']}); "
                       f"?? {s['??']}, ? {s['?']}, ?! {s['?!']}")
    if rest.moves:
        click.echo("after the placement phase:")
        _print_analysis(obj, rest)
    elif rest.outcome() is not None:
        click.echo(f"result: {rest.outcome()}")


def _analyze_ceylonese(db: str, text: str, rules: Optional[Rules], as_json: bool) -> None:
    """``analyze`` of a record of Ceylonese mill: every move by its tables, in turns."""
    game = read_ceylon_record(text, rules)
    try:
        obj, problems = ceylon_analyze_object(FileTables(db, game.rules, game.rule), game, explained)
    except DatabaseError as error:      # (no tables at all: one line, not one a move)
        fail(explained(error))

    def show() -> None:
        click.echo(f"Ceylonese mill ({game.rule.name}), rules {game.rules.name}, start {obj['start']}; "
                   f"values for the mover, in turns (a side's moves until the other's)")
        _print_rows(obj, "turns")
        if obj["result"] is not None:
            click.echo(f"result: {obj['result']}")
    _report(obj, problems, as_json, show)


def _print_analysis(obj: dict, game: Game) -> None:
    rows, result = obj["moves"], game.outcome()
    click.echo(f"rules {game.rules.name}, start {format_position(game.start)}; values for the mover")
    ruled = any(r["rule_before"] is not None for r in rows)
    if ruled:
        click.echo(f"(rule: the value in this game under its {game.quiet_limit}-ply rule, at its count)")
    _print_rows(obj, "plies", ruled)
    if result is not None:
        click.echo(f"result: {result}")


def _print_rows(obj: dict, unit: str, ruled: bool = False) -> None:
    """An analysis's moves, a line each, its blunders and each side's summary; ``unit``:
    what the values count (plies; turns in Ceylonese mill)."""
    rows = obj["moves"]

    def text(value, count) -> str:
        return (value_text(value, count) if value is None or count is None or unit == "plies"
                else turns(Value(value, count)))
    width = 12 if unit == "plies" else 16
    click.echo(f"{'ply':>4}  {'side':<5}  {'move':<10}  {'before':<{width}}  {'after':<{width}}  review")
    for r in rows:
        rule = (f"  rule {r['rule_before'] or '-'} -> {r['rule_after'] or '-'}" if ruled else "")
        again = "  (moves again)" if r.get("again") else ""
        click.echo(f"{r['ply']:>4}  {COLOUR_NAMES[r['side']]:<5}  {r['move']:<10}  "
                   f"{text(r['before'], r['before_plies']):<{width}}  "
                   f"{text(r['after'], r['after_plies']):<{width}}  {review_text(r, unit)}{rule}{again}".rstrip())
    blunders = [r for r in rows if r["blunder"]]
    click.echo(f"{len(blunders)} blunder(s)" + (": " + ", ".join(
        f"ply {r['ply']} {r['move']} ({r['blunder']})" for r in blunders) if blunders else ""))
    for side, s in obj["summary"].items():
        if s["moves"]:
            click.echo(f"{COLOUR_NAMES[side]}: accuracy {s['accuracy']}% ({s['best']} of {s['moves']} "
                       f"moves best); ?? {s['??']}, ? {s['?']}, ?! {s['?!']}")


def review_text(row: dict, unit: str = "plies") -> str:
    """A reviewed move's mark in words: ``?? lost the win (best d2-d3)``, ``?! 4 plies
    slower (best d2-d3)`` (``unit``: what the values count); '' for a best move, '-'
    where it could not be judged."""
    if row["is_best"] is None:
        return "-"
    if row["mark"] is None:
        return ""
    if row["mark"] == "?!":
        slower = "slower" if row["best_value"] == "win" else "sooner lost"
        if row["plies_to"] == "mill":
            slower += " to the next mill"
        elif row["plies_to"] == "moving":
            slower += " to the moving phase"
        lost = row["plies_lost"]
        words = slower if lost is None else \
            f"{counted_words(lost, 'ply' if unit == 'plies' else 'turn', unit)} {slower}"
    else:
        words = row["blunder"]
    return f"{row['mark']} {words} (best {row['best']})"


@main.command()
@db_option
@rules_options
@click.argument("first", metavar="PLAYER1")
@click.argument("second", metavar="PLAYER2")
@click.option("--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True,
              help="Games to play; PLAYER1 has White in the even-numbered ones.")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), default=None,
              help="Seed of the games' random choices (default: one chosen and printed).")
@click.option("--positions", "positions_file", type=click.Path(dir_okay=False), default=None,
              help="Start from these positions (one per line, each twice, colours swapped; a FEN's "
                   "count of plies without a mill counts) instead of the empty board.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False), default=None,
              help="Write every game as a record (game-00000.txt ...) into this new or empty folder.")
@click.option("--think", type=FiniteRange(0.01, 3600), default=0.1, show_default=True,
              help="Seconds per move for the search of hard.")
@click.option("--jobs", type=click.IntRange(1, 256), default=os.cpu_count() or 1, show_default=True,
              help="Games played at once, each in its own process.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object at the end instead.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@quiet_limit_option
def match(db: str, rules: Rules, first: str, second: str, games: int, seed: Optional[int],
          positions_file: Optional[str], records_dir: Optional[str], think: float, jobs: int,
          as_json: bool, quiet: bool, quiet_limit: int) -> None:
    """Play GAMES games of PLAYER1 against PLAYER2, colours alternating, and print
    PLAYER1's wins, draws and losses, its score with a 95 % interval and the Elo
    difference that score means.

    A player is a level (easy, medium, hard, perfect, ultra) or fallible:EPSILON, a
    perfect player that plays a random legal move with probability EPSILON.  The
    games are played under the rules of play (threefold repetition and --quiet-limit
    plies without a mill draw); Ctrl-C prints the score so far and keeps the records
    written.

    \b
      muehle match ultra fallible:0.05 --games 1000 --seed 1 --records games/
      muehle match perfect hard --games 200 --think 0.1

    With --json: {"first", "second", "rules", "seed", "games", "wins", "draws",
    "losses", "score", "interval", "elo", "elo_interval", "terminations",
    "interrupted"} (elo values null where infinite).
    """
    from ..match import PlayerSpec, Score, play_match, read_starts
    specs = [PlayerSpec.parse(first), PlayerSpec.parse(second)]
    starts = (read_starts(read_record_file(positions_file, "a positions file"), rules, positions_file, quiet_limit)
              if positions_file else ())
    root: Optional[str] = None
    needs = [str(spec) for spec in specs if spec.needs_database]
    if (Path(db) / rules.name).is_dir() and kernel_gap(rules) is None:
        root = db
    elif needs:
        _, reason = open_optional_database(db, rules, quiet_limit)
        fail(f"{needs[0]} plays by the databases: {reason}")
    records = _records_folder(records_dir) if records_dir else None
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 31)
    if not as_json:
        click.echo(f"match: {specs[0]} against {specs[1]}, {games} games, rules {rules.name}, "
                   f"seed {seed}")
    from tqdm import tqdm
    score, terminations, notes = Score(), {}, {}
    bar = tqdm(total=games, unit="game", disable=quiet or as_json, file=sys.stderr, leave=False)
    interrupted = False
    results = play_match(specs[0], specs[1], games, rules, root, seed, jobs, starts, think, quiet_limit)
    try:
        for result in results:
            score = score.add(result.result)
            terminations[result.termination] = terminations.get(result.termination, 0) + 1
            if records is not None:
                _write_record(records / f"game-{result.number:05d}.txt", result.record)
            for note in result.notes:
                if note not in notes and not as_json:
                    bar.write(f"note: {note}", file=sys.stderr)
                notes[note] = True
            bar.update()
            bar.set_postfix_str(f"+{score.wins} ={score.draws} -{score.losses}")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()
        bar.close()
    low, high = score.interval()
    if as_json:
        finite = lambda x: None if math.isinf(x) or math.isnan(x) else round(x, 1)
        click.echo(json.dumps({
            "first": str(specs[0]), "second": str(specs[1]), "rules": rules.name, "seed": seed,
            "games": score.games, "wins": score.wins, "draws": score.draws, "losses": score.losses,
            "score": None if not score.games else score.score, "interval": [low, high],
            "elo": finite(score.elo()), "elo_interval": [finite(x) for x in score.elo_interval()],
            "terminations": terminations, "interrupted": interrupted}))
    else:
        if interrupted:
            click.echo(f"interrupted after {score.games} of {games} games")
        if score.games:
            click.echo(score.describe(str(specs[0])))
            click.echo("ended by: " + ", ".join(f"{n} {what}" for what, n in
                                                sorted(terminations.items(), key=lambda kv: -kv[1])))
        if records is not None:
            click.echo(f"records: {records}")
    if interrupted:
        raise KeyboardInterrupt


def _records_folder(name: str) -> Path:
    """The folder for a match's records: new, or empty (one match's games are never
    mixed with another's, nor written among other files: the database folder, given
    by mistake, took a match's records beside its rules' folders)."""
    folder = Path(name)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{name} is not a folder (--records names a folder for the game records)")
    if folder.is_dir() and any(folder.iterdir()):
        what = "game records" if any(folder.glob("game-*.txt")) else "files"
        raise ValueError(f"{name} already holds {what}: name a new or empty folder for the game records")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot make the folder {name} for the game records: "
                         f"{(error.strerror or str(error)).lower()}") from None
    return folder


def _write_record(path: Path, text: str) -> None:
    """Write a record whole or not at all (a match stopped midway leaves no torn file)."""
    part = path.with_name(path.name + ".part")
    part.write_text(text, encoding="utf-8")
    part.replace(path)
