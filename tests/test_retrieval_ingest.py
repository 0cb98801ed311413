"""Bad input at ingestion: each case gives a clear message or a documented behaviour."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from click.testing import CliRunner
from test_retrieval_fixtures import CORPUS

from quaestio.cli import cli
from quaestio.retrieval import IngestionError, IngestionWarning, build_index, chunk_documents


def read(folder, **kw):
    skipped: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs, chunks = chunk_documents(folder, skipped=skipped, **kw)
    return docs, chunks, skipped, [w.message for w in caught]


def test_empty_binary_duplicate_and_cp1252_files(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nPremium text.")
    (tmp_path / "copy.md").write_text("# A\n\nPremium text.")
    (tmp_path / "empty.md").write_text("  \n")
    (tmp_path / "image.md").write_bytes(b"\x89PNG\x00\x00\x01binary")
    (tmp_path / "legacy.txt").write_bytes("Prime annuelle: 480 €, réglée".encode("cp1252"))
    (tmp_path / "ignored.pdf").write_bytes(b"%PDF")
    docs, chunks, skipped, caught = read(tmp_path)
    assert docs.column("doc_id").to_pylist() == ["a.md", "legacy.txt"]
    codes = {s["source"].rsplit("/", 1)[-1]: s["code"] for s in skipped}
    assert codes == {
        "copy.md": "W303",
        "empty.md": "W301",
        "image.md": "W302",
        "legacy.txt": "W304",
    }
    assert all(isinstance(m, IngestionWarning) for m in caught)
    assert any("copy.md: same content as" in str(m) and "a.md" in str(m) for m in caught)
    legacy = [r for r in chunks.to_pylist() if r["doc_id"] == "legacy.txt"][0]
    assert "480 €, réglée" in legacy["generation_text"]
    # cp1250 and cp1252 decode these bytes alike; charset-normalizer may name either.
    assert docs.column("encoding").to_pylist()[0] == "utf-8"
    assert docs.column("encoding").to_pylist()[1] in ("cp1250", "cp1252")


def test_forced_encoding_failure_names_the_file(tmp_path):
    (tmp_path / "x.md").write_bytes("é".encode("latin-1"))
    with pytest.raises(IngestionError, match=r"x\.md: cannot decode as utf-8"):
        chunk_documents(tmp_path, encoding="utf-8")


def test_utf16_with_bom_is_read(tmp_path):
    (tmp_path / "w.md").write_bytes("# Titre\n\nTexte accentué.".encode("utf-16"))
    docs, chunks, skipped, _ = read(tmp_path)
    assert skipped == [] and "accentué" in chunks.column("generation_text")[0].as_py()


def test_nothing_readable_and_missing_paths_are_errors(tmp_path):
    (tmp_path / "empty.md").write_text("")
    with (
        pytest.warns(IngestionWarning),
        pytest.raises(IngestionError, match="no readable document.*empty file"),
    ):
        chunk_documents(tmp_path)
    with pytest.raises(IngestionError, match="no such file or folder"):
        chunk_documents(tmp_path / "nope")
    with pytest.raises(IngestionError, match="needs a 'text' column"):
        chunk_documents(pd.DataFrame({"body": ["x"]}))
    with pytest.raises(IngestionError, match="row 1: column 'text' must be a string"):
        chunk_documents(pd.DataFrame({"text": ["fine", 3]}))


def test_cli_index_then_search(tmp_path):
    runner = CliRunner()
    out = tmp_path / "idx"
    result = runner.invoke(cli, ["index", str(CORPUS), "-o", str(out), "--no-embeddings"])
    assert result.exit_code == 0, result.output
    assert "4 documents ->" in result.output
    result = runner.invoke(cli, ["search", str(out), "What is the annual premium?", "-k", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        lines[0].startswith(" 1. ") and "Home Insurance Policy HI-2024-0173 > Schedule" in lines[0]
    )
    assert "matched: annual premium" in lines[1]
    result = runner.invoke(cli, ["search", str(out), "premium", "--json", "--backend", "bm25"])
    import json

    first = json.loads(result.output.splitlines()[0])
    assert first["rank"] == 1 and first["backend"] == "bm25" and first["generation_text"]
    result = runner.invoke(cli, ["search", str(out), "premium", "--backend", "dense"])
    assert result.exit_code == 2 and "without embeddings" in result.output
    result = runner.invoke(cli, ["search", str(tmp_path), "premium"])
    assert result.exit_code == 2 and "not a quaestio index" in result.output


def test_build_index_from_a_dataframe_dedupes_identical_texts():
    frame = pd.DataFrame(
        {
            "doc_id": ["p1", "p2", "p3"],
            "page_start": [4, 5, 6],
            "text": ["Revenue grew 5%.", "Revenue grew 5%.", "Net income fell."],
        }
    )
    with pytest.warns(IngestionWarning, match="W303"):
        index = build_index(frame, embedding_model=None, parent_child=False)
    assert index.documents.column("doc_id").to_pylist() == ["p1", "p3"]
    assert index.manifest["skipped"][0]["code"] == "W303"


def test_import_and_bm25_index_never_load_torch():
    import subprocess
    import sys

    code = (
        "import sys; from quaestio.retrieval import build_index, search; "
        f"i = build_index({str(CORPUS)!r}, embedding_model=None); "
        "search(i, 'premium', backend='bm25'); "
        "print([m for m in ('torch', 'sentence_transformers', 'transformers') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_missing_extras_name_the_pip_command(monkeypatch):
    import sys

    from quaestio.retrieval import BackendUnavailable
    from quaestio.retrieval.bm25 import BM25Backend
    from quaestio.retrieval.embeddings import Embedder, resolve

    monkeypatch.setitem(sys.modules, "bm25s", None)
    with pytest.raises(BackendUnavailable, match=r"pip install 'quaestio\[retrieval\]'"):
        BM25Backend().fit_tokens([["premium"]])
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(BackendUnavailable, match="sentence-transformers"):
        Embedder(resolve("minilm")).model()


def test_cp1251_and_shift_jis_documents_are_decoded_in_their_encoding(tmp_path):
    texts = {
        "ru.txt": ("Годовая премия по договору страхования составляет 1 250 евро.", "cp1251"),
        "ja.txt": ("年間保険料は千二百五十ユーロです。責任限度額は百万ユーロです。", "shift_jis"),
    }
    for name, (text, encoding) in texts.items():
        (tmp_path / name).write_bytes(text.encode(encoding))
    docs, chunks, skipped, _ = read(tmp_path)
    assert {s["code"] for s in skipped} == {"W304"}
    for name, (text, _) in texts.items():
        row = [r for r in chunks.to_pylist() if r["doc_id"] == name][0]
        assert text[:20] in row["generation_text"]
