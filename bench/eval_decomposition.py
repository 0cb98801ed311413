"""Decomposition on public data: how often compound questions are recognized, and as what.

    python bench/eval_decomposition.py [--show N]

Every figure is given on the even-indexed rows (those the rules were developed on), the
odd-indexed rows (never looked at) and all rows, so over-fitting shows as a gap.

- HotpotQA dev: comparison questions should be `independent`, bridge questions
  `sequential`. "compound" = any pattern other than single; "prefilter" = the share that
  passes `has_compound_indicators`.
- Break QDMR high-level dev: compound vs single, read two ways: "multi-step" (the
  decomposition has more than one step and some step refers to an earlier one, `#k`) and
  "strict" (more than one step refers to `#k`; a two-fact comparison, whose only referring
  step is the final one, then counts as single). Patterns, from the operators:
  independent = two or more steps that refer to no earlier step, combined by comparison,
  union, intersection, arithmetic or boolean; sequential = exactly one such root step and a
  `project` step (a later step looks something up about an earlier answer); anything else
  (select + filter, aggregate, superlative...) is not mapped to a pattern.
- InsuranceQA V2: real single questions; the false-positive rate is the share not single.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

# QUAESTIO_DATA points elsewhere (a git worktree is not beside ../shared).
DATA = Path(
    os.environ.get("QUAESTIO_DATA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)
HOTPOT = DATA / "hotpotqa" / "hotpot_dev_questions.jsonl"
BREAK = DATA / "break" / "QDMR-high-level" / "dev.csv"
INSURANCE = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
HALVES = ("even", "odd", "all")
_COMBINE = {"comparison", "union", "intersection", "arithmetic", "boolean"}


def _halves(n: int) -> dict[str, list[int]]:
    return {"even": list(range(0, n, 2)), "odd": list(range(1, n, 2)), "all": list(range(n))}


def _rate(hits: list[bool], idx: list[int]) -> str:
    if not idx:
        return "-"
    return f"{sum(hits[i] for i in idx) / len(idx):.1%} ({len(idx)})"


def _line(label: str, hits: list[bool], groups: dict[str, list[int]]) -> None:
    print(f"  {label:<44}" + "".join(f"{_rate(hits, groups[h]):>18}" for h in HALVES))


def _parse(questions: list[str]):
    from quaestio import parse_questions, prepare
    from quaestio.analysis.decompose import has_compound_indicators

    sats = prepare()
    frame = parse_questions(questions, sats, as_="polars")
    prefilter = [has_compound_indicators(q, sats) for q in questions]
    return frame["decomposition_pattern"].to_list(), prefilter, frame


def hotpot(show: int) -> None:
    rows = [json.loads(line) for line in HOTPOT.open()]
    patterns, prefilter, _ = _parse([r["question"] for r in rows])
    print(f"\nHotpotQA dev ({len(rows):,} questions)" + "".join(f"{h:>18}" for h in HALVES))
    for kind, gold in (("comparison", "independent"), ("bridge", "sequential")):
        groups = {
            h: [i for i in idx if rows[i]["type"] == kind] for h, idx in _halves(len(rows)).items()
        }
        _line(f"{kind}: passes the prefilter", prefilter, groups)
        _line(f"{kind}: recognized as compound", [p != "single" for p in patterns], groups)
        _line(f"{kind}: pattern = {gold}", [p == gold for p in patterns], groups)
        spread = Counter(patterns[i] for i in groups["all"])
        print(f"  {kind}: patterns (all rows) {dict(spread.most_common())}")
        for i in [i for i in groups["even"] if patterns[i] != gold][:show]:
            print(f"      miss [{patterns[i]}] {rows[i]['question']}")


def _break_gold(decomposition: str, operators: list[str]) -> tuple[bool, bool, str | None]:
    """(multi-step, strict, pattern) of one QDMR decomposition."""
    steps = [s.strip() for s in decomposition.split(";")]
    referring = [bool(re.search(r"#\d", s)) for s in steps]
    multi, strict = len(steps) > 1 and any(referring), sum(referring) > 1
    roots = referring.count(False)
    if roots >= 2 and _COMBINE & set(operators):
        return multi, strict, "independent"
    if roots == 1 and "project" in operators:
        return multi, strict, "sequential"
    return multi, strict, None


def breakqa(show: int) -> None:
    rows = list(csv.DictReader(BREAK.open()))
    gold = [_break_gold(r["decomposition"], ast.literal_eval(r["operators"])) for r in rows]
    patterns, _, _ = _parse([r["question_text"] for r in rows])
    said = [p != "single" for p in patterns]
    halves = _halves(len(rows))
    print(
        f"\nBreak QDMR high-level dev ({len(rows):,} questions)"
        + "".join(f"{h:>18}" for h in HALVES)
    )
    for name, column in (
        ("multi-step (>1 step, refers to #k)", 0),
        ("strict (>1 step refers to #k)", 1),
    ):
        compound = [g[column] for g in gold]
        share = {h: sum(compound[i] for i in idx) / len(idx) for h, idx in halves.items()}
        print(f"  {name}")
        print(
            f"  {'  share of compound questions':<44}"
            + "".join(f"{share[h]:>18.1%}" for h in HALVES)
        )
        _line(
            "  recall (compound recognized)",
            said,
            {h: [i for i in idx if compound[i]] for h, idx in halves.items()},
        )
        _line(
            "  precision (recognized is compound)",
            compound,
            {h: [i for i in idx if said[i]] for h, idx in halves.items()},
        )
        _line(
            "  single recognized as single",
            [not s for s in said],
            {h: [i for i in idx if not compound[i]] for h, idx in halves.items()},
        )
        _line("  accuracy", [s == c for s, c in zip(said, compound)], halves)
    for target in ("independent", "sequential"):
        groups = {h: [i for i in idx if gold[i][2] == target] for h, idx in halves.items()}
        _line(f"mapped {target}: recognized as compound", said, groups)
        _line(f"mapped {target}: pattern = {target}", [p == target for p in patterns], groups)
    for i in [i for i in halves["even"] if gold[i][2] and patterns[i] != gold[i][2]][:show]:
        print(f"      miss [{patterns[i]} vs {gold[i][2]}] {rows[i]['question_text']}")


def insurance(show: int) -> None:
    questions = [json.loads(line)["question"] for line in INSURANCE.open()]
    patterns, prefilter, _ = _parse(questions)
    halves = _halves(len(questions))
    print(
        f"\nInsuranceQA V2 ({len(questions):,} real single questions)"
        + "".join(f"{h:>18}" for h in HALVES)
    )
    _line("passes the prefilter", prefilter, halves)
    _line("false positive: not single", [p != "single" for p in patterns], halves)
    for pattern in ("independent", "sequential", "unified", "conditional"):
        _line(f"  of which {pattern}", [p == pattern for p in patterns], halves)
    for i in [i for i in halves["even"] if patterns[i] != "single"][:show]:
        print(f"      [{patterns[i]}] {questions[i]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print N misses per set (even rows)")
    args = parser.parse_args()
    missing = [p for p in (HOTPOT, BREAK, INSURANCE) if not p.exists()]
    if missing:
        sys.exit(f"needs the public data in {DATA}; missing: {', '.join(map(str, missing))}")
    hotpot(args.show)
    breakqa(args.show)
    insurance(args.show)


if __name__ == "__main__":
    main()
