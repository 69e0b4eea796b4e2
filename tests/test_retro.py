"""Retrograde analysis, storage and the build command: published figures, checks,
atomic files, resume, bad files."""

from __future__ import annotations

import dataclasses
import json
import shutil

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver import _kernels, storage
from solver.board import BOARDS
from solver.build import BackgroundWriter, build, is_built, plan, plan_units
from solver.verify.check import check_pair
from solver.cli import main
from solver.index import Pair
from solver.kernels import kernels_for
from solver.retro import pairs_in_order
from solver.rules import RuleFlag, Rules
from published import SUBSPACES

FOUR = Rules(stones=4)


def flags_of(jumping: bool, take, **more) -> RuleFlag:
    """The kernels' flags of a row of the tests below: ``take`` True for take-none,
    ``"mills"`` for a mill that takes from mills too (Rules.take_from_mills)."""
    return RuleFlag.of(jumping, take is True, take_from_mills=take == "mills", **more)

# Published statistics (tests/data/published.toml, each row with its source), counted
# over positions up to symmetry (docs/design.md §6).
PUBLISHED = SUBSPACES


def A(obj) -> dict:
    """Attributes with fixed-length strings (bytes) decoded, as a reader without this code would."""
    return {k: (bytes(v).decode() if isinstance(v, bytes) else v) for k, v in obj.attrs.items()}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_stats_reproduce_the_published_table(db4):
    result = run("stats", "--db", db4, "--stones", 4, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rules"] == "standard-s4"
    rows = {row["subspace"]: row for row in data["subspaces"]}
    for name, expected in PUBLISHED.items():
        got = {k: rows[name][k] for k in expected}
        assert got == expected, name
    assert set(rows) == {"3-3", "3-4", "4-3", "4-4"}


def test_stats_text_table(db4):
    result = run("stats", "--db", db4, "--stones", 4)
    assert result.exit_code == 0
    assert "140,621" in result.output and "total" in result.output


def test_check_passes_on_everything_built(db4):
    result = run("check", "--db", db4, "--stones", 4, "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: 3 pair(s)")


def test_a_changed_value_is_caught_by_the_check(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (3, 4))
    codes = {s: storage.read_subspace(path, FOUR, *s) for s in [(3, 4), (4, 3)]}
    slot = int(np.flatnonzero((codes[3, 4] > 2) & (codes[3, 4] != 0xFFFF))[0])
    codes[3, 4][slot] += 2          # same value, two plies longer: still self-consistent in kind
    storage.write_file(path, FOUR, codes)
    bad = check_pair(tmp_path, FOUR, (3, 4))
    assert any(b.slot == slot and (b.m, b.o) == (3, 4) for b in bad)
    result = run("check", "--db", tmp_path, "--stones", 4, "--pair", "3-4", "--quiet")
    assert result.exit_code == 1
    assert "disagree" in result.output


def test_a_write_that_releases_the_codes_writes_the_same_file(db4, tmp_path):
    """write_file(release=True) (the build's, so that a background write lets the codes
    go once compressed) lets go of every subspace's codes and stores the same values
    with the same statistics as a write that keeps them."""
    source = storage.pair_path(db4, FOUR, (3, 4))
    codes = {s: storage.read_subspace(source, FOUR, *s) for s in [(3, 4), (4, 3)]}
    kept, released = dict(codes), dict(codes)
    stats = storage.write_file(tmp_path / "kept.h5", FOUR, kept)
    assert storage.write_file(tmp_path / "released.h5", FOUR, released, release=True) == stats
    assert all(v is not None for v in kept.values()) and set(released) == set(codes)
    assert all(v is None for v in released.values())
    for s, values in codes.items():
        assert np.array_equal(storage.read_subspace(tmp_path / "released.h5", FOUR, *s,
                                                    verify=True), values)


def test_without_a_limit_two_large_pairs_never_overlap(tmp_path, monkeypatch):
    """Without --memory a pair's background write overlaps the next pair only where the
    two need no more than the plan's largest pair alone (so the build's peak is that
    pair's, however much memory the machine has); with --memory, where they fit in it."""
    budgets = []
    original = BackgroundWriter.__init__

    def record(self, memory=None):
        budgets.append(memory)
        original(self, memory)

    monkeypatch.setattr(BackgroundWriter, "__init__", record)
    build(tmp_path / "a", FOUR, phase="moving", progress=False)
    build(tmp_path / "b", FOUR, phase="moving", progress=False, memory=1 << 30)
    largest = max(u.memory for u in plan_units(FOUR, None, None, "moving"))
    assert budgets == [largest, 1 << 30]
    writer = BackgroundWriter(largest)
    assert writer.fits(largest)                 # nothing written: anything that fits alone
    writer._thread, writer.bytes = object(), largest // 2      # a write in progress
    assert writer.fits(largest - largest // 2) and not writer.fits(largest - largest // 2 + 1)


def test_stored_metadata(db4):
    path = storage.pair_path(db4, FOUR, (3, 4))
    with h5py.File(path, "r") as f:
        assert A(f)["rules"] == "standard-s4"
        assert A(f)["index_scheme"] == _kernels.INDEX_SCHEME
        assert bool(A(f)["jumping"]) and A(f)["mill_rule"] == "take-any"
        assert A(f)["complete"] and A(f)["checked"]
        for key in ("solver_version", "build_time"):
            assert A(f)[key]
        ds = f["3-4"]
        assert ds.fletcher32 and ds.compression is not None
        assert A(ds)["wins"] == PUBLISHED["3-4"]["wins"]
        assert A(ds)["sha256"] == storage.sha256_of(ds[()])


def test_rerun_resumes_and_skips_what_is_built(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    (storage.pair_path(tmp_path, FOUR, (4, 4))).unlink()
    # what a build killed mid-write leaves behind: a temporary file, never the real name
    stale = storage.rules_dir(tmp_path, FOUR) / ".pair-4-4.h5.tmp-999999999"
    stale.write_bytes(b"half a file")
    reports = build(tmp_path, FOUR, phase="moving", progress=False)
    assert [(r.pair, r.skipped) for r in reports] == [((3, 3), True), ((3, 4), True), ((4, 4), False)]
    assert not stale.exists()
    assert is_built(tmp_path, FOUR, (4, 4))


def test_a_damaged_file_is_rebuilt_and_reported(db4, tmp_path):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (3, 3))
    data = bytearray(path.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)
    path.write_bytes(bytes(data))
    with pytest.raises(storage.DatabaseError):
        storage.read_subspace(path, FOUR, 3, 3, verify=True)
    assert not is_built(tmp_path, FOUR, (3, 3))
    path.write_bytes(bytes(512) + bytes(data[512:]))      # the header too: cannot even open
    result = run("query", "--db", tmp_path, "--stones", 4, "W:a1,d1,g1 B:a7,d7,f6 b")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "cannot read database file" in result.output
    build(tmp_path, FOUR, pair=(3, 3), progress=False)
    assert is_built(tmp_path, FOUR, (3, 3))


def test_files_of_other_rules_are_refused(db4, tmp_path):
    other = Rules(stones=4, jumping=False)
    folder = storage.rules_dir(tmp_path, other)
    folder.mkdir(parents=True)
    shutil.copy(storage.pair_path(db4, FOUR, (3, 3)), folder / "pair-3-3.h5")
    with pytest.raises(storage.DatabaseError, match="built for rules"):
        storage.read_subspace(folder / "pair-3-3.h5", other, 3, 3)


def test_missing_dependency_is_named(tmp_path, monkeypatch):
    from solver import build as building
    from solver.build import planner
    monkeypatch.setattr(planner, "pair_plan", lambda *args, **kwargs: [(3, 4)])
    with pytest.raises(storage.DatabaseError, match="needs pair"):
        building.build(tmp_path, FOUR, progress=False)


def test_plan_orders_pairs_so_captures_lead_backwards():
    order = pairs_in_order(Rules())
    assert len(order) == 28 and order[0] == (3, 3) and order[-1] == (9, 9)
    for i, pair in enumerate(order):
        assert all(dep in order[:i] for dep in Pair(*pair).dependencies)
    assert plan(Rules(), max_total=8) == [(3, 3), (3, 4), (3, 5), (4, 4)]
    assert plan(Rules(), pair=(4, 4)) == [(3, 3), (3, 4), (4, 4)]


def test_build_command_logs_and_resumes(tmp_path):
    result = run("build", "--db", tmp_path, "--stones", 3, "--quiet", "--jobs", 2)
    assert result.exit_code == 0, result.output
    assert "1 pair(s) built, 0 already there; 6 placement subspace(s) built" in result.output
    again = run("build", "--db", tmp_path, "--stones", 3, "--quiet")
    assert "0 pair(s) built, 1 already there; 0 placement subspace(s) built, 6 already there" in again.output


def test_build_rejects_a_bad_pair(tmp_path):
    result = run("build", "--db", tmp_path, "--pair", "8-x")
    assert result.exit_code == 2 and "cannot parse pair" in result.output


@pytest.mark.parametrize("rules", [Rules(stones=3, jumping=False), Rules(stones=3, mill_rule="take-none"),
                                   Rules(stones=3, jumping=False, mill_rule="take-none")])
def test_rule_variants_solve_and_check(tmp_path, rules):
    build(tmp_path, rules, progress=False)
    assert not check_pair(tmp_path, rules, (3, 3))
    stats = storage.pair_stats(storage.pair_path(tmp_path, rules, (3, 3)), rules)["3-3"]
    assert stats["wins"] + stats["losses"] + stats["draws"] == 169_626


def _same_values_whichever_rounds_pull(name: str | Rules, plans: dict) -> None:
    from solver.retro import solve_pair

    rules = name if isinstance(name, Rules) else Rules.from_name(name)
    solved: dict = {}
    for pair, schedules in plans.items():
        results = []
        for pull in schedules:
            lookup = lambda m, o: solved[min(m, o), max(m, o)][m, o]
            results.append(solve_pair(pair, rules, lookup, jobs=2, pull=pull).values)
        for other in results[1:]:
            for sub, codes in results[0].items():
                assert np.array_equal(codes, other[sub]), (pair, sub)
        solved[pair] = results[0]


def test_push_pull_and_mixed_rounds_give_the_same_values():
    """Pulling rounds (the states to decide look at their successors) decide exactly what
    pushing rounds do and leave the counts as they do, whichever rounds pull (3-4: its
    captures lead into 3-3; pulling every round of it is slow, so a few rounds pull)."""
    _same_values_whichever_rounds_pull("standard", {
        (3, 3): [False, True, lambda d: d % 3 == 1],
        (3, 4): [False, lambda d: d in (1, 2, 5)]})


@pytest.mark.parametrize("name", ["morabaraba", "six-mens-jumping", "take-none"])
def test_pulls_into_a_jumping_side_give_the_values_of_pushes_on_other_boards(name):
    """A pull into a side of three that jumps reads its steps by rests once a group has
    walked as many (rest_pull_table): every round pulled or pushed, or as the solve
    chooses, gives the same values on boards with other mills and points, and where
    a mill takes nothing when every enemy stone is in one."""
    rules = (dataclasses.replace(Rules.from_name("six-mens"), jumping=True)
             if name == "six-mens-jumping" else Rules.from_name(name))
    _same_values_whichever_rounds_pull(rules, {(3, 3): [False, True, None]})


@pytest.mark.slow
@pytest.mark.parametrize("name", ["standard", "no-jumping", "take-none", "no-jumping-take-none"])
def test_push_pull_and_mixed_rounds_give_the_same_values_all_rules(name):
    _same_values_whichever_rounds_pull(name, {
        (3, 3): [False, True, None, lambda d: d % 3 == 1, lambda d: d % 2 == 1],
        (3, 4): [False, True, None, lambda d: d in (1, 2, 5), lambda d: d in (0, 3, 4)]})


@pytest.mark.parametrize("board, m, o, jumping, take_none", [
    ("standard", 3, 4, True, False), ("standard", 4, 3, True, False),
    ("standard", 4, 4, False, False), ("standard", 5, 4, True, True),
    ("standard", 3, 5, True, True), ("morabaraba", 3, 5, True, False),
    ("morabaraba", 4, 5, True, False), ("six-mens", 4, 5, False, False),
    ("six-mens", 5, 4, True, True), ("seven-mens", 5, 5, True, False),
    ("three-mens", 3, 3, False, False), ("standard", 4, 5, True, "mills"), ("six-mens", 5, 4, False, "mills")])
def test_init_by_opponent_sets_gives_the_codes_of_slot_order(board, m, o, jumping, take_none):
    """retro_init visits a moving subspace's positions by opponent sets, its captures read
    from cache, and writes only the codes that are not 0: the same codes (wins, pending
    losses and draws, blocked states, lines won, slack slots) as the walk in slot order,
    whatever the capture targets hold and the array held before."""
    kernels = kernels_for(BOARDS[board])
    rng = np.random.default_rng(100 * m + o)
    # mostly the opponent's wins (even codes), so that many states stay pending; some
    # losses (odd codes: a tentative win) and draws
    cap = (2 * rng.integers(1, 30, kernels.subspace_slots(o - 1, m) if o > 3 else 0)).astype(np.uint16)
    cap[rng.random(len(cap)) < 0.05] -= 1
    cap[rng.random(len(cap)) < 0.05] = 0
    slot_order = np.empty(kernels.subspace_slots(m, o), dtype=np.uint16)
    grouped = np.full_like(slot_order, 12345)
    for full_draw in (False, True):
        flags = flags_of(jumping, take_none, full_draw=full_draw)
        expected = kernels.retro_init(m, o, slot_order, cap, flags, 2, grouped=False)
        assert kernels.retro_init(m, o, grouped, cap, flags, 2) == expected
        assert np.array_equal(grouped, slot_order), (board, m, o, full_draw)
    kinds = {"undecided": slot_order == 0, "decided": (slot_order > 0) & (slot_order < 0x8000)}
    if o > 3:
        kinds["pending"] = (slot_order & 0x8000 != 0) & (slot_order != 0xFFFF)
    if board != "three-mens":
        kinds["slack"] = slot_order == 0xFFFF
    assert all(k.any() for k in kinds.values()), {n: int(k.sum()) for n, k in kinds.items()}


def test_frontier_scan_finds_exactly_the_codes_of_the_round():
    """retro_frontier_size and retro_scan (blocks skipped by their due codes) find the
    slots holding code d + 1, round after round, as a plain comparison does, also when
    codes are written between rounds (the writers lower the due codes, see retro.pxi)."""
    rng = np.random.default_rng(15)
    slots = 5 * 4096 + 123
    codes = rng.integers(0, 40, slots).astype(np.uint16)
    codes[rng.random(slots) < 0.3] = 0              # undecided
    codes[rng.random(slots) < 0.1] |= 0x8000        # pending
    codes[-50:] = 0xFFFF                           # slack
    due, holds = _kernels.retro_due(slots)
    out = np.empty(2 * 4096, dtype=np.int64)
    for d in range(40):
        expected = np.flatnonzero(codes == d + 1)
        assert _kernels.retro_frontier_size(codes, due, holds, d) == len(expected)
        found, block = [], 0
        while block < len(holds):
            n, block = _kernels.retro_scan(codes, holds, d, block, out)
            found.append(out[:n].copy())
        assert np.array_equal(np.concatenate(found), expected), d
        # a round writes codes of at least d + 2 and marks their blocks as retro_round does
        for slot in rng.choice(np.flatnonzero(codes == 0), 20, replace=False):
            codes[slot] = d + 2 + rng.integers(0, 3)
            due[slot // 4096] = min(due[slot // 4096], d + 2)


def test_floor_moves_the_capture_losses_out_of_the_codes():
    """retro_floor: an undecided state's longest capture loss (plies, in its code) goes
    into the loss floor as plies / 2, and its code keeps the flag and an unknown count;
    a state drawn by a capture keeps only its flags; decided, slack and undecided-with-
    nothing-known codes stay.  A loss longer than 510 plies makes the floor two bytes a
    slot (a uint16 array viewed as bytes), which the rounds tell by its length."""
    pending, has_floor, unknown = 0x8000, 0x2000, 0x1FFF
    val = np.array([0, pending | 40, pending | 0x4000 | 12, 0xFFFF, 7, pending | 2],
                   dtype=np.uint16)
    floor = _kernels.retro_floor(val)
    assert val.tolist() == [0, pending | has_floor | unknown, 0xC000, 0xFFFF, 7,
                            pending | has_floor | unknown]
    assert floor.dtype == np.uint8 and floor.tolist() == [0, 20, 0, 0, 0, 1]
    val = np.array([pending | 600, 5, pending | 2], dtype=np.uint16)
    floor = _kernels.retro_floor(val)
    assert len(floor) == 2 * len(val) and floor.view(np.uint16).tolist() == [300, 0, 1]
    assert val.tolist() == [pending | has_floor | unknown, 5, pending | has_floor | unknown]


@pytest.mark.parametrize("board, m, o, jumping, take_none", [
    ("standard", 3, 4, True, False), ("standard", 4, 3, True, False),
    ("standard", 3, 3, True, False), ("standard", 4, 4, False, False),
    ("standard", 4, 3, True, True), ("standard", 3, 4, False, True),
    ("morabaraba", 3, 4, True, False), ("six-mens", 4, 5, False, False),
    ("six-mens", 5, 4, True, True), ("seven-mens", 5, 5, True, False),
    ("three-mens", 3, 3, False, False), ("standard", 5, 3, False, False),
    # a jumping mover of three: its successors by the two stones it keeps (rest_table),
    # with captures, with every enemy stone in a mill under take-none, where a line wins
    ("standard", 3, 3, True, True), ("standard", 3, 4, True, True), ("standard", 3, 5, True, False),
    ("morabaraba", 3, 3, True, True), ("six-mens", 3, 4, True, False),
    ("seven-mens", 3, 5, True, True), ("three-mens", 3, 3, True, False),
    # a mill that takes from mills too
    ("standard", 4, 4, True, "mills"), ("standard", 3, 4, True, "mills"), ("six-mens", 4, 5, False, "mills")])
def test_the_grouped_walk_recomputes_the_codes_of_the_slot_order_walk(board, m, o, jumping,
                                                                      take_none):
    """The build's check (retro_check_grouped: the successors of each position visited
    where its steps are made, by walk_successors, or for a jumping side of three read
    once per two stones it keeps, rest_table) computes the same code for every position
    as the slot-order check (retro_check: c_moves_rules's packed moves, the rules kernel
    the oracle shares), whatever its successors hold: with random successor codes and
    random stored codes, both flag exactly the same slots.  A position whose two
    computed codes differed would be flagged by one walk alone whenever its stored code
    is one of them, so over every position of the subspace a faulty walk cannot pass.

    Uniform successor codes make nearly every position of some 50 successors a win
    (one of them is odd), so two more draws make wins rare: there the draws and the
    longest loss decide, and a jumping position's own set, which a rest's table holds
    and its code must leave out, is often the one draw or the one longest loss."""
    kernels = kernels_for(BOARDS[board])
    rng = np.random.default_rng(1000 * m + 10 * o + jumping + 2 * (take_none is True) + 4 * (take_none == "mills"))
    n = kernels.subspace_slots(m, o)
    real = np.zeros(n, np.uint8)
    kernels.real_batch(m, o, 0, real)
    evens = list(range(2, 42, 2))
    mixes = [  # (successor codes and their odds, the stored codes)
        (list(range(12)), None, list(range(14))),
        ([1, 0] + evens, [0.01, 0.02] + [0.97 / len(evens)] * len(evens), [0, 2, 37, 39, 41]),
        ([1, 0] + evens, [0.005, 0.03] + [0.965 / len(evens)] * len(evens), [0, 2, 39, 41])]
    for trial, (codes, odds, stored) in enumerate(mixes):
        quiet = rng.choice(codes, kernels.subspace_slots(o, m), p=odds).astype(np.uint16)
        cap = (rng.choice(codes, kernels.subspace_slots(o - 1, m), p=odds).astype(np.uint16)
               if o > 3 else np.zeros(0, np.uint16))
        val = rng.choice(stored, n).astype(np.uint16)
        val[real == 0] = 0xFFFF
        flags = flags_of(jumping, take_none)
        slot_bad, slot_count = kernels.retro_check(m, o, val, quiet, cap, flags, 0, -1, n, 2)
        grouped_bad, grouped_count, visited, _ = kernels.retro_check_grouped(
            m, o, val, quiet, cap, flags, 0, -1, n, 2)
        assert visited == int(real.sum())
        assert grouped_count == slot_count < visited
        assert np.array_equal(np.sort(grouped_bad), np.sort(slot_bad)), (board, m, o, trial)


@pytest.mark.parametrize("board, m, o, jumping, take_none", [
    ("standard", 3, 3, True, False), ("standard", 4, 3, True, False),
    ("standard", 4, 3, True, True), ("morabaraba", 4, 3, True, False),
    ("six-mens", 4, 3, True, False), ("three-mens", 3, 3, True, False),
    ("standard", 3, 4, True, False), ("standard", 4, 4, True, "mills")])
@pytest.mark.parametrize("d", [4, 5])
def test_the_grouped_pull_decides_what_the_slot_order_pull_decides(board, m, o, jumping,
                                                                   take_none, d):
    """A pull round by opponent sets (retro_pull_grouped: a jumping side's steps walked,
    then read by rests from rest_pull_table) writes the same codes and due marks, and
    decides as many states, as the slot-order pull (retro_pull: c_moves_rules's packed
    moves), from random successor codes.  The codes are drawn so that the one step that
    decides a state is often the only one: in a round into wins (d even) a successor
    lost in d is rare, in a round into losses (d odd) nearly every successor is won and
    one not won is rare, so a state's own set, which a rest's table holds and the
    state must leave out, often decides it if it is not left out."""
    kernels = kernels_for(BOARDS[board])
    rng = np.random.default_rng(100 * m + 10 * o + d + 2 * (take_none is True) + 4 * (take_none == "mills")
                                + sum(map(ord, board)))
    n_child, n_pred = kernels.subspace_slots(m, o), kernels.subspace_slots(o, m)
    rare = 0.01 if BOARDS[board].num_points > 9 else 0.1    # (three free points: 6 steps)
    if d % 2 == 0:      # a hit: d + 1 (lost in d)
        codes, odds = [d + 1, 0, 2, d + 3, 0x8000 | 5], [rare, 0.3, 0.3, 0.2, 0.2 - rare]
    else:               # won in d or less (d + 1: the hit), else a stop
        codes, odds = [2, d - 1, d + 1, 0, d + 2], [0.3, 0.3, 0.385, 0.01, 0.005]
    child = rng.choice(codes, n_child, p=odds).astype(np.uint16)
    real = np.zeros(n_pred, np.uint8)
    kernels.real_batch(o, m, 0, real)
    # undecided with a count, with nothing known, with an unknown count, with a floor;
    # a draw by capture (never a loss); decided ones; slack where no position is
    pred = rng.choice([0x8000 | 7, 0, 0x8000 | 0x1FFF, 0xA000 | 3, 0xC000 | 2, d + 6, 3],
                      n_pred).astype(np.uint16)
    pred[real == 0] = 0xFFFF
    floor = rng.integers(0, 4, n_pred).astype(np.uint8)
    results = []
    for kernel in (kernels.retro_pull, kernels.retro_pull_grouped):
        val, (due, _) = pred.copy(), kernels.retro_due(n_pred)
        decided = kernel(m, o, child, val, floor, due, d, flags_of(jumping, take_none), 2)
        results.append((decided, val, due))
    (n1, val1, due1), (n2, val2, due2) = results
    assert n1 == n2 > 0
    assert np.array_equal(val1, val2) and np.array_equal(due1, due2)
    assert not np.array_equal(val1, pred)


def _stones_near_mills(rng: np.random.Generator, board, count: int, taken: int) -> int:
    """``count`` stones off ``taken``, often two of a mill with its third point free (so
    that a jump or slide can close it) or a whole mill (protected stones)."""
    stones = 0
    if rng.random() < 0.7:
        mill = int(board.mills[rng.integers(len(board.mills))])
        if not mill & taken:
            stones = mill
            if rng.random() < 0.6:
                points = [p for p in range(board.num_points) if mill >> p & 1]
                stones &= ~(1 << int(rng.choice(points)))
    while bin(stones).count("1") > count:
        stones &= stones - 1
    free = [p for p in range(board.num_points) if not (stones | taken) >> p & 1]
    for p in rng.choice(free, count - bin(stones).count("1"), replace=False):
        stones |= 1 << int(p)
    return stones


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_quiet_step_counts_are_the_moves_that_stay_in_the_unit(board):
    """A push round counts a state's quiet steps from its stones (quiet_step_count; a
    jumping side's without visiting its targets, mill_closers): on every board, under
    every rule option, they number exactly c_moves_rules's moves that take nothing
    and move a stone (the moves that stay in the unit: a pair, or a cycle of mixed
    placement), on random positions rich in two stones of a mill with the third point
    free."""
    kernels = kernels_for(BOARDS[board])
    b = BOARDS[board]
    rng = np.random.default_rng(sum(map(ord, board)))
    options = [(j, t, mx) for j in (True, False) for t in (True, False, "mills") for mx in (True, False)]
    jumped = 0
    for _ in range(3000):
        m = int(rng.choice([1, 2, 3, 3, 3, 4, 5, 6]))
        o = int(rng.choice([2, 3, 3, 4, 5, 6]))
        if m + o > b.num_points - 1:
            continue
        opp = _stones_near_mills(rng, b, o, 0)
        own = _stones_near_mills(rng, b, m, opp)
        h = int(rng.choice([0, 0, 1, 2])) if m < 3 else int(rng.choice([0, 0, 0, 1]))
        k = int(rng.choice([0, 0, 1]))
        jumping, take_none, mixed = options[rng.integers(len(options))]
        flags = flags_of(jumping, take_none, mixed=mixed)
        got = kernels.quiet_step_counts(np.array([own], np.uint32), np.array([opp], np.uint32),
                                        h, k, flags)[0]
        moves = kernels.moves_packed(own, opp, h, k, flags)
        expected = sum(1 for mv in moves if (mv >> 10) & 31 == 31 and (mv >> 5) & 31 != 31)
        assert got == expected, (board, hex(own), hex(opp), h, k, jumping, take_none, mixed)
        jumped += jumping and m + h == 3 and expected > 0
    assert jumped > 100


def test_ab_kernels_replays_one_push_round(tmp_path):
    """scripts/ab_kernels.py ``round`` (docs/benchmarks.md): one push round, taken from a
    solve, replayed by two builds (here one build twice) from the same arrays, agrees
    with itself; a round that is not a push round is named, exit 1."""
    import subprocess
    import sys
    from pathlib import Path
    build(tmp_path, Rules(), phase="moving", max_total=8, progress=False)
    script = Path(__file__).parent.parent / "scripts" / "ab_kernels.py"

    def ab(name):
        return subprocess.run([sys.executable, str(script), str(tmp_path), "round", name,
                               _kernels.__file__, _kernels.__file__, "--runs", "2"],
                              capture_output=True, text=True)
    done = ab("4-4:3")
    assert done.returncode == 0, done.stderr
    assert "A round 4-4:3: median" in done.stdout and "B / A (medians)" in done.stdout
    pulled = ab("3-4:1")            # a jumping side's rounds into losses pull
    assert pulled.returncode == 1
    assert pulled.stderr.strip() == "the solve of pair 3-4 has no push round 1 from 3-4"


def test_mill_distance_counts_plies_to_the_next_take(tmp_path):
    """scripts/mill_distance.py (docs/results.md): the pairs solved again with every
    capture an end, checked by the forward check; in 3-4, where the jumping side's
    wins last up to 33 plies, the next take is at most 11 plies away, so a limit of
    10 quiet plies takes some wins away and the standard 50 none."""
    import json
    import subprocess
    import sys
    from pathlib import Path
    build(tmp_path, Rules(), phase="moving", max_total=7, progress=False)
    script = Path(__file__).parent.parent / "scripts" / "mill_distance.py"

    def rows(*extra):
        done = subprocess.run([sys.executable, str(script), str(tmp_path), "3-4", "--json", *extra],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return {row["subspace"]: row for row in map(json.loads, done.stdout.splitlines())}
    standard, ten = rows(), rows("--limit", "10")
    assert standard["3-4"]["wins"] == ten["3-4"]["wins"] == 102281
    assert standard["3-4"]["longest_win"] == 33 and standard["3-4"]["longest_to_take"] == 11
    assert standard["3-4"]["wins_take_beyond_limit"] == 0 < ten["3-4"]["wins_take_beyond_limit"]
    assert ten["3-4"]["wins_end_beyond_limit"] > ten["3-4"]["wins_take_beyond_limit"]
