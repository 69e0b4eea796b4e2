"""Probing the databases: the value of a position and of each of its moves.

Modelled on python-chess's tablebase probing::

    >>> from solver.position import parse_position           # doctest: +SKIP
    >>> from solver.probe import open_database              # doctest: +SKIP
    >>> with open_database("data") as db:                    # doctest: +SKIP
    ...     db.probe(parse_position("W:a1,d1,g1 B:a7,d7,f6 b"))
    Value('win', 1)

Values are for the side to move; :meth:`Database.probe_moves` gives each legal move
with the value it leaves *for the mover*.  Files open lazily; chunks of values are read
and verified one at a time (:class:`solver.storage.SubspaceReader`) and kept in a bounded
cache, or whole subspaces are loaded into memory with ``in_memory=True``.
"""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter for h5py)
import numpy as np

from . import placement, storage, wdl
from .errors import (REBUILD_IT, CorruptDatabaseError, DatabaseError, ForeignDatabaseError, MissingSubspaceError,
                     Notice, Remedy, integer, with_remedy,
                     seconds_of)
from .index import Pair, Subspace
from .kernels import kernels_for
from .opening import OpeningBook, OpeningSearch
from .position import Move, Position, blocked_wdl, decided, parse_position, popcount
from .rules import STANDARD, Rules, as_rules, require_kernels
from .game import QUIET_PLY_LIMIT, check_quiet_limit
from .values import DRAW, DRAW_CODE, LOSS, SLACK_CODE, WDL, WIN, RuleValue, RuleWDL, Value, decode

BOOK_NAME = "opening-book.npz"
#: The key of a file, reader or chunk of the tables of the quiet-ply rule in a
#: Database's caches: (RULE, pair or subspace), beside the plain tables' own keys.
RULE = "rule"
#: Chunks :meth:`Database.codes_at` decodes and holds at a time (128 KiB each).
_CHUNK_GROUP = 64

__all__ = ["MoveProbe", "RuleMoveProbe", "Database", "open_database", "best_of", "first_rank",
           "MissingSubspaceError"]


@dataclass(frozen=True)
class MoveProbe:
    """A legal move and the value it leaves for the player who makes it."""

    move: Move
    value: WDL
    plies: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.move, Move):
            raise TypeError(f"a MoveProbe's move is a Move, not {type(self.move).__name__}")
        # the same checks as a Value's (ValueError), and the same normal form ("win" is
        # WDL.WIN, a numpy integer an int), so that equal probes compare equal
        value = Value(self.value, self.plies)
        object.__setattr__(self, "value", value.value)
        object.__setattr__(self, "plies", value.plies)

    @property
    def rank(self) -> tuple:
        """Sort key, best first (:attr:`solver.values.Value.rank`)."""
        return Value(self.value, self.plies).rank

    def drawn(self) -> "MoveProbe":
        """The same move where the game's history makes it a draw (a third repetition,
        the last quiet ply the rule allows)."""
        return MoveProbe(self.move, DRAW)


@dataclass(frozen=True)
class RuleMoveProbe:
    """A legal move with what it leaves for the player who makes it in a played game
    under the quiet-ply rule (:meth:`Database.probe_rule_moves`): ``value`` at the game's
    count of quiet plies (win, draw or loss: the rule's draw is a draw), ``dtz`` the
    mover's plies to the next mill (1: the move closes one; None for a draw, and in the
    placement phase, where the count has not started), and ``rule`` the value at a
    fresh count (a cursed win is a draw in ``value``).  ``plain_plies`` are the plies to
    the end of a win or loss by the plain tables: in the placement phase its wins and
    losses rank by them (the rule keeps a placement position's win or loss as it is
    without the rule, or draws it); in the moving phase (``moving``) they break the ties
    of equal DTZ, the shortest win and the longest loss first (None where the plain file
    cannot tell)."""

    move: Move
    value: WDL
    dtz: Optional[int]
    rule: RuleWDL
    plain_plies: Optional[int] = None
    #: Under mixed placement, a placement's win or loss: the mover's plies to the moving
    #: phase under the rule (:meth:`Database.placing_plies`), by which it ranks there
    placing_plies: Optional[int] = None
    #: Whether the move is one of the moving phase, where the count runs (its plies
    #: that rank it are to the next mill)
    moving: bool = False

    #: (a MoveProbe's plies to the end: not known under the rule)
    plies = None

    @property
    def rank(self) -> tuple:
        """Sort key, best first: the win with the nearest mill, a draw (the better its
        value without the rule, the better: a cursed win before a blessed loss), the loss
        with the farthest mill; in the placement phase, where no count runs, the
        shortest win and the longest loss (under mixed placement, to the moving phase:
        moves while stones are in hand could go round the plies to the end; among
        equals, to the end)."""
        # (plies not known rank after those known, as in Value.rank; under mixed
        # placement the plies to the end break the ties of the plies to the moving phase,
        # which fall with every move of the line all the same)
        plies = self.plain_plies
        first = self.placing_plies if self.placing_plies is not None else plies
        if self.value == WIN:
            return (0, self.dtz or 0, *(math.inf if p is None else p for p in (first, plies)))
        if self.value == DRAW:
            return (1, -self.rule.score, 0, 0)
        return (2, -(self.dtz or 0), *(math.inf if p is None else -p for p in (first, plies)))

    def drawn(self) -> "RuleMoveProbe":
        """The same move where the game's history makes it a draw (as :meth:`MoveProbe.drawn`)."""
        return RuleMoveProbe(self.move, DRAW, None, self.rule, moving=True)    # (no draw by play while placing)


class Database:
    """Read access to the databases of one rule set (moving and placement phase).
    Thread-safe; pickled, it is opened again where it is unpickled (a process pool's
    workers each read the files themselves), even if it was closed here.

    ``rules``: a :class:`~solver.rules.Rules` or its name.  ``book``: an opening book
    (DatabaseError if there is none there), else ``<root>/<rules>/opening-book.npz``
    where there is one.  Positions are :class:`~solver.position.Position`\\ s or their
    text (:func:`~solver.position.parse_position` under these rules)."""

    def __init__(self, root: Path | str = storage.DEFAULT_ROOT, rules: Rules | str = STANDARD,
                 in_memory: bool = False, cache_mib: int = 64, book: Path | str | None = None,
                 quiet_limit: int = QUIET_PLY_LIMIT):
        rules = as_rules(rules)
        require_kernels(rules)           # rules the kernels cannot answer for: that, not the folder
        storage.check_root(root, rules)
        if book is not None and not Path(book).is_file():
            raise DatabaseError(f"opening book {book} is not there",
                                remedy=Remedy(None, rules, " (write one with: {})", book=book))
        self.root, self.rules, self.in_memory = Path(root), rules, in_memory
        cache_mib = integer(cache_mib, "cache_mib", "is a whole number of MiB")
        if cache_mib < 0:
            raise ValueError(f"cache_mib is a whole number of MiB, not {cache_mib}")
        quiet_limit = check_quiet_limit(quiet_limit)
        self.quiet_limit = quiet_limit
        self._given = (cache_mib, book, quiet_limit)
        # opening book: given, else <root>/<rules>/opening-book.npz if there (read on first use)
        self._book_path = Path(book) if book else storage.rules_dir(root, rules) / BOOK_NAME
        self._book = None
        self._cache_bytes = cache_mib * 1024 * 1024
        self._files: dict[Pair | Subspace, h5py.File] = {}   # pair files, placement files
        self._readers: dict[Subspace, storage.SubspaceReader] = {}
        self._subspaces: dict[tuple[int, int, int, int], Subspace] = {}
        self._chunks: OrderedDict[tuple[Subspace, int], np.ndarray] = OrderedDict()
        self._arrays: dict[Subspace, np.ndarray] = {}
        self._wdl: dict[Subspace, np.ndarray] = {}
        self._lock = threading.RLock()
        self._search = None
        self._search_deadline: Optional[float] = None      # see search_limit
        self._search_stopped = False
        self._has_placement: Optional[bool] = None
        self._has_rule: Optional[bool] = None      # (query asks it of every position)
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<Database of rules {self.rules.name} in {str(self.root)!r} ({state})>"

    def __reduce__(self):
        cache_mib, book, quiet_limit = self._given
        # (absolute: a process pool's worker may start in another working directory)
        return (Database, (self.root.absolute(), self.rules, self.in_memory, cache_mib,
                           None if book is None else Path(book).absolute(), quiet_limit))

    def _position(self, position: Position | str) -> Position:
        """``position`` (or its text) checked for these rules: their board, at most their
        stones a side (ValueError), an open database."""
        if isinstance(position, str):
            position = parse_position(position, self.rules)
        elif not isinstance(position, Position):
            raise TypeError(f"a position is a Position or its text, not {type(position).__name__}")
        # (its board: else its masks would read as other points; its stones: no file holds
        # more, and a 'not built' error would send the user to build one that cannot exist)
        position.check_rules(self.rules, lines=False)
        self._check_open()
        return position

    # --- context manager -------------------------------------------------------
    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the files; the database answers nothing after it (ValueError, as a
        closed file does), rather than opening its files again unseen."""
        with self._lock:
            self._closed = True
            for f in self._files.values():
                f.close()
            self._files.clear()
            self._readers.clear()
            self._chunks.clear()
            self._arrays.clear()
            self._wdl.clear()
            self._search = self._book = None     # (the search's table: 128 MiB by default)

    def _check_open(self) -> None:
        # a ValueError, not a DatabaseError: get() must not turn it into its default
        if self._closed:
            raise ValueError(f"the database of rules {self.rules.name} in {self.root} is closed")

    # --- raw access --------------------------------------------------------------
    def _subspace(self, m: int, o: int, own_hand: int = 0, opp_hand: int = 0) -> Subspace:
        """Subspace m-o+h-k of these rules; ValueError where a side has more stones than
        they give (no file holds it: a 'not built' error would send the user to build
        one that cannot exist)."""
        key = (m, o, own_hand, opp_hand)
        # (made once a shape, as a query makes one for each of its moves' positions; the
        # key only of plain ints: True would find 1's)
        plain = all(type(v) is int for v in key)
        sub = self._subspaces.get(key) if plain else None
        if sub is None:
            sub = Subspace(m, o, own_hand, opp_hand, board=self.rules.board)
            if max(sub.m + sub.own_hand, sub.o + sub.opp_hand) > self.rules.stones:
                raise ValueError(f"subspace {sub.name} has more stones a side than the {self.rules.stones} "
                                 f"of rules {self.rules.name}")
            if plain:
                self._subspaces[key] = sub
        return sub

    def _reader(self, sub: Subspace, rule: bool = False) -> storage.SubspaceReader:
        """The reader of ``sub`` in its file (``rule``: its pair's file of the tables of
        the quiet-ply rule, whose entries are keyed ``(RULE, ...)``)."""
        name = (RULE, sub) if rule else sub
        reader = self._readers.get(name)
        if reader is None:
            # Moving-phase subspaces live two to a pair file, placement subspaces one to
            # a file (solver.storage).
            key = storage.holding(sub)
            f = self._files.get((RULE, key) if rule else key)
            if f is None:
                # verified chunks are cached here, so HDF5 keeps no chunk cache of its own
                path = self._rule_path(sub) if rule else self._path(sub)
                f = storage.open_file(path, self.rules, key, sub, rdcc_nbytes=0,
                                  quiet_limit=self.quiet_limit if rule else None)
                self._files[(RULE, key) if rule else key] = f
            reader = storage.SubspaceReader(f, f.filename, sub)
            if rule and not sub.is_moving:
                # (its codes are differences from that file's, but under mixed placement:
                # dtz.read_placement)
                plain = None if self.rules.mixed else storage.placement_path(self.root, self.rules, sub).name
                if reader.against != plain:
                    raise ForeignDatabaseError(f"{f.filename} is stored against {reader.against!r}, not "
                                               f"{'nothing' if plain is None else plain}")
            self._readers[name] = reader
        return reader

    def _chunk_code(self, sub: Subspace, slot: int, rule: bool = False) -> int:
        """The code at a slot, from the chunk cache or read and verified."""
        k = slot // storage.CHUNK
        key = ((RULE, sub) if rule else sub, k)
        chunk = self._chunks.get(key)
        if chunk is None:
            reader = self._reader(sub, rule)
            start = k * storage.CHUNK
            chunk = self._chunks[key] = reader.read(start, min(reader.slots, start + storage.CHUNK))
            self._trim_chunks()
        else:
            self._chunks.move_to_end(key)
        return int(chunk[slot % storage.CHUNK])

    def codes_at(self, sub: Subspace, slots: np.ndarray, rule: bool = False) -> np.ndarray:
        """The stored codes (uint16) at ``slots`` (an array) of subspace ``sub``, of its
        tables of the quiet-ply rule with ``rule``: many probes at once, each chunk they
        fall in read and verified once (``query --batch``).  Slack codes are returned as
        stored.  MissingSubspaceError where the file is not built; a damaged one as
        :meth:`code` and :meth:`probe_rule` say it; IndexError for a slot outside the
        subspace and ValueError for slots that are not whole numbers in one row (the
        caller's mistake: no file is blamed, no negative slot counted from the end)."""
        given = np.asarray(slots)
        if given.ndim != 1 or (given.size and given.dtype.kind not in "iu"):
            raise ValueError(f"slots: a row of whole numbers, not an array of {given.dtype} "
                             f"of shape {given.shape}")
        if given.size and (given.min() < 0 or given.max() >= sub.slots):
            bad = given.min() if given.min() < 0 else given.max()
            raise IndexError(f"slot {bad} outside subspace {sub.name} (slots 0..{sub.slots - 1})")
        slots = given.astype(np.int64)
        out = np.empty(len(slots), dtype=np.uint16)
        with self._lock:
            self._check_open()
            if not rule and (self.in_memory or sub in self._arrays):
                out[:] = self.subspace(*sub)[slots]
                return out
            name = (RULE, sub) if rule else sub
            order = np.argsort(slots // storage.CHUNK)
            chunks, starts = np.unique(slots[order] // storage.CHUNK, return_index=True)
            ends = np.append(starts[1:], len(slots))
            # a bounded group of chunks at a time: a batch may fall in thousands
            for g in range(0, len(chunks), _CHUNK_GROUP):
                group = chunks[g:g + _CHUNK_GROUP].tolist()
                found = [self._chunks.get((name, k)) for k in group]
                missing = [k for k, chunk in zip(group, found) if chunk is None]
                if missing:
                    with self._repairing(sub, rule):
                        read = iter(self._reader(sub, rule).read_chunks(missing))
                    found = [next(read) if chunk is None else chunk for chunk in found]
                for j, (k, chunk) in enumerate(zip(group, found), g):
                    at = order[starts[j]:ends[j]]
                    out[at] = chunk[slots[at] - k * storage.CHUNK]
                    self._chunks[(name, k)] = chunk
                    self._chunks.move_to_end((name, k))
                self._trim_chunks()
        return out

    def _trim_chunks(self) -> None:
        """Drop the least recently used chunks beyond the cache's bytes (one always kept)."""
        while len(self._chunks) * 2 * storage.CHUNK > max(self._cache_bytes, 2 * storage.CHUNK):
            self._chunks.popitem(last=False)

    @contextlib.contextmanager
    def _repairing(self, sub: Subspace, rule: bool = False) -> Iterator[None]:
        """Around every read of ``sub``'s file (``rule``: its file of the quiet-ply rule):
        a damaged or foreign file's error ends in the build that replaces it (the build
        checks each file), and what was opened of it is let go, so that a long-lived
        reader (the server) reads the file that replaces it, not the one it held open."""
        try:
            yield
        except (CorruptDatabaseError, ForeignDatabaseError) as exc:
            self._forget(sub)
            remedy = (Remedy(self.root, self.rules, REBUILD_IT, needed=(sub,)) if not rule else
                      Remedy(self.root, self.rules, REBUILD_IT, phase="rule", quiet_limit=self.quiet_limit,
                             pair=tuple(sub.pair) if sub.is_moving else None))
            raise with_remedy(exc, remedy) from None

    def _forget(self, sub: Subspace) -> None:
        """Let go of the file holding ``sub`` and all read from it (caller holds the lock)."""
        key = storage.holding(sub)
        for name in (key, (RULE, key)):
            f = self._files.pop(name, None)
            if f is not None:
                f.close()
        held = lambda name: storage.holding(name[1] if name[0] == RULE else name) == key
        for other in [r for r in self._readers if held(r)]:
            del self._readers[other]
        for chunk in [c for c in self._chunks if held(c[0])]:
            del self._chunks[chunk]
        self._arrays.pop(sub, None)
        self._wdl.pop(sub, None)

    def _path(self, sub: Subspace) -> Path:
        """The file holding ``sub``; MissingSubspaceError if it is not built."""
        path = storage.file_of(self.root, self.rules, sub)
        if not sub.is_moving and not placement.is_placement(sub, self.rules):
            # (advice to build it would build nothing: no build makes such a file)
            raise MissingSubspaceError(sub, path, f"no file holds subspace {sub.name}: no game of rules "
                                                  f"{self.rules.name} reaches these hands, so no build makes it")
        if not path.exists():
            _refuse_dangling(path)
            raise MissingSubspaceError(sub, path, f"{_held_by(sub)} is not built: missing {path}",
                                       Remedy(self.root, self.rules, needed=(sub,)))
        return path

    def _rule_path(self, sub: Subspace) -> Path:
        """The file of ``sub``'s pair under the quiet-ply rule; MissingSubspaceError if it
        is not built."""
        path = storage.rule_path(self.root, self.rules, sub, self.quiet_limit)
        if not path.exists():
            _refuse_dangling(path)
            raise MissingSubspaceError(sub, path, f"{_held_by(sub)} under the {self.quiet_limit}-ply "
                                                  f"rule is not built: missing {path}",
                                       Remedy(self.root, self.rules, phase="rule", quiet_limit=self.quiet_limit,
                                              pair=tuple(sub.pair) if sub.is_moving else None))
        return path

    def has_rule_tables(self) -> bool:
        """Whether any moving-phase pair's tables of the quiet-ply rule (of this
        database's ``quiet_limit``) are built."""
        self._check_open()
        with self._lock:
            if not self._has_rule:          # (looked for again until found, as has_placement)
                folder = storage.rules_dir(self.root, self.rules)
                self._has_rule = any(folder.glob(f"dtz{self.quiet_limit}-pair-*.h5"))
            return self._has_rule

    def has_placement(self) -> bool:
        """Whether any placement subspace of these rules is built (else positions with
        stones in hand are answered by the opening search, without plies)."""
        self._check_open()
        with self._lock:
            if not self._has_placement:     # (looked for again until found: a build may add them)
                folder = storage.rules_dir(self.root, self.rules)
                self._has_placement = any(folder.glob("place-*.h5"))
            return self._has_placement

    def has_moving(self) -> bool:
        """Whether any moving-phase pair of these rules is built (the opening search's
        leaves are read from them)."""
        self._check_open()
        return any(storage.rules_dir(self.root, self.rules).glob("pair-*.h5"))

    def subspace(self, m: int, o: int, own_hand: int = 0, opp_hand: int = 0) -> np.ndarray:
        """All value codes of subspace m-o (with hands: a placement subspace), loaded into
        memory (kept for later probes)."""
        sub = self._subspace(m, o, own_hand, opp_hand)
        with self._lock:
            self._check_open()
            arr = self._arrays.get(sub)
            if arr is None:
                with self._repairing(sub):
                    arr = storage.read_subspace(self._path(sub), self.rules, m, o,
                                                own_hand=own_hand, opp_hand=opp_hand)
                self._arrays[sub] = arr
            return arr

    def wdl(self, m: int, o: int) -> np.ndarray:
        """The 2-bit win/draw/loss view of subspace m-o (:mod:`solver.wdl`), kept for later
        use; packed from the codes in memory if loaded, else read from the file in blocks."""
        sub = self._subspace(m, o)
        with self._lock:
            self._check_open()
            view = self._wdl.get(sub)
            if view is None:
                if sub in self._arrays:
                    view = wdl.pack(self._arrays[sub])
                else:
                    with self._repairing(sub):
                        view = storage.read_subspace_wdl(self._path(sub), self.rules, m, o)
                self._wdl[sub] = view
            return view

    def code(self, own: int, opp: int, own_hand: int = 0, opp_hand: int = 0) -> int:
        """Stored code of the position (own to move, opp; stones in hand: a placement position)."""
        sub = self._subspace(popcount(own), popcount(opp), own_hand, opp_hand)
        slot = sub.index(own, opp)
        with self._lock:
            self._check_open()
            if self.in_memory or sub in self._arrays:
                code = int(self.subspace(*sub)[slot])
            else:
                with self._repairing(sub):
                    code = self._chunk_code(sub, slot)
        if code == SLACK_CODE:
            raise CorruptDatabaseError(f"database error: position maps to a slack slot in {sub.name}")
        return code

    # --- probing -----------------------------------------------------------------
    def probe(self, position: Position | str, search: bool = True) -> Value:
        """Value and plies for the side to move.

        Positions with stones in hand are read from the placement files.  Where no
        placement file of these rules is built at all (or the hands cannot arise from
        the start of this game), the opening book or the opening search answers them
        (value only, ``plies`` None; :meth:`needs_search` says where, as the search
        takes minutes early in the 9-stone game).  ``search=False``: never the search,
        a lookup only (as python-chess's probes): where it would answer, the
        position's placement file is missing (MissingSubspaceError).  Raises
        MissingSubspaceError if a subspace it needs is not built.
        """
        position = self._position(position)
        own, opp = position.own, position.opp
        ended = self._ended(position)
        if ended is not None:
            return Value(ended, None if ended == DRAW else 0)
        if position.in_placement:
            if self.has_placement():
                if placement.is_placement(Subspace.of(position), self.rules):
                    return decode(self.code(own, opp, position.own_hand, position.opp_hand))
                # Hands no game from the start reaches (the files hold none): from the
                # moves, where every one leads to a position the files hold, with plies as
                # probe_moves gives them, so that query and best-move agree.
                value = self._by_moves(position)
                if value is not None:
                    return value
            # Win/draw/loss from the opening book, else by the opening search (no plies).
            book = self.opening_book()
            value = book.get(position) if book is not None else None
            if value is None:
                why, remedy = None, None
                if not search:
                    why = "; the opening search would answer (search=True)"
                elif not self.has_moving():       # (said before the search's 128 MiB table is made)
                    why = (", and the opening search that would answer needs the moving phase, of "
                           "which nothing is built")
                    remedy = Remedy(self.root, self.rules, " (build them with: {})")
                if why is not None:
                    sub = Subspace.of(position)
                    path = storage.file_of(self.root, self.rules, sub)
                    raise MissingSubspaceError(sub, path, f"subspace {sub.name} is not built: "
                                               f"missing {path}{why}", remedy)
                search = self.opening_search()
                if self._search_stopped:     # (asked before the search existed)
                    search.stop()
                value = search.solve(position, self._search_deadline).value
            return Value(value)
        return decode(self.code(own, opp))

    def _ended(self, position: Position) -> Optional[WDL]:
        """How the rules decide a finished game for the side to move (as
        :meth:`Position.terminal_wdl <solver.position.Position.terminal_wdl>`, the
        specification), else None; fast, as every probe asks it first."""
        own, opp = position.own, position.opp
        # Finished games are answered as the rules decide them, in 0 plies: a side below
        # three stones, a line where a line wins (with the other side below 3, or only
        # the side to move holding a line, a position no game reaches, but one whose
        # outcome the rules fix; the files code a line of the mover's as won in 1,
        # docs/design.md §9).
        result = decided(own, opp, position.own_hand, position.opp_hand, self.rules)
        if result is not None:
            return result
        # The kernel (proven equal to the reference rules) tells a blocked position fast:
        # lost, or drawn where the rules draw a full board (Position.outcome).
        if not kernels_for(self.rules.board).moves_packed(own, opp, position.own_hand, position.opp_hand,
                                                          self.rules.flags):
            return blocked_wdl(own, opp, self.rules)
        return None

    def probe_rule(self, position: Position | str) -> RuleValue:
        """The value of a position under the rule of ``quiet_limit`` plies without a mill
        (the database's: 50 unless opened with another), at a fresh count: win, cursed
        win, draw, blessed loss or loss, and in the moving phase the plies to the next
        mill (:class:`~solver.values.RuleValue`; ``.at(n)`` is its value after n quiet
        plies).  As python-chess's ``probe_wdl`` and ``probe_dtz`` together.  A position
        with stones in hand (the count starts when the last is placed) has the value its
        game has under the rule from there, and no DTZ, read from its placement file of
        the rule and its plain placement file (the first is stored against the second,
        which also says whether a draw there is a cursed win or a blessed loss).  A
        finished game is answered as :meth:`probe` answers it (won already: a win of DTZ
        0).  MissingSubspaceError where its tables of the rule are not built
        (or, with stones in hand, no file holds its hands: no game reaches them)."""
        position = self._position(position)
        limit = self.quiet_limit
        ended = self._ended(position)
        if ended is not None:
            return RuleValue(RuleWDL(ended), None if ended == DRAW else 0, limit)
        code = self._rule_code(position)
        if position.in_placement:
            # (a placement file of the rule holds its differences from the plain file's,
            # or under mixed placement its codes)
            from .dtz import placement_scores
            plain = self.code(position.own, position.opp, position.own_hand, position.opp_hand)
            score = int(placement_scores(np.array([code]), np.array([plain]), self.rules.mixed)[0])
            return RuleValue(RuleWDL.from_score(score), None, limit)
        from .dtz import decode as decode_dtz
        plain, dtz = decode_dtz(code)
        return RuleValue.of(WDL(plain), dtz, limit)

    def _rule_code(self, position: Position) -> int:
        """The stored code of a position (not over) in the tables of the rule."""
        return self.rule_code(position.own, position.opp, position.own_hand, position.opp_hand)

    def rule_code(self, own: int, opp: int, own_hand: int = 0, opp_hand: int = 0) -> int:
        """Stored code of the position (own to move, opp; stones in hand: a placement
        position) in the tables of the quiet-ply rule, as :meth:`code` in the plain
        ones: in the moving phase a DTZ code (:func:`solver.dtz.decode`), the search
        players' leaf.  MissingSubspaceError where its file is not built."""
        sub = self._subspace(popcount(own), popcount(opp), own_hand, opp_hand)
        if (own_hand or opp_hand) and not placement.is_placement(sub, self.rules):
            raise MissingSubspaceError(sub, storage.rule_path(self.root, self.rules, sub, self.quiet_limit),
                                       f"no file holds the hands of {sub.name} (no game reaches them)")
        slot = sub.index(own, opp)
        with self._lock:
            self._check_open()
            with self._repairing(sub, rule=True):
                code = self._chunk_code(sub, slot, rule=True)
        if code == SLACK_CODE:
            raise CorruptDatabaseError(f"database error: position maps to a slack slot in {sub.name}")
        return code

    def placing_plies(self, position: Position | str) -> Optional[int]:
        """Under mixed placement, the plies of a position with stones in hand to the
        moving phase (or to the end, where a take ends the game while placing) when the
        winner hurries and the loser delays under the quiet-ply rule, rounded up to the
        side's parity (odd for a win, even for a loss: one more where the loser enters
        the moving phase, which the tables count as a win in 1 for the winner there);
        None for a draw, and for a finished game 0.  Moves while stones are in hand can go round, so the
        winner follows these plies, which fall with every move of its line, where
        separate placement follows the plies to the end.  ValueError for other rules or
        a position of the moving phase.

        >>> db = open_database("data", "lasker-s4")  # doctest: +SKIP
        >>> db.placing_plies("W:a1,d1 B:g7 w 2 3")     # doctest: +SKIP
        5
        """
        position = self._position(position)
        if not (self.rules.mixed and position.in_placement):
            raise ValueError("plies to the moving phase are kept for positions with stones in hand under "
                             "mixed placement only")
        ended = self._ended(position)
        if ended is not None:
            return None if ended == DRAW else 0
        code = self._rule_code(position)
        return None if code == DRAW_CODE else code - 1

    def probe_wdl(self, position: Position | str) -> RuleWDL:
        """The value under the quiet-ply rule at a fresh count (:meth:`probe_rule`)."""
        return self.probe_rule(position).wdl

    def probe_dtz(self, position: Position | str) -> Optional[int]:
        """The plies to the next mill (:meth:`probe_rule`; None for a draw)."""
        return self.probe_rule(position).dtz

    def get_rule(self, position: Position | str, default: Any = None) -> RuleValue | Any:
        """Like :meth:`probe_rule`, but ``default`` where the tables are not built."""
        try:
            return self.probe_rule(position)
        except MissingSubspaceError:
            return default

    def probe_rule_moves(self, position: Position | str, quiet_plies: int = 0) -> list[RuleMoveProbe]:
        """Every legal move of a moving-phase position whose game has made ``quiet_plies``
        plies without a mill, with what it leaves for the mover under the quiet-ply rule
        (:class:`RuleMoveProbe`), best first: a mill starts the count again, any other
        move adds one.  Following the first wins every game that the rule lets be won
        from here (its next mill always comes in time) and never loses one the rule
        saves."""
        position = self._position(position)
        quiet_plies = integer(quiet_plies, "quiet_plies", "is a whole number of plies")
        if not 0 <= quiet_plies < self.quiet_limit:
            # (at the limit the game is drawn: no move of it is worth anything)
            raise ValueError(f"a game under the {self.quiet_limit}-ply rule goes on after 0.."
                             f"{self.quiet_limit - 1} quiet plies, not {quiet_plies}")
        if quiet_plies and position.in_placement:
            raise ValueError("the quiet plies are counted in the moving phase: a position with stones "
                             "in hand has none")
        result = []
        for move in position.legal_moves(self.rules):
            child = position.play_unchecked(move)
            after = self.probe_rule(child)
            # (the count starts at the moving phase's first position: 0 after a placement;
            # a mill that takes nothing, under take-none, restarts it as any mill does)
            milled = position.closes_mill(move)
            count = 0 if milled or position.in_placement else quiet_plies + 1
            value = -after.at(count)
            dtz = (None if value == DRAW or position.in_placement else 1 if milled
                   else after.dtz + 1)
            # (no DTZ while placing: the plies to the end tell its wins apart, as the
            # plain values do, else a win in 1 by a line ranked with a win in 5; in the
            # moving phase they break the ties of equal DTZ, as query lists the moves:
            # the shortest win, the longest loss, where the plain file can tell)
            plain = None
            if value != DRAW and position.in_placement:
                plain = self.probe(child).for_mover()
            elif value != DRAW:
                plain = self._plain_or_none(child)
            plies = None if plain is None or plain.wdl != value else plain.plies
            placing = None
            if plies is not None and self.rules.mixed:
                # (the moving phase entered counts as a win in 1 or a loss in 0 there:
                # dtz.entry_codes, as the solve read it)
                placing = 1 + (self.placing_plies(child) if child.in_placement else 0 if value == WIN else 1)
            result.append(RuleMoveProbe(move, value, dtz, -after.wdl, plies, placing,
                                        moving=not position.in_placement))
        result.sort(key=lambda mp: mp.rank)
        return result

    def _plain_or_none(self, position: Position) -> Optional[Value]:
        """The plain value of a moving-phase child for the mover, or None where its file
        cannot give it (missing or unusable: the rule's values still rank the moves,
        and the plain answers say what is wrong)."""
        try:
            return self.probe(position, search=False).for_mover()
        except (MissingSubspaceError, CorruptDatabaseError, ForeignDatabaseError):
            return None

    def _by_moves(self, position: Position) -> Optional[Value]:
        """The value of ``position`` (not over) as the best of its moves' values, where
        every move leads to a position that the files hold or the rules decide; else None."""
        children = self._held_children(position)
        if children is None:
            return None
        return min((self.probe(child).for_mover() for child in children), key=lambda v: v.rank)

    def _held_children(self, position: Position) -> Optional[list[Position]]:
        """The positions the moves of ``position`` lead to, where every one is held by
        the files or decided by the rules; else None."""
        children = [position.play_unchecked(move) for move in position.legal_moves(self.rules)]
        return children if all(map(self._held_or_over, children)) else None

    def _held_or_over(self, position: Position) -> bool:
        return (not position.in_placement or position.terminal_wdl(self.rules) is not None
                or placement.is_placement(Subspace.of(position), self.rules))

    def needs_search(self, position: Position | str) -> bool:
        """Whether :meth:`probe` answers ``position`` by the opening search (minutes
        early in a large game): stones in hand, no placement file built, no opening book
        that holds it, and the moving phase there for its leaves."""
        position = self._position(position)
        if not position.in_placement or self.rules.mixed or position.terminal_wdl(self.rules) is not None:
            return False                   # (mixed rules: the search refuses them)
        if self.has_placement() and (self._held_or_over(position)
                                     or self._held_children(position) is not None):
            return False                   # probe reads the files (or its moves' files)
        book = self.opening_book()
        return (book is None or book.get(position) is None) and self.has_moving()

    def search_note(self) -> Notice:
        """What a user waiting for the opening search should read, before it starts;
        where no placement file is built, with the remedy that makes the answer
        instant (the build of the placement phase: an interface says its command)."""
        # (measured on the 9-stone game, docs/benchmarks.md; small games take seconds)
        slow = "; early in a game of nine stones a minute or more" if self.rules.stones >= 9 else ""
        if self.has_placement():           # hands no placement file holds, nor its moves
            return Notice("these hands are in no placement file, nor are all of its moves': the "
                          f"opening search answers (exact, without plies{slow})")
        return Notice(f"no placement files of rules {self.rules.name} in {self.root}: the opening search "
                      f"answers (exact, without plies{slow})",
                      Remedy(self.root, self.rules, "; '{}' makes it instant", phase="placement"))

    def opening_book(self) -> Optional[OpeningBook]:
        """The opening book (:class:`solver.opening.OpeningBook`), or None if there is none."""
        self._check_open()
        with self._lock:
            if self._book is None and self._book_path.exists():
                self._book = OpeningBook.read(self._book_path, self.rules)
            return self._book

    def opening_search(self) -> OpeningSearch:
        """The opening search over this database (shares its transposition table)."""
        self._check_open()
        with self._lock:
            if self._search is None:
                self._search = OpeningSearch(self.rules, wdl=self.wdl)
            return self._search

    @contextlib.contextmanager
    def search_limit(self, seconds: Optional[float]) -> Iterator[None]:
        """Within the block, the opening searches of this database (any thread) give up
        after ``seconds`` in all (None: no limit) with
        :class:`~solver.errors.SearchStoppedError`, and :meth:`stop_search` ends them; the
        block starts and ends with searches allowed again (:meth:`resume_search`).  For a
        server, whose clients wait; not nested.
        """
        if seconds is not None:
            seconds = seconds_of(seconds, "a search limit (or None)")
        with self._lock:
            self._search_deadline = None if seconds is None else time.monotonic() + seconds
            self.resume_search()
        try:
            yield
        finally:
            self._search_deadline = None
            self.resume_search()

    def resume_search(self) -> None:
        """Allow opening searches again after :meth:`stop_search`."""
        self._search_stopped = False
        if self._search is not None:
            self._search.resume()

    def stop_search(self) -> None:
        """End the opening search running in another thread (SearchStoppedError there),
        and any started later, until :meth:`resume_search` or the end of the
        :meth:`search_limit` block.  Takes no lock: the search holds it."""
        self._search_stopped = True
        search = self._search
        if search is not None:
            search.stop()

    def get(self, position: Position | str, default: Any = None, search: bool = True) -> Value | Any:
        """Like :meth:`probe`, but ``default`` where a subspace it needs is not built
        (``search=False``: also where only the opening search would answer).

        As python-chess's ``get_wdl``: only a missing file (:class:`MissingSubspaceError`)
        gives the default; a damaged or foreign file still raises, so that damage is
        never mistaken for a file not yet built.

        >>> import tempfile
        >>> from solver.position import parse_position
        >>> with tempfile.TemporaryDirectory() as root, open_database(root, Rules(stones=4)) as db:
        ...     db.get(parse_position("W:a1,d1,g1 B:a7,d7,f6 b"), "not built")
        'not built'
        """
        try:
            return self.probe(position, search)
        except MissingSubspaceError:
            return default

    def probe_moves(self, position: Position | str) -> list[MoveProbe]:
        """Every legal move with the value it leaves for the mover, best first."""
        position = self._position(position)
        result = []
        for move in position.legal_moves(self.rules):
            mover = self.probe(position.play_unchecked(move)).for_mover()
            result.append(MoveProbe(move, mover.wdl, mover.plies))
        result.sort(key=lambda mp: mp.rank)
        return result

    def best_move(self, position: Position | str, rng: random.Random | None = None) -> Optional[Move]:
        """Shortest win, else a draw, else the longest loss; random among equals with ``rng``
        (a :class:`random.Random`).

        None when the game is over.
        """
        best = best_of(self.probe_moves(position), rng)
        return None if best is None else best.move


def _held_by(sub: Subspace) -> str:
    """What the file of ``sub`` holds, as a missing file is named: a moving pair's file
    holds both orders (3-4 and 4-3), so either side's probe names it alike and one
    missing file is one notice."""
    return f"pair {sub.pair.name}" if sub.is_moving else f"subspace {sub.name}"


def _refuse_dangling(path: Path) -> None:
    """CorruptDatabaseError where ``path`` is a link that leads to no file (to itself, in a
    loop, or to a target gone): something is there, so it is not "not built" (a build
    writes its file in the link's place)."""
    if path.is_symlink():
        raise CorruptDatabaseError(f"database error: {path} is a link that leads to no file (a loop of "
                                   f"links, or its target gone)")


def best_of(probes: Sequence[MoveProbe], rng: random.Random | None = None) -> Optional[MoveProbe]:
    """The best of ``probes`` (sorted best first, as :meth:`Database.probe_moves` gives
    them): the first, or with ``rng`` (a :class:`random.Random`) one chosen among those
    of its rank, so that one seed picks the same move wherever a best move is chosen
    (best-move, the page's hint, the perfect player).  None for no probes.

    >>> from solver.position import Move
    >>> probes = [MoveProbe(Move(1), "win", 3), MoveProbe(Move(2), "win", 3), MoveProbe(Move(3), "draw")]
    >>> best_of(probes).move.target, {best_of(probes, random.Random(i)).move.target for i in range(9)}
    (1, {1, 2})
    """
    if rng is not None and not callable(getattr(rng, "choice", None)):
        raise TypeError(f"rng is a random.Random, not {type(rng).__name__}")
    equal = first_rank(probes)
    if not equal:
        return None
    return rng.choice(equal) if rng is not None else equal[0]


def first_rank(probes: Sequence[MoveProbe]) -> list[MoveProbe]:
    """The probes of the best rank among ``probes`` (sorted best first): the moves a
    perfect player chooses among; [] for none."""
    return [mp for mp in probes if mp.rank == probes[0].rank] if probes else []


def open_database(root: Path | str = storage.DEFAULT_ROOT, rules: Rules | str = STANDARD,
                  in_memory: bool = False, book: Path | str | None = None,
                  cache_mib: int = 64, quiet_limit: int = QUIET_PLY_LIMIT) -> Database:
    """Open the databases under ``root`` for ``rules`` (a :class:`~solver.rules.Rules` or
    its name; a context manager): :class:`Database`.  DatabaseError, saying what to do,
    where ``root`` is no folder of rule sets' folders (missing, a file, or a rule set's
    folder itself: :func:`solver.storage.check_root`); files not built yet are found
    missing as they are asked for (MissingSubspaceError, or ``get``'s default)."""
    return Database(root, rules, in_memory=in_memory, cache_mib=cache_mib, book=book,
                    quiet_limit=quiet_limit)
