"""µs per question for each parse step, the record and the Arrow table, at several dictionary
sizes, for a reference commit and this tree side by side in the same run.

    python bench/keyword_steps.py                              # ref HEAD~1, 1k/100k/1M
    python bench/keyword_steps.py --ref 6d096a9 --sizes 1000,1000000 --questions 1000

Thread CPU time (so the figures hold on a loaded machine), median over `--rounds` rounds of
the same InsuranceQA questions, the rounds of every side and size taken in turn (so the
ratio between sizes is measured under the same load as the one between sides); dictionaries
are those of bench/keywords_throughput.py (ten keywords per concept, 1-3 real English words
each), generated once per size and read by both sides. Steps run as the batch path runs them
(`pipeline.run_steps_together`: each step over the questions, then the next), or question by
question in a tree without it. `setup` is run_steps' own work
before the steps (checks, tokenize); `record` is the record the batch path builds
(`finish_pieces`, which keeps shared variant blocks whole, or `finish_record` in a tree
without it: deduplication, the flat record); `arrow` is the batch's table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _throughput_module():
    spec = importlib.util.spec_from_file_location("kt", ROOT / "bench" / "keywords_throughput.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.insert(0, str(ROOT / "bench"))
    from parse_identity_batch import DATA

    module.INSURANCEQA = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
    return module


def worker(folder: str, n_questions: int) -> None:
    """Prepare the satellites, then time one round per line read on stdin, one JSON line
    out per round, so the parent can interleave the rounds of both sides."""
    import functools
    import gc

    from quaestio import DEFAULT_STEPS, load_satellites, prepare
    from quaestio.analysis import batch, dictionary, pipeline
    from quaestio.analysis.pipeline import run_steps

    finish_record = getattr(pipeline, "finish_pieces", pipeline.finish_record)
    together = getattr(pipeline, "run_steps_together", None)
    new_draft = getattr(pipeline, "new_draft", None)
    plain = getattr(dictionary, "expand_pieces", list)

    questions = _throughput_module().load_questions(n_questions)
    sats = prepare(load_satellites(None if folder == "bundled" else folder))
    clock = time.thread_time
    spent: dict[str, float] = {}

    def timed(step):
        name = step.__name__

        @functools.wraps(step)  # still a built-in step to the pipeline (`__wrapped__`)
        def run(draft):
            t = clock()
            step(draft)
            spent[name] = spent.get(name, 0.0) + clock() - t

        return run

    steps = [timed(s) for s in DEFAULT_STEPS]
    names = [s.__name__ for s in DEFAULT_STEPS]
    gc.disable()  # as parse_questions does
    print("ready", flush=True)
    for _ in sys.stdin:
        spent.clear()
        records, t_steps, t_record = [], 0.0, 0.0
        if together is None:  # a tree from before the batch path ran its steps together
            for n, q in enumerate(questions):
                t0 = clock()
                draft, started = run_steps(q, sats, question_id=f"q{n}", steps=steps)
                t1 = clock()
                records.append(finish_record(draft, started))
                t_record += clock() - t1
                t_steps += t1 - t0
        else:  # as the batch path runs them: each step over the questions, then the next
            t0 = clock()
            drafts = [new_draft(q, sats, question_id=f"q{n}") for n, q in enumerate(questions)]
            together(drafts, steps)
            t1 = clock()
            records = [finish_record(draft, 0.0) for draft in drafts]
            t_record = clock() - t1
            t_steps = t1 - t0
        t2 = clock()
        for start in range(0, len(records), 2048):
            batch._to_table(records[start : start + 2048], sats)
        t_arrow = clock() - t2
        figures = {name: spent.get(name, 0.0) for name in names}
        figures["setup"] = t_steps - sum(figures.values())
        figures["record"] = t_record
        figures["arrow"] = t_arrow
        out = {name: seconds / len(questions) * 1e6 for name, seconds in figures.items()}
        rows = [plain(r["keywords"]) for r in records]
        out["keywords_per_row"] = sum(len(k) for k in rows) / len(records)
        print(json.dumps(out), flush=True)


def interleaved(workers: dict[tuple[str, str], tuple[Path, str]], args) -> dict:
    """Every (size, side) worker prepared side by side, then round for round in turn (one
    warm-up round), so that a change of load on the machine weighs on every column alike
    and the ratio between sizes holds as well as the one between sides."""
    procs = {
        key: subprocess.Popen(
            [sys.executable, __file__, "--worker", folder, "--questions", str(args.questions)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(src)},
        )
        for key, (src, folder) in workers.items()
    }
    rounds: dict[tuple[str, str], list[dict]] = {key: [] for key in workers}
    for proc in procs.values():
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    print("  all sides ready", file=sys.stderr)
    for r in range(args.rounds + 1):
        for key, proc in procs.items():
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
            figures = json.loads(proc.stdout.readline())
            if r:
                rounds[key].append(figures)
        print(f"  round {r} done", file=sys.stderr)
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    return {
        key: {k: statistics.median(f[k] for f in got) for k in got[0]}
        for key, got in rounds.items()
    }


ORDER = ["setup", "detect_language", "explicit_keywords", "anchor_keywords", "correct_spelling"]
ORDER += ["dictionary_keywords", "direct_keywords", "negative_hints", "answer_shape_and_type"]
ORDER += ["structural_hints", "scope_filters", "decompose", "clarify", "dispatch_plan"]
ORDER += ["record", "arrow"]
KEYWORD_PATH = ("dictionary_keywords", "record", "arrow")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD~1")
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.questions)
        return
    kt = _throughput_module()  # (puts bench/ on sys.path first)
    from parse_identity_batch import export

    with tempfile.TemporaryDirectory() as tmp:
        ref_src = export(args.ref, Path(tmp) / "tree")
        sizes = [s for s in args.sizes.split(",") if s]
        workers: dict[tuple[str, str], tuple[Path, str]] = {}
        for size in sizes:
            folder = Path(tmp) / f"d{size}"
            if size != "bundled":
                folder.mkdir()
                kt.synthetic_folder(int(size), folder)
            for side, src in (("ref", ref_src), ("new", ROOT / "src")):
                workers[(size, side)] = (src, str(folder) if size != "bundled" else "bundled")
        results = interleaved(workers, args)
    cols = [(s, side) for s in sizes for side in ("ref", "new")]
    print(
        f"µs per question (thread CPU, median of {args.rounds} rounds of {args.questions} "
        f"InsuranceQA questions); ref = {args.ref}, new = this tree\n"
    )
    head = f"{'step':<22}" + "".join(f"{f'{s} {side}':>13}" for s, side in cols)
    print(head)
    print("-" * len(head))

    def line(label: str, value) -> None:
        cells = []
        for c in cols:
            r = results.get(c)
            cells.append(f"{value(r):>13.1f}" if r else f"{'-':>13}")
        print(f"{label:<22}" + "".join(cells))

    for name in ORDER:
        line(name, lambda r, name=name: r.get(name, 0.0))
    print("-" * len(head))
    line("keyword path (d+r+a)", lambda r: sum(r[n] for n in KEYWORD_PATH))
    line("total", lambda r: sum(r.get(n, 0.0) for n in ORDER))
    line("keywords per row", lambda r: r["keywords_per_row"])
    for side in ("ref", "new"):
        first, last = results.get((sizes[0], side)), results.get((sizes[-1], side))
        if first and last and len(sizes) > 1:
            kp = sum(last[n] for n in KEYWORD_PATH) / sum(first[n] for n in KEYWORD_PATH)
            tot = sum(last.get(n, 0) for n in ORDER) / sum(first.get(n, 0) for n in ORDER)
            print(
                f"{side}: {sizes[-1]} / {sizes[0]} keywords: keyword path x{kp:.2f}, "
                f"total x{tot:.2f}"
            )


if __name__ == "__main__":
    main()
