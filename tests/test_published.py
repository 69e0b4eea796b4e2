"""Whole games held to what others published (tests/data/published.toml, each row with
its source): the positions a game reaches from the start, counted raw by the oracle's
census (solver.verify.oracle.census: a walk of its own over the rules kernel's moves),
and the start position's value from a build.  The census itself is held to a walk over
the readable rules (Position.legal_moves), which shares no code with it.
"""

from __future__ import annotations

import pytest

from published import CENSUS, census_id, census_rules
from solver.build import build
from solver.position import parse_position
from solver.probe import open_database
from solver.rules import Rules
from solver.verify.oracle import Census, census

#: The rows a default run holds (the 4-stone games: a few seconds); the rest are slow.
QUICK = {"six-mens-s4"}


def reference_census(rules: Rules) -> Census:
    """The census by the readable rules: every position the start reaches through
    ``Position.legal_moves``, as a set of positions; a finished game has no move."""
    start = parse_position("startpos", rules)
    seen, queue, finished = {start}, [start], 0
    for position in queue:                 # (grows while it runs)
        moves = position.legal_moves(rules)
        if not moves:
            finished += 1
            continue
        for move in moves:
            child = position.play_unchecked(move)
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return Census(len(seen), finished)


@pytest.mark.parametrize("name", ["three-mens", "six-mens-s3",
                                  pytest.param("six-mens-mixed-s3", marks=pytest.mark.slow)])
def test_the_census_reaches_what_the_readable_rules_reach(name):
    """A line that wins (Three Men's Morris), captures and blocked sides (the Six Men's
    board with three stones), moves while stones are in hand (mixed placement)."""
    rules = Rules.from_name(name)
    got = census(rules)
    assert got == reference_census(rules)
    assert 0 < got.finished < got.positions


def test_a_census_too_large_is_refused():
    from solver.verify.oracle import oracle_kernels
    rules = Rules.from_name("six-mens-s3")
    with pytest.raises(ValueError, match="more than 1,000 positions"):
        census(rules, most=1000)
    for most in (0, -1, 2.5):
        with pytest.raises(ValueError, match="at least 1"):
            census(rules, most=most)
    with pytest.raises(ValueError, match="most must be at least 1"):     # (the kernel's own guard)
        oracle_kernels(rules.board).oracle_reach(3, rules.flags, 0)


@pytest.mark.parametrize("row", [pytest.param(row, id=census_id(row),
                                              marks=() if row["rules"] in QUICK else pytest.mark.slow)
                                 for row in CENSUS])
def test_a_whole_game_reaches_the_published_positions_and_value(row, tmp_path):
    rules = census_rules(row)
    assert census(rules).positions == row["positions"], row["source"]
    build(tmp_path, rules, phase="all", progress=False)
    with open_database(tmp_path, rules) as db:
        assert db.probe("startpos").value == row["start"], row["source"]


def test_the_census_script_prints_a_row_a_game():
    """scripts/census.py (docs/results.md): a Markdown row a rule set, the published
    count beside it where tests/data/published.toml has one."""
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).parent.parent / "scripts" / "census.py"
    done = subprocess.run([sys.executable, str(script), "three-mens", "six-mens-s3:flying"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[3:]
    assert rows[0].startswith("| three-mens | 5,390 | - | 416 |"), done.stdout
    assert rows[1].startswith("| six-mens-s3:flying | 368,513 | - | 1,352 |"), done.stdout
    # a name it cannot read: one error before any census (it was a traceback, or ran
    # "three-mens:foo" as flying)
    for bad in ("bogus", "three-mens:foo", "standard-s9"):
        done = subprocess.run([sys.executable, str(script), "three-mens", bad],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr and not done.stdout, done.stderr
        assert done.stderr.splitlines()[-1].startswith("census.py: error:"), done.stderr
