"""One verdict per question: found / not_found / no_evidence / skipped, and why.

- found: a value of the answer type shares a zone with a keyword in some passage; the best
  such candidate (confidence, then rank) is reported.
- not_found: keywords matched in at least one passage, and no passage holds any value of the
  type. The more passages talk about the topic without a value, the surer the verdict:
  confidence 1 - 0.5^k for k such passages, capped at 0.95.
- no_evidence: no passage, no keyword in any passage, values only away from the keywords, or
  a pattern that ran out of time (a value may have been missed, so not_found would guess).
- skipped: text answers, and answer types without patterns, are not regex-confirmed.
"""

from __future__ import annotations

from .inputs import Question


class Evidence:
    """What the passages of one question showed, gathered while confirming them."""

    def __init__(self, question: Question, *, confirmable: bool):
        self.question = question
        self.confirmable = confirmable
        self.passages = self.keyword_passages = self.values = 0
        self.candidates = 0
        self.best: dict | None = None
        self.best_key: tuple | None = None
        self.warnings: list[str] = []

    def add_passage(self, has_keyword: bool, n_values: int, warnings: list[str]) -> None:
        self.passages += 1
        self.keyword_passages += has_keyword
        self.values += n_values
        for w in warnings:
            if w not in self.warnings:
                self.warnings.append(w)

    def add_candidate(self, columns: dict, i: int) -> None:
        self.candidates += 1
        if "keyword" not in columns["signals"][i]:
            return
        rank = columns["rank"][i]
        # The best-ranked passage first: its rank weighs the whole question, while a
        # candidate's confidence weighs one keyword's proximity (a table row naming a
        # "premium" must not beat the "annual premium" sentence of the top passage).
        key = (rank if rank is not None else 1 << 30, -columns["confidence"][i])
        if self.best_key is None or key < self.best_key:
            self.best_key = key
            self.best = {
                name: columns[name][i]
                for name in ("confidence", "value", "value_text", "chunk_id", "pattern_id")
            }


def verdict_row(e: Evidence) -> dict:
    q = e.question
    row = {
        "question_id": q.question_id,
        "answer_type": q.answer_type,
        "confidence": None,
        "value": None,
        "value_text": None,
        "chunk_id": None,
        "pattern_id": None,
        "n_passages": e.passages,
        "n_keyword_passages": e.keyword_passages,
        "n_candidates": e.candidates,
        "warnings": e.warnings,
    }
    if not e.confirmable:
        why = (
            "text answers are not confirmed by patterns"
            if q.answer_type == "text"
            else f"no answer_type_patterns rows for {q.answer_type!r}"
        )
        return {**row, "verdict": "skipped", "reason": why}
    if e.best is not None:
        return {
            **row,
            **e.best,
            "verdict": "found",
            "reason": f"{q.answer_type} value next to a keyword in {e.best['chunk_id']!r}",
        }
    if e.passages == 0:
        return {**row, "verdict": "no_evidence", "reason": "no passage retrieved"}
    if e.keyword_passages and not e.values and not e.warnings:
        confidence = round(min(0.95, 1 - 0.5**e.keyword_passages), 4)
        return {
            **row,
            "verdict": "not_found",
            "confidence": confidence,
            "reason": f"keywords in {e.keyword_passages} of {e.passages} passage(s), "
            f"no {q.answer_type} value in any",
        }
    if e.warnings:
        why = "a pattern ran out of time, so a value may have been missed"
    elif not e.keyword_passages:
        why = f"no keyword of the question in the {e.passages} passage(s)"
    else:
        why = f"{e.values} {q.answer_type} value(s), none in the same {q.zone} as a keyword"
    return {**row, "verdict": "no_evidence", "reason": why}
