"""Throughput of confirmation over passages, against a bare `regex` scan of the same patterns.

Passages: the chunks of /work/shared/data/business_reports_ir/corpus.jsonl (consulting
reports: figures, percentages, dates), each copy made distinct so no cache can help; a
synthetic set when the data is absent. One question per answer type hits every passage.

- bare scan: `finditer` of every pattern row of the type over every passage, nothing else
  (each top-level alternative apart, as find_values runs them; and each row as written);
- find_values: the same patterns behind the literal prefilter (a passage skips the branches
  whose literals it lacks), plus value parsing, validators and overlap resolution;
- confirm: find_values + zones + keyword matching + answers_df and verdicts (Arrow out).

MB/s counts the passage bytes read once per answer type, the same for the three stages,
over CPU time (best of two runs), so a loaded machine does not distort the ratio.

    .venv/bin/python bench/confirm_throughput.py [--data /work/shared/data] [--mb 4]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa

from quaestio.confirm import confirm
from quaestio.confirm.patterns import patterns_for, scan
from quaestio.satellites import bundled_satellites

TYPES = ("amount", "percentage", "date", "number", "duration", "email", "phone", "url")
KEYWORDS = ["revenue", "growth", "banks", "market", "cost", "customers", "2025", "profit"]


def passages(data: Path, megabytes: float) -> list[str]:
    corpus = data / "business_reports_ir" / "corpus.jsonl"
    if corpus.exists():
        base = [json.loads(line)["text"] for line in corpus.read_text().splitlines() if line]
    else:
        rng = random.Random(7)
        words = ("the premium of €1,250.00 is due on 1 March 2025 and revenue grew 4.5 % "
                 "over 3 years while costs fell to USD 2.3 million for 120 customers").split()
        base = [" ".join(rng.choice(words) for _ in range(120)) + "." for _ in range(500)]
    out, size, copy = [], 0, 0
    while size < megabytes * 1e6:
        for text in base:
            text = f"{text} (copy {copy})"
            out.append(text)
            size += len(text.encode())
        copy += 1
    return out


def timed(run) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.process_time()  # CPU time: the bench machine is shared
        run()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/shared/data", type=Path)
    parser.add_argument("--mb", default=2.0, type=float, help="passage text per answer type")
    args = parser.parse_args(argv)
    sats = bundled_satellites()
    texts = passages(args.data, args.mb)
    megabytes = sum(len(t.encode()) for t in texts) * len(TYPES) / 1e6
    timeout = sats.defaults.regex_timeout_ms / 1000
    sets = {t: patterns_for(sats, t, "en") for t in TYPES}

    per_type: dict[str, float] = {}

    def bare():
        for answer_type, patterns in sets.items():
            start = time.process_time()
            for text in texts:
                for p in patterns:
                    for branch in p.branches:
                        for _ in branch.finditer(text):
                            pass
            per_type[answer_type] = time.process_time() - start

    def bare_rows():
        for patterns in sets.values():
            for text in texts:
                for p in patterns:
                    for _ in p.regex.finditer(text):
                        pass

    def values():
        for answer_type, patterns in sets.items():
            for text in texts:
                scan(patterns, text, language="en", timeout=timeout, sats=sats)

    questions = pa.Table.from_pylist([
        {"question_id": f"q_{t}", "answer_type": t, "detect_context": "sentence",
         "language": "en", "keywords": [{"text": k, "weight": 0.8} for k in KEYWORDS]}
        for t in TYPES])
    hits = pa.Table.from_pydict({
        "question_id": [f"q_{t}" for t in TYPES for _ in texts],
        "chunk_id": [f"c{i}" for _ in TYPES for i in range(len(texts))],
        "generation_text": [text for _ in TYPES for text in texts]})
    result = {}

    def full():
        result["r"] = confirm(questions, hits, satellites=sats, as_="arrow")

    print(f"{len(texts)} passages, {megabytes / len(TYPES):.1f} MB each for {len(TYPES)} "
          f"answer types ({', '.join(TYPES)}): {megabytes:.1f} MB read per stage")
    rows = [("bare regex scan (same compiled regexes)", timed(bare)),
            ("bare scan, one regex per row as written", timed(bare_rows)),
            ("find_values (parse + validate)", timed(values)),
            ("confirm (zones + keywords + verdicts)", timed(full))]
    base = rows[0][1]
    print(f"{'stage':<42}{'CPU s':>9}{'MB/s':>9}{'x bare':>9}")
    for name, seconds in rows:
        print(f"{name:<42}{seconds:>9.2f}{megabytes / seconds:>9.1f}{seconds / base:>9.2f}")
    size = megabytes / len(TYPES)
    print("bare scan per answer type, MB/s: " + ", ".join(
        f"{t} {size / seconds:.0f}" for t, seconds in per_type.items()))
    answers, verdicts = result["r"]
    counts = Counter(verdicts.column("verdict").to_pylist())
    print(f"answers_df: {answers.num_rows} rows; verdicts: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
