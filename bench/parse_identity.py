"""Are the rows of question_df the same in two checkouts? (for speed work on the parse)

    python bench/parse_identity.py --baseline /path/to/other/checkout [--per-set 1000]

The data folder is $QUAESTIO_DATA (default /work/shared/data).
Each checkout parses the same questions (InsuranceQA, TREC and the XQuAD English and Spanish
questions from ../shared/data, the first `--per-set` of each) in its own process, with the
bundled satellites; the rows are compared as JSON without `latency_ms`, the one column that
is a measurement. Prints the number of questions, of differing rows, and the first few.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DATA = Path(os.environ.get("QUAESTIO_DATA", "/work/shared/data"))
_WORKER = """
import json, sys
from quaestio import parse_question
from quaestio.satellites import bundled_satellites
sats = bundled_satellites()
for line in sys.stdin:
    row = parse_question(json.loads(line), sats).model_dump(mode="json")
    row["provenance"].pop("latency_ms", None)
    print(json.dumps(row, sort_keys=True))
"""


def questions(per_set: int) -> list[str]:
    out: list[str] = []
    with open(DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl", encoding="utf-8") as f:
        out += [json.loads(line)["question"] for _, line in zip(range(per_set), f)]
    with open(DATA / "trec" / "train_5500.label", encoding="latin-1") as f:
        out += [line.split(" ", 1)[1].strip() for _, line in zip(range(per_set), f)]
    path = DATA / "multilingual_qa" / "xquad" / "xquad_en_es_questions.jsonl"
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for _, line in zip(range(per_set), f)]
    out += [r[k] for r in rows for k in ("question_en", "question_es") if k in r]
    return out


def rows(checkout: Path, lines: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _WORKER], input=lines, env=env, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"{checkout}: {done.stderr[-2000:]}")
    return done.stdout.splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--per-set", type=int, default=1000)
    args = parser.parse_args()
    asked = questions(args.per_set)
    lines = "".join(json.dumps(q) + "\n" for q in asked)
    here = rows(Path(__file__).resolve().parents[1], lines)
    there = rows(args.baseline.resolve(), lines)
    differ = [i for i, (a, b) in enumerate(zip(here, there)) if a != b]
    print(f"{len(asked)} questions, {len(here)} and {len(there)} rows, {len(differ)} differ")
    for i in differ[:5]:
        print(f"  {asked[i]!r}")


if __name__ == "__main__":
    main()
