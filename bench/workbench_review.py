"""Time an analyst's review of N candidates by keyboard in the workbench, through a browser.

A real uvicorn server on loopback serves the workbench over a copy of the test satellite
folder with N generated candidates; Playwright drives Debian's Chromium headless and presses
`a` (admit), `r` (reject) or `d` (defer) on each card in turn, waiting until the page shows the
decision (the server has validated the row, written the CSV and logged the change) before the
next key. Prints the wall time per candidate (median, p90, max), the total, and the CPU time
of this process (server + Playwright client; Chromium is a separate process).

    python bench/workbench_review.py            # 100 candidates
    python bench/workbench_review.py --limit 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from workbench_support import CHROMIUM_FLAGS, Server, candidate, make_folder  # noqa: E402

CONCEPTS = ("premium", "limit_of_indemnity", "sub_limit", "early_termination", "prime_rate")
WORDS = (
    "gross",
    "net",
    "total",
    "base",
    "monthly",
    "quarterly",
    "policy",
    "contract",
    "standard",
    "minimum",
    "maximum",
    "adjusted",
    "initial",
    "final",
    "agreed",
    "declared",
    "estimated",
    "revised",
    "flat",
    "variable",
)


def candidates(n: int) -> list[dict]:
    out = []
    for i in range(n):
        concept = CONCEPTS[i % len(CONCEPTS)]
        words = (WORDS[i % len(WORDS)], WORDS[(i // len(WORDS) + 3) % len(WORDS)])
        keyword = f"{words[0]} {words[1]} {concept.split('_')[0]} {i}"
        out.append(candidate(i, keyword, concept, score=0.6 + (i % 40) / 100))
    return out


def key_for(i: int) -> tuple[str, str]:
    if i % 10 == 9:
        return "d", "deferred"
    if i % 5 == 3:
        return "r", "rejected"
    return "a", "admitted"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100, help="candidates to review")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from quaestio.workbench import create_workbench_app

    with tempfile.TemporaryDirectory(prefix="quaestio-bench-") as tmp:
        t0 = time.perf_counter()
        folder = make_folder(Path(tmp), candidates(args.limit))
        app = create_workbench_app(folder)
        app.state.workbench.store.snapshot()  # load the folder before the clock starts
        print(f"setup: folder written and loaded in {time.perf_counter() - t0:.1f} s")
        with Server(app) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.set_default_timeout(120_000)
            page.goto(f"{server.url}/candidates")
            page.wait_for_selector('article.cand.current[data-cid="0"]')
            times = []
            cpu0, wall0 = time.process_time(), time.perf_counter()
            for i in range(args.limit):
                key, state = key_for(i)
                page.wait_for_selector(f'article.cand.current[data-cid="{i}"]')
                start = time.perf_counter()
                page.keyboard.press(key)
                page.wait_for_selector(f'article.cand[data-cid="{i}"][data-state="{state}"]')
                times.append(time.perf_counter() - start)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            browser.close()
        written = pl.read_csv(folder / "concept_keywords.discovery.csv", infer_schema=False)
        log = (folder / "curation" / "changelog.jsonl").read_text().splitlines()
    expected = sum(key_for(i)[1] != "deferred" for i in range(args.limit))
    assert written.height == expected == len(log), (written.height, expected, len(log))
    times.sort()
    print(
        f"{args.limit} candidates reviewed by keyboard: {wall:.1f} s wall "
        f"({wall / args.limit:.3f} s per candidate), {cpu:.1f} s CPU in this process"
    )
    print(
        f"per decision: median {statistics.median(times) * 1000:.0f} ms, "
        f"p90 {times[int(0.9 * (len(times) - 1))] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
    )
    print(
        f"{written.height} rows written to concept_keywords.discovery.csv, "
        f"{len(log)} change-log entries, {args.limit - expected} deferred"
    )


if __name__ == "__main__":
    main()
