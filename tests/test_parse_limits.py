"""Long questions: every decomposition step linear in the question (timed in
bench/long_questions.py, never here), and the `max_question_chars` cap as a row error."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import QuestionError, load_satellites, parse_question, parse_questions
from quaestio.analysis.subquestions import finish


def _capped(limit: int):
    return load_satellites(
        extra={
            "defaults": pl.DataFrame(
                {"key": ["max_question_chars"], "value": [str(limit)], "description": [""]}
            )
        },
        override=True,
    )


def test_a_question_longer_than_the_cap_raises_naming_the_default():
    sats = _capped(50)
    with pytest.raises(QuestionError) as info:
        parse_question("What is the premium " * 5, sats)
    assert info.value.code == "question_too_long"
    assert "max_question_chars=50" in str(info.value)


def test_a_long_question_is_one_error_row_and_the_batch_keeps_every_other_row():
    sats = _capped(200)
    out = parse_questions(
        ["What is the premium?", "premium " * 100, "What is the limit?"], sats, as_="polars"
    )
    assert out["error_code"].to_list() == [None, "question_too_long", None]
    assert out["answer_type"].to_list()[0] == "amount"


def test_the_bundled_cap_lets_a_long_real_question_through():
    question = "What is the annual premium of the policy, " * 100 + "in total?"
    assert len(question) > 4000  # and far below the bundled 100,000
    assert parse_question(question).provenance.error_code is None


def test_coordinated_clauses_all_become_sub_questions():
    sats = _capped(10**6)
    question = " and ".join(f"what is the {w}" for w in ["premium", "limit"] * 400) + "?"
    subs = parse_question(question, sats).decomposition.sub_questions
    assert len(subs) == 800
    assert subs[:2] == ["What is the premium?", "What is the limit?"]


@pytest.mark.parametrize(
    "part, original, expected",
    [
        ("cuál es la prima", "¿Cuál es la prima y cuál es el deducible?", "¿Cuál es la prima?"),
        (
            "quelle est la franchise",
            "Quelle est la prime et quelle est la franchise ?",
            "Quelle est la franchise ?",
        ),
        (
            "list the exclusions",
            "List the exclusions and give the premium.",
            "List the exclusions.",
        ),
        ("what is the premium", "what is the premium and the limit", "What is the premium"),
    ],
)
def test_finish_keeps_the_typography_of_the_question(part, original, expected):
    assert finish(part, original) == expected
