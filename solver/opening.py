"""The placement phase: exact search from any position with stones in hand, and an
independent backward pass over all placement positions for smaller games.

The search is compiled alpha-beta over win/draw/loss (the leaves are moving-phase
positions, read from 2-bit views of the databases), with a fixed-size transposition
table keyed by the symmetry-reduced placement position and move ordering that tries the
table's best move first, then moves that close mills, then the best-connected points.

>>> from solver.rules import Rules
>>> placement_subspaces(Rules(stones=3))[:3]
[Subspace(2, 3, 1, 0), Subspace(2, 2, 1, 1), Subspace(1, 2, 2, 1)]
"""

from __future__ import annotations

import os
import threading
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from . import placement, storage, wdl as _wdl
from .errors import (CorruptDatabaseError, ForeignDatabaseError, InsufficientMemoryError, Remedy, SearchStoppedError,
                     UnsupportedRulesError)
from .index import Subspace
from .kernels import kernels_for
from .position import Position, parse_position
from .retro import MovingLookup
from .rules import Rules, require_kernels
from .values import WDL, decode


def placement_subspaces(rules: Rules) -> list[Subspace]:
    """Every placement subspace of a game, children before parents: the build's plan of
    the placement phase (:func:`solver.placement.plan`), the one list of them."""
    return placement.plan(rules)


def solve_placement(rules: Rules, moving: MovingLookup, jobs: int = 2,
                    progress: Callable[[Subspace], None] | None = None) -> dict[Subspace, np.ndarray]:
    """Values (codes, as in the databases) of every placement position, by one backward pass.

    Feasible for smaller games (stones <= 6 or so); the standard game uses the search.
    Separate placement only (under mixed placement positions repeat: the build solves
    them in rounds, solver.build.runner.CycleWork).
    """
    require_kernels(rules)
    refuse_mixed(rules, "the in-memory backward pass of the placement phase")
    empty = np.zeros(0, dtype=np.uint16)
    values: dict[Subspace, np.ndarray] = {}

    def codes(sub: Subspace | None) -> np.ndarray:
        if sub is None or sub.m + sub.own_hand < 3 or sub.o + sub.opp_hand < 3:
            return empty          # someone has fewer than three stones: never looked up
        if sub.is_moving:
            return moving(*sub)
        return values[sub]

    for sub in placement_subspaces(rules):
        if progress:
            progress(sub)
        out = np.empty(sub.slots, dtype=np.uint16)
        sub.kernels.placement_values(*sub, out, codes(sub.quiet_child), codes(sub.capture_child),
                                     rules.flags, jobs)
        values[sub] = out
    return values


def refuse_mixed(rules: Rules, what: str) -> None:
    """UnsupportedRulesError for rules of mixed placement, where ``what`` (which assumes
    that every ply of the placement phase places a stone) would give wrong values."""
    if rules.mixed:
        raise UnsupportedRulesError(f"rules {rules.name!r}: {what} knows separate placement "
                                    f"only (under mixed placement positions repeat); build the "
                                    f"placement phase and read its files")


def placement_value(values: dict[Subspace, np.ndarray], position: Position) -> WDL:
    """The value (for the side to move) of a placement position in the result of
    :func:`solve_placement`."""
    sub = Subspace.of(position)
    return decode(int(values[sub][sub.index(position.own, position.opp)])).wdl


@dataclass(frozen=True)
class SearchResult:
    """Outcome of an opening search: value for the side to move, effort spent.

    ``seconds`` includes ``load_seconds``, the time spent loading leaf views.
    """

    value: WDL
    nodes: int
    seconds: float
    load_seconds: float = 0.0


class OpeningSearch:
    """Alpha-beta over the placement phase, with moving-phase databases at the leaves.

    The search runs in the compiled kernel (``ext/search.pxi``): negamax over
    win/draw/loss with a fixed-size transposition table of ``2**table_bits`` entries
    (8 bytes each; kept across calls of :meth:`solve`).  Leaves are read from 2-bit
    views (:mod:`solver.wdl`), loaded the first time the search reaches a subspace:
    ``wdl(m, o)`` gives the view, or by default it is packed from ``moving(m, o)``.
    """

    def __init__(self, rules: Rules, moving: Optional[MovingLookup] = None, *,
                 wdl: Optional[Callable[[int, int], np.ndarray]] = None, table_bits: int = 24):
        if moving is None and wdl is None:
            raise ValueError("give the moving-phase codes (moving) or their views (wdl)")
        require_kernels(rules)
        refuse_mixed(rules, "the opening search")
        self.rules = rules
        self._view = wdl if wdl is not None else (lambda m, o: _wdl.pack(moving(m, o)))
        try:
            self.engine = kernels_for(rules.board).SearchEngine(table_bits, rules.flags)
        except MemoryError:
            raise InsufficientMemoryError(
                f"the opening search's transposition table of 2^{table_bits} entries "
                f"({8 * 2 ** table_bits / 2 ** 30:.3g} GiB) does not fit in memory: give fewer table bits") from None
        self._lock = threading.Lock()

    @property
    def memory_bytes(self) -> int:
        """Bytes held: transposition table plus the leaf views loaded so far."""
        return self.engine.table_bytes + self.engine.view_bytes

    def stop(self) -> None:
        """Ask the search to end (from any thread): a :meth:`solve` running raises
        :class:`~solver.errors.SearchStoppedError` within milliseconds, and so does every
        later one until :meth:`resume`."""
        self.engine.stop()

    def resume(self) -> None:
        """Let searches run again after :meth:`stop`."""
        self.engine.clear_stop()

    def solve(self, position: Position, deadline: Optional[float] = None) -> SearchResult:
        """Exact value of a placement position for the side to move.

        Any hands the rules allow are answered, also those no game from the standard
        start reaches (a side with none in hand slides while the other still places).
        ``deadline`` (``time.monotonic()`` seconds): SearchStoppedError once it passes,
        as after :meth:`stop`; what the search learnt stays in its table.
        """
        with self._lock:
            start = time.perf_counter()
            nodes0 = self.engine.nodes
            loading = 0.0
            outcome = position.terminal_wdl(self.rules)
            if outcome is not None:
                value = outcome.score
            else:
                while True:
                    # (the kernel looks at the stop flag and the deadline as it starts)
                    try:
                        value, need = self.engine.run(position.own, position.opp, position.own_hand,
                                                      position.opp_hand, deadline or 0.0)
                    except RuntimeError:
                        # (the kernel's one RuntimeError: a leaf whose stored code is the
                        # slack marker, which files that pass their checksums hold only where
                        # they were written wrong)
                        raise CorruptDatabaseError(
                            f"the opening search met a position of the moving phase that its files "
                            f"do not hold (a slack code where it belongs): damaged databases of rules "
                            f"{self.rules.name} (a check of the folder names the file)") from None
                    if value is not None:
                        break
                    if need is None:
                        seconds = time.perf_counter() - start
                        asked = self.engine.stopping
                        why = "was asked to stop" if asked else "ran out of time"
                        raise SearchStoppedError(f"the opening search {why} after {seconds:.1f} s "
                                                 f"without a value", seconds, timed_out=not asked)
                    t = time.perf_counter()
                    self.engine.set_view(*need, self._view(*need))
                    loading += time.perf_counter() - t
            return SearchResult(WDL.from_score(value), self.engine.nodes - nodes0,
                                time.perf_counter() - start, loading)


# --- the opening book: values of every placement position up to some ply ------------------

def book_key(position: Position) -> int:
    """Key of a placement position, the same for all 16 images and both colours."""
    sub = Subspace.of(position)
    slot = sub.index(position.own, position.opp)
    return slot | sub.m << 30 | sub.o << 34 | sub.own_hand << 38 | sub.opp_hand << 42


class OpeningBook:
    """Win/draw/loss of placement positions (side to move), looked up by :func:`book_key`.

    Files are ``.npz`` archives (sorted keys, values 1/0/-1, rules, index scheme, plies),
    written under a temporary name and renamed when complete.
    """

    def __init__(self, rules: Rules, keys: np.ndarray, values: np.ndarray, plies: int):
        order = np.argsort(keys)
        self.rules, self.plies = rules, plies
        self.keys = np.ascontiguousarray(keys[order], dtype=np.uint64)
        self.values = np.ascontiguousarray(values[order], dtype=np.int8)

    def __len__(self) -> int:
        return len(self.keys)

    def get(self, position: Position, default=None) -> Optional[WDL]:
        """The value of a position in the book (any of its images), else ``default``
        (as :meth:`solver.probe.Database.get`)."""
        if not position.in_placement:
            return default
        key = np.uint64(book_key(position))
        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and self.keys[i] == key:
            return WDL.from_score(int(self.values[i]))
        return default

    @staticmethod
    def check_target(path) -> Path:
        """``path`` as a place to write a book (checked before the search that fills it):
        ValueError unless it is free or an opening book already (of any rules; it is
        replaced), and its folder exists.  Nothing else is ever written over: a database
        file, a device, a record."""
        if not str(path):
            raise ValueError("an opening book needs a file name (e.g. data/standard/opening-book.npz)")
        path = Path(path)
        if os.path.lexists(path):
            if path.is_symlink() or not path.is_file():
                raise ValueError(f"{path} is not a regular file: not written over (name a new file "
                                 f"for the opening book)")
            try:
                with zipfile.ZipFile(path) as archive:
                    is_book = {"keys.npy", "values.npy", "rules.npy", "plies.npy"} <= set(archive.namelist())
            except (OSError, zipfile.BadZipFile, ValueError):
                is_book = False
            if not is_book:
                raise ValueError(f"{path} exists and is not an opening book: not written over (remove "
                                 f"it, or name another file)")
        if not path.parent.is_dir():
            raise ValueError(f"cannot write opening book {path}: folder {path.parent} does not exist")
        return path

    def write(self, path) -> None:
        """Write the book to ``path`` (:meth:`check_target`): a temporary file beside it,
        renamed over it once whole."""
        path = self.check_target(path)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}.npz")
        try:
            np.savez_compressed(tmp, keys=self.keys, values=self.values,
                                rules=np.array(self.rules.name), plies=np.array(self.plies),
                                index_scheme=np.array(kernels_for(self.rules.board).INDEX_SCHEME))
            os.replace(tmp, path)
        except OSError as exc:
            raise OSError(f"cannot write opening book {path}: {(exc.strerror or str(exc)).lower()}") from None
        finally:
            if tmp.exists():
                tmp.unlink()

    @classmethod
    def read(cls, path, rules: Rules) -> "OpeningBook":
        storage.require_regular(path, "an opening book")
        try:
            with open(path, "rb") as raw:
                if raw.read(4) != b"PK\x03\x04":     # else numpy would speak of pickles
                    raise ValueError("not an .npz archive")
            with np.load(path, allow_pickle=False) as f:
                scheme = kernels_for(rules.board).INDEX_SCHEME
                if str(f["rules"]) != rules.name or str(f["index_scheme"]) != scheme:
                    raise ForeignDatabaseError(f"{path}: opening book for rules {str(f['rules'])!r}, index "
                                        f"{str(f['index_scheme'])!r}; wanted {rules.name!r}, "
                                        f"{scheme!r}")
                keys, values = f["keys"], f["values"]
                if (keys.dtype != np.uint64 or values.dtype != np.int8 or keys.ndim != 1
                        or keys.shape != values.shape or not np.all(keys[1:] > keys[:-1])
                        or not np.all((values >= -1) & (values <= 1))):
                    raise ValueError("its keys and values are not a book's (sorted uint64 keys, "
                                     "int8 values -1..1, as many of each)")
                return cls(rules, keys, values, int(f["plies"]))
        except (OSError, KeyError, ValueError, TypeError, EOFError, MemoryError, zipfile.BadZipFile,
                zlib.error) as exc:
            # (a damaged archive fails in zipfile's CRC-32 or in zlib, as it is read; one whose
            # arrays unpack to more than memory holds is no book this solver wrote)
            exc = exc if str(exc) else type(exc).__name__
            raise CorruptDatabaseError(f"cannot read opening book {path}: {exc}",
                                       remedy=Remedy(None, rules, " (delete it, or make it again with: {})",
                                                     book=path)) from None


def build_book(search: OpeningSearch, plies: int, start: Optional[Position] = None,
               progress: Callable[[int, int], None] | None = None) -> OpeningBook:
    """Solve every placement position reachable in at most ``plies`` plies from ``start``
    (default: the start position), once per symmetry class; games already over are left out.
    ``progress(ply, positions)`` is called as each ply begins."""
    rules = search.rules
    start = start or parse_position("startpos", rules)     # (on the rules' board)
    layer = {book_key(start): start}
    keys, values = [], []
    for ply in range(plies + 1):
        if progress:
            progress(ply, len(layer))
        nxt: dict[int, Position] = {}
        for key, pos in layer.items():
            keys.append(key)
            values.append(search.solve(pos).value.score)
            if ply < plies:
                for move in pos.legal_moves(rules):
                    child = pos.play_unchecked(move)
                    if child.in_placement and child.terminal_wdl(rules) is None:
                        nxt.setdefault(book_key(child), child)
        layer = nxt
    return OpeningBook(rules, np.array(keys, dtype=np.uint64), np.array(values, dtype=np.int8), plies)
