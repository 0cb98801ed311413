"""The analysts' curation workbench in the browser: coverage, candidates, rows, diff, history.

Server-rendered pages (Jinja2) with one small script, every asset inside the package. It sits
above `quaestio.curation` and needs the `serve` extra (fastapi, jinja2), imported when the
app is created.
"""

from .app import create_workbench_app

__all__ = ["create_workbench_app"]
