"""evaluate / evaluate_retrieval / read_gold, on rows built by hand so every figure is known."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from click.testing import CliRunner

from quaestio.cli import cli
from quaestio.errors import GoldError
from quaestio.evaluate import evaluate, evaluate_answers, evaluate_retrieval, read_gold
from quaestio.types import (
    Clarification,
    Decomposition,
    Keyword,
    KeywordSource,
    ParsedQuestion,
    Provenance,
    StructuralHints,
)


def row(
    qid,
    *,
    answer_type="text",
    pattern="single",
    clarify=None,
    keywords=(),
    concepts=(),
    pages=(),
    error=None,
):
    return ParsedQuestion(
        question_id=qid,
        original_question=f"question {qid}",
        answer_type=answer_type,
        keywords=[Keyword(text=k, weight=0.5, source=KeywordSource.DIRECT) for k in keywords],
        concepts=list(concepts),
        hints=StructuralHints(pages_hint=list(pages)),
        decomposition=Decomposition(decomposition_pattern=pattern),
        clarification=Clarification(suggested_clarification=clarify),
        provenance=Provenance(error_code=error),
    )


@pytest.fixture
def parsed():
    return [
        row(
            "a",
            answer_type="amount",
            keywords=["Prime annuelle", "germany"],
            concepts=["premium", "country_de"],
            pages=[3],
        ),
        row("b", answer_type="text", pattern="single", clarify="Which contract?"),
        row("c", answer_type="date", pattern="independent", concepts=["deductible"]),
        row("d", error="empty_question"),
    ]


@pytest.fixture
def gold():
    return pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e"],
            "question": ["qa", "qb", "qc", "qd", "qe"],
            "answer_type": ["amount", "amount", "date", "text", "text"],
            "decomposition_pattern": [None, "sequential", "single", None, None],
            "needs_clarification": [False, False, None, None, True],
            "keywords": [["prime annuelle", "Deutschland"], None, None, None, None],
            "concepts": [["premium"], None, ["deductible"], None, None],
            "pages_hint": [[3], None, None, None, None],
        }
    )


def test_metrics_are_the_hand_counted_ones(parsed, gold):
    result = evaluate(parsed, gold, as_="polars")
    m = {r["field"]: r for r in result.metrics.iter_rows(named=True)}
    # answer_type: a ok, b wrong (text vs amount), c ok, d parse error, e missing row.
    assert (m["answer_type"]["n"], m["answer_type"]["correct"]) == (5, 2)
    assert m["answer_type"]["accuracy"] == pytest.approx(0.4)
    # keywords: one of two expected terms found (folded: "Prime annuelle" == "prime annuelle").
    assert m["keywords"]["recall"] == pytest.approx(0.5) and m["keywords"]["precision"] is None
    # concepts: a has one extra (country_de): P = 2/3, R = 2/2.
    assert m["concepts"]["precision"] == pytest.approx(2 / 3)
    assert m["concepts"]["recall"] == pytest.approx(1.0)
    assert m["concepts"]["correct"] == 1
    # needs_clarification: a (F,F) ok, b (F,T) needless, e (T, missing row) wrong.
    flag = m["needs_clarification"]
    assert (flag["n"], flag["correct"], flag["precision"], flag["recall"]) == (3, 1, 0.0, 0.0)
    assert m["pages_hint"]["accuracy"] == 1.0


def test_failures_are_grouped_by_what_to_fix(parsed, gold):
    result = evaluate(parsed, gold, as_="polars")
    modes = dict(result.modes.select("failure_mode", "count").iter_rows())
    assert modes == {
        "missing_row": 2,
        "wrong_type": 1,
        "missed_compound": 1,
        "false_compound": 1,
        "needless_clarification": 1,
        "vocabulary_mismatch": 1,
        "spurious_concept": 1,
        "parse_error": 1,
    }
    # The most frequent mode comes first, and the failures follow the same order.
    assert result.modes["failure_mode"][0] == "missing_row"
    assert result.failures["failure_mode"][0] == "missing_row"
    wrong_type = result.failures.filter(pl.col("failure_mode") == "wrong_type").row(0, named=True)
    assert (wrong_type["question_id"], wrong_type["expected"], wrong_type["got"]) == (
        "b",
        "amount",
        "text",
    )


def test_confusion_counts_expected_against_got(parsed, gold):
    confusion = evaluate(parsed, gold, as_="polars").confusion
    types = {(e, g): n for f, e, g, n in confusion.iter_rows() if f == "answer_type"}
    assert types == {
        ("amount", "amount"): 1,
        ("amount", "text"): 1,
        ("date", "date"): 1,
        ("text", "text"): 1,
        ("text", "∅"): 1,
    }


def test_pandas_in_pandas_out_and_parsed_frames(parsed, gold):
    from quaestio.schema import rows_to_table, table_to_frame

    qdf = table_to_frame(rows_to_table(parsed), "pandas")
    result = evaluate(qdf, gold.to_pandas())
    assert isinstance(result.metrics, pd.DataFrame)
    assert result.metrics.set_index("field").loc["answer_type", "correct"] == 2


def test_gold_file_errors_name_row_column_and_value(tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text(
        "id,question,answer_shape,needs_clarification,pages_hint,concepts,answer_typ\n"
        "1,q1,lisitng,maybe,three,premuim,amount\n"
        '2,q2,single,yes,"[1, 2]",premium,\n'
    )
    with pytest.raises(GoldError) as info:
        read_gold(path)
    cases = {(c["row"], c["column"]): c for c in info.value.failure_cases}
    assert set(cases) == {
        (None, "answer_typ"),
        (2, "answer_shape"),
        (2, "needs_clarification"),
        (2, "pages_hint"),
        (2, "concepts"),
    }
    assert "did you mean 'listing'" in cases[(2, "answer_shape")]["reason"]
    assert "did you mean 'answer_type'" in cases[(None, "answer_typ")]["reason"]
    assert cases[(2, "pages_hint")]["value"] == "three"


def test_gold_lists_read_as_json_or_semicolons(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text(
        json.dumps({"question": "q", "pages_hint": "[4, 2, 4]", "keywords": "a; b ;"}) + "\n"
    )
    gold = read_gold(path)
    assert gold["pages_hint"].to_list() == [[2, 4]]
    assert gold["keywords"].to_list() == [["a", "b"]]
    assert gold["question_id"].to_list() == ["q0"]


def test_retrieval_metrics_by_hand():
    gold = pl.DataFrame(
        {
            "question_id": ["q1", "q2", "q3"],
            "question": ["x", "y", "z"],
            "relevant_chunk_ids": [["c2", "c9"], ["c1"], ["c5"]],
        }
    )
    hits = pl.DataFrame(
        {
            "question_id": ["q1", "q1", "q1", "q2", "q2"],
            "chunk_id": ["c1", "c2", "c3", "c4", "c1"],
            "doc_id": ["d1", "d1", "d2", "d2", "d1"],
            "rank": [1, 2, 3, 1, 2],
        }
    )
    out = evaluate_retrieval({"bm25": hits}, gold, ks=(1, 2), as_="polars").row(0, named=True)
    # q1: c2 at rank 2 (one of two relevant); q2: c1 at rank 2; q3: nothing returned.
    assert out["recall@1"] == 0.0
    assert out["recall@2"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert out["mrr"] == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    ndcg_q1 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    ndcg_q2 = (1 / math.log2(3)) / 1
    assert out["ndcg@2"] == pytest.approx((ndcg_q1 + ndcg_q2) / 3)


def test_retrieval_at_document_level_counts_a_document_once():
    gold = pl.DataFrame({"question_id": ["q1"], "question": ["x"], "relevant_doc_ids": [["d2"]]})
    hits = pd.DataFrame(
        {
            "question_id": ["q1"] * 3,
            "chunk_id": ["c1", "c2", "c3"],
            "doc_id": ["d1", "d1", "d2"],
            "rank": [1, 2, 3],
        }
    )
    out = evaluate_retrieval(hits, gold, ks=(2,))
    assert out.loc[0, "recall@2"] == 1.0 and out.loc[0, "mrr"] == 0.5
    with pytest.raises(ValueError, match="relevant_chunk_ids"):
        evaluate_retrieval(hits, gold, level="chunk")


def test_retrieval_at_section_level_matches_a_breadcrumb_tail():
    gold = pl.DataFrame(
        {
            "question_id": ["q1", "q2"],
            "question": ["x", "y"],
            "relevant_sections": ["Cancellation", "Policy > Schedule"],
        }
    )
    hits = pd.DataFrame(
        {
            "question_id": ["q1"] * 3 + ["q2"] * 2,
            "chunk_id": ["c1", "c2", "c3", "c4", "c5"],
            "breadcrumb": [
                "Policy > Claims",
                "Policy > Cancellation",
                "Policy > cancellation",
                "Other > Schedule",
                "POLICY > Schedule",
            ],
            "rank": [1, 2, 3, 1, 2],
        }
    )
    out = evaluate_retrieval(hits, gold, ks=(1, 2)).iloc[0]
    # q1: the section at rank 2 (twice, counted once); q2: "Other > Schedule" is not
    # "Policy > Schedule", the folded "POLICY > Schedule" at rank 2 is.
    assert out["level"] == "section"
    assert (out["recall@1"], out["recall@2"], out["mrr"]) == (0.0, 1.0, 0.5)
    assert out["ndcg@2"] == pytest.approx(1 / math.log2(3))


def verdicts(*rows):
    return pd.DataFrame(rows, columns=["question_id", "answer_type", "verdict", "value_text"])


def test_answers_compare_typed_values_and_expected_absence():
    gold = pl.DataFrame(
        {
            "question_id": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
            "question": list("abcdefghi"),
            "expected_value": [
                "480 EUR",
                "1 March 2024",
                "93.1%",
                "none",
                "none",
                "250 EUR",
                "Berlin",
                None,
                "Berlin",
            ],
        }
    )
    got = verdicts(
        ("a", "amount", "found", "EUR 480.00"),  # same amount, other form
        ("b", "date", "found", "2024-03-01"),  # same date, ISO
        ("c", "percentage", "found", "95.4%"),  # another value
        ("d", "iban", "not_found", None),  # rightly nothing
        ("e", "amount", "found", "40 EUR"),  # a value where none is
        ("f", "amount", "no_evidence", None),  # missed
        ("g", "text", "found", "berlin"),  # text, compared folded
        ("h", "amount", "found", "1 EUR"),  # no gold value: not scored
        ("i", "text", "skipped", None),
    )  # no patterns for text
    result = evaluate_answers(got, gold, as_="polars")
    m = result.metrics.row(0, named=True)
    assert (m["n"], m["correct"]) == (8, 4)
    assert m["precision"] == pytest.approx(3 / 5)  # a, b, g right among 5 confirmed
    assert m["recall"] == pytest.approx(3 / 6)  # of the 6 values the gold expects
    modes = dict(zip(result.failures["question_id"], result.failures["failure_mode"]))
    assert modes == {
        "c": "wrong_value",
        "e": "false_value",
        "f": "missed_value",
        "i": "unconfirmable_type",
    }
    confusion = {(r["expected"], r["got"]): r["count"] for r in result.confusion.to_dicts()}
    assert confusion[("value", "found (wrong)")] == 1 and confusion[("none", "not_found")] == 1


def test_answers_need_the_verdicts_frame_and_a_gold_value():
    gold = pl.DataFrame({"question": ["x"], "expected_value": ["1 EUR"]})
    with pytest.raises(ValueError, match="verdict"):
        evaluate_answers(pd.DataFrame({"question_id": ["q0"]}), gold)
    with pytest.raises(ValueError, match="expected_value"):
        evaluate_answers(verdicts(), pl.DataFrame({"question": ["x"]}))
    missing = evaluate_answers(verdicts(), gold, as_="polars").failures
    assert missing["failure_mode"].to_list() == ["missing_row"]


def test_eval_command(tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text(
        "id,question,answer_type,needs_clarification\n"
        "1,What is the annual premium?,amount,false\n"
        "2,When does the policy expire?,amount,false\n"
    )
    failures = tmp_path / "failures.csv"
    result = CliRunner().invoke(cli, ["eval", str(path), "--failures", str(failures)])
    assert result.exit_code == 0, result.output
    assert "wrong_type" in result.output and "[2]" in result.output
    assert pl.read_csv(failures)["got"].to_list() == ["date"]
    as_json = CliRunner().invoke(cli, ["eval", str(path), "--json"])
    metrics = {m["field"]: m for m in json.loads(as_json.output)["metrics"]}
    assert metrics["answer_type"]["correct"] == 1


def test_eval_command_with_an_index_scores_retrieval_and_answers(tmp_path):
    pytest.importorskip("bm25s")
    corpus = Path(__file__).parents[1] / "examples" / "corpus"
    index = tmp_path / "index"
    built = CliRunner().invoke(cli, ["index", str(corpus), "-o", str(index), "--no-embeddings"])
    assert built.exit_code == 0, built.output
    gold = tmp_path / "gold.csv"
    gold.write_text(
        "id,question,relevant_sections,expected_value\n"
        "1,What is the annual premium of the home insurance policy?,Schedule,480 EUR\n"
        "2,What is the monthly fee for storage?,2. Fees,999 GBP\n"
        "3,What is the IBAN for premium payments?,Schedule,none\n"
    )
    failures = tmp_path / "failures.csv"
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            str(gold),
            "--index",
            str(index),
            "--backend",
            "bm25",
            "-k",
            "5",
            "--json",
            "--failures",
            str(failures),
        ],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["retrieval"][0]["level"] == "section"
    assert out["retrieval"][0]["recall@5"] == 1.0
    value = next(m for m in out["metrics"] if m["field"] == "expected_value")
    assert (value["n"], value["correct"]) == (3, 2)
    wrong = pl.read_csv(failures)
    assert wrong["question_id"].cast(pl.String).to_list() == ["2"]
    assert wrong["failure_mode"].to_list() == ["wrong_value"]
    without = CliRunner().invoke(cli, ["eval", str(gold)])
    assert without.exit_code == 0, without.output
    assert "not scored without --index INDEX: relevant_sections, expected_value" in without.output


def test_the_bundled_retrieval_gold_names_sections_of_the_bundled_corpus():
    from quaestio.retrieval import chunk_documents

    root = Path(__file__).parents[1] / "examples"
    gold = read_gold(root / "retrieval_gold.csv")
    crumbs = set(pl.from_arrow(chunk_documents(root / "corpus")[1])["breadcrumb"])
    named = {s for sections in gold["relevant_sections"] for s in sections}
    assert named and named <= crumbs
    assert gold["expected_value"].null_count() < gold.height
