"""The question's side of a PostgreSQL search: weighted terms and filter clauses.

Terms follow the embedded `bm25` backend: one term per keyword text at its heaviest weight,
a dictionary variant the question does not contain at `variant_weight` of its row weight,
the question's own words (weight = count) when it has no keywords. PostgreSQL turns each text
into the lexemes of every configuration the corpus uses; explicit and anchor keywords of
several words also count as a phrase (`phraseto_tsquery`, weighted `phrase_weight`).

Filters are those of `quaestio.retrieval.filters`, as parameterised `WHERE` clauses on
indexed columns, with the same rule: a filter that no chunk satisfies is dropped and noted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..base import query_text

_WORD = re.compile(r"\w\w+|\d", re.UNICODE)
PHRASE_SOURCES = ("explicit", "anchor")


@dataclass
class Term:
    text: str
    weight: float
    phrase: bool = False


def weighted_terms(
    record: dict, *, sources=None, query: str = "keywords", variant_weight: float = 0.25
) -> list[Term]:
    """The weighted terms of one question record (see the module docstring)."""
    keywords = record.get("keywords") or []
    if sources is not None:
        keywords = [kw for kw in keywords if kw["source"] in set(sources)]
    if query == "raw" or not keywords:
        counts = Counter(_WORD.findall(query_text(record).lower()))
        return [Term(t, float(n)) for t, n in counts.items()]
    best: dict[str, Term] = {}
    for kw in keywords:
        weight = float(kw["weight"])
        if kw["source"] == "expert_dictionary" and kw.get("span_start") is None:
            weight *= variant_weight
        term = best.setdefault(kw["text"], Term(kw["text"], 0.0))
        term.weight = max(term.weight, weight)
        term.phrase |= kw["source"] in PHRASE_SOURCES and len(kw["text"].split()) > 1
    return list(best.values())


def tsquery_literal(lexeme: str) -> str:
    """One lexeme as tsquery input (quoted: no operator or normalisation applies)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass
class Clauses:
    """WHERE fragments (psycopg `sql` objects) and their parameters, in order."""

    parts: list = field(default_factory=list)
    params: list = field(default_factory=list)
    pinned: tuple | None = None  # (fragment, params) of the pinned pages
    notes: list[str] = field(default_factory=list)

    def sql(self):
        from psycopg import sql

        return sql.SQL("").join(sql.SQL(" AND ") + p for p in self.parts)


def filter_clauses(record: dict, store, conn, *, toc_cutoff: float = 85) -> Clauses:
    """The filters of one question as SQL, checked one by one as `question_filter` does."""
    from psycopg import sql

    from ..filters import _dates_documents, _range

    out = Clauses()

    def apply(name: str, fragment, params: list) -> bool:
        probe = store.sql(
            "SELECT EXISTS (SELECT 1 FROM {schema}.chunks c WHERE TRUE {more})",
            more=out.sql() + sql.SQL(" AND ") + fragment,
        )
        if conn.execute(probe, out.params + params).fetchone()[0]:
            out.parts.append(fragment)
            out.params.extend(params)
            return True
        out.notes.append(f"{name}: no chunk matches; filter dropped")
        return False

    pages = sorted(set(record.get("pages_hint") or []) | _range(record.get("scope_page_range")))
    if pages:
        if not store.facts(conn)["has_pages"]:
            out.notes.append("pages_hint: the index has no page numbers; filter dropped")
        else:
            on = sql.SQL(
                "EXISTS (SELECT 1 FROM unnest(%s::bigint[]) p "
                "WHERE c.page_start <= p AND p <= c.page_end)"
            )
            if apply("pages_hint", on, [pages]):
                out.pinned = (on, [pages])
    sections = [
        s for s in [record.get("toc_section_hint"), *(record.get("scope_sections") or [])] if s
    ]
    if sections:
        crumbs = _matching_breadcrumbs(store.facts(conn)["breadcrumbs"], sections, toc_cutoff)
        apply("toc_section_hint", sql.SQL("c.breadcrumb = ANY(%s)"), [crumbs])
    layout = record.get("layout_hint")
    if layout in ("table", "image"):
        apply(
            f"layout_hint={layout}",
            sql.SQL("c.has_table" if layout == "table" else "c.has_image"),
            [],
        )
    scope = _scope(record, _dates_documents(record))
    if scope is not None:
        fragment, params = scope
        apply(
            "scope",
            store.sql(
                "c.doc_id IN (SELECT d.doc_id FROM {schema}.documents d WHERE {cond})",
                cond=fragment,
            ),
            params,
        )
    return out


def _matching_breadcrumbs(crumbs: list[str], hints: list[str], cutoff: float) -> list[str]:
    from rapidfuzz import fuzz

    hints = [h.lower() for h in hints]
    return [
        crumb
        for crumb in crumbs
        if any(
            fuzz.partial_ratio(h, p.lower()) >= cutoff
            for h in hints
            for p in crumb.split(" > ")[1:] or [crumb]
        )
    ]


def _scope(record: dict, dates_documents: bool) -> tuple[Any, list] | None:
    from psycopg import sql

    start, end = (
        (record.get("scope_date_from"), record.get("scope_date_to"))
        if dates_documents
        else (None, None)
    )
    parties = [p.lower() for p in record.get("scope_parties") or []]
    places = [
        j.lower().removeprefix("country_")
        for j in record.get("scope_jurisdictions") or []
        if j.lower().startswith("country_") or (len(j) <= 3 and j.isupper())
    ]
    if not (start or end or parties or places):
        return None
    parts, params = [], []
    if start:  # a document that does not state the field is kept: unknown is not out of scope
        parts.append(sql.SQL("(d.date IS NULL OR d.date >= %s)"))
        params.append(start)
    if end:
        parts.append(sql.SQL("(d.date IS NULL OR d.date <= %s)"))
        params.append(end)
    if parties:
        parts.append(
            sql.SQL(
                "(coalesce(cardinality(d.parties), 0) = 0 OR EXISTS (SELECT 1 "
                "FROM unnest(d.parties) q, unnest(%s::text[]) p "
                "WHERE strpos(lower(q), p) > 0))"
            )
        )
        params.append(parties)
    if places:
        parts.append(
            sql.SQL(
                "(coalesce(cardinality(d.jurisdiction), 0) = 0 OR EXISTS (SELECT 1 "
                "FROM unnest(d.jurisdiction) j WHERE lower(j) = ANY(%s)))"
            )
        )
        params.append(places)
    return sql.SQL(" AND ").join(parts), params
