"""Dispatch plan: how retrieval should serve this question.

Each setting cascades from the most specific row that sets it: the matched concepts (first
match first), then the answer type, then the answer shape, then the project `defaults` table.
The row that decided is recorded in `rules_fired`. `activations` lists the retrieval features
the other columns call for, so a backend can switch them on without re-reading the row.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..satellites import Satellites
from .draft import Draft


def _rows(sats: Satellites) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        "concepts": {
            r["concept"]: r
            for r in sats.concepts.iter_rows(named=True)
            if r["chunk_strategy"] or r["suggested_model"] or r["retrieval_k"]
        },
        "answer_types": {r["answer_type"]: r for r in sats.answer_types.iter_rows(named=True)},
        "answer_shapes": {r["answer_shape"]: r for r in sats.answer_shapes.iter_rows(named=True)},
    }


# setting → the column that holds it in each table along the cascade (None: not there)
_CASCADE = {
    "chunk_strategy": ("chunk_strategy", None, "chunk_strategy", "chunk_strategy"),
    "suggested_model": ("suggested_model", "default_model", None, "suggested_model"),
    "retrieval_k": ("retrieval_k", None, "k", "retrieval_k"),
}


def dispatch_plan(draft: Draft) -> None:
    rows = draft.sats.cached("dispatch_rows", _rows)
    cols = draft.columns
    concepts = [(c, rows["concepts"][c]) for c in draft.concepts if c in rows["concepts"]]
    kind = (cols.get("answer_type", "text"), cols.get("answer_shape", "single"))
    below = _below_concepts(draft.sats, kind)
    for (setting, columns), (value, rule) in zip(_CASCADE.items(), below):
        if concepts:
            found = _decide([("concepts", concepts)], columns[:1])
            if found[0] is not None:
                value, rule = found
        if rule is not None:
            draft.fire(rule)
        cols[setting] = value
    cols["activations"] = _activations(draft)


Decision = tuple[Any, "str | None"]  # a setting's value and the rule that set it


def _decide(levels: list[tuple[str, list[tuple[Any, Any]]]], columns: tuple) -> Decision:
    """The first row along `levels` (a table and its (key, row) pairs, in order) that sets a
    setting, in the column that holds it in that table (None: the table has none)."""
    for (table, keyed), column in zip(levels, columns):
        for key, row in keyed if column else ():
            if row is not None and row.get(column) not in (None, ""):
                return row[column], f"{table}:{key}.{column}"
    return None, None


def _below_concepts(sats: Satellites, kind: tuple[Any, Any]) -> list[Decision]:
    """Each setting as the answer type, the answer shape and the defaults decide it, for one
    (answer_type, answer_shape): the same for every question of that kind, so built once
    per satellites; only the matched concepts are looked at per question."""
    cache = sats.cached("dispatch_below_concepts", lambda s: {})
    if kind not in cache:
        rows = sats.cached("dispatch_rows", _rows)
        answer_type, answer_shape = kind
        levels = [
            ("answer_types", [(answer_type, rows["answer_types"].get(answer_type))]),
            ("answer_shapes", [(answer_shape, rows["answer_shapes"].get(answer_shape))]),
        ]
        decided = []
        for columns in _CASCADE.values():
            value, rule = _decide(levels, columns[1:3])
            if value is None:
                value = getattr(sats.defaults, columns[3]) or None
                rule = None if value is None else f"defaults:{columns[3]}"
            decided.append((value, rule))
        cache[kind] = decided
    return cache[kind]


def _activations(draft: Draft) -> list[str]:
    cols = draft.columns
    sources = set(map(itemgetter("source"), draft.keywords))
    wanted = [
        ("exact_terms", "explicit" in sources),
        ("anchor_terms", "anchor" in sources),
        ("dictionary_expansion", bool(draft.concepts)),
        ("page_filter", bool(cols.get("pages_hint") or cols.get("scope_page_range"))),
        ("section_filter", bool(cols.get("toc_section_hint") or cols.get("scope_sections"))),
        (f"layout_{cols.get('layout_hint')}", cols.get("layout_hint") not in (None, "text")),
        ("date_filter", bool(cols.get("scope_date_from") or cols.get("scope_date_to"))),
        ("party_filter", bool(cols.get("scope_parties"))),
        ("jurisdiction_filter", bool(cols.get("scope_jurisdictions"))),
        ("multi_query", cols.get("decomposition_pattern") not in (None, "single", "unified")),
        ("summarize", bool(cols.get("need_summary"))),
        ("clarify_first", bool(cols.get("suggested_clarification"))),
    ]
    return [name for name, on in wanted if on]
