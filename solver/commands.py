"""The commands that build the databases again, as an interface says them: where a
:class:`~solver.errors.DatabaseError` carries a :class:`~solver.errors.Remedy` (what
to build), the command line and the browser show it as the ``muehle`` command that
builds it (:func:`explained`).  The layers below the interfaces write no command lines:
they say what is missing or damaged and what would build it, as data.

>>> from solver.errors import MissingSubspaceError, Remedy
>>> error = MissingSubspaceError("4-5", "db/standard/pair-4-5.h5", "subspace 4-5 is not built",
...                              Remedy("db", Rules(), needed=(Subspace(4, 5),)))
>>> explained(error)
'subspace 4-5 is not built (build it with: muehle build --db db --pair 4-5)'
"""

from __future__ import annotations

import shlex
from pathlib import Path

from .errors import REBUILD_IT, DatabaseError, Remedy, with_remedy
from .game import QUIET_PLY_LIMIT
from .index import Pair, Subspace
from .notation import STANDARD_STONES
from .rules import Rules
from .storage import pair_path, rule_set_folders


def rule_words(rules: Rules) -> list[str]:
    """The shortest command-line options that name ``rules``.

    >>> rule_words(Rules(stones=4, jumping=False, mill_rule="take-none"))
    ['--rules', 'no-jumping', '--mill-rule', 'take-none', '--stones', '4']
    """
    if not rules.is_classic:
        return ["--rules", rules.name]
    words = []
    if not rules.jumping:
        words += ["--rules", "no-jumping"]
    if rules.take_none:
        words += ["--mill-rule", "take-none"] if not rules.jumping else ["--rules", "take-none"]
    if rules.stones != STANDARD_STONES:
        words += ["--stones", str(rules.stones)]
    return words


def book_command(path: Path | str, rules: Rules) -> str:
    """The command that makes the opening book ``path`` of ``rules`` again (PLIES to fill
    in), from the databases of its folder where it lies in one.

    >>> book_command("data/standard-s4/opening-book.npz", Rules(stones=4))
    'muehle solve-opening --db data --stones 4 --book PLIES data/standard-s4/opening-book.npz'
    """
    path = Path(path)
    root = ["--db", str(path.parent.parent)] if path.parent.name == rules.name else []
    return shlex.join(["muehle", "solve-opening", *root, *rule_words(rules), "--book", "PLIES", str(path)])


def build_command(root: Path | str, rules: Rules, phase: str | None = None,
                  max_total: int | None = None, pair: tuple[int, int] | None = None,
                  quiet_limit: int | None = None, dice: str | None = None,
                  ceylonese: str | None = None) -> str:
    """The command that builds the databases of ``rules`` under ``root`` (only ``phase``:
    moving or placement, if given; only up to ``max_total`` stones, or only ``pair``;
    ``dice``: dice mill's tables of that dice rule, ``--phase dice``; ``ceylonese``:
    Ceylonese mill's tables of that Ceylonese rule, ``--phase ceylonese``).

    >>> build_command("data", Rules(stones=4, jumping=False, mill_rule="take-none"))
    'muehle build --db data --rules no-jumping --mill-rule take-none --stones 4'
    >>> build_command("data", Rules.from_name("six-mens-jumping"))
    'muehle build --db data --rules six-mens-jumping'
    >>> build_command("db", Rules(), pair=(5, 4))
    'muehle build --db db --pair 4-5'
    >>> print(build_command("my dbs/it's", Rules()))     # one word for the shell
    muehle build --db 'my dbs/it'"'"'s'
    >>> build_command("db", Rules(), "rule", pair=(4, 3), quiet_limit=100)
    'muehle build --db db --phase rule --quiet-limit 100 --pair 3-4'
    >>> build_command("db", Rules(stones=5), dice="sum14")
    'muehle build --db db --stones 5 --phase dice --dice sum14'
    >>> build_command("db", Rules(stones=5), ceylonese="ceylonese-open4")
    'muehle build --db db --stones 5 --phase ceylonese --ceylonese ceylonese-open4'
    """
    words = ["muehle", "build", "--db", str(root), *rule_words(rules)]
    if dice is not None:
        phase = "dice"
    if ceylonese is not None:
        phase = "ceylonese"
    if phase is not None:
        words += ["--phase", phase]
    if dice is not None and dice != "triple":
        words += ["--dice", dice]
    if ceylonese is not None and ceylonese != "ceylonese":
        words += ["--ceylonese", ceylonese]
    if quiet_limit is not None and quiet_limit != QUIET_PLY_LIMIT:
        words += ["--quiet-limit", str(quiet_limit)]
    if max_total is not None:
        words += ["--max-total", str(max_total)]
    if pair is not None:
        words += ["--pair", f"{min(pair)}-{max(pair)}"]
    return shlex.join(words)     # a folder with spaces or quotes pastes as one word


def repair_command(root: Path | str, rules: Rules, needed: list[Pair | Subspace]) -> str:
    """The narrowest command that builds ``needed`` (files missing or damaged under
    ``root``; a build keeps every intact file): one moving pair by ``--pair``, else all
    up to the most stones any of them holds (the whole phase or game where that is all),
    only the phase they are all of, where the build of that phase alone can run: a
    placement file needs the moving phase up to its stones, so where a pair of it is
    missing under ``root``, the command builds both phases.

    >>> repair_command("db", Rules(), [Subspace(4, 5)])
    'muehle build --db db --pair 4-5'
    >>> repair_command("db", Rules(), [Pair(3, 5), Subspace(2, 2, 2, 2)])
    'muehle build --db db --max-total 8'
    >>> repair_command("db", Rules(), [Pair(9, 9), Pair(3, 3)])
    'muehle build --db db --phase moving'
    >>> repair_command("no-such-folder", Rules(), [Subspace(2, 2, 2, 2)])
    'muehle build --db no-such-folder --max-total 8'
    """
    shapes = [(*x, 0, 0) if isinstance(x, Pair) else (x.m, x.o, x.own_hand, x.opp_hand)
              for x in needed]
    placing = [h + k > 0 for _, _, h, k in shapes]
    if not any(placing) and len({tuple(sorted(s[:2])) for s in shapes}) == 1:
        return build_command(root, rules, pair=shapes[0][:2])
    phase = "placement" if all(placing) else "moving" if not any(placing) else None
    total = max(sum(s) for s in shapes)
    if phase == "placement" and not all(pair_path(root, rules, (m, o)).exists()
                                        for m in range(3, rules.stones + 1)
                                        for o in range(m, rules.stones + 1) if m + o <= total):
        phase = None                   # (build --phase placement refuses without them)
    return build_command(root, rules, phase, max_total=total if total < 2 * rules.stones else None)


def remedy_command(remedy: Remedy) -> str:
    """The command that does what ``remedy`` says: the narrowest build of its
    ``needed`` files, the build it names, or the opening book written again."""
    if remedy.book is not None:
        return book_command(remedy.book, remedy.rules)
    if remedy.needed:
        return repair_command(remedy.root, remedy.rules, list(remedy.needed))
    return build_command(remedy.root, remedy.rules, remedy.phase, pair=remedy.pair,
                         quiet_limit=remedy.quiet_limit, dice=remedy.dice, ceylonese=remedy.ceylonese)


def explained(error: BaseException) -> str:
    """The message of ``error`` as a user reads it: with its remedy's command where it
    has one (a message that ends ": rebuild it" says so with the command instead), and
    where the folder it would build in holds nothing of its rules, what may have been
    meant (:func:`meant`).

    >>> explained(DatabaseError("database folder no-such-folder does not exist", remedy=Remedy("no-such-folder", Rules())))
    'database folder no-such-folder does not exist (build it with: muehle build --db no-such-folder)'
    """
    text = str(error)
    remedy = getattr(error, "remedy", None)
    if remedy is None:
        return text
    text = text.removesuffix(": rebuild it") + remedy.advice.format(remedy_command(remedy))
    return text if remedy.book is not None else text + meant(remedy.root, remedy.rules)


def meant(root: Path | str, rules: Rules) -> str:
    """Where ``root`` holds no folder of ``rules``, what a user may have meant, as the
    end of a message ("" where nothing is found): the rule sets whose files ``root``
    holds (a ``--stones`` or ``--rules`` left out sends a build of hours to the standard
    game), or where ``root`` does not exist, the folders beside it of a like name (a
    typo that the build command would repeat)."""
    import difflib

    root = Path(root)
    try:
        if (root / rules.name).is_dir():
            return ""
        if root.is_dir():
            held = [d.name for d, _ in rule_set_folders(root) if d.is_dir() and any(d.glob("*.h5"))][:5]
            # (the rule set's name only: each interface names it in its own terms)
            return f"; {root} holds the files of rules {', '.join(held)}" if held else ""
        parent = root.parent if str(root.parent) else Path(".")
        beside = [d.name for d in parent.iterdir() if d.is_dir()] if parent.is_dir() else []
        like = difflib.get_close_matches(root.name, beside, n=1, cutoff=0.75)
        return f"; a folder of a like name: {parent / like[0] if str(root.parent) != '.' else like[0]}" if like else ""
    except OSError:
        return ""



def with_repair(error: DatabaseError, root: Path | str, rules: Rules, subs: list) -> DatabaseError:
    """``error`` (a damaged or foreign file of ``subs``) with the remedy that builds them
    again (:func:`solver.errors.with_remedy`): :func:`explained` ends its line in the
    command, the one wording of every such hint."""
    return with_remedy(error, Remedy(root, rules, REBUILD_IT, needed=tuple(subs)))
