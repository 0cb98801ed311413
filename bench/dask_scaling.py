"""Questions/s of parse_questions in-process, on 1 Dask worker and on 2, and Dask's per-task cost.

    python bench/dask_scaling.py [--data ../shared/data] [--limit 6000] [--partitions 8]
    python bench/dask_scaling.py --scheduler tcp://host:8786      # a real cluster instead

Input: InsuranceQA questions from --data (numbered variants of the bundled examples when
absent), the same list for every run. Workers are processes with one thread each on a local
cluster (TCP on loopback), started before the clock runs; the satellites reach each worker
once, also before the clock (a first tiny batch). Per-task overhead: a batch of no-op
tasks, (wall time) / (tasks). CPU seconds (this process + the workers') and the load average are
printed too: on a shared machine wall time alone misleads, questions per CPU second less so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def questions(data: Path, limit: int) -> list[str]:
    path = data / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
    if path.exists():
        rows = [json.loads(line)["question"] for line in path.open()]
    else:
        print(f"{path} not found: numbered bundled examples instead", file=sys.stderr)
        rows = [f"What is the annual premium of policy {i}?" for i in range(limit)]
    return (rows * (limit // len(rows) + 1))[:limit]


def timed(label: str, work, n: int, client=None) -> dict:
    workers_cpu = (
        (lambda: sum(client.run(time.process_time).values())) if client else (lambda: 0.0)
    )
    cpu, wcpu, wall = time.process_time(), workers_cpu(), time.perf_counter()
    work()
    wall, cpu, wcpu = time.perf_counter() - wall, time.process_time() - cpu, workers_cpu() - wcpu
    print(
        f"{label:<20} {n / wall:7.0f} q/s  {n / (cpu + wcpu):7.0f} q per CPU s  "
        f"({wall:.1f} s wall, CPU {cpu:.1f} s here + {wcpu:.1f} s on workers, "
        f"load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    return {"label": label, "qps": n / wall}


def on_cluster(client, texts, partitions: int, label: str) -> None:
    import dask.dataframe as dd
    import pandas as pd

    from quaestio import dask as qd

    frame = dd.from_pandas(pd.DataFrame({"question": texts}), npartitions=partitions)
    qd.parse_questions(frame.head(8, npartitions=1, compute=False), client=client).compute()
    timed(label, lambda: qd.parse_questions(frame, client=client).compute(), len(texts), client)


def _noop(x):
    return x


def overhead(client, tasks: int = 400) -> None:
    client.gather(client.map(_noop, range(20), pure=False))  # warm
    start = time.perf_counter()
    client.gather(client.map(_noop, range(tasks), pure=False))
    per_task = (time.perf_counter() - start) / tasks
    print(
        f"{'per-task overhead':<20} {per_task * 1000:7.2f} ms ({tasks} no-op tasks, "
        f"scheduler round trip included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=6000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--scheduler", help="a running scheduler instead of local clusters")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from quaestio import parse_questions, prepare

    texts = questions(args.data, args.limit)
    prepare()
    parse_questions(texts[:8])
    print(f"{len(texts)} questions, {args.partitions} partitions, {os.cpu_count()} cores")
    timed("in-process", lambda: parse_questions(texts), len(texts))
    if args.scheduler:
        with Client(args.scheduler) as client:
            n = len(client.scheduler_info()["workers"])
            on_cluster(client, texts, args.partitions, f"cluster ({n} workers)")
            overhead(client)
        return
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=40,
            ) as cluster,
            Client(cluster) as client,
        ):
            on_cluster(client, texts, args.partitions, f"{workers} worker{'s' * (workers > 1)}")
            if workers == 2:
                overhead(client)


if __name__ == "__main__":
    main()
