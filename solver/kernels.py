"""The compiled kernels of a board: one extension module per board (docs/design.md §9).

The kernels (``ext/kernels.pxi``) are compiled once per board of :mod:`solver.board`,
the board's sizes being compile-time constants, so that the standard board's machine
code is what it always was: ``solver._kernels`` for the standard board,
``solver._kernels_<board>`` for the others.  :func:`kernels_for` is the one place that
picks the module; every caller that indexes, solves or searches asks it with the board
it works on, so that no table of one board can answer for another.

>>> from solver.board import BOARDS
>>> kernels_for(BOARDS["six-mens"]).BOARD.name, kernels_for(BOARDS["standard"]).max_stones()
('six-mens', 9)
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .board import STANDARD_BOARD, Board
from .errors import UnsupportedRulesError

_LOADED: dict[str, ModuleType] = {}


def module_suffix(board: Board) -> str:
    """``''`` for the standard board, ``'_six_mens'`` for six-mens: the compiled modules
    of a board are ``_kernels`` and ``verify._oracle`` with this suffix (setup.py)."""
    return "" if board.name == STANDARD_BOARD.name else "_" + board.name.replace("-", "_")


def kernels_for(board: Board = STANDARD_BOARD) -> ModuleType:
    """The compiled kernels of ``board`` (imported on first use: its index tables are
    built then); UnsupportedRulesError if this installation did not compile them."""
    try:
        return _LOADED[board.name]
    except KeyError:
        pass
    name = f"solver._kernels{module_suffix(board)}"
    try:
        module = importlib.import_module(name)
    except ImportError:
        raise UnsupportedRulesError(
            f"the kernels of the {board.name} board ({name}) are not compiled in this "
            f"installation: rebuild with `python setup.py build_ext --inplace`") from None
    assert module.BOARD == board, f"{name} was compiled for another {board.name} board"
    _LOADED[board.name] = module
    return module
