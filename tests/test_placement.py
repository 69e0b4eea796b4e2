"""The placement phase as databases: the plan, the build against the in-memory backward
pass and the search, resuming after kill -9, damaged and foreign files, probing."""

from __future__ import annotations

import logging
import random
import shutil

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver.commands import explained
from solver import _kernels, placement, storage
from solver.build import build, is_stored
from solver.cli import main
from solver.index import Subspace
from solver.position import parse_position
from solver.opening import OpeningSearch, solve_placement
from solver.position import Position
from solver.probe import open_database
from solver.retro import NO_CODES
from solver.rules import Rules
from solver.values import SLACK_CODE, decode

FOUR = Rules(stones=4)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def db4_all(db4, tmp_path_factory):
    """The 4-stone game with both phases built (the moving phase copied from db4)."""
    root = tmp_path_factory.mktemp("db4all")
    shutil.copytree(db4, root, dirs_exist_ok=True)
    build(root, FOUR, phase="placement", progress=False)
    return root


def stored_codes(root, rules, sub):
    return storage.read_subspace(storage.placement_path(root, rules, sub), rules, sub.m, sub.o,
                                 verify=True, own_hand=sub.own_hand, opp_hand=sub.opp_hand)


def sha256s(root, rules):
    return {sub.name: h5py.File(storage.placement_path(root, rules, sub), "r")[sub.name].attrs["sha256"]
            for sub in placement.plan(rules)}


# --- the plan ------------------------------------------------------------------------

def test_standard_plan_counts_and_order():
    rules = Rules()
    subs = placement.plan(rules)
    counts = placement.slot_counts(rules)
    assert len(subs) == counts["subspaces"] == 497
    assert counts["slots"] == sum(s.slots for s in subs) == 18_667_084_700   # about 1.8e10
    assert counts["largest_slots"] == max(s.slots for s in subs) == 603_332_730
    seen = set()
    for sub in subs:
        assert placement.is_placement(sub, rules)
        for child in placement.children(sub):
            if child is not None:
                assert child.is_moving or child in seen, (sub, child)
                if child.is_moving:
                    assert 3 <= child.m <= 9 and 3 <= child.o <= 9
        seen.add(sub)
    # the start position's subspace is the last one, White to move with all stones in hand
    assert subs[-1] == Subspace(0, 0, 9, 9)


def test_max_total_keeps_the_children():
    subs = placement.plan(Rules(), max_total=10)
    assert subs and all(s.m + s.o + s.own_hand + s.opp_hand <= 10 for s in subs)
    for sub in subs:
        for child in placement.children(sub):
            if child is not None and not child.is_moving:
                assert child in subs


# --- the build equals the in-memory backward pass and the search ---------------------

def assert_equals_backward_pass(root, rules):
    with open_database(root, rules, in_memory=True) as db:
        reference = solve_placement(rules, db.subspace)
        for sub in placement.plan(rules):
            codes = stored_codes(root, rules, sub)
            assert np.array_equal(codes, reference[sub.m, sub.o, sub.own_hand, sub.opp_hand]), sub.name
            bad = placement.check(sub, rules, codes,
                                  lambda s: db.subspace(s.m, s.o, s.own_hand, s.opp_hand))
            assert not bad, sub.name


def pass_in_both_orders(rules: Rules, seed: int = 7):
    """For every placement subspace, with random children: the build's pass (positions
    grouped by the opponent's stones, one and two threads), the slot-order pass, and the
    children (a lookup)."""
    rng = np.random.default_rng(seed)
    for sub in placement.plan(rules):
        quiet, capture = placement.children(sub)
        kids = {quiet: rng.integers(0, 40, quiet.slots, dtype=np.uint16)}
        if capture:
            kids[capture] = rng.integers(0, 40, capture.slots, dtype=np.uint16)
        by_sets = [placement.solve(sub, rules, kids.__getitem__, jobs) for jobs in (1, 2)]
        in_order = np.empty(sub.slots, dtype=np.uint16)
        _kernels.placement_pass(sub.m, sub.o, sub.own_hand, sub.opp_hand, in_order, kids[quiet],
                                kids[capture] if capture else NO_CODES, rules.flags)
        yield sub, by_sets, in_order, kids.__getitem__


@pytest.mark.parametrize("rules", [FOUR, Rules(stones=3, jumping=False, mill_rule="take-none")])
def test_the_pass_by_opponent_sets_equals_the_pass_in_slot_order(rules):
    """Any children (random ones here) give the same codes, so the order is no part of
    the values; slack slots stay slack."""
    for sub, (one, two), in_order, _ in pass_in_both_orders(rules):
        assert one.tobytes() == in_order.tobytes() == two.tobytes(), sub.name


@pytest.mark.parametrize("rules", [FOUR, Rules(stones=3, jumping=False, mill_rule="take-none")])
def test_the_check_by_opponent_sets_finds_what_the_slot_order_check_finds(rules):
    """The check (``muehle check --phase placement``) runs by opponent sets and names bad
    slots by the slot-order pass: codes equal to their children's pass it, one thread or
    two; a changed code, or a slack slot given a code, is found at its slot."""
    rng = np.random.default_rng(3)
    from solver.retro import check_by_opponent_sets
    for sub, _, codes, kids in pass_in_both_orders(rules):
        quiet, capture = placement.children(sub)
        cap = kids(capture) if capture else NO_CODES
        for jobs in (1, 2):
            assert check_by_opponent_sets(sub, codes, kids(quiet), cap, rules, jobs) == ([], True)
            assert placement.check(sub, rules, codes, kids, jobs) == [], sub.name
        real = np.flatnonzero(codes != SLACK_CODE)
        slack = np.flatnonzero(codes == SLACK_CODE)
        bad = codes.copy()
        changed = sorted(rng.choice(real, size=min(3, len(real)), replace=False).tolist())
        bad[changed] += 2
        if len(slack):
            bad[slack[0]] = 0
            changed = sorted(changed + [int(slack[0])])
        for jobs in (1, 2):
            assert placement.check(sub, rules, bad, kids, jobs) == changed, sub.name


@pytest.mark.slow
def test_the_pass_by_opponent_sets_equals_the_pass_in_slot_order_for_five_stones():
    for sub, (one, two), in_order, _ in pass_in_both_orders(Rules(stones=5)):
        assert one.tobytes() == in_order.tobytes() == two.tobytes(), sub.name


def test_four_stone_build_equals_backward_pass(db4_all):
    assert_equals_backward_pass(db4_all, FOUR)


@pytest.mark.parametrize("rules", [Rules(stones=3), Rules(stones=4, jumping=False),
                                   Rules(stones=4, mill_rule="take-none"),
                                   Rules(board="morabaraba", stones=3)], ids=lambda r: r.name)
def test_rule_sets_build_equals_backward_pass(tmp_path, rules):
    build(tmp_path, rules, progress=False)
    assert_equals_backward_pass(tmp_path, rules)


@pytest.mark.slow
@pytest.mark.parametrize("stones", [5, 6])
def test_bigger_games_build_equals_backward_pass(tmp_path, stones):
    """5 stones: about a minute on a quiet 2-core machine; 6: several minutes."""
    rules = Rules(stones=stones)
    build(tmp_path, rules, progress=False)
    assert_equals_backward_pass(tmp_path, rules)
    with open_database(tmp_path, rules) as db:
        assert db.probe(parse_position("startpos", rules)).value == "draw"
        search = OpeningSearch(rules, wdl=db.wdl)
        for pos in sampled_positions(tmp_path, rules, 100, seed=stones):
            assert db.probe(pos).value == search.solve(pos).value, str(pos)


def sampled_positions(root, rules, count, seed):
    """Positions of real slots of random placement subspaces, decided ones favoured."""
    rng = np.random.default_rng(seed)
    subs = placement.plan(rules)
    out = []
    while len(out) < count:
        sub = subs[rng.integers(len(subs))]
        codes = stored_codes(root, rules, sub)
        slot = int(rng.integers(len(codes)))
        if codes[slot] == SLACK_CODE or (codes[slot] == 0 and rng.random() < 0.5):
            continue
        own, opp = sub.position(slot)
        pos = Position.from_view(own, opp, sub.own_hand, sub.opp_hand)
        if pos.terminal_wdl(rules) is None:
            out.append(pos)
    return out


def test_files_agree_with_the_search(db4_all):
    with open_database(db4_all, FOUR) as db:
        search = OpeningSearch(FOUR, wdl=db.wdl)
        values = {"win": 0, "loss": 0, "draw": 0}
        for pos in sampled_positions(db4_all, FOUR, 300, seed=4):
            probe = db.probe(pos)
            assert probe.value == search.solve(pos).value, str(pos)
            assert probe.plies is not None or probe.value == "draw"
            values[probe.value] += 1
        assert min(values.values()) >= 5          # all three outcomes were tested


# --- probing reads the files ----------------------------------------------------------

def test_probe_gives_plies_consistent_with_the_moves(db4_all):
    rng = random.Random(7)
    with open_database(db4_all, FOUR) as db:
        pos = parse_position("startpos", FOUR)
        assert db.probe(pos).value == "draw"
        for _ in range(2 * FOUR.stones):
            if pos.terminal_wdl(FOUR) is not None or not pos.in_placement:
                break
            probe = db.probe(pos)
            moves = db.probe_moves(pos)
            best = moves[0]
            assert best.value == probe.value
            if probe.value != "draw":
                assert best.plies == probe.plies
            # every move's plies: one more than its child's
            for mp in moves[:3]:
                child = db.probe(pos.play_unchecked(mp.move))
                assert mp.plies == (None if child.plies is None else child.plies + 1)
            pos = pos.play_unchecked(rng.choice(moves).move)
        assert not db._search             # the opening search was never needed


def test_query_prints_plies_of_placement_positions(db4_all):
    import json
    from solver.notation import format_position
    result = run("query", "--db", db4_all, "--stones", 4, "--json", "W:a1,d1 B:a7 b 2 3")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["moves"]) == 21 and data["value"] == "draw" and data["plies"] is None
    with open_database(db4_all, FOUR) as db:
        decided = [p for p in sampled_positions(db4_all, FOUR, 40, seed=2) if db.probe(p).value != "draw"]
    for pos in decided[:5]:
        data = json.loads(run("query", "--db", db4_all, "--stones", 4, "--json", format_position(pos)).stdout)
        assert data["value"] in ("win", "loss") and data["plies"] > 0
        assert all(m["plies"] is not None for m in data["moves"] if m["value"] != "draw")
        assert data["moves"][0]["plies"] == data["plies"]


def test_symmetric_images_probe_alike(db4_all):
    with open_database(db4_all, FOUR) as db:
        for pos in sampled_positions(db4_all, FOUR, 40, seed=9):
            first = db.probe(pos)
            for sym in (3, 8, 15):
                assert db.probe(pos.transform(sym)) == first
            assert db.probe(pos.swap_colours()) == first


# --- faults ---------------------------------------------------------------------------

def test_missing_placement_file_names_file_and_command(db4_all, tmp_path):
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    sub = Subspace(0, 0, 4, 4)
    path = storage.placement_path(tmp_path, FOUR, sub)
    path.unlink()
    result = run("query", "--db", tmp_path, "--stones", 4, "startpos")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert str(path) in result.output and "muehle build" in result.output
    assert "--stones 4 --phase placement" in result.output


def test_a_build_says_which_files_of_a_built_folder_are_missing(db4_all, tmp_path, caplog):
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    storage.pair_path(tmp_path, FOUR, (3, 3)).unlink()
    storage.placement_path(tmp_path, FOUR, Subspace(2, 2, 1, 1)).unlink()
    with caplog.at_level(logging.INFO, logger="muehle.build"):
        build(tmp_path, FOUR, progress=False)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warned == ["pair 3-3: missing, building it", "placement 2-2+1-1: missing, building it"]
    assert sha256s(tmp_path, FOUR) == sha256s(db4_all, FOUR)
    # a folder built for the first time misses nothing: it says nothing of the kind
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="muehle.build"):
        build(tmp_path / "new", FOUR, phase="moving", max_total=6, progress=False)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    # nor does a larger build over a smaller one (--max-total 7, then the whole game):
    # the files it adds were never there, although files after them in build order are
    build(tmp_path / "new", FOUR, max_total=7, progress=False)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="muehle.build"):
        build(tmp_path / "new", FOUR, progress=False)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert sha256s(tmp_path / "new", FOUR) == sha256s(db4_all, FOUR)


def test_damaged_placement_file_is_refused_and_rebuilt(db4_all, tmp_path):
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    sub = max(placement.plan(FOUR), key=lambda s: s.slots)
    path = storage.placement_path(tmp_path, FOUR, sub)
    before = sha256s(db4_all, FOUR)[sub.name]
    data = bytearray(path.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)
    path.write_bytes(bytes(data))
    assert not is_stored(tmp_path, FOUR, sub)
    # a probe of every real slot either answers right or says what is damaged
    with h5py.File(storage.placement_path(db4_all, FOUR, sub), "r") as f:
        good = f[sub.name][()]
    with open_database(tmp_path, FOUR) as db:
        errors = 0
        for slot in range(0, sub.slots, 97):
            if good[slot] == SLACK_CODE:
                continue
            own, opp = sub.position(slot)
            pos = Position.from_view(own, opp, sub.own_hand, sub.opp_hand)
            if pos.terminal_wdl(FOUR) is not None:
                continue
            try:
                assert db.probe(pos) == _probe_of(good[slot])
            except storage.DatabaseError as error:
                assert str(path) in str(error) and "--phase placement" in explained(error)
                errors += 1
        assert errors
    build(tmp_path, FOUR, progress=False)
    assert is_stored(tmp_path, FOUR, sub)
    assert sha256s(tmp_path, FOUR)[sub.name] == before


def _probe_of(code):
    from solver.values import Value
    v = decode(int(code))
    return Value(v.value, v.plies)


def test_placement_files_of_other_rules_are_refused(db4_all, tmp_path):
    other = Rules(stones=4, jumping=False)
    sub = Subspace(0, 0, 4, 4)
    folder = storage.rules_dir(tmp_path, other)
    folder.mkdir(parents=True)
    shutil.copy(storage.placement_path(db4_all, FOUR, sub), storage.placement_path(tmp_path, other, sub))
    with pytest.raises(storage.DatabaseError, match="built for rules"):
        stored_codes(tmp_path, other, sub)
    assert not is_stored(tmp_path, other, sub)


def _one_line_naming(result, path, rules_flags="--stones 4"):
    """A refusal as the issue asks: exit 2, one line, the file and the command that builds it."""
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert str(path) in result.output, result.output
    assert f"muehle build --db" in result.output and f"{rules_flags} --phase placement" in result.output


@pytest.mark.parametrize("name", ["0-0+4-4", "0-1+4-3"])
def test_a_damaged_placement_file_gives_one_line_or_the_right_answer(db4_all, tmp_path, name):
    # The two files `query startpos` reads (the start and every first move), damaged
    # one bit at a time over the whole file, then truncated: the command prints the
    # intact answer or one line naming the file and how to rebuild it.
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    path = storage.placement_path(tmp_path, FOUR, Subspace.parse(name))
    data = path.read_bytes()
    query = ("query", "--db", tmp_path, "--stones", 4, "--json", "startpos")
    intact = run(*query)
    assert intact.exit_code == 0 and '"plies"' in intact.output
    rng, seen = random.Random(12), {"same": 0, "refused": 0}
    damaged = [bytes(data[:o]) + bytes([data[o] ^ 1 << rng.randrange(8)]) + data[o + 1:]
               for o in range(0, len(data), max(1, len(data) // 60))]
    for length in (0, 8, 100, 2048, len(data) // 2, len(data) - 1):
        damaged.append(data[:length])
    for content in damaged:
        path.write_bytes(content)
        result = run(*query)
        if result.exit_code == 0:
            assert result.output == intact.output
            seen["same"] += 1
        else:
            _one_line_naming(result, path)
            seen["refused"] += 1
    assert seen["refused"] > len(damaged) // 3, seen


def test_foreign_placement_files_give_one_line_naming_them_and_the_command(db4_all, tmp_path):
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    # another subspace's file under this one's name
    path = storage.placement_path(tmp_path, FOUR, Subspace(0, 0, 4, 4))
    shutil.copy(storage.placement_path(tmp_path, FOUR, Subspace(0, 1, 4, 3)), path)
    result = run("query", "--db", tmp_path, "--stones", 4, "startpos")
    _one_line_naming(result, path)
    assert "does not hold subspace 0-0+4-4" in result.output
    # the files of the standard rules in the folder of others
    other = Rules(stones=4, jumping=False)
    shutil.copytree(storage.rules_dir(db4_all, FOUR), storage.rules_dir(tmp_path, other))
    result = run("query", "--db", tmp_path, "--rules", "no-jumping", "--stones", 4, "startpos")
    _one_line_naming(result, storage.placement_path(tmp_path, other, Subspace(0, 0, 4, 4)),
                     "--rules no-jumping --stones 4")
    assert "built for rules 'standard-s4'" in result.output


def test_kill_9_during_placement_build_then_rerun_gives_the_same_files(db4, db4_all, tmp_path):
    """Killed (SIGKILL, storage's crash hook) at each point of writing a placement file,
    early, in the middle and at the last file: each kill lands (the build never finishes
    first), whatever carries a file's name is complete, and the rerun's files are the
    uninterrupted build's."""
    import os
    import signal
    import subprocess
    import sys

    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)      # the moving phase only
    command = [sys.executable, "-m", "solver", "build", "--db",
               str(tmp_path), "--stones", "4", "--phase", "placement", "--quiet", "--jobs", "1"]
    folder = storage.rules_dir(tmp_path, FOUR)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MUEHLE_CRASH", "MUEHLE_HOLD"))}
    for crash in ("temporary-complete:place-2-3+1-0.h5", "before-rename:place-2-2+2-2.h5",
                  "after-rename:place-0-0+4-4.h5"):
        killed = subprocess.run(command, env={**clean, "MUEHLE_CRASH_AT": crash}, capture_output=True,
                                text=True)
        assert killed.returncode == -signal.SIGKILL, (crash, killed.stderr)
        for path in folder.glob("place-*.h5"):           # whatever carries a name is complete
            sub = Subspace.parse(path.name[len("place-"):-len(".h5")])
            assert is_stored(tmp_path, FOUR, sub), path
        point, name = crash.split(":")
        assert (folder / name).exists() == (point == "after-rename"), crash
    subprocess.run(command, check=True, env=clean, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert sha256s(tmp_path, FOUR) == sha256s(db4_all, FOUR)
    assert not list(folder.glob(".place-*"))


# --- the commands ---------------------------------------------------------------------

def test_check_and_stats_cover_placement(db4_all, tmp_path):
    result = run("check", "--db", db4_all, "--stones", 4, "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: 3 pair(s) and 27 placement subspace(s)")
    stats = run("stats", "--db", db4_all, "--stones", 4)
    assert stats.exit_code == 0 and "0-0+4-4" in stats.output and "4-4" in stats.output
    # a stored value changed (the file itself intact): the check finds it
    shutil.copytree(db4_all, tmp_path, dirs_exist_ok=True)
    sub = Subspace(2, 2, 2, 2)
    codes = stored_codes(tmp_path, FOUR, sub).copy()
    slot = int(np.flatnonzero(codes != SLACK_CODE)[5])
    codes[slot] = codes[slot] + 2
    storage.write_file(storage.placement_path(tmp_path, FOUR, sub), FOUR, {sub: codes})
    bad = run("check", "--db", tmp_path, "--stones", 4, "--quiet", "--phase", "placement")
    assert bad.exit_code == 1 and "placement subspace 2-2+2-2" in bad.output
    one = run("check", "--db", tmp_path, "--stones", 4, "--quiet", "--phase", "placement",
              "--pair", "2-2+2-2")
    assert one.exit_code == 1 and f"slot {slot}" in one.output


def test_build_dry_run_prints_the_plan(db4_all):
    result = run("build", "--db", db4_all, "--stones", 4, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "30 file(s) (30 built), 7,475,756 slots" in result.output
    standard = run("build", "--db", db4_all, "--phase", "placement", "--dry-run")
    assert "497 file(s) (0 built), 18,667,084,700 slots" in standard.output


def test_build_refuses_pair_with_placement_phase(tmp_path):
    result = run("build", "--db", tmp_path, "--stones", 4, "--phase", "placement", "--pair", "3-4")
    assert result.exit_code == 2 and result.output.count("\n") == 1


def test_placement_build_without_the_moving_phase_names_what_is_missing(tmp_path):
    result = run("build", "--db", tmp_path, "--stones", 4, "--phase", "placement", "--quiet")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "--stones 4 --phase moving" in result.output


# --- play and analyze read the placement files ---------------------------------------

def test_perfect_play_wins_placement_positions_in_the_promised_plies(db4_all):
    """Plies run on across the end of the placement phase: following the best moves from a
    won placement position ends the game in exactly the stored number of plies."""
    rng = random.Random(3)
    with open_database(db4_all, FOUR, in_memory=True) as db:
        starts = [p for p in sampled_positions(db4_all, FOUR, 300, seed=6) if db.probe(p).value == "win"]
        assert len(starts) >= 20
        for start in starts[:20]:
            promised, pos, plies = db.probe(start).plies, start, 0
            while pos.terminal_wdl(FOUR) is None:
                pos = pos.play(db.best_move(pos, rng), FOUR)
                plies += 1
                assert plies <= promised
            assert plies == promised, str(start)
            assert pos.turn != start.turn           # the side that won made the last move


def test_play_hint_and_analyze_give_plies_in_the_placement_phase(db4_all, tmp_path):
    import json
    from solver.game import Game
    result = CliRunner().invoke(main, ["play", "--stones", "4", "--db", str(db4_all), "--level",
                                       "perfect", "--seed", "1", "--color", "white"],
                                input="d2\nhint\nquit\n")
    assert result.exit_code == 0, result.output
    assert "hint: " in result.output and "perfect: the database cannot answer" not in result.output
    game = Game(rules=FOUR)
    with open_database(db4_all, FOUR) as db:
        while game.outcome() is None:
            game.play(db.best_move(game.position, random.Random(len(game.moves))))
    path = tmp_path / "g.txt"
    path.write_text(game.record())
    data = json.loads(run("analyze", "--db", db4_all, "--stones", 4, "--json", path).stdout)
    rows = data["moves"]
    assert rows[0]["before"] == "draw" and all(r["blunder"] is None for r in rows)


@pytest.mark.parametrize("rules", [Rules(stones=3), Rules(stones=3, jumping=False, mill_rule="take-none")])
def test_reachable_counts_equal_a_search_from_the_start(rules):
    """The compiled forward pass counts what a breadth-first walk over the game finds."""
    from solver.opening import book_key
    start = parse_position("startpos", rules)
    layer, counts = {book_key(start): start}, {}
    while layer:
        following = {}
        for pos in layer.values():
            sub = Subspace(bin(pos.own).count("1"), bin(pos.opp).count("1"), pos.own_hand, pos.opp_hand)
            counts[sub] = counts.get(sub, 0) + 1
            for move in pos.legal_moves(rules):
                child = pos.play_unchecked(move)
                if child.in_placement and child.terminal_wdl(rules) is None:
                    following.setdefault(book_key(child), child)
        layer = following
    got = placement.reachable(rules)
    assert got == {s: counts.get(s, 0) for s in placement.plan(rules)}
    assert 0 < sum(got.values()) < sum(s.slots for s in placement.plan(rules))
