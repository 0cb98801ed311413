"""Dispatch of a decomposed question: what each `decomposition_pattern` does to the search.

- independent: every sub-question is searched on its own and the ranked lists are fused by
  RRF; each hit names the sub-question that ranked it best (`sub_question`);
- sequential: the first sub-question is searched and its hits confirmed (answer-type
  patterns); a confirmed value replaces the reference to it in the next sub-question
  ("their address" -> "Jane Doe's address") before that one is searched. When nothing is
  confirmed the next one runs as written, and its hits say so (`note`);
- conditional: the condition is searched too, and the hits in the documents it finds come
  first (a boost that never removes a hit); `note` says whether it applied;
- unified: one search of the whole question whose own terms all weigh in full.
"""

from __future__ import annotations

from dataclasses import replace

import regex

from .base import Hit
from .hybrid import rrf

# A reference to the previous answer, per language: (pattern, replacement template).
_REFERENCES = {
    "en": [
        (r"\b(?:their|his|her|its)\b", "{value}'s"),
        (
            r"\b(?:that|this|the same)\s+(?:date|day|amount|sum|value|figure|person|party|"
            r"company|entity|one)\b",
            "{value}",
        ),
        (r"\b(?:they|them|he|she|him|it)\b", "{value}"),
    ],
    "fr": [
        (
            r"\b(?:cette|ce|cet|la même|le même)\s+(?:date|jour|montant|somme|valeur|"
            r"personne|partie|société|entité)\b",
            "{value}",
        ),
        (r"\b(?:son|sa|ses|leur|leurs)\s+(\w+)", r"\1 de {value}"),
    ],
    "es": [
        (
            r"\b(?:esa|ese|esta|este|la misma|el mismo)\s+(?:fecha|día|importe|cantidad|"
            r"valor|persona|parte|empresa|entidad)\b",
            "{value}",
        ),
        (r"\b(?:su|sus)\s+(\w+)", r"\1 de {value}"),
    ],
}
_END = regex.compile(r"\s*[?.!]*\s*$")


def substitute_value(question: str, value: str, language: str | None) -> str:
    """`question` with its first reference to the previous answer replaced by `value`;
    without such a reference, the value is added before the final mark."""
    for pattern, template in _REFERENCES.get(language or "en", _REFERENCES["en"]):
        found = regex.search(pattern, question, regex.I)
        if found is not None:
            repl = found.expand(template.replace("{value}", value.replace("\\", "")))
            return question[: found.start()] + repl + question[found.end() :]
    end = _END.search(question)  # always matches (at the end, at worst)
    cut = end.start() if end is not None else len(question)
    return f"{question[:cut]} ({value}){question[cut:]}"


def fuse(lists: list[list[Hit]], labels: list[str], k: int) -> list[Hit]:
    """RRF of per-sub-question lists; each hit keeps the label of its best-ranked list."""
    best: dict[int, tuple[int, str]] = {}
    for hits, label in zip(lists, labels):
        for rank, hit in enumerate(hits, 1):
            if hit.row not in best or rank < best[hit.row][0]:
                best[hit.row] = (rank, label)
    fused = rrf(lists, [1.0] * len(lists))[:k]
    for hit in fused:
        hit.extra["sub_question"] = best[hit.row][1]
    return fused


class Compound:
    """Runs the sub-searches of one question with the dispatcher's backend and funnel."""

    def __init__(self, index, retriever, funnel, satellites, search_one):
        self.index, self.retriever, self.satellites = index, retriever, satellites
        self.funnel = replace(funnel, siblings=False)  # restored once, after fusion
        self.search_one = search_one  # (record, k, funnel) -> list[Hit]

    def parse(self, record: dict, questions: list[str]) -> list[dict]:
        from ..analysis import parse_questions

        parsed = parse_questions(list(questions), self.satellites, as_="arrow").to_pylist()
        for n, sub in enumerate(parsed, 1):
            sub["question_id"] = f"{record['question_id']}/{n}"
        return parsed

    def run(self, record: dict, k: int) -> list[Hit]:
        pattern = record.get("decomposition_pattern") or "single"
        subs = [s for s in record.get("sub_questions") or [] if s]
        if pattern == "independent" and len(subs) > 1:
            return self.independent(record, subs, k)
        if pattern == "sequential" and len(subs) > 1:
            return self.sequential(record, subs, k)
        if pattern == "conditional" and record.get("conditional_filter"):
            return self.conditional(record, subs, k)
        if pattern == "unified":
            return self.search_one(_boosted(record), k, self.funnel)
        return self.search_one(record, k, self.funnel)

    def independent(self, record: dict, subs: list[str], k: int) -> list[Hit]:
        lists = [self.search_one(sub, k, self.funnel) for sub in self.parse(record, subs)]
        return fuse(lists, subs, k)

    def sequential(self, record: dict, subs: list[str], k: int) -> list[Hit]:
        first = self.parse(record, subs)[0]
        lists, labels = [self.search_one(first, k, self.funnel)], [subs[0]]
        value = self.confirmed_value(first, lists[0])
        for question in subs[1:]:
            if value:
                asked = substitute_value(question, value, record.get("language"))
                note = f"sequential: #1 confirmed {value!r}, substituted"
            else:
                asked, note = question, "sequential: nothing confirmed for #1; ran as written"
            (sub,) = self.parse(record, [asked])
            hits = self.search_one(sub, k, self.funnel)
            for hit in hits:
                hit.extra["note"] = note
            lists.append(hits)
            labels.append(asked)
            value = self.confirmed_value(sub, hits) if question != subs[-1] else None
        return fuse(lists[::-1], labels[::-1], k)  # the last step answers the question

    def confirmed_value(self, sub: dict, hits: list[Hit]) -> str | None:
        from ..confirm import confirm
        from .base import materialise

        if not hits:
            return None
        table = materialise(self.index.chunks, [sub], [hits], self.retriever.name)
        verdict = confirm(
            _row(sub), table, satellites=self.satellites, as_="arrow"
        ).verdicts.to_pylist()[0]
        if verdict.get("verdict") != "found":
            return None
        return verdict.get("value_text") or verdict.get("value")  # as written: searchable

    def conditional(self, record: dict, subs: list[str], k: int) -> list[Hit]:
        condition = record["conditional_filter"]
        main = self.parse(record, subs[:1])[0] if subs else record
        hits = self.search_one(main, max(k, self.funnel.first_pass), self.funnel)
        (cond,) = self.parse(record, [condition])
        doc_ids = self.index.chunks.column("doc_id")
        docs = {doc_ids[h.row].as_py() for h in self.search_one(cond, 5, self.funnel)}
        inside = [h for h in hits if doc_ids[h.row].as_py() in docs]
        outside = [h for h in hits if doc_ids[h.row].as_py() not in docs]
        note = (
            f"conditional: boosted the documents matching {condition!r}"
            if inside and outside
            else f"conditional: {condition!r} did not separate the hits"
        )
        for hit in hits:
            hit.extra["note"] = note
        return (inside + outside)[:k]


def _boosted(record: dict) -> dict:
    # Both terms of a unified question are the point of the search: every keyword the
    # question itself contains weighs in full; dictionary variants keep their weight.
    keywords = [
        dict(kw, weight=1.0) if kw.get("span_start") is not None else kw
        for kw in record.get("keywords") or []
    ]
    return dict(record, keywords=keywords)


def _row(record: dict):
    import pyarrow as pa

    from ..schema import QUESTION_SCHEMA

    return pa.Table.from_pylist([record], schema=QUESTION_SCHEMA)
