"""One document into chunk rows: sections split to the token budget, parents, children,
sentence windows; and its `documents_df` record.

Ids are stable: a hash of the document id, the granularity, the position and the text, so
the same input always yields the same ids and a changed section gets a new one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from .describe import Describe, describe_piece, summarize
from .markdown import IMAGE, TABLE_SEPARATOR, ParsedDoc, parse_markdown
from .sections import build_sections, title_node
from .sources import RawDoc
from .splitting import _paragraphs, _sentences, split_ranges

Counter = Callable[[list[str]], list[int]]
_SCREEN_TITLE = re.compile(r"^(screen|écran|ecran|pantalla|page|tab|menu|dialog)\b", re.I)
_SCREEN_TYPES = {"screen", "ui", "screen_help", "app_screen"}


@dataclass(frozen=True)
class ChunkOptions:
    max_tokens: int = 256  # the embedding model's real limit
    safety_margin: float = 0.1
    header_tokens: int = 64  # room kept for the summary and description in the vector
    min_tokens: int = 48  # shorter subsections merge into their parent
    overlap: int = 32
    parent_child: bool = True
    child_tokens: int = 300
    sentence_window: int = 0  # > 0: sentence rows delivered with this many neighbours

    @property
    def vector_budget(self) -> int:
        return int(self.max_tokens * (1 - self.safety_margin))

    @property
    def content_budget(self) -> int:
        return max(32, self.vector_budget - self.header_tokens)


def chunk_id(doc_id: str, *parts: Any) -> str:
    digest = hashlib.blake2b(
        "\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass"), digest_size=6
    ).hexdigest()
    return f"{doc_id}#{digest}"


def render(text: str, ranges: list[tuple[int, int]]) -> str:
    """The verbatim text of `ranges`; ranges apart by more than blank space join by a blank
    line."""
    pieces: list[str] = []
    prev_end = None
    for s, e in ranges:
        if pieces and prev_end is not None and s >= prev_end and not text[prev_end:s].strip():
            pieces[-1] += text[prev_end:e]
        else:
            pieces.append(text[s:e])
        prev_end = e
    return "\n\n".join(p.strip("\n") for p in pieces)


def chunk_document(
    raw: RawDoc, count: Counter, opts: ChunkOptions, describe: Describe | None = None
) -> tuple[dict, list[dict]]:
    """The document record and the chunk rows of one document."""
    doc = parse_markdown(raw.text, first_page=raw.first_page)
    meta = {**doc.meta, **raw.meta}
    title = str(meta.get("title") or _first_title(doc) or PurePath(raw.doc_id).stem)
    summary = summarize(title, doc.text, describe=describe)
    doc_type = str(meta.get("doc_type") or meta.get("type") or "")
    screen_doc = doc_type.lower() in _SCREEN_TYPES or "screen" in PurePath(raw.doc_id).stem.lower()
    sections = build_sections(doc, count, min_tokens=opts.min_tokens)
    root = title_node(doc)
    section_ids = {}
    rows: list[dict] = []
    for j, sec in enumerate(sections):
        body = render(doc.text, sec.ranges)
        sid = chunk_id(raw.doc_id, "parent", j, body)
        for node in [sec.node, *sec.merged_nodes]:
            section_ids[node] = sid
        titled = sec.titles[:1] and (
            sec.titles[0].casefold() == title.casefold()
            or root is not None
            and sec.titles[0] == doc.nodes[root].title
        )
        path = sec.titles if titled else [title, *sec.titles]
        crumb = " > ".join(path)
        base = dict(
            doc_id=raw.doc_id,
            section_id=sid,
            level=sec.level,
            breadcrumb=crumb,
            language=meta.get("language"),
        )
        screen = screen_doc or any(_SCREEN_TITLE.match(t) for t in sec.titles[1:] or sec.titles)
        parent_sid = section_ids.get(sec.parent_node) if sec.parent_node is not None else None
        parts = split_ranges(
            doc.text, sec.ranges, opts.content_budget, count, overlap=opts.overlap
        )
        for i, part in enumerate(parts):
            label = f" (part {i + 1} of {len(parts)})" if len(parts) > 1 else ""
            rows.append(
                _row(
                    doc,
                    base,
                    part,
                    "section",
                    sec.kind,
                    screen,
                    label,
                    dict(ordinal=j, part_index=i + 1, part_count=len(parts), parent_id=parent_sid),
                    title,
                    summary,
                    count,
                    opts,
                    describe,
                )
            )
        if opts.parent_child:
            rows.append(
                _row(
                    doc,
                    base,
                    sec.ranges,
                    "parent",
                    sec.kind,
                    screen,
                    "",
                    dict(
                        ordinal=j, part_index=1, part_count=1, parent_id=parent_sid, chunk_id=sid
                    ),
                    title,
                    summary,
                    count,
                    opts,
                    None,
                )
            )
            budget = min(opts.child_tokens, opts.content_budget)
            children = split_ranges(doc.text, sec.ranges, budget, count, overlap=0)
            for i, part in enumerate(children):
                rows.append(
                    _row(
                        doc,
                        base,
                        part,
                        "child",
                        sec.kind,
                        screen,
                        "",
                        dict(ordinal=j, part_index=i + 1, part_count=len(children), parent_id=sid),
                        title,
                        summary,
                        count,
                        opts,
                        describe,
                    )
                )
        if opts.sentence_window > 0:
            rows += _sentence_rows(doc, base, sec.ranges, sid, j, sec.kind, screen, opts)
    record = dict(
        doc_id=raw.doc_id,
        title=title,
        summary=summary,
        source=raw.source,
        content_hash=raw.content_hash,
        encoding=raw.encoding,
        language=meta.get("language"),
        doc_family=meta.get("doc_family"),
        doc_type=doc_type or ("screen" if screen_doc else None),
        date=_date(meta.get("date")),
        parties=_list(meta.get("parties")),
        jurisdiction=_list(meta.get("jurisdiction")),
        n_chunks=sum(r["granularity"] == "section" for r in rows),
    )
    return record, rows


def _row(
    doc: ParsedDoc,
    base: dict,
    ranges,
    granularity: str,
    kind: str,
    screen: bool,
    label: str,
    extra: dict,
    title: str,
    summary: str,
    count: Counter,
    opts: ChunkOptions,
    describe: Describe | None,
) -> dict:
    body = render(doc.text, ranges)
    has_table, has_image = bool(TABLE_SEPARATOR.search(body)), bool(IMAGE.search(body))
    ctype = (
        "screen"
        if screen
        else "table"
        if has_table
        else "image"
        if has_image and len(IMAGE.sub("", body).split()) < 30
        else kind
    )
    rep = (
        ""
        if granularity == "parent"
        else describe_piece(
            title=title,
            summary=summary,
            breadcrumb=base["breadcrumb"],
            body=body,
            part=label,
            count=count,
            budget=opts.vector_budget,
            describe=describe,
        )
    )
    spans = [x for r in ranges for x in r]
    row = dict(
        base,
        granularity=granularity,
        chunk_type=ctype,
        has_table=has_table,
        has_image=has_image,
        page_start=doc.page_at(ranges[0][0]),
        page_end=doc.page_at(max(ranges[-1][1] - 1, ranges[0][0])),
        char_spans=spans,
        n_tokens=count([body])[0],
        representation_text=rep,
        generation_text=f"{base['breadcrumb']}{label}\n\n{body}",
        **extra,
    )
    row.setdefault(
        "chunk_id",
        chunk_id(base["doc_id"], granularity, extra["ordinal"], extra["part_index"], body),
    )
    return row


def _sentence_rows(doc, base, ranges, sid, j, kind, screen, opts) -> list[dict]:
    sentences = [
        s
        for r in ranges
        for p in _paragraphs(doc.text, *r)
        if not doc.text[p[0] : p[1]].lstrip().startswith("#")
        for s in _sentences(doc.text, *p)
        if doc.text[s[0] : s[1]].strip()
    ]
    rows, w = [], opts.sentence_window
    for i, (s, e) in enumerate(sentences):
        window = sentences[max(0, i - w) : i + w + 1]
        text = doc.text[s:e].strip()
        rows.append(
            dict(
                base,
                granularity="sentence",
                chunk_type="screen" if screen else kind,
                has_table=False,
                has_image=False,
                page_start=doc.page_at(s),
                page_end=doc.page_at(max(e - 1, s)),
                char_spans=[s, e],
                n_tokens=None,
                representation_text=text,
                generation_text=f"{base['breadcrumb']}\n\n"
                + doc.text[window[0][0] : window[-1][1]],
                ordinal=j,
                part_index=i + 1,
                part_count=len(sentences),
                parent_id=sid,
                chunk_id=chunk_id(base["doc_id"], "sentence", j, i, text),
            )
        )
    return rows


def _first_title(doc: ParsedDoc) -> str | None:
    root = title_node(doc)
    return doc.nodes[root].title if root is not None else None


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[;,]", value.strip("[]")) if v.strip()]
    return [str(v) for v in value]
