"""Verification, part of the storage stage of the pipeline: a build verifies before it
stores, ``muehle check`` what is stored (docs/design.md §6).

- :mod:`solver.verify.check`: the forward consistency check of solved values, run by
  every build before a pair is written and by ``muehle check`` on stored files;
- :mod:`solver.verify.oracle`: an independent naive solver over raw positions of small
  subspaces (kernel :mod:`solver.verify._oracle`, a separate extension module), with
  which the tests compare the fast solver, and its census of the positions a whole
  game reaches (:func:`~solver.verify.oracle.census`), held to published counts;
- :mod:`solver.verify.retrograde`: a retrograde pass without the kernels, over the
  readable rules' moves of every position of a whole small game, plain Python, with
  which the tests compare the built files, placement phase included.
"""
