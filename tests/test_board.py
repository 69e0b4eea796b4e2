"""The board as data: points, edges, mills and symmetries."""

import subprocess
import sys
from dataclasses import replace
from itertools import combinations

import pytest

from solver.board import (ADJACENT, BOARDS, COORDS, MILLS, NUM_POINTS, POINT_NAMES, SYMMETRIES,
                          apply_symmetry, inverse_symmetry, mask_of, neighbours,
                          point_index, point_name, points_of)


def edges() -> set[frozenset[int]]:
    return {frozenset((u, v)) for u in range(NUM_POINTS) for v in neighbours(u)}


def test_24_points_with_unique_names_that_round_trip():
    assert NUM_POINTS == len(POINT_NAMES) == len(set(POINT_NAMES)) == 24
    for p in range(NUM_POINTS):
        assert point_index(point_name(p)) == p
    assert point_index("d2") == POINT_NAMES.index("d2")
    for bad in ("d4", "a2", "h1", "", "A1", "d"):
        with pytest.raises(ValueError):
            point_index(bad)


def test_32_edges_symmetric_and_between_points_on_a_line():
    assert len(edges()) == 32
    for u in range(NUM_POINTS):
        for v in range(NUM_POINTS):
            assert (ADJACENT[u] >> v & 1) == (ADJACENT[v] >> u & 1)
    # Corners have two neighbours, middles of sides three or four.
    degrees = sorted(len(neighbours(p)) for p in range(NUM_POINTS))
    assert degrees == [2] * 12 + [3] * 8 + [4] * 4
    assert sorted(point_name(q) for q in neighbours(point_index("a1"))) == ["a4", "d1"]
    assert sorted(point_name(q) for q in neighbours(point_index("d6"))) == ["b6", "d5", "d7", "f6"]


def test_16_mills_of_three_points_in_a_line():
    assert len(MILLS) == len(set(MILLS)) == 16
    for mill in MILLS:
        pts = points_of(mill)
        assert len(pts) == 3
        xs = {COORDS[p][0] for p in pts}
        ys = {COORDS[p][1] for p in pts}
        assert len(xs) == 1 or len(ys) == 1
        # The three points are connected by two edges.
        assert sum(frozenset(pair) in edges() for pair in combinations(pts, 2)) == 2
    # Every point lies on exactly two mills.
    for p in range(NUM_POINTS):
        assert sum(m >> p & 1 for m in MILLS) == 2
    # The middle row and column hold two mills each, split by the centre.
    assert mask_of(point_index(n) for n in ("a4", "b4", "c4")) in MILLS
    assert mask_of(point_index(n) for n in ("c4", "e4", "f4")) not in MILLS


def test_16_symmetries_preserve_adjacency_and_mills():
    assert len(SYMMETRIES) == len(set(SYMMETRIES)) == 16
    all_edges = edges()
    for g, perm in enumerate(SYMMETRIES):
        assert sorted(perm) == list(range(NUM_POINTS))
        assert {frozenset(perm[p] for p in e) for e in all_edges} == all_edges
        assert {apply_symmetry(g, m) for m in MILLS} == set(MILLS)
        inv = inverse_symmetry(g)
        for mask in (0b1011, 0xABCDEF, 1 << 23):
            assert apply_symmetry(inv, apply_symmetry(g, mask)) == mask
    # The group is closed under composition.
    perms = set(SYMMETRIES)
    for a in SYMMETRIES:
        for b in SYMMETRIES:
            assert tuple(a[b[p]] for p in range(NUM_POINTS)) in perms


def test_ring_swap_symmetry_exchanges_outer_and_inner_squares():
    outer = mask_of(point_index(n) for n in ("a1", "a4", "a7", "d7", "g7", "g4", "g1", "d1"))
    inner = mask_of(point_index(n) for n in ("c3", "c4", "c5", "d5", "e5", "e4", "e3", "d3"))
    assert any(apply_symmetry(g, outer) == inner for g in range(16))


def test_masks_and_point_lists():
    assert points_of(0) == []
    assert points_of(mask_of([3, 0, 23])) == [0, 3, 23]
    assert points_of((1 << 24) - 1) == list(range(24))


def test_symmetry_group_is_searched_on_first_use_and_kept():
    # Importing the package builds no group but the standard board's (the kernels need
    # it); another board finds its group when first asked, with the same value.
    for name in ("morabaraba", "seven-mens", "three-mens"):
        fresh = replace(BOARDS[name])
        assert "symmetries" not in vars(fresh)
        assert fresh.symmetries == BOARDS[name].symmetries
        assert vars(fresh)["symmetries"] is fresh.symmetries     # kept, not searched again
    assert len(BOARDS["seven-mens"].symmetries) == 8
    searched = subprocess.run(
        [sys.executable, "-c", "import solver.cli; from solver.board import BOARDS; "
         "print(sorted(n for n, b in BOARDS.items() if 'symmetries' in vars(b)))"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert searched == "['standard']"


def test_point_and_symmetry_numbers_off_the_board_are_refused():
    # Python's negative indexes made -1 the last point and the last symmetry, and 24 an
    # IndexError: wrong answers, or an error that says nothing of the board.
    import numpy as np
    from solver.board import BOARDS, STANDARD_BOARD as B
    for call in (lambda: B.point_name(-1), lambda: B.point_name(24), lambda: B.neighbours(-1),
                 lambda: B.neighbours(True), lambda: B.apply_symmetry(-1, 7), lambda: B.apply_symmetry(16, 7),
                 lambda: B.apply_symmetry(1, 1 << 30), lambda: B.apply_symmetry(1, -1),
                 lambda: B.inverse_symmetry(-1), lambda: B.inverse_symmetry(16)):
        with pytest.raises(ValueError, match="standard board"):
            call()
    assert B.point_name(np.int64(23)) == "g1" and B.neighbours(np.uint8(0)) == B.neighbours(0)
    assert B.apply_symmetry(np.int64(1), np.uint32(7)) == B.apply_symmetry(1, 7)
    with pytest.raises(TypeError):
        BOARDS["mine"] = B                     # the boards are the package's, read-only


def test_from_view_refuses_a_side_that_is_none():
    from solver.position import Position
    for turn in ("x", "W", None):
        with pytest.raises(ValueError, match="side to move"):
            Position.from_view(1, 2, turn=turn)
    assert Position.from_view(1, 2, turn="b") == Position(2, 1, turn="b")
