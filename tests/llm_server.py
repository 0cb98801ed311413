"""Fixtures for the LLM tests: a real OpenAI-compatible HTTP server on 127.0.0.1 (from
`quaestio.llm.testing`) and `LLM` instances with millisecond timeouts and backoffs, so the
failure modes run over HTTP without sleeping for seconds."""

from __future__ import annotations

import pytest

from quaestio.llm import LLM
from quaestio.llm.testing import FakeLLMServer

KEY = "sk-test-LEAKCHECK-7f3a9c21"


@pytest.fixture
def server():
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def make_llm(tiny_sats):
    made = []

    def make(fake: FakeLLMServer, **overrides) -> LLM:
        options = {
            "base_url": fake.url,
            "model": "fake-model",
            "api_key": KEY,
            "timeout": 0.5,
            "backoff": 0.005,
            "max_retries": 2,
            "reasks": 1,
            "concurrency": 8,
            **overrides,
        }
        llm = LLM(satellites=tiny_sats, **options)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        llm.close()
