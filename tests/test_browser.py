"""The page of ``muehle serve`` in a real browser: headless Chromium (Debian's
``chromium`` and ``chromium-driver``, driven by selenium) plays a whole game of the
4-stone game against the perfect player, on a server bound to 127.0.0.1.

Skipped only where no Chromium is installed, and never under CI (``CI`` set), where
``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from solver.board import POINT_NAMES
from solver.probe import open_database
from solver.rules import Rules
from solver.analysis import convert_object
from solver.position import parse_position

#: The hint colours the page promises (README: green a win, grey a draw, red a loss),
#: typed here rather than read from the code under test, so that colours swapped there
#: fail this test.
VALUE_COLOURS = {"win": "#2e8b3d", "draw": "#7a7f87", "loss": "#c8323a"}

FOUR = Rules(stones=4)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or (
    "/usr/lib/chromium/chromedriver" if os.path.exists("/usr/lib/chromium/chromedriver") else None)

if not (CHROMIUM and DRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser test: chromium and chromium-driver are missing "
                           "(.ci/run installs them with apt-get)")
    pytest.skip("no headless Chromium here: apt-get install chromium chromium-driver",
                allow_module_level=True)
if os.environ.get("CI"):
    import uvicorn
    from selenium import webdriver
else:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed (pip install -e '.[test]')")
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from liveserver import serving  # noqa: E402
from solver.web import create_app  # noqa: E402


@pytest.fixture(scope="module")
def server(db4):
    """The page and API on a free port of 127.0.0.1, in a thread of this process."""
    with serving(create_app(db4, FOUR)) as (base, _):
        yield base + "/"


@pytest.fixture(scope="module")
def browser():
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1000"):
        options.add_argument(arg)
    # An explicit driver: selenium must not try to download one.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def database(db4):
    with open_database(db4, FOUR, in_memory=True) as db:
        yield db


def idle(driver, ply=None, timeout=30):
    """Wait until no request is in flight (and the board shows ``ply`` moves)."""
    def ready(d):
        if d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") != "0":
            return False
        return ply is None or d.find_element(By.ID, "board").get_attribute("data-ply") == str(ply)
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(ready)


def click_point(driver, board_id, point):
    driver.find_element(By.CSS_SELECTOR, f"#{board_id} [data-point='{point}']").click()


def marks(driver, board_id="board") -> dict[str, str]:
    """point -> the colour of its mark ('none' for unmarked points)."""
    return {p: driver.find_element(By.CSS_SELECTOR, f"#{board_id} #mark-{p}").get_attribute("stroke")
            for p in POINT_NAMES}


def expected_marks(database, position, placing: bool) -> dict[str, str]:
    """The hint colour of every point from the database: the best move to a point
    while placing, else the best move of the stone on it."""
    colours = {p: "none" for p in POINT_NAMES}
    for mp in database.probe_moves(position):            # best first
        point = POINT_NAMES[mp.move.target if placing else mp.move.origin]
        if colours[point] == "none":
            colours[point] = VALUE_COLOURS[mp.value]
    return colours


def text(driver, element_id) -> str:
    return driver.find_element(By.ID, element_id).text


def test_a_whole_game_in_the_browser(server, browser, database, tmp_path):
    driver = browser
    driver.get(server + "?seed=1")          # the computer's choices repeatable
    idle(driver, 0)
    assert Select(driver.find_element(By.ID, "rules")).first_selected_option.get_attribute("value") == "standard-s4"
    # The first screen: no list of what is missing; the menu marks the rule sets not
    # built, and picking one names the command that builds it.
    assert text(driver, "rules-info") == ""
    menu = Select(driver.find_element(By.ID, "rules"))
    labels = [o.text for o in menu.options]
    assert "standard (9 stones, not built)" in labels and labels[0].startswith("standard-s4 (4 stones")
    menu.select_by_value("standard")
    idle(driver)
    info = text(driver, "rules-info")
    assert info.startswith("standard: not built") and "muehle build --db" in info
    menu.select_by_value("standard-s4")
    idle(driver)
    assert text(driver, "rules-info") == ""
    Select(driver.find_element(By.ID, "level")).select_by_value("perfect")
    Select(driver.find_element(By.ID, "colour")).select_by_value("w")
    driver.find_element(By.ID, "new-game").click()
    idle(driver, 0)
    assert "placement (White places a stone)" in text(driver, "status")

    ply = 0
    illegal_tried = undo_tried = False
    noted = 0             # replies with perfect's note of the opening search (shown once a game)
    for _ in range(60):
        if text(driver, "result"):
            break
        position = parse_position(driver.find_element(By.ID, "board").get_attribute("data-position"), FOUR)
        placing = position.own_hand > 0
        # The hint colours are the database's values.
        assert marks(driver) == expected_marks(database, position, placing)
        probes = database.probe_moves(position)
        if not illegal_tried and position.black:
            # A click on the opponent's stone is refused: a message, the same board.
            black = POINT_NAMES[(position.black & -position.black).bit_length() - 1]
            click_point(driver, "board", black)
            message = driver.find_element(By.ID, "message")
            assert "Illegal" in message.text and "error" in message.get_attribute("class")
            assert driver.find_element(By.ID, "board").get_attribute("data-ply") == str(ply)
            illegal_tried = True
        # Play badly on purpose, so that perfect wins soon: the quickest loss, else a draw.
        losses = [mp for mp in probes if mp.value == "loss"]
        choice = min(losses, key=lambda mp: mp.plies or 0) if losses else probes[0]
        move = choice.move
        if move.origin is not None:
            click_point(driver, "board", POINT_NAMES[move.origin])
            assert "selected" in driver.find_element(By.CSS_SELECTOR, "#board #mark-" + POINT_NAMES[move.origin]).get_attribute("class")
        click_point(driver, "board", POINT_NAMES[move.target])
        takes = [mp for mp in probes if (mp.move.origin, mp.move.target) == (move.origin, move.target)]
        if len(takes) > 1:
            # The mill asks which stone to take: the takeable stones are coloured.
            assert "closes a mill" in text(driver, "message")
            click_point(driver, "board", POINT_NAMES[move.take])
        idle(driver)
        played = driver.find_element(By.ID, "board").get_attribute("data-ply")
        if text(driver, "result"):
            ply = int(played)
            break
        # The computer replied with one of the database's best moves.
        ply += 2
        assert played == str(ply)
        reply = text(driver, "message")
        assert "Black (computer, perfect) plays" in reply
        noted += "the opening search answers" in reply
        after = parse_position(driver.find_element(By.ID, "board").get_attribute("data-position"), FOUR)
        before = position.play(move, FOUR)
        best = database.probe_moves(before)
        best_moves = {str(mp.move) for mp in best if (mp.value, mp.plies) == (best[0].value, best[0].plies)}
        replied = reply.split("plays ")[1].split()[0]
        assert replied in best_moves
        assert before.play(next(mp.move for mp in best if str(mp.move) == replied), FOUR) == after
        if not undo_tried and ply == 4:
            driver.find_element(By.ID, "undo").click()
            idle(driver, 2)
            assert "Taken back" in text(driver, "message")
            ply = 2
            undo_tried = True
    result = text(driver, "result")
    # Black (perfect) wins once White has a losing move to make; else the draw rules end it.
    assert result in ("Game over: draw (threefold repetition). Draw.",
                      "Game over: draw (50 plies without a mill). Draw.") or (
        result.startswith("Game over: Black wins") and result.endswith("You lose.")), result
    assert illegal_tried and undo_tried
    assert noted == 1, "the placement files are not built: said once, not with every move"
    # A click after the end is refused too.
    click_point(driver, "board", "d2")
    assert "game is over" in text(driver, "message")

    # The analysis page: every move with values, the blunders marked, a graph.
    driver.find_element(By.ID, "to-analysis").click()
    WebDriverWait(driver, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")) == ply)
    idle(driver)
    rows = driver.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")
    blunders = [r for r in rows if "blunder" in r.get_attribute("class")]
    if "Black wins" in result:
        assert blunders, "the deliberate losing move is marked (the start is a draw)"
    assert all("lost the" in r.text for r in blunders)
    assert all(int(r.get_attribute("data-ply")) % 2 == 1 for r in blunders), "only White (the human) blundered"
    assert "blunder(s)" in text(driver, "analysis-summary") and "accuracy" in text(driver, "analysis-summary")
    assert driver.find_element(By.ID, "graph-line").get_attribute("d").startswith("M")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph .graph-blunder")) == len(blunders)
    rows[0].click()
    WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "analysis-board").get_attribute("data-ply") == "1")


def test_analysis_of_a_loaded_record(server, browser, database, tmp_path):
    driver = browser
    driver.get(server)
    idle(driver, 0)
    record = tmp_path / "game.txt"
    record.write_text("# a blunder\nrules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6 w\ng4-g7\n")
    driver.find_element(By.ID, "tab-analysis").click()
    driver.find_element(By.ID, "record-file").send_keys(str(record))
    WebDriverWait(driver, 10).until(lambda d: "g4-g7" in d.find_element(By.ID, "record").get_attribute("value"))
    driver.find_element(By.ID, "analyze").click()
    WebDriverWait(driver, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")) == 1)
    idle(driver)
    row = driver.find_element(By.CSS_SELECTOR, "#analysis-table tbody tr")
    assert "blunder" in row.get_attribute("class")
    assert row.text.split() == ["1", "White", "g4-g7", "win", "in", "1", "draw", "?", "lost", "the", "win",
                                "(best", "g4-g1xa7)"]
    assert "White: accuracy 0% (0 of 1 best), ?? 0, ? 1, ?! 0." in text(driver, "analysis-summary")
    # A record with an illegal move: the command line's message, nothing drawn.
    field = driver.find_element(By.ID, "record")
    field.clear()
    field.send_keys("d2 d2")
    driver.find_element(By.ID, "analyze").click()
    idle(driver)
    message = driver.find_element(By.ID, "analysis-message")
    assert message.text.startswith("line 1:") and "error" in message.get_attribute("class")
    assert not driver.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")


def test_position_editor_and_query(server, browser, database):
    driver = browser
    driver.get(server)
    idle(driver, 0)
    driver.find_element(By.ID, "tab-position").click()
    field = driver.find_element(By.ID, "edit-position")
    field.clear()
    # given as Sanmill's FEN: read, shown in muehle's notation, and the FEN and Malom's text
    formats = convert_object("W:a1,d1,g1 B:a7,d7,f6 b", FOUR)
    field.send_keys(formats["fen"])
    driver.find_element(By.ID, "edit-set").click()
    idle(driver)
    assert driver.find_element(By.ID, "edit-position").get_attribute("value") == "W:a1,d1,g1 B:a7,d7,f6 b"
    assert text(driver, "edit-formats") == f"FEN: {formats['fen']}\nMalom: {formats['malom']}"
    # Editing: a black stone on d6, then taken away again.
    driver.find_element(By.CSS_SELECTOR, "input[name=tool][value=b]").click()
    click_point(driver, "edit-board", "d6")
    idle(driver)
    assert driver.find_element(By.ID, "edit-position").get_attribute("value") == "W:a1,d1,g1 B:a7,d6,d7,f6 b"
    driver.find_element(By.CSS_SELECTOR, "input[name=tool][value='-']").click()
    click_point(driver, "edit-board", "d6")
    idle(driver)
    driver.find_element(By.ID, "edit-query").click()
    idle(driver)
    position = parse_position("W:a1,d1,g1 B:a7,d7,f6 b", FOUR)
    assert text(driver, "query-summary").startswith(f"W:a1,d1,g1 B:a7,d7,f6 b: {database.probe(position)} for Black")
    rows = driver.find_elements(By.CSS_SELECTOR, "#query-list tr")
    assert [r.get_attribute("data-move") for r in rows] == [str(mp.move) for mp in database.probe_moves(position)]
    assert marks(driver, "edit-board") == expected_marks(database, position, placing=False)
    # Play from here, as Black: the hints colour Black's stones, then the moves of f6.
    driver.find_element(By.ID, "tab-play").click()
    Select(driver.find_element(By.ID, "colour")).select_by_value("b")
    driver.find_element(By.ID, "tab-position").click()
    driver.find_element(By.ID, "edit-play").click()
    idle(driver, 0)
    assert driver.find_element(By.ID, "board").get_attribute("data-position") == "W:a1,d1,g1 B:a7,d7,f6 b"
    assert marks(driver) == expected_marks(database, position, placing=False)
    click_point(driver, "board", "f6")
    colours = marks(driver)
    for mp in database.probe_moves(position):
        if POINT_NAMES[mp.move.origin] == "f6" and mp.move.target != POINT_NAMES.index("g7"):
            assert colours[POINT_NAMES[mp.move.target]] == VALUE_COLOURS[mp.value]
    assert colours["g7"] == VALUE_COLOURS["win"]
    if os.environ.get("MUEHLE_SCREENSHOT"):
        # The picture in the README: the stone on f6 chosen, its moves coloured by value.
        driver.find_element(By.CSS_SELECTOR, "#panel-play .columns").screenshot(os.environ["MUEHLE_SCREENSHOT"])
    driver.find_element(By.ID, "tab-position").click()
    # A bad position is refused with the command line's message.
    field.clear()
    field.send_keys("W:a1,d4 B: w")
    driver.find_element(By.ID, "edit-set").click()
    idle(driver)
    assert text(driver, "edit-message") == "unknown point 'd4' (points are a1..g7 on the board's lines)"


@pytest.fixture(scope="module")
def dice_server(db4, tmp_path_factory):
    """The page on a copy of the 4-stone folder with dice mill's tables (triple) built."""
    from solver import dice_tables

    root = tmp_path_factory.mktemp("dice-web")
    shutil.copytree(db4, root, dirs_exist_ok=True)
    dice_tables.build(root, FOUR)
    with serving(create_app(root, FOUR)) as (base, _):
        yield base + "/", root


def test_dice_mill_in_the_browser(dice_server, browser):
    from solver import dice_tables
    from solver.dice import replacements, turn_throw

    base, root = dice_server
    tables = dice_tables.DiceTables(root, FOUR)
    driver = browser
    driver.get(base + "?seed=3")            # the throws' seed: 3
    idle(driver, 0)
    Select(driver.find_element(By.ID, "level")).select_by_value("perfect")
    Select(driver.find_element(By.ID, "colour")).select_by_value("w")
    Select(driver.find_element(By.ID, "dice")).select_by_value("triple")
    idle(driver, 0)
    ply, replaced = 0, False
    while True:
        position = parse_position(driver.find_element(By.ID, "board").get_attribute("data-position"), FOUR)
        if not position.in_placement or text(driver, "result"):
            break
        t = turn_throw(3, ply)
        shown = text(driver, "throw")
        assert shown.startswith(f"White throws {' '.join(map(str, t.dice))}: "), shown
        assert ("no power" in shown) == (not t.powered)
        # the hints: the tables' expected results, best first, in percent
        rows = driver.find_elements(By.CSS_SELECTOR, "#hint-list tr")
        best = tables.probe_moves(position, t.powered)
        assert [r.get_attribute("data-move") for r in rows] == [str(m.move) for m in best]
        assert rows[0].text.split(" ", 1)[1].startswith(f"win {100 * best[0].value.win:.2f}%")
        assert text(driver, "hint-summary").startswith("Before this throw: win ")
        # a replacement where the throw allows one (clicked on the enemy stone), else the best placement
        swaps = replacements(position, FOUR) if t.powered else []
        move = swaps[0] if swaps else best[0].move
        replaced |= bool(swaps)
        click_point(driver, "board", POINT_NAMES[move.target])
        if move.take is not None and len([m for m in best if m.move.target == move.target]) > 1:
            click_point(driver, "board", POINT_NAMES[move.take])
        idle(driver)
        if text(driver, "result"):
            break
        ply += 2
        assert driver.find_element(By.ID, "board").get_attribute("data-ply") == str(ply)
        reply = text(driver, "message")
        assert "Black (computer, perfect) plays" in reply
    # every stone placed: the game goes on without dice
    if not text(driver, "result"):
        assert text(driver, "throw").startswith("Dice mill (triple): every stone is placed")
        assert "moving" in text(driver, "status")
    # the analysis panel: a row for each placement, its throw as in the record, the
    # expected results and the mark; a click draws the board after it
    from solver.dice import read_dice_record
    driver.find_element(By.ID, "to-analysis").click()
    WebDriverWait(driver, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr.placement"))
    game, _ = read_dice_record(driver.find_element(By.ID, "record").get_attribute("value"), FOUR)
    rows = driver.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr.placement")
    cells = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert [c[2] for c in cells] == [f"[{'-'.join(map(str, t.dice))}] {m}" for m, t in zip(game.moves, game.throws)]
    assert all(c[0] == f"p{i + 1}" and c[3].startswith("win ") and c[4].startswith("win ") for i, c in enumerate(cells))
    rows[1].click()
    WebDriverWait(driver, 30).until(
        lambda d: d.find_element(By.ID, "analysis-board").get_attribute("data-placement") == "2")
    after = game.positions[2]
    for colour, stones in (("white", after.white), ("black", after.black)):
        shown = driver.find_elements(By.CSS_SELECTOR, f"#analysis-board circle.stone.{colour}")
        assert len(shown) == stones.bit_count()


@pytest.fixture(scope="module")
def ceylon_server(db4, tmp_path_factory):
    """The page on a copy of the 4-stone folder with Ceylonese mill's tables (Parker's
    reading) built."""
    from solver import ceylonese_tables

    root = tmp_path_factory.mktemp("ceylon-web")
    shutil.copytree(db4, root, dirs_exist_ok=True)
    ceylonese_tables.build(root, FOUR, jobs=1)
    with serving(create_app(root, FOUR)) as (base, _):
        yield base + "/", root


def play_from(driver, start: str) -> None:
    """A new game from ``start``: typed into the position editor, then *Play from here*."""
    driver.find_element(By.ID, "tab-position").click()
    field = driver.find_element(By.ID, "edit-position")
    field.clear()
    field.send_keys(start)
    driver.find_element(By.ID, "edit-set").click()
    idle(driver)
    driver.find_element(By.ID, "edit-play").click()
    idle(driver, 0)


def test_ceylonese_mill_in_the_browser(ceylon_server, browser):
    """Ceylonese mill picked in the menu: the hints are its tables' values in turns, a
    mill while placing lets the human place again (the computer waits), the computer's
    turn may hold several moves, and undo takes back the human's whole turn."""
    from solver.ceylonese import CeylonGame, CeylonRule
    from solver.ceylonese_tables import FileTables
    from solver.cli.games import turns

    base, root = ceylon_server
    tables = FileTables(root, FOUR)
    driver = browser
    driver.get(base + "?seed=4")
    idle(driver, 0)
    Select(driver.find_element(By.ID, "level")).select_by_value("perfect")
    Select(driver.find_element(By.ID, "colour")).select_by_value("w")
    Select(driver.find_element(By.ID, "ceylonese")).select_by_value("ceylonese")
    idle(driver, 0)
    assert text(driver, "variant").startswith("Ceylonese mill (ceylonese): a mill while placing takes nothing")
    empty = parse_position("W: B: w 4 4", FOUR)
    rows = driver.find_elements(By.CSS_SELECTOR, "#hint-list tr")
    assert [r.get_attribute("data-move") for r in rows] == [str(m.move) for m in tables.probe_moves(empty)]
    assert text(driver, "hint-summary").startswith(f"This position: {tables.value(empty).wdl} for White")

    # From where White closes a7-d7-g7 (set in the position editor, played from there)
    start = "W:a7,d7 B:b2,b4 w 2 2"
    play_from(driver, start)
    game = CeylonGame(FOUR, CeylonRule(), parse_position(start, FOUR))
    probes = tables.probe_moves(game.position)
    g7 = next(m for m in probes if str(m.move) == "g7")
    assert g7.again
    # the board's marks: each point coloured by its best placement's value, its turns written
    assert marks(driver)["g7"] == VALUE_COLOURS[g7.value.wdl]
    hint = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#hint-list tr") if r.get_attribute("data-move") == "g7")
    assert hint.text.split(" ", 1)[1] == f"{turns(g7.value)}, moves again"
    click_point(driver, "board", "g7")
    idle(driver, 1)                          # White places again: the computer waits
    game.play("g7")
    assert "White places a stone again" in text(driver, "status") and "White moves again." in text(driver, "variant")
    second = tables.probe_moves(game.position)[0].move
    click_point(driver, "board", POINT_NAMES[second.target])
    idle(driver)
    game.play(second)
    # the computer's turn: its tables' best move, then another after each of its mills
    played = int(driver.find_element(By.ID, "board").get_attribute("data-ply"))
    assert played >= 3 and "Black (computer, perfect) plays" in text(driver, "message")
    shown = driver.find_element(By.ID, "board").get_attribute("data-position")
    while len(game.moves) < played:
        game.play(tables.probe_moves(game.position)[0].move)
    assert shown == str(game.position) and (game.position.turn == "w" or text(driver, "result"))
    # undo: back over the computer's moves and both of White's
    driver.find_element(By.ID, "undo").click()
    idle(driver, 0)
    assert text(driver, "message") == f"Taken back: {' '.join(str(m) for m in game.moves)}"
    assert driver.find_element(By.ID, "board").get_attribute("data-position") == start

    # The human as Black, where White's best reply closes a mill (f4-b4xd2): the computer
    # moves again, each move its tables' best, until Black is to move or the game ends.
    start = "W:a4,c4,f4 B:a1,d1,f2,g1 b"
    Select(driver.find_element(By.ID, "colour")).select_by_value("b")
    play_from(driver, start)
    game = CeylonGame(FOUR, CeylonRule(), parse_position(start, FOUR))
    game.play("f2-d2")
    while game.outcome() is None and game.position.turn == "w":
        game.play(tables.probe_moves(game.position)[0].move)
    assert [str(m) for m in game.moves[1:3]] == ["f4-b4xd2", "a4-b6"]
    click_point(driver, "board", "f2")
    click_point(driver, "board", "d2")
    idle(driver, len(game.moves))
    assert driver.find_element(By.ID, "board").get_attribute("data-position") == str(game.position)
    assert text(driver, "message") == f"White (computer, perfect) plays {game.moves[-1]}"
    moves = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#move-list li")]
    assert moves == [str(m) for m in game.moves]

    # Analyse this game: its record read back, each move's values in turns, the board
    # after a move drawn by Ceylonese mill's rules
    driver.find_element(By.ID, "to-analysis").click()
    WebDriverWait(driver, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")) == len(game.moves))
    idle(driver)
    assert driver.find_element(By.ID, "record").get_attribute("value") == game.record()
    assert text(driver, "analysis-summary").startswith("Ceylonese mill (ceylonese), values in turns.")
    rows = driver.find_elements(By.CSS_SELECTOR, "#analysis-table tbody tr")
    cells = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert [c[2] for c in cells] == [str(m) for m in game.moves]
    assert [c[1] for c in cells] == ["Black"] + ["White"] * (len(game.moves) - 1)
    assert cells[1][5].endswith("(moves again)")            # f4-b4xd2: a mill, White again
    before = tables.value(game.positions[1])
    assert cells[1][3] == turns(before)
    rows[1].click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "analysis-board").get_attribute("data-ply") == "2")
    shown = driver.find_elements(By.CSS_SELECTOR, "#analysis-board circle.stone.black")
    assert len(shown) == game.positions[2].black.bit_count()


@pytest.fixture(scope="module")
def lasker_server(tmp_path_factory):
    """The page on a folder of Lasker Morris of four stones a side (place or move),
    plain tables and those of the 50-ply rule."""
    from solver.build import build
    from solver import dtz

    rules = Rules.from_name("lasker-s4")
    root = tmp_path_factory.mktemp("lasker-web")
    build(root, rules, phase="all", progress=False)
    dtz.build(root, rules, progress=False)
    with serving(create_app(root, rules)) as (base, _):
        yield base + "/", root, rules


def test_mixed_placement_hints_count_to_the_moving_phase(lasker_server, browser):
    """Under mixed placement the hints while placing are the values under the rule with
    the plies to the moving phase (the list and the summary say so, not "mill"), in the
    perfect player's order."""
    base, root, rules = lasker_server
    driver = browser
    driver.get(base)
    idle(driver, 0)
    start = "W:d2 B:c3,d5 w 2 1"
    play_from(driver, start)
    with open_database(root, rules) as db:
        ruled = db.probe_rule_moves(parse_position(start, rules))
        plies = db.placing_plies(start)
    assert text(driver, "hint-summary").endswith(f"win, moving phase in {plies}."), text(driver, "hint-summary")
    rows = driver.find_elements(By.CSS_SELECTOR, "#hint-list tr")
    assert [r.get_attribute("data-move") for r in rows] == [str(mp.move) for mp in ruled]
    first = rows[0].find_elements(By.TAG_NAME, "td")[1].text
    assert first.startswith(f"win, moving phase in {ruled[0].placing_plies} (win in {ruled[0].plain_plies}")
