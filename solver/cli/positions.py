"""Commands about positions and moves, no database needed: ``show`` and ``moves``."""

from __future__ import annotations

import json

import click

from ..diagram import ASCII, UNICODE, diagram
from ..game import Game
from ..notation import format_position
from ..position import popcount
from ..rules import Rules
from .common import COLOUR, main, position_argument, rules_options


def phase(game: Game) -> str:
    """Words for what the side to move does now, or how the game ended."""
    result = game.result()
    if result is not None:
        return f"game over: {result}"
    pos, name = game.position, COLOUR[game.position.turn]
    if pos.own_hand:
        return f"placement ({name} places a stone)"
    if pos.can_jump(game.rules):
        return f"jumping ({name} has three stones and jumps)"
    return f"moving ({name} slides a stone)"


@main.command()
@rules_options
@position_argument
@click.option("--unicode", is_flag=True, help="Draw stones as ○ (White) and ● (Black).")
def show(game: Game, rules: Rules, unicode: bool) -> None:
    """Draw POSITION as a board with side to move, stones in hand and phase.

    \b
    Example:
      muehle show 'W:a1,d2,g7 B:a4,b6 w'
    """
    pos = game.position
    click.echo(diagram(pos, UNICODE if unicode else ASCII))
    click.echo()
    white, black = (UNICODE if unicode else ASCII)[:2]
    click.echo(f"Position:  {format_position(pos)}")
    click.echo(f"To move:   {COLOUR[pos.turn]}")
    click.echo(f"White ({white}): {popcount(pos.white)} on the board, {pos.white_hand} in hand")
    click.echo(f"Black ({black}): {popcount(pos.black)} on the board, {pos.black_hand} in hand")
    click.echo(f"Phase:     {phase(game)}")
    if rules != Rules():
        click.echo(f"Rules:     {rules.name}")


@main.command()
@rules_options
@position_argument
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def moves(game: Game, rules: Rules, as_json: bool) -> None:
    """List every legal move in POSITION, one per line.

    With --json: {"position", "side", "moves", "game_over"}, where game_over is
    null, "win" or "loss" for the side to move ("draw" only after --after moves
    that repeat a position or make 50 quiet plies).

    \b
    Example:
      muehle moves 'W:a1,d1 B:a4,b6,d6,f6 w 1 3'
    """
    pos = game.position
    legal = [str(m) for m in game.legal_moves()]
    result = game.result()
    game_over = None if result is None else result.value_for(pos.turn)
    if as_json:
        click.echo(json.dumps({"position": format_position(pos), "side": pos.turn,
                               "moves": legal, "game_over": game_over}))
        return
    for move in legal:
        click.echo(move)
    if result is not None:
        click.echo(f"no moves: game over, {result}", err=True)
