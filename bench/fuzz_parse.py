"""Fuzz the offline parse with hostile questions: no crash, one row per input, bounded time.

    python bench/fuzz_parse.py 100000 --long 20

Parses N hostile questions (tests/hostile_strings.py: surrogates, control characters,
bidi marks, combining marks, presentation forms, digit runs, nested quotes, list markers,
arbitrary code points) and LONG questions of 100,000 characters, in batches with
`parse_questions`, then each long one alone with `parse_question`. Prints rows in and out,
crashes (an exception out of the batch, or an `internal_error` row: a step raised), the
error codes, and the slowest questions with their CPU and wall time.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile_strings import hostile_batch, long_question  # noqa: E402

from quaestio import parse_question, parse_questions, prepare  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=10_000)
    ap.add_argument("--long", type=int, default=5, help="100k-character questions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=2000)
    args = ap.parse_args()
    sats = prepare()
    questions = hostile_batch(args.n, seed=args.seed)
    rows_out, crashes, codes = 0, [], collections.Counter()
    slow: list[tuple[float, int, str]] = []
    started, cpu = time.perf_counter(), time.process_time()
    for offset in range(0, len(questions), args.batch):
        part = questions[offset : offset + args.batch]
        try:
            qdf = parse_questions(part, sats, as_="polars")
        except Exception as exc:  # the whole batch lost: the worst crash
            crashes.append((offset, f"batch raised {type(exc).__name__}: {exc}"))
            continue
        rows_out += qdf.height
        for n, (code, message, ms) in enumerate(
            qdf.select("error_code", "error_message", "latency_ms").iter_rows()
        ):
            codes[code or "ok"] += 1
            if code == "internal_error":
                crashes.append((offset + n, message))
            if ms is not None:
                slow.append((ms, offset + n, "batch"))
    batch_wall, batch_cpu = time.perf_counter() - started, time.process_time() - cpu
    rng = random.Random(args.seed + 1)
    long_times = []
    for i in range(args.long):
        text = long_question(rng)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            row = parse_question(text, sats)
            warnings = [w.split(":")[0] for w in row.provenance.warnings]
        except Exception as exc:
            crashes.append((f"long {i}", f"{type(exc).__name__}: {exc}"))
            continue
        long_times.append(
            (
                time.process_time() - cpu,
                time.perf_counter() - wall,
                i,
                collections.Counter(warnings),
            )
        )
    rows_in = len(questions) + args.long
    rows_out += len(long_times)
    print(f"rows in {rows_in:,}  rows out {rows_out:,}  crashes {len(crashes)}")
    print(
        f"batch: {len(questions):,} questions in {batch_wall:.1f} s wall, "
        f"{batch_cpu:.1f} s CPU; codes {dict(codes)}"
    )
    for where, message in crashes[:10]:
        print(f"  crash at {where}: {str(message)[:200]}")
    slow.sort(reverse=True)
    for ms, n, _ in slow[:3]:
        q = questions[n]
        print(
            f"  slowest in batch: {ms:.0f} ms, {len(q) if isinstance(q, str) else '-'} "
            f"chars, #{n}: {str(q)[:60]!r}"
        )
    if long_times:
        worst = max(long_times)
        print(
            f"100k-character questions: {len(long_times)}, slowest {worst[0]:.2f} s CPU "
            f"({worst[1]:.2f} s wall, #{worst[2]}), median "
            f"{sorted(t[0] for t in long_times)[len(long_times) // 2]:.2f} s CPU; "
            f"warnings of the slowest {dict(worst[3])}"
        )


if __name__ == "__main__":
    main()
