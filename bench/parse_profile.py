"""Thread-CPU µs per question for each step of the offline parse, against a baseline checkout.

Two worker processes, one per checkout (this tree's `src`, and the baseline's), parse the
same questions (half InsuranceQA, half TREC from ../shared/data, interleaved) round after
round, taking turns, so that load on the machine falls on both alike; the table shows the
median over rounds of each step's thread CPU time per question, side by side (a tree with
`pipeline.run_steps_together` runs each step over the round's questions before the next
step, as its batch path does; an older tree, question by question). `record` is
`finish_record` (the flat row); `parse_questions` is the whole batch call to Arrow, timed
on its own (on another slice of questions, so it remembers nothing from the steps).

    python bench/parse_profile.py                       # baseline: --base, default 6d096a9
    python bench/parse_profile.py --base 6d096a9 --questions 800 --rounds 5
    python bench/parse_profile.py --baseline /path/to/checkout   # an existing tree

With `--base COMMIT`, a throwaway `git worktree` of that commit is made under a temporary
directory and removed at the end.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")


def load_questions(n: int) -> list[str]:
    """n questions: InsuranceQA and TREC alternately (half each), repeats only past 10,904."""
    insurance = [
        json.loads(line)["question"]
        for line in (DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl").open()
    ]
    trec = [
        line.split(" ", 1)[1].strip()
        for line in (DATA / "trec" / "train_5500.label").read_text("latin-1").splitlines()
        if " " in line
    ]
    return [
        (insurance if i % 2 == 0 else trec)[(i // 2) % min(len(insurance), len(trec))]
        for i in range(n)
    ]


def worker(n_questions: int) -> None:
    """Read one command per line on stdin ("round <k>"), answer with a JSON line per round.

    Round k parses its own slice of the questions (both trees the same slice), so that
    results remembered from an earlier round (a repeated question costs next to nothing)
    do not flatter the figures: every round is as cold as the first batch of a process,
    but for its rules' regexes, all compiled before the first round (`compile_every_rule`)."""
    from quaestio import DEFAULT_STEPS, parse_questions, prepare
    from quaestio.analysis import pipeline
    from quaestio.analysis.pipeline import finish_record, run_steps

    together = getattr(pipeline, "run_steps_together", None)
    new_draft = getattr(pipeline, "new_draft", None)
    from quaestio.satellites import bundled_satellites

    pool = load_questions(10_904)
    sats = prepare(bundled_satellites())
    # As parse_questions does: with a round's drafts alive together, a full collection
    # (~100 ms over this heap) would land in whichever step triggered it.
    gc.disable()
    names = [getattr(s, "__name__", str(s)) for s in DEFAULT_STEPS]
    spent = dict.fromkeys(names + ["record"], 0)

    def timed(step, name):
        @functools.wraps(step)  # still a built-in step to the pipeline (`__wrapped__`)
        def run(draft):
            t = time.thread_time_ns()
            step(draft)
            spent[name] += time.thread_time_ns() - t

        return run

    steps = tuple(timed(s, n) for s, n in zip(DEFAULT_STEPS, names))

    def piece(k: int) -> list[str]:
        start = (k * n_questions) % len(pool)
        return (pool + pool)[start : start + n_questions]

    def one_round(k: int) -> dict[str, float]:
        questions, batch = piece(2 * k), piece(2 * k + 1)
        for name in spent:
            spent[name] = 0
        if together is None:  # a tree from before the batch path ran its steps together
            for question in questions:
                draft, started = run_steps(question, sats, steps=steps)
                t = time.thread_time_ns()
                finish_record(draft, started)
                spent["record"] += time.thread_time_ns() - t
        else:  # as the batch path runs them: each step over the slice, then the next
            drafts = [new_draft(question, sats) for question in questions]
            together(drafts, steps)
            t = time.thread_time_ns()
            for draft in drafts:
                finish_record(draft, 0.0)
            spent["record"] += time.thread_time_ns() - t
        out = {name: ns / 1000 / len(questions) for name, ns in spent.items()}
        t = time.thread_time_ns()
        parse_questions(batch, sats, as_="arrow", progress=False)
        out["parse_questions"] = (time.thread_time_ns() - t) / 1000 / len(batch)
        return out

    one_round(0)  # warm every cache outside the figures
    compile_every_rule()
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.split()
        if command[:1] != ["round"]:
            break
        print(json.dumps(one_round(int(command[1]))), flush=True)


def compile_every_rule() -> None:
    """Compile every rule row's regex now. Rows compile on their first use (~1.8 ms each,
    631 in the bundled tables): a long batch pays that once per process, but a round of a
    few hundred questions still meets rows the warm-up did not, and their compiling would
    land in the step figures (20 to 60 us a question, changing from round to round). Found
    by type, so that it works on any tree."""
    from quaestio.satellites.facts import LazyPattern

    for thing in gc.get_objects():
        if isinstance(thing, LazyPattern):
            thing.compiled  # noqa: B018 - compiles and keeps it


@contextmanager
def baseline_tree(commit: str):
    with tempfile.TemporaryDirectory(prefix="quaestio-base-") as tmp:
        path = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit],
            check=True,
            capture_output=True,
        )
        try:
            yield path
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                capture_output=True,
            )


def start(tree: Path, n: int) -> subprocess.Popen:
    # One hash seed for both workers: the dictionary and spelling steps are set and dict
    # lookups, whose cost moves by 10-20% with the seed's layout of their tables; with a
    # seed of its own, each worker would be one draw of that, not the tree's cost.
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "--questions", str(n)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(tree),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "ready":
        raise SystemExit(f"worker in {tree} failed to start")
    return proc


def ask(proc: subprocess.Popen, k: int) -> dict[str, float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"round {k}\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def compare(base: Path, n: int, rounds: int, label: str) -> None:
    trees = {"baseline": base, "this tree": ROOT}
    procs = {name: start(tree, n) for name, tree in trees.items()}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for k in range(1, rounds + 1):
        for name, proc in procs.items():
            results[name].append(ask(proc, k))
    for proc in procs.values():
        proc.communicate("stop\n")
    medians = {
        name: {step: statistics.median(r[step] for r in runs) for step in runs[0]}
        for name, runs in results.items()
    }
    steps = list(medians["this tree"])
    for step in medians["baseline"]:
        if step not in steps:
            steps.insert(-1, step)
    print(
        f"{n} questions a round (half InsuranceQA, half TREC; a fresh slice each round), "
        f"{rounds} interleaved rounds,\nmedian thread-CPU µs per question; baseline {label}\n"
    )
    print(f"{'step':<22} {'baseline':>9} {'this tree':>10} {'ratio':>6}")
    print("-" * 50)
    for step in steps:
        b = medians["baseline"].get(step, float("nan"))
        t = medians["this tree"].get(step, float("nan"))
        if step == "parse_questions":
            sb = sum(v for k, v in medians["baseline"].items() if k != step)
            st = sum(v for k, v in medians["this tree"].items() if k != step)
            print(f"{'sum of steps+record':<22} {sb:>9.1f} {st:>10.1f} {sb / st:>5.2f}x")
        print(f"{step:<22} {b:>9.1f} {t:>10.1f} {b / t if t else float('nan'):>5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", default="6d096a9", help="baseline commit (a temp worktree)")
    parser.add_argument("--baseline", type=Path, help="an existing baseline checkout instead")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.questions)
        return
    if args.baseline:
        compare(args.baseline.resolve(), args.questions, args.rounds, str(args.baseline))
        return
    with baseline_tree(args.base) as tree:
        compare(tree, args.questions, args.rounds, args.base)


if __name__ == "__main__":
    main()
