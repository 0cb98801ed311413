"""Recall@k (5, 20, 50), MRR and nDCG@20 of each retrieval configuration on public sets.

    python bench/retrieval_quality.py [--data ../shared/data] [--sets business_reports,financebench]
    python bench/retrieval_quality.py --sets financebench --limit 40 \\
        --llm-base-url http://127.0.0.1:8080/v1 --llm-model smollm2     # + rewrites, HyDE

Sets (read from --data, skipped with a message when absent):
- business_reports_ir: BEIR-style corpus (671 chunks of 30 reports), queries, qrels (11
  judged queries, each judging every chunk of one report: ~23 relevant chunks, so R@5 is at
  most ~0.22; a second row scores the same hits per report);
- financebench: every evidence page of the 150 questions is a document (168 pages); a
  question's relevant documents are its own evidence pages.
Documents are ranked by their best chunk (doc level), over the top 50 chunks, and scored by
`quaestio.evaluate.evaluate_retrieval`, the function users run on their own gold.

Configurations, side by side on the same questions: bm25 on the raw question; bm25 on
question_df keywords (direct only; direct + dictionary; every offline source); dense;
hybrid (RRF, k=60); parent-child (hybrid on children, whole sections returned); hybrid +
bi-encoder re-score. With an LLM endpoint (--llm-base-url/--llm-model, any
OpenAI-compatible server): bm25 on keywords + LLM rewrites (the consolidated LLM parse);
dense + HyDE (one hypothetical passage per question, its ranking fused with the
question's by RRF); and fused (hybrid on keywords + rewrites, HyDE on its dense branch).
Recall at 50 is where query transformations show: they widen the candidate pool a
reranker sees even when the top few do not move.

`--postgres temp|DSN` compares only the PostgreSQL backend (full-text, weighted tsquery) with
embedded BM25 on the same parsed questions, on the sets named by --sets plus "bundled"
(examples/corpus and examples/retrieval_gold.csv); "temp" starts a throw-away server
(tests/pg_server.py), a DSN uses yours (tables in the schema `quaestio_bench`).

    python bench/retrieval_quality.py --sets bundled,financebench --postgres temp
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
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


def gold_frame(questions: dict[str, str], relevant: dict[str, set[str]], unit=None):
    unit = unit or (lambda d: d)
    return pd.DataFrame({"question_id": list(questions), "question": list(questions.values()),
                         "relevant_doc_ids": [sorted({unit(d) for d in relevant[q]})
                                              for q in questions]})


def configurations(llm) -> dict[str, tuple]:
    """label -> (backend, search options, funnel, parse): parse "offline" or "llm"."""
    from quaestio.retrieval import Funnel

    raw = Funnel(reranker=None, siblings=False)
    configs = {
        "bm25 raw question": ("bm25", {"query": "raw"}, raw, "offline"),
        "bm25 keywords: direct": ("bm25", {"sources": ["direct"]}, raw, "offline"),
        "bm25 keywords: + dictionary": ("bm25", {"sources": ["direct", "expert_dictionary"]},
                                        raw, "offline"),
        "bm25 keywords: all offline sources": ("bm25", {}, raw, "offline"),
        "dense (MiniLM-L6)": ("dense", {}, raw, "offline"),
        "hybrid RRF": ("hybrid", {}, raw, "offline"),
        "parent-child (hybrid children)": ("parent", {}, raw, "offline"),
        "hybrid + bi-encoder re-score": ("hybrid", {}, Funnel(reranker="bi-encoder",
                                                              siblings=False), "offline"),
    }
    if llm is not None:
        hyde = {"hyde": "always", "hyde_writer": llm["writer"], "hyde_fuse": "rrf"}
        configs |= {
            "bm25 keywords: + LLM rewrites": ("bm25", {}, raw, "llm"),
            "dense + HyDE": ("dense", hyde, raw, "offline"),
            "fused: hybrid, rewrites + HyDE": ("hybrid", {"dense": hyde}, raw, "llm"),
        }
    return configs


def llm_side(questions: dict[str, str], offline, base_url: str, model: str, workers: int):
    """The LLM parse of every question and one HyDE passage each, asked up front so the
    timed search does not include generation (dense search asks with the question's
    `corrected_question`: the passages are keyed by it)."""
    from quaestio import parse_questions
    from quaestio.llm import LLM
    from quaestio.llm.helpers import hypothetical_passages

    llm = LLM(base_url=base_url, model=model, timeout=300, max_retries=1, concurrency=workers)
    frame = pd.DataFrame({"id": list(questions), "question": list(questions.values())})
    started = time.perf_counter()
    parsed = parse_questions(frame, id_column="id", llm=llm, as_="arrow")
    parse_seconds = time.perf_counter() - started
    started = time.perf_counter()
    texts = offline.column("corrected_question").to_pylist()
    with ThreadPoolExecutor(workers) as pool:
        passages = dict(zip(texts, pool.map(lambda q: hypothetical_passages(q, 1, llm=llm),
                                            texts)))
    hyde_seconds = time.perf_counter() - started
    statuses = Counter(":".join(status.split(":")[:2])
                       for status in parsed.column("llm_status").to_pylist())
    rewrites = sum(any(k["source"] == "llm_rewrite" for k in row)
                   for row in parsed.column("keywords").to_pylist())
    print(f"LLM {model}: parse {parse_seconds:.0f} s ({dict(statuses)}); questions with "
          f"rewrites kept {rewrites}/{len(questions)}; HyDE {hyde_seconds:.0f} s, a usable "
          f"passage for {sum(bool(p) for p in passages.values())}/{len(questions)}",
          file=sys.stderr)

    def writer(question: str, n: int) -> list[str]:
        if question not in passages:  # an LLM spelling fix changed the text
            passages[question] = hypothetical_passages(question, n, llm=llm)
        return passages[question]

    return {"parsed": parsed, "writer": writer}


def run(name: str, docs, questions, relevant, llm_options) -> pd.DataFrame:
    from quaestio import parse_questions
    from quaestio.evaluate import evaluate_retrieval
    from quaestio.retrieval import build_index, search

    start = time.perf_counter()
    index = build_index(docs, embedding_model="all-MiniLM-L6-v2")
    built = time.perf_counter() - start
    parsed = {"offline": parse_questions(
        pd.DataFrame({"id": list(questions), "question": list(questions.values())}),
        id_column="id", as_="arrow")}
    llm = llm_side(questions, parsed["offline"], **llm_options) if llm_options else None
    if llm:
        parsed["llm"] = llm["parsed"]
    hits, speed = {}, {}
    for label, (backend, options, funnel, parse) in configurations(llm).items():
        start = time.perf_counter()
        hits[label] = search(index, parsed[parse], backend=backend, k=50, funnel=funnel,
                             **options)
        speed[label] = round(len(questions) / (time.perf_counter() - start), 1)
    scored = [(name, evaluate_retrieval(hits, gold_frame(questions, relevant), ks=KS))]
    if name == "business_reports":  # its qrels judge whole reports: score per report too
        report = lambda d: d.split("_chunk")[0]  # noqa: E731
        per_report = {label: frame.assign(doc_id=frame.doc_id.map(report))
                      for label, frame in hits.items()}
        scored.append(("business_reports (per report)", evaluate_retrieval(
            per_report, gold_frame(questions, relevant, report), ks=KS)))
    print(f"{name}: {len(docs)} documents, {index.manifest['chunks']} chunk rows, "
          f"{len(relevant)} judged questions, index built in {built:.1f} s", file=sys.stderr)
    tables = []
    for set_name, table in scored:
        table = table.assign(set=set_name, **{"q/s": table.configuration.map(speed)})
        tables.append(table[["set", "configuration", "questions", "recall@5", "recall@20",
                             "recall@50", "mrr", "ndcg@20", "q/s"]])
    return pd.concat(tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="business_reports,financebench")
    parser.add_argument("--limit", type=int, help="the first N judged questions of each set")
    parser.add_argument("--llm-base-url", help="an OpenAI-compatible endpoint: adds the "
                                               "rewrites, HyDE and fused configurations")
    parser.add_argument("--llm-model", default="smollm2")
    parser.add_argument("--llm-workers", type=int, default=2,
                        help="requests in flight (the server's parallel slots)")
    parser.add_argument("--postgres", metavar="temp|DSN",
                        help="compare the PostgreSQL backend with embedded BM25 (only those)")
    args = parser.parse_args()
    if args.postgres:
        return postgres_comparison(args)
    loaders = {"business_reports": (business_reports, "business_reports_ir"),
               "financebench": (financebench, "financebench")}
    llm_options = ({"base_url": args.llm_base_url, "model": args.llm_model,
                    "workers": args.llm_workers} if args.llm_base_url else None)
    tables = []
    for name in args.sets.split(","):
        load, folder = loaders[name]
        if not (args.data / folder).exists():
            print(f"skipping {name}: {args.data / folder} not found", file=sys.stderr)
            continue
        docs, questions, relevant = load(args.data)
        if args.limit:
            questions = dict(list(questions.items())[:args.limit])
            relevant = {q: relevant[q] for q in questions}
        tables.append(run(name, docs, questions, relevant, llm_options))
    if tables:
        with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
            print(pd.concat(tables).to_string(index=False))


def postgres_comparison(args) -> None:
    """Embedded BM25 and PostgreSQL full-text on the same parsed questions (--postgres)."""
    import contextlib
    import warnings

    from quaestio import parse_questions
    from quaestio.evaluate import evaluate_retrieval
    from quaestio.retrieval import Funnel, build_index, search
    from quaestio.retrieval.postgres import build_postgres

    root = Path(__file__).resolve().parents[1]
    with contextlib.ExitStack() as stack:
        dsn = args.postgres
        if dsn == "temp":
            sys.path.insert(0, str(root / "tests"))
            from pg_server import PostgresServer, find_binaries

            if find_binaries() is None:
                sys.exit("--postgres temp: PostgreSQL binaries (initdb, pg_ctl) not found")
            server = PostgresServer(find_binaries()).start()
            stack.callback(server.stop)
            dsn = server.dsn
        sets = {"bundled": lambda data: None, "business_reports": business_reports,
                "financebench": financebench}
        raw, tables = Funnel(reranker=None, siblings=False), []
        for name in args.sets.split(","):
            if name == "bundled":
                gold = pd.read_csv(root / "examples" / "retrieval_gold.csv")
                docs, frame = root / "examples" / "corpus", gold[["id", "question"]]
            else:
                folder = {"business_reports": "business_reports_ir"}.get(name, name)
                if not (args.data / folder).exists():
                    print(f"skipping {name}: {args.data / folder} not found", file=sys.stderr)
                    continue
                docs, questions, relevant = sets[name](args.data)
                if args.limit:
                    questions = dict(list(questions.items())[:args.limit])
                    relevant = {q: relevant[q] for q in questions}
                gold = gold_frame(questions, relevant)
                frame = pd.DataFrame({"id": list(questions), "question": list(questions.values())})
            index = build_index(docs, embedding_model=None)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # pgvector: said in the label
                store = build_postgres(index, dsn, schema="quaestio_bench")
            ingest = time.perf_counter() - start
            parsed = parse_questions(frame, id_column="id", as_="arrow")
            hits, speed = {}, {}
            for label, target, backend in (("embedded bm25", index, "bm25"),
                                           ("postgres full-text" + ("" if store.has_pgvector
                                            else " (no pgvector)"), store, "postgres")):
                start = time.perf_counter()
                hits[label] = search(target, parsed, backend=backend, k=50, funnel=raw)
                speed[label] = round(len(frame) / (time.perf_counter() - start), 1)
            store.close()
            table = evaluate_retrieval(hits, gold if name != "bundled" else
                                       gold.rename(columns={"id": "question_id"}), ks=KS)
            print(f"{name}: {index.manifest['chunks']} chunk rows, {len(frame)} questions, "
                  f"PostgreSQL ingest {ingest:.1f} s", file=sys.stderr)
            tables.append(table.assign(set=name, **{"q/s": table.configuration.map(speed)}))
        if tables:
            out = pd.concat(tables)[["set", "configuration", "questions", "recall@5", "recall@20",
                                     "recall@50", "mrr", "ndcg@20", "q/s"]]
            with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
                print(out.to_string(index=False))


if __name__ == "__main__":
    main()
