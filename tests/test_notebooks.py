"""The notebooks run, top to bottom, offline, on the bundled defaults (what users will do)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path):
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any exception
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(o.output_type in ("execute_result", "display_data") for o in outputs)
    for cell in _drawing_cells(notebook):
        assert _images(cell), f"a drawing cell of {path.name} shows no figure:\n{cell.source}"


def _drawing_cells(notebook):
    return [
        c
        for c in notebook.cells
        if c.cell_type == "code" and ("plt." in c.source or ".plot" in c.source)
    ]


def _images(cell) -> int:
    return sum("image/png" in o.get("data", {}) for o in cell.outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_are_committed_with_their_figures(path):
    # Read on the repository, a notebook shows what it computes: `python
    # scripts/execute_notebooks.py` writes them executed.
    notebook = nbformat.read(path, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code if c.source.strip()), f"{path.name} is not executed"
    assert all(_images(c) for c in _drawing_cells(notebook))


def test_the_quickstart_shows_a_picture():
    quickstart = next(p for p in NOTEBOOKS if p.stem == "01_quickstart")
    notebook = nbformat.read(quickstart, as_version=4)
    assert sum(_images(c) for c in notebook.cells if c.cell_type == "code") >= 1


def test_there_are_notebooks():
    assert {p.stem for p in NOTEBOOKS} >= {
        "01_quickstart",
        "02_batch_evaluation",
        "03_retrieval",
        "04_curation",
    }
