"""Chunks per CPU second and vector quality of each embedding backend of the packaged MiniLM.

    python bench/embedding_speed.py [--data ../shared/data] [--questions 30] [--skip 0]
        [--rounds 3] [--threads 1] [--variants] [--batch-sizes 16,32,64,128]
        [--batch-tokens 512,1024,2048] [--all-questions]

Configurations, on the same passages, timed in interleaved rounds (median): torch fp32 with
batches in input order (each batch pads to its longest text: the no-sorting baseline), torch
fp32 as sentence-transformers runs it (whole list sorted by length), and the ONNX Runtime
backends as shipped (`onnx`: the fused fp32 graph; `onnx-int8`: dynamic int8 of it with
`INT8_OPTIONS`), built offline from the package's weights into the quaestio cache and run on
token-length sorted batches. --variants adds the graphs that were tried and not shipped: the
unfused fp32 export and int8 with other options (`VARIANTS`), built into a temporary folder.
Speed is chunks per CPU second of this process (`time.process_time`, every thread), so it
holds when the machine is loaded; --threads sets torch's and ONNX Runtime's intra-op threads
(1 by default: the per-core cost, no spin-wait in the figure).

Quality against torch fp32 (sorted): the minimum cosine over passage and question vectors,
the mean overlap of each question's top-10 passages, and recall@5/@50 of a dense search where
each configuration embeds both the passages and the questions, with the questions whose R@5
rose / fell against torch (+n/-n: a loss on one question is visible):
- tune / held-out: the section chunks of the FinanceBench evidence pages of --questions
  questions from --skip, and of the next --questions (a question's relevant units are its own
  evidence pages; pages ranked by their best chunk); --all-questions adds all 150 (quality only);
- bundled: examples/corpus with examples/retrieval_gold.csv (units are section breadcrumbs).
Then query latency (one question per call, CPU ms) and, with --batch-sizes / --batch-tokens,
chunks per CPU second of the `auto` backend by batch size and by padded-token budget.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "bench"))

# int8 options tried against the shipped INT8_OPTIONS (on the fused graph unless marked).
ALL_DOWN = list(range(6))
VARIANTS = {
    "int8 MatMul rr, every MatMul": {
        "op_types_to_quantize": ["MatMul"],
        "per_channel": True,
        "reduce_range": True,
    },
    "int8 MatMul full range, every MatMul": {
        "op_types_to_quantize": ["MatMul"],
        "per_channel": True,
        "reduce_range": False,
    },
    "int8 MatMul+Attention rr, every MatMul": {
        "op_types_to_quantize": ["MatMul", "Attention"],
        "per_channel": True,
        "reduce_range": True,
    },
    "int8 MatMul rr, all down-proj fp32": {
        "op_types_to_quantize": ["MatMul"],
        "per_channel": True,
        "reduce_range": True,
        "fp32_down_projections": ALL_DOWN,
    },
}
# The int8 shipped before: the unfused export, full range, all down-projections fp32.
UNFUSED_INT8 = {"per_channel": True, "reduce_range": False, "fp32_down_projections": ALL_DOWN}


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


class Onnx:
    """An ONNX graph behind the Embedder's own batching (sorted by token length)."""

    def __init__(self, graph: Path, threads: int, backend: str = "onnx"):
        from quaestio.retrieval.embeddings import Embedder, resolve
        from quaestio.retrieval.onnx_embedding import OnnxEncoder

        self.embedder = Embedder(resolve("minilm"), backend)
        self.embedder._onnx = OnnxEncoder(
            graph, self.embedder.folder / "tokenizer.json", self.embedder.max_tokens, threads
        )

    def passages(self, texts, batch=64):
        return self.embedder.encode_passages(texts, batch_size=batch)

    def one_query(self, text):
        return self.embedder._encode([text], "", 1, False)


class Torch:
    def __init__(self, in_order: bool):
        from quaestio.retrieval.embeddings import Embedder, resolve

        self.embedder, self.in_order = Embedder(resolve("minilm"), "torch"), in_order

    def passages(self, texts, batch=64):
        if not self.in_order:
            return self.embedder.encode_passages(texts, batch_size=batch)
        # The no-sorting baseline: one call per batch of 32, in input order.
        parts = [
            self.embedder.encode_passages(texts[i : i + 32]) for i in range(0, len(texts), 32)
        ]
        return np.concatenate(parts)

    def one_query(self, text):
        return self.embedder._encode([text], "", 1, False)


def configurations(threads: int, variants: bool, scratch: Path) -> dict:
    import torch

    torch.set_num_threads(threads)
    out = {"torch fp32, input order": Torch(True), "torch fp32, sorted": Torch(False)}
    try:
        from quaestio.retrieval.onnx_embedding import _export, _quantize_int8, ensure_graph
    except ImportError:
        print("onnxruntime is not installed: ONNX rows skipped", file=sys.stderr)
        return out
    probe = Torch(False).embedder
    build = (probe.name, probe.folder)
    if variants:
        _export(probe.folder, scratch / "unfused.onnx")
        out["onnx fp32, unfused export"] = Onnx(scratch / "unfused.onnx", threads)
        _quantize_int8(scratch / "unfused.onnx", scratch / "unfused8.onnx", UNFUSED_INT8)
        out["int8 unfused, full range, all down-proj fp32"] = Onnx(
            scratch / "unfused8.onnx", threads, "onnx-int8"
        )
    fused = ensure_graph(*build, "fp32", probe.spec.distribution)
    out["onnx fp32 fused (onnx)"] = Onnx(fused, threads)
    shipped = ensure_graph(*build, "int8", probe.spec.distribution)
    out["onnx-int8 (shipped)"] = Onnx(shipped, threads, "onnx-int8")
    for i, (label, options) in enumerate(VARIANTS.items() if variants else ()):
        _quantize_int8(fused, scratch / f"variant{i}.onnx", options)
        out[label] = Onnx(scratch / f"variant{i}.onnx", threads, "onnx-int8")
    return out


def recall(qv, pv, units, relevant: list[set], ks=(5, 50)):
    """Per question recall@k (a list per k) of the units ranked by their best passage."""
    scores = qv @ pv.T
    out: dict[int, list[float]] = {k: [] for k in ks}
    for row, rel in zip(scores, relevant):
        ranked = list(dict.fromkeys(units[i] for i in np.argsort(-row, kind="stable")))
        for k in ks:
            top = ranked[:k]
            hit = sum(any(u == r or str(u).startswith(f"{r} > ") for u in top) for r in rel)
            out[k].append(hit / len(rel))
    return out


def quality(configs, sets, reference: str, vectors: dict) -> None:
    print(
        f"\n{'configuration':48} {'set':9} {'cos min':>8} {'top10':>6} {'R@5':>6} "
        f"{'+/- q':>6} {'R@50':>6}"
    )
    for name, ((texts, units), asked, relevant) in sets.items():
        questions, rel = list(asked.values()), [relevant[q] for q in asked]
        runs = {}
        for label, config in configs.items():
            if label == "torch fp32, input order":  # the reference's vectors, other padding
                continue
            pv = vectors.get((label, name))
            if pv is None:
                pv = config.passages(texts)
            qv = np.concatenate([config.one_query(q) for q in questions])
            runs[label] = pv, qv, recall(qv, pv, units, rel)
        ref_pv, ref_qv, ref_r = runs[reference]
        ref_top = np.argsort(-(ref_qv @ ref_pv.T), axis=1)[:, :10]
        for label, (pv, qv, r) in runs.items():
            cos = min((pv * ref_pv).sum(axis=1).min(), (qv * ref_qv).sum(axis=1).min())
            top = np.argsort(-(qv @ pv.T), axis=1)[:, :10]
            overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top, ref_top)])
            diff = np.asarray(r[5]) - np.asarray(ref_r[5])
            moved = f"+{(diff > 0).sum()}/-{(diff < 0).sum()}"
            print(
                f"{label:48} {name:9} {cos:8.4f} {overlap:6.2f} {np.mean(r[5]):6.3f} "
                f"{moved:>6} {np.mean(r[50]):6.3f}",
                flush=True,
            )


def speed(configs, sets, rounds: int, vectors: dict) -> None:
    timed = {k: v for k, v in sets.items() if k in ("tune", "held-out")}
    rates: dict = {(c, s): [] for c in configs for s in timed}
    for config in configs.values():
        config.passages(["warm up the session and its arena"] * 8)
    for _ in range(rounds):  # interleaved: a change of load hits every configuration alike
        for label, config in configs.items():
            for name, ((texts, _), _, _) in timed.items():
                start = time.process_time()
                vectors[(label, name)] = config.passages(texts)
                rates[(label, name)].append(len(texts) / (time.process_time() - start))
    base = {s: np.median(rates[("torch fp32, input order", s)]) for s in timed}
    print(f"\nchunks per CPU second, median of {rounds} interleaved round(s) (x torch in order)")
    for label in configs:
        cells = [
            f"{np.median(rates[(label, s)]):6.1f} (x{np.median(rates[(label, s)]) / base[s]:.2f})"
            for s in timed
        ]
        print(f"{label:48} " + " / ".join(cells), flush=True)


def query_latency(configs, questions: list[str]) -> None:
    print(f"\nquery latency, one question per call ({len(questions)} questions)")
    for label, config in configs.items():
        config.one_query(questions[0])
        start = time.process_time()
        for q in questions:
            config.one_query(q)
        ms = (time.process_time() - start) / len(questions) * 1000
        print(f"{label:48} {ms:7.1f} CPU ms per question ({1000 / ms:5.0f} per CPU s)")


def batch_sweep(
    sizes: list[int], budgets: list[int], texts: list[str], threads: int, rounds: int
) -> None:
    """Chunks per CPU second of the `auto` ONNX graph by batch size (no token budget) and by
    padded-token budget (`Embedder.batch_tokens`, batches of at most 64), rounds interleaved."""
    from quaestio.retrieval.embeddings import AUTO_ORDER, BATCH_TOKENS, get_embedder

    config = configurations(threads, False, Path())[
        "onnx-int8 (shipped)" if AUTO_ORDER[0] == "onnx-int8" else "onnx fp32 fused (onnx)"
    ]
    ways = [(f"batch {b:4d}", b, None) for b in sizes]
    ways += [
        (f"{t:5d} tokens" + (" (default)" if t == BATCH_TOKENS else ""), 64, t) for t in budgets
    ]
    rates: dict[str, list[float]] = {name: [] for name, _, _ in ways}
    for _ in range(rounds):
        for name, size, budget in ways:
            config.embedder.batch_tokens = budget
            start = time.process_time()
            config.passages(texts, batch=size)
            rates[name].append(len(texts) / (time.process_time() - start))
    config.embedder.batch_tokens = BATCH_TOKENS
    backend = get_embedder().backend
    print(f"\nbatch sweep, {backend} (auto), tune set, chunks per CPU second")
    for name, _, _ in ways:
        print(f"{name:<22} {np.median(rates[name]):6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--questions", type=int, default=30, help="questions per slice")
    parser.add_argument("--skip", type=int, default=0, help="the tune slice starts here")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--variants", action="store_true", help="add the graphs not shipped")
    parser.add_argument("--all-questions", action="store_true", help="quality on all 150")
    parser.add_argument("--batch-sizes", default="", help="e.g. 16,32,64,128")
    parser.add_argument("--batch-tokens", default="", help="padded-token budgets, e.g. 512,1024")
    args = parser.parse_args()

    sets = {}
    if (args.data / "financebench").exists():
        n, s = args.questions, args.skip
        sets["tune"] = financebench_set(args.data, n, s)
        sets["held-out"] = financebench_set(args.data, n, s + n)
        if args.all_questions:
            sets["all 150"] = financebench_set(args.data, 10_000)
    else:
        print(f"no FinanceBench under {args.data}: only the bundled set", file=sys.stderr)
    sets["bundled"] = bundled_set()
    from quaestio.retrieval.embeddings import get_embedder

    tokens = get_embedder(backend="torch").count_tokens
    for name, ((texts, _), asked, _) in sets.items():
        print(
            f"{name}: {len(texts)} passages, {np.mean(tokens(texts)):.0f} tokens on average, "
            f"{len(asked)} questions"
        )
    with tempfile.TemporaryDirectory() as scratch:
        configs = configurations(args.threads, args.variants, Path(scratch))
        vectors: dict = {}
        if "tune" in sets:
            speed(configs, sets, args.rounds, vectors)
        quality(configs, sets, "torch fp32, sorted", vectors)
        questions = [q for _, asked, _ in sets.values() for q in asked.values()][:60]
        query_latency(configs, questions)
    if (args.batch_sizes or args.batch_tokens) and "tune" in sets:
        sizes = [int(b) for b in args.batch_sizes.split(",") if b]
        budgets = [int(t) for t in args.batch_tokens.split(",") if t]
        batch_sweep(sizes, budgets, sets["tune"][0][0], args.threads, args.rounds)


if __name__ == "__main__":
    main()
