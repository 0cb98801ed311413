"""quaestio: turn a question into one typed, auditable row of `question_df`."""

__version__ = "0.1.0"

from .analysis import (DEFAULT_STEPS, has_compound_indicators, parse_question,  # noqa: E402
                       parse_questions, prepare)
from .errors import (QuaestioError, QuestionError, ReasonCode, SatelliteError,  # noqa: E402
                     UnknownNameError)
from .satellites import Satellites, load_satellites  # noqa: E402
from .schema import COLUMNS, QUESTION_SCHEMA  # noqa: E402
from .types import (AnswerShape, Keyword, KeywordSource, ParsedQuestion,  # noqa: E402
                    ScopeFilters, StructuralHints)

__all__ = [
    "COLUMNS", "DEFAULT_STEPS", "QUESTION_SCHEMA", "AnswerShape", "Keyword", "KeywordSource",
    "ParsedQuestion", "QuaestioError", "QuestionError", "ReasonCode", "SatelliteError",
    "Satellites", "ScopeFilters", "StructuralHints", "UnknownNameError", "has_compound_indicators", "load_satellites",
    "parse_question", "parse_questions", "prepare",
]
