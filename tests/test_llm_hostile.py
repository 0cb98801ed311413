"""Issue 13, item 10: rewrites checked without a corpus vocabulary, huge numbers in the
question, and a retry backoff that really doubles."""

from __future__ import annotations

import time
import types

from llm_server import make_llm, server  # noqa: F401  (fixtures)

from quaestio.analysis import parse_question
from quaestio.llm import client as client_module
from quaestio.llm.testing import FakeLLMServer, Reply, analysis_responder


def rewrite_terms(row) -> list[str]:
    return [k.text for k in row.keywords if k.source == "llm_rewrite"]


def test_rewrite_terms_outside_question_dictionary_and_word_list_are_dropped(
    server, make_llm, tiny_sats
):
    server.responder = analysis_responder(
        {"rewrites": ["malware rootkit exfiltration", "yearly contribution payable"]}
    )
    row = parse_question("What is the annual premium?", tiny_sats, llm=make_llm(server))
    terms = rewrite_terms(row)
    assert not {"malware", "rootkit", "exfiltration"} & set(terms), terms
    assert {"yearly", "contribution", "payable"} <= set(terms)
    assert any(w.startswith("W203") and "3 term(s)" in w for w in row.provenance.warnings)


def test_rewrite_terms_are_capped(server, make_llm, tiny_sats):
    words = (
        "policy contract insurer insured payment yearly monthly amount total cost "
        "price fee charge sum figure value rate level"
    ).split()
    server.responder = analysis_responder({"rewrites": [" ".join(words[:9]), " ".join(words[9:])]})
    row = parse_question("What is the annual premium?", tiny_sats, llm=make_llm(server))
    cap = tiny_sats.defaults.llm_max_rewrite_terms
    assert len(words) > cap and len(rewrite_terms(row)) == cap
    assert any("llm_max_rewrite_terms" in w for w in row.provenance.warnings)


def test_a_5000_digit_number_does_not_discard_a_valid_reply(server, make_llm, tiny_sats):
    question = "What is the premium for policy " + "7" * 5000 + " on page 12?"
    server.responder = analysis_responder({"answer_type": "amount", "pages_hint": [12]})
    row = parse_question(question, tiny_sats, llm=make_llm(server))
    assert row.provenance.llm_status == "ok", row.provenance.warnings
    assert row.answer_type == "amount" and row.hints.pages_hint == [12]


def test_the_retry_backoff_doubles(make_llm, tiny_sats, monkeypatch):
    pauses: list[float] = []
    fake_time = types.SimpleNamespace(
        sleep=pauses.append, monotonic=time.monotonic, perf_counter=time.perf_counter
    )
    monkeypatch.setattr(client_module, "time", fake_time)
    with FakeLLMServer() as fake:
        fake.script(*[Reply.error(500)] * 5)  # the first attempt and 4 retries
        llm = make_llm(fake, backoff=1.0, max_retries=4)
        row = parse_question("What is the premium?", tiny_sats, llm=llm)
    assert row.provenance.llm_status.startswith("fallback")
    pauses = [p for p in pauses if p > 0]  # the zero waits before each call (no 429 seen)
    assert len(pauses) == 4
    for n, pause in enumerate(pauses):  # 1, 2, 4, 8 s, each within its +/-25% jitter
        assert 0.75 * 2**n <= pause <= 1.25 * 2**n, pauses
