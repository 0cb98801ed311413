"""Speed of `quaestio serve` on 127.0.0.1 against in-process parsing.

    python bench/serve_load.py [--n 300] [--levels 1,16,64] [--turns 50]

- the HTTP layer's cost: single-question `POST /v1/parse` and in-process
  `parse_questions([q])` on the same question, alternated one call each so that both see
  the same machine load; the difference of their p50 (target ≤ 2 ms);
- the same inside the server, from its Server-Timing header: time in the app minus time in
  the parse call (thread hop, validation, JSON), free of the client's and the scheduler's
  share;
- HTTP requests/s and p50/p99 at each concurrency (asyncio + httpx, one connection per
  in-flight request);
- first SSE event: from the submit of a turn to its first event, offline (target ≤ 50 ms).
Client and server share the machine's cores: on a loaded machine, quote the CPU time too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _serve_proc import QUESTIONS, ROOT, ServeProcess, percentile  # noqa: E402


def side_by_side(url: str, n: int) -> tuple[list[float], list[float]]:
    """(in-process, HTTP) latencies, one call of each in turn on the same question."""
    from quaestio import parse_questions, prepare

    sats = prepare()
    local, remote, inside = [], [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(n):
            question = QUESTIONS[i % len(QUESTIONS)]
            started = time.perf_counter()
            parse_questions([question], sats, as_="arrow")
            local.append(time.perf_counter() - started)
            started = time.perf_counter()
            response = client.post("/v1/parse", json={"question": question})
            remote.append(time.perf_counter() - started)
            response.raise_for_status()
            timing = dict(
                part.strip().split(";dur=")
                for part in response.headers["server-timing"].split(",")
            )
            inside.append((float(timing["app"]) - float(timing["work"])) / 1000)
    return local, remote, inside


async def http_level(url: str, n: int, concurrency: int) -> tuple[list[float], float]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    latencies: list[float] = []
    queue = list(range(n))
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:

        async def worker():
            while queue:
                i = queue.pop()
                started = time.perf_counter()
                r = await client.post(
                    "/v1/parse", json={"question": QUESTIONS[i % len(QUESTIONS)]}
                )
                r.raise_for_status()
                latencies.append(time.perf_counter() - started)

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return latencies, time.perf_counter() - began


def first_event(url: str, turns: int) -> list[float]:
    out = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(turns):
            started = time.perf_counter()
            r = client.post("/v1/conversations", json={"question": QUESTIONS[i % 7]})
            with client.stream("GET", r.json()["events"]) as stream:
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        out.append(time.perf_counter() - started)
                        break
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="requests per level")
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--turns", type=int, default=50)
    args = parser.parse_args(argv)
    from quaestio.retrieval import build_index

    tmp = Path(tempfile.mkdtemp(prefix="quaestio-load-"))
    build_index(ROOT / "examples" / "corpus", tmp / "index", embedding_model=None)
    cpu0 = os.times()
    with ServeProcess(tmp / "index", tmp / "memory.sqlite") as server:
        asyncio.run(http_level(server.url, 50, 4))  # warm-up: connections, caches
        local, remote, inside = side_by_side(server.url, args.n)
        base, over = percentile(local, 0.5) * 1000, percentile(remote, 0.5) * 1000
        print(
            f"one question, alternated: in-process p50 {base:.2f} ms, HTTP p50 {over:.2f} ms"
            f"  → HTTP layer +{over - base:.2f} ms p50 (target ≤ 2 ms)"
        )
        print(
            f"  inside the server (Server-Timing app − work): p50 "
            f"{percentile(inside, 0.5) * 1000:.2f} ms  "
            f"p99 {percentile(inside, 0.99) * 1000:.2f} ms"
        )
        for level in [int(x) for x in args.levels.split(",")]:
            lat, elapsed = asyncio.run(http_level(server.url, args.n, level))
            print(
                f"HTTP /v1/parse concurrency {level:3d}: {len(lat) / elapsed:6.0f} req/s  "
                f"p50 {percentile(lat, 0.5) * 1000:7.2f} ms  "
                f"p99 {percentile(lat, 0.99) * 1000:7.2f} ms"
            )
        first = first_event(server.url, args.turns)
        print(
            f"first SSE event after submit (offline): p50 {percentile(first, 0.5) * 1000:.1f} ms"
            f"  p99 {percentile(first, 0.99) * 1000:.1f} ms (target ≤ 50 ms)"
        )
    cpu = os.times()
    print(
        f"client CPU {cpu.user - cpu0.user + cpu.system - cpu0.system:.1f} s; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
