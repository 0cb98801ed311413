"""A local OpenAI-compatible HTTP server for tests, notebooks and benchmarks: no key, no model.

It lives in the package (not under tests/) so that users can exercise their own pipelines
and notebooks over the real HTTP path without a provider, and the bench script can import it.
Standard library only; it binds 127.0.0.1 and nothing else.

    with FakeLLMServer(latency=0.2) as server:              # 200 ms per reply
        server.script(Reply.status(429, retry_after=0.01))  # the next request gets a 429
        row = parse_question("What is the premium?", llm=LLMConfig(base_url=server.url,
                                                                    model="fake"))
        assert server.count() == 2

Replies are scripted FIFO (`script`), then come from the `responder` (a function of the
request), by default `analysis_responder()`, which answers the consolidated quaestio prompt
with the offline values it carries, so every reply is valid unless told otherwise.
A request with `"stream": true` gets its reply as `chat.completion.chunk` server-sent events
(word by word unless `Reply.chunks` says otherwise, `Reply.chunk_delay` apart); a client that
closes the stream early is counted in `streams_aborted`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeLLMServer", "Reply", "Request", "analysis_responder"]


@dataclass
class Request:
    """One request the server received: its JSON body and headers."""

    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages") or []

    @property
    def payload(self) -> dict[str, Any]:
        """The first user message parsed as JSON (the quaestio prompt sends one), else {}."""
        for m in self.messages:
            if m.get("role") == "user":
                try:
                    value = json.loads(m.get("content") or "")
                except ValueError:
                    return {}
                return value if isinstance(value, dict) else {}
        return {}

    @property
    def question(self) -> str | None:
        return self.payload.get("question")

    @property
    def response_format(self) -> str | None:
        return (self.body.get("response_format") or {}).get("type")


@dataclass
class Reply:
    """What the server does with one request."""

    status: int = 200
    content: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # raw body, sent as is (errors, broken JSON envelopes)
    drop: bool = False  # close the connection without answering
    # Streaming (a request with "stream": true): the content in these pieces, one SSE chunk
    # each, `chunk_delay` seconds apart; None splits the content after each space.
    chunks: list[str] | None = None
    chunk_delay: float = 0.0

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        return cls(content=json.dumps(obj), **kw)

    @classmethod
    def error(
        cls, status: int, *, retry_after: float | None = None, message: str = "error", **kw: Any
    ) -> Reply:
        headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        body = json.dumps({"error": {"message": message, "type": "fake", "code": status}})
        return cls(status=status, headers=headers, body=body.encode(), **kw)

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        reply = then or cls()
        reply.delay = seconds
        return reply

    @classmethod
    def truncated(cls, text: str = '{"corrected_question": "wha') -> Reply:
        return cls(content=text, finish_reason="length")

    @classmethod
    def invalid_json(cls) -> Reply:
        return cls(content="Sure! Here is the JSON you asked for: {answer_type: amount,,}")

    @classmethod
    def refused(cls, text: str = "I can't help with that.") -> Reply:
        return cls(refusal=text)

    @classmethod
    def dropped(cls) -> Reply:
        return cls(drop=True)

    @classmethod
    def text(cls, content: str, *, chunk_delay: float = 0.0, **kw: Any) -> Reply:
        """Plain text: the whole message, or streamed word by word when asked to stream."""
        return cls(content=content, chunk_delay=chunk_delay, **kw)


Responder = Callable[[Request], Reply]


class FakeLLMServer:
    """An OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1, in a thread."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        json_schema: bool = True,
        model: str = "fake-model",
    ):
        self.responder = responder or analysis_responder()
        self.latency = latency
        self.json_schema = json_schema  # False: reject json_schema like servers without it
        self.model = model
        self.requests: list[Request] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self.streams_aborted = 0  # streamed replies the client closed before the end

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order, before the responder takes over."""
        with self._lock:
            self._queue.extend(replies)

    def count(self, question: str | None = None) -> int:
        """Requests received so far, or those about one question."""
        with self._lock:
            return sum(1 for r in self.requests if question is None or r.question == question)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queue.clear()

    def start(self) -> FakeLLMServer:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        threading.Thread(
            target=self._httpd.serve_forever, daemon=True, kwargs={"poll_interval": 0.05}
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            scripted = self._queue.popleft() if self._queue else None
        if scripted is not None:
            return scripted
        if not self.json_schema and request.response_format == "json_schema":
            return Reply.error(400, message="response_format json_schema is not supported")
        try:
            return self.responder(request)
        except Exception as exc:  # a broken responder is a 500, not a dropped connection
            return Reply.error(500, message=f"responder failed: {type(exc).__name__}: {exc}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the listen() backlog: a batch opens dozens of connections at once


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a batch reuses its connections
    # Headers and body leave in two writes; with Nagle on, the body waits for the client's
    # delayed ACK (~40 ms per request on Linux), which would swamp the latency under test.
    disable_nagle_algorithm = True
    fake: FakeLLMServer

    def log_message(self, *args: Any) -> None:  # quiet: tests read the request list instead
        pass

    def do_GET(self) -> None:
        """`GET /stats`: requests received so far, for callers in another process."""
        data = json.dumps({"requests": self.fake.count()}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        reply = self.fake._next(Request(body, {k.lower(): v for k, v in self.headers.items()}))
        pause = self.fake.latency + reply.delay
        if pause:
            time.sleep(pause)
        if reply.drop:
            self.close_connection = True
            self.connection.close()
            return
        if body.get("stream") and reply.status == 200 and reply.body is None:
            self._stream(body, reply)
            return
        data = reply.body if reply.body is not None else _completion(self.fake, body, reply)
        try:
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout): nothing left to answer
            self.close_connection = True

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        """`stream: true`: the reply as `chat.completion.chunk` events, then `[DONE]`; with
        `stream_options.include_usage`, a last chunk carries the token counts."""
        self.close_connection = True  # no content-length: the end of the body is the close
        content = reply.content or ""
        pieces = reply.chunks if reply.chunks is not None else _words(content)
        events = [_chunk(self.fake, body, {"role": "assistant", "content": ""}, None)]
        events += [_chunk(self.fake, body, {"content": p}, None) for p in pieces]
        events.append(_chunk(self.fake, body, {}, reply.finish_reason))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = json.loads(_completion(self.fake, body, reply))["usage"]
            events.append(_chunk(self.fake, body, None, None, usage))
        try:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for i, event in enumerate(events):
                if i > 1 and reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
                self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:  # the client went away mid-answer (it cancelled the generation)
            with self.fake._lock:
                self.fake.streams_aborted += 1


def _words(text: str) -> list[str]:
    return re.findall(r"\s*\S+\s*", text) or [text]


def _chunk(
    fake: FakeLLMServer,
    body: dict[str, Any],
    delta: dict[str, Any] | None,
    finish_reason: str | None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]
    )
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model") or fake.model,
        "choices": choices,
        "usage": usage,
    }


def _completion(fake: FakeLLMServer, body: dict[str, Any], reply: Reply) -> bytes:
    prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
    out = len(reply.content or reply.refusal or "")
    message = {"role": "assistant", "content": reply.content, "refusal": reply.refusal}
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or fake.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            # about four characters per token, like the usual tokenizers on English
            "usage": {
                "prompt_tokens": prompt // 4 + 1,
                "completion_tokens": out // 4 + 1,
                "total_tokens": prompt // 4 + out // 4 + 2,
            },
        }
    ).encode()


def analysis_responder(
    overrides: dict[str, Any] | Callable[[Request], dict[str, Any]] | None = None,
) -> Responder:
    """Answer the consolidated quaestio prompt with the offline values it carries.

    `overrides` (a dict, or a function of the request returning one) replaces fields of the
    answer, e.g. {"answer_type": "date"}. Other requests (the per-concern helpers) get the
    smallest reply their JSON schema accepts, plus the overrides.
    """

    def respond(request: Request) -> Reply:
        payload = request.payload
        if "offline" in payload:
            answer = dict(payload["offline"])
            answer.setdefault("corrected_question", payload.get("question"))
            answer["rewrites"] = []
        else:
            schema = (request.body.get("response_format") or {}).get("json_schema") or {}
            answer = _minimal(schema.get("schema") or {}, payload.get("question") or "") or {}
        extra = overrides(request) if callable(overrides) else (overrides or {})
        answer.update(extra)
        return Reply.json(answer)

    return respond


def _minimal(schema: dict[str, Any], text: str) -> Any:
    """The smallest value `schema` accepts: the question for free strings, the first enum."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return None if {"type": "null"} in schema["anyOf"] else _minimal(schema["anyOf"][0], text)
    kind = schema.get("type")
    if kind == "object":
        return {k: _minimal(v, text) for k, v in (schema.get("properties") or {}).items()}
    if kind is None:
        return None
    return {"array": [], "string": text, "boolean": False, "integer": 0, "number": 0}.get(kind)


def main(argv: list[str] | None = None) -> None:
    """`python -m quaestio.llm.testing --latency 0.2`: serve until interrupted, printing the
    URL first (a separate process keeps the server off the client's interpreter lock)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--no-json-schema",
        action="store_true",
        help="reject response_format json_schema (HTTP 400)",
    )
    args = parser.parse_args(argv)
    server = FakeLLMServer(latency=args.latency, json_schema=not args.no_json_schema).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
