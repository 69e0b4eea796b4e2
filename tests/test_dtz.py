"""Tables of the quiet-ply rule (solver.dtz) against a brute force that knows nothing of
the kernels: the game with the count of quiet plies in the state, every moving-phase
position of a small game enumerated as plain masks (no symmetry, no index), its moves
from the readable rules (Position.legal_moves), and the values of every count 0..limit
found layer by layer from the last allowed ply down.  The tables must say, for every
position and every count, what the brute force says, and their DTZ must be the plies the
brute force needs (the first count from the top at which the win or loss appears)."""

from __future__ import annotations

import itertools
import re

import h5py
import numpy as np
import pytest

from solver.commands import explained
from solver import dtz
from solver.errors import UnsupportedRulesError
from solver.index import Pair, Subspace
from solver.position import Position, decided, in_mill, parse_move, parse_position
from solver.retro import pairs_in_order, solve_pair
from solver.rules import Rules
from solver.values import SLACK_CODE, WDL

WIN, DRAW, LOSS = 1, 0, -1        # (the brute force's numbers; a game's values are words)


def subsets(points: int, k: int) -> np.ndarray:
    """Every k-point mask of a board of ``points`` points."""
    return np.array([sum(1 << p for p in c) for c in itertools.combinations(range(points), k)], dtype=np.int64)


class Oracle:
    """Every moving-phase position of ``rules`` (side to move's view, plain masks) up to
    the board's symmetries (one a class: the least of its images, found by permuting the
    points, not by the kernels' index), its moves from the readable rules, and the game
    under the rule solved by value iteration over the count of quiet plies.  A mill that
    takes nothing (take-none) restarts the count inside its own pair: such a pair is
    iterated from all draws until its values no longer change (the least fixed point,
    a win then ending the game after finitely many such mills)."""

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
        quiet_src, quiet_key, exit_src, exit_key, reset_src, reset_key = [], [], [], [], [], []
        for i, key in enumerate(self.keys.tolist()):
            own, opp = key >> 32, key & 0xFFFFFFFF
            # a line already on the board (a line wins): the opponent's has won, the
            # side to move's wins in 1 ply, as the kernels count it (no game reaches it)
            over = decided(own, opp, 0, 0, rules)
            moves = [] if over else Position.from_view(own, opp, board=board).legal_moves(rules)
            self.blocked[i] = over == WDL.LOSS or not over and not moves
            if over == WDL.WIN:
                exit_src.append(i)
                exit_key.append(-1)
            for move in moves:
                # the opponent to move next: (its stones, the mover's after the move)
                target, take = move.target, move.take
                mover = own & ~(1 << move.origin) | 1 << target
                line = rules.line_wins and in_mill(mover, target, board)
                if take is not None or line:
                    left = opp if take is None else opp & ~(1 << take)
                    if move.take2 is not None:
                        left &= ~(1 << move.take2)
                    exit_src.append(i)
                    # the opponent left with two stones, or a line of three: the mover
                    # has won (-1: no position)
                    exit_key.append((left << 32) | mover if left.bit_count() >= 3 and not line else -1)
                elif in_mill(mover, target, board):
                    reset_src.append(i)             # a mill that takes nothing (take-none)
                    reset_key.append((opp << 32) | mover)
                else:
                    quiet_src.append(i)
                    quiet_key.append((opp << 32) | mover)
        self.quiet_src, self.quiet_dst = np.array(quiet_src, np.int64), self.id_of(np.array(quiet_key, np.int64))
        self.reset_src = np.array(reset_src, np.int64)
        self.reset_dst = self.id_of(np.array(reset_key, np.int64)) if reset_key else np.zeros(0, np.int64)
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
        for k in range(len(self.pairs)):          # mills lead into earlier pairs, or reset
            mine = self.pair_of == k
            q = mine[self.quiet_src]
            qs, qd = self.quiet_src[q], self.quiet_dst[q]
            e = mine[self.exit_src]
            r = mine[self.reset_src]
            es = np.concatenate([self.exit_src[e], self.reset_src[r]])
            ed = np.concatenate([self.exit_dst[e], self.reset_dst[r]])
            order = np.argsort(qs, kind="stable")
            qs, qd = qs[order], qd[order]
            starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]]) if len(qs) else np.zeros(0, np.int64)
            while True:
                before = values[:, mine].copy()
                # a mill: the opponent to move with a fresh count there
                exit_value = np.where(ed < 0, WIN, -values[0, np.maximum(ed, 0)]).astype(np.int8)
                best_exit = np.full(n, -2, dtype=np.int8)
                np.maximum.at(best_exit, es, exit_value)
                values[limit, mine] = np.where(self.blocked[mine], LOSS, DRAW)
                for c in range(limit - 1, -1, -1):
                    best = best_exit.copy()
                    if len(qs):
                        best[qs[starts]] = np.maximum(best[qs[starts]],
                                                      np.maximum.reduceat(-values[c + 1, qd], starts))
                    values[c, mine] = np.where(self.blocked[mine], LOSS, best[mine])
                if not r.any() or np.array_equal(values[:, mine], before):
                    break
        assert not (values == -2).any()
        return values


    def plain(self) -> np.ndarray:
        """The plain values (no quiet-ply rule) as the tables' codes: 0 a draw, 1 + plies
        (odd plies a win, even a loss), found round by round, d = 0, 1, ...: a position
        is a win in d where a move first reaches a loss of the opponent's in d - 1 (or a
        mill ends the game: d = 1), a loss in d where its last move becomes a win of the
        opponent's, the longest in d - 1 (blocked: d = 0); what no round decides is a
        draw.  Mills lead into earlier pairs, whose codes are final; one that takes
        nothing is a quiet move here (no count to restart)."""
        n = len(self.keys)
        code = np.full(n, -1, dtype=np.int64)          # -1: undecided
        quiet_src = np.concatenate([self.quiet_src, self.reset_src])
        quiet_dst = np.concatenate([self.quiet_dst, self.reset_dst])
        for k in range(len(self.pairs)):
            mine = self.pair_of == k
            q = mine[quiet_src]
            qs, qd = quiet_src[q], quiet_dst[q]
            e = mine[self.exit_src]
            es, ed = self.exit_src[e], self.exit_dst[e]
            # a mill's code for its mover: the target's value, one ply on, side changed
            target = np.where(ed < 0, 1, code[np.maximum(ed, 0)])   # (no position: lost in 0)
            assert (target >= 0).all()
            exit_code = np.where(target == 0, 0, target + 1)
            src = np.concatenate([qs, es])
            code[mine & self.blocked] = 1                  # loss in 0
            for d in range(0, 10_000):
                undecided = mine & (code < 0)
                if not undecided.any():
                    break
                # every move's code for its mover now (-1: not known yet)
                succ = code[qd]
                moves = np.concatenate([np.where(succ < 0, -1, np.where(succ == 0, 0, succ + 1)), exit_code])
                won = moves % 2 == 0
                win_now = np.zeros(n, dtype=bool)
                win_now[src[(moves == d + 1) & won & (moves > 0)]] = True
                known_loss = (moves > 0) & ~won
                all_lost = np.ones(n, dtype=bool)
                all_lost[src[~known_loss]] = False       # a move not (yet) a loss
                longest = np.zeros(n, dtype=np.int64)
                np.maximum.at(longest, src, np.where(known_loss, moves, 0))
                new_win = undecided & win_now
                new_loss = undecided & ~new_win & all_lost & (longest == d + 1)
                code[new_win] = d + 1
                code[new_loss] = d + 1
                if d > 2 and not (new_win.any() or new_loss.any()) and not (
                        (moves > d + 1).any() and undecided[src[moves > d + 1]].any()):
                    break                               # nothing left to decide
            code[mine & (code < 0)] = 0                    # a draw
        return code


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


_TABLES: dict = {}


def tables(rules: Rules, limit: int) -> tuple[dict, dict]:
    """The DTZ codes and the plain codes of every subspace of ``rules``, solved in memory
    (once a limit and way of finding the shifted DTZ: callers only read them)."""
    key = (rules, limit, dtz.MAX_SHIFTED)
    if key not in _TABLES:
        _TABLES[key] = _tables(rules, limit)
    return _TABLES[key]


def _tables(rules: Rules, limit: int) -> tuple[dict, dict]:
    rule, plain = {}, {}
    for pair in pairs_in_order(rules):
        for s, v in solve_pair(tuple(pair), rules, lambda m, o: plain[m, o]).values.items():
            plain[s.m, s.o] = v
        values = dtz.solve_rule_pair(tuple(pair), rules, lambda m, o: rule[m, o], limit).values
        assert dtz.check_pair(pair, rules, values, lambda m, o: rule[m, o], limit) == []
        for s, v in values.items():
            rule[s.m, s.o] = v
    return rule, plain


def agreed(rules: Rules, oracle: Oracle, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Assert that the tables of ``rules`` under ``limit`` say, for every position of the
    brute force ``oracle`` and every count, what the brute force says, that their DTZ is
    its plies, and that their plain win, draw or loss is the plain tables' (the rule
    only draws); return each position's DTZ code and whether it is a win, a loss (cursed
    wins and blessed losses included)."""
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
    settled = first != DRAW
    assert np.array_equal(t[settled], plies[settled])
    assert np.array_equal(code == 0, plain_code == 0) and np.array_equal(code & 1, plain_code & 1)
    return code, win, loss


@pytest.mark.parametrize("limit, second_solve", [(50, False), (7, False), (7, True), (3, False), (2, False)])
def test_the_tables_are_the_brute_force_at_every_count(five, limit, second_solve, monkeypatch):
    """Every position, every count: the tables' verdict (win iff a win of DTZ <= limit -
    count) is the brute force's, and the DTZ is the brute force's plies.  Small limits
    make many cursed wins and blessed losses, and odd and even ones test both parities
    of the limit.  The DTZ one less than the first solve's plies are found by following
    the few lines that end in a losing side's forced mill (dtz.shifted), or, where they
    are many, by the second solve: both are tried."""
    if second_solve:
        monkeypatch.setattr(dtz, "MAX_SHIFTED", 0)
    rules, oracle = five
    code, win, loss = agreed(rules, oracle, limit)
    t = code >> 1
    cursed = win & (t > limit)
    blessed = loss & (t > limit)
    if limit < 50:
        assert cursed.any() and blessed.any()
    if limit < 7:
        return                  # (the counts below are those of the longer limits)
    # both parities of DTZ occur among wins and losses: a mill of the winner's ends odd
    # plies from the winner, one the loser must make even (docs/design.md §3: what one
    # solve cannot count)
    assert (win & ~cursed & (t % 2 == 0)).sum() == 5 and (loss & ~blessed & (t % 2 == 1)).sum() == 4
    assert (win & ~cursed & (t % 2 == 1)).any() and (loss & ~blessed & (t % 2 == 0)).any()


def test_the_second_rounding_is_checked_where_it_can_fail(five, monkeypatch):
    """The build's check of the second rounding visits only the slots where it is not the
    first's plus two (dtz.second_rounding_slots: the DTZ kept aside, their quiet
    predecessors, the seeds), not the whole pair.  Changed codes (one or two plies off,
    a draw made decided, a win a loss) near the shifted lines and anywhere else pass or
    fail it exactly as they pass or fail a check of every slot; and some fail only in the
    second rounding, so the slots it visits are what finds them."""
    rules, _ = five
    limit = 7
    rule, _ = tables(rules, limit)
    pair = Pair(4, 5, board=rules.board)          # (five-mens' only pair with shifted DTZ)
    lookup = lambda m, o: rule[m, o]              # noqa: E731
    values = {s: rule[s.m, s.o].copy() for s in pair.subspaces}
    aside = {s: dtz._shifted_slots(v) for s, v in values.items()}
    first = {s: dtz.rounded(v, second=False) for s, v in values.items()}
    near = dtz.second_rounding_slots(pair, rules, first, aside)
    assert sum(map(len, aside.values())) == 9 and sum(map(len, near.values())) < 100 < pair.slots
    rng = np.random.default_rng(limit)
    # every change of every slot near the shifted lines, one change of other slots
    trials = [(s, int(x), change) for s in pair.subspaces for x in near[s] for change in (1, -1, 2, -2, 3)]
    for s in pair.subspaces:
        decided = np.flatnonzero((values[s] != 0) & (values[s] != SLACK_CODE))
        trials += [(s, int(x), [1, -1, 2, -2, 3][n % 5]) for n, x in enumerate(rng.choice(decided, 20, False))]
        drawn = np.flatnonzero(values[s] == 0)
        trials += [(s, int(x), [2, 3, 2 * limit + 4][n % 3]) for n, x in enumerate(rng.choice(drawn, 6, False))]
    everywhere = dtz.second_rounding_slots
    only_second = caught = 0
    for sub, slot, change in trials:
        code = int(values[sub][slot])
        if code + change < 0:
            change = -change
        changed = {s: v.copy() for s, v in values.items()}
        changed[sub][slot] = code + change
        monkeypatch.setattr(dtz, "second_rounding_slots", everywhere)
        found = dtz.check_pair(pair, rules, {s: v.copy() for s, v in changed.items()}, lookup, limit)
        monkeypatch.setattr(dtz, "second_rounding_slots", lambda *args: None)
        whole = dtz.check_pair(pair, rules, {s: v.copy() for s, v in changed.items()}, lookup, limit)
        assert bool(found) == bool(whole), (sub.name, slot, code, change, found, whole)
        caught += bool(found)
        only_second += bool(found) and all("second rounding" in line for line in found)
    assert only_second >= 5 and caught > len(trials) // 2, (only_second, caught, len(trials))
    # the kernels' check of listed slots is its check of a range at those slots, and
    # refuses a range beside them and slots that are not integers
    sub = pair.subspaces[0]
    second = {s: dtz.rounded(v, second=True) for s, v in values.items()}
    cap = dtz.exit_codes(rule[4, 4], limit, True)
    changed = second[sub].copy()
    changed[near[sub][::2]] += 2
    args = (sub.m, sub.o, changed, second[sub.mirror], cap, rules.flags)
    listed = sub.kernels.retro_check(*args, max_bad=1000, end=dtz.SECOND_END, slots=near[sub])
    ranged = sub.kernels.retro_check(*args, max_bad=10 ** 6, end=dtz.SECOND_END)
    # (in no order: the threads flag them as they meet them)
    assert listed[1] > 0 and sorted(listed[0].tolist()) == sorted(set(ranged[0].tolist()) & set(near[sub].tolist()))
    with pytest.raises(ValueError, match="give one"):
        sub.kernels.retro_check(*args, 0, 10, slots=near[sub])
    with pytest.raises(TypeError, match="integers"):
        sub.kernels.retro_check(*args, slots=near[sub].astype(float))


@pytest.fixture(scope="module")
def three():
    """Three Men's Morris: a line of three wins the game, so the game's end is its only
    mill, and the DTZ is the plies to the end."""
    rules = Rules.from_name("three-mens")
    return rules, Oracle(rules)


@pytest.mark.parametrize("limit", [50, 7, 4, 3, 2])
def test_where_a_line_wins_the_tables_are_the_brute_force_and_the_plain_plies(three, limit):
    """Where a line of three wins, every position at every count is the brute force's
    (its lines that win end the game at any count, as a mill on the last ply does), and
    each DTZ is the plain tables' plies: the rule draws exactly the wins and losses
    longer than the limit."""
    rules, oracle = three
    code, win, loss = agreed(rules, oracle, limit)
    _, plain = tables(rules, limit)
    own = (oracle.keys >> 32).astype(np.uint32)
    opp = (oracle.keys & 0xFFFFFFFF).astype(np.uint32)
    slots = np.empty(len(own), dtype=np.int64)
    Subspace(3, 3, board=rules.board).kernels.index_batch(3, 3, own, opp, slots)
    plies = plain[3, 3][slots].astype(np.int64) - 1
    assert np.array_equal((code >> 1)[win | loss], plies[win | loss])
    longest = int(plies.max())
    assert longest > 4                          # (so that the small limits draw some)
    drawn = (win | loss) & (plies > limit)
    assert drawn.any() == (limit < longest)


def test_the_plain_tables_are_the_brute_force(five):
    """The plain tables (no rule) of Five Men's Morris against the brute force's rounds
    over the reference rules' moves (no kernel, no index): every position's value and
    plies."""
    rules, oracle = five
    _, plain = tables(rules, 50)
    own = (oracle.keys >> 32).astype(np.uint32)
    opp = (oracle.keys & 0xFFFFFFFF).astype(np.uint32)
    m = np.array([bin(int(x)).count("1") for x in own])
    o = np.array([bin(int(x)).count("1") for x in opp])
    stored = np.zeros(len(own), dtype=np.int64)
    kernels = Subspace(3, 3, board=rules.board).kernels
    for key, codes in plain.items():
        at = (m == key[0]) & (o == key[1])
        slots = np.empty(int(at.sum()), dtype=np.int64)
        kernels.index_batch(key[0], key[1], own[at], opp[at], slots)
        stored[at] = codes[slots]
    expected = oracle.plain()
    assert (expected > 0).sum() > 100_000
    assert np.array_equal(stored, expected), np.flatnonzero(stored != expected)[:5]


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
    for name in ("morabaraba-take-none", "morabaraba-take-none-s7"):
        with pytest.raises(UnsupportedRulesError, match="no tables of the quiet-ply rule"):
            dtz.check_rules(Rules.from_name(name))
    # served: a line wins (above; where it takes nothing), a mill that takes nothing (below),
    # mixed placement (below)
    for name in ("three-mens", "three-mens-take-none", "take-none", "no-jumping-take-none", "lasker",
                 "five-mens-mixed"):
        dtz.check_rules(Rules.from_name(name))


@pytest.fixture(scope="module")
def five_take_none():
    """Five Men's Morris where a mill takes nothing when every stone of the other side
    stands in a mill: such a mill restarts the count inside its own pair."""
    rules = Rules.from_name("five-mens-take-none")
    return rules, Oracle(rules)


@pytest.mark.parametrize("limit, second_solve", [
    (7, True), *(pytest.param(limit, False, marks=pytest.mark.slow) for limit in (50, 3, 2))])
def test_a_mill_that_takes_nothing_restarts_the_count_as_the_brute_force_says(five_take_none, limit,
                                                                            second_solve, monkeypatch):
    """Under take-none the tables (each pair solved again until its mills that take
    nothing read a fixed point: dtz.solve_rule_pair) are the brute force's at every
    position and count, DTZ included; the brute force iterates its own way (all counts
    at once, from all draws).  Those mills matter: played as quiet moves, as the plain
    tables play them, the DTZ of 253 positions would be other and at limit 2 the value
    of 12 (tests/test_dtz.py's brute force with them as quiet moves said so)."""
    if second_solve:
        monkeypatch.setattr(dtz, "MAX_SHIFTED", 0)
    rules, oracle = five_take_none
    assert len(oracle.reset_src) > 400
    values = oracle.solve(limit)
    first, plies = dtz_of(values)
    quiet = Oracle.__new__(Oracle)
    quiet.__dict__.update(oracle.__dict__)
    quiet.quiet_src = np.concatenate([oracle.quiet_src, oracle.reset_src])
    quiet.quiet_dst = np.concatenate([oracle.quiet_dst, oracle.reset_dst])
    quiet.reset_src = quiet.reset_dst = np.zeros(0, np.int64)
    other, other_plies = dtz_of(quiet.solve(limit))
    assert (first != other).any() or (plies != other_plies).any()
    agreed(rules, oracle, limit)
    rounds = [dtz.solve_rule_pair(tuple(p), rules, lambda m, o: tables(rules, limit)[0][m, o], limit).rounds
              for p in pairs_in_order(rules)]
    # (three rounds: the second changed values, the third proved them a fixed point; 4-4: no
    # side's stones can all stand in mills, so one solve)
    assert max(rounds) == 3 and rounds[pairs_in_order(rules).index(Pair(4, 4, board=rules.board))] == 1


@pytest.mark.slow
@pytest.mark.parametrize("limit", [50, 4, 2])
def test_under_take_none_a_jumping_side_is_the_brute_force(limit):
    """The 3-stone standard game under take-none (both sides jump; a side of three in a
    mill can be closed against, and nothing is taken): the tables, solved by the
    slot-order walks a mill that takes nothing needs, are the brute force's at every
    position and count."""
    rules = Rules.from_name("take-none-s3")
    if "take-none-s3" not in _ORACLES:
        _ORACLES["take-none-s3"] = Oracle(rules)
    agreed(rules, _ORACLES["take-none-s3"], limit)


_ORACLES: dict = {}


@pytest.mark.parametrize("limit", [7, pytest.param(50, marks=pytest.mark.slow)])
def test_under_take_none_the_seven_mens_board_is_the_brute_force(limit):
    """Seven Men's Morris under take-none, served since no round of mills that take
    nothing fits on its board (below): with four stones a side, the tables (pairs with
    three stones solved until a fixed point) are the brute force's at every position
    and count."""
    rules = Rules.from_name("seven-mens-take-none-s4")
    if rules.name not in _ORACLES:
        _ORACLES[rules.name] = Oracle(rules)
    agreed(rules, _ORACLES[rules.name], limit)
    assert dtz.solve_rule_pair((3, 4), rules, lambda m, o: tables(rules, limit)[0][m, o], limit).rounds >= 2


def test_mills_that_take_nothing_for_ever_are_found_by_hand_and_such_boards_refused():
    """A round of play through mills that take nothing only keeps both sides' stones in
    mills throughout (dtz.endless_mills searches the graph of such positions whole):
    none on the standard, Six Men's and Seven Men's boards, whose take-none tables are
    made; on Morabaraba's board the reviewer's round c5-d5, f2-d2, d5-c5, d2-f2 is one,
    and so is the search's, each move a mill that takes nothing (the reference rules
    say so), and its take-none rules are refused."""
    for name in ("take-none", "no-jumping-take-none", "six-mens-take-none", "five-mens-take-none",
                 "seven-mens-take-none", "seven-mens-lines-take-none"):
        assert dtz.endless_mills(Rules.from_name(name)) is None
        dtz.check_rules(Rules.from_name(name))
    rules = Rules.from_name("morabaraba-take-none")

    def goes_round(start: str, moves: list[str]) -> None:
        game = Game(parse_position(start, rules), rules)
        first = game.position
        for text in moves:
            move = parse_move(text, rules.board)
            assert move in game.position.legal_moves(rules) and not move.takes
            game.play(move)
            assert in_mill(game.position.opp, move.target, rules.board) and game.quiet_plies == 0
        assert game.position == first

    goes_round("W:a7,d7,g7,b6,d6,f6,c5 B:c3,d3,e3,f2,a1,d1,g1 w", ["c5-d5", "f2-d2", "d5-c5", "d2-f2"])
    found = dtz.endless_mills(rules)
    start, moves = found.split(", then ")
    goes_round(start, moves.split())
    assert "can follow each other for ever" in dtz.unserved(rules) and found in dtz.unserved(rules)


def test_no_round_of_mills_that_take_nothing_fits_on_the_seven_mens_boards():
    """Found another way, by brute force over point sets (no union of mills built, no
    pruning) and a depth-first search: on both Seven Men's boards (slides only) the
    graph of positions whose two sides' stones (3..7 each) all stand in mills, and of
    the slides that keep the mover's so, has no cycle; so no round of mills that take
    nothing can be played there.  On Morabaraba's board it has one."""
    import sys

    def has_round(name: str) -> tuple[bool, int]:
        rules = Rules.from_name(name)
        board = rules.board
        n = board.num_points
        sets = []
        for k in range(3, rules.stones + 1):
            for points in itertools.combinations(range(n), k):
                stones = sum(1 << p for p in points)
                inside = [m for m in board.mills if m & stones == m]
                if all(any(m >> p & 1 for m in inside) for p in points):
                    sets.append(stones)
        closed = set(sets)

        def moves(a: int, b: int) -> list[tuple[int, int]]:
            return [(b, a & ~(1 << p) | 1 << q) for p in range(n) if a >> p & 1
                    for q in range(n) if board.adjacent[p] >> q & 1 and not (a | b) >> q & 1
                    and (a & ~(1 << p) | 1 << q) in closed]

        state = {}                      # 1: on the search's path, 2: done

        def cycle_from(s) -> bool:
            state[s] = 1
            for t in moves(*s):
                if state.get(t) == 1 or (t not in state and cycle_from(t)):
                    return True
            state[s] = 2
            return False

        sys.setrecursionlimit(10_000)
        starts = [(a, b) for a in sets for b in sets if not a & b]
        return any(s not in state and cycle_from(s) for s in starts), len(starts)

    for name in ("seven-mens", "seven-mens-lines"):
        assert not Rules.from_name(name).jumping        # (slides are all their moves)
        found, positions = has_round(name)
        assert not found and positions > 100, (name, positions)
    # (and it finds Morabaraba's rounds, of seven stones a side: slides, which are legal there)
    assert has_round("morabaraba-take-none-s7")[0]


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
    # and back from the second rounding where the DTZ is of the first rounding's parity
    # (a win's odd, a loss's even: the check keeps the others aside)
    dtz_codes = codes[:4 * limit + 600]
    kept = dtz_codes[(dtz_codes == 0) | ((dtz_codes & 1) != ((dtz_codes >> 1) & 1))]
    assert np.array_equal(dtz._convert(dtz.rounded(kept, True), dtz.FROM_SECOND), kept)


# --- files, commands, probes and play -----------------------------------------------

import json
import os
import random
import shutil
import signal
import subprocess
import sys

from click.testing import CliRunner

from solver import placement, storage
from solver.cli import main
from solver.errors import CorruptDatabaseError, ForeignDatabaseError, MissingSubspaceError
from solver.game import Game, QUIET_PLIES
from solver.choice import probe_game_moves
from solver.players import HardPlayer, PerfectPlayer
from solver.probe import open_database
from solver.values import RuleValue, RuleWDL

FOUR = Rules(stones=4)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def db4_rule(tmp_path_factory):
    """The 4-stone game's plain tables and those of the 50- and 6-ply rules."""
    root = tmp_path_factory.mktemp("db4rule")
    for args in (["--no-rule"], ["--phase", "rule"], ["--phase", "rule", "--quiet-limit", 6]):
        result = run("build", "--db", root, "--stones", 4, "--quiet", *args)
        assert result.exit_code == 0, result.output
    return root


def test_a_dry_run_counts_an_unusable_file_of_the_rule_to_build(db4_rule, tmp_path):
    """A file of the rule that is empty, or another kind's under its name, is one the
    build would make again: the dry run must not call it built (a hostile trial found
    it counted every file there)."""
    import shutil

    shutil.copytree(storage.rules_dir(db4_rule, FOUR), tmp_path / FOUR.name)
    folder = storage.rules_dir(tmp_path, FOUR)
    shutil.copy(folder / "pair-3-3.h5", folder / "dtz50-pair-3-3.h5")     # (the plain values)
    (folder / "dtz50-place-1-1+3-3.h5").write_bytes(b"")
    plan = run("build", "--db", tmp_path, "--stones", 4, "--phase", "rule", "--dry-run")
    assert plan.exit_code == 0, plan.output
    assert "3 file(s) (2 built)" in plan.output and "27 file(s) (26 built)" in plan.output, plan.output
    whole = run("build", "--db", tmp_path, "--stones", 4, "--dry-run")
    assert "the 50-ply rule: 30 file(s) (28 built)" in whole.output, whole.output


def test_check_names_every_bad_file_in_one_run(db4_rule, tmp_path):
    """A foreign plain pair, a damaged plain pair that reads it and a damaged file of the
    rule: ``check`` names all three in one run, each once (it stopped at the first)."""
    import shutil

    shutil.copytree(storage.rules_dir(db4_rule, FOUR), tmp_path / FOUR.name)
    other = tmp_path / "other"
    assert run("build", "--db", other, "--rules", "five-mens", "--pair", "3-4", "--quiet").exit_code == 0
    folder = storage.rules_dir(tmp_path, FOUR)
    shutil.copy(other / "five-mens" / "pair-3-4.h5", folder / "pair-3-4.h5")
    for name in ("pair-4-4.h5", "dtz50-pair-4-4.h5"):
        data = bytearray((folder / name).read_bytes())
        data[len(data) // 2] ^= 0x55           # (inside the values' chunks)
        (folder / name).write_bytes(bytes(data))
    result = run("check", "--db", tmp_path, "--stones", 4, "--quiet")
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("muehle: error:")]
    for name in ("pair-3-4.h5", "pair-4-4.h5", "dtz50-pair-4-4.h5"):
        assert sum(f"/{name}" in line.split()[2] for line in errors) == 1, (name, result.output)
    assert len(errors) == 3, result.output


def test_best_move_under_the_rule_is_the_first_query_lists(tmp_path):
    """Among moves of equal DTZ the shortest win (the longest loss) by the plain tables
    comes first, in best-move and the perfect player as in query's list: best-move chose
    at random among all moves of the nearest mill, a win in 13 beside one in 9 (a
    hostile trial's position of Five Men's Morris, and random games of it)."""
    from solver.analysis import query_object
    from solver.build import build
    from solver.probe import best_of, first_rank

    rules = Rules.from_name("five-mens")
    build(tmp_path, rules, phase="moving", progress=False)
    for pair in pairs_in_order(rules):
        dtz.build_unit(tmp_path, rules, 50, pair)
    found = run("best-move", "--db", tmp_path, "--rules", "five-mens", "--seed", 4,
                "W:b2,c4,d4,e3,e5 B:a1,a5,b3,c5,e1 b")
    assert found.exit_code == 0 and "win in 9 for Black" in found.stdout, found.output
    from solver.analysis import review_move
    with open_database(tmp_path, rules) as db:
        game = Game(parse_position("W:b2,c4,d4,e3,e5 B:a1,a5,b3,c5,e1 b", rules), rules)
        probes = probe_game_moves(db, game)
        # under the rule a move of the same DTZ is as good: the review counts to the mill
        slower = review_move(probes, parse_move("b3-a3xe5", rules.board))
        assert slower["mark"] is None and slower["plies_to"] == "mill" and slower["best_plies"] == 1, slower
    rng = random.Random(5)
    seen = ties = 0
    with open_database(tmp_path, rules) as db:
        while seen < 60:
            game = Game(parse_position("W:a1,c1,e1,b2,d2 B:a5,c5,e5,b4,d4 w", rules), rules)
            for _ in range(rng.randrange(0, 30)):
                if game.outcome() is not None:
                    break
                game.play(rng.choice(game.legal_moves()))
            if game.outcome() is not None:
                continue
            probes = probe_game_moves(db, game)
            listed = query_object(db, game.position, False, game)["moves"]
            plain = {str(mp.move): mp.plies for mp in db.probe_moves(game.position)}
            best = first_rank(probes)
            assert len({plain[str(mp.move)] for mp in best}) == 1, [(str(m.move), m.rank) for m in best]
            for seed in range(3):
                choice = best_of(probes, random.Random(seed))
                assert choice.rank == next(mp.rank for mp in probes if str(mp.move) == listed[0]["move"])
                assert plain[str(choice.move)] == listed[0]["plies"]
            seen += 1
            ties += sum(mp.dtz == probes[0].dtz and mp.value == probes[0].value for mp in probes) > len(best)
    assert ties >= 3, ties


def sha256s(root, rules=FOUR, limit=50) -> dict:
    return {s.name: storage.sha256_of(storage.read_subspace(storage.rule_path(root, rules, tuple(p), limit),
                                                            rules, s.m, s.o, quiet_limit=limit))
            for p in pairs_in_order(rules) for s in p.subspaces}


def test_build_and_check_of_the_rule_tables(db4_rule):
    folder = storage.rules_dir(db4_rule, FOUR)
    assert sorted(p.name for p in folder.glob("dtz*-pair*")) == [
        f"dtz{n}-pair-{p}.h5" for n in (50, 6) for p in ("3-3", "3-4", "4-4")]
    assert len(list(folder.glob("dtz50-place-*"))) == len(list(folder.glob("dtz6-place-*"))) == 27
    ok = run("check", "--db", db4_rule, "--stones", 4, "--phase", "rule")
    assert ok.exit_code == 0 and ok.output.startswith("ok: 3 pair(s) and 27 placement subspace(s) under the "
                                                      "50-ply rule"), ok.output
    six = run("check", "--db", db4_rule, "--stones", 4, "--phase", "rule", "--quiet-limit", 6)
    assert six.exit_code == 0 and "6-ply rule" in six.output, six.output
    # --pair: that pair alone, as the plain check's (the pairs it leads into read, not checked)
    one = run("check", "--db", db4_rule, "--stones", 4, "--phase", "rule", "--pair", "4-4")
    assert one.exit_code == 0 and one.output.startswith("ok: 1 pair(s) and 0 placement subspace(s)"), one.output
    # or one placement subspace; and --pair of the whole check (--phase all) checks that
    # file's tables of the rule too
    sub = run("check", "--db", db4_rule, "--stones", 4, "--phase", "rule", "--pair", "3-3+1-0")
    assert sub.exit_code == 0 and sub.output.startswith("ok: 0 pair(s) and 1 placement subspace(s) under"), sub.output
    for key in ("4-4", "3-3+1-0"):
        both = run("check", "--db", db4_rule, "--stones", 4, "--pair", key, "--quiet")
        assert both.exit_code == 0 and both.output.count("ok: ") == 2 and "under the 50-ply rule" in both.output, \
            both.output
    # the plain check knows the rule's files: none of them is called stray
    plain = run("check", "--db", db4_rule, "--stones", 4, "--phase", "moving", "--quiet")
    assert plain.exit_code == 0 and "no build" not in plain.output, plain.output
    # the statistics a file records: in plies to the next mill, and the rule's draws counted
    stats = storage.pair_stats(storage.rule_path(db4_rule, FOUR, (3, 4), 6), FOUR, quiet_limit=6)
    assert stats["3-4"]["cursed_wins"] > 0 and stats["3-4"]["longest_win"] > 6 and stats["4-3"]["blessed_losses"] > 0
    again = run("build", "--db", db4_rule, "--stones", 4, "--phase", "rule", "--quiet")
    assert "0 pair(s) built under the 50-ply rule, 3 already there" in again.output


def test_the_whole_build_makes_and_checks_the_rule_tables(db4_rule, tmp_path):
    """The rules of play are part of the game: the default build makes the tables of
    the rule after the plain ones (--no-rule leaves them out), they equal those built
    on their own, and the default check checks them too."""
    whole = run("build", "--db", tmp_path / "whole", "--stones", 4, "--quiet")
    assert whole.exit_code == 0, whole.output
    assert "3 pair(s) built under the 50-ply rule" in whole.output
    assert sha256s(tmp_path / "whole") == sha256s(db4_rule)
    assert len(list(storage.rules_dir(tmp_path / "whole", FOUR).glob("dtz50-place-*"))) == 27
    checked = run("check", "--db", tmp_path / "whole", "--stones", 4, "--quiet")
    assert checked.exit_code == 0 and "27 placement subspace(s) under the 50-ply rule" in checked.output
    dry = run("build", "--db", tmp_path / "whole", "--stones", 4, "--dry-run")
    assert "note: then the tables of the 50-ply rule: 30 file(s) (30 built), 7,475,756 slots" in dry.output
    plain = run("build", "--db", tmp_path / "plain", "--stones", 4, "--quiet", "--no-rule")
    assert plain.exit_code == 0 and "rule" not in plain.output
    assert not list(storage.rules_dir(tmp_path / "plain", FOUR).glob("dtz*"))
    # rules the tables do not serve: the plain tables, and a note why not the rule's
    other = CliRunner().invoke(main, ["build", "--db", str(tmp_path / "mora"), "--rules", "morabaraba-take-none",
                                      "--max-total", "6", "--quiet"])
    assert other.exit_code == 0 and "note: no tables of the quiet-ply rule for rules morabaraba-take-none" \
        in other.output, other.output
    assert not list(storage.rules_dir(tmp_path / "mora", Rules.from_name("morabaraba-take-none")).glob("dtz*"))
    # served since no round of such mills fits on the board: Seven Men's Morris under take-none
    seven = Rules.from_name("seven-mens-take-none")
    built = run("build", "--db", tmp_path / "seven", "--rules", seven.name, "--max-total", 8, "--quiet")
    assert built.exit_code == 0 and "4 pair(s) built under the 50-ply rule" in built.output, built.output
    checked = run("check", "--db", tmp_path / "seven", "--rules", seven.name, "--max-total", 8, "--phase", "rule")
    assert checked.exit_code == 0 and checked.output.startswith("ok: 4 pair(s)"), checked.output
    # take-none: its mills that take nothing restart the count inside their pair, solved
    # until a fixed point; built, checked (in slot order) and queried as the others
    tn = Rules.from_name("take-none-s4")
    built = run("build", "--db", tmp_path / "tn", "--rules", "take-none", "--stones", 4, "--quiet")
    assert built.exit_code == 0 and "3 pair(s) built under the 50-ply rule" in built.output, built.output
    assert len(list(storage.rules_dir(tmp_path / "tn", tn).glob("dtz50-place-*"))) == 27
    with h5py.File(storage.rule_path(tmp_path / "tn", tn, (3, 4), 50)) as f:
        assert f.attrs["solves"] >= 2          # (4-4: no side can have every stone in a mill)
    with h5py.File(storage.rule_path(tmp_path / "tn", tn, (4, 4), 50)) as f:
        assert f.attrs["solves"] == 1
    checked = run("check", "--db", tmp_path / "tn", "--rules", "take-none", "--stones", 4, "--phase", "rule")
    assert checked.exit_code == 0 and checked.output.startswith("ok: 3 pair(s) and 27 placement"), checked.output
    # every stone of Black's in a mill: White's mill takes nothing, and restarts the count
    line = run("query", "--db", tmp_path / "tn", "--rules", "take-none", "--stones", 4, "W:a1,d1,f4,g4 B:a7,d7,g7 w")
    assert line.exit_code == 0 and "under the 50-ply rule:" in line.output, line.output


def test_files_of_one_kind_are_refused_as_the_other(db4_rule, tmp_path):
    shutil.copytree(db4_rule, tmp_path, dirs_exist_ok=True)
    rule = storage.rule_path(tmp_path, FOUR, (3, 4), 50)
    plain = storage.pair_path(tmp_path, FOUR, (3, 4))
    with pytest.raises(ForeignDatabaseError, match="holds values under a rule of 50 quiet plies, not plain"):
        storage.read_subspace(rule, FOUR, 3, 4)
    with pytest.raises(ForeignDatabaseError, match="holds plain values, not those of the quiet-ply rule"):
        storage.read_subspace(plain, FOUR, 3, 4, quiet_limit=50)
    with pytest.raises(ForeignDatabaseError, match="built for a rule of 50 quiet plies, not 6"):
        storage.read_subspace(rule, FOUR, 3, 4, quiet_limit=6)
    # a file of the 6-ply rule under the 50-ply rule's name: check says so, exit 1
    shutil.copy(storage.rule_path(tmp_path, FOUR, (3, 4), 6), rule)
    bad = run("check", "--db", tmp_path, "--stones", 4, "--phase", "rule")
    assert bad.exit_code == 1 and "not 50" in bad.output and "--phase rule" in bad.output, bad.output
    # and a query that reads it says which file and how to build it again, in one line
    db = open_database(tmp_path, FOUR)
    with pytest.raises(ForeignDatabaseError) as info:
        db.probe_rule("W:a1,d1,g1 B:a7,d7,f6,b6 w")
    assert re.search(r"rebuild it with: muehle build .*--phase rule --pair 3-4", explained(info.value))


def test_a_changed_value_fails_the_check(db4_rule, tmp_path):
    """A DTZ one off (a win's by 2: the same rounding parity; by 1: the other) or a
    win made a loss is found by the forward check, which reads the file whole."""
    for change in (2, 1, -1):
        shutil.copytree(db4_rule, tmp_path / str(change), dirs_exist_ok=True)
        root = tmp_path / str(change)
        path = storage.rule_path(root, FOUR, (3, 4), 50)
        values = {s: storage.read_subspace(path, FOUR, s.m, s.o, quiet_limit=50) for s in Pair(3, 4).subspaces}
        codes = values[Subspace(3, 4)]
        slot = int(np.flatnonzero((codes != 0) & (codes % 2 == 0) & (codes != SLACK_CODE) & (codes > 4))[7])
        codes[slot] = int(codes[slot]) + change
        storage.write_file(path, FOUR, values, quiet_limit=50)
        bad = run("check", "--db", root, "--stones", 4, "--phase", "rule")
        assert bad.exit_code == 1 and "subspace 3-4" in bad.output, (change, bad.output)


def test_a_killed_rule_build_resumes_to_the_same_files(db4_rule, tmp_path):
    command = [sys.executable, "-m", "solver", "build", "--db", str(tmp_path), "--stones", "4", "--phase",
               "rule", "--quiet", "--jobs", "1"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MUEHLE_CRASH", "MUEHLE_HOLD"))}
    # (the plain placement files: those of the rule are stored against them)
    storage.rules_dir(tmp_path, FOUR).mkdir(parents=True)
    for plain in storage.rules_dir(db4_rule, FOUR).glob("place-*.h5"):
        shutil.copy(plain, storage.rules_dir(tmp_path, FOUR))
    for crash in ("before-rename:dtz50-pair-3-4.h5", "temporary-complete:dtz50-pair-4-4.h5",
                  "after-rename:dtz50-place-2-2+2-1.h5", "before-rename:dtz50-place-0-0+4-4.h5"):
        killed = subprocess.run(command, env={**clean, "MUEHLE_CRASH_AT": crash}, capture_output=True, text=True)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        point, name = crash.split(":")
        assert (storage.rules_dir(tmp_path, FOUR) / name).exists() == (point == "after-rename")
    subprocess.run(command, env=clean, check=True, capture_output=True)
    assert sha256s(tmp_path) == sha256s(db4_rule)
    placed = sorted(storage.rules_dir(db4_rule, FOUR).glob("dtz50-place-*"))
    assert len(placed) == 27
    for path in placed:
        sub = Subspace.parse(path.name[len("dtz50-place-"):-len(".h5")])
        again = storage.rule_path(tmp_path, FOUR, sub, 50)
        assert (storage.pair_stats(again, FOUR, quiet_limit=50)[sub.name]["sha256"]
                == storage.pair_stats(path, FOUR, quiet_limit=50)[sub.name]["sha256"])
    assert not list(storage.rules_dir(tmp_path, FOUR).glob(".dtz*"))


def test_the_placement_files_of_the_rule_are_stored_against_the_plain_ones(db4_rule):
    """A placement file of the rule holds, a slot, 0 where the plain file's value and the
    stones left to place give its code under the rule (a win at the least odd plies
    not below them, a loss at the least even), else that code + 1; restored, the
    codes are the values under the rule, which only draw, and the file records their
    statistics."""
    drawn = 0
    for limit in (50, 6):
        for path in sorted(storage.rules_dir(db4_rule, FOUR).glob(f"dtz{limit}-place-*.h5")):
            sub = Subspace.parse(path.name[len(f"dtz{limit}-place-"):-len(".h5")])
            hands = dict(own_hand=sub.own_hand, opp_hand=sub.opp_hand)
            stored = storage.read_subspace(path, FOUR, sub.m, sub.o, quiet_limit=limit, **hands)
            plain_path = storage.placement_path(db4_rule, FOUR, sub)
            plain = storage.read_subspace(plain_path, FOUR, sub.m, sub.o, **hands).astype(np.int64)
            codes = dtz.read_placement(db4_rule, FOUR, limit, sub, verify=True).astype(np.int64)
            slack = plain == SLACK_CODE
            assert np.array_equal(slack, stored == SLACK_CODE) and np.array_equal(slack, codes == SLACK_CODE)
            n = sub.own_hand + sub.opp_hand
            win, loss = 1 + (n if n % 2 else n + 1), 1 + (n if n % 2 == 0 else n + 1)
            guess = np.where(plain == 0, 0, np.where((plain - 1) % 2 == 1, win, loss))
            kept, own = ~slack & (stored == 0), ~slack & (stored != 0)
            assert np.array_equal(codes[kept], guess[kept])
            assert np.array_equal(codes[own], stored[own].astype(np.int64) - 1)
            # the rule only draws: a win or loss under it is one without it
            decided = ~slack & (codes != 0)
            assert np.array_equal((codes[decided] - 1) % 2, (plain[decided] - 1) % 2) and np.all(plain[decided] != 0)
            drawn += int(np.count_nonzero(~slack & (codes == 0) & (plain != 0)))
            stats = storage.pair_stats(path, FOUR, quiet_limit=limit)[sub.name]
            live = codes[~slack]
            assert (stats["wins"], stats["losses"], stats["draws"]) == (
                int(np.count_nonzero((live != 0) & (live % 2 == 0))), int(np.count_nonzero(live % 2 == 1)),
                int(np.count_nonzero(live == 0)))
            assert storage.file_attrs(path, FOUR, quiet_limit=limit)["against"] == plain_path.name
    assert drawn > 0        # (the 6-ply rule draws some placement wins and losses)


def test_a_unit_of_the_rule_whose_inputs_are_missing_is_refused_before_its_solve(db4_rule, tmp_path):
    """A pair or placement subspace of the rule built alone (as a cluster's task is)
    whose capture targets' or children's files of the rule are missing is refused before
    any work, in one line that names them and the build that makes them, and writes
    nothing; one whose capture target's file is damaged, in one line with the build that
    makes it again."""
    shutil.copytree(db4_rule, tmp_path, dirs_exist_ok=True)
    folder = storage.rules_dir(tmp_path, FOUR)
    (folder / "dtz50-pair-3-4.h5").unlink()                 # 4-4's capture target
    (folder / "dtz50-pair-4-4.h5").unlink()

    def refused(kind) -> str:
        """What the build of pair 4-4 alone says, failing with ``kind``, having written nothing."""
        with pytest.raises(kind) as info:
            dtz.build_unit(tmp_path, FOUR, 50, Pair(4, 4), jobs=1, progress=False)
        assert not (folder / "dtz50-pair-4-4.h5").exists()
        said = explained(info.value)
        assert "\n" not in said, said
        return said

    said = refused(MissingSubspaceError)
    assert "pair 4-4 under the 50-ply rule reads 3-4 under the 50-ply rule" in said, said
    assert said.endswith(f"(build it with: muehle build --db {tmp_path} --stones 4 --phase rule --pair 3-4)"), said
    # a capture target's file there but damaged: refused where the solve reads it, with
    # the build that makes it again
    shutil.copy(storage.rules_dir(db4_rule, FOUR) / "dtz50-pair-3-4.h5", folder)
    with h5py.File(folder / "dtz50-pair-3-4.h5", "r+") as f:
        mask, chunk = f["3-4"].id.read_direct_chunk((0,))
        f["3-4"].id.write_direct_chunk((0,), chunk[:100] + bytes([chunk[100] ^ 0xFF]) + chunk[101:], mask)
    said = refused(CorruptDatabaseError)
    assert "dtz50-pair-3-4.h5: subspace 3-4 is damaged" in said, said
    assert said.endswith(f"; rebuild it with: muehle build --db {tmp_path} --stones 4 --phase rule --pair 3-4"), said
    # a placement subspace whose child of the rule is missing
    sub = Subspace(2, 2, 2, 1)
    child = next(c for c in placement.reads(sub, FOUR) if not c.is_moving)
    storage.rule_path(tmp_path, FOUR, child, 50).unlink()
    storage.rule_path(tmp_path, FOUR, sub, 50).unlink()
    with pytest.raises(MissingSubspaceError, match=f"placement 2-2\\+2-1 under the 50-ply rule reads "
                                                   f"{re.escape(child.name)} under"):
        dtz.build_unit(tmp_path, FOUR, 50, sub, jobs=1, progress=False)
    assert not storage.rule_path(tmp_path, FOUR, sub, 50).exists()


def test_the_check_of_one_pair_checks_its_tables_of_the_rule_too(db4_rule, tmp_path):
    """``check --pair P`` (the whole check's phases) finds a damaged file of P's tables of
    the rule, as ``check`` of every file does; ``--phase moving`` reads the plain file alone."""
    shutil.copytree(db4_rule, tmp_path, dirs_exist_ok=True)
    with h5py.File(storage.rules_dir(tmp_path, FOUR) / "dtz50-pair-3-3.h5", "r+") as f:
        mask, chunk = f["3-3"].id.read_direct_chunk((65536,))
        f["3-3"].id.write_direct_chunk((65536,), chunk[:100] + bytes([chunk[100] ^ 0xFF]) + chunk[101:], mask)
    bad = run("check", "--db", tmp_path, "--stones", 4, "--pair", "3-3", "--quiet")
    assert bad.exit_code == 1 and "dtz50-pair-3-3.h5: subspace 3-3 is damaged" in bad.output, bad.output
    plain = run("check", "--db", tmp_path, "--stones", 4, "--pair", "3-3", "--phase", "moving", "--quiet")
    assert plain.exit_code == 0, plain.output
    # the whole check: said once (its own read and 3-4's read of it say it alike), with the remedy
    whole = run("check", "--db", tmp_path, "--stones", 4, "--quiet")
    assert whole.exit_code == 1 and whole.output.count("subspace 3-3 is damaged") == 1, whole.output
    assert f"; rebuild it with: muehle build --db {tmp_path} --stones 4 --phase rule --pair 3-3" in whole.output
    # the file of the one asked for missing, where the tables are built: named, exit 1
    (storage.rules_dir(tmp_path, FOUR) / "dtz50-pair-4-4.h5").unlink()
    (storage.rules_dir(tmp_path, FOUR) / "dtz50-place-2-3+1-0.h5").unlink()
    for key, phase, command in (("4-4", "all", "--phase rule --pair 4-4"), ("4-4", "rule", "--phase rule --pair 4-4"),
                                ("2-3+1-0", "rule", "--phase rule")):
        gone = run("check", "--db", tmp_path, "--stones", 4, "--pair", key, "--phase", phase, "--quiet")
        assert gone.exit_code == 1 and gone.output.strip().endswith(
            f"(build it with: muehle build --db {tmp_path} --stones 4 {command})"), (key, phase, gone.output)
        assert "missing database file" in gone.output, gone.output


def test_a_folder_where_a_file_of_the_rule_belongs_is_refused_before_any_work(tmp_path):
    """A folder in the place of a file of the rule's tables: the whole build and ``--phase
    rule`` (here, on a cluster, dry run) refuse in one line before any work, where the
    write would have found it after the solve."""
    assert run("build", "--db", tmp_path, "--stones", 4, "--phase", "moving", "--quiet").exit_code == 0
    folder = storage.rules_dir(tmp_path, FOUR)
    (folder / "dtz50-pair-4-4.h5").mkdir()
    for args in ([], ["--dry-run"], ["--phase", "rule"], ["--phase", "rule", "--workers", 1]):
        result = run("build", "--db", tmp_path, "--stones", 4, "--quiet", *args)
        # (a dry run prints its plan first, then what the build would refuse)
        assert result.exit_code == 2 and (result.output.count("\n") == 1 or args == ["--dry-run"]), \
            (args, result.output)
        assert result.output.endswith("dtz50-pair-4-4.h5 is a folder where a database file belongs: move it away, "
                                      "then build again\n"), (args, result.output)
    assert not list(folder.glob("place-*")) and not list(folder.glob("dtz50-pair-3-*"))


def test_the_count_a_position_carries_is_the_games(db4_rule):
    """A Sanmill FEN's rule-50 counter is the count of quiet plies of ``query`` and
    ``best-move`` (as of ``uci`` and ``analyze``); a --quiet-plies that differs is refused;
    a count or limit whose tables are not built is answered without the rule, and said."""
    fen = "****@**O/*@@O****/*O****** w m s 3 0 3 0 0 0 0 0 0 0 0 {} 1"      # W:c5,f2,g7 B:d3,f4,f6 w
    fresh = json.loads(run("query", "--db", db4_rule, "--stones", 4, "--json", fen.format(0)).output)
    assert fresh["position"] == "W:c5,f2,g7 B:d3,f4,f6 w" and fresh["rule"]["value"] == "win", fresh
    late = json.loads(run("query", "--db", db4_rule, "--stones", 4, "--json", fen.format(45)).output)
    assert late["rule"]["quiet_plies"] == 45 and late["rule"]["value"] == "draw", late["rule"]
    assert late["rule"]["dtz"] == fresh["rule"]["dtz"] > 50 - 45
    over = json.loads(run("best-move", "--db", db4_rule, "--stones", 4, "--json", fen.format(50)).stdout)
    assert over["move"] is None and over["value"] == "draw", over
    both = run("query", "--db", db4_rule, "--stones", 4, "--quiet-plies", 3, fen.format(45))
    assert both.exit_code == 2 and both.output.count("\n") == 1 and "give one count" in both.output, both.output
    same = run("query", "--db", db4_rule, "--stones", 4, "--quiet-plies", 45, "--json", fen.format(45))
    assert json.loads(same.output)["rule"] == late["rule"]
    # each line of a batch at its own count; a --quiet-plies that differs refuses that line
    lines = "\n".join([fen.format(45), fen.format(0), "W:c5,f2,g7 B:d3,f4,f6 w"]) + "\n"
    batch = CliRunner().invoke(main, ["query", "--db", str(db4_rule), "--stones", "4", "--batch", "-"], input=lines)
    assert [json.loads(line)["moves"][0]["rule"]["value"] for line in batch.stdout.splitlines()] == \
        ["draw", "win", "win"], batch.output
    batch = CliRunner().invoke(main, ["query", "--db", str(db4_rule), "--stones", "4", "--batch", "-",
                                      "--quiet-plies", "3"], input=lines)
    first, *rest = [json.loads(line) for line in batch.stdout.splitlines()]
    assert batch.exit_code == 1 and "line 1: --quiet-plies: 3 quiet plies given, but" in first["error"] and len(rest) == 2, batch.output
    # a count the text and --quiet-plies both give, past the limit: the game is over
    past = run("query", "--db", db4_rule, "--stones", 4, "--quiet-plies", 60, fen.format(60))
    assert past.exit_code == 0 and "the game as given is over: draw (50 plies without a mill)" in past.output, \
        past.output
    for args, position in ((["--quiet-limit", 30], "W:c5,f2,g7 B:d3,f4,f6 w"),
                           (["--quiet-limit", 30, "--quiet-plies", 25], "W:c5,f2,g7 B:d3,f4,f6 w"),
                           (["--quiet-limit", 30], "W:f6,d6,d7 B:e4,b2,a1 b 0 1")):       # (placing)
        for command in ("query", "best-move"):
            bare = run(command, "--db", db4_rule, "--stones", 4, *args, position)
            assert bare.exit_code == 0 and "note: no tables of the 30-ply rule are built" in bare.output, \
                (command, args, bare.output)
    # and play, whose computer would play by the plain values (not the levels that read no tables)
    for level, said in (("hard", True), ("perfect", True), ("medium", False)):
        played = CliRunner().invoke(main, ["play", "--db", str(db4_rule), "--stones", "4", "--quiet-limit", "30",
                                           "--level", level, "--color", "white", "--position",
                                           "W:c5,f2,g7 B:d3,f4,f6 w"], input="quit\n")
        assert played.exit_code == 0, played.output
        assert ("note: no tables of the 30-ply rule are built" in played.output) == said, (level, played.output)
        assert said is False or f"so {level} plays without the rule" in played.output


def test_every_reader_of_a_position_text_takes_the_count_it_carries(db4_rule, tmp_path):
    """A FEN's rule-50 counter is the game's count wherever a game starts from its text,
    not only in query: a match's positions file, a record's ``start:`` header (a
    ``quiet-plies:`` header must agree with it) and the browser's API.  The position is
    won in plain values (next mill in 5) and drawn at count 46."""
    from solver.errors import InvalidNotationError
    fen = "*******@/******@O/O@@****O w m s 3 0 4 0 0 0 0 0 0 0 0 46 1"     # W:a7,b6,d7 B:b4,c5,g4,g7 w
    assert Game(fen, FOUR).quiet_plies == 46
    assert Game(fen.replace(" 46 1", " 0 1"), FOUR).quiet_plies == 0
    with pytest.raises(ValueError, match="40 quiet plies given, but the position's text says 46"):
        Game(fen, FOUR, quiet_plies=40)
    # a record: the start's count, or a header that agrees
    for header in ("", "quiet-plies: 46\n"):
        game = Game.from_record(f"rules: standard-s4\nstart: {fen}\n{header}b6-g1\nc5-d5\n")
        assert game.quiet_plies == 48, header
        assert "quiet-plies: 46" in game.record()
    with pytest.raises(InvalidNotationError, match="record: 40 quiet plies given"):
        Game.from_record(f"rules: standard-s4\nstart: {fen}\nquiet-plies: 40\nb6-g1\n")
    # a match from it: drawn by the rule in both colours' games
    starts = tmp_path / "starts.txt"
    starts.write_text(fen + "\n")
    played = run("match", "perfect", "perfect", "--db", db4_rule, "--stones", 4, "--games", 2, "--jobs", 1,
                 "--positions", starts, "--records", tmp_path / "games", "--json")
    assert played.exit_code == 0, played.output
    result = json.loads(played.stdout)
    assert result["draws"] == 2 and result["terminations"] == {"50 plies without a mill": 2}, result
    assert "quiet-plies: 46" in (tmp_path / "games" / "game-00000.txt").read_text()
    # the browser's API, as query --json
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # (as tests/test_web.py: httpx still works)
        from starlette.testclient import TestClient
    from solver.web.app import create_app
    cli = json.loads(run("query", "--db", db4_rule, "--stones", 4, "--json", fen).stdout)
    with TestClient(create_app(db4_rule, FOUR)) as client:
        answer = client.get("/api/query", params={"position": fen}).json()
        best = client.get("/api/best-move", params={"position": fen}).json()
        game = client.post("/api/game", json={"start": fen, "rules": "standard-s4"}).json()
    assert answer["rule"] == cli["rule"] and answer["rule"]["quiet_plies"] == 46, answer["rule"]
    assert answer["rule"]["value"] == "draw" and (best["value"], best["rule"]["value"]) == ("win", "draw"), best
    assert game["quiet_plies"] == 46, game


def test_stats_of_the_rule_tables(db4_rule, tmp_path):
    """``stats --rule``: a moving subspace's wins and losses under the rule and its cursed
    wins and blessed losses are its plain wins and losses; a file of the rule missing that
    built ones need is a warning and exit status 1 (the totals of the others), as plain
    ``stats`` says of its own; no tables of a limit: one line naming that limit."""
    plain = json.loads(run("stats", "--db", db4_rule, "--stones", 4, "--json").output)
    rule = run("stats", "--db", db4_rule, "--stones", 4, "--rule", "--json")
    assert rule.exit_code == 0, rule.output
    rows = {r["subspace"]: r for r in json.loads(rule.output)["subspaces"]}
    assert len(rows) == 4 + 27
    for r in plain["subspaces"]:
        if "+" in r["subspace"]:
            continue
        under = rows[r["subspace"]]
        assert under["wins"] + under["cursed_wins"] == r["wins"], (r, under)
        assert under["losses"] + under["blessed_losses"] == r["losses"], (r, under)
        assert under["draws"] == r["draws"] + under["cursed_wins"] + under["blessed_losses"], (r, under)
    shutil.copytree(db4_rule, tmp_path, dirs_exist_ok=True)
    folder = storage.rules_dir(tmp_path, FOUR)
    (folder / "dtz50-pair-3-3.h5").unlink()
    (folder / "dtz50-place-2-2+2-2.h5").unlink()
    gaps = run("stats", "--db", tmp_path, "--stones", 4, "--rule")
    assert gaps.exit_code == 1, gaps.output
    assert ("warning: 2 database file(s) missing that built ones need: dtz50-pair-3-3.h5, dtz50-place-2-2+2-2.h5"
            in gaps.output), gaps.output
    assert f"(rebuild them with: muehle build --db {tmp_path} --stones 4 --phase rule)" in gaps.output
    none = run("stats", "--db", db4_rule, "--stones", 4, "--rule", "--quiet-limit", 30)
    assert none.exit_code == 2 and none.output.count("\n") == 1, none.output
    assert none.output.startswith("muehle: error: no tables of the 30-ply rule of rules standard-s4"), none.output
    alone = run("stats", "--db", db4_rule, "--stones", 4, "--quiet-limit", 6)       # (no --rule: refused)
    assert alone.exit_code == 2 and alone.output.count("\n") == 1 and "give --rule too" in alone.output, alone.output


def test_a_placement_file_of_the_rule_needs_its_plain_file(db4_rule, tmp_path):
    """Without the plain placement files the placement phase's tables of the rule are
    refused up front, in one line naming the command that builds them; a file of the
    earlier encoding (the codes themselves, no ``against``) is refused and rebuilt."""
    shutil.copytree(db4_rule, tmp_path, dirs_exist_ok=True)
    folder = storage.rules_dir(tmp_path, FOUR)
    moved = folder / "place-2-2+2-2.h5"
    moved.rename(tmp_path / "aside.h5")
    for path in folder.glob("dtz50-place-*.h5"):
        if path.name != "dtz50-place-2-2+2-2.h5":
            path.unlink()
    result = run("build", "--db", tmp_path, "--stones", 4, "--phase", "rule", "--quiet")
    assert result.exit_code != 0 and result.output.count("\n") == 1, result.output
    assert "stored against its plain tables" in result.output and "build them with: muehle build" in result.output
    assert [p.name for p in folder.glob("dtz50-place-*.h5")] == ["dtz50-place-2-2+2-2.h5"]
    (tmp_path / "aside.h5").rename(moved)
    sub = Subspace(2, 2, 2, 2)
    # a file of the earlier encoding: the attribute gone, the attributes' checksum made again
    with h5py.File(storage.rule_path(tmp_path, FOUR, sub, 50), "r+") as f:
        del f.attrs["against"]
        f.attrs[storage.META_KEY] = storage.meta_digest(dict(f.attrs))
    with pytest.raises(ForeignDatabaseError, match="earlier encoding") as info:
        dtz.read_placement(tmp_path, FOUR, 50, sub)
    assert explained(info.value).endswith("not against the plain placement file; rebuild it with: "
                                          f"muehle build --db {tmp_path} --stones 4 --phase rule")
    again = run("build", "--db", tmp_path, "--stones", 4, "--phase", "rule", "--quiet")
    assert again.exit_code == 0, again.output
    assert sha256s(tmp_path) == sha256s(db4_rule)
    for path in storage.rules_dir(db4_rule, FOUR).glob("dtz50-place-*.h5"):
        name = path.name[len("dtz50-place-"):-len(".h5")]
        assert (storage.pair_stats(folder / path.name, FOUR, quiet_limit=50)[name]["sha256"]
                == storage.pair_stats(path, FOUR, quiet_limit=50)[name]["sha256"])
    # a slot whose difference says "drawn by the rule" where it is not fails the check
    sub = Subspace(3, 3, 1, 0)
    codes = dtz.read_placement(tmp_path, FOUR, 50, sub)
    codes[int(np.flatnonzero((codes != 0) & (codes != SLACK_CODE))[3])] = 0
    dtz.store_placement(tmp_path, FOUR, 50, sub, codes)
    assert np.count_nonzero(storage.read_subspace(storage.rule_path(tmp_path, FOUR, sub, 50), FOUR, 3, 3,
                                                  own_hand=1, opp_hand=0, quiet_limit=50) == 1) >= 1
    bad = run("check", "--db", tmp_path, "--stones", 4, "--phase", "rule")
    assert bad.exit_code == 1 and "placement subspace 3-3+1-0" in bad.output, bad.output
    # a file that names another plain file than its own is refused by every reader
    with h5py.File(storage.rule_path(tmp_path, FOUR, sub, 50), "r+") as f:
        f.attrs["against"] = "place-3-3+0-1.h5"
        f.attrs[storage.META_KEY] = storage.meta_digest(dict(f.attrs))
    with pytest.raises(ForeignDatabaseError, match="stored against 'place-3-3[+]0-1.h5'"):
        dtz.read_placement(tmp_path, FOUR, 50, sub)
    with pytest.raises(ForeignDatabaseError, match="stored against 'place-3-3[+]0-1.h5'") as info:
        open_database(tmp_path, FOUR).probe_rule("W:a1,d1,g4 B:a7,d7,f6 w 1 0")
    assert "rebuild it with: muehle build" in explained(info.value)


def test_probe_rule_and_its_refusals(db4_rule):
    db = open_database(db4_rule, FOUR)
    assert db.probe_rule("W:a1,d1 B:a7,d7,f6,b6 w") == RuleValue("loss", 0, 50)       # two stones
    value = db.probe_rule("W:a1,d1,g1 B:a7,d7,f6,b6 b")
    assert value.wdl.plain == db.probe("W:a1,d1,g1 B:a7,d7,f6,b6 b").value
    assert db.probe_wdl("W:a1,d1,g1 B:a7,d7,f6,b6 b") == value.wdl
    assert db.probe_dtz("W:a1,d1,g1 B:a7,d7,f6,b6 b") == value.dtz
    assert db.probe_rule("W:a1 B:a7 w 3 3").dtz is None          # the count has not started
    with pytest.raises(ValueError, match="counted in the moving phase"):
        db.probe_rule_moves("W:a1 B:a7 w 3 3", 2)
    with pytest.raises(MissingSubspaceError, match="no game reaches them"):
        db.probe_rule("W:a1,d1 B:a7 w 1 3")
    with pytest.raises(ValueError, match="quiet plies"):
        db.probe_rule_moves("W:a1,d1,g1 B:a7,d7,f6,b6 b", 51)
    five = open_database(db4_rule, FOUR, quiet_limit=5)     # no tables of that rule
    assert five.get_rule("W:a1,d1,g1 B:a7,d7,f6,b6 b", "none") == "none"
    with pytest.raises(MissingSubspaceError) as info:
        five.probe_rule("W:a1,d1,g1 B:a7,d7,f6,b6 b")
    assert "--phase rule --quiet-limit 5 --pair 3-4" in explained(info.value)


def test_query_shows_the_value_under_the_rule(db4_rule):
    # a win of the 6-ply rule's tables: under the rule at the count --quiet-plies gives
    db = open_database(db4_rule, FOUR, quiet_limit=6)
    sub = Subspace(3, 3)
    codes = storage.read_subspace(storage.rule_path(db4_rule, FOUR, (3, 3), 6), FOUR, 3, 3, quiet_limit=6)
    slot = int(np.flatnonzero((codes == 2 * 5))[0])            # a win, next mill in 5
    pos = str(Position.from_view(*sub.position(slot)))
    for count, value in ((0, "win"), (1, "win"), (2, "draw")):
        result = run("query", "--db", db4_rule, "--stones", 4, "--quiet-limit", 6, "--quiet-plies", count,
                     "--json", pos)
        obj = json.loads(result.output)
        assert obj["rule"] == {"limit": 6, "quiet_plies": count, "wdl": "win", "dtz": 5, "value": value}
        assert obj["moves"][0]["rule"]["value"] == value
        if value == "win":
            assert obj["moves"][0]["rule"]["dtz"] == 5
    text = run("query", "--db", db4_rule, "--stones", 4, "--quiet-limit", 6, "--line", pos).output
    assert "under the 6-ply rule: win, next mill in 5" in text and "line under the rule:" in text
    assert db.probe_rule(pos) == RuleValue("win", 5, 6)


def test_records_keep_the_limit_and_the_count():
    game = Game("W:a1,d1,g1 B:a7,d7,f6,b6 b", FOUR, quiet_limit=100, quiet_plies=7)
    game.play("b6-b4")
    again = Game.from_record(game.record(), FOUR)
    assert (again.quiet_limit, again.quiet_counts) == (100, (7, 8))
    assert "quiet-limit: 100" in game.record() and "quiet-plies: 7" in game.record()
    with pytest.raises(ValueError, match="counted in the moving phase"):
        Game("W:a1 B:a7 w 3 3", FOUR, quiet_plies=3)


def perfect_game(db, pos, rules, limit, count, player=PerfectPlayer) -> Game:
    """Both sides perfect under the rule from ``pos`` after ``count`` quiet plies (or
    both ``player``)."""
    game = Game(pos, rules, limit, count)
    players = player(rules, random.Random(1), database=db)
    while game.outcome() is None:
        game.play(players.choose(game))
    return game


@pytest.mark.parametrize("limit", [7, 50])
def test_perfect_play_wins_what_the_rule_lets_be_won(five, limit):
    """From sampled positions of Five Men's Morris at random counts: where the rule lets
    the side to move win (a win of DTZ <= limit - count), perfect play against the best
    defence wins, within the rule; from a win the rule draws, or a loss it saves, the
    defence draws; where the side to move loses under the rule, it loses."""
    rules, _ = five
    perfect_play_wins(rules, limit, [(5, 5), (4, 5), (5, 4), (3, 5), (5, 3)], 12)


@pytest.mark.parametrize("limit", [7, 50])
def test_hard_play_wins_what_the_rule_lets_be_won(five, limit):
    """The same with hard on both sides, its search reading the tables of the rule (and
    the plain tables beside them, which it must not go by): every game ends as the rule
    says at the count, a cursed win drawn, a blessed loss saved."""
    rules, _ = five
    perfect_play_wins(rules, limit, [(5, 5), (4, 5), (3, 5)], 8, player=HardPlayer)


def test_hard_searches_by_the_values_under_the_rule_at_the_lines_count(five, tmp_path):
    """Five Men's Morris under a 7-ply rule (many cursed wins and blessed losses), from
    sampled positions at every count: hard's score is a win, draw or loss as the
    position's value under the rule at the count, and every move it would choose keeps
    that value (the value perfect gives the move, :meth:`Database.probe_rule_moves`),
    though the plain tables beside them call cursed wins wins.  The database of another
    limit, or none of the rule, leaves it the plain values."""
    rules, _ = five
    limit = 7
    write_tables(tmp_path, rules, limit, plain=True)
    db = open_database(tmp_path, rules, quiet_limit=limit)
    rule, _ = tables(rules, limit)
    rng = random.Random(3)
    hard = HardPlayer(rules, random.Random(1), database=db, seconds=None, depth=1)
    cursed = 0
    for key in [(5, 5), (4, 5), (5, 4), (3, 5), (5, 3), (4, 4)]:
        sub = Subspace(*key, board=rules.board)
        slots = np.flatnonzero(rule[key] != SLACK_CODE)
        for slot in rng.sample(list(slots), 25):
            pos = Position.from_view(*sub.position(int(slot)), board=rules.board)
            if pos.terminal_wdl(rules) is not None:
                continue
            count = rng.randrange(limit)
            game = Game(pos, rules, limit, count)
            score, best = hard.search(game)
            value = db.probe_rule(pos).at(count)
            assert {WDL.WIN: score > 0, WDL.DRAW: score == 0, WDL.LOSS: score < 0}[value], (str(pos), count, score)
            kept = {str(mp.move) for mp in db.probe_rule_moves(pos, count) if mp.value == value}
            assert {str(m) for m in best} <= kept, (str(pos), count)
            cursed += value == WDL.DRAW and db.probe(pos).wdl != WDL.DRAW
    assert cursed >= 10, cursed                 # (where the plain values would have misled it)
    plain = HardPlayer(rules, random.Random(1), database=open_database(tmp_path, rules, quiet_limit=9),
                       seconds=None, depth=1)
    pos = next(Position.from_view(*Subspace(5, 5, board=rules.board).position(int(slot)), board=rules.board)
               for slot in np.flatnonzero((rule[5, 5] % 2 == 0) & (rule[5, 5] > 2 * limit)
                                          & (rule[5, 5] != SLACK_CODE)))
    assert hard.search(Game(pos, rules, limit))[0] == 0                     # a cursed win: drawn
    assert plain.search(Game(pos, rules, 9))[0] > 0     # no tables of the 9-ply rule: the plain win


def test_hard_does_not_take_a_position_the_game_has_had_once_for_a_draw(five, tmp_path):
    """A position the game has had once is no draw yet (the third time is), and under
    the rule it may be lost at the later count: Black's e5-c5 goes back to such a
    position, lost now, where c1-c2 holds the draw (found by a review: hard took both
    for draws and chose between them at random)."""
    rules, _ = five
    write_tables(tmp_path, rules, 50, plain=True)
    db = open_database(tmp_path, rules)
    game = Game("W:a3,a5,b2,d4,e3 B:a1,b3,c1,c5 w", rules, 50, 41)
    for move in ("d4-c4", "c5-e5", "c4-d4"):
        game.play(move)
    values = {str(mp.move): mp.value for mp in db.probe_rule_moves(game.position, game.quiet_plies)}
    assert values["c1-c2"] == "draw" and values["e5-c5"] == "loss"
    score, best = HardPlayer(rules, random.Random(0), database=db, seconds=None).search(game)
    assert (score, [str(m) for m in best]) == (0, ["c1-c2"])


def test_perfect_play_wins_what_the_rule_lets_be_won_through_mills_that_take_nothing(five_take_none):
    """Under take-none, from decided positions whose side to move can close a mill that
    takes nothing (and so restarts the count) at random counts: perfect play ends each
    game as the tables say (the player counts such a mill as a mill, as the game does)."""
    rules, oracle = five_take_none
    rule, _ = tables(rules, 7)
    rng = random.Random(7)
    starts = sorted(set(oracle.reset_src.tolist()))
    positions = [Position.from_view(*oracle.positions[i], board=rules.board) for i in rng.sample(starts, 60)]
    decided = [p for p in positions if table_code(rule, rules, p) != 0]
    assert len(decided) >= 20
    seen = perfect_play_wins(rules, 7, [], 0, decided)
    assert seen["win"] >= 10 and seen["loss"] >= 3, seen


def table_code(rule: dict, rules: Rules, pos: Position) -> int:
    """The DTZ code of a moving position in the in-memory tables ``rule``."""
    m, o = bin(pos.own).count("1"), bin(pos.opp).count("1")
    return int(rule[m, o][int(Subspace(m, o, board=rules.board).kernels.index_position(m, o, pos.own, pos.opp))])


@pytest.mark.parametrize("limit", [4, 3])
def test_perfect_play_wins_what_the_rule_lets_be_won_where_a_line_wins(three, limit):
    """The same in Three Men's Morris, whose lines of three end the game."""
    rules, _ = three
    perfect_play_wins(rules, limit, [(3, 3)], 60)


@pytest.mark.parametrize("limit", [50, 3])
def test_placing_under_the_rule_the_first_move_is_the_shortest_win_or_longest_loss(tmp_path, limit):
    """Where a line wins, a placement may end the game, and no count runs while placing:
    in every placement position of Three Men's Morris the first move under the rule (as
    the perfect player and best-move take it) is, of the moves the rule lets win, the
    shortest win by the plain values (of those it lets lose, the longest loss), and at
    the 50-ply limit, which draws nothing there, the plain values' best."""
    from solver import placement
    rules = Rules.from_name("three-mens")
    result = run("build", "--db", tmp_path, "--rules", "three-mens", "--quiet", "--quiet-limit", limit)
    assert result.exit_code == 0, result.output
    seen = {WDL.WIN: 0, WDL.LOSS: 0}
    with open_database(tmp_path, rules, quiet_limit=limit) as db:
        for sub in placement.plan(rules):
            codes = db.subspace(*sub)
            for slot in np.flatnonzero(codes != SLACK_CODE).tolist():
                own, opp = sub.position(slot)
                pos = Position.from_view(own, opp, sub.own_hand, sub.opp_hand, board=rules.board)
                if pos.terminal_wdl(rules) is not None:
                    continue
                ruled = db.probe_rule_moves(pos)
                best = ruled[0]
                if best.value == WDL.DRAW:
                    continue
                plain = {str(mp.move): mp for mp in db.probe_moves(pos)}
                same = [plain[str(mp.move)].plies for mp in ruled if mp.value == best.value]
                assert plain[str(best.move)].plies == (min(same) if best.value == WDL.WIN else max(same)), str(pos)
                if limit == 50:
                    first = db.probe_moves(pos)[0]
                    assert (first.value, first.plies) == (best.value, plain[str(best.move)].plies), str(pos)
                seen[best.value] += 1
        # a review judges a slower placement by the plies to the end (no count runs yet)
        from solver.analysis import review_move
        game = Game("W:a1,b1 B:a3,b3 w 1 1", rules, limit)
        slower = review_move(probe_game_moves(db, game), parse_move("c3", rules.board))
        assert (slower["mark"], slower["best"], slower["plies_lost"], slower["plies_to"]) == ("?!", "c1", 4, "end")
    assert seen[WDL.WIN] > 50 and seen[WDL.LOSS] > 10, seen


@pytest.mark.parametrize("limit", [2, 3, 4])
def test_where_a_line_wins_every_reachable_position_is_the_game_searched_with_its_count(tmp_path, limit):
    """Every position a game of Three Men's Morris reaches, placement phase included,
    at every count: the value under the rule the files give (``probe_rule``, at the
    count) is a search of the game itself, the count in the state as ``Game`` keeps it
    (a placement or a closed line starts it again, any other move adds one, the game
    drawn at the limit unless the board decides it first), over the reference rules
    alone.  Short limits, so that the rule draws some of the placement phase too."""
    from functools import lru_cache
    from solver.position import parse_position
    rules = Rules.from_name("three-mens")
    result = run("build", "--db", tmp_path, "--rules", "three-mens", "--quiet", "--quiet-limit", limit)
    assert result.exit_code == 0, result.output
    score = {WDL.WIN: 1, WDL.DRAW: 0, WDL.LOSS: -1}

    @lru_cache(maxsize=None)
    def searched(pos: Position, count: int) -> int:
        over = pos.terminal_wdl(rules)
        if over is not None:
            return score[over]
        if not pos.in_placement and count >= limit:
            return 0
        best = -1
        for move in pos.legal_moves(rules):
            after = pos.play_unchecked(move)
            restart = move.is_placement or in_mill(after.opp, move.target, after.board)
            best = max(best, -searched(after, 0 if restart else count + 1))
        return best

    seen, stack, placing = set(), [parse_position("startpos", rules)], {-1: 0, 0: 0, 1: 0}
    with open_database(tmp_path, rules, quiet_limit=limit) as db:
        while stack:
            pos = stack.pop()
            if pos in seen or pos.terminal_wdl(rules) is not None:
                continue
            seen.add(pos)
            value = db.probe_rule(pos)
            for count in ([0] if pos.in_placement else range(limit + 1)):
                assert score[value.at(count)] == searched(pos, count), (str(pos), count, str(value))
            if pos.in_placement:
                placing[searched(pos, 0)] += 1
            stack.extend(pos.play_unchecked(move) for move in pos.legal_moves(rules))
    assert len(seen) > 2000 and all(placing.values()), (len(seen), placing)


class MixedPlacement:
    """Every placement position a game of mixed placement reaches from the start (one a
    symmetry class: the brute force's own canonical form, with the hands), its moves
    from the readable rules, and the game under the rule solved over them round by
    round of plies, with no count (none runs while stones are in hand): where a move
    enters the moving phase, the value there at a fresh count is the brute force's
    (``Oracle``), counted as won in 1 or lost in 0; a finished game (a take that leaves
    two stones) is lost in 0 for the side left so.  ``code``: as the files' codes, 0 a
    draw, 1 + plies (odd plies a win)."""

    FIXED = {WDL.LOSS: 1, WDL.WIN: 2, WDL.DRAW: 0}

    def __init__(self, rules: Rules, oracle: Oracle, limit: int):
        self.rules, self.oracle = rules, oracle
        moving = dict(zip(oracle.keys.tolist(), oracle.solve(limit)[0].tolist()))      # (count 0)
        self.ids: dict[tuple, int] = {}
        self.positions: list[Position] = []
        moves: list[list] = []          # per position: (True, child) or (False, fixed code)
        frontier = [parse_position("startpos", rules)]
        while frontier:                 # breadth first, a level's symmetry classes at once
            level = len(moves)
            for pos, key in zip(frontier, self.keys(frontier)):
                if key in self.ids:
                    continue
                self.ids[key] = len(self.positions)
                self.positions.append(pos)
                out = []
                for move in pos.legal_moves(rules):
                    child = pos.play_unchecked(move)
                    over = child.terminal_wdl(rules)
                    out.append((False, self.FIXED[over]) if over is not None else (True, child))
                moves.append(out)
            frontier = [c for out in moves[level:] for inside, c in out if inside and c.in_placement]
            frontier = [c for c, key in zip(frontier, self.keys(frontier)) if key not in self.ids]
        flat = [c for out in moves for inside, c in out if inside]
        where = iter(self.keys(flat))
        kids = []
        for out in moves:
            row = []
            for inside, c in out:
                if not inside:
                    row.append((False, c))
                    continue
                key = next(where)
                if c.in_placement:
                    row.append((True, self.ids[key]))
                else:                   # the moving phase, at a fresh count
                    value = {WIN: WDL.WIN, LOSS: WDL.LOSS, DRAW: WDL.DRAW}[moving[key[0]]]
                    row.append((False, self.FIXED[value]))
            kids.append(row)
        code = [-1] * len(kids)                     # -1: not decided yet
        quiet, d = 0, 0
        while quiet < 2 or d < 3:                   # (two rounds deciding nothing: no later one will)
            decided = []
            for i, out in enumerate(kids):
                if code[i] >= 0:
                    continue
                after = [code[c] if inside else c for inside, c in out]
                if d % 2 == 1 and d in after:                       # a move to a loss in d - 1
                    decided.append(i)
                elif d % 2 == 0 and all(a > 0 and a % 2 == 0 for a in after) and max(after, default=d) == d:
                    decided.append(i)                               # every move to a win, the longest d - 1
            for i in decided:
                code[i] = d + 1
            quiet = 0 if decided else quiet + 1
            d += 1
        self.code = [max(c, 0) for c in code]

    def keys(self, positions: list[Position]) -> list[tuple]:
        """(canonical stones, hands) of each position, by one call of the brute force's
        own canonical form."""
        if not positions:
            return []
        canon = self.oracle.canonical(np.array([p.own << 32 | p.opp for p in positions], np.int64)).tolist()
        return [(c, p.own_hand, p.opp_hand) for c, p in zip(canon, positions)]


@pytest.mark.parametrize("name, limit", [("six-mens-mixed-s3", 50), ("six-mens-mixed-s3", 4),
                                         ("six-mens-mixed-s3", 3),
                                         pytest.param("six-mens-mixed-s4", 5, marks=pytest.mark.slow),
                                         pytest.param("lasker-s3", 4, marks=pytest.mark.slow)])
def test_mixed_placement_under_the_rule_is_the_brute_force(tmp_path, name, limit):
    """Mixed placement (a side with stones in hand may move instead; the count starts
    when the last stone is placed): every placement position a game of Six Men's
    Morris of three stones (in the slow stage, four, and Lasker's of three, where all
    jump) reaches has, by the files of the rule (``probe_rule``,
    ``placing_plies``), the value and plies to the moving phase that the brute force
    over the readable rules gives, with the moving phase's values at a fresh count from
    the brute force too; and a draw there is a cursed win or blessed loss exactly
    where the plain value is a win or loss.  Short limits, so that the rule draws some
    placement wins."""
    rules = Rules.from_name(name)
    built = run("build", "--db", tmp_path, "--rules", rules.name, "--quiet", "--quiet-limit", limit)
    assert built.exit_code == 0, built.output
    checked = run("check", "--db", tmp_path, "--rules", rules.name, "--phase", "rule", "--quiet-limit", limit)
    assert checked.exit_code == 0 and checked.output.startswith("ok: ") and "placement" in checked.output, \
        checked.output
    brute = MixedPlacement(rules, Oracle(rules), limit)
    seen = {w: 0 for w in RuleWDL}
    with open_database(tmp_path, rules, quiet_limit=limit) as db:
        for pos, code in zip(brute.positions, brute.code):
            value, plain = db.probe_rule(pos), db.probe(pos).wdl
            expected = (RuleWDL.WIN if code % 2 == 0 else RuleWDL.LOSS) if code else \
                {WDL.WIN: RuleWDL.CURSED_WIN, WDL.LOSS: RuleWDL.BLESSED_LOSS, WDL.DRAW: RuleWDL.DRAW}[plain]
            assert (value.wdl, db.placing_plies(pos)) == (expected, code - 1 if code else None), str(pos)
            seen[value.wdl] += 1
    assert len(brute.positions) > 3000 and seen[RuleWDL.WIN] and seen[RuleWDL.LOSS], seen
    if limit <= 3:
        assert seen[RuleWDL.CURSED_WIN] and seen[RuleWDL.BLESSED_LOSS], seen
    # The order of the moves: by the plies to the moving phase, then to the end, the
    # same in query (its first move best-move's) as for the perfect player
    from solver.analysis import query_object
    rng = random.Random(limit)
    decided = [p for p, c in zip(brute.positions, brute.code) if c]
    with open_database(tmp_path, rules, quiet_limit=limit) as db:
        for pos in rng.sample(decided, 100):
            ruled = db.probe_rule_moves(pos)
            shown = query_object(db, pos)["moves"]
            rank = {str(mp.move): mp.rank for mp in ruled}
            assert shown[0]["move"] == str(ruled[0].move), str(pos)
            assert [rank[mv["move"]] for mv in shown] == [mp.rank for mp in ruled], str(pos)
            best = ruled[0]
            ties = [mp for mp in ruled if mp.value == best.value and mp.placing_plies == best.placing_plies]
            pick = min if best.value == WDL.WIN else max
            assert best.plain_plies == pick(mp.plain_plies for mp in ties), str(pos)
            assert shown[0]["rule"]["placing_plies"] == best.placing_plies == db.placing_plies(pos)
    # Perfect play on both sides, the game's own count and repetitions: moves while
    # stones are in hand could go round, and the plies to the moving phase make progress
    with open_database(tmp_path, rules, quiet_limit=limit) as db:
        for pos in rng.sample(decided, 40):
            game = perfect_game(db, pos, rules, limit, 0)
            assert game.outcome().value_for(pos.turn) == db.probe_rule(pos).at(0), (str(pos), str(game.outcome()))
            # both sides hurry or delay by the plies to the moving phase: one less a ply
            placing = [db.placing_plies(p) for p in game.positions if p.in_placement]
            assert placing == list(range(placing[0], placing[0] - len(placing), -1)), (str(pos), placing)


def test_under_mixed_placement_a_review_judges_by_the_plies_to_the_moving_phase():
    """Moves as long to the moving phase are as good (the plies to the end only break
    the tie for the player); one longer is slower by the difference; a loss whose plies
    are not known ranks after those known, as in the plain values."""
    from solver.analysis import review_move
    from solver.probe import RuleMoveProbe
    a, b, c = (parse_move(t) for t in ("d2", "d3", "d5"))
    win = lambda move, plain, placing: RuleMoveProbe(move, WDL.WIN, None, RuleWDL.WIN, plain, placing)  # noqa: E731
    probes = sorted([win(b, 9, 3), win(a, 7, 3), win(c, 5, 5)], key=lambda mp: mp.rank)
    assert [mp.move for mp in probes] == [a, b, c]
    assert review_move(probes, b)["mark"] is None and review_move(probes, b)["plies_to"] == "moving"
    slower = review_move(probes, c)
    assert (slower["mark"], slower["plies_lost"], slower["best_plies"]) == ("?!", 2, 3)
    known, unknown = RuleMoveProbe(a, WDL.LOSS, None, RuleWDL.LOSS, 6), RuleMoveProbe(b, WDL.LOSS, None, RuleWDL.LOSS)
    assert sorted([unknown, known], key=lambda mp: mp.rank) == [known, unknown]


def test_a_missing_file_of_the_rule_is_said_where_the_values_fall_back(tmp_path):
    """Where the tables of the rule are built but a file an answer needs is missing,
    query, best-move and the perfect player answer by the plain values, and say so in
    one line with the command that builds it (they used to fall back in silence)."""
    rules = Rules.from_name("six-mens-mixed-s3")
    assert run("build", "--db", tmp_path, "--rules", rules.name, "--quiet").exit_code == 0
    storage.rule_path(tmp_path, rules, Subspace(2, 2, 1, 1, board=rules.board), 50).unlink()
    pos = "W:a1,c1 B:a5,c5 w 1 1"
    for command in ("query", "best-move"):
        result = CliRunner().invoke(main, [command, "--db", str(tmp_path), "--rules", rules.name, pos])
        assert result.exit_code == 0, result.output
        notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
        assert len(notes) == 1 and "dtz50-place-2-2+1-1.h5" in notes[0] and "--phase rule" in notes[0], notes
        assert "under the" not in result.stdout
    said = []
    with open_database(tmp_path, rules) as db:
        player = PerfectPlayer(rules, random.Random(1), say=said.append, database=db)
        player.choose(Game(pos, rules))
        player.choose(Game(pos, rules))
    assert len(said) == 1 and "dtz50-place-2-2+1-1.h5" in said[0], said
    # check names it once (its readers' checks meet it too), and says to build it
    checked = run("check", "--db", tmp_path, "--rules", rules.name, "--phase", "rule")
    errors = [line for line in checked.stderr.splitlines() if line.startswith("muehle: error")]
    assert checked.exit_code == 1 and len(errors) == 1 and "dtz50-place-2-2+1-1.h5" in errors[0], checked.stderr
    assert checked.stderr.splitlines()[-1].startswith("build them with: muehle build"), checked.stderr
    # all there: no note; a damaged file is named once too
    assert run("build", "--db", tmp_path, "--rules", rules.name, "--quiet").exit_code == 0
    path = storage.rule_path(tmp_path, rules, Subspace(2, 2, 1, 1, board=rules.board), 50)
    data = bytearray(path.read_bytes())
    for at in range(len(data) - 3000, len(data) - 2000, 97):
        data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    checked = run("check", "--db", tmp_path, "--rules", rules.name, "--phase", "rule")
    errors = [line for line in checked.stderr.splitlines() if line.startswith("muehle: error")]
    assert checked.exit_code == 1 and len(errors) == 1 and "dtz50-place-2-2+1-1.h5" in errors[0], checked.stderr
    assert checked.stderr.splitlines()[-1].startswith("delete the file(s) named"), checked.stderr
    assert run("build", "--db", tmp_path, "--rules", rules.name, "--quiet").exit_code == 0
    result = CliRunner().invoke(main, ["query", "--db", str(tmp_path), "--rules", rules.name, pos])
    assert result.exit_code == 0 and "note:" not in result.stderr and "under the 50-ply rule" in result.stdout


def write_tables(root, rules: Rules, limit: int, plain: bool = False) -> None:
    """The in-memory tables of ``rules`` under ``limit`` (:func:`tables`) written as a
    database's files of the rule in ``root``, and with ``plain`` its plain pairs too."""
    rule, plain_codes = tables(rules, limit)
    for (m, o), codes in rule.items():
        if m <= o:
            held = {Subspace(m, o, board=rules.board): codes, Subspace(o, m, board=rules.board): rule[o, m]}
            storage.write_file(storage.rule_path(root, rules, (m, o), limit), rules, held, quiet_limit=limit)
            if plain:
                storage.write_file(storage.pair_path(root, rules, (m, o)), rules,
                                   {s: plain_codes[s.m, s.o] for s in held})


def perfect_play_wins(rules: Rules, limit: int, keys: list[tuple[int, int]], per: int,
                      positions: list[Position] | None = None, player=PerfectPlayer) -> dict[str, int]:
    """Perfect games (or games of ``player`` against itself) from ``per`` sampled decided
    positions of each subspace of ``keys`` (or from ``positions``) at random counts end
    as the tables under the rule say (above)."""
    rule, _ = tables(rules, limit)
    root = None
    rng = random.Random(limit)
    from pathlib import Path
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tables(root, rules, limit, plain=player is not PerfectPlayer)
        db = open_database(root, rules, quiet_limit=limit)
        seen = {"win": 0, "draw": 0, "loss": 0}
        positions_given = positions is not None
        if positions is None:
            positions = []
            for key in keys:
                sub = Subspace(*key, board=rules.board)
                codes = rule[key]
                decided = np.flatnonzero((codes != 0) & (codes != SLACK_CODE))
                positions += [Position.from_view(*sub.position(int(slot)), board=rules.board)
                              for slot in rng.sample(list(decided), per)]
        for pos in positions:
            if pos.terminal_wdl(rules) is not None:
                continue
            value = db.probe_rule(pos)
            count = rng.randrange(0, max(1, limit - value.dtz + 1)) if value.dtz <= limit else rng.randrange(limit)
            expected = value.at(count)
            game = perfect_game(db, pos, rules, limit, count, player)
            result = game.outcome()
            got = result.value_for(pos.turn)
            assert got == expected, (str(pos), count, value, str(result))
            # (a search player may repeat a drawn position first: a draw all the same)
            if expected == DRAW and value.wdl != RuleWDL.DRAW and player is PerfectPlayer:
                assert result.termination == QUIET_PLIES     # the rule's draw, not another
            seen[expected] += 1
        assert positions_given or all(seen.values()), seen
    return seen


def test_placing_under_the_rule_the_perfect_choice_is_the_plain_best(db4_rule):
    """The standard game of four stones: in placement positions that the rule wins or
    loses, the first move under the rule (the perfect player's, best-move's) is as short
    a win or as long a loss as the plain values' best move (where the rule keeps every
    win and loss the best plain move reaches, as at 50 plies here: before the placement
    ranking, all placement wins ranked alike under the rule)."""
    from solver import placement

    db = open_database(db4_rule, FOUR)
    rng = random.Random(49)
    seen = {WDL.WIN: 0, WDL.LOSS: 0}
    picked = []
    for sub in placement.plan(FOUR):
        codes = dtz.read_placement(db4_rule, FOUR, 50, sub)
        for decided in (np.flatnonzero((codes != 0) & (codes % 2 == 0)),
                        np.flatnonzero((codes % 2 == 1) & (codes != SLACK_CODE))):
            for slot in rng.sample(decided.tolist(), min(6, len(decided))):
                picked.append(Position.from_view(*sub.position(slot), sub.own_hand, sub.opp_hand))
    for pos in picked:
        if pos.terminal_wdl(FOUR) is not None or not pos.hands_arise(FOUR):
            continue
        ruled = db.probe_rule_moves(pos)
        plain = db.probe_moves(pos)
        if ruled[0].value == WDL.DRAW or plain[0].value != ruled[0].value:
            continue
        by_move = {str(mp.move): mp for mp in plain}
        assert by_move[str(ruled[0].move)].plies == plain[0].plies, str(pos)
        seen[ruled[0].value] += 1
    assert seen[WDL.WIN] >= 20 and seen[WDL.LOSS] >= 20, seen


def test_the_placement_phase_under_the_rule_is_the_minimax_of_its_moves(db4_rule):
    """Placement positions a few placements before the moving phase: their value under
    the rule (the build's pass from the moving phase's count 0) is the minimax over the
    reference rules' moves down to the moving positions, valued there by the tables;
    cursed wins are told apart by the plain placement files where they are built."""
    from solver.placement import random_placements

    for limit in (50, 6):
        db = open_database(db4_rule, FOUR, quiet_limit=limit)

        def minimax(pos):
            over = pos.terminal_wdl(FOUR)
            if over is not None:
                return {"win": 1, "draw": 0, "loss": -1}[over]
            if not pos.in_placement:
                return {"win": 1, "draw": 0, "loss": -1}[db.probe_rule(pos).at(0)]
            return max(-minimax(pos.play_unchecked(m)) for m in pos.legal_moves(FOUR))

        seen = set()
        rng = random.Random(limit)
        picked = list(random_placements(FOUR, 20, seed=limit, plies=(5, 7)))
        for sub in (Subspace(3, 3, 1, 0), Subspace(2, 4, 1, 0), Subspace(2, 3, 1, 1), Subspace(3, 2, 1, 1)):
            codes = dtz.read_placement(db4_rule, FOUR, limit, sub)
            wins = list(np.flatnonzero((codes != 0) & (codes % 2 == 0)))
            losses = list(np.flatnonzero((codes % 2 == 1) & (codes != SLACK_CODE)))
            for slot in rng.sample(wins, min(5, len(wins))) + rng.sample(losses, min(5, len(losses))):
                picked.append(Position.from_view(*sub.position(int(slot)), sub.own_hand, sub.opp_hand))
        for pos in picked:
            if pos.terminal_wdl(FOUR) is not None:
                continue
            value = db.probe_rule(pos)
            assert value.dtz is None
            expected = minimax(pos)
            assert {"win": 1, "draw": 0, "loss": -1}[value.at(0)] == expected, str(pos)
            seen.add(value.at(0))
        assert {"win", "loss"} <= seen
    # the start under the rule of 50 plies: a draw, as without it
    assert open_database(db4_rule, FOUR).probe_rule("startpos").wdl == RuleWDL.DRAW


def test_the_value_types_refuse_what_is_no_value():
    """A bare KeyError, a TypeError from inside, or an answer for input that is none: a
    score of 3, a win without DTZ, a limit as text, NaN's sign, a word no value has."""
    with pytest.raises(ValueError, match=r"^a score under the rule is -2, -1, 0, 1 or 2, not 3$"):
        RuleWDL.from_score(3)
    assert RuleWDL.from_score(1) == RuleWDL.CURSED_WIN
    with pytest.raises(ValueError, match="^a win of the moving phase has a DTZ, not None$"):
        RuleValue.of(WDL.WIN, None, 50)
    for limit in ("50", 50.5, None):
        with pytest.raises(ValueError, match="^the quiet-ply limit is a whole number of plies"):
            RuleValue("win", 7, limit)
    with pytest.raises(ValueError, match="NaN"):
        WDL.from_score(float("nan"))
    with pytest.raises(TypeError, match="compares with its words, not 'bogus'"):
        WDL.WIN < "bogus"
    with pytest.raises(TypeError):
        WDL.WIN < RuleWDL.CURSED_WIN                # (two kinds: no common scale)
    assert WDL.LOSS < "draw" < WDL.WIN and RuleWDL.CURSED_WIN < "win"


def test_numpy_integers_are_taken_as_counts_and_limits(db4):
    """Value, Move, Position, Rules and Subspace take numpy integers; a game's limit and
    count, a database's limit and RuleValue.at refused them (and a limit given so must
    come out a plain int, which JSON writes)."""
    import numpy as np
    from solver.game import Game
    from solver.probe import open_database
    game = Game("W:a1,d1,a4 B:a7,d7,g7 w", quiet_limit=np.int64(60), quiet_plies=np.int64(3))
    assert (game.quiet_limit, game.quiet_counts) == (60, (3,)) and type(game.quiet_limit) is int
    assert type(game.quiet_counts[0]) is int
    assert RuleValue("win", 7, 50).at(np.int64(3)) == "win"
    with open_database(db4, "standard-s4", quiet_limit=np.int64(50)) as database:
        assert type(database.quiet_limit) is int
    for bad in ("50", 1, True, 2.0):
        with pytest.raises(ValueError, match="^the quiet-ply limit is a whole number of plies from 2 to 1000, not"):
            Game(quiet_limit=bad)


def test_best_move_calls_a_move_that_repeats_a_third_time_the_draw_it_is(db4_rule):
    """With the tables of the rule built, best-move's plain value of a move that repeats
    a position a third time was the tables' (a loss in 2), where without them it is the
    game's draw; the text blamed the rule for it."""
    after = "d5-g7 d7-a7 g7-d5 a7-d7 d5-g7 d7-a7 g7-d5"
    result = run("best-move", "--db", db4_rule, "--stones", 4, "--json", "--after", after, "W:a1,d5,g1 B:a4,d7,g4 w")
    obj = json.loads(result.stdout)
    assert (obj["move"], obj["value"], obj["plies"], obj["rule"]["value"]) == ("a7-d7", "draw", None, "draw"), obj
    text = run("best-move", "--db", db4_rule, "--stones", 4, "--after", after, "W:a1,d5,g1 B:a4,d7,g4 w")
    assert text.stdout == "a7-d7 (draw for Black)\n", text.stdout
