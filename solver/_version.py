"""The package's version: the one place it is written (pyproject.toml reads it from here).

Files record it (``solver_version``); a constant, so that writing a file does not look it
up in the installed metadata, which took 18 ms the first time in a process.
"""

__version__ = "0.1.0"
