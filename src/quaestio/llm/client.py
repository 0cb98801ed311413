"""One structured call to an OpenAI-compatible server, with bounded retries and re-asks.

The SDK's own retries are off (`max_retries=0`): quaestio counts every attempt itself, so a
row can say why it fell back and a test can count the requests. The conversation logic is a
generator shared by the sync and async drivers; it yields what to do next (call, or sleep)
and never raises: the outcome is a `Completion` whose `status` is "ok" or "fallback:<reason>".
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .config import ResolvedLLMConfig

M = TypeVar("M", bound=BaseModel)  # the reply model a call validates against
Outcome = tuple[Any, BaseException | None]  # (the SDK's response, or the error it raised)
Conversation = Generator[tuple[str, Any], Outcome, "Completion[M]"]


@dataclass
class Completion(Generic[M]):
    """The outcome of one structured call (after every retry and re-ask)."""

    reply: M | None
    status: str  # "ok" or "fallback:<reason>"
    attempts: int = 0  # HTTP requests sent
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    error: str | None = None  # redacted

    @property
    def ok(self) -> bool:
        return self.reply is not None


class LLMClient:
    """Sync and async structured calls against one configured (resolved) endpoint."""

    def __init__(self, config: ResolvedLLMConfig):
        self.config = config
        self._format = "json_object" if config.response_format == "json_object" else "json_schema"
        self._sync: Any = None
        self._resume_at = 0.0  # a 429's Retry-After pauses every request, not just its own

    def _kwargs(self) -> dict[str, Any]:
        c = self.config
        return {
            "base_url": c.base_url,
            "api_key": c.api_key,
            "timeout": c.timeout,
            "max_retries": 0,
        }

    def complete(
        self, messages: list[dict], model: type[M], schema: dict, name: str = "analysis"
    ) -> Completion[M]:
        if self._sync is None:
            from openai import OpenAI

            self._sync = OpenAI(**self._kwargs())
            _ = self._sync.chat.completions  # the SDK imports it lazily: not in the first latency
        started = time.perf_counter()
        conversation = self._conversation(messages, model, schema, name)
        try:
            action, value = next(conversation)
            while True:
                if action == "sleep":
                    time.sleep(value)
                    action, value = conversation.send((None, None))
                    continue
                time.sleep(max(0.0, self._resume_at - time.monotonic()))
                outcome: Outcome
                try:
                    outcome = (self._sync.chat.completions.create(**value), None)
                except Exception as exc:  # classified by the conversation
                    outcome = (None, exc)
                action, value = conversation.send(outcome)
        except StopIteration as stop:
            return _timed(stop.value, started)

    def async_session(self) -> Any:
        """A fresh `AsyncOpenAI` for one event loop (a batch): its connections belong to
        that loop, so concurrent batches each open and close their own."""
        from openai import AsyncOpenAI

        session = AsyncOpenAI(**self._kwargs())
        _ = session.chat.completions  # imported lazily by the SDK: not in the first latency
        return session

    async def acomplete(
        self,
        messages: list[dict],
        model: type[M],
        schema: dict,
        name: str = "analysis",
        *,
        session: Any = None,
    ) -> Completion[M]:
        if session is None:
            session = self.async_session()
            try:
                return await self.acomplete(messages, model, schema, name, session=session)
            finally:
                await session.close()
        started = time.perf_counter()
        conversation = self._conversation(messages, model, schema, name)
        try:
            action, value = next(conversation)
            while True:
                if action == "sleep":
                    await asyncio.sleep(value)
                    action, value = conversation.send((None, None))
                    continue
                while (wait := self._resume_at - time.monotonic()) > 0:
                    await asyncio.sleep(wait)
                outcome: Outcome
                try:
                    outcome = (await session.chat.completions.create(**value), None)
                except Exception as exc:
                    outcome = (None, exc)
                action, value = conversation.send(outcome)
        except StopIteration as stop:
            return _timed(stop.value, started)

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
            self._sync = None

    def _conversation(
        self, messages: list[dict], model: type[M], schema: dict, name: str
    ) -> Conversation[M]:
        c = self.config
        messages = list(messages)
        result: Completion[M] = Completion(None, "")
        failures = reasks = 0
        while True:
            # The schema goes in extra_body, sent as is: the SDK's typed-parameter transform
            # walks every node of it, which costs more than the rest of the request.
            request = {
                "model": c.model,
                "messages": messages,
                "temperature": c.temperature,
                "max_tokens": c.max_tokens,
                "extra_body": {"response_format": self._response_format(schema, name)},
            }
            result.attempts += 1
            response, exc = yield ("call", request)
            if exc is not None:
                reason, wait = self._classify(exc, failures)
                if reason == "unsupported_format":
                    self._format = "json_object"  # remembered for every later question
                    continue
                if wait is not None and failures < c.max_retries:
                    failures += 1
                    yield ("sleep", wait)  # the driver answers (None, None)
                    continue
                return self._fail(result, reason, exc)
            usage = getattr(response, "usage", None)
            result.tokens_in += getattr(usage, "prompt_tokens", 0) or 0
            result.tokens_out += getattr(usage, "completion_tokens", 0) or 0
            if not getattr(response, "choices", None):
                return self._fail(result, "bad_response", "the reply has no choices")
            choice = response.choices[0]
            if getattr(choice.message, "refusal", None):
                # A refusal is a decision, not noise: asking again costs a call for the same no.
                return self._fail(result, "refusal", choice.message.refusal)
            content = choice.message.content or ""
            invalid, error = _check(content, model, choice.finish_reason)
            if invalid is None:
                result.reply, result.status = error, "ok"
                return result
            if reasks >= c.reasks:
                return self._fail(result, invalid, error)
            reasks += 1
            messages += [
                {"role": "assistant", "content": content},
                {
                    "role": "user",
                    "content": f"Your reply is not valid ({invalid}): "
                    f"{error}\nAnswer again with only the JSON object the schema asks "
                    f"for, complete, with no other text.",
                },
            ]

    def _response_format(self, schema: dict, name: str) -> dict:
        if self._format == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        return {"type": "json_object"}

    def _classify(self, exc: BaseException, failures: int = 0) -> tuple[str, float | None]:
        """(reason, pause before a retry or None when retrying cannot help).

        The pause doubles with each failure (`backoff`, 2x, 4x, ...), jittered by
        [-25%, +25%] so that concurrent retries spread out.
        """
        import openai

        c = self.config
        backoff = c.backoff * 2 ** min(failures, 16) * (0.75 + random.random() / 2)
        if isinstance(exc, openai.APITimeoutError):
            return "timeout", backoff
        if isinstance(exc, openai.APIConnectionError):
            return "connection_error", backoff
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if status == 429:
                after = _retry_after(exc.response.headers)
                if after is not None and after > c.retry_after_max:
                    return "rate_limited", None
                wait = backoff if after is None else after
                self._resume_at = max(self._resume_at, time.monotonic() + wait)
                return "rate_limited", wait
            if status >= 500 or status == 408:
                return "server_error", backoff
            if (
                status in (400, 422)
                and self._format == "json_schema"
                and c.response_format == "auto"
            ):
                return "unsupported_format", None
            return ("auth_error" if status in (401, 403) else f"http_{status}"), None
        return "bad_response", backoff  # e.g. a garbled envelope from a proxy: transient

    def _fail(self, result: Completion[M], reason: str, error: Any) -> Completion[M]:
        result.status = f"fallback:{reason}"
        text = (
            f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
        )
        result.error = self.config.redact(text)[:500]
        return result


def _check(content: str, model: type[M], finish_reason: str | None) -> tuple[str | None, Any]:
    """(None, reply) when `content` is a valid `model`, else (reason, error text)."""
    text = _json_part(content)
    try:
        data = json.loads(text)
    except ValueError as exc:
        return ("truncated" if finish_reason == "length" else "invalid_json"), str(exc)
    try:
        return None, model.model_validate(data)
    except ValidationError as exc:
        return "schema_violation", str(exc)


def _json_part(content: str) -> str:
    # JSON mode on small models often wraps the object in prose or a ``` fence.
    text = content.strip()
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def _retry_after(headers: Any) -> float | None:
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(key)
        if raw:
            try:
                return max(0.0, float(raw) / scale)
            except ValueError:
                return None
    return None


def _timed(result: Completion[M], started: float) -> Completion[M]:
    result.latency_ms = (time.perf_counter() - started) * 1000
    return result
