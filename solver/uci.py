"""``muehle uci``: the engine protocol of the Sanmill app (a UCI-like dialect), on
standard input and output, answered from the databases.

The subset spoken (the README shows a session)::

    uci                       id name, id author, the options, uciok
    isready                   readyok (opens the databases the options name)
    setoption name N value V  Rules, DatabasePath, Level, Shuffling, Seed, MoveTimeMs
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
whose plies the values do not give (the opening search's).  ``go topn N`` lists the
best N actions (``info topn rank R move M score ...``) before its bestmove; muehle
lists every action with its value when N is at least their number.

Anything else is ignored, as UCI asks; a line that cannot be read gets an
``info string error: ...`` and changes nothing (a bad ``position`` leaves no
position: a ``go`` then says so and answers ``bestmove none``).
"""

from __future__ import annotations

import random
import re
import threading
from typing import Optional, TextIO

from ._version import __version__
from .choice import probe_game_moves
from .errors import DatabaseError, MuehleError, NotationError, one_line
from .formats import read_setup
from .game import QUIET_PLIES, REPETITION, Game
from .notation import WHITE, format_position
from .players import LEVELS, make_player
from .position import Move, Position, in_mill, takeable
from .records import Turn, actions, split_token
from .probe import Database, RuleMoveProbe, best_of, open_database
from .rules import STANDARD, Rules
from .values import DRAW, WIN

#: The dialect's score of a won game whose plies are not known (its VALUE_MATE).
MATE_CP = 80


def setup_turn(text: str, rules: Rules, quiet_limit: int) -> Turn:
    """The :class:`Turn` of a position in any format muehle reads (``startpos``, a FEN,
    Malom's text, its own string).  A take pending (a FEN's action ``r``) becomes the
    position before a move that closed the mill, the move made, the take to come: the
    takes it leaves are those of the position given."""
    setup = read_setup(text, rules.stones, rules.board)
    quiet = min(setup.quiet_plies, quiet_limit)
    if not setup.take:
        pos = Position(*setup.position_fields(), board=rules.board)
        return Turn(Game(pos, rules, quiet_limit, 0 if pos.in_placement else quiet))
    own = setup.white if setup.turn == WHITE else setup.black
    opp = setup.black if setup.turn == WHITE else setup.white
    board = rules.board
    if not takeable(opp, rules) and not rules.take_none:
        raise NotationError("a take is pending, but the other side has no stone to take")
    in_hand = setup.placed or setup.white_hand or setup.black_hand
    for point in range(board.num_points):
        if not (own >> point & 1 and in_mill(own, point, board)):
            continue
        if in_hand:
            origins = [None]
        else:
            free = board.full_mask & ~(own | opp)
            jumping = rules.jumping and own.bit_count() == 3
            origins = [o for o in range(board.num_points) if free >> o & 1 and (jumping or board.adjacent[point] >> o & 1)]
        for origin in origins:
            before_own = own & ~(1 << point) | (0 if origin is None else 1 << origin)
            hands = [setup.white_hand, setup.black_hand]
            if origin is None:
                hands[0 if setup.turn == WHITE else 1] += 1
            white, black = (before_own, opp) if setup.turn == WHITE else (opp, before_own)
            try:
                before = Position(white, black, hands[0], hands[1], setup.turn, board=board)
                game = Game(before, rules, quiet_limit, 0)
            except ValueError:
                continue
            move_action = board.points[point] if origin is None else f"{board.points[origin]}-{board.points[point]}"
            turn = Turn(game)
            try:
                turn.act(move_action)
            except NotationError:
                continue
            if turn.partial:
                return turn
    raise NotationError("a take is pending, but no mill of the side to move could have just been closed")


def score_text(value: Optional[str], plies: Optional[int], mover: str) -> str:
    """The dialect's score (White's) of a value for ``mover``.

    >>> score_text("win", 5, "b"), score_text("draw", None, "w"), score_text("loss", None, "w")
    ('mate -5', 'cp 0', 'cp -80')
    """
    if value == DRAW or value is None:
        return "cp 0"
    white_wins = (value == WIN) == (mover == WHITE)
    if plies is None:
        return f"cp {MATE_CP if white_wins else -MATE_CP}"
    return f"mate {plies if white_wins else -plies}"


class Engine:
    """One engine session: reads commands with :meth:`handle`, writes to ``out``."""

    OPTIONS = ("Rules", "DatabasePath", "Level", "Shuffling", "Seed", "MoveTimeMs")

    def __init__(self, out: TextIO, db: str = "data", rules: Rules = STANDARD,
                 level: str = "perfect", quiet_limit: int = 50):
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
        self.player = None                            # the player of the go under way

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
        self.stopped.set()
        if self.worker is not None:
            self.worker.join()
        if self.database is not None:
            self.database.close()
            self.database = None

    def handle(self, line: str) -> bool:
        """Answer one command line; False after ``quit``."""
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
                self.stopped.set()
                player = self.player
                if player is not None:
                    player.stop()
                self.wait()
            elif command == "eval":
                self.wait()
                self.cmd_eval()
            elif command == "d":
                self.cmd_d()
            # anything else: ignored, as UCI asks
        except MuehleError as error:
            self.error(one_line(error))
        except ValueError as error:
            self.error(str(error).splitlines()[0] if str(error) else type(error).__name__)
        except Exception as error:      # (a session survives any line: said, not raised)
            self.error(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        return True

    def wait(self) -> None:
        """Let a running go end (a go infinite ends at stop) before the state changes."""
        if self.worker is not None:
            self.worker.join()
            self.worker = None

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
        self.say("uciok")

    def cmd_setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        match = re.match(r"^name\s+(.+?)(?:\s+value\s+(.*))?$", text)
        if not match:
            raise ValueError(f"setoption: expected 'name N value V', got {text[:60]!r}")
        name, value = match.group(1).strip(), (match.group(2) or "").strip()
        known = {n.lower(): n for n in self.OPTIONS}
        if name.lower() not in known:
            self.say(f"info string unknown option {name[:40]!r} ignored (options: {', '.join(self.OPTIONS)})")
            return
        name = known[name.lower()]
        if name == "Rules":
            rules = Rules.from_name(value)
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
        elif name in ("Seed", "MoveTimeMs"):
            if not re.fullmatch(r"[0-9]{1,10}", value) or (name == "MoveTimeMs" and not 1 <= int(value) <= 600000):
                raise ValueError(f"setoption {name}: a whole number"
                                 + (" from 1 to 600000" if name == "MoveTimeMs" else "") + f", not {value[:20]!r}")
            if name == "Seed":
                self.seed = int(value)
                self.rng = random.Random(self.seed)
            else:
                self.move_ms = int(value)

    def cmd_position(self, args: list[str]) -> None:
        self.turn, self.planned = None, None
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

    def open_database(self, report: bool = False) -> Optional[Database]:
        with self.db_lock:          # (isready may come while a go's worker opens them)
            if self.database is None and self.level in ("hard", "perfect", "ultra"):
                try:
                    self.database = open_database(self.db, self.rules, quiet_limit=self.quiet_limit)
                except DatabaseError as error:
                    if report:
                        self.say(f"info string no databases: {one_line(error)}")
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
        self.worker = threading.Thread(target=self.search, args=(options,), daemon=True)
        self.worker.start()

    def search(self, options: dict) -> None:
        """Choose the next action and say it (in the worker thread)."""
        best = "none"
        try:
            best = self.choose(options)
        except (MuehleError, ValueError) as error:
            self.error(one_line(error) if isinstance(error, MuehleError) else str(error))
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
        database = self.open_database(report=True)
        probes = None
        if database is not None:
            try:
                probes = probe_game_moves(database, game)
            except DatabaseError as error:
                self.say(f"info string the databases cannot answer: {one_line(error)}")
        rng = self.rng if self.shuffling else None
        n = len(turn.partial)
        mover = game.position.turn
        if probes is not None:
            probes = [mp for mp in probes if actions(mp.move)[:n] == turn.partial]
        if "topn" in options and probes is not None:
            self.report_topn(probes, n, mover, options["topn"])
        move = None
        if self.planned is not None and actions(self.planned)[:n] == turn.partial and n:
            move = self.planned               # (the take of the move the last go began)
        elif probes is not None and self.level in ("perfect", "ultra"):
            if self.level == "ultra" and not n:
                player = make_player("ultra", self.rules, self.rng, database)
                move = player.choose(game)
            else:
                choice = best_of(probes, rng)
                move = None if choice is None else choice.move
        else:
            seconds = options.get("movetime", self.move_ms) / 1000
            player = make_player(self.level, self.rules, self.rng, database,
                                 say=lambda text: self.say(f"info string {text}"), seconds=seconds)
            self.player = player
            if not n:
                move = player.choose(game)
            else:
                move = self.rng.choice(turn.candidates())
        self.planned = move
        if move is None:
            return "none"
        chosen = next((mp for mp in probes or [] if mp.move == move), None)
        line = actions(move)[n:]
        if chosen is not None:
            plies = self.plies(game, chosen)
            self.say(f"info depth {options.get('depth', 1)} score {score_text(chosen.value, plies, mover)} "
                     f"pv {' '.join(line)}")
        return line[0]

    def plies(self, game: Game, probe) -> Optional[int]:
        """The plies to the end of a move's value: a plain value's own; under the quiet-ply
        rule, those of the plain value where it is the same (a win the rule keeps), else
        None."""
        if not isinstance(probe, RuleMoveProbe):
            return probe.plies
        if probe.value == DRAW:
            return None
        plain = self.database.probe(game.position.play_unchecked(probe.move)).for_mover()
        return plain.plies if plain.value == probe.value else None

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
        database = self.open_database(report=True)
        if database is None:
            self.error("eval: no databases (setoption name DatabasePath, Level)")
            return
        probes = probe_game_moves(database, game)
        probes = [mp for mp in probes if actions(mp.move)[:len(self.turn.partial)] == self.turn.partial]
        best = probes[0]
        self.say(f"info eval score {score_text(best.value, self.plies(game, best), game.position.turn)}")

    def cmd_d(self) -> None:
        from .diagram import diagram
        if self.turn is None:
            self.say(f"# no position: {self.refused}")
            return
        pos = self.turn.game.position
        for line in diagram(pos).splitlines():
            self.say(f"# {line}")
        self.say(f"# {format_position(pos)}"
                 + (f" after {' '.join(self.turn.partial)}" if self.turn.partial else ""))


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
                raise ValueError(f"go: {word} takes a whole number")
            options[word] = int(args[i + 1])
            i += 1
        i += 1
    if options.get("movetime") == 0:
        options["movetime"] = 1
    return options


def serve(lines, out: TextIO, **kwargs) -> None:
    """Run one engine session over ``lines`` (an iterable of text lines), answering to
    ``out`` (``muehle uci``: standard input and output)."""
    Engine(out, **kwargs).run(lines)
