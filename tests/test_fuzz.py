"""Fuzzing the parse with hostile text (issue 13): never a crash, exactly one row per
input, every span inside the question. `bench/fuzz_parse.py` runs 100,000 of these."""

from __future__ import annotations

import random

from hostile_strings import KINDS, PIECES, WORDS, hostile, hostile_batch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaestio import parse_question, parse_questions

# Any code point, surrogates included (hypothesis leaves them out of text() by default).
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
HOSTILE_CHAR = st.sampled_from([c for pool in PIECES.values() for c in pool])
QUESTION = st.lists(
    st.one_of(st.sampled_from(WORDS).map(lambda w: w + " "), HOSTILE_CHAR, ANY_CHAR), max_size=60
).map("".join)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_rows(questions, qdf):
    assert len(qdf) == len(questions), "one row per input, always"
    assert "internal_error" not in set(qdf.error_code.dropna()), qdf[
        qdf.error_code == "internal_error"
    ].error_message.tolist()
    for original, keywords in zip(qdf.original_question, qdf.keywords):
        for k in keywords if original is not None else ():
            if k["span_start"] is not None:
                assert 0 <= k["span_start"] < k["span_end"] <= len(original)


@SETTINGS
@given(st.lists(QUESTION, min_size=1, max_size=8))
def test_hostile_batches_keep_every_row(tiny_sats, questions):
    check_rows(questions, parse_questions(questions, tiny_sats))


@SETTINGS
@given(st.sampled_from(KINDS), st.integers(0, 2**32 - 1))
def test_each_kind_of_hostile_question_parses(tiny_sats, kind, seed):
    question = hostile(random.Random(seed), kind)
    qdf = parse_questions([question], tiny_sats)
    check_rows([question], qdf)
    if question.strip():
        row = parse_question(question, tiny_sats)  # the single-question path agrees
        assert row.concepts == list(qdf.concepts[0])


def test_a_seeded_hostile_batch_with_non_strings_keeps_order(tiny_sats):
    questions = hostile_batch(300, seed=7)
    qdf = parse_questions(questions, tiny_sats)
    check_rows(questions, qdf)
    assert qdf.question_id.tolist() == [f"q{n}" for n in range(len(questions))]
    assert set(qdf.error_code.dropna()) <= {"missing_question", "not_a_string", "empty_question"}
