"""Ceylonese mill in the browser: ``/api/game`` and ``/api/play`` with ``ceylonese`` (a
reading: ``ceylonese``, ``-open<N>``, ``-no-extra``; :class:`solver.ceylonese.CeylonRule`).

The page keeps a game as its start and its moves, and the server replays it by the
readable rules (:class:`solver.ceylonese.CeylonGame`), as it does a plain game.  A side
that closes a mill moves again, so the same side may make several moves in a row: the
state says who made each move (``ceylonese.movers``), which the page's undo follows
back to the start of the human's last turn, as the terminal's ``undo`` does.  The hints
are ``query --ceylonese``'s values from Ceylonese mill's tables (``build --phase
ceylonese``): turns to the end, a turn being a side's moves until the other's.
"""

from __future__ import annotations

import random
from typing import Optional

from ..ceylonese import CeylonGame, CeylonRule, require_ceylonese, unreached
from ..commands import explained
from ..errors import IllegalMoveError, MuehleError, NotationError, one_line
from ..game import REPETITION_LIMIT
from ..notation import COLOUR_NAMES, format_position
from ..position import Move, parse_position, popcount
from ..rules import Rules
from ..svg import board_svg


def ceylon_rule(text: Optional[str]) -> Optional[CeylonRule]:
    """The reading a request names (``ceylonese``), None for none (ValueError: no reading).

    >>> ceylon_rule("ceylonese-no-extra"), ceylon_rule("") is None
    (CeylonRule(open_points=2, extra_move=False), True)
    """
    if text is None or not text.strip() or text.strip().lower() == "none":
        return None
    return CeylonRule.from_name(text.strip())


def replay(rules: Rules, rule: CeylonRule, start: Optional[str], moves: list[str]) -> CeylonGame:
    """The game of a request: ``moves`` played from ``start`` (the empty board where
    none).  ValueError in one line for rules without the Ceylonese turns, a start no
    game of Ceylonese mill reaches, or a move that is not legal (``move N: ...``)."""
    require_ceylonese(rules, rule)
    first = None if start is None or not start.strip() or start.strip() == "startpos" else parse_position(start, rules)
    game = CeylonGame(rules, rule, first)
    for number, text in enumerate(moves, 1):
        try:
            game.play(text)
        except (IllegalMoveError, NotationError) as error:
            raise ValueError(f"move {number}: {error}") from None
    return game


def movers(game: CeylonGame) -> list[str]:
    """The side that made each move of ``game`` ('w' or 'b'), in order."""
    return [pos.turn for pos in game.positions[:-1]]


def describe(game: CeylonGame) -> str:
    """What the side to move does now, or how the game ended, in words.

    >>> describe(CeylonGame(Rules(stones=12)))
    'placement (White places a stone)'
    """
    result = game.result()
    if result is not None:
        return f"game over: {result}"
    pos, name = game.position, COLOUR_NAMES[game.position.turn]
    more = " again" if game.again else ""
    if pos.own_hand:
        return f"placement ({name} places a stone{more})"
    if pos.can_jump(game.rules):
        return f"jumping ({name} has three stones and jumps{more})"
    return f"moving ({name} slides a stone{more})"


def state(service, game: CeylonGame, hints: bool) -> dict:
    """The page's state of a game of Ceylonese mill: the keys of a plain game's
    (:meth:`solver.web.app.Service.state`; ``record`` as :meth:`CeylonGame.record`), no
    count of quiet plies (the game is drawn by repetition alone), and ``ceylonese``: the reading, its words, who made each move,
    whether the side to move moves again, and why no game from the empty board reaches
    the start by the order of turns (``note``; None where one may:
    :func:`solver.ceylonese.unreached`; the game is played from it all the same)."""
    pos, rules = game.position, game.rules
    result = game.result()
    obj = {"position": format_position(pos), "side": pos.turn,
           "moves": [str(m) for m in game.legal_moves()],
           "game_over": None if result is None else result.value_for(pos.turn),
           "rules": rules.name, "stones": rules.stones, "start": format_position(game.positions[0]),
           "played": [str(m) for m in game.moves], "record": game.record(),
           "result": None if result is None else str(result),
           "winner": None if result is None else result.winner, "phase": describe(game),
           "hands": {"w": pos.white_hand, "b": pos.black_hand},
           "on_board": {"w": popcount(pos.white), "b": popcount(pos.black)},
           "quiet_plies": None, "quiet_limit": None,
           "repetitions": game.repetitions(), "repetition_limit": REPETITION_LIMIT,
           "svg": board_svg(pos, size=None, last_move=game.moves[-1] if game.moves else None, hands=True),
           "hints": None,
           "ceylonese": {"rule": game.rule.name, "words": words(game.rule), "movers": movers(game),
                         "again": game.again,
                         "note": unreached(game.positions[0], rules)}}
    if hints and result is None:
        try:
            obj["hints"] = hint_object(service.ceylon_tables(rules, game.rule), game)
        except (MuehleError, ValueError) as error:
            obj["hints"] = {"error": one_line(explained(error))}
    return obj


def words(rule: CeylonRule) -> str:
    """The reading in words, for the page.

    >>> words(CeylonRule(open_points=4, extra_move=False))
    'a mill while placing takes nothing and earns another placement; the placement ends with 4 points free; a mill while moving takes a stone, and the turn passes'
    """
    moving = ("takes a stone, and the same side moves again" if rule.extra_move
              else "takes a stone, and the turn passes")
    return (f"a mill while placing takes nothing and earns another placement; the placement ends with "
            f"{rule.open_points} points free; a mill while moving {moving}")


def hint_object(tables, game: CeylonGame) -> dict:
    """The hints of the side to move: ``query --ceylonese``'s object
    (:meth:`~solver.ceylonese_tables.CeylonTables.query_object`), turns to the end, each
    move's ``plies`` its turns for the board's numbers and ``again`` whether it keeps
    the turn."""
    obj = tables.query_object(game.position)
    for item in obj["moves"]:
        item["plies"] = item["turns"]
    obj.update(plies=obj["turns"])
    return obj


def computer_move(service, game: CeylonGame, level: str, rng: random.Random) -> Move:
    """The computer's move: the tables' best (every level but easy; the first of the
    best, as ``play --ceylonese`` plays), else one chosen by ``rng``."""
    if level == "easy":
        return rng.choice(game.legal_moves())
    return service.ceylon_tables(game.rules, game.rule).probe_moves(game.position)[0].move


__all__ = ["ceylon_rule", "computer_move", "describe", "hint_object", "movers", "replay", "state",
           "words"]
