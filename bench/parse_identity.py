"""Proof that a speed change changes no output: question_df before and after, value by value.

Parses the public question sets of ../shared/data (InsuranceQA, TREC, HotpotQA, Break,
XQuAD EN+ES, ClariQ, AmbigQA, FinanceBench: every question of each, or the first
`--per-set`) with a baseline checkout and with this tree, each in its own process, and
compares every column of every row except `latency_ms` (a time) and `quaestio_version`.
Each set is parsed twice in a row by both trees, so results remembered from the first pass
must give the same rows as the cold pass. Prints the rows and cells compared and every
difference found (the first 20); exits 1 when there is one.

    python bench/parse_identity.py                     # baseline: a temp worktree of --base
    python bench/parse_identity.py --baseline /path/to/checkout --per-set 2000
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
if not DATA.exists():
    DATA = Path("/work/shared/data")
SKIP = {"latency_ms", "quaestio_version"}


def question_sets(per_set: int) -> dict[str, list[str]]:
    def jsonl(path: str, key: str) -> list[str]:
        with (DATA / path).open(encoding="utf-8") as fh:
            return [json.loads(line)[key] for line in fh if line.strip()]

    sets: dict[str, list[str]] = {
        "insuranceqa": jsonl("insuranceqa/insuranceqa_v2_questions.jsonl", "question"),
        "trec": [
            line.split(" ", 1)[1].strip()
            for line in (DATA / "trec/train_5500.label").read_text("latin-1").splitlines()
            if " " in line
        ],
        "hotpotqa": jsonl("hotpotqa/hotpot_dev_questions.jsonl", "question"),
    }
    with (DATA / "break/QDMR-high-level/dev.csv").open(encoding="utf-8") as fh:
        sets["break"] = [row["question_text"] for row in csv.DictReader(fh)]
    for name, path in (("xquad", "multilingual_qa/xquad"), ("financebench", "financebench")):
        found: list[str] = []
        for file in sorted((DATA / path).glob("*.json*")):
            found += _questions_in(file)
        if found:
            sets[name] = found
    clariq = DATA / "clariq/clariq_requests.jsonl"
    if clariq.exists():
        sets["clariq"] = [
            r.get("initial_request") or r.get("request") or ""
            for r in map(json.loads, clariq.read_text().splitlines())
        ]
    ambig = DATA / "ambigqa/dev_light.json"
    if ambig.exists():
        sets["ambigqa"] = [r["question"] for r in json.loads(ambig.read_text())]
    return {
        k: [q for q in v if isinstance(q, str) and q.strip()][:per_set] for k, v in sets.items()
    }


def _questions_in(file: Path) -> list[str]:
    """Strings under a "question" key anywhere in a JSON or JSON-lines file."""
    text = file.read_text(encoding="utf-8")
    try:
        docs = [json.loads(text)]
    except ValueError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "question" and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for doc in docs:
        walk(doc)
    return out


def worker(per_set: int, out: Path) -> None:
    from quaestio import parse_questions, prepare
    from quaestio.satellites import bundled_satellites

    sats = prepare(bundled_satellites())
    rows: dict[str, list[list[dict]]] = {}
    for name, questions in question_sets(per_set).items():
        rows[name] = [
            parse_questions(questions, sats, as_="arrow", progress=False).to_pylist()
            for _ in range(2)
        ]
    out.write_bytes(pickle.dumps(rows))


def run(tree: Path, per_set: int, out: Path) -> dict[str, list[list[dict]]]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            str(out),
            "--per-set",
            str(per_set),
        ],
        check=True,
        env=env,
        cwd=str(tree),
    )
    return pickle.loads(out.read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-set", type=int, default=100_000)
    parser.add_argument("--base", default="6d096a9", help="baseline commit (a temp worktree)")
    parser.add_argument("--baseline", type=Path, help="an existing baseline checkout instead")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.per_set, args.worker)
        return
    with tempfile.TemporaryDirectory(prefix="quaestio-identity-") as tmp:
        base = args.baseline.resolve() if args.baseline else Path(tmp) / "base"
        if not args.baseline:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                check=True,
                capture_output=True,
            )
        try:
            before = run(base, args.per_set, Path(tmp) / "before.pickle")
            after = run(ROOT, args.per_set, Path(tmp) / "after.pickle")
        finally:
            if not args.baseline:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                    capture_output=True,
                )
    differences, rows, cells = [], 0, 0
    for name, passes in before.items():
        for attempt, (old_rows, new_rows) in enumerate(zip(passes, after[name])):
            if len(old_rows) != len(new_rows):
                differences.append(f"{name}: {len(old_rows)} rows before, {len(new_rows)} after")
                continue
            for i, (old, new) in enumerate(zip(old_rows, new_rows)):
                rows += 1
                for column in sorted((set(old) | set(new)) - SKIP):
                    cells += 1
                    if old.get(column) != new.get(column):
                        differences.append(
                            f"{name}[{i}] pass {attempt + 1} {column}: "
                            f"{old.get(column)!r} -> {new.get(column)!r}"
                        )
    sizes = ", ".join(f"{name} {len(passes[0]):,}" for name, passes in before.items())
    print(f"question sets: {sizes} (each parsed twice)")
    print(f"{rows:,} rows, {cells:,} cells compared (all columns but {', '.join(sorted(SKIP))})")
    print(f"differences: {len(differences)}")
    for line in differences[:20]:
        print("  " + line)
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
