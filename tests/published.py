"""The published figures of tests/data/published.toml, each row with its source: the
per-subspace statistics (``SUBSPACES``) and the whole games' counts of reachable
positions and start values (``CENSUS``)."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from solver.rules import Rules

_DATA = tomllib.loads((Path(__file__).parent / "data" / "published.toml").read_text(encoding="utf-8"))

#: subspace name -> {wins, losses, draws, longest_win, longest_loss}
SUBSPACES = {row["name"]: {k: v for k, v in row.items() if k not in ("name", "source")}
             for row in _DATA["subspace"]}
#: the rows of whole games: {rules, jumping, positions, start, source}
CENSUS = _DATA["census"]


def census_rules(row: dict) -> Rules:
    """The rule set of a census row (its rules by name, with the source's jumping)."""
    return dataclasses.replace(Rules.from_name(row["rules"]), jumping=row["jumping"])


def census_id(row: dict) -> str:
    return row["rules"] + ("-flying" if row["jumping"] else "")
