"""Recall@k (5, 20, 50) and MRR of each retrieval configuration on public sets.

    python bench/retrieval_quality.py [--data ../shared/data] [--sets business_reports,financebench]

Sets (read from --data, skipped with a message when absent):
- business_reports_ir: BEIR-style corpus (671 chunks of 30 reports), queries, qrels (11
  judged queries, each judging every chunk of one report: ~23 relevant chunks, so R@5 is at
  most ~0.22; a second row scores the same hits per report);
- financebench: every evidence page of the 150 questions is a document (168 pages); a
  question's relevant documents are its own evidence pages.
Documents are ranked by their best chunk (doc-level), over the top 50 chunks.
Configurations: bm25 on the raw question; bm25 on question_df keywords (direct only; direct
+ dictionary; all sources); dense; hybrid (RRF, k=60, weights 1/1); parent-child (hybrid on
children, whole sections returned); hybrid + bi-encoder re-score. HyDE needs an LLM writer
and is not measured offline.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
KS = (5, 20, 50)


def business_reports(data: Path):
    folder = data / "business_reports_ir"
    corpus = [json.loads(line) for line in open(folder / "corpus.jsonl")]
    docs = pd.DataFrame({"doc_id": [c["_id"] for c in corpus],
                         "text": [f"# {c['title']}\n\n{c['text']}" for c in corpus]})
    queries = {q["_id"]: q["text"] for q in map(json.loads, open(folder / "queries.jsonl"))}
    qrels = pd.read_csv(folder / "qrels" / "test.tsv", sep="\t")
    relevant = qrels[qrels.score > 0].groupby("query-id")["corpus-id"].apply(set).to_dict()
    return docs, {q: queries[q] for q in relevant}, relevant


def financebench(data: Path):
    rows = [json.loads(line) for line in open(data / "financebench" / "financebench_open_source.jsonl")]
    pages, questions, relevant = {}, {}, {}
    for r in rows:
        qid = r["financebench_id"]
        questions[qid] = r["question"]
        for e in r["evidence"]:
            doc_id = f"{e['doc_name']}#p{e['evidence_page_num']}"
            pages[doc_id] = (e["evidence_text_full_page"], e["evidence_page_num"])
            relevant.setdefault(qid, set()).add(doc_id)
    docs = pd.DataFrame({"doc_id": list(pages), "text": [t for t, _ in pages.values()],
                         "page_start": [p for _, p in pages.values()]})
    return docs, questions, relevant


def metrics(hits: pd.DataFrame, relevant: dict[str, set[str]], unit=None) -> dict[str, float]:
    """Recall@k and MRR over documents ranked by their best chunk; `unit` maps a doc id to
    the unit judged (e.g. the report a BEIR chunk belongs to)."""
    unit = unit or (lambda d: d)
    relevant = {q: {unit(d) for d in docs} for q, docs in relevant.items()}
    ranked = {qid: list(dict.fromkeys(map(unit, g.sort_values("rank").doc_id)))
              for qid, g in hits.groupby("question_id")}
    out = {f"R@{k}": 0.0 for k in KS} | {"MRR": 0.0}
    for qid, gold in relevant.items():
        docs = ranked.get(qid, [])
        for k in KS:
            out[f"R@{k}"] += len(gold & set(docs[:k])) / len(gold)
        first = next((i for i, d in enumerate(docs[:50], 1) if d in gold), None)
        out["MRR"] += 1 / first if first else 0.0
    return {key: round(value / len(relevant), 3) for key, value in out.items()}


def configurations():
    from quaestio.retrieval import Funnel

    raw = Funnel(reranker=None, siblings=False)
    return {
        "bm25 raw question": ("bm25", {"query": "raw"}, raw),
        "bm25 keywords: direct": ("bm25", {"sources": ["direct"]}, raw),
        "bm25 keywords: direct+dictionary": ("bm25", {"sources": ["direct", "expert_dictionary"]}, raw),
        "bm25 keywords: all sources": ("bm25", {}, raw),
        "dense (MiniLM-L6)": ("dense", {}, raw),
        "hybrid RRF": ("hybrid", {}, raw),
        "parent-child (hybrid children)": ("parent", {}, raw),
        "hybrid + bi-encoder re-score": ("hybrid", {}, Funnel(reranker="bi-encoder",
                                                              siblings=False)),
    }


def run(name: str, docs, questions, relevant) -> pd.DataFrame:
    from quaestio import parse_questions
    from quaestio.retrieval import build_index, search

    start = time.perf_counter()
    index = build_index(docs, embedding_model="all-MiniLM-L6-v2")
    built = time.perf_counter() - start
    qdf = parse_questions(pd.DataFrame({"id": list(questions), "question": list(questions.values())}),
                          id_column="id", as_="arrow")
    rows = []
    for label, (backend, options, funnel) in configurations().items():
        start = time.perf_counter()
        hits = search(index, qdf, backend=backend, k=50, funnel=funnel, **options)
        seconds = time.perf_counter() - start
        rows.append({"set": name, "configuration": label, **metrics(hits, relevant),
                     "q/s": round(len(questions) / seconds, 1)})
        if name == "business_reports":  # its qrels judge whole reports: score per report too
            rows.append({"set": "business_reports (per report)", "configuration": label,
                         **metrics(hits, relevant, lambda d: d.split("_chunk")[0])})
    print(f"{name}: {len(docs)} documents, {index.manifest['chunks']} chunk rows, "
          f"{len(relevant)} judged questions, index built in {built:.1f} s", file=sys.stderr)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="business_reports,financebench")
    args = parser.parse_args()
    loaders = {"business_reports": (business_reports, "business_reports_ir"),
               "financebench": (financebench, "financebench")}
    tables = []
    for name in args.sets.split(","):
        load, folder = loaders[name]
        if not (args.data / folder).exists():
            print(f"skipping {name}: {args.data / folder} not found", file=sys.stderr)
            continue
        tables.append(run(name, *load(args.data)))
    if tables:
        print(pd.concat(tables).to_string(index=False))


if __name__ == "__main__":
    main()
