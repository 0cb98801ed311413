"""Clarification on public data: precision and recall of "needs a follow-up", and the
false-positive rate on real, clear questions.

    python bench/eval_clarification.py [--show N]

Every figure is given on the even-indexed rows (those the rules were developed on), the
odd-indexed rows (never looked at) and all rows, so over-fitting shows as a gap.

- ClariQ requests: "needs clarification" = clarification_need >= 3, and >= 2 (both shown).
- AmbigNQ dev (light): ambiguous = at least one annotation of type multipleQAs.
- InsuranceQA V2: real questions that can be acted on; the rate with a suggestion is the
  false-positive rate (target: at most 5%).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

# QUAESTIO_DATA points elsewhere (a git worktree is not beside ../shared).
DATA = Path(
    os.environ.get("QUAESTIO_DATA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)
CLARIQ = DATA / "clariq" / "clariq_requests.jsonl"
AMBIGNQ = DATA / "ambigqa" / "dev_light.json"
INSURANCE = DATA / "insuranceqa" / "insuranceqa_v2_questions.jsonl"
HALVES = ("even", "odd", "all")


def _suggest(questions: list[str]) -> list[str | None]:
    from quaestio import parse_questions, prepare

    frame = parse_questions(questions, prepare(), as_="polars")
    return frame["ambiguity_reason"].to_list()


def _halves(n: int) -> dict[str, list[int]]:
    return {"even": list(range(0, n, 2)), "odd": list(range(1, n, 2)), "all": list(range(n))}


def _scores(said: list[bool], gold: list[bool], idx: list[int]) -> str:
    tp = sum(said[i] and gold[i] for i in idx)
    predicted = sum(said[i] for i in idx)
    positives = sum(gold[i] for i in idx)
    precision = f"{tp / predicted:.0%}" if predicted else "-"
    recall = f"{tp / positives:.0%}" if positives else "-"
    negatives = len(idx) - positives
    balanced = ""
    if positives and negatives:  # balanced accuracy: mean of the recall of each class
        specificity = sum(not said[i] and not gold[i] for i in idx) / negatives
        balanced = f" BA {(tp / positives + specificity) / 2:.3f}"
    return f"P {precision:>4} R {recall:>4}{balanced} ({predicted}/{len(idx)})"


def _table(title: str, rows: list[tuple[str, list[bool], list[bool]]]) -> None:
    n = len(rows[0][1])
    halves = _halves(n)
    print(f"\n{title}" + "".join(f"{h:>36}" for h in HALVES))
    for label, said, gold in rows:
        print(f"  {label:<30}" + "".join(f"{_scores(said, gold, halves[h]):>36}" for h in HALVES))


def _examples(questions: list[str], reasons: list, gold: list[bool], show: int) -> None:
    if not show:
        return
    even = range(0, len(questions), 2)
    for label, keep in (
        ("false positive", lambda i: reasons[i] and not gold[i]),
        ("missed", lambda i: not reasons[i] and gold[i]),
    ):
        for i in [i for i in even if keep(i)][:show]:
            print(f"      {label} [{reasons[i]}] {questions[i]}")


def clariq(show: int) -> None:
    rows = [json.loads(line) for line in CLARIQ.open()]
    questions = [r["initial_request"] for r in rows]
    reasons = _suggest(questions)
    said = [bool(r) for r in reasons]
    need = [r["clarification_need"] for r in rows]
    _table(
        f"ClariQ requests ({len(rows)}; P / R (suggested/rows))",
        [("need >= 3", said, [n >= 3 for n in need]), ("need >= 2", said, [n >= 2 for n in need])],
    )
    print(f"  reasons (all rows): {dict(Counter(r for r in reasons if r).most_common())}")
    _examples(questions, reasons, [n >= 2 for n in need], show)


def ambignq(show: int) -> None:
    rows = json.loads(AMBIGNQ.read_text())
    questions = [r["question"] for r in rows]
    gold = [any(a["type"] == "multipleQAs" for a in r["annotations"]) for r in rows]
    reasons = _suggest(questions)
    _table(
        f"AmbigNQ dev light ({len(rows)}; {sum(gold)} ambiguous)",
        [("multipleQAs = ambiguous", [bool(r) for r in reasons], gold)],
    )
    print(f"  reasons (all rows): {dict(Counter(r for r in reasons if r).most_common())}")
    _examples(questions, reasons, gold, show)


def insurance(show: int) -> None:
    questions = [json.loads(line)["question"] for line in INSURANCE.open()]
    reasons = _suggest(questions)
    halves = _halves(len(questions))
    print(
        f"\nInsuranceQA V2 ({len(questions):,} clear questions)"
        + "".join(f"{h:>26}" for h in HALVES)
    )
    rate = {h: sum(bool(reasons[i]) for i in idx) / len(idx) for h, idx in halves.items()}
    print(f"  {'false positive: suggested':<30}" + "".join(f"{rate[h]:>26.2%}" for h in HALVES))
    for reason, _count in Counter(r for r in reasons if r).most_common():
        share = {h: sum(reasons[i] == reason for i in idx) / len(idx) for h, idx in halves.items()}
        print(f"    {reason:<28}" + "".join(f"{share[h]:>26.2%}" for h in HALVES))
    _examples(questions, reasons, [False] * len(questions), show)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print N errors per set (even rows)")
    args = parser.parse_args()
    missing = [p for p in (CLARIQ, AMBIGNQ, INSURANCE) if not p.exists()]
    if missing:
        sys.exit(f"needs the public data in {DATA}; missing: {', '.join(map(str, missing))}")
    clariq(args.show)
    ambignq(args.show)
    insurance(args.show)


if __name__ == "__main__":
    main()
