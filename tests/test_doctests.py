"""The examples in the docstrings are run as tests, so that they stay true."""

import doctest
import importlib

import pytest

MODULES = ["solver.board", "solver.rules", "solver.position", "solver.notation", "solver.game",
           "solver.diagram", "solver.players", "solver", "solver.values", "solver.retro",
           "solver.opening", "solver.index", "solver.wdl", "solver.svg", "solver.analysis",
           "solver.storage", "solver.codec", "solver.build", "solver.build.planner", "solver.build.runner", "solver.placement", "solver.kernels", "solver.probe", "solver.web.app", "solver.web", "solver.errors",
           "solver.dice", "solver.dice_tables", "solver.ceylonese", "solver.ceylonese_tables"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no examples"
    assert failures == 0
