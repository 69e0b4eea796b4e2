"""Fuzzed input through every entry point (issue 11): random and almost-right text as
positions and moves (``parse_position``, ``parse_move``, ``Game.play``) and through the
commands ``show``, ``moves``, ``query``, ``best-move``, ``analyze`` (random record files)
and ``play`` (random input lines).

Never a traceback: exit status 0, 1 or 2 only, and an error is one line
``muehle: error: ...``.  Accepted input is checked too ("wrong values"): a parsed
position reads back as itself, a parsed move is legal, and a value ``query`` prints
agrees with the values it prints for the moves (the stored entry of the position
against its children's).  ``-s`` prints the counts (docs/benchmarks.md, "Fault suite").
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.board import POINT_NAMES
from solver.cli import main
from solver.errors import MuehleError
from solver.game import Game
from solver.notation import format_position
from solver.position import parse_move, parse_position
from solver.rules import Rules

FOUR = Rules(stones=4)
COUNTS: Counter = Counter()


def fuzz(examples: int):
    """Hypothesis settings of these tests: a fixed number of examples, the same each run."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# --- strategies --------------------------------------------------------------------

POINTS = list(POINT_NAMES)
NEAR_POINTS = POINTS + ["h1", "a8", "a0", "d4", "A1", "g", "1", "aa1", "a01", "٣", "ⅰ1"]
TOKENS = NEAR_POINTS + ["W:", "B:", "w", "b", ",", " ", "  ", "-", "x", ":", "startpos", "0", "3",
                        "9", "10", "-1", "99999999999999999999", "\t", "\n", "\0", "\ufeff", "é"]


def points_text(draw, most: int) -> str:
    return ",".join(draw(st.lists(st.sampled_from(NEAR_POINTS if draw(st.booleans()) else POINTS),
                                  max_size=most)))


@st.composite
def position_texts(draw, hands: bool = True) -> str:
    """Mostly well-formed positions (legal or not), sometimes with a token changed."""
    kind = draw(st.integers(0, 9))
    if kind == 9:
        return draw(st.text(max_size=40))
    if kind == 8:
        return "".join(draw(st.lists(st.sampled_from(TOKENS), max_size=16)))
    if kind <= 6:      # distinct points, up to 4 a side: most of these are positions
        points = draw(st.permutations(POINTS))
        w, b = draw(st.integers(0, 4)), draw(st.integers(0, 4))
        text = f"W:{','.join(points[:w])} B:{','.join(points[w:w + b])} {draw(st.sampled_from('wb'))}"
    else:
        text = f"W:{points_text(draw, 5)} B:{points_text(draw, 5)} {draw(st.sampled_from(['w', 'b', 'x', '']))}"
    if hands and draw(st.booleans()):
        text += f" {draw(st.integers(-1, 5))} {draw(st.integers(-1, 5))}"
    if draw(st.integers(0, 4)) == 0:
        words = text.split(" ")
        i = draw(st.integers(0, len(words) - 1))
        words[i] = draw(st.sampled_from(TOKENS))
        text = " ".join(words)
    return text


@st.composite
def move_texts(draw) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.text(max_size=12))
    if kind == 1:
        return "".join(draw(st.lists(st.sampled_from(TOKENS), max_size=6)))
    move = draw(st.sampled_from(NEAR_POINTS))
    if draw(st.booleans()):
        move = f"{move}-{draw(st.sampled_from(NEAR_POINTS))}"
    if draw(st.booleans()):
        move += f"x{draw(st.sampled_from(NEAR_POINTS))}"
    return move


# --- checks --------------------------------------------------------------------------

def invoke(args, input=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (args, repr(result.exception), result.output)
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    assert "Traceback" not in result.output, (args, result.output)
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("muehle: error: "), (args, result.stderr)
    COUNTS["cli inputs"] += 1
    COUNTS[f"cli exit {result.exit_code}"] += 1
    return result


def covered(name: str, run, *args, **needs: int) -> None:
    """Run the fuzzed cases ``run(*args)`` (a Hypothesis test), print what they counted
    (``-s``) and assert that they reached every branch they are meant to test: each of
    ``needs`` (a count's name, with spaces as underscores) at least that often, so that
    a strategy that stopped making refused (or accepted) input fails the test rather
    than pass having tried one branch only."""
    COUNTS.clear()
    run(*args)
    print(f"\nfuzz {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(COUNTS.items())))
    short = {k: COUNTS[k.replace("_", " ")] for k, least in needs.items() if COUNTS[k.replace("_", " ")] < least}
    assert not short, f"fuzz {name} did not reach: {short} (counted {dict(COUNTS)})"


# --- the library ---------------------------------------------------------------------

@fuzz(600)
@given(text=position_texts(), move=move_texts(), stones=st.sampled_from([3, 4, 9]))
def parse_cases(text, move, stones):
    rules = Rules(stones=stones)
    COUNTS["inputs"] += 2
    try:
        pos = parse_position(text, rules)
    except MuehleError:
        COUNTS["positions refused"] += 1
        pos = None
    if pos is not None:
        COUNTS["positions accepted"] += 1
        assert parse_position(format_position(pos), rules) == pos      # reads back as itself
    try:
        parse_move(move)
    except MuehleError:
        COUNTS["moves refused"] += 1
    game = Game(pos, rules) if pos is not None else Game(None, rules)
    before = game.position
    try:
        game.play(move)
    except MuehleError:
        COUNTS["plays refused"] += 1
        assert game.position == before                                 # nothing half played
    else:
        COUNTS["plays accepted"] += 1
        assert game.moves[-1] in before.legal_moves(rules)


def test_parse_position_move_and_play():
    covered("library", parse_cases, positions_accepted=100, positions_refused=100, moves_refused=50,
            plays_accepted=20, plays_refused=100)


# --- the commands ----------------------------------------------------------------------

@fuzz(150)
@given(text=position_texts(), after=st.lists(move_texts(), max_size=3), command=st.sampled_from(["show", "moves"]))
def show_cases(text, after, command):
    args = [command, "--stones", 4, text]
    if after:
        args += ["--after", " ".join(after)]
    invoke(args + (["--json"] if command == "moves" else []))


def test_show_and_moves():
    covered("show, moves", show_cases, cli_exit_0=20, cli_exit_2=20)


def agrees_with_its_moves(obj: dict, outcome) -> bool:
    """The stored value of a position against the stored values of its moves (for the
    mover), and a finished game's against the rules (``outcome``: Position.outcome)."""
    moves = obj["moves"]
    if not moves:
        return obj["value"] == outcome and obj["plies"] == 0
    if outcome is not None:
        return False
    if obj["value"] is None or any(m["value"] is None for m in moves):
        return True
    wins = [m["plies"] for m in moves if m["value"] == "win"]
    if wins:
        return obj["value"] == "win" and obj["plies"] == min(wins)
    if any(m["value"] == "draw" for m in moves):
        return obj["value"] == "draw"
    return obj["value"] == "loss" and obj["plies"] == max(m["plies"] for m in moves)


@fuzz(150)
@given(text=position_texts(hands=False), seed=st.integers(0, 3))
def query_cases(db4, text, seed):
    result = invoke(["query", "--db", db4, "--stones", 4, "--json", text])
    if result.exit_code == 0:
        obj = json.loads(result.stdout)
        COUNTS["values checked"] += 1
        assert agrees_with_its_moves(obj, parse_position(text, FOUR).terminal_wdl(FOUR)), obj
        best = invoke(["best-move", "--db", db4, "--stones", 4, "--json", "--seed", seed, text])
        assert best.exit_code == 0, best.output
        move = json.loads(best.stdout)
        assert move["value"] == obj["value"] and move["plies"] == obj["plies"], (move, obj)
        if move["move"] is not None:
            assert move["move"] in [m["move"] for m in obj["moves"]
                                    if (m["value"], m["plies"]) == (obj["value"], obj["plies"])]


def test_query_and_best_move(db4):
    covered("query, best-move", query_cases, db4, values_checked=20, cli_exit_2=20)


@st.composite
def record_files(draw) -> bytes:
    """A random legal game of the 4-stone game as a record, then perhaps damaged."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    game = Game(None, FOUR)
    for _ in range(draw(st.integers(0, 10))):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    lines = game.record().splitlines()
    kind = draw(st.integers(0, 4))
    if kind == 1 and lines:
        lines[draw(st.integers(0, len(lines) - 1))] = draw(move_texts())
    elif kind == 2:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=20)))
    elif kind == 3:
        return draw(st.binary(max_size=60))
    return "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"


@fuzz(25)
@given(record=record_files())
def analyze_cases(db4, tmp_path, record):
    path = tmp_path / "game.txt"
    path.write_bytes(record)
    invoke(["analyze", "--db", db4, "--stones", 4, path])


def test_analyze_random_records(db4, tmp_path):
    covered("analyze", analyze_cases, db4, tmp_path, cli_exit_0=3, cli_exit_2=3)


@fuzz(40)
@given(lines=st.lists(st.one_of(move_texts(), st.sampled_from(
           ["help", "moves", "hint", "undo", "resign", "quit", "save", "save x\0y", "", "d2", "d1", "a4"]),
           st.text(max_size=20)), max_size=12),
       junk=st.binary(max_size=8), seed=st.integers(0, 3))
def play_cases(tmp_path, lines, junk, seed):
    lines = [line for line in lines if not line.lower().lstrip().startswith("save ")
             or "\0" in line]                        # no files written outside tmp_path
    stdin = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n" + junk + b"\n"
    result = invoke(["play", "--db", tmp_path, "--stones", 4, "--level", "easy", "--seed", seed], stdin)
    assert result.exit_code == 0, result.output


def test_play_random_lines(tmp_path):
    covered("play", play_cases, tmp_path, cli_exit_0=40)
