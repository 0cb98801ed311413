"""Negative hints: what the question sets aside ("not to be confused with X", "other than X",
"excluding X", "à ne pas confondre avec X", "distinto de X", …), from `negative` cue rows.

Each row's pattern matches the cue and the phrase X (group `term`). Keywords found inside
a match (the cue's own words and X's) are not positives: they leave `keywords`; a concept
none of whose terms remains asked for leaves `concepts` with its dictionary variants and
goes to `excluded_concepts`. `excluded_terms` lists X, the dropped keywords and the
excluded concepts' variants, so retrieval can demote passages dominated by them.
"""

from __future__ import annotations

from .draft import Draft
from .rules import candidates, finditer, language_rules
from .text import fold


def negative_hints(draft: Draft) -> None:
    text = draft.original
    regions: list[tuple[int, int]] = []  # cue + phrase: nothing in there is a positive
    phrases: list[tuple[int, int]] = []  # the phrase alone: what is excluded
    terms: list[str] = []
    for rule in candidates(draft, language_rules(draft.sats, "negative", draft.language), text):
        for found in finditer(draft, rule, text):
            if "term" not in found.re.groupindex or found.start("term") < 0:
                continue
            regions.append((found.start(), found.end("term")))
            phrases.append(found.span("term"))
            terms.append(found.group("term").strip())
            draft.fire(f"cues:{rule.rule_id}")
    if not regions:
        return
    draft.expand_variants()  # the variants of an excluded concept are excluded terms
    inside = [_within(kw, regions) for kw in draft.keywords]
    dropped = [kw for kw, hit in zip(draft.keywords, inside) if hit]
    asked = {
        kw.get("concept")
        for kw, hit in zip(draft.keywords, inside)
        if not hit and kw.get("span_start") is not None
    }
    excluded = [
        c for c in dict.fromkeys(kw.get("concept") for kw in dropped) if c and c not in asked
    ]
    folded_terms = [fold(t) for t in terms]
    keep, variants = [], []
    for kw, hit in zip(draft.keywords, inside):
        if kw.get("concept") in excluded:
            variants.append(kw["text"])
        elif hit or (
            kw.get("span_start") is None
            and any(_has_phrase(fold(kw["text"]), t) for t in folded_terms)
        ):
            pass  # a variant that spells out the excluded phrase is not a positive either
        else:
            keep.append(kw)
            continue
        if kw.get("span_start") is None and kw.get("concept") not in excluded:
            variants.append(kw["text"])
    draft.keywords[:] = keep
    draft.concepts[:] = [c for c in draft.concepts if c not in excluded]
    draft.columns["excluded_concepts"] = excluded
    draft.columns["excluded_terms"] = list(
        dict.fromkeys(terms + [kw["text"] for kw in dropped if _within(kw, phrases)] + variants)
    )


def _within(keyword: dict, regions: list[tuple[int, int]]) -> bool:
    start, end = keyword.get("span_start"), keyword.get("span_end")
    if start is None or end is None:
        return False
    return any(a <= start and end <= b for a, b in regions)


def _has_phrase(text: str, phrase: str) -> bool:
    return f" {phrase} " in f" {text} "
