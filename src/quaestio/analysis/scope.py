"""Scope filters: date ranges, parties, jurisdictions, sections, page range; merged with the
filters the caller passes (draft.options["scope"]), each value keeping its origin.

Contract: sets the scope_* columns in draft.columns, including scope_origins.
"""

from __future__ import annotations

from .draft import Draft


def scope_filters(draft: Draft) -> None:
    """Scaffold, filled by the offline-analysis work: leaves the row defaults."""
