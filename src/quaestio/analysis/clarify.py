"""Clarification: a short follow-up question and its reason when the question cannot be
acted on (unresolved deictic reference, bare head noun that fits several concepts, missing
object); conversation context or caller scope that resolves it cancels the request.

Contract: sets suggested_clarification and ambiguity_reason in draft.columns.
"""

from __future__ import annotations

from .draft import Draft


def clarify(draft: Draft) -> None:
    """Scaffold, filled by the offline-analysis work: leaves the row defaults."""
