"""Indexing and query throughput of the bm25 layer against raw bm25s, and memory at 100k chunks.

    python bench/retrieval_throughput.py [--chunks 100000] [--queries 2000] [--data ../shared/data]
        [--corpus flat|sections] [--hint-share 0.2] [--baseline OTHER_CHECKOUT/src]

Corpus: the business_reports_ir chunks (each made unique with a reference token) repeated up
to --chunks documents of one chunk each; queries: the business_reports and FinanceBench
questions, repeated to --queries. Without the data folder the bench stops (pass --data,
e.g. from a worktree); --synthetic runs it on a synthetic corpus instead.
Both sides use bm25s's numba backend, one thread, after a warm-up call (numba compiles on
first use). "raw bm25s" = bm25s.tokenize + BM25.retrieve; "quaestio" = the bm25 backend on
the same text (query="raw"), or on question_df keywords, ending with a typed hits_df.

Filters: `search` with filters off and on, where --hint-share of the questions carry a
`toc_section_hint` taken from the index's own headings (as written, lower-cased with a typo,
or their first words), timed apart for the hinted and the other questions, in thread CPU
seconds. `--corpus sections` makes the documents filings with a title and ~50 headings each
(FinanceBench page lines), so breadcrumbs are "title > heading"; `flat` is one chunk per
document (100k distinct one-part breadcrumbs). `--baseline` runs the same search phase on
another checkout's `src` (e.g. `git archive HEAD~1 src | tar -x -C /tmp/base`) in the same
run, interleaved with this one, on the same saved index and questions. Each side reports the
first pass with its hints looked up for the first time ("filters on") and again with every
hint cached; the hits of both must be identical across sides. The built index and hinted
questions are kept in --cache by their parameters (the 113k-chunk corpus takes minutes to
build); --rebuild builds them again.

--hint-shares prints the share of questions parse_questions gives a section hint on the public
question sets (a realistic --hint-share; the bench's questions carry FinanceBench's own hints,
so --hint-share 0 runs at that share, and the default 0.2 on top is the stress share).

Dense and hybrid (--hybrid-chunks N [--only-hybrid]): q/s on a small embedded index, a batch
in one call (its questions encoded together) against one question per call, and the encoder
alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# Built filter-bench indexes, by their parameters: the 113k-chunk corpus takes ~9 minutes.
CACHE = Path(tempfile.gettempdir()) / "quaestio_bench_retrieval"


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
        print(f"{folder} not found: SYNTHETIC corpus (--synthetic)", file=sys.stderr)
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
    parser.add_argument("--corpus", choices=("flat", "sections"), default="flat")
    parser.add_argument("--hint-share", type=float, default=0.2)
    parser.add_argument("--baseline", type=Path, help="another checkout's src folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only-filters", action="store_true", help="skip the bm25s comparison")
    parser.add_argument(
        "--hybrid-chunks", type=int, default=0, help="also time dense and hybrid search"
    )
    parser.add_argument("--only-hybrid", action="store_true", help="with --hybrid-chunks")
    parser.add_argument("--synthetic", action="store_true", help="run without the data folder")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built indexes are kept")
    parser.add_argument("--rebuild", action="store_true", help="rebuild a cached index")
    parser.add_argument(
        "--hint-shares", action="store_true", help="the share of section hints parse gives"
    )
    parser.add_argument("--search-phase", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hint_shares:
        hint_shares(args.data)
        return
    if args.search_phase:
        print(json.dumps(search_phase(*args.search_phase)))
        return
    needed = [args.data / "business_reports_ir", args.data / "financebench"]
    if not args.synthetic and not all(p.exists() for p in needed):
        # A silent synthetic fallback once produced figures that looked like the real corpus's.
        parser.error(f"{needed[0]} or {needed[1]} not found: pass --data, or --synthetic")
    if args.hybrid_chunks:
        hybrid_bench(args)
        if args.only_hybrid:
            return
    if args.only_filters:
        filters_bench(args)
        return
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
    filters_bench(args)


def sectioned_corpus(data: Path, n_chunks: int) -> pd.DataFrame:
    """Filings of ~50 sections each: a title line, then "## heading" and a passage per section."""
    import random

    rnd = random.Random(11)
    heads, companies = report_headings(data)
    texts, _ = corpus_and_queries(data, 5000, 1)
    docs, per_doc = [], 50
    for d in range(max(n_chunks // per_doc, 1)):
        title = (
            f"{rnd.choice(companies)} {rnd.choice(['10-K', '10-Q', '8-K'])} {1995 + d % 30} #{d}"
        )
        body = [f"# {title}"]
        for s in range(per_doc):
            head = rnd.choice(heads)
            head = f"Note {s}. {head}" if rnd.random() < 0.3 else head
            body += [f"## {head}", texts[(d * per_doc + s) % len(texts)]]
        docs.append((f"f{d}", "\n\n".join(body)))
    return pd.DataFrame(docs, columns=["doc_id", "text"])


def report_headings(data: Path) -> tuple[list[str], list[str]]:
    """Heading-like lines of the FinanceBench filing pages, and the filers' names."""
    import re

    fb = data / "financebench" / "financebench_open_source.jsonl"
    rows = [json.loads(line) for line in open(fb)] if fb.exists() else []
    heads = sorted(
        {
            " ".join(line.split())
            for r in rows
            for e in r["evidence"]
            for line in e["evidence_text_full_page"].split("\n")
            if 2 <= len(line.split()) <= 9
            and re.match(r"[A-Z]", line.strip())
            and not re.search(r"\d{2,}|\$|%", line)
        }
    ) or [f"Section {i} of the report" for i in range(1500)]
    companies = sorted({r["company"] for r in rows}) or [f"Company {i}" for i in range(80)]
    return heads, companies


def with_hints(records: list[dict], headings: list[str], share: float) -> list[dict]:
    """`share` of the questions given a section hint from the index's own headings."""
    import random

    rnd = random.Random(5)
    out = []
    for r in records:
        r = dict(r)
        if headings and rnd.random() < share:
            head, how = rnd.choice(headings), rnd.random()
            if how < 0.25:  # a typo, lower-cased
                i = rnd.randrange(len(head))
                head = (head[:i] + "e" + head[i + 1 :]).lower()
            elif how < 0.5:  # the first words
                head = " ".join(head.split()[:3])
            r["toc_section_hint"] = head
        out.append(r)
    return out


def filters_bench(args) -> None:
    """Search with filters off and on (a share of section hints), this code and a baseline."""
    import subprocess

    folder, info = cached_inputs(args)
    print(
        f"filters   corpus {args.corpus}: {info['documents']:,} documents -> "
        f"{info['rows']:,} chunk rows, {info['breadcrumbs']:,} distinct breadcrumbs, "
        f"{info['headings']:,} distinct headings (built in {info['build_s']:.0f} s); "
        f"{info['questions']:,} questions, {info['hinted']:,} with a section hint "
        f"({args.hint_share:.0%}); index and questions in {folder}"
    )
    tmp = str(folder)
    sides = {"this": Path(__file__).resolve().parents[1] / "src"}
    if args.baseline:
        sides["baseline"] = args.baseline.resolve()
    results: dict[str, list[dict]] = {name: [] for name in sides}
    for _ in range(args.rounds):  # interleaved, so both sides see the same load
        for name, src in sides.items():
            env = {**os.environ, "PYTHONPATH": str(src)}
            cmd = [sys.executable, __file__, "--search-phase", f"{tmp}/idx", f"{tmp}/q.arrow"]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    digests = {
        r[k] for runs in results.values() for r in runs for k in ("hits_on", "hits_on_warm")
    }
    print(f"filters   hits with filters on identical across sides and rounds: {len(digests) == 1}")
    for name, runs in results.items():
        med = {key: sorted(r[key] for r in runs)[len(runs) // 2] for key in runs[0]}
        print(
            f"filters   [{name}] q/s per thread CPU second: filters off {med['off']:,.0f}; "
            f"filters on {med['on']:,.0f} ({med['on'] / med['off']:.0%} of off; hints "
            f"looked up for the first time), {med['on_warm']:,.0f} with every hint cached "
            f"({med['on_warm'] / med['off']:.0%})"
        )
        print(
            f"filters   [{name}] a question with a section hint {med['hint_cold_ms']:.2f} ms "
            f"first time ({med['distinct_hints']} distinct hints), {med['hint_ms']:.2f} ms "
            f"cached; without a hint {med['plain_ms']:.2f} ms (filters on); facts and "
            f"heading index built at first use {med['facts_s']:.2f} s"
        )


def cached_inputs(args) -> tuple[Path, dict]:
    """The saved index and hinted questions for these parameters, built once and kept in
    --cache (both sides read the same files; --rebuild builds them again)."""
    import hashlib
    import shutil

    import pyarrow as pa
    import pyarrow.feather as feather

    key = {
        "corpus": args.corpus,
        "chunks": args.chunks,
        "queries": args.queries,
        "hint_share": args.hint_share,
        "data": str(args.data.resolve()),
        "synthetic": args.synthetic,
        "layout": 1,  # bump when what is cached changes
    }
    folder = args.cache / hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    if (folder / "info.json").exists() and not args.rebuild:
        info = json.loads((folder / "info.json").read_text())
        print(f"filters   cached index from {info['built_at']} (--rebuild to build it again)")
        return folder, info

    from quaestio import parse_questions
    from quaestio.retrieval import build_index

    if args.corpus == "sections":
        frame = sectioned_corpus(args.data, args.chunks)
    else:
        texts, _ = corpus_and_queries(args.data, args.chunks, 1)
        frame = pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts})
    _, queries = corpus_and_queries(args.data, 10, args.queries)
    index, build_s = timed(
        lambda: build_index(frame, embedding_model=None, parent_child=False, progress=False)
    )
    crumbs = index.chunks.column("breadcrumb").to_pylist()
    # Flat documents have no headings: their hints are report headings the index lacks.
    headings = sorted({p for c in crumbs for p in c.split(" > ")[1:]})
    headings = headings or report_headings(args.data)[0]
    qdf = parse_questions(queries, as_="arrow")
    records = with_hints(qdf.to_pylist(), headings, args.hint_share)
    info = {
        "key": key,
        "built_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "documents": len(frame),
        "rows": index.chunks.num_rows,
        "breadcrumbs": len(set(crumbs)),
        "headings": len(headings),
        "build_s": build_s,
        "questions": len(records),
        "hinted": sum(bool(r.get("toc_section_hint")) for r in records),
    }
    staging = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    index.save(staging / "idx")
    feather.write_feather(
        pa.Table.from_pylist(records, schema=qdf.schema), str(staging / "q.arrow")
    )
    (staging / "info.json").write_text(json.dumps(info, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)  # whole or absent: an interrupted build leaves only a .partial
    return folder, info


def hybrid_bench(args) -> None:
    """Dense and hybrid q/s on a small embedded index (the rate is bound by query encoding,
    not by the index size): a batch searched in one call (its questions encoded together),
    dispatch (which encodes its questions first), and one question per call; and the
    encoder alone, batched and one text at a time."""
    from quaestio import parse_questions
    from quaestio.retrieval import build_index, dispatch, search
    from quaestio.retrieval.base import query_text
    from quaestio.retrieval.embeddings import get_embedder

    texts, queries = corpus_and_queries(args.data, args.hybrid_chunks, min(args.queries, 400))
    frame = pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts})
    index = build_index(frame, parent_child=False, progress=False)
    records = parse_questions(queries, as_="arrow").to_pylist()
    embedder = get_embedder(index.embedding_model)
    cache = embedder._queries
    search(index, records[:2], backend="hybrid", k=10)  # loads the model
    distinct = list(dict.fromkeys(query_text(r) for r in records))
    ways = {
        "encoder alone, batched": lambda: embedder.encode_queries(distinct),
        "encoder alone, one text per call": lambda: [
            embedder.encode_queries([t]) for t in distinct
        ],
    }
    for backend in ("dense", "hybrid"):
        ways[f"{backend} search, one call"] = lambda b=backend: search(
            index, records, backend=b, k=10
        )
        ways[f"{backend} search, one question per call"] = lambda b=backend: [
            search(index, [r], backend=b, k=10) for r in records
        ]
    ways["dispatch (batch encoded first)"] = lambda: dispatch(records, index, k=10, force=True)
    print(
        f"hybrid    {index.chunks.num_rows:,} chunk rows, {len(records)} questions "
        f"({len(distinct)} distinct texts), model {index.embedding_model}, "
        f"backend {embedder.backend}"
    )
    rates: dict[str, list[float]] = {name: [] for name in ways}
    # The first round only warms up (ONNX Runtime grows its buffers for each new shape: that
    # once made the batched encoder, timed first, look slower than one text per call).
    for round_ in range(args.rounds + 1):
        for name, fn in ways.items():  # interleaved, so every way sees the same load
            cache.clear()  # every way embeds its questions itself
            start = time.process_time()
            fn()
            spent = time.process_time() - start
            n = len(distinct) if name.startswith("encoder") else len(records)
            if round_:
                rates[name].append(n / spent)
    for name, values in rates.items():
        median = sorted(values)[len(values) // 2]
        print(f"hybrid    {name}: {median:,.1f} q/s per process CPU second")


def search_phase(index_path: Path, records_path: Path) -> dict:
    """One side's timings (run in a child process with that side's src on the path).

    Cold figures come first on an index with its facts and heading index built (by a hint
    none of the questions has) but no hint looked up yet: "on" is the whole batch so, as a
    first batch meets it, and "hint_cold_ms" the hinted questions alone on a second, fresh
    opening. The warm figures ("on_warm", "hint_ms") repeat them with every hint cached."""
    import hashlib

    import pyarrow as pa
    import pyarrow.feather as feather

    from quaestio.retrieval import open_index, search

    table = feather.read_table(str(records_path))
    hinted = [bool(v) for v in table.column("toc_section_hint").to_pylist()]
    hint_rows = [i for i, h in enumerate(hinted) if h]
    plain_rows = [i for i, h in enumerate(hinted) if not h]
    n_distinct = len({table.column("toc_section_hint")[i].as_py().lower() for i in hint_rows})
    field = table.schema.get_field_index("toc_section_hint")
    warm_up = table.slice(0, 1).set_column(
        field, "toc_section_hint", pa.array(["zq warm-up qz"], table.schema.field(field).type)
    )

    def opened() -> tuple[object, float]:
        index = open_index(index_path)
        search(index, table.slice(0, 5), backend="bm25", k=10, filters=False)
        start = time.thread_time()
        search(index, warm_up, backend="bm25", k=10, filters=True)  # facts, heading index
        return index, time.thread_time() - start

    index, facts_s = opened()
    run = lambda t, f: search(index, t, backend="bm25", k=10, filters=f, as_="arrow")  # noqa: E731
    out = {"facts_s": facts_s, "distinct_hints": n_distinct}
    for key, rows, filters in (
        ("on", None, True),  # cold: the first batch with these hints
        ("on_warm", None, True),
        ("off", None, False),
        ("hint_ms", hint_rows, True),
        ("plain_ms", plain_rows, True),
        ("hint_cold_ms", hint_rows, True),  # on a fresh opening, below
    ):
        if key == "hint_cold_ms":
            index, _ = opened()
        part = table if rows is None else table.take(rows)
        start = time.thread_time()
        hits = run(part, filters)
        spent = time.thread_time() - start
        if key in ("on", "on_warm"):  # the same hits on both sides, or a speed-up changed one
            kept = hits.select(["question_id", "chunk_id", "rank", "score", "route"])
            out[f"hits_{key}"] = hashlib.sha256(str(kept.to_pylist()).encode()).hexdigest()[:16]
        n = part.num_rows
        out[key] = (n / spent if rows is None else 1000 * spent / max(n, 1)) if n else 0.0
    return out


def hint_shares(data: Path) -> None:
    """The share of questions `parse_questions` gives a section hint (toc_section_hint or
    scope_sections) on the public question sets: what a realistic --hint-share is. CUAD
    ships category descriptions only: its questions are CUAD's own template around them."""
    import csv

    from quaestio import parse_questions

    def lines(path: Path) -> list[dict]:
        with open(path) as fh:
            return [json.loads(line) for line in fh]

    sets = {
        "insuranceqa": [
            r["question"] for r in lines(data / "insuranceqa" / "insuranceqa_v2_questions.jsonl")
        ],
        "financebench": [
            r["question"] for r in lines(data / "financebench" / "financebench_open_source.jsonl")
        ],
        "business_reports": [
            r["text"] for r in lines(data / "business_reports_ir" / "queries.jsonl")
        ],
    }
    rows = [
        list(r.values()) for r in csv.DictReader(open(data / "cuad" / "category_descriptions.csv"))
    ]
    template = (
        'Highlight the parts (if any) of this contract related to "{}" that should be reviewed'
        " by a lawyer. Details: {}"
    )
    sets["cuad"] = [
        template.format(r[0].removeprefix("Category: "), r[1].removeprefix("Description: "))
        for r in rows
    ]
    for name, questions in sets.items():
        table = parse_questions(questions, as_="arrow")
        toc = table.column("toc_section_hint").to_pylist()
        scoped = table.column("scope_sections").to_pylist()
        hinted = sum(bool(a) or bool(b) for a, b in zip(toc, scoped))
        print(f"hints     {name}: {hinted / len(questions):.1%} of {len(questions):,} questions")


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
