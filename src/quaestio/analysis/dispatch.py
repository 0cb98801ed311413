"""Dispatch plan: chunk_strategy, suggested_model, retrieval_k, answer_context, activations,
cascading from concept overrides to the answer type, the answer shape and project defaults.
"""

from __future__ import annotations

from .draft import Draft


def dispatch_plan(draft: Draft) -> None:
    """Scaffold: leaves the row defaults."""
