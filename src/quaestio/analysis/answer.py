"""Answer shape (closed set) and answer type (open registry), from `cues` rows and the
matched concepts' default types.

Contract: sets draft.columns["answer_shape"] and draft.columns["answer_type"]; records the
rule ids that decided them with draft.fire(...).
"""

from __future__ import annotations

from .draft import Draft


def answer_shape_and_type(draft: Draft) -> None:
    """Scaffold, filled by the offline-analysis work: leaves the row defaults."""
