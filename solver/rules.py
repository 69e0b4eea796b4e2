"""Rule options as data.  Every database file records the ``Rules`` it was built with.

A :class:`Rules` value is the board and every option of play; the named variants of
the rule books (:data:`VARIANTS`) are values of it, and every rule set has one name,
also its database folder (docs/design.md §9).

>>> Rules()
Rules(stones=9, jumping=True, mill_rule='take-any')
>>> Rules().name, Rules(jumping=False).name, Rules(stones=6, mill_rule="take-none").name
('standard', 'no-jumping', 'take-none-s6')
>>> Rules.from_name("no-jumping-take-none-s5")
Rules(stones=5, jumping=False, mill_rule='take-none')
>>> Rules.from_name("lasker")
Rules(stones=10, jumping=True, mill_rule='take-any', placement='mixed')
>>> Rules.from_name("morabaraba").board.name, Rules.from_name("twelve-mens").full_board
('morabaraba', 'draw')
>>> Rules(board="six-mens", stones=6, jumping=True).name
'six-mens-jumping'
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import IntFlag
from functools import cached_property
from numbers import Integral
from typing import Optional

from .board import BOARDS, STANDARD_BOARD, Board, as_board
from .errors import UnsupportedRulesError

TAKE_ANY = "take-any"
TAKE_NONE = "take-none"
MILL_RULES = (TAKE_ANY, TAKE_NONE)
SEPARATE = "separate"
MIXED = "mixed"
PLACEMENTS = (SEPARATE, MIXED)
FULL_LOSS = "loss"
FULL_DRAW = "draw"
FULL_BOARD_RULES = (FULL_LOSS, FULL_DRAW)
MAX_STONES = 12


class RuleFlag(IntFlag):
    """The rule options the compiled kernels read at run time, one bit each, as
    :attr:`Rules.flags` combines them (ext/rules.pxi has the same bits).  The board's
    own facts (its size, whether a line of three wins) are compiled into its kernels
    instead (:data:`LINE_BOARDS`).

    >>> Rules().flags
    <RuleFlag.JUMPING: 1>
    >>> Rules.from_name("lasker").flags == RuleFlag.JUMPING | RuleFlag.MIXED
    True
    """

    JUMPING = 1
    TAKE_NONE = 2
    MIXED = 4
    FULL_DRAW = 8
    TAKE_FROM_MILLS = 16
    #: not a rule of play, and never in :attr:`Rules.flags`: the solve of the quiet-ply
    #: rule's tables (:mod:`solver.dtz`) sets it where a mill may take nothing (take-none),
    #: so that such a mill, which resets the count, is an end of its pair and not a quiet move
    MILL_ENDS = 32

    @classmethod
    def of(cls, jumping: bool = False, take_none: bool = False, mixed: bool = False,
           full_draw: bool = False, take_from_mills: bool = False) -> "RuleFlag":
        """The flags of the options given.

        >>> RuleFlag.of(jumping=True, take_none=True)
        <RuleFlag.JUMPING|TAKE_NONE: 3>
        """
        flags = cls(0)
        for flag, on in ((cls.JUMPING, jumping), (cls.TAKE_NONE, take_none), (cls.MIXED, mixed),
                         (cls.FULL_DRAW, full_draw), (cls.TAKE_FROM_MILLS, take_from_mills)):
            if on:
                flags |= flag
        return flags


@dataclass(frozen=True)
class Rules:
    """The rules of one game variant.

    ``board``: a :class:`~solver.board.Board` or its name (``'standard'``).
    ``stones``: stones per side (9 in the standard game; 3..12).
    ``jumping``: a player with three stones (board plus hand) may jump to any free point.
    ``mill_rule``: what a closed mill takes when every enemy stone stands in a mill:
    ``'take-any'`` (tournament rule: take any of them) or ``'take-none'`` (take nothing).
    ``placement``: ``'separate'`` (all stones are placed before any moves) or
    ``'mixed'`` (a player with stones in hand may place one or move one: Lasker).
    ``two_mill_takes``: stones a move that closes two mills at once takes (1 or 2).
    ``line_wins``: closing a line of three wins the game outright and takes nothing
    (Three Men's Morris).
    ``full_board``: a side to move blocked because the board is full has lost
    (``'loss'``, as any blocked side) or the game is drawn (``'draw'``, Twelve Men's).
    ``take_from_mills``: a closed mill may take any enemy stone, one in a mill too, where
    stones of a mill are otherwise protected (the Sanmill app's "may remove from mills
    always"); with take-none it is refused, as nothing is then ever protected, and where
    a line wins, as a line takes nothing.
    """

    stones: int = 9
    jumping: bool = True
    mill_rule: str = TAKE_ANY
    board: Board = STANDARD_BOARD
    placement: str = SEPARATE
    two_mill_takes: int = 1
    line_wins: bool = False
    full_board: str = FULL_LOSS
    take_from_mills: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", as_board(self.board))
        for name in ("stones", "two_mill_takes"):      # numpy integers too, not bools
            value = getattr(self, name)
            if isinstance(value, Integral) and not isinstance(value, bool):
                object.__setattr__(self, name, int(value))
        if not (type(self.stones) is int and 3 <= self.stones <= MAX_STONES):
            raise ValueError(f"stones per side must be 3..{MAX_STONES}, not {self.stones!r}")
        if 2 * self.stones > self.board.num_points:
            # (the rule books of a board: its variant, as Rules.from_name gives it)
            books = [(name, v.stones) for name, v in VARIANTS.items() if v.board == self.board]
            hint = f"; its rule book, {books[0][0]}, has {books[0][1]}" if books else ""
            raise ValueError(f"{self.stones} stones per side do not fit on the {self.board.name} "
                             f"board ({self.board.num_points} points: at most "
                             f"{self.board.num_points // 2} a side{hint})")
        # The board whose compiled index holds the stones (the standard board's module of
        # twelve for more than nine: Board.indexing); equal to the board named, so files,
        # names and comparisons do not see it.
        object.__setattr__(self, "board", self.board.indexing(self.stones))
        for flag in ("jumping", "line_wins", "take_from_mills"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} is True or False, not {getattr(self, flag)!r}")
        if self.mill_rule not in MILL_RULES:
            raise ValueError(f"mill rule must be one of {', '.join(MILL_RULES)}, not {self.mill_rule!r}")
        if self.placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, not {self.placement!r}")
        if type(self.two_mill_takes) is not int or self.two_mill_takes not in (1, 2):
            raise ValueError(f"a move closing two mills takes 1 or 2 stones, not {self.two_mill_takes}")
        if self.full_board not in FULL_BOARD_RULES:
            raise ValueError(f"a full board is one of {', '.join(FULL_BOARD_RULES)}, "
                             f"not {self.full_board!r}")
        if self.take_from_mills and self.mill_rule == TAKE_NONE:
            raise ValueError("the mill rule take-none is about stones protected in mills; "
                             "with take_from_mills none are")
        if self.take_from_mills and self.line_wins:
            raise ValueError("where a line of three wins it takes nothing: take_from_mills has "
                             "nothing to say")

    def __repr__(self) -> str:
        # The first three always (the options of every rule set's name), the rest where
        # not the default.
        words = [f"stones={self.stones}", f"jumping={self.jumping}", f"mill_rule={self.mill_rule!r}"]
        for f in fields(self)[3:]:
            value = getattr(self, f.name)
            if value != f.default:
                words.append(f"{f.name}={value.name if f.name == 'board' else value!r}")
        return f"Rules({', '.join(words)})"

    @property
    def take_none(self) -> bool:
        """Whether a mill takes nothing when every enemy stone stands in a mill."""
        return self.mill_rule == TAKE_NONE

    @property
    def full_draw(self) -> bool:
        """Whether a side to move blocked on a full board draws (Twelve Men's) rather
        than loses; only a board of twice the stones a side can fill."""
        return self.full_board == FULL_DRAW

    @property
    def mixed(self) -> bool:
        """Whether a player with stones in hand may also move (Lasker)."""
        return self.placement == MIXED

    @cached_property
    def flags(self) -> RuleFlag:
        """The options as the kernels take them: one value of :class:`RuleFlag` (every
        kernel entry point takes it in place of a boolean per option).  Kept once made:
        the search players and the probe pass it with every call of the move generator."""
        return RuleFlag.of(self.jumping, self.take_none, self.mixed, self.full_draw, self.take_from_mills)

    @property
    def is_classic(self) -> bool:
        """Whether only the options of the first rule sets differ from the standard
        game (stones, jumping, mill rule): the rule sets whose names, folders and file
        attributes carry those three options alone."""
        return all(getattr(self, f.name) == f.default for f in fields(self)[3:])

    @property
    def name(self) -> str:
        """The one name of these rules, also the folder of their databases: a variant's
        name (:data:`VARIANTS`), then what differs from it, then ``-s<N>`` for another
        number of stones (``take-none-s6``, ``six-mens-jumping``)."""
        # The variant it differs least from (a different stone count counts one), the
        # first in VARIANTS among equals.
        best: Optional[tuple[int, str, list[str]]] = None
        for variant, base in VARIANTS.items():
            if base.board != self.board:
                continue
            words = _differences(base, self)
            cost = len(words) + (base.stones != self.stones)
            if best is None or cost < best[0]:
                best = (cost, variant, words)
        assert best is not None            # every board has a variant
        _, variant, words = best
        stones = VARIANTS[variant].stones
        return "-".join([variant] + words) + ("" if self.stones == stones else f"-s{self.stones}")

    @classmethod
    def from_name(cls, name: str) -> "Rules":
        """Inverse of :attr:`name`; ValueError for a name it does not know."""
        if not isinstance(name, str):
            raise ValueError("a rule set name is a string")
        rest, stones = name, None
        head, sep, tail = name.rpartition("-s")
        if sep and tail.isascii() and tail.isdigit() and len(tail) <= 2:
            rest, stones = head, int(tail)
        for variant in sorted(VARIANTS, key=len, reverse=True):
            if rest == variant or rest.startswith(variant + "-"):
                changes = _read_changes(rest[len(variant) + 1:])
                if changes is not None:
                    break
        else:
            raise ValueError(f"unknown rule set {name[:40]!r} (try: {', '.join(RULESET_NAMES)})")
        rules = replace(VARIANTS[variant], **changes)
        if stones is not None:
            rules = replace(rules, stones=stones)
        if rules.name != name:
            raise ValueError(f"rule set {name[:40]!r} is called {rules.name!r}")
        return rules

    def options(self) -> dict:
        """Every option but the board, by name, in the order of the fields (a new
        option appears here, and so in the file metadata and the JSON, by being a field).

        >>> Rules().options()
        {'stones': 9, 'jumping': True, 'mill_rule': 'take-any', 'placement': 'separate', 'two_mill_takes': 1, 'line_wins': False, 'full_board': 'loss', 'take_from_mills': False}
        """
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "board"}

    def as_attrs(self) -> dict:
        """The rules as plain values, for file metadata and JSON.  The options beyond
        stones, jumping and the mill rule appear only where some of them differ from
        the standard game, so the standard rule sets' attributes stay as they were."""
        options = self.options()
        attrs = {"name": self.name}
        attrs.update((name, options.pop(name)) for name in ("stones", "jumping", "mill_rule"))
        if not self.is_classic:
            attrs.update(board=self.board.name, **options)
        return attrs

    @property
    def moving_orbits(self) -> int:
        """Positions of the moving phase (nothing in hand, at least three stones a side)
        up to the board's symmetries (:meth:`Board.orbits`): what the moving-phase
        databases hold, up to slack.

        >>> STANDARD.moving_orbits
        8904593601
        """
        return sum(self.board.orbits(m, o) for m in range(3, self.stones + 1)
                   for o in range(3, self.stones + 1))

    def describe(self) -> str:
        """The rules in words, one line.

        >>> Rules.from_name("three-mens").describe()
        'three-mens board, 3 stones, slide only, a line of three wins'
        """
        words = [f"{self.board.name} board", f"{self.stones} stones",
                 ("jump with three (board plus hand)" if self.mixed else "jump with three")
                 if self.jumping else "slide only"]
        if self.mixed:
            words.append("place or move while stones are in hand")
        if self.line_wins:
            words.append("a line of three wins")
        else:
            words.append("mill takes any stone, one in a mill too" if self.take_from_mills
                         else "mill takes any stone when all stand in mills" if not self.take_none
                         else "mill takes nothing when all stand in mills")
            if self.two_mill_takes == 2:
                words.append("two mills at once take two")
        if 2 * self.stones == self.board.num_points:
            words.append(f"full board: {'draw' if self.full_board == FULL_DRAW else 'blocked side loses'}")
        return ", ".join(words)


# What a name says about an option that differs from its variant: (field, value, word).
_CHANGE_WORDS = (
    ("jumping", False, "no-jumping"), ("jumping", True, "jumping"),
    ("mill_rule", TAKE_NONE, "take-none"), ("mill_rule", TAKE_ANY, "take-any"),
    ("placement", MIXED, "mixed"), ("placement", SEPARATE, "separate"),
    ("two_mill_takes", 2, "two-takes-two"), ("two_mill_takes", 1, "two-takes-one"),
    ("line_wins", True, "line-wins"), ("line_wins", False, "no-line-wins"),
    ("full_board", FULL_DRAW, "full-draw"), ("full_board", FULL_LOSS, "full-loss"),
    ("take_from_mills", True, "take-from-mills"), ("take_from_mills", False, "mills-protect"),
)


def _differences(base: "Rules", rules: "Rules") -> list[str]:
    """The words that turn ``base`` into ``rules`` (stones aside), in name order."""
    words = []
    for key, value, word in _CHANGE_WORDS:
        if getattr(rules, key) == value != getattr(base, key):
            words.append(word)
    return words


def _read_changes(text: str) -> Optional[dict]:
    """The options a name's words after its variant set; None if a word is unknown."""
    changes: dict = {}
    rest = text
    # In any order, so that words out of their order get "is called <the name>" from
    # from_name rather than "unknown rule set".
    while rest:
        for key, value, word in _CHANGE_WORDS:
            if rest == word or rest.startswith(word + "-"):
                if key in changes:
                    return None
                changes[key] = value
                rest = rest[len(word) + 1:]
                break
        else:
            return None
    return changes


#: The named variants of the rule books, with their defaults; ``--rules NAME`` picks one.
#: The first three are the rule sets whose databases exist since the first version.
VARIANTS: dict[str, Rules] = {
    "standard": Rules(),
    "no-jumping": Rules(jumping=False),
    "take-none": Rules(mill_rule=TAKE_NONE),
    "lasker": Rules(stones=10, placement=MIXED),
    "mixed": Rules(placement=MIXED),
    "morabaraba": Rules(board="morabaraba", stones=12),
    "twelve-mens": Rules(board="morabaraba", stones=12, full_board=FULL_DRAW),
    "six-mens": Rules(board="six-mens", stones=6, jumping=False),
    "five-mens": Rules(board="six-mens", stones=5, jumping=False),
    "seven-mens": Rules(board="seven-mens", stones=7, jumping=False),
    "seven-mens-lines": Rules(board="seven-mens-lines", stones=7, jumping=False),
    "three-mens": Rules(board="three-mens", stones=3, jumping=False, line_wins=True),
}

#: The boards whose compiled kernels (one module per board: solver.kernels) are proven
#: on their games here, with the most stones a side their index covers: every board
#: (setup.py compiles each), :attr:`Board.kernel_stones <solver.board.Board.kernel_stones>`.
KERNEL_BOARDS = {board.name: board.kernel_stones for board in BOARDS.values()}

#: The boards whose kernels play a line of three as winning outright and taking nothing
#: (:attr:`Board.lines_win <solver.board.Board.lines_win>`, compiled into their modules by
#: setup.py: Three Men's Morris); on the others a closed mill takes a stone (docs/design.md §9).
LINE_BOARDS = frozenset(board.name for board in BOARDS.values() if board.lines_win)


def kernel_gap(rules: Rules) -> Optional[str]:
    """None where the compiled kernels (ext/) solve and probe ``rules``, else why not, in
    one line: today they know the boards of :data:`KERNEL_BOARDS` up to their stone
    limit (every stone count the rules allow on them: Lasker's ten on the standard board
    with its module of twelve), with the options jumping, mill rule, mixed placement, the
    full-board rule, taking from mills and, on the boards of :data:`LINE_BOARDS` and only there, a line of
    three winning (docs/design.md §9).

    >>> kernel_gap(STANDARD) is None, kernel_gap(VARIANTS["three-mens"]) is None
    (True, True)
    >>> kernel_gap(VARIANTS["lasker"]) is None
    True
    >>> kernel_gap(Rules.from_name("three-mens-no-line-wins"))
    "rules 'three-mens-no-line-wins': a line of three taking a stone on the three-mens board is not supported by the compiled kernels yet"
    """
    what = None
    most = KERNEL_BOARDS.get(rules.board.name)
    if most is None:
        what = "the board is"
    elif rules.stones > most:
        what = f"more than {most} stones a side on the board are"
    elif rules.two_mill_takes != 1:
        what = "a move taking two stones is"
    elif rules.line_wins and rules.board.name not in LINE_BOARDS:
        what = "a line of three winning outright is"
    elif not rules.line_wins and rules.board.name in LINE_BOARDS:
        what = f"a line of three taking a stone on the {rules.board.name} board is"
    if what is None:
        return None
    return f"rules {rules.name!r}: {what} not supported by the compiled kernels yet"


def require_kernels(rules: Rules) -> None:
    """UnsupportedRulesError (see :func:`kernel_gap`) unless the kernels handle ``rules``;
    every entry point that solves, checks or probes calls it first, so that no command
    gives a wrong answer for rules the kernels do not know."""
    gap = kernel_gap(rules)
    if gap is not None:
        raise UnsupportedRulesError(gap)


def as_rules(rules: "Rules | str") -> Rules:
    """``rules`` itself, or the rule set of that name (:meth:`Rules.from_name`), as the
    entry points take either (a database, a game); TypeError for anything else.

    >>> as_rules("no-jumping").jumping, as_rules(STANDARD) is STANDARD
    (False, True)
    """
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.from_name(rules)
    raise TypeError(f"rules are a Rules or a rule set's name, not {type(rules).__name__}")


#: The named rule sets the command line offers with ``--rules``.
RULESET_NAMES = tuple(VARIANTS)

STANDARD = VARIANTS["standard"]
