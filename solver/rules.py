"""Rule options as data.  Every database file records the ``Rules`` it was built with.

>>> Rules()
Rules(stones=9, jumping=True, mill_rule='take-any')
>>> Rules().name, Rules(jumping=False).name, Rules(stones=6, mill_rule="take-none").name
('standard', 'no-jumping', 'take-none-s6')
>>> Rules.from_name("no-jumping-take-none-s5")
Rules(stones=5, jumping=False, mill_rule='take-none')
"""

from __future__ import annotations

from dataclasses import dataclass

TAKE_ANY = "take-any"
TAKE_NONE = "take-none"
MILL_RULES = (TAKE_ANY, TAKE_NONE)

#: The named rule sets the command line offers with ``--rules``.
RULESET_NAMES = ("standard", "no-jumping", "take-none")


@dataclass(frozen=True)
class Rules:
    """The rules of one game variant.

    ``stones``: stones per side (9 in the standard game; 3..9 for smaller games).
    ``jumping``: a player with exactly three stones may jump to any free point.
    ``mill_rule``: what a closed mill takes when every enemy stone stands in a mill:
    ``'take-any'`` (tournament rule: take any of them) or ``'take-none'`` (take nothing).
    """

    stones: int = 9
    jumping: bool = True
    mill_rule: str = TAKE_ANY

    def __post_init__(self) -> None:
        if not 3 <= self.stones <= 9:
            raise ValueError(f"stones per side must be 3..9, not {self.stones}")
        if self.mill_rule not in MILL_RULES:
            raise ValueError(f"mill rule must be one of {', '.join(MILL_RULES)}, not {self.mill_rule!r}")

    @property
    def take_none(self) -> bool:
        return self.mill_rule == TAKE_NONE

    @property
    def name(self) -> str:
        """A short name, also the folder of this rule set's databases."""
        parts = []
        if not self.jumping:
            parts.append("no-jumping")
        if self.take_none:
            parts.append("take-none")
        base = "-".join(parts) or "standard"
        return base if self.stones == 9 else f"{base}-s{self.stones}"

    @classmethod
    def from_name(cls, name: str) -> "Rules":
        """Inverse of :attr:`name`; ValueError for a name it does not know."""
        rest, stones = name, 9
        head, sep, tail = name.rpartition("-s")
        if sep and tail.isascii() and tail.isdigit() and len(tail) <= 2:
            rest, stones = head, int(tail)
        flags = {"standard": (True, TAKE_ANY), "no-jumping": (False, TAKE_ANY),
                 "take-none": (True, TAKE_NONE), "no-jumping-take-none": (False, TAKE_NONE)}
        if rest not in flags:
            raise ValueError(f"unknown rule set {name[:40]!r} (try: {', '.join(RULESET_NAMES)})")
        jumping, mill_rule = flags[rest]
        return cls(stones=stones, jumping=jumping, mill_rule=mill_rule)

    def as_attrs(self) -> dict:
        """The rules as plain values, for file metadata and JSON."""
        return {"name": self.name, "stones": self.stones, "jumping": self.jumping,
                "mill_rule": self.mill_rule}


STANDARD = Rules()
