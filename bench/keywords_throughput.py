"""Throughput, index build time and peak memory of the offline keyword path.

Runs each dictionary in its own process (so peak RSS is that dictionary's own), on real
questions from InsuranceQA when ../shared/data is present, else on bundled examples.
Prints one table; the `bare automaton` column is pyahocorasick alone over the same folded
questions and keys, measured in the same process: the floor our matching is compared to.

    python bench/keywords_throughput.py                 # bundled, 1k, 100k, 1M keywords
    python bench/keywords_throughput.py --sizes 1000 --questions 2000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSURANCEQA = ROOT.parent / "shared" / "data" / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
FALLBACK = [
    "What is the annual premium in Germany?",
    "Whats the anual premuim?",
    "Does article L131-1 of the insurance code apply here?",
    "Quelle est la franchise pour un dégât des eaux ?",
    "¿Cuáles son los efectos secundarios del medicamento?",
]


def load_questions(n: int) -> list[str]:
    if INSURANCEQA.exists():
        with INSURANCEQA.open() as fh:
            questions = [json.loads(line)["question"] for line in fh]
    else:
        print(
            f"note: {INSURANCEQA} not found; using {len(FALLBACK)} bundled examples",
            file=sys.stderr,
        )
        questions = FALLBACK
    return [questions[i % len(questions)] for i in range(n)]


def synthetic_folder(size: int, folder: Path) -> Path:
    """A dictionary of `size` keywords: 1–3 real English words each, ten per concept."""
    import numpy as np
    import polars as pl
    from spellchecker import SpellChecker

    freq = SpellChecker(language="en").word_frequency.dictionary
    vocab = np.array(
        sorted((w for w in freq if w.isalpha() and len(w) > 3), key=lambda w: -freq[w])[:40000]
    )
    rng = np.random.default_rng(7)
    lengths = rng.choice([1, 2, 3], size=size * 2, p=[0.3, 0.5, 0.2])
    words = vocab[rng.integers(0, len(vocab), size=(size * 2, 3))]
    phrases = [" ".join(words[i, : lengths[i]]) for i in range(size * 2)]
    keywords = list(dict.fromkeys(phrases))[:size]
    n = len(keywords)
    concepts = [f"c{i // 10}" for i in range(n)]
    pl.DataFrame(
        {"concept": sorted(set(concepts)), "definition": "synthetic concept"}
    ).write_parquet(folder / "concepts.parquet")
    pl.DataFrame(
        {
            "concept": concepts,
            "language": rng.choice(["en", "fr", "es"], size=n).tolist(),
            "keyword": keywords,
            "weight": 0.8,
            "match": "fuzzy",
        }
    ).write_parquet(folder / "concept_keywords.parquet")
    return folder


def worker(dictionary: str, n_questions: int) -> dict:
    import ahocorasick
    import polars as pl

    from quaestio import DEFAULT_STEPS, load_satellites, parse_questions, prepare
    from quaestio.analysis.dictionary import dictionary_index
    from quaestio.analysis.text import tokenize

    questions = load_questions(n_questions)
    fuzzy_off = {"defaults": pl.DataFrame({"key": ["fuzzy_enabled"], "value": ["false"]})}

    def rate(fn) -> float:
        fn(questions[:200])  # warm caches (stopwords, rules) outside the timing
        start = time.perf_counter()
        fn(questions)
        return len(questions) / (time.perf_counter() - start)

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        folder = None if dictionary == "bundled" else synthetic_folder(int(dictionary), Path(tmp))
        t1 = time.perf_counter()
        sats = load_satellites(folder)
        t2 = time.perf_counter()
        prepare(sats)  # automaton, spelling index, word lists of every stopword language
        index = dictionary_index(sats)
        t3 = time.perf_counter()
        sats_off = prepare(load_satellites(folder, extra=fuzzy_off, override=True))
    keyword_steps = DEFAULT_STEPS[:6]  # language, explicit, anchors, spelling, dictionary, direct
    typo_on = rate(lambda qs: parse_questions(qs, sats, steps=keyword_steps, as_="arrow"))
    typo_off = rate(lambda qs: parse_questions(qs, sats_off, steps=keyword_steps, as_="arrow"))
    full = rate(lambda qs: parse_questions(qs, sats, as_="arrow"))
    automaton = ahocorasick.Automaton()
    for i, entry in enumerate(index.entries):
        automaton.add_word(" " + " ".join(t.folded for t in tokenize(entry.keyword)) + " ", i)
    automaton.make_automaton()
    folded = [" " + " ".join(t.folded for t in tokenize(q)) + " " for q in questions]
    start = time.perf_counter()
    hits = sum(1 for text in folded for _ in automaton.iter(text))
    bare = len(folded) / (time.perf_counter() - start)
    return {
        "dictionary": dictionary,
        "keywords": len(index.entries),
        "generate_s": t1 - t0,
        "load_s": t2 - t1,
        "index_s": t3 - t2,
        "typo_on": typo_on,
        "typo_off": typo_off,
        "full": full,
        "bare": bare,
        "hits": hits,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10000)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.questions)))
        return
    configs = ["bundled"] + [s for s in args.sizes.split(",") if s]
    print(
        f"{args.questions} questions per run, one core. q/s: parse_questions to Arrow with "
        f"the keyword steps (typo tolerance on, then off); full: every default step;\n"
        f"bare AC: pyahocorasick alone over the same keys\n"
    )
    head = (
        f"{'dictionary':>10} {'keywords':>9} {'load s':>7} {'index s':>8} {'peak MB':>8} "
        f"{'q/s':>7} {'no typo q/s':>11} {'full q/s':>10} {'bare AC q/s':>12} "
        f"{'AC/parse':>9}"
    )
    print(head)
    print("-" * len(head))
    for config in configs:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", config, "--questions", str(args.questions)],
            capture_output=True,
            text=True,
        )
        if out.returncode:
            print(f"{config:>10} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{r['dictionary']:>10} {r['keywords']:>9,} {r['load_s']:>7.2f} {r['index_s']:>8.2f} "
            f"{r['peak_mb']:>8.0f} {r['typo_on']:>7,.0f} {r['typo_off']:>11,.0f} "
            f"{r['full']:>10,.0f} "
            f"{r['bare']:>12,.0f} {r['bare'] / r['typo_on']:>9.1f}"
        )


if __name__ == "__main__":
    main()
