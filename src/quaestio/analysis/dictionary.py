"""The expert-dictionary join: find concept keywords in the question, expand each matched
concept to every variant in every language, and resolve keywords that fit several concepts.

Matching runs an Aho-Corasick automaton over the folded tokens padded with spaces, so word
boundaries and overlapping multi-word keywords come for free and the cost does not grow with
the dictionary. Only `validated` rows take part.

Inflected forms: a `fuzzy` row also matches the inflections of its words in its own
language ("premiums", "deductibles", "primes", "limitaciones"), through a second automaton
over lemmas (`quaestio.analysis.morphology`) run on the question's lemmas when the question
is in that language. `exact` and `cased` rows match only as written, and when a span matches
a row as written, rows that match the same span only through lemmas are dropped: the exact
form wins.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from typing import Any

import ahocorasick

from ..satellites import Satellites
from ..types import AmbiguousKeyword, KeywordSource
from .draft import Draft
from .language import stopwords_for
from .memo import WORDS
from .morphology import lemma, lemma_key
from .text import fold, fold_word, strip_accents, tokenize

_BLOCKED = "\x00"  # stands in for protected tokens so no keyword can match across them


@dataclass(frozen=True, slots=True)
class Entry:
    concept: str
    language: str
    keyword: str
    priority: str
    weight: float
    match: str
    cased: tuple[str, ...] | None  # accent-stripped tokens a `cased` row must equal exactly


@dataclass
class DictionaryIndex:
    entries: list[Entry]
    automaton: ahocorasick.Automaton
    by_concept: dict[str, list[int]]
    token_counts: Counter  # folded token → rows using it (all match kinds): known vocabulary
    fuzzy_tokens: dict[str, str]  # folded token of `fuzzy` rows → its surface, as written
    # language → the automaton of its `fuzzy` rows' lemmas (None: no such row), built on the
    # first question in that language (`_lemma_automaton`)
    lemma_automata: dict[str | None, ahocorasick.Automaton | None] = field(default_factory=dict)


def build_index(sats: Satellites) -> DictionaryIndex:
    rows = sats.concept_keywords.filter(status="validated").select(
        "concept", "language", "keyword", "keyword_priority", "weight", "match"
    )
    entries: list[Entry] = []
    keys: dict[str, list[int]] = defaultdict(list)
    by_concept: dict[str, list[int]] = defaultdict(list)
    token_counts: Counter = Counter()
    fuzzy_tokens: dict[str, str] = {}
    for concept, language, keyword, priority, weight, match in rows.iter_rows():
        toks = tokenize(keyword)
        if not toks:
            continue
        folded = [t.folded for t in toks]
        cased = tuple(strip_accents(t.text) for t in toks) if match == "cased" else None
        idx = len(entries)
        entries.append(Entry(concept, language, keyword, priority, weight, match, cased))
        keys[" " + " ".join(folded) + " "].append(idx)
        by_concept[concept].append(idx)
        token_counts.update(folded)
        if match == "fuzzy":
            for t in toks:
                if t.is_word:
                    fuzzy_tokens.setdefault(t.folded, t.text)
    cased_rows = {i for i, e in enumerate(entries) if e.cased is not None}
    automaton = _automaton(keys, cased_rows)
    return DictionaryIndex(entries, automaton, dict(by_concept), token_counts, fuzzy_tokens)


def _automaton(keys: dict[str, list[int]], cased: Collection[int] = ()) -> ahocorasick.Automaton:
    """Space-padded keys → (key length, tokens, row ids, whether a row is `cased`): a match
    carries all `_find` needs, and most need no check of their case (`_accept`)."""
    automaton = ahocorasick.Automaton()
    for key, ids in keys.items():
        checked = any(i in cased for i in ids)
        automaton.add_word(key, (len(key), key.count(" ") - 1, tuple(ids), checked))
    if keys:
        automaton.make_automaton()
    return automaton


def dictionary_index(sats: Satellites) -> DictionaryIndex:
    return sats.cached("dictionary_index", build_index)


def dictionary_keywords(draft: Draft) -> None:
    index = dictionary_index(draft.sats)
    if not index.entries:
        return
    spans = _find(draft, index)
    if not spans:
        return
    entries = index.entries
    matches = _matches(draft.sats)
    for (first, last), ids in spans.items():  # in order of their start (see `_find`)
        concept = entries[ids[0]].concept
        if len(ids) == 1 or all(entries[i].concept == concept for i in ids):
            matched = ids
        else:
            concepts = sorted({entries[i].concept for i in ids})
            concept = _disambiguate(draft, index, (first, last), ids, concepts)
            matched = [i for i in ids if entries[i].concept == concept]
        _expand(draft, index, matches, concept, matched, first, last)


def _find(draft: Draft, index: DictionaryIndex) -> dict[tuple[int, int], list[int]]:
    """The matched spans (first, last token) → their rows, without the spans inside a longer
    one, in order of their start."""
    if draft.corrections or draft.has_protected_spans():
        folded = [
            _BLOCKED if draft.is_protected(t) else draft.folded(i)
            for i, t in enumerate(draft.tokens)
        ]
    else:  # most questions: the tokens' own folds
        folded = [t.folded for t in draft.tokens]
    text = " " + " ".join(folded) + " "
    spans = _spans(draft, index.automaton, text, folded, index.entries)
    # The exact form wins: the inflected pass skips the spans found as written.
    spans.update(_find_inflected(draft, index, folded, spans.keys(), text))
    if len(spans) < 2:
        return spans
    # A keyword inside a longer matched keyword is less specific: the longer one wins.
    # Sorted by start, longest first, a span is inside another iff an earlier one ends later.
    # So the spans kept start at distinct tokens, in order.
    kept, reach = {}, -1
    for span in sorted(spans, key=_start_then_longest):
        if span[1] > reach:
            kept[span] = spans[span]
            reach = span[1]
    return kept


def _start_then_longest(span: tuple[int, int]) -> tuple[int, int]:
    return span[0], -span[1]


def _spans(
    draft: Draft,
    automaton: ahocorasick.Automaton,
    text: str,
    words: list[str],
    entries: list[Entry],
    found: Collection[tuple[int, int]] = (),
) -> dict[tuple[int, int], list[int]]:
    """The spans of `words` (joined into `text`) that an automaton's keys match, but for
    those in `found`, each with the rows its key stands for (one key per span: the key is
    the span's words). `cased` rows must also match as written (`_accept`)."""
    spans: dict[tuple[int, int], list[int]] = {}
    start_of = None  # built on the first match: most questions match nothing
    shouting = None  # asked only when a `cased` row matches (a code: "US", "IT")
    for end, (length, ntok, ids, checked) in automaton.iter(text):
        if start_of is None:
            start_of = _start_of(words)
        first = start_of.get(end - length + 2)
        if first is None:  # a key of empty folds ("ͺ") met the padding of a tokenless text
            continue
        last = first + ntok - 1
        if found and (first, last) in found:
            continue
        if not checked:  # most keys: nothing to check
            spans[first, last] = list(ids)
            continue
        if shouting is None:
            shouting = not any(map(str.islower, draft.original))
        ok = [i for i in ids if _accept(draft, entries[i], first, last, shouting)]
        if ok:
            spans[first, last] = ok
    return spans


def _start_of(words: list[str]) -> dict[int, int]:
    """Where each word starts in `" " + " ".join(words) + " "` -> its index."""
    # (positions summed in C: a loop over the words was a tenth of the step)
    return dict(zip(accumulate(map((1).__add__, map(len, words)), initial=1), range(len(words))))


def _find_inflected(
    draft: Draft,
    index: DictionaryIndex,
    folded: list[str],
    found: Collection[tuple[int, int]] = (),
    text: str | None = None,
) -> dict[tuple[int, int], list[int]]:
    """Spans whose lemmas match the lemmas of a `fuzzy` row of the question's language,
    but for the spans in `found` (matched as written); `text`: `folded` joined as `_find`
    did, when it has it."""
    language = draft.language
    automaton = _lemma_automaton(index, language)
    if automaton is None:
        return {}
    if draft.corrections:
        written = [_written(draft, i) for i in range(len(folded))]
    else:
        written = [t.text for t in draft.tokens]
    words = list(map(_lemma_word, written, repeat(language)))
    if _BLOCKED in folded:
        words = [_BLOCKED if f == _BLOCKED else w for f, w in zip(folded, words)]
    if text is None or words != folded:  # (most words are their own lemma: often all are)
        text = " " + " ".join(words) + " "
    spans = _spans(draft, automaton, text, words, index.entries, found)
    for span, ids in list(spans.items()):
        if span[0] == span[1]:  # one word alone: only its number or gender may differ
            word = folded[span[0]]
            kept = [i for i in ids if _same_word(word, index.entries[i].keyword)]
            if kept:
                spans[span] = kept
            else:
                del spans[span]
    return spans


@functools.lru_cache(maxsize=WORDS)
def _lemma_word(written: str, language: str | None) -> str:
    """A token's lemma as one word: a lemma must stay one word for the spans to line up
    with the tokens, so a form with a space inside (characters whose NFKC form holds one)
    keeps the token's fold. Cached whole: `lemma` is, but the check around it was most of
    the step's cost on short questions."""
    lemma_form = lemma(written, language)
    if lemma_form and not any(c.isspace() for c in lemma_form):
        return lemma_form
    return fold_word(written)


# Endings that change number or gender, not the part of speech. A one-word row meets only
# these forms: "interesting" is not "interest", "guaranteed" not the noun "guarantee",
# "limited" not "limit" (measured on InsuranceQA and TREC/XQuAD, see bench/morphology.py).
# Inside a phrase ("the law governs", "the policy expires") the other words carry the sense.
_NUMBER_GENDER = ("s", "es", "x", "e", "a", "as", "o", "os", "ies", "y")


@functools.lru_cache(maxsize=WORDS)
def _same_word(word: str, keyword: str) -> bool:
    # Cached: the same (question word, row keyword) pairs come back row after row.
    key = fold(keyword)
    if word == key:
        return True
    short, long_ = sorted((word, key), key=len)
    stem = len(short)
    while stem and not long_.startswith(short[:stem]):
        stem -= 1
    return (
        len(short) - stem <= 1
        and short[stem:] in ("", *_NUMBER_GENDER)
        and long_[stem:] in _NUMBER_GENDER
    )


def lemma_automaton(sats: Satellites, language: str | None) -> ahocorasick.Automaton | None:
    """Build (or return) the lemma automaton of one language ahead of its first question."""
    return _lemma_automaton(dictionary_index(sats), language)


def _written(draft: Draft, i: int) -> str:
    fix = draft.corrections.get(i)
    return fix.corrected if fix is not None else draft.tokens[i].text


def _lemma_automaton(index: DictionaryIndex, language: str | None) -> ahocorasick.Automaton | None:
    """The `fuzzy` rows of one language keyed by their lemmas, built on first use (so an
    English question never loads the Spanish lemma table)."""
    cache = index.lemma_automata
    if language not in cache:
        keys: dict[str, list[int]] = defaultdict(list)
        for idx, e in enumerate(index.entries):
            if e.match == "fuzzy" and e.language == language:
                keys[lemma_key([t.text for t in tokenize(e.keyword)], language)].append(idx)
        cache[language] = _automaton(keys) if keys else None
    return cache[language]


def _accept(draft: Draft, entry: Entry, first: int, last: int, shouting: bool) -> bool:
    if entry.cased is None:
        return True
    if shouting and len(entry.keyword) <= 3:
        return False  # in an all-caps question "DE" or "IT" says nothing about a country
    if draft.corrections and any(i in draft.corrections for i in range(first, last + 1)):
        return False
    if first == last:  # most codes are one token
        return strip_accents(draft.tokens[first].text) == entry.cased[0]
    return all(
        strip_accents(draft.tokens[i].text) == c
        for i, c in zip(range(first, last + 1), entry.cased)
    )


def _expand(
    draft: Draft,
    index: DictionaryIndex,
    matches: dict[tuple, tuple[dict, VariantBlock | None]],
    concept: str,
    matched: list[int],
    first: int,
    last: int,
) -> None:
    lang = draft.language
    if len(matched) == 1:
        best = matched[0]
    else:
        best = min(matched, key=lambda i: _rank(index.entries[i], lang))
    if concept in draft.concepts:
        draft.keywords.append(_spanned(_keyword(index, best), draft, first, last))
        return
    draft.concepts.append(concept)
    key = (concept, lang, best)
    found = matches.get(key)
    if found is None:
        variants = _variants(draft.sats, index, concept, lang)
        found = matches[key] = (variants[best], variant_block(draft.sats, variants, key))
    spanned = _spanned(found[0], draft, first, last)
    draft.keywords.append(spanned)
    if found[1] is not None:  # shared, not copied: they wait after `spanned` (`Draft.expansions`)
        draft.expansions[id(spanned)] = (spanned, found[1])


def _spanned(keyword: dict, draft: Draft, first: int, last: int) -> dict:
    """A copy of `keyword` spanning tokens first..last (its span keys keep their place)."""
    out = keyword.copy()
    out["span_start"] = draft.tokens[first].start
    out["span_end"] = draft.tokens[last].end
    return out


def _matches(sats: Satellites) -> dict[tuple, tuple[dict, VariantBlock | None]]:
    """(concept, language, best entry) -> the best keyword's dict and the block of the other
    variants: what `_expand` needs for a concept, found in one lookup (a row matching five
    concepts made five trips through `_variants` and `variant_block`)."""
    return sats.cached("dictionary_matches", lambda s: {})


@dataclass(eq=False, slots=True)
class VariantBlock:
    """The variants a matched concept brings after its best keyword (which carries the span),
    built once per (concept, language, best entry) and satellites, and shared read-only by
    every row that matches it: the row pays a list copy, not one dict per variant."""

    keywords: list[dict]  # every variant but the best, in rank order, as the steps see them
    kept: list[dict]  # the same, duplicates of a folded text inside the block dropped
    keys: frozenset[str]  # the folded texts of `keywords`
    folded: list[str]  # each keyword's folded text, in the order of `keywords`
    kept_ids: frozenset[int]  # id() of the dicts of `kept`
    arrow: Any = None  # `kept` as an Arrow struct array, built by the first table that needs it


@dataclass
class VariantBlocks:
    by_key: dict[tuple, VariantBlock | None] = field(default_factory=dict)
    # id() of a block's first dict -> block. Safe: the blocks (and so their dicts) live as
    # long as this registry, so no other object can carry these ids meanwhile.
    by_first: dict[int, VariantBlock] = field(default_factory=dict)


def expand_pieces(pieces: list[Any]) -> list[dict]:
    """The plain keyword list of `finish_pieces`' `keywords`: each block as its `kept`."""
    out: list[dict] = []
    for piece in pieces:
        if type(piece) is VariantBlock:
            out += piece.kept
        else:
            out.append(piece)
    return out


def variant_blocks(sats: Satellites) -> VariantBlocks:
    return sats.cached("variant_blocks", lambda s: VariantBlocks())


def variant_block(
    sats: Satellites, variants: dict[int, dict], key: tuple[str, str | None, int]
) -> VariantBlock | None:
    registry = variant_blocks(sats)
    if key not in registry.by_key:
        # Copies of its own, so that a dict's id names one block (see `VariantBlocks`).
        keywords = [dict(k) for i, k in variants.items() if i != key[2]]
        block = None
        if keywords:
            folded = [fold(k["text"]) for k in keywords]
            winner: dict[str, dict] = {}
            for k, text in zip(keywords, folded):  # as `pipeline._deduplicate`, one source
                held = winner.get(text)
                if held is None or k["weight"] > held["weight"]:
                    winner[text] = k
            kept = [k for k, text in zip(keywords, folded) if winner[text] is k]
            block = VariantBlock(
                keywords, kept, frozenset(winner), folded, frozenset(map(id, kept))
            )
            registry.by_first[id(keywords[0])] = block
        registry.by_key[key] = block
    return registry.by_key[key]


def _variants(
    sats: Satellites, index: DictionaryIndex, concept: str, language: str | None
) -> dict[int, dict]:
    """A concept's keywords, best first for this language, built once per (concept, language);
    shared by every row, so never mutated (`unified.boost` only touches spanned keywords,
    which are fresh copies)."""
    cache = sats.cached("variant_order", lambda s: {})
    key = (concept, language)
    if key not in cache:
        order = sorted(index.by_concept[concept], key=lambda j: _rank(index.entries[j], language))
        cache[key] = {i: _keyword(index, i) for i in order}
    return cache[key]


def _keyword(index: DictionaryIndex, i: int) -> dict:
    e = index.entries[i]
    return {
        "text": e.keyword,
        "weight": e.weight,
        "source": KeywordSource.EXPERT_DICTIONARY,
        "span_start": None,
        "span_end": None,
        "rule_id": f"concept_keywords:{e.concept}/{e.language}/{e.keyword}",
        "concept": e.concept,
        "language": e.language,
        "keyword_priority": e.priority,
        "semantic_group": e.concept,
    }


def _rank(e: Entry, language: str | None) -> tuple:
    return (e.language not in (language, "*"), e.priority != "primary", -e.weight, e.keyword)


def _stem(word: str) -> str:
    # A crude prefix stem lets "insurer" meet "insurance" without a language-specific stemmer.
    return word[:5]


def _concept_context(sats: Satellites, index: DictionaryIndex, concept: str) -> frozenset[str]:
    cache = sats.cached("concept_context", lambda s: {})
    if concept not in cache:
        definition = sats.concepts.filter(concept=concept)["definition"].to_list()
        words = {t.folded for text in definition for t in tokenize(text or "")}
        words |= {
            t.folded for i in index.by_concept[concept] for t in tokenize(index.entries[i].keyword)
        }
        cache[concept] = frozenset(_stem(w) for w in words if len(w) > 2)
    return cache[concept]


def _context(draft: Draft) -> Counter:
    """Stems of the question's content words, counted once per question."""
    if "context_stems" not in draft.options:
        stop = stopwords_for(draft.sats, draft.language)
        draft.options["context_stems"] = Counter(
            _stem(draft.folded(i))
            for i, t in enumerate(draft.tokens)
            if len(t.folded) > 2 and draft.folded(i) not in stop
        )
    return draft.options["context_stems"]


def _overlap(context: Counter, own: Counter, words: frozenset[str]) -> int:
    """How many of a concept's stems the question uses outside the ambiguous span: counted
    over the question's stems, not the concept's (a definition may hold hundreds), as a stem
    the question lacks has no count above its span's."""
    return sum(1 for stem, n in context.items() if n > own[stem] and stem in words)


def _disambiguate(
    draft: Draft,
    index: DictionaryIndex,
    span: tuple[int, int],
    ids: list[int],
    concepts: list[str],
) -> str:
    context = _context(draft)
    own = Counter(_stem(draft.folded(i)) for i in range(span[0], span[1] + 1))
    keys = {}
    for concept in concepts:
        entries = [index.entries[i] for i in ids if index.entries[i].concept == concept]
        overlap = _overlap(context, own, _concept_context(draft.sats, index, concept))
        keys[concept] = (
            overlap,
            any(e.language in (draft.language, "*") for e in entries),
            any(e.priority == "primary" for e in entries),
            max(e.weight for e in entries),
        )
    order = sorted(concepts, key=lambda c: (tuple(-float(v) for v in keys[c]), c))
    top, runner = keys[order[0]], keys[order[1]]
    names = ("definition_overlap", "language", "priority", "weight")
    method = next((n for n, a, b in zip(names, top, runner) if a != b), "alphabetical")
    first, last = span
    draft.ambiguous.append(
        AmbiguousKeyword(
            text=draft.original[draft.tokens[first].start : draft.tokens[last].end],
            span_start=draft.tokens[first].start,
            span_end=draft.tokens[last].end,
            candidates=order,
            scores=[float(keys[c][0]) for c in order],
            chosen=order[0],
            method=method,
        )
    )
    return order[0]
