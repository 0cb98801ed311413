"""Offline language detection accuracy on real questions.

    python bench/eval_language.py

English and Spanish: the parallel XQuAD questions; English only: InsuranceQA (title case,
short); French: the sentences of `bench/data/french_values.csv`; English and Spanish
sentences: the inputs of the Recognizers-Text specs (short value phrases, many without a
function word, so they fall back to the default language). Prints accuracy on even rows
(tuned on), odd rows (only measured) and all rows, and the most frequent confusions.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> None:
    from quaestio import parse_questions, prepare

    xquad = DATA / "multilingual_qa" / "xquad" / "xquad_en_es_questions.jsonl"
    insurance = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
    if not xquad.exists() or not insurance.exists():
        sys.exit(f"needs the public data in {DATA}")
    rows = [json.loads(line) for line in xquad.open()]
    sets = {
        "xquad en": ([r["question_en"] for r in rows], "en"),
        "xquad es": ([r["question_es"] for r in rows], "es"),
        "insuranceqa en": ([json.loads(line)["question"] for line in insurance.open()], "en"),
    }
    french = Path(__file__).resolve().parent / "data" / "french_values.csv"
    with french.open(encoding="utf-8") as fh:
        sets["french values fr"] = ([row["text"] for row in csv.DictReader(fh)], "fr")
    for code, folder in (("en", "English"), ("es", "Spanish")):
        sets[f"recognizers {code}"] = (_spec_inputs(folder), code)
    sats = prepare()
    print(f"{'set':<18} {'rows':>7} {'even':>7} {'odd':>7} {'all':>7}  most frequent errors")
    for name, (questions, gold) in sets.items():
        got = parse_questions(questions, sats, as_="polars")["language"].to_list()
        right = [g == gold for g in got]
        cells = " ".join(f"{sum(right[h::2]) / len(right[h::2]):>7.1%}" for h in (0, 1))
        errors = Counter(g for g in got if g != gold)
        print(
            f"{name:<18} {len(got):>7,} {cells} {sum(right) / len(right):>7.1%}"
            f"  {dict(errors.most_common(3))}"
        )


def _spec_inputs(folder: str) -> list[str]:
    """The distinct `Input` sentences of every Recognizers-Text spec of one language."""
    inputs: set[str] = set()
    for path in sorted((DATA / "recognizers_text" / "Specs").glob(f"*/{folder}/*.json")):
        for case in json.loads(path.read_text(encoding="utf-8-sig")):
            if isinstance(case, dict) and isinstance(case.get("Input"), str):
                inputs.add(case["Input"])
    return sorted(inputs)


if __name__ == "__main__":
    main()
