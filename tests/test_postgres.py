"""The PostgreSQL backend against a real server started for the session (tests/pg_server.py)."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import pandas as pd
import pytest
from pg_server import PostgresServer, find_binaries

pytest.importorskip(
    "psycopg", reason="the postgres extra is not installed: pip install 'quaestio[postgres]'"
)
pytest.importorskip("bm25s", reason="the retrieval extra is not installed")

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "corpus"
GOLD = ROOT / "examples" / "retrieval_gold.csv"


@pytest.fixture(scope="module")
def server():
    bin_dir = find_binaries()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in "
            "/usr/lib/postgresql/*/bin: install Debian's postgresql package"
        )
    srv = PostgresServer(bin_dir).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def folder_index():
    from quaestio.retrieval import build_index

    return build_index(CORPUS, embedding_model=None)


def _store(server, schema, source):
    from quaestio.retrieval.postgres import build_postgres

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no pgvector here
        return build_postgres(source, server.dsn, schema=schema)


@pytest.fixture(scope="module")
def store(server, folder_index):
    s = _store(server, "corpus", folder_index)
    yield s
    s.close()


def _ranked(hits) -> dict[str, list[str]]:
    return hits.groupby("question_id")["chunk_id"].apply(list).to_dict()


def test_open_says_lexical_without_pgvector(server):
    from quaestio.retrieval.postgres import PostgresIndex

    with pytest.warns(RuntimeWarning, match="pgvector"):
        PostgresIndex(server.dsn, schema="warned").close()


def test_hits_schema_and_recall_match_embedded_bm25(store, folder_index):
    from quaestio.evaluate import evaluate_retrieval
    from quaestio.retrieval import HITS_SCHEMA, Funnel, search

    gold = pd.read_csv(GOLD)
    questions = gold.rename(columns={"id": "question_id"})
    from quaestio import parse_questions

    qdf = parse_questions(gold, id_column="id", as_="arrow")
    raw = Funnel(reranker=None, siblings=False)
    pg = search(store, qdf, backend="postgres", k=20, funnel=raw)
    assert list(pg.columns) == HITS_SCHEMA.names
    assert set(pg.backend) == {"postgres"}
    embedded = search(folder_index, qdf, backend="bm25", k=20, funnel=raw)
    scores = evaluate_retrieval({"pg": pg, "bm25": embedded}, questions, ks=(5, 20))
    by = scores.set_index("configuration")
    for k in ("recall@5", "recall@20"):
        assert by.loc["pg", k] >= by.loc["bm25", k] - 0.05, scores


def test_matched_keywords_are_held_by_the_hit(store):
    from quaestio.retrieval import search

    hits = search(store, "How much does the insurance cost per year?", backend="postgres", k=3)
    assert hits.breadcrumb[0].endswith("> Schedule")
    for text, matched in zip(hits.generation_text, hits.matched_keywords):
        for keyword in matched:
            assert all(w[:4] in text.lower() for w in keyword.lower().split()), keyword


def test_pinned_pages_layout_and_filters(store):
    from quaestio.retrieval import search

    hits = search(
        store,
        ["Show me page 2", "What is the water damage limit in the table?"],
        backend="postgres",
        k=5,
    )
    page = hits[hits.question_id == "q0"]
    assert len(page) and page.pinned.all()
    assert ((page.page_start <= 2) & (page.page_end >= 2)).all()
    unfiltered = search(store, "Show me page 2", backend="postgres", k=5, filters=False)
    assert not unfiltered.pinned.any()


def test_hostile_text_is_a_parameter_not_sql(store):
    from quaestio.retrieval import search

    nasty = "premium'); DROP TABLE corpus.chunks; -- \\' :* & | ! <-> ("
    hits = search(store, nasty, backend="postgres", k=3)
    assert len(hits) > 0
    assert store.manifest["chunks"] > 0
    with store.pool.connection() as conn:
        assert conn.execute("SELECT count(*) FROM corpus.chunks").fetchone()[0] > 0


def test_failed_ingest_leaves_the_previous_state(server, folder_index):
    from quaestio.errors import QuaestioError

    s = _store(server, "atomic", folder_index)
    try:
        before = s.manifest["chunks"]
        with pytest.raises(QuaestioError, match="already indexed"):
            s.add_documents(folder_index)
        import pyarrow as pa

        ids = folder_index.chunks.column("doc_id").to_pylist()
        bad = folder_index.chunks.set_column(  # a NULL doc_id violates NOT NULL mid-COPY
            1, "doc_id", pa.array(ids[:-1] + [None], pa.string())
        )
        broken = type(folder_index)(folder_index.documents, bad, folder_index.manifest)
        import psycopg

        with pytest.raises(psycopg.errors.NotNullViolation):
            s.ingest(broken)
        assert s.manifest["chunks"] == before and len(s.history()) == 1
    finally:
        s.close()


def test_add_update_remove_equal_a_full_rebuild(server, tmp_path):
    from quaestio.retrieval import build_index, search

    docs = {p.name: p.read_text() for p in sorted(CORPUS.glob("*.md"))}
    frame = lambda d: pd.DataFrame({"doc_id": list(d), "text": list(d.values())})  # noqa: E731
    names = list(docs)
    s = _store(
        server,
        "updates",
        build_index(frame({n: docs[n] for n in names[:2]}), embedding_model=None),
    )
    try:
        s.add_documents(build_index(frame({n: docs[n] for n in names[2:]}), embedding_model=None))
        changed = dict(docs)
        changed[names[0]] = docs[names[0]] + "\n\n## Addendum\n\nThe annual premium is revised."
        update = s.update_documents(
            build_index(frame({names[0]: changed[names[0]]}), embedding_model=None)
        )
        assert update["chunks_unchanged"] > 0  # unchanged chunks were not rewritten
        s.remove_documents([names[1]])
        del changed[names[1]]
        rebuilt = _store(server, "rebuilt", build_index(frame(changed), embedding_model=None))
        questions = [
            "What is the annual premium?",
            "How is the agreement terminated?",
            "What is the deductible?",
            "What are the exclusions?",
        ]
        try:
            a = search(s, questions, backend="postgres", k=5)
            b = search(rebuilt, questions, backend="postgres", k=5)
            assert _ranked(a) == _ranked(b)
            assert a.score.round(6).tolist() == b.score.round(6).tolist()
            assert [h["operation"] for h in s.history()] == ["ingest", "add", "update", "remove"]
        finally:
            rebuilt.close()
    finally:
        s.close()


def test_workers_share_one_pool(store):
    from quaestio.retrieval import search

    expected = _ranked(search(store, "What is the deductible?", backend="postgres", k=3))
    results, errors = [], []

    def work():
        try:
            results.append(
                _ranked(search(store, "What is the deductible?", backend="postgres", k=3))
            )
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and results == [expected] * 8


def test_cli_index_into_postgres(server):
    from click.testing import CliRunner

    from quaestio.cli import cli
    from quaestio.retrieval import search

    url = f"postgresql://postgres@/postgres?host={server.folder}&port={server.port}"
    result = CliRunner().invoke(cli, ["index", str(CORPUS), "--postgres", url, "--no-embeddings"])
    assert result.exit_code == 0, result.output
    assert "-> PostgreSQL" in result.output and "pgvector" in result.output
    with pytest.warns(RuntimeWarning, match="pgvector"):  # a DSN opens its own pool
        hits = search(url, "What is the deductible?", backend="postgres", k=1)
    assert hits.breadcrumb[0].endswith("> Schedule")
    both = CliRunner().invoke(cli, ["index", str(CORPUS), "--postgres", url, "-o", "x"])
    assert both.exit_code != 0 and "one of" in both.output


def test_updates_take_folders_and_record_each_step(server, tmp_path):
    from quaestio.retrieval import build_index

    folder = tmp_path / "docs"
    folder.mkdir()
    for p in sorted(CORPUS.glob("*.md"))[:2]:
        (folder / p.name).write_text(p.read_text())
    s = _store(server, "folders", build_index(folder, embedding_model=None))
    try:
        extra = tmp_path / "extra"
        extra.mkdir()
        last = sorted(CORPUS.glob("*.md"))[-1]
        (extra / last.name).write_text(last.read_text())
        added = s.add_documents(extra)
        assert added["documents"] == 3
        again = s.update_documents(extra)  # nothing changed: nothing rewritten
        assert again["chunks_written"] == 0 and again["chunks_removed"] == 0
        assert [h["operation"] for h in s.history()] == ["ingest", "add", "update"]
        from quaestio.errors import QuaestioError

        with pytest.raises(QuaestioError, match="not in the index"):
            s.remove_documents(["no-such-doc"])
    finally:
        s.close()


def test_explicit_phrases_count_as_phrases(store):
    from quaestio import parse_questions
    from quaestio.retrieval import search

    q = parse_questions(['What is the "limit of indemnity" for water damage?'], as_="arrow")
    with_phrase = search(store, q, backend="postgres", k=3)
    without = search(store, q, backend="postgres", k=3, phrase_weight=0.0)
    assert with_phrase.breadcrumb[0].endswith("> Cover and limits")
    assert "limit of indemnity" in with_phrase.matched_keywords[0]
    assert with_phrase.score[0] > without.score[0]  # the adjacent words add their phrase
    assert with_phrase.score[1] == pytest.approx(without.score[1])  # no phrase: no bonus
