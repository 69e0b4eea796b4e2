"""``muehle uci`` driven as a GUI drives it: a subprocess, line by line, with timeouts."""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import threading
import time

import pytest

from solver.game import Game
from solver.probe import open_database
from solver.rules import Rules
from solver.uci import actions, score_text

FOUR = Rules(stones=4)
WAIT = 60          # seconds a line may take (a loaded CI machine; answers come in ms)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The whole 4-stone game: both phases, the tables of the quiet-ply rule too."""
    root = tmp_path_factory.mktemp("uci")
    subprocess.run([sys.executable, "-m", "solver", "build", "--db", str(root), "--stones", "4", "--quiet"],
                   check=True, capture_output=True)
    return root


class Gui:
    """An engine process and the lines it writes, read in a thread (never blocking)."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "solver", "uci", *map(str, args)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines):
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, timeout=WAIT):
        """The lines up to and including the first that starts with ``prefix``."""
        got, end = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {got}") from None
            if line is None:
                raise AssertionError(f"the engine ended before {prefix!r}; got {got}; "
                                     f"stderr {self.proc.stderr.read()}")
            got.append(line)
            if line.startswith(prefix):
                return got

    def silent(self, seconds=0.5):
        """Nothing more is written for ``seconds``."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        raise AssertionError(f"unexpected line {line!r}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def gui(root):
    engine = Gui("--db", root, "--stones", 4)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def db(root):
    with open_database(root, FOUR) as database:
        yield database


def bestmove(lines):
    return lines[-1].split()[1]


def test_handshake_lists_the_options(gui):
    gui.send("uci")
    lines = gui.until("uciok")
    assert lines[0].startswith("id name muehle") and lines[1].startswith("id author")
    options = [line.split()[2] for line in lines if line.startswith("option name")]
    assert options == ["Rules", "DatabasePath", "Level", "Shuffling", "Seed", "MoveTimeMs", "QuietLimit"]
    assert "var ultra" in next(line for line in lines if "name Level" in line)
    gui.send("isready")
    assert gui.until("readyok") == ["readyok"]


def test_go_before_position_plays_from_the_start(gui):
    gui.send("go")
    lines = gui.until("bestmove")
    assert bestmove(lines) in FOUR.board.points
    assert any(line.startswith("info depth") and "score cp 0" in line for line in lines)  # a draw


def test_topn_lists_every_action_with_its_value(gui, db):
    gui.send("position startpos moves a7 a1 d7 d1", "go topn 100")
    lines = gui.until("bestmove")
    ranked = [line.split() for line in lines if line.startswith("info topn")]
    game = Game.after("startpos", "a7 a1 d7 d1".split(), FOUR)
    listed = [r[5] for r in ranked]
    assert sorted(listed) == sorted({actions(m)[0] for m in game.legal_moves()})
    assert len(ranked) == len(game.legal_moves()) - 1        # g7 closes a mill: g7xa1 and g7xd1
    assert [int(r[3]) for r in ranked] == list(range(1, len(ranked) + 1))
    assert bestmove(lines) == listed[0]
    # each action's value: the best of the moves that begin with it
    probes = db.probe_moves(game.position)
    for r in ranked:
        best = next(mp for mp in probes if actions(mp.move)[0] == r[5])
        assert " ".join(r[6:]) == f"score {score_text(best.value, best.plies, 'w')}"
    gui.send("go topn 3")
    assert len([line for line in gui.until("bestmove") if line.startswith("info topn")]) == 3


def test_a_mill_is_closed_then_its_take_named(gui, db):
    # White to move closes a7-d7-g7 (g7) and must then take
    moves = "a7 a1 d7 d1".split()
    gui.send(f"position startpos moves {' '.join(moves)} g7", "go")
    lines = gui.until("bestmove")
    take = bestmove(lines)
    assert take in ("xa1", "xd1")
    whole = Game.after("startpos", moves, FOUR)
    best = db.probe_moves(whole.position)[0]
    value = db.probe(whole.position.play(f"g7{take}", FOUR)).for_mover()
    assert value.value == best.value
    # the take accepted as its own token, and as part of a whole move
    gui.send(f"position startpos moves {' '.join(moves)} g7 {take} b6", "d")
    board = gui.until("# W:")
    assert board[-1].startswith("# W:a7,d7,g7 B:b6")
    gui.send(f"position startpos moves {' '.join(moves)} g7{take} b6", "d")
    assert gui.until("# W:")[-1] == board[-1]
    # between the mill and its take, the board shows the stone that closed it
    gui.send(f"position startpos moves {' '.join(moves)} g7", "d")
    shown = gui.until("# W:")
    assert shown[-1] == "# W:a7,d7 B:a1,d1 w 2 2 after g7, its take to come", shown
    assert any(line.startswith("# 7 W") and line.endswith("W") for line in shown), shown


def test_scores_are_whites_and_match_the_databases(gui, db):
    for text in ("W:a1,d1,g4,b4 B:a7,d7,f6 w", "W:a1,d1,g4,b4 B:a7,d7,f6 b", "W:a7,c3,g7 B:a1,d5,e5,f2 w"):
        from solver.formats import fen_text, read_setup
        fen = fen_text(read_setup(text, 4))
        gui.send(f"position fen {fen}", "go")
        lines = gui.until("bestmove")
        info = next(line for line in lines if line.startswith("info depth"))
        best = db.probe_moves(text)[0]
        mover = text.split()[2]
        plies = best.plies
        assert f"score {score_text(best.value, plies, mover)} " in info + " ", (text, info, best)
        gui.send("eval")
        assert gui.until("info eval")[-1] == f"info eval score {score_text(best.value, plies, mover)}"


def test_a_fen_with_a_take_pending_gets_the_take(gui, db):
    # White placed c3 closing c5-c4-c3 and takes next
    fen = "*****OOO/********/@@****** w p r 3 0 2 1 1 0 0 0 0 0 0 0 4"
    gui.send(f"position fen {fen}", "go")
    take = bestmove(gui.until("bestmove"))
    assert take in ("xd7", "xg7")
    gui.send(f"position fen {fen} moves {take}", "d")
    assert gui.until("# W:")[-1].startswith(f"# W:c3,c4,c5 B:{'g7' if take == 'xd7' else 'd7'} b 0 1")


def test_the_engine_plays_a_won_game_out_against_itself(gui, db):
    """Every action it names, sent back, until the game ends: the side that wins by the
    databases wins, in as many plies as they say (the counter of the rule kept fresh)."""
    start = "W:a1,d1,g4,b4 B:a7,d7,f6 b"
    from solver.formats import fen_text, read_setup
    fen = fen_text(read_setup(start, 4))
    value = db.probe(start)
    played: list[str] = []
    for _ in range(200):
        gui.send(f"position fen {fen}" + (f" moves {' '.join(played)}" if played else ""), "go")
        move = bestmove(gui.until("bestmove"))
        if move in ("none", "draw"):
            break
        played.append(move)
    game = Game(start, FOUR)
    turn = []
    for action in played:
        turn.append(action)
        whole = [m for m in game.legal_moves() if actions(m) == turn]
        if whole:
            game.play(whole[0])
            turn = []
    result = game.outcome()
    assert result is not None and result.winner == ("w" if value.value == "loss" else "b")
    assert len(game.moves) == value.plies


def test_garbage_and_bad_commands_leave_the_session_alive(gui):
    gui.send("xyzzy", "", "position fen garbage", "go")
    lines = gui.until("bestmove")
    assert any("info string error" in line for line in lines) and lines[-1] == "bestmove none"
    gui.send("position startpos moves a7 a7", "go")
    lines = gui.until("bestmove")
    assert any("a7 is not legal" in line for line in lines) and lines[-1] == "bestmove none"
    gui.send("setoption name Level value godlike", "setoption name Nonsense value 3", "setoption garbage",
             "go movetime abc")
    lines = gui.until("bestmove")
    assert sum("info string" in line for line in lines) == 4 and lines[-1] == "bestmove none"
    for junk in ("\x00\x01", "position", "position fen", "position startpos moves a7 " + "a7 " * 3000,
                 "é" * 10_000, "go topn -1"):
        gui.send(junk)
    lines = gui.until("bestmove")
    # (unknown commands, the control characters and the long word, are ignored as UCI asks)
    assert sum("info string error" in line for line in lines) == 4 and lines[-1] == "bestmove none"
    gui.send("position startpos", "go")
    assert bestmove(gui.until("bestmove")) in FOUR.board.points
    gui.send("isready")
    gui.until("readyok")


def test_stop_ends_an_infinite_search_and_isready_answers_during_it(gui):
    gui.send("position startpos", "go infinite")
    time.sleep(1.0)
    gui.send("isready")
    lines = gui.until("readyok")
    assert not any(line.startswith("bestmove") for line in lines)      # none before stop
    gui.send("stop")
    lines = gui.until("bestmove")
    assert bestmove(lines) in FOUR.board.points
    gui.send("stop")                                # a stop with nothing running: nothing
    gui.silent(0.5)


def test_the_end_of_input_ends_the_engine(root):
    engine = Gui("--db", root, "--stones", 4)
    try:
        engine.send("position startpos", "go infinite")
        engine.proc.stdin.close()
        assert engine.proc.wait(timeout=WAIT) == 0
    finally:
        engine.close()


def test_quit_mid_search_answers_and_ends(root):
    engine = Gui("--db", root, "--stones", 4)
    try:
        engine.send("go infinite", "quit")
        engine.until("bestmove")
        assert engine.proc.wait(timeout=WAIT) == 0
    finally:
        engine.close()


def test_a_finished_game_answers_none_or_draw(gui):
    # Black has two stones: White has won
    gui.send("position fen O*O*****/O*******/@@****** b m s 3 0 2 0 0 0 0 0 0 0 0 0 1", "go")
    lines = gui.until("bestmove")
    assert lines[-1] == "bestmove none" and any("game over" in line for line in lines)
    # threefold repetition
    cycle = "a7-d7 e3-g7 d7-a7 g7-e3".split() * 2
    from solver.formats import fen_text, read_setup
    fen = fen_text(read_setup("W:a1,e3,g1 B:a4,a7,b6,e4 b", 4))
    gui.send(f"position fen {fen} moves {' '.join(cycle)}", "go")
    assert gui.until("bestmove")[-1] == "bestmove draw"


def test_the_quiet_limit_is_an_option_for_games_of_another_limit(root, gui):
    """Sanmill's games play to 100 quiet plies: a FEN with 55 is a game going on there,
    and over at the default 50.  QuietLimit (and --quiet-limit) set the game's limit;
    where no tables of it are built, that is said once and the plain values play."""
    fen = "*******@/******@O/O@@****O w m s 3 0 4 0 0 0 0 0 0 0 0 55 1"       # (White wins in 29)
    gui.send(f"position fen {fen}", "go")
    assert gui.until("bestmove")[-1] == "bestmove draw"
    gui.send("setoption name QuietLimit value 100", f"position fen {fen}", "go")
    lines = gui.until("bestmove")
    assert lines[-1] == "bestmove b6-g1", lines
    assert sum("no tables of the 100-ply rule" in line and "--quiet-limit 100" in line for line in lines) == 1
    gui.send("go")
    assert not any("100-ply" in line for line in gui.until("bestmove"))     # (once)
    gui.send("setoption name QuietLimit value 1001")
    assert "QuietLimit: a whole number from 2 to 1000" in gui.until("info string error")[-1]
    engine = Gui("--db", root, "--stones", 4, "--quiet-limit", 100)
    try:
        engine.send(f"position fen {fen}", "go")
        assert engine.until("bestmove")[-1] == "bestmove b6-g1"
    finally:
        engine.close()


def test_without_databases_it_says_so_and_still_plays(tmp_path):
    engine = Gui("--db", tmp_path / "none", "--stones", 4)
    try:
        engine.send("isready")
        lines = engine.until("readyok")
        assert any("no databases" in line for line in lines)
        engine.send("position fen " + "O*******/O*O*****/@@**@*** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1", "go movetime 100")
        lines = engine.until("bestmove")
        assert bestmove(lines) not in ("none", "draw")
        # said once, not again at every isready, go and eval
        assert not any("no databases" in line for line in lines)
        engine.send("isready")
        assert not any("no databases" in line for line in engine.until("readyok"))
    finally:
        engine.close()


def test_other_levels_and_options(gui):
    gui.send("setoption name Level value easy", "position startpos", "go")
    assert bestmove(gui.until("bestmove")) in FOUR.board.points
    gui.send("setoption name Level value ultra", "setoption name Shuffling value true",
             "setoption name Seed value 5", "position startpos moves a7", "go")
    assert bestmove(gui.until("bestmove")) in FOUR.board.points
    gui.send("setoption name Rules value standard-s3", "position startpos", "go")
    lines = gui.until("bestmove")
    assert bestmove(lines) in FOUR.board.points or lines[-1] == "bestmove none"


def test_any_line_thrown_at_a_session_leaves_it_answering(root):
    """Random lines of commands, words of the protocol, points, numbers and garbage:
    every go gets its bestmove, nothing escapes, and the session still plays after."""
    import io
    from solver.uci import Engine

    rng = random.Random(53)
    words = ["uci", "isready", "go", "position", "startpos", "fen", "moves", "setoption", "name", "value",
             "Level", "Rules", "perfect", "easy", "topn", "movetime", "depth", "infinite", "stop", "eval", "d",
             "ucinewgame", "x", "-", "a7", "xa1", "d7-d6", "g7xa1", "0", "-1", "999999999999", "",
             "********/********/********", "w", "p", "m", "r", "O", "@", "*", "é", "\t", "malom2", "true"]
    points = list(FOUR.board.points)
    out = io.StringIO()
    engine = Engine(out, db=str(root), rules=FOUR)
    gos = 0
    for _ in range(3000):
        if rng.random() < 0.5:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        else:
            line = "position startpos moves " + " ".join(rng.choice(points + ["x" + p for p in points])
                                                       for _ in range(rng.randint(0, 10)))
        if line.split()[:1] == ["go"] and "infinite" in line.split():
            line = "go"                     # (no stop would come in time)
        engine.handle(line)
        engine.wait()
        gos += line.split()[:1] == ["go"]
    engine.handle("position startpos")
    engine.handle("go")
    engine.wait()
    engine.finish()
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("bestmove") for line in lines) == gos + 1
    assert lines[-1].split()[0] == "bestmove" and lines[-1].split()[1] in FOUR.board.points
    assert not any("Error:" in line and "error:" not in line for line in lines)


def test_stop_cuts_a_long_search_short(root):
    """hard, given a minute: stop ends its search at once with the best it has."""
    engine = Gui("--db", root, "--stones", 4, "--level", "hard")
    try:
        engine.send("position fen O*******/O*O*****/@@**@*** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
                    "go movetime 60000")
        time.sleep(0.5)
        started = time.monotonic()
        engine.send("stop")
        lines = engine.until("bestmove", timeout=WAIT)
        assert bestmove(lines) not in ("none", "draw") and time.monotonic() - started < 20
    finally:
        engine.close()


def test_a_command_during_an_infinite_search_stops_it_first(gui):
    """No hang: a position or go while go infinite runs ends that search (its bestmove
    first), then is answered."""
    gui.send("go infinite", "position startpos moves d6", "go")
    lines = gui.until("bestmove")
    assert bestmove(lines) in FOUR.board.points
    lines = gui.until("bestmove")                  # the second go's, from after d6
    assert bestmove(lines) in FOUR.board.points and bestmove(lines) != "d6"
    gui.send("go infinite", "go infinite", "stop")
    gui.until("bestmove")
    gui.until("bestmove")
    gui.send("isready")
    gui.until("readyok")


def test_an_endless_line_is_read_past_in_pieces_and_said(root):
    import io
    from solver.uci import read_lines, serve

    stream = io.BytesIO(b"x" * 5000 + b"\nisready\n\xff\xfe garbage\nquit\n")
    out = io.StringIO()
    serve(read_lines(stream, limit=1000), out, db=str(root), rules=FOUR)
    assert out.getvalue().splitlines() == ["info string error: a line longer than 1000 bytes: ignored",
                                           "readyok"]


def test_setoption_values_out_of_range_are_said(gui):
    gui.send("setoption name Seed value 9999999999", "setoption name Rules value", "setoption name MoveTimeMs value 0",
             "isready")
    lines = gui.until("readyok")
    assert [line.split()[4] for line in lines[:-1]] == ["Seed:", "Rules:", "MoveTimeMs:"]


def test_the_games_player_is_kept_from_go_to_go_and_a_stop_is_spent(root, tmp_path):
    """hard keeps its player from one go to the next while nothing it plays by changes
    (its transposition table, and a notice said once, not at every go: a review found it
    said again each time); a stop ends the go it came in, not the next; another level or
    seed (or thinking time) makes a new player."""
    import io
    import shutil
    from solver import storage
    from solver.uci import Engine

    shutil.copytree(root, tmp_path, dirs_exist_ok=True)
    storage.rule_path(tmp_path, FOUR, (3, 4), 50).unlink()      # a file of the rule missing: said once
    out = io.StringIO()
    engine = Engine(out, db=str(tmp_path), rules=FOUR)
    engine.handle("setoption name Level value hard")
    from solver.formats import fen_text, read_setup
    start = "W:a1,d1,g1 B:a7,d7,f6,b6 b"         # (4 against 3: its moves lead into pair 3-4)
    game = Game(start, FOUR)
    fen = fen_text(read_setup(start))
    played, moves = [], []
    for _ in range(3):
        engine.handle(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
        engine.handle("go movetime 200")
        engine.worker.join()             # (its own end: a wait would stop it)
        played.append(engine.player)
        quiet = next(m for m in game.legal_moves() if m.take is None)
        game.play(quiet)
        moves += actions(quiet)
    assert played[0] is played[1] is played[2] and played[0].level == "hard"
    said = [line for line in out.getvalue().splitlines() if "cannot answer" in line]
    assert len(said) == 1, out.getvalue()
    # each command after a go stopped its player (as one coming during a go does): the
    # next go resumes it (a player still stopped would end its search after one ply)
    engine.handle("position startpos")
    assert engine.player._stopped
    engine.handle("go movetime 200")
    engine.worker.join()
    assert engine.player is played[0] and not engine.player._stopped
    engine.handle("setoption name Level value medium")
    engine.handle("go")
    engine.worker.join()
    assert engine.player is not played[0] and engine.player.level == "medium"
    engine.finish()
    assert sum(line.startswith("bestmove") for line in out.getvalue().splitlines()) == 5, out.getvalue()


@pytest.mark.parametrize("missing, said", [
    ("plain", "scores without their plies where the databases cannot answer: pair 3-4 is not built"),
    ("rule", "the tables of the quiet-ply rule are built, but not all these moves need (pair 3-4 under "
             "the 50-ply rule is not built"),
])
def test_a_missing_file_is_said_once_and_the_engine_still_moves(root, tmp_path, missing, said):
    """The position's moves lead into pair 3-4, whose plain file (or file of the rule) is
    missing: the levels that read the databases still answer a move, not ``bestmove
    none`` (the plain file missing: the move chosen by the rule's values, its score
    without plies; the rule's: by the plain values), and the gap is said once, not
    passed over."""
    import io
    import shutil
    from solver import storage
    from solver.uci import Engine

    shutil.copytree(root, tmp_path, dirs_exist_ok=True)
    gone = (storage.pair_path(tmp_path, FOUR, (3, 4)) if missing == "plain"
            else storage.rule_path(tmp_path, FOUR, (3, 4), 50))
    gone.unlink()
    for level in ("perfect", "hard", "ultra"):
        out = io.StringIO()
        engine = Engine(out, db=str(tmp_path), rules=FOUR)
        engine.handle(f"setoption name Level value {level}")
        engine.handle("setoption name MoveTimeMs value 200")
        engine.handle("position fen W:a7,b6,d7 B:b4,c5,g4,g7 w")
        for _ in range(2):
            engine.handle("go")
            engine.worker.join()
        engine.handle("eval")
        lines = out.getvalue().splitlines()
        moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
        assert len(moves) == 2 and "none" not in moves, (level, lines)
        assert sum(said in line for line in lines) == 1, (level, lines)
        assert not any("error" in line for line in lines), (level, lines)


@pytest.mark.parametrize("ending, partial, late", [("stop", False, False), ("quit", False, False),
                                                   ("stop", True, False), ("stop", False, True)],
                         ids=["stop", "quit", "stop-within-a-move", "stop-before-the-databases-open"])
def test_a_stop_or_quit_ends_the_opening_search_and_a_move_is_answered(tmp_path, monkeypatch, ending, partial,
                                                                      late):
    """Without placement files a placement position is valued by the opening search (a
    minute or more early in the 9-stone game): the engine says so first, and a ``stop``
    or ``quit`` ends that search through the databases' stop (here the search waits
    for it, so the stop surely lands mid-search), then answers a legal action: within
    a move begun (a mill placed, its take to name) one that goes on from it.  A stop
    that comes while the worker still opens the databases stops the search too; after
    the stop, ``eval`` searches again."""
    import io
    from solver import uci
    from solver.build import build
    from solver.opening import OpeningSearch
    from solver.records import actions
    from solver.uci import Engine

    build(tmp_path, FOUR, phase="moving", progress=False)
    solve = OpeningSearch.solve
    waited, slow = [], [True]

    def slow_solve(self, position, deadline=None):
        end = time.monotonic() + WAIT
        while slow[0] and not self.engine.stopping and time.monotonic() < end:
            time.sleep(0.01)
        waited.append(self.engine.stopping)
        return solve(self, position, deadline)     # (stopped: raises SearchStoppedError)

    monkeypatch.setattr(OpeningSearch, "solve", slow_solve)
    out = io.StringIO()
    engine = Engine(out, db=str(tmp_path), rules=FOUR)
    if late:
        opened = uci.open_database

        def slow_open(*args, **kwargs):
            engine.stopped.wait(WAIT)           # (the stop comes first)
            return opened(*args, **kwargs)

        monkeypatch.setattr(uci, "open_database", slow_open)
    start, played = ("W:b6,d6 B:c4,d1 w 2 2", ["f6"]) if partial else ("startpos", ["d2"])
    engine.handle(f"position fen {start} moves {' '.join(played)}" if partial else "position startpos moves d2")
    engine.handle("go")
    end = time.monotonic() + WAIT
    while not late and "the opening search answers" not in out.getvalue() and time.monotonic() < end:
        time.sleep(0.01)
    if ending == "stop":
        engine.handle("stop")
    else:
        assert engine.handle("quit") is False
        engine.finish()
    lines = out.getvalue().splitlines()
    assert any("no placement files of rules standard-s4" in line for line in lines), lines
    assert waited and all(waited), waited
    assert "info string the opening search was stopped: the move of a short search" in lines, lines
    best = lines[-1].split()
    game = Game(start, FOUR)
    if partial:
        mill = next(m for m in game.legal_moves() if str(m).startswith("f6x"))
        assert best[0] == "bestmove" and best[1].startswith("x") and mill.take is not None, lines
        assert any(actions(m)[:2] == ["f6", best[1]] for m in game.legal_moves()), lines
    else:
        game.play("d2")
        assert best[0] == "bestmove" and best[1] in {str(m) for m in game.legal_moves()}, lines
    if ending == "stop":
        slow[0] = False
        engine.handle("eval")
        assert out.getvalue().splitlines()[-1].startswith("info eval score"), out.getvalue()


def test_a_move_to_no_point_of_the_board_is_called_so(gui):
    """'d4' in a position's moves was said to be 'not legal here': it is no point."""
    gui.send("position startpos moves d2 d4", "isready")
    lines = gui.until("readyok")
    assert "info string error: position: move 2 (d4): unknown point 'd4' (points are a1..g7 on the board's lines)" \
        in lines, lines
    gui.send("position startpos moves d2 d2", "isready")
    assert any("d2 is not legal here" in line for line in gui.until("readyok"))


def _engine_go(engine, *lines):
    """Send ``lines`` (the last a go) and wait for that go's own end."""
    for line in lines:
        engine.handle(line)
    engine.worker.join()


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_take_named_after_the_engines_mill_is_the_one_it_chose(root, db, level):
    """A GUI sends the engine's mill back, then go: the take named is the one the engine
    chose with the move (a review found the searching levels took a random stone, a
    drawn one where the move they announced won), and at hard, that keeps the win."""
    import io
    from solver.uci import Engine

    fen = "position fen W:a7,c3,d7,f2 B:a4,g1,g7 b"       # a4-g4 closes g1-g4-g7; xf2 wins
    for seed in range(1, 7):
        out = io.StringIO()
        engine = Engine(out, db=str(root), rules=FOUR)
        engine.handle(f"setoption name Level value {level}")
        engine.handle(f"setoption name Seed value {seed}")
        _engine_go(engine, fen, "go movetime 300")
        first = out.getvalue().splitlines()[-1].split()[1]
        planned = engine.planned
        if planned.take is None:
            engine.finish()
            continue                                      # (no mill this time: nothing to name)
        _engine_go(engine, f"{fen} moves {first}", "go movetime 300")
        take = out.getvalue().splitlines()[-1].split()[1]
        engine.finish()
        assert take == actions(planned)[1], (seed, first, take, planned)
        if level == "hard":
            after = Game(fen.split(" fen ")[1], FOUR).position.play(f"{first}{take}", FOUR)
            assert db.probe(after).for_mover().wdl == "win", (seed, first, take)


def test_a_take_after_a_mill_the_gui_made_is_chosen_by_the_level(root, db):
    """No plan (the GUI made the move that closed the mill): hard chooses among the
    takes that go on from it by its search, and so keeps the win."""
    import io
    from solver.uci import Engine

    for seed in range(1, 5):
        out = io.StringIO()
        engine = Engine(out, db=str(root), rules=FOUR, level="hard")
        engine.handle(f"setoption name Seed value {seed}")
        _engine_go(engine, "position fen W:a7,c3,d7,f2 B:a4,g1,g7 b moves a4-g4", "go movetime 300")
        take = out.getvalue().splitlines()[-1].split()[1]
        engine.finish()
        after = Game("W:a7,c3,d7,f2 B:a4,g1,g7 b", FOUR).position.play(f"a4-g4{take}", FOUR)
        assert db.probe(after).for_mover().wdl == "win", (seed, take)


@pytest.mark.parametrize("ending", ["stop", "quit"])
def test_a_stop_before_the_searching_player_exists_ends_the_go(tmp_path, monkeypatch, ending):
    """The first go of a level that searches makes its player in the worker; a stop or
    quit that came before it was made found none to stop and was lost (a review: a
    go movetime 20000 then stop took the whole 20 s; with 600000, quit hung 10 minutes).
    The player is made here only once the stop has come, as happens when it is quick."""
    import io
    from solver import uci
    from solver.uci import Engine

    out = io.StringIO()
    engine = Engine(out, db=str(tmp_path / "none"), rules=Rules(), level="hard")   # the 9-stone game, no files
    made = uci.make_player

    def late(*args, **kwargs):
        assert engine.stopped.wait(WAIT)
        return made(*args, **kwargs)

    monkeypatch.setattr(uci, "make_player", late)
    started = time.monotonic()
    engine.handle("position startpos")
    engine.handle("go movetime 600000")
    if ending == "stop":
        engine.handle("stop")
    else:
        engine.finish()
    assert engine.worker is None or not engine.worker.is_alive()
    assert time.monotonic() - started < 120           # (not the 600 s asked for)
    assert out.getvalue().splitlines()[-1].split()[1] in Rules().board.points
    engine.finish()


def test_a_line_that_looks_like_the_too_long_mark_is_only_a_line(root):
    """read_lines marks a line past its limit by a type of its own: a GUI's line that
    reads as the old text mark is ignored as any unknown command (it was taken for one,
    and '\\x00too-long' alone raised an IndexError with a traceback)."""
    import io
    from solver.uci import LineTooLong, serve

    out = io.StringIO()
    serve(["\x00too-long\n", "\x00too-long abc\n", LineTooLong(1000), "isready\n"], out, db=str(root), rules=FOUR)
    assert out.getvalue().splitlines() == ["info string error: a line longer than 1000 bytes: ignored",
                                           "readyok"]


def test_eval_of_a_game_over_says_who_won(gui):
    """mate 0 has no sign: a game over already is scored as the dialect's won game,
    White's way (-80: Black has won)."""
    gui.send("position fen W:a4,b6 B:a1,d2,g7 w", "eval", "position fen W:a1,d2,g7 B:a4,b6 w", "eval")
    assert gui.until("info eval")[-1] == "info eval score cp -80"
    assert gui.until("info eval")[-1] == "info eval score cp 80"


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_eval_and_topn_read_the_databases_at_every_level(root, db, level):
    """easy and medium choose without the databases, but eval and go topn value moves
    from them (they said "no databases" and listed nothing)."""
    import io
    from solver.uci import Engine

    out = io.StringIO()
    engine = Engine(out, db=str(root), rules=FOUR, level=level)
    engine.handle("position fen W:a1,d1,g4,b4 B:a7,d7,f6 w")
    engine.handle("eval")
    _engine_go(engine, "go topn 3")
    engine.finish()
    lines = out.getvalue().splitlines()
    best = db.probe("W:a1,d1,g4,b4 B:a7,d7,f6 w")
    assert lines[0] == f"info eval score {score_text(best.wdl, best.plies, 'w')}", lines
    assert [line.split()[:4] for line in lines[1:4]] == [["info", "topn", "rank", str(r)] for r in (1, 2, 3)], lines
    assert lines[1].split()[-2:] == score_text(best.wdl, best.plies, "w").split(), lines


def test_sanmills_name_of_the_quiet_limit_and_a_rule_set_in_capitals_are_taken(root):
    import io
    from solver.uci import Engine

    out = io.StringIO()
    engine = Engine(out, db=str(root), rules=FOUR)
    engine.handle("setoption name NMoveRule value 100")
    engine.handle("setoption name Rules value STANDARD-S4")
    engine.finish()
    assert (engine.quiet_limit, engine.rules) == (100, FOUR) and out.getvalue() == ""


def test_info_depth_says_the_depth_searched_not_the_one_asked(gui):
    """go depth N is no limit here: the depth said is the move's own (1, a move read
    from the tables), not the N asked (it echoed N)."""
    gui.send("position fen W:a1,d1,g4,b4 B:a7,d7,f6 w", "go depth 7")
    lines = gui.until("bestmove")
    assert any(line.startswith("info depth 1 score") for line in lines), lines


def test_a_setoption_forgets_the_take_planned_with_the_last_move(root, db):
    """A plan made at one level (or under other rules) is not the next level's: after a
    setoption the take is chosen anew (perfect, here: the one that wins)."""
    import io
    from solver.uci import Engine

    fen = "position fen W:a7,c3,d7,f2 B:a4,g1,g7 b"
    start = Game(fen.split(" fen ")[1], FOUR).position
    drawn_plans = 0
    for seed in range(1, 9):
        out = io.StringIO()
        engine = Engine(out, db=str(root), rules=FOUR, level="easy")
        engine.handle(f"setoption name Seed value {seed}")
        _engine_go(engine, fen, "go")
        first = out.getvalue().splitlines()[-1].split()[1]
        if first != "a4-g4":
            engine.finish()
            continue
        drawn_plans += db.probe(start.play(engine.planned, FOUR)).for_mover().wdl != "win"
        engine.handle("setoption name Level value perfect")
        _engine_go(engine, f"{fen} moves a4-g4", "go")
        take = out.getvalue().splitlines()[-1].split()[1]
        engine.finish()
        after = start.play(f"a4-g4{take}", FOUR)
        assert db.probe(after).for_mover().wdl == "win", (seed, take)
    assert drawn_plans                      # (easy planned a take that draws at least once)


def test_info_depth_of_a_move_without_a_choice_is_not_the_last_searchs(root, tmp_path):
    """A kept hard player said the depth of its last search for a move it did not search
    (one legal move): each move's depth is its own."""
    import io
    import shutil
    from solver.uci import Engine

    for pair in (root / "standard-s4").glob("pair-*.h5"):
        (tmp_path / "standard-s4").mkdir(exist_ok=True)
        shutil.copy(pair, tmp_path / "standard-s4" / pair.name)
    out = io.StringIO()
    engine = Engine(out, db=str(tmp_path), rules=FOUR, level="hard")
    _engine_go(engine, "position startpos moves a1", "go movetime 2000")
    searched = [line for line in out.getvalue().splitlines() if line.startswith("info depth")]
    _engine_go(engine, "position fen W:f2,g7,g4,g1 B:d2,f4,d7,b4 w", "go")
    engine.finish()
    lines = out.getvalue().splitlines()
    assert lines[-1] == "bestmove g1-d1" and lines[-2].startswith("info depth 1 "), (searched, lines[-3:])
