"""Inflected forms in the dictionary join: concepts found on InsuranceQA with exact forms
only, with simplemma lemmas (the default), and with Snowball stems (PyStemmer), and the
precision of what each adds, on a hand-labelled sample.

    python bench/morphology.py [--limit 6000] [--sample 50] [--write-sample FILE]

Questions are split into even rows (tune) and odd rows (held-out). For each mode the
script prints the share of questions with at least one concept, the concepts added over
exact forms, and the CPU time per question. `bench/morphology_labels.csv` holds a sample of
(question, concept) pairs that lemmas add, labelled by hand (`right` = 1 when the concept is
what the question is about, 0 when the inflected match is a false friend); the script scores
every mode on the labelled pairs it also adds. `--write-sample` writes a fresh sample to
label (the pairs not yet in the labels file).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("QUAESTIO_DATA") or HERE.parents[1] / "shared" / "data")
INSURANCE = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
LABELS = HERE / "morphology_labels.csv"


def concepts_per_question(questions: list[str], mode: str) -> tuple[list[set[str]], float]:
    """Concepts of each question with `mode` = exact | lemma | snowball, and CPU s/question."""
    from quaestio import parse_questions, prepare
    from quaestio.analysis import dictionary, morphology
    from quaestio.analysis.answer import answer_shape_and_type
    from quaestio.analysis.pipeline import DEFAULT_STEPS
    from quaestio.satellites import load_satellites

    original_find, original_lemma = dictionary._find_inflected, morphology.lemma
    if mode == "exact":
        dictionary._find_inflected = lambda *args, **kwargs: {}  # as written only
    elif mode == "snowball":
        import Stemmer

        stemmers = {"en": "english", "fr": "french", "es": "spanish", "de": "german"}

        def stem(word: str, language: str | None) -> str:
            folded = morphology.fold(word)
            if language not in stemmers or len(word) < morphology.MIN_LENGTH:
                return folded
            return morphology.fold(Stemmer.Stemmer(stemmers[language]).stemWord(word.lower()))

        dictionary.lemma = morphology.lemma = stem
    try:
        sats = prepare(load_satellites())  # fresh tables: no automaton cached by another mode
        steps = DEFAULT_STEPS[: DEFAULT_STEPS.index(answer_shape_and_type)]
        start = time.process_time()
        frame = parse_questions(questions, sats, steps=steps, as_="polars")
        cpu = (time.process_time() - start) / len(questions)
    finally:
        dictionary._find_inflected, dictionary.lemma = original_find, original_lemma
        morphology.lemma = original_lemma
    return [set(c) for c in frame["concepts"].to_list()], cpu


def read_labels() -> dict[tuple[str, str], int]:
    if not LABELS.exists():
        return {}
    with LABELS.open(encoding="utf-8") as fh:
        return {(r["question"], r["concept"]): int(r["right"]) for r in csv.DictReader(fh)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=6000, help="questions to read")
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--write-sample", type=Path)
    args = parser.parse_args()
    if not INSURANCE.exists():
        sys.exit(f"needs {INSURANCE} (set QUAESTIO_DATA to the public data folder)")
    with INSURANCE.open(encoding="utf-8") as fh:
        questions = [json.loads(line)["question"] for line in fh][: args.limit]
    halves = {"tune": range(0, len(questions), 2), "held-out": range(1, len(questions), 2)}
    found = {m: concepts_per_question(questions, m) for m in ("exact", "lemma", "snowball")}
    labels = read_labels()
    print(f"InsuranceQA V2, first {len(questions):,} questions\n")
    print(
        f"{'mode':<9}"
        + "".join(f"{h + ' with concept':>24}{h + ' added':>16}" for h in halves)
        + f"{'CPU ms/q':>10}  labelled added: right"
    )
    for mode, (concepts, cpu) in found.items():
        cells = ""
        for idx in halves.values():
            share = sum(bool(concepts[i]) for i in idx) / len(idx)
            added = sum(len(concepts[i] - found["exact"][0][i]) for i in idx)
            cells += f"{share:>24.1%}{added:>16,}"
        pairs = [
            (questions[i], c)
            for i in range(len(questions))
            for c in concepts[i] - found["exact"][0][i]
        ]
        judged = [labels[p] for p in pairs if p in labels]
        score = (
            f"{sum(judged)}/{len(judged)} ({len(judged)} of {len(pairs)} added labelled)"
            if judged
            else "-"
        )
        print(f"{mode:<9}{cells}{cpu * 1000:>10.2f}  {score}")
    if args.write_sample:
        added = [
            (questions[i], c)
            for i in range(len(questions))
            for c in sorted(found["lemma"][0][i] - found["exact"][0][i])
            if (questions[i], c) not in labels
        ]
        random.Random(14).shuffle(added)
        with args.write_sample.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["question", "concept", "right"])
            writer.writerows([q, c, ""] for q, c in added[: args.sample])
        print(f"\nwrote {min(args.sample, len(added))} pairs to label to {args.write_sample}")


if __name__ == "__main__":
    main()
