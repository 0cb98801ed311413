"""Dispatch plan: how retrieval should serve this question.

Each setting cascades from the most specific row that sets it: the matched concepts (first
match first), then the answer type, then the answer shape, then the project `defaults` table.
The row that decided is recorded in `rules_fired`. `activations` lists the retrieval features
the other columns call for, so a backend can switch them on without re-reading the row.
"""

from __future__ import annotations

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
    levels = (
        [("concepts", c, rows["concepts"].get(c)) for c in draft.concepts],
        [
            (
                "answer_types",
                cols.get("answer_type", "text"),
                rows["answer_types"].get(cols.get("answer_type", "text")),
            )
        ],
        [
            (
                "answer_shapes",
                cols.get("answer_shape", "single"),
                rows["answer_shapes"].get(cols.get("answer_shape", "single")),
            )
        ],
    )
    defaults = draft.sats.defaults
    for setting, columns in _CASCADE.items():
        value = None
        for level, column in zip(levels, columns[:3]):
            for table, key, row in level if column else ():
                if row is not None and row.get(column) not in (None, ""):
                    value = row[column]
                    draft.fire(f"{table}:{key}.{column}")
                    break
            if value is not None:
                break
        if value is None:
            value = getattr(defaults, columns[3]) or None
            if value is not None:
                draft.fire(f"defaults:{columns[3]}")
        cols[setting] = value
    cols["activations"] = _activations(draft)


def _activations(draft: Draft) -> list[str]:
    cols = draft.columns
    sources = {k["source"] for k in draft.keywords}
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
