"""The LLM mode: one consolidated structured call per question over any OpenAI-compatible
server, checked against the satellites, cached, with per-field fallback to the offline rows.

    from quaestio import parse_question
    from quaestio.llm import LLM
    llm = LLM(base_url="http://127.0.0.1:8080/v1", model="smollm2")   # or LLM() from env
    row = parse_question("What is the annual premium?", llm=llm)
    row.provenance.llm_status                                           # 'ok'

Nothing here imports `openai` until a request is sent.
"""

from .cache import ReplyCache, normalize
from .client import Completion, LLMClient
from .config import (
    LLMConfig,
    LLMConfigError,
    LLMUnavailableError,
    ResolvedLLMConfig,
    redact,
)
from .engine import LLM, as_llm
from .prompt import PROMPT_VERSION

__all__ = [
    "LLM",
    "LLMConfig",
    "LLMConfigError",
    "LLMUnavailableError",
    "ResolvedLLMConfig",
    "LLMClient",
    "Completion",
    "ReplyCache",
    "PROMPT_VERSION",
    "as_llm",
    "normalize",
    "redact",
]
