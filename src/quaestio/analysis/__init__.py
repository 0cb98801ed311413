"""The parse steps: read satellites, write a question's row."""

from __future__ import annotations

from typing import Any

from .decompose import has_compound_indicators
from .pipeline import DEFAULT_STEPS, Step, check_question, parse_question, prepare

__all__ = [
    "DEFAULT_STEPS",
    "has_compound_indicators",
    "iter_parse",
    "Step",
    "check_question",
    "parse_question",
    "parse_questions",
    "prepare",
]


def __getattr__(name: str) -> Any:
    # The batch call (and pyarrow with it) loads on first use: one question needs neither.
    if name in ("parse_questions", "iter_parse"):
        from . import batch

        return getattr(batch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
