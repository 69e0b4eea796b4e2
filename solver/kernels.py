"""The compiled kernels of a board: one extension module per board (docs/design.md §9).

The kernels (``ext/kernels.pxi``) are compiled once per board of :mod:`solver.board`,
the board's sizes being compile-time constants, so that the standard board's machine
code is what it always was: ``solver._kernels`` for the standard board,
``solver._kernels_<board>`` for the others.  The standard board has a second module,
``solver._kernels_standard_12``, whose index covers twelve stones a side (Lasker's ten)
where the first one's covers nine; a :class:`~solver.board.Board` names the module it
uses in ``index_stones`` (:meth:`~solver.board.Board.indexing`), and the rules of more
than nine stones carry that board.  :func:`kernels_for` is the one place that
picks the module; every caller that indexes, solves or searches asks it with the board
it works on, so that no table of one board can answer for another.

>>> from solver.board import BOARDS
>>> kernels_for(BOARDS["six-mens"]).BOARD.name, kernels_for(BOARDS["standard"]).max_stones()
('six-mens', 9)
>>> kernels_for(BOARDS["standard"].indexing(10)).__name__
'solver._kernels_standard_12'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .board import STANDARD_BOARD, Board
from .errors import UnsupportedRulesError, one_line

_LOADED: dict[str, ModuleType] = {}

#: The most threads a compiled loop may be given (its ``jobs``; OpenMP's num_threads):
#: every kernel that runs threads refuses a count outside 1..MAX_JOBS with a ValueError
#: (ext/guards.pxi reads this number), and the CLI's --jobs and --threads take the same
#: range.  libgomp aborts or crashes the interpreter where it cannot start the threads
#: asked for (50000, 100000); 256 is more than the cores of any machine this runs on.
MAX_JOBS = 256


def kernels_for(board: Board = STANDARD_BOARD) -> ModuleType:
    """The compiled kernels of ``board`` (imported on first use: its index tables are
    built then), the module whose index covers ``board.index_stones`` stones a side
    (:meth:`Board.indexing`: rules of more stones than the standard board's nine get its
    module of twelve); UnsupportedRulesError if this installation did not compile them."""
    suffix = board.module_suffix
    try:
        return _LOADED[suffix]
    except KeyError:
        pass
    name = f"solver._kernels{suffix}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError:
        raise UnsupportedRulesError(
            f"the kernels of the {board.name} board ({name}) are not compiled in this "
            f"installation: rebuild with `python setup.py build_ext --inplace`") from None
    except ImportError as error:
        # There, but not loadable: built for another Python, or no file descriptor left
        # (EMFILE) to open it with; "not compiled" would send the user to the wrong fix.
        raise UnsupportedRulesError(f"the kernels of the {board.name} board ({name}) cannot be "
                                    f"loaded: {one_line(error)}") from None
    assert module.BOARD == board and module.max_stones() == board.index_stones, (
        f"{name} was compiled for another {board.name} board")
    _LOADED[suffix] = module
    return module


def loaded_kernels() -> ModuleType:
    """A compiled kernels module for work that knows no board (the byte work of
    :mod:`solver.codec`): one already imported, else the standard board's.  Importing
    another would build its index tables (30 ms for the standard board) within the
    first write of a variant's build.

    >>> loaded_kernels().shuffle_chunk is not None
    True
    """
    loaded = list(_LOADED.values())     # (a copy: another thread may import one)
    return loaded[0] if loaded else kernels_for(STANDARD_BOARD)
