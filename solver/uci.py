"""``muehle uci``: the engine protocol of the Sanmill app (a UCI-like dialect), on
standard input and output, answered from the databases.

The subset spoken (docs/guide/other-programs.md shows a session)::

    uci                       id name, id author, the options, uciok
    isready                   readyok (opens the databases the options name)
    setoption name N value V  Rules, DatabasePath, Level, Shuffling, Seed, MoveTimeMs,
                              QuietLimit (also by Sanmill's name, NMoveRule)
    ucinewgame                forget the game
    position startpos|fen F [moves M ...]
    go [movetime MS] [depth N] [topn N] [infinite] ...
    stop                      end a go infinite (its bestmove is printed then)
    eval                      the value of the position, without a move
    d                         the board, each line starting with '#'
    quit                      (and the end of the input)

Moves are the dialect's atomic actions: ``d6`` (place), ``d6-d5`` (slide or jump),
``xb4`` (take, a token of its own after the move that closed the mill); muehle's
whole moves (``d6-d5xb4``) are read too.  ``bestmove`` is the next action: after a
move that closes a mill the GUI sends it back and asks again, and the engine names
the take.  ``bestmove draw`` where the game is drawn by repetition or the quiet-ply
rule, ``bestmove none`` where it is over otherwise.

Scores are White's, as the dialect's: ``score mate N`` where White wins in N plies
(a move with its take is one ply), ``score mate -N`` where Black does, ``score cp 0``
for a draw, ``score cp 80`` / ``-80`` (the dialect's value of a won game) for a win
whose plies the values do not give (the opening search's) and for a game over
already (``mate 0`` would not say who won).  ``go topn N`` lists the
best N actions (``info topn rank R move M score ...``) before its bestmove; muehle
lists every action with its value when N is at least their number.

Anything else is ignored, as UCI asks; a line that cannot be read gets an
``info string error: ...`` and changes nothing (a bad ``position`` leaves no
position: a ``go`` then says so and answers ``bestmove none``).
"""

from __future__ import annotations

import random
from dataclasses import replace
import re
import threading
from typing import BinaryIO, Optional, TextIO

from ._version import __version__
from .analysis import move_plies
from .choice import MoveValues, probe_game_moves
from .commands import build_command, explained
from .errors import DatabaseError, MuehleError, NotationError, SearchStoppedError, one_line
from .formats import read_setup
from .game import MAX_QUIET_LIMIT, MIN_QUIET_LIMIT, QUIET_PLIES, QUIET_PLY_LIMIT, REPETITION, Game
from .notation import WHITE, format_position
from .players import LEVELS, make_player
from .position import Move
from .records import Turn, actions, split_token, turn_of_setup
from .probe import Database, best_of, open_database
from .rules import STANDARD, Rules
from .values import DRAW, WIN

#: The dialect's score of a won game whose plies are not known (its VALUE_MATE).
MATE_CP = 80
#: The levels that play by the databases (the others open them for eval and topn only).
DATABASE_LEVELS = ("hard", "perfect", "ultra")


def setup_turn(text: str, rules: Rules, quiet_limit: int) -> Turn:
    """The :class:`~solver.records.Turn` of a position in any format muehle reads
    (``startpos``, a FEN, Malom's text, its own string; :func:`~solver.records.turn_of_setup`)."""
    return turn_of_setup(read_setup(text, rules.stones, rules.board), rules, quiet_limit)


def score_text(value: Optional[str], plies: Optional[int], mover: str) -> str:
    """The dialect's score (White's) of a value for ``mover``; a game won already (0
    plies) as a win of unknown plies, as ``mate 0`` would not say who won.

    >>> score_text("win", 5, "b"), score_text("draw", None, "w"), score_text("loss", None, "w")
    ('mate -5', 'cp 0', 'cp -80')
    >>> score_text("loss", 0, "w"), score_text("loss", 0, "b")
    ('cp -80', 'cp 80')
    """
    if value == DRAW or value is None:
        return "cp 0"
    white_wins = (value == WIN) == (mover == WHITE)
    if not plies:
        return f"cp {MATE_CP if white_wins else -MATE_CP}"
    return f"mate {plies if white_wins else -plies}"


class Engine:
    """One engine session: reads commands with :meth:`handle`, writes to ``out``."""

    OPTIONS = ("Rules", "DatabasePath", "Level", "Shuffling", "Seed", "MoveTimeMs", "QuietLimit")

    def __init__(self, out: TextIO, db: str = "data", rules: Rules = STANDARD,
                 level: str = "perfect", quiet_limit: int = QUIET_PLY_LIMIT):
        self.out = out
        self.lock = threading.Lock()
        self.db_lock = threading.Lock()
        self.db, self.rules, self.level = db, rules, level
        self.quiet_limit = quiet_limit
        self.shuffling, self.seed, self.move_ms = False, 0, 1000
        self.database: Optional[Database] = None
        self.turn: Optional[Turn] = Turn(Game(None, rules, quiet_limit))
        self.refused: Optional[str] = None          # why the last position was not set
        self.rng = random.Random(self.seed)
        self.worker: Optional[threading.Thread] = None
        self.stopped = threading.Event()
        self.planned: Optional[Move] = None           # the move the last go began
        self.planned_at = None                        # the position it was chosen in
        self.planned_depth = 1                        # the depth it was searched to
        self.player = None      # the player of the go under way (and of the next, where nothing it plays by changed)
        self.player_key: tuple = ()                   # what it plays by
        self.noted: set[str] = set()                  # the notes said (once each)

    # --- output -----------------------------------------------------------------------
    def say(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, text: str) -> None:
        self.say(f"info string error: {text}")

    # --- the loop ---------------------------------------------------------------------
    def run(self, lines) -> None:
        """Answer every line of ``lines`` until ``quit`` or their end."""
        for line in lines:
            if not self.handle(line):
                break
        self.finish()

    def finish(self) -> None:
        self.halt()
        if self.worker is not None:
            self.worker.join()
        if self.database is not None:
            self.database.close()
            self.database = None

    def handle(self, line: str) -> bool:
        """Answer one command line; False after ``quit``."""
        if isinstance(line, LineTooLong):
            self.error(f"a line longer than {line} bytes: ignored")
            return True
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        try:
            if command == "quit":
                return False
            if command == "uci":
                self.cmd_uci()
            elif command == "isready":
                self.open_database(report=True)
                self.say("readyok")
            elif command == "setoption":
                self.wait()
                self.cmd_setoption(args)
            elif command == "ucinewgame":
                self.wait()
                self.turn, self.refused, self.planned = Turn(Game(None, self.rules, self.quiet_limit)), None, None
                self.rng = random.Random(self.seed)
            elif command == "position":
                self.wait()
                self.cmd_position(args)
            elif command == "go":
                self.wait()
                self.cmd_go(args)
            elif command == "stop":
                self.wait()
            elif command == "eval":
                self.wait()
                self.cmd_eval()
            elif command == "d":
                self.cmd_d()
            # anything else: ignored, as UCI asks
        except MuehleError as error:
            self.error(one_line(explained(error)))
        except ValueError as error:
            self.error(str(error).splitlines()[0] if str(error) else type(error).__name__)
        except Exception as error:      # (a session survives any line: said, not raised)
            self.error(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        return True

    def wait(self) -> None:
        """End a running go before the state changes: a command other than isready that
        comes while it runs stops it first, as stop does (its bestmove comes before the
        command's answer), so that no go infinite waits for a stop that cannot come."""
        if self.worker is not None:
            self.halt()
            self.worker.join()
            self.worker = None
            if self.database is not None:
                self.database.resume_search()     # (the stop was the go's: eval searches again)

    def halt(self) -> None:
        """Stop the go under way at once: its player's search and the databases'
        opening search (which answers a placement position without placement files,
        a minute or more early in the 9-stone game)."""
        self.stopped.set()
        if self.player is not None:
            self.player.stop()
        if self.database is not None:
            self.database.stop_search()

    # --- commands ---------------------------------------------------------------------
    def cmd_uci(self) -> None:
        self.say(f"id name muehle {__version__}")
        self.say("id author the muehle developers")
        self.say(f"option name Rules type string default {self.rules.name}")
        self.say(f"option name DatabasePath type string default {self.db}")
        self.say(f"option name Level type combo default {self.level} "
                 + " ".join(f"var {name}" for name in LEVELS))
        self.say("option name Shuffling type check default false")
        self.say("option name Seed type spin default 0 min 0 max 2147483647")
        self.say("option name MoveTimeMs type spin default 1000 min 1 max 600000")
        self.say(f"option name QuietLimit type spin default {self.quiet_limit} min {MIN_QUIET_LIMIT} "
                 f"max {MAX_QUIET_LIMIT}")
        self.say("uciok")

    def cmd_setoption(self, args: list[str]) -> None:
        self.planned = None         # (what the take is chosen by, or under which rules, may change)
        text = " ".join(args)
        match = re.match(r"^name\s+(.+?)(?:\s+value(?:\s+(.*))?)?$", text)
        if not match:
            raise ValueError(f"setoption: expected 'name N value V', got {text[:60]!r}")
        name, value = match.group(1).strip(), (match.group(2) or "").strip()
        known = {n.lower(): n for n in self.OPTIONS} | {"nmoverule": "QuietLimit"}   # (Sanmill's name)
        if name.lower() not in known:
            self.say(f"info string unknown option {name[:40]!r} ignored (options: {', '.join(self.OPTIONS)})")
            return
        name = known[name.lower()]
        if name == "Rules":
            if not value:
                raise ValueError("setoption Rules: give a rule set's name (standard, standard-s4, ...)")
            rules = Rules.from_name(value.lower())     # (as Level's value, any case)
            if rules != self.rules:
                self.rules = rules
                self.close_database()
                self.turn, self.refused = Turn(Game(None, rules, self.quiet_limit)), None
        elif name == "DatabasePath":
            if not value:
                raise ValueError("setoption DatabasePath: give a folder")
            self.db = value
            self.close_database()
        elif name == "Level":
            if value.lower() not in LEVELS:
                raise ValueError(f"setoption Level: {value[:20]!r} is none of {', '.join(LEVELS)}")
            self.level = value.lower()
        elif name == "Shuffling":
            if value.lower() not in ("true", "false"):
                raise ValueError(f"setoption Shuffling: true or false, not {value[:20]!r}")
            self.shuffling = value.lower() == "true"
        elif name in ("Seed", "MoveTimeMs", "QuietLimit"):
            low, high = {"MoveTimeMs": (1, 600000), "Seed": (0, 2147483647),
                         "QuietLimit": (MIN_QUIET_LIMIT, MAX_QUIET_LIMIT)}[name]
            if not re.fullmatch(r"[0-9]{1,10}", value) or not low <= int(value) <= high:
                raise ValueError(f"setoption {name}: a whole number from {low} to {high}, not {value[:20]!r}")
            if name == "Seed":
                self.seed = int(value)
                self.rng = random.Random(self.seed)
            elif name == "QuietLimit":
                # (a game counts to the new limit from its start again, and the tables
                # of that limit answer: Sanmill's games play 100)
                if int(value) != self.quiet_limit:
                    self.quiet_limit = int(value)
                    self.close_database()
                    self.turn, self.refused = Turn(Game(None, self.rules, self.quiet_limit)), None
            else:
                self.move_ms = int(value)

    def cmd_position(self, args: list[str]) -> None:
        # (the plan is kept: a GUI sends the move that closed a mill back, and the take
        # of the move the engine chose is the next action; choose checks the position)
        self.turn = None
        self.refused = "the last position command was refused"
        if "moves" in args:
            at = args.index("moves")
            spec, tokens = args[:at], args[at + 1:]
        else:
            spec, tokens = args, []
        if spec[:1] == ["startpos"] and len(spec) == 1:
            text = "startpos"
        elif spec[:1] == ["fen"] and len(spec) > 1:
            text = " ".join(spec[1:])
        else:
            raise ValueError("position: expected 'startpos' or 'fen <FEN>', then optionally 'moves ...'")
        turn = setup_turn(text, self.rules, self.quiet_limit)
        for i, token in enumerate(tokens):
            try:
                for action in split_token(token):
                    turn.act(action)
            except NotationError as error:
                raise NotationError(f"position: move {i + 1} ({token[:20]}): {error}") from None
        self.turn, self.refused = turn, None

    def open_database(self, report: bool = False, any_level: bool = False) -> Optional[Database]:
        """The databases the options name, opened once (None where they cannot be: said
        once with ``report``); for the levels that play by them, or ``any_level`` (eval
        and go topn value moves at any level)."""
        with self.db_lock:          # (isready may come while a go's worker opens them)
            if self.database is None and (any_level or self.level in DATABASE_LEVELS):
                try:
                    self.database = open_database(self.db, self.rules, quiet_limit=self.quiet_limit)
                except DatabaseError as error:
                    if report:
                        self.note(f"no databases: {one_line(explained(error))}")
            return self.database

    def close_database(self) -> None:
        if self.database is not None:
            self.database.close()
            self.database = None

    def cmd_go(self, args: list[str]) -> None:
        try:
            options = _go_options(args)
        except ValueError as error:
            self.error(str(error))
            self.say("bestmove none")          # (a GUI waits for one after every go)
            return
        self.stopped.clear()
        if self.turn is None:
            self.error(f"no position: {self.refused}")
            self.say("bestmove none")
            return
        if self.player is not None:
            self.player.resume()        # (a stop of the last go is spent; this go's comes after)
        if self.database is not None:
            self.database.resume_search()
        self.worker = threading.Thread(target=self.search, args=(options,), daemon=True)
        self.worker.start()

    def search(self, options: dict) -> None:
        """Choose the next action and say it (in the worker thread)."""
        best = "none"
        try:
            best = self.choose(options)
        except (MuehleError, ValueError) as error:
            self.error(one_line(explained(error)) if isinstance(error, MuehleError) else str(error))
        except Exception as error:      # (a session must survive anything: say it, answer)
            self.error(f"{type(error).__name__}: {error}")
        if options.get("infinite"):
            self.stopped.wait()
        self.say(f"bestmove {best}")

    def choose(self, options: dict) -> str:
        turn = self.turn
        game = turn.game
        over = game.outcome()
        if over is not None:
            self.say(f"info string game over: {over}")
            return "draw" if over.termination in (REPETITION, QUIET_PLIES) else "none"
        database = self.open_database(report=True, any_level="topn" in options)
        if database is not None and self.stopped.is_set():
            database.stop_search()      # (a stop that came while this thread opened it)
        probes = None
        n = len(turn.partial)
        # (easy and medium choose without them: valued only for topn, as the opening
        # search that may answer takes minutes early in the 9-stone game)
        if database is not None and (self.level in DATABASE_LEVELS or "topn" in options):
            try:
                if database.needs_search(game.position):
                    self.note(one_line(explained(database.search_note())))
                probes = self.probe_moves(database, game)
            except SearchStoppedError:
                # (a stop or quit during the opening search: a quick search's move, now)
                self.say("info string the opening search was stopped: the move of a short search")
                return self.quick_move(turn, n)
            except DatabaseError as error:
                self.say(f"info string the databases cannot answer: {one_line(explained(error))}")
        rng = self.rng if self.shuffling else None
        mover = game.position.turn
        if probes is not None:
            probes = [mp for mp in probes if turn.continues(mp.move)]
        if "topn" in options and probes is not None:
            self.report_topn(probes, n, mover, options["topn"])
        move, depth = None, 1         # (depth: plies searched; a lookup in the tables is one)
        among = turn.candidates() if n else None    # (a move begun: the moves that go on)
        if (self.planned is not None and n and self.planned_at == (game.position, game.quiet_plies)
                and turn.continues(self.planned)):
            move = self.planned               # (the take of the move the last go began)
            depth = self.planned_depth
        elif probes is not None and self.level in ("perfect", "ultra"):
            if self.level == "ultra" and not n:
                player = self.player = make_player("ultra", self.rules, self.rng, database)
                self.player_key = ()
                if self.stopped.is_set():
                    player.stop()
                move = player.choose(game)
            else:
                choice = best_of(probes, rng)
                move = None if choice is None else choice.move
        else:
            seconds = options.get("movetime", self.move_ms) / 1000
            # (the game's player goes on while what it plays by is the same: its
            # transposition table and what it said are kept)
            key = (self.level, self.rules, self.rng, database, seconds)
            if self.player is None or self.player_key != key:
                self.player = make_player(self.level, self.rules, self.rng, database,
                                          say=lambda text: self.say(f"info string {text}"), seconds=seconds,
                                          explain=explained)
                self.player_key = key
            player = self.player
            if self.stopped.is_set():
                # (a stop or quit that came before this go's player was made found none
                # to stop: halt sets the event first, so one of the two sees the other)
                player.stop()
            move = player.choose(game, among)
            depth = max(1, getattr(player, "reached", 1))
        self.planned, self.planned_at, self.planned_depth = move, (game.position, game.quiet_plies), depth
        if move is None:
            return "none"
        chosen = next((mp for mp in probes or [] if mp.move == move), None)
        line = actions(move)[n:]
        if chosen is not None:
            plies = self.plies(game, chosen)
            self.say(f"info depth {depth} score {score_text(chosen.value, plies, mover)} "
                     f"pv {' '.join(line)}")
        return line[0]

    def quick_move(self, turn, n: int) -> str:
        """The next action of the move a shallow search (medium's) chooses; within a
        move begun (``n`` of its actions played: a mill's take to name), one of the
        moves that go on from there, as the searching levels choose it."""
        move = make_player("medium", self.rules, self.rng).choose(turn.game, turn.candidates() if n else None)
        self.planned, self.planned_at = move, (turn.game.position, turn.game.quiet_plies)
        return actions(move)[n]

    def probe_moves(self, database: Database, game: Game) -> list:
        """The game's moves with their values (:func:`~solver.choice.probe_game_moves`);
        where the tables of the rule are built but one these moves need is not, that
        is said (once a file): those moves have their plain values."""
        values = MoveValues(0)
        probes = probe_game_moves(database, game, values)
        if not game.position.in_placement and game.quiet_limit != QUIET_PLY_LIMIT \
                and not database.has_rule_tables():
            # (a game of another limit, Sanmill's 100, played by values of no limit)
            self.note(f"no tables of the {game.quiet_limit}-ply rule are built in {database.root}: "
                      f"the values without the rule (build them with: "
                      f"{build_command(database.root, self.rules, 'rule', quiet_limit=game.quiet_limit)})")
        if values.gap is not None:
            self.note(f"the tables of the quiet-ply rule are built, but not all these moves need "
                      f"({one_line(explained(values.gap))}): their plain values there")
        return probes

    def note(self, text: str) -> None:
        """Say ``text`` as an info string, once a session."""
        if text not in self.noted:
            self.noted.add(text)
            self.say(f"info string {text}")

    def plies(self, game: Game, probe) -> Optional[int]:
        """The plies to the end of a move's value (:func:`~solver.analysis.move_plies`);
        None where the plain file they are read from is missing or damaged (said once a
        file): the move chosen by the rule's values stands, its score without plies."""
        try:
            return move_plies(self.database, game.position, probe)
        except SearchStoppedError:
            return None                 # (stopped: the move stands, without its plies)
        except DatabaseError as error:
            self.note(f"scores without their plies where the databases cannot answer: {one_line(explained(error))}")
            return None

    def report_topn(self, probes: list, n: int, mover: str, count: int) -> None:
        """``info topn`` lines: the next actions, best first, each with the value of
        the best move that begins with it."""
        seen: dict[str, object] = {}
        for mp in probes:                      # (best first: the first is each action's best)
            seen.setdefault(actions(mp.move)[n], mp)
        for rank, (action, mp) in enumerate(list(seen.items())[:count], 1):
            plies = self.plies(self.turn.game, mp)
            self.say(f"info topn rank {rank} move {action} score {score_text(mp.value, plies, mover)}")

    def cmd_eval(self) -> None:
        if self.turn is None:
            self.error(f"no position: {self.refused}")
            return
        game = self.turn.game
        over = game.outcome()
        if over is not None:
            value = over.value_for(game.position.turn)
            self.say(f"info eval score {score_text(value, 0 if value != DRAW else None, game.position.turn)}")
            return
        database = self.open_database(report=True, any_level=True)
        if database is None:
            self.error("eval: no databases (setoption name DatabasePath)")
            return
        best = next(mp for mp in self.probe_moves(database, game) if self.turn.continues(mp.move))
        self.say(f"info eval score {score_text(best.value, self.plies(game, best), game.position.turn)}")

    def cmd_d(self) -> None:
        from .diagram import diagram
        if self.turn is None:
            self.say(f"# no position: {self.refused}")
            return
        pos = drawn = self.turn.game.position
        if self.turn.partial and self.turn.candidates():
            # (a mill closed, its take to come: the board shows the stone placed or moved)
            drawn = pos.play_unchecked(replace(self.turn.candidates()[0], take=None, take2=None))
        for line in diagram(drawn).splitlines():
            self.say(f"# {line}")
        self.say(f"# {format_position(pos)}"
                 + (f" after {' '.join(self.turn.partial)}, its take to come" if self.turn.partial else ""))


def _go_options(args: list[str]) -> dict:
    """The options of a go: numbers after movetime, depth, nodes, topn (others ignored)."""
    options: dict = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word == "infinite":
            options["infinite"] = True
        elif word in ("movetime", "depth", "nodes", "topn", "wtime", "btime", "winc", "binc", "movestogo"):
            if i + 1 >= len(args) or not re.fullmatch(r"[0-9]{1,9}", args[i + 1]):
                raise ValueError(f"go: {word} takes a whole number from 0 to 999999999")
            options[word] = int(args[i + 1])
            i += 1
        i += 1
    if options.get("movetime") == 0:
        options["movetime"] = 1
    return options


#: The longest command line read whole (a position with its moves fits many times over).
MAX_COMMAND = 1 << 20


class LineTooLong(str):
    """What :func:`read_lines` gives for a line longer than its limit (the limit, as
    text): a type of its own, so that no line a GUI sends can pass for one."""


def read_lines(stream: BinaryIO, limit: int = MAX_COMMAND):
    """The lines of a byte stream as text (bytes that are no UTF-8 replaced), each at most
    ``limit`` bytes: a longer one is read past in pieces, not held, and comes out as a
    :class:`LineTooLong`, so that the engine says it ignored it."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:                         # (the rest of it, a piece at a time)
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield LineTooLong(limit)
            continue
        yield line.decode("utf-8", "replace")


def serve(lines, out: TextIO, **kwargs) -> None:
    """Run one engine session over ``lines`` (an iterable of text lines), answering to
    ``out`` (``muehle uci``: standard input and output)."""
    Engine(out, **kwargs).run(lines)
