import datetime as dt

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

from quaestio import COLUMNS, QUESTION_SCHEMA, parse_questions
from quaestio.schema import FAMILIES, frame_to_table, from_record, rows_to_table, to_record
from quaestio.types import ParsedQuestion, ScopeItem

QUESTIONS = [
    "What is the annual premium in Germany?",
    'Search for "force majeure", "termination"',
    None,
    "Whats the anual premuim?",
]


def _rich_row() -> ParsedQuestion:
    row = ParsedQuestion(question_id="x1", original_question="q")
    row.hints.pages_hint = [3, 5]
    row.scope.scope_date_from = dt.date(2022, 1, 1)
    row.scope.scope_custom = [ScopeItem(name="product", value="fleet", origin="caller")]
    row.dispatch.retrieval_k = 7
    return row


def test_every_column_family_is_a_flat_column():
    for family, model in FAMILIES.items():
        for name in model.model_fields:
            assert name in COLUMNS, f"{family}.{name} missing from question_df"
    assert len(set(COLUMNS)) == len(COLUMNS), "two families declare the same column"
    for name in (
        "question_id",
        "keywords",
        "answer_type",
        "pages_hint",
        "scope_date_from",
        "decomposition_pattern",
        "suggested_clarification",
        "retrieval_k",
        "llm_status",
        "error_code",
    ):
        assert name in COLUMNS


def test_defaults_of_unfilled_families():
    row = ParsedQuestion(question_id="a", original_question="b")
    assert (row.answer_shape, row.answer_type) == ("single", "text")
    assert row.decomposition.decomposition_pattern == "single"
    assert row.provenance.parser_mode == "rules" and row.provenance.llm_status == "off"


def test_record_round_trip_keeps_nested_values():
    row = _rich_row()
    assert from_record(to_record(row)) == row
    table = rows_to_table([row])
    assert table.schema == QUESTION_SCHEMA
    assert from_record(table.to_pylist()[0]) == row


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_engines_and_parquet_round_trip_without_loss(tmp_path, tiny_sats, engine):
    qdf = parse_questions(QUESTIONS, tiny_sats, as_=engine)
    original = frame_to_table(qdf)
    path = tmp_path / "q.parquet"
    if engine == "pandas":
        qdf.to_parquet(path)
        back = pd.read_parquet(path, dtype_backend="pyarrow")
    else:
        qdf.write_parquet(path)
        back = pl.read_parquet(path)
    assert frame_to_table(back).equals(original)
    assert pq.read_schema(path).names == list(COLUMNS)


def test_pandas_polars_cross_conversion_is_lossless(tiny_sats):
    pdf = parse_questions(QUESTIONS, tiny_sats, as_="pandas")
    pldf = parse_questions(QUESTIONS, tiny_sats, as_="polars")
    left, right = frame_to_table(pdf), frame_to_table(pldf)
    latency = COLUMNS.index("latency_ms")
    drop = [i for i in range(len(COLUMNS)) if i != latency]  # latency differs by run
    assert left.select(drop).equals(right.select(drop))
    assert frame_to_table(pl.from_pandas(pdf)).select(drop).equals(left.select(drop))


def test_scalar_columns_filter_like_plain_columns(tiny_sats):
    qdf = parse_questions(QUESTIONS, tiny_sats)
    assert list(qdf[qdf.error_code.isna()].question_id) == ["q0", "q1", "q3"]
    first = qdf.keywords.iloc[0]
    assert isinstance(first, list) and {"text", "source", "span_start"} <= set(first[0])


def test_frame_to_table_rejects_a_frame_that_is_not_question_df():
    with pytest.raises(ValueError, match="missing columns"):
        frame_to_table(pd.DataFrame({"question_id": ["a"]}))
