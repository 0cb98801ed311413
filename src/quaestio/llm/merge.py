"""Merge a checked LLM reply into the offline draft, field by field, and stamp provenance.

Fields the reply did not pass keep their offline values. The steps that read other columns
(hints' contexts follow the answer type and shape; the dispatch plan reads everything) run
again after the merge, so the row stays consistent. Every column the model changed is named
in `rules_fired` as `llm:<column>`.
"""

from __future__ import annotations

from typing import Any

from ..analysis.dictionary import dictionary_index
from ..analysis.dispatch import dispatch_plan
from ..analysis.draft import Draft
from ..analysis.hints import structural_hints
from ..analysis.scope import scope_filters
from ..analysis.text import fold, tokenize
from ..types import KeywordSource, SpellingCorrection
from .client import Completion
from .validate import W_FALLBACK, Checked

_HINTS = ("pages_hint", "toc_section_hint", "layout_hint", "document_version", "need_summary")
_FAMILIES = (
    "decomposition_pattern",
    "sub_questions",
    "conditional_filter",
    "ambiguity_reason",
    "suggested_clarification",
)


def apply(draft: Draft, checked: Checked, weight: float, offline: dict[str, Any]) -> None:
    """Write the accepted values of `checked` into `draft` (see the module docstring);
    `offline` is the record before the merge: a column the model left as it was is not
    credited to the model."""
    cols, values = draft.columns, checked.values
    before = (cols.get("answer_type"), cols.get("answer_shape"))
    for name in ("answer_type", "answer_shape"):
        _set(draft, name, values, offline)
    if (cols.get("answer_type"), cols.get("answer_shape")) != before:
        saved = {n: cols.get(n) for n in _HINTS}
        structural_hints(draft)  # contexts follow the new type/shape
        cols.update(saved)
    for name in _HINTS + _FAMILIES:
        _set(draft, name, values, offline)
    if "concepts" in values and _concepts(draft, values["concepts"]):
        scope_filters(draft)  # jurisdictions and parties follow the matched concepts
    _scope(draft, values)
    if "corrected_question" in values:
        _corrections(draft, values["corrected_question"])
    for term, n in checked.rewrite_terms:
        draft.add_keyword(
            term,
            weight,
            KeywordSource.LLM_REWRITE,
            rule_id=f"llm_rewrite:{n}",
            language=draft.language,
            semantic_group=f"llm_rewrite:{n}",
        )
    draft.warnings += checked.warnings
    dispatch_plan(draft)


def _set(draft: Draft, name: str, values: dict[str, Any], offline: dict[str, Any]) -> None:
    if name in values and values[name] != offline.get(name):
        draft.columns[name] = values[name]
        draft.fire(f"llm:{name}")


def _scope(draft: Draft, values: dict[str, Any]) -> None:
    cols = draft.columns
    origins = list(cols.get("scope_origins") or [])
    for name in ("scope_date_from", "scope_date_to"):
        # The offline value may come from the caller, which always wins; fill only gaps.
        if values.get(name) is not None and cols.get(name) is None:
            cols[name] = values[name]
            origins.append(
                {"name": name[6:], "value": values[name].isoformat(), "origin": "question"}
            )
            draft.fire(f"llm:{name}")
    parties = list(cols.get("scope_parties") or [])
    for party in values.get("scope_parties") or ():
        if fold(party) not in {fold(p) for p in parties}:
            parties.append(party)
            origins.append({"name": "parties", "value": party, "origin": "question"})
            draft.fire("llm:scope_parties")
    cols.update(scope_parties=parties, scope_origins=origins)


def _concepts(draft: Draft, chosen: list[str]) -> bool:
    """Ambiguous spans take the model's pick among their candidates; unambiguous dictionary
    matches stay (validated rows are strong evidence); other chosen candidates are added."""
    contested = {c for a in draft.ambiguous for c in a.candidates}
    keep = [c for c in draft.concepts if c not in contested]
    for n, amb in enumerate(draft.ambiguous):
        picks = [c for c in chosen if c in amb.candidates]
        pick = picks[0] if len(picks) == 1 else amb.chosen
        if pick != amb.chosen:
            draft.ambiguous[n] = amb.model_copy(update={"chosen": pick, "method": "llm"})
            draft.fire("llm:ambiguous_keywords")
        keep.append(pick)
    keep += [c for c in chosen if c not in contested]
    final = list(dict.fromkeys(keep))
    if final == draft.concepts:
        return False
    draft.fire("llm:concepts")
    draft.expand_variants()
    draft.keywords = [
        k
        for k in draft.keywords
        if k["source"] != KeywordSource.EXPERT_DICTIONARY or k["concept"] in final
    ]
    present = {k["concept"] for k in draft.keywords if k.get("concept")}
    spans = {a.chosen: (a.span_start, a.span_end, fold(a.text)) for a in draft.ambiguous}
    for concept in final:
        if concept not in present:
            draft.keywords += _variants(draft, concept, spans.get(concept))
    draft.concepts = final
    return True


def _variants(draft: Draft, concept: str, span: tuple[int, int, str] | None) -> list[dict]:
    index, lang = dictionary_index(draft.sats), draft.language
    entries = sorted(
        (index.entries[i] for i in index.by_concept.get(concept, ())),
        key=lambda e: (
            e.language not in (lang, "*"),
            e.priority != "primary",
            -e.weight,
            e.keyword,
        ),
    )
    out = []
    for e in entries:
        folded = " ".join(t.folded for t in tokenize(e.keyword))
        at = span if span is not None and folded == span[2] else None
        here = at is not None
        out.append(
            {
                "text": e.keyword,
                "weight": e.weight,
                "source": KeywordSource.EXPERT_DICTIONARY,
                "span_start": at[0] if at is not None else None,
                "span_end": at[1] if at is not None else None,
                "rule_id": f"concept_keywords:{e.concept}/{e.language}/{e.keyword}",
                "concept": e.concept,
                "language": e.language,
                "keyword_priority": e.priority,
                "semantic_group": e.concept,
            }
        )
        if here:
            span = None  # one keyword carries the span
    return out


def _corrections(draft: Draft, corrected: str) -> None:
    """Record the model's word-for-word fixes as corrections (vocabulary "llm")."""
    draft.options["llm_corrected"] = corrected
    old, new = draft.tokens, tokenize(corrected)
    if len(old) != len(new):
        return
    from rapidfuzz.distance import Levenshtein

    for i, (a, b) in enumerate(zip(old, new)):
        if a.folded != b.folded and i not in draft.corrections and a.is_word:
            draft.corrections[i] = SpellingCorrection(
                original=a.text,
                corrected=b.text,
                span_start=a.start,
                span_end=a.end,
                distance=Levenshtein.distance(a.folded, b.folded),
                vocabulary="llm",
            )
            draft.fire("llm:corrected_question")


def provenance(
    record: dict[str, Any],
    result: Completion,
    model: str,
    *,
    used: bool,
    started_ms: float,
    secret: str | None = None,
) -> None:
    """Stamp the LLM columns of a finished record; scrub `secret` (the API key) from it,
    should a hostile server echo it into a value."""
    record.update(
        parser_mode="llm" if used else "rules",
        llm_model=model,
        llm_status=result.status,
        llm_tokens_in=result.tokens_in,
        llm_tokens_out=result.tokens_out,
        latency_ms=started_ms + result.latency_ms,
    )
    if not used:
        record["warnings"] = list(record.get("warnings") or []) + [
            f"{W_FALLBACK} llm {result.status} after {result.attempts} request(s); offline "
            f"values kept" + (f": {result.error}" if result.error else "")
        ]
    if secret and len(secret) >= 4 and secret != "not-needed":
        for name, value in record.items():
            record[name] = _scrub(value, secret)


def _scrub(value: Any, secret: str) -> Any:
    if isinstance(value, str):
        return value.replace(secret, "***") if secret in value else value
    if isinstance(value, list):
        return [_scrub(v, secret) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, secret) for k, v in value.items()}
    return value
