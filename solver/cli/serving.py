"""``muehle serve``: the board in the browser (:mod:`solver.web`); ``muehle uci``: the
engine protocol of game apps (:mod:`solver.uci`)."""

from __future__ import annotations

from pathlib import Path

import click

from ..commands import build_command, meant
from ..rules import Rules
from .common import FiniteRange, db_option, fail, main, needs_kernels, quiet_limit_option, rules_options


@main.command()
@db_option
@rules_options
@needs_kernels
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (the default is reachable from this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
# (default: solver.web.app.SEARCH_SECONDS, not imported here, as Starlette would load
# with every command; a test holds the two equal)
@click.option("--search-seconds", type=FiniteRange(0, 1e9), default=300.0, show_default=True,
              help="Opening search a request may start, in seconds (0: no limit). Where the "
                   "placement phase is not built, a request past it gets status 503; one "
                   "whose client leaves is stopped at once.")
def serve(db: str, rules: Rules, host: str, port: int, search_seconds: float) -> None:
    """Serve a page to play, query and analyse on a board, and a JSON API under /api/.

    Prints the address to open in a browser; Ctrl-C stops.  The rule options set
    the rule set the page starts with; the page offers every rule set with
    databases under --db.

    \b
    Example:
      muehle serve --db data --stones 4
    """
    from ..web import serve as run

    if not host.strip():    # (an unset $HOST would otherwise listen on every interface)
        fail("--host is empty: give an address, e.g. 127.0.0.1, or 0.0.0.0 for every interface")
    if not Path(db).is_dir():       # (served all the same: the page plays by the rules)
        click.echo(f"note: database folder {db} does not exist: no answers from databases (build them "
                   f"with: {build_command(db, rules)}){meant(db, rules)}", err=True)
    run(db, rules, host=host, port=port, search_seconds=search_seconds or None,
        announce=lambda url: click.echo(f"muehle: serving {url} (databases in {db}; Ctrl-C stops)"))


@main.command()
@db_option
@rules_options
@click.option("--level", type=click.Choice(["easy", "medium", "hard", "perfect", "ultra"]),
              default="perfect", show_default=True, help="The level it plays (setoption name Level changes it).")
@quiet_limit_option
def uci(db: str, rules: Rules, level: str, quiet_limit: int) -> None:
    """Speak the engine protocol of the Sanmill app (a UCI-like dialect) on standard
    input and output, answering from the databases under --db: for GUIs and bridges
    that drive an engine.  docs/guide/other-programs.md, "muehle uci", lists the commands and shows a session.

    \b
    Example:
      printf 'uci\\nposition startpos moves d6 f4\\ngo\\nquit\\n' | muehle uci --db data
    """
    import sys

    from ..uci import read_lines, serve as run

    run(read_lines(sys.stdin.buffer), sys.stdout, db=db, rules=rules, level=level, quiet_limit=quiet_limit)
