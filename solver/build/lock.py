"""One build a database folder at a time, and what killed builds left behind."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from .. import storage
from ..errors import DatabaseError

log = logging.getLogger("muehle.build")


class BuildLock:
    """One build per database folder: ``<folder>/.build.lock``, held with ``flock`` (so a
    killed build's lock is free again at once: the kernel drops it with the process), and
    naming its holder (pid, host, start time) for the build that finds it taken."""

    def __init__(self, folder: Path, made: tuple[Path, ...] = ()):
        self.path = Path(folder) / ".build.lock"
        self._fd: int | None = None
        self._folder_fd: int | None = None
        self._made = made           # (folders made for this build: removed if it fails in them empty)

    def __enter__(self) -> "BuildLock":
        import fcntl
        import json
        import socket
        import stat
        try:
            # not through a link: it is emptied below, and a link planted in a shared
            # folder would have a build empty whatever it points to
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            why = ("it is a symbolic link: remove it, a build makes its own"
                   if self.path.is_symlink() else exc.strerror or str(exc))
            raise DatabaseError(f"cannot open the build lock {self.path}: {why}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise DatabaseError(f"the build lock {self.path} is not a regular file: remove it, "
                                f"a build makes its own")
        def taken(held_fd: int) -> DatabaseError:
            try:
                holder = json.loads(os.pread(held_fd, 4096, 0) or b"{}")
                who = (f"pid {int(holder['pid'])} on {str(holder['host'])[:64]} since "
                       f"{str(holder['start'])[:32]}")
            except (ValueError, KeyError, TypeError, OSError):
                who = "another process"
            return DatabaseError(f"{self.path.parent} is being built by {who}; "
                                 f"wait for it to finish (lock {self.path})")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            error = taken(fd)
            os.close(fd)
            raise error from None
        try:
            current = os.stat(self.path, follow_symlinks=False).st_ino
        except OSError:
            current = None
        if current != os.fstat(fd).st_ino:
            # (a failed build removed the lock and its folder between our open and our
            # lock: what we hold is no longer the folder's lock)
            os.close(fd)
            raise DatabaseError(f"the build lock {self.path} was removed while this build took it "
                                f"(a build beside it failed and cleared its folder): run the build again")
        # The folder is locked too: a lock file deleted while a build holds it (by hand,
        # a clean-up script) would let a second build make a new one and run beside it;
        # the folder cannot go while it holds the files.  (Where the file system cannot
        # lock a folder, the file's lock is all there is.)
        try:
            folder_fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            folder_fd = None
        if folder_fd is not None:
            try:
                fcntl.flock(folder_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._folder_fd = folder_fd
            except BlockingIOError:
                os.close(folder_fd)
                error = taken(fd)     # (a new, empty lock file: "another process")
                os.close(fd)
                raise error from None
            except OSError:
                os.close(folder_fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                      "start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}).encode(), 0)
        except OSError as exc:      # a full disk: say which file, as every write error does
            os.close(fd)
            raise DatabaseError(f"cannot write the build lock {self.path}: {exc.strerror or exc}") from None
        self._fd = fd
        try:
            self._clear_leftovers()
        except OSError as exc:      # (__exit__ will not run: let the lock go here)
            self.__exit__()
            raise DatabaseError(f"cannot clear what killed builds left in {self.path.parent}: "
                                f"{exc.strerror or exc} ({exc.filename})") from None
        return self

    def _clear_leftovers(self) -> None:
        """What killed runs left that only a run holding this lock uses: the token files
        of a cluster build's check (deleted), the database files' temporaries written on
        this host (deleted, whatever process now has the number in their name: only a
        build holding this lock writes them, and none has started yet) and those written
        on other hosts (named in a warning: a machine of the cluster may still be
        writing one)."""
        folder = self.path.parent
        for token in folder.glob(".cluster-token-*"):
            token.unlink(missing_ok=True)
        for tmp in sorted(folder.glob(".*.tmp-*")):
            if not tmp.name.startswith((".pair-", ".place-", ".dtz")):
                continue                   # (an opening book's, written without the lock)
            host, _ = storage.temporary_owner(tmp)
            if host == storage.HOST:
                tmp.unlink(missing_ok=True)
            else:
                log.warning("leftover temporary file %s, written on host %s (a build killed "
                            "there?): delete it unless a build there is still writing it", tmp, host)

    def __exit__(self, *exc) -> None:
        if exc and exc[0] is not None and self._fd is not None:
            self._remove_made()         # (under the lock: no build takes it meanwhile)
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)          # releases the flock
            self._fd = None
        if self._folder_fd is not None:
            os.close(self._folder_fd)
            self._folder_fd = None

    def _remove_made(self) -> None:
        """A build refused or failed before it wrote a file (too little memory or disk, a
        bad plan) leaves no folder it made: one holding only its lock would be taken for
        a database folder by later commands, and a typo of --db would stay on disk.  A
        build that opened the lock meanwhile finds it gone when it takes it (above)."""
        folder = self.path.parent
        try:
            if folder not in self._made or any(p.name != self.path.name for p in folder.iterdir()):
                return
            self.path.unlink(missing_ok=True)
            for made in self._made:             # (the rules' folder first, then those above)
                made.rmdir()
        except OSError:
            pass                        # (another build came in, or a file: kept as it is)


def remove_stale_temporaries(folder: Path, name: str = "pair-*.h5") -> None:
    """Delete temporary files of ``name`` (a file name or pattern) left by killed writers.

    A temporary file names the host and process writing it (:func:`storage.temporary_path`);
    only those of this host whose process is gone are removed, so a folder shared by the
    machines of a cluster keeps the files other machines are writing.
    """
    if not folder.exists():
        return
    for tmp in folder.glob(f".{name}.tmp-*"):
        host, pid = storage.temporary_owner(tmp)
        if host == storage.HOST and not (pid is not None and _pid_alive(pid)):
            tmp.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
