# cython: language_level=3
"""Compiled kernels of muehle, one extension module so that all share the board tables
and inline each other's ``nogil`` functions.  Each concept has its own include file:

- ``board.pxi``: tables (adjacency, mills, symmetries) filled from :mod:`solver.board`
- ``movegen.pxi``: forward moves and quiet un-moves on 24-bit masks
- further files: indexing, retrograde analysis, ...
"""

include "board.pxi"
include "movegen.pxi"
include "index.pxi"
include "retro.pxi"
include "check.pxi"
include "placement.pxi"
include "search.pxi"
