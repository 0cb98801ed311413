"""The shortcuts of the work around the steps (issue 18) give what the general path gives:
tokens of ASCII text, the cleaned corrected question, deduplication without a shared text,
and the record columns read for Arrow."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_batch_compact import _reference

from quaestio.analysis import pipeline
from quaestio.analysis.batch import _error_row
from quaestio.analysis.columns import _OTHERS, records_to_table
from quaestio.analysis.dictionary import expand_pieces
from quaestio.analysis.pipeline import (
    DEFAULT_STEPS,
    _cleaned,
    _deduplicated_pieces,
    finish_pieces,
    new_draft,
    run_steps_together,
)
from quaestio.analysis.text import Token, _unicode_tokens, clean, tokenize
from quaestio.errors import QuestionError, ReasonCode
from quaestio.schema import to_record

ASCII = st.text(alphabet=st.characters(max_codepoint=127, exclude_categories=()), max_size=80)
# Mostly ASCII, with what `clean` and folding change: controls, format marks, accents,
# compatibility forms, currency signs.
MIXED = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=127, exclude_categories=()),
        st.sampled_from("\u00e9\u0301\u200b\u200e\ufb01\u2460\u20ac\u00a0\u037a\ufdfa\ud800"),
    ),
    max_size=80,
)

QUESTIONS = [
    "What is the annual premium in Germany?",
    'Search for "force majeure", "premium"',
    "Whats the anual premuim?",
    "Is the limit per claim or per year?",
    "What is the premium and the limit?",
    "What is the premium, the premium and the PREMIUM?",
    "Quelle est la prime annuelle en Allemagne ?",
    "What is not the premium but the limit?",
    "Compare the premium of 2021 and 2022 for Acme in DE",
    "premium limit premium limit",
]


@settings(max_examples=300, deadline=None)
@given(ASCII)
def test_ascii_tokens_are_those_of_the_general_path(text):
    assert tokenize(text) == _unicode_tokens(text)


def test_every_ascii_character_tokenizes_as_in_the_general_path():
    every = "".join(map(chr, range(128)))
    assert tokenize(every) == _unicode_tokens(every)
    for c in every:
        assert tokenize(f"a{c}B{c}{c}9") == _unicode_tokens(f"a{c}B{c}{c}9")


def test_tokens_compare_and_hash_by_their_fields():
    a, b = Token("Premium", "premium", 0, 7), Token("Premium", "premium", 0, 7)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Token("Premium", "premium", 1, 8)


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_cleaned_is_clean(text):
    assert _cleaned(text) == clean(text)


def _drafts(sats, questions=QUESTIONS):
    drafts = [new_draft(q, sats, question_id=f"q{i}") for i, q in enumerate(questions)]
    run_steps_together(drafts, DEFAULT_STEPS)
    return drafts


def test_deduplication_shortcuts_give_the_general_answer(tiny_sats, bundled, monkeypatch):
    cases = []
    for sats in (tiny_sats, bundled):
        for draft in _drafts(sats):
            spelled = []  # the variants spelled out, as `Draft.expand_variants` does
            for k in draft.keywords:
                held = draft.expansions.get(id(k))
                spelled += [k, *(held[1].keywords if held is not None else ())]
            again = [*draft.keywords, *map(dict, draft.keywords[:1])]  # a text shared
            cases += [
                (sats, draft.keywords, draft.expansions, spelled),
                (sats, spelled, {}, spelled),
                (sats, again, draft.expansions, [*spelled, *again[-1:]]),
            ]
    fast = [_deduplicated_pieces(list(k), s, e) for s, k, e, _ in cases]
    assert [expand_pieces(p) for p in fast] == [_reference(plain) for *_, plain in cases]
    # The general path: every keyword read by `_pieces`, the deduplication always run.
    monkeypatch.setattr(pipeline, "_all_distinct", lambda keywords, sats: False)
    real_pieces = pipeline._pieces

    def sharing(keywords, sats, waiting):
        pieces, keys, shared = real_pieces(keywords, sats, waiting)
        return pieces, keys, shared or {"\0 no such text"}

    monkeypatch.setattr(pipeline, "_pieces", sharing)
    slow = [_deduplicated_pieces(list(k), s, e) for s, k, e, _ in cases]
    assert [expand_pieces(p) for p in fast] == [expand_pieces(p) for p in slow]
    assert [[type(p) for p in row] for row in fast] == [[type(p) for p in row] for row in slow]
    assert any(e for _, _, e, _ in cases) and any(not e for _, _, e, _ in cases)


def _records(sats):
    rows = [finish_pieces(d, 0.0) for d in _drafts(sats)]
    error = QuestionError(ReasonCode.EMPTY_QUESTION, "the question is empty", row=3)
    rows.insert(2, to_record(_error_row("q-err", "  ", error, sats)))
    rows.append(to_record(_error_row("q-bad", None, ValueError("boom"), sats)))
    # Columns away from their defaults, and values of other Python types Arrow takes.
    rows[0] = {
        **rows[0],
        "pages_hint": [3, 4],
        "need_summary": True,
        "scope_date_from": datetime.date(2022, 1, 1),
        "llm_status": "ok",
        "llm_tokens_in": 12,
        "warnings": ["W1: something"],
        "retrieval_k": None,
    }
    return rows


def _from_pylist(records):
    return pa.Table.from_pylist(records, schema=_OTHERS)


def test_record_columns_are_those_of_from_pylist(tiny_sats, bundled):
    for sats in (tiny_sats, bundled):
        records = _records(sats)
        table = records_to_table(records, sats).drop_columns(["keywords"])
        assert table.equals(_from_pylist(records))
        assert table.to_pylist() == _from_pylist(records).to_pylist()
        # A record without some columns reads them as null, as from_pylist does.
        short = [*records[:3], {k: v for k, v in records[3].items() if k != "answer_type"}]
        assert records_to_table(short, sats).drop_columns(["keywords"]).equals(_from_pylist(short))
    assert records_to_table([], tiny_sats).num_rows == 0


def test_a_record_arrow_refuses_raises_as_from_pylist(tiny_sats):
    records = _records(tiny_sats)
    records[1] = {**records[1], "retrieval_k": "three"}
    with pytest.raises(Exception) as expected:
        _from_pylist(records)
    with pytest.raises(type(expected.value)):
        records_to_table(records, tiny_sats)
