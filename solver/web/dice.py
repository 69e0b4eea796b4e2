"""Dice mill in the browser: ``/api/game`` and ``/api/play`` with ``dice`` (a throw rule).

The page keeps a game as its start, its moves and its ``seed``, and the server replays
it (:meth:`solver.dice.DiceGame.replay`): each placement turn's throw is a function of
the seed and the ply (:func:`solver.dice.turn_throw`), so that a replay, an undo and
the terminal's ``play --dice --seed`` meet the same throws.  While stones are placed
the state is the dice game's: its throw (``dice``), its legal moves with the
replacements where the throw gives the power, and as hints every move's expected result
from dice mill's tables.  Once every stone is placed, the game goes on without dice: the
state is the plain game's from there (:meth:`Service.state`), with the moves and the
start of the whole game.
"""

from __future__ import annotations

import random
from typing import Optional

from ..dice import DiceGame, DiceRule, dice_gap, replacements
from ..errors import MuehleError, NotationError, IllegalMoveError, one_line
from ..commands import explained
from ..game import QUIET_PLY_LIMIT, REPETITION_LIMIT, Game
from ..notation import format_position
from ..position import popcount
from ..svg import board_svg
from ..values import WIN


def dice_rule(text: Optional[str]) -> Optional[DiceRule]:
    """The throw rule a request names (``dice``), None for none (ValueError: no rule)."""
    if text is None or not text.strip() or text.strip().lower() == "none":
        return None
    return DiceRule.from_name(text)


def replay(service, rules, dice: DiceRule, start: Optional[str], moves: list[str],
           seed: Optional[int]) -> tuple[DiceGame, Optional[Game]]:
    """The dice game of a request, and the plain game that goes on from where every
    stone is placed (None while placing, or where the game ended while placing).
    ValueError (one line) for rules without dice mill or a move that is not legal."""
    gap = dice_gap(rules)
    if gap is not None:
        raise ValueError(gap)
    start_pos = service.game(rules, start, []).position
    try:
        game, rest = DiceGame.replay(rules, dice, start_pos, moves, 0 if seed is None else seed)
    except (IllegalMoveError, NotationError) as error:
        raise ValueError(str(error)) from None
    if game.in_placement or game.position.terminal_wdl(rules) is not None:
        if rest:
            raise ValueError(f"move {len(moves) - len(rest) + 1}: the game is over")
        return game, None
    return game, service.game(rules, format_position(game.position), rest)


def info(game: DiceGame) -> dict:
    """The state's ``dice``: the throw rule, and the current turn's throw (none once
    every stone is placed) with the points whose stones it lets the mover replace."""
    dice, t = game.dice, game.pending
    out = {"rule": dice.name, "power": f"{dice.num}/216", "words": dice.describe(), "seed": game.seed,
           "throw": None, "powered": False, "targets": []}
    if t is not None:
        out.update(throw=list(t.dice), powered=t.powered,
                   targets=sorted({game.rules.board.points[m.target]
                                   for m in replacements(game.position, game.rules, dice)}) if t.powered else [])
    return out


def on_plain(game: DiceGame, plain: Game, obj: dict) -> dict:
    """``obj``, a state of the game without dice (``plain``) that goes on from ``game``'s
    last placement, given the whole game's moves, start, ``dice`` and record (the
    throws' with the placements, :meth:`DiceGame.record`)."""
    obj.update(played=[str(m) for m in game.moves] + obj["played"],
               start=format_position(game.positions[0]), dice=info(game), record=game.record(plain))
    return obj


def state(service, game: DiceGame, plain: Optional[Game], hints: bool) -> dict:
    """The page's state of a dice game (see the module's docstring)."""
    rules = game.rules
    if plain is not None:
        return on_plain(game, plain, service.state(plain, hints))
    pos = game.position
    over = pos.terminal_wdl(rules)
    winner = None if over is None else pos.turn if over == WIN else ("b" if pos.turn == "w" else "w")
    obj = {"position": format_position(pos), "side": pos.turn,
           "moves": [] if over is not None else [str(m) for m in game.legal_moves()],
           "game_over": over, "rules": rules.name, "stones": rules.stones,
           "start": format_position(game.positions[0]), "played": [str(m) for m in game.moves],
           "record": game.record(),
           "result": None if over is None else f"{'White' if winner == 'w' else 'Black'} wins while placing",
           "winner": winner,
           "phase": ("game over" if over is not None else
                     f"placement with dice ({'White' if pos.turn == 'w' else 'Black'} places a stone)"),
           "hands": {"w": pos.white_hand, "b": pos.black_hand},
           "on_board": {"w": popcount(pos.white), "b": popcount(pos.black)},
           "quiet_plies": 0, "quiet_limit": QUIET_PLY_LIMIT, "repetitions": 1,
           "repetition_limit": REPETITION_LIMIT,
           "svg": board_svg(pos, size=None, last_move=game.moves[-1] if game.moves else None, hands=True),
           "hints": None, "dice": info(game)}
    if hints and over is None:
        try:
            obj["hints"] = hint_object(service.dice_tables(rules, game.dice), game)
        except (MuehleError, ValueError) as error:
            obj["hints"] = {"error": one_line(explained(error))}
    return obj


def value_class(score: float) -> str:
    """The hint colour's value of an expected score: above even a win's, below a loss's."""
    return "win" if score > 0.5 + 1e-4 else "loss" if score < 0.5 - 1e-4 else "draw"


def hint_object(tables, game: DiceGame) -> dict:
    """The hints of a dice game's turn: ``query --dice``'s object for the moves after
    this throw (the expected result before it, every move's after it, best first), each
    with the value class of its expected score for the board's marks."""
    obj = tables.query_object(game.position, game.pending.powered)
    for item in [obj["expected"], *obj["moves"]]:
        item.update(value=value_class(item["score"]), plies=None)
    return {"dice": True, "value": obj["expected"]["value"], "plies": None, "expected": obj["expected"],
            "moves": obj["moves"]}


def computer_move(service, game: DiceGame, level: str, rng: random.Random):
    """The computer's placement in a dice game: the tables' best move after its throw
    (every level but easy), else one chosen by ``rng`` (the page's /api/play stream)."""
    if level == "easy":
        return rng.choice(game.legal_moves())
    return service.dice_tables(game.rules, game.dice).best_move(game.position, game.pending.powered).move


__all__ = ["computer_move", "dice_rule", "hint_object", "info", "on_plain", "replay", "state", "value_class"]
