"""``python -m solver ...`` runs the command line, like the ``muehle`` script."""

from .cli import main

main(prog_name="muehle")
