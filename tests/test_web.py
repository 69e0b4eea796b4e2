"""The JSON API of ``muehle serve`` (Starlette's TestClient, no network) and the SVG board."""

from __future__ import annotations

import json
import warnings
import xml.etree.ElementTree as ET

import pytest

from solver.analysis import analyze_object, moves_object, query_object
from solver.board import POINT_NAMES
from solver.game import Game
from solver.position import parse_move, parse_position
from solver.probe import open_database
from solver.rules import Rules
from solver.svg import VALUE_COLOURS, board_svg

pytest.importorskip("starlette", reason="starlette is not installed (pip install -e '.[test]')")
pytest.importorskip("httpx", reason="httpx is not installed (pip install -e '.[test]')")
with warnings.catch_warnings():
    # Recent Starlette prefers another HTTP client for its TestClient; httpx still works.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from solver.web.app import MAX_BODY, MAX_MOVES, create_app  # noqa: E402
from liveserver import serving  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FOUR = Rules(stones=4)
MOVING = "W:a1,d1,g1 B:a7,d7,f6 b"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def client(db4):
    with TestClient(create_app(db4, FOUR)) as c:
        yield c


@pytest.fixture(scope="module")
def database(db4):
    with open_database(db4, FOUR) as db:
        yield db


def test_query_is_the_cli_object(client, database):
    pos = parse_position(MOVING, FOUR)
    expected = query_object(database, pos)
    for response in (client.get("/api/query", params={"position": MOVING}),
                     client.post("/api/query", json={"position": MOVING, "rules": "standard-s4"})):
        assert response.status_code == 200
        assert response.json() == expected
    assert expected["value"] == "win" and expected["plies"] == 1
    assert expected["moves"][0] == {"move": "f6-g7xa1", "value": "win", "plies": 1}


def test_placement_query_and_best_move(client, database):
    pos = parse_position("W:d2 B:f4 w 3 3", FOUR)
    answer = client.get("/api/query", params={"position": "W:d2 B:f4 w 3 3"}).json()
    assert answer == query_object(database, pos)
    assert answer["plies"] is None and {m["value"] for m in answer["moves"]} <= {"win", "draw", "loss"}
    best = client.get("/api/best-move", params={"position": MOVING}).json()
    assert best == {"position": MOVING, "move": "f6-g7xa1", "value": "win", "plies": 1}
    seeded = client.post("/api/best-move", json={"position": MOVING, "seed": 3}).json()
    assert seeded["move"] in {"f6-g7xa1", "f6-g7xd1", "f6-g7xg1"}
    over = client.get("/api/best-move", params={"position": "W:a1,d1 B:a7,d7,g7 w"}).json()
    assert over["move"] is None and over["value"] == "loss"


def test_moves_is_the_cli_object(client):
    answer = client.get("/api/moves", params={"position": "startpos", "after": "d2 f4"}).json()
    game = Game(None, FOUR)
    game.play("d2"), game.play("f4")
    assert answer == moves_object(game)
    assert answer["position"] == "W:d2 B:f4 w 3 3" and answer["game_over"] is None
    listed = client.post("/api/moves", json={"position": "startpos", "after": ["d2", "f4"]}).json()
    assert listed == answer


def test_analyze_marks_a_blunder(client, database):
    record = "rules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6 w\ng4-g7\n"
    answer = client.post("/api/analyze", json={"record": record}).json()
    expected, problems = analyze_object(database, Game.from_record(record))
    assert answer == dict(expected, warnings=problems)
    assert answer["moves"][0]["blunder"] == "lost the win"
    # The record as it is, like curl --data-binary @game.txt.
    raw = client.post("/api/analyze", content=record, headers={"content-type": "text/plain"})
    assert raw.json() == answer


def test_analyze_takes_the_rules_of_the_parameter_the_record_or_the_server(client, database):
    """A record without a rules: header is a game of the server's rules (here 4 stones),
    as the README says; a header or the parameter names other rules."""
    moves = "start: W:a1,d1,g4,b4 B:a7,d7,f6 w\ng4-g7\n"
    plain = client.post("/api/analyze", json={"record": moves})
    assert plain.status_code == 200 and plain.json()["rules"] == "standard-s4"
    named = client.post("/api/analyze", json={"record": "rules: standard-s4\n" + moves}).json()
    assert named == plain.json()
    other = client.post("/api/analyze", json={"record": moves, "rules": "standard"})
    assert other.status_code == 200 and other.json()["rules"] == "standard"
    clash = client.post("/api/analyze", json={"record": "rules: standard\n" + moves, "rules": "standard-s4"})
    assert clash.status_code == 400 and "standard" in clash.json()["error"]
    bad = client.post("/api/analyze", json={"record": moves, "rules": 0})
    assert bad.status_code == 400 and bad.json()["error"].startswith("rules must be a rule set name")
    # a header is read as Game.from_record reads it: lines ended by CR alone, a header
    # indented by a no-break space, a byte-order mark first (the server's rules are
    # another set than the record's there, so a header missed would be a clash)
    standard = "start: W:a1,d1,g4,b4,b2 B:a7,d7,f6,b6 w\ng4-g7\n"
    expected = client.post("/api/analyze", json={"record": "rules: standard-s5\n" + standard}).json()
    assert expected["rules"] == "standard-s5"
    for record in ("# a game\rrules: standard-s5\r" + standard.replace("\n", "\r"),
                   "\u00a0rules: standard-s5\n" + standard, "\ufeffrules: standard-s5\n" + standard):
        reply = client.post("/api/analyze", json={"record": record})
        assert reply.status_code == 200 and reply.json() == expected, (record, reply.json())


@pytest.mark.parametrize("path, params, status, message", [
    ("/api/query", {"position": "W:a1,d4 B: w"}, 400, "unknown point 'd4' (points are a1..g7 on the board's lines)"),
    ("/api/query", {"position": "W:a1 B:a1 w"}, 400, "point a1 given to both colours"),
    ("/api/query", {}, 400, "give a position"),
    ("/api/query", {"position": MOVING, "rules": "chess"}, 400, "unknown rule set 'chess'"),
    ("/api/query", {"position": "W:a1,b2,c3,d2,e3 B:a7 w"}, 400, "too many stones for White"),
    ("/api/moves", {"position": "startpos", "after": "d2 d2"}, 400, "illegal move d2"),
    ("/api/moves", {"position": "startpos", "after": "q9"}, 400, "cannot parse move 'q9'"),
    ("/api/query", {"position": MOVING, "rules": "standard"}, 404, "pair 3-3 is not built"),
])
def test_bad_input_gets_the_cli_message(client, path, params, status, message):
    response = client.get(path, params=params)
    assert response.status_code == status
    error = response.json()["error"]
    assert error.startswith(message) and "\n" not in error


def test_same_message_as_the_cli(client, capsys):
    cli = pytest.importorskip("solver.cli")
    from click.testing import CliRunner
    result = CliRunner().invoke(cli.main, ["moves", "W:a1,d4 B: w"])
    line = result.output.strip().splitlines()[-1]
    assert line == "muehle: error: " + client.get("/api/moves", params={"position": "W:a1,d4 B: w"}).json()["error"]


def test_oversized_and_malformed_requests_are_refused(client):
    big = client.post("/api/analyze", content=b"{" + b" " * (MAX_BODY + 10) + b"}",
                      headers={"content-type": "application/json"})
    assert big.status_code == 413 and "too large" in big.json()["error"]
    long_record = "rules: standard-s4\n" + "d2 f4\n" * (MAX_MOVES // 2 + 1)
    assert client.post("/api/analyze", json={"record": long_record}).status_code == 413
    many = client.post("/api/game", json={"moves": ["d2"] * (MAX_MOVES + 1)})
    assert many.status_code == 413
    assert client.post("/api/query", content=b"not json", headers={"content-type": "application/json"}).status_code == 400
    assert client.post("/api/query", json=[1, 2]).json()["error"] == "request body must be a JSON object"
    assert client.post("/api/query", json={"position": 5}).json()["error"] == "position must be a string"
    assert client.get("/api/analyze").status_code == 405
    assert client.get("/api/nothing").json()["error"].startswith("Not Found")
    bad_record = client.post("/api/analyze", json={"record": "d2 d2"})
    assert bad_record.status_code == 400 and bad_record.json()["error"].startswith("line 1:")


@pytest.mark.parametrize("body", [
    "[" * 100_000 + "]" * 100_000,                                    # 200 KB, under MAX_BODY
    '{"position": ' + "[" * 50_000 + "]" * 50_000 + "}",
], ids=["array", "position"])
def test_deeply_nested_json_is_refused(client, body):
    # json.loads recurses per level and raises RecursionError: a 400, not a 500 (the
    # client raises server errors, so a traceback would fail here).
    assert len(body) < MAX_BODY
    for path in ("/api/query", "/api/analyze", "/api/game"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400
        assert response.json() == {"error": "request body is not valid JSON"}
    # Nesting json.loads can read is refused by the parameter it was given as.
    deep = "[" * 500 + "]" * 500
    for name, message in (("position", "position must be a string"), ("seed", "seed must be an integer")):
        response = client.post("/api/best-move", content=f'{{"position": "{MOVING}", "{name}": {deep}}}',
                               headers={"content-type": "application/json"})
        assert response.status_code == 400 and response.json()["error"] == message


def test_moves_and_board_default_to_startpos(client):
    # README: position (default startpos) for /api/moves and /api/board.svg; query and
    # best-move have no default.
    after = client.get("/api/moves", params={"position": "startpos", "after": "d2 f4"}).json()
    assert client.get("/api/moves", params={"after": "d2 f4"}).json() == after
    assert client.post("/api/moves", json={"after": ["d2", "f4"]}).json() == after
    start = client.post("/api/moves", json={})
    assert start.status_code == 200 and start.json() == moves_object(Game(None, FOUR))
    assert client.get("/api/moves", params={"position": " "}).json() == start.json()
    board = client.get("/api/board.svg")
    assert board.status_code == 200
    assert board.text == client.get("/api/board.svg", params={"position": "startpos"}).text
    for path in ("/api/query", "/api/best-move"):
        response = client.post(path, json={})
        assert response.status_code == 400 and response.json()["error"].startswith("give a position")


@pytest.mark.parametrize("seed", ['"x"', "1e400", "1.5", "3.0", "true", "[3]", '{"n": 3}', '"3.0"', '" 3"',
                                  '"0x10"', '"\u00b2"', '"1' + "0" * 5000 + '"'], ids=lambda seed: seed[:8])
def test_seed_must_be_an_integer(client, seed):
    for path, body in (("/api/best-move", f'{{"position": "{MOVING}", "seed": {seed}}}'),
                       ("/api/play", f'{{"level": "easy", "seed": {seed}}}')):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, (path, seed)
        assert response.json() == {"error": "seed must be an integer"}
    query = client.get("/api/best-move", params={"position": MOVING, "seed": json.loads(seed)
                                                 if seed.startswith('"') else seed})
    assert query.status_code == 400 and query.json()["error"] == "seed must be an integer"


def test_seed_is_the_cli_seed(client, db4):
    # An integer, or its digits in a query string, seeds as muehle best-move --seed does.
    from click.testing import CliRunner
    from solver.cli import main
    runner = CliRunner()
    chosen = set()
    for seed in (0, 1, 2, 5, -3):
        cli = runner.invoke(main, ["best-move", "--json", "--db", str(db4), "--stones", "4",
                                   "--seed", str(seed), MOVING])
        assert cli.exit_code == 0, cli.output
        assert cli.output.strip() == client.post("/api/best-move", json={"position": MOVING, "seed": seed}).text
        assert cli.output.strip() == client.get("/api/best-move", params={"position": MOVING, "seed": str(seed)}).text
        chosen.add(json.loads(cli.output)["move"])
    assert len(chosen) > 1                  # the seeds do choose among the equal moves
    easy = [client.post("/api/play", json={"level": "easy", "seed": seed, "moves": ["d2"]}).json()["computer_move"]
            for seed in (7, "7", "007", 7)]
    assert len(set(easy)) == 1


def test_huge_numbers_are_refused(client):
    # A JSON integer too large for a float is a bad parameter, not an OverflowError.
    huge = "1" + "0" * 400
    for path, name in (("/api/play", "think"), ("/api/board.svg", "size")):
        response = client.post(path, content=f'{{"{name}": {huge}}}', headers={"content-type": "application/json"})
        assert response.status_code == 400 and response.json()["error"] == f"{name} must be a number"
        # true is no number either (float(True) would make it one second)
        response = client.post(path, json={name: True})
        assert response.status_code == 400 and response.json()["error"] == f"{name} must be a number"


def test_every_parameter_of_play_is_checked_before_the_computer_thinks(client, monkeypatch):
    # The thinking may take minutes (perfect without placement files): a bad parameter
    # is said at once, not after it.
    import solver.web.app as web

    def no_thinking(*args, **kwargs):
        raise AssertionError("the computer thought before the parameters were checked")
    monkeypatch.setattr(web, "make_player", no_thinking)
    for bad, message in (({"hints": "maybe"}, "hints must be true or false"),
                         ({"think": 99}, "think must be between"), ({"seed": "x"}, "seed must be an integer"),
                         ({"level": "god"}, "unknown level 'god'")):
        response = client.post("/api/play", json={"moves": ["d2"], "level": "hard", **bad})
        assert response.status_code == 400 and response.json()["error"].startswith(message), bad


def test_a_misspelt_parameter_is_refused_not_passed_over(client):
    # A parameter the endpoint does not read would leave the answer that of another
    # request: positon= gave "give a position", but seeed= an unseeded move and
    # rule= the server's rule set, each answered as if right.
    for path, params, unknown in (("/api/best-move", {"position": "startpos", "seeed": 3}, "seeed"),
                                  ("/api/query", {"position": MOVING, "rule": "lasker"}, "rule"),
                                  ("/api/moves", {"position": MOVING, "line": True}, "line"),
                                  ("/api/play", {"moves": [], "levle": "easy"}, "levle"),
                                  ("/api/board.svg", {"position": MOVING, "hints": False}, "hints")):
        response = client.post(path, json=params)
        assert response.status_code == 400, (path, response.text)
        error = response.json()["error"]
        assert error.startswith(f"unknown parameter {unknown!r} ({path} takes rules, "), error
    # /api/rules takes none; a plain game's state no seed (its dice's)
    assert client.get("/api/rules?rules=bogus").json()["error"] == "unknown parameter 'rules' (/api/rules takes none)"
    seeded = client.post("/api/game", json={"rules": "standard-s4", "moves": [], "seed": 5})
    assert seeded.status_code == 400 and seeded.json()["error"] == "seed: the seed of dice mill's throws; give dice too"
    # in the query string too; the parameters the page sends are taken
    assert client.get("/api/moves?position=startpos&positon=x").status_code == 400
    assert client.post("/api/game", json={"rules": "standard-s4", "start": "startpos", "moves": [],
                                          "hints": False, "dice": None, "ceylonese": None}).status_code == 200


def test_an_error_that_echoes_a_huge_input_stays_a_short_line(client):
    for path, body in (("/api/query", {"position": "a" * 200_000}),
                       ("/api/moves", {"position": MOVING, "after": ["x" * 200_000]}),
                       ("/api/game", {"moves": ["d2", "d2" * 100_000]})):
        response = client.post(path, json=body)
        error = response.json()["error"]
        assert response.status_code == 400 and len(error) <= 300 and "\n" not in error, (path, error[:80])
        assert "…" in error


def test_no_file_outside_the_database_folder(client, db4, tmp_path):
    # Rule names are parsed, never used as paths; static files stay in their folder.
    for name in ("../standard-s4", "/etc", "standard-s4/../../x", "..", "standard-s4\x00"):
        response = client.get("/api/query", params={"position": MOVING, "rules": name})
        assert response.status_code == 400 and "unknown rule set" in response.json()["error"]
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e/app.py").status_code == 404
    # A record's header cannot name a file either: it is a rule set name too.
    answer = client.post("/api/analyze", json={"record": "rules: ../../etc\nd2\n"})
    assert answer.status_code == 400


def test_rule_sets_say_what_is_missing(client, db4):
    info = client.get("/api/rules").json()
    sets = {r["name"]: r for r in info["rule_sets"]}
    assert info["default"] == "standard-s4" and sets["standard-s4"]["complete"]
    assert sets["standard-s4"]["build_command"] is None
    standard = sets["standard"]
    assert standard["built"] == 0 and standard["pairs"] == 28 and not standard["complete"]
    assert standard["build_command"] == f"muehle build --db {db4}"
    assert standard["status"].startswith("not built")
    assert info["value_colours"] == VALUE_COLOURS
    assert set(info["levels"]) == {"easy", "medium", "hard", "perfect", "ultra"}


def test_game_state_and_computer_reply(client, database):
    state = client.post("/api/game", json={"moves": ["d2", "f4"]}).json()
    assert state["played"] == ["d2", "f4"] and state["position"] == "W:d2 B:f4 w 3 3"
    assert state["phase"] == "placement (White places a stone)"
    assert state["hints"] == query_object(database, parse_position(state["position"], FOUR))
    root = ET.fromstring(state["svg"])
    assert len(root.findall(f".//{SVG}circle[@class='stone white']")) == 1
    for level in ("easy", "medium", "hard", "perfect"):
        reply = client.post("/api/play", json={"moves": ["d2", "f4"], "level": level, "seed": 1,
                                               "think": 0.1}).json()
        assert reply["played"][:2] == ["d2", "f4"] and len(reply["played"]) == 3
        assert reply["computer_move"] == reply["played"][2]
        assert reply["computer_move"] in state["moves"]
    # Perfect plays a best move of the database.
    pos = parse_position(MOVING, FOUR)
    reply = client.post("/api/play", json={"start": MOVING, "level": "perfect"}).json()
    assert reply["computer_move"] in {"f6-g7xa1", "f6-g7xd1", "f6-g7xg1"}
    assert reply["result"] == "Black wins (fewer than three stones)" and reply["game_over"] == "loss"
    assert reply["winner"] == "b" and reply["hints"] is None
    assert client.post("/api/play", json={"start": MOVING, "moves": [reply["computer_move"]]}).status_code == 400
    assert client.post("/api/play", json={"level": "grandmaster"}).json()["error"].startswith("unknown level")
    del pos


def test_game_announces_the_draw_rules(client):
    # Shuffle back and forth: the third occurrence of a position is a draw.
    start = "W:a1,d1,g1,d2 B:a7,d7,g7,d6 w"
    shuffle = ["d2-b2", "d6-b6", "b2-d2", "b6-d6"] * 2
    state = client.post("/api/game", json={"start": start, "moves": shuffle}).json()
    assert state["repetitions"] == 3 and state["result"] == "draw (threefold repetition)"
    assert state["game_over"] == "draw" and state["moves"] == []
    assert state["quiet_plies"] == 8 and state["quiet_limit"] == 50
    # One more move is refused with the game's reason.
    more = client.post("/api/game", json={"start": start, "moves": shuffle + ["d2-b2"]})
    assert more.status_code == 400 and "the game is over" in more.json()["error"]


def test_game_cache_extends_and_forks(client):
    a = client.post("/api/game", json={"moves": "d2 f4 d3", "hints": False}).json()
    b = client.post("/api/game", json={"moves": "d2 f4 d3 b4", "hints": False}).json()
    c = client.post("/api/game", json={"moves": "d2 f4 a7", "hints": False}).json()
    assert a["position"] == "W:d2,d3 B:f4 b 2 3"
    assert b["position"] == "W:d2,d3 B:b4,f4 w 2 2"
    assert c["position"] == "W:a7,d2 B:f4 b 2 3"
    assert client.post("/api/game", json={"moves": "d2 f4 d3", "hints": False}).json() == a


def test_board_svg_endpoint(client):
    response = client.get("/api/board.svg", params={"position": MOVING, "last": "g4-g1",
                                                    "marks": "g7:win d5:#123456", "arrows": "f6-g7"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(response.text)
    assert root.find(f".//{SVG}circle[@id='mark-g7']").get("stroke") == VALUE_COLOURS["win"]
    assert root.find(f".//{SVG}circle[@id='mark-d5']").get("stroke") == "#123456"
    assert client.get("/api/board.svg", params={"marks": "g7:url(x)"}).status_code == 400
    for move in ("a1-a4:win", "a1xd7:win", "d2:win:x"):       # a mark is on a point, not a move
        bad = client.get("/api/board.svg", params={"marks": move})
        assert bad.status_code == 400 and "error" in bad.json(), move
    # a last move is one that could have led to the position: its target holds a stone,
    # its origin and what it took are empty (any move was drawn)
    for last, why in (("a1-a4", "a4 is empty"), ("d7-a7", "d7 holds a stone"), ("a4-a7xf6", "f6 holds a stone")):
        bad = client.get("/api/board.svg", params={"position": MOVING, "last": last})
        assert bad.status_code == 400, last
        assert bad.json()["error"].endswith(f"cannot have led to this position: {why}"), bad.json()


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\"" in page.text
    assert "http" not in page.text.split("<body")[0].replace("http-equiv", ""), "no CDN"
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


# --- the SVG board ---------------------------------------------------------------------

def test_svg_board_draws_the_position():
    pos = parse_position("W:a1,d2,g7 B:a4,b6 w 2 3")
    svg = board_svg(pos, last_move=parse_move("a7-a4xd1"), marks={POINT_NAMES.index("d5"): "#2e8b3d"},
                    labels={POINT_NAMES.index("d5"): "7"}, arrows=[parse_move("a1-d1")])
    root = ET.fromstring(svg)                      # well-formed XML
    stones = {c.get("class"): 0 for c in root.iter(f"{SVG}circle")}
    for c in root.iter(f"{SVG}circle"):
        stones[c.get("class")] += 1
    assert stones["stone white"] == 3 and stones["stone black"] == 2
    assert stones["hand white"] == 2 and stones["hand black"] == 3
    assert stones["point"] == 24 and stones["mark"] == 24 and stones["spot"] == 19
    assert stones["last-to"] == 1 and stones["last-from"] == 1
    assert root.find(f".//{SVG}path[@class='taken']") is not None
    assert len(root.findall(f".//{SVG}line[@class='arrow']")) == 1
    assert root.find(f".//{SVG}text[@id='label-d5']").text == "7"
    assert sorted(c.get("data-point") for c in root.iter(f"{SVG}circle") if c.get("data-point")) == sorted(POINT_NAMES)
    # Each stone sits where its point is: a1 bottom left, g7 top right.
    white = {(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{SVG}circle") if c.get("class") == "stone white"}
    hit = {c.get("data-point"): (float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{SVG}circle") if c.get("data-point")}
    assert white == {hit["a1"], hit["d2"], hit["g7"]}
    assert hit["a1"][0] < hit["g1"][0] and hit["a1"][1] > hit["a7"][1]


def test_position_repr_svg_for_notebooks():
    pos = parse_position(MOVING)
    assert pos._repr_svg_() == board_svg(pos)
    ET.fromstring(pos._repr_svg_())
    assert "hand" not in pos._repr_svg_()           # nothing in hand, no hand rows
    assert 'class="hand white"' in parse_position("startpos")._repr_svg_()


def test_json_keys_unchanged():
    # The CLI documents these keys (README); the API returns the same objects.
    game = Game(None, FOUR)
    assert list(moves_object(game)) == ["position", "side", "moves", "game_over"]
    assert json.loads(json.dumps(moves_object(game)))["game_over"] is None


# --- the command line: the same objects, show --svg, best-move, serve --------------------

def test_cli_prints_the_api_text(client, db4):
    from click.testing import CliRunner
    from solver.cli import main
    runner = CliRunner()
    db = ["--db", str(db4)]
    for args, path, params in (
            (["query", "--json", MOVING] + db, "/api/query", {"position": MOVING}),
            (["best-move", "--json", MOVING] + db, "/api/best-move", {"position": MOVING}),
            (["moves", "--json", "startpos", "--after", "d2 f4"], "/api/moves",
             {"position": "startpos", "after": "d2 f4"})):
        result = runner.invoke(main, args + ["--stones", "4"])
        assert result.exit_code == 0, result.output
        assert result.output.strip() == client.get(path, params=params).text


def test_cli_best_move_and_show_svg(db4, tmp_path):
    from click.testing import CliRunner
    from solver.cli import main
    runner = CliRunner()
    result = runner.invoke(main, ["best-move", "--db", str(db4), "--stones", "4", MOVING])
    assert result.output.strip() == "f6-g7xa1 (win in 1 for Black)"
    over = runner.invoke(main, ["best-move", "--db", str(db4), "--stones", "4", "W:a1,d1 B:a7,d7,g7 w"])
    assert "no move, the game is over (loss for White)" in over.output
    target = tmp_path / "board.svg"
    shown = runner.invoke(main, ["show", "startpos", "--after", "d2 f4", "--svg", str(target)])
    assert shown.exit_code == 0 and "Phase:     placement (White places a stone)" in shown.output
    root = ET.fromstring(target.read_text())
    assert len(root.findall(f".//{SVG}circle[@class='stone white']")) == 1
    assert len(root.findall(f".//{SVG}circle[@class='last-to']")) == 1     # f4 marked
    bad = runner.invoke(main, ["show", "startpos", "--svg", str(tmp_path / "no" / "such" / "dir.svg")])
    assert bad.exit_code == 2 and bad.output.startswith("muehle: error:") and len(bad.output.splitlines()) == 1


def test_serve_starts_and_stops(db4):
    import signal
    import subprocess
    import sys
    import urllib.request
    import urllib.error
    from solver.cli import main
    from solver.web.app import SEARCH_SECONDS
    default, = [p.default for p in main.commands["serve"].params if p.name == "search_seconds"]
    assert default == SEARCH_SECONDS
    proc = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--db", str(db4), "--stones", "4",
                             "--port", "0", "--search-seconds", "1e-9"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("muehle: serving http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url + "api/rules", timeout=20) as response:
            assert json.load(response)["default"] == "standard-s4"
        with pytest.raises(urllib.error.HTTPError) as slow:      # the search's time is up
            urllib.request.urlopen(url + "api/query?position=startpos", timeout=20)
        assert slow.value.code == 503 and "1e-09 s, muehle serve --search-seconds" in slow.value.read().decode()
        # A second server on the same port: one line and exit status 2.
        port = url.rstrip("/").rsplit(":", 1)[1]
        second = subprocess.run([sys.executable, "-m", "solver", "serve", "--db", str(db4), "--port", port],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.strip() == f"muehle: error: cannot listen on 127.0.0.1:{port}: address already in use"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "Traceback" not in err


def test_the_web_layer_does_not_load_the_command_line():
    import subprocess
    import sys
    code = ("import sys, solver.web, solver.web.app, solver.analysis, solver.svg\n"
            "assert not [m for m in sys.modules if m.startswith('solver.cli')], 'cli loaded'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_play_without_databases(tmp_path):
    # No database folder: no hints and no queries (the CLI's message), but a game still
    # goes on, perfect playing by search and saying so.
    with TestClient(create_app(tmp_path / "none", FOUR)) as bare:
        query = bare.get("/api/query", params={"position": MOVING})
        assert query.status_code == 404 and query.json()["error"].startswith("database folder")
        state = bare.post("/api/game", json={"moves": ["d2"]}).json()
        assert state["hints"]["error"].startswith("database folder") and state["played"] == ["d2"]
        reply = bare.post("/api/play", json={"moves": ["d2"], "level": "perfect", "think": 0.05}).json()
        assert len(reply["played"]) == 2 and any("no database" in note for note in reply["notes"])
        sets = bare.get("/api/rules").json()["rule_sets"]
        assert sets[0]["name"] == "standard-s4" and sets[0]["status"].startswith("not built")


def test_a_long_request_leaves_the_page_and_the_shared_nothing_endpoints_answering(db4, monkeypatch):
    """A query that takes minutes (the opening search) runs in a worker thread: the page,
    /api/moves, /api/board.svg and /api/rules are answered meanwhile, also with more
    shared requests waiting than the thread pool has threads (a real server on a free
    port; the long query is a query held until the test lets it go)."""
    import threading
    import time
    import urllib.request
    pytest.importorskip("uvicorn")
    from solver.web import app as web_app
    release, entered = threading.Event(), threading.Event()
    real = web_app.query_object

    def held(db, pos, *line):
        entered.set()
        assert release.wait(60)
        return real(db, pos, *line)
    monkeypatch.setattr(web_app, "query_object", held)
    with serving(create_app(db4, FOUR)) as (base, _):
        answers = []

        def ask():
            with urllib.request.urlopen(f"{base}/api/query?position=startpos", timeout=120) as reply:
                answers.append(reply.read())
        waiting = [threading.Thread(target=ask) for _ in range(45)]     # anyio's pool: 40
        try:
            waiting[0].start()
            assert entered.wait(20)
            for thread in waiting[1:]:
                thread.start()
            time.sleep(0.5)
            for path in ("/", "/static/app.js", "/api/moves?position=startpos",
                         "/api/board.svg?position=startpos", "/api/rules"):
                start = time.monotonic()
                with urllib.request.urlopen(base + path, timeout=10) as reply:
                    assert reply.status == 200, path
                assert time.monotonic() - start < 5, path
            assert not answers                  # the queries are still held
        finally:
            release.set()
            for thread in waiting:
                thread.join(60)
        # every one of them answered, and answered the same (one held behind another
        # must not come back cut, empty or another request's)
        assert len(answers) == 45 and len(set(answers)) == 1
        assert json.loads(answers[0])["position"] == "W: B: w 4 4" and json.loads(answers[0])["value"] == "draw"


def test_requests_whose_clients_left_while_waiting_are_dropped(db4, monkeypatch):
    """Shared work runs one request at a time; one whose client went away while it waited
    its turn is not worked on (reloads of a page waiting for the opening search queued
    a search each), while one still waiting is answered."""
    import socket
    import threading
    import time
    import urllib.request
    pytest.importorskip("uvicorn")
    from solver.web import app as web_app
    release, entered = threading.Event(), threading.Event()
    real, calls = web_app.query_object, []

    def held(db, pos, *line):
        calls.append(pos)
        entered.set()
        assert release.wait(60)
        return real(db, pos, *line)
    monkeypatch.setattr(web_app, "query_object", held)
    with serving(create_app(db4, FOUR)) as (base, server):
        host, port = base.removeprefix("http://").split(":")
        answers = []

        def ask():
            with urllib.request.urlopen(f"{base}/api/query?position=startpos", timeout=60) as reply:
                answers.append(json.loads(reply.read()))
        first = threading.Thread(target=ask)
        first.start()
        assert entered.wait(20)
        leaving = [socket.create_connection((host, int(port))) for _ in range(3)]
        for sock in leaving:
            sock.sendall(b"GET /api/query?position=startpos HTTP/1.1\r\nHost: x\r\n\r\n")
        until = time.monotonic() + 20
        while len(server.server_state.tasks) < 4:       # the three wait their turn
            assert time.monotonic() < until
            time.sleep(0.01)
        for sock in leaving:
            sock.close()
        time.sleep(0.3)                                  # the server sees them go
        last = threading.Thread(target=ask)
        last.start()
        release.set()
        first.join(60)
        last.join(60)
    assert len(answers) == 2 and all(a["position"] == "W: B: w 4 4" for a in answers)
    assert len(calls) == 2, calls


def test_the_opening_search_of_a_request_is_bounded(db4):
    """A request may start the opening search (no placement files) for --search-seconds
    in all; past them it gets 503 and a line saying why, while positions the files
    answer, and the game's state without its hints, are served as before."""
    with TestClient(create_app(db4, FOUR, search_seconds=0)) as bounded:
        slow = bounded.get("/api/query", params={"position": "startpos"})
        assert slow.status_code == 503
        assert slow.json()["error"].startswith("the opening search ran out of time after")
        assert "--search-seconds" in slow.json()["error"]
        assert bounded.get("/api/query", params={"position": MOVING}).json()["plies"] == 1
        state = bounded.post("/api/game", json={"moves": ["d2"]}).json()
        assert state["played"] == ["d2"] and "ran out of time" in state["hints"]["error"]
        reply = bounded.post("/api/play", json={"moves": ["d2"], "level": "perfect", "think": 0.05})
        assert reply.status_code == 200 and len(reply.json()["played"]) == 2
        assert any("ran out of time" in note and "playing by search" in note
                   for note in reply.json()["notes"])
    with TestClient(create_app(db4, FOUR, search_seconds=None)) as unbounded:
        assert unbounded.get("/api/query", params={"position": "startpos"}).json()["value"] == "draw"


def test_a_stop_before_the_work_begins_is_not_lost(db4, monkeypatch):
    """A client that leaves before its request's work has begun: the stop comes before
    the work's limits are set (which let searches run again), and must still end its
    search; the next request searches as usual. A stop without a time limit is a 503
    with its own words (formatting the absent limit raised TypeError, a 500)."""
    import threading
    from solver.errors import SearchStoppedError
    from solver.web import app as web_app
    service = web_app.Service(db4, FOUR, None)
    db = service.database(FOUR)
    gone = threading.Event()
    service.stop(gone)
    assert gone.is_set()
    with service.lock, service.limited(gone):
        with pytest.raises(SearchStoppedError, match="asked to stop"):
            db.probe("startpos")
    with service.lock, service.limited(threading.Event()):
        assert db.probe("startpos").value == "draw"

    def stopped(*args):
        raise SearchStoppedError("the opening search was asked to stop after 1.0 s without a value", 1.0)
    monkeypatch.setattr(web_app, "query_object", stopped)
    with TestClient(create_app(db4, FOUR, search_seconds=None)) as unlimited:
        reply = unlimited.get("/api/query", params={"position": "startpos"})
        assert reply.status_code == 503
        assert reply.json() == {"error": "the opening search was asked to stop after 1.0 s without a value"}


def test_a_search_whose_client_left_is_stopped(db4, monkeypatch):
    """The opening search of a request whose client closed the connection ends within a
    second or so (it would hold the lock, and every other request, for minutes), and
    the next request searches again as usual. The search here is the real one, run
    again and again with its table emptied until it is stopped."""
    import socket
    import threading
    import time
    import urllib.request
    pytest.importorskip("uvicorn")
    from solver.errors import SearchStoppedError
    from solver.web import app as web_app
    entered, ended = threading.Event(), []
    real = web_app.query_object

    def searching(db, pos, *line):
        if not entered.is_set():
            entered.set()
            until = time.monotonic() + 30
            try:
                while time.monotonic() < until:
                    db.opening_search().engine.clear()
                    db.probe(pos)
            except SearchStoppedError as error:
                ended.append((time.monotonic(), error))
                raise
        return real(db, pos, *line)
    monkeypatch.setattr(web_app, "query_object", searching)
    with serving(create_app(db4, FOUR)) as (base, _):
        host, port = base.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)))
        sock.sendall(b"GET /api/query?position=startpos HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert entered.wait(20)
        time.sleep(0.3)
        sock.close()
        left = time.monotonic()
        until = left + 10
        while not ended and time.monotonic() < until:
            time.sleep(0.05)
        assert ended and "asked to stop" in str(ended[0][1])
        assert ended[0][0] - left < 3
        with urllib.request.urlopen(f"{base}/api/query?position=startpos", timeout=30) as reply:
            assert json.loads(reply.read())["value"] == "draw"


def test_http_details_a_client_may_rely_on(client, tmp_path):
    """405 names the allowed methods (Allow, as HTTP requires); a media type's case does
    not matter and a text/plain body's charset is honoured; an empty --host is refused."""
    from click.testing import CliRunner
    from solver.cli import main
    refused = client.get("/api/play")
    assert refused.status_code == 405 and "POST" in refused.headers["allow"]
    assert refused.json()["error"].startswith("Method Not Allowed")
    record = "rules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6 w\ng4-g7\n"
    plain = client.post("/api/analyze", content=record.encode(), headers={"Content-Type": "text/plain"}).json()
    for kind in ("Text/Plain", "TEXT/PLAIN; charset=UTF-16", "text/plain; charset=no-such-charset",
                 "text/plain; charset=punycode", "text/plain; charset=idna"):     # (no text charsets)
        body = record.encode("utf-16") if "16" in kind else record.encode()
        reply = client.post("/api/analyze", content=body, headers={"Content-Type": kind})
        assert reply.status_code == 200 and reply.json() == plain, kind
    empty = CliRunner().invoke(main, ["serve", "--db", str(tmp_path), "--host", " "])
    assert empty.exit_code == 2 and "--host is empty" in empty.output


def test_a_client_that_leaves_mid_body_is_no_error(db4, capfd):
    """A body cut short by the client going away ends the request quietly: uvicorn
    logged a 40-line traceback (ClientDisconnect) for each before."""
    import socket
    import time
    pytest.importorskip("uvicorn")
    with serving(create_app(db4, FOUR)) as (base, server):
        host, port = base.removeprefix("http://").split(":")
        client = socket.create_connection((host, int(port)))
        client.sendall(b"POST /api/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 100\r\n\r\n{\"position\":")
        until = time.monotonic() + 20
        while not server.server_state.tasks:        # the request is being read
            assert time.monotonic() < until
            time.sleep(0.01)
        client.close()
        while server.server_state.tasks or server.server_state.connections:   # and is over
            assert time.monotonic() < until
            time.sleep(0.01)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ClientDisconnect" not in err, err[:500]


def test_a_connection_that_sends_nothing_is_closed(db4):
    """uvicorn closes a connection idle between requests, but kept one that never sent
    a request open for ever: enough of them used up the file descriptors. Closed after
    the same timeout now, while one that sends its request in time is answered."""
    import socket
    import time
    pytest.importorskip("uvicorn")
    with serving(create_app(db4, FOUR), timeout=0.5) as (base, _):
        host, port = base.removeprefix("http://").split(":")
        silent = socket.create_connection((host, int(port)))
        silent.settimeout(10)
        start = time.monotonic()
        assert silent.recv(100) == b""                  # closed by the server
        assert time.monotonic() - start < 5
        talking = socket.create_connection((host, int(port)))
        talking.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
        talking.settimeout(10)
        assert talking.recv(100).startswith(b"HTTP/1.1 200")
        silent.close()
        talking.close()


def _connect(base: str):
    import socket
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.settimeout(10)
    return sock


def _closed_within(sock, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reading what it sends)."""
    import time
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if sock.recv(65536) == b"":
            return True
    return False


def test_a_request_sent_in_part_does_not_hold_its_connection(db4, capfd, monkeypatch):
    """uvicorn's timer stopped at a request's first byte: half a request line, or a body
    shorter than its length, held the connection for ever (a thousand of them, the
    process's descriptors). A request must arrive whole within the deadline now; one
    sent slowly but within it is answered, and so is one whose work takes longer."""
    import time
    import solver.web.app as web
    pytest.importorskip("uvicorn")
    answer = web.query_object

    def slow_answer(*args):
        time.sleep(1.5)
        return answer(*args)
    monkeypatch.setattr(web, "query_object", slow_answer)
    with serving(create_app(db4, FOUR), timeout=5.0, request_deadline=1.0) as (base, server):
        line, body, second = _connect(base), _connect(base), _connect(base)
        line.sendall(b"GET /api/rules HT")
        body.sendall(b"POST /api/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"position\":")
        second.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            reply += second.recv(65536)
        assert reply.startswith(b"HTTP/1.1 200")
        second.sendall(b"GET /api/ru")               # the next request on it, in part
        start = time.monotonic()
        for sock in (line, body, second):
            assert _closed_within(sock, 4.5)         # before the idle timeout of 5 s
        assert time.monotonic() - start < 4.5
        slow = _connect(base)
        for piece in (b"GET /api/rules HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"):
            slow.sendall(piece)
            time.sleep(0.2)
        assert slow.recv(100).startswith(b"HTTP/1.1 200")
        working = _connect(base)
        working.sendall(f"GET /api/query?position={MOVING.replace(' ', '+')} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert working.recv(100).startswith(b"HTTP/1.1 200")
        for sock in (line, body, second, slow, working):
            sock.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err, err[:500]


def test_connections_beyond_the_limit_are_closed_at_once(db4, capfd):
    """A burst of connections could use up the descriptors (asyncio then logged a
    traceback per failed accept, megabytes a second); beyond the limit a new connection
    is closed at once, with one warning, and served again once others end."""
    pytest.importorskip("uvicorn")
    with serving(create_app(db4, FOUR), timeout=5.0, max_connections=3) as (base, server):
        held = [_connect(base) for _ in range(3)]
        over = [_connect(base) for _ in range(2)]
        for sock in over:
            assert _closed_within(sock, 2.0)         # well before the idle timeout
        for sock in held + over:
            sock.close()
        fresh = _connect(base)
        fresh.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
        assert fresh.recv(100).startswith(b"HTTP/1.1 200")
        fresh.close()
    err = capfd.readouterr().err
    assert err.count("connections open, the most this server takes") == 1, err[-500:]



def test_a_normal_request_is_answered_while_1000_slow_connections_are_held(db4, capfd):
    """One client that opens 1,000 connections and sends each half a request line held
    every connection the server takes, for the 10 s of the request deadline, again and
    again: now it holds its share (an eighth) and the rest are closed at once, while
    another client is answered at once; the first is served again once its own end."""
    import resource
    import socket
    import time
    pytest.importorskip("uvicorn")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2600                                    # 1,000 here, up to 1,000 in the server
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    count = min(1000, (resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 200) // 2)
    try:
        with serving(create_app(db4, FOUR), timeout=30.0, request_deadline=30.0) as (base, server):
            host, port = base.removeprefix("http://").split(":")
            slow = []
            for _ in range(count):
                sock = socket.create_connection((host, int(port)))
                sock.sendall(b"GET /api/ru")
                slow.append(sock)
            other = socket.socket()
            other.bind(("127.0.0.2", 0))             # another client (the whole of 127/8 is this machine)
            other.settimeout(10)
            start = time.monotonic()
            other.connect((host, int(port)))
            other.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
            assert other.recv(100).startswith(b"HTTP/1.1 200")
            assert time.monotonic() - start < 5
            def closed(sock) -> bool:
                sock.settimeout(0.02)
                try:
                    return sock.recv(100) == b""
                except TimeoutError:
                    return False
                except ConnectionResetError:
                    return True
            held = [sock for sock in slow if not closed(sock)]
            assert 8 <= len(held) <= count // 4, len(held)      # its share; the others closed
            mine = _connect(base)                                # the slow client's next: closed
            mine.settimeout(2.0)
            assert closed(mine) or mine.recv(100) == b""
            for sock in slow:
                sock.close()
            until = time.monotonic() + 10
            while server.server_state.connections and time.monotonic() < until:
                time.sleep(0.05)
            again = _connect(base)
            again.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
            assert again.recv(100).startswith(b"HTTP/1.1 200")
            for sock in (other, mine, again):
                sock.close()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    err = capfd.readouterr().err
    assert "Traceback" not in err and err.count("the most this server takes from one client") == 1, err[-500:]


def test_pages_of_other_sites_are_not_answered(db4):
    """Any web page open in the browser could make the local server search for minutes
    (an image pointing at /api/query) or, renaming its own site to 127.0.0.1 (DNS
    rebinding), read the answers. The browser says where a request comes from; programs
    (curl, scripts) send neither header and are answered."""
    from solver.web.app import LOOPBACK_HOSTS
    query = {"position": MOVING}
    with TestClient(create_app(db4, FOUR)) as c:
        assert c.get("/api/query", params=query).status_code == 200
        assert c.get("/api/query", params=query, headers={"sec-fetch-site": "same-origin"}).status_code == 200
        assert c.post("/api/query", json=query, headers={"origin": "http://testserver"}).status_code == 200
        assert c.post("/api/query", json=query, headers={"origin": "http://TestServer"}).status_code == 200
        for headers in ({"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                        {"origin": "http://evil.example"}, {"origin": "null"}, {"origin": "http://testserver:8001"}):
            response = c.post("/api/query", json=query, headers=headers)
            assert response.status_code == 403 and "than this server's own" in response.json()["error"], headers
        assert c.get("/", headers={"sec-fetch-site": "cross-site"}).status_code == 200    # a link to the page
    with TestClient(create_app(db4, FOUR, hosts=set(LOOPBACK_HOSTS)), base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/query", params=query).status_code == 200
        assert c.get("/api/query", params=query, headers={"host": "localhost:8000"}).status_code == 200
        rebound = c.get("/api/query", params=query, headers={"host": "evil.example:8000"})
        assert rebound.status_code == 403 and "not 'evil.example:8000'" in rebound.json()["error"]
        assert c.get("/", headers={"host": "evil.example"}).status_code == 403
        # a loopback name with something else for a port; a header given twice (the
        # check read the last, another reader may read the first)
        odd = c.get("/api/query", params=query, headers={"host": "localhost:evil.example"})
        assert odd.status_code == 403 and "is no host and port" in odd.json()["error"]
        twice = c.get("/api/query", params=query, headers=[("origin", "http://evil.example"),
                                                          ("origin", "http://127.0.0.1:8000")])
        assert twice.status_code == 403 and "names its host, origin or fetch site once" in twice.json()["error"]


def test_a_board_of_too_many_arrows_is_refused(client):
    from solver.web.app import MAX_ARROWS
    ok = client.get("/api/board.svg", params={"arrows": " ".join(["d2-d3"] * MAX_ARROWS)})
    assert ok.status_code == 200
    refused = client.post("/api/board.svg", json={"arrows": " ".join(["d2-d3"] * (MAX_ARROWS + 1))})
    assert refused.status_code == 413 and refused.json()["error"] == f"too many arrows: {MAX_ARROWS + 1} (at most {MAX_ARROWS})"
    listed = client.post("/api/board.svg", json={"arrows": ["d2-d3"], "marks": ["a1:win"]})  # as after, moves
    assert listed.status_code == 200 and listed.text == client.post(
        "/api/board.svg", json={"arrows": "d2-d3", "marks": "a1:win"}).text
    long_seed = client.post("/api/best-move", content=b'{"position": "startpos", "seed": ' + b"9" * 5000 + b"}",
                            headers={"Content-Type": "application/json"})
    assert long_seed.status_code == 400 and long_seed.json()["error"] == "request body: a number of more than 4300 digits"


def test_query_with_the_line_is_the_cli_object(client, database):
    expected = query_object(database, parse_position(MOVING, FOUR), line=True)
    answer = client.get("/api/query", params={"position": MOVING, "line": "true"})
    assert answer.status_code == 200 and answer.json() == expected and expected["line"] == ["f6-g7xa1"]
    assert "line" not in client.get("/api/query", params={"position": MOVING}).json()


def test_a_server_on_loopback_answers_to_the_address_it_announces(db4):
    """Bound to 127.0.0.2 (or the machine's name, 127.0.1.1 on Debian), the server
    refused its own announced address: it knew only localhost, 127.0.0.1 and [::1]."""
    from solver.web import bind, host_names
    sock = bind("127.0.0.2", 0)
    try:
        names = host_names("127.0.0.2", sock)
    finally:
        sock.close()
    assert {"127.0.0.2", "localhost", "127.0.0.1"} <= names
    with TestClient(create_app(db4, FOUR, hosts=names), base_url="http://127.0.0.2:8000") as c:
        assert c.get("/").status_code == 200 and c.get("/api/rules").status_code == 200
        assert c.get("/api/rules", headers={"host": "evil.example"}).status_code == 403
    wide = bind("0.0.0.0", 0)
    try:
        assert host_names("0.0.0.0", wide) is None           # elsewhere: any name
    finally:
        wide.close()


def test_query_and_best_move_take_moves_after_the_position_as_the_cli(client, db4):
    """/api/query answered the position before its `after` moves (ignored without a
    word); the command line's --after now has its twin, a drawn game included."""
    from click.testing import CliRunner
    from solver.cli import main
    start, cycle = "W:a1,d2,g4 B:b6,d7,f2 w", " ".join(["a1-a4 b6-b4 a4-a1 b4-b6"] * 2)
    for after in ("a1-a4 b6-b4", cycle):
        for path, command in (("/api/query", "query"), ("/api/best-move", "best-move")):
            answer = client.get(path, params={"position": start, "after": after})
            cli = CliRunner().invoke(main, [command, "--json", "--db", str(db4), "--stones", "4", start,
                                            "--after", after])
            assert answer.status_code == 200 and answer.json() == json.loads(cli.stdout), (path, after)
    drawn = client.post("/api/query", json={"position": start, "after": cycle.split()}).json()
    assert (drawn["value"], drawn["plies"], drawn["moves"]) == ("draw", 0, [])


def test_a_client_that_reads_no_answers_is_dropped(db4):
    """A client that pipelines requests and never reads their answers held its
    connection for ever (the server's buffer for it full, a close waiting on it): a
    thousand of them held every connection the server takes. Dropped after the write
    deadline now, and others are served meanwhile."""
    import socket
    import time
    pytest.importorskip("uvicorn")
    arrows = "+".join(["a1-d1"] * 1000)
    request = f"GET /api/board.svg?arrows={arrows} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    with serving(create_app(db4, FOUR), timeout=5.0, write_deadline=1.0) as (base, server):
        host, port = base.removeprefix("http://").split(":")
        one = _connect(base)
        one.sendall(request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        answer = b""
        while chunk := one.recv(65536):
            answer += chunk
        one.close()
        assert len(answer) > 100_000
        greedy = socket.socket()
        greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        greedy.connect((host, int(port)))
        greedy.settimeout(10)
        try:
            for _ in range(100):          # ~16 MB of answers asked for, none read
                greedy.sendall(request)
        except OSError:
            pass                          # (dropped already: the server reads no more)
        time.sleep(3.0)
        other = _connect(base)
        other.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n")
        assert other.recv(100).startswith(b"HTTP/1.1 200")
        other.close()
        got = 0
        start = time.monotonic()
        try:
            while chunk := greedy.recv(65536):
                got += len(chunk)
        except OSError:
            pass                          # reset: dropped with answers unsent
        assert time.monotonic() - start < 5 and got < 10 * len(answer)        # of 100 asked for
        greedy.close()


def test_rule_sets_a_client_names_hold_no_memory_for_good(db4):
    """Each rule set named kept its database open for good, and a placement position of
    rules without a moving phase made the opening search's table (128 MiB) before its
    404: some 60 made-up names ran the machine out of memory. At most OPEN_DATABASES
    stay open now, and no search is made where it has nothing to read."""
    names = ["standard-s3", "no-jumping-s3", "take-none-s3", "twelve-mens-s3", "morabaraba-s3",
             "six-mens-s3", "standard-s5"]
    _no_database_kept_open(db4, names)


def _no_database_kept_open(root, names) -> None:
    import solver.web.app as web
    with TestClient(create_app(root, FOUR)) as fresh:
        service = fresh.app.state.service
        for name in names:
            reply = fresh.get("/api/query", params={"position": "startpos", "rules": name})
            assert reply.status_code == 404, reply.json()
            assert "the opening search that would answer needs the moving phase" in reply.json()["error"]
            assert len(service._databases) <= web.OPEN_DATABASES
            assert all(db._search is None for db in service._databases.values())
        assert fresh.get("/api/query", params={"position": MOVING}).status_code == 200


def test_a_placement_position_the_search_cannot_value_is_422_not_the_clients_fault(tmp_path):
    """Lasker's placement (mixed) without its files: the opening search refuses it, a
    limit of the server's, not a bad request (it was 400)."""
    from solver.build import build
    from solver.rules import Rules
    lasker = Rules.from_name("lasker")
    build(tmp_path, lasker, phase="moving", max_total=6, progress=False)
    with TestClient(create_app(tmp_path, lasker)) as c:
        reply = c.get("/api/query", params={"position": "W:a1,d1,g1 B:a7,d7 w 1 1"})
        assert reply.status_code == 422 and "separate placement only" in reply.json()["error"]


def test_a_slow_reader_gets_every_answer_whole(db4):
    """The guard against clients that read nothing must spare one that reads slowly:
    its idle timer (and the unread-answer deadline) pass while it reads, and every
    answer it asked for arrives whole."""
    import socket
    import time
    pytest.importorskip("uvicorn")
    arrows = "+".join(["a1-d1"] * 1000)
    request = f"GET /api/board.svg?arrows={arrows}&size=4000 HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    with serving(create_app(db4, FOUR), timeout=0.2, write_deadline=0.5) as (base, server):
        host, port = base.removeprefix("http://").split(":")
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect((host, int(port)))
        slow.settimeout(10)
        slow.sendall(request * 3)
        got = b""
        while chunk := slow.recv(4096):
            got += chunk
            time.sleep(0.03)
        slow.close()
    answers = got.split(b"HTTP/1.1 200")[1:]
    assert len(answers) == 3 and all(a.rstrip().endswith(b"</svg>") for a in answers), len(got)


def test_positions_of_other_programs_are_read_and_written(client):
    """Every endpoint that takes a position reads Sanmill's FEN and Malom's text;
    /api/convert writes a position in each format (as muehle convert --json)."""
    fen = "********/********/*O*O*O*O b m s 4 0 3 0 0 0 0 0 0 0 0 0 1".replace("********/********", "@*@*@***/********")
    answer = client.post("/api/convert", json={"position": fen}).json()
    assert answer["muehle"] == "W:a1,a7,g1,g7 B:d3,d5,e4 b" and answer["fen"] == fen and answer["take"] == 0
    for text in (fen, answer["malom"]):
        assert client.post("/api/moves", json={"position": text}).json()["position"] == answer["muehle"]
    pending = client.post("/api/convert", json={"position": "*****OOO/********/@@****** w p r 3 1 2 2 1 0 0 0 0 0 0 0 4"})
    assert pending.status_code == 200 and pending.json()["muehle"] is None and "takes next" in pending.json()["note"]
    refused = client.post("/api/moves", json={"position": "*****OOO/********/@@****** w p r 3 1 2 2 1 0 0 0 0 0 0 0 4"})
    assert refused.status_code == 400 and "takes next" in refused.json()["error"]
    bad = client.post("/api/convert", json={"position": "********/********/******** w q p 0 4 0 4 0 0 0 0 0 0 0 0 1"})
    assert bad.status_code == 400 and "FEN field 3 (phase)" in bad.json()["error"]


def test_the_analysis_reads_pgn_and_playok_records(client):
    """/api/analyze takes the Sanmill app's PGN (a variation noted among the warnings)
    and PlayOK's move lists, as muehle analyze does."""
    pgn = '[Variant "muehle:standard-s4"]\n\n1. a7 b6 2. d7 (2. g7) d6 3. g7xb6 f6 *\n'
    answer = client.post("/api/analyze", content=pgn.encode(), headers={"Content-Type": "text/plain"}).json()
    assert [r["move"] for r in answer["moves"]] == ["a7", "b6", "d7", "d6", "g7xb6", "f6"]
    assert "1 variation skipped (the main line is read)" in answer["warnings"]
    playok = client.post("/api/analyze", json={"record": "1. 1 4 2. 2 5 3. 3x4 6", "rules": "standard-s4"}).json()
    assert [r["move"] for r in playok["moves"]] == [r["move"] for r in answer["moves"]]
    bad = client.post("/api/analyze", json={"record": "1. d6 f4 2. d6", "rules": "standard-s4"})
    assert bad.status_code == 400 and "line 1 column 13" in bad.json()["error"]


def test_analyze_takes_the_quiet_limit_of_a_record_that_names_none(client):
    """As analyze --quiet-limit: the limit where the record names none (the Sanmill
    app's PGN, for its 100); one it names must agree; a bad one is a 400."""
    pgn = '[Site "Sanmill"]\n[Variant "muehle:standard-s4"]\n\n1. d6 f4\n'
    plain = client.post("/api/analyze", json={"record": pgn}).json()
    hundred = client.post("/api/analyze", json={"record": pgn, "quiet_limit": 100})
    assert hundred.status_code == 200 and len(hundred.json()["moves"]) == len(plain["moves"]) == 2
    named = client.post("/api/analyze", json={"record": "rules: standard-s4\nd6\n", "quiet_limit": 100})
    assert named.status_code == 400 and "not the 100 asked for" in named.json()["error"]
    for bad in (1, "x", 1001):
        got = client.post("/api/analyze", json={"record": pgn, "quiet_limit": bad})
        assert got.status_code == 400 and got.json()["error"].startswith("quiet_limit"), got.json()
