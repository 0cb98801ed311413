"""The README's ```console blocks run top to bottom, as a newcomer would type them.

Every block runs in order in one scratch folder holding a copy of `examples/`, so a later
block may use what an earlier one made (`corpus_index`, `my_tables/`). Each `$ command` line
runs in bash with this environment's `quaestio` first on PATH; the lines after it are what it
must print (stdout and stderr). A line `...` stands for any number of lines, and `...` inside
a line for any text (timings). A command that must fail shows `Error:` lines. Blocks that start
servers or need an LLM endpoint are ```shell blocks, which this test does not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```console\n(.*?)```", README, flags=re.S)


def _commands(block: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def _line_pattern(expected: str) -> str:
    return ".*".join(re.escape(part) for part in expected.split("...")) + r"\s*"


def _matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return True
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return (
        bool(actual)
        and re.fullmatch(_line_pattern(head), actual[0].rstrip()) is not None
        and _matches(rest, actual[1:])
    )


def test_the_readme_has_console_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.slow
def test_readme_console_blocks_run_top_to_bottom(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    env = {
        **os.environ,
        "QUAESTIO_CACHE": str(tmp_path / "cache"),
        "COLUMNS": "200",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("QUAESTIO_SATELLITES", None)
    for block in BLOCKS:
        for command, expected in _commands(block):
            if command.lstrip().startswith("#"):
                continue
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=work,
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=600,
            )
            actual = done.stdout.splitlines()
            failing = any(line.startswith("Error:") for line in expected)
            assert (done.returncode != 0) == failing, (
                f"$ {command}\nexit code {done.returncode}\n{done.stdout}"
            )
            assert _matches(expected, actual), (
                f"$ {command}\n--- README shows:\n"
                + "\n".join(expected)
                + "\n--- it printed:\n"
                + done.stdout
            )


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        (["a", "...", "z"], ["a", "b", "c", "z"], True),
        (["a", "..."], ["a"], True),
        (["done (... s)"], ["done (12.5 s)"], True),
        (["a", "z"], ["a", "b", "z"], False),
        (["a"], ["b"], False),
    ],
)
def test_the_ellipsis_matcher(expected, actual, ok):
    assert _matches(expected, actual) is ok
