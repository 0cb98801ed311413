"""The parse steps: read satellites, write a question's row."""

from .batch import iter_parse, parse_questions
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
