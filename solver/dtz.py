"""Values under the quiet-ply rule of played games: tables of plies to the next mill.

A played game is drawn after ``limit`` plies of the moving phase in a row that close no
mill (:data:`solver.game.QUIET_PLY_LIMIT`, 50; the board's verdict comes first: a move
that blocks the opponent on the last allowed ply wins, and so does a mill on it).  The
databases' plain values ignore that rule.  These tables hold, for every moving-phase
position with the count of quiet plies at zero, its value in the game with the rule
and its **DTZ**: the plies to the next mill (or to the end of the game) when the
winner hurries to a mill that keeps the win and the loser delays it, as chess's DTZ50
tables count them (docs/design.md §3, "The quiet-ply rule").

A position whose count of quiet plies is c is won under the rule iff it is a win of
DTZ ≤ limit − c, lost iff a loss of DTZ ≤ limit − c, drawn otherwise.  So, at c = 0:

- a **win**: DTZ ≤ limit;
- a **cursed win**: won without the rule, drawn with it (DTZ > limit);
- a **draw**;
- a **blessed loss**: lost without the rule, drawn with it (DTZ > limit);
- a **loss**: DTZ ≤ limit.

A mill leads into a smaller pair whose position has a fresh count, so each pair is
solved (by the moving phase's kernels, :func:`solver.retro.solve_pair`) with every
mill an end whose value is its target's value under the rule: a mill into a loss of
the opponent's (under the rule) ends 1 ply away; one into a blessed loss of the
opponent's, a cursed win for the taker, counts ``limit + 1`` plies, so that the wins
that need one are cursed (chess's tables count a capture into a cursed win so too);
the same for the loser's mills, which it makes only where it must.  What the values
are for positions of DTZ above ``limit`` is thus the DTZ of that game: a cursed win's
DTZ is above the limit, and where it passes through a mill into a cursed win it counts
that mill ``limit + 1``.

**Two solves.** The kernels' codes tell a win from a loss by the parity of the plies
(docs/design.md §3), but a mill made by the losing side is an end at an odd ply of
its own: no one solve's codes hold DTZ exactly.  So each pair is solved twice, with
the ends given plies that keep the parity: the first solve counts each end the least
plies of its parity not below its own (a win's value rounded up to odd, a loss's to
even), the second the least *above* it (every end two plies further where it had its
parity already: a blocked side loses in 2, a winning mill wins in 3).  Min and max
commute with those roundings, so each solve's values are the exact DTZ rounded so, and
the two together give it: DTZ = second − 1 where the two agree, second − 2 where not
(:func:`combine`).  The second solve's ends are shifted after the kernels'
initialisation (:func:`solver.retro.solve_unit`'s ``end``), and the build's forward
check runs on both roundings (:func:`check_pair`), so the tables are checked as
exactly as the plain ones.

**Codes.** One uint16 per slot: 0 a draw, 2·DTZ a win (DTZ ≥ 1), 2·DTZ + 1 a loss
(DTZ ≥ 0: 1 is a side to move that is blocked), 0xFFFF a slack slot.  Wins have even
codes and losses odd ones, as in the plain tables, so the same statistics count them.

>>> encode("win", 3), encode("loss", 0), decode(7), decode(0)
(6, 1, ('loss', 3), ('draw', None))
>>> [int(c) for c in exit_codes(np.array([1, 2, 103, 104, 0], dtype=np.uint16), 50, second=False)]
[1, 2, 51, 52, 0]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .index import Pair, Subspace
from .retro import check_by_opponent_sets, outside, solve_pair
from .rules import Rules
from .values import DRAW_CODE, SLACK_CODE

#: Slots one numpy step of the conversions below handles (temporaries of a few bytes a
#: slot: 16 Mi slots, some 100 MiB, where a whole large pair's would be gigabytes).
BLOCK = 1 << 24
#: The plies the second solve adds to the game's own ends (a blocked side, a take that
#: leaves two stones): the next ones of the same parity (ext/check.pxi ``ended``).
SECOND_END = 2


def encode(wdl: str, dtz: int | None) -> int:
    """The code of a win or loss with ``dtz`` plies to the next mill, or of a draw."""
    if wdl == "draw":
        return DRAW_CODE
    if wdl == "win" and dtz >= 1:
        return 2 * dtz
    if wdl == "loss" and dtz >= 0:
        return 2 * dtz + 1
    raise ValueError(f"no code holds a {wdl} with DTZ {dtz!r}")


def decode(code: int) -> tuple[str, int | None]:
    """(win/draw/loss, DTZ) of a code (ValueError for the slack code)."""
    code = int(code)
    if code == SLACK_CODE or not 0 <= code < SLACK_CODE:
        raise ValueError(f"no value has code {code}")
    if code == DRAW_CODE:
        return "draw", None
    return ("loss", code // 2) if code & 1 else ("win", code // 2)


def _blocks(n: int):
    for start in range(0, n, BLOCK):
        yield slice(start, min(n, start + BLOCK))


def rounded(codes: np.ndarray, second: bool) -> np.ndarray:
    """The codes (plain tables' codes: 1 + plies) that the first solve (``second``
    False) or the second gives positions of these DTZ codes: a win's DTZ rounded up to
    odd (second: strictly), a loss's up to even (second: strictly); draws and slack
    slots as they are.  What the forward check of the tables checks."""
    out = np.empty_like(codes)
    for s in _blocks(len(codes)):
        c = codes[s].astype(np.int32)
        t = c >> 1
        win = (c & 1) == 0
        if second:
            plies = np.where(win, (t + 1) | 1, (t + 2) & ~1)
        else:
            plies = np.where(win, t | 1, (t + 1) & ~1)
        out[s] = np.where((c == DRAW_CODE) | (c == SLACK_CODE), c, plies + 1)
    return out


def exit_codes(codes: np.ndarray, limit: int, second: bool) -> np.ndarray:
    """The codes a solve reads for the positions of a capture target (the opponent to
    move there, a fresh count of quiet plies) from the target's DTZ codes ``codes``: a
    mill into a loss of the opponent's under the rule ends 1 ply away for the taker,
    into a win of the opponent's too (the taker's loss), into a blessed loss or a cursed
    win ``limit + 1`` plies away; rounded as the solve rounds (:func:`rounded`).  The
    taker's value X at a target of code X: a loss of the opponent's in X - 1 plies."""
    out = np.empty_like(codes)
    for s in _blocks(len(codes)):
        c = codes[s].astype(np.int32)
        lost = (c & 1) == 1                         # the opponent loses: the taker wins
        away = np.where((c >> 1) <= limit, 1, limit + 1)
        if second:
            taker = np.where(lost, (away + 1) | 1, (away + 2) & ~1)
        else:
            taker = np.where(lost, away | 1, (away + 1) & ~1)
        out[s] = np.where((c == DRAW_CODE) | (c == SLACK_CODE), c, taker)
    return out


def combine(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The DTZ codes from the two solves' codes of the same subspace: DTZ = second's
    plies − 1 where the two agree, − 2 where the first is two below.  ValueError where
    they are not two roundings of one value (a win, draw or loss of one that the other
    has not, or plies apart otherwise)."""
    out = np.empty_like(second)
    for s in _blocks(len(second)):
        a, d = first[s].astype(np.int32), second[s].astype(np.int32)
        plain = (d == DRAW_CODE) | (d == SLACK_CODE)
        if not (np.array_equal(a[plain], d[plain]) and np.all(((d - a)[~plain] == 0) | ((d - a)[~plain] == 2))
                and np.all(a[~plain] >= 1) and np.all((a[~plain] & 1) == (d[~plain] & 1))):
            raise ValueError("the two solves of the quiet-ply rule disagree beyond their roundings")
        dtz = (d - 1) - np.where(a == d, 1, 2)
        win = (d & 1) == 0
        out[s] = np.where(plain, d, np.where(win, 2 * dtz, 2 * dtz + 1))
    return out


def check_rules(rules: Rules) -> None:
    """UnsupportedRulesError where these tables are not made for ``rules``: a mill that
    takes nothing (take-none: it resets the count inside its own pair), mixed placement
    (moves while stones are in hand), a line of three that wins (no mills to count)."""
    from .errors import UnsupportedRulesError
    why = ("a mill that takes nothing (take-none) resets the count inside its own pair" if rules.take_none
           else "stones move while others are in hand (mixed placement)" if rules.mixed
           else "a line of three wins the game (there is no mill to count to)" if rules.line_wins
           else None)
    if why:
        raise UnsupportedRulesError(f"no tables of the quiet-ply rule for rules {rules.name}: {why}")


def solve_rule_pair(pair: tuple[int, int], rules: Rules, lookup: Callable[[int, int], np.ndarray],
                    limit: int, jobs: int = 2, progress: Callable[[str], None] | None = None
                    ) -> dict[Subspace, np.ndarray]:
    """The DTZ codes of both subspaces of ``pair`` under a rule of ``limit`` quiet plies;
    ``lookup(m, o)`` supplies the DTZ codes of the (solved) subspaces its mills lead into.
    Two solves (see the module's docstring); between them the first one's values wait
    as one bit a slot (which of the two roundings they are), not as codes."""
    check_rules(rules)
    first = solve_pair(pair, rules, lambda m, o: exit_codes(lookup(m, o), limit, False), jobs, progress)
    # first = second - 2 or second, and the two differ by 2: bit 1 of the plies tells
    bits = {s: np.packbits(((v - 1) >> 1) & 1) for s, v in first.values.items()}
    del first
    second = solve_pair(pair, rules, lambda m, o: exit_codes(lookup(m, o), limit, True), jobs, progress,
                        end=SECOND_END)
    out = {}
    for s, d in second.values.items():
        bit = np.unpackbits(bits.pop(s), count=len(d))
        # the first solve's codes again, from the second's and the bit
        a = np.where((((d.astype(np.int32) - 1) >> 1) & 1) == bit, d, d - 2).astype(np.uint16)
        plain = (d == DRAW_CODE) | (d == SLACK_CODE)
        a[plain] = d[plain]
        out[s] = combine(a, d)
    return out


def check_pair(pair: Pair, rules: Rules, values: dict[Subspace, np.ndarray],
               lookup: Callable[[int, int], np.ndarray], limit: int, jobs: int = 2) -> list[str]:
    """The build's forward check of a pair's DTZ codes (``values`` by subspace): each
    rounding of them (:func:`rounded`) must be a fixed point of the plain tables' value
    rule with the ends of its solve (the kernels' check, docs/design.md §6).  Returns
    what fails, one line a subspace (empty: all passed)."""
    failed = []
    for second in (False, True):
        codes = {s: rounded(v, second) for s, v in values.items()}
        for sub in pair.subspaces:
            target = outside(sub, rules)[0]
            cap = (np.zeros(0, dtype=np.uint16) if target is None
                   else exit_codes(lookup(target.m, target.o), limit, second))
            bad, passed = check_by_opponent_sets(sub, codes[sub], codes[sub.mirror], cap, rules, jobs,
                                                 end=SECOND_END if second else 0)
            if not passed:
                failed.append(f"subspace {sub} under the quiet-ply rule: {len(bad)} slot(s) disagree with "
                              f"their successors ({'second' if second else 'first'} rounding), "
                              f"first at slot {min(bad) if bad else '?'}")
    return failed
