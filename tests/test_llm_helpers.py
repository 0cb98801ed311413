"""Per-concern helpers: one request each, checked like the consolidated call, offline value
on failure; and calls per question, consolidated vs helpers."""

from __future__ import annotations

from llm_server import make_llm  # noqa: F401  (fixture)

from quaestio.analysis import parse_question
from quaestio.llm import helpers
from quaestio.llm.testing import FakeLLMServer, Reply


def _answer(by_task):
    def respond(request):
        task = request.payload.get("task")
        return Reply.json(by_task[task]) if task in by_task else Reply.error(500)

    return respond


def test_each_helper_costs_one_request_and_is_checked(make_llm, tiny_sats):
    by_task = {
        "spelling": {"corrected_question": "What is the annual premium?"},
        "rewrites": {
            "rewrites": [
                "yearly insurance cost",
                "premium payable each year",
                "annual contribution",
                "fourth",
                "fifth",
                "sixth",
            ]
        },
        "concept": {"concept": "prime_rate"},
        "hints": {"pages_hint": [3, 99], "layout_hint": "table", "scope_parties": ["Acme"]},
        "decomposition": {
            "decomposition_pattern": "independent",
            "sub_questions": ["What is the prime?", "What is the limit?"],
        },
        "clarification": {
            "ambiguity_reason": "ambiguous_concept",
            "suggested_clarification": "Which prime do you mean?",
        },
        "passages": {
            "passages": [
                "The premium is payable annually in advance.",
                "Acme Insurance charges 300 EUR.",
                "The insurer may revise the premium at renewal.",
            ]
        },
    }
    with FakeLLMServer(_answer(by_task)) as fake:
        llm = make_llm(fake)
        assert (
            helpers.correct_spelling("What is the anual premuim?", llm=llm)
            == "What is the annual premium?"
        )
        assert len(helpers.rewrite_query("What is the premium?", "insurance", llm=llm)) == 4
        assert (
            helpers.disambiguate_concept("What is the prime?", satellites=tiny_sats, llm=llm)
            == "prime_rate"
        )
        hints = helpers.extract_hints(
            "Show the table on page 3 for Acme", llm=llm, satellites=tiny_sats
        )
        assert hints["pages_hint"] == [3] and hints["layout_hint"] == "table"
        assert hints["scope_parties"] == ["Acme"]
        parts = helpers.classify_decomposition(
            "What is the prime and what is the limit?", satellites=tiny_sats, llm=llm
        )
        assert parts["decomposition_pattern"] == "independent"
        clarify = helpers.suggest_clarification(
            "What is the prime?", satellites=tiny_sats, llm=llm
        )
        assert clarify["ambiguity_reason"] == "ambiguous_concept"
        passages = helpers.hypothetical_passages("What is the premium?", 3, llm=llm)
        assert passages == [
            "The premium is payable annually in advance.",
            "The insurer may revise the premium at renewal.",
        ]
        assert fake.count() == 7, f"Expected one request per helper, got {fake.count()}"


def test_helpers_fall_back_to_offline_values(make_llm, tiny_sats):
    with FakeLLMServer(_answer({})) as fake:
        llm = make_llm(fake, max_retries=0)
        assert helpers.correct_spelling("What is teh premium?", llm=llm) == "What is teh premium?"
        assert helpers.rewrite_query("What is the premium?", llm=llm) == []
        assert helpers.hypothetical_passages("What is the premium?", llm=llm) == []
        offline = parse_question("What is the prime?", tiny_sats)
        assert (
            helpers.disambiguate_concept("What is the prime?", satellites=tiny_sats, llm=llm)
            == offline.concepts[0]
        )
        assert (
            helpers.classify_decomposition("What is the prime?", satellites=tiny_sats, llm=llm)[
                "decomposition_pattern"
            ]
            == "single"
        )


def test_a_concept_outside_the_candidates_is_refused(make_llm, tiny_sats):
    with FakeLLMServer(_answer({"concept": {"concept": "country_de"}})) as fake:
        chosen = helpers.disambiguate_concept(
            "What is the prime?", satellites=tiny_sats, llm=make_llm(fake)
        )
    assert chosen in ("premium", "prime_rate")
