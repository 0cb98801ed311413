"""Every failure mode over real HTTP: requests counted at the server, rows never lost, the
offline values kept field by field, and `llm_status` naming the reason."""

from __future__ import annotations

import json
import time

import pytest
from llm_server import make_llm, server  # noqa: F401  (fixtures)

from quaestio.analysis import parse_question
from quaestio.llm.testing import FakeLLMServer, Reply
from quaestio.schema import to_record

Q = "What is the annual premium in Germany?"
_PROVENANCE = {
    "parser_mode",
    "llm_model",
    "llm_status",
    "llm_tokens_in",
    "llm_tokens_out",
    "latency_ms",
    "warnings",
    "rules_fired",
}


def _same_as_offline(row, sats):
    offline = to_record(parse_question(Q, sats))
    got = to_record(row)
    diff = {
        k: (offline[k], got[k]) for k in offline if k not in _PROVENANCE and offline[k] != got[k]
    }
    assert not diff, f"fallback row differs from the offline row: {diff}"


def test_one_request_per_question_when_all_goes_well(server, make_llm):
    row = parse_question(Q, llm=make_llm(server))
    assert server.count() == 1, f"Expected 1 request, got {server.count()}"
    p = row.provenance
    assert (p.parser_mode, p.llm_status, p.llm_model) == ("llm", "ok", "fake-model")
    assert p.llm_tokens_in > 100 and p.llm_tokens_out > 0 and p.latency_ms > 0


@pytest.mark.parametrize(
    "replies, requests, status",
    [
        ([Reply.error(429, retry_after=0.02)], 2, "ok"),
        ([Reply.error(500), Reply.error(503)], 3, "ok"),
        ([Reply.error(500)] * 3, 3, "fallback:server_error"),
        ([Reply.error(429, retry_after=60)], 1, "fallback:rate_limited"),
        ([Reply.slow(1.0)] * 3, 3, "fallback:timeout"),
        ([Reply.dropped()] * 3, 3, "fallback:connection_error"),
        ([Reply.invalid_json()], 2, "ok"),
        ([Reply.invalid_json()] * 2, 2, "fallback:invalid_json"),
        ([Reply.truncated()] * 2, 2, "fallback:truncated"),
        (
            [Reply.json({"corrected_question": Q, "answer_type": 42})] * 2,
            2,
            "fallback:schema_violation",
        ),
        ([Reply.json({"answer_type": "amount"})], 2, "ok"),  # fields missing: re-asked once
        ([Reply.refused()], 1, "fallback:refusal"),
        ([Reply.error(401)], 1, "fallback:auth_error"),
        ([Reply(status=200, body=b'{"choices": [')] * 3, 3, "fallback:bad_response"),
    ],
    ids=[
        "429-retry-after",
        "5xx-then-ok",
        "5xx-exhausted",
        "429-too-long",
        "timeout",
        "dropped",
        "invalid-json-reask",
        "invalid-json-twice",
        "truncated",
        "schema-violation",
        "missing-fields-reask",
        "refusal",
        "auth",
        "broken-envelope",
    ],
)
def test_failure_modes(server, make_llm, tiny_sats, replies, requests, status):
    server.script(*replies)
    row = parse_question(Q, tiny_sats, llm=make_llm(server, timeout=0.3))
    assert server.count() == requests, f"Expected {requests} requests, got {server.count()}"
    assert row.provenance.llm_status == status
    if status.startswith("fallback"):
        assert row.provenance.parser_mode == "rules"
        assert any(w.startswith("W204") for w in row.provenance.warnings)
        _same_as_offline(row, tiny_sats)


def test_retry_after_is_honoured(server, make_llm, tiny_sats):
    server.script(Reply.error(429, retry_after=0.3))
    started = time.perf_counter()
    row = parse_question(Q, tiny_sats, llm=make_llm(server))
    assert row.provenance.llm_status == "ok"
    assert time.perf_counter() - started >= 0.3


def test_reask_sends_the_validation_error_back(server, make_llm, tiny_sats):
    server.script(
        Reply.json({"corrected_question": Q, "answer_type": ["x"], "answer_shape": "single"})
    )
    parse_question(Q, tiny_sats, llm=make_llm(server))
    second = server.requests[1].messages
    assert second[-2]["role"] == "assistant" and "answer_type" in second[-1]["content"]
    assert "schema_violation" in second[-1]["content"]


def test_connection_refused_keeps_the_row(make_llm, tiny_sats):
    with FakeLLMServer() as fake:
        llm = make_llm(fake)
    row = parse_question(Q, tiny_sats, llm=llm)  # the server is gone
    assert row.provenance.llm_status == "fallback:connection_error"
    _same_as_offline(row, tiny_sats)


def test_json_mode_when_the_server_lacks_json_schema(make_llm, tiny_sats):
    with FakeLLMServer(json_schema=False) as fake:
        llm = make_llm(fake)
        row = parse_question(Q, tiny_sats, llm=llm)
        assert row.provenance.llm_status == "ok"
        assert [r.response_format for r in fake.requests] == ["json_schema", "json_object"]
        parse_question("What is the limit of indemnity?", tiny_sats, llm=llm)
        assert fake.requests[-1].response_format == "json_object"  # remembered
        assert fake.count() == 3


def test_the_request_carries_the_schema_and_the_key_as_bearer(server, make_llm, tiny_sats):
    parse_question(Q, tiny_sats, llm=make_llm(server))
    request = server.requests[0]
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert request.body["model"] == "fake-model"
    assert request.headers["authorization"].endswith("LEAKCHECK-7f3a9c21")
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(schema["properties"])
    payload = request.payload
    assert payload["question"] == Q and payload["offline"]["answer_type"] == "amount"
    assert json.dumps(payload)  # plain JSON: dates as ISO strings
