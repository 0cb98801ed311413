"""Clarification: a short follow-up question and its reason when the question cannot be
acted on (unresolved deictic reference, bare head noun that fits several concepts, missing
object); conversation context or caller scope that resolves it cancels the request.

Contract: sets suggested_clarification and ambiguity_reason in draft.columns.

The checks, each from rows: `clarification` rows (target = the reason: missing_object,
too_broad, too_short) and `deictic` rows (reason deictic_reference), the heaviest matching
row first; then the dictionary's ambiguities (reason ambiguous_concept). The follow-up text is the
`clarification_prompt` row of the question's language whose pattern matches the reason.

Conservative on purpose: a clear question must never get a follow-up. So a reference or an
ambiguous head noun only counts when the question has almost nothing else to act on (at
most `_OTHER_CONTENT_WORDS` other content words, no quoted term or anchor), a broad topic
only when no topic concept covers it, and any conversation turn passed in resolves a
reference; a deictic row's `target` lists the caller scope keys that resolve it.
"""

from __future__ import annotations

import regex

from ..satellites import Satellites
from ..types import KeywordSource
from .draft import Draft
from .language import stopwords_for
from .rules import Rule, RuleSet, candidates, cue_rules, of_language, search, union_rules
from .text import fold

_OTHER_CONTENT_WORDS = {"deictic_reference": 1, "ambiguous_concept": 0}
# Resolved by any earlier turn of the conversation: the reader can look back.
_CONTEXT_RESOLVES = {"deictic_reference", "missing_object", "too_short"}
_STRONG_METHODS = {"definition_overlap"}
_FAMILIES = ("clarification", "deictic")


def clarify(draft: Draft) -> None:
    """Fill suggested_clarification and ambiguity_reason when the question needs one."""
    found = _from_rows(draft) or _ambiguous(draft)
    if found is None:
        return
    reason, term, candidates, fired = found
    prompt = _prompt(draft, reason, term, candidates)
    if prompt is None:
        return
    text, prompt_rule = prompt
    draft.columns["ambiguity_reason"] = reason
    draft.columns["suggested_clarification"] = text
    for rule_id in fired + [f"cues:{prompt_rule.rule_id}"]:
        draft.fire(rule_id)


def _has_terms(draft: Draft) -> bool:
    """Quoted or listed terms and anchors (codes, years) are something to act on."""
    return any(
        k["source"] in (KeywordSource.EXPLICIT, KeywordSource.ANCHOR) for k in draft.keywords
    )


def _has_context(draft: Draft) -> bool:
    return any(str(turn).strip() for turn in draft.options.get("context") or ())


def _from_rows(draft: Draft):
    """The strongest `clarification` or `deictic` row that matches and is not resolved."""
    rules = candidates(draft, _rows(draft.sats, draft.language), draft.original)
    if len(rules) > 1:
        rules.sort(key=lambda r: -r.weight)
    for rule in rules:
        m = search(draft, rule, draft.original)
        if m is None:
            continue
        reason = "deictic_reference" if rule.family == "deictic" else rule.target
        span = _term_span(m)
        if _resolved(draft, reason, rule, span):
            continue
        return reason, _term(draft, span, reason), [], [f"cues:{rule.rule_id}"]
    return None


def _rows(sats: Satellites, language: str | None) -> RuleSet:
    """The `clarification` rows, then the `deictic` ones, of a language (and `*`; all of
    them for None) behind one gate: one lookup tells a question that no row can match. The
    gate reads the two families' union (`within`), so a new language adds no literals and
    does not rebuild the shared automaton."""

    def build(s: Satellites) -> RuleSet:
        every = union_rules(s, "clarify", lambda s: (cue_rules(s, f) for f in _FAMILIES))
        return of_language(every, language)

    return sats.cached(f"union_rules:clarify:{language}", build)


def _term_span(m: regex.Match) -> tuple[int, int]:
    if "term" in m.re.groupindex:
        for start, end in m.spans("term"):
            if start >= 0:
                return start, end
    return m.span()


def _term(draft: Draft, span: tuple[int, int], reason: str | None) -> str:
    """The unclear phrase as typed; a verb that merely opens the sentence is lower-cased."""
    term = draft.original[span[0] : span[1]].strip(" \t.,;:!?¿¡")
    opens = draft.tokens and draft.tokens[0].start >= span[0]
    if reason == "missing_object" and opens and term[:1].isupper():
        term = term[0].lower() + term[1:]
    return term


def _resolved(draft: Draft, reason: str | None, rule: Rule, span: tuple[int, int]) -> bool:
    """Whether the context, the caller's scope or the rest of the question acts on it."""
    if reason in _CONTEXT_RESOLVES and _has_context(draft):
        return True
    if reason != "missing_object" and _has_terms(draft):
        return True
    if reason == "deictic_reference" and _scope_resolves(draft, rule.target):
        return True
    if reason in ("too_broad", "too_short") and _concepts_in(draft, span):
        return True
    limit = None if reason is None else _OTHER_CONTENT_WORDS.get(reason)
    return limit is not None and len(_content_words(draft, span)) > limit


def _scope_resolves(draft: Draft, target: str | None) -> bool:
    """Whether the caller's scope holds one of the keys the row names ("date_from|...").

    Only the caller's scope counts: what the question itself says ("the latest") is the
    reference to resolve, not its resolution.
    """
    scope = draft.options.get("scope") or {}
    return any(scope.get(key) for key in filter(None, (target or "").split("|")))


def _concepts_in(draft: Draft, span: tuple[int, int]) -> bool:
    """Whether a topic concept (not a scope one: a country, a currency) lies in `span`.

    Scope concepts say where to look, not what to look for, so "Tell me about Vanuatu"
    stays too broad while "Tell me about the exclusions" can be acted on.
    """
    scoped = draft.sats.cached("scope_concepts", _scope_concepts)
    return any(
        k.get("concept")
        and k["concept"] not in scoped
        and k["span_start"] is not None
        and span[0] <= k["span_start"] < span[1]
        for k in draft.keywords
    )


def _scope_concepts(sats) -> frozenset[str]:
    frame = sats.concepts.filter(sats.concepts["scope_kind"].is_not_null())
    return frozenset(frame["concept"].to_list())


def _content_words(draft: Draft, span: tuple[int, int]) -> list[str]:
    """Content words of the question outside `span`."""
    stop = stopwords_for(draft.sats, draft.language)
    return [
        draft.folded(i)
        for i, t in enumerate(draft.tokens)
        if not span[0] <= t.start < span[1]
        and draft.folded(i) not in stop
        and len(t.folded) > 1
        and t.text[:1].isalnum()
    ]


def _ambiguous(draft: Draft):
    if not draft.ambiguous or _has_terms(draft):
        return None
    for amb in draft.ambiguous:
        if amb.method in _STRONG_METHODS:
            continue
        span = (amb.span_start, amb.span_end)
        if set(draft.concepts) - set(amb.candidates):
            continue
        if len(_content_words(draft, span)) > _OTHER_CONTENT_WORDS["ambiguous_concept"]:
            continue
        if _context_names_one(draft, amb.candidates):
            continue
        return "ambiguous_concept", amb.text, amb.candidates, []
    return None


def _context_names_one(draft: Draft, candidates: list[str]) -> bool:
    """Whether the conversation so far names exactly one of the candidate concepts.

    A variant found inside a longer variant of another candidate ("limit" in "sub-limit")
    does not count.
    """
    if not _has_context(draft):
        return False
    context = " ".join(fold(str(t)) for t in draft.options["context"])
    variants = draft.sats.cached("concept_variants", _concept_variants)
    found = [
        (m.start(), m.end(), c)
        for c in candidates
        for v in variants.get(c, ())
        for m in regex.finditer(rf"(?<!\w){regex.escape(v)}(?!\w)", context)
    ]
    named = {
        c
        for s, e, c in found
        if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in found)
    }
    return len(named) == 1


def _concept_variants(sats) -> dict[str, tuple[str, ...]]:
    variants: dict[str, list[str]] = {}
    rows = sats.tables["concept_keywords"].select("concept", "keyword").iter_rows()
    for concept, keyword in rows:
        variants.setdefault(concept, []).append(fold(keyword))
    return {c: tuple(v) for c, v in variants.items()}


def _labels(sats) -> dict[tuple[str, str], str]:
    """A readable name per (concept, language): its first primary keyword there."""
    frame = sats.tables["concept_keywords"].sort("weight", descending=True, maintain_order=True)
    labels: dict[tuple[str, str], str] = {}
    for concept, language, keyword, priority in frame.select(
        "concept", "language", "keyword", "keyword_priority"
    ).iter_rows():
        if priority == "primary":
            labels.setdefault((concept, language), keyword)
    return labels


def _prompt(draft: Draft, reason: str, term: str, candidates: list[str]):
    rules = [
        r
        for r in cue_rules(draft.sats, "clarification_prompt")
        if r.target and r.language in (draft.language, "*")
    ]
    labels = draft.sats.cached("concept_labels", _labels) if candidates else {}
    names = [
        labels.get((c, draft.language)) or labels.get((c, "en")) or c.replace("_", " ")
        for c in candidates
    ]
    for rule in sorted(rules, key=lambda r: (r.language == "*", -r.weight)):
        if search(draft, rule, reason):
            text = rule.target.replace("{term}", term).replace("{candidates}", " / ".join(names))
            return text, rule
    return None
