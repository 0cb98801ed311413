"""parse_questions in LLM mode: concurrent calls, input order, one request per distinct
question, rows never lost, rate limits honoured."""

from __future__ import annotations

import asyncio
import threading
import time

from llm_server import make_llm  # noqa: F401  (fixture)

from quaestio.analysis import parse_questions
from quaestio.llm.testing import FakeLLMServer, Reply, analysis_responder

QUESTIONS = [f"What is the annual premium for policy {n}?" for n in range(24)]


class Concurrency:
    """Counts requests in flight at the server, and proves concurrency without a clock.

    The first request is held until a second one arrives (or `patience` runs out): a client
    that sends requests in parallel gets a peak of at least 2 however loaded the machine
    is, one that sends them one at a time a peak of 1 (it then waits only once)."""

    def __init__(self, respond, patience: float = 10.0):
        self.respond, self.patience = respond, patience
        self.now = self.peak = 0
        self.gave_up = False
        self.cond = threading.Condition()

    def __call__(self, request):
        with self.cond:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.cond.notify_all()
            if not self.gave_up:
                self.gave_up = not self.cond.wait_for(lambda: self.peak >= 2, self.patience)
        time.sleep(0.01)
        with self.cond:
            self.now -= 1
        return self.respond(request)


def test_calls_run_concurrently_and_rows_keep_input_order(make_llm, tiny_sats):
    gauge = Concurrency(analysis_responder(lambda r: {"answer_type": "amount"}))
    with FakeLLMServer(gauge) as fake:
        llm = make_llm(fake, concurrency=6, timeout=30.0)
        gauge.gave_up = True  # the warm-up is one request alone: do not hold it
        parse_questions(["warm up the client"], tiny_sats, llm=llm)
        fake.reset()
        gauge.peak, gauge.gave_up = 0, False
        qdf = parse_questions(QUESTIONS, tiny_sats, llm=llm)
        assert fake.count() == len(QUESTIONS)
    assert qdf.original_question.tolist() == QUESTIONS
    assert qdf.question_id.tolist() == [f"q{n}" for n in range(len(QUESTIONS))]
    assert set(qdf.llm_status) == {"ok"}
    assert not gauge.gave_up, "the second request never came while the first was held"
    assert 2 <= gauge.peak <= 6, f"Expected 2..6 requests in flight, got {gauge.peak}"


def test_concurrency_one_sends_one_request_at_a_time(make_llm, tiny_sats):
    gauge = Concurrency(analysis_responder(lambda r: {"answer_type": "amount"}), patience=0.3)
    with FakeLLMServer(gauge) as fake:
        llm = make_llm(fake, concurrency=1, timeout=30.0)
        qdf = parse_questions(QUESTIONS[:4], tiny_sats, llm=llm)
    assert set(qdf.llm_status) == {"ok"}
    assert gauge.peak == 1 and gauge.gave_up


def test_repeated_questions_cost_one_request_each(make_llm, tiny_sats, tmp_path):
    batch = [
        "What is the premium?",
        "what is the  premium",
        "What is the limit?",
        "What is the premium?",
        "What is the limit?",
    ]
    with FakeLLMServer() as fake:
        llm = make_llm(fake, cache_path=str(tmp_path / "cache.sqlite"))
        qdf = parse_questions(batch, tiny_sats, llm=llm)
        assert fake.count() == 2, f"Expected 2 requests, got {fake.count()}"
        assert qdf.llm_status.tolist() == ["ok", "cached", "ok", "cached", "cached"]
        again = parse_questions(batch, tiny_sats, llm=llm)
        assert fake.count() == 2 and set(again.llm_status) == {"cached"}


def test_failing_questions_fall_back_and_no_row_is_lost(make_llm, tiny_sats):
    def respond(request):
        if "BROKEN" in (request.question or ""):
            return Reply.error(500)
        if "GARBLED" in (request.question or ""):
            return Reply.invalid_json()
        return analysis_responder({"answer_type": "date"})(request)

    batch = [
        "When does it start?",
        "BROKEN question?",
        None,
        "GARBLED one?",
        "",
        42,
        "When does it end?",
    ]
    with FakeLLMServer(respond) as fake:
        qdf = parse_questions(batch, tiny_sats, llm=make_llm(fake, max_retries=1))
        assert fake.count() == 2 + 2 + 2  # two fine, BROKEN with a retry, GARBLED re-asked
    assert len(qdf) == len(batch)
    assert qdf.llm_status.tolist() == [
        "ok",
        "fallback:server_error",
        "off",
        "fallback:invalid_json",
        "off",
        "off",
        "ok",
    ]
    assert qdf.error_code.fillna("").tolist() == [
        "",
        "",
        "missing_question",
        "",
        "empty_question",
        "not_a_string",
        "",
    ]
    assert qdf.answer_type.tolist()[0] == "date"


def test_429_pauses_every_request_and_everything_completes(make_llm, tiny_sats):
    with FakeLLMServer() as fake:
        fake.script(*[Reply.error(429, retry_after=0.1)] * 4)
        qdf = parse_questions(
            QUESTIONS[:8], tiny_sats, llm=make_llm(fake, concurrency=4, max_retries=3)
        )
        assert set(qdf.llm_status) == {"ok"}
        assert fake.count() == 8 + 4


def test_works_inside_a_running_event_loop(make_llm, tiny_sats):
    with FakeLLMServer() as fake:
        llm = make_llm(fake)

        async def notebook_cell():
            return parse_questions(QUESTIONS[:3], tiny_sats, llm=llm)

        qdf = asyncio.run(notebook_cell())
    assert qdf.llm_status.tolist() == ["ok"] * 3


def test_offline_stays_the_default(tiny_sats):
    qdf = parse_questions(QUESTIONS[:2], tiny_sats)
    assert qdf.llm_status.tolist() == ["off", "off"]
    assert set(qdf.parser_mode) == {"rules"}


def test_two_batches_at_once_on_one_llm(make_llm, tiny_sats, capsys):
    from concurrent.futures import ThreadPoolExecutor

    with FakeLLMServer(latency=0.02) as fake:
        llm = make_llm(fake, concurrency=4)
        with ThreadPoolExecutor(2) as pool:
            runs = [
                pool.submit(parse_questions, QUESTIONS[n::2], tiny_sats, llm=llm, progress=True)
                for n in (0, 1)
            ]
            frames = [r.result() for r in runs]
    assert [f.original_question.tolist() for f in frames] == [QUESTIONS[0::2], QUESTIONS[1::2]]
    assert all(set(f.llm_status) == {"ok"} for f in frames)
    assert "llm" in capsys.readouterr().err  # the progress bar
