"""The public sets of ../shared/data as gold frames in quaestio's gold format.

Each builder returns a polars DataFrame with `question_id`, `question` and the gold fields
its set can speak for, following the mappings of the data README (and the decisions
documented in eval_answer_type.py and eval_decomposition.py, whose functions are reused).
`python bench/gold_sets.py OUT_DIR` writes them as CSV, so that `quaestio eval
OUT_DIR/trec.csv` works on any of them.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).parent))
from eval_answer_type import TREC, XQUAD, gold_type, read_trec  # noqa: E402
from eval_decomposition import BREAK, DATA, HOTPOT, INSURANCE, _break_gold  # noqa: E402

CLARIQ = DATA / "clariq" / "clariq_requests.jsonl"
AMBIGNQ = DATA / "ambigqa" / "dev_light.json"
FINANCEBENCH = DATA / "financebench" / "financebench_open_source.jsonl"
_MONEY = re.compile(r"^\s*(?:-?\$|USD)|\b(?:million|billion)\b", re.I)
_PERCENT = re.compile(r"^\s*-?\d[\d.,]*\s*%\s*$")


def _frame(prefix: str, questions: list[str], **fields) -> pl.DataFrame:
    ids = [f"{prefix}{i}" for i in range(len(questions))]
    return pl.DataFrame({"question_id": ids, "question": questions, **fields}, strict=False)


def trec() -> pl.DataFrame:
    """TREC train_5500 → answer_type (README mapping; e-mail/url/phone decisions)."""
    rows = read_trec()
    return _frame(
        "trec", [q for _, q in rows], answer_type=[gold_type(label, q) for label, q in rows]
    )


def xquad() -> pl.DataFrame:
    """XQuAD EN and ES twins → language."""
    records = [json.loads(line) for line in XQUAD.open(encoding="utf-8")]
    questions = [r["question_en"] for r in records] + [r["question_es"] for r in records]
    return _frame("xquad", questions, language=["en"] * len(records) + ["es"] * len(records))


def hotpotqa() -> pl.DataFrame:
    """HotpotQA dev → decomposition_pattern: comparison → independent, bridge → sequential."""
    rows = [json.loads(line) for line in HOTPOT.open()]
    pattern = {"comparison": "independent", "bridge": "sequential"}
    return _frame(
        "hotpot",
        [r["question"] for r in rows],
        decomposition_pattern=[pattern.get(r["type"]) for r in rows],
    )


def break_qdmr() -> pl.DataFrame:
    """Break QDMR high-level dev → decomposition_pattern where the operators decide it."""
    rows = list(csv.DictReader(BREAK.open()))
    gold = [_break_gold(r["decomposition"], ast.literal_eval(r["operators"]))[2] for r in rows]
    keep = [i for i, g in enumerate(gold) if g]
    return _frame(
        "break",
        [rows[i]["question_text"] for i in keep],
        decomposition_pattern=[gold[i] for i in keep],
    )


def clariq() -> pl.DataFrame:
    """ClariQ requests → needs_clarification = clarification_need >= 3."""
    rows = [json.loads(line) for line in CLARIQ.open()]
    return _frame(
        "clariq",
        [r["initial_request"] for r in rows],
        needs_clarification=[r["clarification_need"] >= 3 for r in rows],
    )


def ambignq() -> pl.DataFrame:
    """AmbigNQ dev → needs_clarification = some annotation is multipleQAs."""
    rows = json.load(AMBIGNQ.open())
    return _frame(
        "ambignq",
        [r["question"] for r in rows],
        needs_clarification=[
            any(a["type"] == "multipleQAs" for a in r["annotations"]) for r in rows
        ],
    )


def insuranceqa() -> pl.DataFrame:
    """InsuranceQA V2 real questions → single, no clarification (false-positive rates)."""
    questions = [json.loads(line)["question"] for line in INSURANCE.open()]
    n = len(questions)
    return _frame(
        "insqa", questions, decomposition_pattern=["single"] * n, needs_clarification=[False] * n
    )


def financebench() -> pl.DataFrame:
    """FinanceBench → answer_type, silver: a $/USD/million answer is an amount, a bare
    percentage a percentage; other answers (prose, ratios) are left without a gold type."""
    rows = [json.loads(line) for line in FINANCEBENCH.open()]

    def kind(answer: str) -> str | None:
        if _PERCENT.match(answer):
            return "percentage"
        return "amount" if _MONEY.search(answer) and len(answer) < 40 else None

    typed = [(r["question"], kind(r["answer"])) for r in rows]
    typed = [(q, k) for q, k in typed if k]
    return _frame("fb", [q for q, _ in typed], answer_type=[k for _, k in typed])


BUILDERS = {
    "trec": (trec, TREC),
    "xquad": (xquad, XQUAD),
    "hotpotqa": (hotpotqa, HOTPOT),
    "break": (break_qdmr, BREAK),
    "clariq": (clariq, CLARIQ),
    "ambignq": (ambignq, AMBIGNQ),
    "insuranceqa": (insuranceqa, INSURANCE),
    "financebench": (financebench, FINANCEBENCH),
}


def available() -> dict[str, pl.DataFrame]:
    """Every gold frame whose source file is present."""
    return {name: build() for name, (build, path) in BUILDERS.items() if path.exists()}


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "gold")
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in available().items():
        # CSV cannot hold lists; none of these gold frames has one.
        frame.write_csv(out / f"{name}.csv")
        print(
            f"{out / name}.csv: {frame.height:,} questions, fields "
            f"{', '.join(c for c in frame.columns if c not in ('question_id', 'question'))}"
        )
