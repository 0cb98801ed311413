"""quaestio: turn a question into one typed, auditable row of `question_df`."""

__version__ = "0.1.0"

import importlib  # noqa: E402

from .analysis import (DEFAULT_STEPS, has_compound_indicators, parse_question,  # noqa: E402
                       parse_questions, prepare)
from .errors import (QuaestioError, QuestionError, ReasonCode, SatelliteError,  # noqa: E402
                     UnknownNameError)
from .satellites import Satellites, load_satellites  # noqa: E402
from .schema import COLUMNS, QUESTION_SCHEMA  # noqa: E402
from .types import (AnswerShape, Keyword, KeywordSource, ParsedQuestion,  # noqa: E402
                    ScopeFilters, StructuralHints)

# The verbs of the later layers, importable from the top (`from quaestio import search`)
# but loaded on first use, so that `import quaestio` stays as light as parsing needs.
_LAZY = {
    "LLM": "quaestio.llm",
    "build_index": "quaestio.retrieval", "open_index": "quaestio.retrieval",
    "search": "quaestio.retrieval", "dispatch": "quaestio.retrieval",
    "confirm": "quaestio.confirm", "find_values": "quaestio.confirm",
    "evaluate": "quaestio.evaluate", "evaluate_answers": "quaestio.evaluate",
    "evaluate_retrieval": "quaestio.evaluate", "read_gold": "quaestio.evaluate",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'quaestio' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "COLUMNS", "DEFAULT_STEPS", "LLM", "QUESTION_SCHEMA", "AnswerShape", "Keyword",
    "KeywordSource", "ParsedQuestion", "QuaestioError", "QuestionError", "ReasonCode",
    "SatelliteError", "Satellites", "ScopeFilters", "StructuralHints", "UnknownNameError",
    "build_index", "confirm", "dispatch", "evaluate", "evaluate_answers", "evaluate_retrieval",
    "find_values", "has_compound_indicators", "load_satellites", "open_index",
    "parse_question", "parse_questions", "prepare", "read_gold", "search",
]
