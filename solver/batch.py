"""Many positions answered at once: the path of ``query --batch``.

:func:`query_lines` gives for each position the JSON text of the object that
:func:`solver.analysis.query_object` gives for it alone (as a game taken up after a
given count of quiet plies), the same text, but found a block of positions
at a time: every legal move of every position from the kernels' move generator, the
positions they lead to indexed by the kernels in one call per subspace, and the
stored codes of all of them read by :meth:`Database.codes_at
<solver.probe.Database.codes_at>`, which decodes each chunk they fall in once.  Where
the answer needs more than the files (a finished game, stones in hand with no
placement file, a file missing or damaged, rules whose move generator the kernels do
not share with this path), that position is answered by ``query_object`` itself, so
the errors and notes are its own.

>>> from solver.probe import open_database              # doctest: +SKIP
>>> with open_database("data") as db:                    # doctest: +SKIP
...     query_lines(db, [parse_position("W:a1,d1,g1 B:a7,d7,f6 b")])[0][:40]
'{"position": "W:a1,d1,g1 B:a7,d7,f6 b", '

"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from . import placement
from .analysis import query_object
from .errors import DatabaseError
from .game import Game
from .index import Subspace
from .kernels import kernels_for
from .notation import format_position
from .position import NO_POINT, Move, Position, decided
from .probe import Database
from .values import SLACK_CODE

#: Sort keys of a move's rank (:attr:`solver.values.Value.rank`,
#: :attr:`solver.probe.RuleMoveProbe.rank`) as one integer: a class apart from the next
#: by more than any count of plies.
_CLASS = 1 << 20

_PLAIN = {1: "win", 0: "draw", -1: "loss"}
_RULE = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}


def query_lines(database: Database, positions: Sequence[Position], quiet_plies: int = 0,
                line: bool = False) -> list[str | ValueError | DatabaseError]:
    """For each of ``positions``, ``json.dumps(query_object(database, pos, line,
    game))`` where ``game`` takes the position up after ``quiet_plies`` plies without a
    mill under the database's rule (``query --batch``'s lines), found together; where
    that raises (ValueError, DatabaseError), the error in the line's place.  With
    ``line`` (each answer its own line of play), each by ``query_object`` alone."""
    return _Block(database, positions, quiet_plies, line).lines()


class _Block:
    """The answers of one block of positions: their moves, the positions they lead to,
    and every code those need, read subspace by subspace."""

    def __init__(self, database: Database, positions: Sequence[Position], quiet_plies: int, line: bool):
        self.db, self.positions, self.quiet, self.line = database, list(positions), quiet_plies, line
        rules = self.rules = database.rules
        self.limit = database.quiet_limit
        self.rule = database.has_rule_tables()
        self.slow = np.zeros(len(self.positions), dtype=bool)
        if line or rules.mixed or rules.line_wins or not 0 <= quiet_plies < self.limit:
            self.slow[:] = True          # (query_object answers all of them)
            return
        self.kernels = kernels_for(rules.board)
        self.placing = np.array([p.in_placement for p in self.positions], dtype=bool)
        self.has_placement = database.has_placement()
        self._moves()
        self._codes()
        if not self.slow.all():
            self._values()

    # --- the moves and the positions they lead to ---------------------------------
    def _moves(self) -> None:
        rules = self.rules
        packed, parent = [], []
        for i, pos in enumerate(self.positions):
            if (pos.board != rules.board
                    or decided(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules) is not None
                    or (pos.in_placement and (self.quiet or not self.has_placement
                                              or not placement.is_placement(Subspace.of(pos), rules)))):
                self.slow[i] = True      # (a finished game, the search, an error: query_object)
                continue
            moves = self.kernels.moves_packed(pos.own, pos.opp, pos.own_hand, pos.opp_hand, rules.flags)
            if not moves:
                self.slow[i] = True      # (blocked: the game is over)
                continue
            packed += moves
            parent += [i] * len(moves)
        packed = np.array(packed, dtype=np.int64)
        parent = np.array(parent, dtype=np.int64)
        target, origin, take = packed & 31, (packed >> 5) & 31, (packed >> 10) & 31
        second = packed >> 15
        # the reference's order (Position.legal_moves): placements, then by origin,
        # target and takes
        key = (((origin != NO_POINT) << 25) | (np.where(origin == NO_POINT, 0, origin) << 20)
               | (target << 15) | (take << 10) | second)
        order = np.lexsort((key, parent))
        packed, parent, target, origin, take, second = (a[order] for a in
                                                       (packed, parent, target, origin, take, second))
        one = np.int64(1)
        bit = lambda p, keep: np.where(keep, one << np.where(keep, p, 0), 0)
        taken = bit(take, take != NO_POINT) | bit(second - 1, second > 0)
        own = np.array([p.own for p in self.positions], dtype=np.int64)[parent]
        opp = np.array([p.opp for p in self.positions], dtype=np.int64)[parent]
        own_hand = np.array([p.own_hand for p in self.positions], dtype=np.int64)[parent]
        opp_hand = np.array([p.opp_hand for p in self.positions], dtype=np.int64)[parent]
        placing = origin == NO_POINT
        # the position each move leads to, the other side to move
        self.c_own = opp & ~taken
        self.c_opp = (own & ~bit(origin, ~placing)) | (one << target)
        self.c_own_hand = opp_hand
        self.c_opp_hand = own_hand - placing
        # a mill restarts the count of quiet plies, one that takes nothing (take-none) too
        self.packed, self.parent = packed, parent
        self.milled = (taken != 0) | _closes_mill(self.c_opp, target, rules.board)
        self.first = np.searchsorted(parent, np.arange(len(self.positions) + 1))
        # finished games among them, as the rules decide them (position.decided): a side
        # below three stones (a blocked side's loss, or a full board's draw, the files
        # hold as the rules give it)
        c_count = _popcount(self.c_own) + self.c_own_hand
        o_count = _popcount(self.c_opp) + self.c_opp_hand
        ended = np.zeros(len(packed), dtype=np.int64)      # for the side to move there: 1 won, -1 lost
        ended[o_count < 3] = 1
        ended[c_count < 3] = -1
        self.ended = ended

    # --- the stored codes --------------------------------------------------------
    def _codes(self) -> None:
        n, live = len(self.positions), ~self.slow
        parents = np.flatnonzero(live)
        p = [self.positions[i] for i in parents]
        # every position needing a code: the blocks' own (the first len(parents)) and
        # the open ones their moves lead to
        child = np.flatnonzero((self.ended == 0) & live[self.parent])
        own = np.concatenate([np.array([q.own for q in p], dtype=np.int64), self.c_own[child]])
        opp = np.concatenate([np.array([q.opp for q in p], dtype=np.int64), self.c_opp[child]])
        oh = np.concatenate([np.array([q.own_hand for q in p], dtype=np.int64), self.c_own_hand[child]])
        ph = np.concatenate([np.array([q.opp_hand for q in p], dtype=np.int64), self.c_opp_hand[child]])
        owner = np.concatenate([parents, self.parent[child]])
        plain = np.full(len(own), SLACK_CODE, dtype=np.int64)
        rule = np.full(len(own), SLACK_CODE, dtype=np.int64)
        shape = np.stack([_popcount(own), _popcount(opp), oh, ph], axis=1)
        shapes, which = np.unique(shape, axis=0, return_inverse=True)
        which = which.reshape(-1)
        for s, (m, o, h, k) in enumerate(shapes.tolist()):
            at = np.flatnonzero(which == s)
            try:
                sub = Subspace(m, o, h, k, board=self.rules.board)
                if h or k:
                    if not placement.is_placement(sub, self.rules):
                        raise DatabaseError("no file holds these hands")
                slots = sub.index_many(own[at].astype(np.uint32), opp[at].astype(np.uint32))
                plain[at] = self.db.codes_at(sub, slots)
                if self.rule:
                    rule[at] = self.db.codes_at(sub, slots, rule=True)
            except (ValueError, DatabaseError):
                self.slow[owner[at]] = True      # (query_object says what is wrong)
        bad = (plain == SLACK_CODE) | ((rule == SLACK_CODE) if self.rule else False)
        self.slow[owner[bad]] = True
        self.own_plain = np.full(n, SLACK_CODE, dtype=np.int64)
        self.own_rule = np.full(n, SLACK_CODE, dtype=np.int64)
        self.own_plain[parents], self.own_rule[parents] = plain[:len(parents)], rule[:len(parents)]
        self.c_plain = np.full(len(self.packed), SLACK_CODE, dtype=np.int64)
        self.c_rule = np.full(len(self.packed), SLACK_CODE, dtype=np.int64)
        self.c_plain[child], self.c_rule[child] = plain[len(parents):], rule[len(parents):]

    # --- the answers ---------------------------------------------------------------
    def _values(self) -> None:
        """Every move's value for its mover, plain and under the rule, and the order
        query_object sorts them in, for the whole block at once."""
        n_moves = len(self.packed)
        # the value after each move for the side to move there: 1 won, 0 drawn, -1 lost
        sign, plies = _signs(self.c_plain), self.c_plain - 1
        ended = self.ended != 0
        sign[ended], plies[ended] = self.ended[ended], 0
        self.m_sign, self.m_plies = -sign, plies + 1             # for the mover
        # Value.rank as one key: shortest win, draw, longest loss
        plain_key = np.where(sign < 0, plies + 1, np.where(sign == 0, _CLASS, 3 * _CLASS - plies - 1))
        keys = [np.arange(n_moves), plain_key]
        if self.rule:
            in_placement = (self.c_own_hand != 0) | (self.c_opp_hand != 0)
            score, dtz = _rule_values(self.c_rule, self.c_plain, in_placement, self.limit)
            score[ended], dtz[ended] = 2 * self.ended[ended], 0
            placing = self.placing[self.parent]
            count = np.where(self.milled | placing, 0, self.quiet + 1)
            at = np.where((np.abs(score) == 2) & (np.maximum(dtz, 0) <= self.limit - count), score // 2, 0)
            mover = -at
            mover_dtz = np.where((mover == 0) | placing, -1, np.where(self.milled, 1, dtz + 1))
            self.r_value, self.r_dtz, self.r_wdl = mover, mover_dtz, -score
            # the positions' own values under the rule, at the game's count
            own_score, own_dtz = _rule_values(self.own_rule, self.own_plain, self.placing,
                                              self.limit)
            own_at = np.where((np.abs(own_score) == 2) & (np.maximum(own_dtz, 0) <= self.limit - self.quiet),
                              own_score // 2, 0)
            self.own_score, self.own_dtz, self.own_at = own_score.tolist(), own_dtz.tolist(), own_at.tolist()
            # RuleMoveProbe.rank as one key: the nearest mill of a win, a draw by its value
            # without the rule, the farthest mill of a loss
            keys.append(np.where(mover > 0, np.maximum(mover_dtz, 0),
                                 np.where(mover == 0, _CLASS + 10 + score, 3 * _CLASS - np.maximum(mover_dtz, 0))))
        keys.append(self.parent)
        self.order = np.lexsort(keys)

    def _move_texts(self) -> list[str]:
        """Each move's JSON object, in the sorted order."""
        order, board = self.order, self.rules.board
        texts = [_move_text(p, board) for p in self.packed[order].tolist()]
        values = [_PLAIN[v] for v in self.m_sign[order].tolist()]
        plies = [str(p) if v else "null" for v, p in zip(self.m_sign[order].tolist(), self.m_plies[order].tolist())]
        if not self.rule:
            return [f'{{"move": "{t}", "value": "{v}", "plies": {p}}}' for t, v, p in zip(texts, values, plies)]
        r_values = [_PLAIN[v] for v in self.r_value[order].tolist()]
        r_dtz = ["null" if d < 0 else str(d) for d in self.r_dtz[order].tolist()]
        r_wdl = [_RULE[w] for w in self.r_wdl[order].tolist()]
        return [f'{{"move": "{t}", "value": "{v}", "plies": {p}, "rule": {{"value": "{rv}", "dtz": {d}, '
                f'"wdl": "{w}"}}}}' for t, v, p, rv, d, w in zip(texts, values, plies, r_values, r_dtz, r_wdl)]

    def lines(self) -> list[str | ValueError | DatabaseError]:
        """Each position's JSON text, or the error its answer raises."""
        out: list[str | ValueError | DatabaseError] = []
        moves = self._move_texts() if not self.slow.all() else []
        for i, pos in enumerate(self.positions):
            if self.slow[i]:
                try:
                    out.append(json.dumps(query_object(self.db, pos, self.line,
                                                       Game(pos, self.rules, self.limit, self.quiet))))
                except (ValueError, DatabaseError) as error:
                    out.append(error)
                continue
            code = int(self.own_plain[i])
            head = (f'{{"position": "{format_position(pos)}", "value": "{_plain_value(code)}", '
                    f'"plies": {code - 1 if code else "null"}, "moves": [')
            text = head + ", ".join(moves[self.first[i]:self.first[i + 1]]) + "]"
            if self.rule:
                dtz = self.own_dtz[i]
                text += (f', "rule": {{"limit": {self.limit}, "quiet_plies": {self.quiet}, '
                         f'"wdl": "{_RULE[self.own_score[i]]}", "dtz": {"null" if dtz < 0 else dtz}, '
                         f'"value": "{_PLAIN[self.own_at[i]]}"}}')
            out.append(text + "}")
        return out


def _signs(codes: np.ndarray) -> np.ndarray:
    """1 won, 0 drawn, -1 lost for the side to move, of plain codes."""
    return np.where(codes == 0, 0, np.where((codes - 1) % 2 == 1, 1, -1))


def _closes_mill(stones: np.ndarray, target: np.ndarray, board) -> np.ndarray:
    """Whether the stone on ``target`` stands in a closed mill of ``stones`` (arrays alike),
    as :func:`solver.position.in_mill` says of one."""
    width = max(len(mills) for mills in board.mills_through)
    table = np.full((board.num_points, width), 1 << 62, dtype=np.int64)     # (a mask no stones fill)
    for point, mills in enumerate(board.mills_through):
        table[point, :len(mills)] = mills
    masks = table[target]
    return ((stones[:, None] & masks) == masks).any(axis=1)


def _rule_values(codes: np.ndarray, plain: np.ndarray, in_placement: np.ndarray,
                 limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(RuleWDL scores, DTZ or -1 for none) of stored codes of the rule's tables
    (Database.probe_rule): in a placement file their differences from the plain codes
    (``plain``, :func:`solver.dtz.placement_scores`); else DTZ codes, a win's 2·DTZ, a
    loss's 2·DTZ + 1, beyond the limit cursed or blessed."""
    from .dtz import placement_scores

    codes = np.asarray(codes, dtype=np.int64)
    dtz = codes // 2
    score = np.where(codes == 0, 0, np.where((codes & 1) == 1, -2, 2))
    score = np.where(dtz > limit, score // 2, score)
    dtz = np.where(codes == 0, -1, dtz)
    return np.where(in_placement, placement_scores(codes, plain), score), np.where(in_placement, -1, dtz)


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Stones of each mask (int64; numpy 1.26 has no ``bitwise_count``)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(masks).astype(np.int64)
    return np.unpackbits(masks.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1, dtype=np.int64)


def _plain_value(code: int) -> str:
    return "draw" if code == 0 else "win" if (code - 1) % 2 else "loss"


_MOVE_TEXTS: dict[str, dict[int, str]] = {}


def _move_text(packed: int, board) -> str:
    """The text of a packed move (kept: a block writes the same few thousand again)."""
    texts = _MOVE_TEXTS.setdefault(board.name, {})
    text = texts.get(packed)
    if text is None:
        text = texts[packed] = str(Move.unpack(packed, board))
    return text
