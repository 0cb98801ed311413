"""The README tells the truth: its Python examples run and print what they show, its
commands exist, and every CLI command is documented there."""

import contextlib
import io
import re
from pathlib import Path

import pytest

from quaestio.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
# ```python blocks run; ```py blocks are illustrations that need the reader's own files.
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_examples_print_what_they_show(block, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    expected = [
        line[3:] if line.startswith("#> ") else line[2:]
        for line in block.splitlines()
        if line.startswith("#>")
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected


def test_readme_mentions_every_cli_command():
    names = set(cli.commands) | {f"satellites {n}" for n in cli.commands["satellites"].commands}
    for name in names - {"satellites"}:
        assert f"quaestio {name}" in README, f"README does not show `quaestio {name}`"


def test_readme_install_commands_match_ci():
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "pip install -e '.[all]'" in README and "-e '.[all]'" in ci
    assert ".venv/bin/pytest" in README and ".venv/bin/pytest" in ci
