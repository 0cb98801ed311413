"""Offline language detection accuracy on real questions.

    python bench/eval_language.py

English and Spanish: the parallel XQuAD questions; English only: InsuranceQA (title case,
short). Prints accuracy per set and the most frequent confusions.
"""

from __future__ import annotations

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
    sats = prepare()
    print(f"{'set':<16} {'questions':>9} {'accuracy':>9}  most frequent errors")
    for name, (questions, gold) in sets.items():
        got = parse_questions(questions, sats, as_="polars")["language"].to_list()
        errors = Counter(g for g in got if g != gold)
        accuracy = 1 - sum(errors.values()) / len(got)
        print(f"{name:<16} {len(got):>9,} {accuracy:>9.1%}  {dict(errors.most_common(3))}")


if __name__ == "__main__":
    main()
