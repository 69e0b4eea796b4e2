"""The examples in the docstrings are run as tests, so that they stay true."""

import doctest
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "solver"

#: every module of the package with an example in its source (found, not listed, so that
#: a module's examples cannot be left out: eleven modules' were, until this was so)
MODULES = sorted(".".join(("solver",) + path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                 for path in ROOT.rglob("*.py") if path.name != "__main__.py" and ">>> " in path.read_text())


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    # (a module whose examples need a database skips them: they are read, not run)
    assert tried > 0 or "doctest: +SKIP" in inspect.getsource(module), f"{name} has no examples"
    assert failures == 0
