"""Time to add 1% more documents to a large index, against a full rebuild of the same corpus.

Synthetic contracts are generated here (never stored): each document has `--sections`
sections of a few sentences, with figures, dates and parties drawn at random, so the
vocabulary grows with the corpus as a real one does. Steps, each timed (wall and CPU):

1. build the index of N documents and write it (`build_index`);
2. `add_documents` of 1% more documents, written in place (write-then-swap);
3. `build_index` of the N + 1% documents from scratch, written: what the update replaces.

The update re-chunks and embeds only the new documents; it copies the other rows and
vectors and refits BM25 over all rows (document frequencies are global). A check at the end
confirms the two indexes answer the same questions with the same chunks and scores.

    .venv/bin/python bench/index_update.py                       # bm25, ~20k chunks
    .venv/bin/python bench/index_update.py --docs 1000 --model minilm   # dense too
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from quaestio.retrieval import add_documents, build_index, open_index, search

WORDS = (
    "premium deductible policy insured claim renewal liability coverage indemnity "
    "exclusion supplier invoice payment termination notice warranty damages "
    "confidential agreement schedule clause obligation breach remedy fee"
).split()
TITLES = (
    "Premium",
    "Claims",
    "Liability",
    "Termination",
    "Payment",
    "Warranty",
    "Confidentiality",
    "Renewal",
    "Notices",
    "Schedule",
    "Exclusions",
    "Support",
)


def corpus(n: int, sections: int, seed: int, start: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    docs = []
    for i in range(start, start + n):
        body = [
            f"# Contract {i}\n\nAgreement between Acme and client{i} "
            f"({rng.choice(['France', 'Spain', 'Germany'])})."
        ]
        for j in range(sections):
            sentences = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
                + f" of EUR {rng.randint(1, 99)},{rng.randint(100, 999)}.00 on "
                f"{rng.randint(1, 28)} March {rng.randint(2000, 2030)} (ref{i}x{j})."
                for _ in range(rng.randint(3, 6))
            ]
            body.append(f"## {rng.choice(TITLES)} {j}\n\n" + " ".join(sentences))
        docs.append({"doc_id": f"contract{i:06d}", "text": "\n\n".join(body)})
    return pd.DataFrame(docs)


def timed(label: str, run):
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<44}{wall:>9.1f}{cpu:>9.1f}", flush=True)
    return result, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000, help="documents in the index")
    parser.add_argument("--sections", type=int, default=10, help="sections per document")
    parser.add_argument(
        "--model", default=None, help="embedding model (e.g. minilm); bm25 only when absent"
    )
    parser.add_argument("--percent", type=float, default=1.0, help="documents added, %%")
    args = parser.parse_args(argv)
    extra = max(1, round(args.docs * args.percent / 100))
    base = corpus(args.docs, args.sections, seed=1)
    more = corpus(extra, args.sections, seed=2, start=args.docs)
    everything = pd.concat([base, more], ignore_index=True)
    with tempfile.TemporaryDirectory(prefix="quaestio-bench-update-") as tmp:
        path, fresh = Path(tmp) / "idx", Path(tmp) / "rebuilt"
        print(
            f"{args.docs} documents x {args.sections} sections, +{extra} documents "
            f"({args.percent:g}%), model {args.model or 'none (bm25)'}"
        )
        print(f"{'step':<44}{'wall s':>9}{'CPU s':>9}")
        index, _ = timed(
            "build the index",
            lambda: build_index(base, path, embedding_model=args.model, progress=False),
        )
        sections = index.manifest["rows"].get("section", 0)
        updated, t_update = timed(
            f"add_documents (+{extra}), written", lambda: add_documents(path, more, progress=False)
        )
        rebuilt, t_build = timed(
            "full rebuild of the same corpus, written",
            lambda: build_index(everything, fresh, embedding_model=args.model, progress=False),
        )
        record = updated.manifest["updates"][-1]
        print(
            f"index: {sections} section chunks, {index.manifest['chunks']} rows; update "
            f"embedded {record['chunks_embedded']} chunks, reused {record['chunks_reused']}"
        )
        print(f"update / rebuild: {t_update / t_build:.2f} ({t_build / t_update:.1f}x faster)")
        backend = "hybrid" if args.model else "bm25"
        questions = [
            "What is the premium of contract 5?",
            "termination notice fee",
            "warranty breach remedy in Spain",
        ]
        same = all(
            search(open_index(path), q, backend=backend, k=10).chunk_id.tolist()
            == search(open_index(fresh), q, backend=backend, k=10).chunk_id.tolist()
            for q in questions
        )
        print(f"same hits as the rebuild ({backend}, {len(questions)} questions): {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
