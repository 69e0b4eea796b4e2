"""The placement phase: the opening search agrees with an independent backward pass
over every placement position of the smaller games."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from solver import _kernels, storage, wdl
from solver.cli import main
from solver.position import parse_position
from solver.placement import random_placements
from solver.opening import placement_value, OpeningSearch, placement_subspaces, solve_placement
from solver.position import Position
from solver.probe import open_database
from solver.rules import Rules
from solver.values import SLACK_CODE, decode

FOUR = Rules(stones=4)
MOVING_FOUR = "W:a1,d1,g1 B:a7,d7,f6 b"


@pytest.fixture(scope="module")
def game4(db4):
    """(database, backward-pass values of every placement position) of the 4-stone game."""
    db = open_database(db4, FOUR, in_memory=True)
    yield db, solve_placement(FOUR, db.subspace)
    db.close()


backward_value = placement_value


def test_start_position_of_the_four_stone_game(game4):
    db, values = game4
    start = parse_position("startpos", FOUR)
    assert backward_value(values, start) == "draw"
    result = OpeningSearch(FOUR, db.subspace).solve(start)
    assert result.value == "draw" and result.nodes > 0


def sampled_slots(values, per_subspace, seed):
    """Placement positions from real slots of every subspace, decided ones favoured."""
    rng = np.random.default_rng(seed)
    for (m, o, hm, ho), codes in values.items():
        real = np.flatnonzero(codes != 0xFFFF)
        decided = real[codes[real] != 0]
        picks = list(rng.choice(real, min(per_subspace, len(real)), replace=False))
        if len(decided):
            picks += list(rng.choice(decided, min(per_subspace, len(decided)), replace=False))
        for slot in picks:
            own, opp = _kernels.position_at(m, o, int(slot))
            pos = Position.from_view(own, opp, hm, ho)
            if pos.terminal_wdl(FOUR) is None:
                yield pos


def test_search_agrees_with_backward_pass_on_sampled_positions(game4):
    db, values = game4
    search = OpeningSearch(FOUR, db.subspace)
    seen = {"win": 0, "loss": 0, "draw": 0}
    for pos in list(random_placements(FOUR, 100, seed=11)) + list(sampled_slots(values, 3, 13)):
        value = search.solve(pos).value
        assert value == backward_value(values, pos), str(pos)
        seen[value] += 1
    assert all(v > 10 for v in seen.values()), seen      # the sample covers all three outcomes


def test_backward_pass_follows_from_the_children_by_the_reference_rules(game4):
    """Each sampled placement value is the best of its children's values, with the moves
    from solver.position (not the kernel's) and the children read from the pass itself,
    the moving-phase databases, or the rules where the game ends."""
    db, values = game4
    seen = {"win": 0, "loss": 0, "draw": 0}
    for pos in list(random_placements(FOUR, 150, seed=12)) + list(sampled_slots(values, 4, 14)):
        children = set()
        for move in pos.legal_moves(FOUR):
            child = pos.play(move, FOUR)
            if child.terminal_wdl(FOUR) is not None:
                children.add(child.terminal_wdl(FOUR))
            elif child.in_placement:
                children.add(backward_value(values, child))
            else:
                children.add(db.probe(child).value)
        expected = "win" if "loss" in children else "draw" if "draw" in children else "loss"
        assert backward_value(values, pos) == expected, str(pos)
        seen[expected] += 1
    assert all(v > 10 for v in seen.values()), seen


def test_placement_subspaces_lead_to_earlier_ones():
    order = placement_subspaces(Rules(stones=5))
    seen = set()
    for m, o, hm, ho in order:
        child = (o, m + 1, ho, hm - 1)
        if child[2] or child[3]:
            assert child in seen or child[0] + child[2] < 3 or child[1] + child[3] < 3
        seen.add((m, o, hm, ho))


def test_solve_opening_command(db4):
    result = CliRunner().invoke(main, ["solve-opening", "--db", str(db4), "--stones", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["value"] == "draw" and data["position"] == "W: B: w 4 4"
    assert data["nodes"] > 0 and data["seconds"] >= 0


@pytest.fixture(scope="module")
def placed4(db4, tmp_path_factory):
    """The 4-stone game with its placement files too: values of placement positions by
    the backward pass, another algorithm than the opening search's."""
    from solver.build import build
    root = tmp_path_factory.mktemp("placed4")
    shutil.copytree(db4, root, dirs_exist_ok=True)
    build(root, FOUR, phase="placement", progress=False)
    return open_database(root, FOUR)


def test_query_answers_placement_positions(db4, placed4):
    result = CliRunner().invoke(main, ["query", "--db", str(db4), "--stones", "4", "--json",
                                       "W:a1,d1 B:a7 b 2 3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)            # (the search's note is on stderr)
    # the search's value, without plies, is the placement files' (a draw), and so is
    # each of its 21 moves' value
    exact = placed4.probe("W:a1,d1 B:a7 b 2 3")
    assert data["value"] == exact.value == "draw" and data["plies"] is None
    assert len(data["moves"]) == 21
    by_move = {mp.move: mp.value for mp in placed4.probe_moves("W:a1,d1 B:a7 b 2 3")}
    assert {m["move"]: m["value"] for m in data["moves"]} == {str(k): v for k, v in by_move.items()}


def test_wdl_views_match_the_codes(db4):
    db = open_database(db4, FOUR)
    for m, o in ((3, 3), (3, 4), (4, 3), (4, 4)):
        codes = db.subspace(m, o)
        view = wdl.pack(codes)
        assert view.nbytes == (len(codes) + 3) // 4
        rng = np.random.default_rng(m * 10 + o)
        for slot in list(rng.choice(len(codes), 2000)) + [0, len(codes) - 1]:
            c = int(codes[slot])
            expect = None if c == SLACK_CODE else decode(c).value
            assert wdl.value_at(view, int(slot)) == expect
        # read from the file block by block (a small block: many boundaries, odd tail)
        path = storage.pair_path(db4, FOUR, (m, o))
        assert np.array_equal(storage.read_subspace_wdl(path, FOUR, m, o, block=4 * 999), view)
    db.close()


def test_search_loads_views_lazily_and_keeps_its_table(game4):
    db, values = game4
    search = OpeningSearch(FOUR, db.subspace, table_bits=12)     # a tiny table: replacement
    first = search.solve(parse_position("startpos", FOUR))
    assert first.value == "draw" and first.load_seconds > 0
    assert search.engine.view_bytes == sum((_kernels.subspace_slots(m, o) + 3) // 4
                                           for m in (3, 4) for o in (3, 4))
    again = search.solve(parse_position("startpos", FOUR))
    assert again.value == "draw" and again.nodes < first.nodes and again.load_seconds == 0
    for pos in random_placements(FOUR, 30, seed=5):
        assert search.solve(pos).value == backward_value(values, pos), str(pos)


def test_a_search_stops_when_asked_or_past_its_deadline_and_resumes(game4):
    """stop() from another thread, or a deadline, ends a search with SearchStoppedError
    (the kernel looks as it starts and every 16,384 nodes after) and leaves its table
    sound: resumed, it gives the value the backward pass gives."""
    import threading
    import time
    from solver.errors import SearchStoppedError
    db, values = game4
    start = parse_position("startpos", FOUR)
    search = OpeningSearch(FOUR, db.subspace)
    search.solve(start)                               # the views loaded
    engine = search.engine
    for stop in (lambda: engine.stop(), lambda: None):
        engine.clear()                                # an empty table: a whole search again
        stop()
        deadline = 0.0 if engine.stopping else time.monotonic() - 1
        assert engine.run(start.own, start.opp, 4, 4, deadline) == (None, None)
        assert engine.nodes == 1                      # it unwound at its first look
        engine.clear_stop()
    search.stop()
    with pytest.raises(SearchStoppedError, match="asked to stop") as stopped_by_hand:
        search.solve(start)
    assert not stopped_by_hand.value.timed_out
    with pytest.raises(SearchStoppedError, match="asked to stop"):   # until resumed
        search.solve(start)
    search.resume()
    with pytest.raises(SearchStoppedError, match="ran out of time") as out_of_time:
        search.solve(start, deadline=time.monotonic())
    assert out_of_time.value.timed_out
    assert search.solve(start).value == "draw"
    # stopped from another thread while it runs (the table emptied and re-filled so that
    # each search is long enough for the timer to meet one)
    stopped = []
    timer = threading.Timer(0.05, search.stop)
    timer.start()
    until = time.monotonic() + 30
    while not stopped and time.monotonic() < until:
        search.engine.clear()
        try:
            search.solve(start)
        except SearchStoppedError as error:
            stopped.append(error)
    timer.join()
    assert stopped and stopped[0].seconds < 5
    search.resume()
    for pos in random_placements(FOUR, 20, seed=9):
        assert search.solve(pos).value == backward_value(values, pos), str(pos)


def test_database_search_limit_and_stop(db4, placed4):
    """Database.search_limit bounds the searches of a block in all, stop_search ends
    them (also one asked before the search existed), and both end with the block."""
    import time
    from solver.errors import SearchStoppedError
    with open_database(db4, FOUR) as db:
        with db.search_limit(0):
            with pytest.raises(SearchStoppedError, match="ran out of time"):
                db.probe("startpos")
            assert db.probe(MOVING_FOUR).plies == 1        # the files need no search
        with db.search_limit(None):
            db.stop_search()
            with pytest.raises(SearchStoppedError, match="asked to stop"):
                db.probe("W:d2 B:f4 w 3 3")
        start = time.monotonic()
        assert db.probe("startpos").value == "draw"        # no limit, nothing asked
        assert time.monotonic() - start < 10
        with db.search_limit(60):
            assert db.get("W:d2 B:f4 w 3 3").value == db.probe("W:d2 B:f4 w 3 3").value
        db.stop_search()                                   # outside a block: until resumed
        with pytest.raises(SearchStoppedError):
            db.probe("W:d2 B:f4 w 3 3")
        db.resume_search()
        assert db.probe("W:d2 B:f4 w 3 3").value == placed4.probe("W:d2 B:f4 w 3 3").value


def test_database_search_reads_views_from_files(db4):
    with open_database(db4, FOUR) as db:
        assert db.probe(parse_position("startpos", FOUR)).value == "draw"
        assert not db._arrays and len(db._wdl) == 4      # no uint16 codes held
        # hands no game reaches are answered too (tests/test_opening_hands.py): here the
        # side to move has one stone and none in hand, so it has lost
        assert db.opening_search().solve(Position.from_view(1, 2, 0, 3)).value == "loss"


@pytest.mark.slow
def test_five_stone_game_search_agrees_with_backward_pass(tmp_path_factory):
    """The 5-stone game (a draw): start position and sampled positions (about a minute)."""
    from solver.build import build
    five = Rules(stones=5)
    root = tmp_path_factory.mktemp("db5")
    build(root, five, phase="moving", progress=False)
    with open_database(root, five, in_memory=True) as db:
        values = solve_placement(five, db.subspace)
        search = OpeningSearch(five, wdl=db.wdl)
        start = parse_position("startpos", five)
        assert search.solve(start).value == backward_value(values, start) == "draw"
        rng = np.random.default_rng(5)
        keys = list(values)
        checked = 0
        while checked < 300:
            m, o, hm, ho = keys[rng.integers(len(keys))]
            slot = int(rng.integers(len(values[m, o, hm, ho])))
            if values[m, o, hm, ho][slot] == SLACK_CODE:
                continue
            pos = Position.from_view(*_kernels.position_at(m, o, slot), hm, ho)
            if pos.terminal_wdl(five) is None:
                assert search.solve(pos).value == backward_value(values, pos), str(pos)
                checked += 1


def test_opening_book_agrees_with_backward_pass_and_serves_probes(game4, db4, tmp_path, monkeypatch):
    from solver.opening import OpeningBook, build_book
    db, values = game4
    path = tmp_path / "book.npz"
    result = CliRunner().invoke(main, ["solve-opening", "--db", str(db4), "--stones", "4", "--json",
                                       "--book", "3", str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    book = OpeningBook.read(path, FOUR)
    assert data["book_positions"] == len(book) > 100 and book.plies == 3
    # every position up to ply 3 (and its images) is in the book, with the right value
    for pos in random_placements(FOUR, 200, seed=3):
        plies = 8 - pos.own_hand - pos.opp_hand
        value = book.get(pos.transform(7))
        assert (value is not None) == (plies <= 3)
        if value is not None:
            assert value == backward_value(values, pos)
    with open_database(db4, FOUR, book=path) as probing:
        start = parse_position("startpos", FOUR)
        assert probing.probe(start).value == "draw" and probing._search is None
    with pytest.raises(Exception, match="opening book"):
        OpeningBook.read(path, Rules(stones=5))
    assert len(build_book(OpeningSearch(FOUR, db.subspace), 0)) == 1
    # a damaged book: one line (CorruptDatabaseError) from the reader and from query
    from solver.errors import CorruptDatabaseError
    intact = path.read_bytes()
    flipped = bytearray(intact)
    flipped[len(intact) // 2] ^= 0xFF
    saved = np.load(path)
    unsorted = tmp_path / "unsorted.npz"
    np.savez(unsorted, **{**{k: saved[k] for k in saved.files}, "keys": saved["keys"][::-1].copy()})
    low = tmp_path / "low.npz"          # -128: np.abs would leave it negative
    np.savez(low, **{**{k: saved[k] for k in saved.files},
                     "values": np.full_like(saved["values"], -128)})
    for damaged, why in ((bytes(flipped), "CRC-32|Error|invalid|corrupt"), (intact[:len(intact) // 2], ""),
                         (b"hello\n", "not an .npz archive"), (b"", "not an .npz archive"),
                         (unsorted.read_bytes(), "not a book's"), (low.read_bytes(), "not a book's")):
        path.write_bytes(damaged)
        with pytest.raises(CorruptDatabaseError, match=f"cannot read opening book .*{why}"):
            OpeningBook.read(path, FOUR)
        folder = tmp_path / "db"
        shutil.copytree(db4, folder, dirs_exist_ok=True)
        (folder / FOUR.name / "opening-book.npz").write_bytes(damaged)
        monkeypatch.chdir(tmp_path)      # (a short --db: the line keeps the whole hint)
        answer = CliRunner().invoke(main, ["query", "--db", "db", "--stones", "4", "startpos"])
        assert answer.exit_code == 2 and "Traceback" not in answer.output
        assert answer.output.splitlines()[-1].startswith("muehle: error: cannot read opening book")
        hint = answer.output.splitlines()[-1].split("make it again with: ")[1]
        assert hint == "muehle solve-opening --db db --stones 4 --book PLIES db/standard-s4/opening-book.npz)"
    import os
    path.unlink()
    os.mkfifo(path)         # opening a FIFO would wait for a writer for ever
    with pytest.raises(CorruptDatabaseError, match="is not a regular file, as an opening book is"):
        OpeningBook.read(path, FOUR)


def test_a_book_starts_on_the_board_of_its_rules(tmp_path):
    """build_book's default start is the rules' start position (it was the standard
    board's, which a search of Three Men's Morris refuses), and the book's values are
    the search's."""
    from solver.opening import build_book
    from solver.rules import VARIANTS
    rules = VARIANTS["three-mens"]
    built = CliRunner().invoke(main, ["build", "--db", str(tmp_path), "--rules", rules.name,
                                      "--phase", "moving", "--quiet"])
    assert built.exit_code == 0, built.output
    with open_database(tmp_path, rules, in_memory=True) as db:
        search = OpeningSearch(rules, db.subspace)
        book = build_book(search, 1)
        start = parse_position("startpos", rules)
        assert len(book) > 1 and book.get(start) == search.solve(start).value
        for move in start.legal_moves(rules):
            after = start.play(move, rules)
            assert book.get(after) == search.solve(after).value, str(after)
