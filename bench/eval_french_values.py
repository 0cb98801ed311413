"""Recall and precision of the French amount, percentage and date rows, tune and held-out halves.

`bench/data/french_values.csv` holds one example a row: its answer type, half, source, text
and the value texts a reader would mark (`gold`, several joined by " | "; empty when the
text holds none). Sources:

- `recognizers-text:...`: inputs and gold spans of the Microsoft Recognizers-Text French
  specs (github.com/microsoft/Recognizers-Text, MIT licence, (c) Microsoft Corporation),
  some sentences shortened around the value. Two golds upstream are left out: bare currency
  names with no figure ("livre" for a book, "dollar" in "accord de dollar"), which are the
  `currency` type here, not `amount`.
- `written`: Quebec and contract wordings written for this bench from the phenomena of
  issue 14 (scale words before "de $", "$ CA", "cents", hyphenated number words,
  "pour-cent" / "pourcents" / "p. 100", "1er", "le 27", "le lendemain", "deux semaines plus
  tard"), and `none` rows of lookalikes (article numbers, floors, heights, phone numbers).

Rows alternate between the halves within each (type, source) group, so the halves share
templates ("N millions de $" is in both): the held-out figures are optimistic. A third set,
`unseen`, was added after the rules were written and is scored as it comes, never tuned on:
the French DateParser spec (other inputs than the DateExtractor's, each with a reference date
and the resolved date), four rows of the French PercentModelPercentMode spec, and the
sentences of the French DimensionModel spec as `none_amount` rows (measures, not money: any
amount found there counts against amount precision). There is no unseen recall set for
amounts (upstream has one French currency file).

A predicted span is right when it shares a character with a gold span (overlap) or equals it
(exact); precision counts every value found in the rows of the type and in the `none` rows.
Where a row gives a reference date and the date upstream resolves it to (future or past
reading), the value is scored too: `find_values(reference_date=...)` must give that date.

    .venv/bin/python bench/eval_french_values.py [--failures TYPE] [--half tune|heldout]
"""

from __future__ import annotations

import argparse
import csv
import inspect
import sys
from collections import defaultdict
from pathlib import Path

from quaestio.confirm import find_values
from quaestio.satellites import bundled_satellites

DATA = Path(__file__).parent / "data" / "french_values.csv"
TYPES = ("amount", "percentage", "date")
# So that the same bench measures the code before reference dates existed.
RESOLVES = "reference_date" in inspect.signature(find_values).parameters
TARGET_RECALL, TARGET_PRECISION = 0.85, 0.95


def gold_spans(text: str, gold: str) -> list[tuple[int, int]]:
    spans, after = [], 0
    for value in filter(None, gold.split(" | ")):
        start = text.find(value, after)
        spans.append((start, start + len(value)))
        after = start + len(value)
    return spans


def evaluate(rows: list[dict], show: str | None, show_half: str) -> dict:
    sats = bundled_satellites()
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    hit = lambda a, b: a[0] < b[1] and b[0] < a[1]  # noqa: E731
    for row in rows:
        types = {"none": TYPES, "none_amount": ("amount",)}.get(
            row["answer_type"], (row["answer_type"],)
        )
        for answer_type in types:
            text = row["text"]
            extra = {"reference_date": row.get("reference") or None} if RESOLVES else {}
            values = find_values(text, answer_type, language="fr", satellites=sats, **extra)
            pred = [(v.start, v.end) for v in values]
            gold = gold_spans(text, row["gold"]) if row["answer_type"] == answer_type else []
            c = counts[(answer_type, row["half"])]
            c["negatives"] += row["answer_type"].startswith("none")
            c["gold"] += len(gold)
            c["pred"] += len(pred)
            c["r_overlap"] += sum(any(hit(p, g) for p in pred) for g in gold)
            c["r_exact"] += sum(g in pred for g in gold)
            c["p_overlap"] += sum(any(hit(p, g) for g in gold) for p in pred)
            c["p_exact"] += sum(p in gold for p in pred)
            if row.get("value") and row["answer_type"] == answer_type:
                c["valued"] += 1
                c["value_right"] += any(
                    str(v.value) in row["value"].split("|")
                    for v in values
                    if any(hit((v.start, v.end), g) for g in gold)
                )
            if show == answer_type and row["half"] == show_half and sorted(pred) != sorted(gold):
                print(
                    f"  {row['id']} gold={[text[a:b] for a, b in gold]} "
                    f"pred={[text[a:b] for a, b in pred]} | {text[:100]!r}"
                )
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--failures", metavar="TYPE", help="print the misses of one type")
    parser.add_argument(
        "--half",
        default="tune",
        choices=("tune", "heldout", "unseen"),
        help="the half whose misses --failures prints (default: tune)",
    )
    args = parser.parse_args(argv)
    with args.data.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    counts = evaluate(rows, args.failures, args.half)
    pct = lambda n, d: f"{100 * n / d:5.1f}" if d else "    -"  # noqa: E731
    head = [
        "type",
        "half",
        "gold",
        "pred",
        "P overlap",
        "R overlap",
        "P exact",
        "R exact",
        "value",
        "target",
    ]
    print(" | ".join(f"{h:>10}" for h in head))
    notes: list[str] = []
    for answer_type in TYPES:
        for half in ("tune", "heldout", "unseen"):
            c = counts[(answer_type, half)]
            if not c["gold"]:
                if c["negatives"]:
                    notes.append(
                        f"{answer_type} {half}: {c['pred']} value(s) found in "
                        f"{c['negatives']} rows that hold none"
                    )
                continue
            met = (
                c["gold"]
                and c["pred"]
                and c["r_overlap"] / c["gold"] >= TARGET_RECALL
                and c["p_overlap"] / c["pred"] >= TARGET_PRECISION
            )
            cells = [
                answer_type,
                half,
                c["gold"],
                c["pred"],
                pct(c["p_overlap"], c["pred"]),
                pct(c["r_overlap"], c["gold"]),
                pct(c["p_exact"], c["pred"]),
                pct(c["r_exact"], c["gold"]),
                pct(c["value_right"], c["valued"]),
                "met" if met else "missed",
            ]
            print(" | ".join(f"{x:>10}" for x in cells))
    for note in notes:
        print(note)
    print(
        f"\ntarget: overlap recall >= {TARGET_RECALL:.0%} at precision >= "
        f"{TARGET_PRECISION:.0%}; value: the date resolved against the row's reference date "
        f"(unseen dates); {len(rows)} rows from {args.data.name}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
