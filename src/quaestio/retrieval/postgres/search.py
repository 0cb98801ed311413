"""`search` on a `PostgresIndex`: the same `hits_df` as the embedded backends.

Lexical score (BM25 in SQL): for each query lexeme l of weight w,
    w · idf(l) · tf / (tf + k1 · (1 − b + b · len / avglen))
where tf is `ts_rank_cd('{1,1,1,1}', tsv, l, 0)` (the occurrence count), idf the Lucene
idf from the `terms` table and len the chunk's BM25 token count; phrases add
`phrase_weight` · w · mean idf · their `ts_rank_cd`. Candidates come from the GIN index
(`tsv @@ lexeme` per term), within the filters. Dense search (pgvector, cosine, HNSW) and
RRF fusion run when the server has pgvector and the index has vectors; otherwise lexical.
The funnel keeps pinned pages, a callable reranker, the floor, the cap and sibling parts.
Every search reads one snapshot (REPEATABLE READ, READ ONLY): an update committing in the
meantime is seen entirely or not at all.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pyarrow as pa

from ..base import Hit, query_text
from ..schema import HITS_SCHEMA, to_engine
from .query import filter_clauses, tsquery_literal, weighted_terms

_HIT_COLUMNS = (
    "chunk_id",
    "doc_id",
    "breadcrumb",
    "chunk_type",
    "page_start",
    "page_end",
    "part_index",
    "part_count",
    "generation_text",
)


def search(
    index,
    questions: Any,
    *,
    k: int = 10,
    mode: str = "auto",
    granularity: str = "section",
    funnel=None,
    filters: bool = True,
    satellites=None,
    as_: str = "pandas",
    sources=None,
    query: str = "keywords",
    variant_weight: float = 0.25,
    k1: float = 1.5,
    b: float = 0.75,
    phrase_weight: float = 0.5,
    rrf_k: int = 60,
    depth: int = 50,
    model=None,
):
    """Retrieve from a PostgreSQL index, as `hits_df` (`HITS_SCHEMA`).

    Args:
        index: A `PostgresIndex` or a DSN (a pool is opened and closed for this call).
        questions: As in `quaestio.retrieval.search` (strings or question_df).
        k: Hits per question (before sibling restoration).
        mode: "lexical", "hybrid", "dense" or "auto" (hybrid when vectors are in the database).
        granularity: The chunk rows searched ("section", "child", "sentence").
        funnel: A `Funnel`; threshold and the bi-encoder re-score need vectors in Python and
            are refused here (a callable reranker, floor, cap and siblings work).
        filters: Apply pages_hint, toc_section_hint, layout_hint and the scope columns.
        sources, query, variant_weight: As in the `bm25` backend.
        k1, b: BM25 parameters. phrase_weight: The weight of a phrase match.

    Returns:
        hits_df: one row per (question, chunk), ranks 1-based; `backend` is "postgres" and
        the lexical rank and score are in `bm25_rank` / `bm25_score`.
    """
    from dataclasses import replace

    from ..api import parse_if_needed
    from ..funnel import AUTO, Funnel
    from .store import PostgresIndex

    if isinstance(index, str):
        with PostgresIndex(index) as store:
            return search(
                store,
                questions,
                k=k,
                mode=mode,
                granularity=granularity,
                funnel=funnel,
                filters=filters,
                satellites=satellites,
                as_=as_,
                sources=sources,
                query=query,
                variant_weight=variant_weight,
                k1=k1,
                b=b,
                phrase_weight=phrase_weight,
                rrf_k=rrf_k,
                depth=depth,
                model=model,
            )
    funnel = funnel or Funnel()
    # "auto" limits are calibrated on an index's vectors: without them they are off, as on
    # an embedded index with no vectors (`Funnel`'s docstring).
    funnel = replace(
        funnel,
        threshold=None if funnel.threshold == AUTO else funnel.threshold,
        floor=None if funnel.floor == AUTO else funnel.floor,
    )
    if funnel.threshold is not None or funnel.reranker == "bi-encoder":
        raise ValueError(
            "a PostgreSQL index takes no funnel threshold or bi-encoder re-score; "
            "pass Funnel(threshold=None) and a callable reranker if needed"
        )
    records = parse_if_needed(questions, satellites)
    options = {"sources": sources, "query": query, "variant_weight": variant_weight}
    with index.pool.connection() as conn, conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        # Full-text candidates come from the GIN index: the planner, seeing few rows, would
        # scan and detoast every tsvector once per query term instead.
        conn.execute("SET LOCAL enable_seqscan = off")
        facts = index.refresh(conn)
        stats = facts["granularities"].get(granularity)
        if stats is None:
            hits: list[list[Hit]] = [[] for _ in records]
        else:
            width = max(funnel.first_pass, k)
            # Read on the connection this search holds: a second one could wait on the pool
            # forever when every connection is held by a search doing the same.
            vectors = index.vector_model(facts["manifest"])
            use_dense = mode in ("hybrid", "dense", "auto") and vectors
            hits = []
            for record in records:
                clauses = filter_clauses(record, index, conn) if filters else None
                found = (
                    []
                    if mode == "dense" and use_dense
                    else _lexical(
                        index,
                        conn,
                        record,
                        stats,
                        granularity,
                        clauses,
                        max(width, depth) if use_dense else width,
                        options,
                        k1,
                        b,
                        phrase_weight,
                    )
                )
                if use_dense:
                    from ..hybrid import rrf

                    dense = _dense(
                        index,
                        conn,
                        record,
                        granularity,
                        clauses,
                        max(width, depth),
                        model or vectors,
                    )
                    found = rrf([found, dense], [1.0, 1.0], k=rrf_k) if found else dense
                hits.append(
                    _funnel(index, conn, record, found[:width], clauses, granularity, funnel, k)
                )
        table = _materialise(index, conn, records, hits)
    return to_engine(table, as_)


def _lexical(
    index, conn, record, stats, granularity, clauses, width, options, k1, b, phrase_weight
) -> list[Hit]:
    terms = weighted_terms(record, **options)
    if not terms:
        return []
    configs = stats["configs"]
    rows = conn.execute(
        "SELECT k.i, c.cfg::text, l.lexeme FROM unnest(%s::text[]) WITH ORDINALITY k(text, i) "
        "CROSS JOIN unnest(%s::regconfig[]) c(cfg) "
        "CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(c.cfg, k.text))) l(lexeme)",
        [[t.text for t in terms], configs],
    ).fetchall()
    lexemes: dict[tuple[int, str], list[str]] = defaultdict(list)
    weight: dict[tuple[str, str], float] = {}
    raw = options["query"] == "raw" or not record.get("keywords")
    for i, cfg, lexeme in rows:
        lexemes[(i - 1, cfg)].append(lexeme)
        w = terms[i - 1].weight
        key = (cfg, lexeme)
        weight[key] = weight.get(key, 0.0) + w if raw else max(weight.get(key, 0.0), w)
    if not weight:
        return []
    keys = list(weight)
    df = {
        (cfg, lexeme): n
        for cfg, lexeme, n in conn.execute(
            index.sql(
                "SELECT t.config::text, t.lexeme, t.ndoc FROM {schema}.terms t "
                "JOIN unnest(%s::text[], %s::text[]) u(cfg, lexeme) "
                "ON t.config = u.cfg::regconfig AND t.lexeme = u.lexeme "
                "WHERE t.granularity = %s"
            ),
            [[c for c, _ in keys], [lexeme for _, lexeme in keys], granularity],
        )
    }
    n = stats["n"]
    idf = {key: math.log(1 + (n - df[key] + 0.5) / (df[key] + 0.5)) for key in keys if key in df}
    # (configuration, tsquery, weight, label): one per lexeme, then one per phrase.
    query_rows = [
        (cfg, tsquery_literal(lexeme), w * idf[(cfg, lexeme)], lexeme)
        for (cfg, lexeme), w in weight.items()
        if (cfg, lexeme) in idf
    ]
    phrases = [(i, t) for i, t in enumerate(terms) if t.phrase]
    if phrases and phrase_weight:
        for (i, cfg, _text), phrase in zip(
            [(i, cfg, t.text) for i, t in phrases for cfg in configs],
            conn.execute(
                "SELECT phraseto_tsquery(k.cfg, k.text)::text FROM "
                "unnest(%s::text[], %s::regconfig[]) AS k(text, cfg)",
                [
                    [t.text for _, t in phrases for _ in configs],
                    [cfg for _ in phrases for cfg in configs],
                ],
            ).fetchall(),
        ):
            known = [idf[(cfg, lx)] for lx in lexemes.get((i, cfg), []) if (cfg, lx) in idf]
            if phrase[0] and len(known) > 1:
                query_rows.append(
                    (cfg, phrase[0], phrase_weight * terms[i].weight * sum(known) / len(known), "")
                )
    if not query_rows:
        return []
    q_cfg, q_query, q_weight, q_label = (list(c) for c in zip(*query_rows))
    # One GIN lookup per term (the LATERAL subquery is parameterised by it), scored there;
    # chunks are then summed over the terms they hold. `granularity || ''` keeps the planner
    # off the granularity index, which matches most rows, and on the GIN one.
    statement = index.sql(
        "SELECT m.row_no, m.config, sum(m.weight * m.tf / (m.tf + %s * (1 - %s + %s * "
        "m.doc_len / %s))) AS score, array_agg(m.label) FROM unnest(%s::regconfig[], "
        "%s::tsquery[], %s::float8[], %s::text[]) AS q(cfg, query, weight, label) "
        "CROSS JOIN LATERAL (SELECT c.row_no, c.config::text AS config, c.doc_len, q.weight, "
        "q.label, ts_rank_cd('{{1,1,1,1}}', c.tsv, q.query, 0) AS tf FROM {schema}.chunks c "
        "WHERE c.tsv @@ q.query AND c.config = q.cfg AND (c.granularity || '') = %s {filters} "
        "OFFSET 0) m GROUP BY m.row_no, m.config ORDER BY score DESC, m.row_no LIMIT %s",
        filters=clauses.sql() if clauses else _empty(),
    )
    params = [
        k1,
        b,
        b,
        stats["avg_len"],
        q_cfg,
        q_query,
        q_weight,
        q_label,
        granularity,
        *(clauses.params if clauses else []),
        width,
    ]
    out = []
    for rank, (row, cfg, score, matched) in enumerate(conn.execute(statement, params), 1):
        got = set(matched)
        names = [
            t.text
            for i, t in enumerate(terms)
            if lexemes.get((i, cfg)) and got.issuperset(lexemes[(i, cfg)])
        ]
        out.append(
            Hit(
                row,
                float(score),
                {"matched_keywords": names, "bm25_rank": rank, "bm25_score": float(score)},
            )
        )
    return out


def _dense(index, conn, record, granularity, clauses, width, model) -> list[Hit]:
    from ..embeddings import get_embedder

    vector = get_embedder(model).encode_queries([query_text(record)])[0]
    literal = "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
    statement = index.sql(
        "SELECT c.row_no, 1 - (c.embedding <=> %s::vector) FROM {schema}.chunks c "
        "WHERE c.granularity = %s AND c.embedding IS NOT NULL {filters} "
        "ORDER BY c.embedding <=> %s::vector LIMIT %s",
        filters=clauses.sql() if clauses else _empty(),
    )
    rows = conn.execute(
        statement, [literal, granularity, *(clauses.params if clauses else []), literal, width]
    )
    return [
        Hit(row, float(s), {"dense_rank": i, "dense_score": float(s)})
        for i, (row, s) in enumerate(rows, 1)
    ]


def _funnel(
    index, conn, record, hits: list[Hit], clauses, granularity, funnel, k: int
) -> list[Hit]:
    if clauses is not None and clauses.pinned is not None:
        fragment, params = clauses.pinned
        pinned = [
            r[0]
            for r in conn.execute(
                index.sql(
                    "SELECT c.row_no FROM {schema}.chunks c WHERE c.granularity = %s AND {on} "
                    "ORDER BY c.row_no",
                    on=fragment,
                ),
                [granularity, *params],
            )
        ]
        have = {h.row for h in hits}
        for h in hits:
            h.extra["pinned"] = h.row in set(pinned)
        hits = hits + [Hit(r, 0.0, {"pinned": True}) for r in pinned if r not in have]
    if callable(funnel.reranker) and hits:
        texts = _texts(index, conn, [h.row for h in hits])
        scores = funnel.reranker(query_text(record), [texts[h.row] for h in hits])
        for h, s in zip(hits, scores):
            h.extra["rerank_score"] = float(s)
        hits = sorted(hits, key=lambda h: -h.extra["rerank_score"])
    if funnel.floor is not None:
        hits = [
            h
            for h in hits
            if h.extra.get("rerank_score", h.score) >= funnel.floor or h.extra.get("pinned")
        ]
    hits = hits[: funnel.cap or k]
    return _siblings(index, conn, hits, granularity) if funnel.siblings else hits


def _siblings(index, conn, hits: list[Hit], granularity: str) -> list[Hit]:
    if granularity != "section" or not hits:
        return hits
    groups: dict[int, list[int]] = {}
    by_section: dict[str, list[int]] = defaultdict(list)
    for row, section in conn.execute(
        index.sql(
            "SELECT s.row_no, s.section_id FROM {schema}.chunks s WHERE s.granularity = "
            "'section' AND s.part_count > 1 AND s.section_id IN (SELECT c.section_id FROM "
            "{schema}.chunks c WHERE c.row_no = ANY(%s) AND c.part_count > 1) "
            "ORDER BY s.section_id, s.part_index"
        ),
        [[h.row for h in hits]],
    ):
        by_section[section].append(row)
    for rows in by_section.values():
        for row in rows:
            groups[row] = rows
    out, placed = [], set()
    for hit in hits:
        for row in groups.get(hit.row) or [hit.row]:
            if row in placed:
                continue
            placed.add(row)
            out.append(
                hit
                if row == hit.row
                else Hit(
                    row,
                    hit.score,
                    {"route": "sibling", "rerank_score": hit.extra.get("rerank_score")},
                )
            )
    return out


def _texts(index, conn, rows: list[int]) -> dict[int, str]:
    return dict(
        conn.execute(
            index.sql(
                "SELECT row_no, generation_text FROM {schema}.chunks WHERE row_no = ANY(%s)"
            ),
            [rows],
        ).fetchall()
    )


def _materialise(index, conn, records: list[dict], hits: list[list[Hit]]) -> pa.Table:
    flat = [h for found in hits for h in found]
    chunk = {
        r[0]: r[1:]
        for r in conn.execute(
            index.sql(
                "SELECT row_no, chunk_id, doc_id, breadcrumb, chunk_type, page_start, page_end, "
                "part_index, part_count, generation_text FROM {schema}.chunks "
                "WHERE row_no = ANY(%s)"
            ),
            [list({h.row for h in flat})],
        )
    }
    columns: dict[str, list] = {
        c: [chunk[h.row][i] for h in flat] for i, c in enumerate(_HIT_COLUMNS)
    }
    columns["question_id"] = [r["question_id"] for r, found in zip(records, hits) for _ in found]
    columns["rank"] = [i for found in hits for i in range(1, len(found) + 1)]
    columns["score"] = [h.score for h in flat]
    columns["backend"] = ["postgres"] * len(flat)
    for f in HITS_SCHEMA:  # the per-source columns, and any column this module does not know
        if f.name not in columns:
            default: list | bool | None = (
                [] if pa.types.is_list(f.type) else False if pa.types.is_boolean(f.type) else None
            )
            columns[f.name] = [h.extra.get(f.name, default) for h in flat]
    return pa.Table.from_arrays(
        [pa.array(columns[f.name], f.type) for f in HITS_SCHEMA], schema=HITS_SCHEMA
    )


def _empty():
    from psycopg import sql

    return sql.SQL("")
