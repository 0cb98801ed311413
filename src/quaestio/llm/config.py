"""LLM settings: where the server is, which model, and how hard to try before falling back.

Every knob left as None takes its value from the satellites' `defaults` rows (`llm_*`), so a
project tunes retries or concurrency in its tables; arguments and `QUAESTIO_LLM_*` variables
override them. The API key comes only from an argument or `QUAESTIO_LLM_API_KEY`, is never
printed by `repr`, and is scrubbed from every message quaestio writes (`redact`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..errors import QuaestioError

if TYPE_CHECKING:
    from ..satellites.defaults import Defaults

Vocabulary = Collection[str] | Callable[[str], bool]
ResponseFormat = Literal["auto", "json_schema", "json_object"]
T = TypeVar("T")

ENV = {
    "base_url": "QUAESTIO_LLM_BASE_URL",
    "api_key": "QUAESTIO_LLM_API_KEY",
    "model": "QUAESTIO_LLM_MODEL",
    "cache_path": "QUAESTIO_LLM_CACHE",
    "concurrency": "QUAESTIO_LLM_CONCURRENCY",
    "timeout": "QUAESTIO_LLM_TIMEOUT",
}


class LLMConfigError(QuaestioError, ValueError):
    """The LLM mode was asked for but is not configured (no base URL or no model)."""


class LLMUnavailableError(QuaestioError, ImportError):
    """The LLM mode was asked for but its client library (openai) is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "the LLM mode needs the openai package; install it with: "
            "pip install 'quaestio[llm]' (from a checkout: pip install '.[llm]')"
        )


def require_client_library() -> None:
    """Fail early, naming the extra, when the OpenAI client is missing."""
    try:
        import openai  # noqa: F401
    except ImportError as exc:
        raise LLMUnavailableError() from exc


@dataclass(frozen=True)
class LLMConfig:
    """Settings of the LLM mode.

    Args:
        base_url: An OpenAI-compatible endpoint, e.g. "http://127.0.0.1:8080/v1".
        model: The model name the server expects.
        api_key: The key; None reads `QUAESTIO_LLM_API_KEY` (local servers accept any).
        timeout: Seconds per request. max_retries: extra attempts after a timeout, 429,
            5xx or connection error. reasks: extra attempts after invalid or
            schema-violating JSON, sending the validation error back. backoff: first
            retry pause in seconds (doubled each time). retry_after_max: longest
            `Retry-After` honoured before giving up.
        concurrency: Requests in flight in `parse_questions`.
        cache_path: SQLite file of the persistent cache; None: no cache.
        temperature: Sampling temperature (0 for repeatable rows).
        rewrites: Phrasings asked for (3-5). rewrite_weight: weight of `llm_rewrite` keywords.
        rewrite_language: Language of the rewrites; "" keeps the question's.
        vocabulary: The corpus vocabulary: a set of terms (or a predicate on one term),
            compared in folded form (`quaestio.analysis.text.fold`: lowercase, no accents);
            rewrite terms the corpus never contains are dropped and counted (warning W203).
        max_candidates: Most candidate concepts offered to the model.
        max_tokens: Most tokens one reply may take (a runaway reply ends as "truncated").
        response_format: "json_schema" (structured outputs), "json_object" (JSON mode plus
            validation) or "auto" (json_schema, then json_object if the server rejects it).
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float | None = None
    max_retries: int | None = None
    reasks: int | None = None
    backoff: float | None = None
    retry_after_max: float | None = None
    concurrency: int | None = None
    cache_path: str | None = None
    temperature: float | None = None
    rewrites: int | None = None
    rewrite_weight: float | None = None
    rewrite_language: str | None = None
    vocabulary: Vocabulary | None = field(default=None, repr=False, compare=False)
    max_candidates: int | None = None
    max_tokens: int | None = None
    response_format: ResponseFormat = "auto"

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Read `QUAESTIO_LLM_*` variables; keyword arguments that are not None win."""
        values: dict[str, Any] = {}
        for name, var in ENV.items():
            raw = os.environ.get(var)
            if raw:
                values[name] = _cast(name, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def require(self) -> LLMConfig:
        """Self, or `LLMConfigError` naming what is missing (base URL, model)."""
        missing = [n for n in ("base_url", "model") if not getattr(self, n)]
        if missing:
            raise LLMConfigError(
                f"LLM mode needs {' and '.join(missing)}: pass them (base_url=..., model=...) "
                f"or set {', '.join(ENV[n] for n in missing)}"
            )
        return self

    def resolved(self, defaults: Defaults) -> ResolvedLLMConfig:
        """Every unset knob taken from the satellites' `Defaults` (`llm_*` rows), the key
        from the environment, the vocabulary folded once."""
        self.require()
        assert self.base_url and self.model  # require() raised otherwise
        d = defaults
        vocabulary = self.vocabulary
        if vocabulary is not None and not callable(vocabulary):
            from ..analysis.text import fold

            vocabulary = frozenset(fold(t) for t in vocabulary)
        return ResolvedLLMConfig(
            base_url=self.base_url,
            model=self.model,
            api_key=(
                self.api_key
                if self.api_key is not None
                else os.environ.get(ENV["api_key"]) or "not-needed"
            ),
            timeout=_either(self.timeout, d.llm_timeout_s),
            max_retries=_either(self.max_retries, d.llm_max_retries),
            reasks=_either(self.reasks, d.llm_reasks),
            backoff=_either(self.backoff, d.llm_backoff_s),
            retry_after_max=_either(self.retry_after_max, d.llm_retry_after_max_s),
            concurrency=_either(self.concurrency, d.llm_concurrency),
            cache_path=self.cache_path,
            temperature=_either(self.temperature, d.llm_temperature),
            rewrites=_either(self.rewrites, d.llm_rewrites),
            rewrite_weight=_either(self.rewrite_weight, d.weight_llm_rewrite),
            rewrite_language=_either(self.rewrite_language, d.llm_rewrite_language),
            vocabulary=vocabulary,
            max_candidates=_either(self.max_candidates, d.llm_max_candidates),
            max_tokens=_either(self.max_tokens, d.llm_max_tokens),
            response_format=self.response_format,
        )

    def redact(self, text: str) -> str:
        return redact(text, self.api_key)


@dataclass(frozen=True, kw_only=True)
class ResolvedLLMConfig:
    """An `LLMConfig` with every knob filled (`LLMConfig.resolved`): what `LLM.config` holds.

    The fields are those of `LLMConfig`, none of them unset; `cache_path` None means no
    cache, and the vocabulary, when it is a collection, is a frozenset of folded terms.
    """

    base_url: str
    model: str
    api_key: str = field(repr=False)
    timeout: float
    max_retries: int
    reasks: int
    backoff: float
    retry_after_max: float
    concurrency: int
    cache_path: str | None
    temperature: float
    rewrites: int
    rewrite_weight: float
    rewrite_language: str
    vocabulary: frozenset[str] | Callable[[str], bool] | None = field(repr=False, compare=False)
    max_candidates: int
    max_tokens: int
    response_format: ResponseFormat

    def redact(self, text: str) -> str:
        return redact(text, self.api_key)

    def knows(self, term: str) -> bool:
        """Whether the corpus vocabulary holds the folded `term` (always True without one)."""
        if self.vocabulary is None:
            return True
        if callable(self.vocabulary):
            return bool(self.vocabulary(term))
        return term in self.vocabulary


def _either(value: T | None, default: T) -> T:
    return default if value is None else value


def redact(text: str, secret: str | None) -> str:
    """`text` with the secret replaced by ***."""
    if not secret or secret == "not-needed" or len(secret) < 4:
        return text
    return text.replace(secret, "***")


def _cast(name: str, raw: str) -> Any:
    kind = {f.name: f.type for f in fields(LLMConfig)}[name]
    if "int" in str(kind) and "float" not in str(kind):
        return int(raw)
    if "float" in str(kind):
        return float(raw)
    return raw
