"""Errors by kind (solver.errors): what raises which, what they carry, and that the
command line reports each as one line with exit status 2."""

from __future__ import annotations

import re
import shutil

import h5py
import pytest
from click.testing import CliRunner

from solver.commands import explained
from solver import storage
from solver.cli import main
from solver.errors import (AmbiguousMoveError, ConsistencyError, CorruptDatabaseError,
                           DatabaseError, ForeignDatabaseError, GameOverError, IllegalMoveError,
                           InsufficientMemoryError, InvalidNotationError, MissingSubspaceError,
                           MuehleError, NotationError)
from solver.game import Game
from solver.kernels import kernels_for
from solver.position import Move, Position, parse_legal_move, parse_move, parse_position
from solver.probe import open_database
from solver.rules import Rules

FOUR = Rules(stones=4)


def one_line_error(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("muehle: error: ")
    return result.output


def test_notation_errors_are_value_errors_of_three_kinds():
    for kind in (InvalidNotationError, IllegalMoveError, AmbiguousMoveError, GameOverError):
        assert issubclass(kind, NotationError) and issubclass(kind, ValueError)
        assert issubclass(kind, MuehleError)
    pos = parse_position("W:a1,d1 B:a4,b6 w 1 2")
    with pytest.raises(InvalidNotationError, match="cannot parse move"):
        parse_legal_move("d8", pos)
    with pytest.raises(InvalidNotationError, match="too many stones"):
        parse_position("W:a1,d1,g1,a4,b4 B: w", FOUR)
    with pytest.raises(IllegalMoveError) as info:
        parse_legal_move("a1-a7", pos)
    assert info.value.move == parse_move("a1-a7") and not isinstance(info.value, GameOverError)


def test_an_ambiguous_move_carries_the_moves_it_may_mean():
    pos = parse_position("W:a1,d1 B:a4,b6 w 1 2")
    with pytest.raises(AmbiguousMoveError, match=r"say which stone it takes \(b6, a4\)") as info:
        parse_legal_move("g1", pos)
    assert info.value.move == parse_move("g1")
    assert sorted(map(str, info.value.takes)) == ["g1xa4", "g1xb6"]
    assert set(info.value.takes) <= set(pos.legal_moves())


def test_moves_after_the_end_are_game_over():
    game = Game("W:a1,d1 B:a4,a7,d7 w")               # White has two stones: lost
    with pytest.raises(GameOverError, match="game is over"):
        game.play("a1-b2")
    with pytest.raises(GameOverError):
        game.play(Move(18, 21))
    with pytest.raises(GameOverError):
        parse_legal_move("a1-b2", Position.from_view(0b11, 0b111000000))


def test_a_record_line_keeps_the_kind_of_its_error():
    with pytest.raises(AmbiguousMoveError, match="^line 3: ") as info:
        Game.from_record("d2 a4\nd3 b6\nd1 g7\nd6\n", FOUR)     # d1 closes d3-d2-d1
    assert len(info.value.takes) == 2
    with pytest.raises(IllegalMoveError, match="^line 1: "):
        Game.from_record("d2 d2\n")


def test_missing_subspace_is_a_key_error_with_a_plain_message(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    storage.pair_path(tmp_path, FOUR, (3, 4)).unlink()
    with open_database(tmp_path, FOUR) as db:
        with pytest.raises(KeyError) as info:
            db.probe(parse_position("W:a1,d1,g1 B:a7,d7,f6,b4 w", FOUR))
    error = info.value
    assert isinstance(error, MissingSubspaceError) and isinstance(error, DatabaseError)
    assert str(error.subspace) == "3-4" and error.path.name == "pair-3-4.h5"
    assert str(error).startswith("pair 3-4 is not built")       # not quoted like a KeyError
    with open_database(tmp_path, FOUR) as db:
        with pytest.raises(MissingSubspaceError) as other:   # the other order: the same file, named alike
            db.probe(parse_position("W:a1,d1,g1,b4 B:a7,d7,f6 w", FOUR))
    assert str(other.value.subspace) == "4-3" and str(other.value) == str(error)
    # the hint builds exactly what is missing, in this folder, under these rules
    assert str(error).endswith(f"missing {error.path}")      # the library writes no command line:
    assert explained(error).endswith(f"(build it with: muehle build --db {tmp_path} --stones 4 --pair 3-4)")


def test_database_files_foreign_or_damaged(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (3, 3))
    with pytest.raises(ForeignDatabaseError, match="built for rules"):
        storage.read_subspace(path, Rules(stones=4, jumping=False), 3, 3)
    with h5py.File(path, "r+") as f:
        f.attrs["index_scheme"] = "another"
    with pytest.raises(ForeignDatabaseError, match="index scheme"):
        storage.read_subspace(path, FOUR, 3, 3)
    one_line_error("query", "--db", tmp_path, "--stones", 4, "W:a1,d1,g1 B:a7,d7,f6 b")
    with h5py.File(path, "r+") as f:
        f.attrs["index_scheme"] = kernels_for(FOUR.board).INDEX_SCHEME
        f.attrs["complete"] = False
    with pytest.raises(CorruptDatabaseError, match="not a complete"):
        storage.read_subspace(path, FOUR, 3, 3)
    path.write_bytes(b"\0" * 4096)
    with pytest.raises(CorruptDatabaseError, match="cannot read"):
        storage.read_subspace(path, FOUR, 3, 3)


def test_build_without_enough_memory_is_one_line(tmp_path, monkeypatch):
    from solver import build as building
    monkeypatch.setattr(building.runner, "memory_available", lambda: 1024)
    with pytest.raises(InsufficientMemoryError) as info:
        building.build(tmp_path, FOUR, progress=False)
    assert info.value.available == 1024 and info.value.needed > 1024
    output = one_line_error("build", "--db", tmp_path, "--stones", 4, "--quiet")
    assert "of memory, only 1,024 bytes is available" in output


def test_a_ulimit_counts_as_memory_not_available(tmp_path):
    """``ulimit -v`` (RLIMIT_AS) leaves a build less than the machine has: the build
    refuses the file that would not fit in one line (it took only MemAvailable into
    account, and ran out in numpy or a kernel with a traceback or a crash)."""
    import resource
    import subprocess
    import sys

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (600 << 20, 600 << 20))
    done = subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(tmp_path), "--stones", "5",
                           "--phase", "moving", "--quiet"], capture_output=True, text=True,
                          preexec_fn=limited, timeout=300)
    errors = [line for line in done.stderr.splitlines() if not line[:2].isdigit()]   # (not the log)
    assert done.returncode == 2 and len(errors) == 1, done.stderr
    # (the refusal of a file, or where the limit is met before one: out of memory)
    assert errors[0].startswith("muehle: error: ") and "ulimit -v" in errors[0], done.stderr
    assert any(words in errors[0] for words in ("of memory, only", "out of memory", "not enough memory")), done.stderr
    from solver.build import resources
    assert resources.rlimit_available() is None          # (this process has no such limit)


def test_running_out_of_memory_is_one_line(tmp_path, monkeypatch):
    """A MemoryError anywhere (numpy, a kernel's table, a thread that cannot start) is
    one line naming the limits, not a traceback; one while reading a file says memory,
    not damage (a build would take the file for unusable and build it again)."""
    from solver import build as building

    def exhausted(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(building, "build_moving", exhausted)
    output = one_line_error("build", "--db", tmp_path, "--stones", 3, "--quiet")
    assert output.startswith("muehle: error: out of memory")
    with pytest.raises(InsufficientMemoryError, match="not enough memory to read"):
        with storage.hdf5_errors(tmp_path / "x.h5"):
            raise MemoryError()


def test_a_plan_above_the_memory_limit_is_refused_before_any_work(tmp_path):
    output = one_line_error("build", "--db", tmp_path, "--stones", 4, "--quiet", "--memory", "1M")
    assert "pair 3-3 needs about" in output and "limit of 1 MiB" in output
    assert not list(tmp_path.rglob("*.h5"))
    assert "no size" in one_line_error("build", "--db", tmp_path, "--stones", 4, "--memory", "lots")


def test_a_failed_consistency_check_is_an_error_not_a_crash(tmp_path, monkeypatch):
    from solver import build as building
    from solver.verify.check import BadState
    monkeypatch.setattr(building.runner, "check_values", lambda *args, **kwargs: [BadState(3, 3, 0)])
    with pytest.raises(ConsistencyError) as info:
        building.build(tmp_path, FOUR, progress=False)
    assert info.value.bad == [BadState(3, 3, 0)]
    output = one_line_error("build", "--db", tmp_path, "--stones", 4, "--quiet")
    assert "fails the consistency check" in output
    assert not storage.pair_path(tmp_path, FOUR, (3, 3)).exists()
