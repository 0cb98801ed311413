"""Structural filters from a question's hint and scope columns, as a mask over chunk rows.

- `pages_hint` / `scope_page_range`: only chunks on those pages, and those chunks are
  *pinned*: kept in the hits even when no keyword matches them.
- `toc_section_hint` / `scope_sections`: chunks whose breadcrumb has a heading that fuzzily
  matches (rapidfuzz `partial_ratio` ≥ `toc_cutoff`, case-insensitive), within the
  documents that have such a heading; documents without one, and documents whose title
  matches ("under the Apache License"), are kept whole.
- `layout_hint`: "table" → chunks with a table, "image" → with an image.
- `scope_date_from/to`, `scope_parties`, `scope_jurisdictions`: on the document metadata; a
  document that does not state the field is kept (unknown is not out of scope). The date range
  filters documents only when the question says it qualifies the documents' own date (signed,
  issued, dated…: `date_target` cue rows, recorded in `scope_origins` as `date_applies_to` =
  `document`); otherwise it names the period the facts concern, which a document issued later
  may report on ("net income in 2024" is in a report dated 2025).
A filter that no chunk satisfies, or that the index cannot evaluate (no page numbers), is
dropped rather than returning nothing, and the reason is recorded in `notes`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .headings import HeadingIndex

_ROLE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
SECTIONS_CACHED = 1024


@dataclass
class Filtered:
    mask: np.ndarray | None
    pinned: np.ndarray  # rows to keep even without a keyword match
    notes: list[str] = field(default_factory=list)


class ChunkFacts:
    """The chunk and document columns the filters read, as arrays (built once per index)."""

    def __init__(self, chunks: pa.Table, documents: pa.Table):
        n = chunks.num_rows
        self.n = n
        self.page_start = _ints(chunks.column("page_start"))
        self.page_end = _ints(chunks.column("page_end"))
        self.has_pages = bool(np.isfinite(self.page_start).any())
        crumbs = chunks.column("breadcrumb").to_pylist()
        self.crumb_ids, self.crumbs = _codes(crumbs)
        self.has_table = np.asarray(chunks.column("has_table").to_pylist(), dtype=bool)
        self.has_image = np.asarray(chunks.column("has_image").to_pylist(), dtype=bool)
        self.chunk_type = np.asarray(chunks.column("chunk_type").to_pylist(), dtype=object)
        # Only what the scope filters read: a summary per document would cost more than
        # every other column together.
        docs = documents.select(
            [
                c
                for c in ("doc_id", "date", "parties", "jurisdiction")
                if c in documents.column_names
            ]
        ).to_pylist()
        position = {d["doc_id"]: i for i, d in enumerate(docs)}
        self.doc_of = np.fromiter(
            (position[d] for d in chunks.column("doc_id").to_pylist()), dtype=np.int64, count=n
        )
        # The rows as runs of one document (a document's chunks are consecutive): a
        # per-document flag spreads to the rows by a repeat, not a gather per row.
        new = np.flatnonzero(np.diff(self.doc_of, prepend=-1)) if n else np.zeros(0, np.int64)
        self.run_doc, self.run_len = self.doc_of[new], np.diff(np.append(new, n))
        self.docs = docs
        self._headings: dict[float, HeadingIndex] = {}
        # Per (cutoff, hints): the rows `_section_rows` found (a hint asked again).
        self.sections: OrderedDict[tuple, tuple] = OrderedDict()
        self.scope = _DocScope(docs)

    def headings(self, cutoff: float) -> tuple[HeadingIndex, _Owners]:
        """The distinct headings and titles of the breadcrumbs, indexed for `cutoff` (built on
        the first section hint, then kept with the index's facts)."""
        if cutoff not in self._headings:
            if not hasattr(self, "_owners"):
                self._owners = _Owners(self.crumbs, self.crumb_ids)
            self._headings[cutoff] = HeadingIndex(self._owners.parts, cutoff)
        return self._headings[cutoff], self._owners

    def per_row(self, flags: np.ndarray) -> np.ndarray:
        """A per-document array spread to the chunk rows (`flags[doc_of]`)."""
        return np.repeat(flags[self.run_doc], self.run_len)


class _Owners:
    """Each distinct lower-cased breadcrumb part, and the chunk rows whose breadcrumb holds it
    as a heading (after the first part) or as the title (the first part): built once, so a
    matched section is a gather of rows, not a pass over every breadcrumb."""

    def __init__(self, crumbs: list[str], crumb_ids: np.ndarray):
        ids: dict[str, int] = {}
        heading: tuple[list[int], list[int]] = ([], [])
        title: tuple[list[int], list[int]] = ([], [])
        for c, crumb in enumerate(crumbs):
            for n, part in enumerate(crumb.split(" > ")):
                into = title if n == 0 else heading
                into[0].append(ids.setdefault(part.lower(), len(ids)))
                into[1].append(c)
        self.parts = list(ids)
        by_crumb = _csr(crumb_ids, np.arange(len(crumb_ids)), len(crumbs))
        self._heading = _by_part(*heading, len(ids), by_crumb)
        self._title = _by_part(*title, len(ids), by_crumb)

    def rows(self, parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The chunk rows holding one of `parts` as a heading; as the title."""
        return _gather(*self._heading, parts), _gather(*self._title, parts)


def _csr(keys: np.ndarray, values: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """`values` grouped by `keys` (0 <= key < n_keys): start offsets and the grouped values."""
    keys = np.asarray(keys, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    start = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n_keys))])
    return start.astype(np.int64), np.asarray(values, dtype=np.int64)[order]


def _gather(start: np.ndarray, values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The values of every key in `keys`, concatenated (one vectorised gather)."""
    keys = np.asarray(keys, dtype=np.int64)
    lo = start[keys]
    lengths = start[keys + 1] - lo
    total = int(lengths.sum())
    at = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    return values[at]


def _by_part(
    parts: list[int], crumbs: list[int], n_parts: int, by_crumb: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Chunk rows by part, from (part, breadcrumb) pairs and the rows of each breadcrumb."""
    part, crumb = np.asarray(parts, dtype=np.int64), np.asarray(crumbs, dtype=np.int64)
    start, rows = by_crumb
    per_pair = start[crumb + 1] - start[crumb]
    return _csr(np.repeat(part, per_pair), _gather(start, rows, crumb), n_parts)


def question_filters(
    records: list[dict], facts: ChunkFacts, *, toc_cutoff: float = 85, block: int = 1024
) -> list[Filtered]:
    """`question_filter` of each record, the new section hints of each block of records
    looked up together first (`HeadingIndex.look_up`)."""
    out = []
    for lo in range(0, len(records), block):
        part = records[lo : lo + block]
        hints = [h for r in part for h in _section_hints(r)]
        if hints:
            facts.headings(toc_cutoff)[0].look_up(hints)
        out += [question_filter(r, facts, toc_cutoff=toc_cutoff) for r in part]
    return out


def _section_hints(record: dict) -> list[str]:
    hints = [record.get("toc_section_hint"), *(record.get("scope_sections") or [])]
    return [h for h in hints if h]


def question_filter(record: dict, facts: ChunkFacts, *, toc_cutoff: float = 85) -> Filtered:
    """The mask and pinned rows for one question record (see the module docstring)."""
    mask: np.ndarray | None = None  # (every row)
    notes: list[str] = []
    pinned = np.zeros(0, dtype=np.int64)

    def apply(name: str, keep: np.ndarray, owned: bool = False) -> None:
        nonlocal mask  # (`owned`: `keep` is this question's own array, not a shared column)
        both = keep if mask is None else mask & keep
        if both.any():
            mask = both if both is not keep or owned else keep.copy()
        else:
            notes.append(f"{name}: no chunk matches; filter dropped")

    pages = sorted(set(record.get("pages_hint") or []) | _range(record.get("scope_page_range")))
    if pages:
        if not facts.has_pages:
            notes.append("pages_hint: the index has no page numbers; filter dropped")
        else:
            on = _on_pages(facts, pages)
            apply("pages_hint", on)
            pinned = np.flatnonzero(on if mask is None else on & mask)
    sections = _section_hints(record)
    if sections:
        apply("toc_section_hint", _sections(facts, sections, toc_cutoff), owned=True)
    layout = record.get("layout_hint")
    if layout in ("table", "image"):
        apply(f"layout_hint={layout}", facts.has_table if layout == "table" else facts.has_image)
    docs = _doc_scope(record, facts.scope)
    if docs is not None:
        apply("scope", facts.per_row(docs), owned=True)
    if mask is None or mask.all():
        return Filtered(None, pinned, notes)
    return Filtered(mask, pinned, notes)


def _sections(facts: ChunkFacts, hints: list[str], cutoff: float) -> np.ndarray:
    key = (cutoff, *(h.lower() for h in hints))
    found = facts.sections.get(key)
    if found is None:
        found = facts.sections[key] = _section_rows(facts, hints, cutoff)
        if len(facts.sections) > SECTIONS_CACHED:
            facts.sections.popitem(last=False)
    else:
        facts.sections.move_to_end(key)
    heading_rows, cut = found
    if heading_rows is None:
        return np.ones(facts.n, dtype=bool)  # nothing named: every document kept whole
    whole = np.ones(len(facts.docs), dtype=bool)
    whole[cut] = False
    keep = facts.per_row(whole)
    keep[heading_rows] = True
    return keep


def _section_rows(facts: ChunkFacts, hints: list[str], cutoff: float):
    """The chunk rows under a heading the hints match, and the documents cut down to them
    (None, None: no heading or title matches)."""
    # A breadcrumb part matches when rapidfuzz's partial_ratio of a lower-cased hint to the
    # lower-cased part reaches the cutoff; the heading index scores only the parts that can.
    index, owners = facts.headings(cutoff)
    found = [index.matching(h) for h in hints]  # each sorted and distinct
    matched = found[0] if len(found) == 1 else np.unique(np.concatenate(found))
    if not len(matched):
        return None, None
    heading_rows, title_rows = owners.rows(matched)
    # "under the Apache License": a hint matching a document's title names the document,
    # which stays whole. A document without such a heading may hold the same text under
    # another one (or none: plain text), so it stays too; a document that has the section
    # keeps only that section. (Restricting to the named documents alone hid 20 of 150
    # FinanceBench evidence pages, whose titles are statement headings.)
    whole = np.ones(len(facts.docs), dtype=bool)
    whole[facts.doc_of[heading_rows]] = False
    whole[facts.doc_of[title_rows]] = True
    return heading_rows, np.flatnonzero(~whole)


def _on_pages(facts: ChunkFacts, pages: list[int]) -> np.ndarray:
    """Chunks whose page span holds one of `pages` (sorted): the first page at or after a
    chunk's start must not be past its end. Unknown spans (NaN) hold none."""
    wanted = np.asarray(pages, dtype=float)
    first = np.searchsorted(wanted, facts.page_start, side="left")
    inside = first < len(wanted)
    return inside & (wanted[np.minimum(first, len(wanted) - 1)] <= facts.page_end)


class _DocScope:
    """The document fields the scope reads, held so a scoped question visits only the
    documents that state the field (the others are kept: unknown is not out of scope)."""

    def __init__(self, docs: list[dict]):
        self.n = len(docs)
        self.dates = [d.get("date") for d in docs]
        self.dated = np.asarray([d is not None for d in self.dates], dtype=bool)
        try:
            self.days: np.ndarray | None = np.asarray(self.dates, dtype="datetime64[D]")
        except (TypeError, ValueError):
            self.days = None
        self.parties = [
            (i, [q.lower() for q in d["parties"]]) for i, d in enumerate(docs) if d.get("parties")
        ]
        self.places = [
            (i, [j.lower() for j in d["jurisdiction"]])
            for i, d in enumerate(docs)
            if d.get("jurisdiction")
        ]

    def outside(self, start, end) -> np.ndarray:
        """Documents dated before `start` or after `end` (undated ones are not)."""
        if self.days is not None and all(
            v is None or (isinstance(v, dt.date) and not isinstance(v, dt.datetime))
            for v in (start, end)
        ):
            out = np.zeros(self.n, dtype=bool)
            if start:
                out |= self.days < np.datetime64(start, "D")
            if end:
                out |= self.days > np.datetime64(end, "D")
            return out & self.dated
        return np.asarray(
            [
                date is not None and bool((start and date < start) or (end and date > end))
                for date in self.dates
            ],
            dtype=bool,
        )


def _doc_scope(record: dict, scope: _DocScope) -> np.ndarray | None:
    start, end = record.get("scope_date_from"), record.get("scope_date_to")
    if not _dates_documents(record):
        start = end = None
    # A party that is a concept id (insured_person, policyholder) names a role, which every
    # document of the family has; only names (Acme, Jane Doe) filter documents.
    parties = [p.lower() for p in record.get("scope_parties") or [] if not _ROLE.fullmatch(p)]
    # Only country concepts (country_de) or codes (DE) are places; other concepts whose
    # scope kind is jurisdiction (governing_law) name the topic, not a place.
    places = [
        j.lower().removeprefix("country_")
        for j in record.get("scope_jurisdictions") or []
        if j.lower().startswith("country_") or (len(j) <= 3 and j.isupper())
    ]
    if not (start or end or parties or places):
        return None
    keep = np.ones(scope.n, dtype=bool)
    if start or end:
        keep &= ~scope.outside(start, end)
    if parties:
        for i, named in scope.parties:
            if not any(p in q for p in parties for q in named):
                keep[i] = False
    if places:
        for i, stated in scope.places:
            if not any(p == j for p in places for j in stated):
                keep[i] = False
    return keep


def _dates_documents(record: dict) -> bool:
    """True when the scope says its date range is the documents' own date (see the docstring)."""
    return any(
        isinstance(o, dict) and o.get("name") == "date_applies_to" and o.get("value") == "document"
        for o in record.get("scope_origins") or []
    )


def _range(values) -> set[int]:
    if not values:
        return set()
    lo, hi = min(values), max(values)
    return set(range(lo, hi + 1)) if hi - lo < 1000 else {lo, hi}


def _ints(column: pa.ChunkedArray) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in column.to_pylist()], dtype=float)


def _codes(values: list[str]) -> tuple[np.ndarray, list[str]]:
    uniques: dict[str, int] = {}
    codes = np.fromiter(
        (uniques.setdefault(v, len(uniques)) for v in values), dtype=np.int64, count=len(values)
    )
    return codes, list(uniques)
