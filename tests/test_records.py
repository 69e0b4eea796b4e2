"""Records of other programs (:mod:`solver.records`): the Sanmill app's PGN and PlayOK's
move lists read, PGN written, against the samples of the app's sources; ``muehle record``
and ``analyze`` reading them."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.errors import InvalidNotationError
from solver.game import Game, read_quiet_limit
from solver.records import PLAYOK_POINTS, pgn_text, read_any_record, record_format
from solver.rules import Rules

#: The app's test of a game won by taking Black down to two stones (its 2025 export,
#: four spaces between the moves), which its importer must read back.
SANMILL_WON = """ 1.    g1    b4
 2.    f2    f4
 3.    d1    d6
 4.    a1xf4    f4
 5.    g4    d2
 6.    g7xf4    f4
 7.    c3    c5
 8.    b6    a7
 9.    d3    e3
10.    c3-c4    d2-b2
11.    d1-d2    e3-e4
12.    d2-d1xb2    c5-d5
13.    f2-d2xd6    b4-a4
14.    c4-b4    f4-f2
15.    g7-d7    e4-f4
16.    d3-e3    d5-d6
17.    e3-e4    d6-f6xb4
18.    d2-b2    f2-d2
19.    d7-g7xf4    a7-d7
20.    g4-f4    a4-b4
21.    f4-g4xf6    d2-d5
22.    d1-d2    b4-d6xd2
23.    g4-f4    d5-g4
24.    b2-d2    g4-d5xd2
25.    g1-g4xd6
"""

#: The app's test of its history navigation: a tagged record.
SANMILL_TAGGED = """[Event "Sanmill-Game"]
[Site "Sanmill"]
[Date "2026.1.27"]
[Round "1"]
[White "Human"]
[Black "AI"]
[Result "*"]
[Variant "Nine Men's Morris"]
[PlyCount "4"]

 1.    d2    f4
 2.    f2    d6
"""

#: The same test file's compact record.
SANMILL_COMPACT = """1. d6 f4
2. d2 b4
3. e4 d5
4. c4 d3
5. g4 d7
6. a4 d1
7. e5 e3
8. c3 c5
9. f6 b6
10. a4-a7 b4-a4
11. c4-b4 c5-c4
12. g4-g1 d7-g7
13. g1-g4 g7-d7
14. g4-g1 d7-g7
15. g1-g4 d1-g1
16. a7-d7 g1-d1
"""

#: The app's test of the PlayOK import: g7 closes a7-d7-g7 and takes b6.
PLAYOK = '[Site "PlayOK"]\n[Event "Mill Game"]\n1. 1 4 2. 2 5 3. 3x4 6\n'


def test_the_apps_won_game_reads_and_ends_as_it_says():
    game, notes = read_any_record(SANMILL_WON)
    assert notes == [] and len(game.moves) == 49
    assert str(game.moves[6]) == "a1xf4" and str(game.moves[-1]) == "g1-g4xd6"
    result = game.outcome()
    assert (result.winner, result.reason) == ("w", "fewer than three stones")


def test_the_apps_tagged_and_compact_records_read():
    game, _ = read_any_record(SANMILL_TAGGED)
    assert [str(m) for m in game.moves] == ["d2", "f4", "f2", "d6"]
    game, _ = read_any_record(SANMILL_COMPACT)
    assert len(game.moves) == 32 and str(game.moves[-1]) == "g1-d1"


def test_playok_reads_with_its_numbers():
    assert PLAYOK_POINTS[0] == "a7" and PLAYOK_POINTS[9] == "a4" and PLAYOK_POINTS[-1] == "g1"
    assert record_format(PLAYOK) == "playok" and record_format("1. 5 14 2. 8-9x11") == "playok"
    game, _ = read_any_record(PLAYOK)
    assert [str(m) for m in game.moves] == ["a7", "b6", "d7", "d6", "g7xb6", "f6"]
    # the take as a token of its own, as the app also reads it
    same, _ = read_any_record("1. 1 4 2. 2 5 3. 3 x4 6")
    assert same.moves == game.moves


def test_comments_nags_and_variations_are_skipped_with_a_note():
    text = '[Event "x"]\n\n1. d6 {a comment\nover two lines} f4! $1 2. d2?! (2. a7 (2. g7) b4) 2... b4 ; remark\n3. g4 *'
    game, notes = read_any_record(text)
    assert [str(m) for m in game.moves] == ["d6", "f4", "d2", "b4", "g4"]
    assert notes == ["1 variation skipped (the main line is read)"]


def test_a_set_up_start_and_black_first():
    tags = '[FEN "{}"]\n[SetUp "1"]\n[Variant "muehle:standard-s4"]\n\n'
    with pytest.raises(InvalidNotationError, match="field 7"):      # 3 of Black's, none on the board
        read_any_record(tags.format("********/********/*O*O*O*O b m s 4 0 3 0 0 0 0 0 0 0 0 0 1") + " 1... a4-a7")
    game, _ = read_any_record(tags.format("@*@*@***/********/*O*O*O*O b m s 4 0 3 0 0 0 0 0 0 0 0 0 1")
                              + " 1... d5-c5 2. a1-a4")
    assert game.rules == Rules(stones=4) and str(game.start) == "W:a1,a7,g1,g7 B:d3,d5,e4 b"
    assert [str(m) for m in game.moves] == ["d5-c5", "a1-a4"]


def random_game(rng: random.Random, rules: Rules) -> Game:
    game = Game(None, rules)
    while game.outcome() is None and len(game.moves) < 120:
        game.play(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("rules", [Rules(), Rules(stones=4), Rules.from_name("twelve-mens")])
def test_pgn_written_reads_back_the_same_game(rules):
    rng = random.Random(53)
    for _ in range(40):
        game = random_game(rng, rules)
        text = pgn_text(game, "Human", "muehle")
        back, notes = read_any_record(text)
        assert back.moves == game.moves and back.rules == rules and notes == []
        assert f'[PlyCount "{sum(1 + len(m.takes) for m in game.moves)}"]' in text
        result = game.outcome()
        if result is not None:
            assert text.rstrip().endswith({"w": "1-0", "b": "0-1", "draw": "1/2-1/2"}[result.winner])


@pytest.mark.parametrize("text, words", [
    ("1. d6 f4 2. d6", "line 1 column 13 (d6): d6 is not legal"),
    ('[Event "x"]\n\n1. d6\n2. zz', "line 4 column 4 (zz): cannot read move"),
    ("1. 1 4 2. 2 5 3. 3x2 6", "line 1 column 18 (g7xd7): xd7 is not legal"),
    ("1. 1 4 2. 99", "line 1 column 11: '99': points are numbered 1 to 24"),
    ("1. d6 {open", "line 1 column 7: a comment is opened"),
    ("1. d6 ) f4", "line 1 column 7: a ')' closes no variation"),
    ('[Event "x"\n1. d6', "line 1: a tag is"),
    ('[Variant "Dice Mill"]\n1. d6', "variant 'Dice Mill'"),
    ("1. a7 a1 2. d7 d1 3. g7", "a mill without its take"),
])
def test_what_cannot_be_read_names_the_line_and_column(text, words):
    with pytest.raises(InvalidNotationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_any_record(text)
    result = CliRunner().invoke(main, ["record", "-"], input=text)
    assert result.exit_code == 2 and result.output.count("\n") == 1


def test_record_writes_pgn_and_analyze_reads_it(db4, tmp_path):
    runner = CliRunner()
    path = tmp_path / "game.txt"
    path.write_text(PLAYOK)
    pgn = runner.invoke(main, ["record", "--stones", "4", "--white", "Ann", str(path)]).output
    assert '[White "Ann"]' in pgn and '[Variant "muehle:standard-s4"]' in pgn and " 3. g7xb6 f6 *" in pgn
    (tmp_path / "game.pgn").write_text(pgn)
    ours = runner.invoke(main, ["record", "--to", "muehle", str(tmp_path / "game.pgn")]).output
    assert ours.splitlines()[0] == "rules: standard-s4" and "g7xb6" in ours
    # analyze reads the PGN (a variation in it noted on standard error)
    (tmp_path / "var.pgn").write_text(pgn.replace(" 3. g7xb6", " (2... f6) 3. g7xb6"))
    result = runner.invoke(main, ["analyze", "--db", str(db4), "--json", str(tmp_path / "var.pgn")])
    rows = json.loads(result.stdout)["moves"]
    assert [r["move"] for r in rows] == ["a7", "b6", "d7", "d6", "g7xb6", "f6"]
    assert "note: 1 variation skipped" in result.stderr


def test_playok_honours_its_tags_and_its_remarks():
    # (the app's Twelve Men's Morris loses a full board for White: muehle's morabaraba)
    game, _ = read_any_record("[Variant \"Twelve Men's Morris\"]\n1. 1 4 2. 2 5")
    assert game.rules == Rules.from_name("morabaraba")
    assert '[Variant "muehle:twelve-mens"]' in pgn_text(Game(rules=Rules.from_name("twelve-mens")))
    text = '[FEN "O*******/********/******** b p p 1 8 0 9 0 0 0 0 0 0 0 0 1"]\n[SetUp "1"]\n1... 4 2. 2 5'
    game, _ = read_any_record(text)
    assert str(game.start) == "W:d5 B: b 8 9" and [str(m) for m in game.moves] == ["b6", "d7", "d6"]
    assert record_format("1. 1 4 ; a nice move\n2. 2 5") == "playok"


def test_a_pgn_set_up_with_a_take_pending_begins_with_the_take():
    text = '[FEN "*****OOO/********/@@****** w p r 3 6 2 7 1 0 0 0 0 0 0 0 4"]\n[SetUp "1"]\n1. xd7 a1'
    game, _ = read_any_record(text)
    assert str(game.positions[1]) == "W:c3,c4,c5 B:g7 b 6 7" and str(game.moves[-1]) == "a1"


def test_what_an_error_echoes_is_printable_and_a_missing_file_is_named(tmp_path):
    with pytest.raises(InvalidNotationError) as caught:
        read_any_record("1. d6\x00 f4")
    assert "\x00" not in str(caught.value).replace("\\x00", "")
    result = CliRunner().invoke(main, ["record", str(tmp_path / "none.pgn")])
    assert result.exit_code == 2 and "cannot read" in result.output and "no such file" in result.output


def test_goldtoken_move_lists_read():
    """GoldToken's printed game (as the app's importer reads it): a line a move, its
    header before the first move left out; placements, a take, moves."""
    text = ("GoldToken game 13097650\nQuick Jump\n"
            "1\tPlace to a7\n2\tPlace to b6\n3\tPlace to d7\n4\tPlace to d6\n5\tPlace to g7, take b6\n6\tPlace to f6\n")
    assert record_format(text) == "goldtoken"
    game, _ = read_any_record(text, Rules(stones=4))
    assert [str(m) for m in game.moves] == ["a7", "b6", "d7", "d6", "g7xb6", "f6"]
    quiet = "1\tPlace to a7\n2\tPlace to b6\n3\tPlace to d7\n4\tPlace to d6\n5\tPlace to g4\n6\tPlace to f2\n7\tg4 -> g1\n"
    moved, _ = read_any_record(quiet, Rules(stones=3))
    assert str(moved.moves[-1]) == "g4-g1"
    with pytest.raises(InvalidNotationError, match="GoldToken: line 2 \\(d6\\): d6 is not legal"):
        read_any_record("1\tPlace to d6\n2\tPlace to d6\n")
    with pytest.raises(InvalidNotationError, match="GoldToken: line 3: cannot read 'hello'"):
        read_any_record("1\tPlace to d6\n2\tPlace to f4\nhello\n")


def test_maloms_copied_history_reads_as_a_game():
    """Malom copies a game's history as a line of its clipboard text a state, a mill's
    take a step of its own (its state with the take pending between)."""
    from solver.formats import Setup, malom_text
    from solver.position import parse_position

    rules = Rules(stones=4)
    game = Game.after(parse_position("startpos", rules), "a7 a1 d7 d1 g7xa1 b6".split(), rules)
    states = []
    for pos, move in zip(game.positions, list(game.moves) + [None]):
        states.append(Setup(pos.white, pos.black, pos.white_hand, pos.black_hand, pos.turn))
        if move is not None and move.takes:         # the state between the mill and its take
            after = pos.play_unchecked(move)
            taken = 1 << move.take
            white, black = (after.white, after.black | taken) if pos.turn == "w" else (after.white | taken, after.black)
            states.append(Setup(white, black, after.white_hand, after.black_hand, pos.turn, take=1,
                                placed=pos.in_placement))
    text = "\n".join(malom_text(s, rules.board, rules.stones) for s in states) + "\n"
    assert record_format(text) == "malom"
    read, _ = read_any_record(text, rules)
    assert read.moves == game.moves
    broken = text.splitlines()
    broken[3] = broken[1]                            # a state that is no step on from the one before
    with pytest.raises(InvalidNotationError, match="Malom: line 4: the board is not one step on"):
        read_any_record("\n".join(broken), rules)


def test_a_record_of_blank_lines_or_open_braces_is_read_in_linear_time():
    """Telling the formats apart looked for GoldToken's numbered lines with a pattern
    whose leading spaces ran over every blank line after each line, and for comments'
    ends from each "{": 32,000 blank lines took 8 s, 80,000 braces 4.5 s, a megabyte
    hours (60,000 blank lines some 30 s, 120,000 braces some 10 s); now milliseconds (the bound
    is generous: a test of the growth, not a benchmark)."""
    import time
    for text, moves in (("\n" * 60_000 + "d2", ["d2"]), ("1. d2 " + "  \n" * 60_000, ["d2"]),
                        ("1. d2 " + "{" * 120_000, None)):
        start = time.process_time()
        if moves is None:
            with pytest.raises(InvalidNotationError, match="a comment is opened and not closed"):
                read_any_record(text)
        else:
            assert [str(m) for m in read_any_record(text)[0].moves] == moves
        assert time.process_time() - start < 3
    # a GoldToken list copied from a web page (no-break spaces) is still one
    assert record_format("1\xa0Place to d6\n2\xa0Place to d2\n") == "goldtoken"


def test_pgn_reads_back_what_it_writes_names_with_quotes_and_the_quiet_limit():
    """pgn_text wrote a name's quotes unescaped (the record did not read back), and not
    the game's quiet-ply limit: a game of Sanmill's 100 at count 60 read back as a game
    of 50, over before its first move."""
    import datetime
    game = Game("W:a1,d1,a4 B:a7,d7,g7 w", quiet_limit=100, quiet_plies=60)
    game.play("a4-b4")
    text = pgn_text(game, white='Jo "JJ" \\Smith', event="line\nbreak")
    assert '[White "Jo \\"JJ\\" \\\\Smith"]' in text and '[Event "line break"]' in text
    assert '[QuietLimit "100"]' in text
    back, notes = read_any_record(text)
    assert (back.quiet_limit, back.quiet_counts, [str(m) for m in back.moves]) == (100, (60, 61), ["a4-b4"])
    assert '[QuietLimit' not in pgn_text(Game())          # (50, the rule everyone plays, is not written)
    with pytest.raises(InvalidNotationError, match="tag QuietLimit: the quiet-ply limit is .* from 2 to 1000, not 1$"):
        read_any_record(text.replace('[QuietLimit "100"]', '[QuietLimit "1"]'))
    with pytest.raises(ValueError, match="^date: PGN writes a date YYYY.MM.DD"):
        pgn_text(game, date="2020-01-01")
    with pytest.raises(TypeError, match="^date: a datetime.date or PGN's text of one, not int$"):
        pgn_text(game, date=20200101)
    assert '[Date "2020.01.02"]' in pgn_text(game, date=datetime.date(2020, 1, 2))
    with pytest.raises(InvalidNotationError, match="^PGN: the game starts elsewhere than at the start, and a FEN"):
        pgn_text(Game("W:a5 B:c5 w 5 5", rules="six-mens"))


@pytest.mark.parametrize("written", ["1", "1001", "²", "", "5O", "0100000"])
def test_both_record_kinds_refuse_a_quiet_limit_as_one_reader_does(written):
    """muehle's records (``quiet-limit:``) and PGN (``QuietLimit``) read the limit by one
    reader, so they take and refuse the same texts and say the same of them."""
    said = f"the quiet-ply limit is a whole number of plies from 2 to 1000, not "
    game = Game("W:a1,d1,g1 B:a7,d7,f6,b6 b", Rules(stones=4), quiet_limit=100)
    game.play("b6-b4")
    own = game.record().replace("quiet-limit: 100", f"quiet-limit: {written}")
    pgn = pgn_text(game).replace('[QuietLimit "100"]', f'[QuietLimit "{written}"]')
    with pytest.raises(InvalidNotationError, match=f"^record: quiet-limit: {said}"):
        Game.from_record(own, Rules(stones=4))
    with pytest.raises(InvalidNotationError, match=f"^PGN: tag QuietLimit: {said}"):
        read_any_record(pgn)
    assert read_quiet_limit("0100") == 100 and read_quiet_limit("7") == 7


def test_long_movetexts_and_long_tags_are_read_in_linear_time_and_memory():
    """Each word's line and column were counted from the start of the text (a 1.2 MB
    PGN of NAGs took 160 s), and a tag's value was matched a character at a time by a
    repeated group (a 4 MB name held 730 MB): now a pass each (the bounds are generous:
    a test of the growth, not a benchmark)."""
    import time
    import tracemalloc
    start = time.process_time()
    game, _ = read_any_record("1. d6 f4 " + "$1 " * 100_000 + "\n2. d2")
    assert [str(m) for m in game.moves] == ["d6", "f4", "d2"]
    assert time.process_time() - start < 3
    tracemalloc.start()
    try:
        game, _ = read_any_record('[White "' + "a" * 2_000_000 + '"]\n1. d6 f4\n')
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(game.moves) == 2 and peak < 60_000_000        # (the text itself is 2 MB; 375 MB before)


def test_pgn_tags_may_share_a_line_and_a_second_game_is_refused():
    game, _ = read_any_record('[Event "x"] [Variant "muehle:standard-s4"]\n\n1. d6 f4\n')
    assert game.rules == Rules(stones=4) and len(game.moves) == 2
    with pytest.raises(InvalidNotationError, match=r"^PGN: line 4 column 1: a tag after the moves \(a second game"):
        read_any_record('[Event "x"]\n1. d6 f4\n\n[Event "y"]\n1. d2\n')
    with pytest.raises(InvalidNotationError, match=r"^line 2: a tag is \[Name \"value\"\], not '\[Black'"):
        read_any_record('[Event "x"]\n[White "a"] [Black\n1. d6\n')


def test_a_remark_in_a_variation_is_a_remark_and_comments_do_not_make_goldtoken():
    """';' runs to the end of its line inside a variation too (its ')' closed the
    variation), and a comment that looks like a GoldToken line leaves a PGN a PGN."""
    game, notes = read_any_record("1. d6 (f4 ; x )\n d2) f4\n")
    assert [str(m) for m in game.moves] == ["d6", "f4"] and notes == ["1 variation skipped (the main line is read)"]
    text = '[Event "x"]\n1. d6 f4 {\n3 Place to d2}\n'
    assert record_format(text) == "pgn" and [str(m) for m in read_any_record(text)[0].moves] == ["d6", "f4"]


def test_the_result_ends_the_moves_and_a_resignation_reads_back():
    """The result marker (else the Result tag) is read: a win where the game goes on is
    the loser's resignation (muehle writes a resignation so: it was lost on a round
    trip), a result the game contradicts is refused, a move after the marker too."""
    four = Rules(stones=4)
    game = Game(rules=four)
    game.play("d6")
    game.play("f4")
    game.resign("w")
    back, _ = read_any_record(pgn_text(game))
    assert back.outcome() == game.outcome() and back.record() == game.record()
    tagged, _ = read_any_record('[Variant "muehle:standard-s4"] [Result "1-0"]\n1. d6 f4\n')
    assert str(tagged.outcome()) == "White wins (Black resigns)"
    drawn, notes = read_any_record('[Variant "muehle:standard-s4"]\n1. d6 f4 1/2-1/2\n')
    assert drawn.outcome() is None and "no end of the game under these rules" in notes[0]
    with pytest.raises(InvalidNotationError, match=r"^PGN: line 2 column 17 \(d2\): a move after the result 1-0"):
        read_any_record('[Variant "muehle:standard-s4"]\n1. d6 f4 1-0 2. d2\n')
    # a result that is not how the game ends under these rules (another program's rules:
    # the Sanmill app loses Twelve Men's Morris on a full board) is noted; the end stands
    won = Game("W:a1,d1,g4 B:a7,d7 w", four)       # (over already: Black has two stones)
    back, notes = read_any_record(pgn_text(won).replace("1-0", "0-1"))
    assert str(back.outcome()) == "White wins (fewer than three stones)"
    assert notes == ["the result 0-1 is not how the game ends under rules standard-s4: White wins (fewer "
                     "than three stones), which stands"]


def test_a_game_of_another_quiet_limit_reads_with_it_given_and_says_so_without():
    """The Sanmill app's PGN names no limit for its 100: a game with more than 50 quiet
    plies then reads only with the limit given (--quiet-limit), and the refusal says so;
    a record that names a limit must agree with one given."""
    four = Rules(stones=4)
    game = Game("W:a1,d1,g4,b4 B:a7,d7,f6,b6 w", four, quiet_limit=100)
    rng = random.Random(5)
    while game.quiet_counts[-1] < 60:          # (quiet moves that neither repeat nor block)
        for move in rng.sample(game.legal_moves(), len(game.legal_moves())):
            if move.take is None:
                game.play(move)
                if game.outcome() is None:
                    break
                game.undo()
        else:
            raise AssertionError("no quiet move goes on")
    # (the Sanmill app's PGN: no tag for its 100; muehle's own writes none for 50)
    text = pgn_text(game).replace('[QuietLimit "100"]\n', "").replace('[Site "muehle"]', '[Site "Sanmill"]')
    with pytest.raises(InvalidNotationError, match=r"the game is over \(draw \(50 plies without a mill\)\) "
                                                   r"\(a game of another quiet-ply limit than 50, as the Sanmill app's 100"):
        read_any_record(text)
    back, _ = read_any_record(text, quiet_limit=100)
    assert back.moves == game.moves and back.quiet_limit == 100
    with pytest.raises(InvalidNotationError, match="the record's game is drawn after 100 quiet plies, not the 50"):
        read_any_record(pgn_text(game), quiet_limit=50)
    own = game.record()
    assert Game.from_record(own, four, quiet_limit=100).moves == game.moves
    # muehle's own records and PGN name their limit, none written being 50: a limit
    # given against it is refused, not read over it
    with pytest.raises(InvalidNotationError, match="drawn after 50 quiet plies, not the 100 asked for"):
        Game.from_record("rules: standard-s4\nd6\n", four, quiet_limit=100)
    with pytest.raises(InvalidNotationError, match="drawn after 50 quiet plies, not the 100 asked for"):
        read_any_record(pgn_text(Game(rules=four)), quiet_limit=100)
    result = CliRunner().invoke(main, ["record", "--rules", "standard-s4", "--quiet-limit", "100", "--to", "muehle",
                                       "-"], input=text)
    assert result.exit_code == 0 and "quiet-limit: 100" in result.stdout


def test_an_empty_game_writes_a_record_that_reads_back(tmp_path):
    result = CliRunner().invoke(main, ["record", "--to", "muehle", "-"], input='[Event "x"]\n')
    assert result.exit_code == 0 and result.stdout == "start: startpos\n"
    (tmp_path / "empty.txt").write_text(result.stdout)
    again = CliRunner().invoke(main, ["record", "--to", "muehle", str(tmp_path / "empty.txt")])
    assert again.exit_code == 0 and again.stdout == "start: startpos\n"


def test_a_start_with_a_take_pending_is_noted():
    """A FEN with a take pending starts the game a move before, with a move no one
    played (one that could have closed the mill): said in a note."""
    text = ('[Variant "muehle:standard-s4"]\n[FEN "********/*@******/@*@O*OOO w m r 4 0 3 0 1 0 0 0 0 0 0 0 1"]\n'
            '[SetUp "1"]\n\n1. xf6\n')
    game, notes = read_any_record(text)
    assert [str(m) for m in game.moves] == ["b4-a4xf6"]
    assert notes == ["the start has a take pending: the game starts before a move that closes such a mill "
                     "(b4-a4, one of those that could have), and its records show that move"]


def test_analyze_calls_the_move_that_repeats_a_third_time_a_draw_after_it(db4, tmp_path):
    """The move that draws by threefold repetition was marked as losing the win with
    the tables' value after it (a loss), where the game is a draw."""
    path = tmp_path / "rep.txt"
    path.write_text("rules: standard-s4\nstart: W:a1,d1,g4,b4 B:a7,d7,f6 w\n"
                    "b4-b2 f6-f4 b2-b4 f4-f6 b4-b2 f6-f4 b2-b4 f4-f6\n")
    result = CliRunner().invoke(main, ["analyze", "--db", str(db4), "--json", str(path)])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    last = obj["moves"][-1]
    assert obj["result"] == "draw (threefold repetition)"
    assert (last["before"], last["after"], last["after_plies"], last["blunder"]) == ("win", "draw", None,
                                                                                      "lost the win")
    assert all(row["after"] == "loss" for row in obj["moves"][:-1])


def test_record_keeps_the_players_event_and_date_of_a_pgn():
    """A PGN written from a PGN keeps its White, Black, Event and Date tags (they were
    dropped, the date made today's); --white and --black still override them."""
    text = '[Event "Club"]\n[Date "2025.03.04"]\n[White "Ann"]\n[Black "Bo"]\n\n1. d6 f4\n'
    result = CliRunner().invoke(main, ["record", "-"], input=text)
    assert result.exit_code == 0
    for tag in ('[Event "Club"]', '[Date "2025.03.04"]', '[White "Ann"]', '[Black "Bo"]'):
        assert tag in result.stdout, result.stdout
    again = CliRunner().invoke(main, ["record", "--white", "Cy", "-"], input=text.replace("2025.03.04", "2025.??.??"))
    assert '[White "Cy"]' in again.stdout and '[Black "Bo"]' in again.stdout
    assert '[Date "2025.??.??"]' in again.stdout                 # (PGN's date of parts not known, kept)
    odd = CliRunner().invoke(main, ["record", "-"], input=text.replace("2025.03.04", "March 4") + "")
    assert '[Date "March 4"]' not in odd.stdout                  # (no PGN date: today's)
    kept = CliRunner().invoke(main, ["record", "-"], input='[Site "PlayOK"]\n[Round "3"]\n[White "Ann"]\n1. 5 14\n')
    assert kept.exit_code == 0 and '[Site "muehle"]' in kept.stdout and '[Round "3"]' in kept.stdout \
        and '[White "Ann"]' in kept.stdout, kept.output           # (PlayOK's site: read as PlayOK's)


def test_an_unclosed_comment_is_named_once_by_its_reader_at_the_records_own_line():
    """The comment's error carried 'PGN:' twice (and PlayOK's 'PlayOK: PGN:'), and
    counted its line from the movetext, not from the record's first line."""
    with pytest.raises(InvalidNotationError, match=r"^PGN: line 3 column 7: a comment is opened and not closed$"):
        read_any_record('[Event "x"]\n\n1. d6 {oops f4\n')
    with pytest.raises(InvalidNotationError, match=r"^PlayOK: line 2 column 6: a comment is opened"):
        read_any_record('[Site "PlayOK"]\n1. 5 {14\n')


def test_a_result_at_the_quiet_draw_of_a_game_of_another_limit_says_how_to_read_it():
    four = Rules(stones=4)
    game = Game("W:a1,d1,g4,b4 B:a7,d7,f6,b6 w", four)
    rng = random.Random(5)
    while game.outcome() is None:
        for move in rng.sample(game.legal_moves(), len(game.legal_moves())):
            if move.take is None:
                game.play(move)
                if game.outcome() is None or "50 plies" in str(game.outcome()):
                    break
                game.undo()
    text = pgn_text(game).replace("1/2-1/2", "1-0").replace('[Site "muehle"]', '[Site "Sanmill"]')
    back, notes = read_any_record(text)
    assert str(back.outcome()) == "draw (50 plies without a mill)"
    assert len(notes) == 1 and "the result 1-0 is not how the game ends" in notes[0] \
        and "as the Sanmill app's 100, is read at its own" in notes[0], notes
