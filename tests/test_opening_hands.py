"""Hands no game from the standard start reaches (a side with none in hand slides while
the other still places, or one side has two or more stones in hand more than the other):
the opening search answers them exactly, checked against a brute-force negamax over the
reference rules (:meth:`Position.legal_moves`) with the moving-phase database at the leaves."""

from __future__ import annotations

import random

import pytest

from solver.opening import OpeningSearch, book_key
from solver.position import DRAW, LOSS, WIN, Position
from solver.probe import open_database
from solver.rules import Rules
from solver.values import decode

FOUR = Rules(stones=4)
RANK = {WIN: 1, DRAW: 0, LOSS: -1}


def odd_hand_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    """Random positions whose hands the normal game never produces, game not over."""
    rng = random.Random(seed)
    n = rules.stones
    out = []
    while len(out) < count:
        hm, ho = rng.randint(0, n), rng.randint(0, n)
        if hm + ho == 0 or hm - ho in (0, 1) or hm + ho > 2:
            continue                     # the hands of the normal game; brute force stays small
        m, o = rng.randint(0, n - hm), rng.randint(0, n - ho)
        points = rng.sample(range(24), m + o)
        own = sum(1 << p for p in points[:m])
        opp = sum(1 << p for p in points[m:])
        pos = Position.from_view(own, opp, hm, ho, rng.choice("wb"))
        if pos.terminal_wdl(rules) is None:
            out.append(pos)
    return out


@pytest.fixture(scope="module")
def brute(db4):
    db = open_database(db4, FOUR, in_memory=True)

    memo: dict[int, int] = {}

    def value(pos: Position) -> int:
        outcome = pos.terminal_wdl(FOUR)
        if outcome is not None:
            return RANK[outcome]
        if not pos.in_placement:
            return RANK[decode(db.code(pos.own, pos.opp)).value]
        key = book_key(pos)           # one entry for all 16 images and both colours
        if key not in memo:
            memo[key] = max(-value(pos.play_unchecked(mv)) for mv in pos.legal_moves(FOUR))
        return memo[key]

    yield db, value
    db.close()


def test_search_answers_odd_hands_as_brute_force_negamax(brute):
    db, value = brute
    search = OpeningSearch(FOUR, db.subspace)
    positions = odd_hand_positions(FOUR, 8, seed=5)
    seen = set()
    for pos in positions:
        got = search.solve(pos).value
        assert RANK[got] == value(pos), str(pos)
        seen.add((got, pos.own_hand == 0))
    # the sample holds decided and drawn positions, and ones where the side to move slides
    assert len({v for v, _ in seen}) >= 2 and any(slides for _, slides in seen)


def test_probe_and_probe_moves_answer_odd_hands(brute):
    db, value = brute
    for pos in odd_hand_positions(FOUR, 3, seed=6):
        assert RANK[db.probe(pos).value] == value(pos)
        moves = db.probe_moves(pos)
        assert moves and RANK[moves[0].value] == value(pos)


ODD = ["W:a1,a4,a7 B:d7,g7 w 0 2", "W:d7,a4,g4 B:a1,g1 b 0 2", "W:a1,d1,a4 B:a7,d7 w 1 2"]


def test_every_entry_point_answers_odd_hands(db4, tmp_path, brute):
    """query, query --batch, solve-opening, analyze (start:), play --position."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from solver.position import parse_position

    db, value = brute
    root = Path(__file__).parent.parent

    def cli(*args, stdin=""):
        r = subprocess.run([sys.executable, "-m", "solver", *args], input=stdin, text=True,
                           capture_output=True, cwd=root, timeout=300)
        assert r.returncode in (0, 2) and "Traceback" not in r.stderr, r.stderr[-2000:]
        return r

    common = ["--db", str(db4), "--stones", "4"]
    for text in ODD:
        word = {1: "win", 0: "draw", -1: "loss"}[value(parse_position(text, FOUR))]
        r = cli("query", *common, text)
        assert r.returncode == 0 and word in r.stdout.splitlines()[0], r.stdout
        r = cli("solve-opening", *common, text)
        assert r.returncode == 0 and word in r.stdout, r.stdout
        r = cli("play", *common, "--level", "perfect", "--position", text, stdin="quit\n")
        assert r.returncode == 0, r.stdout + r.stderr
    batch = tmp_path / "batch.txt"
    batch.write_bytes("\n".join(ODD).encode() + b"\n")
    r = cli("query", *common, "--batch", str(batch))
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(ODD)
    for line in r.stdout.splitlines():
        assert "error" not in json.loads(line)
    game = tmp_path / "game.txt"
    game.write_text(f"start: {ODD[0]}\n")
    r = cli("analyze", *common, str(game))
    assert "Traceback" not in r.stderr


def test_with_placement_files_odd_hands_one_move_from_them_have_plies(db4, tmp_path_factory, brute):
    """Where the placement files are built and every move of an odd-hand position leads to
    a position they hold, probe answers from those moves, with plies: query and best-move
    (which takes its value from the moves) gave 'win' and 'win in 3' for the same position."""
    import shutil
    from solver.analysis import best_move_object, query_object
    from solver.build import build
    from solver.position import parse_position
    _, value = brute
    whole = tmp_path_factory.mktemp("whole") / "db"
    shutil.copytree(db4, whole)
    build(whole, FOUR, phase="placement", progress=False)
    with open_database(whole, FOUR) as db:
        reported = parse_position("W:b6,f2,g4 B:c3,d1 w 0 1", FOUR)
        assert (db.probe(reported).value, db.probe(reported).plies) == (WIN, 3)
        # a move that ends the game (Black left with 2) is no reason to search
        ending = parse_position("W:a1,d1,g4 B:a7,d7 w 0 1", FOUR)
        assert (db.probe(ending).value, db.probe(ending).plies) == (WIN, 1)
        assert not db.needs_search(reported) and not db.needs_search(ending)
        # hands whose moves lead to other such hands: the search, and the note says so
        far = parse_position("W:a1 B:a7 w 2 3", FOUR)
        assert db.needs_search(far) and db.probe(far).plies is None
        assert db.search_note().startswith("these hands are in no placement file")
        with_plies = 0
        for pos in odd_hand_positions(FOUR, 12, seed=7) + [reported]:
            probe, moves = db.probe(pos), db.probe_moves(pos)
            assert RANK[probe.value] == value(pos), str(pos)
            if all(not c.in_placement or db.has_placement() and _fits(c) for c in
                   (pos.play_unchecked(m.move) for m in moves)):
                with_plies += 1
                assert (probe.value, probe.plies) == (moves[0].value, moves[0].plies), str(pos)
                query, best = query_object(db, pos), best_move_object(db, pos, None)
                assert (query["value"], query["plies"]) == (best["value"], best["plies"]), str(pos)
        assert with_plies >= 3, with_plies


def _fits(pos) -> bool:
    from solver import placement
    from solver.index import Subspace
    return placement.is_placement(Subspace.of(pos), FOUR)


def test_finished_games_answer_by_the_rules(brute):
    db, _ = brute
    from solver.position import parse_position
    assert str(db.probe(parse_position("W:a1,d1 B:a7,d7,g7 w", FOUR))) == "loss in 0"
    assert str(db.probe(parse_position("W:a1,d1,g1 B:a7,d7 w", FOUR))) == "win in 0"


def test_small_hostile_inputs():
    from solver.errors import IllegalMoveError, InvalidNotationError
    from solver.game import Game
    from solver.position import Move, parse_position
    with pytest.raises(InvalidNotationError) as info:
        parse_position("W: B: w 1 " + "9" * 5000)
    assert len(str(info.value)) < 120
    with pytest.raises(ValueError):
        Move(99)                         # beyond any board: no Move at all
    with pytest.raises(IllegalMoveError):
        Game(rules=Rules.from_name("three-mens")).play(Move(19))    # not a point of this board
    with pytest.raises(TypeError):
        Game().play(None)
    with pytest.raises(ValueError):
        Rules.from_name("standard-s\u0663")
