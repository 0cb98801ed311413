"""Arrow schemas of `documents_df`, `chunks_df` and `hits_df`, so even empty results are typed.

Like `quaestio.schema.QUESTION_SCHEMA`, one schema serves pandas (Arrow-backed dtypes),
polars and Parquet.
"""

from __future__ import annotations

import pyarrow as pa

from ..schema import table_to_frame

DOCUMENT_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("title", pa.string()),
        ("summary", pa.string()),
        ("source", pa.string()),
        ("content_hash", pa.string()),
        ("encoding", pa.string()),
        ("language", pa.string()),
        ("doc_family", pa.string()),
        ("doc_type", pa.string()),
        ("date", pa.date32()),
        ("parties", pa.list_(pa.string())),
        ("jurisdiction", pa.list_(pa.string())),
        ("n_chunks", pa.int64()),
    ]
)

# granularity: "section" (the hierarchical chunks, split to the model's limit: what bm25,
# dense and hybrid index), "parent" (whole sections, stored apart, never indexed), "child"
# (small pieces of a parent, indexed for the parent backend), "sentence" (one sentence,
# delivered with its window).
CHUNK_SCHEMA = pa.schema(
    [
        ("chunk_id", pa.string()),
        ("doc_id", pa.string()),
        ("granularity", pa.string()),
        ("parent_id", pa.string()),
        ("section_id", pa.string()),
        ("ordinal", pa.int64()),
        ("part_index", pa.int64()),
        ("part_count", pa.int64()),
        ("level", pa.int64()),
        ("breadcrumb", pa.string()),
        ("chunk_type", pa.string()),
        ("has_table", pa.bool_()),
        ("has_image", pa.bool_()),
        ("page_start", pa.int64()),
        ("page_end", pa.int64()),
        ("language", pa.string()),
        ("char_spans", pa.list_(pa.int64())),
        ("n_tokens", pa.int64()),
        ("representation_text", pa.string()),
        ("generation_text", pa.string()),
    ]
)

CHUNK_TYPES = ("section", "subsection", "merged", "orphan", "table", "image", "screen")

HITS_SCHEMA = pa.schema(
    [
        ("question_id", pa.string()),
        ("chunk_id", pa.string()),
        ("doc_id", pa.string()),
        ("rank", pa.int64()),
        ("score", pa.float64()),
        ("backend", pa.string()),
        ("breadcrumb", pa.string()),
        ("chunk_type", pa.string()),
        ("page_start", pa.int64()),
        ("page_end", pa.int64()),
        ("part_index", pa.int64()),
        ("part_count", pa.int64()),
        ("generation_text", pa.string()),
        ("matched_keywords", pa.list_(pa.string())),
        ("bm25_rank", pa.int64()),
        ("bm25_score", pa.float64()),
        ("dense_rank", pa.int64()),
        ("dense_score", pa.float64()),
        ("rerank_score", pa.float64()),
        ("child_chunk_id", pa.string()),
        ("child_score", pa.float64()),
        ("pinned", pa.bool_()),
        ("route", pa.string()),
        # Appended columns: the hit a sibling row restores context for; the sub-question that
        # found a hit (dispatch of a decomposed question); how dispatch treated the question
        # (a substitution, a condition, a demotion), and the follow-up of a `clarify` row.
        ("sibling_of", pa.string()),
        ("sub_question", pa.string()),
        ("note", pa.string()),
        ("suggested_clarification", pa.string()),
        ("ambiguity_reason", pa.string()),
    ]
)
HIT_COLUMNS: tuple[str, ...] = tuple(HITS_SCHEMA.names)


def to_engine(table: pa.Table, as_: str = "pandas"):
    """The table as pandas (Arrow-backed dtypes), polars or Arrow."""
    return table_to_frame(table, as_)
