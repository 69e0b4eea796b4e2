"""Rules as data: names, defaults, validation."""

import pytest

from solver.rules import MILL_RULES, RULESET_NAMES, STANDARD, Rules


def test_standard_defaults():
    assert STANDARD == Rules() == Rules(stones=9, jumping=True, mill_rule="take-any")
    assert not STANDARD.take_none
    assert Rules(mill_rule="take-none").take_none


@pytest.mark.parametrize("stones", range(3, 10))
@pytest.mark.parametrize("jumping", [True, False])
@pytest.mark.parametrize("mill_rule", MILL_RULES)
def test_name_round_trip(stones, jumping, mill_rule):
    rules = Rules(stones=stones, jumping=jumping, mill_rule=mill_rule)
    assert Rules.from_name(rules.name) == rules
    assert rules.as_attrs()["name"] == rules.name


def test_named_rule_sets():
    assert [Rules.from_name(n).name for n in RULESET_NAMES] == list(RULESET_NAMES)
    assert Rules.from_name("no-jumping") == Rules(jumping=False)
    assert Rules.from_name("take-none-s6") == Rules(stones=6, mill_rule="take-none")


@pytest.mark.parametrize("bad", ["", "jumping", "standard-s2", "standard-s13", "take-some"])
def test_unknown_names_are_rejected(bad):
    with pytest.raises(ValueError):
        Rules.from_name(bad)


def test_invalid_rules_are_rejected():
    with pytest.raises(ValueError, match="3..12"):
        Rules(stones=2)
    with pytest.raises(ValueError, match="mill rule"):
        Rules(mill_rule="take-all")


def test_numpy_integers_are_stone_counts_and_bools_are_not():
    import numpy as np
    assert Rules(stones=np.int64(4)) == Rules(stones=4)
    assert type(Rules(stones=np.uint8(4)).stones) is int
    assert Rules(two_mill_takes=np.int32(2)).two_mill_takes == 2
    for bad in (True, 4.0, "4", None):
        with pytest.raises(ValueError):
            Rules(stones=bad)
    with pytest.raises(ValueError):
        Rules(two_mill_takes=True)


def test_rule_flags_are_the_bits_every_compiled_module_reads():
    """Rules.flags is the one value the kernels take for the options: its bits are those
    ext/rules.pxi compiles into every board's kernels and oracle (a bit that differed
    would silently play another rule), and each option sets its own bit."""
    from solver.board import BOARDS
    from solver.kernels import kernels_for
    from solver.rules import RuleFlag, VARIANTS
    from solver.verify.oracle import oracle_kernels
    expected = {flag.name: flag.value for flag in RuleFlag}
    for board in BOARDS.values():
        assert kernels_for(board).rule_flag_bits() == expected, board.name
        assert oracle_kernels(board).rule_flag_bits() == expected, board.name
    assert Rules().flags == RuleFlag.JUMPING
    assert Rules(jumping=False, mill_rule="take-none").flags == RuleFlag.TAKE_NONE
    assert VARIANTS["lasker"].flags == RuleFlag.JUMPING | RuleFlag.MIXED
    assert VARIANTS["twelve-mens"].flags & RuleFlag.FULL_DRAW
    assert Rules(take_from_mills=True).flags == RuleFlag.JUMPING | RuleFlag.TAKE_FROM_MILLS
    assert RuleFlag.of(True, True, True, True, True) == sum(RuleFlag) - RuleFlag.MILL_ENDS   # (the solve's own)
