"""muehle: a strong solver for Nine Men's Morris (Mühle).

The main entry points, re-exported here::

    >>> import solver
    >>> pos = solver.parse_position("W:a1,d1,g1 B:a7,d7,f6 b")
    >>> [str(m) for m in pos.legal_moves()][:2]
    ['a7-g7', 'a7-b6']

    with solver.open_database("data") as db:     # built by `muehle build`
        db.probe(pos)                             # Value('win', 1)
"""

from ._version import __version__
from .errors import (AmbiguousMoveError, CorruptDatabaseError, DatabaseError, ForeignDatabaseError,
                     GameOverError, IllegalMoveError, InvalidNotationError, MissingSubspaceError,
                     MuehleError, NotationError, SearchStoppedError, UnsupportedRulesError)
from .game import Game, Outcome, Termination
from .index import Pair, Subspace
from .notation import format_position
from .position import parse_move, parse_position
from .position import Move, Position
from .probe import Database, MoveProbe, open_database
from .rules import STANDARD, Rules
from .values import WDL, Value

__all__ = ["__version__", "Game", "Outcome", "Termination", "Pair", "Subspace", "WDL", "Value", "format_position", "parse_move", "parse_position", "Move", "Position",
           "MoveProbe", "Database", "open_database", "STANDARD", "Rules", "MuehleError",
           "NotationError", "InvalidNotationError", "IllegalMoveError", "AmbiguousMoveError",
           "GameOverError", "DatabaseError", "MissingSubspaceError", "CorruptDatabaseError",
           "ForeignDatabaseError", "SearchStoppedError", "UnsupportedRulesError"]
