"""The coverage page's figures: the curation reports, plus the examples behind each number.

Questions go through `curation.coverage_report`; a corpus through `curation.read_corpus` and
`extract_phrases`. What the reports do not keep is added here: which documents each concept
occurs in (one Aho-Corasick pass over folded tokens, the parser's matching rule) and the
sentences that show it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import ahocorasick
import polars as pl
import regex

from ..analysis.text import TOKEN_RE, fold, fold_phrase
from ..satellites import Satellites

_SENTENCE = regex.compile(r"(?<=[.!?;:])\s+|\s*\n\s*")


@dataclass
class Coverage:
    report: Any = None  # curation.CoverageReport, or None
    questions_by_concept: dict[str, list[str]] = field(default_factory=dict)
    docs: pl.DataFrame | None = None  # doc_id, language, text
    concept_docs: dict[str, set[str]] = field(default_factory=dict)
    concept_languages: dict[str, set[str]] = field(default_factory=dict)
    by_concept: list[dict[str, Any]] = field(default_factory=list)
    unseen: list[dict[str, Any]] = field(default_factory=list)
    unexplained: list[dict[str, Any]] = field(default_factory=list)


def _padded(text: str, cased: bool = False) -> str:
    words = (m.group() if cased else fold(m.group()) for m in TOKEN_RE.finditer(text))
    return " " + " ".join(words) + " "


def _automata(sats: Satellites) -> list[tuple[bool, ahocorasick.Automaton]]:
    """Folded matching, and case-sensitive matching for `match=cased` rows (codes such as
    `IS` or `DE`, which folded would match every "is" and Spanish "de")."""
    keys: dict[bool, dict[str, set[str]]] = {False: defaultdict(set), True: defaultdict(set)}
    rows = sats.concept_keywords.filter(status="validated").select("concept", "keyword", "match")
    for concept, kw, match in rows.iter_rows():
        cased = match == "cased"
        key = _padded(kw, cased) if cased else " " + fold_phrase(kw) + " "
        if key.strip():
            keys[cased][key].add(concept)
    out = []
    for cased, table in keys.items():
        if table:
            auto = ahocorasick.Automaton()
            for key, concepts in table.items():
                auto.add_word(key, frozenset(concepts))
            auto.make_automaton()
            out.append((cased, auto))
    return out


def _concepts_in(automata, text: str) -> set[str]:
    found: set[str] = set()
    for cased, auto in automata:
        for _, concepts in auto.iter(_padded(text, cased)):
            found |= concepts
    return found


def compute(sats: Satellites, questions: list[str], docs: pl.DataFrame | None) -> Coverage:
    from ..analysis import parse_questions
    from ..curation import coverage_report, extract_phrases

    cov = Coverage(docs=docs)
    if questions:
        qdf = parse_questions(questions, sats, as_="polars")
        cov.report = coverage_report(qdf, sats)
        for q, concepts in qdf.select("original_question", "concepts").iter_rows():
            for c in concepts or []:
                cov.questions_by_concept.setdefault(c, []).append(q)
    if docs is None:
        return cov
    automata = _automata(sats)
    for doc_id, lang, text in docs.iter_rows():
        for c in _concepts_in(automata, text):
            cov.concept_docs.setdefault(c, set()).add(doc_id)
            cov.concept_languages.setdefault(c, set()).add(lang)
    families = dict(sats.concepts.select("concept", "doc_family").iter_rows())
    langs = sorted(docs["language"].unique().to_list())
    for concept, family in families.items():
        n = len(cov.concept_docs.get(concept, ()))
        row = {
            "concept": concept,
            "doc_family": family or "",
            "docs": n,
            "languages": sorted(cov.concept_languages.get(concept, ())),
        }
        row["missing_languages"] = [x for x in langs if n and x not in row["languages"]]
        (cov.by_concept if n else cov.unseen).append(row)
    cov.by_concept.sort(key=lambda r: (-r["docs"], r["concept"]))
    phrases = extract_phrases(docs, sats, min_count=2, max_phrases=5000)
    for rec in phrases.iter_rows(named=True):
        if not _concepts_in(automata, rec["phrase"]):
            cov.unexplained.append(rec)
        if len(cov.unexplained) >= 40:
            break
    return cov


def concept_examples(
    cov: Coverage, sats: Satellites, concept: str, limit: int = 12
) -> list[dict[str, str]]:
    """Sentences of the corpus where one of the concept's variants occurs."""
    if cov.docs is None:
        return []
    rows = sats.concept_keywords.filter(concept=concept, status="validated")
    keys = [
        (m == "cased", _padded(k, True) if m == "cased" else " " + fold_phrase(k) + " ")
        for k, m in rows.select("keyword", "match").iter_rows()
    ]
    keys = [(cased, k) for cased, k in keys if k.strip()]
    wanted = cov.concept_docs.get(concept, set())
    out = []
    for doc_id, lang, text in cov.docs.iter_rows():
        if doc_id not in wanted:
            continue
        for sentence in _SENTENCE.split(text):
            padded = {False: _padded(sentence), True: _padded(sentence, True)}
            hit = next((k.strip() for cased, k in keys if k in padded[cased]), None)
            if hit:
                out.append(
                    {
                        "doc_id": doc_id,
                        "language": lang,
                        "sentence": sentence.strip(),
                        "variant": hit,
                    }
                )
                break
        if len(out) >= limit:
            break
    return out
