# The compiled kernels of muehle, compiled once per board: setup.py generates for every
# board of solver.board a module (solver._kernels for the standard board,
# solver._kernels_<board> for the others) that sets the board's sizes as compile-time
# constants (board.pxi lists them) and includes this file; solver.kernels.kernels_for
# picks the module of a board (docs/design.md §9).  One extension module per board, so
# that the kernels share the board tables and inline each other's ``nogil`` functions.
# Each concept has its own include file, in pipeline order (each says at its top what
# it provides and what it uses):
#
# - ``board.pxi``: tables (adjacency, mills, symmetries) filled from :mod:`solver.board`
# - ``rules.pxi``: the rule options as one int of flags, as solver.rules.Rules.flags builds it
# - ``guards.pxi``: the checks of what Python callers pass (threads, array sizes, masks)
# - ``movegen.pxi``: forward moves and quiet un-moves on point masks, the packed-move codec
# - ``index.pxi``: the symmetry-reduced index of a subspace
# - ``retro.pxi``: retrograde analysis of a moving-phase pair
# - ``check.pxi``: the forward consistency check of a solved subspace (run by every build)
# - ``placement.pxi``: the placement phase by one backward pass
# - ``dice.pxi``: dice mill's placement phase (expected results) by one backward pass
# - ``ceylonese.pxi``: Ceylonese mill's placement phase (mills earn turns) by one backward pass
# - ``search.pxi``: the opening search and the 2-bit win/draw/loss views
# - ``values.pxi``: the histogram of a subspace's codes, for the statistics its file records
# - ``chunks.pxi``: a stored chunk's byte shuffle and Fletcher-32, for the chunk codec of solver.storage
#
# Names: a checked Python function and the unchecked ``nogil`` function doing its work
# share one name, the latter with the prefix ``c_`` (``index_position`` /
# ``c_index_position``).  ``solver/_kernels.pyi`` lists the Python interface (the same
# for every board).
#
# The independent oracle is not here: it is its own module per board,
# ``solver.verify._oracle`` and ``solver.verify._oracle_<board>`` (``ext/oracle.pxi``),
# which compiles in only board.pxi, rules.pxi, guards.pxi and movegen.pxi.

include "board.pxi"
include "rules.pxi"
include "guards.pxi"
include "movegen.pxi"
include "index.pxi"
include "retro.pxi"
include "check.pxi"
include "placement.pxi"
include "dice.pxi"
include "ceylonese.pxi"
include "search.pxi"
include "values.pxi"
include "chunks.pxi"
