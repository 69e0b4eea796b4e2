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
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import time
from pathlib import Path

import h5py
import hdf5plugin
import numpy as np

from . import _kernels
from .errors import CorruptDatabaseError, DatabaseError, ForeignDatabaseError, MissingSubspaceError
from .index import Pair, Subspace
from .rules import Rules
from .values import summarize

FORMAT = "muehle-pair"
FORMAT_VERSION = 1
CHUNK = 1 << 16          # 128 KiB of values: a probe decompresses one chunk
DEFAULT_ROOT = Path("data")
#: This machine's name, in the temporary files it writes: the machines of a cluster
#: share a folder, and a process id means something only on its own machine.
HOST = socket.gethostname().replace("/", "_") or "localhost"


def solver_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("muehle")
    except PackageNotFoundError:
        return "unknown"


def rules_dir(root: Path | str, rules: Rules) -> Path:
    return Path(root) / rules.name


def pair_path(root: Path | str, rules: Rules, pair: tuple[int, int]) -> Path:
    """File that holds the pair {m, o}: a :class:`Pair`, or m and o in either order (so a
    moving :class:`Subspace` gives the file that holds it)."""
    return rules_dir(root, rules) / f"pair-{Pair(*pair).name}.h5"


def placement_path(root: Path | str, rules: Rules, sub: Subspace) -> Path:
    """File that holds the placement subspace ``sub`` (one file each: a build resumes
    at that grain, and the largest, 6e8 slots, is written in a few seconds)."""
    return rules_dir(root, rules) / f"place-{sub.name}.h5"


def subspace_path(root: Path | str, rules: Rules, sub: Subspace) -> Path:
    """File that holds ``sub``: its pair's file (moving phase) or its own (placement)."""
    return pair_path(root, rules, (sub.m, sub.o)) if sub.is_moving else placement_path(root, rules, sub)


def temporary_path(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place: ``.NAME.tmp-HOST-PID``."""
    return path.with_name(f".{path.name}.tmp-{HOST}-{os.getpid()}")


def temporary_owner(tmp: Path) -> tuple[str, int | None]:
    """(host, process id) that writes the temporary file ``tmp``; files named
    ``.NAME.tmp-PID`` (older builds) count as this host's."""
    owner = tmp.name.rpartition(".tmp-")[2]
    host, _, pid = owner.rpartition("-")
    return host or HOST, int(pid) if pid.isdigit() else None


def build_command(root: Path | str, rules: Rules, phase: str | None = None) -> str:
    """The command that builds the databases of ``rules`` under ``root`` (only ``phase``:
    moving or placement, if given).

    >>> build_command("data", Rules(stones=4, jumping=False, mill_rule="take-none"))
    'muehle build --db data --rules no-jumping --mill-rule take-none --stones 4'
    """
    words = ["muehle", "build", "--db", str(root)]
    if not rules.jumping:
        words += ["--rules", "no-jumping"]
    if rules.take_none:
        words += ["--mill-rule", "take-none"] if not rules.jumping else ["--rules", "take-none"]
    if rules.stones != 9:
        words += ["--stones", str(rules.stones)]
    if phase is not None:
        words += ["--phase", phase]
    return " ".join(words)


def sha256_of(codes: np.ndarray) -> str:
    """SHA-256 of the values as little-endian uint16, hashed in place (no copy)."""
    codes = np.ascontiguousarray(codes, dtype="<u2")
    digest = hashlib.sha256()
    data = memoryview(codes).cast("B")
    for start in range(0, len(data), 1 << 26):
        digest.update(data[start:start + (1 << 26)])
    return digest.hexdigest()


def _crash_point(point: str, path: Path) -> None:
    """Test hook: with ``MUEHLE_CRASH_AT=POINT:FILE`` in the environment the process kills
    itself (SIGKILL, as ``kill -9``) at POINT of writing FILE, so that the tests can prove
    what a crash at exactly that moment leaves behind (tests/test_crash.py).  Points:
    ``temporary-complete`` (the temporary file closed, not yet re-read), ``before-rename``
    (re-read and synced), ``after-rename`` (published)."""
    if os.environ.get("MUEHLE_CRASH_AT") == f"{point}:{path.name}":
        os.kill(os.getpid(), signal.SIGKILL)


def write_pair(path: Path, rules: Rules, values: dict, extra: dict | None = None) -> dict:
    """Write solved subspaces atomically (a pair, or one placement subspace); keys are
    (m, o) or :class:`~solver.index.Subspace`.  Returns the statistics written, by key."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    stats = {}
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["format"] = FORMAT
            f.attrs["format_version"] = FORMAT_VERSION
            f.attrs["rules"] = rules.name
            f.attrs["rules_json"] = json.dumps(rules.as_attrs())
            f.attrs["stones"] = rules.stones
            f.attrs["jumping"] = rules.jumping
            f.attrs["mill_rule"] = rules.mill_rule
            f.attrs["index_scheme"] = _kernels.INDEX_SCHEME
            f.attrs["solver_version"] = solver_version()
            f.attrs["build_time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            for key, value in (extra or {}).items():
                f.attrs[key] = value
            for key, codes in values.items():
                sub = Subspace(*key)
                codes = np.ascontiguousarray(codes, dtype=np.uint16)
                ds = f.create_dataset(sub.name, data=codes,
                                      chunks=(min(CHUNK, max(1, len(codes))),),
                                      shuffle=True, fletcher32=True,
                                      **hdf5plugin.Zstd(clevel=3))
                info = summarize(codes)
                info.update(m=sub.m, o=sub.o, own_hand=sub.own_hand, opp_hand=sub.opp_hand,
                            slots=len(codes), sha256=sha256_of(codes))
                for name, value in info.items():
                    ds.attrs[name] = value
                stats[key] = info
            f.attrs["complete"] = True
        _crash_point("temporary-complete", path)
        # Re-read before publishing: what is renamed into place is known to be readable,
        # and its SHA-256 (taken from the values in memory) proves it equal to them.
        for key in values:
            sub = Subspace(*key)
            read_subspace(tmp, rules, sub.m, sub.o, verify=True,
                          own_hand=sub.own_hand, opp_hand=sub.opp_hand)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        _crash_point("before-rename", path)
        os.replace(tmp, path)
        _crash_point("after-rename", path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return stats


def _open(path: Path, rules: Rules, subspace=None) -> h5py.File:
    """Open a pair file for reading after checking that it is one for ``rules``.

    ``subspace`` (one the caller wants from the file) goes into the
    MissingSubspaceError raised when the file does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise MissingSubspaceError(subspace if subspace is not None else path.name, path,
                                   f"missing database file {path}")
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise CorruptDatabaseError(f"cannot read database file {path}: {exc}") from None
    try:
        if f.attrs.get("format") != FORMAT:
            raise ForeignDatabaseError(f"{path} is not a complete muehle database file")
        if not f.attrs.get("complete", False):
            raise CorruptDatabaseError(f"{path} is not a complete muehle database file")
        if f.attrs.get("rules") != rules.name:
            raise ForeignDatabaseError(f"{path} was built for rules {f.attrs.get('rules')!r}, "
                                       f"not {rules.name!r}")
        if f.attrs.get("index_scheme") != _kernels.INDEX_SCHEME:
            raise ForeignDatabaseError(f"{path} uses index scheme {f.attrs.get('index_scheme')!r}, "
                                       f"this solver reads {_kernels.INDEX_SCHEME!r}: rebuild it")
    except DatabaseError:
        f.close()
        raise
    return f


def read_subspace(path: Path, rules: Rules, m: int, o: int, verify: bool = False,
                  own_hand: int = 0, opp_hand: int = 0) -> np.ndarray:
    """All value codes of subspace m-o (with hands: a placement subspace) from its file;
    ``verify`` checks the SHA-256."""
    sub = Subspace(m, o, own_hand, opp_hand)
    name = sub.name
    with _open(path, rules, sub) as f:
        if name not in f:
            raise ForeignDatabaseError(f"{path} has no subspace {name}")
        ds = f[name]
        try:
            codes = ds[()]
        except OSError as exc:
            raise CorruptDatabaseError(f"{path}: subspace {name} is damaged ({exc})") from None
        if len(codes) != sub.slots:
            raise CorruptDatabaseError(f"{path}: subspace {name} has {len(codes)} slots, expected "
                                       f"{sub.slots}")
        if verify and sha256_of(codes) != ds.attrs.get("sha256"):
            raise CorruptDatabaseError(f"{path}: subspace {name} fails its SHA-256 check")
    return codes


def read_subspace_wdl(path: Path, rules: Rules, m: int, o: int, block: int = 64 * CHUNK) -> np.ndarray:
    """The 2-bit win/draw/loss view of subspace m-o (see :mod:`solver.wdl`), read block by
    block, so that the uint16 codes never sit in memory whole."""
    from . import wdl

    sub = Subspace(m, o)
    name, slots = sub.name, sub.slots
    out = np.empty(wdl.packed_size(slots), dtype=np.uint8)
    assert block % 4 == 0
    with _open(path, rules, sub) as f:
        if name not in f:
            raise ForeignDatabaseError(f"{path} has no subspace {name}")
        ds = f[name]
        if ds.shape != (slots,):
            raise CorruptDatabaseError(f"{path}: subspace {name} has {ds.shape[0]} slots, expected {slots}")
        for start in range(0, slots, block):
            stop = min(slots, start + block)
            try:
                codes = ds[start:stop]
            except OSError as exc:
                raise CorruptDatabaseError(f"{path}: subspace {name} is damaged ({exc})") from None
            wdl.pack(codes, out[start // 4:wdl.packed_size(stop)])
    return out


def pair_stats(path: Path, rules: Rules) -> dict[str, dict]:
    """The statistics recorded for each subspace of a pair file, by subspace name."""
    with _open(path, rules) as f:
        return {name: {k: (v.item() if hasattr(v, "item") else v) for k, v in f[name].attrs.items()}
                for name in f}


def file_attrs(path: Path, rules: Rules) -> dict:
    with _open(path, rules) as f:
        return {k: (v.item() if hasattr(v, "item") else v) for k, v in f.attrs.items()}
