"""Scope filters: date ranges, parties, jurisdictions, sections, page range; merged with the
filters the caller passes (draft.options["scope"]), each value keeping its origin.

From the question: dates through `date`/`date_range` rows (see `dates`); jurisdictions and
parties from matched concepts whose `scope_kind` says so (the concept id is the value); parties
the caller knows (draft.options["parties"]) when the question names them, and capitalized names
after "with"/"avec"/"con"... (`party` rows, group `name`), unless the name is a date, a section,
an anchor or another concept's keyword; sections as the structural hints name them; the page
range as the smallest one holding every page named. A date range names the period the facts
concern, unless a `date_target` row matches ("signed", "issued", "dated", "signés",
"firmados"...): then it qualifies the documents' own date, recorded in `scope_origins` as
{"name": "date_applies_to", "value": <the row's target, "document">} with the range's origin
(question or context). Retrieval filters documents by their date only then.

Merging, decided here: lists are the union (question first, then caller); date and page ranges
are the narrower of the two, and when they do not overlap the question's wins (the user just
said so). Earlier turns (draft.options["context"], latest last) fill dates, parties and
jurisdictions only where neither the question nor the caller set them: a follow-up such as "and
in Spain?" replaces the earlier country instead of adding to it. Caller keys: sections, parties,
jurisdictions (ISO codes or names are mapped to concept ids), date_from, date_to (dates or ISO
strings; "2022" means the whole year), page_range ([from, to]); any other key goes to
scope_custom. `scope_origins` lists every value with "question", "caller" or "context".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import regex

from ..satellites import Satellites
from .dates import DateScope, date_scope, scope_date_rules
from .draft import Draft
from .hints import Numbers, named, numbered, pick_matches, section_names
from .rules import Rule, RuleSet, built_first, candidates, cue_rules, union_rules
from .text import fold, tokenize

_LISTS = ("sections", "parties", "jurisdictions")
_POSSESSIVE = regex.compile(r"['’]s$")


@dataclass
class Found:
    """Scope values from one source: the question, the caller or an earlier turn."""

    sections: list[str] = field(default_factory=list)
    parties: list[str] = field(default_factory=list)
    jurisdictions: list[str] = field(default_factory=list)
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    page_from: int | None = None
    page_to: int | None = None
    custom: list[tuple[str, str]] = field(default_factory=list)
    date_applies_to: str | None = None  # "document": the range qualifies the documents' date
    fired: dict[str, list[str]] = field(default_factory=dict)  # filter → rule ids


def scope_filters(draft: Draft) -> None:
    """Fill the scope_* columns: the question's filters merged with the caller's and context's."""
    cued = bool(
        candidates(draft, union_rules(draft.sats, "scope", _scope_rulesets), draft.original)
    )
    if not cued and _nothing_given(draft):
        draft.columns.update(_unscoped())
        return
    question, caller = question_scope(draft, cued=cued), caller_scope(draft)
    gaps = [
        name
        for name in (*_LISTS[1:], "dates")
        if not _has(question, name) and not _has(caller, name)
    ]
    context = context_scope(draft, gaps) if gaps else Found()
    if _is_empty(question) and _is_empty(caller) and _is_empty(context):
        # a row the gate let through that names nothing after all (a number, not a year)
        draft.columns.update(_unscoped())
        return
    _merge(draft, question, caller, context)


def _nothing_given(draft: Draft) -> bool:
    """Whether neither the caller, the context nor the question's concepts give a scope:
    with no row that may match either (most questions), the columns are their empty values,
    without building and merging three empty sources."""
    options = draft.options
    if options.get("scope") or options.get("parties"):
        return False
    if any(isinstance(t, str) and t.strip() for t in options.get("context") or ()):
        return False
    return draft.sats.cached("scope_concepts", _scope_concepts).isdisjoint(draft.concepts)


def _scope_rulesets(sats: Satellites) -> tuple[RuleSet, ...]:
    """The rule sets `question_scope` reads the question with (date ranges are read only
    where a date row matched, and date targets only where a range was found)."""
    return (scope_date_rules(sats), *(cue_rules(sats, f) for f in ("section", "page", "party")))


built_first(lambda sats: union_rules(sats, "scope", _scope_rulesets))


def _unscoped() -> dict[str, Any]:
    """The scope columns `_merge` writes when no source holds anything (fresh lists)."""
    return {
        "scope_sections": [],
        "scope_parties": [],
        "scope_jurisdictions": [],
        "scope_date_from": None,
        "scope_date_to": None,
        "scope_custom": [],
        "scope_page_range": [],
        "scope_origins": [],
    }


def question_scope(draft: Draft, *, cued: bool = True) -> Found:
    """Every scope value the question itself names; `cued`: whether a row may match (False
    when the scope gate said none can: then the concepts and the caller's parties alone)."""
    kinds = draft.sats.cached("scope_kinds", _scope_kinds)
    dates = date_scope(draft) if cued else DateScope()
    sections = section_names(draft) if cued else []
    pages = numbered(draft, "page", "page") if cued else Numbers()
    found = Found(
        sections=[name for name, _, _ in sections],
        date_from=dates.date_from,
        date_to=dates.date_to,
    )
    found.page_from, found.page_to = pages.bounds or (None, None)
    found.jurisdictions = [c for c in draft.concepts if kinds.get(c) == "jurisdiction"]
    blocked = dates.spans + [span for _, span, _ in sections]
    parties, party_rules = _parties(draft, kinds, blocked, cued)
    found.parties = parties
    targets = _date_targets(draft) if dates.date_from or dates.date_to else []
    found.date_applies_to = targets[0].target if targets else None
    found.fired = {
        "dates": [f"cues:{r}" for r in dates.rule_ids],
        "sections": [f"cues:{r}" for _, _, r in sections],
        "pages": [f"cues:{r}" for r in pages.rule_ids],
        "parties": party_rules,
        "jurisdictions": [f"concepts:{c}.scope_kind" for c in found.jurisdictions],
        "date_applies_to": [f"cues:{r.rule_id}" for r in targets[:1]],
    }
    return found


def caller_scope(draft: Draft) -> Found:
    """The caller's filters (draft.options["scope"]), checked; a bad value is a warning."""
    scope = draft.options.get("scope") or {}
    found = Found()
    if not isinstance(scope, Mapping):
        draft.warnings.append(f"scope: ignored, expected a mapping, got {type(scope).__name__}")
        return found
    for key, value in scope.items():
        if key in ("sections", "parties"):
            setattr(found, key, _strings(value))
        elif key == "jurisdictions":
            index = draft.sats.cached("jurisdiction_names", _jurisdiction_names)
            found.jurisdictions = [index.get(fold(v), v) for v in _strings(value)]
        elif key in ("date_from", "date_to"):
            parsed = _caller_date(value, end=key == "date_to")
            if parsed is None:
                draft.warnings.append(f"scope: {key}={value!r} is not a date; ignored")
            setattr(found, key, parsed)
        elif key == "page_range":
            pages = _caller_pages(value, draft.sats.defaults.max_page_number)
            if pages is None:
                draft.warnings.append(f"scope: page_range={value!r} is not [from, to]; ignored")
            found.page_from, found.page_to = pages or (None, None)
        else:
            values = value if isinstance(value, (list, tuple, set, frozenset)) else [value]
            found.custom += [(str(key), _text(v)) for v in values if v is not None]
    if found.date_from and found.date_to and found.date_from > found.date_to:
        draft.warnings.append("scope: date_from is after date_to; swapped")
        found.date_from, found.date_to = found.date_to, found.date_from
    return found


def context_scope(draft: Draft, wanted: list[str]) -> Found:
    """Dates, parties and jurisdictions of earlier turns, the latest turn that names each."""
    turns = [t for t in draft.options.get("context") or () if isinstance(t, str) and t.strip()]
    if not turns:
        return Found()
    from .dictionary import dictionary_keywords
    from .language import detect_language

    found, remaining = Found(), set(wanted)
    for turn in reversed(turns):
        if not remaining:
            break
        sub = Draft(
            question_id=draft.question_id,
            original=turn,
            sats=draft.sats,
            tokens=tokenize(turn),
            options={k: draft.options.get(k) for k in ("parties", "today", "toc")},
        )
        detect_language(sub)
        dictionary_keywords(sub)
        earlier = question_scope(sub)
        for name in [n for n in remaining if _has(earlier, n)]:
            remaining.discard(name)
            found.fired[name] = earlier.fired.get(name, [])
            if name == "dates":
                found.date_from, found.date_to = earlier.date_from, earlier.date_to
                found.date_applies_to = earlier.date_applies_to
                found.fired["date_applies_to"] = earlier.fired.get("date_applies_to", [])
            else:
                setattr(found, name, getattr(earlier, name))
    return found


def _merge(draft: Draft, question: Found, caller: Found, context: Found) -> None:
    cols, origins = draft.columns, []
    for name in _LISTS:
        values: list[str] = []
        seen: set[str] = set()
        for origin, source in (("question", question), ("caller", caller), ("context", context)):
            given = getattr(source, name)
            if not given:
                continue  # adds nothing, fires nothing
            folded = [fold(v) for v in given]
            fresh = [v for v, key in zip(given, folded) if key not in seen]
            seen.update(folded)
            values += fresh
            origins += [_item(name, v, origin) for v in fresh]
            _fire(draft, source, name if fresh else None)
        cols[f"scope_{name}"] = values
    dates = _narrow(question, caller, context, "date_from", "date_to")
    pages = _narrow(question, caller, None, "page_from", "page_to")
    for bounds, key, names in (
        (dates, "dates", ("date_from", "date_to")),
        (pages, "pages", ("page_from", "page_to")),
    ):
        for name, (value, origin) in zip(names, bounds):
            if value is not None:
                origins.append(_item(name, value, origin))
                _fire(draft, {"question": question, "context": context}.get(origin), key)
    # context dates (and what they qualify) come in only when neither the question nor the
    # caller names a range
    for origin, source in (("question", question), ("context", context)):
        if source.date_applies_to:
            origins.append(_item("date_applies_to", source.date_applies_to, origin))
            _fire(draft, source, "date_applies_to")
            break
    (date_from, _), (date_to, _) = dates
    (page_from, _), (page_to, _) = pages
    custom = [_item(name, value, "caller") for name, value in caller.custom]
    cols.update(
        scope_date_from=date_from,
        scope_date_to=date_to,
        scope_custom=custom,
        scope_page_range=[page_from, page_to] if page_from and page_to else [],
        scope_origins=origins + custom,
    )


def _narrow(question: Found, caller: Found, context: Found | None, low: str, high: str):
    """((low, origin), (high, origin)): the narrower range; the question's when they clash."""
    sources = [("question", question), ("caller", caller)]
    if context is not None and not any(getattr(s, low) or getattr(s, high) for _, s in sources):
        sources = [("context", context)]
    lows = [(getattr(s, low), o) for o, s in sources if getattr(s, low) is not None]
    highs = [(getattr(s, high), o) for o, s in sources if getattr(s, high) is not None]
    lo = max(lows, key=lambda v: v[0], default=(None, None))
    hi = min(highs, key=lambda v: v[0], default=(None, None))
    if lo[0] is not None and hi[0] is not None and lo[0] > hi[0]:
        own = sources[0][1]
        return (
            (getattr(own, low), sources[0][0] if getattr(own, low) is not None else None),
            (getattr(own, high), sources[0][0] if getattr(own, high) is not None else None),
        )
    return lo, hi


def _parties(draft: Draft, kinds: dict[str, str], blocked: list[tuple[int, int]], cued: bool):
    found: list[tuple[str, str | None]] = [
        (c, f"concepts:{c}.scope_kind") for c in draft.concepts if kinds.get(c) == "party"
    ]
    known = _strings(draft.options.get("parties"))
    folded = fold(draft.original) if known else ""
    for name in known:
        if regex.search(rf"(?<!\w){regex.escape(fold(name))}(?!\w)", folded):
            found.append((name, None))
    names = named(draft, "party") if cued else []
    if names:  # the spans a name may not overlap, read only when a row found one
        blocked = blocked + [
            (k["span_start"], k["span_end"])
            for k in draft.keywords
            if k.get("span_start") is not None and (k["source"] == "anchor" or k.get("concept"))
        ]
    for name, (start, end), rule_id in names:
        if not any(start < b_end and b_start < end for b_start, b_end in blocked):
            found.append((_POSSESSIVE.sub("", name), f"cues:{rule_id}"))
    kept: list[tuple[str, str | None]] = []
    for name, rule in found:  # "Acme" adds nothing to "Acme Corp", found first
        words = set(fold(name).split())
        if not any(
            words <= set(fold(k).split()) or set(fold(k).split()) <= words for k, _ in kept
        ):
            kept.append((name, rule))
    return [n for n, _ in kept], [r for _, r in kept if r]


def _date_targets(draft: Draft) -> list[Rule]:
    """The `date_target` rows that match, in question order: what the date range qualifies."""
    return pick_matches(
        draft, cue_rules(draft.sats, "date_target"), draft.original, lambda rule, m: rule
    )


def _scope_concepts(sats: Satellites) -> frozenset[str]:
    """The concepts that are a scope value when the question names them."""
    kinds = sats.cached("scope_kinds", _scope_kinds)
    return frozenset(c for c, kind in kinds.items() if kind in ("jurisdiction", "party"))


def _scope_kinds(sats: Satellites) -> dict[str, str]:
    rows = sats.concepts.select("concept", "scope_kind").drop_nulls()
    return dict(rows.iter_rows())


def _jurisdiction_names(sats: Satellites) -> dict[str, str]:
    """Folded keyword or id → concept, for jurisdiction concepts; ambiguous names left out."""
    kinds = sats.cached("scope_kinds", _scope_kinds)
    ids = {c for c, kind in kinds.items() if kind == "jurisdiction"}
    seen: dict[str, set[str]] = {}
    for concept, keyword in sats.concept_keywords.select("concept", "keyword").iter_rows():
        if concept in ids:
            seen.setdefault(fold(keyword), set()).add(concept)
    index = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}
    return {**index, **{fold(c): c for c in ids}}


def _caller_date(value: Any, *, end: bool) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    try:
        if regex.fullmatch(r"\d{4}", text):
            return dt.date(int(text), 12, 31) if end else dt.date(int(text), 1, 1)
        if regex.fullmatch(r"\d{4}-\d{2}", text):
            first = dt.date(int(text[:4]), int(text[5:]), 1)
            following = dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)
            return following - dt.timedelta(days=1) if end else first
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _caller_pages(value: Any, top: int) -> tuple[int, int] | None:
    try:
        low, high = sorted(int(v) for v in value)
    except (TypeError, ValueError):
        return None
    return (low, high) if 1 <= low and high <= top else None


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    values = (
        [value]
        if isinstance(value, str)
        else value
        if isinstance(value, (list, tuple, set, frozenset))
        else [value]
    )
    return [str(v).strip() for v in values if v is not None and str(v).strip()]


def _text(value: Any) -> str:
    return value.isoformat() if isinstance(value, dt.date) else str(value)


def _item(name: str, value: Any, origin: str) -> dict[str, str]:
    return {"name": name, "value": _text(value), "origin": origin}


def _is_empty(found: Found) -> bool:
    """Whether a source holds no value at all (then it fired no row either)."""
    return not (
        found.sections
        or found.parties
        or found.jurisdictions
        or found.custom
        or found.date_applies_to
        or any(
            v is not None for v in (found.date_from, found.date_to, found.page_from, found.page_to)
        )
    )


def _has(found: Found, name: str) -> bool:
    if name == "dates":
        return found.date_from is not None or found.date_to is not None
    return bool(getattr(found, name))


def _fire(draft: Draft, source: Found | None, name: str | None) -> None:
    for rule_id in source.fired.get(name, []) if source is not None and name else []:
        draft.fire(rule_id)
