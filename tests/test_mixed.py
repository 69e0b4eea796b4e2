"""Mixed placement (Lasker Morris, ``mixed``) on the compiled kernels: a side with stones
in hand may place one or move one, and jumps when its stones, board plus hand, are three.

The kernels' forward moves and quiet un-moves equal the readable reference
(solver.position) on random positions with stones in hand; the placement phase, whose
subspaces now lead into each other (a move keeps the hands), is built in rounds like a
moving pair (docs/design.md §4), and a whole small game built that way equals the
independent oracle on every position, passes ``muehle check`` and answers queries.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from randpos import random_position
from solver import build as building, placement, storage
from solver.folder import DatabaseFolder
from solver.build import build, plan_units
from solver.cli import main
from solver.errors import UnsupportedRulesError
from solver.index import Subspace
from solver.kernels import kernels_for
from solver.opening import OpeningSearch
from solver.position import Move, Position, parse_position
from solver.probe import open_database
from solver.retro import solve_unit, unit_of
from solver.rules import MIXED, VARIANTS, Rules, kernel_gap
from solver.verify.oracle import Oracle, compare
from test_boards import biased_position

SEED = 20261130
#: Random positions per rule set (the reference is slow Python; MUEHLE_MIXED_POSITIONS
#: for more).
POSITIONS = int(os.environ.get("MUEHLE_MIXED_POSITIONS", "800"))

#: Mixed placement under every option the kernels know, on the standard board and on
#: Six Men's; the default run takes three of them (the reference is slow Python).
MIXED_RULES = [VARIANTS["mixed"],
               # Lasker's ten stones: the standard board's module of twelve a side
               Rules(placement=MIXED, mill_rule="take-none", stones=10),
               Rules(board="six-mens", stones=5, placement=MIXED, jumping=False,
                     mill_rule="take-none"),
               pytest.param(Rules(placement=MIXED, jumping=False), marks=pytest.mark.slow),
               pytest.param(Rules(board="six-mens", stones=6, placement=MIXED), marks=pytest.mark.slow)]


def with_hands(rng: random.Random, rules: Rules) -> Position:
    """A random position of the rules' board, most with stones in hand (up to the rules'
    stones, board plus hand), biased towards mills and three stones (board plus hand)."""
    # (tests/randpos.py's positions have at most nine stones a side)
    pos = (random_position(rng) if rules.board.name == "standard" and rules.stones <= 9
           else biased_position(rng, rules))
    hands = []
    for stones in (pos.white, pos.black):
        room = rules.stones - stones.bit_count()
        roll = rng.random()
        if room <= 0 or roll < 0.15:
            hands.append(0)
        elif roll < 0.45:
            hands.append(max(0, min(room, 3 - stones.bit_count())) or rng.randint(1, room))
        else:
            hands.append(rng.randint(1, room))
    return dataclasses.replace(pos, white_hand=hands[0], black_hand=hands[1])


@pytest.mark.parametrize("rules", MIXED_RULES, ids=lambda r: r.name)
def test_mixed_moves_and_unmoves_equal_the_reference(rules):
    kernels = kernels_for(rules.board)
    rng = random.Random(f"{SEED} {rules.name}")
    seen: Counter[str] = Counter()
    for i in range(POSITIONS):
        pos = with_hands(rng, rules)
        args = (pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
        reference = pos.legal_moves(rules)
        got = kernels.moves_packed(*args)
        assert len(set(got)) == len(got)
        if sorted(m.pack() for m in reference) != sorted(got):
            pytest.fail(f"{pos} under {rules.name}: reference {sorted(map(str, reference))}, kernel "
                        f"{sorted(str(Move.unpack(c, rules.board)) for c in got)}")
        if i % 3 == 0:          # the reference's un-moves replay every candidate: slow
            back = sorted(m.pack() for m, _ in pos.quiet_predecessors(rules))
            assert sorted(kernels.unmoves_packed(*args)) == back, f"{pos}: un-moves"
            seen["un-move with the mover's stones in hand"] += any(
                m.origin is not None for m, _ in pos.quiet_predecessors(rules)) and pos.opp_hand > 0
        moved = [m for m in reference if m.origin is not None]
        if pos.own_hand and moved:
            seen["moves with stones in hand"] += 1
            seen["takes by a move with stones in hand"] += any(m.take is not None for m in moved)
            seen["jumps with stones in hand"] += pos.can_jump(rules)
        seen["placements"] += any(m.origin is None for m in reference)
        seen["ten on a side"] += max(pos.own.bit_count(), pos.opp.bit_count()) >= 10
    assert seen["ten on a side"] >= (POSITIONS // 50 if rules.stones >= 10 else 0), seen
    for case in ("moves with stones in hand", "takes by a move with stones in hand",
                 "placements", "un-move with the mover's stones in hand"):
        assert seen[case] >= POSITIONS // 50, (case, seen)
    assert seen["jumps with stones in hand"] >= (POSITIONS // 50 if rules.jumping else 0), seen


def test_separate_placement_moves_are_unchanged_by_the_flag():
    """Without stones in hand mixed placement changes nothing; with them, separate
    placement still only places (the moving phase's kernels are the same)."""
    rng = random.Random(SEED)
    kernels = kernels_for(Rules().board)
    for _ in range(1000):
        pos = with_hands(rng, VARIANTS["mixed"])
        args = (pos.own, pos.opp, pos.own_hand, pos.opp_hand)
        if not pos.own_hand:
            assert kernels.moves_packed(*args) == kernels.moves_packed(*args, VARIANTS["mixed"].flags)
        assert sorted(kernels.moves_packed(*args, Rules().flags)) == sorted(m.pack() for m in pos.legal_moves(Rules()))


# --- the placement phase in rounds, against the oracle --------------------------------

def oracle_equals_kernels(rules: Rules, values: dict) -> None:
    """Every raw position of every subspace: the oracle's code equals the code at its
    slot, and every real slot is reached."""
    oracle = Oracle(rules, jobs=1)
    for sub, fast in values.items():
        mismatches, count, unhit = compare(sub.m, sub.o, oracle.get(*sub), fast, board=rules.board)
        assert count == 0 and unhit == 0, f"{sub}: " + "\n".join(mismatches)


SMALL = Rules(board="six-mens", stones=3, jumping=False, placement=MIXED)


def test_units_lead_only_into_solved_subspaces():
    for rules in (SMALL, VARIANTS["lasker"]):
        done: set = set()
        for unit in placement.units(rules, 10):
            for sub in unit:
                assert unit_of(sub) == unit and placement.is_placement(sub, rules)
                for read in placement.reads(sub, rules):
                    assert read in unit or read.is_moving or read in done, (sub, read)
            done.update(unit)


def built_values(root, rules: Rules) -> dict:
    """Every subspace of the built whole game of ``rules``, read from its file."""
    values = {}
    for unit in plan_units(rules, phase="all"):
        subs = unit.key.subspaces if hasattr(unit.key, "subspaces") else unit_of(unit.key)
        for sub in subs:
            values[sub] = storage.read_subspace(storage.file_of(root, rules, sub), rules,
                                                sub.m, sub.o, own_hand=sub.own_hand,
                                                opp_hand=sub.opp_hand)
    assert len(values) == len(placement.plan(rules)) + sum(
        len(u.key.subspaces) for u in plan_units(rules, phase="moving"))
    return values


def test_whole_mixed_game_equals_the_oracle(tmp_path, monkeypatch):
    """Six Men's board, 3 stones, place or move: built whole by the kernels (moving pairs
    and the placement cycles in rounds), equal to the oracle on every position, checked
    forwards by ``muehle check``, and probed.  Each cycle held no more than its plan says:
    its codes and counts (3 bytes a slot) and every subspace its look-ups returned."""
    held: dict = {}

    def measured_solve_unit(subs, rules, lookup, *args, **kwargs):
        arrays: dict = {}

        def recording(*shape):
            array = lookup(*shape)
            arrays[id(array)] = array       # the build's cache keeps what it returned
            return array
        result = solve_unit(subs, rules, recording, *args, **kwargs)
        held[subs[0]] = 3 * sum(s.slots for s in subs) + sum(a.nbytes for a in arrays.values())
        return result

    monkeypatch.setattr(building.runner, "solve_unit", measured_solve_unit)
    build(tmp_path, SMALL, progress=False, jobs=1)
    planned = {u.key: u.memory for u in plan_units(SMALL, phase="placement")}
    assert held and set(held) <= set(planned)
    arrays = {key: memory - (16 << 20) for key, memory in planned.items()}  # less the frontier's and the write's blocks
    assert all(held[key] <= arrays[key] for key in held), \
        [(k.name, held[k], arrays[k]) for k in held if held[k] > arrays[k]]
    oracle_equals_kernels(SMALL, built_values(tmp_path, SMALL))
    checked = CliRunner().invoke(main, ["check", "--db", str(tmp_path), "--rules", SMALL.name, "--quiet",
                                         "--jobs", "1"])
    assert checked.exit_code == 0 and "consistent" in checked.output, checked.output
    # the plan names every file the build wrote, a cycle's one per subspace, and finds them built
    files = sorted(f.stem for f in storage.rules_dir(tmp_path, SMALL).glob("*.h5"))
    assert sorted(name for f in building.build_plan(SMALL) for name in f.outputs) == files
    plan = CliRunner().invoke(main, ["build", "--dry-run", "--db", str(tmp_path), "--rules", SMALL.name])
    assert plan.exit_code == 0, plan.output
    assert f"\n{len(files)} file(s) ({len(files)} built), " in plan.output
    start = parse_position("startpos", SMALL)
    with open_database(tmp_path, SMALL) as db:
        probe = db.probe(start)
        moves = db.probe_moves(start)
        assert moves[0].value == probe.value
        # a move while stones are in hand, probed from the files
        pos = parse_position("W:a1,c1 B:a5,c5 w 1 1", SMALL)
        assert any(m.move.origin is not None for m in db.probe_moves(pos))


@pytest.mark.slow
@pytest.mark.parametrize("rules", [VARIANTS["five-mens"],
                                   dataclasses.replace(VARIANTS["six-mens"], stones=4, jumping=True)],
                         ids=lambda r: r.name)
def test_whole_mixed_game_of_more_stones_equals_the_oracle(tmp_path, rules):
    """Five stones, sliding only; four with jumping (board plus hand three): the whole
    mixed game on Six Men's board equals the oracle on every position."""
    rules = dataclasses.replace(rules, placement=MIXED)
    build(tmp_path, rules, progress=False, jobs=1)
    oracle_equals_kernels(rules, built_values(tmp_path, rules))


def test_pull_and_push_rounds_give_the_same_cycle(tmp_path):
    """A cycle of mixed placement (with jumping: two on the board and one in hand jump)
    solved with every round pulling, and every round pushing, equals the choice by
    ratio (and so the oracle, above)."""
    rules = Rules(board="six-mens", stones=3, jumping=True, placement=MIXED)
    build(tmp_path, rules, max_total=6, progress=False, jobs=1)
    unit = unit_of(Subspace(2, 3, 1, 0, board=rules.board))

    def lookup(*shape):
        sub = Subspace(*shape, board=rules.board)
        return storage.read_subspace(storage.file_of(tmp_path, rules, sub), rules, sub.m,
                                     sub.o, own_hand=sub.own_hand, opp_hand=sub.opp_hand)

    for pull in (True, False):
        forced = solve_unit(unit, rules, lookup, jobs=1, pull=pull).values
        for sub in unit:
            assert np.array_equal(forced[sub], lookup(*sub)), (sub, pull)


def test_what_assumes_separate_placement_refuses_mixed_rules():
    assert kernel_gap(SMALL) is None
    with pytest.raises(UnsupportedRulesError, match="separate placement"):
        OpeningSearch(SMALL, wdl=lambda m, o: None)
    with pytest.raises(UnsupportedRulesError, match="separate placement"):
        placement.reachable(SMALL)


def test_a_mixed_query_without_placement_files_is_one_line(tmp_path):
    """Mixed rules' placement positions are read from their files only: without them
    the query is refused in one line, not announced as an opening search first."""
    from solver.cli import main
    root = tmp_path / "db"
    building.build(root, SMALL, phase="moving", progress=False)
    result = CliRunner().invoke(main, ["query", "--db", str(root), "--rules", SMALL.name,
                                       "W:a1 B:a5 w 2 2"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [result.stderr.strip()] and "note:" not in result.stderr
    assert "separate placement only" in result.stderr


def test_check_calls_no_file_of_a_mixed_cycle_stray(tmp_path):
    """Under mixed placement a cycle m-o+h-k / o-m+k-h writes a file a subspace; check
    named every second one as a file "no build writes" (issue 51: a user who trusted
    the note would delete good files)."""
    rules = Rules.from_name("six-mens-mixed-s3")
    build(tmp_path, rules, progress=False)
    cycles = [u for u in plan_units(rules, phase="placement") if len(unit_of(u.key)) == 2]
    assert cycles                                   # (the case: cycles of two files)
    assert DatabaseFolder(tmp_path, rules).stray() == []
    result = CliRunner().invoke(main, ["check", "--db", str(tmp_path), "--rules", rules.name, "--quiet"])
    assert result.exit_code == 0 and "no build" not in result.output, result.output
    stray = storage.rules_dir(tmp_path, rules) / "pair-9-9.h5"
    stray.write_bytes(b"x")
    assert DatabaseFolder(tmp_path, rules).stray() == [stray]
