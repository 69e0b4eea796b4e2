"""One rule set's folder of databases, as every part reads it: which files are built,
which that built ones need are missing, which no build writes, and which are damaged.

``build`` (what a rerun must do), ``stats`` and ``check`` (what they read, and what they
must say is wrong) and the browser's rules menu (what is built, and the command that
builds the rest) ask the same :class:`DatabaseFolder`.

>>> import tempfile
>>> from solver.rules import Rules
>>> with tempfile.TemporaryDirectory() as root:
...     folder = DatabaseFolder(root, Rules(stones=3))
...     folder.built(), [str(p) for p in folder.unbuilt(phase="moving")], folder.stray()
([], ['3-3'], [])
"""

from __future__ import annotations

import re
from pathlib import Path

from . import placement, storage
from .build import plan, plan_units
from .ceylonese import CeylonRule
from .dice import DiceRule
from .errors import DatabaseError, MissingSubspaceError, Remedy
from .index import Pair, Subspace
from .rules import Rules

#: What a file holds: a moving-phase pair, or a placement subspace.
Key = Pair | Subspace


class DatabaseFolder:
    """The files of ``rules`` under ``root`` (``<root>/<rules name>/``); every answer is
    read from the folder when asked (a build may be adding files).  With
    ``quiet_limit``: the files of the tables of that quiet-ply rule (:mod:`solver.dtz`),
    one a plain file, instead of the plain ones."""

    def __init__(self, root: Path | str, rules: Rules, quiet_limit: int | None = None):
        self.root, self.rules, self.quiet_limit = Path(root), rules, quiet_limit
        self.path = storage.rules_dir(root, rules)

    def file_of(self, key: Key) -> Path:
        """The file that holds ``key`` (a pair, a moving subspace: its pair's; a placement
        subspace), plain or of the rule."""
        if self.quiet_limit is None:
            return storage.file_of(self.root, self.rules, key)
        return storage.rule_path(self.root, self.rules, key, self.quiet_limit)

    def __repr__(self) -> str:
        return f"DatabaseFolder({str(self.root)!r}, {self.rules.name!r})"

    def planned(self, max_total: int | None = None, phase: str = "all") -> list[tuple[Path, Key]]:
        """(path, what it holds) of every file a build of at most ``max_total`` stones
        writes (``phase``: moving, placement or all): pairs, then placement subspaces."""
        files: list[tuple[Path, Key]] = []
        if phase in ("moving", "all"):
            files += [(self.file_of(p), p) for p in plan(self.rules, max_total)]
        if phase in ("placement", "all"):
            files += [(self.file_of(s), s) for s in placement.plan(self.rules, max_total)]
        return files

    def built(self, max_total: int | None = None, phase: str = "all") -> list[tuple[Path, Key]]:
        """The :meth:`planned` files that are there."""
        return [(path, key) for path, key in self.planned(max_total, phase) if path.exists()]

    def unbuilt(self, max_total: int | None = None, phase: str = "all") -> list[Key]:
        """What the :meth:`planned` files that are not there hold: what a build adds."""
        return [key for path, key in self.planned(max_total, phase) if not path.exists()]

    def missing(self, max_total: int | None = None, phase: str = "all") -> dict[Path, Key]:
        """Files that built ones (of ``phase``, at most ``max_total`` stones) read and that
        are not there (their captures' pairs, a placement subspace's children), with
        what each holds: deleted from a built folder.  A folder built only part of the
        way (``--max-total``, ``--pair``) misses none."""
        have = {path for path, _ in self.built(max_total)}
        missing: dict[Path, Key] = {}
        for _, key in self.built(max_total, phase):
            reads = key.dependencies if isinstance(key, Pair) else placement.reads(key, self.rules)
            needs = [(self.file_of(x), x) for x in reads]
            missing.update((path, what) for path, what in needs if path not in have)
        return missing

    def missing_error(self, missing: dict[Path, Key]) -> MissingSubspaceError:
        """The error that names :meth:`missing`'s files, with the build that makes them
        again (its ``remedy``)."""
        path, key = next(iter(missing.items()))
        remedy = (Remedy(self.root, self.rules, " (rebuild them with: {})", needed=tuple(missing.values()))
                  if self.quiet_limit is None else
                  Remedy(self.root, self.rules, " (rebuild them with: {})", phase="rule", quiet_limit=self.quiet_limit))
        return MissingSubspaceError(key, path, f"{len(missing)} database file(s) missing that built ones need: "
                                               f"{', '.join(p.name for p in missing)} in {self.path}", remedy)

    def damaged(self, max_total: int | None = None, phase: str = "all") -> list[tuple[Key, DatabaseError]]:
        """The built files whose header fails the checks every read makes (a damaged
        file, one of other rules, one that holds another pair than its name says),
        each with its error; the values themselves are ``check``'s to verify."""
        out = []
        for path, key in self.built(max_total, phase):
            try:
                storage.file_attrs(path, self.rules, key)
            except DatabaseError as error:
                out.append((key, error))
        return out

    def stray(self) -> list[Path]:
        """The ``.h5`` files in the folder that no build of these rules writes (a pair of
        more stones than the rules have, a file copied in from elsewhere): ``check``
        names them rather than pass over them in silence."""
        if not self.path.is_dir():
            return []
        ours = set()
        for unit in plan_units(self.rules, phase="all"):
            ours |= {f"{name}.h5" for name in unit.outputs}     # (a cycle's: a file a subspace)

        def written(name: str) -> bool:
            # a file's tables of the quiet-ply rule (solver.dtz), of any limit
            rule = re.fullmatch(r"dtz[1-9][0-9]*-((pair|place)-.+\.h5)", name)
            return (name in ours or (rule is not None and rule[1] in ours) or dice_rule_of(name) is not None
                    or ceylon_rule_of(name) is not None)

        return sorted(path for path in self.path.glob("*.h5") if not written(path.name))

    def dice_rules(self) -> list[DiceRule]:
        """The dice rules of which dice mill's tables (:mod:`solver.dice_tables`) have
        files in the folder."""
        return self._rules_named("dice-*.h5", dice_rule_of)

    def ceylon_rules(self) -> list[CeylonRule]:
        """The Ceylonese rules of which Ceylonese mill's tables
        (:mod:`solver.ceylonese_tables`) have files in the folder."""
        return self._rules_named("ceylonese*.h5", ceylon_rule_of)

    def _rules_named(self, pattern: str, rule_of) -> list:
        """The rules that ``rule_of`` reads from the names of the folder's files of
        ``pattern``, by name."""
        if not self.path.is_dir():
            return []
        found = {rule_of(path.name) for path in self.path.glob(pattern)}
        return sorted((r for r in found if r is not None), key=lambda r: r.name)


def ceylon_rule_of(name: str) -> CeylonRule | None:
    """The Ceylonese rule of a file name of Ceylonese mill's tables
    (``<rule>-pair-m-o.h5``, ``<rule>-place-m-o+h-k.h5``:
    :func:`solver.ceylonese_tables.table_path`), else None.

    >>> ceylon_rule_of("ceylonese-open4-place-2-3+1-0.h5"), ceylon_rule_of("ceylonese-x-pair-3-3.h5")
    (CeylonRule(open_points=4, extra_move=True), None)
    """
    return _rule_named(r"(ceylonese.*)-(pair-[0-9]+-[0-9]+|place-[0-9]+-[0-9]+\+[0-9]+-[0-9]+)\.h5", name,
                       CeylonRule.from_name)


def dice_rule_of(name: str) -> DiceRule | None:
    """The dice rule of a file name of dice mill's tables of a placement subspace
    (``dice-<rule>-place-m-o+h-k.h5``: :func:`solver.dice_tables.dice_path`), else None.

    >>> dice_rule_of("dice-sum14-no-take-place-2-3+1-0.h5"), dice_rule_of("dice-x-place-1-1+1-1.h5")
    (DiceRule(throw='sum14', replace_takes=False), None)
    """
    return _rule_named(r"dice-(.+)-place-[0-9]+-[0-9]+\+[0-9]+-[0-9]+\.h5", name, DiceRule.from_name)


def _rule_named(pattern: str, name: str, from_name):
    """The rule ``from_name`` reads from the first group of ``pattern`` in a file's
    ``name``, or None where the name does not match or names no rule."""
    match = re.fullmatch(pattern, name)
    if match is None:
        return None
    try:
        return from_name(match[1])
    except ValueError:
        return None
