"""The conversation flow over real HTTP: submit (202), follow the SSE events, replay with
Last-Event-ID, heartbeats, disconnect cancels, memory, streamed and offline answers."""

from __future__ import annotations

import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx_sse")

from serve_helpers import LiveServer, read_events  # noqa: E402

from quaestio.llm import LLMConfig  # noqa: E402
from quaestio.llm.testing import FakeLLMServer, Reply  # noqa: E402
from quaestio.retrieval import build_index  # noqa: E402
from quaestio.serve import ServeConfig  # noqa: E402

LLM_KEY = "sk-test-LEAKCHECK-answers-91c2"
ANSWER = "The annual premium is 480 EUR [1], paid monthly."


@pytest.fixture(scope="module")
def index():
    return build_index("examples/corpus", embedding_model=None)


@pytest.fixture(scope="module")
def offline(index, tmp_path_factory):
    store = tmp_path_factory.mktemp("memory") / "turns.sqlite"
    with LiveServer(
        ServeConfig(index=index, store=store, max_turns=3, heartbeat_seconds=0.2)
    ) as live:
        yield live


@pytest.fixture(scope="module")
def fake_llm():
    def respond(request):
        if request.body.get("stream"):
            return Reply.text(ANSWER, chunk_delay=0.01)
        return Reply.json({})

    with FakeLLMServer(responder=respond) as fake:
        yield fake


@pytest.fixture(scope="module")
def online(index, fake_llm):
    config = LLMConfig(base_url=fake_llm.url, model="fake-model", api_key=LLM_KEY, timeout=5)
    with LiveServer(
        ServeConfig(index=index, llm=config, heartbeat_seconds=0.2, reconnect_grace=0.3)
    ) as live:
        yield live


def client(server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def submit(c: httpx.Client, question: str, conversation_id: str | None = None) -> dict:
    body = {
        "question": question,
        **({"conversation_id": conversation_id} if conversation_id else {}),
    }
    response = c.post("/v1/conversations", json=body)
    assert response.status_code == 202, response.text
    return response.json()


def test_offline_turn_streams_typed_events_and_an_extractive_answer(offline):
    with client(offline) as c:
        accepted = submit(c, "What is the annual premium?")
        assert accepted["turn"] == 1
        events = read_events(c, accepted["events"])
    assert [e["event"] for e in events] == ["parsed", "hits", "confirmed", "answer", "done"]
    assert [e["id"] for e in events] == ["1.1", "1.2", "1.3", "1.4", "1.5"]
    assert events[0]["data"]["row"]["answer_type"] == "amount"
    answer = events[3]["data"]
    assert answer["text"].startswith("480 EUR — “The annual premium is 480 EUR"), answer
    assert answer["citations"][0]["breadcrumb"].endswith("> Schedule")
    assert answer["mode"] == "extractive" and answer["found"]


def test_offline_says_not_found_rather_than_guess(offline):
    with client(offline) as c:
        events = read_events(c, submit(c, "What is the IBAN of the insurer?")["events"])
    answer = next(e["data"] for e in events if e["event"] == "answer")
    assert answer == {
        "text": "Not found in the documents.",
        "citations": [],
        "mode": "extractive",
        "found": False,
    }


def test_an_ambiguous_question_asks_first_and_does_not_search(offline):
    with client(offline) as c:
        events = read_events(c, submit(c, "What is the limit?")["events"])
    assert [e["event"] for e in events] == ["parsed", "clarification", "done"]
    assert "limit of indemnity" in events[1]["data"]["question"]
    assert events[2]["data"] == {"status": "clarification"}


def test_last_event_id_replays_what_was_missed(offline):
    with client(offline) as c:
        accepted = submit(c, "What is the deductible?")
        first = read_events(c, accepted["events"], stop_after=2)
        rest = read_events(
            c,
            f"/v1/conversations/{accepted['conversation_id']}/events",
            headers={"Last-Event-ID": first[-1]["id"]},
        )
        whole = read_events(c, accepted["events"])
    assert [e["id"] for e in first] == ["1.1", "1.2"]
    assert [e["id"] for e in rest] == ["1.3", "1.4", "1.5"]
    assert [e["id"] for e in whole] == ["1.1", "1.2", "1.3", "1.4", "1.5"]


@pytest.mark.parametrize(
    "first, follow_up, check",
    [
        (
            "What is the annual premium in France?",
            "and for Germany?",
            lambda row: (
                "premium" in row["concepts"] and row["scope_jurisdictions"] == ["country_de"]
            ),
        ),
        (
            "What did we sign with Acme in 2022?",
            "what about that contract?",
            lambda row: (
                row["scope_parties"] == ["Acme"]
                and ("parties", "context")
                in {(o["name"], o["origin"]) for o in row["scope_origins"]}
            ),
        ),
        (
            "What is the annual premium in 2022?",
            "the same for 2023",
            lambda row: "premium" in row["concepts"] and row["scope_date_from"] == "2023-01-01",
        ),
        (
            "¿Cuál es la prima anual?",
            "¿y en Francia?",
            lambda row: (
                "premium" in row["concepts"] and row["scope_jurisdictions"] == ["country_fr"]
            ),
        ),
    ],
)
def test_a_follow_up_resolves_against_the_previous_turn(offline, first, follow_up, check):
    with client(offline) as c:
        accepted = submit(c, first)
        read_events(c, accepted["events"])
        second = submit(c, follow_up, accepted["conversation_id"])
        assert second["turn"] == 2
        events = read_events(c, second["events"])
        row = events[0]["data"]["row"]
        assert check(row), (row["concepts"], row["scope_origins"])
        turns = c.get(f"/v1/conversations/{accepted['conversation_id']}").json()["turns"]
    assert [t["question"] for t in turns] == [first, follow_up]
    assert turns[1]["context"] == [first]


def test_memory_keeps_the_last_turns_and_delete_forgets(offline):
    with client(offline) as c:
        cid = None
        for question in (
            "What is the premium?",
            "And the deductible?",
            "And the insurer?",
            "And the term?",
        ):
            accepted = submit(c, question, cid)
            cid = accepted["conversation_id"]
            read_events(c, accepted["events"])
        turns = c.get(f"/v1/conversations/{cid}").json()["turns"]
        assert [t["turn"] for t in turns] == [2, 3, 4]  # max_turns=3
        assert all(t["status"] in ("answered", "clarification") for t in turns), turns
        assert c.delete(f"/v1/conversations/{cid}").status_code == 204
        assert c.get(f"/v1/conversations/{cid}").status_code == 404
        assert (
            c.post(
                "/v1/conversations", json={"question": "q?", "conversation_id": cid}
            ).status_code
            == 404
        )


def test_heartbeats_keep_an_idle_stream_alive(online, fake_llm):
    fake_llm.script(Reply.text("Slow [1].", chunks=["Slow ", "[1]."], chunk_delay=0.7))
    with client(online) as c:
        accepted = submit(c, "What is the annual premium?")
        with c.stream("GET", accepted["events"]) as response:
            body = "".join(response.iter_text())
    assert ": heartbeat" in body and "event: done" in body


def test_llm_answer_streams_as_tokens_and_is_recorded(online, fake_llm):
    with client(online) as c:
        accepted = submit(c, "What is the annual premium?")
        events = read_events(c, accepted["events"])
        turn = c.get(f"/v1/conversations/{accepted['conversation_id']}").json()["turns"][0]
        ready = c.get("/readyz").json()
        metrics = c.get("/metrics").text
    assert ready["checks"]["llm"] is True, ready
    assert 'quaestio_answer_tokens_total{direction="out"}' in metrics
    kinds = [e["event"] for e in events]
    assert kinds[:3] == ["parsed", "hits", "confirmed"] and kinds[-2:] == ["answer", "done"]
    tokens = [e["data"]["text"] for e in events if e["event"] == "token"]
    answer = events[-2]["data"]
    assert len(tokens) > 3 and "".join(tokens) == answer["text"] == ANSWER
    assert [c["n"] for c in answer["citations"]] == [1]
    assert answer["citations"][0]["chunk_id"].startswith("home_insurance_policy.md")
    prompt = turn["prompt"]
    assert prompt["model"] == "fake-model" and prompt["tokens_out"] > 0
    assert {"role", "task", "gaps", "tone", "format_single"} <= set(prompt["part_ids"])
    sent = [r for r in fake_llm.requests if r.body.get("stream")][-1]
    assert "[1] Home Insurance Policy HI-2024-0173 > Schedule" in sent.messages[1]["content"]
    assert LLM_KEY not in str(turn) and LLM_KEY not in str(events)


def test_a_failing_llm_falls_back_to_the_extractive_answer(online, fake_llm):
    fake_llm.script(Reply.error(500))
    with client(online) as c:
        events = read_events(c, submit(c, "What is the annual premium?")["events"])
    answer = events[-2]["data"]
    assert answer["mode"] == "extractive" and answer["llm_status"].startswith("fallback:")
    assert answer["text"].startswith("480 EUR")


def test_a_client_that_goes_away_cancels_the_generation(online, fake_llm):
    words = [f"w{i} " for i in range(60)]
    fake_llm.script(Reply.text("".join(words), chunks=words, chunk_delay=0.1))
    aborted = fake_llm.streams_aborted
    with client(online) as c:
        accepted = submit(c, "What is the annual premium?")
        first = read_events(c, accepted["events"], stop_after=5)  # a token or two in
        assert first[-1]["event"] == "token"
        deadline = time.monotonic() + 10
        status = "running"
        while status == "running" and time.monotonic() < deadline:
            time.sleep(0.1)
            status = c.get(f"/v1/conversations/{accepted['conversation_id']}").json()["turns"][0][
                "status"
            ]
        replay = read_events(c, accepted["events"])
    assert status == "cancelled"
    while fake_llm.streams_aborted == aborted and time.monotonic() < deadline:
        time.sleep(0.05)  # the test server notices at its next write
    assert fake_llm.streams_aborted == aborted + 1  # the LLM stream was closed, not drained
    assert [e["event"] for e in replay][-2:] == ["error", "done"]
    assert sum(e["event"] == "token" for e in replay) < len(words)
