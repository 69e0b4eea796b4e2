"""Threads change nothing: every parallel kernel gives byte-identical results with one
thread and with several (the retrograde rounds, the forward check, the placement pass
and the oracle's sweeps)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.opening import solve_placement
from solver.probe import open_database
from solver.retro import solve_pair
from solver.rules import Rules
from solver.verify.check import check_values
from solver.verify.oracle import Oracle

FOUR = Rules(stones=4)
JOBS = (1, 2)


def same_arrays(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k].tobytes() == b[k].tobytes() for k in a)


@pytest.fixture(scope="module")
def solved():
    """Pairs 3-3 and 3-4 of the 4-stone game, solved with 1 and 2 threads."""
    out = {}
    for jobs in JOBS:
        p33 = solve_pair((3, 3), FOUR, None, jobs)
        p34 = solve_pair((3, 4), FOUR, lambda m, o: p33.values[m, o], jobs)
        out[jobs] = (p33, p34)
    return out


def test_retrograde_rounds(solved):
    one = solved[1]
    for jobs in JOBS[1:]:
        for a, b in zip(one, solved[jobs]):
            assert a.rounds == b.rounds and same_arrays(a.values, b.values)


def test_forward_check(solved):
    p33, p34 = solved[1]
    lookup = lambda m, o: p33.values[m, o]
    assert check_values((3, 4), FOUR, p34.values, lookup, jobs=2) == []
    # spoil every 997th slot: many more bad states than are reported
    bad = {k: v.copy() for k, v in p34.values.items()}
    for v in bad.values():
        v[::997] ^= 2
    found = {jobs: check_values((3, 4), FOUR, bad, lookup, jobs=jobs, max_bad=40) for jobs in JOBS}
    assert len(found[1]) == 40
    assert found[1] == found[2]
    assert [b.slot for b in found[1]] == sorted(b.slot for b in found[1])


def test_grouped_check(solved):
    """The build's check (positions grouped by the opponent's stones) checks every real
    slot once, passes the solved values and names the same bad states as the slot-order
    check, including a slack slot given a code, with one thread and two."""
    from solver import _kernels
    p33, p34 = solved[1]
    lookup = lambda m, o: p33.values[m, o]
    assert check_values((3, 4), FOUR, p34.values, lookup, grouped=True) == []
    for m, o in p34.values:
        cap = p33.values[o - 1, m] if (o - 1, m) in p33.values else np.zeros(0, np.uint16)
        _, faults, checked, _ = _kernels.retro_check_grouped(
            m, o, p34.values[m, o], p34.values[o, m], cap, FOUR.flags)
        assert faults == 0 and checked == _kernels.count_real_slots(m, o)
        # the fingerprint of what the successors give equals that of the stored codes
        _, _, checked, prints = _kernels.retro_check_grouped(
            m, o, p34.values[m, o], p34.values[o, m], cap, FOUR.flags, fingerprint=True)
        assert _kernels.retro_fingerprint(p34.values[m, o], 0xFFFF) == (checked, prints)
    bad = {k: v.copy() for k, v in p34.values.items()}
    for v in bad.values():
        v[::997] ^= 2
    slack = np.flatnonzero(bad[4, 3] == 0xFFFF)
    bad[4, 3][slack[0]] = 0
    for jobs in JOBS:
        assert (check_values((3, 4), FOUR, bad, lookup, jobs=jobs, max_bad=400, grouped=True)
                == check_values((3, 4), FOUR, bad, lookup, jobs=1, max_bad=400))
    only_slack = {k: v.copy() for k, v in p34.values.items()}
    only_slack[4, 3][slack[0]] = 0
    assert [b.slot for b in check_values((3, 4), FOUR, only_slack, lookup, grouped=True)] == [slack[0]]


def test_placement_pass(db4):
    with open_database(db4, FOUR, in_memory=True) as db:
        results = [solve_placement(FOUR, db.subspace, jobs) for jobs in JOBS]
    assert all(same_arrays(results[0], r) for r in results[1:])


def test_oracle_sweeps():
    rules = Rules(jumping=False)
    arrays = [Oracle(rules, jobs).get(3, 3) for jobs in JOBS]
    assert all(a.tobytes() == arrays[0].tobytes() for a in arrays[1:])
