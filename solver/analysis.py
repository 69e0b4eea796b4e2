"""The answers of ``query``, ``moves``, ``best-move`` and ``analyze`` as JSON-ready objects.

One function per answer, called by both interfaces: the command line prints the
object (``--json``) or words made from it, the browser's API returns it as it is.
So the two can never disagree on a field.

>>> from solver.game import Game
>>> moves_object(Game("W:a1,d1 B:a4,b6,d6,f6 w 1 3"))["moves"][-1]
'g1xa4'
"""

from __future__ import annotations

import random
from typing import Callable, Optional

from .ceylonese import CeylonGame
from .ceylonese_tables import CeylonTables
from .dice import DiceGame, rank
from .dice_tables import DiceTables, expected_object
from .errors import DatabaseError, MissingSubspaceError, one_line
from .game import QUIET_PLIES, REPETITION, Game
from .errors import InvalidNotationError
from .formats import fen_text, malom_text, read_setup
from .notation import BLACK, WHITE, format_position
from .position import Move, Position
from .choice import probe_game_moves, trap_choice
from .records import turn_of_setup
from .rules import Rules
from .probe import Database, MoveProbe, RuleMoveProbe, best_of
from .values import DRAW, LOSS, WDL, WIN, RuleWDL, Value

#: Words for a move that threw a value away (a win it had for a draw or loss, a draw for a loss).
LOST_THE_WIN = "lost the win"
LOST_THE_DRAW = "lost the draw"


#: Plies a drawn line is followed.
DRAWN_LINE = 20
#: Most plies of a line (a guard: a decided one ends long before).
LONGEST_LINE = 1000


def principal_line(database: Database, pos: Position, limit: Optional[int] = None) -> list[Move]:
    """The line both sides play by the databases' best moves (the first of equal ones):
    the shortest win against the longest defence.  A decided position's line runs to
    the end of the game, as many plies as its value says; one valued without plies (by
    the opening search, in the placement phase) runs to the end too, a win but not the
    shortest (the values do not tell wins apart) until the moving phase's plies take
    over; a drawn one is followed :data:`DRAWN_LINE` plies.  ``limit``: at most this
    many plies.  The rules of play's draws (repetition, 50 plies without a mill) are
    not applied: the values do not know them."""
    probe = database.probe(pos)
    length = (DRAWN_LINE if probe.wdl == DRAW else
              probe.plies if probe.plies is not None else LONGEST_LINE)
    if limit is not None:
        length = min(length, limit)
    line: list[Move] = []
    while len(line) < length:
        move = database.best_move(pos)
        if move is None:
            break
        line.append(move)
        pos = pos.play_unchecked(move)
    return line


def query_object(database: Database, pos: Position, line: bool = False,
                 game: Optional[Game] = None) -> dict:
    """``{"position", "value", "plies", "moves": [{"move", "value", "plies"}]}``: the
    value for the side to move and of every legal move for its mover, best first;
    with ``line``, also ``"line"``: the :func:`principal_line` as move texts, and
    ``"line_drawn"``: where a game from this position along that line would end in a
    draw by the rules of play, ``{"ply", "termination"}`` (a win of more than 50 plies
    without a mill is one: the values count plies to the end, not to the next mill),
    else null.  ``game``: the game that reached ``pos`` (``--after``): where its history
    has drawn it (:func:`drawn_by_play`) the answer is that draw, in 0 plies, no moves;
    else its counters count towards ``line_drawn``."""
    if drawn_by_play(game) is not None:
        obj = {"position": format_position(pos), "value": DRAW, "plies": 0, "moves": []}
        if line:
            obj.update(line=[], line_drawn=None)
        return obj
    probe = database.probe(pos)
    obj = {"position": format_position(pos), "value": probe.wdl, "plies": probe.plies,
           "moves": [{"move": str(mp.move), "value": mp.value, "plies": mp.plies}
                     for mp in database.probe_moves(pos)]}
    played = game if game is not None else Game(pos, database.rules, database.quiet_limit)
    rule = rule_object(database, played)
    try:
        by_move = ({str(mp.move): mp for mp in database.probe_rule_moves(pos, rule["quiet_plies"])}
                   if rule is not None else None)
    except MissingSubspaceError:
        rule = by_move = None           # (a file its moves lead to is not built)
    if rule is not None:
        obj["rule"] = rule
        for mv in obj["moves"]:
            mv["rule"] = rule_move_object(by_move[mv["move"]])
        # best first in the game: by the values under the rule (stable: the plain order
        # among equals)
        obj["moves"].sort(key=lambda mv: by_move[mv["move"]].rank)
    if line:
        moves = principal_line(database, pos)
        obj["line"] = [str(m) for m in moves]
        drawn = drawn_in_play(played, moves) if probe.wdl != DRAW else None
        obj["line_drawn"] = None if drawn is None else {"ply": drawn[0], "termination": drawn[1]}
        if rule is not None:
            rule["line"] = [str(m) for m in rule_line(database, played)]
    return obj


def rule_move_object(under: RuleMoveProbe) -> dict:
    """A move's ``"rule"`` in query's and best-move's objects: ``{"value", "dtz", "wdl"}``
    (its value for its mover at the game's count, its plies to the next mill, its value
    at a fresh count), and ``"placing_plies"`` under mixed placement where it has them."""
    obj = {"value": under.value, "dtz": under.dtz, "wdl": under.rule}
    if under.placing_plies is not None:         # (mixed placement's win or loss)
        obj["placing_plies"] = under.placing_plies
    return obj


def rule_object(database: Database, game: Game) -> Optional[dict]:
    """``{"limit", "quiet_plies", "wdl", "dtz", "value"}``: the value of the game's
    position under the quiet-ply rule (:meth:`Database.probe_rule`): at a fresh count
    (``wdl``: win, cursed-win, draw, blessed-loss or loss; ``dtz``: plies to the next
    mill, null with stones in hand) and at the game's count (``value``); under mixed
    placement, with stones in hand, a win's or loss's ``placing_plies`` too (the plies
    to the moving phase, :meth:`Database.placing_plies`); None where the
    game's limit is not the database's, or the tables of the rule are not built (for
    its file)."""
    pos = game.position
    if game.quiet_limit != database.quiet_limit or not database.has_rule_tables():
        return None
    try:
        rule = database.get_rule(pos)
    except ValueError:
        return None
    if rule is None:
        return None
    obj = {"limit": rule.limit, "quiet_plies": game.quiet_plies, "wdl": rule.wdl, "dtz": rule.dtz,
           "value": rule.at(game.quiet_plies)}
    if database.rules.mixed and pos.in_placement and rule.wdl in (RuleWDL.WIN, RuleWDL.LOSS):
        obj["placing_plies"] = database.placing_plies(pos)
    return obj


def rule_gap(database: Database, game: Game) -> Optional[MissingSubspaceError]:
    """Where the tables of the quiet-ply rule of the game's limit are built but a file
    that the game's position or its moves need is not (so the answers are the plain
    values), the error that says which (with its remedy); else None."""
    if (game.quiet_limit != database.quiet_limit or game.outcome() is not None
            or not database.has_rule_tables()):
        return None
    try:
        database.probe_rule_moves(game.position, game.quiet_plies)
        database.probe_rule(game.position)
    except MissingSubspaceError as exc:
        # (hands no game reaches have no file to build: the opening search answers)
        return exc if exc.remedy is not None else None
    return None


def rule_line(database: Database, game: Game) -> list[Move]:
    """The line both sides play by the best moves under the quiet-ply rule (the first of
    equal ones: :func:`~solver.choice.probe_game_moves`) from the game's position and
    count: the nearest winning mill against the farthest, until the game ends (by a
    mill's last take, a block, or the rule's draw), :data:`DRAWN_LINE` plies of a drawn
    game, or a position the tables do not hold."""
    game = game.copy()
    line: list[Move] = []
    start = rule_object(database, game)
    drawn = start is None or start["value"] == DRAW
    while game.outcome() is None and len(line) < (DRAWN_LINE if drawn else LONGEST_LINE):
        probes = probe_game_moves(database, game)
        if not probes or not isinstance(probes[0], RuleMoveProbe):
            break                       # (the plain values: the tables do not hold it)
        line.append(probes[0].move)
        game.play(probes[0].move)
    return line


def drawn_by_play(game: Optional[Game]) -> Optional[str]:
    """What ended ``game`` in a draw by its history (threefold repetition, 50 plies
    without a mill), which no position's value knows; None if nothing did (or no game).

    >>> game = Game("W:a1,d1,a4,d2 B:g7,b6,f6 w")
    >>> for move in "d2-d3 b6-b4 d3-d2 b4-b6".split() * 2: _ = game.play(move)
    >>> drawn_by_play(game)
    'draw (threefold repetition)'
    """
    result = game.outcome() if game is not None else None
    if result is None or result.winner != DRAW or result.termination not in (REPETITION, QUIET_PLIES):
        return None
    return str(result)


def drawn_in_play(game: Game, moves: list) -> Optional[tuple[int, str]]:
    """(ply, termination) where ``moves`` (Moves or their text) played on a copy of
    ``game`` end it in a draw by the rules of play (threefold repetition, 50 plies
    without a mill), else None.

    >>> drawn_in_play(Game("W:a1,d1,a4,d2 B:g7,b6,f6 w"), "d2-d3 b6-b4 d3-d2 b4-b6".split() * 2)
    (8, 'threefold repetition')
    >>> drawn_in_play(Game("W:a1,d1,a4,d2 B:g7,b6,f6 w"), "d2-d3 b6-b4".split()) is None
    True
    """
    game = game.copy()
    for ply, move in enumerate(moves, 1):
        game.play(move)
        result = game.outcome()
        if result is not None:
            return (ply, result.reason) if result.winner == DRAW else None
    return None


def convert_object(text: str, rules) -> dict:
    """``{"muehle", "fen", "malom", "take", "note", "notes"}``: a position given in any
    format muehle reads (:func:`~solver.formats.read_setup`), checked against ``rules``,
    written in each: muehle's position string (null where a take is pending: its
    positions lie between turns), Sanmill's FEN and Malom's clipboard text (null off the
    standard board's 24 points); ``notes`` says why of each null format, ``note`` all of
    that in one line (null where every format is written).

    >>> convert_object("startpos", Rules())["fen"]
    '********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1'
    """
    setup = read_setup(text, rules.stones, rules.board)
    pos = Position(setup.white, setup.black, setup.white_hand, setup.black_hand, setup.turn, board=rules.board)
    try:
        pos.check_rules(rules)
    except ValueError as error:
        raise InvalidNotationError(str(error)) from None
    if setup.take:
        turn_of_setup(setup, rules)         # (a take that no game can have pending: refused)
    notes: dict[str, str] = {}

    def written(name: str, write: Callable[[], str]) -> Optional[str]:
        # (a format that cannot hold the position: null, and its note says why; Sanmill's
        # FEN and Malom's text name the 24 points of the standard board only)
        try:
            return write()
        except InvalidNotationError as error:
            notes[name] = str(error)
            return None
    obj = {"muehle": written("muehle", lambda: format_position(Position(*setup.position_fields(),
                                                                         board=rules.board))),
           "fen": written("fen", lambda: fen_text(setup, rules.board)),
           "malom": written("malom", lambda: malom_text(setup, rules.board, rules.stones)),
           "take": setup.take}
    return {**obj, "note": "; ".join(notes.values()) or None, "notes": notes}


def game_over(game: Game) -> Optional[WDL]:
    """None while ``game`` goes on, else ``"win"``, ``"loss"`` or ``"draw"`` for its side to move."""
    result = game.outcome()
    return None if result is None else result.value_for(game.position.turn)


def moves_object(game: Game) -> dict:
    """``{"position", "side", "moves", "game_over"}`` for the game's current position."""
    pos = game.position
    return {"position": format_position(pos), "side": pos.turn,
            "moves": [str(m) for m in game.legal_moves()], "game_over": game_over(game)}


def best_move_object(database: Database, pos: Position,
                     rng: Optional[random.Random] = None, game: Optional[Game] = None,
                     traps: bool = False) -> dict:
    """``{"position", "move", "value", "plies"}``: the database's best move (shortest
    win, else a draw, else the longest loss; random among equals with ``rng``:
    :func:`~solver.probe.best_of`) and its value for the mover; ``move`` null when the
    game is over.  Where the tables of the quiet-ply rule choose it, ``value`` and
    ``plies`` are still the plain ones (as in query's moves), and ``"rule"`` holds the
    move's values under the rule (:func:`rule_move_object`).  ``game``: the game that reached ``pos``, over also where its history
    drew it (:func:`drawn_by_play`), and whose history makes a move that repeats a
    position for the third time (or is the 50th quiet ply) the draw it is there, as the
    perfect player counts it (:func:`~solver.choice.probe_game_moves`).  ``traps``: among
    the best moves, the one that gives a fallible opponent the most chances to err, as
    the ultra player chooses (:func:`~solver.choice.trap_choice`), with its chance in
    ``"trap_chance"``."""
    if drawn_by_play(game) is not None:
        return {"position": format_position(pos), "move": None, "value": DRAW, "plies": 0}
    chance = None
    if traps:
        trap = trap_choice(database, game if game is not None else Game(pos, database.rules), rng)
        choice, chance = (None, None) if trap is None else (trap.probe, trap.chance)
    else:
        moves = probe_game_moves(database, game) if game is not None else database.probe_moves(pos)
        choice = best_of(moves, rng)
    if choice is None:
        probe = database.probe(pos)
        return {"position": format_position(pos), "move": None, "value": probe.value,
                "plies": probe.plies}
    obj = {"position": format_position(pos), "move": str(choice.move), "value": choice.value,
           "plies": choice.plies}
    if isinstance(choice, RuleMoveProbe):   # chosen under the quiet-ply rule
        # (the keys mean what they mean in query's moves: the plain value and plies,
        # and under "rule" the value in the game at its count, the DTZ, the class)
        # (a move the game draws, by a third repetition or the last quiet ply, is that
        # draw, as without the tables of the rule: probe_game_moves)
        drawn = game is not None and game.draw_after(choice.move) is not None
        plain = Value(DRAW) if drawn else database.probe(pos.play_unchecked(choice.move)).for_mover()
        obj.update(value=plain.wdl, plies=plain.plies, rule=rule_move_object(choice))
    if traps:
        obj["trap_chance"] = round(chance, 4)
    return obj


def move_plies(database: Database, pos: Position, probe) -> Optional[int]:
    """The plies to the end of the game that a move's value (of ``pos``'s moves, as
    :func:`~solver.choice.probe_game_moves` gives them) has: a plain value's own; under
    the quiet-ply rule, the plain value's where it is the same (a win or loss the rule
    keeps), else None (a draw; a win the rule makes a draw)."""
    if not isinstance(probe, RuleMoveProbe):
        return probe.plies
    if probe.value == DRAW:
        return None
    plain = database.probe(pos.play_unchecked(probe.move)).for_mover()
    return plain.plies if plain.wdl == probe.value else None


def blunder(before: Optional[str], after: Optional[str]) -> Optional[str]:
    """:data:`LOST_THE_WIN`, :data:`LOST_THE_DRAW` or None, from the mover's values.

    >>> blunder("win", "draw"), blunder("draw", "loss"), blunder("draw", "draw")
    ('lost the win', 'lost the draw', None)
    """
    if before == WIN and after in (DRAW, LOSS):
        return LOST_THE_WIN
    if before == DRAW and after == LOSS:
        return LOST_THE_DRAW
    return None


#: The marks of a game review, as chess reviews write them: a move that lost a win or a
#: draw to a loss (``??``), a win to a draw (``?``), or kept the value but won more
#: slowly, or lost sooner, than the best move (``?!``).
LOST_TO_A_LOSS = "??"
LOST_TO_A_DRAW = "?"
SLOWER = "?!"
MARKS = (LOST_TO_A_LOSS, LOST_TO_A_DRAW, SLOWER)


def review_move(probes: list, move: Move) -> dict:
    """How ``move`` compares with the best of ``probes`` (the position's moves best first,
    as :func:`~solver.choice.probe_game_moves` gives them: under the quiet-ply rule where
    its tables are built, a draw by the game's history counted as one):
    ``{"mark", "plies_lost", "best", "best_value", "best_plies", "plies_to", "is_best"}``.

    ``mark``: :data:`LOST_TO_A_LOSS` (a win or a draw given up for a loss),
    :data:`LOST_TO_A_DRAW` (a win for a draw), :data:`SLOWER` (the value kept, but a win
    longer or a loss shorter than the best move's: by ``plies_lost`` plies, counted to the
    end of the game, or under the rule to the next mill: ``plies_to`` says which, ``end``
    or ``mill``, or ``moving`` for the moving phase under the rule while placing under
    mixed placement, for ``plies_lost`` and ``best_plies``), else None.  ``is_best``: the
    move is as good as the best (every drawing move of a drawn position is).

    >>> from solver.position import Move
    >>> probes = [MoveProbe(Move(1), "win", 5), MoveProbe(Move(2), "win", 9), MoveProbe(Move(3), "draw")]
    >>> [review_move(probes, Move(t))["mark"] for t in (1, 2, 3)]
    [None, '?!', '?']
    >>> review_move(probes, Move(2))["plies_lost"]
    4
    """
    best = probes[0]
    played = next(mp for mp in probes if mp.move == move)
    obj = {"mark": None, "plies_lost": None, "best": str(best.move), "best_value": best.value,
           "best_plies": ranked_plies(best), "plies_to": plies_to(best),
           "is_best": True}
    if played.value != best.value:
        obj.update(is_best=False, mark=LOST_TO_A_DRAW if played.value == DRAW else LOST_TO_A_LOSS)
    elif played.value != DRAW and ranked_plies(played) != ranked_plies(best):
        # (the same value, other plies: to the end, to the next mill, or to the moving
        # phase, whose ties the plies to the end break only to choose among equals)
        mine, theirs = ranked_plies(played), ranked_plies(best)
        lost = abs(mine - theirs) if None not in (mine, theirs) else None
        obj.update(is_best=False, mark=SLOWER, plies_lost=lost)
    return obj


def ranked_plies(probe) -> Optional[int]:
    """The plies by which a probe ranks among equal values: to the end, or under the
    rule to the next mill (while placing, where no count runs: to the end, and under
    mixed placement to the moving phase)."""
    to = plies_to(probe)
    if to == "mill":
        return probe.dtz
    if to == "moving":
        return probe.placing_plies
    return probe.plain_plies if isinstance(probe, RuleMoveProbe) else probe.plies


def plies_to(probe) -> str:
    """What :func:`ranked_plies` counts to: ``"mill"`` under the rule in the moving phase
    (while placing, where no count runs: ``"end"``, or under mixed placement
    ``"moving"``, the moving phase, :attr:`RuleMoveProbe.placing_plies`), else ``"end"``."""
    if not isinstance(probe, RuleMoveProbe):
        return "end"
    return "mill" if probe.moving else "moving" if probe.placing_plies is not None else "end"


def review_summary(rows: list[dict]) -> dict:
    """Per side (``"w"``, ``"b"``): ``{"moves", "best", "accuracy", "??", "?", "?!"}``
    of the reviewed rows (those whose move could be judged): the share of best moves
    (``accuracy``, in percent, one decimal; null for none) and the count of each mark.

    >>> review_summary([{"side": "w", "is_best": True, "mark": None},
    ...                 {"side": "w", "is_best": False, "mark": "?!"}])["w"]
    {'moves': 2, 'best': 1, 'accuracy': 50.0, '??': 0, '?': 0, '?!': 1}
    """
    summary = {}
    for side in (WHITE, BLACK):
        judged = [r for r in rows if r["side"] == side and r.get("is_best") is not None]
        best = sum(1 for r in judged if r["is_best"])
        summary[side] = {"moves": len(judged), "best": best,
                         "accuracy": round(100 * best / len(judged), 1) if judged else None,
                         **{mark: sum(1 for r in judged if r["mark"] == mark) for mark in MARKS}}
    return summary


def analyze_object(database: Database, game: Game,
                   explain: Callable[[BaseException], str] = str) -> tuple[dict, list[str]]:
    """The value before and after every move of ``game``, both for its mover, and a
    review of every move against the best one.

    Returns ``({"rules", "start", "result", "moves": [{"ply", "side", "move",
    "before", "before_plies", "after", "after_plies", "rule_before", "rule_after",
    "blunder", "mark", "plies_lost", "best", "best_value", "best_plies", "plies_to", "is_best"}],
    "summary"}, problems)``; values are null where the database cannot answer, and
    ``problems`` says why (each reason once, in the words ``explain`` gives an error:
    an interface adds the command that mends it).  ``rule_before`` and ``rule_after``: the
    values in the game under its quiet-ply rule at its real count (moving phase, where
    the database's tables of that rule are built; else null).  A move that draws the
    game by threefold repetition or the quiet plies has ``after`` (and ``rule_after``)
    a draw, as the game has.

    The review (:func:`review_move`, :func:`review_summary`) judges each move among
    the position's moves as the perfect player sees them in this game: under the rule
    where its tables are built (a move that keeps a win the rule draws has lost the
    win), and a move that draws by threefold repetition or the quiet plies counted as
    that draw.  ``blunder``: the words of a ``??`` or ``?`` (:data:`LOST_THE_WIN`,
    :data:`LOST_THE_DRAW`).
    """
    problems: list[str] = []
    counts = game.quiet_counts
    ruled = game.quiet_limit == database.quiet_limit and database.has_rule_tables()

    def noted(error: DatabaseError) -> None:
        _note(problems, error, explain)

    def rule_value(i: int) -> Optional[WDL]:
        """The value of position i (its side to move) under the rule at its count."""
        pos = game.positions[i]
        if not ruled or pos.in_placement:
            return None
        try:
            return database.probe_rule(pos).at(counts[i])
        except DatabaseError as error:
            noted(error)
            return None

    def value(pos: Position, after: bool):
        try:
            probe = database.probe(pos)
        except DatabaseError as error:
            noted(error)
            return None, None
        value = probe.for_mover() if after else probe
        return value.wdl, value.plies

    rows = []
    replay = Game(game.start, game.rules, game.quiet_limit, game.quiet_counts[0])
    for i, move in enumerate(game.moves):
        before, before_plies = value(game.positions[i], False)
        after, after_plies = value(game.positions[i + 1], True)
        rule_before, rule_after = rule_value(i), rule_value(i + 1)
        if rule_after is not None:
            rule_after = -rule_after
        try:
            review = review_move(probe_game_moves(database, replay), move)
        except DatabaseError as error:
            noted(error)
            review = {"mark": None, "plies_lost": None, "best": None, "best_value": None,
                      "best_plies": None, "plies_to": None, "is_best": None}
        replay.play(move)
        ended = replay.outcome()
        if ended is not None and ended.winner == DRAW:
            # (drawn by the rules of play, threefold repetition or the quiet plies: the
            # position's value in the tables is no longer the game's)
            after, after_plies = DRAW, None
            rule_after = None if rule_after is None else DRAW
        if review["is_best"] is not None:
            words = blunder(review["best_value"], None if review["mark"] in (None, SLOWER)
                            else DRAW if review["mark"] == LOST_TO_A_DRAW else LOSS)
        else:           # (no review: the values before and after, as far as they go)
            judged = (rule_before, rule_after) if None not in (rule_before, rule_after) else (before, after)
            words = blunder(*judged)
        rows.append({"ply": i + 1, "side": game.positions[i].turn, "move": str(move),
                     "before": before, "before_plies": before_plies,
                     "after": after, "after_plies": after_plies,
                     "rule_before": rule_before, "rule_after": rule_after,
                     "blunder": words, **review})
    result = game.outcome()
    return ({"rules": game.rules.name, "start": format_position(game.start),
             "result": None if result is None else str(result), "moves": rows,
             "summary": review_summary(rows)},
            problems)


def _note(problems: list[str], error: DatabaseError, explain: Callable[[BaseException], str]) -> None:
    """``error`` among an analysis's ``problems``, in one line of ``explain``'s words, once."""
    text = one_line(explain(error))
    if text not in problems:
        problems.append(text)


#: The marks of a placement of dice mill by the expected score it gave away (the best
#: move's win + draw/2 less its own, both after the throw the mover had): this
#: project's thresholds, as the game reviews of chess sites mark by expected score.
DICE_MARKS = ((0.25, LOST_TO_A_LOSS), (0.10, LOST_TO_A_DRAW), (0.02, SLOWER))


def dice_analyze_object(tables: DiceTables, database: Database, game: DiceGame, rest: Game,
                        explain: Callable[[BaseException], str] = str) -> tuple[dict, list[str]]:
    """A game of dice mill reviewed (``analyze`` of a record with throws): every
    placement against the best move after its throw by dice mill's tables (``tables``:
    the expected results), then the game after the placement phase (``rest``) as
    :func:`analyze_object` reviews a game by ``database``.

    Returns ``({"rules", "dice", "start", "result", "placements": [{"ply", "side",
    "position", "throw", "powered", "move", "replacement", "before", "after", "best",
    "best_after", "score_lost", "mark", "is_best"}], "placement_summary", "moves",
    "summary"}, problems)``: ``position`` the position before the throw, ``before`` the expected result of the position before the throw,
    ``after`` the move's and ``best_after`` the best move's for the mover (``{"win",
    "draw", "loss", "score"}``); ``mark`` by the score lost (:data:`DICE_MARKS`); null
    where the tables cannot answer, and ``problems`` says why.  The plies of ``moves``
    count on from the placements'.
    """
    problems: list[str] = []
    rows = []
    for i, (move, thrown) in enumerate(zip(game.moves, game.throws)):
        pos = game.positions[i]
        row = {"ply": i + 1, "side": pos.turn, "position": format_position(pos), "throw": str(thrown),
               "powered": thrown.powered,
               "move": str(move), "replacement": None, "before": None, "after": None, "best": None,
               "best_after": None, "score_lost": None, "mark": None, "is_best": None}
        try:
            before, moves = tables.probe(pos), tables.probe_moves(pos, thrown.powered)
        except DatabaseError as error:
            _note(problems, error, explain)
            rows.append(row)
            continue
        played = next(m for m in moves if m.move == move)
        best = moves[0]
        lost = round(max(0.0, best.value.score - played.value.score), 5)
        row.update(replacement=played.replacement, before=expected_object(before),
                   after=expected_object(played.value), best=str(best.move),
                   best_after=expected_object(best.value), score_lost=lost,
                   mark=next((mark for least, mark in DICE_MARKS if lost >= least), None),
                   is_best=rank(played.fixed) == rank(best.fixed))
        rows.append(row)
    moving, more = analyze_object(database, rest, explain)
    for row in moving["moves"]:
        row["ply"] += len(game.moves)
    result = rest.outcome()
    return ({"rules": game.rules.name, "dice": game.dice.name, "start": format_position(game.positions[0]),
             "result": None if result is None else str(result), "placements": rows,
             "placement_summary": review_summary(rows), "moves": moving["moves"],
             "summary": moving["summary"]},
            problems + [p for p in more if p not in problems])


def ceylon_analyze_object(tables: CeylonTables, game: CeylonGame,
                          explain: Callable[[BaseException], str] = str) -> tuple[dict, list[str]]:
    """A game of Ceylonese mill reviewed (``analyze`` of a record with a ``ceylonese:``
    header) by its tables, as :func:`analyze_object` reviews a plain game: each move's
    value before and after it for its mover, and the review against the best move
    (:func:`review_move`: the marks ``??``, ``?``, ``?!``).  Values count **turns** (a
    side's moves until the other's; ``"counts": "turns"``), so ``before_plies``,
    ``after_plies``, ``best_plies`` and ``plies_lost`` are turns here; ``again``: the
    move kept the turn (a mill, or the other had nothing to place).  The tables' values
    know no history: a move that repeats a position a third time is judged by them.

    Returns ``({"rules", "ceylonese", "counts", "start", "result", "moves": [{"ply",
    "side", "move", "again", "before", "before_plies", "after", "after_plies", "blunder",
    "mark", "plies_lost", "best", "best_value", "best_plies", "plies_to", "is_best"}],
    "summary"}, problems)``; null where the tables cannot answer, and ``problems`` says
    why (each reason once).  DatabaseError where they cannot answer the start (none
    built, say): one error, not one a move.
    """
    tables.value(game.positions[0])
    problems: list[str] = []
    rows = []
    for i, move in enumerate(game.moves):
        pos, after_pos = game.positions[i], game.positions[i + 1]
        row = {"ply": i + 1, "side": pos.turn, "move": str(move), "again": after_pos.turn == pos.turn,
               "before": None, "before_plies": None, "after": None, "after_plies": None, "blunder": None,
               "mark": None, "plies_lost": None, "best": None, "best_value": None, "best_plies": None,
               "plies_to": None, "is_best": None}
        try:
            before = tables.value(pos)
            probes = [MoveProbe(m.move, m.value.wdl, m.value.plies) for m in tables.probe_moves(pos)]
        except DatabaseError as error:
            _note(problems, error, explain)
            rows.append(row)
            continue
        played = next(p for p in probes if p.move == move)
        review = review_move(probes, move)
        row.update(before=before.wdl, before_plies=before.plies, after=played.value, after_plies=played.plies,
                   blunder=blunder(review["best_value"], played.value), **review)
        rows.append(row)
    result = game.result()
    return ({"rules": game.rules.name, "ceylonese": game.rule.name, "counts": "turns",
             "start": format_position(game.positions[0]), "result": None if result is None else str(result),
             "moves": rows,
             "summary": review_summary(rows)},
            problems)


__all__ = ["query_object", "moves_object", "best_move_object", "analyze_object", "dice_analyze_object",
           "ceylon_analyze_object",
           "DICE_MARKS", "blunder",
           "review_move", "review_summary", "convert_object", "move_plies", "game_over", "LOST_THE_WIN", "LOST_THE_DRAW",
           "LOST_TO_A_LOSS", "LOST_TO_A_DRAW", "SLOWER", "MARKS"]
