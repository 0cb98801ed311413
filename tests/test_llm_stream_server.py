"""The test LLM server streams like an OpenAI-compatible one: chunks, usage, [DONE], aborts."""

from __future__ import annotations

import time

import httpx
import openai

from quaestio.llm.testing import FakeLLMServer, Reply


def test_streamed_reply_arrives_in_pieces_with_usage():
    with FakeLLMServer(responder=lambda r: Reply.text("The premium is 480 EUR.")) as fake:
        client = openai.OpenAI(base_url=fake.url, api_key="x")
        pieces, usage = [], None
        for chunk in client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "premium?"}],
            stream=True,
            stream_options={"include_usage": True},
        ):
            pieces += [c.delta.content for c in chunk.choices if c.delta.content]
            usage = chunk.usage or usage
    assert pieces == ["The ", "premium ", "is ", "480 ", "EUR."], pieces
    assert usage is not None and usage.completion_tokens > 0


def test_a_client_that_leaves_mid_stream_is_counted():
    with FakeLLMServer(responder=lambda r: Reply.text("a b c d e f", chunk_delay=0.1)) as fake:
        with httpx.stream(
            "POST",
            fake.url + "/chat/completions",
            json={"model": "m", "messages": [], "stream": True},
        ) as response:
            next(response.iter_lines())
        deadline = time.monotonic() + 3
        while fake.streams_aborted == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.streams_aborted == 1
