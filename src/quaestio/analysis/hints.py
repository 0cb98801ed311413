"""Structural hints: pages, sheets, slides, TOC section, layout, document version, and the
detect/answer context and need_summary defaulted from the answer type and shape rows.

Every behaviour is a `cues` row (bundled in `cues.hints.csv`); what a row means is read from
its family, its target and the names of its groups:

- `page` / `slide`: groups `page` (or `slide`) for single numbers, `from` and `to` for ranges;
  one row may capture many ("pages 2, 5 to 7 and 9"). Numbers outside 1..`max_page_number` are
  dropped, reversed ranges swapped; a range expands into `pages_hint` only while the list stays
  within `pages_hint_limit` (the bounds always reach `scope_page_range`).
- `sheet` / `section`: group `name`. A section name is matched to the caller's TOC when there is
  one (`toc_section_hint` is then the TOC title), else kept as written. A question that names
  no section gets the usual section of its topic (`concept_sections`), when all its topical
  concepts share that one section.
- `layout`: the target (table/image/header); the heaviest row wins, then the earliest.
- `document_version`: group `version` when the row has one, else its target ("latest").
- Contexts: the answer type's row sets detect_context and answer_context; a shape other than
  `single` widens answer_context to its own row's (a listing spans a section). `answer_context`
  cues only widen it further, `detect_context` cues replace it, `need_summary` cues set the flag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import regex
from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

from ..types import AnswerContext, AnswerShape, LayoutHint
from .draft import Draft
from .language import stopwords_for
from .memo import TEXTS
from .rules import Rule, RuleSet, built_first, candidates, cue_rules, finditer, union_rules
from .text import fold

T = TypeVar("T")
_CONTEXT_ORDER = [c.value for c in AnswerContext]
_ID_TOKEN = regex.compile(r"^(?:\d[\w.]*|[a-z]|(?:x{0,3})(?:ix|iv|v?i{0,3}))$")
_TOKEN = regex.compile(r"[\w.]+")
_QUOTES = " \"'“”«»‘’"
_CASED = "(?-i:"
_TEXT_LAYOUT = LayoutHint.TEXT.value


# The cue families the hints read the question with; most questions can match none of them.
_FAMILIES = (
    "page",
    "slide",
    "sheet",
    "section",
    "layout",
    "document_version",
    "answer_context",
    "detect_context",
    "need_summary",
)


def structural_hints(draft: Draft) -> None:
    """Fill the hint columns of the row from the `cues` rows and the answer type/shape rows."""
    cols = draft.columns
    if not candidates(draft, union_rules(draft.sats, "hints", _hint_rulesets), draft.original):
        # No row of any family may match: what the rows alone decide (a concept's section,
        # the answer type's contexts), one gate lookup instead of one per family.
        cols.update(
            pages_hint=[],
            slides_hint=[],
            sheets_hint=[],
            toc_section_hint=concept_section(draft),
            layout_hint=_TEXT_LAYOUT,
            document_version=None,
        )
        _contexts(draft, cued=False)
        return
    pages = numbered(draft, "page", "page")
    cols["pages_hint"] = expand(pages, draft.sats.defaults.pages_hint_limit)
    slides = numbered(draft, "slide", "slide")
    cols["slides_hint"] = expand(slides, draft.sats.defaults.pages_hint_limit)
    sheets = named(draft, "sheet")
    cols["sheets_hint"] = _unique([name for name, _, _ in sheets])
    sections = section_names(draft)
    cols["toc_section_hint"] = sections[0][0] if sections else concept_section(draft)
    _fire(
        draft,
        pages.rule_ids
        + slides.rule_ids
        + [rule_id for _, _, rule_id in sheets]
        + [rule_id for _, _, rule_id in sections[:1]],
    )
    layout = _strongest(draft, "layout")
    cols["layout_hint"] = layout.target if layout is not None else _TEXT_LAYOUT
    _fire(draft, [layout.rule_id] if layout is not None else [])
    cols["document_version"] = _version(draft)
    _contexts(draft)


@dataclass
class Numbers:
    """Single numbers and (from, to) ranges found by one family's rows, already checked."""

    singles: list[int] = field(default_factory=list)
    ranges: list[tuple[int, int]] = field(default_factory=list)
    rule_ids: list[str] = field(default_factory=list)

    @property
    def bounds(self) -> tuple[int, int] | None:
        values = self.singles + [n for pair in self.ranges for n in pair]
        return (min(values), max(values)) if values else None


def numbered(draft: Draft, family: str, single_group: str) -> Numbers:
    """Page or slide numbers of the question, from the `family` rows."""
    top = draft.sats.defaults.max_page_number
    found = Numbers()

    def accept(rule: Rule, m: regex.Match) -> bool | None:
        singles = [int(v) for v in _captures(m, single_group) if 1 <= int(v) <= top]
        ranges = [
            (min(int(a), int(b)), max(int(a), int(b)))
            for a, b in zip(_captures(m, "from"), _captures(m, "to"))
            if 1 <= int(a) <= top and 1 <= int(b) <= top
        ]
        if not singles and not ranges:
            return None
        found.singles += singles
        found.ranges += ranges
        found.rule_ids.append(rule.rule_id)
        return True

    pick_matches(draft, cue_rules(draft.sats, family), draft.original, accept)
    return found


def expand(numbers: Numbers, limit: int) -> list[int]:
    """Sorted, de-duplicated numbers; a range is listed only while the list stays within
    `limit`."""
    values = set(numbers.singles)
    for low, high in sorted(numbers.ranges, key=lambda r: r[1] - r[0]):
        if len(values) + high - low + 1 <= limit:
            values.update(range(low, high + 1))
    return sorted(values)


def named(draft: Draft, family: str) -> list[tuple[str, tuple[int, int], str]]:
    """(name, span, rule id) of the family's rows, in question order.

    A `name` group is kept as written; a `topic` group (the free words after "the chapter on")
    is cut at its first function word unless it is written as a title.
    """
    out: list[tuple[str, tuple[int, int], str]] = []
    stops = stopwords_for(draft.sats, draft.language)

    def accept(rule: Rule, m: regex.Match) -> bool | None:
        spans = sorted(
            [(s, False) for s in _spans(m, "name")] + [(s, True) for s in _spans(m, "topic")]
        )
        names = []
        for (a, b), is_topic in spans:
            text = draft.original[a:b].strip(_QUOTES)
            text = _trim_at_stopword(text, stops) if is_topic else text
            names.append((text, (a, a + len(text)) if is_topic else (a, b), rule.rule_id))
        names = [n for n in names if n[0]]
        out.extend(names)
        return True if names else None

    pick_matches(draft, cue_rules(draft.sats, family), draft.original, accept)
    return out


def section_names(draft: Draft) -> list[tuple[str, tuple[int, int], str]]:
    """(section, span, rule id) in question order: TOC titles when the caller passed a TOC."""
    toc = [t for t in draft.options.get("toc") or () if isinstance(t, str) and t.strip()]
    out, seen = [], set()
    for name, span, rule_id in named(draft, "section"):
        title = match_toc(name, toc, draft.sats.defaults.toc_match_cutoff) or name
        if fold(title) not in seen:
            seen.add(fold(title))
            out.append((title, span, rule_id))
    return out


def concept_section(draft: Draft) -> str | None:
    """The usual section of the question's topic (`concept_sections` rows of the question's
    language, else `*`), when the question names no section itself: "the exclusions of this
    contract" hints "Exclusions" without a TOC. With a TOC, the title must be found in it,
    or there is no hint.

    Only when every topical concept of the question (not a country, party, currency or
    date) lives in that one section: "the premium and the exclusions" or "the exclusions
    and limits" ask about two places, and a hint toward one would hide the other's passages.
    """
    titles, sectioned = draft.sats.cached("concept_sections", _concept_sections)
    if sectioned.isdisjoint(draft.concepts):
        # No concept of the question has a row (most questions): the first topical concept,
        # if any, would find no title.
        return None
    scoped = draft.sats.cached("scoped_concepts", _scoped_concepts)
    rows_of = {
        c: titles.get((c, draft.language), ()) + titles.get((c, "*"), ()) for c in draft.concepts
    }
    # A scope concept (a country, a party) narrows the question without being its topic,
    # unless it has a section of its own (the governing law).
    topical = [c for c in draft.concepts if c not in scoped or rows_of[c]]
    found_title, found_concept = None, None
    for concept in topical:
        rows = rows_of[concept]
        title = next((t for t in (section_title(draft, r) for r in rows) if t is not None), None)
        if title is None or (found_title is not None and fold(title) != fold(found_title)):
            return None
        if found_title is None:
            found_title, found_concept = title, concept
    if found_title is None:
        return None
    draft.fire(f"concept_sections:{found_concept}/{found_title}")
    draft.options["section_from_concept"] = True
    return found_title


def _scoped_concepts(sats) -> frozenset[str]:
    concepts = sats.tables["concepts"]
    return frozenset(concepts.filter(concepts["scope_kind"].is_not_null())["concept"].to_list())


def section_title(draft: Draft, title: str) -> str | None:
    """A section title from a table row, as the caller's TOC writes it (None when the TOC
    has no such title), or as the row writes it when there is no TOC."""
    toc = [t for t in draft.options.get("toc") or () if isinstance(t, str) and t.strip()]
    if not toc:
        return title
    return match_toc(title, toc, draft.sats.defaults.toc_match_cutoff)


def _concept_sections(sats) -> tuple[dict[tuple[str, str], tuple[str, ...]], frozenset[str]]:
    """(concept, language) -> its section rows, and the concepts that have any."""
    out: dict[tuple[str, str], list[str]] = {}
    for concept, language, section in sats.concept_sections.select(
        "concept", "language", "section"
    ).iter_rows():
        out.setdefault((concept, language), []).append(section)
    return {k: tuple(v) for k, v in out.items()}, frozenset(c for c, _ in out)


def match_toc(name: str, toc: list[str], cutoff: float) -> str | None:
    """The TOC title that best fits a named section, or None when none is close enough.

    Identifiers (numbers, roman numerals, single letters: "Annex IV", "Schedule A") must all
    appear in the title, so "Schedule A" never lands on "Schedule B" however alike they look.
    A name without one must share a word stem (its first four letters) with the title, so that
    "cover" may find "Coverage" but not "Discovery", which merely contains it.
    """
    if not toc:
        return None
    ids = [t for t in _tokens(name) if _ID_TOKEN.match(t)]
    stems = _stems(name)
    candidates = [t for t in toc if set(ids) <= set(_tokens(t)) and (ids or stems & _stems(t))]
    best = process.extractOne(
        name,
        candidates,
        scorer=fuzz.WRatio,
        processor=lambda s: default_process(fold(s)),
        score_cutoff=0 if ids else cutoff,
    )
    return best[0] if best else None


def pick_matches(
    draft: Draft, rules: RuleSet, text: str, accept: Callable[[Rule, regex.Match], T | None]
) -> list[T]:
    """Leftmost-longest, non-overlapping matches of a rule set, each passed to `accept`.

    Rows that rely on capitals (a `(?-i:` part, e.g. a name after "with") are skipped when the
    question is written In Title Case or in capitals, where a capital says nothing. Where
    several rows match the same span, rows of the question's language are tried first,
    then `*` rows, then the others, until `accept` takes one; a span that none of them accepts
    (a date that does not exist) is consumed all the same, so no shorter row reads part of it.
    """
    found, blind = [], None
    for order, rule in enumerate(candidates(draft, rules, text)):
        if _CASED in rule.pattern.pattern:
            if blind is None:  # read the question's casing only when a row depends on it
                blind = _casing_is_noise(draft)
            if blind:
                continue
        rank = 0 if rule.language == draft.language else 1 if rule.language == "*" else 2
        found += [
            (m.start(), -m.end(), rank, order, rule, m)
            for m in finditer(draft, rule, text)
            if m.end() > m.start()
        ]
    found.sort(key=lambda f: f[:4])
    taken_until, span, done, accepted = -1, None, False, []
    for start, neg_end, _, _, rule, m in found:
        if (start, neg_end) != span:
            if start < taken_until:
                continue
            span, done = (start, neg_end), False
            taken_until = -neg_end
        if not done and (value := accept(rule, m)) is not None:
            accepted.append(value)
            done = True
    return accepted


def _casing_is_noise(draft: Draft) -> bool:
    """True for a question In Title Case Like This or IN CAPITALS: a capitalized function word
    after the first word gives it away (prose writes them in lower case) when every word is
    capitalized, or when there are two of them."""
    words = [t.text for t in draft.tokens if t.is_word]
    if len(words) >= 3 and all(w.isupper() for w in words):
        return True
    stops = stopwords_for(draft.sats, draft.language)
    capital_stops = sum(1 for w in words[1:] if w[:1].isupper() and fold(w) in stops)
    return capital_stops >= 2 or (capital_stops == 1 and all(w[:1].isupper() for w in words))


def _hint_rulesets(sats) -> list[RuleSet]:
    return [cue_rules(sats, family) for family in _FAMILIES]


built_first(lambda sats: union_rules(sats, "hints", _hint_rulesets))


def _contexts(draft: Draft, cued: bool = True) -> None:
    """detect_context, answer_context and need_summary; `cued`: whether their cue rows may
    match (False when the hints' gate said none can)."""
    cols = draft.columns
    detect: str | None  # a detect_context cue row may name none
    detect, answer, fired = _row_contexts(
        draft.sats, cols.get("answer_type") or "text", cols.get("answer_shape") or "single"
    )
    for rule_id in fired:
        draft.fire(rule_id)
    if not cued:
        cols.update(detect_context=detect, answer_context=answer, need_summary=False)
        return
    for rule in _all_matching(draft, "answer_context"):
        if _wider(rule.required_target(), answer):
            answer = rule.required_target()
            draft.fire(f"cues:{rule.rule_id}")
    first = next(iter(_all_matching(draft, "detect_context")), None)
    if first is not None:
        detect = first.target
        draft.fire(f"cues:{first.rule_id}")
    summary = next(iter(_all_matching(draft, "need_summary")), None)
    if summary is not None:
        draft.fire(f"cues:{summary.rule_id}")
    cols.update(detect_context=detect, answer_context=answer, need_summary=summary is not None)


def _row_contexts(sats, answer_type: str, shape: str) -> tuple[str, str, tuple[str, ...]]:
    """(detect_context, answer_context, the rows that decided them) from the answer type's
    and shape's rows alone: the same for every question of that type and shape, so each
    pair is worked out once per satellites."""
    if type(answer_type) is not str or type(shape) is not str:
        return _decide_contexts(sats, answer_type, shape)  # a custom step's enum, say
    known, key = sats.cached("hint_row_contexts", lambda s: {}), (answer_type, shape)
    if key not in known:
        if len(known) >= TEXTS:  # a custom step's free-form values: keep it bounded
            known.clear()
        known[key] = _decide_contexts(sats, answer_type, shape)
    return known[key]


def _decide_contexts(sats, answer_type: str, shape: str) -> tuple[str, str, tuple[str, ...]]:
    rows = sats.cached("hint_context_rows", _context_rows)
    type_row = rows["answer_types"].get(answer_type, {})
    detect = type_row.get("detect_context") or "sentence"
    answer = type_row.get("answer_context") or "paragraph"
    fired = [f"answer_types:{answer_type}.detect_context"] if type_row else []
    decided = f"answer_types:{answer_type}.answer_context" if type_row else None
    shape_context = rows["answer_shapes"].get(shape, {}).get("answer_context")
    if shape != AnswerShape.SINGLE and shape_context and _wider(shape_context, answer):
        answer, decided = shape_context, f"answer_shapes:{shape}.answer_context"
    return detect, answer, tuple(fired + ([decided] if decided else []))


def _context_rows(sats) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        table: {r[key]: r for r in sats.tables[table].iter_rows(named=True)}
        for table, key in (("answer_types", "answer_type"), ("answer_shapes", "answer_shape"))
    }


def _wider(context: str, than: str) -> bool:
    return context in _CONTEXT_ORDER and _CONTEXT_ORDER.index(context) > _CONTEXT_ORDER.index(than)


def _all_matching(draft: Draft, family: str) -> list[Rule]:
    """The rows of a family that match, in question order."""
    return pick_matches(draft, cue_rules(draft.sats, family), draft.original, lambda rule, m: rule)


def _strongest(draft: Draft, family: str) -> Rule | None:
    rules = _all_matching(draft, family)
    return max(rules, key=lambda r: r.weight) if rules else None  # max keeps the earliest tie


def _version(draft: Draft) -> str | None:
    def accept(rule: Rule, m: regex.Match) -> tuple[str, str] | None:
        version = next((v for v in _captures(m, "version") if v), None) or rule.target
        return (version, rule.rule_id) if version else None

    found = pick_matches(draft, cue_rules(draft.sats, "document_version"), draft.original, accept)
    if not found:
        return None
    draft.fire(f"cues:{found[0][1]}")
    return found[0][0]


def _trim_at_stopword(name: str, stops: frozenset[str]) -> str:
    """Cut a free run of words at its first function word, unless a capitalized word follows
    it as in a title ("Limits of Liability" stays whole, "limits of liability" is "limits")."""
    words = name.split()
    for i in range(1, len(words)):
        if fold(words[i]) in stops and not (i + 1 < len(words) and words[i + 1][:1].isupper()):
            return " ".join(words[:i])
    return name


def _tokens(text: str) -> list[str]:
    return [t.strip(".") for t in _TOKEN.findall(fold(text)) if t.strip(".")]


def _stems(text: str) -> set[str]:
    return {t[:4] for t in _tokens(text) if len(t) >= 3 and not t[0].isdigit()}


def _captures(m: regex.Match, group: str) -> list[str]:
    return m.captures(group) if group in m.re.groupindex else []


def _spans(m: regex.Match, group: str) -> list[tuple[int, int]]:
    return m.spans(group) if group in m.re.groupindex else []


def _unique(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    unique = []
    for value in values:
        if fold(value) not in seen:
            seen.add(fold(value))
            unique.append(value)
    return unique


def _fire(draft: Draft, rule_ids: Iterable[str]) -> None:
    for rule_id in rule_ids:
        draft.fire(f"cues:{rule_id}")
