"""`dispatch`: route each question of question_df by its dispatch columns.

- backend, from `answer_context`: line/sentence → "sentence" when the index has sentence rows;
  section/chapter/document → "parent" when it has parent-child rows; else `default_backend`
  ("hybrid" with embeddings, "bm25" without);
- k from `retrieval_k` (else `k`);
- `chunk_strategy`: "combined" reads the passages together, so hits come back grouped by
  document in reading order; "sequential" keeps rank order;
- navigational questions ("where do I find…", "which screen…", or a true `navigational`
  column) search screen chunks first and fall back to conceptual documentation when no
  screen chunk is found. The `route` column says which way each hit went;
- `decomposition_pattern` (independent, sequential, conditional, unified): see `compound`;
- `clarify_first` in `activations`: no search, one "clarify" row with the follow-up,
  unless `force=True`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa

from .api import _run, as_index, parse_if_needed
from .base import materialise
from .funnel import Funnel, with_siblings
from .schema import HITS_SCHEMA, to_engine

NAVIGATIONAL = re.compile(
    r"\b(where (do|can|should) i (find|see|click|tap|open|change|enter)|how do i (get to|open|"
    r"navigate|find)|which (screen|menu|tab|button|field|page of the app)|(screen|menu|button|"
    r"tab)s?\b.{0,40}\b(where|how)|où (trouver|se trouve|cliquer)|quel (écran|menu|bouton)|"
    r"dónde (encuentro|está|hago clic)|qué (pantalla|menú|botón))",
    re.I,
)
_ROUTES = {
    "line": "sentence",
    "sentence": "sentence",
    "section": "parent",
    "chapter": "parent",
    "document": "parent",
}


def is_navigational(record: dict) -> bool:
    flag = record.get("navigational")
    if flag is not None:
        return bool(flag)
    return bool(NAVIGATIONAL.search(record.get("original_question") or ""))


def route_of(record: dict, index, default: str | None = None) -> str:
    """The backend for one question record (see the module docstring)."""
    default = default or ("hybrid" if index.embedding_model else "bm25")
    wanted = _ROUTES.get(record.get("answer_context") or "")
    needs = {"sentence": "sentence", "parent": "child"}
    return wanted if wanted and needs[wanted] in index.granularities() else default


def dispatch(
    question_df: Any,
    index,
    *,
    k: int = 5,
    default_backend: str | None = None,
    funnel: Funnel | None = None,
    satellites=None,
    as_: str = "pandas",
    force: bool = False,
):
    """Search each question with the backend, k and strategy its dispatch columns ask for.

    Args:
        question_df: question_df in any engine (or strings, parsed offline).
        index: An `Index` or its folder.
        k: Hits per question when `retrieval_k` is empty.
        default_backend: Overrides the default route ("hybrid", or "bm25" without vectors).
        funnel: As in `search`.
        satellites: Tables used to parse strings and sub-questions (bundled when None).
        force: Search even the questions whose `activations` say `clarify_first`.

    Returns:
        hits_df, in question order, with `route` and `backend` per hit. `route` is
        "screen", "screen→conceptual", "default", "sentence" or "parent" for a single
        question; "independent", "sequential", "conditional" or "unified" for a decomposed
        one (`sub_question` names the sub-question that found the hit, `note` what was
        substituted or boosted); "sibling" for restored context rows. A question to
        clarify first gets one row with route "clarify", rank 0, no chunk, and its
        `suggested_clarification` and `ambiguity_reason`.
    """
    from .compound import Compound

    index = as_index(index)
    records = parse_if_needed(question_df, satellites)
    funnel = funnel or Funnel()
    types = np.asarray(index.chunks.column("chunk_type").to_pylist(), dtype=object)
    screen = types == "screen"
    _embed_together(index, records, force)
    parts = []
    for record in records:
        if not force and "clarify_first" in (record.get("activations") or []):
            parts.append(_clarify_row(record))
            continue
        backend = route_of(record, index, default_backend)
        kk = int(record.get("retrieval_k") or k)
        table, route = None, backend if backend in ("sentence", "parent") else "default"
        retriever = index.retriever(backend)
        pattern = record.get("decomposition_pattern") or "single"
        if pattern != "single":
            compound = Compound(
                index,
                retriever,
                funnel,
                satellites,
                lambda r, n, f, retriever=retriever: _hits(index, retriever, r, n, f),
            )
            hits = compound.run(record, kk)
            hits = with_siblings(
                index, hits, parts=funnel.sibling_parts, tokens=funnel.sibling_tokens
            )
            table = materialise(index.chunks, [record], [hits], retriever.name)
            route = pattern
        elif is_navigational(record) and screen.any():
            table = _screen_only(index, retriever, record, kk, funnel, screen)
            route = "screen" if table.num_rows else "screen→conceptual"
        if table is None or not table.num_rows:
            table = _run(index, retriever, [record], kk, funnel, True)
        if (record.get("chunk_strategy") or "") == "combined" and table.num_rows:
            table = _reading_order(index, table)
        routes = [r if r == "sibling" else route for r in table["route"].to_pylist()]
        parts.append(
            table.set_column(
                table.schema.get_field_index("route"), "route", pa.array(routes, pa.string())
            )
        )
    table = pa.concat_tables(parts) if parts else HITS_SCHEMA.empty_table()
    return to_engine(table, as_)


def _embed_together(index, records: list[dict], force: bool) -> None:
    """The questions are searched one by one below: their vectors (dense and hybrid routes,
    the funnel's threshold) are encoded here in one batch, and found in the query cache."""
    if not index.embedding_model:
        return
    from .base import query_text
    from .embeddings import get_embedder

    texts = [
        query_text(r)
        for r in records
        if force or "clarify_first" not in (r.get("activations") or [])
    ]
    get_embedder(index.embedding_model).encode_queries(texts)


def _hits(index, retriever, record, k, funnel):
    from .api import facts
    from .filters import question_filter
    from .funnel import run_funnel

    check = question_filter(record, facts(index))
    return run_funnel(index, retriever, [record], k, funnel, [check])[0]


def _clarify_row(record: dict) -> pa.Table:
    row: dict[str, Any] = {name: None for name in HITS_SCHEMA.names}
    row.update(
        question_id=record["question_id"],
        rank=0,
        route="clarify",
        matched_keywords=[],
        pinned=False,
        suggested_clarification=record.get("suggested_clarification"),
        ambiguity_reason=record.get("ambiguity_reason"),
    )
    return pa.Table.from_pylist([row], schema=HITS_SCHEMA)


def _screen_only(index, retriever, record, k, funnel, screen):
    from .api import facts
    from .base import materialise
    from .filters import question_filter
    from .funnel import run_funnel

    check = question_filter(record, facts(index))
    check.mask = screen if check.mask is None else (check.mask & screen)
    hits = run_funnel(index, retriever, [record], k, funnel, [check])
    return materialise(index.chunks, [record], hits, retriever.name)


def _reading_order(index, table: pa.Table) -> pa.Table:
    """Rows in the order a combined answer reads them: the documents by their best hit,
    the chunks of each document in reading order. `rank` keeps the relevance rank, so
    scoring and confirmation still see which chunk matched best. Sibling rows stay last."""
    routes = table["route"].to_pylist()
    primary = [i for i, r in enumerate(routes) if r != "sibling"]
    if len(primary) < len(routes):
        rest = [i for i, r in enumerate(routes) if r == "sibling"]
        return pa.concat_tables([_reading_order(index, table.take(primary)), table.take(rest)])
    ids = index.chunks.column("chunk_id").to_pylist()
    position = {c: i for i, c in enumerate(ids)}
    docs, ranks = table["doc_id"].to_pylist(), table["rank"].to_pylist()
    best: dict[str, int] = {}
    for doc, rank in zip(docs, ranks):
        best[doc] = min(rank, best.get(doc, rank))
    chunk_ids = table["chunk_id"].to_pylist()
    order = sorted(range(table.num_rows), key=lambda i: (best[docs[i]], position[chunk_ids[i]]))
    return table.take(order)
