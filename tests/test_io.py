"""Streaming question files: every row once, in order, in bounded chunks, in every format."""

from __future__ import annotations

import json

import polars as pl
import pytest

from quaestio.io import iter_questions


@pytest.fixture
def questions():
    return pl.DataFrame(
        {
            "id": ["007", "008", "009", "010", "011"],
            "question": ["a?", None, "c, with a comma?", "d?", "é?"],
        }
    )


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
@pytest.mark.parametrize("size", [1, 2, 5, 100])
def test_every_row_once_in_order(tmp_path, questions, fmt, size):
    path = tmp_path / f"q.{fmt}"
    if fmt == "csv":
        questions.write_csv(path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in questions.to_dicts()))
    else:
        questions.write_parquet(path, row_group_size=2)
    parts = list(iter_questions(path, size))
    assert all(p.height <= size for p in parts)
    assert sum(p.height for p in parts[:-1]) == size * (len(parts) - 1)  # only the last is short
    merged = pl.concat(parts)
    assert merged["id"].to_list() == ["007", "008", "009", "010", "011"]  # leading zeros kept
    assert merged["question"].to_list() == questions["question"].to_list()


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        next(iter_questions(tmp_path / "nope.csv"))
    with pytest.raises(ValueError, match="cannot tell the format"):
        next(iter_questions(tmp_path / "q.xlsx"))


# Issue 17: files that are not UTF-8 are decoded in the encoding charset-normalizer finds.
_NON_UTF8 = {
    "cp1251": ["Какова годовая премия в Германии?", "Какой лимит ответственности?"],
    "shift_jis": ["ドイツでの年間保険料はいくらですか？", "責任限度額はいくらですか？"],
    "cp1252": ["Quelle est la prime annuelle à payer en été ?", "¿Cuál es la prima?"],
}


@pytest.mark.parametrize("encoding", list(_NON_UTF8))
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_non_utf8_files_are_decoded_in_their_encoding(tmp_path, encoding, fmt):
    texts = _NON_UTF8[encoding]
    path = tmp_path / f"q.{fmt}"
    if fmt == "csv":
        body = "id,question\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts))
    else:
        body = "".join(
            json.dumps({"id": str(i), "question": t}, ensure_ascii=False) + "\n"
            for i, t in enumerate(texts)
        )
    path.write_bytes(body.encode(encoding))
    with pytest.warns(UserWarning, match="W304"):
        got = [q for f in iter_questions(path) for q in f["question"]]
    assert got == texts


def test_a_forced_encoding_wins_and_a_wrong_one_names_the_file(tmp_path):
    from quaestio.errors import InputFileError

    path = tmp_path / "q.csv"
    path.write_bytes("question\nКакова премия?\n".encode("cp1251"))
    assert list(iter_questions(path, encoding="cp1251"))[0]["question"][0] == "Какова премия?"
    with pytest.raises(InputFileError, match=r"q\.csv.*utf-8"):
        list(iter_questions(path, encoding="utf-8"))


@pytest.mark.parametrize(
    "body, match",
    [
        (b"", "empty"),
        (b"question,question\na,b\n", "column 'question'.*twice"),
    ],
)
def test_unreadable_csv_files_are_named(tmp_path, body, match):
    from quaestio.errors import InputFileError

    path = tmp_path / "bad.csv"
    path.write_bytes(body)
    with pytest.raises(InputFileError, match=rf"bad\.csv.*{match}"):
        list(iter_questions(path))


@pytest.mark.parametrize("size", [0, -5, 2.5])
def test_a_chunk_size_below_one_is_refused(tmp_path, size):
    path = tmp_path / "q.csv"
    path.write_text("question\na\n")
    with pytest.raises(ValueError, match="chunk_size"):
        list(iter_questions(path, size))
