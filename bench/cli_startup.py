"""Start-up cost of the command line: `quaestio --help` and one `quaestio parse`.

    python bench/cli_startup.py [--rounds 5] [--baseline OTHER/src]

Each command runs in a fresh process; the figures are CPU seconds (user + system of the child,
which hold better under load than wall time) and wall seconds, medians over the rounds. `parse`
is run with an empty cache folder first (cold) and then with the cache the first run left
(warm). With `--baseline`, the same commands run with that source tree first on the path
(e.g. `git archive REF src | tar -x -C /tmp/base`), interleaved round by round with this
tree's, and the ratios are printed: on a busy machine only the ratio means much.

Python's bytecode cache is on in the children even when this shell sets
PYTHONDONTWRITEBYTECODE (as some sandboxes do): an installed package has its `.pyc` files,
and compiling ~50 modules from source would add a tenth of a second to every run that no
user pays after the first.
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
from pathlib import Path


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU and wall seconds of one `python -m quaestio ARGS` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "quaestio", *args], env=env, check=True, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _round(rows: dict[str, list[tuple[float, float]]], env: dict[str, str]) -> None:
    question = ["parse", "Whats the anual premuim in Germany?"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**env, "QUAESTIO_CACHE": cache}
        rows["--help"].append(_run(["--help"], env))
        rows["parse (cold cache)"].append(_run(question, env))
        rows["parse (warm cache)"].append(_run(question, env))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", help="another tree's src folder, run side by side")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = {"this tree": here} | ({"baseline": args.baseline} if args.baseline else {})
    names = ("--help", "parse (cold cache)", "parse (warm cache)")
    rows: dict[str, dict[str, list[tuple[float, float]]]] = {
        side: {name: [] for name in names} for side in sides
    }
    for _ in range(args.rounds):
        for side, src in sides.items():
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            _round(rows[side], {**env, "PYTHONPATH": src})
    medians = {
        side: {
            name: tuple(statistics.median(r[k] for r in runs) for k in (0, 1))
            for name, runs in by_name.items()
        }
        for side, by_name in rows.items()
    }
    print(
        f"{'command':<22} "
        + " ".join(f"{side + ' cpu s':>16} {'wall s':>7}" for side in sides)
        + ("   cpu ratio" if args.baseline else "")
        + f"   (medians of {args.rounds})"
    )
    for name in names:
        line = f"{name:<22} " + " ".join(
            f"{medians[side][name][0]:16.2f} {medians[side][name][1]:7.2f}" for side in sides
        )
        if args.baseline:
            line += f"   {medians['this tree'][name][0] / medians['baseline'][name][0]:9.2f}x"
        print(line)


if __name__ == "__main__":
    main()
