"""What every page and endpoint of one workbench shares: the folder, the inputs, the templates,
and who the caller is."""

from __future__ import annotations

import getpass
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse

from ..satellites import SPECS, Satellites
from . import candidates as cand_mod
from .coverage import Coverage, compute
from .preview import read_questions
from .store import LOG_DIR, Store

if TYPE_CHECKING:
    import polars as pl

Authorize = Callable[[Request, str], str]
# The roles asked of `authorize`: pages and previews, and anything that writes.
# The role names of `quaestio serve` keys (serve.auth.ROLES): pages need a reader, changes an
# analyst.
VIEWER, ANALYST = "reader", "analyst"
CANDIDATES_FILE = "candidates.csv"


class Workbench:
    """The state behind one app: a store over the folder and the optional inputs."""

    def __init__(
        self,
        satellites_dir: str | Path,
        *,
        authorize: Authorize | None,
        questions: str | Path | Sequence[str] | None,
        corpus: Any,
        candidates: str | Path | None,
    ):
        self.store = Store(satellites_dir)
        self.authorize = authorize
        self.questions = read_questions(questions)
        self.corpus = corpus
        folder = self.store.folder
        self.candidates_path = (
            Path(candidates) if candidates else folder / LOG_DIR / CANDIDATES_FILE
        )
        self._docs: pl.DataFrame | None = None  # the corpus, read on first use
        self._coverage: tuple[int, Coverage] | None = None
        self._compute = threading.Lock()
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("quaestio.workbench", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(SPECS=SPECS)

    # who is asking -------------------------------------------------------------------
    def user(self, request: Request, role: str) -> str:
        """The caller's name for `role`; raises HTTPException (401/403) when not allowed."""
        if self.authorize is None:
            return getpass.getuser()
        return self.authorize(request, role)

    def may(self, request: Request, role: str) -> bool:
        try:
            self.user(request, role)
        except HTTPException:
            return False
        return True

    # inputs --------------------------------------------------------------------------
    def candidates(self) -> list[cand_mod.Candidate]:
        return cand_mod.with_states(
            cand_mod.read_candidates(self.candidates_path), self.store.snapshot()
        )

    def coverage(self, sats: Satellites) -> Coverage:
        with self._compute:
            if self._coverage is None or self._coverage[0] != id(sats):
                if self.corpus is not None and self._docs is None:
                    from ..curation import read_corpus

                    self._docs = read_corpus(self.corpus, sats)
                self._coverage = (id(sats), compute(sats, self.questions, self._docs))
            return self._coverage[1]

    # pages ---------------------------------------------------------------------------
    def page(self, request: Request, template: str, **values: Any) -> HTMLResponse:
        base = request.scope.get("root_path", "").rstrip("/")
        html = self.env.get_template(template).render(
            request=request,
            base=base,
            user=self.user(request, VIEWER),
            can_edit=self.may(request, ANALYST),
            folder=str(self.store.folder),
            **values,
        )
        return HTMLResponse(html)

    def fragment(self, template: str, **values: Any) -> str:
        return self.env.get_template(template).render(**values)
