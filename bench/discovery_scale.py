"""Discovery on real corpora: phrases, clusters, candidates, time and peak memory.

Corpora (from ../shared/data, not shipped): FinanceBench evidence pages (full page text of
10-K/10-Q filings) and the business-reports IR chunks; with --extra, XQuAD contexts (EN+ES)
and InsuranceQA questions (61k distinct phrases in all). The shared data holds no more text,
so --docstrings adds the docstrings of installed libraries (real technical English) to reach
100k distinct phrases for the scale figures; acceptance is measured without them.

    .venv/bin/python bench/discovery_scale.py --phrases 10000 --cache /tmp/qcache
    .venv/bin/python bench/discovery_scale.py --phrases 100000 --extra --cache /tmp/qcache

Run each size twice: the first run embeds (and fills the cache), the second is the cached
figure. Writes the candidates to --out for labelling (bench/discovery_acceptance.py).

Measured 2026-12-01 on the shared 2-core machine (load average 5-9 from other jobs):
  10k phrases (FinanceBench + IR, min-count 1): 135 clusters; uncached 202 s wall, 880 MB
    peak RSS (171.6 s embedding 10,662 texts); cached 23 s wall (14.7 s HDBSCAN), 337 MB.
  100k phrases (--extra --docstrings): 800 clusters, noise 86%; uncached 20.6 min wall,
    1.74 GB (956.7 s embedding 96,091 texts); cached 176 s wall (16.6 s phrases, 155.8 s
    PCA + HDBSCAN), 1.09 GB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import polars as pl

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def corpus(extra: bool) -> pl.DataFrame:
    texts: list[str] = []
    seen = set()
    for line in (DATA / "financebench" / "financebench_open_source.jsonl").open():
        for ev in json.loads(line)["evidence"]:
            page = ev.get("evidence_text_full_page") or ev.get("evidence_text") or ""
            if page not in seen:
                seen.add(page)
                texts.append(page)
    docs = pl.DataFrame({"text": texts, "language": "en"})
    ir = pl.read_ndjson(DATA / "business_reports_ir" / "corpus.jsonl").select(
        "text", pl.lit("en").alias("language")
    )
    frames = [docs, ir]
    if extra:
        for lang in ("en", "es"):
            path = DATA / "multilingual_qa" / "xquad" / f"xquad.{lang}.json"
            if path.exists():
                frames.append(_xquad(path, lang))
        qa = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
        if qa.exists():
            q = pl.read_ndjson(qa)
            col = "question" if "question" in q.columns else q.columns[0]
            frames.append(q.select(pl.col(col).alias("text"), pl.lit("en").alias("language")))
    return (
        pl.concat(frames).with_row_index("doc_id").with_columns(pl.col("doc_id").cast(pl.String))
    )


def docstrings(
    packages=(
        "sklearn",
        "pandas",
        "scipy",
        "numpy",
        "torch",
        "polars",
        "sympy",
        "matplotlib",
        "transformers",
    ),
) -> pl.DataFrame:
    import importlib.util
    import re

    texts = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for path in sorted(Path(spec.submodule_search_locations[0]).rglob("*.py")):
            source = path.read_text(encoding="utf-8", errors="replace")
            texts += [
                m.strip() for m in re.findall(r'"""(.*?)"""', source, flags=re.S) if len(m) > 200
            ]
    return pl.DataFrame({"text": texts, "language": "en"}).unique(maintain_order=True)


def _xquad(path: Path, lang: str) -> pl.DataFrame:
    data = json.loads(path.read_text())
    contexts = {p["context"] for art in data.get("data", []) for p in art["paragraphs"]}
    return pl.DataFrame({"text": sorted(contexts), "language": lang})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phrases", type=int, default=10_000, help="most frequent phrases kept")
    ap.add_argument("--min-count", type=int, default=1)
    ap.add_argument("--extra", action="store_true", help="add XQuAD and InsuranceQA text")
    ap.add_argument(
        "--docstrings",
        action="store_true",
        help="add docstrings of installed libraries (for the 100k scale run)",
    )
    ap.add_argument("--cache", default="/tmp/quaestio-bench-cache")
    ap.add_argument("--min-cluster-size", type=int, default=5)
    ap.add_argument("--dims", type=int, default=20)
    ap.add_argument("--out", help="write the candidates CSV here")
    args = ap.parse_args(argv)
    if not (DATA / "financebench").exists():
        print(f"no data at {DATA}: skipped", file=sys.stderr)
        return 0
    from quaestio.curation.discover import discover_candidates, write_candidates
    from quaestio.curation.phrases import extract_phrases
    from quaestio.satellites import bundled_satellites

    sats = bundled_satellites()
    t0 = time.perf_counter()
    docs = corpus(args.extra)
    if args.docstrings:
        docs = (
            pl.concat([docs.select("text", "language"), docstrings()])
            .with_row_index("n")
            .with_columns(pl.col("n").cast(pl.String).alias("doc_id"))
            .drop("n")
        )
    phrases = extract_phrases(docs, sats, min_count=args.min_count, max_phrases=args.phrases)
    t_phrases = time.perf_counter() - t0
    found = discover_candidates(
        None,
        sats,
        phrases=phrases,
        cache_dir=args.cache,
        min_cluster_size=args.min_cluster_size,
        dims=args.dims,
    )
    total = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kinds = found.candidates.group_by("kind").len().sort("kind").rows()
    print(
        json.dumps(
            {
                "documents": docs.height,
                "characters": int(docs["text"].str.len_chars().sum()),
                "phrases": phrases.height,
                "languages": dict(phrases.group_by("language").len().rows()),
                "clusters": found.clusters.height,
                "clusters_with_concept": found.clusters.filter(pl.col("concepts") != "").height,
                "noise_share": round(
                    found.phrases.filter(pl.col("cluster_id") < 0).height / max(phrases.height, 1),
                    3,
                ),
                "candidates": dict(kinds),
                "encoded": int(found.timings["encoded"]),
                "seconds": {
                    "phrases": round(t_phrases, 1),
                    "embed": round(found.timings["embed"], 1),
                    "cluster": round(found.timings["cluster"], 1),
                    "total": round(total, 1),
                },
                "peak_rss_mb": round(peak_mb),
            },
            indent=2,
        )
    )
    if args.out:
        write_candidates(found.candidates, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
