"""The grounded-answer prompt from prompt_parts rows, its token budget, the offline answer."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio.satellites import bundled_satellites, load_satellites
from quaestio.serve.answers import cited, extractive
from quaestio.serve.prompt import compile_prompt, tokens


@pytest.fixture(scope="module")
def sats():
    return bundled_satellites()


def hit(n: int, text: str, **kw) -> dict:
    return {
        "chunk_id": f"c{n}",
        "doc_id": "policy.md",
        "breadcrumb": f"Policy > S{n}",
        "page_start": n,
        "page_end": n,
        "part_index": 1,
        "part_count": 1,
        "generation_text": text,
        "route": "default",
        **kw,
    }


ROW = {
    "question_id": "q0",
    "original_question": "What is the annual premium?",
    "corrected_question": "What is the annual premium?",
    "language": "en",
    "answer_shape": "single",
    "answer_type": "amount",
}


def test_instructions_come_from_the_rows_in_order_with_shape_and_intent(sats):
    prompt = compile_prompt(ROW, [hit(1, "The premium is 480 EUR.")], sats)
    assert prompt.part_ids == [
        "role",
        "task",
        "siblings",
        "gaps",
        "tone",
        "format_single",
        "format_conceptual",
    ], prompt.part_ids
    system, user = (m["content"] for m in prompt.messages)
    assert "not found in the documents" in system and "Never guess" in system
    assert user.startswith("Question: What is the annual premium?")
    assert "[1] Policy > S1 · page 1\nThe premium is 480 EUR." in user
    listing = compile_prompt(
        {
            **ROW,
            "answer_shape": "listing",
            "original_question": "Where do I find the claims screen?",
        },
        [],
        sats,
    )
    assert {"format_listing", "format_navigational"} <= set(listing.part_ids)
    assert "(none)" in listing.messages[1]["content"]


def test_a_row_in_the_question_language_replaces_the_star_row(sats):
    extra = pl.DataFrame(
        {
            "part_id": ["tone_fr"],
            "kind": ["tone"],
            "target": [None],
            "language": ["fr"],
            "text": ["Soyez bref."],
        }
    )
    french = load_satellites(extra={"prompt_parts": extra})
    fr = compile_prompt({**ROW, "language": "fr"}, [], french)
    en = compile_prompt(ROW, [], french)
    assert "tone_fr" in fr.part_ids and "tone" not in fr.part_ids
    assert "tone" in en.part_ids and "tone_fr" not in en.part_ids


def test_siblings_are_labelled_and_leave_first_then_low_ranks_then_the_top_is_cut(sats):
    long = "A sentence about the premium. " * 40  # ~300 tokens each
    hits = [
        hit(1, long, part_count=2, part_index=1),
        hit(2, long, route="sibling", part_count=2, part_index=2),
        hit(3, long),
        hit(4, long, part_count=3, part_index=1),
        hit(5, long, route="sibling", part_count=3, part_index=2),
    ]
    roomy = compile_prompt(ROW, hits, sats, budget=10_000)
    assert [p["chunk_id"] for p in roomy.passages] == ["c1", "c2", "c3", "c4", "c5"]
    assert "part 2 of 2" in roomy.messages[1]["content"] and not roomy.dropped
    base = compile_prompt(ROW, [], sats).tokens
    each = tokens(long) + 12
    siblings_gone = compile_prompt(ROW, hits, sats, budget=base + 3 * each + 20)
    assert siblings_gone.dropped == ["c5", "c2"], siblings_gone.dropped
    survivors_gone = compile_prompt(ROW, hits, sats, budget=base + 2 * each + 20)
    assert survivors_gone.dropped == ["c5", "c2", "c4"]
    tight = compile_prompt(ROW, hits, sats, budget=base + 60)
    assert [p["chunk_id"] for p in tight.passages] == ["c1"] and tight.cut
    assert tight.messages[1]["content"].endswith("premium.")
    assert tight.tokens <= base + 60 + 10, (tight.tokens, base)


def test_the_offline_answer_is_the_confirmed_value_or_not_found(sats):
    hits = [hit(1, "The annual premium is 480 EUR, payable monthly.")]
    verdict = {"verdict": "found", "chunk_id": "c1", "value_text": "480 EUR", "value": "480 EUR"}
    values = [
        {
            "chunk_id": "c1",
            "value_text": "480 EUR",
            "zone_text": "The annual premium is 480 EUR,\n payable monthly.",
        }
    ]
    answer = extractive(ROW, hits, verdict, values, sats)
    assert answer["text"] == "480 EUR — “The annual premium is 480 EUR, payable monthly.” [1]"
    assert answer["citations"][0]["chunk_id"] == "c1"
    missing = extractive({**ROW, "language": "es"}, hits, {"verdict": "not_found"}, [], sats)
    assert missing["text"] == "No se encuentra en los documentos." and not missing["citations"]


def test_citations_follow_the_bracketed_numbers(sats):
    prompt = compile_prompt(ROW, [hit(1, "a"), hit(2, "b"), hit(3, "c")], sats)
    assert [c["n"] for c in cited("See [3] and [1].", prompt)] == [1, 3]
    assert [c["n"] for c in cited("No citation.", prompt)] == [1, 2, 3]
