"""The pipeline's layers: nothing lower imports anything higher, and no import cycles.

The import graph is read from the source (every ``import`` statement, also those
inside functions), so a cycle hidden in a function-level import is found too.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import solver

ROOT = Path(solver.__file__).parent

#: The pipeline, bottom up: rules -> positions and moves -> symmetry and indexing ->
#: retrograde analysis -> storage -> probing -> play and search -> interfaces.
#: A module may import modules of its own layer or below.  A module name matches an
#: entry equal to it or to one of its parent packages.
LAYERS: list[tuple[str, ...]] = [
    ("solver.errors", "solver._version"),
    ("solver.board", "solver.rules", "solver.notation", "solver.formats", "solver.values"),
    # the board drawn (text, SVG) reads only the board data; positions draw themselves
    ("solver.position", "solver.game", "solver.records", "solver.diagram", "solver.svg"),
    ("solver.dice",),          # dice mill's rules and reference: positions' moves and values
    ("solver.ceylonese",),     # Ceylonese mill's rules: its reference
    ("solver.index", "solver.kernels", "solver._kernels"),
    ("solver.retro", "solver.placement"),      # the moving and the placement phase
    # the format; verification reads stored pairs; the build verifies before it stores;
    # the folder's inventory is the build's plan; the cluster runs the build's units
    ("solver.storage", "solver.codec", "solver.wdl"),
    ("solver.verify",),
    ("solver.build", "solver.dtz"),          # (solver.build: the package, its modules too)
    ("solver.folder",),
    ("solver.cluster",),
    ("solver.probe", "solver.opening"),
    ("solver.dice_tables",),   # dice mill's tables: built by the runner, the moving phase probed
    ("solver.ceylonese_tables",),   # Ceylonese mill solved by the kernels (the moving rounds reused),
                                    # built as files by the runner
    # the answers of query/moves/best-move/analyze, shared by the CLI and the browser
    ("solver.choice", "solver.players", "solver.analysis", "solver.batch", "solver.match"),
    ("solver.cli", "solver.web", "solver.uci", "solver.commands", "solver.__main__", "solver"),
]


def layer_of(module: str) -> int:
    best, level = -1, None
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, level = len(name), i
    if level is None:
        raise AssertionError(f"module {module} has no layer: add it to LAYERS in {__file__}")
    return level


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str) -> set[str]:
    """The solver modules ``path`` imports (``from . import x`` counts as module x)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return {m for m in found if m == "solver" or m.startswith("solver.")}


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in ROOT.rglob("*.py")}
    known = set(modules) | {"solver._kernels"}
    # keep imports of modules (``from .x import name`` also adds x.name: drop non-modules)
    return {name: {m for m in imports_of(path, name) if m in known and m != name}
            for name, path in modules.items()}


def test_every_module_has_a_layer():
    for name in graph():
        layer_of(name)


def test_no_module_imports_a_higher_layer():
    bad = [f"{name} (layer {layer_of(name)}) imports {dep} (layer {layer_of(dep)})"
           for name, deps in graph().items() for dep in deps
           if layer_of(dep) > layer_of(name) and not name.startswith(dep + ".")]
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    edges = graph()
    # a package's __init__ importing its own submodules is how packages work
    edges = {n: {d for d in deps if not d.startswith(n + ".") and not n.startswith(d + ".")}
             for n, deps in edges.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep):] + [dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_library_does_not_load_the_command_line():
    """Importing every library module in a fresh interpreter leaves solver.cli unloaded."""
    names = sorted(n for n in graph() if layer_of(n) < layer_of("solver.cli") and n != "solver")
    code = ("import sys\n" + "".join(f"import {n}\n" for n in names)
            + "assert not [m for m in sys.modules if m.startswith('solver.cli')], 'cli loaded'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT.parent)


def test_kernel_stub_lists_the_extension():
    """solver/_kernels.pyi names exactly the extension's public functions and classes."""
    from solver import _kernels
    stub = ast.parse((ROOT / "_kernels.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    declared |= {n.target.id for n in stub.body if isinstance(n, ast.AnnAssign)}
    public = {name for name in dir(_kernels) if not name.startswith("_")
              and (callable(getattr(_kernels, name)) or name.isupper())}
    assert declared == public


def test_the_board_module_stands_alone():
    """setup.py reads solver/board.py alone (the package's __init__ imports the kernels
    it builds): the module imports nothing of the package. A fresh install failed when
    it did."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_standalone_board", ROOT / "board.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        assert "standard" in module.BOARDS
    finally:
        del sys.modules[spec.name]


def test_no_module_uses_another_modules_private_names():
    """A name with a leading underscore is its module's own: no other module imports it
    or reads it through the module (``storage._open``); what they need is public."""
    found = []
    for path in ROOT.rglob("*.py"):
        name = module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("solver")):
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    # (the compiled modules are private packages' parts, imported by name)
                    if private and not alias.name.startswith(("_kernels", "_oracle", "_version")):
                        found.append(f"{name}: from {node.module or '.'} import {alias.name}")
                    modules.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id in modules):
                found.append(f"{name}: {node.value.id}.{node.attr}")
    assert not found, found


#: A command line of muehle's, or one of its options, in a string the code makes.
COMMAND_LINE = re.compile(r"\bmuehle (build|check|stats|query|solve-opening|play|serve|analyze|best-move)\b"
                          r"|(?<![\w-])--(db|memory|jobs|phase|pair|max-total|quiet-limit|table-bits|rules|stones)\b")


def test_no_command_line_text_below_the_interfaces():
    """Only the interfaces (the command line, the browser, the engine protocol and
    solver.commands, which they share) write command lines: a layer below says what is
    wrong and what would mend it as data (errors' ``remedy``), never as a ``muehle``
    command or its options, which are not its caller's words (a program calling
    ``build(memory=...)`` has no ``--memory``).  Docstrings and comments may name them."""
    interfaces = len(LAYERS) - 1
    found = []
    for path in ROOT.rglob("*.py"):
        name = module_name(path)
        if layer_of(name) >= interfaces:
            continue
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and COMMAND_LINE.search(node.value)):
                found.append(f"{name}:{node.lineno}: {node.value.strip()[:70]!r}")
    assert not found, "\n".join(found)
