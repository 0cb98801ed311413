"""LLM settings: environment, satellites' defaults rows, explicit arguments, and the key."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import load_satellites
from quaestio.llm import LLM, LLMConfig, LLMConfigError


def test_environment_then_defaults_rows_then_arguments(monkeypatch, tiny_sats):
    monkeypatch.setenv("QUAESTIO_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("QUAESTIO_LLM_MODEL", "env-model")
    monkeypatch.setenv("QUAESTIO_LLM_CONCURRENCY", "3")
    monkeypatch.setenv("QUAESTIO_LLM_API_KEY", "sk-from-env-123")
    llm = LLM(satellites=tiny_sats, model="arg-model")
    c = llm.config
    assert (c.base_url, c.model, c.concurrency, c.api_key) == (
        "http://127.0.0.1:9/v1",
        "arg-model",
        3,
        "sk-from-env-123",
    )
    assert (c.max_retries, c.rewrite_weight, c.rewrites) == (3, 0.3, 4)  # defaults rows
    assert "sk-from-env-123" not in repr(llm) + repr(c)


def test_a_project_tunes_the_llm_in_its_defaults_rows(tiny_sats):
    rows = pl.DataFrame(
        {
            "key": ["llm_max_retries", "weight_llm_rewrite", "llm_concurrency"],
            "value": ["7", "0.2", "32"],
            "description": ["", "", ""],
        }
    )
    sats = load_satellites("tests/fixtures/satellites", extra={"defaults": rows}, override=True)
    c = LLM(base_url="http://127.0.0.1:9/v1", model="m", satellites=sats).config
    assert (c.max_retries, c.rewrite_weight, c.concurrency) == (7, 0.2, 32)


def test_missing_base_url_names_the_variable(monkeypatch, tiny_sats):
    for var in ("QUAESTIO_LLM_BASE_URL", "QUAESTIO_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LLMConfigError, match="QUAESTIO_LLM_BASE_URL"):
        LLM()
    with pytest.raises(TypeError, match="llm must be"):
        from quaestio import parse_question

        parse_question("What is the premium?", tiny_sats, llm="http://127.0.0.1:9/v1")


def test_json_mode_from_the_start(tiny_sats):
    from quaestio import parse_question
    from quaestio.llm.testing import FakeLLMServer

    with FakeLLMServer() as fake:
        llm = LLM(
            LLMConfig(base_url=fake.url, model="m", response_format="json_object"),
            satellites=tiny_sats,
        )
        row = parse_question("What is the premium?", tiny_sats, llm=llm)
        assert [r.response_format for r in fake.requests] == ["json_object"]
    assert row.provenance.llm_status == "ok"


def test_the_llm_mode_without_its_client_library_names_the_extra():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['openai'] = None\n"
        "from quaestio.llm import LLM, LLMConfig, LLMUnavailableError\n"
        "try:\n    LLM(LLMConfig(base_url='http://127.0.0.1:9/v1', model='m'))\n"
        "except LLMUnavailableError as e:\n    print(e)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "pip install 'quaestio[llm]'" in out
