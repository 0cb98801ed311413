"""Chunks per CPU second and vector quality of each embedding backend of the packaged MiniLM.

    python bench/embedding_speed.py [--data ../shared/data] [--questions 40] [--threads 1]

Configurations, on the same passages in one run: torch fp32 with batches in input order
(each batch pads to its longest text: the no-sorting baseline), torch fp32 as
sentence-transformers runs it (whole list sorted by length), ONNX Runtime fp32 and int8
(graphs exported offline from the package's weights into the quaestio cache, token-length
sorted batches). Speed is chunks per CPU second of this process (`time.process_time`, every
thread), so it holds when the machine is loaded; --threads sets torch's and ONNX Runtime's
intra-op threads (1 by default: per-core cost, no spin-wait in the figure).

Quality against torch fp32 (sorted): cosine min/mean of the passage vectors, the mean overlap
of each question's top-10 passages, and recall@5/@50 of a dense search where each backend
embeds both the passages and the questions:
- financebench: the section chunks of the evidence pages of --questions questions (after --skip)
  (a question's relevant units are its own evidence pages; pages ranked by their best chunk);
- bundled: examples/corpus with examples/retrieval_gold.csv (units are section breadcrumbs).
The ONNX graphs go to `$QUAESTIO_CACHE` (default ~/.cache/quaestio); the first run exports.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "bench"))


def financebench_set(data: Path, questions: int, skip: int = 0):
    from retrieval_quality import financebench

    from quaestio.retrieval import build_index

    docs, asked, relevant = financebench(data)
    keep = list(asked)[skip : skip + questions]
    pages = sorted(set().union(*(relevant[q] for q in keep)))
    docs = docs[docs.doc_id.isin(pages)].reset_index(drop=True)
    return (
        _sections(build_index(docs, embedding_model=None), "doc_id"),
        {q: asked[q] for q in keep},
        {q: relevant[q] for q in keep},
    )


def bundled_set():
    from quaestio.retrieval import build_index

    rows = list(csv.DictReader(open(ROOT / "examples" / "retrieval_gold.csv")))
    asked = {r["id"]: r["question"] for r in rows}
    relevant = {r["id"]: set(r["relevant_sections"].split("|")) for r in rows}
    return (
        _sections(build_index(ROOT / "examples" / "corpus", embedding_model=None), "breadcrumb"),
        asked,
        relevant,
    )


def _sections(index, unit: str):
    chunks = index.chunks.to_pandas()
    chunks = chunks[chunks.granularity == "section"]
    return list(chunks.representation_text), list(chunks[unit])


def encoders(threads: int):
    import torch

    from quaestio.retrieval.embeddings import get_embedder

    torch.set_num_threads(threads)
    base = get_embedder(backend="torch")

    def torch_in_order(texts, batch=32):  # the no-sorting baseline: one call per batch
        return np.concatenate(
            [
                base.encode_passages(texts[i : i + batch], batch_size=batch)
                for i in range(0, len(texts), batch)
            ]
        )

    out = {
        "torch fp32, input order": (torch_in_order, base.encode_queries),
        "torch fp32, sorted": (base.encode_passages, base.encode_queries),
    }
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print("onnxruntime is not installed: ONNX rows skipped", file=sys.stderr)
        return out
    for backend in ("onnx", "onnx-int8"):
        embedder = get_embedder(backend=backend)
        from quaestio.retrieval.onnx_embedding import OnnxEncoder, ensure_graph

        graph = ensure_graph(embedder.name, embedder.folder, embedder.identity["precision"])
        embedder._onnx = OnnxEncoder(
            graph, embedder.folder / "tokenizer.json", embedder.max_tokens, threads=threads
        )
        out[f"{backend.replace('-', ' ')} (sorted)"] = (
            embedder.encode_passages,
            embedder.encode_queries,
        )
    return out


def recall(qv, pv, units, relevant: list[set], ks=(5, 50)):
    scores = qv @ pv.T
    out = {k: [] for k in ks}
    for row, rel in zip(scores, relevant):
        ranked = list(dict.fromkeys(units[i] for i in np.argsort(-row, kind="stable")))
        for k in ks:
            top = ranked[:k]
            hit = sum(any(u == r or str(u).startswith(f"{r} > ") for u in top) for r in rel)
            out[k].append(hit / len(rel))
    return {k: float(np.mean(v)) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--questions",
        type=int,
        default=40,
        help="FinanceBench questions whose evidence pages make the corpus",
    )
    parser.add_argument(
        "--skip", type=int, default=0, help="start after this many questions (a held-out slice)"
    )
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    sets = {}
    if (args.data / "financebench").exists():
        sets["financebench"] = financebench_set(args.data, args.questions, args.skip)
    else:
        print(f"no FinanceBench under {args.data}: only the bundled set", file=sys.stderr)
    sets["bundled"] = bundled_set()
    configs = encoders(args.threads)
    from quaestio.retrieval.embeddings import get_embedder

    tokens = get_embedder(backend="torch").count_tokens
    for name, ((texts, units), asked, relevant) in sets.items():
        print(
            f"\n{name}: {len(texts)} passages, {np.mean(tokens(texts)):.0f} tokens on average, "
            f"{len(asked)} questions, {args.threads} thread(s)"
        )
        print(
            f"{'configuration':26} {'chunks/CPU s':>12} {'x':>5} {'cos min':>8} "
            f"{'cos mean':>8} {'top10':>6} {'R@5':>6} {'R@50':>6}"
        )
        questions = list(asked.values())
        rel = [relevant[q] for q in asked]
        runs = {}
        for label, (passages, queries) in configs.items():
            passages(texts[:8])  # load and warm up outside the timing
            start = time.process_time()
            pv = passages(texts)
            rate = len(texts) / (time.process_time() - start)
            qv = queries(questions)
            runs[label] = rate, pv, qv, np.argsort(-(qv @ pv.T), axis=1)[:, :10]
        _, ref, _, ref_top = runs["torch fp32, sorted"]
        base_rate = runs["torch fp32, input order"][0]
        for label, (rate, pv, qv, top) in runs.items():
            cos = (pv * ref).sum(axis=1)
            overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top, ref_top)])
            r = recall(qv, pv, units, rel)
            print(
                f"{label:26} {rate:12.1f} {rate / base_rate:5.2f} {cos.min():8.4f} "
                f"{cos.mean():8.4f} {overlap:6.2f} {r[5]:6.3f} {r[50]:6.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
