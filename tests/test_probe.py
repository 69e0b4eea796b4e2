"""Probing: stored values, symmetry and colour invariance, best moves that make
progress, errors, the query command."""

from __future__ import annotations

import re
import json
import random
import threading

import numpy as np
import pytest
from click.testing import CliRunner

from solver.commands import explained
from solver import _kernels, storage
from solver.cli import main
from solver.index import Subspace
from solver.position import Position, parse_position
from solver.errors import DatabaseError
from solver.probe import Database, MissingSubspaceError, open_database
from solver.rules import Rules
from solver.values import Value, decode

FOUR = Rules(stones=4)
SUBSPACES = [(3, 3), (3, 4), (4, 3), (4, 4)]


def sample_positions(db4, count: int, seed: int = 1):
    """(position, stored code) of random real slots of every subspace."""
    rng = np.random.default_rng(seed)
    out = []
    for m, o in SUBSPACES:
        codes = storage.read_subspace(storage.pair_path(db4, FOUR, (m, o)), FOUR, m, o)
        real = np.flatnonzero(codes != 0xFFFF)
        # favour decided states: draws are the bulk of 4-4
        decided = real[codes[real] != 0]
        for slot in np.concatenate([rng.choice(real, count), rng.choice(decided, count)]):
            own, opp = _kernels.position_at(m, o, int(slot))
            out.append((Position(own, opp, 0, 0, "w"), int(codes[slot])))
    return out


def test_probe_equals_stored_value_for_all_images_and_colours(db4):
    with open_database(db4, FOUR) as db:
        for pos, code in sample_positions(db4, 150):
            expected = decode(code)
            want = Value(expected.value, expected.plies)
            for sym in range(16):
                image = pos.transform(sym)
                assert db.probe(image) == want
                assert db.probe(image.swap_colours()) == want


def test_in_memory_mode_agrees(db4):
    with open_database(db4, FOUR) as lazy, open_database(db4, FOUR, in_memory=True) as bulk:
        for pos, _ in sample_positions(db4, 50, seed=2):
            assert lazy.probe(pos) == bulk.probe(pos)


def play_out(db: Database, pos: Position, rng: random.Random, limit: int = 200) -> tuple[int, Position]:
    plies = 0
    while pos.terminal_wdl(FOUR) is None and plies < limit:
        pos = pos.play_unchecked(db.best_move(pos, rng))
        plies += 1
    return plies, pos


def test_best_move_wins_in_exactly_the_promised_plies(db4):
    rng = random.Random(7)
    with open_database(db4, FOUR, in_memory=True) as db:
        wins = [(p, c) for p, c in sample_positions(db4, 40, seed=3) if decode(c).value == "win"]
        losses = [(p, c) for p, c in sample_positions(db4, 40, seed=4) if decode(c).value == "loss"]
        assert len(wins) > 20 and len(losses) > 10
        for pos, code in wins + losses:
            promised = decode(code)
            plies, end = play_out(db, pos, rng)
            assert plies == promised.plies
            # the side to move at the end lost; it is the starting side iff plies is even
            assert end.terminal_wdl(FOUR) == "loss"
            assert (plies % 2 == 1) == (promised.value == "win")


def test_probe_moves_orders_best_first_and_values_are_for_the_mover(db4):
    with open_database(db4, FOUR) as db:
        pos = Position.from_view(*_kernels.position_at(3, 3, 1000))
        moves = db.probe_moves(pos)
        assert len(moves) == len(pos.legal_moves(FOUR))
        value = db.probe(pos)
        best = moves[0]
        assert best.value == value.value
        if value.plies is not None:
            assert best.plies == value.plies
        for mp in moves:
            child = db.probe(pos.play_unchecked(mp.move))
            flip = {"win": "loss", "loss": "win", "draw": "draw"}[child.value]
            assert mp.value == flip


def test_missing_subspace_names_the_file(db4, tmp_path):
    import shutil
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    storage.pair_path(tmp_path, FOUR, (4, 4)).unlink()
    with open_database(tmp_path, FOUR) as db:
        pos = Position.from_view(0b111 | 1 << 9, 0b111 << 3 | 1 << 12)   # 4 v 4: deleted
        with pytest.raises(MissingSubspaceError, match="pair-4-4.h5"):
            db.probe(pos)
        assert db.get(pos, "n/a") == "n/a"


def test_a_link_that_leads_nowhere_is_not_called_missing(db4, tmp_path):
    """A file that is a link to itself (or to a target gone) is a damaged database, not
    one "not built"; the build writes its file in the link's place."""
    import shutil
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (4, 4))
    path.unlink()
    path.symlink_to(path.name)
    pos = Position.from_view(0b111 | 1 << 9, 0b111 << 3 | 1 << 12)
    with open_database(tmp_path, FOUR) as db:
        with pytest.raises(DatabaseError, match="is a link that leads to no file") as err:
            db.probe(pos)
        assert not isinstance(err.value, MissingSubspaceError)
    built = CliRunner().invoke(main, ["build", "--db", str(tmp_path), "--stones", "4", "--phase", "moving",
                                      "--quiet"])
    assert built.exit_code == 0 and not path.is_symlink()
    with open_database(tmp_path, FOUR) as db:
        assert db.probe(pos) == open_database(db4, FOUR).probe(pos)


def test_hands_no_game_reaches_are_in_no_file_and_no_build_is_advised(db4):
    """Subspace 3-3+0-1 (White to move with none in hand, Black with one: hands no game
    from the start reaches) is refused as held by no file, not sent to a build that
    would build nothing."""
    with open_database(db4, FOUR) as db:
        with pytest.raises(MissingSubspaceError, match="no game of rules standard-s4 reaches these hands") as err:
            db.subspace(3, 3, 0, 1)
        assert "build it with" not in explained(err.value) and err.value.remedy is None
        assert db.get(Position.from_view(0b111, 0b111 << 3, 0, 1), "none") != "none"   # from its moves


@pytest.mark.parametrize("damage", ["truncated", "foreign"])
def test_get_gives_its_default_for_a_missing_file_only(db4, tmp_path, damage):
    """As python-chess's get_wdl: a damaged or foreign file raises from get too (its
    one line names the file and the build that mends it), never mistaken for a file
    not built."""
    import shutil
    from solver.errors import CorruptDatabaseError, ForeignDatabaseError
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (4, 4))
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        shutil.copyfile(storage.pair_path(tmp_path, FOUR, (3, 4)), path)
    kind = CorruptDatabaseError if damage == "truncated" else ForeignDatabaseError
    pos = Position.from_view(0b111 | 1 << 9, 0b111 << 3 | 1 << 12)   # 4 v 4
    with open_database(tmp_path, FOUR) as db:
        for ask in (db.probe, lambda p: db.get(p, "n/a")):
            with pytest.raises(kind, match="pair-4-4.h5") as info:
                ask(pos)
            assert "; rebuild it with: muehle build" in explained(info.value)


def test_threads_read_safely(db4):
    sample = sample_positions(db4, 60, seed=5)
    errors = []
    with open_database(db4, FOUR) as db:
        def worker():
            try:
                for pos, code in sample:
                    assert db.probe(pos).value == decode(code).value
            except Exception as exc:      # pragma: no cover - reported below
                errors.append(exc)
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors


def test_query_json(db4):
    result = CliRunner().invoke(main, ["query", "--db", str(db4), "--stones", "4", "--json",
                                       "W:a1,d1,g1 B:a7,d7,f6 b"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["position"] == "W:a1,d1,g1 B:a7,d7,f6 b"
    assert (data["value"], data["plies"]) == ("win", 1)
    assert data["moves"][0] == {"move": "f6-g7xa1", "value": "win", "plies": 1}
    assert {m["value"] for m in data["moves"]} <= {"win", "loss", "draw"}


def test_query_batch(db4, tmp_path):
    batch = tmp_path / "positions.txt"
    batch.write_text("W:a1,d1,g1 B:a7,d7,f6 b\n# a comment\nW:a1,d1,g1 B:a7,d7,x9 b\nW:a1,d1,g1,b2 B:a7,d7,f6 b\n")
    result = CliRunner().invoke(main, ["query", "--db", str(db4), "--stones", "4", "--batch", str(batch)])
    assert result.exit_code == 1, result.output         # the error line's
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 3
    assert lines[0]["value"] == "win" and "error" in lines[1] and lines[2]["value"] == "draw"


def test_query_errors_are_one_line(db4, tmp_path):
    for args in (["W:a1,d1,g1 B:a7,d7,q6 b"], ["--db", str(tmp_path / "nowhere"), "W:a1,d1,g1 B:a7,d7,f6 b"],
                 ["W:a1,d1,g1,b2,d2 B:a7,d7,f6 b"]):
        result = CliRunner().invoke(main, ["query", "--stones", "4", "--db", str(db4), *args]
                                    if "--db" not in args else ["query", "--stones", "4", *args])
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("\n") == 1 and result.output.startswith("muehle: error:")


def test_more_stones_than_the_rules_give_is_a_value_error_for_probe_and_get(db4):
    """No file holds a position with 5 stones a side under 4-stone rules: ValueError
    from probe and get alike (not 'not built' and get's default), on the board or in
    hand."""
    from solver.position import parse_position
    with open_database(db4, FOUR) as db:
        for text, side, board, hand in (("W:a1,d1,g1,a4,a7 B:b2,d2,f2 w", "White", 5, 0),
                                        ("W:a1,d1,g1 B:b2,d2,f2 w 0 2", "Black", 3, 2)):
            position = parse_position(text)
            for ask in (db.probe, lambda p: db.get(p, "DEF")):
                with pytest.raises(ValueError, match=f"^too many stones for {side}: {board} on the board "
                                                     f"and {hand} in hand, but each side has 4$"):
                    ask(position)


def test_a_closed_database_answers_nothing(db4, tmp_path):
    """After close (or its with block) probe, get and code raise ValueError, as a closed
    file does, instead of opening the files again unseen; open_database refuses a file."""
    from solver.errors import DatabaseError
    position = sample_positions(db4, 1)[0][0]
    for in_memory in (False, True):
        with open_database(db4, FOUR, in_memory=in_memory) as db:
            assert db.probe(position) == db.get(position)
        for ask in (db.probe, db.get, lambda p: db.code(p.own, p.opp), lambda p: db.subspace(3, 3)):
            with pytest.raises(ValueError, match="is closed$"):
                ask(position)
        assert not db._files
    plain = tmp_path / "file"
    plain.write_text("x")
    with pytest.raises(DatabaseError, match="is not a folder"):
        open_database(plain, FOUR)


def test_move_probes_are_checked_as_values():
    from solver.position import Move
    from solver.probe import MoveProbe
    assert MoveProbe(Move(3), "win", 3).rank == MoveProbe(Move(5), "win", 3).rank
    for move, value, plies in ((Move(3), "foo", 3), (Move(3), "win", 2), (Move(3), "draw", 4)):
        with pytest.raises(ValueError):
            MoveProbe(move, value, plies)
    with pytest.raises(TypeError, match="is a Move, not str"):
        MoveProbe("d2", "win", 1)


@pytest.mark.parametrize("in_memory", [False, True])
def test_a_long_lived_database_reads_the_file_that_replaces_a_damaged_one(db4, tmp_path, in_memory):
    """A server keeps its Database open: a damaged file's error names the build that
    mends it (loaded whole or by chunks), and once it is rebuilt (here: removed and
    copied back, a new file) the same Database answers from the new file."""
    import shutil
    from solver.errors import CorruptDatabaseError
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (4, 4))
    intact = path.read_bytes()
    pos = Position.from_view(0b111 | 1 << 9, 0b111 << 3 | 1 << 12)   # 4 v 4
    with open_database(tmp_path, FOUR, in_memory=in_memory) as db:
        expected = db.probe(pos)
        db._forget(Subspace(4, 4))      # as if not read yet when the damage came
        path.write_bytes(intact[: len(intact) // 2])
        for _ in range(2):
            with pytest.raises(CorruptDatabaseError, match="pair-4-4.h5") as info:
                db.probe(pos)
            assert re.search("rebuild it with: muehle build .*--pair 4-4", explained(info.value))
        path.unlink()
        path.write_bytes(intact)
        assert db.probe(pos) == expected


def test_placement_files_built_later_are_used(db4, tmp_path):
    """has_placement is looked for again until found, so that a server started on the
    moving phase alone answers from placement files built while it runs."""
    import shutil
    from solver.build import build
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    for path in storage.rules_dir(tmp_path, FOUR).glob("place-*.h5"):
        path.unlink()
    positions = [parse_position(text, FOUR) for text in
                 ("W:a1 B:d7 w 3 3", "W:a1,d1 B:d7 b 2 3", "W:a1,d1 B:a4,a7 w 2 2")]
    with open_database(tmp_path, FOUR) as db:
        assert not db.has_placement()
        searched = [db.probe(p) for p in positions]      # by the opening search
        assert all(v.plies is None for v in searched)
        build(tmp_path, FOUR, phase="placement", progress=False)
        assert db.has_placement()
        assert [db.probe(p).value for p in positions] == [v.value for v in searched]
        assert any(isinstance(key, Subspace) and not key.is_moving for key in db._files)   # read from files


def test_the_database_as_a_library_user_meets_it(db4, tmp_path):
    """What an API review found: a string for a position or rules was an AttributeError
    from inside, a closed database still read its files (wdl), a missing book given by
    name was ignored, a database could not be pickled, a missing subspace was named by a
    string or a Subspace depending on the phase."""
    import pickle
    from solver.errors import DatabaseError
    from solver.position import parse_move
    from solver.probe import MoveProbe
    text = "W:a1,d1,g1 B:a7,d7,f6 b"
    with open_database(db4, "standard-s4") as db:
        assert db.rules == FOUR and "standard-s4" in repr(db) and "(open)" in repr(db)
        assert db.probe(text) == db.probe(parse_position(text, FOUR)) == db.get(text)
        assert db.probe_moves(text) == db.probe_moves(parse_position(text, FOUR))
        assert db.best_move(text, random.Random(1)) in [mp.move for mp in db.probe_moves(text)]
        for call, kind in ((lambda: db.probe(5), TypeError), (lambda: db.best_move(text, rng=3), TypeError),
                           (lambda: db.probe("W:a1 B:a7 q"), ValueError)):
            with pytest.raises(kind):
                call()
        # a lookup only: where the opening search would answer (no placement files), the
        # placement file is missing, as for python-chess's probes
        placing = "W:d2 B:f4 w 3 3"
        assert db.needs_search(placing) and db.get(placing, "none", search=False) == "none"
        with pytest.raises(MissingSubspaceError, match="place-1-1\\+3-3.h5; the opening search would answer"):
            db.probe(placing, search=False)
        assert db.get(placing, "none").value in ("win", "draw", "loss")
        again = pickle.loads(pickle.dumps(db))
        assert again.rules == FOUR and again.probe(text) == db.probe(text)
        again.close()
    import shutil
    shutil.copytree(db4, tmp_path / "copy")
    storage.pair_path(tmp_path / "copy", FOUR, (4, 4)).unlink()
    with open_database(tmp_path / "copy", FOUR) as partial, pytest.raises(MissingSubspaceError) as missing:
        partial.probe("W:a1,d1,g1,b2 B:a7,d7,f6,b4 b")
    assert type(missing.value.subspace) is Subspace and missing.value.subspace.name == "4-4"
    assert "(closed)" in repr(db)
    for call in (lambda: db.wdl(3, 3), lambda: db.subspace(3, 3), lambda: db.probe(text),
                 db.has_placement, db.has_moving, db.opening_book, db.opening_search):
        with pytest.raises(ValueError, match="is closed"):
            call()
    with pytest.raises(TypeError, match="rules are a Rules or a rule set's name"):
        open_database(db4, 4)
    with pytest.raises(DatabaseError) as info:
        open_database(db4, FOUR, book=tmp_path / "book.npz")
    assert re.fullmatch(r".*opening book .* is not there \(write one with: muehle "
                        r"solve-opening --stones 4 --book PLIES .*book\.npz\)", explained(info.value))
    (tmp_path / "standard-s4").write_text("not a folder")
    with pytest.raises(DatabaseError, match="is a file where the folder of rules standard-s4 belongs"):
        open_database(tmp_path, FOUR)
    with pytest.raises(TypeError, match="rules are a Rules"):
        parse_position(text, FOUR).legal_moves("standard-s4")
    probe = MoveProbe(parse_move("d2"), "win", np.int64(1))
    assert probe == MoveProbe(parse_move("d2"), probe.value, 1) and type(probe.plies) is int


def test_the_line_of_best_play_ends_as_its_value_says(db4):
    """query --line: from a decided position the line runs as many plies as the value
    says and ends with the game won by the side the value names; every position on it
    keeps the value (one ply nearer); a drawn position is followed 20 plies, all drawn."""
    from solver.analysis import DRAWN_LINE, principal_line, query_object
    from solver.values import DRAW, WIN
    checked = {WIN: 0, "loss": 0, DRAW: 0}
    with open_database(db4, FOUR) as db:
        for pos, _ in sample_positions(db4, 15, seed=4):
            value = db.probe(pos)
            line = principal_line(db, pos)
            after = pos
            for ply, move in enumerate(line):
                expected = value if ply % 2 == 0 else value.for_mover()
                now = db.probe(after)
                assert now.value == expected.value, (pos, ply)
                if value.value != DRAW:
                    assert now.plies == value.plies - ply, (pos, ply)
                after = after.play(move, FOUR)
            if value.value == DRAW:
                assert len(line) == DRAWN_LINE or after.terminal_wdl(FOUR) is not None
            else:
                assert len(line) == value.plies
                # over, lost for the side to move there: the mover of the last ply won
                assert after.terminal_wdl(FOUR) == "loss" and (len(line) % 2 == 1) == (value.value == WIN)
            checked[value.value] += 1
        assert all(checked.values()), checked
        obj = query_object(db, pos, line=True)
        assert obj["line"] == [str(m) for m in principal_line(db, pos)] and "line_drawn" in obj


def test_the_line_of_a_position_valued_by_the_search_runs_to_the_end(db4):
    """Without placement files the opening search values placement positions without
    plies: the line stopped after 20 plies as for a draw, the game not over. It now runs
    to the end, won by the side the value names (not the shortest win: the values do
    not tell wins apart until the moving phase)."""
    from solver.analysis import principal_line
    rng = random.Random(5)
    decided = longest = 0
    with open_database(db4, FOUR) as db:
        for _ in range(300):
            if decided == 30:
                break
            # stones placed at random, some in hand (hands a game may not reach: the
            # 4-stone game's own placement positions are almost all drawn)
            hw, hb = rng.randrange(0, 4), rng.randrange(0, 4)
            mw, mb = rng.randrange(0, 5 - hw), rng.randrange(0, 5 - hb)
            points = rng.sample(range(24), mw + mb)
            pos = Position(sum(1 << p for p in points[:mw]), sum(1 << p for p in points[mw:]),
                           hw, hb, rng.choice("wb"))
            value = db.probe(pos)
            if value.value == "draw" or not pos.in_placement or pos.terminal_wdl(FOUR) is not None:
                continue
            assert value.plies is None
            after, line = pos, principal_line(db, pos)
            for move in line:
                after = after.play(move, FOUR)
            longest = max(longest, len(line))
            assert after.terminal_wdl(FOUR) == "loss"             # over: the side to move there lost
            assert (after.turn != pos.turn) == (value.value == "win")
            decided += 1
    assert decided == 30 and longest > 20, (decided, longest)     # (20: where it stopped)


def test_a_folder_that_holds_no_rule_sets_is_refused_when_opened(db4, tmp_path):
    """A rule set's own folder given as the root (the command line refused it, Python
    took it and get() answered its default for every position), a missing root, a file:
    DatabaseError from open_database and Database alike."""
    rules_folder = storage.rules_dir(db4, FOUR)
    for root, why in ((rules_folder, "holds database files itself: it is a rule set's folder"),
                      (tmp_path / "none", "does not exist"), (rules_folder / "pair-3-3.h5", "is not a folder")):
        for opening in (open_database, Database):
            with pytest.raises(DatabaseError, match=why):
                opening(root, FOUR)
    with pytest.raises(ValueError, match="cache_mib is a whole number of MiB"):
        open_database(db4, FOUR, cache_mib="x")
    with open_database(db4, FOUR, cache_mib=1) as db:
        assert db.probe("W:a1,d1,g1 B:a7,d7,f6 b").value == "win"


def test_a_known_shortest_win_comes_before_a_win_of_unknown_length(db4):
    """Without placement files the search values placement moves without plies; a
    move into the moving phase that wins in 1 came after them (unknown plies ranked
    as 0), and best_move (and perfect) chose a win of unknown length."""
    with open_database(db4, FOUR) as db:
        probes = db.probe_moves("W:a1,d1 B:a7,d7 w 1 1")
        assert (probes[0].value, probes[0].plies) == ("win", 1)
        assert any(mp.value == "win" and mp.plies is None for mp in probes)      # the premise
        assert str(db.best_move("W:a1,d1 B:a7,d7 w 1 1")) == str(probes[0].move) == "g1xa7"
    assert sorted([Value("win", None), Value("win", 1), Value("loss", None), Value("loss", 4),
                   Value("draw")], reverse=True) == [Value("win", 1), Value("win", None), Value("draw"),
                                                     Value("loss", 4), Value("loss", None)]


def test_a_database_opened_by_a_relative_path_unpickles_in_another_folder(db4, tmp_path, monkeypatch):
    """A process pool's worker may start elsewhere: the pickle names the folder whole."""
    import pickle
    monkeypatch.chdir(db4.parent)
    with open_database(db4.name, FOUR) as db:
        data = pickle.dumps(db)
    monkeypatch.chdir(tmp_path)
    with pickle.loads(data) as again:
        assert again.probe("W:a1,d1,g1 B:a7,d7,f6 b").value == "win"
