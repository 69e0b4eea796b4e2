"""Hostile input to the commands that keep going or read a whole folder (issue 11):
``play`` survives an unsavable file name and an undecodable line; ``stats`` and
``check`` report a file deleted from a built folder and a file copied over another."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.commands import explained
from solver import storage
from solver.cli import main
from solver.rules import Rules

FOUR = Rules(stones=4)
ROOT = Path(__file__).parent.parent


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def play_subprocess(stdin: bytes, tmp_path: Path, **env):
    """``muehle play`` in a process of its own, stdin as bytes, the environment changed by ``env``."""
    return subprocess.run([sys.executable, "-m", "solver", "play", "--db", tmp_path, "--stones", "4",
                           "--level", "easy", "--seed", "1"], input=stdin, capture_output=True,
                          env={**os.environ, **env}, cwd=ROOT, timeout=120)


# --- play -----------------------------------------------------------------------

def test_play_survives_a_file_name_it_cannot_save_to(tmp_path):
    bad = ["a\0b", str(tmp_path / "no" / "such" / "folder" / "game.txt"), str(tmp_path)]
    lines = "d2\n" + "".join(f"save {name}\n" for name in bad) + f"save {tmp_path / 'ok.txt'}\nquit\n"
    result = run("play", "--db", tmp_path, "--stones", 4, "--level", "easy", "--seed", 1, input=lines)
    assert result.exit_code == 0, result.output
    assert result.exception is None
    complaints = [line for line in result.output.splitlines() if line.startswith("cannot save to")]
    assert len(complaints) == len(bad), result.output
    assert "embedded null byte" in complaints[0]
    assert (tmp_path / "ok.txt").read_text().startswith("rules: standard-s4\nd2\n")   # went on, saved
    assert "You leave the game unfinished." in result.output


def test_play_survives_lines_that_are_not_text(tmp_path):
    # 0xff is never UTF-8; under a strict ASCII stdin, 'ä' (c3 a4) is not text either.
    cases = [({}, b"\xff\xfe d2\n"), ({"PYTHONIOENCODING": "ascii:strict"}, "d2\u00e4\n".encode()),
             ({"LC_ALL": "C", "PYTHONIOENCODING": "ascii:strict"}, b"\x80\n")]
    for env, bad in cases:
        proc = play_subprocess(b"d2\n" + bad + b"moves\nquit\n", tmp_path, **env)
        out, err = proc.stdout.decode("ascii", "replace"), proc.stderr.decode("ascii", "replace")
        assert proc.returncode == 0, (env, out, err)
        assert err == "" or "Traceback" not in err, err
        complaints = [line for line in out.splitlines() if "type it again" in line]
        assert len(complaints) == 1 and "is not" in complaints[0], (env, out)
        # the game went on: 'moves' answered after the complaint
        after = out[out.index("type it again"):]
        assert "d1" in after and "You leave the game unfinished." in after, (env, out)


def test_play_through_clirunner_survives_undecodable_bytes(tmp_path):
    result = run("play", "--db", tmp_path, "--stones", 4, "--level", "easy", "--seed", 1,
                 input=b"d2\n\xff\nquit\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("type it again") == 1


# --- stats and check on a damaged folder -------------------------------------------

def stats_and_check(root: Path):
    return run("stats", "--db", root, "--stones", 4), run("check", "--db", root, "--stones", 4, "--quiet")


def test_a_deleted_file_is_reported_by_stats_and_check(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    storage.pair_path(tmp_path, FOUR, (3, 3)).unlink()         # 3-4 needs it for its captures
    stats, check = stats_and_check(tmp_path)
    assert stats.exit_code == 1 and check.exit_code == 1, (stats.output, check.output)
    for result in (stats, check):
        lines = [line for line in result.output.splitlines() if "missing" in line]
        assert len(lines) == 1 and "pair-3-3.h5" in lines[0], result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "total" in stats.output                           # the other files' figures still shown


def test_the_repair_hints_build_what_is_missing_and_no_more(tmp_path):
    """A hint names the folder and the rules, and builds the missing file only (one
    pair: --pair; else up to the folder's stones): following it mends the folder."""
    from solver.build import build
    build(tmp_path, FOUR, max_total=7, progress=False)          # moving and placement, 7 stones
    storage.pair_path(tmp_path, FOUR, (3, 3)).unlink()
    check = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--quiet")
    hint = f"(rebuild them with: muehle build --db {tmp_path} --stones 4 --pair 3-3)"
    assert check.exit_code == 1 and check.output.strip().endswith(hint), check.output
    placed = sorted(storage.rules_dir(tmp_path, FOUR).glob("place-*.h5"))
    placed[-1].unlink()
    check = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--quiet")
    assert check.exit_code == 1
    command = check.output.strip().rsplit("(rebuild them with: ", 1)[1].rstrip(")")
    assert command == f"muehle build --db {tmp_path} --stones 4 --max-total 7"
    mend = run(*command.split()[1:], "--quiet")
    assert mend.exit_code == 0 and "1 pair(s) built" in mend.output, mend.output
    assert "1 placement subspace(s) built" in mend.output
    check = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--quiet")
    assert check.exit_code == 0, check.output
    empty = tmp_path / "empty"
    empty.mkdir()
    stats = run("stats", "--db", empty, "--rules", "six-mens")
    assert stats.exit_code == 2
    assert stats.output.strip().endswith(f"(build them with: muehle build --db {empty} --rules six-mens)")


def test_check_of_one_phase_is_not_stopped_by_a_file_of_the_other(db4, tmp_path):
    from solver.build import build
    build(tmp_path, FOUR, max_total=7, progress=False)
    storage.pair_path(tmp_path, FOUR, (3, 4)).write_bytes(b"not a database")
    moving = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--phase", "moving", "--quiet")
    assert moving.exit_code == 1 and "pair-3-4.h5" in moving.output
    placing = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--phase", "placement",
                  "--quiet")
    assert placing.exit_code != 0 and "pair-3-4.h5" in placing.output     # a child it reads
    shutil.copy(storage.pair_path(db4, FOUR, (3, 4)), storage.pair_path(tmp_path, FOUR, (3, 4)))
    first = sorted(storage.rules_dir(tmp_path, FOUR).glob("place-*.h5"))[0]
    first.write_bytes(b"not a database")
    moving = run("check", "--db", tmp_path, "--stones", 4, "--max-total", 7, "--phase", "moving", "--quiet")
    assert moving.exit_code == 0 and moving.output.startswith("ok: 2 pair(s)"), moving.output


def test_pair_and_max_total_that_disagree_are_refused(tmp_path):
    for command in ("build", "check"):
        result = run(command, "--db", tmp_path, "--pair", "5-5", "--max-total", 7)
        assert result.exit_code == 2
        assert result.output.strip().endswith(
            "pair 5-5 has 10 stones in all, more than --max-total 7: give one or the other")
    result = run("build", "--db", tmp_path, "--pair", "")
    assert result.exit_code == 2 and "cannot parse pair ''" in result.output
    assert not list(tmp_path.rglob("*.h5"))
    result = run("build", "--db", tmp_path, "--max-total", 7, "--memory", "1K")
    assert result.exit_code == 2
    assert result.output.strip().endswith("more than the memory limit of 1,024 bytes; nothing was built")


def test_play_with_standard_input_closed_leaves_the_game(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "solver", "play", "--db", tmp_path, "--stones", "4",
                           "--level", "easy", "--seed", "1"], capture_output=True, cwd=ROOT,
                          stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().rstrip().endswith("End of input: the game is left unfinished.")
    assert proc.stderr == b""


def test_play_refuses_a_thinking_time_that_is_not_a_number(tmp_path):
    for bad in ("nan", "NaN", "inf", "-1", "0"):
        result = run("play", "--db", tmp_path, "--think", bad, input="quit\n")
        assert result.exit_code == 2, (bad, result.output)
        assert "Invalid value for '--think'" in result.output


def test_a_file_copied_over_another_is_reported_by_stats_and_check(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    target = storage.pair_path(tmp_path, FOUR, (3, 4))
    shutil.copy(storage.pair_path(tmp_path, FOUR, (3, 3)), target)
    stats, check = stats_and_check(tmp_path)
    assert stats.exit_code == 1 and check.exit_code == 1, (stats.output, check.output)
    for result in (stats, check):
        lines = [line for line in result.output.splitlines() if "does not hold pair 3-4" in line]
        assert len(lines) == 1 and target.name in lines[0], result.output
        assert "KeyError" not in result.output


def test_a_whole_built_folder_has_no_complaint(db4):
    stats, check = stats_and_check(db4)
    assert stats.exit_code == 0 and check.exit_code == 0, (stats.output, check.output)
    assert "warning" not in stats.output and "error" not in check.output


def test_a_folder_built_part_of_the_way_misses_nothing(tmp_path):
    from solver.build import build
    build(tmp_path, FOUR, phase="moving", max_total=7, progress=False)   # 3-3 and 3-4, not 4-4
    stats, check = stats_and_check(tmp_path)
    assert stats.exit_code == 0 and check.exit_code == 0, (stats.output, check.output)


def test_a_finished_game_gets_one_verdict_from_show_and_query(db4):
    # Found by tests/test_fuzz.py: with both sides below three stones, query answered
    # 'win in 0' for the side to move while show (Position.outcome) says it has lost.
    for text, value in [("W:a1 B: w", "loss"), ("W: B: b", "loss"), ("W:a1,d1,g1 B:a7,d7 w", "win"),
                        ("W:a1,d1,g1 B:a7,d7 b", "loss")]:
        query = run("query", "--db", db4, "--stones", 4, "--json", text)
        best = run("best-move", "--db", db4, "--stones", 4, "--json", text)
        assert query.exit_code == 0 and best.exit_code == 0, (query.output, best.output)
        assert json.loads(query.stdout)["value"] == value == json.loads(best.stdout)["value"], text
        assert (json.loads(query.stdout)["plies"], json.loads(query.stdout)["moves"]) == (0, [])


# --- the variants (issue 16) ----------------------------------------------------------

def test_analyze_refuses_a_record_of_rules_the_kernels_lack_before_looking_for_the_folder(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text("rules: three-mens-no-line-wins\nb2\n")
    result = run("analyze", "--db", tmp_path / "no-such-db", record)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "muehle: error: rules 'three-mens-no-line-wins': a line of three taking a stone on the "
        "three-mens board is not supported by the compiled kernels yet"]
    assert not (tmp_path / "no-such-db").exists()


def test_play_takes_two_stones_named_in_either_order(tmp_path):
    result = run("play", "--db", tmp_path, "--rules", "standard-two-takes-two", "--level", "easy",
                 "--seed", 1, "--position", "W:a1,d1,g4,g7 B:a4,b6,d6,f6 w 1 5", input="g1\na4xb6\nquit\n")
    assert result.exit_code == 0 and "is not a stone" not in result.stdout
    assert "Last move: White g1xb6xa4" in result.stdout


def test_board_svg_reads_points_on_the_rules_board(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from solver.web.app import create_app
    client = TestClient(create_app(tmp_path))
    ok = client.get("/api/board.svg", params={"rules": "three-mens", "position": "W:b2 B: b 2 3",
                                              "marks": "c3:win", "last": "b2", "arrows": "a1-b2"})
    assert ok.status_code == 200 and re.search(r'id="mark-c3"[^>]*stroke="#2e8b3d"', ok.text)
    bad = client.get("/api/board.svg", params={"rules": "six-mens", "position": "startpos", "arrows": "a1-g7"})
    assert bad.status_code == 400 and "unknown point 'g7'" in bad.json()["error"]


def test_play_help_lists_the_points_of_a_board_other_than_the_standard_one(tmp_path):
    small = run("play", "--db", tmp_path, "--rules", "six-mens", "--level", "easy", input="help\nquit\n")
    assert small.exit_code == 0
    assert "Points of the six-mens board: a1 a3 a5 b2 b3 b4 c1 c2 c4 c5 d2 d3 d4 e1 e3 e5" in small.stdout
    standard = run("play", "--db", tmp_path, "--stones", 4, "--level", "easy", input="help\nquit\n")
    assert "Points of the" not in standard.stdout


def test_a_search_without_placement_files_is_announced_on_stderr(db4):
    """A moving-phase folder answers positions with stones in hand by the opening
    search, which can take minutes in large games: a note on stderr says so first
    (stdout stays the answer: JSON with --json); a moving position gets no note."""
    position = "W:a1,d1,g4 B:a7,d7,f6 w 1 1"
    for command in (["query", "--json"], ["best-move", "--json"]):
        result = run(*command, "--db", db4, "--stones", 4, position)
        assert result.exit_code == 0, result.output
        assert result.stderr.startswith("note: no placement files of rules standard-s4 in ")
        assert result.stderr.rstrip().endswith(
            f"; 'muehle build --db {db4} --stones 4 --phase placement' makes it instant")
        assert json.loads(result.stdout)["plies"] is None
    batch = run("query", "--db", db4, "--stones", 4, "--batch", "-",
                input=f"{position}\n{position}\nW:a1,d1,g1 B:a7,d7,f6 w\n")
    assert batch.exit_code == 0 and batch.stderr.count("note: ") == 1
    assert len(batch.stdout.splitlines()) == 3
    moving = run("query", "--db", db4, "--stones", 4, "W:a1,d1,g1 B:a7,d7,f6 w")
    assert moving.exit_code == 0 and moving.stderr == ""


# --- standard streams -------------------------------------------------------------

def shell(command: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``command`` in bash, ``muehle`` being this interpreter's ``-m solver``; prints the
    first command's exit status last (``PIPESTATUS``)."""
    muehle = f"{sys.executable} -m solver"
    return subprocess.run(["bash", "-c", command.replace("muehle", muehle) + "; echo rc=${PIPESTATUS[0]}"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_a_reader_of_stderr_that_goes_away_does_not_stop_a_build_or_check(db4, tmp_path):
    """`muehle build 2>&1 | less`, then q: the build goes on to the end (the progress
    goes nowhere), and a check cut short so does not exit 0 as if it had passed."""
    built = shell("muehle build --db built --stones 4 2>&1 | head -c 1 > /dev/null", tmp_path)
    assert built.stdout.strip().splitlines()[-1] in ("rc=0", "rc=141")
    ok = run("check", "--db", tmp_path / "built", "--stones", "4", "--quiet")
    assert ok.exit_code == 0 and "consistent" in ok.output, ok.output
    shutil.copytree(db4, tmp_path / "bad")
    path = storage.pair_path(tmp_path / "bad", FOUR, (4, 4))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    checked = shell("muehle check --db bad --stones 4 2>&1 | head -c 1 > /dev/null", tmp_path)
    assert checked.stdout.strip().splitlines()[-1] in ("rc=1", "rc=141")


def test_closed_standard_streams(db4, tmp_path):
    """stderr closed (`2>&-`): the build works, silently; stdout closed (`>&-`): one
    line refuses, as the answer would be lost; a reader of stdout gone: status 141."""
    built = shell("muehle build --db quiet --stones 3 2>&-", tmp_path)
    assert built.stdout.startswith("1 pair(s) built") and built.stdout.endswith("rc=0\n"), built
    assert storage.pair_path(tmp_path / "quiet", Rules(stones=3), (3, 3)).exists()
    lost = shell(f"muehle query --db {db4} --stones 4 'W:a1,d1,g1 B:a7,d7,f6 b' >&-", tmp_path)
    assert lost.stdout == "rc=2\n"
    assert lost.stderr == "muehle: error: standard output is closed (send it to a file or to /dev/null)\n"
    # the reader closed before anything is written: the write fails for certain
    cut = subprocess.Popen([sys.executable, "-m", "solver", "moves", "startpos"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=ROOT)
    cut.stdout.close()
    assert cut.wait(timeout=60) == 141 and cut.stderr.read() == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_output_to_a_full_device_is_one_line_that_names_the_output(db4, tmp_path, unbuffered):
    """`muehle query ... > /dev/full`: the answer is lost, and the line says it was the
    output that could not be written (a database's "no space left" reads otherwise);
    no second complaint as Python ends."""
    env = dict(os.environ, PYTHONUNBUFFERED=unbuffered)
    for args in (["moves", "startpos"], ["query", "--db", str(db4), "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6 b"],
                 ["query", "--json", "--db", str(db4), "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6 b"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "solver", *args], stdout=full, stderr=subprocess.PIPE,
                                  text=True, cwd=tmp_path, env=env, timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == "muehle: error: cannot write the output (standard output): no space left on device\n"


def test_a_repair_hint_for_a_folder_with_spaces_and_quotes_pastes_into_a_shell(db4, tmp_path):
    folder = tmp_path / "my dbs ä" / "it's"
    shutil.copytree(db4, folder)
    storage.pair_path(folder, FOUR, (3, 4)).unlink()
    asked = run("query", "--db", folder, "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6,b6 w")
    assert asked.exit_code == 2
    hint = asked.output.split("build it with: ")[1].rstrip(")\n")
    assert hint.startswith("muehle build --db '")
    pasted = shell(hint, tmp_path)
    assert pasted.stdout.strip().splitlines()[-1] == "rc=0", pasted
    assert run("query", "--db", folder, "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6,b6 w").exit_code == 0


@pytest.mark.parametrize("damage", ["deleted", "truncated"])
def test_analyze_with_a_file_it_cannot_read_warns_and_exits_1(db4, tmp_path, damage):
    """As stats: the values it cannot give are '?' (null), a warning says why, and the
    status is 1, so that a script does not take the analysis for a whole one."""
    shutil.copytree(db4, tmp_path / "db")
    path = storage.pair_path(tmp_path / "db", FOUR, (4, 4))
    if damage == "deleted":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes()[:1000])
    record = tmp_path / "game.txt"
    record.write_text("rules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6,b6 w\ng4-g7\n")
    for extra in ([], ["--json"]):
        result = run("analyze", "--db", tmp_path / "db", *extra, record)
        assert result.exit_code == 1, result.output
        assert "muehle: warning:" in result.stderr and "pair-4-4.h5" in result.stderr
        assert "Traceback" not in result.output
    assert json.loads(run("analyze", "--db", tmp_path / "db", "--json", record).stdout)["moves"][0]["before"] is None
    assert run("analyze", "--db", db4, record).exit_code == 0


def test_a_damaged_pair_that_a_placement_build_needs_is_called_damaged(db4, tmp_path):
    """Not "not built": the file is there; the line says what is wrong with it and the
    build that mends it, and following that build lets the placement build go on."""
    shutil.copytree(db4, tmp_path / "db")
    for path in storage.rules_dir(tmp_path / "db", FOUR).glob("place-*.h5"):
        path.unlink()
    path = storage.pair_path(tmp_path / "db", FOUR, (4, 4))
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    result = run("build", "--db", tmp_path / "db", "--stones", "4", "--phase", "placement", "--quiet")
    assert result.exit_code == 2, result.output
    line = result.stderr.strip().splitlines()[-1]
    assert "needs 4-4, whose file pair-4-4.h5 is unusable: " in line and "not built" not in line
    hint = line.split("rebuild it with: ")[1]
    assert hint.endswith("--pair 4-4")
    assert shell(hint, tmp_path).stdout.strip().splitlines()[-1] == "rc=0"
    again = run("build", "--db", tmp_path / "db", "--stones", "4", "--phase", "placement", "--quiet")
    assert again.exit_code == 0, again.output


def test_what_stands_in_the_way_of_a_database_folder_is_named(tmp_path):
    (tmp_path / "db").symlink_to(tmp_path / "nowhere")
    dangling = run("build", "--db", tmp_path / "db", "--stones", "3", "--quiet")
    assert dangling.exit_code == 2
    assert dangling.stderr == (f"muehle: error: {tmp_path / 'db'} is a link to {tmp_path / 'nowhere'}, which "
                               f"does not exist: create that folder or give another one\n")
    (tmp_path / "db2").mkdir()
    (tmp_path / "db2" / "standard-s3").write_text("")
    blocked = run("build", "--db", tmp_path / "db2", "--stones", "3", "--quiet")
    assert blocked.exit_code == 2
    assert blocked.stderr == (f"muehle: error: {tmp_path / 'db2' / 'standard-s3'} is not a folder: "
                              f"a database folder must be one\n")
    (tmp_path / "file").write_text("")
    plain = run("build", "--db", tmp_path / "file" / "db", "--stones", "3", "--quiet")    # (mkdir: ENOTDIR)
    assert plain.exit_code == 2
    assert plain.stderr == f"muehle: error: {tmp_path / 'file'} is not a folder: a database folder must be one\n"


def test_hands_no_game_holds_are_answered_with_a_note(db4):
    """'b 1 0' (Black to move with fewer in hand than White) is no position of a game from
    the start, more likely a slip than a study: query, best-move and show say so (stderr,
    so that --json stays the answer), and answer it as given; a batch says it once."""
    odd, fine = "W:a1,d1,g1 B:a7,d7,f6 b 1 0", "W:a1,d1,g4,b2 B:a7,d7,f6 b 0 1"
    note = f"note: {odd}: no game from the start holds these hands (in a game, with Black to move, Black holds one more"
    for command in (["query", "--json"], ["best-move", "--json"]):
        result = run(*command, "--db", db4, "--stones", 4, odd)
        assert result.exit_code == 0 and result.stderr.startswith(note), result.stderr
        assert json.loads(result.stdout)["value"] in ("win", "draw", "loss")
        quiet = run(*command, "--db", db4, "--stones", 4, fine)
        assert quiet.exit_code == 0 and "no game from the start" not in quiet.stderr
    batch = run("query", "--db", db4, "--stones", 4, "--batch", "-", input=f"{odd}\n{odd}\n{fine}\n")
    assert batch.exit_code == 0 and batch.stderr.count("no game from the start") == 1
    shown = run("show", "--stones", 4, odd)
    assert "(hands no game from the start holds with this side to move)" in shown.stdout
    assert "no game from the start" not in run("show", "--stones", 4, fine).stdout
    # a board no game reaches: a mill of White's, yet all Black's stones there
    board = "W:a1,a4,a7,d1 B:d7,g1,g4,g7 w"
    said = run("query", "--db", db4, "--stones", 4, board)
    assert said.exit_code == 0 and said.stderr == (
        f"note: {board}: no game from the start reaches it (White has a mill on the board and Black "
        f"all 4 stones: closing a mill takes one); answered for the position as given\n"), said.stderr
    assert ("Note:      no game from the start reaches it (White has a mill on the board and Black all 4 "
            "stones: closing a mill takes one)") in run("show", "--stones", 4, board).stdout


def test_the_command_given_for_a_missing_placement_file_runs(tmp_path):
    """After a build of the small endgames (the README's first command), a position of
    the placement phase named 'muehle build --phase placement' as its fix, which refuses
    to run without the moving phase it reads: the command now builds what it needs."""
    import shlex
    assert run("build", "--db", tmp_path, "--stones", 4, "--max-total", 6, "--quiet").exit_code == 0
    position = "W:d2 B:f4 w 3 3"
    missing = run("query", "--db", tmp_path, "--stones", 4, position)
    assert missing.exit_code != 0
    command = missing.stderr.split("build it with: ")[1].rstrip().rstrip(")")
    assert "--phase" not in command, command
    built = run(*shlex.split(command)[1:], "--quiet")
    assert built.exit_code == 0, built.output + built.stderr
    answered = run("query", "--db", tmp_path, "--stones", 4, position)
    assert answered.exit_code == 0 and "W:d2 B:f4 w 3 3:" in answered.output, answered.stderr
    # check takes a placement subspace by its name (the README's example) without --phase
    checked = run("check", "--db", tmp_path, "--stones", 4, "--pair", "1-1+3-3", "--quiet")
    assert checked.exit_code == 0 and "1 placement subspace(s)" in checked.output, checked.stderr
    wrong = run("check", "--db", tmp_path, "--stones", 4, "--pair", "1-1+3-3", "--phase", "moving")
    assert wrong.exit_code == 2 and "is a placement subspace" in wrong.stderr
    # With the moving phase there, the placement phase alone is the fix.
    storage.placement_path(tmp_path, FOUR, __import__("solver").Subspace(1, 1, 3, 3)).unlink()
    again = run("query", "--db", tmp_path, "--stones", 4, position)
    assert again.stderr.rstrip().endswith("--stones 4 --phase placement)"), again.stderr


# --- files the commands write or read whole -----------------------------------------

def test_an_opening_book_never_writes_over_what_is_not_one(db4, tmp_path):
    """solve-opening --book renamed its file over whatever the name was: a database file
    (then damaged, and the command said 'written'), a device.  Now only a book is
    replaced; anything else, a missing folder or no name is one line before the search."""
    shutil.copytree(db4, tmp_path / "db")
    pair = storage.pair_path(tmp_path / "db", FOUR, (3, 3))
    intact = pair.read_bytes()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(pair)
    common = ["solve-opening", "--db", tmp_path / "db", "--stones", "4", "--book", "1"]
    for target, why in ((pair, "exists and is not an opening book: not written over"),
                        (tmp_path / "fifo", "is not a regular file: not written over"),
                        (tmp_path / "link", "is not a regular file: not written over"),
                        (tmp_path / "no" / "book.npz", "folder .* does not exist"),
                        ("", "an opening book needs a file name")):
        refused = run(*common, target)
        assert refused.exit_code == 2 and re.search(why, refused.stderr), refused.output
        assert refused.stderr.count("\n") == 1 and refused.stdout == ""
    assert pair.read_bytes() == intact
    book = tmp_path / "book.npz"
    for plies in (1, 2):                    # a book is replaced by a book
        assert run(*common[:-1], plies, book).exit_code == 0
    assert run("check", "--db", tmp_path / "db", "--stones", "4", "--phase", "moving",
               "--quiet").exit_code == 0


def test_query_batch_stops_at_a_line_no_position_is_and_says_so_in_its_status(db4, tmp_path):
    """--batch read a file without newlines (/dev/zero) into one line until memory ran
    out; a line that is no position answered an error object but exit status 0."""
    fine = "W:a1,d1,g1 B:a7,d7,f6 b"
    long = tmp_path / "long.txt"
    long.write_bytes(f"{fine}\n".encode() + b"\0" * 100_000)
    # a line too long for a position is read past in pieces and answered as an error
    # in its place (it stopped the batch, the lines after it never answered); one of
    # 16 MiB without an end stops it
    long.write_bytes(f"{fine}\n".encode() + b"\0" * 100_000 + f"\n{fine}\n".encode())
    answered = run("query", "--db", db4, "--stones", 4, "--batch", long)
    objects = [json.loads(line) for line in answered.stdout.splitlines()]
    assert answered.exit_code == 1 and [o["position"] for o in objects] == [fine, "\0" * 80, fine]
    assert objects[1]["error"] == "line 2: more than 4096 bytes: not a position"
    long.write_bytes(f"{fine}\n".encode() + b"\0" * (17 << 20))
    stopped = run("query", "--db", db4, "--stones", 4, "--batch", long)
    assert stopped.exit_code == 2 and json.loads(stopped.stdout)["position"] == fine
    assert stopped.stderr == ("muehle: error: --batch line 2: more than 16777216 bytes without a line's end: "
                              "not one position a line; stopped there\n")
    bom = run("query", "--db", db4, "--stones", 4, "--batch", "-", input=f"\ufeff{fine}\n")
    assert bom.exit_code == 0 and json.loads(bom.stdout)["position"] == fine    # (a BOM first: no error)
    mixed = run("query", "--db", db4, "--stones", 4, "--batch", "-", input=f"{fine}\nxx\n")
    assert mixed.exit_code == 1 and "error" in json.loads(mixed.stdout.splitlines()[1])


def test_play_reads_lines_of_bounded_length(db4, tmp_path):
    """play read standard input a line at a time without a bound: /dev/zero grew it to
    23 GB until the kernel killed it (issue 51).  A line longer than any move or command
    ends the game with one line, unread past its bound, status 2; the moves before it
    were played."""
    import subprocess
    import sys
    command = [sys.executable, "-m", "solver", "play", "--db", str(db4), "--stones", "4", "--level", "easy"]
    done = subprocess.run(["bash", "-c", "ulimit -v 2000000; exec " + " ".join(command) + " < /dev/zero"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("muehle: error: a line of standard input longer than 4096 bytes: no move or "
                           "command is; stopped there\n")
    long = subprocess.run(command, input="d2\n" + "x" * 20_000 + "\nd3\n", capture_output=True, text=True,
                          timeout=120)
    assert long.returncode == 2 and "White (W) 1 on the board, 3 in hand" in long.stdout
    assert "x" * 100 not in long.stdout + long.stderr         # not echoed, not quoted


def test_analyze_reads_a_record_of_bounded_size_and_names_the_file_that_is_none(db4, tmp_path):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(17 * 2 ** 20)          # (sparse: nothing written)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"rules: standard-s4\n\xff\xfe\n")
    empty = tmp_path / "empty.txt"          # (read as a game of no moves from the start, as the API refuses it)
    empty.write_text("\n  \n")
    for name, why in ((huge, f"{huge}: more than 16 MiB: not a game record"),
                      (binary, f"{binary}: not UTF-8 text (byte 0xff at offset 19): not a game record"),
                      (empty, f"{empty} is empty: not a game record"),
                      ("", "give the file of a game record (or - for standard input)")):
        refused = run("analyze", "--db", db4, name)
        assert refused.exit_code == 2 and refused.stderr == f"muehle: error: {why}\n", refused.output
    record = "rules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6,b6 w\ng4-g7\n"
    piped = run("analyze", "--db", db4, "--json", "-", input=record)
    assert piped.exit_code == 0 and json.loads(piped.stdout)["moves"][0]["move"] == "g4-g7"


def test_moving_files_that_give_a_slack_code_stop_the_opening_search_in_one_line(db4, tmp_path):
    """Files whose checksums pass but whose codes say 'no position' where positions
    are (written wrong): the search kernel's RuntimeError was a traceback in
    solve-opening, query, best-move and analyze of placement positions."""
    shutil.copytree(db4, tmp_path / "db")
    path = storage.pair_path(tmp_path / "db", FOUR, (3, 4))
    values = {}
    for sub in ((3, 4), (4, 3)):
        codes = storage.read_subspace(path, FOUR, *sub).copy()
        codes[:] = 0xFFFF
        values[sub] = codes
    path.unlink()
    storage.write_file(path, FOUR, values, {"rounds": 1, "seconds": 0.0, "checked": True})
    for args in (["solve-opening"], ["best-move", "startpos"], ["query", "startpos"]):
        failed = run(*args, "--db", tmp_path / "db", "--stones", 4)
        assert failed.exit_code == 2 and "Traceback" not in failed.output, failed.output
        assert failed.stderr.splitlines()[-1].startswith(
            "muehle: error: the opening search met a position of the moving phase that its files do not hold")


def test_a_transposition_table_that_does_not_fit_is_one_line(db4, monkeypatch):
    """The kernel's MemoryError (its table refused) as one line; (a real 2^34 table would
    be granted where memory is overcommitted, and then filled: the kernel refusing is
    played here)."""
    from solver import opening
    from solver.errors import InsufficientMemoryError

    class Refused:
        def SearchEngine(self, table_bits, *args):
            raise MemoryError(f"transposition table of 2^{table_bits} entries")
    monkeypatch.setattr(opening, "kernels_for", lambda board: Refused())
    with pytest.raises(InsufficientMemoryError, match=r"^the opening search's transposition table of "
                                                      r"2\^34 entries \(128 GiB\) does not fit in memory"):
        opening.OpeningSearch(FOUR, wdl=lambda m, o: None, table_bits=34)


def test_a_book_that_unpacks_to_more_than_memory_is_a_damaged_book(db4, tmp_path, monkeypatch):
    from solver import opening
    from solver.errors import CorruptDatabaseError
    path = tmp_path / "book.npz"
    assert run("solve-opening", "--db", db4, "--stones", 4, "--book", 1, path).exit_code == 0

    def too_large(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(opening.np, "load", too_large)
    with pytest.raises(CorruptDatabaseError) as info:
        opening.OpeningBook.read(path, FOUR)
    assert re.match(r"^cannot read opening book .*book\.npz: MemoryError \(delete it", explained(info.value))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_version_and_help_to_an_output_that_fails(tmp_path):
    for option in ("--version", "--help"):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "solver", option], stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr == "muehle: error: cannot write the output (standard output): no space left on device\n"
        cut = subprocess.Popen([sys.executable, "-m", "solver", option], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=ROOT)
        cut.stdout.close()
        assert cut.wait(timeout=60) == 141 and cut.stderr.read() == b""


def test_a_phase_with_no_files_and_a_rules_folder_that_is_a_file_are_named(db4, tmp_path):
    """check --phase placement of a folder with moving files only said 'no databases';
    a file where the rules' folder belongs said 'no databases' too (query named it)."""
    nothing = run("check", "--db", db4, "--stones", 4, "--phase", "placement")
    assert nothing.exit_code == 2 and nothing.stderr == (
        f"muehle: error: no placement files of rules standard-s4 in {db4} (build them with: "
        f"muehle build --db {db4} --stones 4 --phase placement)\n")
    (tmp_path / "standard-s4").write_text("")
    for command in ("check", "stats", "query"):
        args = [command, "--db", tmp_path, "--stones", 4] + (["startpos"] if command == "query" else [])
        refused = run(*args)
        assert refused.exit_code == 2 and refused.stderr == (
            f"muehle: error: {tmp_path / 'standard-s4'} is a file where the folder of rules "
            f"standard-s4 belongs: move it away\n"), (command, refused.stderr)
    counted = run("stats", "--db", db4, "--stones", 4, "--reachable")
    assert counted.exit_code == 0 and "note: --reachable counts the positions of the placement files, " \
                                      "and none is built here" in counted.stderr
    # and its total of none counted is no count ('-', null), not 0 (a helper's trial)
    assert counted.stdout.splitlines()[-1].split()[-1] == "-", counted.stdout
    as_json = run("stats", "--db", db4, "--stones", 4, "--reachable", "--json")
    assert json.loads(as_json.stdout)["total"]["reachable"] is None


def test_unicode_stones_on_an_output_that_cannot_write_them_are_one_line(tmp_path):
    """show --unicode under a Latin-1 output printed half a board, then an error."""
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    for args in (["show", "--unicode", "startpos"], ["play", "--unicode", "--stones", "4", "--level", "easy"]):
        done = subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True, text=True,
                              input="quit\n", env=env, cwd=tmp_path, timeout=120)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout[:200])
        assert done.stderr.startswith("muehle: error: --unicode draws the stones as Unicode circles, which "
                                      "the output's encoding (iso8859-1) cannot write")
    plain = subprocess.run([sys.executable, "-m", "solver", "show", "startpos"], capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=120)
    assert plain.returncode == 0 and "To move:   White" in plain.stdout


def test_odd_folders_and_settings_are_one_plain_line(monkeypatch, tmp_path):
    """An empty MUEHLE_DB is said (click took it for unset: the default folder was used
    without a word), a database folder where none can be made names the folder (the raw
    '[Errno 2]' did not), and stones that do not fit a board are said in words for the
    command line, not the Python call."""
    monkeypatch.setenv("MUEHLE_DB", "")
    result = run("stats")
    assert result.exit_code == 2 and result.stderr == (
        "muehle: error: MUEHLE_DB is set but empty: name the database folder in it, or unset it\n")
    monkeypatch.delenv("MUEHLE_DB")
    if Path("/proc/self").is_dir():
        result = run("build", "--db", "/proc/self", "--stones", 3)
        assert result.exit_code == 2 and result.stderr.startswith(
            "muehle: error: cannot make the database folder /proc/self/standard-s3: "), result.stderr
    result = run("build", "--rules", "three-mens", "--stones", 9, "--dry-run")
    assert result.exit_code == 2 and result.stderr == (
        "muehle: error: 9 stones per side do not fit on the three-mens board (9 points: at most 4 "
        "a side; its rule book, three-mens, has 3)\n"), result.stderr


def test_uci_and_record_read_endless_input_in_bounded_memory(db4):
    """The readers of this issue's other programs' formats: muehle uci reads 1 GB of a
    line past in pieces (not held) and answers the next one; muehle record refuses
    /dev/zero in one line after 16 MiB."""
    import subprocess
    import sys
    python = f"{sys.executable} -m solver"
    uci = subprocess.run(["bash", "-c", f"ulimit -v 2000000; (head -c 1000000000 /dev/zero; printf '\\nisready\\nquit\\n') "
                          f"| {python} uci --db {db4} --stones 4"], capture_output=True, text=True, timeout=300)
    assert uci.returncode == 0, uci.stderr
    assert uci.stdout.splitlines() == ["info string error: a line longer than 1048576 bytes: ignored", "readyok"]
    record = subprocess.run(["bash", "-c", f"ulimit -v 2000000; exec {python} record /dev/zero"],
                            capture_output=True, text=True, timeout=120)
    assert record.returncode == 2
    assert record.stderr == "muehle: error: /dev/zero: more than 16 MiB: not a game record\n"


def test_an_error_line_keeps_a_long_path_whole(tmp_path):
    """A line shortened to its limit lost its middle, and with it the middle of the
    folder it named and of the command that builds it: neither could be pasted. The
    echoed input is shortened now, and paths stay whole."""
    deep = tmp_path / ("folder-of-a-long-name-" * 8) / ("x" * 150)
    result = run("query", "--db", deep, "--stones", 4, "W:a1,d1,g1 B:a7,d7,f6 w")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"database folder {deep} does not exist" in result.stderr
    assert f"muehle build --db {deep} --stones 4" in result.stderr and "…" not in result.stderr
    echoed = run("moves", "--stones", 4, "W:a1 B:a7 w junk" + "k" * 100_000)
    assert echoed.exit_code == 2 and len(echoed.stderr) < 400 and "…" in echoed.stderr, echoed.stderr


def test_a_folder_of_other_rules_or_a_typo_of_it_is_named(db4, tmp_path, monkeypatch):
    """A --stones left out sent the user to build the standard game (hours), and a typo
    of --db was repeated in the build command; serve and play said nothing of a folder
    that does not exist. Each now says what the folder holds, or one of a like name."""
    position = "W:a1,d1,g1 B:a7,d7,f6 w"
    other = run("query", "--db", db4, position)
    assert other.exit_code == 2, other.output
    assert other.stderr.rstrip().endswith(f"; {db4} holds the files of rules standard-s4"), other.stderr
    stats = run("stats", "--db", db4)
    assert stats.exit_code == 2 and "holds the files of rules standard-s4" in stats.stderr
    typo = Path(str(db4)[:-1] + str(db4)[-1] * 2)            # (a letter doubled)
    missing = run("query", "--db", typo, "--stones", 4, position)
    assert missing.exit_code == 2 and missing.stderr.rstrip().endswith(f"; a folder of a like name: {db4}"), \
        missing.stderr
    played = run("play", "--db", tmp_path / "nowhere", "--stones", 4, "--level", "perfect", input="quit\n")
    assert played.exit_code == 0
    assert played.stdout.startswith(f"note: no databases for rules standard-s4 in {tmp_path / 'nowhere'} "
                                    f"(build them with: muehle build --db {tmp_path / 'nowhere'} --stones 4)\n")
    import solver.web
    monkeypatch.setattr(solver.web, "serve", lambda db, rules, announce, **kw: announce("http://x/"))
    served = run("serve", "--db", tmp_path / "nowhere", "--stones", 4)
    assert served.exit_code == 0 and served.stderr == (
        f"note: database folder {tmp_path / 'nowhere'} does not exist: no answers from databases (build them "
        f"with: muehle build --db {tmp_path / 'nowhere'} --stones 4)\n"), served.stderr


def test_a_refused_build_leaves_no_folder_it_made(tmp_path):
    """A build refused before it wrote a file (here by --memory) left the folders it made
    and its lock behind: later commands took the folder for a database one. Folders
    that were there stay."""
    new = tmp_path / "new"
    refused = run("build", "--db", new, "--stones", 4, "--memory", "1M", "--quiet")
    assert refused.exit_code == 2 and "nothing was built" in refused.stderr, refused.output
    assert not new.exists()
    (tmp_path / "old").mkdir()
    refused = run("build", "--db", tmp_path / "old", "--stones", 4, "--memory", "1M", "--quiet")
    assert refused.exit_code == 2 and list((tmp_path / "old").iterdir()) == []
    built = run("build", "--db", new, "--stones", 4, "--max-total", 6, "--quiet")
    assert built.exit_code == 0 and (new / "standard-s4" / "pair-3-3.h5").exists()
    again = run("build", "--db", new, "--stones", 4, "--memory", "1M", "--quiet")      # (a folder in use)
    assert again.exit_code == 2 and (new / "standard-s4" / "pair-3-3.h5").exists()


def test_a_rule_set_name_and_stones_that_disagree_are_refused():
    """--rules standard-s5 --stones 4 answered for standard-s4 without a word; a name
    without a count of stones is still changed by --stones."""
    both = run("show", "--rules", "standard-s5", "--stones", 4, "startpos")
    assert both.exit_code == 2 and both.stderr == (
        "muehle: error: --rules standard-s5 names 5 stones a side and --stones 4 another: give one\n")
    assert "Rules:     standard-s5" in run("show", "--rules", "standard-s5", "--stones", 5, "startpos").stdout
    assert "Rules:     no-jumping-s4" in run("show", "--rules", "no-jumping", "--stones", 4, "startpos").stdout


def test_solve_opening_without_any_moving_files_says_so_as_every_command(tmp_path):
    """It named one pair to build (--pair 6-7), where stats, play and the others that
    need the whole phase say there are no databases and how to build them (a helper's
    trial)."""
    (tmp_path / "seven-mens").mkdir()
    result = run("solve-opening", "--db", tmp_path, "--rules", "seven-mens")
    assert result.exit_code == 2 and result.stderr == (
        f"muehle: error: no databases for rules seven-mens in {tmp_path} (build them with: "
        f"muehle build --db {tmp_path} --rules seven-mens)\n"), result.stderr
