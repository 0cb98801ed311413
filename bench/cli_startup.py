"""Start-up cost of the command line: `quaestio --help` and one `quaestio parse`.

    python bench/cli_startup.py [--rounds 5]

Each command runs in a fresh process; the figures are CPU seconds (user + system of the child,
which hold under load) and wall seconds, medians over the rounds. `parse` is run with an empty
cache folder first (cold) and then with the cache the first run left (warm).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "quaestio", *args], env=env, check=True, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    question = ["parse", "Whats the anual premuim in Germany?"]
    rows = {"--help": [], "parse (cold cache)": [], "parse (warm cache)": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "QUAESTIO_CACHE": cache}
            rows["--help"].append(_run(["--help"], env))
            rows["parse (cold cache)"].append(_run(question, env))
            rows["parse (warm cache)"].append(_run(question, env))
    print(f"{'command':<22} {'cpu s':>7} {'wall s':>7}   (medians of {rounds})")
    for name, runs in rows.items():
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{name:<22} {cpu:7.2f} {wall:7.2f}")


if __name__ == "__main__":
    main()
