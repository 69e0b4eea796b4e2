"""The command line: ``muehle <command> ...`` (also ``python -m solver ...``).

The group and what every command shares live in :mod:`solver.cli.common`; the
commands, grouped by area, in the modules below, which add themselves to the group
when imported here.  A new command is a function decorated with ``@main.command()``,
usually ``@rules_options`` and, if it reads a position, ``@position_argument`` below it.

Nothing else in the package imports the command line: it is the top of the pipeline.
"""

from __future__ import annotations

from . import databases, games, positions, probing, serving  # noqa: F401  (each adds its commands)
from .common import main, rules_options

__all__ = ["main", "rules_options"]
