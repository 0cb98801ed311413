"""Execute the notebooks in place, so that the repository shows their tables and figures.

    python scripts/execute_notebooks.py [notebooks/01_quickstart.ipynb ...]

Each notebook runs top to bottom in its own folder (offline, on the bundled defaults), as
`tests/test_notebooks.py` runs it. Volatile metadata (kernel timings) is dropped so that an
unchanged notebook gives an unchanged file; figures are PNG at a modest size.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]


def execute(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for number, cell in enumerate(notebook.cells):
        cell.metadata.pop("execution", None)
        cell.setdefault("id", f"cell-{number}")  # stable ids: a re-run changes outputs only
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KB")


def main() -> None:
    paths = [Path(p).resolve() for p in sys.argv[1:]] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    for path in paths:
        execute(path)


if __name__ == "__main__":
    main()
