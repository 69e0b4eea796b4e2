"""Computer players, ``muehle play`` driven through standard input, and ``muehle analyze``.

The 4-stone game's moving-phase databases are built once per session (a few seconds).
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
from click.testing import CliRunner

from solver.commands import explained
from solver import _kernels
from solver.cli import main
from solver.game import Game
from solver.players import EasyPlayer, HardPlayer, MediumPlayer, PerfectPlayer, make_player
from solver.position import DRAW, LOSS, WIN, Position
from solver.probe import open_database
from solver.rules import Rules
from solver.values import SLACK_CODE

RULES = Rules(stones=4)
SEED = int(os.environ.get("MUEHLE_TEST_SEED", "7"))


@pytest.fixture(scope="session")
def db_root(db4):
    """The 4-stone game's databases (built once per session in conftest)."""
    return db4


@pytest.fixture(scope="session")
def db(db_root):
    with open_database(db_root, RULES, in_memory=True) as database:
        yield database


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _codes_mask(codes, want):
    codes = codes.astype("int64")
    real = codes != SLACK_CODE
    if want == DRAW:
        return real & (codes == 0)
    return real & (codes > 0) & (codes % 2 == (0 if want == WIN else 1))


def sample_positions(db, rng, want, count):
    """``count`` moving-phase positions (a quarter from each subspace) whose value for
    the side to move is ``want``; either colour to move."""
    found = []
    for m, o in ((3, 3), (3, 4), (4, 3), (4, 4)):
        slots = np.flatnonzero(_codes_mask(db.subspace(m, o), want))
        here = 0
        for _ in range(min(len(slots), 50 * count)):
            slot = int(slots[rng.randrange(len(slots))])
            own, opp = _kernels.position_at(m, o, slot)
            pos = Position.from_view(own, opp, turn=rng.choice("wb"))
            if pos.terminal_wdl(RULES) is None:
                found.append(pos)
                here += 1
                if here == -(-count // 4):
                    break
    return found


def longest_wins(db):
    """The position with the longest win of each subspace."""
    found = []
    for m, o in ((3, 3), (3, 4), (4, 3), (4, 4)):
        codes = db.subspace(m, o).astype("int64")
        slot = int((codes * _codes_mask(codes, WIN)).argmax())
        found.append(Position.from_view(*_kernels.position_at(m, o, slot)))
    return found


# --- players ---------------------------------------------------------------------

def test_perfect_wins_in_exactly_the_promised_plies(db):
    rng = random.Random(SEED)
    positions = sample_positions(db, rng, WIN, 24)
    assert len(positions) == 24
    for start in positions + longest_wins(db):
        promised = db.probe(start).plies
        winner, pos, plies = start.turn, start, 0
        # Positions, not a Game: the draw rules of play must not cut a long win short.
        while pos.terminal_wdl(RULES) is None:
            pos = pos.play(db.best_move(pos, rng), RULES)
            plies += 1
            assert plies <= promised
        assert plies == promised, str(start)
        assert pos.terminal_wdl(RULES) == LOSS and pos.turn != winner


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_perfect_never_loses_from_the_start(db, level):
    for game_no in range(2):
        rng = random.Random(SEED * 100 + game_no)
        perfect = make_player("perfect", RULES, rng, db)
        other = make_player(level, RULES, random.Random(SEED + game_no), db, seconds=0.1)
        perfect_colour = "wb"[game_no % 2]
        game = Game(rules=RULES)
        while game.outcome() is None:
            player = perfect if game.position.turn == perfect_colour else other
            game.play(player.choose(game))
        assert game.outcome()[0] in (perfect_colour, DRAW), (level, game.record())


def test_perfect_does_not_throw_a_win_away_by_repeating_a_position(db, db_root):
    """White wins here, but after moves made by others one of its shortest wins would
    stand for the third time: a draw by the rules of play, which the database does not
    know. Perfect plays another win, whatever its seed."""
    from solver.players import probe_game_moves
    game = Game("W:a4,c4,g7 B:c5,d7,e3 b", RULES)
    for move in "c5-b6 a4-c3 b6-c5 c3-a4 c5-b6 a4-c3 b6-c5".split():
        game.play(move)
    probes = db.probe_moves(game.position)
    best = [mp for mp in probes if mp.rank == probes[0].rank]
    assert probes[0].value == WIN and len(best) > 1
    repeating = {str(mp.move) for mp in best if _after(game, mp.move).outcome() is not None}
    assert repeating == {"c3-a4"}                   # the premise: one of them draws
    in_game = probe_game_moves(db, game)
    assert {str(mp.move): mp.value for mp in in_game}["c3-a4"] == DRAW
    assert in_game[0].value == WIN and in_game[0].plies == probes[0].plies
    for seed in range(20):
        move = PerfectPlayer(RULES, random.Random(seed), database=db).choose(game)
        after = _after(game, move)
        value = db.probe(after.position).for_mover()
        assert after.outcome() is None and (value.value, value.plies) == (WIN, probes[0].plies), seed
    # best-move of the game (the command's --after, the page's hint) counts the draw as perfect does
    from solver.analysis import best_move_object
    for seed in range(20):
        assert best_move_object(db, game.position, random.Random(seed), game)["move"] != "c3-a4", seed
    start, played = "W:a4,c4,g7 B:c5,d7,e3 b", "c5-b6 a4-c3 b6-c5 c3-a4 c5-b6 a4-c3 b6-c5"
    for seed in range(8):
        answer = CliRunner().invoke(main, ["best-move", "--db", str(db_root), "--stones", "4", "--json",
                                           "--seed", str(seed), "--after", played, start])
        assert answer.exit_code == 0, answer.output
        assert json.loads(answer.stdout)["move"] != "c3-a4" and json.loads(answer.stdout)["value"] == WIN


def test_perfect_takes_a_draw_by_repetition_where_it_would_lose(db):
    """Black loses by the database, but one move repeats a position for the third time:
    the draw the rules of play give it. Perfect plays it, and the values in the game
    (what play's hint shows) rate it a draw."""
    from solver.game import REPETITION
    from solver.players import probe_game_moves
    start, moves = "W:a4,a7,e5 B:b6,e4,f4 w", "e5-g4 e4-d7 g4-e5 d7-e4 e5-g4 e4-d7 g4-e5"
    game = Game(start, RULES)
    for move in moves.split():
        game.play(move)
    assert db.probe(game.position).value == LOSS
    for seed in range(5):
        move = PerfectPlayer(RULES, random.Random(seed), database=db).choose(game)
        assert str(move) == "d7-e4" and _after(game, move).outcome().termination == REPETITION
    in_game = probe_game_moves(db, game)
    assert str(in_game[0].move) == "d7-e4" and in_game[0].value == DRAW
    assert all(mp.value == LOSS for mp in in_game[1:])
    game.play("d7-e4")                  # over: no moves to rate, as legal_moves says
    assert game.outcome().termination == REPETITION and db.probe_moves(game.position)
    assert probe_game_moves(db, game) == game.legal_moves() == []


def _after(game: Game, move) -> Game:
    after = game.copy()
    after.play(move)
    return after


def test_perfect_says_before_a_long_opening_search_where_it_is_the_answer(db_root, tmp_path):
    """Without placement files (or a book that holds the position) perfect values the
    placement phase by the opening search, a minute a move at first in the 9-stone game:
    it says so once, with the command that builds them; with them, it does not."""
    import shutil
    from solver.build import build
    notes = []
    with open_database(db_root, RULES) as database:
        player = PerfectPlayer(RULES, random.Random(1), say=notes.append, database=database)
        player.explain = explained          # (as the interfaces make it)
        game = Game(rules=RULES)
        for _ in range(3):
            game.play(player.choose(game))
    assert len(notes) == 1 and "opening search" in notes[0], notes
    assert notes[0].endswith(f"; 'muehle build --db {db_root} --stones 4 --phase placement' makes it instant")
    whole = tmp_path / "whole"
    shutil.copytree(db_root, whole)
    build(whole, RULES, phase="placement", progress=False)
    notes.clear()
    with open_database(whole, RULES) as database:
        player = PerfectPlayer(RULES, random.Random(1), say=notes.append, database=database)
        player.choose(Game(rules=RULES))
    assert notes == []


def test_easy_closes_a_mill_and_blocks_one():
    rng = random.Random(SEED)
    easy = EasyPlayer(RULES, rng, mistakes=0.0)
    game = Game("W:a1,d1,g4,b4 B:a7,d6,f6,c3 w", RULES)
    assert easy.choose(game).take is not None
    # Black has a7 and g7 on the top line, d7 free: White blocks it.
    game = Game("W:a1,d2,g4 B:a7,g7 w 1 2", RULES)
    assert str(easy.choose(game)) == "d7"


def test_search_players_take_a_winning_mill():
    game = Game("W:a1,d1,g4,b4 B:a7,d7,f6 w", RULES)
    for player in (MediumPlayer(RULES, random.Random(1)), HardPlayer(RULES, random.Random(1), seconds=0.2)):
        move = player.choose(game)
        assert str(move).startswith("g4-g1x")


def test_a_search_again_from_its_own_table_goes_as_deep():
    """A player keeps its transposition table from move to move (play, uci): a second
    search of the same position finds its lines there, but a score an evaluation went
    into is still a guess, so it deepens as far as the first did (it stopped after two
    plies, taking the table's scores for known results)."""
    from solver.players import SearchPlayer
    game = Game(rules=RULES)
    player = SearchPlayer(RULES, random.Random(1), depth=4, table=True)
    for _ in range(2):
        player.search(game)
        assert player.reached == 4
    game.play("d2")
    player.search(game)
    assert player.reached == 4


def test_missing_database_is_said_once_and_search_plays(tmp_path):
    notes = []
    perfect = PerfectPlayer(RULES, random.Random(1), say=notes.append,
                            database=open_database(tmp_path, RULES), seconds=0.05)
    game = Game(rules=RULES)
    for _ in range(12):
        game.play(perfect.choose(game))
    assert len(notes) == 1 and "playing by search" in notes[0]


# --- muehle play ------------------------------------------------------------------

def _simulate(db, level, seed, human_seed):
    """The moves of a game between a perfect 'human' and the computer as the CLI
    builds it (same seed, same rng use), and the result."""
    rng = random.Random(seed)
    computer = make_player(level, RULES, rng, db)
    human = make_player("perfect", RULES, random.Random(human_seed), db)
    game = Game(rules=RULES)
    typed = []
    while game.outcome() is None:
        if game.position.turn == "w":
            move = human.choose(game)
            typed.append(str(move))
        else:
            move = computer.choose(game)
        game.play(move)
    return typed, game


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_play_a_whole_game_through_stdin(db, db_root, level, tmp_path):
    typed, game = _simulate(db, level, SEED, SEED + 1)
    record = tmp_path / "game.txt"
    result = run("play", "--stones", 4, "--db", db_root, "--level", level, "--seed", SEED,
                 input="\n".join(typed + [f"save {record}"]) + "\n")
    assert result.exit_code == 0, result.output
    from solver.game import describe_result
    assert f"Game over: {describe_result(game.outcome())}." in result.output
    assert Game.from_record(record.read_text(), RULES).moves == game.moves
    assert "Traceback" not in result.output


def test_play_mill_asks_which_stone_and_win_is_announced(db_root):
    result = run("play", "--stones", 4, "--db", db_root, "--level", "easy",
                 "--position", "W:a1,d1,g4,b4 B:a7,d7,f6 w", input="g4-g1\nf6\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "g4-g1 closes a mill: which stone do you take?" in out
    assert "<B>" in out and "take which stone (a7, d7, f6) > f6" in out
    assert "Game over: White wins (fewer than three stones). You win!" in out


def test_play_bad_input_one_line_and_game_goes_on(db_root):
    result = run("play", "--stones", 4, "--db", db_root, "--level", "medium", "--seed", 3,
                 input="a1-a7\nd9\nfrobnicate\nd2\n")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    i = lines.index("White to move (you) > a1-a7")
    assert lines[i + 1].startswith("illegal move a1-a7") and lines[i + 2].startswith("White to move (you) > d9")
    assert lines[i + 3].startswith("cannot parse move 'd9'")
    assert lines[i + 5].startswith("cannot parse move 'frobnicate'")
    assert "Last move: White d2" in result.output and "Black (computer, medium) plays" in result.output
    assert "End of input: the game is left unfinished." in result.output


def test_play_commands_hint_undo_resign(db_root, tmp_path):
    record = tmp_path / "r.txt"
    result = run("play", "--stones", 4, "--db", db_root, "--level", "perfect", "--seed", 1,
                 "--color", "black",
                 input=f"hint\nmoves\nundo\nd2\nundo\nresign\nsave {record}\n")
    out = result.output
    assert result.exit_code == 0, out
    assert "White (computer, perfect) plays" in out
    assert "hint: " in out and "  draw: " in out
    assert "nothing to take back" in out
    assert "taken back:" in out
    assert "Game over: White wins (Black resigns). You lose." in out
    text = record.read_text()
    assert "# result: White wins (Black resigns)" in text
    assert len(Game.from_record(text, RULES).moves) == 1       # the computer's first move


def test_play_undo_takes_back_a_resignation_also_before_any_move(db_root):
    """resign then undo at the first prompt: the game goes on (it stayed lost, 'nothing to
    take back', before); later, undo takes back the resignation alone."""
    result = run("play", "--stones", 4, "--db", db_root, "--level", "easy", "--seed", 1,
                 input="resign\nundo\nd2\nresign\nundo\nmoves\nquit\n")
    out = result.output
    assert result.exit_code == 0, out
    assert out.count("taken back: the resignation") == 2 and "nothing to take back" not in out
    assert out.count("Game over: Black wins (White resigns). You lose.") == 2
    assert "no moves: the game is over" not in out.split("taken back: the resignation")[-1]


def test_play_without_database(tmp_path):
    result = run("play", "--stones", 4, "--db", tmp_path, "--level", "perfect", "--seed", 2,
                 "--think", 0.05, input="hint\nd2\nd3\n")
    out = result.output
    assert result.exit_code == 0, out
    assert out.count("note: perfect: no database") == 1
    assert "no hint: no databases for rules standard-s4" in out


# --- muehle analyze -----------------------------------------------------------------

def _bad_move(db, want_before, want_after):
    rng = random.Random(SEED)
    for pos in sample_positions(db, rng, want_before, 40):
        for mp in db.probe_moves(pos):
            if mp.value == want_after:
                return pos, mp.move
    raise AssertionError("no such position sampled")


@pytest.mark.parametrize("before, after, label, mark", [(WIN, DRAW, "lost the win", "?"),
                                                        (WIN, LOSS, "lost the win", "??"),
                                                        (DRAW, LOSS, "lost the draw", "??")])
def test_analyze_marks_a_blunder(db, db_root, tmp_path, before, after, label, mark):
    pos, bad = _bad_move(db, before, after)
    game = Game(pos, RULES)
    game.play(bad)
    path = tmp_path / "g.txt"
    path.write_text(game.record())
    result = run("analyze", "--db", db_root, "--json", path)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules"] == "standard-s4"
    [row] = data["moves"]
    assert (row["ply"], row["move"], row["before"], row["after"], row["blunder"]) == \
        (1, str(bad), before, after, label)
    assert (row["mark"], row["is_best"], row["best_value"]) == (mark, False, before)
    text = run("analyze", "--db", db_root, path).output
    assert f"{mark} {label} (best " in text and "1 blunder(s)" in text


def test_analyze_a_played_game_from_the_start(db, db_root, tmp_path):
    typed, game = _simulate(db, "easy", SEED, SEED + 1)
    path = tmp_path / "g.txt"
    path.write_text(game.record())
    data = json.loads(run("analyze", "--db", db_root, "--stones", 4, "--json", path).stdout)
    rows = data["moves"]
    assert len(rows) == len(game.moves) and rows[0]["before"] == DRAW
    # The perfect side (White) never blunders; values chain from move to move.
    assert all(r["blunder"] is None for r in rows if r["side"] == "w")
    for a, b in zip(rows, rows[1:]):
        flip = {WIN: LOSS, LOSS: WIN, DRAW: DRAW}
        assert b["before"] == flip[a["after"]]
    # as an editor on Windows saves it: a byte-order mark first, CRLF line ends
    path.write_bytes(b"\xef\xbb\xbf" + game.record().replace("\n", "\r\n").encode())
    assert json.loads(run("analyze", "--db", db_root, "--stones", 4, "--json", path).stdout) == data


def test_analyze_bad_file_is_one_line_error(db_root, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("rules: standard-s4\nd2\nd2\n")
    result = run("analyze", "--db", db_root, path)
    assert result.exit_code == 2 and result.stderr.startswith("muehle: error: line 3")


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "perfect", "ultra", "fallible"])
def test_every_level_chooses_among_the_moves_it_is_given(db, level):
    """``choose(game, among)``: a move of ``among`` (an engine's take after a mill the GUI
    played), chosen as the level chooses; where the databases answer, the best of them
    (here the take that wins, not those that draw); ValueError where none is legal."""
    from solver.players import FalliblePlayer
    rules = Rules(stones=4)
    game = Game("W:a7,c3,d7,f2 B:a4,g1,g7 b", rules)
    takes = [m for m in game.legal_moves() if str(m).startswith("a4-g4x")]
    assert {str(m) for m in takes} == {"a4-g4xa7", "a4-g4xc3", "a4-g4xd7", "a4-g4xf2"}
    if level == "fallible":
        player = FalliblePlayer(rules, random.Random(3), database=db, epsilon=0.0)
    else:
        player = make_player(level, rules, random.Random(3), db, seconds=0.5)
    for _ in range(5):
        move = player.choose(game, takes)
        assert move in takes
        if level in ("hard", "perfect", "ultra", "fallible"):
            assert db.probe(game.position.play(move, rules)).for_mover().wdl == WIN, move
    with pytest.raises(ValueError, match="none of the moves to choose among is legal here"):
        player.choose(game, [Game("startpos", rules).legal_moves()[0]])
