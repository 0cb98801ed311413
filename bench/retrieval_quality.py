"""Recall@k (5, 10, 50), MRR and nDCG@10 of each retrieval configuration on public sets.

    python bench/retrieval_quality.py [--data ../shared/data] \
        [--sets business_reports,financebench,licences]
    python bench/retrieval_quality.py --sets licences --halves        # tune / held-out rows too
    python bench/retrieval_quality.py --sets financebench --limit 40 \\
        --llm-base-url http://127.0.0.1:8080/v1 --llm-model smollm2     # + rewrites, HyDE

Sets (read from --data, skipped with a message when absent):
- business_reports_ir: BEIR-style corpus (671 chunks of 30 reports), queries, qrels (11
  judged queries, each judging every chunk of one report: ~23 relevant chunks, so R@5 is at
  most ~0.22; a second row scores the same hits per report);
- financebench: every evidence page of the 150 questions is a document (168 pages); a
  question's relevant documents are its own evidence pages;
- licences: the plain-text licences Debian ships (`/usr/share/common-licenses`, read where
  they are, never copied) and the 52 questions of `bench/data/licence_questions.csv`
  (CUAD's category wordings where they apply), each with a verbatim gold span: a hit is
  relevant when it is in the question's document and holds the span, or its first or
  second half where a chunk boundary cuts it (whitespace folded).
  Scored per passage (recall@k: the share of questions with a relevant hit in the top k),
  so it also measures chunking; the baseline is plain BM25 over the documents' paragraphs.
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

DEFAULT_DATA = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[1].parent / "shared" / "data",
            Path("/work/shared/data"),
        )
        if p.exists()
    ),
    Path("../shared/data"),
)
KS = (5, 10, 50)
WINDOWS = False  # --windows
LICENCES = Path("/usr/share/common-licenses")
LICENCE_QUESTIONS = Path(__file__).resolve().parent / "data" / "licence_questions.csv"


def business_reports(data: Path):
    folder = data / "business_reports_ir"
    corpus = [json.loads(line) for line in open(folder / "corpus.jsonl")]
    docs = pd.DataFrame(
        {
            "doc_id": [c["_id"] for c in corpus],
            "text": [f"# {c['title']}\n\n{c['text']}" for c in corpus],
        }
    )
    queries = {q["_id"]: q["text"] for q in map(json.loads, open(folder / "queries.jsonl"))}
    qrels = pd.read_csv(folder / "qrels" / "test.tsv", sep="\t")
    relevant = qrels[qrels.score > 0].groupby("query-id")["corpus-id"].apply(set).to_dict()
    return docs, {q: queries[q] for q in relevant}, relevant


def financebench(data: Path):
    rows = [
        json.loads(line) for line in open(data / "financebench" / "financebench_open_source.jsonl")
    ]
    pages, questions, relevant = {}, {}, {}
    for r in rows:
        qid = r["financebench_id"]
        questions[qid] = r["question"]
        for e in r["evidence"]:
            doc_id = f"{e['doc_name']}#p{e['evidence_page_num']}"
            pages[doc_id] = (e["evidence_text_full_page"], e["evidence_page_num"])
            relevant.setdefault(qid, set()).add(doc_id)
    docs = pd.DataFrame(
        {
            "doc_id": list(pages),
            "text": [t for t, _ in pages.values()],
            "page_start": [p for _, p in pages.values()],
        }
    )
    return docs, questions, relevant


def licences(data: Path):
    questions = pd.read_csv(LICENCE_QUESTIONS)
    names = sorted(set(questions.document))
    docs = pd.DataFrame(
        {"doc_id": names, "text": [(LICENCES / n).read_text(encoding="utf-8") for n in names]}
    )
    gold = {r.question_id: (r.document, _fold(r.gold_span)) for r in questions.itertuples()}
    return docs, dict(zip(questions.question_id, questions.question)), gold


def _fold(text: str) -> str:
    return " ".join(text.split()).lower()


def paragraphs(docs: pd.DataFrame) -> pd.DataFrame:
    """Each blank-line paragraph of each document as a document of its own (the baseline)."""
    import re

    # Neutral ids ("p00017#Apache-2.0" would hand BM25 the document's name as words):
    # plain BM25 reads the paragraph's text alone; `passage_scores` maps ids back.
    pieces = [
        (d, p)
        for d, text in zip(docs.doc_id, docs.text)
        for p in re.split(r"\n[ \t]*\n", text)
        if p.strip()
    ]
    PARAGRAPH_DOCS.update({f"p{i:05d}": d for i, (d, _) in enumerate(pieces)})
    return pd.DataFrame(
        [(f"p{i:05d}", d, p) for i, (d, p) in enumerate(pieces)],
        columns=["doc_id", "source_doc", "text"],
    )


PARAGRAPH_DOCS: dict[str, str] = {}


def passage_scores(hits: pd.DataFrame, gold: dict, ks=(5, 10)) -> dict[str, float]:
    """Share of questions with a relevant passage in the top k, and MRR, on primary hits."""
    if "route" in hits:
        hits = hits[hits.route.fillna("") != "sibling"]
    totals = {f"recall@{k}": 0.0 for k in ks} | {"mrr": 0.0}
    for qid, (document, span) in gold.items():
        mine = hits[hits.question_id == qid].sort_values("rank")
        ok = [
            PARAGRAPH_DOCS.get(str(d), str(d)) == document and _holds(_fold(t), span)
            for d, t in zip(mine.doc_id, mine.generation_text)
        ]
        first = next((i for i, good in enumerate(ok, 1) if good), None)
        totals["mrr"] += 1 / first if first else 0.0
        for k in ks:
            totals[f"recall@{k}"] += float(any(ok[:k]))
    return {name: round(value / max(len(gold), 1), 3) for name, value in totals.items()}


def _holds(text: str, span: str) -> bool:
    # A chunk boundary may cut the span: a passage holding its first or its second half
    # (contiguous words) is where the answer is.
    words = span.split()
    half = (len(words) + 1) // 2
    return span in text or " ".join(words[:half]) in text or " ".join(words[-half:]) in text


def halves(ids) -> dict[str, list[str]]:
    """A stable split of question ids into a tune half and a held-out half (by hash)."""
    import hashlib

    tune = [q for q in ids if int(hashlib.sha1(str(q).encode()).hexdigest(), 16) % 2 == 0]
    return {"tune": tune, "held-out": [q for q in ids if q not in set(tune)]}


def run_licences(docs, questions, gold, split: bool) -> pd.DataFrame:
    from quaestio import parse_questions
    from quaestio.retrieval import Funnel, build_index, dispatch, search

    raw = Funnel(reranker=None, siblings=False, threshold=None, floor=None)
    frame = pd.DataFrame({"id": list(questions), "question": list(questions.values())})
    parsed = parse_questions(frame, id_column="id", as_="arrow")
    start = time.perf_counter()
    index = build_index(docs, embedding_model="all-MiniLM-L6-v2")
    per_paragraph = build_index(
        paragraphs(docs)[["doc_id", "text"]], embedding_model=None, parent_child=False
    )
    sections = index.chunks.filter(pa_equal(index.chunks, "granularity", "section"))
    crumbs = pd.DataFrame(
        {
            "doc": sections.column("doc_id").to_pylist(),
            "crumb": sections.column("breadcrumb").to_pylist(),
        }
    )
    structured = int((crumbs.groupby("doc").crumb.nunique() > 1).sum())
    print(
        f"licences: {len(docs)} documents, {structured} with more than one section, "
        f"{index.manifest['chunks']} chunk rows, built in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    runs = {
        "bm25 over paragraphs (baseline)": lambda: search(
            per_paragraph, parsed, backend="bm25", k=10, funnel=raw, query="raw"
        ),
        "bm25 raw question": lambda: search(
            index, parsed, backend="bm25", k=10, funnel=raw, query="raw"
        ),
        "hybrid RRF, funnel off": lambda: search(
            index, parsed, backend="hybrid", k=10, funnel=raw
        ),
        "default hybrid (search defaults)": lambda: search(index, parsed, k=10),
        "dispatch (defaults)": lambda: dispatch(parsed, index, k=10),
    }
    if WINDOWS:
        runs["hybrid + windows re-score"] = lambda: search(
            index,
            parsed,
            backend="hybrid",
            k=10,
            funnel=Funnel(reranker="windows", siblings=False, threshold=None, floor=None),
        )
    rows = []
    for label, call in runs.items():
        start = time.perf_counter()
        hits = call()
        speed = round(len(questions) / (time.perf_counter() - start), 1)
        subsets = {"all": list(gold)} | (halves(list(gold)) if split else {})
        for subset, ids in subsets.items():
            rows.append(
                {
                    "set": "licences" + ("" if subset == "all" else f" ({subset})"),
                    "configuration": label,
                    "questions": len(ids),
                    **passage_scores(hits, {q: gold[q] for q in ids}),
                    "q/s": speed,
                }
            )
    return pd.DataFrame(rows)


def pa_equal(table, column: str, value: str):
    import pyarrow.compute as pc

    return pc.equal(table.column(column), value)


def gold_frame(questions: dict[str, str], relevant: dict[str, set[str]], unit=None):
    unit = unit or (lambda d: d)
    return pd.DataFrame(
        {
            "question_id": list(questions),
            "question": list(questions.values()),
            "relevant_doc_ids": [sorted({unit(d) for d in relevant[q]}) for q in questions],
        }
    )


def configurations(llm) -> dict[str, tuple]:
    """label -> (backend, search options, funnel, parse): parse "offline" or "llm"."""
    from quaestio.retrieval import Funnel

    raw = Funnel(reranker=None, siblings=False, threshold=None, floor=None)
    configs = {
        "bm25 raw question": ("bm25", {"query": "raw"}, raw, "offline"),
        "bm25 keywords: direct": ("bm25", {"sources": ["direct"]}, raw, "offline"),
        "bm25 keywords: + dictionary": (
            "bm25",
            {"sources": ["direct", "expert_dictionary"]},
            raw,
            "offline",
        ),
        "bm25 keywords: all offline sources": ("bm25", {}, raw, "offline"),
        "dense (MiniLM-L6)": ("dense", {}, raw, "offline"),
        "hybrid RRF": ("hybrid", {}, raw, "offline"),
        "parent-child (hybrid children)": ("parent", {}, raw, "offline"),
        "hybrid + bi-encoder re-score": (
            "hybrid",
            {},
            Funnel(reranker="bi-encoder", siblings=False, threshold=None, floor=None),
            "offline",
        ),
        "default hybrid (search defaults)": ("hybrid", {}, Funnel(), "offline"),
    }
    if WINDOWS:  # slow (every candidate's windows are embedded): opt-in
        configs["hybrid + windows re-score"] = (
            "hybrid",
            {},
            Funnel(reranker="windows", siblings=False, threshold=None, floor=None),
            "offline",
        )
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
        passages = dict(
            zip(texts, pool.map(lambda q: hypothetical_passages(q, 1, llm=llm), texts))
        )
    hyde_seconds = time.perf_counter() - started
    statuses = Counter(
        ":".join(status.split(":")[:2]) for status in parsed.column("llm_status").to_pylist()
    )
    rewrites = sum(
        any(k["source"] == "llm_rewrite" for k in row)
        for row in parsed.column("keywords").to_pylist()
    )
    print(
        f"LLM {model}: parse {parse_seconds:.0f} s ({dict(statuses)}); questions with "
        f"rewrites kept {rewrites}/{len(questions)}; HyDE {hyde_seconds:.0f} s, a usable "
        f"passage for {sum(bool(p) for p in passages.values())}/{len(questions)}",
        file=sys.stderr,
    )

    def writer(question: str, n: int) -> list[str]:
        if question not in passages:  # an LLM spelling fix changed the text
            passages[question] = hypothetical_passages(question, n, llm=llm)
        return passages[question]

    return {"parsed": parsed, "writer": writer}


def run(name: str, docs, questions, relevant, llm_options, split: bool = False) -> pd.DataFrame:
    from quaestio import parse_questions
    from quaestio.evaluate import evaluate_retrieval
    from quaestio.retrieval import build_index, search

    start = time.perf_counter()
    index = build_index(docs, embedding_model="all-MiniLM-L6-v2")
    built = time.perf_counter() - start
    parsed = {
        "offline": parse_questions(
            pd.DataFrame({"id": list(questions), "question": list(questions.values())}),
            id_column="id",
            as_="arrow",
        )
    }
    llm = llm_side(questions, parsed["offline"], **llm_options) if llm_options else None
    if llm:
        parsed["llm"] = llm["parsed"]
    hits, speed = {}, {}
    for label, (backend, options, funnel, parse) in configurations(llm).items():
        start = time.perf_counter()
        hits[label] = search(index, parsed[parse], backend=backend, k=50, funnel=funnel, **options)
        speed[label] = round(len(questions) / (time.perf_counter() - start), 1)
    scored = [(name, evaluate_retrieval(hits, gold_frame(questions, relevant), ks=KS))]
    if split:
        for half, ids in halves(list(questions)).items():
            subset = {q: questions[q] for q in ids}
            scored.append(
                (
                    f"{name} ({half})",
                    evaluate_retrieval(
                        hits, gold_frame(subset, {q: relevant[q] for q in ids}), ks=KS
                    ),
                )
            )
    if name == "business_reports":  # its qrels judge whole reports: score per report too
        report = lambda d: d.split("_chunk")[0]  # noqa: E731
        per_report = {
            label: frame.assign(doc_id=frame.doc_id.map(report)) for label, frame in hits.items()
        }
        scored.append(
            (
                "business_reports (per report)",
                evaluate_retrieval(per_report, gold_frame(questions, relevant, report), ks=KS),
            )
        )
    print(
        f"{name}: {len(docs)} documents, {index.manifest['chunks']} chunk rows, "
        f"{len(relevant)} judged questions, index built in {built:.1f} s",
        file=sys.stderr,
    )
    tables = []
    for set_name, table in scored:
        table = table.assign(set=set_name, **{"q/s": table.configuration.map(speed)})
        tables.append(
            table[
                [
                    "set",
                    "configuration",
                    "questions",
                    "recall@5",
                    "recall@10",
                    "recall@50",
                    "mrr",
                    "ndcg@10",
                    "q/s",
                ]
            ]
        )
    return pd.concat(tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="business_reports,financebench")
    parser.add_argument("--limit", type=int, help="the first N judged questions of each set")
    parser.add_argument(
        "--halves",
        action="store_true",
        help="also score a tune half and a held-out half (stable hash split)",
    )
    parser.add_argument(
        "--llm-base-url",
        help="an OpenAI-compatible endpoint: adds the rewrites, HyDE and fused configurations",
    )
    parser.add_argument("--llm-model", default="smollm2")
    parser.add_argument(
        "--llm-workers",
        type=int,
        default=2,
        help="requests in flight (the server's parallel slots)",
    )
    parser.add_argument(
        "--postgres",
        metavar="temp|DSN",
        help="compare the PostgreSQL backend with embedded BM25 (only those)",
    )
    parser.add_argument(
        "--windows",
        action="store_true",
        help="add the windows re-score (slow: ~10 s per question on 2 cores)",
    )
    args = parser.parse_args()
    if args.postgres:
        return postgres_comparison(args)
    global WINDOWS
    WINDOWS = args.windows
    loaders = {
        "business_reports": (business_reports, "business_reports_ir"),
        "financebench": (financebench, "financebench"),
        "licences": (licences, None),
    }
    llm_options = (
        {"base_url": args.llm_base_url, "model": args.llm_model, "workers": args.llm_workers}
        if args.llm_base_url
        else None
    )
    tables = []
    for name in args.sets.split(","):
        load, folder = loaders[name]
        where = args.data / folder if folder else LICENCES
        if not where.exists():
            print(f"skipping {name}: {where} not found", file=sys.stderr)
            continue
        docs, questions, relevant = load(args.data)
        if args.limit:
            questions = dict(list(questions.items())[: args.limit])
            relevant = {q: relevant[q] for q in questions}
        if name == "licences":
            tables.append(run_licences(docs, questions, relevant, args.halves))
        else:
            tables.append(run(name, docs, questions, relevant, llm_options, args.halves))
    if tables:
        with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
            print(pd.concat(tables).to_string(index=False, na_rep=""))


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
        sets = {
            "bundled": lambda data: None,
            "business_reports": business_reports,
            "financebench": financebench,
        }
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
                    questions = dict(list(questions.items())[: args.limit])
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
            for label, target, backend in (
                ("embedded bm25", index, "bm25"),
                (
                    "postgres full-text" + ("" if store.has_pgvector else " (no pgvector)"),
                    store,
                    "postgres",
                ),
            ):
                start = time.perf_counter()
                hits[label] = search(target, parsed, backend=backend, k=50, funnel=raw)
                speed[label] = round(len(frame) / (time.perf_counter() - start), 1)
            store.close()
            table = evaluate_retrieval(
                hits,
                gold if name != "bundled" else gold.rename(columns={"id": "question_id"}),
                ks=KS,
            )
            print(
                f"{name}: {index.manifest['chunks']} chunk rows, {len(frame)} questions, "
                f"PostgreSQL ingest {ingest:.1f} s",
                file=sys.stderr,
            )
            tables.append(table.assign(set=name, **{"q/s": table.configuration.map(speed)}))
        if tables:
            out = pd.concat(tables)[
                [
                    "set",
                    "configuration",
                    "questions",
                    "recall@5",
                    "recall@20",
                    "recall@50",
                    "mrr",
                    "ndcg@20",
                    "q/s",
                ]
            ]
            with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
                print(out.to_string(index=False))


if __name__ == "__main__":
    main()
