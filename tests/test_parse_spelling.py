"""Spelling leaves compounds, quoted words and technical neighbours alone, and corrects
towards the question's own language."""

from __future__ import annotations

import pytest

from quaestio import parse_question


@pytest.mark.parametrize(
    "question",
    [
        "What is multi-head attention?",
        "Does the co-pays cap apply?",
        "Search for 'premuim' in the policy",
        'Search for "premuim" in the policy',
        "Où est la clause «exclusoin» ?",
        "Who makes chicken `` finger lickin '' good ?",
        "Search for ``premuim'' in the policy",
    ],
)
def test_these_words_stay_as_typed(question):
    assert parse_question(question).corrected_question == question


@pytest.mark.parametrize(
    "question, corrected",
    [
        ("What is the anual premium?", "What is the annual premium?"),
        ("What is the anual premuim?", "What is the annual premium?"),
        ("What is the premuim?", "What is the premium?"),
    ],
)
def test_typos_are_still_corrected(question, corrected):
    assert parse_question(question).corrected_question == corrected


def test_a_correction_stays_in_the_language_of_the_question():
    row = parse_question("Qual es la prima anual?")
    assert row.language == "es"
    assert "Quel" not in row.corrected_question


def test_a_word_known_only_in_another_language_without_a_near_word_here_stays():
    assert parse_question("What is the cotisation?").corrected_question == (
        "What is the cotisation?"
    )


def test_own_words_of_a_language_are_built_once_per_satellites(tiny_sats):
    # The union of a language's words and the `*` words holds the whole vocabulary of a large
    # dictionary: one per question would cost more than the rest of the parse.
    from quaestio.analysis.spelling import own_tokens

    parse_question("Whats the anual premuim?", tiny_sats)
    first = own_tokens(tiny_sats, "en")
    assert "premium" in first
    parse_question("Whats the anual premuim?", tiny_sats)
    assert own_tokens(tiny_sats, "en") is first
