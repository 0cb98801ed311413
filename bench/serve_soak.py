"""Memory of `quaestio serve` over time: a bounded mix of requests on 127.0.0.1.

    python bench/serve_soak.py [--requests 20000] [--concurrency 4]

Builds a bm25 index of examples/corpus in a temp folder, starts `quaestio serve` (offline,
no keys, loopback), then sends the mix: 75% parse (a batch of 1-4 questions), 20% search
(with confirm every other time), 5% conversation turns (submit + read the event stream to
`done`). RSS of the server process is read at the start (after a warm-up of 500 requests),
the middle and the end. Target: RSS growth under 5% between the middle and the end.
Prints RSS and p50/p99 latency per route.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _serve_proc import QUESTIONS, ROOT, ServeProcess, percentile, rss_mib  # noqa: E402


def one(client: httpx.Client, rng: random.Random, kind: str) -> None:
    if kind == "parse":
        batch = rng.sample(QUESTIONS, rng.randint(1, 4))
        r = client.post("/v1/parse", json={"questions": batch})
    elif kind == "search":
        r = client.post(
            "/v1/search",
            json={"questions": [rng.choice(QUESTIONS)], "k": 3, "confirm": rng.random() < 0.5},
        )
    else:
        r = client.post("/v1/conversations", json={"question": rng.choice(QUESTIONS)})
        r.raise_for_status()
        with client.stream("GET", r.json()["events"]) as stream:
            for line in stream.iter_lines():
                if line == "event: done":
                    break
    r.raise_for_status()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=500)
    args = parser.parse_args(argv)
    from quaestio.retrieval import build_index

    tmp = Path(tempfile.mkdtemp(prefix="quaestio-soak-"))
    build_index(ROOT / "examples" / "corpus", tmp / "index", embedding_model=None)
    kinds = ["parse"] * 15 + ["search"] * 4 + ["conversation"]
    latencies: dict[str, list[float]] = defaultdict(list)
    rss: dict[str, float] = {}
    counter = {"n": 0}
    lock = threading.Lock()
    total = args.warmup + args.requests
    errors = []
    with ServeProcess(tmp / "index", tmp / "memory.sqlite") as server:

        def worker(seed: int) -> None:
            rng = random.Random(seed)
            with httpx.Client(base_url=server.url, timeout=60) as client:
                while True:
                    with lock:
                        n = counter["n"]
                        if n >= total:
                            return
                        counter["n"] += 1
                        if n == args.warmup:
                            rss["start"] = rss_mib(server.pid)
                        elif n == args.warmup + args.requests // 2:
                            rss["middle"] = rss_mib(server.pid)
                    kind = rng.choice(kinds)
                    started = time.perf_counter()
                    try:
                        one(client, rng, kind)
                    except httpx.HTTPError as exc:
                        errors.append(f"{kind}: {exc}")
                    if n >= args.warmup:
                        latencies[kind].append(time.perf_counter() - started)

        began = time.perf_counter()
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - began
        rss["end"] = rss_mib(server.pid)
    measured = sum(len(v) for v in latencies.values())
    growth = (rss["end"] - rss["middle"]) / rss["middle"] * 100
    print(
        f"requests measured: {measured} (+{args.warmup} warm-up), concurrency "
        f"{args.concurrency}, {elapsed:.0f} s, {total / elapsed:.0f} req/s, errors {len(errors)}"
    )
    print(
        f"server RSS MiB: start {rss['start']:.1f}  middle {rss['middle']:.1f}  "
        f"end {rss['end']:.1f}  middle→end {growth:+.2f}% (target < 5%)"
    )
    for kind, values in sorted(latencies.items()):
        print(
            f"  {kind:13s} n={len(values):6d}  p50 {percentile(values, 0.5) * 1000:7.1f} ms"
            f"  p99 {percentile(values, 0.99) * 1000:7.1f} ms"
        )
    for line in errors[:5]:
        print("  error:", line)


if __name__ == "__main__":
    main()
