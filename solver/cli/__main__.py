"""``python -m solver.cli ...`` runs the command line, like ``python -m solver``."""

from . import main

main(prog_name="muehle")
