"""LLM mode throughput against the local OpenAI-compatible server, with artificial latency.

The server (`python -m quaestio.llm.testing`) runs in its own process, as a real one would,
so it does not share the client's interpreter lock. Questions are distinct InsuranceQA
questions when ../shared/data is present, else numbered variants of a few examples.

    python bench/llm_throughput.py                       # 1,000 questions, 200 ms, c=1/16/64
    python bench/llm_throughput.py --questions 200 --latency 0.05

Prints, per concurrency: wall time, questions/s, HTTP requests (counted by the server),
requests per question, tokens in/out, statuses. Concurrency 1 runs on a sample
(--serial-sample, default 50) and is extrapolated to the full count: at 200 ms a serial
1,000 would take over 3 minutes and say nothing new. Then calls per question, consolidated
vs the per-concern helpers, and the cache hit rate on a batch with repeated questions.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSURANCEQA = ROOT.parent / "shared" / "data" / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
FALLBACK = [
    "What is the annual premium in Germany?",
    "Whats the anual premuim?",
    "Quelle est la franchise pour un dégât des eaux ?",
    "¿Cuáles son los efectos secundarios del medicamento?",
    "If the policy is for commercial property, what is the fire limit on page 12?",
]


def questions(n: int) -> list[str]:
    if INSURANCEQA.exists():
        with INSURANCEQA.open() as fh:
            found = list(dict.fromkeys(json.loads(line)["question"] for line in fh))
        if len(found) >= n:
            return found[:n]
    return [f"{FALLBACK[i % len(FALLBACK)]} (case {i})" for i in range(n)]


class Server:
    def __init__(self, latency: float):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "quaestio.llm.testing", "--latency", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.url = self.proc.stdout.readline().strip()

    def requests(self) -> int:
        with urllib.request.urlopen(self.url.rsplit("/v1", 1)[0] + "/stats") as response:
            return json.load(response)["requests"]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def run(llm, batch: list[str], server: Server) -> dict:
    from quaestio import parse_questions

    before = server.requests()
    started = time.perf_counter()
    qdf = parse_questions(batch, llm=llm, progress=False)
    wall = time.perf_counter() - started
    return {
        "wall": wall,
        "requests": server.requests() - before,
        "tokens_in": int(qdf.llm_tokens_in.sum()),
        "tokens_out": int(qdf.llm_tokens_out.sum()),
        "statuses": dict(Counter(qdf.llm_status)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 16, 1])
    parser.add_argument("--serial-sample", type=int, default=50)
    args = parser.parse_args()

    from quaestio import prepare
    from quaestio.llm import LLM, helpers

    prepare()
    batch = questions(args.questions)
    server = Server(args.latency)
    try:
        print(
            f"{len(batch)} distinct questions, {args.latency * 1000:.0f} ms per reply, "
            f"server {server.url}\n"
        )
        warm = LLM(base_url=server.url, model="bench")
        run(warm, batch[:8], server)  # imports and first connections, not measured
        print(
            f"{'concurrency':>11} {'questions':>9} {'wall s':>8} {'q/s':>7} {'requests':>8} "
            f"{'req/q':>6} {'tokens in':>10} {'tokens out':>10}  statuses"
        )
        for c in args.concurrency:
            sample = batch if c > 1 else batch[: args.serial_sample]
            r = run(LLM(base_url=server.url, model="bench", concurrency=c), sample, server)
            scale = len(batch) / len(sample)
            note = f"  (sampled {len(sample)}, x{scale:g})" if scale != 1 else ""
            print(
                f"{c:>11} {len(batch):>9} {r['wall'] * scale:>8.2f} "
                f"{len(sample) / r['wall']:>7.1f} {round(r['requests'] * scale):>8} "
                f"{r['requests'] / len(sample):>6.2f} {round(r['tokens_in'] * scale):>10} "
                f"{round(r['tokens_out'] * scale):>10}  {r['statuses']}{note}"
            )
    finally:
        server.stop()

    server = Server(0.0)
    try:
        few = batch[:20]
        llm = LLM(base_url=server.url, model="bench", concurrency=8)
        before = server.requests()
        run(llm, few, server)
        consolidated = (server.requests() - before) / len(few)
        before = server.requests()
        for q in few:
            helpers.correct_spelling(q, llm=llm)
            helpers.rewrite_query(q, llm=llm)
            helpers.disambiguate_concept(q, llm=llm)
            helpers.extract_hints(q, llm=llm)
            helpers.classify_decomposition(q, llm=llm)
            helpers.suggest_clarification(q, llm=llm)
        per_concern = (server.requests() - before) / len(few)
        print(
            f"\ncalls per question on {len(few)} questions: consolidated {consolidated:.2f}, "
            f"per-concern helpers {per_concern:.2f} (six helpers; disambiguate_concept "
            f"skips the call when the question has no candidate concept)"
        )

        rng = random.Random(7)
        distinct = batch[:200]
        weights = [1 / (i + 1) for i in range(len(distinct))]  # a few questions asked often
        repeated = rng.choices(distinct, weights=weights, k=1000)
        with tempfile.TemporaryDirectory() as tmp:
            cached = LLM(
                base_url=server.url,
                model="bench",
                concurrency=32,
                cache_path=str(Path(tmp) / "cache.sqlite"),
            )
            r = run(cached, repeated, server)
            r2 = run(cached, repeated, server)
        unique = len(set(repeated))
        hits = r["statuses"].get("cached", 0)
        print(
            f"cache, 1,000 questions drawn from {len(distinct)} (Zipf weights; {unique} "
            f"distinct): {r['requests']} requests, hit rate {hits / len(repeated):.1%} "
            f"(best possible {1 - unique / len(repeated):.1%}); the same batch again: "
            f"{r2['requests']} requests, hit rate "
            f"{r2['statuses'].get('cached', 0) / len(repeated):.1%}"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
