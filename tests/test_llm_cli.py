"""`quaestio parse --llm` and `quaestio batch --llm` against the local server; the key comes
from the environment or a hidden prompt and is never printed."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from click.testing import CliRunner
from llm_server import KEY, server  # noqa: F401  (fixture)

from quaestio.cli import cli


def _env(fake):
    return {
        "QUAESTIO_LLM_BASE_URL": fake.url,
        "QUAESTIO_LLM_MODEL": "fake-model",
        "QUAESTIO_LLM_API_KEY": KEY,
    }


def test_parse_llm_prints_the_status_and_never_the_key(server):
    result = CliRunner().invoke(
        cli, ["parse", "--llm", "What is the annual premium?"], env=_env(server)
    )
    assert result.exit_code == 0, result.output
    assert "llm:         ok (fake-model" in result.output
    assert KEY not in result.output
    assert server.count() == 1
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_parse_llm_json_row(server):
    result = CliRunner().invoke(
        cli,
        [
            "parse",
            "--llm",
            "--json",
            "--llm-base-url",
            server.url,
            "--llm-model",
            "other",
            "What is the premium?",
        ],
        env={"QUAESTIO_LLM_API_KEY": KEY},
    )
    row = json.loads(result.output)
    assert row["provenance"]["llm_status"] == "ok" and row["provenance"]["llm_model"] == "other"


def test_the_key_can_be_typed_at_a_hidden_prompt(server):
    result = CliRunner().invoke(
        cli,
        ["parse", "--llm", "--llm-ask-key", "What is the premium?"],
        env={**_env(server), "QUAESTIO_LLM_API_KEY": ""},
        input="typed-secret-key-123\n",
    )
    assert result.exit_code == 0, result.output
    assert "typed-secret-key-123" not in result.output
    assert server.requests[0].headers["authorization"] == "Bearer typed-secret-key-123"


def test_missing_configuration_is_a_clear_error(monkeypatch):
    for var in ("QUAESTIO_LLM_BASE_URL", "QUAESTIO_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    result = CliRunner().invoke(cli, ["parse", "--llm", "What is the premium?"])
    assert result.exit_code == 2
    assert "QUAESTIO_LLM_BASE_URL" in result.output


def test_batch_llm_writes_every_row_with_its_status(server, tmp_path):
    source = tmp_path / "q.csv"
    source.write_text(
        "question\nWhat is the premium?\nWhat is the limit?\nWhat is the premium?\n\n"
    )
    out = tmp_path / "out.parquet"
    result = CliRunner().invoke(
        cli,
        [
            "batch",
            str(source),
            "-o",
            str(out),
            "--llm",
            "--llm-concurrency",
            "4",
            "--llm-cache",
            str(tmp_path / "cache.sqlite"),
        ],
        env=_env(server),
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table["llm_status"].to_pylist() == ["ok", "ok", "cached"]
    assert "llm: 2 ok, 1 cached" in result.output
    assert server.count() == 2
