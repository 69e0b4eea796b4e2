"""Database files: one HDF5 file per moving-phase pair and per placement subspace,
written atomically.

Layout: ``<root>/<rules name>/pair-<m>-<o>.h5`` (m <= o) holds one dataset per
subspace (``"m-o"`` and ``"o-m"``); ``<root>/<rules name>/place-<m>-<o>+<h>-<k>.h5``
holds the one placement subspace ``"m-o+h-k"`` (:mod:`solver.placement`).  Datasets
are uint16 value codes (see :mod:`solver.values`),
chunked, zstd-compressed and fletcher32-checksummed, with attributes recording the
rules, the index scheme, counts of wins/losses/draws, the longest win and loss, a
SHA-256 of the decoded values, the solver version and the build time.

A file is written under a temporary name and renamed only once it is complete and
re-read correctly, so a killed build never leaves a file that looks finished.

Readers never return a value they have not verified (docs/format.md).  Format 2 files
are written in HDF5's newer file format, whose metadata (superblock, object headers,
chunk index) carries checksums; each subspace also records the CRC-32 of every chunk of
decoded values, seeded with the subspace and the chunk number, so that a chunk read
from the wrong place is noticed as surely as a damaged one; and the attributes of the
file and of every subspace are covered by a SHA-256 of their own.  Format 1 files have
none of this: a reader checks a subspace's SHA-256 over all its values the first time
it touches it.  Every HDF5 failure becomes a :class:`CorruptDatabaseError` naming the file.
"""

from __future__ import annotations

import concurrent.futures
import errno
import hashlib
import json
import os
import signal
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import h5py
import hdf5plugin  # noqa: F401  (registers the zstd filter: HDF5's own reads, format 1 and other pipelines)
import numpy as np

from .board import STANDARD_BOARD, Board
from .errors import (CorruptDatabaseError, DatabaseError, Remedy, ForeignDatabaseError, InsufficientMemoryError,
                     MissingSubspaceError, echoed, one_line)
from .index import Pair, Subspace, shape_name
from .kernels import kernels_for
from .rules import Rules
from .values import summarize
from . import codec
from ._version import __version__

FORMAT = "muehle-pair"
FORMAT_VERSION = 2
CHUNK = codec.CHUNK      # 128 KiB of values: a probe decompresses one chunk
DEFAULT_ROOT = Path("data")
#: This machine's name, in the temporary files it writes: the machines of a cluster
#: share a folder, and a process id means something only on its own machine.
HOST = socket.gethostname().replace("/", "_") or "localhost"
META_KEY = "meta_sha256"         # SHA-256 of an object's other attributes
CRC_KEY = "chunk_crc32"          # per-chunk CRC-32 of the decoded values (format 2)
#: Characters of a library's message or a file's attribute quoted in one of ours.
QUOTE_LIMIT = 120
#: What an OSError says of the process or the system, not of the file: out of file
#: descriptors or memory, or no permission.
NOT_THE_FILE = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EACCES, errno.EPERM})


def rules_dir(root: Path | str, rules: Rules) -> Path:
    """The folder of ``rules``' files under ``root``."""
    return Path(root) / rules.name


def file_stem(m: int, o: int, h: int = 0, k: int = 0) -> str:
    """The name (without ``.h5``) of the file that holds subspace m-o+h-k, for any stone
    count (a plan of rules the kernels do not index names its files so too): the pair's
    for both subspaces of a moving pair, the subspace's own in the placement phase.

    >>> file_stem(4, 3), file_stem(2, 3, 1, 0)
    ('pair-3-4', 'place-2-3+1-0')
    """
    if not h and not k:
        return f"pair-{min(m, o)}-{max(m, o)}"
    return f"place-{shape_name(m, o, h, k)}"


def refuse_rules_folder(root: Path | str) -> None:
    """DatabaseError where ``root``, given as the folder of the rule sets' folders, holds
    database files itself: it is a rule set's folder, and a build would start again in
    ``<root>/<rules>``, a probe call every file there missing."""
    held = Path(root)
    if held.is_dir() and (next(held.glob("pair-*.h5"), None) or next(held.glob("place-*.h5"), None)):
        raise DatabaseError(f"{root} holds database files itself: it is a rule set's folder; "
                            f"the database folder is the one above it ({held.resolve().parent})")


def check_root(root: Path | str, rules: Rules) -> None:
    """DatabaseError, saying what to do, unless ``root`` is a folder where the folder of
    ``rules`` is one or may be made (it need hold no files yet; not a rule set's folder
    itself: :func:`refuse_rules_folder`)."""
    root = Path(root)
    refuse_rules_folder(root)
    if not root.exists():
        raise DatabaseError(f"database folder {root} does not exist", remedy=Remedy(root, rules))
    if not root.is_dir():
        raise DatabaseError(f"{root} is not a folder (the database folder holds the rules' folders: "
                            f"give one, such as {root.parent / 'data'})")
    folder = rules_dir(root, rules)
    if folder.is_symlink() and not folder.exists():
        # (a loop or a link to nothing: every file in it would read as "not built", and
        # a build would fail to make the folder)
        raise DatabaseError(f"{folder} is a link to {os.readlink(folder)}, which leads to no folder "
                            f"(a loop, or its target is gone): remove it or make its target")
    if folder.exists() and not folder.is_dir():
        raise DatabaseError(f"{folder} is a file where the folder of rules {rules.name} belongs: "
                            f"move it away")


def rule_set_folders(root: Path | str) -> list[tuple[Path, Rules]]:
    """The entries of ``root`` named as a rule set (:meth:`Rules.from_name`), in order of
    name, with their rules; other names passed by.  [] where ``root`` is no folder."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for entry in sorted(root.iterdir()):
        try:
            found.append((entry, Rules.from_name(entry.name)))
        except ValueError:
            continue
    return found


def pair_path(root: Path | str, rules: Rules, pair: tuple[int, int]) -> Path:
    """File that holds the pair {m, o}: a :class:`Pair`, or m and o in either order (so a
    moving :class:`Subspace` gives the file that holds it)."""
    pair = Pair(*pair, board=rules.board)
    return rules_dir(root, rules) / f"{file_stem(*pair)}.h5"


def rule_path(root: Path | str, rules: Rules, key, quiet_limit: int) -> Path:
    """File that holds the values under a rule of ``quiet_limit`` quiet plies
    (:mod:`solver.dtz`) of ``key``: a pair {m, o} (a :class:`Pair`, (m, o) in either
    order, or a moving subspace) or a placement subspace, named as its plain file with
    ``dtz<limit>-`` before, beside the plain tables.

    >>> rule_path("data", Rules(), (4, 3), 50).name, rule_path("data", Rules(), Subspace(2, 3, 1, 0), 100).name
    ('dtz50-pair-3-4.h5', 'dtz100-place-2-3+1-0.h5')
    """
    if isinstance(key, Subspace) and not key.is_moving:
        plain = placement_path(root, rules, key)
    else:
        plain = pair_path(root, rules, (key.m, key.o) if isinstance(key, Subspace) else key)
    return rules_dir(root, rules) / f"dtz{quiet_limit}-{plain.name}"


def placement_path(root: Path | str, rules: Rules, sub: Subspace) -> Path:
    """File that holds the placement subspace ``sub`` (one file each: a build resumes
    at that grain, and the largest, 6e8 slots, is written in a few seconds)."""
    return rules_dir(root, rules) / f"{file_stem(sub.m, sub.o, sub.own_hand, sub.opp_hand)}.h5"


def file_of(root: Path | str, rules: Rules, key: Pair | Subspace) -> Path:
    """File that holds ``key``: a pair's, a subspace's pair's (moving phase) or the
    subspace's own (placement phase); the file of :func:`holding`."""
    if isinstance(key, Pair):
        return pair_path(root, rules, key)
    return pair_path(root, rules, (key.m, key.o)) if key.is_moving else placement_path(root, rules, key)


def holding(key, board: Board = STANDARD_BOARD) -> Pair | Subspace:
    """What one file holds, given one of its subspaces (or a pair) of ``board``: a
    moving-phase subspace's pair, or the placement subspace itself."""
    if isinstance(key, Pair):
        return key
    # (a Subspace keeps its own board: the module of its stones, Board.indexing)
    sub = key if isinstance(key, Subspace) else Subspace(*key, board=board)
    return sub.pair if sub.is_moving else sub


def _contents(held: Pair | Subspace) -> tuple[str, str, set[str]]:
    """(attribute, its value, dataset names) of a file holding ``held``: a pair file
    records ``pair``, a placement file ``subspace``."""
    if isinstance(held, Pair):
        return "pair", held.name, {s.name for s in held.subspaces}
    return "subspace", held.name, {held.name}


def temporary_path(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place: ``.NAME.tmp-HOST-PID``."""
    return path.with_name(f".{path.name}.tmp-{HOST}-{os.getpid()}")


def temporary_owner(tmp: Path) -> tuple[str, int | None]:
    """(host, process id) that writes the temporary file ``tmp``; files named
    ``.NAME.tmp-PID`` (older builds) count as this host's."""
    owner = tmp.name.rpartition(".tmp-")[2]
    host, _, pid = owner.rpartition("-")
    return host or HOST, int(pid) if pid.isdigit() else None


def sha256_of(codes: np.ndarray) -> str:
    """SHA-256 of the values as little-endian uint16, hashed in place (no copy)."""
    digest = hashlib.sha256()
    _sha_update(digest, codes)
    return digest.hexdigest()


def _sha_update(digest, codes: np.ndarray) -> None:
    codes = np.ascontiguousarray(codes, dtype="<u2")
    data = memoryview(codes).cast("B")
    for start in range(0, len(data), 1 << 26):
        digest.update(data[start:start + (1 << 26)])


def chunk_crcs(name: str, codes: np.ndarray, first: int = 0) -> np.ndarray:
    """CRC-32 of each chunk of ``codes`` (starting at chunk number ``first``), seeded with
    the subspace's name and the chunk number: a chunk moved to another place fails."""
    codes = np.ascontiguousarray(codes, dtype="<u2")
    n = (len(codes) + CHUNK - 1) // CHUNK
    out = np.empty(n, dtype=np.uint32)
    for i in range(n):
        out[i] = codec.chunk_crc(name, first + i, codes[i * CHUNK:(i + 1) * CHUNK])
    return out


def _plain(value):
    """An attribute as a Python value (fixed-length strings, stored as bytes, as str)."""
    if isinstance(value, np.generic):
        value = value.item()
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _attrs(obj) -> dict:
    return {k: _plain(v) for k, v in obj.attrs.items()}


def _set_attr(obj, key: str, value) -> None:
    """Strings as fixed-length strings, inside the (checksummed) object header: variable-
    length ones live in HDF5's global heap, which has no checksum, and a damaged global
    heap can keep the library busy for ever."""
    if isinstance(value, str):
        value = np.bytes_(value.encode("utf-8"))
    obj.attrs[key] = value


def meta_digest(attrs) -> str:
    """SHA-256 over an HDF5 object's attributes (all but :data:`META_KEY`), by name."""
    digest = hashlib.sha256()
    for key in sorted(attrs):
        if key == META_KEY:
            continue
        value = attrs[key]
        if isinstance(value, np.ndarray):
            data = value.dtype.str.encode() + value.tobytes()
        else:
            data = repr(_plain(value)).encode()
        digest.update(key.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def _crash_point(point: str, path: Path) -> None:
    """Test hook: with ``MUEHLE_CRASH_AT=POINT:FILE`` in the environment the process kills
    itself (SIGKILL, as ``kill -9``) at POINT of writing FILE, so that the tests can prove
    what a crash at exactly that moment leaves behind (tests/test_crash.py).  Points:
    ``temporary-complete`` (the temporary file closed, not yet re-read), ``before-rename``
    (re-read and synced), ``after-rename`` (published).  ``MUEHLE_HOLD_AT=POINT:FILE``
holds the process there instead (``MUEHLE_HOLD_FLAG``: a file it makes once held)."""
    if os.environ.get("MUEHLE_CRASH_AT") == f"{point}:{path.name}":
        os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get("MUEHLE_HOLD_AT") == f"{point}:{path.name}":
        # The other hook of the tests: the writer stops there for good (until killed),
        # first making the file MUEHLE_HOLD_FLAG names, so that a test interrupts a build
        # known to be at work, never one that may have finished (a race by timing).
        flag = os.environ.get("MUEHLE_HOLD_FLAG")
        if flag:
            Path(flag).write_text(str(os.getpid()))
        while True:
            time.sleep(3600)


@contextmanager
def hdf5_errors(path: Path, what: str = "is damaged"):
    """Turn any failure of the HDF5 library inside the block into one DatabaseError
    naming the file (h5py raises OSError, KeyError, RuntimeError, ValueError, ...)."""
    try:
        yield
    except DatabaseError:
        raise
    except MemoryError:
        # (every shape is checked against the index before a read, so this is a machine,
        # a container or a ulimit too small, not damage: a build must not take the file
        # for unusable and build it again)
        raise InsufficientMemoryError(f"not enough memory to read {path} (the machine's, a "
                                      f"container's limit or ulimit -v)") from None
    except Exception as exc:            # noqa: BLE001 - any library failure is damage
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
            # (the threads that decode or encode a file's chunks; under ulimit -v their
            # stacks and malloc arenas are what runs out)
            raise InsufficientMemoryError(f"not enough memory for the threads that read or write "
                                          f"{path} (the machine's, a container's limit or ulimit -v)") from None
        raise CorruptDatabaseError(f"{path} {what}: {one_line(exc, QUOTE_LIMIT)}") from None


def write_file(path: Path, rules: Rules, values: dict, extra: dict | None = None,
               release: bool = False, quiet_limit: int | None = None,
               histograms: dict | None = None, dice: str | None = None,
               ceylonese: str | None = None) -> dict:
    """Write solved subspaces atomically (a pair, or one placement subspace); keys are
    (m, o) or :class:`~solver.index.Subspace`.  Returns the statistics written, by key.
    ``release``: each subspace's codes are let go (``values[key]`` becomes None) once
    they are compressed into the file's image, so that a write in the background holds
    the pair's codes only until then, not while the image is written and re-read.
    ``quiet_limit``: the values are DTZ codes under that rule (:mod:`solver.dtz`),
    recorded as the attribute ``quiet_limit``, which readers ask for.  ``histograms``
    (by key, as :meth:`SubspaceReader.histogram` counts them): the statistics to record
    where the codes written are not the values themselves but their differences from
    another file's (``extra``'s ``against``: the rule's placement files, :mod:`solver.dtz`).
    ``dice``: the values are dice mill's expected results under that dice rule
    (:mod:`solver.dice_tables`): uint32 a slot, stored as two uint16 entries (W, N), with
    no statistics of codes.  ``ceylonese``: the values are Ceylonese mill's under the
    Ceylonese rule of that name (:mod:`solver.ceylonese_tables`; codes as every file's,
    turns for plies).

    A failing disk (full, file size limit, I/O error) gives one DatabaseError naming the
    file, and the temporary is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    stats = {}
    held = holding(next(iter(values)), rules.board)
    try:
        # HDF5 builds the file in memory and Python writes it: a failing disk (full,
        # ulimit -f) is then an ordinary OSError, where a failed write inside HDF5 leaves
        # the library in a state that crashed the process at exit.
        with hdf5_errors(path, "could not be written"):
            f = h5py.File(tmp.name, "w", driver="core", backing_store=False, libver="latest")
            try:
                stats = _write_contents(f, rules, values, held, extra, release, quiet_limit, histograms, dice,
                                        ceylonese)
                f.flush()
                image = f.id.get_file_image()
            finally:
                f.close()
        try:
            with open(tmp, "wb") as fh:
                fh.write(image)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise CorruptDatabaseError(f"{path} could not be written: {one_line(exc, QUOTE_LIMIT)}") from None
        del image
        _crash_point("temporary-complete", path)
        # Re-read before publishing: what is renamed into place is known to be readable,
        # and its SHA-256 (taken from the values in memory) proves it equal to them.  The
        # re-read goes block by block: a whole copy would add 2 bytes a slot to the peak.
        for key in values:
            sub = Subspace(*key, board=rules.board)
            with open_file(tmp, rules, sub, sub, quiet_limit=quiet_limit, dice=dice, ceylonese=ceylonese) as f:
                # (no statistics: they were counted from the values whose SHA-256 this
                # checks, so a match proves them too)
                SubspaceReader(f, tmp, sub).verify(stats=False)
        _crash_point("before-rename", path)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise CorruptDatabaseError(f"{path} could not be written: {one_line(exc, QUOTE_LIMIT)}") from None
        _crash_point("after-rename", path)
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return stats


#: The name :func:`write_file` had while pair files were all it wrote (kept for programs
#: that call it; placement files and the rule's go through it too).
write_pair = write_file


def _write_contents(f: h5py.File, rules: Rules, values, held: Pair | Subspace, extra,
                    release: bool = False, quiet_limit: int | None = None,
                    histograms: dict | None = None, dice: str | None = None,
                    ceylonese: str | None = None) -> dict:
    stats = {}
    attribute, name, names = _contents(held)
    if {shape_name(*key) for key in values} != names:
        raise ValueError(f"a file of {name} holds {sorted(names)}, not {sorted(map(str, values))}")
    _set_attr(f, "format", FORMAT)
    _set_attr(f, "format_version", FORMAT_VERSION)
    _set_attr(f, attribute, name)
    _set_attr(f, "rules", rules.name)
    _set_attr(f, "rules_json", json.dumps(rules.as_attrs()))
    # Each option as its own attribute too; the options beyond the first three only
    # where the rules have them (as_attrs), so standard files keep their attributes.
    for key, value in rules.as_attrs().items():
        if key != "name":
            _set_attr(f, key, value)
    _set_attr(f, "index_scheme", kernels_for(rules.board).INDEX_SCHEME)
    _set_attr(f, "solver_version", __version__)
    _set_attr(f, "build_time", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    if quiet_limit is not None:
        _set_attr(f, "quiet_limit", quiet_limit)
    if dice is not None:
        _set_attr(f, "dice", dice)
    if ceylonese is not None:
        _set_attr(f, "ceylonese", ceylonese)
    for key, value in (extra or {}).items():
        _set_attr(f, key, value)
    for key, codes in values.items():
        sub = Subspace(*key, board=rules.board)
        name = sub.name
        if dice is not None:         # (W, N) a slot, as two uint16 entries: no codes to count
            codes = np.ascontiguousarray(codes, dtype=np.uint32).view(np.uint16)
            info = {}
        else:
            codes = np.ascontiguousarray(codes, dtype=np.uint16)
            # (a placement file of the rule counts plain codes: values.summarize's own)
            hist = (histograms or {}).get(key)
            info = summarize(kernels_for(rules.board).code_histogram(codes) if hist is None else hist,
                             quiet_limit if isinstance(held, Pair) else None)
        # the SHA-256 (one core, GIL released) beside the chunks' compression
        with concurrent.futures.ThreadPoolExecutor(1) as digest:
            sha = digest.submit(sha256_of, codes)
            ds = codec.create(f, name, len(codes))
            crcs = codec.write(ds, name, codes)
            info.update(m=sub.m, o=sub.o, own_hand=sub.own_hand, opp_hand=sub.opp_hand,
                        slots=sub.slots, sha256=sha.result())
        for attr, value in info.items():
            _set_attr(ds, attr, value)
        ds.attrs[CRC_KEY] = crcs
        _set_attr(ds, META_KEY, meta_digest(_attrs(ds)))
        stats[key] = info
        if release:
            values[key] = codes = None
    _set_attr(f, "complete", True)
    _set_attr(f, META_KEY, meta_digest(_attrs(f)))
    return stats


def require_regular(path: Path, what: str = "a database file") -> None:
    """CorruptDatabaseError unless ``path`` (which exists) is a regular file: opening a
    FIFO blocks until a writer comes, a device reads for ever."""
    if Path(path).is_dir():                # (build leaves a folder alone: it may hold files)
        raise CorruptDatabaseError(f"{path} is a folder, not {what}: move it away, then build again")
    if not Path(path).is_file():
        raise CorruptDatabaseError(f"{path} is not a regular file, as {what} is: rebuild it")


def open_file(path: Path, rules: Rules, held=None, subspace=None, quiet_limit: int | None = None,
              dice: str | None = None, ceylonese: str | None = None, **kwargs) -> h5py.File:
    """Open a database file and check what it says it is: format, completeness, rules,
    index scheme, its attributes' checksum, the kind of values (plain, or under a rule of
    ``quiet_limit`` quiet plies: :mod:`solver.dtz`; or dice mill's under the dice rule
    named ``dice``: :mod:`solver.dice_tables`; or Ceylonese mill's under the Ceylonese
    rule named ``ceylonese``: :mod:`solver.ceylonese_tables`) and (given ``held``: a pair, or a
    subspace whose file it is, see :func:`holding`) that it holds exactly those subspaces.

    ``subspace`` (one the caller wants from the file) goes into the
    MissingSubspaceError raised when the file does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise MissingSubspaceError(subspace if subspace is not None else path.name, path,
                                   f"missing database file {path}")
    require_regular(path)
    with hdf5_errors(path, "cannot be read (damaged or not a database file)"):
        try:
            f = h5py.File(path, "r", **kwargs)
        except OSError as exc:
            if exc.errno in NOT_THE_FILE:
                # The process or the system, not the file: no advice to rebuild it, and a
                # build that meets this stops rather than replace a good file.
                raise DatabaseError(f"cannot open database file {path}: "
                                    f"{os.strerror(exc.errno).lower()}") from None
            raise CorruptDatabaseError(f"cannot read database file {path}: {one_line(exc, QUOTE_LIMIT)}") from None
    try:
        with hdf5_errors(path):
            attrs = _attrs(f)
            if attrs.get("format") != FORMAT:
                raise ForeignDatabaseError(f"{path} is not a complete muehle database file")
            if attrs.get("rules") != rules.name:
                raise ForeignDatabaseError(f"{path} was built for rules "
                                           f"{echoed(attrs.get('rules'), QUOTE_LIMIT)}, not {rules.name!r}")
            scheme = kernels_for(rules.board).INDEX_SCHEME
            if attrs.get("index_scheme") != scheme:
                raise ForeignDatabaseError(
                    f"{path} uses index scheme {echoed(attrs.get('index_scheme'), QUOTE_LIMIT)}, "
                    f"this solver reads {scheme!r}: rebuild it")
            if not attrs.get("complete", False):
                raise CorruptDatabaseError(f"{path} is not a complete muehle database file")
            version = _plain(attrs.get("format_version"))
            if version not in (1, FORMAT_VERSION):
                raise ForeignDatabaseError(f"{path} has format version {echoed(version, QUOTE_LIMIT)}, "
                                           f"this solver reads 1 and {FORMAT_VERSION}: rebuild it")
            if version >= 2 and attrs.get(META_KEY) != meta_digest(attrs):
                raise CorruptDatabaseError(f"{path} is damaged: its attributes fail their checksum")
            limit = _plain(attrs.get("quiet_limit"))
            if limit != quiet_limit:
                raise ForeignDatabaseError(
                    f"{path} holds plain values, not those of the quiet-ply rule" if limit is None else
                    f"{path} holds values under a rule of {echoed(limit, QUOTE_LIMIT)} quiet "
                    f"plies, not plain values" if quiet_limit is None else
                    f"{path} was built for a rule of {echoed(limit, QUOTE_LIMIT)} quiet plies, "
                    f"not {quiet_limit}")
            _require_kind(path, attrs, {"dice": dice, "ceylonese": ceylonese})
            if held is not None:
                attribute, name, expected = _contents(holding(held, rules.board))
                names = set(f.keys())
                if names != expected or (version >= 2 and attrs.get(attribute) != name):
                    raise ForeignDatabaseError(f"{path} does not hold {attribute} {name} (it holds "
                                               f"{one_line(', '.join(sorted(names)) or 'nothing', QUOTE_LIMIT)})")
    except DatabaseError:
        f.close()
        raise
    return f


#: The games whose files say so by an attribute (its value: the game's rule), with
#: their names and the word for their rule: a file without any holds plain values.
GAME_KINDS = (("dice", "dice mill", "dice rule"), ("ceylonese", "Ceylonese mill", "rule"))


def _require_kind(path: Path, attrs: dict, wanted: dict[str, str | None]) -> None:
    """ForeignDatabaseError unless the file's kind of values (a game's under a rule of
    that name, by the attributes of :data:`GAME_KINDS`; none in a file of plain values)
    is the one ``wanted`` names (attribute: rule, None where not that game's)."""
    held = {attr: _plain(attrs.get(attr)) for attr, _, _ in GAME_KINDS}

    def what(kinds: dict) -> str:
        return next((f"{game}'s values" for attr, game, _ in GAME_KINDS if kinds.get(attr) is not None),
                    "plain values")

    for attr, game, rule in GAME_KINDS:
        if held[attr] == wanted.get(attr):
            continue
        if held[attr] is not None and wanted.get(attr) is not None:     # (the game's, another rule)
            raise ForeignDatabaseError(f"{path} holds {game}'s values under {rule} "
                                       f"{echoed(held[attr], QUOTE_LIMIT)}, not {wanted[attr]!r}")
        theirs = what(wanted)
        raise ForeignDatabaseError(f"{path} holds {what(held)}, not "
                                   f"{'plain ones' if theirs == 'plain values' else theirs.removesuffix(' values')}")


class SubspaceReader:
    """Verified reads of one subspace of an open database file.

    Format 2: every chunk read is checked against its CRC-32 (attributes checked first).
    Format 1: the first read checks the SHA-256 of all the subspace's values."""

    def __init__(self, f: h5py.File, path: Path, sub: Subspace):
        sub = sub if isinstance(sub, Subspace) else Subspace(*sub)
        self.path, self.name, self.board = Path(path), sub.name, sub.board
        with hdf5_errors(self.path):
            #: entries a slot: 2 in a file of dice mill's values (W, N), else 1
            self.width = 1 if f.attrs.get("dice") is None else 2
            #: entries of the dataset (what read, verify and all count in)
            self.slots = sub.slots * self.width
            if self.name not in f:
                raise ForeignDatabaseError(f"{path} has no subspace {self.name}")
            ds = f[self.name]
            attrs = _attrs(ds)
            self.version = _plain(f.attrs.get("format_version"))
            if self.version >= 2 and attrs.get(META_KEY) != meta_digest(attrs):
                raise CorruptDatabaseError(f"{path}: subspace {self.name} is damaged "
                                    f"(its attributes fail their checksum)")
            if ds.shape != (self.slots,) or ds.dtype != np.uint16:
                raise CorruptDatabaseError(f"{path}: subspace {self.name} has shape {ds.shape} and type "
                                    f"{ds.dtype}, expected ({self.slots},) uint16")
            if self.version >= 2:
                self.crcs = np.asarray(attrs.get(CRC_KEY), dtype=np.uint32)
                if self.crcs.shape != ((self.slots + CHUNK - 1) // CHUNK,):
                    raise CorruptDatabaseError(f"{path}: subspace {self.name} has a damaged chunk table")
            self.sha256 = attrs.get("sha256")
            # (DTZ codes in a pair file of the rule; a placement file of it holds plain codes,
            # stored against the plain placement file: solver.dtz restores them)
            self.quiet_limit = _plain(f.attrs.get("quiet_limit")) if sub.is_moving else None
            #: the file whose codes these are differences from (None: the values themselves)
            self.against = _plain(f.attrs.get("against"))
            # (under mixed placement the codes themselves: their plies vary, solver.dtz.store_cycle)
            if (not sub.is_moving and f.attrs.get("quiet_limit") is not None and self.against is None
                    and _plain(f.attrs.get("placement")) != "mixed"):
                raise ForeignDatabaseError(f"{path} holds the values of the quiet-ply rule in an earlier "
                                           f"encoding, not against the plain placement file: rebuild it")
            self.attrs = {k: _plain(v) for k, v in attrs.items() if k not in (CRC_KEY, META_KEY)}
        self.ds = ds
        self.verified = self.version >= 2      # format 1: after the first whole check
        with hdf5_errors(self.path):
            self.direct = self.version >= 2 and codec.codable(ds)   # decoded in threads

    def _raw(self, start: int, stop: int) -> np.ndarray:
        with hdf5_errors(self.path):
            try:
                return self.ds[start:stop]
            except OSError as exc:
                raise CorruptDatabaseError(f"{self.path}: subspace {self.name} is damaged "
                                    f"({one_line(exc, QUOTE_LIMIT)})") from None

    def _verify_whole(self) -> None:
        digest = hashlib.sha256()
        for start in range(0, self.slots, 64 * CHUNK):
            _sha_update(digest, self._raw(start, min(self.slots, start + 64 * CHUNK)))
        if digest.hexdigest() != self.sha256:
            raise CorruptDatabaseError(f"{self.path}: subspace {self.name} fails its SHA-256 check")
        self.verified = True

    def read(self, start: int, stop: int) -> np.ndarray:
        """Values of slots start..stop, verified (the whole chunks around them are read)."""
        if not self.verified:
            self._verify_whole()
        if self.version < 2:
            return self._raw(start, stop)
        first = start // CHUNK
        lo, hi = first * CHUNK, min(self.slots, -(-stop // CHUNK) * CHUNK)
        if self.direct:
            with hdf5_errors(self.path):
                codes = codec.read(self.ds, self.name, first, -(-hi // CHUNK), self.crcs, self.path)
            return codes[start - lo:stop - lo]
        codes = self._raw(lo, hi)
        crcs = chunk_crcs(self.name, codes, first)
        if not np.array_equal(crcs, self.crcs[first:first + len(crcs)]):
            raise CorruptDatabaseError(f"{self.path}: subspace {self.name} is damaged "
                                       f"(a chunk near slot {start} fails its CRC-32)")
        return codes[start - lo:stop - lo]

    def read_chunks(self, chunks: Sequence[int]) -> list[np.ndarray]:
        """The values of the chunks numbered ``chunks`` (of :data:`CHUNK` slots; the last
        may be shorter), verified as :meth:`read` verifies them, decoded in threads."""
        if self.direct:
            with hdf5_errors(self.path):
                return codec.read_chunks(self.ds, self.name, chunks, self.crcs, self.path)
        return [self.read(k * CHUNK, min(self.slots, (k + 1) * CHUNK)) for k in chunks]

    def verify(self, block: int = 64 * CHUNK, stats: bool = True) -> None:
        """Check every chunk's CRC-32, the SHA-256 of the whole and (``stats``) the
        recorded statistics (:meth:`check_stats`), block by block (so that a subspace's
        values never sit in memory whole); a block's SHA-256 runs in a thread of its own
        while the next block is read (two blocks in memory at most)."""
        digest = hashlib.sha256()
        hist = np.zeros(0x10000, dtype=np.int64)
        with concurrent.futures.ThreadPoolExecutor(1) as hasher:
            hashed = hasher.submit(lambda: None)
            for start in range(0, self.slots, block):
                codes = self.read(start, min(self.slots, start + block))
                hashed.result()
                hashed = hasher.submit(_sha_update, digest, codes)
                if stats:
                    hist += self.histogram(codes)
            hashed.result()
        if self.version >= 2 and digest.hexdigest() != self.sha256:
            raise CorruptDatabaseError(f"{self.path}: subspace {self.name} fails its SHA-256 check")
        if stats:
            self.check_stats(hist)

    def all(self, sha256: bool = False) -> np.ndarray:
        """Every value; ``sha256`` also checks the SHA-256 of the whole and the
        statistics recorded beside it (:meth:`check_stats`)."""
        codes = self.read(0, self.slots)
        if sha256:
            if self.version >= 2 and sha256_of(codes) != self.sha256:
                raise CorruptDatabaseError(f"{self.path}: subspace {self.name} fails its SHA-256 check")
            self.check_stats(self.histogram(codes))
        return codes

    def histogram(self, codes: np.ndarray) -> np.ndarray:
        """How many of ``codes`` hold each code (for :meth:`check_stats`; add blocks' up)."""
        return kernels_for(self.board).code_histogram(np.ascontiguousarray(codes, dtype=np.uint16))

    def check_stats(self, hist: np.ndarray, restored: bool = False) -> None:
        """CorruptDatabaseError unless the counts and longest win and loss the file
        records (what ``muehle stats`` prints, written by the build) are those of its
        values (``hist``, over every slot), so that a header edited with its checksum
        made again cannot pass for the values' statistics.  A file stored ``against``
        another records the statistics of the values its codes restore: only their
        restorer can count them (:func:`solver.dtz.read_placement`), so here ``hist``
        must be of those (``restored``)."""
        if self.against is not None and not restored:
            return
        counted = summarize(hist, self.quiet_limit)
        wrong = [f"{key}: {self.attrs[key]:,} recorded, {value:,} counted"
                 for key, value in counted.items() if key in self.attrs and self.attrs[key] != value]
        if wrong:
            raise CorruptDatabaseError(f"{self.path}: subspace {self.name} records statistics its "
                                       f"values do not have ({wrong[0]})")


def read_subspace(path: Path, rules: Rules, m: int, o: int, verify: bool = False,
                  own_hand: int = 0, opp_hand: int = 0, quiet_limit: int | None = None) -> np.ndarray:
    """All value codes of subspace m-o (with hands: a placement subspace) from its file,
    verified (see the module's docstring); ``verify`` also checks the SHA-256 of the whole.
    ``quiet_limit``: a file of DTZ codes under that rule (:func:`rule_path`)."""
    sub = Subspace(m, o, own_hand, opp_hand, board=rules.board)
    with open_file(path, rules, sub, sub, quiet_limit=quiet_limit) as f:
        return SubspaceReader(f, path, sub).all(sha256=verify)


def read_subspace_wdl(path: Path, rules: Rules, m: int, o: int, block: int = 64 * CHUNK) -> np.ndarray:
    """The 2-bit win/draw/loss view of subspace m-o (see :mod:`solver.wdl`), read block by
    block, so that the uint16 codes never sit in memory whole."""
    from . import wdl

    sub = Subspace(m, o, board=rules.board)
    slots = sub.slots
    out = np.empty(wdl.packed_size(slots), dtype=np.uint8)
    assert block % 4 == 0
    with open_file(path, rules, sub, sub) as f:
        reader = SubspaceReader(f, path, sub)
        for start in range(0, slots, block):
            stop = min(slots, start + block)
            wdl.pack(reader.read(start, stop), out[start // 4:wdl.packed_size(stop)])
    return out


def pair_stats(path: Path, rules: Rules, held=None, quiet_limit: int | None = None,
               ceylonese: str | None = None) -> dict[str, dict]:
    """The statistics recorded for each subspace of a file (a pair's or a placement
    subspace's), by subspace name (format 2: covered by the attributes' checksum);
    ``quiet_limit``, ``ceylonese``: a file of those tables (:func:`open_file`)."""
    with open_file(path, rules, held, quiet_limit=quiet_limit, ceylonese=ceylonese) as f:
        return {name: SubspaceReader(f, path, Subspace.parse(name, rules.board)).attrs
                for name in sorted(f.keys())}


def file_attrs(path: Path, rules: Rules, held=None, quiet_limit: int | None = None) -> dict:
    """The attributes of a database file (rules, statistics, ...) after it is opened and
    checked as every read is (:func:`open_file`; ``quiet_limit``: a file of that
    quiet-ply rule's tables)."""
    with open_file(path, rules, held, quiet_limit=quiet_limit) as f, hdf5_errors(Path(path)):
        return _attrs(f)
