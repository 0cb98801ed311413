"""Hostile and odd input: never a crash, spans always valid, no network."""

import socket
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaestio import QuestionError, parse_question, parse_questions


@pytest.mark.parametrize(
    "question",
    [
        "premium\x00\x07 in Germany\u200b?",  # control and zero-width characters
        "What is the premium 🙂 in Germany 🇩🇪?",  # emoji and flags
        "Quelle est la prime в Германии 在德国?",  # mixed scripts
        "ＰＲＥＭＩＵＭ in Ｇｅｒｍａｎｙ",  # full-width forms fold by NFKC
        "\ud800 broken surrogate premium",  # lone surrogate
        '"unclosed quote premium',
        "«»“”''``",
    ],
)
def test_odd_text_parses(tiny_sats, question):
    row = parse_question(question, tiny_sats)
    for k in row.keywords:
        if k.span_start is not None:
            assert 0 <= k.span_start < k.span_end <= len(question)


def test_fullwidth_text_matches_after_nfkc(tiny_sats):
    assert parse_question("ＰＲＥＭＩＵＭ in Ｇｅｒｍａｎｙ", tiny_sats).concepts == [
        "premium",
        "country_de",
    ]


def test_control_characters_are_cleaned_from_the_corrected_question(tiny_sats):
    row = parse_question("premium\x00\x07 in\u200bGermany", tiny_sats)
    assert "\x00" not in row.corrected_question and "\u200b" not in row.corrected_question


def test_a_100k_character_question_is_handled(tiny_sats):
    words = (
        "the annual premium in Germany with a deductible of 500 euros and article L131-1 "
    ).split()
    question = " ".join(words[i % len(words)] for i in range(14000))[:100_000]
    row = parse_question(question, tiny_sats)
    assert row.concepts[:2] == ["premium", "country_de"]
    assert row.provenance.error_code is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(
        alphabet=st.characters(codec="utf-8")
        | st.sampled_from(list(string.ascii_letters + " '\"«»-.,?")),
        max_size=200,
    )
)
def test_any_text_gives_a_valid_row_or_a_clear_error(tiny_sats, text):
    try:
        row = parse_question(text, tiny_sats)
    except QuestionError as exc:
        assert not text.strip() and exc.code == "empty_question"
        return
    assert row.original_question == text
    for k in row.keywords:
        assert 0 < k.weight <= 1
        if k.span_start is not None:
            assert 0 <= k.span_start < k.span_end <= len(text)


def test_no_network_is_touched(tiny_sats, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    qdf = parse_questions(
        ["What is the anual premuim in Germany?", "¿Cuál es la prima?"], tiny_sats
    )
    assert qdf.error_code.isna().all()


def test_a_single_enormous_token_is_not_spell_checked(tiny_sats):
    row = parse_question("premium " + "x" * 20_000 + "y", tiny_sats)
    assert row.concepts == ["premium"] and row.spelling_corrections == []
