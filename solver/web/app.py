"""The browser interface: a Starlette application serving the page and the JSON API.

The API mirrors the command line's JSON: ``/api/query``, ``/api/moves``,
``/api/best-move`` and ``/api/analyze`` return the very objects that ``muehle query
--json`` and friends print (both call :mod:`solver.analysis`).  The page's own calls,
``/api/game`` (the state of a game after its moves) and ``/api/play`` (the
computer's reply), add the board as SVG (:mod:`solver.svg`) and the hints.

Every endpoint takes its parameters from the query string (GET) or from a JSON object
(POST).  Bad input gets a 4xx status and ``{"error": "<message>"}``, the message being
the one line the command line prints after ``muehle: error:``.  Nothing a request
sends names a file: rule sets are parsed by :meth:`Rules.from_name`, so the only
files read are the databases of ``<db>/<rules>/`` and the page's own static files.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import random
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Optional

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..analysis import (analyze_object, best_move_object, ceylon_analyze_object, convert_object, dice_analyze_object,
                        moves_object, query_object)
from ..records import read_any_record, record_format
from ..game import REPETITION_LIMIT, Game, check_quiet_limit, describe_phase, read_record
from ..errors import (CorruptDatabaseError, DatabaseError, ForeignDatabaseError,
                      MissingSubspaceError, MuehleError, SearchStoppedError, UnsupportedRulesError,
                      one_line)
from ..notation import format_position, parse_point
from ..players import LEVELS, make_player
from ..position import parse_move, parse_position, popcount
from ..dice import is_dice_record, read_dice_record
from ..ceylonese import CeylonRule, is_ceylon_record, read_ceylon_record
from ..ceylonese_tables import FileTables
from ..dice_tables import DiceTables
from ..probe import BOOK_NAME, Database, open_database
from ..folder import DatabaseFolder
from ..rules import RULESET_NAMES, STANDARD, Rules, kernel_gap
from ..commands import build_command, explained
from ..storage import rule_set_folders, rules_dir
from ..svg import VALUE_COLOURS, board_svg
from . import ceylonese as web_ceylonese
from . import dice as web_dice

STATIC = Path(__file__).parent / "static"

#: Largest request body accepted (a record of MAX_MOVES moves fits with room to spare).
MAX_BODY = 256 * 1024
#: Most moves in a game record or move list.
MAX_MOVES = 5000
#: Most arrows on a board drawn (more than any position has moves).
MAX_ARROWS = 1000
#: Seconds of thinking the page may ask of the hard level (and of perfect's fallback).
THINK_RANGE = (0.05, 10.0)
#: Seconds of opening search one request may start (``muehle serve --search-seconds``):
#: the start position of the 9-stone game takes about one, its moves' values together
#: about one and a half minutes (docs/results.md), and nobody waits for more.
SEARCH_SECONDS = 300.0
#: Seconds between looks at whether the client of a running request has left.
DISCONNECT_POLL = 0.5
#: Games kept to extend by a move instead of replaying them from the start.
GAME_CACHE = 64
#: The charsets (Python's codec names start so) a text/plain body is read in: UTF, ASCII,
#: ISO 8859, Windows' code pages, KOI8; others as UTF-8.
TEXT_CHARSETS = ("utf-", "ascii", "iso8859", "cp", "koi8", "mac-")
#: Rule sets whose databases stay open (each may hold its chunk cache and an opening
#: search's table, some 200 MiB): the least recently used beyond them is closed.
OPEN_DATABASES = 4


class ApiError(Exception):
    """Bad input: ``status`` and the one-line ``message`` the client gets."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(one_line(message))
        self.status = status


def status_of(error: BaseException) -> int:
    """The HTTP status for an exception that means the request cannot be answered."""
    if isinstance(error, ApiError):
        return error.status
    if isinstance(error, MissingSubspaceError):
        return 404                 # the database it needs is not built
    if isinstance(error, SearchStoppedError):
        return 503                 # the search took too long: no answer now
    if isinstance(error, (CorruptDatabaseError, ForeignDatabaseError)):
        return 500                 # the server's databases are at fault, not the request
    if isinstance(error, (DatabaseError, UnsupportedRulesError)):
        return 422                 # the databases (or the kernels) cannot answer for this position
    return 400


class Service:
    """What the endpoints share: the database folder, the default rules, one open
    :class:`~solver.probe.Database` per rule set, recent games.  One lock serialises
    the work on databases and players (a local page has one user).  A request's work
    runs :meth:`limited`: its opening searches stop after ``search_seconds`` in all
    (None: never), or when :meth:`stop` says its client left."""

    def __init__(self, root: Path | str, rules: Rules = STANDARD,
                 search_seconds: Optional[float] = SEARCH_SECONDS):
        self.root, self.rules, self.search_seconds = Path(root), rules, search_seconds
        self.lock = threading.Lock()
        self._databases: OrderedDict[Rules, Database] = OrderedDict()
        # (what stop() reads from another thread: a tuple made anew under the lock, as
        # iterating the OrderedDict while the worker reorders it can fail)
        self._open: tuple[Database, ...] = ()
        self._games: OrderedDict[tuple, Game] = OrderedDict()
        self._dice: OrderedDict[tuple, DiceTables] = OrderedDict()    # dice mill's tables
        self._ceylon: OrderedDict[tuple, FileTables] = OrderedDict()  # Ceylonese mill's
        self._limits: Optional[contextlib.ExitStack] = None    # of the running request
        self._until: Optional[float] = None
        self._gone = threading.Event()

    @contextlib.contextmanager
    def limited(self, gone: threading.Event):
        """One request's work (under :attr:`lock`): the opening searches of every
        database, also one opened meanwhile, share its time limit, and end once
        :meth:`stop` sets ``gone`` (the request's own: its client left), also before the
        block begins: it is looked at once the limits are in place."""
        with contextlib.ExitStack() as stack:
            self._gone = gone
            self._until = (None if self.search_seconds is None
                           else time.monotonic() + self.search_seconds)
            self._limits = stack
            try:
                for db in self._databases.values():
                    self._limit(db)
                yield
            finally:
                self._limits = None

    def _limit(self, db: Database) -> None:
        left = None if self._until is None else max(0.0, self._until - time.monotonic())
        self._limits.enter_context(db.search_limit(left))
        if self._gone.is_set():             # (after: search_limit lets searches run again)
            db.stop_search()

    def stop(self, gone: threading.Event) -> None:
        """The client of the request whose event ``gone`` is has left: set it (a request
        not yet at work stops as it begins) and end the running opening search (from
        any thread: takes no lock)."""
        gone.set()
        for db in self._open:
            db.stop_search()

    def close(self) -> None:
        with self.lock:
            for db in [*self._databases.values(), *self._dice.values()]:
                db.close()
            self._databases.clear()
            self._dice.clear()
            self._ceylon.clear()
            self._open = ()

    # --- inputs -------------------------------------------------------------------
    def rules_of(self, params: dict) -> Rules:
        name = params.get("rules")
        if name in (None, ""):
            return self.rules
        if not isinstance(name, str):
            raise ApiError("rules must be a rule set name such as standard or standard-s4")
        return Rules.from_name(name)

    def database(self, rules: Rules) -> Database:
        """The open database of ``rules`` (the same error as the CLI where it cannot be).
        At most :data:`OPEN_DATABASES` stay open, the least recently used closed: each
        rule set a client names holds memory (its chunk cache, an opening search's table)."""
        db = self._databases.get(rules)
        if db is not None:
            self._databases.move_to_end(rules)
            return db
        try:
            # Small games fit in memory whole; larger ones read chunks as needed.
            db = open_database(self.root, rules, in_memory=rules.stones <= 5)
        except DatabaseError as error:       # no database folder at all
            raise ApiError(explained(error), 404) from None
        while len(self._databases) >= OPEN_DATABASES:
            # the least recently used, but never the server's own rules (its warm cache)
            oldest = next(r for r in self._databases if r != self.rules)
            self._databases.pop(oldest).close()
        self._databases[rules] = db
        self._open = tuple(self._databases.values())
        if self._limits is not None:
            self._limit(db)
        return db

    def dice_tables(self, rules: Rules, dice) -> DiceTables:
        """The open tables of dice mill of ``rules`` under throw rule ``dice``
        (:mod:`solver.web.dice`), the least recently used closed as databases are."""
        key = (rules, dice)
        tables = self._dice.get(key)
        if tables is None:
            tables = self._dice[key] = DiceTables(self.root, rules, dice)
            while len(self._dice) > OPEN_DATABASES:
                self._dice.popitem(last=False)[1].close()
        self._dice.move_to_end(key)
        return tables

    def ceylon_tables(self, rules: Rules, rule: CeylonRule) -> FileTables:
        """The tables of Ceylonese mill of ``rules`` under reading ``rule``
        (:mod:`solver.web.ceylonese`): each holds the few subspaces last read, the least
        recently used tables dropped as databases are closed."""
        key = (rules, rule)
        tables = self._ceylon.get(key)
        if tables is None:
            tables = self._ceylon[key] = FileTables(self.root, rules, rule)
            while len(self._ceylon) > OPEN_DATABASES:
                self._ceylon.popitem(last=False)
        self._ceylon.move_to_end(key)
        return tables

    def optional_database(self, rules: Rules) -> Optional[Database]:
        return self.database(rules) if rules_dir(self.root, rules).is_dir() else None

    def game(self, rules: Rules, start: Optional[str], moves: list[str]) -> Game:
        """The game after ``moves`` from ``start``, extending a recent game where one
        is a prefix (a click adds one move to a game the page had)."""
        start_game = Game(start or "startpos", rules)     # (with the count a FEN carries)
        key = (rules, start_game.start, start_game.quiet_plies)
        best: Optional[tuple] = None
        for cached in self._games:
            n = len(cached) - len(key)
            if cached[:len(key)] == key and n <= len(moves) and (best is None or n > len(best) - len(key)) \
                    and list(cached[len(key):]) == moves[:n]:
                best = cached
        game = self._games[best].copy() if best is not None else start_game
        for number, text in enumerate(moves[len(game.moves):], len(game.moves) + 1):
            try:
                game.play(text)
            except ValueError as error:
                raise ApiError(f"move {number}: {error}") from None
        full = key + tuple(moves)
        self._games[full] = game.copy()
        self._games.move_to_end(full)
        while len(self._games) > GAME_CACHE:
            self._games.popitem(last=False)
        return game

    # --- the rule sets -------------------------------------------------------------
    def rule_sets(self) -> list[dict]:
        """The server's rule set, the named ones and every rule set with a folder of
        databases: what is built, what is missing and how to build it (only rule sets the
        compiled kernels handle: the others have nothing to build yet)."""
        candidates = [self.rules] + [Rules.from_name(n) for n in RULESET_NAMES]
        candidates += [rules for _, rules in rule_set_folders(self.root)]
        seen, out = set(), []
        for rules in candidates:
            if rules in seen or kernel_gap(rules) is not None:      # nothing to build yet
                continue
            seen.add(rules)
            folder = DatabaseFolder(self.root, rules)
            pairs = folder.planned(phase="moving")
            missing = folder.unbuilt(phase="moving")
            built = len(pairs) - len(missing)
            if not missing:
                status = f"complete: all {len(pairs)} pairs built"
            elif built:
                status = (f"{built} of {len(pairs)} pairs built; missing "
                          + ", ".join(f"{a}-{b}" for a, b in missing))
            else:
                status = f"not built (no databases in {folder.path})"
            out.append(dict(rules.as_attrs(), pairs=len(pairs), built=built,
                            missing=[f"{a}-{b}" for a, b in missing], complete=not missing,
                            opening_book=(folder.path / BOOK_NAME).exists(),
                            default=rules == self.rules, status=status,
                            build_command=None if not missing else build_command(self.root, rules)))
        return out

    # --- the page's game state -------------------------------------------------------
    def state(self, game: Game, hints: bool) -> dict:
        pos = game.position
        result = game.outcome()
        obj = moves_object(game)
        obj.update({
            "rules": game.rules.name, "stones": game.rules.stones, "start": format_position(game.start),
            "played": [str(m) for m in game.moves], "record": game.record(),
            "result": None if result is None else str(result),
            "winner": None if result is None else result.winner,
            "phase": describe_phase(game),
            "hands": {"w": pos.white_hand, "b": pos.black_hand},
            "on_board": {"w": popcount(pos.white), "b": popcount(pos.black)},
            "quiet_plies": game.quiet_plies, "quiet_limit": game.quiet_limit,
            "repetitions": game.repetitions, "repetition_limit": REPETITION_LIMIT,
            "svg": board_svg(pos, size=None, last_move=game.moves[-1] if game.moves else None,
                             hands=True),
            "hints": None,
        })
        if hints and result is None:
            try:
                obj["hints"] = query_object(self.database(game.rules), pos, game=game)
            except (ApiError, MuehleError, ValueError) as error:
                # No hints (no database, say), but the game goes on.
                obj["hints"] = {"error": one_line(explained(error))}
        return obj


#: The parameters of a game's state (``/api/game``; ``/api/play`` adds its own).
GAME_PARAMS = ("rules", "start", "moves", "hints", "dice", "seed", "ceylonese")


def json_response(obj: Any, status: int = 200) -> Response:
    """``obj`` as JSON written as the command line writes it (``json.dumps``), so an
    answer is the same text as ``muehle ... --json`` prints."""
    return Response(json.dumps(obj), status_code=status, media_type="application/json")


# --- request parsing ----------------------------------------------------------------

async def read_params(request: Request) -> dict:
    """The parameters: the query string, updated by a JSON object in a POST body.

    The body is read up to :data:`MAX_BODY` bytes; more is refused (413) without
    reading the rest.
    """
    params: dict[str, Any] = dict(request.query_params)
    if request.method != "POST":
        return params
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise ApiError(f"request body too large (more than {MAX_BODY} bytes)", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(f"request body too large (more than {MAX_BODY} bytes)", 413)
    if not body.strip():
        return params
    kind, _, options = request.headers.get("content-type", "").partition(";")
    if kind.strip().lower() == "text/plain":      # (media types ignore case)
        # A game record sent as it is (curl --data-binary @game.txt), in the declared
        # charset where it is one text is written in, else UTF-8 (Python's codecs also
        # know punycode, idna, rot13 ..., which read a record as other text, or fail).
        charset = next((v.strip().strip('"') for k, _, v in (o.partition("=") for o in options.split(";"))
                        if k.strip().lower() == "charset"), "utf-8")
        try:
            codec = codecs.lookup(charset).name
        except LookupError:
            codec = "utf-8"
        if not codec.startswith(TEXT_CHARSETS):
            codec = "utf-8"
        params["record"] = body.decode(codec, "replace")
        return params
    try:
        data = json.loads(body)
    except ValueError as error:
        if "integer string conversion" in str(error):
            # (valid JSON, but a number longer than Python reads: a seed of 5,000 digits)
            raise ApiError("request body: a number of more than 4300 digits") from None
        raise ApiError("request body is not valid JSON") from None
    except (UnicodeDecodeError, RecursionError):
        # RecursionError: json's decoder recurses once per level of nesting, so a body
        # of 100,000 nested brackets (well under MAX_BODY) runs out of stack.
        raise ApiError("request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError("request body must be a JSON object")
    params.update(data)
    return params


def text_param(params: dict, name: str, default: Optional[str] = None) -> Optional[str]:
    value = params.get(name, default)
    if value is None or isinstance(value, str):
        return value
    raise ApiError(f"{name} must be a string")


def moves_param(params: dict, name: str, what: str = "moves") -> list[str]:
    """A list of moves (or other words), given as a JSON list or one space-separated
    string."""
    value = params.get(name)
    if value in (None, ""):
        return []
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise ApiError(f"{name} must be a list of {what} or a space-separated string")
    if len(value) > MAX_MOVES:
        raise ApiError(f"too many moves: {len(value)} (at most {MAX_MOVES})", 413)
    return value


def bool_param(params: dict, name: str, default: bool = False) -> bool:
    value = params.get(name, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
        return value.lower() in ("1", "true", "yes", "on")
    raise ApiError(f"{name} must be true or false")


def number_param(params: dict, name: str, default: float, low: float, high: float) -> float:
    value = params.get(name, default)
    if isinstance(value, bool):         # (float(True) is 1.0: a mistake, not one second)
        raise ApiError(f"{name} must be a number")
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):     # OverflowError: a JSON integer of 400 digits
        raise ApiError(f"{name} must be a number") from None
    if not low <= value <= high:
        raise ApiError(f"{name} must be between {low:g} and {high:g}")
    return value


def last_move_of(text: str, pos, rules: Rules):
    """The move ``text`` as the one that led to ``pos`` (``/api/board.svg``'s ``last``):
    ApiError where it cannot be, since the board would show a move the game never
    made: its target must hold a stone, its origin and the points it took be empty."""
    move = parse_move(text, rules.board)
    stones = pos.white | pos.black
    name = rules.board.points
    if not stones >> move.target & 1:
        raise ApiError(f"last: {move} cannot have led to this position: {name[move.target]} is empty")
    for point in (move.origin, *move.takes):
        if point is not None and stones >> point & 1:
            raise ApiError(f"last: {move} cannot have led to this position: {name[point]} holds a stone")
    return move


def play_rng(seed: Optional[int], ply: int) -> random.Random:
    """The random choices of /api/play's move at ``ply`` of a game seeded with ``seed``
    (unseeded: None): one stream per seed and ply, the same on every request, so that a
    seeded game in the browser replays.  The two are kept apart (``"3:12"``), as run
    together 3 at ply 12 and 31 at ply 2 shared the stream of "312".

    >>> play_rng(3, 12).random() == play_rng(3, 12).random() != play_rng(31, 2).random()
    True
    """
    return random.Random(None if seed is None else f"{seed}:{ply}")


def seed_param(params: dict, name: str = "seed") -> Optional[int]:
    """An integer seed (a JSON integer, or its digits in a query string, a minus sign allowed), or None.

    Anything else (``"x"``, ``1e400``, ``true``) is refused, not turned into some seed:
    it is a mistake, and only an integer seeds as ``muehle best-move --seed`` does.
    """
    value = params.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isascii() and value.removeprefix("-").isdigit():
        with contextlib.suppress(ValueError):         # more digits than int() converts
            value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ApiError(f"{name} must be an integer")


# --- endpoints ------------------------------------------------------------------------

class OwnPagesOnly:
    """ASGI middleware: the API answers the page it serves and programs (curl, scripts),
    not other pages open in the same browser (other sites, other ports of this machine).
    A browser says where a request comes from (``Sec-Fetch-Site``, ``Origin``); without
    this, any web page could make the server search for minutes (an image pointing at
    ``/api/query``) or read its answers after a DNS rebinding.  ``hosts``: the names the
    server answers to (the ``Host`` header; None: any), e.g. only loopback names where
    it listens on loopback.
    """

    def __init__(self, app, hosts: Optional[set[str]] = None):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            host = headers.get("host", "")
            name, colon, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
            if not colon:
                name = host
            told = [k.decode("latin-1") for k, _ in scope["headers"]]
            why = None
            if any(told.count(k) > 1 for k in ("host", "origin", "sec-fetch-site")):
                # (one of them twice: which one a check reads decides what it lets in)
                why = "a request names its host, origin or fetch site once"
            elif colon and port and not port.isdigit():      # ("localhost:" is a host, RFC 3986)
                why = f"{host[:60]!r} is no host and port"
            elif self.hosts is not None and host and name.lower() not in self.hosts:
                # (no Host at all: HTTP/1.0, a program; every browser sends one)
                why = f"this server answers to {', '.join(sorted(self.hosts))}, not {host[:60]!r}"
            elif scope["path"].startswith("/api/"):
                origin = headers.get("origin")
                # (same-site: a page of another port of this machine, not the server's own)
                if headers.get("sec-fetch-site") in ("cross-site", "same-site") or (
                        origin is not None and origin.split("://", 1)[-1].lower() != host.lower()):
                    why = "requests from pages other than this server's own are refused"
            if why is not None:
                await json_response({"error": why}, 403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: What a server listening on loopback answers to.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})


def create_app(root: Path | str = "data", rules: Rules = STANDARD,
               hosts: Optional[set[str]] = None,
               search_seconds: Optional[float] = SEARCH_SECONDS) -> Starlette:
    """The application: the page at ``/``, its files under ``/static/``, the API under ``/api/``.

    ``root``: the database folder (one sub-folder per rule set); ``rules``: the rule
    set of requests that name none; ``hosts``: the names it answers to
    (:class:`OwnPagesOnly`; None: any); ``search_seconds``: the opening search a
    request may start (None: no limit; 503 after it, as when its client leaves).
    """
    service = Service(root, rules, search_seconds)

    async def stop_when_gone(request: Request, gone: threading.Event) -> None:
        # A search of minutes for a page that was closed or reloaded would hold the
        # lock, and every other request, until it ends.
        while not await request.is_disconnected():
            await anyio.sleep(DISCONNECT_POLL)
        service.stop(gone)

    # Shared work waits its turn here, in the event loop, not in a worker thread: waiting
    # threads would take the pool that the page's files are read with too. A request
    # whose client left while it waited is dropped when its turn comes, so that reloads
    # of a page waiting for a long search do not queue one search each.
    one_at_a_time = anyio.Lock()

    def endpoint(work: Callable[[dict], Any], takes: tuple[str, ...], shared: bool = True,
                 blocking: bool = True) -> Callable:
        """Read the parameters, run ``work``, and answer with JSON (a ``Response`` is
        passed through).  ``takes``: the parameters it reads; any other is refused (400), since a misspelt one (``positon``, ``seeed``) would be
        passed over and the answer be of some other request.

        ``shared`` work (anything that reads the databases, the games or a player) runs
        in a worker thread, one at a time (and under the service's lock), never in the
        event loop: a probe takes microseconds, but a position of the placement phase
        without its files starts the opening search, minutes on the 9-stone game, and the
        loop must keep serving the page, its files and the work that shares nothing
        (``shared=False``: moves, a board drawn, right in the loop; the rule sets, which
        look at the folder, ``blocking``, in a thread of their own).
        """
        async def handler(request: Request) -> Response:
            try:
                params = await read_params(request)
                unknown = sorted(set(params) - set(takes))
                if unknown:
                    raise ApiError(f"unknown parameter {unknown[0][:40]!r} ({request.url.path} takes "
                                   f"{', '.join(takes) or 'none'})")
                if shared:
                    gone = threading.Event()

                    def locked():
                        # (returns what it raises: a task group would wrap it in a group)
                        with service.lock, service.limited(gone):
                            try:
                                return work(params), None
                            except Exception as error:    # noqa: BLE001 - raised below
                                return None, error
                    async with one_at_a_time:
                        if await request.is_disconnected():
                            return json_response({"error": "the client disconnected"}, 400)
                        async with anyio.create_task_group() as watching:
                            watching.start_soon(stop_when_gone, request, gone)
                            result, error = await anyio.to_thread.run_sync(locked)
                            watching.cancel_scope.cancel()
                        if error is not None:
                            raise error
                elif blocking:
                    result = await run_in_threadpool(work, params)
                else:
                    result = work(params)
            except ClientDisconnect:
                # the client left in the middle of its body: nobody reads an answer, and
                # it is no fault of the server's to log a traceback for
                return json_response({"error": "the client disconnected"}, 400)
            except (ApiError, MuehleError, ValueError, OSError) as error:
                message = explained(error) or type(error).__name__
                if isinstance(error, SearchStoppedError) and error.timed_out:
                    message += (f" (this server's limit: {service.search_seconds or 0:g} s, muehle "
                                f"serve --search-seconds; the placement phase's files answer at once)")
                return json_response({"error": one_line(message)}, status_of(error))
            return result if isinstance(result, Response) else json_response(result)
        return handler

    def position_text(params: dict, required: bool = True) -> str:
        text = text_param(params, "position")
        if text is None or not text.strip():
            if required:
                raise ApiError("give a position (e.g. position=startpos)")
            text = "startpos"
        return text

    def position_of(params: dict, rules: Rules, required: bool = True):
        return parse_position(position_text(params, required), rules)

    def game_after(params: dict, rules: Rules, required: bool = True) -> Game:
        """The game from ``position`` after the moves ``after`` (as the command line's
        --after): its history's draws count, and the count of quiet plies its text
        carries (a FEN's), as the command line takes it."""
        return Game.after(position_text(params, required), moves_param(params, "after"), rules)

    def api_query(params: dict) -> dict:
        rules = service.rules_of(params)
        game = game_after(params, rules)
        line = bool_param(params, "line")
        return query_object(service.database(rules), game.position, line, game)

    def api_convert(params: dict) -> dict:
        text = text_param(params, "position")
        if text is None or not text.strip():
            raise ApiError("give a position (position=...) in any format muehle reads")
        return convert_object(text, service.rules_of(params))

    def api_moves(params: dict) -> dict:
        rules = service.rules_of(params)
        game = game_after(params, rules, required=False)
        return moves_object(game)

    def api_best_move(params: dict) -> dict:
        rules = service.rules_of(params)
        game = game_after(params, rules)
        seed = seed_param(params)
        # Seeded as muehle best-move --seed seeds, so both choose the same move.
        rng = None if seed is None else random.Random(seed)
        return best_move_object(service.database(rules), game.position, rng, game,
                                traps=bool_param(params, "traps"))

    def api_analyze(params: dict) -> dict:
        record = text_param(params, "record")
        if record is None or not record.strip():
            raise ApiError("give a game record (record=...)")
        # the rules: the parameter's, else the record's own (a rules: header), else
        # the server's (a record without a header is a game of the server's rules)
        given = service.rules_of(params) if params.get("rules") not in (None, "") else None
        if is_dice_record(record):
            return analyze_dice(record, given)
        if is_ceylon_record(record):
            return analyze_ceylonese(record, given)
        if record_format(record) == "muehle" and len(read_record(record).moves) > MAX_MOVES:
            raise ApiError(f"game record too long: more than {MAX_MOVES} moves", 413)
        limit = seed_param(params, "quiet_limit")      # (an integer or None, checked below)
        try:
            limit = None if limit is None else check_quiet_limit(limit)
        except ValueError as error:
            raise ApiError(f"quiet_limit: {error}") from None
        game, notes = read_any_record(record, given, default=service.rules, quiet_limit=limit)
        if len(game.moves) > MAX_MOVES:       # (a PGN's or PlayOK's, counted once read)
            raise ApiError(f"game record too long: more than {MAX_MOVES} moves", 413)
        obj, problems = analyze_object(service.database(game.rules), game, explained)
        obj["warnings"] = problems + notes
        return obj

    def analyze_dice(record: str, given: Optional[Rules]) -> dict:
        """``/api/analyze`` of a record of dice mill (rules as a plain record's):
        ``solver.analysis.dice_analyze_object``, its ``moves`` (those after the placement
        phase, which the page's table and board replay) counted from where they start
        (``start``; ``placements_start`` the game's)."""
        if len(read_record(record).moves) > 2 * MAX_MOVES:          # (a throw before each placement)
            raise ApiError(f"game record too long: more than {MAX_MOVES} moves", 413)
        game, rest = read_dice_record(record, given, default=service.rules)
        obj, problems = dice_analyze_object(service.dice_tables(game.rules, game.dice),
                                            service.database(game.rules), game, rest, explained)
        for row in obj["moves"]:
            row["ply"] -= len(game.moves)
        obj.update(placements_start=obj["start"], start=format_position(rest.start), warnings=problems)
        return obj

    def analyze_ceylonese(record: str, given: Optional[Rules]) -> dict:
        """``/api/analyze`` of a record of Ceylonese mill: ``analyze --json``'s object
        (values in turns), with ``warnings``; refused where the tables are not built
        (:func:`~solver.analysis.ceylon_analyze_object`)."""
        if len(read_record(record).moves) > MAX_MOVES:
            raise ApiError(f"game record too long: more than {MAX_MOVES} moves", 413)
        game = read_ceylon_record(record, given)
        obj, problems = ceylon_analyze_object(service.ceylon_tables(game.rules, game.rule), game, explained)
        obj["warnings"] = problems
        return obj

    def api_rules(params: dict) -> dict:
        return {"db": str(service.root), "default": service.rules.name, "levels": list(LEVELS),
                "value_colours": VALUE_COLOURS, "rule_sets": service.rule_sets()}

    def game_of(params: dict) -> Game:
        rules = service.rules_of(params)
        return service.game(rules, text_param(params, "start"), moves_param(params, "moves"))

    def dice_of(params: dict):
        """The request's dice game (solver.web.dice), or None for a game without dice."""
        try:
            dice = web_dice.dice_rule(text_param(params, "dice"))
        except ValueError as error:
            raise ApiError(str(error)) from None
        if dice is None:
            return None
        try:
            return web_dice.replay(service, service.rules_of(params), dice, text_param(params, "start"),
                                   moves_param(params, "moves"), seed_param(params))
        except ValueError as error:
            raise ApiError(str(error)) from None

    def ceylon_of(params: dict):
        """The request's game of Ceylonese mill (solver.web.ceylonese), or None for
        another game."""
        try:
            rule = web_ceylonese.ceylon_rule(text_param(params, "ceylonese"))
        except ValueError as error:
            raise ApiError(str(error)) from None
        if rule is None:
            return None
        if web_dice.dice_rule(text_param(params, "dice")) is not None:
            raise ApiError("give dice or ceylonese, not both")
        try:
            return web_ceylonese.replay(service.rules_of(params), rule, text_param(params, "start"),
                                        moves_param(params, "moves"))
        except ValueError as error:
            raise ApiError(one_line(str(error))) from None

    def api_game(params: dict) -> dict:
        ceylon = ceylon_of(params)
        if ceylon is not None:
            return web_ceylonese.state(service, ceylon, bool_param(params, "hints", True))
        dice = dice_of(params)
        if dice is not None:
            return web_dice.state(service, *dice, bool_param(params, "hints", True))
        if params.get("seed") not in (None, ""):
            # (the seed of a game's state is its dice's: without them it would be passed over)
            raise ApiError("seed: the seed of dice mill's throws; give dice too")
        return service.state(game_of(params), bool_param(params, "hints", True))

    def api_play(params: dict) -> dict:
        ceylon = ceylon_of(params)
        if ceylon is not None:
            return api_play_ceylonese(params, ceylon)
        dice = dice_of(params)
        if dice is not None and dice[1] is None:      # placing, with dice
            dgame = dice[0]
            if not dgame.in_placement:
                raise ApiError("the game is over")
            level = level_of(params)
            hints = bool_param(params, "hints", True)
            number_param(params, "think", 1.0, *THINK_RANGE)      # (unused: checked as the plain game's)
            move = web_dice.computer_move(service, dgame, level, play_rng(seed_param(params), len(dgame.moves)))
            dgame.play(move)
            dice = web_dice.replay(service, dgame.rules, dgame.dice, format_position(dgame.positions[0]),
                                   [str(m) for m in dgame.moves], dgame.seed)
            state = web_dice.state(service, *dice, hints)
            state.update(computer_move=str(move), notes=[])
            return state
        if dice is not None:                         # every stone placed: the game without dice
            return web_dice.on_plain(dice[0], dice[1], api_play_game(params, dice[1]))
        return api_play_game(params, game_of(params))

    def level_of(params: dict) -> str:
        level = text_param(params, "level", "perfect")
        if level not in LEVELS:
            raise ApiError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
        return level

    def api_play_ceylonese(params: dict, game) -> dict:
        """The computer's move in a game of Ceylonese mill: the tables' best, at random
        at level easy (seeded as the plain game's)."""
        if game.outcome() is not None:
            raise ApiError(f"the game is over: {game.result()}")
        level = level_of(params)
        hints = bool_param(params, "hints", True)
        number_param(params, "think", 1.0, *THINK_RANGE)      # (unused: checked as the plain game's)
        move = web_ceylonese.computer_move(service, game, level, play_rng(seed_param(params), len(game.moves)))
        game.play(move)
        state = web_ceylonese.state(service, game, hints)
        state.update(computer_move=str(move), notes=[])
        return state

    def api_play_game(params: dict, game: Game) -> dict:
        if game.outcome() is not None:
            raise ApiError(f"the game is over: {game.outcome()}")
        level = level_of(params)
        seed = seed_param(params)
        hints = bool_param(params, "hints", True)       # every parameter before the thinking
        rng = play_rng(seed, len(game.moves))
        notes: list[str] = []
        player = make_player(level, game.rules, rng, service.optional_database(game.rules),
                             say=notes.append, seconds=number_param(params, "think", 1.0, *THINK_RANGE),
                             explain=explained)
        move = player.choose(game)
        game.play(move)
        state = service.state(game, hints)
        state["computer_move"] = str(move)
        state["notes"] = notes
        return state

    def api_board(params: dict) -> Response:
        rules = service.rules_of(params)
        pos = position_of(params, rules, required=False)
        last = text_param(params, "last")
        marks = {}
        for item in moves_param(params, "marks", "marks such as a1:win"):
            point, _, colour = item.partition(":")
            colour = VALUE_COLOURS.get(colour, colour)
            if not (len(colour) == 7 and colour[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in colour[1:])):
                raise ApiError(f"mark {item!r}: expected POINT:win|draw|loss|#rrggbb")
            marks[parse_point(point, rules.board)] = colour
        arrows = moves_param(params, "arrows")
        if len(arrows) > MAX_ARROWS:           # (each drawn costs the loop, and 150 bytes)
            raise ApiError(f"too many arrows: {len(arrows)} (at most {MAX_ARROWS})", 413)
        size = params.get("size")
        svg = board_svg(pos, last_move=last_move_of(last, pos, rules) if last else None, marks=marks,
                        arrows=[parse_move(a, rules.board) for a in arrows],
                        coordinates=bool_param(params, "coordinates", True),
                        size=None if size in (None, "") else int(number_param(params, "size", 400, 50, 4000)))
        return Response(svg, media_type="image/svg+xml")

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    routes = [
        Route("/", index),
        Route("/api/query", endpoint(api_query, ("rules", "position", "after", "line")), methods=["GET", "POST"]),
        Route("/api/moves", endpoint(api_moves, ("rules", "position", "after"), shared=False, blocking=False),
              methods=["GET", "POST"]),
        Route("/api/convert", endpoint(api_convert, ("rules", "position"), shared=False, blocking=False),
              methods=["GET", "POST"]),
        Route("/api/best-move", endpoint(api_best_move, ("rules", "position", "after", "seed", "traps")),
              methods=["GET", "POST"]),
        Route("/api/analyze", endpoint(api_analyze, ("rules", "record", "quiet_limit")), methods=["POST"]),
        Route("/api/rules", endpoint(api_rules, (), shared=False), methods=["GET"]),
        Route("/api/game", endpoint(api_game, GAME_PARAMS), methods=["GET", "POST"]),
        Route("/api/play", endpoint(api_play, GAME_PARAMS + ("level", "think")), methods=["POST"]),
        Route("/api/board.svg", endpoint(api_board, ("rules", "position", "last", "marks", "arrows", "coordinates",
                                                     "size"), shared=False, blocking=False), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    async def api_not_found(request: Request, error: HTTPException) -> Response:
        # The API answers JSON even for a wrong path or method; the page's files keep
        # Starlette's plain answers.
        if request.url.path.startswith("/api/"):
            response = json_response({"error": f"{error.detail}: {request.method} {request.url.path}"},
                                     error.status_code)
        else:
            response = PlainTextResponse(str(error.detail), status_code=error.status_code)
        response.headers.update(error.headers or {})      # 405's Allow, as HTTP requires
        return response

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        service.close()

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(OwnPagesOnly, hosts=hosts)],
                    exception_handlers={HTTPException: api_not_found})
    app.state.service = service
    return app


__all__ = ["create_app", "Service", "ApiError", "MAX_BODY", "MAX_MOVES"]
