"""Hands no game from the standard start reaches (a side with none in hand slides while
the other still places, or one side has two or more stones in hand more than the other):
the opening search answers them exactly, checked against a brute-force negamax over the
reference rules (:meth:`Position.legal_moves`) with the moving-phase database at the leaves."""

from __future__ import annotations

import random

import pytest

from solver.opening import OpeningSearch, book_key
from solver.position import DRAW, LOSS, WIN, Position
from solver.probe import open_database
from solver.rules import Rules
from solver.values import decode

FOUR = Rules(stones=4)
RANK = {WIN: 1, DRAW: 0, LOSS: -1}


def odd_hand_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    """Random positions whose hands the normal game never produces, game not over."""
    rng = random.Random(seed)
    n = rules.stones
    out = []
    while len(out) < count:
        hm, ho = rng.randint(0, n), rng.randint(0, n)
        if hm + ho == 0 or hm - ho in (0, 1) or hm + ho > 2:
            continue                     # the hands of the normal game; brute force stays small
        m, o = rng.randint(0, n - hm), rng.randint(0, n - ho)
        points = rng.sample(range(24), m + o)
        own = sum(1 << p for p in points[:m])
        opp = sum(1 << p for p in points[m:])
        pos = Position.from_view(own, opp, hm, ho, rng.choice("wb"))
        if pos.outcome(rules) is None:
            out.append(pos)
    return out


@pytest.fixture(scope="module")
def brute(db4):
    db = open_database(db4, FOUR, in_memory=True)

    memo: dict[int, int] = {}

    def value(pos: Position) -> int:
        outcome = pos.outcome(FOUR)
        if outcome is not None:
            return RANK[outcome]
        if not pos.in_placement:
            return RANK[decode(db.code(pos.own, pos.opp)).value]
        key = book_key(pos)           # one entry for all 16 images and both colours
        if key not in memo:
            memo[key] = max(-value(pos.play_unchecked(mv)) for mv in pos.legal_moves(FOUR))
        return memo[key]

    yield db, value
    db.close()


def test_search_answers_odd_hands_as_brute_force_negamax(brute):
    db, value = brute
    search = OpeningSearch(FOUR, db.subspace)
    positions = odd_hand_positions(FOUR, 12, seed=5)
    seen = set()
    for pos in positions:
        got = search.solve(pos).value
        assert RANK[got] == value(pos), str(pos)
        seen.add((got, pos.own_hand == 0))
    # the sample reaches every value, and positions where the side to move slides
    assert {v for v, _ in seen} == {WIN, DRAW, LOSS} and (WIN, True) in seen or (LOSS, True) in seen


def test_probe_and_probe_moves_answer_odd_hands(brute):
    db, value = brute
    for pos in odd_hand_positions(FOUR, 4, seed=6):
        assert RANK[db.probe(pos).value] == value(pos)
        moves = db.probe_moves(pos)
        assert moves and RANK[moves[0].value] == value(pos)
