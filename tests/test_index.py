"""The symmetry-reduced index (solver.index, ext/index.pxi)."""

from itertools import combinations

import numpy as np
import pytest

from solver import _kernels, board
from solver.rules import Rules
from solver.index import (
    Pair,
    Subspace,
    canonical_set,
    count_orbits,
    format_index_stats,
    index_stats,
    random_positions,
)

from test_rulebook import burnside

# Orbits counted by Burnside's lemma from hand-typed symmetries (tests/test_rulebook.py)
ORBITS_OF_SETS = [burnside(m, 0) for m in range(10)]
MOVING_ORBITS = 8_904_593_601        # published (Malom); Burnside must give it too
ALL = [(m, o) for m in range(10) for o in range(10)]
SMALL = [(3, 3), (3, 4), (4, 3)]
PERMS = range(16)


# --- helpers (numpy, independent of the compiled index) ---------------------------------


# BYTE_IMAGES[g][b][v]: image under symmetry g of the points 8b + bits of v (from board)
BYTE_IMAGES = np.array(
    [[[board.apply_symmetry(g, v << (8 * b)) for v in range(256)] for b in range(3)]
     for g in range(16)], dtype=np.uint32)


def apply_perm(g, masks):
    masks = np.asarray(masks, dtype=np.uint32)
    t = BYTE_IMAGES[g]
    return t[0][masks & 0xFF] | t[1][(masks >> 8) & 0xFF] | t[2][(masks >> 16) & 0xFF]


def popcount(masks):
    masks = np.asarray(masks, dtype=np.uint32)
    out = np.zeros(masks.shape, dtype=np.int64)
    for p in range(24):
        out += (masks >> np.uint32(p)) & np.uint32(1)
    return out


def all_sets(k, n=24):
    """All k-sets of points 0..n-1 as masks, ascending."""
    return np.array(sorted(sum(1 << p for p in c) for c in combinations(range(n), k)),
                    dtype=np.uint32)


def all_positions(m, o):
    own_sets = all_sets(m)
    opp_sets = all_sets(o)
    own = np.repeat(own_sets, len(opp_sets))
    opp = np.tile(opp_sets, len(own_sets))
    keep = (own & opp) == 0
    return own[keep], opp[keep]


def brute_canonical(own, opp):
    """Min over the 16 images of (own, opp), as one 48-bit key."""
    best = None
    for perm in PERMS:
        key = (apply_perm(perm, own).astype(np.uint64) << np.uint64(24)) | apply_perm(perm, opp)
        best = key if best is None else np.minimum(best, key)
    return best


# --- the tables ------------------------------------------------------------------------

def test_orbits_of_stone_sets():
    assert [count_orbits(m) for m in range(10)] == ORBITS_OF_SETS


def test_orbits_of_stone_sets_brute_force():
    for m in range(5):
        sets = all_sets(m)
        canon = np.min([apply_perm(perm, sets) for perm in PERMS], axis=0)
        assert len(np.unique(canon)) == ORBITS_OF_SETS[m]


def test_byte_tables_match_board():
    rng = np.random.default_rng(5)
    for mask in [0, board.FULL_MASK, *map(int, rng.integers(0, 1 << 24, 300))]:
        for g in range(16):
            assert _kernels.apply_sym_fast(g, mask) == board.apply_symmetry(g, mask)


def test_bit_operations():
    rng = np.random.default_rng(6)
    for _ in range(2000):
        x, mask = (int(v) for v in rng.integers(0, 1 << 24, 2))
        for sub in (x, x & 0x924924, x & 0x111111, x & 0x800001):
            _, _, _, _, _, _, unrank_fast, unrank_loop = _kernels.bit_ops_check(sub, mask)
            assert unrank_fast == unrank_loop == sub
        result = _kernels.bit_ops_check(x, mask)
        rank_fast, rank_loop, pext, soft_pext, pdep, soft_pdep = result[:6]
        assert rank_fast == rank_loop
        assert pext == soft_pext
        assert pdep == soft_pdep
        free = [p for p in range(24) if mask >> p & 1]
        assert pext == sum(1 << i for i, p in enumerate(free) if x >> p & 1)
        assert pdep == sum(1 << p for i, p in enumerate(free) if x >> i & 1)


def test_canonical_set():
    rng = np.random.default_rng(7)
    for m in range(10):
        own, _ = random_positions(rng, m, 0, 200)
        for s in map(int, own):
            rep, g = canonical_set(s)
            assert board.apply_symmetry(g, s) == rep
            assert rep == min(board.apply_symmetry(h, s) for h in range(16))


def test_representatives_map_to_themselves_by_the_identity():
    # the walks by opponent sets (GroupWalk) index a representative's successors
    # without applying a symmetry: its canonical entry must hold g = 0
    for m in range(10):
        _, reps, _, _ = _kernels.index_tables(m)
        for orbit, rep in enumerate(map(int, reps)):
            assert _kernels.canonical_set(rep) == (rep, orbit, 0)


# --- the index -------------------------------------------------------------------------

def test_names_and_values():
    s = Subspace(3, 3)
    assert s.name == "3-3" and s.is_moving
    assert Subspace.parse("3-3") == s
    p = Subspace(3, 2, 6, 7)
    assert p.name == "3-2+6-7" and not p.is_moving
    assert Subspace.parse(p.name) == p
    assert p.slots == Subspace(3, 2).slots
    assert {s, Subspace(3, 3)} == {s}
    with pytest.raises(Exception):
        s.m = 4
    for bad in [(10, 3), (-1, 3), (3, 3, 10, 0)]:
        with pytest.raises(ValueError):
            Subspace(*bad)
    with pytest.raises(ValueError):
        Subspace.parse("3x3")
    # digits of other scripts are no stone counts (\d and int() took them, as other
    # parsers of positions and moves do not)
    from solver.index import parse_pair
    for name in ("\u0663-\u0663", "3-\uff13"):
        with pytest.raises(ValueError):
            Subspace.parse(name)
        with pytest.raises(ValueError):
            parse_pair(name, 9)


def test_slot_counts():
    """Room for every orbit, and the first and last slot of each subspace address a
    position of it (a slot count too small or too large fails one of the two)."""
    for m, o in ALL:
        sub = Subspace(m, o)
        assert sub.slots >= burnside(m, o)
        for slot in (0, sub.slots - 1):
            own, opp = sub.position(slot)
            assert bin(own).count("1") == m and bin(opp).count("1") == o and not own & opp
    assert Subspace(0, 0).slots == 1


def test_bad_arguments():
    s = Subspace(3, 3)
    with pytest.raises(ValueError):
        s.index(0b111, 0b11)          # wrong count
    with pytest.raises(ValueError):
        s.index(0b111, 0b1110)        # overlap
    with pytest.raises(ValueError):
        s.index(0b111 << 22, 0b111)   # beyond the board
    with pytest.raises(IndexError):
        s.position(s.slots)
    with pytest.raises(IndexError):
        s.is_real(-1)
    with pytest.raises(ValueError):
        s.index_many([0b111, 0b111], [0b111000, 0b11])
    with pytest.raises(IndexError):
        s.positions_many([0, s.slots])
    with pytest.raises(ValueError):
        s.index_many(np.array([0b111 | 1 << 32], dtype=np.int64), [0b111000])
    with pytest.raises(ValueError):
        Subspace(True, 3)


def test_hands_do_not_change_the_index():
    rng = np.random.default_rng(3)
    own, opp = random_positions(rng, 3, 2, 1000)
    assert np.array_equal(Subspace(3, 2, 6, 7).index_many(own, opp),
                          Subspace(3, 2).index_many(own, opp))
    assert Subspace(3, 2, 6, 7) != Subspace(3, 2)


def test_symmetric_images_share_a_slot():
    rng = np.random.default_rng(1)
    for m, o in ALL:
        sub = Subspace(m, o)
        own, opp = random_positions(rng, m, o, 3000)
        slots = sub.index_many(own, opp)
        assert slots.min() >= 0 and slots.max() < sub.slots
        for perm in PERMS:
            assert np.array_equal(sub.index_many(apply_perm(perm, own), apply_perm(perm, opp)), slots)
        # the slot's position is in the same orbit
        cown, copp = sub.positions_many(slots)
        assert np.array_equal(brute_canonical(cown, copp), brute_canonical(own, opp))
        assert sub.is_real(int(slots[0]))
        assert all(sub.index(int(a), int(b)) == int(s) for a, b, s in zip(own[:20], opp[:20], slots[:20]))


@pytest.mark.parametrize("m,o", SMALL)
def test_round_trip_exhaustive(m, o):
    sub = Subspace(m, o)
    slots = np.arange(sub.slots, dtype=np.int64)
    own, opp = sub.positions_many(slots)
    real = sub.real_mask()
    again = sub.index_many(own, opp)
    # real slots come back to themselves, slack slots are exactly those that do not
    assert np.array_equal(again == slots, real)
    assert np.all(real[again])
    assert int(real.sum()) == sub.count_real()
    # every position stored is canonical in own (own is its orbit's smallest set)
    reps = np.min([apply_perm(perm, own) for perm in PERMS], axis=0)
    assert np.array_equal(reps, own)


def test_round_trip_sampled_on_all_subspaces():
    rng = np.random.default_rng(2)
    for m, o in ALL:
        sub = Subspace(m, o)
        slots = rng.integers(0, sub.slots, 20000, dtype=np.int64)
        own, opp = sub.positions_many(slots)
        assert np.all((own & opp) == 0)
        assert np.all(popcount(own) == m) and np.all(popcount(opp) == o)
        real = sub.is_real_many(slots)
        assert np.array_equal(real[:100], [sub.is_real(int(s)) for s in slots[:100]])
        again = sub.index_many(own, opp)
        # real slots come back to themselves, slack slots are exactly those that do not
        assert np.array_equal(again == slots, real)
        # a slack slot's position is a real slot's
        assert np.all(sub.is_real_many(again))
        # the stored position is canonical in own (own is its orbit's smallest set)
        assert np.array_equal(np.min([apply_perm(g, own) for g in PERMS], axis=0), own)


@pytest.mark.parametrize("m,o", [(3, 3), (2, 2), (4, 1), (1, 1), (0, 0), (0, 5), (6, 0)])
def test_orbits_brute_force(m, o):
    """Independent count: canonical form = min over the 16 images of (own, opp)."""
    sub = Subspace(m, o)
    own, opp = all_positions(m, o)
    canon = brute_canonical(own, opp)
    slots = sub.index_many(own, opp)
    order = np.argsort(canon, kind="stable")
    canon, slots = canon[order], slots[order]
    same_orbit = canon[1:] == canon[:-1]
    n_orbits = 1 + int(np.count_nonzero(~same_orbit))
    # same orbit => same slot, and as many slots as orbits: same slot <=> same orbit
    assert np.array_equal(slots[1:][same_orbit], slots[:-1][same_orbit])
    assert len(np.unique(slots)) == n_orbits
    assert sub.count_real() == n_orbits == int(sub.real_mask().sum())
    # the used slots are exactly the real ones
    real = np.zeros(sub.slots, dtype=bool)
    real[slots] = True
    assert np.array_equal(real, sub.real_mask())


def test_count_real_threads_agree():
    for m, o in [(3, 3), (4, 6), (8, 2)]:
        sub = Subspace(m, o)
        assert sub.count_real(1) == sub.count_real(2) == int(sub.real_mask().sum())
    assert Subspace(3, 3).count_real(np.int64(2)) == Subspace(3, 3).count_real(2)
    # what Cython would truncate (2.5 -> 2) or overflow on (2**40) is refused here
    for bad, message in ((2.5, "must be an integer"), (True, "must be an integer"),
                         (2**40, "must lie in 1..256"), (0, "must lie in 1..256")):
        with pytest.raises(ValueError, match=message):
            Subspace(3, 3).count_real(bad)


@pytest.fixture(scope="module")
def moving_stats():
    return index_stats()


def test_moving_phase_totals(moving_stats):
    stats = moving_stats
    assert len(stats["subspaces"]) == 49
    assert stats["orbits"] == MOVING_ORBITS == sum(burnside(m, o) for m in range(3, 10)
                                                    for o in range(3, 10))
    assert all(row["orbits"] == burnside(*map(int, row["subspace"].split("-")))
               for row in stats["subspaces"])
    assert stats["slots_per_orbit"] <= 1.05
    row = stats["subspaces"][0]
    assert row["subspace"] == "3-3" and row["orbits"] == 140621 + 28736 + 269
    assert "total" in format_index_stats(stats)


def test_doctests():
    import doctest

    import solver.index

    assert doctest.testmod(solver.index).failed == 0


def test_index_stats_command(moving_stats, monkeypatch):
    import json

    from click.testing import CliRunner

    import solver.index
    from solver.cli.databases import index_stats as command

    monkeypatch.setattr(solver.index, "index_stats", lambda threads, board, stones: moving_stats)
    result = CliRunner().invoke(command, ["--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["orbits"] == MOVING_ORBITS
    assert [r["subspace"] for r in stats["subspaces"]][:2] == ["3-3", "3-4"]
    assert {"subspace", "orbits", "slots"} <= set(stats["subspaces"][0])
    result = CliRunner().invoke(command, [])
    assert result.exit_code == 0 and "8,904,593,601" in result.output


@pytest.mark.parametrize("name", ["six-mens", "seven-mens", "three-mens"])
def test_index_stats_of_other_boards_count_burnside(name):
    """index-stats on another board: the index's real slots are the board's orbits."""
    rules = Rules.from_name(name)
    stats = index_stats(2, rules.board, rules.stones)
    assert stats["orbits"] == rules.moving_orbits
    assert [r["subspace"] for r in stats["subspaces"]] == [
        f"{m}-{o}" for m in range(3, rules.stones + 1) for o in range(3, rules.stones + 1)]


def test_hostile_masks_and_slots():
    s = Subspace(3, 3)
    for own, opp in ((-1, 56), (2**70, 56), (7.9, 56.2), (True, 56), ("7", 56)):
        with pytest.raises(ValueError):
            s.index(own, opp)
    assert s.index(np.uint32(7), np.int64(56)) == s.index(7, 56)
    for slot in (-1, 2**70, s.slots, np.uint64(2**64 - 1)):
        with pytest.raises(IndexError):
            s.position(slot)
        with pytest.raises(IndexError):
            s.is_real(slot)
    for slot in (1.5, "3", None):
        with pytest.raises(ValueError):
            s.position(slot)
    with pytest.raises(ValueError):
        s.positions_many([1.9])
    with pytest.raises(ValueError):
        s.is_real_many([True])
    with pytest.raises(IndexError):
        s.positions_many([2**70])
    with pytest.raises(IndexError):
        s.positions_many(np.array([2**63], dtype=np.uint64))
    assert s.positions_many(np.array([5], dtype=np.uint16))[0][0] == s.position(5)[0]
    assert s.positions_many([])[0].shape == (0,)
    for own in (-1, 2**70, 1 << 24, 1.5):
        with pytest.raises(ValueError):
            canonical_set(own)
    assert canonical_set(np.uint32(7)) == canonical_set(7)
    with pytest.raises(ValueError):
        s.real_mask(0.5, 3)


def test_names_of_wrong_types_and_board_names():
    for parse in (Subspace.parse, Pair.parse):
        for bad in (None, 3, b"3-3"):
            with pytest.raises(ValueError):
                parse(bad)
    assert Subspace(3, 3, board="six-mens") == Subspace(3, 3)
    assert Subspace(3, 3, board="six-mens").slots == 12012
    assert Pair(3, 4, board="standard").board is board.STANDARD_BOARD
    with pytest.raises(ValueError):
        Subspace(3, 3, board="nine")


def test_subspaces_and_pairs_cannot_lose_attributes():
    s, p = Subspace(3, 3), Pair(3, 4)
    for value, name in ((s, "board"), (s, "kernels"), (p, "board")):
        with pytest.raises(AttributeError, match="immutable"):
            delattr(value, name)
    assert s.board is board.STANDARD_BOARD and p.board is board.STANDARD_BOARD
