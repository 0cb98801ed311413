"""Check an LLM reply against the satellites and the question; repair or reject each field.

Nothing the model says reaches the row unchecked: registry fields must be rows (an answer
type, a shape, a candidate concept), numbers must be written in the question, names must
occur in it, and free text must be grounded in it (most of its content words are the
question's). A value that differs only in case or spacing is repaired; anything else is
rejected, the offline value stays, and a warning with a stable code says which and why.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Any

import regex
from rapidfuzz import fuzz, process

from ..analysis.draft import Draft
from ..analysis.language import stopwords_for
from ..analysis.text import fold, tokenize
from ..errors import WarningCode
from ..types import DecompositionPattern, LayoutHint
from .config import ResolvedLLMConfig
from .models import AMBIGUITY_REASONS, Analysis
from .prompt import allowed_shapes

W_REJECTED, W_REPAIRED, W_VOCABULARY, W_FALLBACK = (
    WarningCode.W201_LLM_VALUE_REJECTED,
    WarningCode.W202_LLM_VALUE_REPAIRED,
    WarningCode.W203_REWRITE_NOT_IN_CORPUS,
    WarningCode.W204_LLM_FALLBACK,
)
_NUMBER = regex.compile(r"\d+")
_NEEDS_SUBS = {"independent", "sequential"}


@dataclass
class Checked:
    """The accepted fields of a reply (absent: keep the offline value) and the warnings."""

    values: dict[str, Any] = field(default_factory=dict)
    rewrite_terms: list[tuple[str, int]] = field(default_factory=list)  # (term, rewrite no.)
    dropped_terms: int = 0
    warnings: list[str] = field(default_factory=list)

    def reject(self, name: str, value: Any, why: str) -> None:
        self.warnings.append(f"{W_REJECTED} llm {name}={_short(value)} rejected: {why}")

    def repair(self, name: str, value: Any, fixed: Any) -> None:
        self.warnings.append(f"{W_REPAIRED} llm {name}={_short(value)} repaired to {fixed!r}")


def check(
    reply: Analysis,
    draft: Draft,
    record: dict[str, Any],
    names: list[str],
    config: ResolvedLLMConfig,
) -> Checked:
    out = Checked()
    question = draft.original
    words = _stems(draft, question)
    _registry(
        out, "answer_type", reply.answer_type, draft.sats.answer_types["answer_type"].to_list()
    )
    _registry(out, "answer_shape", reply.answer_shape, allowed_shapes(draft.sats))
    _registry(out, "layout_hint", reply.layout_hint, [h.value for h in LayoutHint])
    concepts = [c for c in (_member(out, "concepts", c, names) for c in reply.concepts) if c]
    out.values["concepts"] = list(dict.fromkeys(concepts))
    fixed = reply.corrected_question.strip()
    if fixed and fuzz.ratio(fold(fixed), fold(question)) >= 80:
        out.values["corrected_question"] = fixed
    elif fixed:
        out.reject("corrected_question", fixed, "too far from the question")
    # Page numbers are short: a 5,000-digit run cannot be one (and int() refuses it).
    written = {int(n) for n in _NUMBER.findall(question) if len(n) <= 12} | set(
        record.get("pages_hint") or ()
    )
    pages = [p for p in reply.pages_hint if p in written]
    if len(pages) < len(reply.pages_hint):
        out.reject(
            "pages_hint",
            [p for p in reply.pages_hint if p not in written],
            "not page numbers of the question",
        )
    out.values["pages_hint"] = list(dict.fromkeys(pages))
    _toc(out, reply.toc_section_hint, draft, config)
    for name in ("document_version",):
        value = getattr(reply, name)
        if value is None or fold(value) in fold(question):
            out.values[name] = value
        else:
            out.reject(name, value, "not in the question")
    out.values["need_summary"] = bool(reply.need_summary)
    _dates(out, reply, question, record)
    known = [fold(p) for p in draft.options.get("parties") or ()]
    parties = [
        p.strip()
        for p in reply.scope_parties
        if p.strip() and (fold(p) in fold(question) or fold(p) in known)
    ]
    if len(parties) < len(reply.scope_parties):
        out.reject("scope_parties", reply.scope_parties, "names not in the question")
    out.values["scope_parties"] = parties
    _decomposition(out, reply, draft, words)
    _clarification(out, reply, draft, words)
    _rewrites(out, reply, draft, record, config)
    return out


def _registry(out: Checked, name: str, value: Any, allowed: list[str]) -> None:
    fixed = _member(out, name, value, allowed)
    if fixed is not None:
        out.values[name] = fixed


def _member(out: Checked, name: str, value: Any, allowed: list[str]) -> str | None:
    if value in allowed:
        return value
    key = _key(value)
    for candidate in allowed:
        if _key(candidate) == key:
            out.repair(name, value, candidate)
            return candidate
    out.reject(
        name,
        value,
        f"not one of {', '.join(allowed[:12])}" + (", ..." if len(allowed) > 12 else ""),
    )
    return None


def _key(value: Any) -> str:
    return regex.sub(r"[\s_\-]+", "_", fold(str(value)).strip())


def _toc(out: Checked, value: str | None, draft: Draft, config: ResolvedLLMConfig) -> None:
    toc = list(draft.options.get("toc") or ())
    if value is None:
        out.values["toc_section_hint"] = None
    elif toc:
        best = process.extractOne(value, toc, scorer=fuzz.WRatio)
        if best and best[1] >= draft.sats.defaults.toc_match_cutoff:
            out.values["toc_section_hint"] = best[0]
        else:
            out.reject("toc_section_hint", value, "not a title of the toc")
    elif fold(value) in fold(draft.original):
        out.values["toc_section_hint"] = value
    else:
        out.reject("toc_section_hint", value, "not named in the question")


def _dates(out: Checked, reply: Analysis, question: str, record: dict[str, Any]) -> None:
    # A bound is grounded when its year is written in the question, or when the offline pass
    # found a date there too (relative phrases such as "last year" carry no digits).
    offline_found = bool(record.get("scope_date_from") or record.get("scope_date_to"))
    bounds = []
    for name in ("scope_date_from", "scope_date_to"):
        raw = getattr(reply, name)
        try:
            value = dt.date.fromisoformat(raw) if raw else None
        except ValueError:
            out.reject(name, raw, "not a YYYY-MM-DD date")
            value = None
        if value is not None and not 1800 <= value.year <= 2200:
            out.reject(name, raw, "implausible year")
            value = None
        if value is not None and not offline_found and str(value.year) not in question:
            out.reject(name, raw, "no date in the question")
            value = None
        bounds.append(value)
    if bounds[0] and bounds[1] and bounds[0] > bounds[1]:
        out.reject("scope_date_from", reply.scope_date_from, "after scope_date_to")
        return
    out.values["scope_date_from"], out.values["scope_date_to"] = bounds


def _decomposition(out: Checked, reply: Analysis, draft: Draft, words: set[str]) -> None:
    pattern = _member(
        out,
        "decomposition_pattern",
        reply.decomposition_pattern,
        [p.value for p in DecompositionPattern],
    )
    if pattern is None:
        return
    subs = [s.strip() for s in reply.sub_questions[:8] if _grounded(draft, s, words, 0.6)]
    if len(subs) < len(reply.sub_questions):
        out.reject("sub_questions", reply.sub_questions, "not grounded in the question")
    condition = reply.conditional_filter
    if condition is not None and not _grounded(draft, condition, words, 0.6):
        out.reject("conditional_filter", condition, "not grounded in the question")
        condition = None
    if pattern == "single":
        subs, condition = [], None
    elif (pattern in _NEEDS_SUBS and len(subs) < 2) or (
        pattern == "conditional" and not condition
    ):
        out.reject("decomposition_pattern", pattern, "its parts did not pass the checks")
        return
    out.values.update(
        decomposition_pattern=pattern, sub_questions=subs, conditional_filter=condition
    )


def _clarification(out: Checked, reply: Analysis, draft: Draft, words: set[str]) -> None:
    reason, text = reply.ambiguity_reason, (reply.suggested_clarification or "").strip()
    if reason is None or not text:
        out.values.update(ambiguity_reason=None, suggested_clarification=None)
        return
    fixed = _member(out, "ambiguity_reason", reason, list(AMBIGUITY_REASONS))
    if fixed is None:
        return
    if len(text) > 300 or not _grounded(draft, text, words, 0.2):
        out.reject("suggested_clarification", text, "not about the question")
        return
    out.values.update(ambiguity_reason=fixed, suggested_clarification=text)


def _rewrites(
    out: Checked, reply: Analysis, draft: Draft, record: dict[str, Any], config: ResolvedLLMConfig
) -> None:
    language = config.rewrite_language or draft.language
    stop = stopwords_for(draft.sats, language) | stopwords_for(draft.sats, draft.language)
    seen = {fold(k["text"]) for k in record.get("keywords") or ()}
    known = config.knows if config.vocabulary is not None else _grounded_term(draft, language)
    cap = draft.sats.defaults.llm_max_rewrite_terms
    capped = 0
    for n, rewrite in enumerate(reply.rewrites[: max(config.rewrites, 1)]):
        for token in tokenize(rewrite[:300]):
            term = token.folded
            if (
                not token.is_word
                or len(term) < 3
                or term in stop
                or term in seen
                or any(c.isdigit() for c in term)
            ):
                continue
            seen.add(term)
            if not known(term):
                out.dropped_terms += 1
                continue
            if len(out.rewrite_terms) >= cap:
                capped += 1
                continue
            out.rewrite_terms.append((token.text.lower(), n))
    if out.dropped_terms:
        where = (
            "the corpus vocabulary"
            if config.vocabulary is not None
            else "the question, the dictionary or the language's word list"
        )
        out.warnings.append(
            f"{W_VOCABULARY} llm rewrites: {out.dropped_terms} term(s) not in {where} dropped"
        )
    if capped:
        out.warnings.append(
            f"{W_VOCABULARY} llm rewrites: {capped} term(s) past "
            f"llm_max_rewrite_terms={cap} dropped"
        )


def _grounded_term(draft: Draft, language: str | None) -> Callable[[str], bool]:
    """Without a corpus vocabulary, a rewrite term must be a word of the question, of the
    dictionary, or of the language's word list: a hostile or confused reply cannot bring
    words that are none of these ("rootkit exfiltration") into the keywords."""
    from ..analysis.dictionary import dictionary_index
    from ..analysis.spelling import language_vocabulary

    question = {t.folded for t in draft.tokens}
    dictionary = dictionary_index(draft.sats).token_counts
    words: Container[str] = language_vocabulary(language) if language else frozenset()
    return lambda term: term in question or term in dictionary or term in words


def _stems(draft: Draft, text: str) -> set[str]:
    return {t.folded[:5] for t in tokenize(text) if len(t.folded) > 2}


def _grounded(draft: Draft, text: str, words: set[str], share: float) -> bool:
    stop = stopwords_for(draft.sats, draft.language)
    content = [t.folded[:5] for t in tokenize(text) if len(t.folded) > 2 and t.folded not in stop]
    return bool(content) and sum(w in words for w in content) >= share * len(content)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
