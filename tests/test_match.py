"""Playing to win: the trap-setting choice (``ultra``, :mod:`solver.choice`) and
``muehle match`` (:mod:`solver.match`).

The 4-stone game is built whole (moving and placement phase, a few seconds) once for
this module; its positions are every kind the standard game has, drawn ones included.
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver import choice
from solver.build import build
from solver.choice import error_chance, naturalness, probe_game_moves, trap_choice, trap_moves
from solver.cli import main
from solver.game import Game
from solver.match import PlayerSpec, Score, elo_of, play_match, read_starts
from solver.players import FalliblePlayer, UltraPlayer, make_player
from solver.position import parse_position
from solver.probe import MoveProbe, open_database
from solver.rules import Rules
from solver.values import DRAW, LOSS, WIN

FOUR = Rules(stones=4)
SEED = int(os.environ.get("MUEHLE_TEST_SEED", "7"))


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    folder = tmp_path_factory.mktemp("whole4")
    build(folder, FOUR, phase="all", progress=False)
    return folder


@pytest.fixture(scope="module")
def db(root):
    with open_database(root, FOUR, in_memory=True) as database:
        yield database


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def sample_games(db, rng, count):
    """``count`` games in progress, reached by random play from the start (every phase,
    every value, with their histories)."""
    games = []
    while len(games) < count:
        game = Game(rules=FOUR)
        for _ in range(rng.randrange(0, 40)):
            if game.outcome() is not None:
                break
            game.play(rng.choice(game.legal_moves()))
        if game.outcome() is None:
            games.append(game)
    return games


# --- the choice ---------------------------------------------------------------------

def test_trap_moves_are_the_best_moves_and_ultra_plays_one(db):
    """The choice never gives up value: its moves are exactly those of the best rank."""
    rng = random.Random(SEED)
    ultra = UltraPlayer(FOUR, random.Random(SEED), database=db)
    drawn = chances = 0
    for game in sample_games(db, rng, 60):
        probes = probe_game_moves(db, game)
        best = {str(p.move) for p in probes if p.rank == probes[0].rank}
        traps = trap_moves(db, game)
        assert {str(t.move) for t in traps} == best
        assert all(t.probe.rank == probes[0].rank for t in traps)
        assert all(0.0 <= t.chance <= 1.0 for t in traps)
        assert [t.chance for t in traps] == sorted((t.chance for t in traps), reverse=True)
        assert str(ultra.choose(game)) in best
        chosen = trap_choice(db, game)
        assert chosen.chance == traps[0].chance
        drawn += probes[0].value == DRAW
        chances += any(t.chance > 0 for t in traps)
        if probes[0].value == WIN:
            assert all(t.chance == 0 for t in traps)     # a certain win needs no trap
    # (the sample holds what the test is about)
    assert drawn >= 10 and chances >= 5, (drawn, chances)


def first_look(db, game, move):
    """The chance of an error on the reply to ``move``, counted here move by move from
    the reference rules and each position's value (no code of solver.choice)."""
    after = game.copy()
    after.play(move)
    pos = after.position
    replies = []
    for reply in pos.legal_moves(FOUR):
        again = after.copy()
        again.play(reply)
        outcome = again.outcome()
        if outcome is not None:
            value = outcome.value_for(pos.turn)
        else:
            value = -db.probe(again.position).value
        closes = bool(reply.takes)
        threat = any(m >> reply.target & 1 and not m & pos.own and bin(m & pos.opp).count("1") == 2
                     for m in FOUR.board.mills)
        replies.append((value, (4.0 if closes else 1.0) * (2.5 if threat else 1.0)))
    if not replies:
        return 0.0
    best = max(v.score for v, _ in replies)
    return sum(w for v, w in replies if v.score < best) / sum(w for _, w in replies)


def test_first_look_is_the_model_chance(db, monkeypatch):
    """Without the deeper look, each move's chance is the weighted share of the
    opponent's replies that lose value, as counted independently here."""
    monkeypatch.setattr(choice, "DEEPER_MOVES", 0)
    rng = random.Random(SEED + 1)
    seen = 0
    for game in sample_games(db, rng, 40):
        for trap in trap_moves(db, game):
            if trap.probe.value == WIN:
                continue
            assert trap.chance == pytest.approx(first_look(db, game, trap.move)), (game.position, trap)
            seen += trap.chance > 0
    assert seen >= 5


def test_deeper_look_adds_the_second_chance(db, monkeypatch):
    """A move looked at deeper has p1 + (1 - p1) * p2 >= p1; the others keep p1."""
    rng = random.Random(SEED + 2)
    deeper = 0
    for game in sample_games(db, rng, 40):
        monkeypatch.setattr(choice, "DEEPER_MOVES", 0)
        first = {str(t.move): t.chance for t in trap_moves(db, game)}
        monkeypatch.setattr(choice, "DEEPER_MOVES", 3)
        both = {str(t.move): t.chance for t in trap_moves(db, game)}
        assert both.keys() == first.keys()
        assert all(both[m] >= first[m] - 1e-12 for m in both)
        assert sum(both[m] > first[m] + 1e-12 for m in both) <= 3
        deeper += any(both[m] > first[m] + 1e-12 for m in both)
    assert deeper >= 3


def test_error_chance_weights_natural_replies():
    pos = parse_position("W:a1,d1,a4 B:g7,d7,b6,g4 w", FOUR)
    from solver.position import parse_move
    quiet, block, close = parse_move("a4-b4"), parse_move("a4-a7"), parse_move("a4-g1xb6")
    assert naturalness(pos, quiet, FOUR.board.mills) == 1.0
    assert naturalness(pos, block, FOUR.board.mills) == 2.5
    assert naturalness(pos, close, FOUR.board.mills) == 4.0 * 2.5    # g1 also blocks g1-g4-g7
    replies = [MoveProbe(close, DRAW), MoveProbe(quiet, LOSS, 4), MoveProbe(block, LOSS, 6)]
    chance, safe = error_chance(pos, replies, FOUR.board.mills)
    assert chance == pytest.approx(3.5 / 13.5)
    assert [r.move for _, r in safe] == [close]
    assert error_chance(pos, [], FOUR.board.mills) == (0.0, [])


# --- players ----------------------------------------------------------------------

def test_fallible_player_errs_at_its_rate(db):
    rng = random.Random(SEED)
    games = sample_games(db, rng, 30)
    never = FalliblePlayer(FOUR, random.Random(1), database=db, epsilon=0.0)
    for game in games:
        probes = probe_game_moves(db, game)
        assert str(never.choose(game)) in {str(p.move) for p in probes if p.rank == probes[0].rank}
    always = FalliblePlayer(FOUR, random.Random(2), database=db, epsilon=1.0)
    picks = {str(always.choose(games[0])) for _ in range(200)}
    assert picks == {str(m) for m in games[0].legal_moves()}
    for bad in (-0.1, 1.5, math.nan, "0.1"):
        with pytest.raises(ValueError, match="probability from 0 to 1"):
            FalliblePlayer(FOUR, database=db, epsilon=bad)


def test_ultra_is_a_level(db):
    player = make_player("ultra", FOUR, random.Random(1), db)
    assert isinstance(player, UltraPlayer) and player.level == "ultra"
    result = run("play", "--stones", "4", "--level", "ultra", "--db", db.root, "--seed", "1",
                 input="d2\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Black to move" in result.output or "White to move" in result.output


# --- statistics -----------------------------------------------------------------------

def test_score_statistics():
    assert Score(10, 0, 0).interval()[1] == pytest.approx(1.0) and Score(10, 0, 0).interval()[0] > 0.6
    low, high = Score(0, 100, 0).interval()                     # all draws: not a point
    assert low < 0.5 < high and high - low > 0.05
    assert elo_of(0.5) == 0 and elo_of(1.0) == math.inf and elo_of(0.0) == -math.inf
    assert elo_of(0.75) == pytest.approx(400 * math.log10(3))
    s = Score(30, 60, 10)
    low, high = s.interval()
    assert low < s.score < high
    assert s.elo_interval() == (elo_of(low), elo_of(high))
    assert s.add(WIN) == Score(31, 60, 10) and s.add(LOSS).losses == 11


def test_player_specs():
    assert PlayerSpec.parse("hard") == PlayerSpec("hard")
    assert PlayerSpec.parse("fallible:0.2") == PlayerSpec("fallible", 0.2)
    assert str(PlayerSpec.parse("fallible:0.20")) == "fallible:0.2"
    for bad, words in [("grandmaster", "unknown player"), ("hard:3", "unknown player"),
                       ("fallible", "probability of an error"), ("fallible:x", "probability of an error"),
                       ("fallible:-0.1", "from 0 to 1"), ("fallible:1.01", "from 0 to 1"),
                       ("fallible:nan", "from 0 to 1")]:
        with pytest.raises(ValueError, match=words):
            PlayerSpec.parse(bad)


# --- matches ----------------------------------------------------------------------------

def test_match_replays_alike_in_one_or_two_processes(root):
    args = (PlayerSpec("ultra"), PlayerSpec("fallible", 0.3), 4, FOUR, root)
    one = sorted(play_match(*args, seed=5, jobs=1), key=lambda r: r.number)
    two = sorted(play_match(*args, seed=5, jobs=2), key=lambda r: r.number)
    assert [r.record for r in one] == [r.record for r in two]
    assert [r.number for r in one] == list(range(4))
    for r in one:
        assert (r.white, r.black) == (("ultra", "fallible:0.3") if r.number % 2 == 0
                                      else ("fallible:0.3", "ultra"))
        game = Game.from_record(r.record)
        first = "w" if r.number % 2 == 0 else "b"
        assert game.outcome().value_for(first) == r.result and len(game) == r.plies
    other = sorted(play_match(*args, seed=6, jobs=1), key=lambda r: r.number)
    assert [r.record for r in other] != [r.record for r in one]


def test_database_players_never_lose_a_match(root):
    """Against a fallible opponent neither database player loses a game (the 4-stone
    game is won for nobody from the start).  Whether ultra wins more is measured, on
    the standard game, by scripts/trap_match.py (docs/results.md)."""
    opponent = PlayerSpec("fallible", 0.2)
    scores = {}
    for name in ("perfect", "ultra"):
        results = list(play_match(PlayerSpec(name), opponent, 10, FOUR, root, seed=SEED, jobs=2))
        scores[name] = Score(sum(r.result == WIN for r in results),
                             sum(r.result == DRAW for r in results),
                             sum(r.result == LOSS for r in results))
        assert scores[name].losses == 0, scores


def test_match_command(root, tmp_path):
    records = tmp_path / "games"
    result = run("match", "ultra", "fallible:0.3", "--stones", "4", "--db", root, "--games", "4",
                 "--seed", "3", "--jobs", "1", "--records", records, "--quiet")
    assert result.exit_code == 0, result.output
    assert "match: ultra against fallible:0.3, 4 games, rules standard-s4, seed 3" in result.output
    assert "ultra: " in result.output and "Elo difference" in result.output
    files = sorted(records.iterdir())
    assert [f.name for f in files] == [f"game-{i:05d}.txt" for i in range(4)]
    for f in files:
        assert f.read_text().startswith("# match game ")
        analysed = run("analyze", "--stones", "4", "--db", root, "--json", f)
        assert analysed.exit_code == 0, analysed.output
        assert json.loads(analysed.output)["result"] is not None
    again = run("match", "ultra", "fallible:0.3", "--stones", "4", "--db", root, "--games", "4",
                "--seed", "3", "--jobs", "1", "--json")
    obj = json.loads(again.output)
    assert obj["games"] == 4 and obj["wins"] + obj["draws"] + obj["losses"] == 4
    assert f"{obj['wins']} wins, {obj['draws']} draws, {obj['losses']} losses" in result.output
    assert obj["interrupted"] is False and sum(obj["terminations"].values()) == 4


def test_match_from_positions(root, tmp_path):
    starts = tmp_path / "starts.txt"
    starts.write_text("# two starts\nW:a1,d1,g4,b4 B:g7,b6,d6,f6 w\n\nW:a1,d1,g1,b4 B:a7,d7,f6,b6 b\n")
    records = tmp_path / "games"
    result = run("match", "perfect", "medium", "--stones", "4", "--db", root, "--games", "4",
                 "--positions", starts, "--records", records, "--quiet", "--jobs", "1")
    assert result.exit_code == 0, result.output
    texts = [(records / f"game-{i:05d}.txt").read_text() for i in range(4)]
    assert "start: W:a1,b4,d1,g4 B:b6,d6,f6,g7 w" in texts[0] and "start: W:a1,b4,d1,g4" in texts[1]
    assert "start: W:a1,b4,d1,g1 B:a7,b6,d7,f6 b" in texts[2] and "start: W:a1,b4,d1,g1" in texts[3]


@pytest.mark.parametrize("args, words", [
    (["grandmaster", "perfect"], "unknown player 'grandmaster'"),
    (["fallible:1.5", "perfect"], "from 0 to 1"),
    (["fallible:", "perfect"], "probability of an error"),
    (["perfect", "easy", "--games", "0"], "--games"),
])
def test_match_bad_players_and_counts(root, tmp_path, args, words):
    result = run("match", *args, "--stones", "4", "--db", root, "--records", tmp_path / "r")
    assert result.exit_code == 2
    assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()                 # nothing played, nothing written


def test_match_bad_positions_and_folders(root, tmp_path):
    starts = tmp_path / "starts.txt"
    starts.write_text("W:a1,d1,g4,b4 B:g7,b6,d6,f6 w\nW:a1,a1 B: w\n")
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--positions", starts,
                 "--records", tmp_path / "r")
    assert result.exit_code == 2 and "starts.txt: line 2:" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "r").exists()
    starts.write_text("# nothing\n")
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--positions", starts)
    assert result.exit_code == 2 and "no positions" in result.output
    starts.write_text("W:a1,d1 B:a4,a7,d7 w\n")                 # over: White has two stones
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--positions", starts)
    assert result.exit_code == 2 and "line 1: the game is already over" in result.output
    starts.write_bytes(b"\xff\xfe\n")
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--positions", starts)
    assert result.exit_code == 2 and result.output.endswith("offset 0): not a positions file\n"), result.output
    full = tmp_path / "full"
    full.mkdir()
    (full / "game-00000.txt").write_text("d2\n")
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--records", full)
    assert result.exit_code == 2 and "already holds game records" in result.output
    # any other file too: the database folder given by mistake took the records
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--records", root, "--games", "1")
    assert result.exit_code == 2 and result.output == (
        f"muehle: error: {root} already holds files: name a new or empty folder for the game records\n"), result.output
    assert not list(Path(root).glob("game-*.txt"))
    result = run("match", "perfect", "easy", "--stones", "4", "--db", root, "--records", "/dev/null/games")
    assert result.exit_code == 2 and result.output == ("muehle: error: cannot make the folder /dev/null/games "
                                                       "for the game records: not a directory\n"), result.output
    result = run("match", "ultra", "easy", "--stones", "4", "--db", tmp_path / "none")
    assert result.exit_code == 2 and "ultra plays by the databases" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_ctrl_c_prints_the_score_so_far_and_keeps_the_records(root, tmp_path):
    records = tmp_path / "games"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1]))
    proc = subprocess.Popen([sys.executable, "-m", "solver", "match", "hard", "medium", "--stones", "4",
                             "--db", str(root), "--games", "10000", "--think", "0.02", "--jobs", "2",
                             "--records", str(records), "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(records.glob("game-*.txt"))) < 2:
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, (out, err)
    assert "muehle: interrupted" in err and "Traceback" not in err
    line = next(l for l in out.splitlines() if l.startswith("interrupted after"))
    played = int(line.split()[2])
    assert played >= 2
    files = sorted(records.iterdir())
    assert len(files) == played and all(f.name.endswith(".txt") for f in files)
    for f in files:
        assert Game.from_record(f.read_text(), FOUR).outcome() is not None


def test_a_missing_file_of_the_rule_is_one_note_whichever_side_meets_it(root, tmp_path):
    """Both players meet the pair 3-4 under the rule, one as 3 against 4 stones, the
    other as 4 against 3: one file is missing, so the match says so once."""
    import shutil

    from solver import dtz
    copy = tmp_path / "db"
    shutil.copytree(root, copy)
    dtz.build(copy, FOUR, progress=False)
    missing = list(copy.rglob("dtz50-pair-3-4.h5"))
    assert len(missing) == 1
    missing[0].unlink()
    starts = tmp_path / "starts.txt"
    starts.write_text("W:a1,d1,g4,b4 B:g7,b6,d6 w\nW:a1,d1,g4 B:g7,b6,d6,f4 w\n")
    result = run("match", "hard", "hard", "--stones", "4", "--db", copy, "--games", "4", "--seed", "1",
                 "--positions", starts, "--quiet", "--jobs", "1", "--think", "0.2")
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "cannot answer" in line]
    assert len(said) == 1 and "pair 3-4 under the 50-ply rule is not built" in said[0], result.output
