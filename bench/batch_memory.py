"""Peak memory of `quaestio batch` streaming a large Parquet file, against a bare copy.

    python bench/batch_memory.py [--n 1000000] [--chunk-size 5000]

Writes N questions (InsuranceQA questions from ../shared/data, cycled with a row number so
no two are equal, or synthetic ones without the data) to a Parquet file, then runs, each in
its own process so peak RSS is its own:
- baseline: pyarrow streams the same file batch by batch into a copy (the floor any
  streaming tool pays: interpreter, pyarrow, one batch);
- quaestio: `quaestio batch IN.parquet -o OUT.parquet`, chunk by chunk.
Prints rows/s and peak RSS of each and the ratio; memory should not grow with N.
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

import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
INSURANCE = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
BASELINE = """
import sys, pyarrow.parquet as pq
src = pq.ParquetFile(sys.argv[1])
with pq.ParquetWriter(sys.argv[2], src.schema_arrow) as out:
    for batch in src.iter_batches(batch_size=int(sys.argv[3])):
        out.write_batch(batch)
"""


def make_input(path: Path, n: int) -> None:
    if INSURANCE.exists():
        seeds = [json.loads(line)["question"] for line in INSURANCE.open()]
    else:
        seeds = [
            "What is the annual premium in Germany?",
            "When does the policy expire?",
            "List the exclusions on page 4",
            "Compare the deductible of plan A and B",
        ]
    with pq.ParquetWriter(
        path, pa.schema([("id", pa.string()), ("question", pa.string())])
    ) as writer:
        for start in range(0, n, 100_000):
            ids = range(start, min(n, start + 100_000))
            writer.write_table(
                pa.table(
                    {
                        "id": [str(i) for i in ids],
                        "question": [f"{seeds[i % len(seeds)]} (case {i})" for i in ids],
                    }
                )
            )


def run(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the max over all children so far: run the larger job last.
    return seconds, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--chunk-size", type=int, default=5000)
    args = parser.parse_args()
    quaestio = Path(sys.executable).with_name("quaestio")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "questions.parquet"
        make_input(source, args.n)
        size = source.stat().st_size / 1e6
        base_s, base_mb = run(
            [
                sys.executable,
                "-c",
                BASELINE,
                str(source),
                str(Path(tmp) / "copy.parquet"),
                str(args.chunk_size),
            ]
        )
        ours_s, ours_mb = run(
            [
                str(quaestio),
                "batch",
                str(source),
                "-o",
                str(Path(tmp) / "question_df.parquet"),
                "--id-column",
                "id",
                "--chunk-size",
                str(args.chunk_size),
            ]
        )
        rows = pq.ParquetFile(Path(tmp) / "question_df.parquet").metadata.num_rows
    print(f"{args.n:,} questions, {size:.1f} MB of Parquet, chunks of {args.chunk_size:,}\n")
    print(f"{'run':<10} {'seconds':>9} {'rows/s':>10} {'peak RSS MB':>12}")
    print(f"{'baseline':<10} {base_s:>9.1f} {args.n / base_s:>10,.0f} {base_mb:>12,.0f}")
    print(f"{'quaestio':<10} {ours_s:>9.1f} {args.n / ours_s:>10,.0f} {ours_mb:>12,.0f}")
    print(
        f"\nquaestio / baseline: time x{ours_s / base_s:.0f}, peak RSS x{ours_mb / base_mb:.1f}; "
        f"output rows {rows:,} (must equal the input)"
    )


if __name__ == "__main__":
    main()
