# The rule options the kernels read at run time, as one int of flags: solver.rules.Rules.flags
# builds it and solver.rules.RuleFlag names its bits (tests/test_rules.py proves the two
# agree).  Every kernel entry point takes this one value, so that a new option is a new bit
# here, in Rules.flags and in the kernel that plays it, not a new argument threaded through
# every signature between them.  The board's own facts (its size, whether a line wins)
# are compile-time constants of its module instead (board.pxi, LINE_WINS).
#
# Provides: RULE_JUMPING, RULE_TAKE_NONE, RULE_MIXED, RULE_FULL_DRAW, RULE_TAKE_FROM_MILLS,
#           RULE_MILL_ENDS;
#           rule_flag_bits.
# Uses:     nothing.

cdef enum:
    RULE_JUMPING = 1        # a side with three stones (board plus hand) jumps
    RULE_TAKE_NONE = 2      # a mill takes nothing when every enemy stone is in a mill
    RULE_MIXED = 4          # a side with stones in hand may also move (Lasker)
    RULE_FULL_DRAW = 8      # a side blocked on a full board draws (Twelve Men's)
    RULE_TAKE_FROM_MILLS = 16   # a mill may take a stone of a mill too (no protection)
    RULE_MILL_ENDS = 32     # (not a rule of play: the solve of the quiet-ply rule's tables)
                            # a mill that takes nothing (take-none) resets the count: an
                            # end of its pair, read like a capture (movegen.pxi MILL_NO_TAKE)


def rule_flag_bits():
    """The bits of the rule flags as compiled in (name: value), for the test that holds
    them equal to solver.rules.RuleFlag."""
    return {"JUMPING": RULE_JUMPING, "TAKE_NONE": RULE_TAKE_NONE, "MIXED": RULE_MIXED,
            "FULL_DRAW": RULE_FULL_DRAW, "TAKE_FROM_MILLS": RULE_TAKE_FROM_MILLS,
            "MILL_ENDS": RULE_MILL_ENDS}
