"""Peak memory of `quaestio batch` streaming a large Parquet file, against a bare copy.

    python bench/batch_memory.py [--n 1000000] [--chunk-size 5000] [--only cli,iter_parse,...]
        [--data ../shared/data] [--every 100000]

Writes N questions (InsuranceQA questions from `--data`, cycled with a row number so no two
are equal, or synthetic ones without the data) to a Parquet file, then runs, each in
its own process so peak RSS is its own:
- baseline: pyarrow streams the same file batch by batch into a copy (the floor any
  streaming tool pays: interpreter, pyarrow, one batch);
- quaestio: `quaestio batch IN.parquet -o OUT.parquet`, chunk by chunk;
- iter_parse: the N questions read into one Python list, parsed in-process by
  `quaestio.iter_parse`, each record batch counted and dropped; the RSS and the peak so
  far are printed every `--every` questions, so one run shows whether memory grows with N
  (the peak alone may stay at what reading the input cost while the parse grows under it);
- parse_questions: the same list in one `parse_questions(..., as_="arrow")` call, the whole
  compact table held at the end (and `pandas`: the same, as a pandas frame).
Prints rows/s and peak RSS of each; the streaming forms should not grow with N.
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
INSURANCE = Path("insuranceqa") / "insuranceqa_v2_questions.jsonl"
BASELINE = """
import sys, pyarrow.parquet as pq
src = pq.ParquetFile(sys.argv[1])
with pq.ParquetWriter(sys.argv[2], src.schema_arrow) as out:
    for batch in src.iter_batches(batch_size=int(sys.argv[3])):
        out.write_batch(batch)
"""
IN_PROCESS = """
import resource, sys, pyarrow.parquet as pq
import quaestio
questions = pq.read_table(sys.argv[1], columns=["question"])["question"].to_pylist()
how, every = sys.argv[2], int(sys.argv[3])
if how == "iter_parse":
    rows = 0
    for batch in quaestio.iter_parse(questions):
        rows += batch.num_rows
        if rows // every != (rows - batch.num_rows) // every:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            with open("/proc/self/statm") as statm:  # Linux; the peak alone hides growth
                now = int(statm.read().split()[1]) * resource.getpagesize() / 2**20
            print(
                f"  iter_parse {rows:>9,} questions: RSS {now:,.0f} MB, peak {peak:,.0f} MB",
                file=sys.stderr,
            )
elif how == "parse_questions":
    table = quaestio.parse_questions(questions, as_="arrow")
    rows = table.num_rows
    print("table MB", table.nbytes / 1e6, file=sys.stderr)
else:
    rows = len(quaestio.parse_questions(questions, as_="pandas"))
assert rows == len(questions), rows
"""


def make_input(path: Path, n: int, data: Path) -> None:
    if (data / INSURANCE).exists():
        seeds = [json.loads(line)["question"] for line in (data / INSURANCE).open()]
    else:
        print(f"no {data / INSURANCE}: synthetic questions", file=sys.stderr)
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
    # ru_maxrss of children is the max over all children so far: a run that peaks lower
    # than an earlier one shows the earlier peak (so run one kind per call for exact figures).
    return seconds, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--chunk-size", type=int, default=5000)
    parser.add_argument("--only", default="cli,iter_parse,parse_questions,pandas")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    parser.add_argument("--every", type=int, default=100_000, help="iter_parse progress step")
    args = parser.parse_args()
    quaestio = Path(sys.executable).with_name("quaestio")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "questions.parquet"
        make_input(source, args.n, args.data)
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
        runs = {"baseline": (base_s, base_mb)}
        if "cli" in args.only:
            runs["quaestio"] = run(
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
            print(f"cli output rows {rows:,} (must equal the input)")
        for how in ("iter_parse", "parse_questions", "pandas"):
            if how in args.only:
                runs[how] = run(
                    [sys.executable, "-c", IN_PROCESS, str(source), how, str(args.every)]
                )
    print(f"{args.n:,} questions, {size:.1f} MB of Parquet, chunks of {args.chunk_size:,}\n")
    print(f"{'run':<16} {'seconds':>9} {'rows/s':>10} {'peak RSS MB':>12}")
    for name, (seconds, mb) in runs.items():
        print(f"{name:<16} {seconds:>9.1f} {args.n / seconds:>10,.0f} {mb:>12,.0f}")


if __name__ == "__main__":
    main()
