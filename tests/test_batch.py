import pandas as pd
import polars as pl
import pytest

from quaestio import QuestionError, parse_question, parse_questions

BAD = [None, float("nan"), "", "   \n\t", 42, ["a list"], "What is the premium?"]


def test_every_input_yields_one_row_in_order_with_error_codes(tiny_sats):
    qdf = parse_questions(BAD, tiny_sats)
    assert list(qdf.question_id) == [f"q{i}" for i in range(len(BAD))]
    assert qdf.error_code.fillna("").tolist() == [
        "missing_question",
        "missing_question",
        "empty_question",
        "empty_question",
        "not_a_string",
        "not_a_string",
        "",
    ]
    assert "row 4, column 'question'" in qdf.error_message.iloc[4]
    assert "(got 42)" in qdf.error_message.iloc[4]
    assert qdf.concepts.iloc[6] == ["premium"]


def test_errors_raise_names_the_row(tiny_sats):
    with pytest.raises(QuestionError, match=r"row 2, column 'question'.*empty") as info:
        parse_questions(["premium?", "limit?", " "], tiny_sats, errors="raise")
    assert info.value.code == "empty_question" and info.value.row == 2


def test_errors_warn_keeps_the_row_and_warns(tiny_sats):
    with pytest.warns(UserWarning, match="question 'q1'"):
        qdf = parse_questions(["premium?", None], tiny_sats, errors="warn")
    assert len(qdf) == 2


def test_single_mode_raises_a_clear_value_error(tiny_sats):
    for bad in (None, "", "  ", 3.5):
        with pytest.raises(ValueError):
            parse_question(bad, tiny_sats)


def test_pandas_dataframe_with_id_and_question_columns(tiny_sats):
    frame = pd.DataFrame(
        {"qid": ["007", "008"], "text": ["premium in Germany?", None]}, index=[10, 3]
    )
    qdf = parse_questions(frame, tiny_sats, question_column="text", id_column="qid")
    assert isinstance(qdf, pd.DataFrame)
    assert qdf.question_id.tolist() == ["007", "008"]
    assert qdf.concepts.iloc[0] == ["premium", "country_de"]
    assert qdf.error_code.fillna("").tolist() == ["", "missing_question"]


def test_pandas_series_and_polars_inputs_keep_their_engine(tiny_sats):
    series = pd.Series(["premium?", "limit of indemnity?"])
    assert isinstance(parse_questions(series, tiny_sats), pd.DataFrame)
    pl_frame = pl.DataFrame({"question": ["premium?", None]})
    out = parse_questions(pl_frame, tiny_sats)
    assert isinstance(out, pl.DataFrame) and out.height == 2
    assert out["answer_type"].to_list() == ["amount", "text"]  # premium defaults to amount
    assert out["error_code"].to_list() == [None, "missing_question"]
    assert isinstance(parse_questions(pl_frame["question"], tiny_sats), pl.DataFrame)


def test_as_overrides_the_engine(tiny_sats):
    out = parse_questions(["premium?"], tiny_sats, as_="polars")
    assert isinstance(out, pl.DataFrame)
    with pytest.raises(ValueError, match="Did you mean 'polars'"):
        parse_questions(["premium?"], tiny_sats, as_="polar")


def test_missing_question_column_is_a_clear_error(tiny_sats):
    with pytest.raises(ValueError, match="column 'question' not found.*'text'"):
        parse_questions(pd.DataFrame({"text": ["a"]}), tiny_sats)


def test_a_single_string_is_refused(tiny_sats):
    with pytest.raises(TypeError, match="parse_question"):
        parse_questions("What is the premium?", tiny_sats)


def test_internal_failure_of_one_question_does_not_lose_the_batch(tiny_sats):
    def exploding(draft):
        if "boom" in draft.original:
            raise RuntimeError("step failed")

    from quaestio import DEFAULT_STEPS

    qdf = parse_questions(
        ["fine", "boom", "also fine"], tiny_sats, steps=DEFAULT_STEPS + (exploding,)
    )
    assert qdf.error_code.fillna("").tolist() == ["", "internal_error", ""]
    assert qdf.error_message.iloc[1] == "RuntimeError: step failed"


def test_batch_equals_single_parses(tiny_sats):
    questions = ["What is the annual premium in Germany?", "Whats the anual premuim?"]
    qdf = parse_questions(questions, tiny_sats)
    for i, q in enumerate(questions):
        row = parse_question(q, tiny_sats, question_id=f"q{i}")
        assert [k["text"] for k in qdf.keywords.iloc[i]] == [k.text for k in row.keywords]


def test_progress_bar_goes_to_stderr(tiny_sats, capsys):
    parse_questions(["premium?"] * 3, tiny_sats, progress=True)
    captured = capsys.readouterr()
    assert "3/3" in captured.err and captured.out == ""
