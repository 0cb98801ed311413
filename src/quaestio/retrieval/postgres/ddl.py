"""The tables of a PostgreSQL index, in one schema (default `quaestio`).

- `documents`: documents_df, one row per document.
- `chunks`: chunks_df plus `row_no` (table order: ties and sibling order follow it), the
  text search configuration chosen from the chunk's language (english/french/spanish,
  `simple` otherwise), `tsv` (generated from generation_text with that configuration, GIN
  indexed, without a pending list: it would be scanned whole by every lookup until the next
  vacuum), `doc_len` (BM25 tokens, for length normalisation), `fingerprint` (what makes a
  rewritten chunk differ from the stored one) and, with pgvector, `embedding` (HNSW, cosine).
- `terms`: document frequency of each lexeme per granularity and configuration, kept in step
  by every ingest (the IDF of the weighted query).
- `manifest`: one row per ingest or update; the last one describes the index.

Identifiers are composed with `psycopg.sql.Identifier`; values always travel as parameters.
"""

from __future__ import annotations

import re
from functools import lru_cache

CONFIGS = {"en": "english", "fr": "french", "es": "spanish"}
FALLBACK_CONFIG = "simple"

DOCUMENT_COLUMNS = (
    "doc_id",
    "title",
    "summary",
    "source",
    "content_hash",
    "encoding",
    "language",
    "doc_family",
    "doc_type",
    "date",
    "parties",
    "jurisdiction",
    "n_chunks",
)
CHUNK_COLUMNS = (
    "chunk_id",
    "doc_id",
    "granularity",
    "parent_id",
    "section_id",
    "ordinal",
    "part_index",
    "part_count",
    "level",
    "breadcrumb",
    "chunk_type",
    "has_table",
    "has_image",
    "page_start",
    "page_end",
    "language",
    "char_spans",
    "n_tokens",
    "representation_text",
    "generation_text",
)

TABLES = """
CREATE TABLE IF NOT EXISTS {schema}.documents (
    doc_id text PRIMARY KEY, title text, summary text, source text, content_hash text,
    encoding text, language text, doc_family text, doc_type text, date date,
    parties text[], jurisdiction text[], n_chunks bigint);
CREATE TABLE IF NOT EXISTS {schema}.chunks (
    row_no bigint NOT NULL UNIQUE, chunk_id text PRIMARY KEY,
    doc_id text NOT NULL REFERENCES {schema}.documents (doc_id) ON DELETE CASCADE,
    granularity text NOT NULL, parent_id text, section_id text, ordinal bigint,
    part_index bigint, part_count bigint, level bigint, breadcrumb text, chunk_type text,
    has_table boolean, has_image boolean, page_start bigint, page_end bigint, language text,
    char_spans bigint[], n_tokens bigint, representation_text text, generation_text text,
    config regconfig NOT NULL, doc_len integer NOT NULL, fingerprint text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector(config, coalesce(generation_text, ''))) STORED);
CREATE INDEX IF NOT EXISTS chunks_tsv ON {schema}.chunks USING gin (tsv)
    WITH (fastupdate = off);
CREATE INDEX IF NOT EXISTS chunks_doc ON {schema}.chunks (doc_id);
CREATE INDEX IF NOT EXISTS chunks_pages ON {schema}.chunks (page_start, page_end);
CREATE INDEX IF NOT EXISTS chunks_crumb ON {schema}.chunks (breadcrumb);
CREATE INDEX IF NOT EXISTS chunks_section ON {schema}.chunks (section_id, granularity);
CREATE TABLE IF NOT EXISTS {schema}.terms (
    granularity text NOT NULL, config regconfig NOT NULL, lexeme text NOT NULL,
    ndoc bigint NOT NULL, PRIMARY KEY (granularity, config, lexeme));
CREATE TABLE IF NOT EXISTS {schema}.manifest (
    id bigserial PRIMARY KEY, recorded_at timestamptz NOT NULL DEFAULT now(),
    operation text NOT NULL, body jsonb NOT NULL);
"""

VECTORS = """
ALTER TABLE {schema}.chunks ADD COLUMN IF NOT EXISTS embedding vector({dim});
CREATE INDEX IF NOT EXISTS chunks_embedding ON {schema}.chunks
    USING hnsw (embedding vector_cosine_ops);
"""


def config_of(language: str | None, text: str = "") -> str:
    """The text search configuration of a chunk in `language` (ISO 639-1). A chunk whose
    language is not recorded gets the language whose stopwords its text uses most (at least
    three of them), else `simple` (no stemming, no stopwords)."""
    if language:
        return CONFIGS.get(language.lower()[:2], FALLBACK_CONFIG)
    counts = dict.fromkeys(CONFIGS, 0)
    for word in _WORD.findall(text[:4000].lower()):
        for lang in _stopwords().get(word, ()):
            counts[lang] += 1
    best = max(counts, key=lambda lang: counts[lang])
    return CONFIGS[best] if counts[best] >= 3 else FALLBACK_CONFIG


_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1)
def _stopwords() -> dict[str, tuple[str, ...]]:
    from bm25s.stopwords import STOPWORDS_EN, STOPWORDS_FRENCH, STOPWORDS_SPANISH

    index: dict[str, list[str]] = {}
    for lang, words in (("en", STOPWORDS_EN), ("fr", STOPWORDS_FRENCH), ("es", STOPWORDS_SPANISH)):
        for word in words:
            index.setdefault(word, []).append(lang)
    return {w: tuple(langs) for w, langs in index.items()}
