"""query --batch's block path (solver.batch) against the one-position path it stands for.

Every line :func:`solver.batch.query_lines` writes must be the text of
``json.dumps(query_object(...))`` for the same position and count of quiet plies, and
every error the one ``query_object`` raises: compared here on every position of random
games of the 4-stone game (placement and moving phase, the tables of the quiet-ply
rule built), on random positions biased to the rules' corners (finished games, blocked
sides, stones beyond the rules' number), under other rules and boards, and where
files are missing or damaged.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import select
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from solver.analysis import query_object
from solver.batch import query_lines
from solver.cli import main
from solver.game import Game
from solver.kernels import kernels_for
from solver.notation import format_position
from solver.position import Move, Position, parse_position
from solver.probe import open_database
from solver.rules import Rules

from randpos import random_position

FOUR = Rules(stones=4)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def build(root, *args):
    result = run("build", "--db", root, "--quiet", *args)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def whole4(tmp_path_factory):
    """The whole 4-stone game: moving and placement phase, and the tables of the 50-ply rule."""
    root = tmp_path_factory.mktemp("whole4")
    build(root, "--stones", 4)
    return root


def game_positions(rules: Rules, games: int, seed: int) -> list[Position]:
    """Every position of ``games`` random games from the start (as a collection of
    games is analysed), the finished ones included."""
    rng = random.Random(seed)
    kernels = kernels_for(rules.board)
    out = []
    for _ in range(games):
        pos = parse_position("startpos", rules)
        for _ in range(60):
            out.append(pos)
            moves = kernels.moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
            if not moves or pos.terminal_wdl(rules) is not None:
                break
            pos = pos.play_unchecked(Move.unpack(rng.choice(moves), rules.board))
    return out


def one_by_one(db, positions, quiet_plies=0) -> list:
    """What query_object answers for each position alone: its JSON text, or its error."""
    out = []
    for pos in positions:
        try:
            out.append(json.dumps(query_object(db, pos, False, Game(pos, db.rules, db.quiet_limit, quiet_plies))))
        except Exception as error:        # (compared by kind and text)
            out.append(error)
    return out


def assert_same(db, positions, quiet_plies=0) -> None:
    fast = query_lines(db, positions, quiet_plies)
    slow = one_by_one(db, positions, quiet_plies)
    assert len(fast) == len(slow) == len(positions)
    for pos, a, b in zip(positions, fast, slow):
        if isinstance(b, str):
            assert a == b, format_position(pos)
        else:
            assert type(a) is type(b) and str(a) == str(b), format_position(pos)


def test_every_position_of_random_games_gets_the_text_of_its_query(whole4):
    positions = game_positions(FOUR, 150, seed=1)
    assert sum(p.in_placement for p in positions) > 1000 and sum(not p.in_placement for p in positions) > 1000
    with open_database(whole4, FOUR) as db:
        assert db.has_rule_tables() and db.has_placement()
        assert_same(db, positions)
        moving = [p for p in positions if not p.in_placement]
        for quiet in (1, 17, 49):        # (a count near the limit draws many wins)
            assert_same(db, moving[:600], quiet)
        # with stones in hand the count has not started: each is refused as query refuses it
        assert_same(db, positions[:40], 3)
        assert_same(db, positions[:5], 50)


def test_random_positions_with_the_rules_corners(whole4):
    """Finished games (a side below three, a blocked side), lines standing, hands no game
    reaches, more stones than the rules give: each as query_object answers or refuses it."""
    rng = random.Random(7)
    positions = [random_position(rng) for _ in range(3000)]
    with open_database(whole4, FOUR) as db:
        assert_same(db, positions)


@pytest.mark.parametrize("rules", [Rules(stones=4, jumping=False), Rules(stones=4, mill_rule="take-none"),
                                   dataclasses.replace(Rules.from_name("six-mens"), stones=4)],
                         ids=["no-jumping", "take-none", "six-mens-s4"])
def test_other_rules_and_boards(tmp_path, rules):
    build(tmp_path, "--rules", rules.name)
    positions = game_positions(rules, 60, seed=3)
    with open_database(tmp_path, rules) as db:
        assert_same(db, positions)


def test_without_the_rule_tables_and_with_files_missing_or_damaged(whole4, tmp_path):
    root = tmp_path / "db"
    shutil.copytree(whole4, root)
    folder = root / FOUR.name
    positions = game_positions(FOUR, 40, seed=11)
    for name in sorted(p.name for p in folder.glob("dtz50-*.h5")):
        (folder / name).unlink()     # no tables of the rule: the plain answers alone
    with open_database(root, FOUR) as db:
        assert not db.has_rule_tables()
        assert_same(db, positions)
    shutil.rmtree(root)
    shutil.copytree(whole4, root)
    (folder / "dtz50-pair-3-4.h5").unlink()           # one pair's rule tables missing
    (folder / "place-1-1+3-3.h5").unlink()            # a placement file missing
    with open(folder / "pair-4-4.h5", "r+b") as f:    # a pair damaged
        f.seek(os.path.getsize(folder / "pair-4-4.h5") // 2)
        f.write(b"\xff" * 4096)
    with open_database(root, FOUR) as db:
        assert_same(db, positions)


def test_cli_batch_equals_query_json_line_by_line(whole4, tmp_path):
    positions = game_positions(FOUR, 5, seed=5)
    lines = [format_position(p) for p in positions] + ["W:a1 B:q9 w", "# a comment", ""]
    batch = tmp_path / "positions.txt"
    batch.write_text("\n".join(lines) + "\n")
    result = run("query", "--db", whole4, "--stones", 4, "--batch", batch)
    assert result.exit_code == 1                       # (one line is no position)
    got = result.stdout.splitlines()
    assert len(got) == len(positions) + 1
    for text, line in zip(lines[:len(positions)], got):
        single = run("query", "--db", whole4, "--stones", 4, "--json", text)
        assert single.exit_code == 0 and single.stdout.strip() == line
    assert json.loads(got[-1])["error"].startswith(f"line {len(positions) + 1}: ")


def test_a_program_that_waits_for_each_answer_gets_it(whole4):
    """A block is answered when the pipe has no more for now: a program writing one
    position and waiting for its answer is not left waiting for 16,384 lines."""
    proc = subprocess.Popen([sys.executable, "-m", "solver", "query", "--db", str(whole4), "--stones", "4",
                             "--batch", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        for text in ("W:a1,d1,g1 B:a7,d7,f6 b", "startpos"):
            proc.stdin.write(text.encode() + b"\n")
            proc.stdin.flush()
            deadline = time.monotonic() + 30
            ready = []
            while not ready and time.monotonic() < deadline:
                ready = select.select([proc.stdout], [], [], 0.5)[0]
            assert ready, f"no answer to {text} while the pipe stayed open"
            answer = json.loads(proc.stdout.readline())
            assert answer["position"] == format_position(parse_position(text, FOUR))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_blocks_answered_in_processes_come_out_in_order(whole4, tmp_path, monkeypatch):
    """From its second block on, --batch answers in --jobs processes: the same lines in the
    same order, notes once, an error line where a line is no position."""
    from solver.cli import probing
    monkeypatch.setattr(probing, "BATCH_LINES", 64)
    positions = game_positions(FOUR, 12, seed=9)
    lines = [format_position(p) for p in positions]
    lines[100] = "W:a1 B:q9 w"                             # (line 103 once the two come in)
    lines[70:70] = ["W:a1,d1,g1 B:a7,d7,f6 b 1 0"] * 2     # (hands no game holds: a note, once)
    batch = tmp_path / "positions.txt"
    batch.write_text("\n".join(lines) + "\n")
    alone = run("query", "--db", whole4, "--stones", 4, "--batch", batch, "--jobs", 1)
    pooled = run("query", "--db", whole4, "--stones", 4, "--batch", batch, "--jobs", 2)
    assert len(lines) > 3 * 64
    assert alone.exit_code == pooled.exit_code == 1
    assert pooled.stdout == alone.stdout and len(pooled.stdout.splitlines()) == len(lines)
    assert pooled.stderr == alone.stderr and alone.stderr.count("note: ") == 1
    assert json.loads(pooled.stdout.splitlines()[102])["error"].startswith("line 103: ")


@pytest.mark.parametrize("in_memory", [False, True])
def test_codes_at_refuses_a_bad_slot_without_blaming_the_file(db4, in_memory):
    """A slot outside the subspace is the caller's mistake: it was called a damaged file
    to rebuild (read from disk), a bare IndexError, or (in memory) a negative slot read
    from the end; a float slot was cut to a whole one."""
    import numpy as np
    from solver.index import Subspace
    from solver.rules import Rules
    db = open_database(db4, Rules(stones=4), in_memory=in_memory)
    sub = Subspace(3, 3)
    for bad in ([-1], [-70000], [sub.slots], [2 ** 40]):
        with pytest.raises(IndexError, match=rf"^slot {bad[0]} outside subspace 3-3 \(slots 0\.\.{sub.slots - 1}\)$"):
            db.codes_at(sub, np.array(bad))
    for bad in (np.array([1.9]), np.array([[1]])):
        with pytest.raises(ValueError, match="^slots: a row of whole numbers"):
            db.codes_at(sub, bad)
    good = np.array([0, 5, sub.slots - 1])
    assert list(db.codes_at(sub, good)) == [db.subspace(3, 3)[s] for s in good]
    assert len(db.codes_at(sub, np.array([]))) == 0
    db.close()
