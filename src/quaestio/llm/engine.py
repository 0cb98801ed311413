"""`LLM`: the configured LLM mode — one consolidated call per question, cached, in batches.

The offline pass runs first (the caller hands over its `Draft`); its results and the
candidate concepts go into the prompt; the reply is checked against the satellites, merged
field by field, and the row's provenance says `ok`, `cached` or `fallback:<reason>`.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..satellites import Satellites, bundled_satellites
from .cache import ReplyCache, cache_key
from .client import Completion, LLMClient
from .config import LLMConfig, require_client_library
from .models import Analysis, analysis_enums, json_schema
from .prompt import PROMPT_VERSION, allowed_shapes, candidates, messages

Finish = Callable[[Any, float], dict]  # (draft, started) -> record: the pipeline's builder


@dataclass
class Prepared:
    draft: Any
    started: float
    offline: dict
    names: list[str]
    messages: list[dict]
    schema: dict
    key: str


class LLM:
    """A configured LLM mode: pass it as `llm=` to `parse_question` / `parse_questions`.

    Args:
        config: An `LLMConfig`; None reads `QUAESTIO_LLM_*` from the environment.
        satellites: Where unset knobs (`llm_*` rows of `defaults`) come from; bundled if None.
        **overrides: `LLMConfig` fields, e.g. `LLM(base_url=..., model=..., concurrency=32)`.

    Reuse one instance: it keeps the HTTP clients, the cache and the response format the
    server turned out to support. It never touches the network until a question is parsed.
    """

    def __init__(
        self,
        config: LLMConfig | None = None,
        *,
        satellites: Satellites | None = None,
        **overrides: Any,
    ):
        base = config if config is not None else LLMConfig.from_env()
        base = replace(base, **{k: v for k, v in overrides.items() if v is not None})
        base.require()  # before loading any table: a missing URL is the likelier mistake
        require_client_library()
        self.config = base.resolved((satellites or bundled_satellites()).defaults)
        self.client = LLMClient(self.config)
        self.cache = ReplyCache(self.config.cache_path) if self.config.cache_path else None

    def __repr__(self) -> str:
        return f"LLM(base_url={self.config.base_url!r}, model={self.config.model!r})"

    # -- one question -------------------------------------------------------------------
    def prepare(self, draft: Any, started: float, finish: Finish) -> Prepared:
        offline = finish(draft, started)
        c = self.config
        names = candidates(draft, c.max_candidates)
        sats = draft.sats
        schema = json_schema(
            Analysis,
            analysis_enums(
                sats.answer_types["answer_type"].to_list(), allowed_shapes(sats), names
            ),
        )
        msgs = messages(
            draft, offline, names, rewrites=c.rewrites, rewrite_language=c.rewrite_language
        )
        options = {
            k: draft.options.get(k) for k in ("language", "toc", "scope", "context", "parties")
        }
        key = cache_key(
            c.model,
            PROMPT_VERSION,
            draft.original,
            [sats.version, names, draft.language, options, c.rewrites, c.rewrite_language],
        )
        return Prepared(draft, started, offline, names, msgs, schema, key)

    def parse_draft(self, draft: Any, started: float, finish: Finish) -> dict:
        """The finished record of one question whose offline steps have run."""
        job = self.prepare(draft, started, finish)
        result = self._from_cache(job) or self._store(
            job, self.client.complete(job.messages, Analysis, job.schema)
        )
        return self.finish(job, result, finish)

    def finish(self, job: Prepared, result: Completion[Analysis], finish: Finish) -> dict:
        from .merge import apply, provenance
        from .validate import check

        record = job.offline
        if result.reply is not None:
            try:
                checked = check(result.reply, job.draft, job.offline, job.names, self.config)
                apply(job.draft, checked, self.config.rewrite_weight, job.offline)
                record = finish(job.draft, job.started)
            except Exception as exc:  # a reply the checks did not foresee never costs the row
                result = replace(
                    result,
                    reply=None,
                    status="fallback:merge_error",
                    error=self.config.redact(f"{type(exc).__name__}: {exc}"),
                )
                record = job.offline
            if job.draft.options.get("llm_corrected") and result.ok:
                record["corrected_question"] = job.draft.options["llm_corrected"]
        provenance(
            record,
            result,
            self.config.model,
            used=result.ok,
            started_ms=job.offline.get("latency_ms") or 0.0,
            secret=self.config.api_key,
        )
        return record

    # -- batches --------------------------------------------------------------------------
    def parse_drafts(
        self, items: list[tuple[Any, float]], finish: Finish, *, progress: bool | None = None
    ) -> list[dict]:
        """Records for many drafts, calls running concurrently (`concurrency`), in order."""
        return run_sync(self._gather(items, finish, _bar(len(items), progress)))

    async def _gather(
        self, items: list[tuple[Any, float]], finish: Finish, bar: Any
    ) -> list[dict]:
        limit = asyncio.Semaphore(max(1, self.config.concurrency))
        inflight: dict[str, asyncio.Future[Completion[Analysis] | None]] = {}
        session = self.client.async_session()

        async def one(draft: Any, started: float) -> dict:
            # Preparing inside the slot lets one question's CPU work overlap the others'
            # waiting on the network, instead of all of it running before the first request.
            shared: asyncio.Future[Completion[Analysis] | None] | None = None
            async with limit:
                job = self.prepare(draft, started, finish)
                result = self._from_cache(job)
                if result is None and job.key in inflight:
                    shared = inflight[job.key]
                elif result is None:
                    mine = inflight[job.key] = asyncio.get_running_loop().create_future()
                    try:
                        result = self._store(
                            job,
                            await self.client.acomplete(
                                job.messages, Analysis, job.schema, session=session
                            ),
                        )
                    finally:
                        mine.set_result(result)
            if shared is not None:  # the same question is on its way: wait outside the slot
                first = await shared
                result = (
                    _shared(first)
                    if first is not None
                    else self._store(
                        job,
                        await self.client.acomplete(
                            job.messages, Analysis, job.schema, session=session
                        ),
                    )
                )
            assert result is not None  # from the cache, this request, or the shared one
            record = self.finish(job, result, finish)
            if bar is not None:
                bar.update(1)
            return record

        try:
            return await asyncio.gather(*(one(d, s) for d, s in items))
        finally:
            await session.close()
            if bar is not None:
                bar.close()

    # -- cache ----------------------------------------------------------------------------
    def _from_cache(self, job: Prepared) -> Completion[Analysis] | None:
        if self.cache is None:
            return None
        raw = self.cache.get(job.key)
        if raw is None:
            return None
        try:
            return Completion(Analysis.model_validate_json(raw), "cached")
        except ValueError:
            return None  # written by an older model version: ask again

    def _store(self, job: Prepared, result: Completion[Analysis]) -> Completion[Analysis]:
        if self.cache is not None and result.reply is not None:
            self.cache.put(
                job.key,
                self.config.model,
                PROMPT_VERSION,
                job.draft.original,
                result.reply.model_dump_json(),
            )
        return result

    def hypothetical_passages(self, question: str, n: int = 3, **options: Any) -> list[str]:
        """See `quaestio.llm.helpers.hypothetical_passages` (HyDE retrieval)."""
        from .helpers import hypothetical_passages

        return hypothetical_passages(question, n, llm=self, **options)

    def rewrite_query(
        self, question: str, domain_hint: str | None = None, **options: Any
    ) -> list[str]:
        """See `quaestio.llm.helpers.rewrite_query`."""
        from .helpers import rewrite_query

        return rewrite_query(question, domain_hint, llm=self, **options)

    def close(self) -> None:
        self.client.close()
        if self.cache is not None:
            self.cache.close()


def _shared(first: Completion[Analysis]) -> Completion[Analysis]:
    if not first.ok:
        return replace(first, tokens_in=0, tokens_out=0, attempts=0)
    return Completion(first.reply, "cached")


def as_llm(llm: Any, satellites: Satellites | None = None) -> LLM:
    """`llm=` as callers pass it: an `LLM`, an `LLMConfig`, True (from the environment)."""
    if isinstance(llm, LLM):
        return llm
    if isinstance(llm, LLMConfig):
        return LLM(llm, satellites=satellites)
    if llm is True:
        return LLM(satellites=satellites)
    raise TypeError(f"llm must be an LLM, an LLMConfig or True, not {type(llm).__name__}")


def run_sync(coroutine: Any) -> Any:
    """Run a coroutine to completion, even when the caller is inside an event loop
    (a notebook): then it runs on a fresh loop in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _bar(total: int, progress: bool | None) -> Any:
    if progress is None:
        progress = total >= 50 and sys.stderr.isatty()
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="q", file=sys.stderr, desc="llm")
