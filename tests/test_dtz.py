"""Tables of the quiet-ply rule (solver.dtz) against a brute force that knows nothing of
the kernels: the game with the count of quiet plies in the state, every moving-phase
position of a small game enumerated as plain masks (no symmetry, no index), its moves
from the readable rules (Position.legal_moves), and the values of every count 0..limit
found layer by layer from the last allowed ply down.  The tables must say, for every
position and every count, what the brute force says, and their DTZ must be the plies the
brute force needs (the first count from the top at which the win or loss appears)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver import dtz
from solver.errors import UnsupportedRulesError
from solver.index import Subspace
from solver.position import Position
from solver.retro import pairs_in_order, solve_pair
from solver.rules import Rules
from solver.values import SLACK_CODE

WIN, DRAW, LOSS = 1, 0, -1


def subsets(points: int, k: int) -> np.ndarray:
    """Every k-point mask of a board of ``points`` points."""
    return np.array([sum(1 << p for p in c) for c in itertools.combinations(range(points), k)], dtype=np.int64)


class Oracle:
    """Every moving-phase position of ``rules`` (side to move's view, plain masks) up to
    the board's symmetries (one a class: the least of its images, found by permuting the
    points, not by the kernels' index), its moves from the readable rules, and the game
    under the rule solved by value iteration over the count of quiet plies."""

    def __init__(self, rules: Rules):
        self.rules = rules
        board = rules.board
        n = board.num_points
        # images of a mask by bytes: perm[g, byte, v] is the image of v << 8 * byte
        perm = np.zeros((len(board.symmetries), 3, 256), dtype=np.int64)
        for g, images in enumerate(board.symmetries):
            for byte in range(3):
                for v in range(256):
                    perm[g, byte, v] = sum(1 << images[8 * byte + b] for b in range(8)
                                           if v >> b & 1 and 8 * byte + b < n)
        self.perm = perm
        self.pairs = [tuple(p) for p in pairs_in_order(rules)]
        keys, pair_of = [], []
        for k, pair in enumerate(self.pairs):
            for m, o in dict.fromkeys([pair, pair[::-1]]):
                owns, opps = subsets(n, m), subsets(n, o)
                key = ((owns[:, None] << 32) | opps[None, :])[(owns[:, None] & opps[None, :]) == 0]
                key = key[self.canonical(key) == key]
                keys.append(key)
                pair_of.append(np.full(len(key), k))
        self.keys = np.concatenate(keys)                     # in pair order
        self.pair_of = np.concatenate(pair_of)
        order = np.argsort(self.keys)
        self.sorted_keys, self.sorted_ids = self.keys[order], order
        count = len(self.keys)
        self.blocked = np.zeros(count, dtype=bool)
        quiet_src, quiet_key, exit_src, exit_key = [], [], [], []
        for i, key in enumerate(self.keys.tolist()):
            own, opp = key >> 32, key & 0xFFFFFFFF
            moves = Position.from_view(own, opp, board=board).legal_moves(rules)
            self.blocked[i] = not moves
            for move in moves:
                # the opponent to move next: (its stones, the mover's after the move)
                mover = own & ~(1 << move.origin) | 1 << move.target
                if move.takes:
                    left = opp & ~sum(1 << t for t in move.takes)
                    exit_src.append(i)
                    # the opponent left with two stones: the taker has won (-1: no position)
                    exit_key.append((left << 32) | mover if left.bit_count() >= 3 else -1)
                else:
                    quiet_src.append(i)
                    quiet_key.append((opp << 32) | mover)
        self.quiet_src, self.quiet_dst = np.array(quiet_src, np.int64), self.id_of(np.array(quiet_key, np.int64))
        self.exit_src = np.array(exit_src, np.int64)
        exit_key = np.array(exit_key, np.int64)
        self.exit_dst = np.full(len(exit_key), -1, dtype=np.int64)
        self.exit_dst[exit_key >= 0] = self.id_of(exit_key[exit_key >= 0])

    def canonical(self, keys: np.ndarray) -> np.ndarray:
        """The least image of each position (own << 32 | opp) under the symmetries."""
        best = None
        for g in range(len(self.perm)):
            image = np.zeros_like(keys)
            for half, shift in ((keys >> 32, 32), (keys & 0xFFFFFFFF, 0)):
                for byte in range(3):
                    image |= self.perm[g, byte, (half >> 8 * byte) & 255] << shift
            best = image if best is None else np.minimum(best, image)
        return best

    def id_of(self, keys: np.ndarray) -> np.ndarray:
        canon = self.canonical(keys)
        at = np.searchsorted(self.sorted_keys, canon)
        assert np.array_equal(self.sorted_keys[at], canon), "a successor outside the positions"
        return self.sorted_ids[at]

    @property
    def positions(self) -> list[tuple[int, int]]:
        return [(k >> 32, k & 0xFFFFFFFF) for k in self.keys.tolist()]

    def solve(self, limit: int) -> np.ndarray:
        """values[c, i]: the value (WIN, DRAW, LOSS) of position i with c quiet plies
        played, c = 0..limit; at the limit the game is drawn unless the side to move is
        blocked (the board's verdict first)."""
        n = len(self.keys)
        values = np.zeros((limit + 1, n), dtype=np.int8)
        for k in range(len(self.pairs)):          # mills lead into earlier pairs
            mine = self.pair_of == k
            q = mine[self.quiet_src]
            qs, qd = self.quiet_src[q], self.quiet_dst[q]
            e = mine[self.exit_src]
            es, ed = self.exit_src[e], self.exit_dst[e]
            # a mill: the opponent to move with a fresh count there
            exit_value = np.where(ed < 0, WIN, -values[0, np.maximum(ed, 0)]).astype(np.int8)
            best_exit = np.full(n, -2, dtype=np.int8)
            np.maximum.at(best_exit, es, exit_value)
            values[limit, mine] = np.where(self.blocked[mine], LOSS, DRAW)
            order = np.argsort(qs, kind="stable")
            qs, qd = qs[order], qd[order]
            starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]]) if len(qs) else np.zeros(0, np.int64)
            for c in range(limit - 1, -1, -1):
                best = best_exit.copy()
                if len(qs):
                    best[qs[starts]] = np.maximum(best[qs[starts]],
                                                  np.maximum.reduceat(-values[c + 1, qd], starts))
                values[c, mine] = np.where(self.blocked[mine], LOSS, best[mine])
        assert not (values == -2).any()
        return values


def dtz_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value at count 0, plies to the next mill) from the brute force's values at every
    count: a win or loss at count c is one within limit - c plies, so its DTZ is the
    limit less the largest count it holds at (and it holds at every count below)."""
    limit = values.shape[0] - 1
    first = values[0]
    held = values == first[None, :]
    last = limit - np.argmax(held[::-1], axis=0)       # the largest count it holds at
    assert held[np.arange(limit + 1)[:, None] <= last[None, :]].all(), "a value not monotone in the count"
    return first, np.where(first == DRAW, -1, limit - last)


@pytest.fixture(scope="module")
def five():
    """Five Men's Morris (the Six Men's board, five stones, no jumping): a game where
    the losing side must sometimes close a mill into a loss (five such wins, four such
    losses at every limit: the case one solve cannot count)."""
    rules = Rules.from_name("five-mens")
    return rules, Oracle(rules)


def tables(rules: Rules, limit: int) -> tuple[dict, dict]:
    """The DTZ codes and the plain codes of every subspace of ``rules``, solved in memory."""
    rule, plain = {}, {}
    for pair in pairs_in_order(rules):
        for s, v in solve_pair(tuple(pair), rules, lambda m, o: plain[m, o]).values.items():
            plain[s.m, s.o] = v
        values = dtz.solve_rule_pair(tuple(pair), rules, lambda m, o: rule[m, o], limit).values
        assert dtz.check_pair(pair, rules, values, lambda m, o: rule[m, o], limit) == []
        for s, v in values.items():
            rule[s.m, s.o] = v
    return rule, plain


@pytest.mark.parametrize("limit", [50, 7])
def test_the_tables_are_the_brute_force_at_every_count(five, limit):
    """Every position, every count: the tables' verdict (win iff a win of DTZ <= limit -
    count) is the brute force's, and the DTZ is the brute force's plies.  Small limits
    make many cursed wins and blessed losses, and odd and even ones test both parities
    of the limit."""
    rules, oracle = five
    values = oracle.solve(limit)
    first, plies = dtz_of(values)
    rule, plain = tables(rules, limit)
    own = (oracle.keys >> 32).astype(np.uint32)
    opp = (oracle.keys & 0xFFFFFFFF).astype(np.uint32)
    m = np.array([bin(int(x)).count("1") for x in own])
    o = np.array([bin(int(x)).count("1") for x in opp])
    code = np.zeros(len(own), dtype=np.int64)
    plain_code = np.zeros(len(own), dtype=np.int64)
    kernels = Subspace(3, 3, board=rules.board).kernels
    for key in rule:
        at = (m == key[0]) & (o == key[1])
        slots = np.empty(int(at.sum()), dtype=np.int64)
        kernels.index_batch(key[0], key[1], own[at], opp[at], slots)
        code[at] = rule[key][slots]
        plain_code[at] = plain[key][slots]
    assert not (code == SLACK_CODE).any()
    t = code >> 1
    win = (code != 0) & (code % 2 == 0)
    loss = code % 2 == 1
    counts = np.arange(limit + 1)[:, None]
    expected = np.where(win & (t <= limit - counts), WIN, np.where(loss & (t <= limit - counts), LOSS, DRAW))
    assert np.array_equal(expected, values)
    decided = first != DRAW
    assert np.array_equal(t[decided], plies[decided])
    # the rule only draws: a win under it is a win without it, and the tables' plain
    # win, draw or loss (cursed wins and blessed losses included) is the plain tables'
    assert np.array_equal(code == 0, plain_code == 0) and np.array_equal(code & 1, plain_code & 1)
    cursed = win & (t > limit)
    blessed = loss & (t > limit)
    if limit < 50:
        assert cursed.any() and blessed.any()
    # both parities of DTZ occur among wins and losses: a mill of the winner's ends odd
    # plies from the winner, one the loser must make even (docs/design.md §3: what one
    # solve cannot count)
    assert (win & ~cursed & (t % 2 == 0)).sum() == 5 and (loss & ~blessed & (t % 2 == 1)).sum() == 4
    assert (win & ~cursed & (t % 2 == 1)).any() and (loss & ~blessed & (t % 2 == 0)).any()


def test_a_block_and_a_mill_on_the_last_ply_win(five):
    """The board's verdict comes first: a move that blocks the opponent, or closes a
    mill, on the last ply the rule allows wins; one ply later it is a draw."""
    rules, oracle = five
    values = oracle.solve(6)
    blocking = np.unique(oracle.quiet_src[oracle.blocked[oracle.quiet_dst]])
    milling = np.unique(oracle.exit_src[oracle.exit_dst < 0])
    for found in (blocking[:50], milling[:50]):
        assert len(found)
        for i in found:
            assert values[5, i] == WIN        # the last allowed ply (count 5 of 6) wins
            assert values[6, i] == (LOSS if oracle.blocked[i] else DRAW)


def test_rules_the_tables_are_not_made_for_are_refused():
    for name in ("take-none", "lasker", "three-mens"):
        with pytest.raises(UnsupportedRulesError, match="no tables of the quiet-ply rule"):
            dtz.check_rules(Rules.from_name(name))


# --- the conversions of codes, against their definitions written out in numpy ----------

def rounded_reference(codes: np.ndarray, second: bool) -> np.ndarray:
    c = codes.astype(np.int64)
    t, win = c >> 1, (c & 1) == 0
    plies = (np.where(win, (t + 1) | 1, (t + 2) & ~1) if second
             else np.where(win, t | 1, (t + 1) & ~1))
    return np.where((c == 0) | (c == SLACK_CODE), c, plies + 1)


def exit_reference(codes: np.ndarray, limit: int, second: bool) -> np.ndarray:
    c = codes.astype(np.int64)
    lost, real = (c & 1) == 1, (c >> 1) <= limit
    # the taker's DTZ, then rounded as the solve rounds: a win up to odd, a loss up to even
    taker = np.where(real, 1, np.where(lost, limit + 1 + (limit % 2), limit + 2 - (limit % 2)))
    up = (np.where(lost, (taker + 1) | 1, (taker + 2) & ~1) if second
          else np.where(lost, taker | 1, (taker + 1) & ~1))
    return np.where((c == 0) | (c == SLACK_CODE), c, up)


@pytest.mark.parametrize("limit", [1, 7, 50, 100])
def test_the_kernels_conversions_are_their_definitions(limit):
    codes = np.arange(0x10000, dtype=np.uint16)
    for second in (False, True):
        assert np.array_equal(dtz.rounded(codes[:4 * limit + 600], second),
                              rounded_reference(codes[:4 * limit + 600], second))
        assert np.array_equal(dtz.exit_codes(codes[:4 * limit + 600], limit, second),
                              exit_reference(codes[:4 * limit + 600], limit, second))
    # a solve whose plies are the DTZ: a win in odd plies is DTZ code 2 * plies
    plies = np.array([0, 1, 2, 3, 4, 5, SLACK_CODE], dtype=np.uint16)   # (codes: draw, 1 + plies)
    assert dtz._convert(plies, dtz.FROM_PLIES).tolist() == [0, 1, 2, 5, 6, 9, SLACK_CODE]
