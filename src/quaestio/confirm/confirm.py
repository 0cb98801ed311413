"""`confirm(question_df, hits_df)`: typed values next to the question's keywords, per passage.

A passage that holds a keyword of the question AND, in the same zone, a value of the
question's answer type is strong evidence; keywords without any such value in all the
passages mean the answer is probably not in the documents. `confirm` returns both views:

    >>> from quaestio import parse_question
    >>> q = parse_question("What is the annual premium?")
    >>> hits = [{"question_id": q.question_id, "chunk_id": "c1",
    ...          "generation_text": "Annual premium: EUR 1,250.00. Deductible: 500 EUR."}]
    >>> result = confirm(q, hits, as_="arrow")
    >>> result.answers.column("value").to_pylist()
    ['1250.00 EUR', '500 EUR']
    >>> result.verdicts.column("verdict").to_pylist()
    ['found']

`result.answers` (answers_df, `ANSWER_SCHEMA`) has one row per (question, passage, value);
`result.verdicts` (`VERDICT_SCHEMA`) exactly one row per question, in question order.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple

import pyarrow as pa

from ..satellites import Satellites, bundled_satellites
from ..schema import table_to_frame as to_engine
from .inputs import read_hits, read_questions
from .parsers import Amount
from .patterns import has_patterns, patterns_for, scan
from .schema import ANSWER_SCHEMA, VERDICT_SCHEMA, engine_of
from .verdict import Evidence, verdict_row
from .zones import KeywordMatcher, fold, proximity_confidence, zone_index, zones


class Confirmation(NamedTuple):
    answers: Any  # answers_df, in the caller's engine
    verdicts: Any  # one row per question


def confirm(
    question_df: Any,
    hits_df: Any,
    *,
    satellites: Satellites | None = None,
    text_column: str = "generation_text",
    as_: str | None = None,
    require_keyword: bool = False,
) -> Confirmation:
    """Confirm the answer type of each question in its retrieved passages.

    Args:
        question_df: question_df (pandas, polars, Arrow), a ParsedQuestion or a list of them.
            Reads `question_id`, `answer_type`, `detect_context` (the zone; the answer
            type's default when absent), `language` and `keywords` (structs with `text` and
            `weight`, or plain strings).
        hits_df: Passages (pandas, polars, Arrow, or a list of dicts) with `question_id` and
            the text; `chunk_id`, `doc_id`, `rank`, `score` are kept when present (the row
            index and the order of a question's hits stand in for chunk_id and rank).
        satellites: Tables holding the patterns (bundled ones by default).
        text_column: The column holding the passage text.
        as_: "pandas", "polars" or "arrow"; by default the engine of `hits_df`.
        require_keyword: Keep only values that share their zone with a keyword.

    Returns:
        `Confirmation(answers, verdicts)`.

    Raises:
        ConfirmInputError: a missing column, a bad value (naming its row and column), or a
            hit whose question_id is not in question_df.
    """
    sats = satellites or bundled_satellites()
    questions = read_questions(question_df, sats)
    hits = read_hits(hits_df, text_column)
    timeout = sats.defaults.regex_timeout_ms / 1000
    by_question: dict[str, list[int]] = {q.question_id: [] for q in questions}
    for row, qid in enumerate(hits["question_id"]):
        if qid not in by_question:
            from .inputs import ConfirmInputError

            raise ConfirmInputError(
                "hits_df", row, "question_id", qid, "not a question_id of question_df"
            )
        by_question[qid].append(row)
    columns: dict[str, list] = {name: [] for name in ANSWER_SCHEMA.names}
    verdicts = []
    values_cache: dict[tuple, tuple] = {}
    zones_cache: dict[tuple, tuple] = {}
    for q in questions:
        evidence = Evidence(
            q, confirmable=q.answer_type != "text" and has_patterns(sats, q.answer_type)
        )
        if evidence.confirmable:
            patterns = patterns_for(sats, q.answer_type, q.language)
            matcher = KeywordMatcher(q.keywords)
            for row in by_question[q.question_id]:
                text = hits["text"][row] or ""
                key = (text, q.answer_type, q.language)
                if key not in values_cache:
                    warnings: list[str] = []
                    values_cache[key] = (
                        scan(
                            patterns,
                            text,
                            language=q.language,
                            timeout=timeout,
                            sats=sats,
                            warnings=warnings,
                        ),
                        fold(text),
                        warnings,
                    )
                values, folded, warnings = values_cache[key]
                found, late = matcher.find(folded, timeout)
                if late:
                    warnings = warnings + [
                        f"W101: keywords of {q.question_id!r} exceeded "
                        f"{sats.defaults.regex_timeout_ms} ms; skipped"
                    ]
                found = [(s, e, text[s:e], w) for s, e, _, w in found]
                evidence.add_passage(bool(found), len(values), warnings)
                if not values:
                    continue
                zkey = (text, q.zone)
                if zkey not in zones_cache:
                    spans = zones(text, q.zone)
                    zones_cache[zkey] = (spans, [s for s, _ in spans])
                spans, starts = zones_cache[zkey]
                kw_by_zone: dict[int, list] = {}
                for k in found:
                    kw_by_zone.setdefault(zone_index(starts, k[0]), []).append(k)
                for v in values:
                    z = zone_index(starts, v.start)
                    nearest = _nearest(v, kw_by_zone.get(z, []))
                    if require_keyword and nearest is None:
                        continue
                    _append(columns, hits, row, q, v, text, spans[z], nearest)
                    evidence.add_candidate(columns, len(columns["question_id"]) - 1)
        verdicts.append(verdict_row(evidence))
    answers = pa.Table.from_pydict(columns, schema=ANSWER_SCHEMA)
    engine = as_ or engine_of(hits_df)
    return Confirmation(
        to_engine(answers, engine),
        to_engine(pa.Table.from_pylist(verdicts, schema=VERDICT_SCHEMA), engine),
    )


def _nearest(value, keywords: list) -> tuple[str, int, float] | None:
    best = None
    for start, end, text, weight in keywords:
        distance = max(start - value.end, value.start - end, 0)
        if best is None or (distance, -weight) < (best[1], -best[2]):
            best = (text, distance, weight)
    return best


def _append(
    columns: dict, hits: dict, row: int, q, v, text: str, zone: tuple[int, int], nearest
) -> None:
    parsed = v.value
    number = parsed.amount if isinstance(parsed, Amount) else parsed
    as_float = float(number) if isinstance(number, (int, float, Decimal)) else None
    if isinstance(parsed, bool):
        as_float = None
    record = {
        "question_id": q.question_id,
        "chunk_id": hits["chunk_id"][row],
        "doc_id": hits["doc_id"][row],
        "rank": hits["rank"][row],
        "score": hits["score"][row],
        "answer_type": q.answer_type,
        "pattern_id": v.pattern_id,
        "zone": q.zone,
        "zone_start": zone[0],
        "zone_end": zone[1],
        "zone_text": text[zone[0] : zone[1]],
        "value_text": v.text,
        "value_start": v.start,
        "value_end": v.end,
        "value": None
        if parsed is None
        else (str(parsed).lower() if isinstance(parsed, bool) else str(parsed)),
        "value_number": as_float,
        "currency": parsed.currency if isinstance(parsed, Amount) else None,
        "keyword": nearest[0] if nearest else None,
        "keyword_distance": nearest[1] if nearest else None,
        "signals": ["keyword", "type"] if nearest else ["type"],
        "confidence": proximity_confidence(
            nearest[1] if nearest else None, nearest[2] if nearest else 0.0
        ),
    }
    for name, value in record.items():
        columns[name].append(value)
