"""Decomposition of compound questions: a cheap prefilter, then rule classification into
single, independent, sequential, unified or conditional, with sub-questions.

Contract: sets decomposition_pattern, sub_questions and conditional_filter in draft.columns.
"""

from __future__ import annotations

from .draft import Draft


def decompose(draft: Draft) -> None:
    """Scaffold, filled by the offline-analysis work: leaves the row defaults."""
