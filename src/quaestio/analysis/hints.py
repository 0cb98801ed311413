"""Structural hints: pages, sheets, slides, TOC section, layout, document version, and the
detect/answer context and need_summary defaulted from the answer type and shape rows.

Contract: sets hint columns in draft.columns (pages_hint, sheets_hint, slides_hint,
toc_section_hint, layout_hint, document_version, detect_context, answer_context,
need_summary); draft.options["toc"] holds the caller's section titles.
"""

from __future__ import annotations

from .draft import Draft


def structural_hints(draft: Draft) -> None:
    """Scaffold, filled by the offline-analysis work: leaves the row defaults."""
