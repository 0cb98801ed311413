"""The PostgreSQL backend at size: ingest, search, and adding 1% more documents against a rebuild.

    python bench/postgres_scale.py [--chunks 20000] [--queries 200] [--postgres temp|DSN]

Corpus and queries as in bench/retrieval_throughput.py (business_reports_ir chunks made
unique, one chunk per document; the business_reports and FinanceBench questions), indexed
bm25-only (no vectors: pgvector is not on this machine). Prints chunk rows/s of the ingest
(one transaction), queries/s of `search(..., backend="postgres")` (offline parse not
counted), the time to add 1% more documents with `add_documents` and to `update_documents`
them unchanged, against a full re-ingest; CPU of this process and the load average with each.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]


def clock(label: str, work, n: int | None = None, unit: str = ""):
    cpu, wall = time.process_time(), time.perf_counter()
    out = work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rate = f"  {n / wall:8.0f} {unit}/s" if n else ""
    print(
        f"{label:<44} {wall:7.1f} s{rate}  (CPU here {cpu:.1f} s, load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    return out


def main() -> None:
    from retrieval_throughput import DEFAULT_DATA, corpus_and_queries

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--postgres", default="temp", help="temp (a throw-away server) or a DSN")
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # "no pgvector": full-text only here
    from quaestio import parse_questions
    from quaestio.retrieval import Funnel, build_index, search
    from quaestio.retrieval.postgres import PostgresIndex

    texts, queries = corpus_and_queries(args.data, args.chunks, args.queries)
    extra = max(1, len(texts) // 100)
    docs = pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts})
    more = pd.DataFrame(
        {
            "doc_id": [f"n{i}" for i in range(extra)],
            "text": [f"{texts[i]} addendum{i}" for i in range(extra)],
        }
    )
    options = {"embedding_model": None, "parent_child": False}
    base = clock(
        f"chunk {len(docs):,} documents (build_index)",
        lambda: build_index(docs, **options),
        len(docs),
        "docs",
    )
    with contextlib.ExitStack() as stack:
        dsn = args.postgres
        if dsn == "temp":
            from pg_server import PostgresServer, find_binaries

            server = PostgresServer(find_binaries()).start()
            stack.callback(server.stop)
            dsn = server.dsn
        store = stack.enter_context(PostgresIndex(dsn, schema="quaestio_scale"))
        rows = base.chunks.num_rows
        clock(
            f"ingest {rows:,} chunk rows (one transaction)",
            lambda: store.ingest(base),
            rows,
            "rows",
        )
        parsed = parse_questions(queries, as_="arrow")
        raw = Funnel(reranker=None, siblings=False)
        search(store, parsed[:5], backend="postgres", k=10, funnel=raw)
        clock(
            f"search {len(queries)} questions, k=10",
            lambda: search(store, parsed, backend="postgres", k=10, funnel=raw),
            len(queries),
            "q",
        )
        added = build_index(more, **options)
        clock(f"add_documents: +{extra} documents (1%)", lambda: store.add_documents(added))
        clock(
            f"update_documents: the same {extra}, unchanged", lambda: store.update_documents(added)
        )
        everything = build_index(pd.concat([docs, more], ignore_index=True), **options)
        clock(
            f"full re-ingest of {everything.chunks.num_rows:,} rows (chunked already)",
            lambda: store.ingest(everything),
        )


if __name__ == "__main__":
    main()
