"""confirm / verdicts: zones, signals, confidence, verdicts, engines, bad input, timeouts."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from quaestio import parse_question
from quaestio.confirm import ANSWER_SCHEMA, VERDICT_SCHEMA, ConfirmInputError, confirm, verdicts
from quaestio.confirm.zones import zones
from quaestio.satellites import load_satellites


def question(qid, answer_type, keywords, zone="line", language="en"):
    return {
        "question_id": qid,
        "answer_type": answer_type,
        "detect_context": zone,
        "language": language,
        "keywords": [{"text": k, "weight": 1.0, "source": "direct"} for k in keywords],
    }


def hit(qid, text, chunk="c1", rank=1):
    return {
        "question_id": qid,
        "chunk_id": chunk,
        "doc_id": "d1",
        "rank": rank,
        "score": 1.0,
        "generation_text": text,
    }


def test_zones_split_lines_sentences_and_paragraphs():
    text = "Premium: 1,000 EUR. It is due.\nLimit: 5 %\n\nNew part here."
    assert [text[a:b] for a, b in zones(text, "line")] == [
        "Premium: 1,000 EUR. It is due.",
        "Limit: 5 %",
        "",
        "New part here.",
    ]
    assert [text[a:b] for a, b in zones(text, "sentence")] == [
        "Premium: 1,000 EUR.",
        "It is due.",
        "Limit: 5 %",
        "New part here.",
    ]
    assert [text[a:b] for a, b in zones(text, "paragraph")] == [
        "Premium: 1,000 EUR. It is due.\nLimit: 5 %",
        "New part here.",
    ]


@pytest.mark.parametrize(
    "zone, signals",
    [
        ("line", [["keyword", "type"], ["type"]]),
        ("paragraph", [["keyword", "type"], ["keyword", "type"]]),
    ],
)
def test_the_zone_decides_what_counts_as_co_occurrence(zone, signals):
    qdf = pd.DataFrame([question("q1", "amount", ["premium"], zone)])
    text = "The premium is 1,000 EUR.\nThe deductible is 500 EUR."
    answers = confirm(qdf, pd.DataFrame([hit("q1", text)])).answers
    assert answers["value"].tolist() == ["1000 EUR", "500 EUR"]
    assert answers["signals"].tolist() == signals
    assert answers["zone_text"].iloc[0] == (
        text if zone == "paragraph" else "The premium is 1,000 EUR."
    )
    start, end = answers["value_start"].iloc[1], answers["value_end"].iloc[1]
    assert text[start:end] == "500 EUR"


def test_confidence_rewards_two_signals_and_proximity():
    qdf = pd.DataFrame([question("q1", "amount", ["premium"], "paragraph")])
    text = (
        "The premium is 1,000 EUR, and, as agreed between the parties in the schedule "
        "of the contract signed last year, a fee of 40 EUR."
    )
    conf = confirm(qdf, pd.DataFrame([hit("q1", text)])).answers["confidence"].tolist()
    assert conf[0] > conf[1] > 0.5
    alone = (
        confirm(
            pd.DataFrame([question("q1", "amount", ["limit"])]), pd.DataFrame([hit("q1", text)])
        )
        .answers["confidence"]
        .tolist()
    )
    assert alone == [0.25, 0.25]


def test_the_best_ranked_passage_gives_the_value_then_the_closest_keyword():
    qdf = pd.DataFrame([question("q1", "amount", ["premium"])])
    hits = pd.DataFrame(
        [
            hit("q1", "Gross premium 1,940 EUR", chunk="table", rank=2),
            hit(
                "q1",
                "The premium, after all the usual discounts, comes to 480 EUR.",
                chunk="policy",
                rank=1,
            ),
        ]
    )
    result = confirm(qdf, hits)
    by_chunk = result.answers.groupby("chunk_id")["confidence"].max()
    assert by_chunk["table"] > by_chunk["policy"]  # closer keyword, lower-ranked passage
    verdict = result.verdicts.iloc[0]
    assert (verdict["chunk_id"], verdict["value_text"]) == ("policy", "480 EUR")


def test_every_verdict_and_one_row_per_question_in_order():
    qdf = pd.DataFrame(
        [
            question("found", "amount", ["premium"]),
            question("absent", "date", ["renewal"]),
            question("none", "amount", ["premium"]),
            question("text", "text", ["premium"]),
            question("far", "percentage", ["rate"]),
            question("offtopic", "amount", ["deductible"]),
        ]
    )
    hits = pd.DataFrame(
        [
            hit("found", "Premium: 1,250.00 EUR"),
            hit("absent", "Renewal is automatic.", "c1", 1),
            hit("absent", "The renewal notice is sent by post.", "c2", 2),
            hit("text", "The premium covers fire."),
            hit("far", "The rate is fixed.\nInflation: 2 %"),
            hit("offtopic", "Premium: 1,250.00 EUR"),
        ]
    )
    v = verdicts(qdf, hits)
    assert v["question_id"].tolist() == ["found", "absent", "none", "text", "far", "offtopic"]
    assert v["verdict"].tolist() == [
        "found",
        "not_found",
        "no_evidence",
        "skipped",
        "no_evidence",
        "no_evidence",
    ]
    assert v["value"].iloc[0] == "1250.00 EUR" and v["chunk_id"].iloc[0] == "c1"
    assert v["confidence"].iloc[1] == 0.75  # two passages on the topic, no date: 1 - 0.5²
    assert v["n_keyword_passages"].iloc[1] == 2
    assert "no passage" in v["reason"].iloc[2]
    assert "none in the same line" in v["reason"].iloc[4]
    assert "no keyword" in v["reason"].iloc[5]
    assert pd.isna(v["confidence"].iloc[3])


def test_three_languages_end_to_end():
    qdf = pd.DataFrame(
        [
            question("fr", "date", ["date d'effet"], "sentence", "fr"),
            question("es", "percentage", ["tipo de interés"], "sentence", "es"),
            question("en", "duration", ["notice period"], "sentence", "en"),
        ]
    )
    hits = pd.DataFrame(
        [
            hit("fr", "La date d’effet est fixée au 1er janvier 2025. Le reste suit."),
            hit("es", "El tipo de interés es del 3,5 por ciento anual."),
            hit("en", "The notice period is three months. Payment is monthly."),
        ]
    )
    v = verdicts(qdf, hits)
    assert v["verdict"].tolist() == ["found"] * 3
    assert v["value"].tolist() == ["2025-01-01", "3.5", "P3M"]


def test_accents_and_case_do_not_hide_a_keyword():
    qdf = pd.DataFrame([question("q", "amount", ["prime d'assurance"], "line", "fr")])
    v = verdicts(qdf, pd.DataFrame([hit("q", "PRIME D'ASSURANCE : 300 €")]))
    assert v["verdict"].tolist() == ["found"]
    qdf = pd.DataFrame([question("q", "amount", ["prima anual"], "line", "es")])
    v = verdicts(qdf, pd.DataFrame([hit("q", "Príma anual: 300 euros")]))
    assert v["value"].tolist() == ["300 EUR"]


def test_engines_parsed_questions_and_minimal_hits():
    q = parse_question("What is the annual premium?")
    hits = [{"question_id": q.question_id, "body": "Annual premium: USD 1,200"}]
    result = confirm([q], pl.DataFrame(hits), text_column="body")
    assert isinstance(result.answers, pl.DataFrame) and isinstance(result.verdicts, pl.DataFrame)
    assert result.answers["chunk_id"].to_list() == ["0"]
    assert result.answers["rank"].to_list() == [1]
    assert result.answers["doc_id"].to_list() == [None]
    arrow = confirm(q, pa.Table.from_pylist(hits), text_column="body")
    assert arrow.answers.schema == ANSWER_SCHEMA and arrow.verdicts.schema == VERDICT_SCHEMA
    assert arrow.verdicts.column("verdict").to_pylist() == ["found"]


def test_empty_hits_still_give_typed_columns_and_every_verdict():
    qdf = pl.DataFrame([question("q1", "amount", ["premium"]), question("q2", "text", [])])
    empty = pl.DataFrame(schema={"question_id": pl.String, "generation_text": pl.String})
    result = confirm(qdf, empty, as_="arrow")
    assert result.answers.num_rows == 0 and result.answers.schema == ANSWER_SCHEMA
    assert result.verdicts.column("verdict").to_pylist() == ["no_evidence", "skipped"]


@pytest.mark.parametrize(
    "qrows, hits, message",
    [
        ([question("q", "amount", [], "page")], [], "question_df row 0, column 'detect_context'"),
        ([question("q", "amout", [])], [], "row 0, column 'answer_type'"),
        ([question("q", "amount", []), question("q", "date", [])], [], "row 1.*duplicate"),
        (
            [question("q", "amount", [])],
            [hit("other", "x")],
            "hits_df row 0, column 'question_id'",
        ),
    ],
)
def test_bad_input_names_row_column_and_value(qrows, hits, message):
    with pytest.raises(ConfirmInputError, match=message):
        confirm(
            pd.DataFrame(qrows), pd.DataFrame(hits, columns=["question_id", "generation_text"])
        )


def test_a_missing_text_column_is_named():
    with pytest.raises(ConfirmInputError, match="'generation_text'"):
        confirm(
            pd.DataFrame([question("q", "amount", [])]),
            pd.DataFrame({"question_id": ["q"], "text": ["x"]}),
        )


def test_a_catastrophic_pattern_times_out_without_stopping_the_batch():
    bad = pd.DataFrame(
        {
            "pattern_id": ["amount_catastrophic"],
            "answer_type": ["amount"],
            "pattern": [r"Q(a|aa)+$"],
        }
    )  # passes the load-time probe
    sats = load_satellites(
        extra={
            "answer_type_patterns": bad,
            "defaults": pd.DataFrame({"key": ["regex_timeout_ms"], "value": ["20"]}),
        },
        override=True,
    )
    slow = "premium Q" + "a" * 40 + "b"
    qdf = pd.DataFrame(
        [
            question("q1", "amount", ["premium"]),
            question("q2", "amount", ["premium"]),
            question("q3", "date", ["renewal"]),
        ]
    )
    hits = pd.DataFrame(
        [
            hit("q1", slow),
            hit("q2", "Premium: €300\n" + slow),
            hit("q3", "renewal on 1 March 2025"),
        ]
    )
    v = verdicts(qdf, hits, satellites=sats)
    assert v["verdict"].tolist() == ["no_evidence", "found", "found"]
    assert "ran out of time" in v["reason"].iloc[0]
    assert (
        v["warnings"].iloc[0][0].startswith("W101")
        and "amount_catastrophic" in v["warnings"].iloc[0][0]
    )
    assert v["value"].iloc[1] == "300 EUR"


def test_a_parsed_question_df_with_arrow_dtypes_goes_straight_in():
    from quaestio import parse_questions

    qdf = parse_questions(
        pd.DataFrame(
            {
                "question": [
                    "What is the annual premium?",
                    "When does the policy start?",
                    "Who is the insurer?",
                    None,
                ]
            }
        )
    )
    hits = pd.DataFrame(
        {
            "question_id": ["q0", "q1", "q1", "q2"],
            "chunk_id": ["a", "b", "c", "d"],
            "generation_text": [
                "Annual premium: 1 250 €",
                "The policy starts on 1 March 2025.",
                "Policy wording.",
                "The insurer is ACME.",
            ],
        }
    )
    v = verdicts(qdf, hits)
    assert v["verdict"].tolist() == ["found", "found", "skipped", "skipped"]
    assert v["value"].tolist()[:2] == ["1250 EUR", "2025-03-01"]
    assert "no answer_type_patterns rows for 'organization'" == v["reason"].iloc[2]
