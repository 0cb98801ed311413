"""Issue 13, item 11: every user error on the command line is one line naming the file,
row, column or flag and what to do, with exit code 2; never a traceback, never lost rows."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from quaestio.cli import cli

FIXTURE_SATS = str(Path(__file__).parent / "fixtures" / "satellites")


@pytest.fixture
def files(tmp_path):
    made = {
        "ok.csv": "question\nWhat is the premium?\n",
        "empty.csv": "",
        "dup.csv": "question,question\na,b\n",
        "nocol.csv": "text\nhello\n",
        "bad.jsonl": '{"question": "a"}\n{oops\n',
        "gold.csv": "question_id,question\n",
    }
    for name, body in made.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    (tmp_path / "binary.csv").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00" * 40)
    (tmp_path / "binary.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" * 40)
    (tmp_path / "cp1251.csv").write_bytes("question\nКакова премия?\n".encode("cp1251"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Premium\n\nThe annual premium is EUR 10.\n")
    (tmp_path / "docs" / "notes.csv").write_text("a\n1\n")  # not a satellite table
    return tmp_path


# (arguments, text the one-line error must hold); {d} is the folder of the test files.
CASES = [
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--chunk-size", "-5"], "--chunk-size"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--chunk-size", "0"], "--chunk-size"),
    (["batch", "{d}/dup.csv", "-o", "{d}/o.csv"], "dup.csv line 1 column 'question'"),
    (["batch", "{d}/ok.csv", "-o", "{d}/missing/o.csv"], "does not exist"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.xlsx"], "-o/--output"),
    (["batch", "{d}/nocol.csv", "-o", "{d}/o.csv"], "--question-column"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--id-column", "ref"], "--id-column"),
    (["batch", "{d}/empty.csv", "-o", "{d}/o.csv"], "empty.csv"),
    (["batch", "{d}/binary.csv", "-o", "{d}/o.csv"], "binary.csv: a binary file"),
    (["batch", "{d}/binary.jsonl", "-o", "{d}/o.csv"], "binary.jsonl: a binary file"),
    (["batch", "{d}/bad.jsonl", "-o", "{d}/o.csv"], "bad.jsonl line 2"),
    (["batch", "{d}/cp1251.csv", "-o", "{d}/o.csv", "--encoding", "utf-8"], "cp1251.csv"),
    (["batch", "{d}/cp1251.csv", "-o", "{d}/o.csv", "--encoding", "nope"], "cp1251.csv"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--language", "klingon"], "--language"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--satellites", "{d}/docs"], "docs"),
    (["parse", "What is the premium?", "--language", "klingon"], "--language 'klingon'"),
    (["parse", "  "], "empty"),
    (["eval", "{d}/empty.csv"], "empty.csv"),
    (["eval", "{d}/binary.csv"], "binary.csv: a binary file"),
    (["eval", "{d}/gold.csv", "--questions", "{d}/binary.jsonl"], "binary.jsonl"),
    (["report", "{d}/empty.csv"], "empty.csv"),
    (["report", "{d}/binary.csv"], "binary.csv: a binary file"),
    (["report", "{d}/nocol.csv"], "--question-column"),
    (["admit", "{d}/empty.csv", "--satellites", FIXTURE_SATS], "empty.csv"),
    (["admit", "{d}/binary.csv", "--satellites", FIXTURE_SATS], "binary.csv: a binary file"),
    (["search", "{d}/docs", "premium"], "not a quaestio index"),
    (["search", "{d}/docs", "premium", "-k", "-3"], "-k"),
    (["search", "{d}/docs", ""], "QUESTION is empty"),
    (["search", "{d}/docs", "   "], "QUESTION is empty"),
    (["index", "{d}/docs", "-o", "{d}/idx", "--sentence-window", "-1"], "--sentence-window"),
    (["satellites", "validate", "{d}/docs"], "unknown table"),
]


@pytest.mark.parametrize("args, expected", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_user_error_is_one_line_and_exit_2(files, args, expected):
    args = [a.format(d=files) for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, (result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert expected in result.output, result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1, result.output


def test_index_without_the_retrieval_extra_names_the_extra(files, monkeypatch):
    for name in [m for m in sys.modules if m == "bm25s" or m.startswith("bm25s.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "bm25s", None)
    from quaestio.retrieval import bm25

    if hasattr(bm25, "_stopwords") and hasattr(bm25._stopwords, "cache_clear"):
        monkeypatch.setattr(bm25, "_stopwords", bm25._stopwords.__wrapped__)
    result = CliRunner().invoke(
        cli, ["index", str(files / "docs"), "-o", str(files / "idx"), "--no-embeddings"]
    )
    assert result.exit_code == 2, (result.output, result.exception)
    assert "pip install 'quaestio[retrieval]'" in result.output


def test_a_file_whose_every_row_failed_says_so_and_strict_fails(files):
    (files / "allbad.csv").write_text('question\n""\n"  "\n', encoding="utf-8")
    args = ["batch", str(files / "allbad.csv"), "-o", str(files / "o.parquet")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0 and "every question" in result.output
    assert "--strict" in result.output
    assert pl.read_parquet(files / "o.parquet").height == 2
    strict = CliRunner().invoke(cli, args + ["--strict"])
    assert strict.exit_code == 1


def test_strict_passes_a_clean_file_and_encoding_is_honoured(files):
    out = files / "o.jsonl"
    result = CliRunner().invoke(
        cli,
        ["batch", str(files / "cp1251.csv"), "-o", str(out), "--encoding", "cp1251", "--strict"],
    )
    assert result.exit_code == 0, result.output
    assert pl.read_ndjson(out)["original_question"].to_list() == ["Какова премия?"]


def test_eval_failures_into_a_missing_folder_is_one_line(files):
    gold = files / "gold2.csv"
    gold.write_text("question_id,question,answer_type\nq1,What is the premium?,date\n")
    result = CliRunner().invoke(
        cli, ["eval", str(gold), "--failures", str(files / "nowhere" / "f.csv")]
    )
    assert result.exit_code == 2, (result.output, result.exception)
    assert "nowhere" in result.output and "--failures" in result.output
