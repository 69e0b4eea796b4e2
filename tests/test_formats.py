"""Other programs' positions (:mod:`solver.formats`): Sanmill's FEN and Malom's clipboard
text, read and written, against the samples of their sources and hand-typed positions,
and round trips of random positions; ``muehle convert`` and the commands that read them."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.errors import InvalidNotationError
from solver.formats import (FEN_POINTS, MALOM_POINTS, Setup, fen_text, malom_text, read_fen, read_malom,
                            read_setup)
from solver.notation import position_text
from solver.position import parse_position
from solver.board import STANDARD_BOARD

#: FENs quoted in Sanmill's sources (its engine's start positions and tests, its app's
#: tests and comments; the newest form with the "ids:nodes" mark of its Rust port).
SANMILL_FENS = [
    "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    "****@***/****O***/******** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1",
    "********/********/******** b p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    "OOO***@*/@**@****/******@* b m s 3 0 4 0 0 0 -1 -1 -1 -1 0 0 31 ids:nodes",
    "********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1 ids:nodes",
    "O@******/********/******** w p p 1 8 1 8 0 0 -1 -1 -1 -1 0 0 1 ids:nodes",
    "***OOO**/***@@@**/******** w m s 3 0 3 0 0 0 -1 -1 -1 -1 0 100 1 ids:nodes",
    "OO******/********/******** w p p 2 7 0 9 0 0 -1 -1 -1 -1 0 0 1 ids:nodes",
    "********/********/******** w p p 0 9 0 9 0 0 0 1",          # the older form of 12 fields
    "O***O***/****@***/******** b p r 2 7 1 8 0 1 0 0 0 0 0 0 3",   # a take pending (muehle's)
]

#: Quoted in Sanmill's tests of its FEN checker, whose counts of stones on the board
#: disagree with the board (the checker looks at the form only): refused, naming the
#: field, not read half right.  And the oldest form, of 11 fields, whose counts came in
#: another order by version: refused.
SANMILL_INCONSISTENT = [
    ("O@O*****/********/******** w p p 3 6 3 6 0 0 0 0 0 0 0 0 1", "field 5"),
    ("O*******/*O******/**O***** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1", "field 5"),
    ("*@******/********/******** w p r 1 6 1 6 0 1 0 0 0 0 0 0 1 c:w-0-|b-1-9", "field 5"),
    ("O*@*****/********/******** w p p 3 6 3 6 0 0 0 0 0 0 0 0 1", "field 5"),
    ("***O****/OO@*@*@@/@OOO@*O* b m s 7 0 5 0 0 0 -1 -1 -1 -1 0 0 16 ids:nodes", "field 7"),
    ("********/********/******** w p p 0 9 0 9 0 0 1", "11 fields"),
]


def test_the_point_orders_are_the_formats_own():
    # Sanmill: three squares, inner first, each from its top middle point clockwise;
    # Malom: outer first, each from its left middle point clockwise.
    assert FEN_POINTS[0] == "d5" and FEN_POINTS[8] == "d6" and FEN_POINTS[16] == "d7" and FEN_POINTS[-1] == "a7"
    assert MALOM_POINTS[:3] == ("a4", "a7", "d7") and MALOM_POINTS[18] == "d5" and MALOM_POINTS[-1] == "c3"
    assert sorted(FEN_POINTS) == sorted(MALOM_POINTS) == sorted(STANDARD_BOARD.points)


@pytest.mark.parametrize("fen", SANMILL_FENS)
def test_every_sanmill_sample_round_trips(fen):
    setup = read_fen(fen)
    assert fen_text(setup) == fen
    # through Malom's text and back the position and its counter are kept
    back = read_malom(malom_text(setup))
    assert back[:7] == setup[:7]


@pytest.mark.parametrize("fen, words", SANMILL_INCONSISTENT)
def test_a_sample_whose_counts_disagree_with_its_board_is_refused(fen, words):
    with pytest.raises(InvalidNotationError, match=words):
        read_fen(fen)


def test_a_sample_reads_as_its_source_says():
    # the engine's test: Black on square 12 (d3), White on 20 (d2)
    assert position_text(*read_fen("****@***/****O***/******** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1")
                         .position_fields()) == "W:d2 B:d3 w 8 8"
    # the Rust port's: node 0 (d5) White, node 1 (e5) Black
    assert position_text(*read_fen("O@******/********/******** w p p 1 8 1 8 0 0 -1 -1 -1 -1 0 0 1 ids:nodes")
                         .position_fields()) == "W:d5 B:e5 w 8 8"
    # a mill of White (c3-d3-e3) and one of Black (b2-d2-f2), 100 plies without a take
    setup = read_fen("***OOO**/***@@@**/******** w m s 3 0 3 0 0 0 -1 -1 -1 -1 0 100 1 ids:nodes")
    assert position_text(*setup.position_fields()) == "W:c3,d3,e3 B:b2,d2,f2 w" and setup.quiet_plies == 100


#: Hand-typed: (muehle, FEN, Malom) of the same position; stones on all four sides of
#: the board, either colour to move, stones in hand, a take pending.
HAND_TYPED = [
    ("W:a1,a7,g1,g7 B:c4,d3,d5,e4 b 5 5",
     "@*@*@*@*/********/*O*O*O*O b p p 4 5 4 5 0 0 0 0 0 0 0 0 1",
     "-1,0,-1,0,-1,0,-1,0,-1,-1,-1,-1,-1,-1,-1,-1,1,-1,1,-1,1,-1,1,-1,1,0,0,1,4,4,4,4,False,0,0,0,0,malom2"),
    ("W:b4,d6,f4,d2 B:a4,d7,g4,d1 w",
     "********/O*O*O*O*/@*@*@*@* w m s 4 0 4 0 0 0 0 0 0 0 0 0 1",
     "1,-1,1,-1,1,-1,1,-1,0,-1,0,-1,0,-1,0,-1,-1,-1,-1,-1,-1,-1,-1,-1,0,0,0,2,9,9,4,4,False,0,0,0,0,malom2"),
]


@pytest.mark.parametrize("ours, fen, malom", HAND_TYPED)
def test_hand_typed_positions_agree_in_every_format(ours, fen, malom):
    for text in (ours, fen, malom):
        assert str(parse_position(text)) == str(parse_position(ours))
        setup = read_setup(text)
        assert fen_text(setup) == fen and malom_text(setup) == malom


def test_a_take_pending_is_kept_between_the_formats_and_refused_as_a_position():
    # White placed c3 closing c5-c4-c3 and takes next
    fen = "*****OOO/********/@@****** w p r 3 6 2 7 1 0 0 0 0 0 0 0 4"
    setup = read_fen(fen)
    assert (setup.take, setup.turn, setup.placed) == (1, "w", True)
    malom = malom_text(setup)
    assert ",True," in malom and read_malom(malom)[:6] == setup[:6]
    assert fen_text(read_malom(malom)).split()[:10] == fen.split()[:10]
    with pytest.raises(InvalidNotationError, match="takes next"):
        parse_position(fen)


def random_setup(rng: random.Random) -> Setup:
    points = list(range(24))
    rng.shuffle(points)
    nw, nb = rng.randint(0, 9), rng.randint(0, 9)
    white = sum(1 << p for p in points[:nw])
    black = sum(1 << p for p in points[nw:nw + nb])
    hands = (rng.randint(0, 9 - nw), rng.randint(0, 9 - nb)) if rng.random() < 0.5 else (0, 0)
    take = int(rng.random() < 0.1)
    return Setup(white, black, *hands, rng.choice("wb"), take, 0 if any(hands) else rng.randint(0, 99),
                 rng.randint(1, 300), bool(take and any(hands)))


def test_20000_random_positions_round_trip():
    rng = random.Random(53)
    for _ in range(20_000):
        setup = random_setup(rng)
        fen = read_fen(fen_text(setup))
        assert fen[:8] == setup[:8], setup
        malom = read_malom(malom_text(setup))
        assert malom[:7] == setup[:7], setup
        if not setup.take:
            assert read_setup(position_text(*setup.position_fields()))[:5] == setup[:5]


@pytest.mark.parametrize("text, words", [
    ("********/********/******* w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "FEN field 1 (board)"),
    ("********/********/******** x p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "FEN field 2 (side to move)"),
    ("********/********/******** w q p 0 9 0 9 0 0 0 0 0 0 0 0 1", "FEN field 3 (phase)"),
    ("********/********/******** w p z 0 9 0 9 0 0 0 0 0 0 0 0 1", "FEN field 4 (action)"),
    ("O*******/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "FEN field 5"),
    ("********/********/******** w p p 0 19 0 9 0 0 0 0 0 0 0 0 1", "FEN field 6"),
    ("X*******/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "banned point"),
    ("O*******/********/******** w p p 1 8 0 9 -1 0 0 0 0 0 0 0 1", "stones to remove"),
    ("********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0", "fields"),
    (",".join(["-1"] * 24) + ",0,0,0,1,0,0,0,0,Maybe,0,0,0,0,malom2", "field 33"),
    (",".join(["-1"] * 23) + ",2,0,0,0,1,0,0,0,0,False,0,0,0,0,malom2", "point c3"),
    (",".join(["0"] * 24) + ",0,0,0,2,9,9,24,0,False,0,0,0,0,malom2", "field 31"),
])
def test_what_cannot_be_read_is_one_line_naming_the_field(text, words):
    with pytest.raises(InvalidNotationError, match=words.replace("(", r"\(").replace(")", r"\)")) as caught:
        read_setup(text)
    assert "\n" not in str(caught.value)
    result = CliRunner().invoke(main, ["convert", text])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and words.split()[0] in result.output


def test_convert_writes_each_format_and_the_commands_read_them():
    runner = CliRunner()
    ours, fen, malom = HAND_TYPED[0]
    out = runner.invoke(main, ["convert", ours]).output
    assert out == f"muehle: {ours}\nfen:    {fen}\nmalom:  {malom}\n".replace(ours, str(parse_position(ours)))
    assert runner.invoke(main, ["convert", "--to", "muehle", malom]).output.strip() == str(parse_position(ours))
    assert runner.invoke(main, ["convert", "--to", "fen", malom]).output.strip() == fen
    shown = runner.invoke(main, ["show", fen]).output
    assert f"Position:  {parse_position(ours)}" in shown
    moves = runner.invoke(main, ["moves", "--", malom]).output   # (a text that starts -1: after --)
    assert moves == runner.invoke(main, ["moves", ours]).output
    refused = runner.invoke(main, ["convert", "--to", "muehle", "*****OOO/********/@@****** w p r 3 6 2 7 1 0 0 0 0 0 0 0 4"])
    assert refused.exit_code == 2 and "takes next" in refused.output


@pytest.mark.parametrize("rules, position", [("five-mens", "W:a1 B:e5 w 4 4"), ("three-mens", "W:a1 B:c3 w 2 2"),
                                             ("seven-mens", "W:a1,d4 B:e5 b 5 6")])
def test_convert_off_the_standard_board_writes_muehles_string(rules, position):
    """FEN and Malom's text name the 24 points of the standard board: on another board
    convert writes the muehle string and says why not the others (it refused all of
    them, calling the position a FEN)."""
    runner = CliRunner()
    out = runner.invoke(main, ["convert", "--rules", rules, position])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == f"muehle: {position}" and "FEN names the points of a 24-point board" in lines[1]
    assert "Malom's text names the points" in lines[2] and len(lines) == 3
    obj = json.loads(runner.invoke(main, ["convert", "--rules", rules, "--json", position]).output)
    assert obj["muehle"] == position and obj["fen"] is None and obj["malom"] is None
    assert set(obj["notes"]) == {"fen", "malom"} and obj["note"] == "; ".join(obj["notes"].values())
    refused = runner.invoke(main, ["convert", "--rules", rules, "--to", "fen", position])
    assert refused.exit_code == 2 and refused.output.count("\n") == 1 and "24-point board" in refused.output


@pytest.mark.parametrize("text, words", [
    ("********/********/******** w p r 0 9 0 9 1 0 0 0 0 0 0 0 1", "none it may take"),
    ("O*******/@*******/******** w p r 1 8 1 8 1 0 0 0 0 0 0 0 1", "no mill of White's"),
    ("*****OOO/********/@@****** w p r 3 6 2 7 3 0 0 0 0 0 0 0 4", "to take 3 stones"),
    (",".join(["-1"] * 24) + ",0,0,0,1,0,0,0,0,True,0,0,0,0,malom2", "none it may take"),
])
def test_a_take_no_game_can_have_pending_is_refused(text, words):
    result = CliRunner().invoke(main, ["convert", text])
    assert result.exit_code == 2 and words in result.output and result.output.count("\n") == 1


@pytest.mark.parametrize("fields, words", [
    ("0,x y,0,1,0,0,0,0,False,0,0,0,0", "field 26"),
    ("0,0,0,1,0,0,0,0,False,0,abc,0,0", "field 35"),
    ("0,0,0,1,9,9,0,0,False,0,0,0,0", "every stone is placed"),
])
def test_malom_fields_kept_as_read_are_checked_too(fields, words):
    with pytest.raises(InvalidNotationError, match=words):
        read_malom(",".join(["-1"] * 24) + f",{fields},malom2")


@pytest.mark.parametrize("args", [["W:a1 B:a7 w", "--db", "x"], ["--db", "x", "W:a1 B:a7 w"]])
def test_convert_names_an_option_it_does_not_have(args):
    """convert takes unknown options as words (Malom's text starts -1,): one that starts
    -- is said as an option, not read as a malformed position."""
    result = CliRunner().invoke(main, ["convert", *args])
    assert result.exit_code == 2 and result.output == \
        "muehle: error: no such option '--db' (see 'muehle convert --help')\n", result.output


def test_show_and_moves_count_on_from_a_fens_count_under_their_quiet_limit():
    """A FEN's count of plies without a take is the game's (as everywhere a game starts
    from its text): 60 is past muehle's 50 and draws the game, not Sanmill's 100."""
    fen = "O*O*O***/@*@*@***/******** w m s 3 0 3 0 0 0 0 0 0 0 0 60 30"
    over = CliRunner().invoke(main, ["moves", fen])
    assert over.exit_code == 0 and sorted(over.output.splitlines()) == [
        "no moves: game over, draw (50 plies without a mill)",
        "note: the position's text says 60 plies without a mill, past the 50 that draw the game here "
        "(a game to another limit: --quiet-limit N)"], over.output
    listed = CliRunner().invoke(main, ["moves", "--quiet-limit", "100", "--json", fen])
    assert listed.exit_code == 0 and json.loads(listed.output)["game_over"] is None, listed.output
    assert len(json.loads(listed.output)["moves"]) > 0
    shown = CliRunner().invoke(main, ["show", "--quiet-limit", "100", fen])
    assert shown.exit_code == 0 and "game over" not in shown.output, shown.output


def test_a_fens_count_while_stones_are_in_hand_is_said_not_counted():
    """The quiet-ply rule's count starts when the last stone is placed: a FEN of the
    placement phase that carries one (Sanmill writes 0 there) gets a note that it is not
    counted, not silence that would let a user believe it was."""
    fen = "O*O*****/@*@*****/******** w p p 2 7 2 7 0 0 0 0 0 0 0 30 3"
    shown = CliRunner().invoke(main, ["moves", fen])
    assert shown.exit_code == 0, shown.output
    assert shown.stderr == ("note: the position's text says 30 plies without a mill, but stones are in hand: "
                            "not counted (the count of the quiet-ply rule starts when the last stone is placed)\n")
    counted = CliRunner().invoke(main, ["moves", fen.replace(" 30 3", " 0 3")])
    assert counted.exit_code == 0 and counted.stderr == ""


def test_malom_text_without_dashes_dashes_gets_the_way_to_give_it():
    """Malom's text starts -1, which click reads as an unknown option: the line says to
    put -- before it (notation.md did; the error did not)."""
    text = ",".join(["-1"] * 24) + ",0,0,0,1,0,0,0,0,False,0,0,0,0,malom2"
    result = CliRunner().invoke(main, ["show", text])
    assert result.exit_code == 2 and result.stderr.startswith(
        "muehle: error: No such option '-1': a position in Malom's text starts with -1; put -- before it ("), \
        result.stderr
    assert result.stderr.endswith(" show -- '-1,...')\n")           # (the runner's name for muehle before it)
    assert CliRunner().invoke(main, ["show", "--", text]).exit_code == 0
    other = CliRunner().invoke(main, ["show", "-5"])
    assert other.exit_code == 2 and "Malom" not in other.stderr
    no_position = CliRunner().invoke(main, ["build", "-1"])         # (build takes no position)
    assert no_position.exit_code == 2 and "Malom" not in no_position.stderr


def test_malom_says_what_its_text_has_and_holds_no_second_take():
    """The count of fields was said the wrong way round ('42 fields ..., but it has 38'),
    and two takes pending (a rule of two takes) became one in Malom's text, silently."""
    text = malom_text(read_setup("startpos"))
    longer = ",".join(text.split(",")[:-1] + ["0"] * 4 + ["malom2"])
    with pytest.raises(InvalidNotationError, match=r"^Malom's text has 38 comma-separated fields ending in malom2 "
                                                   r"\(or 34 to 36 ending in malom\), not 42 ending in 'malom2'$"):
        read_malom(longer)
    two = read_setup("OOOO***O/@*@*@***/******** w p r 5 4 3 6 2 0 0 0 0 0 0 0 5")
    assert two.take == 2
    with pytest.raises(InvalidNotationError, match="says whether a take is pending, not that 2 are"):
        malom_text(two)
    result = CliRunner().invoke(main, ["convert", "--rules", "standard-two-takes-two", "--json",
                                       "OOOO***O/@*@*@***/******** w p r 5 4 3 6 2 0 0 0 0 0 0 0 5"])
    obj = json.loads(result.stdout)
    assert obj["malom"] is None and "not that 2 are" in obj["notes"]["malom"]


def test_every_reader_refuses_a_take_pending_without_a_mill_in_the_same_words():
    """show and moves said 'White has closed a mill and takes next' of a FEN whose side
    to move has no mill, where convert said no mill could have been closed."""
    fen = "OOO*****/@*******/******** w p r 3 6 1 8 1 0 0 0 0 0 0 0 3"     # (d5, e5, e4: no mill)
    for command in ("show", "moves", "convert", "query"):
        result = CliRunner().invoke(main, [command, fen])
        assert result.exit_code == 2 and result.stderr == (
            "muehle: error: White is to take a stone, but no mill of White's could have just been closed\n"), \
            (command, result.output)
