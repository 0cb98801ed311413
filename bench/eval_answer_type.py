"""Offline answer-type accuracy on TREC, and English/Spanish agreement on XQuAD.

    python bench/eval_answer_type.py [--errors 25] [--show CLASS]

TREC (train_5500.label, Latin-1, `COARSE:fine question`) is mapped to our types as the data
README suggests, with three decisions of our own:

- `organization` has no TREC class (TREC files companies, teams and universities under
  HUM:gr, which maps to `text`), so a predicted `organization` is scored as `text`;
- `address` is a place to TREC (postal addresses are LOC:other), so it is scored as
  `location`;
- LOC:other questions that ask for an e-mail address are gold `email`, those that ask for a
  web site, home page, or a place on the Internet/online are gold `url`; NUM:code questions
  that ask for a phone/telephone number are gold `phone`, other codes `number`. These gold
  rules read the question, so they are listed here, apart from the cue rows under test;
- NUM:count questions that ask "how many <time units>" ("How many years did Sleeping Beauty
  sleep?") are gold `duration`: TREC files the same question as NUM:period when worded "how
  long", and the product answers both with a length of time (the duration parser reads
  "100 years"). The strict TREC mapping (those as `number`) is printed too.

Figures are printed for even rows (the development half), odd rows (never looked at while
writing the cues) and all rows, so over-fitting shows as a gap between the first two.
XQuAD has no type labels: the check is that each English question and its Spanish twin get
the same type (silver agreement), with the most frequent disagreements.
"""

from __future__ import annotations

import argparse
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
TREC = DATA / "trec" / "train_5500.label"
XQUAD = DATA / "multilingual_qa" / "xquad" / "xquad_en_es_questions.jsonl"

_NUMBER_FINE = {"dist", "weight", "speed", "temp", "volsize", "ord", "other"}
_NUM = {
    "money": "amount",
    "date": "date",
    "perc": "percentage",
    "count": "number",
    "period": "duration",
}
_EMAIL = re.compile(r"\be-?mail\b", re.I)
_WEB = re.compile(r"\b(?:web\s*sites?|web\s+address|home\s*page|internet|on-?line|url)\b", re.I)
_PHONE = re.compile(r"\b(?:tele)?phone\b", re.I)
_TIME_UNITS = re.compile(
    r"\bhow\s+many\s+(?:(?:calendar|business|working|full)\s+)?"
    r"(?:seconds|minutes|hours|days|weeks|months|years|decades|centuries)\b(?!\s+old\b)",
    re.I,
)
# What each predicted type counts as against TREC's classes (see the module docstring).
SCORED_AS = {"organization": "text", "address": "location"}


def gold_type(label: str, question: str, strict: bool = False) -> str:
    """Our answer type for one TREC label (README mapping plus the documented decisions);
    `strict` leaves "how many <time units>" counts as `number`, as TREC files them."""
    coarse, fine = label.split(":", 1)
    if coarse == "NUM":
        if fine == "count" and not strict and _TIME_UNITS.search(question):
            return "duration"
        if fine == "code":
            return "phone" if _PHONE.search(question) else "number"
        return _NUM.get(fine, "number" if fine in _NUMBER_FINE else "text")
    if coarse == "HUM":
        return "person" if fine == "ind" else "text"
    if coarse == "LOC":
        if fine == "other" and _EMAIL.search(question):
            return "email"
        if fine == "other" and _WEB.search(question):
            return "url"
        return "location"
    return "text"


def read_trec() -> list[tuple[str, str]]:
    rows = []
    with TREC.open(encoding="latin-1") as fh:
        for line in fh:
            label, _, question = line.rstrip("\n").partition(" ")
            if question:
                rows.append((label, question))
    return rows


def predict(questions: list[str], sats) -> list[str]:
    """The answer type of each question, running the steps up to the answer step only."""
    from quaestio import parse_questions
    from quaestio.analysis.answer import answer_shape_and_type
    from quaestio.analysis.pipeline import DEFAULT_STEPS

    steps = DEFAULT_STEPS[: DEFAULT_STEPS.index(answer_shape_and_type) + 1]
    frame = parse_questions(questions, sats, steps=steps, as_="polars")
    return frame["answer_type"].to_list()


def report_trec(rows, predicted, errors: int, show: str | None) -> None:
    gold = [gold_type(label, q) for label, q in rows]
    scored = [SCORED_AS.get(p, p) for p in predicted]
    halves = {
        "even": range(0, len(rows), 2),
        "odd": range(1, len(rows), 2),
        "all": range(len(rows)),
    }
    classes = sorted(set(gold), key=lambda c: -gold.count(c))
    print(
        f"TREC train_5500: {len(rows):,} questions; answer_type accuracy "
        "(organization scored as text, address as location)\n"
    )
    print(f"{'class':<12} " + " ".join(f"{h + ' n':>8} {h + ' acc':>9}" for h in halves))
    print("-" * (13 + 19 * len(halves)))
    for cls in ["ALL", *classes]:
        cells = []
        for idx in halves.values():
            keep = [i for i in idx if cls == "ALL" or gold[i] == cls]
            right = sum(scored[i] == gold[i] for i in keep)
            cells.append(f"{len(keep):>8,} {right / len(keep) if keep else 0:>9.1%}")
        print(f"{cls:<12} " + " ".join(cells))
    strict = [gold_type(label, q, strict=True) for label, q in rows]
    print(
        'strict TREC mapping ("how many <time units>" counts as number): '
        + "  ".join(
            f"{h} {sum(scored[i] == strict[i] for i in idx) / len(idx):.1%}"
            for h, idx in halves.items()
        )
    )
    non_text = [i for i in range(len(rows)) if gold[i] != "text"]
    print(
        f"\nnon-text classes only (all rows): "
        f"{sum(scored[i] == gold[i] for i in non_text) / len(non_text):.1%} of {len(non_text):,}"
    )
    # Errors are listed for the tune half only: the held-out half is scored, never read.
    confusion = Counter(
        (gold[i], scored[i]) for i in range(0, len(rows), 2) if gold[i] != scored[i]
    )
    print(f"\nlargest errors, even rows (gold -> predicted): {sum(confusion.values()):,} in all")
    for (g, p), n in confusion.most_common(errors):
        print(f"  {g:>11} -> {p:<12} {n:>5}")
    if show:
        g_want, _, p_want = show.partition("->")
        print(f"\neven-row examples of {show}:")
        for i in range(0, len(rows), 2):
            if gold[i] == g_want and (not p_want or scored[i] == p_want) and scored[i] != gold[i]:
                print(f"  {rows[i][0]:<14} {predicted[i]:<12} {rows[i][1]}")


def report_xquad(sats, errors: int) -> None:
    records = [json.loads(line) for line in XQUAD.open(encoding="utf-8")]
    english = predict([r["question_en"] for r in records], sats)
    spanish = predict([r["question_es"] for r in records], sats)
    print(f"\nXQuAD: {len(records):,} EN/ES question pairs; type agreement (silver)\n")
    print(f"{'half':<6} {'pairs':>6} {'agree':>7}")
    for name, idx in (
        ("even", range(0, len(records), 2)),
        ("odd", range(1, len(records), 2)),
        ("all", range(len(records))),
    ):
        agree = sum(english[i] == spanish[i] for i in idx)
        print(f"{name:<6} {len(idx):>6,} {agree / len(idx):>7.1%}")
    print(f"\nEN type distribution: {dict(Counter(english).most_common())}")
    confusion = Counter(
        (english[i], spanish[i]) for i in range(0, len(records), 2) if english[i] != spanish[i]
    )
    print("most frequent disagreements, even pairs (EN -> ES):")
    for (en, es), n in confusion.most_common(errors):
        print(f"  {en:>11} -> {es:<12} {n:>5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", type=int, default=12, help="confusion rows to print")
    parser.add_argument(
        "--show",
        help="print even-row errors of one gold class, e.g. 'location' or 'location->text'",
    )
    args = parser.parse_args()
    if not TREC.exists() or not XQUAD.exists():
        sys.exit(
            f"needs the public data in {DATA} (trec/train_5500.label and "
            "multilingual_qa/xquad/xquad_en_es_questions.jsonl); not found"
        )
    from quaestio import prepare

    sats = prepare()
    rows = read_trec()
    report_trec(rows, predict([q for _, q in rows], sats), args.errors, args.show)
    report_xquad(sats, args.errors)


if __name__ == "__main__":
    main()
