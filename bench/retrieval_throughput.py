"""Indexing and query throughput of the bm25 layer against raw bm25s, and memory at 100k chunks.

    python bench/retrieval_throughput.py [--chunks 100000] [--queries 2000] [--data ../shared/data]

Corpus: the business_reports_ir chunks (each made unique with a reference token) repeated up
to --chunks documents of one chunk each; queries: the business_reports and FinanceBench
questions, repeated to --queries. Without the data folder, a synthetic corpus is used.
Both sides use bm25s's numba backend, one thread, after a warm-up call (numba compiles on
first use). "raw bm25s" = bm25s.tokenize + BM25.retrieve; "quaestio" = the bm25 backend on
the same text (query="raw"), or on question_df keywords, ending with a typed hits_df.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def corpus_and_queries(data: Path, n_chunks: int, n_queries: int):
    folder = data / "business_reports_ir"
    if folder.exists():
        base = [json.loads(line)["text"] for line in open(folder / "corpus.jsonl")]
        queries = [json.loads(line)["text"] for line in open(folder / "queries.jsonl")]
        fb = data / "financebench" / "financebench_open_source.jsonl"
        if fb.exists():
            queries += [json.loads(line)["question"] for line in open(fb)]
    else:
        print(f"{folder} not found: synthetic corpus", file=sys.stderr)
        words = [f"term{i}" for i in range(5000)]
        base = [" ".join(words[(i * 7 + j * 13) % 5000] for j in range(80)) for i in range(1000)]
        queries = [" ".join(words[(i * 31 + j) % 5000] for j in range(6)) for i in range(200)]
    texts = [f"{base[i % len(base)]} ref{i}" for i in range(n_chunks)]
    return texts, (queries * (n_queries // len(queries) + 1))[:n_queries]


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    import bm25s

    from quaestio import parse_questions
    from quaestio.retrieval import build_index
    from quaestio.retrieval.base import materialise
    from quaestio.retrieval.bm25 import tokenize

    texts, queries = corpus_and_queries(args.data, args.chunks, args.queries)
    qdf, parse_s = timed(lambda: parse_questions(queries, as_="arrow"))
    frame = pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts})
    index, ours_build = timed(
        lambda: build_index(frame, embedding_model=None, parent_child=False, progress=False)
    )
    n_rows = index.chunks.num_rows
    with tempfile.TemporaryDirectory() as tmp:
        index.save(Path(tmp) / "idx")
        disk = sum(p.stat().st_size for p in (Path(tmp) / "idx").rglob("*") if p.is_file())
        served = served_memory(Path(tmp) / "idx")

    def raw_build():
        model = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend="numba")
        model.index([tokenize(t) for t in texts], show_progress=False)
        return model

    raw, raw_build_s = timed(raw_build)
    records = qdf.to_pylist()
    raw_backend = index.retriever("bm25", query="raw")
    kw_backend = index.retriever("bm25")
    k = 10

    def ours(backend):
        hits = backend.retrieve(records, k)
        return materialise(index.chunks, records, hits, backend.name)

    def bm25s_raw():
        tokens = [tokenize(q) for q in queries]
        ids = [[raw.vocab_dict[t] for t in q if t in raw.vocab_dict] or [0] for q in tokens]
        return raw.retrieve(ids, k=k, backend_selection="numba", n_threads=1, show_progress=False)

    for warm in (lambda: ours(raw_backend), bm25s_raw):  # numba compiles on first call
        warm()
    _, raw_q = timed(bm25s_raw)
    _, ours_raw_q = timed(lambda: ours(raw_backend))
    _, ours_kw_q = timed(lambda: ours(kw_backend))
    n = len(queries)
    print(f"corpus: {len(texts):,} documents -> {n_rows:,} chunk rows; {n:,} queries, k={k}")
    print(f"indexing  raw bm25s (tokenize+index): {len(texts) / raw_build_s:,.0f} docs/s")
    print(
        f"indexing  quaestio build_index (read, chunk, describe, bm25): "
        f"{len(texts) / ours_build:,.0f} docs/s"
    )
    print(f"querying  raw bm25s (tokenize+retrieve):       {n / raw_q:,.0f} q/s")
    print(
        f"querying  quaestio bm25, raw question -> hits_df: {n / ours_raw_q:,.0f} q/s "
        f"(overhead x{ours_raw_q / raw_q:.2f})"
    )
    print(
        f"querying  quaestio bm25, question_df keywords -> hits_df: {n / ours_kw_q:,.0f} q/s "
        f"(x{ours_kw_q / raw_q:.2f}; keywords have more terms than the raw question)"
    )
    print(f"parsing   parse_questions (offline, not retrieval): {n / parse_s:,.0f} q/s")
    print(
        f"memory    serving an opened index: +{served:,.0f} MB RSS for {n_rows:,} chunk rows "
        f"(chunks table, bm25 matrix, one search); on disk {disk / 1e6:,.0f} MB; dense "
        f"vectors would add {n_rows * 384 * 4 / 1e6:,.0f} MB (384 float32 each, mmapped)"
    )


def served_memory(path: Path) -> float:
    """RSS growth of a fresh process that opens the index and answers one question."""
    import subprocess

    code = (
        f"import gc, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        "from retrieval_throughput import rss_mb; "
        "from quaestio.retrieval import open_index, search; import bm25s, numba; "
        "from quaestio import parse_question; parse_question('warm up'); gc.collect(); "
        f"before = rss_mb(); i = open_index({str(path)!r}); "
        "search(i, 'banking growth', backend='bm25'); print(rss_mb() - before)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else float("nan")


if __name__ == "__main__":
    main()
