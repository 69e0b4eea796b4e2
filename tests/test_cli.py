"""The command line, through click's test runner."""

import json

import click
import pytest
from click.testing import CliRunner

from solver.cli import main, rules_options
from solver.rules import Rules


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("muehle: error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_moves_startpos_json_lists_24_placements():
    result = run("moves", "startpos", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["position"] == "W: B: w 9 9" and data["side"] == "w"
    assert data["game_over"] is None
    assert len(data["moves"]) == len(set(data["moves"])) == 24
    assert "d2" in data["moves"] and all(len(m) == 2 for m in data["moves"])


def test_moves_one_per_line_with_takes():
    result = run("moves", "W:a1,d1 B:a4,b6,d6,f6 w 1 3")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "g1xa4" in lines and "g1" not in lines and "g1xb6" not in lines
    assert len(lines) == 24 - 6


def test_position_may_be_given_as_several_words():
    assert run("moves", "W:a1,d1", "B:a4,b6,d6,f6", "w", "1", "3").stdout == \
        run("moves", "W:a1,d1 B:a4,b6,d6,f6 w 1 3").stdout


def test_moves_json_canonical_position_and_game_over():
    result = run("moves", "--json", "W:d1,a1 B:d7,a7,a4 b")
    data = json.loads(result.stdout)
    assert data["position"] == "W:a1,d1 B:a4,a7,d7 b"
    assert data["side"] == "b" and data["game_over"] == "win" and data["moves"] == []
    data = json.loads(run("moves", "--json", "W:a1,d1 B:a4,a7,d7 w").stdout)
    assert data["game_over"] == "loss"
    blocked = json.loads(run("moves", "--json", "W:a1,g1,a7,g7 B:a4,d1,g4,d7 w").stdout)
    assert blocked["game_over"] == "loss"


def test_moves_of_a_finished_game_say_why_on_stderr():
    result = run("moves", "W:a1,g1,a7,g7 B:a4,d1,g4,d7 w")
    assert result.exit_code == 0 and result.stdout == ""
    assert "Black wins (no legal move)" in result.stderr


def test_rules_options_change_the_moves():
    three = "W:a1,d1,g4 B:b6,d6,f4,d2 w"
    jumping = run("moves", three).stdout.splitlines()
    sliding = run("moves", three, "--no-jumping").stdout.splitlines()
    assert len(jumping) > 50 and "a1-g7" in jumping
    assert "a1-g7" not in sliding and "a1-a4" in sliding
    assert run("moves", three, "--rules", "no-jumping").stdout.splitlines() == sliding
    every_in_mill = "W:a1,d1 B:b6,d6,f6 w 1 6"
    assert "g1xb6" in run("moves", every_in_mill).stdout.split()
    for args in (["--mill-rule", "take-none"], ["--rules", "take-none"]):
        takes_none = run("moves", every_in_mill, *args).stdout.split()
        assert "g1" in takes_none and "g1xb6" not in takes_none
    # --stones changes the start position and the stone limit.
    assert json.loads(run("moves", "startpos", "--json", "--stones", "5").stdout)["position"] \
        == "W: B: w 5 5"


def test_after_plays_moves_first():
    result = run("moves", "startpos", "--after", "d2 f4", "--json")
    data = json.loads(result.stdout)
    assert data["position"] == "W:d2 B:f4 w 8 8" and len(data["moves"]) == 22
    cycle = "d2-d3 b6-b4 d3-d2 b4-b6 " * 2
    data = json.loads(run("moves", "W:a1,d1,a4,d2 B:g7,b6,f6 w", "--after", cycle, "--json").stdout)
    assert data["game_over"] == "draw" and data["moves"] == []


def test_show_draws_the_board_and_the_state():
    result = run("show", "W:a1,d2,g7 B:a4,b6 w 2 4")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "7 .-----------.-----------W"
    assert lines[6] == "4 B---.---.       .---.---."
    assert lines[12] == "1 W-----------.-----------."
    assert lines[13] == "  a   b   c   d   e   f   g"
    text = result.stdout
    assert "Position:  W:a1,d2,g7 B:a4,b6 w 2 4" in text
    assert "To move:   White" in text
    assert "White (W): 3 on the board, 2 in hand" in text
    assert "Black (B): 2 on the board, 4 in hand" in text
    assert "Phase:     placement" in text
    assert text.isascii()


@pytest.mark.parametrize("position, rules, phase", [
    ("startpos", [], "placement (White places a stone)"),
    ("W:a1,d1,g4 B:b6,d6,f4,d2 w", [], "jumping (White has three stones and jumps)"),
    ("W:a1,d1,g4 B:b6,d6,f4,d2 w", ["--no-jumping"], "moving (White slides a stone)"),
    ("W:a1,g1,a7,g7 B:a4,d1,g4,d7 w", [], "game over: Black wins (no legal move)"),
    ("W:a1,d1 B:a4,a7,d7 b", [], "game over: Black wins (fewer than three stones)"),
])
def test_show_phase(position, rules, phase):
    assert f"Phase:     {phase}\n" in run("show", position, *rules).stdout


def test_show_says_the_quiet_plies_a_game_has_made():
    """A FEN's count (or --after's quiet moves) is part of the game: show says it (it
    said nothing until the count drew the game)."""
    fen = "*******@/******@O/O@@****O w m s 3 0 4 0 0 0 0 0 0 0 0 46 1"
    assert "Quiet:     46 plies without a mill, of the 50 that draw\n" in run("show", fen, "--stones", 4).stdout
    after = run("show", "W:a7,b6,d7 B:b4,c5,g4,g7 w", "--stones", 4, "--after", "b6-a4 b4-b6").stdout
    assert "Quiet:     2 plies without a mill" in after
    assert "Quiet:" not in run("show", "W:a7,b6,d7 B:b4,c5,g4,g7 w", "--stones", 4).stdout


def test_show_unicode_stones():
    text = run("show", "W:a1 B:g7 b 8 8", "--unicode").stdout
    assert "○" in text and "●" in text and "To move:   Black" in text


@pytest.mark.parametrize("command", ["show", "moves"])
@pytest.mark.parametrize("args, fragments", [
    (["W:a1,d4 B: w"], ["unknown point 'd4'"]),
    (["W:a1,a1 B: w"], ["a1 given twice"]),
    (["W:a1 B:a1 w"], ["a1 given to both colours"]),
    (["W:a1,d1 B: w 8 0"], ["too many stones for White"]),
    (["W:a1 B: w", "--stones", "3"], []),  # fine: 1 on the board, 0 in hand
    (["W:a1 B: w 3 3", "--stones", "3"], ["too many stones"]),
    (["nonsense"], ["cannot parse position"]),
    (["W:a1 B:a4"], ["cannot parse position"]),
    (["startpos", "--after", "d2 d2"], ["illegal move d2"]),
    (["startpos", "--after", "d9"], ["cannot parse move 'd9'"]),
    (["W:a1,d1 B:a4,b6,d6,f6 w 1 3", "--after", "g1"], ["closes a mill", "a4"]),
    (["startpos", "--stones", "13"], ["--stones"]),
    (["startpos", "--rules", "fast"], ["--rules"]),
    ([], ["Missing argument"]),
])
def test_bad_input_is_one_line_with_status_2(command, args, fragments):
    result = run(command, *args)
    if not fragments:
        assert result.exit_code == 0, result.output
        return
    assert_one_line_error(result, *fragments)


def test_unknown_command_is_one_line():
    assert_one_line_error(run("frobnicate"), "No such command")


def test_rules_options_is_reusable():
    @click.command()
    @rules_options
    def probe(rules: Rules) -> None:
        click.echo(repr(rules))

    runner = CliRunner()
    assert runner.invoke(probe, []).stdout.strip() == repr(Rules())
    out = runner.invoke(probe, ["--rules", "take-none", "--no-jumping", "--stones", "6"]).stdout
    assert out.strip() == repr(Rules(stones=6, jumping=False, mill_rule="take-none"))
    out = runner.invoke(probe, ["--rules", "take-none", "--mill-rule", "take-any"]).stdout
    assert out.strip() == repr(Rules(mill_rule="take-any"))


def test_help_lists_the_commands():
    result = run("--help")
    assert result.exit_code == 0
    assert "show" in result.stdout and "moves" in result.stdout


def test_version_is_the_installed_one():
    from importlib.metadata import version

    import solver
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"muehle {solver.__version__}\n"
    assert version("muehle") == solver.__version__      # pyproject.toml reads it


def test_guide_show_example_is_true():
    from pathlib import Path
    readme = (Path(__file__).parent.parent / "docs" / "guide" / "command-line.md").read_text()
    command = "$ muehle show 'W:a1,d2,g7 B:a4,b6 w'\n"
    example = readme.split(command, 1)[1].split("\n$ ", 1)[0].rstrip("\n")
    assert run("show", "W:a1,d2,g7 B:a4,b6 w").stdout.rstrip("\n") == example


def test_the_groups_own_bad_options_are_one_line_too():
    from click.testing import CliRunner
    from solver.cli import main
    for args, words in ((["-v"], "No such option '-v'"), (["--verison"], "Did you mean '--version'?"),
                        (["--db", "data", "query", "startpos"], "No such option '--db'")):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("muehle: error: ") and words in result.stderr


def test_show_names_the_svg_file_it_cannot_write(tmp_path):
    from click.testing import CliRunner
    from solver.cli import main
    target = tmp_path / "no-such-folder" / "b.svg"
    result = CliRunner().invoke(main, ["show", "startpos", "--svg", str(target)])
    assert result.exit_code == 2 and result.stderr == (
        f"muehle: error: cannot write {target}: no such file or directory\n")


def test_the_database_folder_may_come_from_the_environment(db4, monkeypatch):
    from click.testing import CliRunner
    from solver.cli import main
    args = ["query", "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6 b"]
    monkeypatch.setenv("MUEHLE_DB", str(db4))
    assert CliRunner().invoke(main, args).output.startswith("W:a1,d1,g1 B:a7,d7,f6 b: win in 1")
    monkeypatch.setenv("MUEHLE_DB", str(db4 / "nowhere"))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and f"database folder {db4 / 'nowhere'} does not exist" in result.stderr
    assert CliRunner().invoke(main, [*args[:1], "--db", str(db4), *args[1:]]).exit_code == 0   # --db first
    monkeypatch.delenv("MUEHLE_DB")
    a_file = db4 / "standard-s4" / "pair-3-3.h5"
    for command in (["query", "startpos"], ["check"], ["stats"], ["serve"]):
        result = CliRunner().invoke(main, [command[0], "--db", str(a_file), *command[1:]])
        assert result.exit_code == 2 and result.stderr == (
            f"muehle: error: {a_file} is not a folder (--db, or MUEHLE_DB, names the folder that holds "
            f"one folder of databases per rule set)\n"), (command, result.stderr)
    # a rule set's own folder (a build started again inside it), and nothing at all
    rules_folder = db4 / "standard-s4"
    for command in (["build", "--stones", "4"], ["query", "startpos"], ["check"]):
        result = CliRunner().invoke(main, [command[0], "--db", str(rules_folder), *command[1:]])
        assert result.exit_code == 2 and result.stderr == (
            f"muehle: error: {rules_folder} holds database files itself: it is a rule set's folder; "
            f"the database folder is the one above it ({db4.resolve()})\n"), (command, result.stderr)
    assert not (rules_folder / "standard-s4").exists()
    empty = CliRunner().invoke(main, ["build", "--db", "", "--stones", "4"])
    assert empty.exit_code == 2 and empty.stderr == (
        "muehle: error: --db (or MUEHLE_DB) is empty: name the database folder, e.g. data\n")


def test_query_prints_the_line_of_best_play(db4):
    from click.testing import CliRunner
    from solver.cli import main
    args = ["query", "--db", str(db4), "--stones", "4", "--line"]
    result = CliRunner().invoke(main, [*args, "W:a1,d1,g1 B:a7,d7,f6 w"])
    lines = result.output.splitlines()
    assert lines[0] == "W:a1,d1,g1 B:a7,d7,f6 w: win in 3 plies for White" and lines[1].startswith("line: ")
    assert len(lines[1].split()) == 1 + 3 and result.stderr == ""
    over = CliRunner().invoke(main, [*args, "W:a1,d1 B:a7,d7,f6 w"])
    assert "line: (none: the game is over)" in over.output
    as_json = json.loads(CliRunner().invoke(main, [*args, "--json", "W:a1,d1,g1 B:a7,d7,f6 w"]).output)
    assert as_json["line"] == lines[1].split()[1:] and as_json["line_drawn"] is None


def test_query_and_best_move_play_moves_first(db4):
    from click.testing import CliRunner
    from solver.cli import main
    common = ["--db", str(db4), "--stones", "4"]
    start, after, reached = "W:a1,d1,g1 B:a7,d7,f6 b", "f6-f4 a1-a4", "W:a4,d1,g1 B:a7,d7,f4 b"
    for command in (["query", "--json"], ["best-move", "--json"]):
        played = CliRunner().invoke(main, [*command, *common, start, "--after", after])
        direct = CliRunner().invoke(main, [*command, *common, reached])
        assert played.exit_code == 0 and played.output == direct.output, played.output + played.stderr
        bad = CliRunner().invoke(main, [*command, *common, start, "--after", "f6-f9"])
        assert bad.exit_code == 2 and "unknown point 'f9'" in bad.stderr
    batch = CliRunner().invoke(main, ["query", *common, "--batch", "-", "--after", after], input=start)
    assert batch.exit_code == 2 and "not with --batch" in batch.stderr


def test_moves_given_that_end_the_game_by_the_rules_of_play_are_that_draw(db4):
    """query and best-move --after answered the position's value after moves that had
    drawn the game by a third repetition (moves said the game was over)."""
    from click.testing import CliRunner
    from solver.cli import main
    common = ["--db", str(db4), "--stones", "4", "W:a1,d2,g4 B:b6,d7,f2 w", "--after",
              " ".join(["a1-a4 b6-b4 a4-a1 b4-b6"] * 2)]
    note = "note: the moves given end the game: draw (threefold repetition)\n"
    query = CliRunner().invoke(main, ["query", "--json", "--line", *common])
    assert query.exit_code == 0 and query.stderr == note
    assert json.loads(query.stdout) == {"position": "W:a1,d2,g4 B:b6,d7,f2 w", "value": "draw", "plies": 0,
                                        "moves": [], "line": [], "line_drawn": None}
    best = CliRunner().invoke(main, ["best-move", *common])
    assert best.stdout == "W:a1,d2,g4 B:b6,d7,f2 w: no move, the game is over (draw for White)\n"
    # three plies fewer: not over, the position's own value and moves
    fewer = CliRunner().invoke(main, ["query", "--json", *common[:-1], " ".join(["a1-a4 b6-b4 a4-a1 b4-b6"] * 2)[:-6]])
    assert fewer.exit_code == 0 and json.loads(fewer.stdout)["moves"] and fewer.stderr == ""
    # no moves given, the count at the limit: the game as given is over (no "moves given")
    limit = CliRunner().invoke(main, ["query", *common[:5], "--quiet-plies", "50"])
    assert limit.exit_code == 0 and limit.stderr == "note: the game as given is over: draw (50 plies without a mill)\n"


def test_ctrl_c_is_one_line_and_status_130(tmp_path):
    """Ctrl-C ends a command with one line and status 130, as a shell reports a program
    stopped by SIGINT (click said "Aborted!" with 1, the status by which check calls a
    database bad); a build says that a rerun resumes it."""
    import signal
    import subprocess
    import sys
    import time
    proc = subprocess.Popen([sys.executable, "-m", "solver", "build", "--db", str(tmp_path), "--stones", "6",
                             "--phase", "moving", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock = tmp_path / "standard-s6" / ".build.lock"
    until = time.monotonic() + 60
    while not (lock.exists() and lock.stat().st_size) and proc.poll() is None:   # at work
        assert time.monotonic() < until
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "muehle: interrupted (the same command resumes the build)", err
