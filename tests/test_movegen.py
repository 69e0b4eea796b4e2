"""The Cython move generator equals the Python reference (solver.position).

Forward moves are compared on 100,000 random positions and quiet un-moves on
25,000, spread over the four rule variants (jumping on/off x take-any/take-none).
The positions come from :mod:`randpos`, biased towards closed mills, protected
stones, three-stone jumping and empty boards; the test also counts how often each
special case occurred, so that a change to the generator cannot silently stop
covering it.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from randpos import ALL_RULES, random_position
from solver._kernels import moves_packed, unmoves_packed
from solver.position import parse_position
from solver.position import Move, Position, mill_points, popcount

# Fixed seeds keep failures reproducible; set MUEHLE_TEST_SEED to explore others.
SEED = int(os.environ.get("MUEHLE_TEST_SEED", "20240601"))


pack, unpack = Move.pack, Move.unpack


def test_packed_move_layout():
    """The layout ext/movegen.pxi documents: target | origin << 5 | take << 10, 31 for none."""
    for target, origin, take in [(0, None, None), (23, 5, None), (7, None, 12), (19, 16, 9)]:
        move = Move(target, origin, take)
        expect = target | (31 if origin is None else origin) << 5 | (31 if take is None else take) << 10
        assert pack(move) == expect and unpack(expect) == move


def kernel_moves(pos: Position, rules) -> list[int]:
    return moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)


def kernel_unmoves(pos: Position, rules) -> list[int]:
    return unmoves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)


def features(pos: Position, rules, moves: list[Move]) -> set[str]:
    """Which special cases a position exercises (for the coverage counts)."""
    found = set()
    if pos.own_hand:
        found.add("placement")
    elif pos.can_jump(rules):
        found.add("jumping")
    elif popcount(pos.own) == 3:
        found.add("three stones, no jumping")
    else:
        found.add("sliding")
    if pos.opp == 0:
        found.add("empty enemy board")
    elif mill_points(pos.opp) == pos.opp:
        found.add("all enemy stones in mills")
    if mill_points(pos.own):
        found.add("own closed mill")
    if any(m.take is not None for m in moves):
        found.add("takes")
    if not moves:
        found.add("no moves")
    return found


def test_forward_moves_equal_reference():
    rng = random.Random(SEED)
    seen: Counter[str] = Counter()
    for i in range(100_000):
        pos = random_position(rng)
        rules = ALL_RULES[i % len(ALL_RULES)]
        reference = pos.legal_moves(rules)
        kernel = kernel_moves(pos, rules)
        # Both generators must list each move once; the order may differ.
        assert len(set(kernel)) == len(kernel), pos
        if sorted(map(pack, reference)) != sorted(kernel):
            missing = {str(m) for m in reference} - {str(unpack(c)) for c in kernel}
            extra = {str(unpack(c)) for c in kernel} - {str(m) for m in reference}
            pytest.fail(f"{pos} under {rules.name}: kernel lacks {sorted(missing)}, "
                        f"has extra {sorted(extra)}")
        seen.update(features(pos, rules, reference))
        if (pos.own_hand == 0 and popcount(pos.own) == 3 and reference
                and mill_points(pos.opp) == pos.opp and pos.opp):
            seen["jumping into a mill, all enemy stones in mills"] += 1
    # Every special case must be common, not a fluke.
    for case in ("placement", "jumping", "three stones, no jumping", "sliding",
                 "empty enemy board", "all enemy stones in mills", "own closed mill",
                 "takes", "no moves", "jumping into a mill, all enemy stones in mills"):
        assert seen[case] >= 1000, (case, seen)
    print(dict(seen))


def test_quiet_unmoves_equal_reference():
    rng = random.Random(SEED + 1)
    seen: Counter[str] = Counter()
    for i in range(25_000):
        pos = random_position(rng)
        rules = ALL_RULES[i % len(ALL_RULES)]
        reference = pos.quiet_predecessors(rules)
        kernel = kernel_unmoves(pos, rules)
        assert len(set(kernel)) == len(kernel), pos
        if sorted(pack(m) for m, _ in reference) != sorted(kernel):
            pytest.fail(f"{pos} under {rules.name}: reference "
                        f"{sorted(str(m) for m, _ in reference)}, kernel "
                        f"{sorted(str(unpack(c)) for c in kernel)}")
        for move, prev in reference:
            seen["un-place" if move.origin is None else "un-slide"] += 1
            if prev.can_jump(rules):
                seen["un-jump"] += 1
            if mill_points(pos.opp) >> move.target & 1:
                seen["un-move out of a mill"] += 1
        if not reference and pos.terminal_wdl(rules) is None and pos.opp:
            seen["no predecessor"] += 1
    for case in ("un-place", "un-slide", "un-jump", "un-move out of a mill", "no predecessor"):
        assert seen[case] >= 500, (case, seen)
    print(dict(seen))


def test_quiet_predecessors_are_complete():
    """From the other side: every quiet legal move leads to a position that lists the
    move and its origin among its predecessors (the reference keeps only candidates that
    replay; this catches a candidate it never tried)."""
    rng = random.Random(SEED + 2)
    tried = 0
    for i in range(1000):
        pos = random_position(rng)
        rules = ALL_RULES[i % len(ALL_RULES)]
        quiet = [m for m in pos.legal_moves(rules) if m.take is None]
        for move in rng.sample(quiet, min(2, len(quiet))):
            child = pos.play(move, rules)
            assert (move, pos) in child.quiet_predecessors(rules), f"{pos} {move} ({rules.name})"
            assert pack(move) in kernel_unmoves(child, rules)
            tried += 1
    assert tried > 1000


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("text", [
    "startpos",
    "W:a1,d1 B:a4,b6 w 7 7",          # placement that closes a mill
    "W:a1,d1,g1 B:a4,a7,d7,g7 b",      # black slides; white's mill protects
    "W:a1,d1,g4 B:a7,d7,g7,b6,d6,f6 w",  # white jumps; every black stone in a mill
    "W:a7,d7,g7 B: w 2 3",            # empty enemy board, mills closed
    "W:a1,g1,a7,g7 B:a4,d1,g4,d7 w",  # white is blocked
])
def test_kernel_on_named_positions(text, rules):
    pos = parse_position(text)
    assert sorted(map(pack, pos.legal_moves(rules))) == sorted(kernel_moves(pos, rules))
    assert sorted(pack(m) for m, _ in pos.quiet_predecessors(rules)) == \
        sorted(kernel_unmoves(pos, rules))

