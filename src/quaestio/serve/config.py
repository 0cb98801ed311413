"""The service's settings: one frozen object, built by the CLI or by a caller."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ServeConfig:
    """What `create_app` needs; every limit has a default fit for one small machine.

    Args:
        index: The folder of an index built with `quaestio.retrieval.build_index` (or an
            `Index`); None serves parse only (search and conversations answer 503).
        satellites: A folder of satellite tables; None: the bundled ones.
        llm: An `LLMConfig` (or True: from `QUAESTIO_LLM_*`) for parsing and streamed
            answers; None: offline, extractive answers.
        api_keys: A file of hashed keys (`quaestio serve-key` writes its lines); None reads
            `QUAESTIO_API_KEYS`; with no key at all the service accepts loopback clients only.
        store: The SQLite file of the conversation memory; None: a file in a temp folder.
        backend: The retrieval backend for search and conversations (None: the dispatch's).
        rate_per_minute: Refill rate of the per-key token bucket (429 with Retry-After past it).
        burst: Size of that bucket: requests a key may send at once.
        max_body_bytes: Larger request bodies get 413 before they are read in full.
        max_batch: Most questions in one parse or search request.
        max_question_chars: A longer question is a row with error_code `question_too_long`.
        request_timeout: Seconds a stateless request may take (504 past it).
        max_turns: Turns the memory keeps per conversation.
        max_age_seconds: Age past which a conversation is forgotten.
        context_turns: Earlier turns passed to the parse as `context=`.
        heartbeat_seconds: Comment lines on idle event streams (proxies close silent ones).
        reconnect_grace: Seconds a turn waits for a client to come back before a
            disconnect cancels it.
        token_budget: Prompt tokens for instructions, question and passages (see
            `quaestio.serve.prompt`).
        k: Hits per question when the row's `retrieval_k` is empty.
        cpu_threads: Parses and searches running at once in one worker (they hold the
            GIL; others queue); scale with `--workers` instead.
    """

    index: Any = None
    satellites: str | Path | None = None
    llm: Any = None
    api_keys: str | Path | None = None
    store: str | Path | None = None
    backend: str | None = None
    rate_per_minute: float = 600.0
    burst: int = 60
    max_body_bytes: int = 1_000_000
    max_batch: int = 256
    max_question_chars: int = 2_000
    request_timeout: float = 30.0
    max_turns: int = 20
    max_age_seconds: float = 7 * 24 * 3600.0
    context_turns: int = 3
    heartbeat_seconds: float = 15.0
    reconnect_grace: float = 2.0
    token_budget: int = 3_000
    k: int = 5
    cpu_threads: int = 2
    extra: dict[str, Any] = field(default_factory=dict)
