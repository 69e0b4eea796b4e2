"""Paths no other test walks: foreign and unfinished files through every command that
reads them, the build options, a real consistency failure inside a build, ``query
--batch -``, ``solve-opening`` from another position and with ``--book``, and ``play
--color random``."""

from __future__ import annotations

import json
import random
import shutil

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver import _kernels, storage
from solver import build as building
from solver.build import is_built
from solver.cli import main
from solver.errors import ConsistencyError
from solver.position import Position
from solver.opening import placement_value, solve_placement
from solver.probe import open_database
from solver.retro import PairResult
from solver.rules import Rules

FOUR = Rules(stones=4)
POSITION = "W:a1,d1,g1 B:a7,d7,f6 b"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_line_error(*args, status: int = 2) -> str:
    result = run(*args)
    assert result.exit_code == status, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("muehle: error: "), result.output
    return result.output


def spoil_index_scheme(f):
    f.attrs["index_scheme"] = "another"


def spoil_complete(f):
    f.attrs["complete"] = False


def spoil_rules(f):
    f.attrs["rules"] = "standard-s4-no-jumping"


@pytest.mark.parametrize("spoil, words", [(spoil_index_scheme, "index scheme"),
                                          (spoil_complete, "not a complete"),
                                          (spoil_rules, "built for rules")])
def test_foreign_or_unfinished_files_through_every_command(db4, tmp_path, spoil, words):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    with h5py.File(storage.pair_path(tmp_path, FOUR, (3, 3)), "r+") as f:
        spoil(f)
    common = ("--db", tmp_path, "--stones", 4)
    assert words in one_line_error("query", *common, POSITION)
    # (check's verdict on the database: exit 1, as for values that disagree)
    assert words in one_line_error("check", *common, "--pair", "3-3", "--quiet", status=1)
    # stats names the unusable file in one warning line, prints the other files' figures
    # and exits 1 (tests/test_hostile_cli.py covers missing and swapped files)
    stats = run("stats", *common)
    warnings = [line for line in stats.output.splitlines() if line.startswith("muehle: warning: ")]
    assert stats.exit_code == 1 and len(warnings) == 1 and words in warnings[0], stats.output
    assert "Traceback" not in stats.output and "4-4" in stats.output
    # the build does not trust it: it builds the pair again, and only that pair
    result = run("build", *common, "--quiet")
    assert result.exit_code == 0, result.output
    assert "1 pair(s) built, 2 already there" in result.output
    assert is_built(tmp_path, FOUR, (3, 3))
    assert run("query", *common, "--json", POSITION).exit_code == 0


def test_build_max_total_pair_and_no_verify(tmp_path):
    result = run("build", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--quiet", "--no-verify")
    assert result.exit_code == 0 and "2 pair(s) built, 0 already there" in result.output
    assert is_built(tmp_path, FOUR, (3, 4)) and not storage.pair_path(tmp_path, FOUR, (4, 4)).exists()
    assert storage.file_attrs(storage.pair_path(tmp_path, FOUR, (3, 4)), FOUR)["checked"] is False
    result = run("build", "--db", tmp_path, "--stones", 4, "--pair", "4-4", "--quiet")
    assert result.exit_code == 0 and "1 pair(s) built, 2 already there" in result.output
    assert storage.file_attrs(storage.pair_path(tmp_path, FOUR, (4, 4)), FOUR)["checked"] is True
    assert "stone counts must be 3..4" in one_line_error("build", "--db", tmp_path, "--stones", 4,
                                                          "--pair", "4-5")


def test_a_wrong_solve_fails_the_build_check(tmp_path, monkeypatch):
    """The real forward check (not a stand-in) stops a build whose solve went wrong."""
    solve = building.runner.solve_pair

    def wrong_solve(*args, **kwargs) -> PairResult:
        result = solve(*args, **kwargs)
        codes = result.values[3, 3]
        slot = int(np.flatnonzero(codes == 1 + 9)[0])      # a win in 9 ...
        codes[slot] = 1 + 11                               # ... said to take 11 plies
        return result

    monkeypatch.setattr(building.runner, "solve_pair", wrong_solve)
    with pytest.raises(ConsistencyError):
        building.build(tmp_path, FOUR, progress=False)
    assert "fails the consistency check" in one_line_error("build", "--db", tmp_path, "--stones", 4, "--quiet")
    assert not storage.pair_path(tmp_path, FOUR, (3, 3)).exists()
    assert not list(storage.rules_dir(tmp_path, FOUR).glob(".pair-*"))


def test_query_batch_from_stdin(db4):
    result = run("query", "--db", db4, "--stones", 4, "--batch", "-",
                 input=f"{POSITION}\n\nW:a1 B:q9 w\n")
    assert result.exit_code == 1, result.output         # a line that is no position
    first, second = (json.loads(line) for line in result.output.splitlines())
    assert first["value"] == "win" and first["position"] == POSITION
    assert "line 3" in second["error"]


def test_solve_opening_from_another_position_and_with_a_book(db4, tmp_path):
    with open_database(db4, FOUR, in_memory=True) as db:
        values = solve_placement(FOUR, db.subspace)
    rng = np.random.default_rng(5)
    picks: dict[str, list] = {"win": [], "loss": []}      # five of each, the first subspaces' first
    for (m, o, hm, ho), codes in values.items():
        if m + o >= 3:
            decided = np.flatnonzero((codes != 0xFFFF) & (codes != 0))
            for slot in rng.choice(decided, min(50, len(decided)), replace=False):
                pos = Position.from_view(*_kernels.position_at(m, o, int(slot)), hm, ho)
                kind = placement_value(values, pos)
                if pos.terminal_wdl(FOUR) is None and len(picks[kind]) < 5:
                    picks[kind].append(pos)
    picks = picks["win"] + picks["loss"]
    assert len(picks) == 10
    seen = set()
    for pos in picks:
        result = run("solve-opening", "--db", db4, "--stones", 4, "--json", str(pos))
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert data["position"] == str(pos) and data["value"] == placement_value(values, pos)
        seen.add(data["value"])
    assert seen == {"win", "loss"}
    book = tmp_path / "book.npz"
    result = run("solve-opening", "--db", db4, "--stones", 4, "--json", "--book", 3, book)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["book_positions"] > 0 and book.exists()
    assert "opening book starts from a placement position" in one_line_error(
        "solve-opening", "--db", db4, "--stones", 4, "--book", 2, tmp_path / "no.npz", POSITION)


def test_play_color_random_follows_the_seed(db4):
    humans = set()
    for seed in range(8):
        expected = random.Random(seed).choice(["w", "b"])
        result = run("play", "--stones", 4, "--db", db4, "--level", "easy", "--seed", seed,
                     "--color", "random", input="")
        assert result.exit_code == 0, result.output
        computer_first = "White (computer, easy) plays" in result.output
        assert computer_first == (expected == "b"), seed
        humans.add(expected)
    assert humans == {"w", "b"}
