"""Issue 13, items 1-2: text that Arrow, UTF-8 or NFKC turn against the parse."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from quaestio import parse_question, parse_questions
from quaestio.io import iter_questions

# Every character whose NFKC form holds a space (U+037A, U+FC5E-FC63, U+FDFA-FDFB,
# U+FE70-FE7E, ...), found from the Unicode database rather than listed by hand.
NFKC_SPACES = [
    ch
    for ch in map(chr, range(sys.maxunicode + 1))
    if not ch.isspace() and " " in unicodedata.normalize("NFKC", ch)
]


def test_a_lone_surrogate_costs_no_row_of_its_batch(tiny_sats):
    qdf = parse_questions(["What is the premium?", "\ud800 premium", "the limit"], tiny_sats)
    assert len(qdf) == 3
    assert qdf.error_code.isna().all()
    assert qdf.concepts[0] == qdf.concepts[1] == ["premium"]
    assert qdf.original_question[1] == "\ufffd premium"
    assert any(w.startswith("W103") for w in qdf.warnings[1])


def test_a_surrogate_pair_becomes_its_character(tiny_sats):
    row = parse_question("\ud83d\ude00 premium", tiny_sats)
    assert row.original_question == "\U0001f600 premium" and not row.provenance.warnings


def test_a_record_arrow_refuses_becomes_one_error_row(tiny_sats):
    def broken_step(draft):  # a step that writes a value Arrow cannot store
        draft.columns["answer_type"] = "\udcff"

    from quaestio import DEFAULT_STEPS

    qdf = parse_questions(["premium?", "limit?"], tiny_sats, steps=(*DEFAULT_STEPS, broken_step))
    assert len(qdf) == 2 and qdf.error_code.tolist() == ["internal_error"] * 2


@pytest.mark.parametrize("char", NFKC_SPACES)
def test_letters_whose_nfkc_holds_a_space_do_not_break_matching(tiny_sats, char):
    question = f"premium {char}de Germany"
    row = parse_question(question, tiny_sats)
    assert "premium" in row.concepts
    for k in row.keywords:
        if k.span_start is not None:
            assert 0 <= k.span_start < k.span_end <= len(question)


def test_the_nfkc_space_set_is_the_known_one():
    assert {"\u037a", "\ufdfa", "\ufdfb", "\ufc5e", "\ufe70"} <= set(NFKC_SPACES)


def test_a_jsonl_file_with_a_surrogate_escape_keeps_every_row(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"question": "What is the premium?"}\n{"question": "\\ud800 premium"}\n'
        '{"question": "limit"}\n',
        encoding="utf-8",
    )
    with pytest.warns(UserWarning, match="W103.*line 2"):
        frames = list(iter_questions(path))
    assert [q for f in frames for q in f["question"]] == [
        "What is the premium?",
        "\ufffd premium",
        "limit",
    ]


def test_a_bad_jsonl_line_is_named(tmp_path):
    from quaestio.errors import InputFileError

    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "a"}) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"q\.jsonl line 2"):
        list(iter_questions(path))
