"""The parse pipeline: a replaceable tuple of steps that fill a `Draft`, then one row."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import __version__
from ..errors import QuestionError, ReasonCode, WarningCode
from ..refiners import as_refiner
from ..satellites import Satellites, bundled_satellites
from ..schema import from_record, to_record
from ..types import KeywordSource, ParsedQuestion
from .anchors import anchor_keywords
from .answer import answer_shape_and_type
from .clarify import clarify
from .decompose import decompose
from .dictionary import VariantBlock, dictionary_keywords, expand_pieces, variant_blocks
from .direct import direct_keywords
from .dispatch import dispatch_plan
from .draft import Draft
from .explicit import explicit_keywords
from .hints import structural_hints
from .language import detect_language
from .memo import TEXTS
from .negation import negative_hints
from .scope import scope_filters
from .spelling import correct_spelling
from .text import clean, fold, tokenize, without_surrogates

Step = Callable[[Draft], None]

# Explicit terms and anchors come before spelling so that quoted text and codes are never
# "corrected"; the dictionary reads the corrected tokens; direct tokens come after so they
# can skip what the earlier steps already explained. The answer type feeds the hints'
# context defaults; clarification sees the decomposition; dispatch reads everything.
DEFAULT_STEPS: tuple[Step, ...] = (
    detect_language,
    explicit_keywords,
    anchor_keywords,
    correct_spelling,
    dictionary_keywords,
    direct_keywords,
    negative_hints,
    answer_shape_and_type,
    structural_hints,
    scope_filters,
    decompose,
    clarify,
    dispatch_plan,
)
_BUILT_IN = frozenset(DEFAULT_STEPS)


@functools.lru_cache(maxsize=256)
def _built_in(step: Step) -> bool:
    # Asked for every step of a row that matched a concept: `inspect.unwrap` each time cost
    # more than a step that keeps its defaults. A step wrapped by `functools.wraps` (a
    # timer, a tracer) is still the built-in step it wraps.
    return step in _BUILT_IN or inspect.unwrap(step) in _BUILT_IN


# When one term comes from several sources, the row keeps it once, from the most telling one.
_PRECEDENCE = {
    s: n
    for n, s in enumerate(
        (
            KeywordSource.EXPLICIT,
            KeywordSource.ANCHOR,
            KeywordSource.EXPERT_DICTIONARY,
            KeywordSource.DIRECT,
            KeywordSource.LLM_REWRITE,
        )
    )
}


def prepare(satellites: Satellites | None = None) -> Satellites:
    """Build every index the steps use now rather than on the first question.

    A service calls this at start-up so that no user waits for the automaton, the spelling
    index or a language's word list to load. Returns the satellites it prepared.
    """
    from .dictionary import dictionary_index, lemma_automaton
    from .spelling import deletion_index, language_vocabulary

    sats = satellites if satellites is not None else bundled_satellites()
    dictionary_index(sats)
    for language in sats.stopwords["language"].unique().sort():
        deletion_index(sats, language)
        language_vocabulary(language)
        lemma_automaton(sats, language)
    parse_question("warm up the rules", sats)
    return sats


def check_question(
    question: Any,
    *,
    row: int | None = None,
    column: str | None = None,
    max_chars: int | None = None,
) -> str:
    """Return the question if it is a non-empty string of at most `max_chars` characters,
    else raise `QuestionError`."""
    if question is None or (isinstance(question, float) and question != question):
        raise QuestionError(
            ReasonCode.MISSING_QUESTION,
            "the question is missing",
            row=row,
            column=column,
            value=question,
        )
    if not isinstance(question, str):
        raise QuestionError(
            ReasonCode.NOT_A_STRING,
            f"the question must be a string, not {type(question).__name__}",
            row=row,
            column=column,
            value=question,
        )
    if not question.strip():
        raise QuestionError(
            ReasonCode.EMPTY_QUESTION,
            "the question is empty",
            row=row,
            column=column,
            value=question,
        )
    if max_chars is not None and len(question) > max_chars:
        # A second line of defence after linear steps: a pasted document is not a question.
        raise QuestionError(
            ReasonCode.QUESTION_TOO_LONG,
            f"the question has {len(question):,} characters, more than "
            f"max_question_chars={max_chars:,} (a `defaults` row)",
            row=row,
            column=column,
            value=question[:40] + "...",
        )
    return question


def parse_question(
    question: str,
    satellites: Satellites | None = None,
    *,
    question_id: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    context: str | Sequence[str] | None = None,
    parties: Sequence[str] | None = None,
    steps: Sequence[Step] = DEFAULT_STEPS,
    llm: Any = None,
) -> ParsedQuestion:
    """Parse one question into a typed row, offline unless `llm` is given.

    Args:
        question: The user's question, as typed.
        satellites: The tables to join against; the bundled defaults when None.
        question_id: The row's id; a hash of the question when None.
        language: Force the language (ISO 639-1) instead of detecting it.
        toc: Section titles of the target document; a named section is matched to one.
        scope: Filters the caller knows and the question need not name, e.g.
            {"jurisdictions": ["FR"], "date_from": "2022-01-01", "parties": ["Acme"]};
            merged with the question's own, each value recording its origin.
        context: Earlier turns of the conversation (latest last); they resolve references
            such as "that contract" that would otherwise call for a clarification.
        parties: Names of parties the caller knows (counterparties, insurers, ...).
        steps: The parse steps to run, in order (`DEFAULT_STEPS`); reorder, drop or add.
        llm: The LLM mode: a `quaestio.llm.LLM`, an `LLMConfig`, or True (configured from
            `QUAESTIO_LLM_*`). The offline steps run first; one structured call then
            fills every family, checked against the satellites, field by field falling
            back to the offline values (`llm_status` says ok, cached or fallback:<reason>).
            None (default): offline, no network.

    Returns:
        A `ParsedQuestion`: keywords with their source, weight, span and rule; concepts;
        ambiguities and how they were resolved; provenance.

    Raises:
        QuestionError: (a ValueError) if the question is None, not a string, empty, or
            longer than the `max_question_chars` default.

    Examples:
        >>> row = parse_question('Search for "force majeure" in this contract')
        >>> row.keywords_by_source("explicit")
        ['force majeure']
    """
    return from_record(
        parse_record(
            question,
            satellites,
            question_id=question_id,
            language=language,
            toc=toc,
            scope=scope,
            context=context,
            parties=parties,
            steps=steps,
            llm=llm,
        )
    )


def parse_record(
    question: str,
    satellites: Satellites | None = None,
    *,
    question_id: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    context: str | Sequence[str] | None = None,
    parties: Sequence[str] | None = None,
    steps: Sequence[Step] = DEFAULT_STEPS,
    llm: Any = None,
) -> dict[str, Any]:
    """Run the steps and return the flat question_df record, unvalidated.

    `parse_question` validates it into a `ParsedQuestion`; `parse_questions` hands records
    straight to Arrow, whose schema checks every type, which saves a model per row.
    """
    draft, started = run_steps(
        question,
        satellites,
        question_id=question_id,
        language=language,
        toc=toc,
        scope=scope,
        context=context,
        parties=parties,
        steps=steps,
    )
    if llm is None:
        return finish_record(draft, started)
    return as_refiner(llm, draft.sats).parse_draft(draft, started, finish_record)


def run_steps(
    question: str,
    satellites: Satellites | None = None,
    *,
    question_id: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    context: str | Sequence[str] | None = None,
    parties: Sequence[str] | None = None,
    steps: Sequence[Step] = DEFAULT_STEPS,
) -> tuple[Draft, float]:
    """The offline pass: the filled `Draft` and the time it started (for latency_ms)."""
    started = time.perf_counter()
    draft = new_draft(
        question,
        satellites,
        question_id=question_id,
        language=language,
        toc=toc,
        scope=scope,
        context=context,
        parties=parties,
    )
    for step in steps:
        _run_step(draft, step)
    return draft, started


def new_draft(
    question: str,
    satellites: Satellites | None = None,
    *,
    question_id: str | None = None,
    language: str | None = None,
    toc: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    context: str | Sequence[str] | None = None,
    parties: Sequence[str] | None = None,
) -> Draft:
    """The draft of a checked question, before any step (the options of `run_steps`)."""
    sats = satellites if satellites is not None else bundled_satellites()
    text, repaired = without_surrogates(
        check_question(question, column="question", max_chars=sats.defaults.max_question_chars)
    )
    draft = Draft(
        question_id=question_id or _default_id(text),
        original=text,
        sats=sats,
        tokens=tokenize(text),
        options={
            "language": language,
            "toc": list(toc or ()),
            "scope": dict(scope or {}),
            "context": [context] if isinstance(context, str) else list(context or ()),
            "parties": list(parties or ()),
        },
    )
    if repaired:
        draft.warnings.append(
            f"{WarningCode.W103_TEXT_REPAIRED}: {repaired} lone surrogate(s) replaced by U+FFFD"
        )
    return draft


def run_steps_together(
    drafts: Sequence[Draft], steps: Sequence[Step] = DEFAULT_STEPS
) -> tuple[list[float], dict[int, Exception]]:
    """`run_steps` over a batch, step by step: every draft of a window (`_WINDOW`) goes
    through a step before any goes through the next. A step reads and writes only its own
    draft (and the satellites' caches, whose answers do not depend on the order they are
    asked in), so the drafts are those `run_steps` gives one by one; but a step's patterns,
    automata and memos stay warm in the CPU caches across the window, instead of being
    evicted by a dozen other steps between two questions (`bench/parse_profile.py`: about
    x1.3 on the whole parse).

    Returns each draft's seconds in the steps (its `latency_ms`), and by position the
    exception that stopped a draft, which then skips the later steps."""
    spent = [0.0] * len(drafts)
    failed: dict[int, Exception] = {}
    clock = time.perf_counter
    for low in range(0, len(drafts), _WINDOW):
        for step in steps:
            last = clock()
            for i in range(low, min(low + _WINDOW, len(drafts))):
                if failed and i in failed:
                    continue
                try:
                    _run_step(drafts[i], step)
                except Exception as exc:  # one question's failure is its own row
                    failed[i] = exc
                now = clock()
                spent[i] += now - last
                last = now
    return spent, failed


# Drafts that go through the steps together. The text memos (`memo.TEXTS` entries, emptied
# when full) must still hold a draft's answers when its next step asks: a question is asked
# about under several texts (as typed, casefolded, corrected, its sub-questions).
_WINDOW = max(1, TEXTS // 8)


def _run_step(draft: Draft, step: Step) -> None:
    if draft.expansions and not _built_in(step):
        # The built-in steps know that a matched concept's variants wait in
        # `draft.expansions`; a caller's own step reads `draft.keywords` whole.
        draft.expand_variants()
    step(draft)


def finish_record(draft: Draft, started: float) -> dict[str, Any]:
    """The flat record of a draft whose steps have run (callable again after a merge)."""
    record = finish_pieces(draft, started)
    record["keywords"] = expand_pieces(record["keywords"])
    return record


def finish_pieces(draft: Draft, started: float) -> dict[str, Any]:
    """`finish_record`, but for the batch path: in `keywords`, a concept's shared variants
    that the row keeps whole stay one `dictionary.VariantBlock` (its `kept` keywords), which
    `columns.keywords_column` turns into Arrow by one `take`; `expand_pieces` gives the plain
    list. The row's cost then follows the number of matched concepts, not of variants."""
    sats = draft.sats
    record = dict(_DEFAULT_RECORD)
    record.update(draft.columns)
    record.update(
        question_id=draft.question_id,
        original_question=draft.original,
        corrected_question=_cleaned(draft.corrected_text()),
        language=draft.language,
        spelling_corrections=[
            dict(c.__dict__)
            for c in sorted(draft.corrections.values(), key=lambda c: c.span_start)
        ],
        keywords=_deduplicated_pieces(draft.keywords, sats, draft.expansions),
        concepts=list(draft.concepts),
        ambiguous_keywords=[dict(a.__dict__) for a in draft.ambiguous],
        satellites_version=sats.version,
        quaestio_version=__version__,
        rules_fired=list(draft.rules_fired),
        warnings=list(draft.warnings),
        latency_ms=(time.perf_counter() - started) * 1000,
    )
    return record


def _cleaned(text: str) -> str:
    """`clean(text)`, without its work on most questions: printable ASCII is its own NFKC
    form and holds no control or format character."""
    return text if text.isascii() and text.isprintable() else clean(text)


# Columns that no step has set keep the documented defaults of the row model.
_DEFAULT_RECORD = to_record(ParsedQuestion(question_id="", original_question=None))


def _default_id(text: str) -> str:
    import hashlib

    return "q_" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _deduplicate(keywords: list[dict], sats: Satellites) -> list[dict]:
    """Each folded text once, from the most telling source (`_PRECEDENCE`), then the higher
    weight, then the first; in the order the steps added them."""
    return expand_pieces(_deduplicated_pieces(keywords, sats))


def _deduplicated_pieces(
    keywords: list[dict], sats: Satellites, expansions: dict[int, tuple[dict, Any]] | None = None
) -> list[Any]:
    """`_deduplicate`, with each block the row keeps whole left as the block; the blocks of
    `expansions` (`Draft.expansions`) stand right after the keyword that brought them.

    A concept's shared variants (`dictionary.VariantBlock`) are read as one piece: already
    deduplicated among themselves, with their folded texts, so the work per row follows the
    number of pieces, not of variants, except for the texts two pieces share.
    """
    if not expansions and _all_distinct(keywords, sats):
        return list(keywords)  # most rows: nothing to drop, no block to read
    pieces, keys, shared = _pieces(keywords, sats, expansions or {})
    if not shared:  # every piece is kept as it is
        return pieces
    best: dict[str, dict] = {}  # the winner of each shared text, in the order of the steps
    for piece, key in zip(pieces, keys):
        if key is None and piece.keys.isdisjoint(shared):
            continue  # a block none of whose texts another piece has
        for k, folded in zip(piece.keywords, piece.folded) if key is None else [(piece, key)]:
            if folded not in shared:
                continue
            held = best.get(folded)
            if held is None or (
                (_PRECEDENCE[k["source"]], -k["weight"])
                < (_PRECEDENCE[held["source"]], -held["weight"])
            ):
                best[folded] = k
    out: list[Any] = []
    for piece, key in zip(pieces, keys):
        if key is not None:
            if key not in shared or best[key] is piece:
                out.append(piece)
        elif isinstance(piece, VariantBlock) and piece.keys.isdisjoint(shared):
            out.append(piece)  # kept whole: stays one piece
        else:
            out += [
                k
                for k, folded in zip(piece.keywords, piece.folded)
                if (best[folded] is k if folded in shared else id(k) in piece.kept_ids)
            ]
    return out


def _all_distinct(keywords: list[dict], sats: Satellites) -> bool:
    """Whether the keywords' folded texts are all different and none starts a block spelled
    out in the list: `_pieces` would then give them as they are, sharing no text."""
    texts = {fold(k["text"]) for k in keywords}
    return len(texts) == len(keywords) and variant_blocks(sats).by_first.keys().isdisjoint(
        map(id, keywords)
    )


def _pieces(
    keywords: list[dict], sats: Satellites, waiting: dict[int, tuple[dict, Any]]
) -> tuple[list[Any], list[str | None], set[str]]:
    """The row's pieces in order (a keyword dict, or a block standing for its keywords), each
    dict's folded text (None for a block), and the folded texts two pieces share."""
    starts = variant_blocks(sats).by_first
    pieces: list[Any] = []
    keys: list[str | None] = []
    seen: set[str] = set()
    shared: set[str] = set()
    i, n = 0, len(keywords)
    while i < n:
        k = keywords[i]
        block = starts.get(id(k))
        if block is not None and keywords[i : i + len(block.keywords)] == block.keywords:
            i += len(block.keywords)  # a block spelled out in the list (`expand_variants`)
        else:
            text = fold(k["text"])
            if text in seen:
                shared.add(text)
            seen.add(text)
            pieces.append(k)
            keys.append(text)
            i += 1
            after = waiting.get(id(k)) if waiting else None
            block = after[1] if after is not None and after[0] is k else None
        if block is not None:
            if not seen.isdisjoint(block.keys):
                shared |= seen & block.keys
            seen |= block.keys
            pieces.append(block)
            keys.append(None)
    return pieces, keys, shared
