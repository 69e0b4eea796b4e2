"""The examples of the README and of the guide's pages are run, so that they stay true.

Shell examples: every ``$ command`` line in a plain code block runs in bash (``muehle``
is ``python -m solver`` of this checkout), in one scratch folder, in the order of the
README and then the guide's pages as its table of contents (docs/index.md) lists them;
the lines after it, up to the next command, are its expected output (stdout and stderr):
a line ``...`` stands for any number of lines, ``...`` within a line for any text.
Python examples run afterwards in the same folder; an expression followed by a comment
that is a Python literal (``s.name   # '9-8'``) must equal it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def pages() -> list[Path]:
    """The README, then the guide's pages in the order docs/index.md lists them."""
    index = (REPO / "docs" / "index.md").read_text()
    guide = re.findall(r"^(guide/[\w-]+)$", index, re.M)
    assert len(guide) >= 10, "docs/index.md lists the guide's pages"
    return [REPO / "README.md"] + [REPO / "docs" / f"{name}.md" for name in guide]


def blocks() -> list[tuple[str, str]]:
    return [block for page in pages() for block in BLOCK.findall(page.read_text())]


def shell_examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of every ``$`` line, in order."""
    examples = []
    for lang, body in blocks():
        if lang:
            continue
        for line in body.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
            elif examples and examples[-1][1] is not None and body.lstrip().startswith("$ "):
                examples[-1][1].append(line)
    return examples


def python_examples() -> list[str]:
    return [body for lang, body in blocks() if lang == "python"]


def pattern(expected: list[str]) -> re.Pattern:
    while expected and not expected[-1].strip():
        expected = expected[:-1]          # blank lines between examples
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(map(re.escape, line.rstrip().split("..."))) + r"[ \t]*\n")
    return re.compile("".join(parts), re.S)


def with_assertions(source: str) -> str:
    """Each ``expression  # literal`` line becomes an assertion of that value."""
    out = []
    for line in source.splitlines():
        code, hash_, comment = line.partition("  #")
        try:
            ast.parse(code.strip(), mode="eval")
            expected = ast.literal_eval(comment.strip())
        except (SyntaxError, ValueError):
            out.append(line)
            continue
        indent = code[:len(code) - len(code.lstrip())]
        out.append(f"{indent}assert ({code.strip()}) == {expected!r}, {code.strip()!r}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


@pytest.fixture(scope="module")
def shell_runs(scratch) -> list[tuple[str, list[str], str]]:
    """(command, expected lines, output) of every shell example, run in order in ``scratch``."""
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200")
    prelude = f'muehle() {{ "{sys.executable}" -m solver "$@"; }}\n'
    runs = []
    for command, expected in shell_examples():
        result = subprocess.run(["bash", "-c", prelude + command], cwd=scratch, env=env,
                                capture_output=True, text=True, timeout=600)
        output = "".join(line.rstrip() + "\n" for line in (result.stdout + result.stderr).splitlines())
        runs.append((command, expected, output))
    return runs


def test_every_guide_page_is_listed():
    listed = {p.name for p in pages()}
    assert {p.name for p in (REPO / "docs" / "guide").glob("*.md")} <= listed


def test_readme_has_examples():
    assert len(shell_examples()) >= 10 and len(python_examples()) >= 3


def test_shell_examples(shell_runs):
    for command, expected, output in shell_runs:
        assert pattern(expected).fullmatch(output), f"$ {command}\n{output}"


def test_python_examples(shell_runs, scratch, monkeypatch):
    monkeypatch.chdir(scratch)            # where the shell examples built the databases
    namespace: dict = {}
    for source in python_examples():
        exec(compile(with_assertions(source), "the guide", "exec"), namespace)
