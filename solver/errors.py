"""Every error the package raises for bad input or a bad database, by kind.

The command line reports each of them as one line (``muehle: error: <message>``,
exit status 2; ``check`` and ``stats`` exit 1 where the database they judge is at
fault); a program catches the kind it can handle.  Modelled on
python-chess: notation errors are ``ValueError``\\ s, and a subspace that is not
built is also a ``KeyError`` (like a missing table of a tablebase).

::

    MuehleError
    ├── NotationError (ValueError)      text that is no position or move, or a move not legal
    │   ├── InvalidNotationError        not well formed: 'd9', 'W:a1 B:', a bad record line
    │   ├── IllegalMoveError            well formed, but not legal in the position
    │   │   └── GameOverError           no move is legal: the game is over
    │   └── AmbiguousMoveError          a mill closed without naming the stone it takes
    ├── DatabaseError                   a database cannot answer or cannot be built
    │   ├── MissingSubspaceError (KeyError)   the file of a subspace is not built
    │   ├── CorruptDatabaseError        a damaged or incomplete file
    │   ├── ForeignDatabaseError        a file of other rules, another index scheme or pair,
    │   │                               or not a muehle file at all
    │   ├── InsufficientMemoryError     a build that would not fit in memory
    │   └── ConsistencyError            solved values that disagree with their successors
    ├── SearchStoppedError              an opening search stopped (out of time, or asked to)
    ├── ClusterError                    a cluster that cannot run a build: no Dask, a
    │                                   scheduler that does not answer, workers that
    │                                   cannot see the database folder
    └── UnsupportedRulesError (ValueError)  rules (a board, an option) that the compiled
                                        kernels do not handle yet: the reference rules
                                        play them, nothing solves or probes them

>>> issubclass(AmbiguousMoveError, ValueError), issubclass(MissingSubspaceError, KeyError)
(True, True)
>>> missing = MissingSubspaceError("4-5", "data/standard/pair-4-5.h5", "subspace 4-5 is not built")
>>> missing.path, isinstance(missing, DatabaseError)
(PosixPath('data/standard/pair-4-5.h5'), True)

This module imports nothing from the package: every other module may use it (also
for :func:`integer`, the one test of an integer argument that the value types share,
:func:`seconds_of`, the one test of a time in seconds, and :func:`one_line`, the form of
every message a user is shown).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

__all__ = ["MuehleError", "NotationError", "InvalidNotationError", "IllegalMoveError",
           "GameOverError", "AmbiguousMoveError", "DatabaseError", "MissingSubspaceError",
           "CorruptDatabaseError", "ForeignDatabaseError", "InsufficientMemoryError",
           "ConsistencyError", "ClusterError", "SearchStoppedError", "UnsupportedRulesError",
           "Remedy", "with_remedy", "BUILD_IT", "REBUILD_IT", "Notice"]


class MuehleError(Exception):
    """Base of the package's errors; the message says what is wrong, in one sentence."""

    def __str__(self) -> str:
        # One message, whatever the other bases (KeyError would quote it).
        return str(self.args[0]) if self.args else ""

    def prefixed(self, prefix: str) -> "MuehleError":
        """A copy of this error, of the same kind and with the same data, whose message
        starts with ``prefix`` (e.g. the line of a game record it came from)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.args = (f"{prefix}{self}",) + self.args[1:]
        return other

    def __reduce__(self):
        # Errors cross processes (the workers of a cluster build send them back); the
        # default would call __init__ with args alone, which not every kind accepts.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(kind: type, args: tuple, state: dict) -> MuehleError:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(state)
    return error


# --- positions and moves -------------------------------------------------------------

class NotationError(MuehleError, ValueError):
    """Text that is not a valid position or move here; the message says what is wrong."""


class InvalidNotationError(NotationError):
    """Text that is not a position or move at all (a syntax error)."""


class IllegalMoveError(NotationError):
    """A well-formed move that is not legal in the position; ``move`` is the move
    (a :class:`solver.position.Move`) where it is known."""

    def __init__(self, message: str, move: Any = None):
        super().__init__(message)
        self.move = move


class GameOverError(IllegalMoveError):
    """A move asked for, or played, after the game has ended."""


class AmbiguousMoveError(NotationError):
    """A move that closes a mill and does not say which stone it takes.

    ``move`` is the move as given (``take`` None); ``takes`` are the legal moves it
    may mean, one per stone the mill may take.
    """

    def __init__(self, message: str, move: Any = None, takes: Sequence[Any] = ()):
        super().__init__(message)
        self.move = move
        self.takes = list(takes)


# --- databases ---------------------------------------------------------------------

#: How a message goes on with its remedy's command (:attr:`Remedy.advice`): a file
#: missing, a file damaged or foreign.
BUILD_IT, REBUILD_IT = " (build it with: {})", "; rebuild it with: {}"


@dataclass(frozen=True)
class Remedy:
    """The build that makes again what a :class:`DatabaseError` names, as data: an
    interface says it in its own terms (the command line as a ``muehle`` command,
    :func:`solver.commands.explained`), so that no layer below the interfaces writes
    command lines.

    ``needed``: the pairs and placement subspaces to build (the narrowest build of them
    all), else the build of ``rules`` under ``root`` (``phase``, ``pair``,
    ``quiet_limit`` as a build takes them; ``dice``: dice mill's tables of that dice
    rule's name; ``ceylonese``: Ceylonese mill's tables of that Ceylonese rule's name); ``book``: the opening book to write again
    instead.  ``advice``: how the message goes on, with ``{}`` where the command goes
    (" (build it with: {})", "; rebuild it with: {}").

    >>> Remedy("data", None, "; rebuild it with: {}", needed=("4-5",)).advice.format("CMD")
    '; rebuild it with: CMD'
    """

    root: Any
    rules: Any
    advice: str = BUILD_IT
    needed: tuple = ()
    phase: str | None = None
    pair: tuple | None = None
    quiet_limit: int | None = None
    book: Any = None
    dice: str | None = None
    ceylonese: str | None = None


class Notice(str):
    """A message that is no error, with the :class:`Remedy` (or None) an interface may
    add to it as it adds an error's (:func:`solver.commands.explained`): a note that the
    placement phase's files would make an answer instant.

    >>> note = Notice("the opening search answers", Remedy("db", None, "; {} makes it instant"))
    >>> str(note), note.remedy.advice
    ('the opening search answers', '; {} makes it instant')
    """

    def __new__(cls, text: str, remedy: Remedy | None = None) -> "Notice":
        self = super().__new__(cls, text)
        self.remedy = remedy
        return self


class DatabaseError(MuehleError):
    """A database that is missing, damaged, foreign or cannot be built; the message says
    which, and ``remedy`` (a :class:`Remedy`, or None) what builds it again."""

    remedy: Remedy | None = None

    def __init__(self, *args: Any, remedy: Remedy | None = None):
        super().__init__(*args)
        if remedy is not None:
            self.remedy = remedy


def with_remedy(error: DatabaseError, remedy: Remedy) -> DatabaseError:
    """``error`` with ``remedy``, where a build can mend it: a damaged or foreign file
    whose message does not already say what to do (one that ends "then build again"),
    or a missing one.  Other errors (a file that could not be opened for want of
    descriptors or permission is not to be rebuilt) are returned as they are."""
    if isinstance(error, (CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError)) \
            and not str(error).endswith("then build again"):
        error.remedy = remedy
    return error


class MissingSubspaceError(DatabaseError, KeyError):
    """The file holding ``subspace`` (a :class:`solver.index.Subspace` or its name) is not built.

    ``path`` is the file looked for; ``remedy`` (:class:`Remedy`) the build that makes it.
    """

    def __init__(self, subspace: Any, path: Path | str, message: str, remedy: Remedy | None = None):
        self.subspace, self.path = subspace, Path(path)
        self.remedy = remedy
        super().__init__(message)


class CorruptDatabaseError(DatabaseError):
    """A database file that cannot be read, is incomplete, or fails its checksums."""


class ForeignDatabaseError(DatabaseError):
    """A file that is not one this solver may read here: other rules, another index
    scheme, another pair, or no muehle database at all."""


class InsufficientMemoryError(DatabaseError):
    """A build step that needs more memory than is available; nothing was changed."""

    def __init__(self, message: str, needed: int = 0, available: int = 0):
        super().__init__(message)
        self.needed, self.available = needed, available


class ConsistencyError(DatabaseError):
    """Solved values that disagree with the values of their successors.

    ``bad`` lists the states found (:class:`solver.verify.check.BadState`), at most a few.
    """

    def __init__(self, message: str, bad: Sequence[Any] = ()):
        super().__init__(message)
        self.bad = list(bad)


# --- clusters ------------------------------------------------------------------------

class ClusterError(MuehleError):
    """A cluster that cannot run a build: Dask is not installed, the scheduler does not
    answer, or workers cannot see the database folder."""


# --- the opening search ----------------------------------------------------------------

class SearchStoppedError(MuehleError):
    """The opening search ended without a value: its time ran out (``timed_out``), or it
    was asked to stop (a server's client left).  ``seconds``: how long it had searched.
    Nothing is wrong with the position; the placement phase's files answer it at once."""

    def __init__(self, message: str, seconds: float = 0.0, timed_out: bool = False):
        super().__init__(message)
        self.seconds, self.timed_out = seconds, timed_out


# --- rules -----------------------------------------------------------------------------

class UnsupportedRulesError(MuehleError, ValueError):
    """Rules that the compiled kernels cannot handle yet (:func:`solver.rules.kernel_gap`:
    a board without its module, more stones than its module holds, a move taking two
    stones, ...): refused before any wrong answer could be given.

    >>> str(UnsupportedRulesError("rules 'six-mens': the board is not supported by the compiled kernels yet"))
    "rules 'six-mens': the board is not supported by the compiled kernels yet"
    """


def integer(value: Any, what: str, rule: str = "must be an integer") -> int:
    """``value`` as a plain int (numpy integers too, through ``operator.index``);
    ValueError ``"<what> <rule>, not '<value>'"`` for anything else, bools included
    (True is no stone count, point or ply).

    >>> integer(3, "a slot"), type(integer(__import__("numpy").int64(3), "a slot"))
    (3, <class 'int'>)
    >>> integer(2.5, "plies", "are an integer or None")
    Traceback (most recent call last):
    ...
    ValueError: plies are an integer or None, not '2.5'
    """
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ValueError(f"{what} {rule}, not {str(value)[:40]!r}")


def seconds_of(value: Any, what: str, zero: bool = True) -> float:
    """``value`` as a time in seconds: a finite number, not below 0 (``zero``: or 0 too);
    ValueError ``"<what> is seconds (...), not '<value>'"`` for anything else, bools, nan
    and infinity included.

    >>> seconds_of(2, "a limit"), seconds_of(0.5, "a thinking time", zero=False)
    (2.0, 0.5)
    >>> seconds_of(float("nan"), "a search limit")
    Traceback (most recent call last):
    ...
    ValueError: a search limit is seconds (0 or more), not 'nan'
    """
    if (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and (value > 0 or (zero and value == 0))):
        return float(value)
    raise ValueError(f"{what} is seconds ({'0 or more' if zero else 'more than 0'}), "
                     f"not {str(value)[:20]!r}")


#: Characters of an error line as the command line and the browser's API show it, where
#: the input it echoes makes it longer.
MESSAGE_LIMIT = 300
#: A line may run to this many times its limit to keep whole the paths it names (a file to
#: rebuild, in a folder of deep names): cut, they could not be pasted.
PATH_ROOM = 4
#: Characters an echoed word keeps where a line is shortened (its start and end).
WORD_KEEP = 40


def echoed(text: Any, limit: int = 60) -> str:
    """The ``repr`` of input an error message quotes, on one line and at most about ``limit`` characters:
    a long input keeps its start and end, its middle left out (``…``), so that the
    message of a 1 MB argument stays a message.

    >>> echoed("W:a1 B:a7 w"), echoed("x" * 1000, 20)
    ("'W:a1 B:a7 w'", "'xxxxxxxx…xxxxxxxx'")
    """
    shown = " ".join(repr(text).split())        # (one line: a numpy array's repr has several)
    if len(shown) <= limit:
        return shown
    half = (limit - 1) // 2
    return shown[:half] + "…" + shown[len(shown) - half:]


def one_line(message: Any, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` as one line: tools that read the command line's stderr, and the page,
    rely on one line.  A message that echoes input (a 1 MB argument) is shortened to
    ``limit`` characters: its longest words lose their middles first, down to
    :data:`WORD_KEEP` characters, so that the start still says what is wrong and the
    end what to do.  A path (a word with a ``/``) stays whole: the line may be as long as
    ``limit`` without its paths, and at most :data:`PATH_ROOM` times ``limit``.  A line
    still longer loses its middle.  (Input quoted with ``repr`` is :func:`echoed`.)

    >>> one_line("cannot parse   move 'x'")
    "cannot parse move 'x'"
    >>> one_line("cannot parse position " + "a" * 1000 + ": expected W:...", 80)
    'cannot parse position aaaaaaaaaaaaaaaaaaaaa…aaaaaaaaaaaaaaaaaaaa: expected W:...'
    >>> deep = "/tmp/" + "x" * 100
    >>> line = f"{deep}/pair-3-4.h5 is damaged; rebuild it with: muehle build --db {deep}"
    >>> one_line(line, 80) == line
    True
    """
    text = " ".join(str(message).split()) or "error"
    if len(text) <= limit:
        return text
    words = text.split(" ")
    excess = len(text) - limit
    for i in sorted(range(len(words)), key=lambda i: -len(words[i])):
        word = words[i]
        if excess <= 0 or len(word) <= WORD_KEEP:
            break
        if "/" in word and len(word) < PATH_ROOM * limit:
            continue
        half = (max(WORD_KEEP, len(word) - excess) - 1) // 2
        words[i] = word[:half] + "…" + word[len(word) - half:]
        excess -= len(word) - len(words[i])
    text = " ".join(words)
    paths = sum(len(word) for word in words if "/" in word and len(word) < PATH_ROOM * limit)
    if len(text) - paths > limit or len(text) > PATH_ROOM * limit:
        half = (limit - 1) // 2
        text = text[:half] + "…" + text[len(text) - half:]
    return text
