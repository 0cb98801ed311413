"""quaestio: turn a question into one typed, auditable row of `question_df`."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType as _ModuleType
from typing import Any

__version__ = "0.1.0"

# Every public name is importable from the top (`from quaestio import parse_question`) but
# loaded on first use, so that `quaestio --help` or `import quaestio.errors` pays for neither
# pandas, polars and pyarrow nor the later layers.
_LAZY = {
    **dict.fromkeys(
        (
            "DEFAULT_STEPS",
            "has_compound_indicators",
            "iter_parse",
            "parse_question",
            "parse_questions",
            "prepare",
        ),
        "quaestio.analysis",
    ),
    **dict.fromkeys(
        ("QuaestioError", "QuestionError", "ReasonCode", "SatelliteError", "UnknownNameError"),
        "quaestio.errors",
    ),
    **dict.fromkeys(("Satellites", "load_satellites"), "quaestio.satellites"),
    **dict.fromkeys(("COLUMNS", "COMPACT_SCHEMA", "QUESTION_SCHEMA"), "quaestio.schema"),
    **dict.fromkeys(
        (
            "AnswerShape",
            "Keyword",
            "KeywordSource",
            "ParsedQuestion",
            "ScopeFilters",
            "StructuralHints",
        ),
        "quaestio.types",
    ),
    "LLM": "quaestio.llm",
    **dict.fromkeys(("build_index", "open_index", "search", "dispatch"), "quaestio.retrieval"),
    **dict.fromkeys(("confirm", "find_values"), "quaestio.confirm"),
    **dict.fromkeys(
        ("evaluate", "evaluate_answers", "evaluate_retrieval", "read_gold"), "quaestio.evaluate"
    ),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'quaestio' has no attribute {name!r}")


class _Package(_ModuleType):
    # Importing the subpackage `quaestio.confirm` (or `.evaluate`) binds the module to the
    # package attribute of the same name; the verb `quaestio.confirm` must stay the verb.
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, _ModuleType) and _LAZY.get(name) == value.__name__:
            self.__dict__.pop(name, None)  # the verb loads on next access
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _llm_mode(llm: Any, satellites: Any) -> Any:
    # The composition root wires the LLM layer into the parse (`refiners`), importing it only
    # when a caller asks for the LLM mode with `llm=True` or an `LLMConfig`.
    config = sys.modules.get("quaestio.llm.config")  # an LLMConfig means it is imported
    if llm is True or (config is not None and isinstance(llm, config.LLMConfig)):
        from .llm.engine import as_llm

        return as_llm(llm, satellites)
    return None


from .refiners import register_resolver  # noqa: E402

register_resolver(_llm_mode)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)
