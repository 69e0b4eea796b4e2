"""Game records of other programs: the Sanmill app's PGN and PlayOK's move lists, read;
PGN written.  And the dialect's atomic actions that both (and ``muehle uci``) use.

A move of muehle's (``d6-d5xb4``) is, in the app's engine protocol, the actions
``d6-d5`` and ``xb4``; its PGN glues them again (``d6-d5xb4``), PlayOK numbers the points
1..24 row by row from a7 (``5-8x11``).  :class:`Turn` plays actions one at a time.

>>> game, notes = read_any_record('[Event "x"]\\n[Variant "Nine Men\\'s Morris"]\\n\\n 1. d6 {good} f4 (1... d2) 2. d2 *')
>>> [str(m) for m in game.moves], notes
(['d6', 'f4', 'd2'], ['1 variation skipped (the main line is read)'])
>>> [str(m) for m in read_any_record("1. 1 4 2. 2 5 3. 3x4 6")[0].moves]
['a7', 'b6', 'd7', 'd6', 'g7xb6', 'f6']
"""

from __future__ import annotations

import datetime
import re
from typing import Optional

from .errors import InvalidNotationError, NotationError
from .formats import Setup, is_malom, read_malom, read_setup
from .game import QUIET_PLY_LIMIT, Game, over_by_quiet_plies, over_by_quiet_plies_words, record_limit, record_rules
from .notation import WHITE, format_position, parse_point
from .position import Move, Position, in_mill, takeable
from .rules import STANDARD, Rules

__all__ = ["actions", "split_token", "Turn", "turn_of_setup", "read_any_record", "read_pgn", "read_playok",
           "read_goldtoken", "read_malom_history", "pgn_text",
           "PLAYOK_POINTS", "RECORD_FORMATS"]

#: PlayOK's point numbers 1..24: row by row from the top, left to right.
PLAYOK_POINTS = ("a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4",
                 "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1")
#: The record formats read (``muehle`` is :meth:`Game.from_record`'s own).
RECORD_FORMATS = ("muehle", "pgn", "playok", "goldtoken", "malom")
#: The PGN variant tag of the rule sets the app names.  The app's Twelve Men's Morris
#: (its src/rule.cpp: twelve stones, diagonal lines, flying with three, one stone a
#: mill, none from a mill unless all are, and a full board lost by the first player:
#: BoardFullAction::firstPlayerLose) is muehle's ``morabaraba``, whose full board is
#: lost by its side to move, White; muehle's ``twelve-mens`` draws it (issue 16's rule
#: books) and is written ``muehle:twelve-mens``.
VARIANT_TAGS = {"Nine Men's Morris": "standard", "Twelve Men's Morris": "morabaraba"}

_ACTION = re.compile(r"^(?:x[a-z][0-9]{1,2}|[a-z][0-9]{1,2}(?:-[a-z][0-9]{1,2})?(?:x[a-z][0-9]{1,2}){0,2})$")


def actions(move: Move) -> list[str]:
    """The dialect's actions of ``move``: ``['d6-d5', 'xb4']`` for ``d6-d5xb4``."""
    names = move.board.points
    first = names[move.target] if move.origin is None else f"{names[move.origin]}-{names[move.target]}"
    return [first] + [f"x{names[t]}" for t in move.takes]


def split_token(token: str) -> list[str]:
    """The actions a token names: an action of the dialect, or a whole move of muehle's."""
    if not _ACTION.match(token):
        raise InvalidNotationError(f"cannot read move {token[:40]!r}: an action is d6, d6-d5 or xb4")
    if token.startswith("x"):
        return [token]
    head, *takes = token.split("x")
    return [head] + [f"x{t}" for t in takes]


class Turn:
    """A game and the actions of the move under way (a mill closed, its take not yet)."""

    def __init__(self, game: Game, partial: Optional[list[str]] = None):
        self.game = game
        self.partial: list[str] = list(partial or [])

    def continues(self, move: Move) -> bool:
        """Whether ``move`` begins with the actions made so far (every move does between
        turns)."""
        return actions(move)[:len(self.partial)] == self.partial

    def candidates(self) -> list[Move]:
        """The legal moves that begin with the actions made so far."""
        return [m for m in self.game.legal_moves() if self.continues(m)]

    def act(self, action: str) -> None:
        """Make one action; NotationError where no legal move continues so."""
        prefix = self.partial + [action]
        moves = [m for m in self.game.legal_moves() if actions(m)[:len(prefix)] == prefix]
        if not moves:
            for point in re.findall(r"[a-z][0-9]+", action):
                parse_point(point, self.game.rules.board)       # (no point of the board: said so)
            over = self.game.outcome()
            if over is not None:
                raise NotationError(f"{action}: the game is over ({over})")
            raise NotationError(f"{action} is not legal here ({format_position(self.game.position)}"
                                + (f" after {' '.join(self.partial)}" if self.partial else "") + ")")
        whole = [m for m in moves if len(actions(m)) == len(prefix)]
        if whole:
            self.game.play(whole[0])
            self.partial = []
        else:
            self.partial = prefix

    def play_token(self, token: str) -> None:
        for action in split_token(token):
            self.act(action)


def pending_take_note(turn: Turn) -> list[str]:
    """A note where a record's start has a take pending (:func:`turn_of_setup`): the game
    then starts a move earlier, with a move that closes the mill, which the record did
    not hold and which any record written from it shows (an empty list otherwise)."""
    if not turn.partial:
        return []
    return [f"the start has a take pending: the game starts before a move that closes such a mill "
            f"({' '.join(turn.partial)}, one of those that could have), and its records show that move"]


def turn_of_setup(setup: Setup, rules: Rules, quiet_limit: int = QUIET_PLY_LIMIT) -> Turn:
    """The :class:`Turn` of a :class:`~solver.formats.Setup`.  A take pending (a FEN's
    action ``r``, Malom's flag) becomes the position before a move that closed one of the
    mover's mills, that move made, its take to come: the takes left are the setup's, as
    many as it says.  InvalidNotationError where none could be: nothing to take, no mill
    of the mover's, or more stones to take than a mill takes under ``rules``."""
    if not setup.take:
        pos = Position(*setup.position_fields(), board=rules.board)
        return Turn(Game(pos, rules, quiet_limit, setup.quiet_count(quiet_limit)))
    mover = "White" if setup.turn == WHITE else "Black"
    own = setup.white if setup.turn == WHITE else setup.black
    opp = setup.black if setup.turn == WHITE else setup.white
    board = rules.board
    if not takeable(opp, rules):
        raise InvalidNotationError(f"{mover} is to take a stone, but the other side has none it may take")
    in_hand = setup.placed or setup.white_hand or setup.black_hand
    for point in range(board.num_points):
        if not (own >> point & 1 and in_mill(own, point, board)):
            continue
        if in_hand:
            origins = [None]
        else:
            free = board.full_mask & ~(own | opp)
            jumping = rules.jumping and own.bit_count() == 3
            origins = [o for o in range(board.num_points)
                       if free >> o & 1 and (jumping or board.adjacent[point] >> o & 1)]
        for origin in origins:
            before_own = own & ~(1 << point) | (0 if origin is None else 1 << origin)
            hands = [setup.white_hand, setup.black_hand]
            if origin is None:
                hands[0 if setup.turn == WHITE else 1] += 1
            white, black = (before_own, opp) if setup.turn == WHITE else (opp, before_own)
            try:
                game = Game(Position(white, black, hands[0], hands[1], setup.turn, board=board), rules,
                            quiet_limit, 0)
            except ValueError:
                continue
            turn = Turn(game)
            try:
                turn.act(board.points[point] if origin is None else f"{board.points[origin]}-{board.points[point]}")
            except NotationError:
                continue
            if turn.partial and all(len(actions(m)) - 1 == setup.take for m in turn.candidates()):
                return turn
    if setup.take > 1:
        raise InvalidNotationError(f"{mover} is to take {setup.take} stones, but a mill of these rules "
                                   f"({rules.name}) takes one")
    raise InvalidNotationError(f"{mover} is to take a stone, but no mill of {mover}'s could have "
                               f"just been closed")


def _strip(text: str, first_line: int = 1) -> tuple[str, int]:
    """The movetext with its comments, variations and ``;`` remarks blanked (newlines
    kept, so that every token keeps its line and column), and the variations skipped;
    an error names the line counted from ``first_line`` (the movetext's in the record)."""
    out, depth, skipped, i = list(text), 0, 0, 0

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < len(text):
        c = text[i]
        if c == "{":
            end = text.find("}", i)
            if end < 0:
                raise InvalidNotationError(f"{_where(text, i, first_line)}: a comment is opened and not closed")
            blank(i, end + 1)
            i = end + 1
            continue
        if c == ";":                    # (in a variation too: a ')' in it closes nothing)
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            blank(i, end)
            i = end
            continue
        if c == "(":
            depth += 1
            skipped += depth == 1
        elif c == ")":
            if not depth:
                raise InvalidNotationError(f"{_where(text, i, first_line)}: a ')' closes no variation")
            depth -= 1
            blank(i, i + 1)
        if depth:
            blank(i, i + 1)
        i += 1
    if depth:
        raise InvalidNotationError("a variation '(' is not closed")
    return "".join(out), skipped


def _where(text: str, at: int, first_line: int = 1) -> str:
    """``line L column C`` of character ``at`` of ``text`` (whose first line is ``first_line``)."""
    line = first_line + text.count("\n", 0, at)
    return f"line {line} column {at - text.rfind(chr(10), 0, at)}"


# (the value unrolled, [^"\\]* then escapes: a group repeated a character at a time
# held about 165 bytes a character of a long value)
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"([^"\\]*(?:\\.[^"\\]*)*)"\s*\]\s*')


def _tags_and_movetext(text: str) -> tuple[dict[str, str], str, int]:
    """The tags, the movetext after them, and the line the movetext starts on."""
    tags: dict[str, str] = {}
    lines = text.removeprefix("\ufeff").split("\n")
    start = 0
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            at = 0                      # (several tags may share a line)
            while at < len(stripped):
                match = _TAG.match(stripped, at)
                if not match:
                    raise InvalidNotationError(f"line {number}: a tag is [Name \"value\"], not "
                                               f"{stripped[at:at + 40]!r}")
                tags[match.group(1)] = re.sub(r"\\(.)", r"\1", match.group(2))     # (PGN's \" and \\)
                at = match.end()
            start = number
        elif stripped:
            break
    return tags, "\n".join(lines[start:]), start + 1


def _tokens(movetext: str, first_line: int) -> tuple[list[tuple[str, str]], int]:
    """(word, where) of every word of the movetext outside comments and variations; a
    tag there (a second game's) refused.  The lines are counted as the words go (counted
    from the start for each word, a long record took quadratic time)."""
    plain, skipped = _strip(movetext, first_line)
    words, line, line_start, seen = [], first_line, 0, 0
    for match in re.finditer(r"\S+", plain):
        at = match.start()
        newlines = movetext.count("\n", seen, at)
        if newlines:
            line += newlines
            line_start = movetext.rfind("\n", seen, at) + 1
        seen = at
        where = f"line {line} column {at - line_start + 1}"
        if match.group().startswith("[") and _TAG.match(plain, at):
            raise InvalidNotationError(f"{where}: a tag after the moves (a second game?): a record holds "
                                       f"one game")
        words.append((match.group(), where))
    return words, skipped


def _replay(turn: Turn, tokens: list[tuple[str, str]]) -> Game:
    for token, where in tokens:
        try:
            turn.play_token(token)
        except NotationError as error:
            raise InvalidNotationError(f"{where} ({_shown(token)}): {over_by_quiet_plies(turn.game, error)}") from None
    if turn.partial:
        raise InvalidNotationError(f"the record ends after {' '.join(turn.partial)}, a mill without its take")
    return turn.game


def _shown(token: str) -> str:
    """A token as an error names it: at most 20 characters, none that a terminal acts on."""
    return "".join(c if c.isprintable() else "?" for c in token[:20])


def _start(tags: dict[str, str], rules: Optional[Rules], quiet_limit: Optional[int] = None) -> Turn:
    """The turn a record starts from: the rules of its ``Variant`` tag (the app's names,
    muehle's ``muehle:<rules>``; ``rules`` where given must agree), from its ``FEN`` tag
    (a take pending there is the first move's to make) or the start."""
    named = tags.get("Variant")
    if named is not None:
        if named not in VARIANT_TAGS and not named.startswith("muehle:"):
            raise InvalidNotationError(f"variant {_shown(named)!r}: muehle reads "
                                       f"{' and '.join(VARIANT_TAGS)}, and its own muehle:<rules>")
        rules = record_rules(VARIANT_TAGS.get(named) or named.removeprefix("muehle:"), rules)
    rules = rules or STANDARD
    # (muehle's own PGN writes no tag for 50; the Sanmill app's none for its 100)
    written = tags.get("QuietLimit", str(QUIET_PLY_LIMIT) if tags.get("Site") == "muehle" else None)
    try:
        limit = record_limit(written, quiet_limit)
    except ValueError as error:
        raise InvalidNotationError(f"tag QuietLimit: {error}") from None
    return turn_of_setup(read_setup(tags.get("FEN", "startpos"), rules.stones, rules.board), rules, limit)


def read_pgn(text: str, rules: Optional[Rules] = None,
             quiet_limit: Optional[int] = None) -> tuple[Game, list[str]]:
    """The game of a PGN record of the Sanmill app: its tags (``Variant`` names the rules;
    ``FEN`` with ``SetUp "1"`` the start), its moves (``1. d6 f4``, the takes glued or as
    tokens of their own, ``N...`` for Black first), comments and NAGs skipped,
    variations skipped with a note, the result read (:func:`_ended_as`).  Returns
    (game, notes)."""
    tags, movetext, first = _tags_and_movetext(text)
    try:
        turn = _start(tags, rules, quiet_limit)
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PGN: {error}") from None
    try:
        words, skipped = _tokens(movetext, first)
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PGN: {error}") from None
    tokens = []
    for word, where in words:
        word = re.sub(r"^[0-9]+\.(\.\.)?", "", word)             # a move number, glued or not
        word = re.sub(r"[!?]+$", "", word)                       # a move's mark
        if not word or re.fullmatch(r"\$[0-9]+", word):
            continue
        tokens.append((word.lower(), where))
    notes = [f"{skipped} variation{'s' if skipped != 1 else ''} skipped (the main line is read)"] if skipped else []
    notes += pending_take_note(turn)
    try:
        tokens, marker = _result_marker(tokens, tags)
        return _ended_as(_replay(turn, tokens), marker, notes), notes
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PGN: {error}") from None


#: PGN's text of a date, YYYY.MM.DD, ``?`` for a part not known (``2023.??.??``).
PGN_DATE = re.compile(r"[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}")

#: PGN's result markers: White won, Black won, drawn, not over.
RESULT_MARKERS = ("1-0", "0-1", "1/2-1/2", "*")


def _result_marker(tokens: list[tuple[str, str]], tags: dict[str, str]) -> tuple[list[tuple[str, str]], Optional[str]]:
    """(the moves, the result): the marker that ends the movetext, else the ``Result``
    tag's; a move after a marker refused (it ends the game's moves)."""
    for i, (token, where) in enumerate(tokens):
        if token in RESULT_MARKERS:
            if i + 1 < len(tokens):
                after, at = tokens[i + 1]
                raise InvalidNotationError(f"{at} ({_shown(after)}): a move after the result {token}, which "
                                           f"ends the moves")
            return tokens[:i], token
    marker = tags.get("Result")
    return tokens, marker if marker in RESULT_MARKERS else None


def _ended_as(game: Game, marker: Optional[str], notes: list[str]) -> Game:
    """``game`` ended as its record's result says: a win of a game that goes on is the
    loser's resignation (as muehle writes one; a loss on time reads so too); a result
    that is not the game's end under these rules (another program's: the Sanmill app
    loses Twelve Men's Morris on a full board, or plays to 100 quiet plies) is said in
    ``notes``, the game's own end standing, as is a draw of a game that goes on
    (muehle's games end by the rules' draws only)."""
    if marker in (None, "*"):
        return game
    winner = {"1-0": "w", "0-1": "b", "1/2-1/2": "draw"}[marker]
    over = game.outcome()
    if over is not None:
        if over.winner != winner:
            notes.append(f"the result {marker} is not how the game ends under rules {game.rules.name}: "
                         f"{over}, which stands" + over_by_quiet_plies_words(game))
    elif winner == "draw":
        notes.append("the result 1/2-1/2 is no end of the game under these rules: it goes on after its "
                     "last move")
    else:
        game.resign("b" if winner == "w" else "w")
    return game


def read_playok(text: str, rules: Optional[Rules] = None,
                quiet_limit: Optional[int] = None) -> tuple[Game, list[str]]:
    """The game of a PlayOK move list (``1. 5 14 2. 8-9x11``: points numbered 1..24 row
    by row from a7; ``N`` placed, ``N-M`` moved, ``xN`` or ``NxM`` taken).  Returns
    (game, notes)."""
    tags, movetext, first = _tags_and_movetext(text)
    try:
        turn = _start(tags, rules, quiet_limit)
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PlayOK: {error}") from None
    if turn.game.rules.board.num_points != 24:
        raise InvalidNotationError(f"PlayOK: its points are those of a 24-point board, not of the "
                                   f"{turn.game.rules.board.name} board")
    try:
        words, _ = _tokens(movetext, first)
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PlayOK: {error}") from None
    tokens = []
    for word, where in words:
        if re.fullmatch(r"[0-9]+\.(\.\.)?", word):
            continue
        if word in RESULT_MARKERS:
            tokens.append((word, where))
            continue
        match = re.fullmatch(r"(x?)([0-9]{1,2})(?:-([0-9]{1,2}))?(?:x([0-9]{1,2}))?", word)
        if not match:
            raise InvalidNotationError(f"PlayOK: {where}: cannot read {_shown(word)!r}: moves are N, N-M, xN or N-MxK")
        numbers = [n for n in match.groups()[1:] if n is not None]
        if any(not 1 <= int(n) <= 24 for n in numbers):
            raise InvalidNotationError(f"PlayOK: {where}: {_shown(word)!r}: points are numbered 1 to 24")
        name = lambda n: PLAYOK_POINTS[int(n) - 1]
        x, a, b, take = match.groups()
        token = ("x" if x else "") + name(a) + (f"-{name(b)}" if b else "") + (f"x{name(take)}" if take else "")
        tokens.append((token, where))
    notes = pending_take_note(turn)
    try:
        tokens, marker = _result_marker(tokens, tags)
        return _ended_as(_replay(turn, tokens), marker, notes), notes
    except InvalidNotationError as error:
        raise InvalidNotationError(f"PlayOK: {error}") from None


#: How a line of a GoldToken move list starts (its number, then a placement or a move).
_GOLDTOKEN_START = re.compile(r"\s*[0-9]+\.?\s+(Place to |[a-z][0-9]{1,2}\s*->)")


def read_goldtoken(text: str, rules: Optional[Rules] = None,
                   quiet_limit: Optional[int] = None) -> tuple[Game, list[str]]:
    """The game of a GoldToken move list (its printed game: a line a move, ``1\tPlace
    to d6``, ``3\td6 -> d7``, ``4\tf4 -> f6, take d6``; the site's header lines up to
    the first move left out).  Returns (game, notes)."""
    turn = _start({}, rules, quiet_limit)
    tokens, started = [], False
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        match = re.fullmatch(r"\s*[0-9]+\.?\s+(?:Place to\s+([a-z][0-9]{1,2})|([a-z][0-9]{1,2})\s*->\s*"
                             r"([a-z][0-9]{1,2}))(?:\s*,\s*take\s+([a-z][0-9]{1,2}))?\s*", line)
        if match is None:
            if started and line.strip():
                raise InvalidNotationError(f"GoldToken: line {number}: cannot read {_shown(line.strip())!r}: a "
                                           f"move is 'N<tab>Place to d6', 'N<tab>d6 -> d7' and ', take b4'")
            continue                # (the site's header before the first move)
        started = True
        placed, origin, target, take = match.groups()
        token = (placed or f"{origin}-{target}") + (f"x{take}" if take else "")
        tokens.append((token, f"line {number}"))
    if not started:
        raise InvalidNotationError("GoldToken: no move ('1<tab>Place to d6') in the record")
    try:
        return _replay(turn, tokens), []
    except InvalidNotationError as error:
        raise InvalidNotationError(f"GoldToken: {error}") from None


def read_malom_history(text: str, rules: Optional[Rules] = None,
                       quiet_limit: Optional[int] = None) -> tuple[Game, list[str]]:
    """The game of Malom's copied history: a line of its clipboard text a state, the
    first the start, each next one step on (a stone placed or moved, or a stone taken
    after a mill).  Returns (game, notes)."""
    rules = rules or STANDARD
    lines = [(n, line) for n, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1) if line.strip()]
    states = []
    for number, line in lines:
        try:
            states.append((number, read_malom(line, rules.stones, rules.board)))
        except InvalidNotationError as error:
            raise InvalidNotationError(f"Malom: line {number}: {error}") from None
    try:
        turn = turn_of_setup(states[0][1], rules, record_limit(None, quiet_limit))
    except ValueError as error:
        raise InvalidNotationError(f"Malom: {error}") from None
    names = rules.board.points
    tokens = []
    for (_, before), (number, after) in zip(states, states[1:]):
        own = before.white if before.turn == WHITE else before.black
        opp = before.black if before.turn == WHITE else before.white
        own_after = after.white if before.turn == WHITE else after.black
        opp_after = after.black if before.turn == WHITE else after.white
        added, left = own_after & ~own, own & ~own_after
        taken = opp & ~opp_after
        if before.take and not added and not left and taken.bit_count() == 1 and opp_after == opp & ~taken:
            action = f"x{names[taken.bit_length() - 1]}"
        elif not before.take and added.bit_count() == 1 and left.bit_count() <= 1 and opp_after == opp:
            target = names[added.bit_length() - 1]
            action = target if not left else f"{names[left.bit_length() - 1]}-{target}"
        else:
            raise InvalidNotationError(f"Malom: line {number}: the board is not one step on from the line before")
        tokens.append((action, f"line {number}"))
    notes = pending_take_note(turn)
    try:
        return _replay(turn, tokens), notes
    except InvalidNotationError as error:
        raise InvalidNotationError(f"Malom: {error}") from None


def record_format(text: str) -> str:
    """Which format a record is in: ``playok`` (PlayOK's site tag, or numbers only after
    the move numbers), ``goldtoken`` (its ``Place to`` and ``->``), ``pgn`` (tags, or move
    numbers ``1.``), else ``muehle``."""
    if '[Site "PlayOK"]' in text:
        return "playok"
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and all(is_malom(line) for line in lines):
        return "malom"
    # (a line at a time: \s at a line's start ran over every blank line after it, from
    # each line, so a record of blank lines took quadratic time; \s within a line, as
    # read_goldtoken reads it: a web page's no-break spaces)
    # (a record that opens with a PGN tag is PGN or PlayOK's, whatever its comments say)
    first = next((line.strip() for line in text.removeprefix("\ufeff").splitlines() if line.strip()), "")
    if not _TAG.match(first) and any(_GOLDTOKEN_START.match(line) for line in text.splitlines()):
        return "goldtoken"
    tags, movetext, _ = _tags_and_movetext(text) if text.lstrip().startswith("[") else ({}, text, 1)
    # (a comment not closed runs to the end: looked for its end from each "{", a text of
    # "{" took quadratic time; the reader says it is not closed)
    plain = re.sub(r";[^\n]*", " ", re.sub(r"\{[^}]*(?:\}|\Z)", " ", movetext))
    if re.search(r"(^|\s)1\.", plain) and not re.search(r"[a-gA-G]", plain):
        return "playok"
    if tags or re.search(r"(^|\s)1\.", plain):
        return "pgn"
    return "muehle"


def read_any_record(text: str, rules: Optional[Rules] = None,
                    default: Rules = STANDARD, quiet_limit: Optional[int] = None) -> tuple[Game, list[str]]:
    """The game of a record in any format muehle reads (:data:`RECORD_FORMATS`), and
    notes on what was left out; InvalidNotationError says what is wrong, and where.
    ``quiet_limit``: the plies without a mill that draw the game where the record names
    none (else 50; one it names must agree: :func:`~solver.game.record_limit`)."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"a game record is a string, not {type(text).__name__}")
    kind = record_format(text)
    # (a Variant tag names the rules where no rules are given: the default gives way)
    given = rules if rules is not None else None if "[Variant" in text else default
    if kind == "playok":
        return read_playok(text, given, quiet_limit)
    if kind == "goldtoken":
        return read_goldtoken(text, given, quiet_limit)
    if kind == "malom":
        return read_malom_history(text, given, quiet_limit)
    if kind == "pgn":
        return read_pgn(text, given, quiet_limit)
    return Game.from_record(text, rules, default=default, quiet_limit=quiet_limit), []


def record_tags(text: str) -> dict[str, str]:
    """The tags of a PGN or PlayOK record (``{}`` for a record of another format, or one
    whose tags cannot be read: its reader says why): what a record written from it
    keeps of the players, the event and the date.

    >>> record_tags('[White "Ann"]\\n[Black "Bo"]\\n1. d6 f4')["White"]
    'Ann'
    """
    if record_format(text) not in ("pgn", "playok"):
        return {}
    try:
        return _tags_and_movetext(text)[0]
    except InvalidNotationError:
        return {}


def _tag_value(value: str) -> str:
    """``value`` as a PGN tag's string: ``\\`` and ``"`` escaped, line breaks and other
    control characters made spaces (a tag is one line)."""
    if not isinstance(value, str):
        raise TypeError(f"a PGN tag's value is a string, not {type(value).__name__}")
    value = "".join(" " if ord(c) < 32 or c == "\x7f" else c for c in value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def pgn_text(game: Game, white: str = "?", black: str = "?", event: str = "muehle game",
             date: Optional[datetime.date | str] = None, round: str = "1") -> str:
    """The PGN of ``game`` as the Sanmill app writes it: its tags (``Variant``: the app's
    name of the rules, else ``muehle:<rules>``, ``FEN`` and ``SetUp`` where the game does not start from the
    start, ``PlyCount`` counting the takes as the app does; muehle's own ``QuietLimit``
    where the game is drawn after other than 50 plies without a mill), the moves two a
    line with the takes glued, the result marker.  A tag's ``"`` and ``\\`` are escaped
    as PGN escapes them, its line breaks made spaces, so that the record reads back.
    ``date``: a ``datetime.date`` (default today) or PGN's own text of one, ``?`` where a
    part is not known (``2023.??.??``, as a record read gives it).  InvalidNotationError
    where the game starts elsewhere than at the start on a board a FEN cannot name (FEN
    names the 24 points of the standard board)."""
    date = date or datetime.date.today()
    if isinstance(date, str):
        if not PGN_DATE.fullmatch(date):
            raise ValueError(f"date: PGN writes a date YYYY.MM.DD ('?' for a part not known), not {date[:20]!r}")
        dated = date
    elif isinstance(date, datetime.date):
        dated = f"{date.year:04d}.{date.month:02d}.{date.day:02d}"
    else:
        raise TypeError(f"date: a datetime.date or PGN's text of one, not {type(date).__name__}")
    result = game.outcome()
    marker = "*" if result is None else "1/2-1/2" if result.winner == "draw" else \
        "1-0" if result.winner == "w" else "0-1"
    tags = [("Event", event), ("Site", "muehle"), ("Date", dated),
            ("Round", round), ("White", white), ("Black", black), ("Result", marker)]
    tags.append(("Variant", {v: k for k, v in VARIANT_TAGS.items()}.get(game.rules.name)
                  or f"muehle:{game.rules.name}"))
    if game.quiet_limit != QUIET_PLY_LIMIT:
        tags.append(("QuietLimit", str(game.quiet_limit)))
    start = Position(*read_setup("startpos", game.rules.stones, game.rules.board).position_fields(),
                     board=game.rules.board)
    if game.start != start:
        from .formats import Setup, fen_text
        s = game.start
        try:
            fen = fen_text(Setup(s.white, s.black, s.white_hand, s.black_hand, s.turn,
                                 quiet_plies=game.quiet_counts[0]), game.rules.board)
        except InvalidNotationError as error:
            raise InvalidNotationError(f"PGN: the game starts elsewhere than at the start, and {error}") from None
        tags += [("FEN", fen), ("SetUp", "1")]
    tags.append(("PlyCount", str(sum(len(actions(m)) for m in game.moves))))
    lines = [f'[{name} "{_tag_value(value)}"]' for name, value in tags] + [""]
    moves = [str(m) for m in game.moves]
    number, i, row = 1, 0, []
    if game.start.turn == "b" and moves:
        row.append(f"{number:>2}... {moves[0]}")
        lines.append(" ".join(row))
        number, i, row = 2, 1, []
    while i < len(moves):
        lines.append(f"{number:>2}. " + " ".join(moves[i:i + 2]))
        number, i = number + 1, i + 2
    lines[-1] += f" {marker}" if moves else marker
    return "\n".join(lines) + "\n"
