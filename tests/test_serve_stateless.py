"""`/v1/parse` and `/v1/search` over real HTTP: one row per input, Arrow, caps, errors."""

from __future__ import annotations

import io

import httpx
import pyarrow as pa
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from serve_helpers import LiveServer  # noqa: E402

from quaestio.retrieval import build_index  # noqa: E402
from quaestio.schema import COLUMNS  # noqa: E402
from quaestio.serve import ServeConfig  # noqa: E402


@pytest.fixture(scope="module")
def index():
    return build_index("examples/corpus", embedding_model=None)


@pytest.fixture(scope="module")
def server(index):
    with LiveServer(
        ServeConfig(index=index, max_batch=8, max_question_chars=200, max_body_bytes=20_000)
    ) as live:
        yield live


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def test_parse_gives_one_row_per_input_with_bad_rows_as_error_rows(client):
    questions = ["What is the annual premium?", "", None, "x " * 150, "¿Cuál es la prima anual?"]
    response = client.post("/v1/parse", json={"questions": questions})
    assert response.status_code == 200, response.text
    rows = response.json()["rows"]
    assert len(rows) == len(questions)
    assert [r["error_code"] for r in rows] == [
        None,
        "empty_question",
        "missing_question",
        "question_too_long",
        None,
    ]
    assert rows[0]["answer_type"] == "amount" and rows[4]["language"] == "es"
    assert set(COLUMNS) <= set(rows[0]), set(COLUMNS) - set(rows[0])


def test_parse_takes_the_caller_scope_and_context(client):
    one = client.post(
        "/v1/parse", json={"question": "What did we sign?", "scope": {"jurisdictions": ["FR"]}}
    ).json()["rows"][0]
    assert one["scope_jurisdictions"], one["scope_origins"]
    assert {"caller"} == {o["origin"] for o in one["scope_origins"]}
    follow = client.post(
        "/v1/parse",
        json={
            "questions": ["what about that contract?"],
            "context": ["What did we sign with Acme in 2022?"],
        },
    ).json()["rows"][0]
    assert follow["scope_parties"] == ["Acme"], follow["scope_origins"]


def test_parse_answers_arrow_ipc_when_asked(client):
    response = client.post(
        "/v1/parse",
        json={"questions": ["What is the premium?", ""]},
        headers={"Accept": "application/vnd.apache.arrow.stream"},
    )
    assert response.headers["content-type"].startswith("application/vnd.apache.arrow.stream")
    table = pa.ipc.open_stream(io.BytesIO(response.content)).read_all()
    assert table.num_rows == 2 and table.column_names == list(COLUMNS)
    assert table.column("error_code").to_pylist() == [None, "empty_question"]


def test_search_returns_hits_and_with_confirm_the_verdicts(client):
    body = {"questions": ["What is the annual premium?", ""], "k": 2, "confirm": True}
    out = client.post("/v1/search", json=body).json()
    assert len(out["rows"]) == 2 and out["rows"][1]["error_code"] == "empty_question"
    assert {h["question_id"] for h in out["hits"]} == {"q0"}
    assert out["verdicts"][0]["verdict"] == "found" and out["verdicts"][0]["value"] == "480 EUR"
    plain = client.post(
        "/v1/search",
        json={"questions": ["What is the annual premium?"], "backend": "bm25", "k": 1},
    ).json()
    assert "verdicts" not in plain and len(plain["hits"]) == 1


def test_search_takes_question_df_rows(client):
    rows = client.post("/v1/parse", json={"question": "What is the deductible?"}).json()["rows"]
    out = client.post("/v1/search", json={"rows": rows, "k": 1})
    assert out.status_code == 200, out.text
    assert "Deductible" in out.json()["hits"][0]["generation_text"]
    bad = client.post("/v1/search", json={"rows": [{**rows[0], "scope_date_from": "soon"}]})
    assert bad.status_code == 422 and "scope_date_from" in bad.json()["detail"]


def test_caps_answer_413_and_errors_are_problem_json(client):
    batch = client.post("/v1/parse", json={"questions": ["q?"] * 9})
    assert batch.status_code == 413 and "at most 8" in batch.json()["detail"]
    body = client.post(
        "/v1/parse",
        content=b'{"questions": ["' + b"a" * 30_000 + b'"]}',
        headers={"content-type": "application/json"},
    )
    assert body.status_code == 413
    assert body.headers["content-type"] == "application/problem+json"
    for response in (
        client.post("/v1/parse", json={"question": 3}),
        client.post(
            "/v1/parse", content=b"{not json", headers={"content-type": "application/json"}
        ),
        client.get("/v1/nowhere"),
        client.post("/v1/search", json={"questions": ["q"], "backend": "bm52"}),
    ):
        assert response.status_code in (404, 422), response.text
        problem = response.json()
        assert response.headers["content-type"] == "application/problem+json"
        assert problem["status"] == response.status_code and "Traceback" not in response.text


def test_operations_endpoints(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["ready"] and ready["checks"] == {"satellites": True, "index": True}
    client.post("/v1/parse", json={"question": "What is the premium?"})
    text = client.get("/metrics").text
    assert 'quaestio_requests_total{method="POST",route="/v1/parse",status="200"}' in text
    assert 'quaestio_llm_status_total{status="off"}' in text
    assert "quaestio_process_rss_bytes" in text and "quaestio_open_streams" in text
    assert (
        client.get("/healthz", headers={"X-Request-ID": "abc-1"}).headers["x-request-id"]
        == "abc-1"
    )
