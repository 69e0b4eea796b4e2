"""Dice mill (issue 56): the rules of the throw against hand-typed board facts, the
tables against the readable reference on every position of small games (in the tables'
fixed point exactly, and against exact rationals within the stated rounding), the
kernel against the reference on random positions of larger ones, and the files."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from solver import dice_tables as dt
from solver import storage
from solver.build import build
from solver.dice import (DEFAULT, UNIT, DiceRule, Expected, expectimax, mix, play, position_value,
                         replacements, require_dice)
from solver.errors import CorruptDatabaseError, ForeignDatabaseError, IllegalMoveError, UnsupportedRulesError
from solver.index import Subspace
from solver.kernels import kernels_for
from solver.position import Position, parse_move, parse_position
from solver.probe import Database
from solver.rules import Rules

SIX4 = Rules.from_name("six-mens-s4")
STD4 = Rules(stones=4)


def built(root, rules, *dice_rules):
    build(root, rules, phase="moving", progress=False)
    for d in dice_rules:
        dt.build(root, rules, d)
    return root


@pytest.fixture(scope="module")
def six4(tmp_path_factory):
    return built(tmp_path_factory.mktemp("dice-six4"), SIX4, DEFAULT, DiceRule("sum14", False))


@pytest.fixture(scope="module")
def std4(tmp_path_factory):
    return built(tmp_path_factory.mktemp("dice-std4"), STD4, DEFAULT, DiceRule("double"))


def positions(sub: Subspace):
    """Every position stored in ``sub`` (its real slots), with its slot."""
    for slot in range(sub.slots):
        if sub.is_real(slot):
            own, opp = sub.position(slot)
            yield slot, Position.from_view(own, opp, sub.own_hand, sub.opp_hand, board=sub.board)


def leaf_of(root, rules):
    db = Database(root, rules)
    return lambda pos: db.probe(pos, search=False).wdl


# --- the rules, by hand ------------------------------------------------------------------

def test_throw_rules_count_the_216_throws():
    assert DiceRule("triple").num == 6                 # 111 .. 666
    assert DiceRule("double").num == 216 - 6 * 5 * 4   # all but three different
    assert DiceRule("sum18").num == 1 and DiceRule("sum17").num == 4 and DiceRule("sum14").num == 35
    assert DiceRule("sum10").num == 216 - 81            # 3..9: 81 throws (the sums are symmetric about 10.5)
    assert DiceRule.from_name(" Sum14-No-Take ") == DiceRule("sum14", False)
    for bad in ["", "sum9", "sum19", "triple-no", "quad", "triple-no-take-no-take"]:
        with pytest.raises(ValueError, match="^no dice rule") as err:
            DiceRule.from_name(bad)
        assert "\n" not in str(err.value)


def test_dice_needs_separate_placement_and_mills_that_take():
    for name in ["three-mens", "lasker"]:
        with pytest.raises(UnsupportedRulesError) as err:
            require_dice(Rules.from_name(name))
        assert "\n" not in str(err.value)
    require_dice(Rules.from_name("morabaraba"))
    require_dice(Rules.from_name("no-jumping-take-none"))


def test_replacements_by_hand():
    rules = Rules()
    # White's mill a1-d1-g1 stands; Black (to place) with a7, d7: any of the three stones
    pos = parse_position("W:a1,d1,g1,b2 B:a7,d7 b 5 7")
    assert [str(m) for m in replacements(pos, rules)] == ["a1", "d1", "g1"]
    # b2 is in no mill; d1 is no free point: neither is an ordinary placement there
    assert "d1" not in [str(m) for m in pos.legal_moves(rules)]
    after = play(pos, parse_move("d1"), rules, DEFAULT, powered=True)
    assert str(after) == "W:a1,b2,g1 B:a7,d1,d7 w 5 6"
    with pytest.raises(IllegalMoveError, match="only a throw that gives the power"):
        play(pos, parse_move("d1"), rules, DEFAULT, powered=False)
    with pytest.raises(IllegalMoveError, match="stands in no mill"):
        play(pos, parse_move("b2"), rules, DEFAULT, powered=True)
    # Black's stone on g1 closes g1-g4-g7 with g4, g7: it takes, and White's mill is broken,
    # so a1 and d1 are as takeable as b2
    pos = parse_position("W:a1,d1,g1,b2 B:g4,g7 b 5 7")
    moves = [str(m) for m in replacements(pos, rules)]
    assert sorted(moves) == ["a1", "d1", "g1xa1", "g1xb2", "g1xd1"]
    assert [str(m) for m in replacements(pos, rules, DiceRule("triple", False))] == ["a1", "d1", "g1"]
    with pytest.raises(IllegalMoveError, match="names the stone it takes"):
        play(pos, parse_move("g1"), rules, DEFAULT, powered=True)
    assert str(play(pos, parse_move("g1xb2"), rules, DEFAULT, True)) == "W:a1,d1 B:g1,g4,g7 w 5 6"
    # no power in the moving phase, nor without an enemy mill
    assert replacements(parse_position("W:a1,d1,g1 B:a7,d7,g4 b"), rules) == []
    assert replacements(parse_position("W:a1,d1,b2 B:a7,d7 b 5 7"), rules) == []


def test_values_by_hand():
    three = Rules(stones=3)
    draw = lambda pos: "draw"     # noqa: E731  (every moving position a draw: only placement decides)
    # White to place its last stone, Black's mill a7-d7-g7 stands, White's two can close none:
    # Black will not lose, and White may win only by the power (take a7, d7 or g7: Black has 2 left)
    pos = parse_position("W:b2,f6 B:a7,d7,g7 w 1 0", three)
    exact = expectimax(pos, three, DEFAULT, draw, exact=True)
    assert exact == (Fraction(1, 36), Fraction(1))
    assert expectimax(pos, three, DEFAULT, draw) == (mix((UNIT, UNIT), (0, UNIT), 6))
    assert Expected.of(expectimax(pos, three, DEFAULT, draw)).win == pytest.approx(1 / 36, abs=1e-5)
    # the same for Black to move after it: seen by Black, (1 - N, 1 - W)
    assert expectimax(pos.swap_colours(), three, DEFAULT, draw, exact=True) == (Fraction(1, 36), 1)


def test_mix_rounds_to_nearest_and_keeps_w_below_n():
    rng = random.Random(5)
    for _ in range(20_000):
        a = sorted(rng.randrange(UNIT + 1) for _ in range(2))
        b = sorted(rng.randrange(UNIT + 1) for _ in range(2))
        num = rng.randrange(217)
        got = mix(tuple(a), tuple(b), num)
        for g, x, y in zip(got, a, b):
            exact = Fraction(num * x + (216 - num) * y, 216)
            assert abs(g - exact) <= Fraction(1, 2)
        assert got[0] <= got[1]


# --- the tables against the reference ----------------------------------------------------

#: The reference's values of Six Men's Morris with four stones (expectimax's memo) by dice
#: rule: the tests that recompute them share them (a test run alone makes its own).
_MEMOS: dict = {}


def _key(p: Position) -> tuple:
    """expectimax's key: one entry for symmetric positions (the index's slot)."""
    m, o = p.own.bit_count(), p.opp.bit_count()
    return m, o, p.own_hand, p.opp_hand, _INDEX(m, o, p.own, p.opp)


_INDEX = kernels_for(SIX4.board).index_position


@pytest.mark.parametrize("dice", [DEFAULT, pytest.param(DiceRule("sum14", False), marks=pytest.mark.slow)],
                         ids=str)
def test_tables_equal_the_reference_on_every_position(six4, dice):
    """Every stored position of Six Men's Morris with four stones: the kernel's table
    equals the reference's recursion in the same fixed point, and the exact rational
    value within half a unit a placement left."""
    leaf = leaf_of(six4, SIX4)
    memo, exact_memo = _MEMOS.setdefault(dice, {}), {}
    counted = mixed = 0
    for sub in dt.plan(SIX4):
        stored = dt.read(six4, SIX4, dice, sub)
        for slot, pos in positions(sub):
            fixed = expectimax(pos, SIX4, dice, leaf, memo=memo, key=_key)
            assert dt.packed(fixed) == int(stored[slot]), (sub.name, slot, str(pos))
            exact = expectimax(pos, SIX4, dice, leaf, exact=True, memo=exact_memo, key=_key)
            bound = Fraction(sub.own_hand + sub.opp_hand, 2)
            assert abs(fixed[0] - exact[0] * UNIT) <= bound and abs(fixed[1] - exact[1] * UNIT) <= bound
            counted += 1
            mixed += 0 < exact[0] < 1 or 0 < exact[1] < 1
    assert counted == sum(s.count_real() for s in dt.plan(SIX4))
    assert mixed > 1000        # the dice decide many positions: the comparison is not of certainties


@pytest.mark.parametrize("dice", [DEFAULT, DiceRule("double")], ids=str)
def test_kernel_equals_the_reference_on_random_positions(std4, dice):
    """Random positions of every placement subspace of the 4-stone standard game: the
    stored value is the reference's recursion over the stored values of its moves."""
    tables = dt.DiceTables(std4, STD4, dice)
    child = tables.fixed
    rng = random.Random(56)
    for sub in dt.plan(STD4):
        stored = dt.read(std4, STD4, dice, sub)
        real = np.flatnonzero(stored != 0xFFFF)
        for slot in rng.sample(list(real), min(60, len(real))):
            own, opp = sub.position(int(slot))
            pos = Position.from_view(own, opp, sub.own_hand, sub.opp_hand)
            assert dt.packed(position_value(pos, STD4, dice, child)) == int(stored[slot]), (sub.name, slot)


def test_start_values_and_probes(six4, std4):
    for root, rules in [(six4, SIX4), (std4, STD4)]:
        with dt.DiceTables(root, rules) as tables:
            start = parse_position("startpos", rules)
            value = tables.probe(start)
            assert value.win + value.draw + value.loss == pytest.approx(1, abs=1e-4)
            moves = tables.probe_moves(start, powered=False)
            assert len(moves) == rules.board.num_points
            # the start's value is the mix of its best moves' (no replacement at the start)
            best = moves[0].fixed
            assert tables.fixed(start) == mix(best, best, DEFAULT.num)
            # a moving position: the plain tables' certain result
            moving = "W:a1,d1,g1 B:a7,d7,g7 w" if rules is STD4 else "W:a1,c1,e1 B:a5,c5,e5 w"
            wdl = Database(root, rules).probe(moving).wdl
            assert tables.probe(moving) == Expected(*(float(wdl == r) for r in ("win", "draw", "loss")))


def test_powered_moves_include_replacements(std4):
    with dt.DiceTables(std4, STD4) as tables:
        pos = parse_position("W:a1,d1,g1 B:a7,d7 b 1 2", STD4)
        powered = tables.probe_moves(pos, powered=True)
        plain = tables.probe_moves(pos, powered=False)
        assert {str(m.move) for m in powered} - {str(m.move) for m in plain} == {"a1", "d1", "g1"}
        assert all(m.replacement == (str(m.move) in ("a1", "d1", "g1")) for m in powered)
        # Black (3 + 1 stones) replaces into White's mill: White keeps 2 + 1, then must place...
        assert powered[0].fixed >= plain[0].fixed


# --- files ---------------------------------------------------------------------------------

def test_files_are_checked_resumed_and_refused_where_foreign(six4, tmp_path):
    import shutil

    root = tmp_path / "db"
    shutil.copytree(six4, root)
    reports = dt.build(root, SIX4, DEFAULT)
    assert reports and all(r.skipped for r in reports)          # a rerun resumes: nothing to do
    checked, problems = dt.check_files(root, SIX4, DEFAULT)
    assert len(checked) == len(dt.plan(SIX4)) and problems == []
    sub = dt.plan(SIX4)[-2]
    path = dt.dice_path(root, SIX4, sub, DEFAULT)
    # a dice file is not a plain one, nor one of another dice rule, and the other way round
    with pytest.raises(ForeignDatabaseError, match="dice mill's values, not plain ones"):
        storage.read_subspace(path, SIX4, sub.m, sub.o, own_hand=sub.own_hand, opp_hand=sub.opp_hand)
    other = dt.dice_path(root, SIX4, sub, DiceRule("double"))
    path.rename(other)
    with pytest.raises(ForeignDatabaseError, match="not 'double'"):
        dt.read(root, SIX4, DiceRule("double"), sub)
    other.rename(path)
    build(root, SIX4, phase="placement", progress=False)
    shutil.copy(storage.placement_path(root, SIX4, sub), other)
    with pytest.raises(ForeignDatabaseError, match="plain values, not dice mill's"):
        dt.read(root, SIX4, DiceRule("double"), sub)
    other.unlink()
    # a stored value changed (its chunk checks made again): the consistency check finds it
    values = dt.read(root, SIX4, DEFAULT, sub).copy()
    slot = int(np.flatnonzero(values != 0xFFFF)[0])
    values[slot] = dt.packed((0, 0)) if values[slot] != 0 else dt.packed((0, UNIT))
    storage.write_file(path, SIX4, {sub: values}, dice=DEFAULT.name)
    checked, problems = dt.check_files(root, SIX4, DEFAULT)
    # (and its parent, which the changed value no longer gives its stored values)
    assert problems[0] == f"{path}: 1 slot(s) differ from what their children give"
    # a damaged byte: refused as damaged, and a build makes the file again
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabaseError):
        dt.read(root, SIX4, DEFAULT, sub)
    rebuilt = [r for r in dt.build(root, SIX4, DEFAULT) if not r.skipped]
    assert [r.subspace for r in rebuilt] == [sub]
    assert dt.check_files(root, SIX4, DEFAULT)[1] == []


def test_a_dry_run_counts_an_unusable_dice_file_to_build(std4, tmp_path):
    import shutil

    from click.testing import CliRunner

    from solver.cli import main

    shutil.copytree(storage.rules_dir(std4, STD4), tmp_path / STD4.name)
    subs = dt.plan(STD4)
    dt.dice_path(tmp_path, STD4, subs[0], DEFAULT).write_bytes(b"")
    whole = dt.dice_path(std4, STD4, subs[4], DEFAULT).read_bytes()
    dt.dice_path(tmp_path, STD4, subs[4], DEFAULT).write_bytes(whole[:3000])      # (cut short)
    dt.dice_path(tmp_path, STD4, subs[5], DEFAULT).unlink()
    dt.dice_path(tmp_path, STD4, subs[5], DEFAULT).mkdir()
    plan = CliRunner().invoke(main, ["build", "--db", str(tmp_path), "--rules", STD4.name, "--phase", "dice",
                                     "--dice", "triple", "--dry-run"])
    assert plan.exit_code == 0 and f"{len(subs)} file(s) ({len(subs) - 3} built)" in plan.output, plan.output


def test_a_damaged_dice_file_is_named_once_with_its_build(std4, tmp_path):
    """query names the build that makes a damaged dice file again; check names each bad
    file once, a folder in a file's place with its own advice only."""
    import shutil

    from click.testing import CliRunner

    from solver.cli import main

    shutil.copytree(storage.rules_dir(std4, STD4), tmp_path / STD4.name)
    start = dt.dice_path(tmp_path, STD4, Subspace.of(parse_position("startpos", STD4)), DEFAULT)
    start.write_bytes(start.read_bytes()[:3000])
    other = dt.dice_path(tmp_path, STD4, dt.plan(STD4)[3], DEFAULT)
    other.unlink()
    other.mkdir()
    cli = lambda *args: CliRunner().invoke(main, [*args, "--db", str(tmp_path), "--rules", STD4.name])  # noqa: E731
    query = cli("query", "--dice", "triple", "startpos")
    assert query.exit_code == 2 and query.output.count("\n") == 1, query.output
    assert query.output.rstrip().endswith("--phase dice"), query.output     # (triple: the default)
    check = cli("check", "--phase", "dice", "--dice", "triple")
    lines = check.output.splitlines()
    assert check.exit_code == 1 and len(lines) == len(set(lines)) == 2, check.output
    assert any(line.endswith("move it away, then build again") for line in lines), check.output


def test_build_needs_the_plain_moving_pairs(tmp_path):
    with pytest.raises(Exception) as err:
        dt.build(tmp_path, SIX4, DEFAULT)
    assert "3-3" in str(err.value) and "\n" not in str(err.value)


# --- playing -------------------------------------------------------------------------------

def test_a_game_keeps_each_turns_throw():
    from solver.dice import DiceGame, Throw

    rules = Rules()
    game = DiceGame(rules, DEFAULT, parse_position("W:a1,d1,g1 B:a7,d7 b 6 7"))
    with pytest.raises(ValueError, match="throw the dice first"):
        game.play(parse_move("b6"))
    game.pending = Throw((3, 3, 3), True)            # a triple: the power
    assert {"a1", "d1", "g1"} <= {str(m) for m in game.legal_moves()}
    game.play(parse_move("d1"))
    assert str(game.position) == "W:a1,g1 B:a7,d1,d7 w 6 6" and game.pending is None
    game.roll()
    thrown = game.pending
    game.play(game.legal_moves()[0])
    assert game.undo() and game.pending == thrown    # taken back: the turn keeps its throw
    game.undo()
    assert game.pending == Throw((3, 3, 3), True)
    game.pending = Throw((1, 2, 3), False)
    with pytest.raises(IllegalMoveError, match="only a throw that gives the power"):
        game.play(parse_move("d1"))
    rolls = [DiceGame(rules, seed=seed).roll() for seed in range(3000)]
    assert all(r.powered == (r.dice[0] == r.dice[1] == r.dice[2]) for r in rolls)
    assert 40 < sum(r.powered for r in rolls) < 130        # 1/36 of 3000 is 83


def test_a_replay_meets_the_same_throws():
    from solver.dice import DiceGame

    rules = Rules(stones=4)
    for seed in range(40):
        game = DiceGame(rules, seed=seed)
        while game.in_placement:
            game.roll()
            game.play(game.legal_moves()[-1])       # the last: a replacement where there is one
        texts = [str(m) for m in game.moves]
        again, rest = DiceGame.replay(rules, DEFAULT, game.positions[0], texts + ["a1-a4"], seed)
        assert again.throws == game.throws and again.position == game.position
        assert rest == ["a1-a4"]          # (the moving phase's, for a game without dice)
    with pytest.raises(IllegalMoveError, match="^move 2: "):
        DiceGame.replay(rules, DEFAULT, parse_position("startpos", rules), ["a1", "a1"], 0)


def _session(root, rules, human, seed, level="perfect"):
    import random as _random

    from solver.cli.games import DiceSession
    from solver.dice import DiceGame

    game = DiceGame(rules, DEFAULT, seed=seed)
    tables = dt.DiceTables(root, rules) if level == "perfect" else None
    lines = []

    def read(prompt):           # the human: the tables' best move (or the first, at random levels)
        lines.append(prompt)
        if prompt.startswith("game over"):
            return "quit"
        if game.pending.powered and replacements(game.position, rules):
            return str(replacements(game.position, rules)[0])
        return str(game.legal_moves()[0])

    session = DiceSession(game, human, tables, _random.Random(seed), read=read, out=lines.append)
    return game, session, lines, tables


def test_the_computer_places_by_the_tables_and_the_game_reaches_the_moving_phase(six4):
    powered_seen = 0
    for seed in range(12):
        game, session, lines, tables = _session(six4, SIX4, "w" if seed % 2 else "b", seed)
        end = session.run()
        assert end is None or (end.white_hand == end.black_hand == 0 and end == game.position)
        # every computer move was a best move for its throw
        for before, move, t in zip(game.positions, game.moves, game.throws):
            if before.turn != session.human:
                best = tables.probe_moves(before, t.powered)
                assert move in [m.move for m in best if m.fixed == best[0].fixed]
        assert sum(line.count(" throws ") for line in lines) == len(game.moves)
        powered_seen += sum(t.powered for t in game.throws)
    assert powered_seen > 0


def test_play_dice_from_the_command_line(six4, tmp_path):
    import subprocess
    import sys

    run = lambda *args, stdin="": subprocess.run(   # noqa: E731
        [sys.executable, "-m", "solver", "play", "--db", str(six4), "--rules", SIX4.name, *args],
        input=stdin, capture_output=True, text=True, timeout=120)
    out = run("--dice", "triple", "--seed", "4", "--colour", "black", "--level", "perfect", stdin="help\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "White throws " in out.stdout and "White (computer) plays " in out.stdout
    assert "lets it put its stone on a point where a stone of an enemy mill stands" in out.stdout.replace("\n", " ")
    assert "You leave the game unfinished." in out.stdout
    # tables not built for another throw rule: one line, with the build that makes them
    out = run("--dice", "sum10", "--level", "perfect")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "--phase dice --dice sum10" in out.stderr
    out = run("--dice", "sum10", "--level", "easy", "--seed", "1", stdin="quit\n")
    assert out.returncode == 0 and "computer (easy)" in out.stdout
    for bad in (["--dice", "sum3"], ["--dice", "triple", "--rules", "three-mens"]):
        out = run(*bad)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr


def test_query_dice_takes_the_game_as_a_plain_query_does(std4):
    """``query --dice`` keeps the rules of play: the moving phase has no dice, so a
    moving position is the plain query's (its count, repetition, --quiet-plies checked),
    and a placement position refuses a count (there is none while stones are in hand)."""
    from click.testing import CliRunner

    from solver.cli import main

    def query(*args):
        result = CliRunner().invoke(main, ["query", "--db", str(std4), "--rules", STD4.name,
                                           "--dice", "double", *args])
        return result.exit_code, result.stdout, result.output
    moving = "*******@/******@O/O@@****O w m s 3 0 4 0 0 0 0 0 0 0 0 46 1"     # (a FEN, count 46)
    plain = CliRunner().invoke(main, ["query", "--db", str(std4), "--rules", STD4.name, "--json", moving])
    code, out, both = query("--json", moving)
    assert code == 0 and out == plain.stdout and "no dice are thrown" in both
    # a count past the limit, and moves that reach it: the game is drawn, as plainly
    code, out, both = query(moving.replace(" 46 ", " 60 "))
    assert code == 0 and "draw" in out and "the game as given is over" in both
    code, out, both = query("--after", "b6-g1", moving.replace(" 46 ", " 49 "))
    assert code == 0 and "draw" in out and "the moves given end the game" in both
    # a repetition ends the game; a count where stones are in hand is refused
    cycle = "b2-b4 f6-f4 b4-b2 f4-f6"
    code, _, both = query("--after", f"a1 d7 a4 g7 b2 f6 d2 b6 {cycle} {cycle} b2-b4", "startpos")
    assert code == 2 and "threefold repetition" in both
    code, _, both = query("--quiet-plies", "20", "W:a1 B: b 3 4")
    assert code == 2 and both.count("\n") == 1 and "stones in hand" in both
    code, out, _ = query("--json", "W:a1 B: b 3 4")
    assert code == 0 and '"expected"' in out and '"dice": "double"' in out


# --- records with throws, and their review --------------------------------------------------

def _random_game(rules, dice, seed, quiet_moves=6):
    """A game of dice mill of random moves (its own throws) and some moves after it."""
    from solver.dice import DiceGame
    from solver.game import Game

    rng = random.Random(seed)
    game = DiceGame(rules, dice, seed=seed)
    while game.in_placement:
        game.roll()
        game.play(rng.choice(game.legal_moves()))
    rest = Game(game.position, rules)
    for _ in range(quiet_moves):
        if rest.outcome() is not None:
            break
        rest.play(rng.choice(rest.legal_moves()))
    return game, rest


def test_a_record_keeps_every_throw_and_reads_back_the_same_game():
    from solver.dice import read_dice_record, throw_of
    from solver.errors import InvalidNotationError, NotationError
    from solver.game import Game

    powered = 0
    for seed in range(40):
        dice = DiceRule("double") if seed % 2 else DEFAULT
        game, rest = _random_game(STD4, dice, seed)
        text = game.record(rest)
        assert text.startswith(f"rules: {STD4.name}\ndice: {dice.name}\n")
        again, after = read_dice_record(text)
        assert (again.moves, again.throws, again.positions) == (game.moves, game.throws, game.positions)
        assert after.moves == rest.moves and again.record(after) == text
        powered += sum(t.powered for t in game.throws)
    assert powered > 10               # (replacements among them: double gives the power 96 times in 216)
    # real dice: a throw given, judged by the rule
    assert throw_of((2, 2, 5), DiceRule("double")).powered and not throw_of((2, 2, 5)).powered
    # one line for each wrong record; a game's record reader refuses a dice record
    for text, words in [("dice: triple\nd2\n", "line 2: the placement 'd2' needs its throw before it"),
                        ("dice: triple\n[1-2-7] d2\n", "line 2: a throw is three dice of 1 to 6"),
                        ("dice: triple\n[1-2-3]\n", "line 2: the throw [1-2-3] has no move after it"),
                        ("dice: sum3\n[1-2-3] d2\n", "record: dice: "),
                        ("rules: standard-s3\ndice: triple\n[1-2-3] d2\n[1-2-3] d2\n", "line 4: illegal move d2"),
                        ("rules: standard-s3\ndice: triple\n" + "".join(
                            f"[1-2-3] {p}\n" for p in "a1 a7 d1 d7 b2 b6".split()) + "[1-1-1] a1-a4\n",
                         "line 9: a throw after the placement phase"),
                        ("dice: triple\nstart: W:a1,d1,g1 B:a7,d7,g7 w\n", "record: dice mill's start has stones in hand")]:
        with pytest.raises(NotationError) as info:
            read_dice_record(text)
        assert str(info.value).startswith(words), str(info.value)
    with pytest.raises(InvalidNotationError, match="of dice mill"):
        Game.from_record("dice: triple\n[6-6-6] d2\n")


def test_the_review_of_a_dice_game_is_the_references_expected_results(six4):
    """Every placement of random games of Six Men's Morris with four stones, reviewed
    by analyze: the values before it, after it and after the best move equal the
    reference's recursion (expectimax over the reference's moves, not the tables), and
    the mark follows from the score lost; the moves after the placement phase are
    reviewed as in any game, their plies counted on."""
    from solver.analysis import DICE_MARKS, dice_analyze_object
    from solver.dice import rank, seen_by_mover

    leaf, memo, key = leaf_of(six4, SIX4), _MEMOS.setdefault(DEFAULT, {}), _key
    marks = set()
    with dt.DiceTables(six4, SIX4) as tables, Database(six4, SIX4) as database:
        for seed in range(5):
            game, rest = _random_game(SIX4, DEFAULT, seed)
            obj, problems = dice_analyze_object(tables, database, game, rest)
            assert problems == [] and len(obj["placements"]) == len(game.moves)
            for row, pos, move, thrown in zip(obj["placements"], game.positions, game.moves, game.throws):
                assert parse_position(row["position"], SIX4) == pos
                values = {}
                for mv in pos.legal_moves(SIX4) + (replacements(pos, SIX4) if thrown.powered else []):
                    child = play(pos, mv, SIX4, DEFAULT, thrown.powered)
                    values[mv] = seen_by_mover(expectimax(child, SIX4, DEFAULT, leaf, memo=memo, key=key))
                best = max(values.values(), key=rank)
                score = lambda v: pytest.approx(Expected.of(v).score, abs=1e-5)   # noqa: E731 (JSON's 5 places)
                assert row["before"]["score"] == score(expectimax(pos, SIX4, DEFAULT, leaf, memo=memo, key=key))
                assert row["after"]["score"] == score(values[move])
                assert row["best_after"]["score"] == score(best)
                assert row["is_best"] == (rank(values[move]) == rank(best))
                lost = Expected.of(best).score - Expected.of(values[move]).score
                assert row["score_lost"] == pytest.approx(max(0.0, lost), abs=1e-5)
                assert row["mark"] == next((m for least, m in DICE_MARKS if row["score_lost"] >= least), None)
                assert row["throw"] == str(thrown) and row["powered"] == thrown.powered
                marks.add(row["mark"])
            assert [r["ply"] for r in obj["moves"]] == list(range(len(game.moves) + 1, len(game.moves) + 1 + len(rest.moves)))
    assert {"??", None} <= marks       # (random placements give games away)


def test_analyze_and_play_save_a_dice_game(six4, tmp_path):
    import json
    import subprocess
    import sys

    game, rest = _random_game(SIX4, DEFAULT, 3)
    path = tmp_path / "game.txt"
    path.write_text(game.record(rest))
    run = lambda *args, stdin="": subprocess.run(   # noqa: E731
        [sys.executable, "-m", "solver", *args], input=stdin, capture_output=True, text=True, timeout=120)
    out = run("analyze", "--db", str(six4), "--json", str(path))
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["dice"] == "triple" and [r["move"] for r in obj["placements"]] == [str(m) for m in game.moves]
    assert [r["move"] for r in obj["moves"]] == [str(m) for m in rest.moves]
    text = run("analyze", "--db", str(six4), str(path))
    assert text.returncode == 0 and text.stdout.startswith("dice mill, throw rule triple")
    assert "after the placement phase:" in text.stdout
    refused = run("record", str(path))
    assert refused.returncode == 2 and refused.stderr == (
        "muehle: error: a record of dice mill: PGN and the plain record have no place for its throws "
        "(muehle analyze reads it)\n")
    # the placement tables of another throw rule are not built: a warning line, '?', status 1
    other = tmp_path / "other.txt"
    other.write_text(path.read_text().replace("dice: triple", "dice: sum10"))
    out = run("analyze", "--db", str(six4), str(other))
    assert out.returncode == 1 and out.stderr.startswith("muehle: warning: ") and "--dice sum10" in out.stderr
    # play --dice saves the game with its throws, in the placement phase and after it
    saved, later = tmp_path / "placing.txt", tmp_path / "moving.txt"
    moves = "\n".join(f"save {saved}" if i == 2 else "moves" for i in range(3))
    out = run("play", "--db", str(six4), "--rules", SIX4.name, "--dice", "triple", "--seed", "2",
              "--colour", "black", "--level", "perfect", stdin=moves + "\nquit\n")
    assert out.returncode == 0 and f"game saved to {saved}" in out.stdout, out.stdout[-2000:]
    from solver.dice import read_dice_record
    placed, _ = read_dice_record(saved.read_text())
    assert placed.moves and all(t is not None for t in placed.throws)
    assert run("analyze", "--db", str(six4), str(saved)).returncode == 0
    # after the placement phase the session's save writes the whole game, throws first
    from solver.cli.games import Session
    from solver.players import make_player
    answers = iter([f"save {later}", "quit"])
    Session(rest, "w" if rest.position.turn == "w" else "b", make_player("easy", SIX4, random.Random(1)),
            read=lambda prompt: next(answers), out=lambda line: None, placed=game).run()
    assert later.read_text() == game.record(rest)


def test_the_guides_dice_record_is_a_game():
    """The record shown in docs/guide/playing.md reads back, its replacement a real one."""
    import re
    from pathlib import Path
    from solver.dice import is_replacement, read_dice_record

    page = (Path(__file__).parent.parent / "docs" / "guide" / "playing.md").read_text()
    text = re.search(r"### A game of dice mill.*?```\n(.*?)```", page, re.S).group(1)
    placed, rest = read_dice_record(text)
    i = [str(m) for m in placed.moves].index("a7", 1)             # [3-3-3] a7: Black's replacement
    assert placed.throws[i].powered and is_replacement(placed.positions[i], placed.moves[i])
    assert placed.record(rest) == text


def test_a_game_won_while_placing_can_be_saved(tmp_path):
    from solver.cli.games import DiceSession
    from solver.dice import DiceGame, read_dice_record

    rules = Rules(stones=3)
    game = DiceGame(rules, DEFAULT, parse_position("W:a1,d1 B:a7,d7,g7 w 1 0", rules), seed=1)
    answers, lines = iter(["g1xa7", f"save {tmp_path / 'won.txt'}", "d2", "quit"]), []
    assert DiceSession(game, "w", None, random.Random(1), read=lambda prompt: next(answers),
                       out=lines.append).run() is None
    assert "Game over while placing: White wins. You win!" in lines
    assert "the game is over: save FILE or quit" in lines
    placed, rest = read_dice_record((tmp_path / "won.txt").read_text())
    assert [str(m) for m in placed.moves] == ["g1xa7"] and rest.outcome() is not None


# --- the browser's API -------------------------------------------------------------------

def test_the_api_plays_dice_mill_and_hands_over_to_the_game_without_dice(six4):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from solver.web import create_app

    with TestClient(create_app(six4, SIX4)) as client:
        def post(path, **params):
            return client.post(path, json={"rules": SIX4.name, "dice": "triple", "seed": 5, **params})

        tables = dt.DiceTables(six4, SIX4)
        moves, powered_seen = [], 0
        for _ in range(60):
            st = post("/api/game", moves=moves).json()
            assert st["played"] == moves
            if st["game_over"] is not None:
                break
            if st["dice"]["throw"] is None:
                assert st["phase"].startswith("moving")             # every stone placed: no more dice
                assert "hints" in st and st["hints"].get("dice") is None
            else:
                pos = parse_position(st["position"], SIX4)
                powered = st["dice"]["powered"]
                powered_seen += powered
                # the throw is the seed's and the ply's, the moves those it allows, the hints the tables'
                from solver.dice import turn_throw
                assert st["dice"]["throw"] == list(turn_throw(5, len(moves)).dice)
                allowed = {str(m) for m in pos.legal_moves(SIX4)}
                if powered:
                    allowed |= {str(m) for m in replacements(pos, SIX4)}
                assert set(st["moves"]) == allowed
                assert [h["move"] for h in st["hints"]["moves"]] == [str(m.move) for m in tables.probe_moves(pos, powered)]
            if st["side"] == "w":
                moves.append(st["moves"][-1])          # a replacement where the throw allows one
            else:
                st = post("/api/play", moves=moves, level="perfect").json()
                assert st["played"][:len(moves)] == moves and len(st["played"]) == len(moves) + 1
                moves = st["played"]
        assert len(moves) > 2 * SIX4.stones
        # the page's record is the whole game's with the throws (as play --dice saves it)
        from solver.dice import read_dice_record
        for n in (3, len(moves)):
            st = post("/api/game", moves=moves[:n]).json()
            placed, after = read_dice_record(st["record"], SIX4)
            assert [str(m) for m in [*placed.moves, *after.moves]] == moves[:n]
            assert [list(t.dice) for t in placed.throws] == [list(turn_throw(5, i).dice)
                                                             for i in range(len(placed.moves))]
        # the analysis panel's: the placements reviewed, the moves after them as the page replays them
        reply = client.post("/api/analyze", json={"record": st["record"]})
        assert reply.status_code == 200, reply.json()
        obj = reply.json()
        assert [r["move"] for r in obj["placements"]] == [str(m) for m in placed.moves]
        assert [r["move"] for r in obj["moves"]] == [str(m) for m in after.moves]
        assert [r["ply"] for r in obj["moves"]] == list(range(1, len(after.moves) + 1))
        assert obj["start"] == str(after.start) and obj["placements_start"] == str(placed.positions[0])
        assert obj["warnings"] == [] and all(r["is_best"] is not None for r in obj["placements"])
        # a replay of the same moves meets the same state; an illegal move names its number
        assert post("/api/game", moves=moves[:5]).json()["dice"] == post("/api/game", moves=moves[:5]).json()["dice"]
        bad = post("/api/game", moves=["a5", "a5"])
        assert bad.status_code == 400 and bad.json()["error"].startswith("move 2: ")
        for params, message in [({"dice": "sum3"}, "no dice rule 'sum3'"),
                                ({"rules": "three-mens"}, "needs mills that take"),
                                ({"level": "genius"}, "unknown level"),
                                # (checked while placing with dice too, as in every other game)
                                ({"think": "x"}, "think must be"), ({"think": -5}, "think must be"),
                                ({"hints": "maybe"}, "hints")]:
            got = post("/api/play", **params)
            assert got.status_code == 400 and message in got.json()["error"], got.json()
        hints = post("/api/game", dice="double").json()["hints"]
        assert "--phase dice --dice double" in hints["error"]
        # a throw that gives the power where Black's mill stands: its stones may be replaced
        from solver.dice import turn_throw
        seed = next(s for s in range(1000) if turn_throw(s, 0).powered)
        start = "W:a1,b2 B:a5,c5,e5 w 1 1"
        st = post("/api/game", start=start, seed=seed).json()
        assert st["dice"]["powered"] and st["dice"]["targets"] == ["a5", "c5", "e5"]
        assert {"a5", "c5", "e5"} <= set(st["moves"])
        assert {h["move"] for h in st["hints"]["moves"] if h["replacement"]} == {"a5", "c5", "e5"}
        st = post("/api/game", start=start, seed=seed, moves=["c5"]).json()
        assert st["position"] == "W:a1,b2,c5 B:a5,e5 b 0 1" and st["played"] == ["c5"]
        unpowered = next(s for s in range(1000) if not turn_throw(s, 0).powered)
        refused = post("/api/game", start=start, seed=unpowered, moves=["c5"])
        assert refused.status_code == 400 and "only a throw that gives the power" in refused.json()["error"]
