"""The grounded-answer prompt, compiled from `prompt_parts` rows and the retrieved passages.

The system message joins, in this order, the role, task, gaps (what to do when the
passages lack the answer), tone, and two format rows: the question's answer shape and its
intent (navigational or conceptual). A row in the question's language replaces the `*`
row of the same kind and target. The user message holds the question, then numbered
passages, each labelled with its breadcrumb, pages and "part i of n".

Token budget (counted as characters / 4, like the usual tokenizers on English): the
instructions and the question are never cut. Passages go in rank order, each survivor with
its restored siblings right after it. Over the budget, passages leave in this order:
1. siblings, from the lowest-ranked survivor up;
2. survivors, from the lowest rank up (the top survivor stays);
3. the top survivor's text is cut to what fits, at the last sentence end when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..retrieval.dispatch import is_navigational
from ..satellites import Satellites

CHARS_PER_TOKEN = 4
INSTRUCTION_KINDS = ("role", "task", "gaps", "tone")


def tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass
class Prompt:
    """Messages for the chat endpoint, and what went into them (recorded with the turn)."""

    messages: list[dict[str, str]]
    part_ids: list[str]
    passages: list[dict[str, Any]]  # the citations: n, chunk_id, doc_id, breadcrumb, pages
    tokens: int
    dropped: list[str] = field(default_factory=list)  # chunk ids left out for the budget
    cut: bool = False


def parts_for(
    sats: Satellites, language: str | None, kind: str, target: str | None = None
) -> list[dict[str, Any]]:
    """The rows of one kind (and target), the question's language winning over `*`."""
    rows = [
        r
        for r in sats.prompt_parts.iter_rows(named=True)
        if r["kind"] == kind and (target is None or r["target"] == target)
    ]
    own = [r for r in rows if r["language"] == language]
    return own or [r for r in rows if r["language"] == "*"]


def not_found_text(sats: Satellites, language: str | None) -> str:
    rows = parts_for(sats, language, "not_found")
    return rows[0]["text"] if rows else "Not found in the documents."


def label(n: int, hit: dict[str, Any]) -> str:
    bits = [f"[{n}] {hit.get('breadcrumb') or hit.get('doc_id') or ''}".rstrip()]
    start, end = hit.get("page_start"), hit.get("page_end")
    if start is not None:
        bits.append(f"page {start}" if end in (None, start) else f"pages {start}-{end}")
    if (hit.get("part_count") or 1) > 1:
        bits.append(f"part {hit.get('part_index')} of {hit.get('part_count')}")
    return " · ".join(bits)


def citation(n: int, hit: dict[str, Any]) -> dict[str, Any]:
    return {
        "n": n,
        "chunk_id": hit.get("chunk_id"),
        "doc_id": hit.get("doc_id"),
        "breadcrumb": hit.get("breadcrumb"),
        "page_start": hit.get("page_start"),
        "page_end": hit.get("page_end"),
        "part_index": hit.get("part_index"),
        "part_count": hit.get("part_count"),
    }


def compile_prompt(
    row: dict[str, Any], hits: list[dict[str, Any]], sats: Satellites, *, budget: int = 3000
) -> Prompt:
    """Build the chat messages for one parsed question and its hits (see the module doc).

    Args:
        row: The question's question_df record.
        hits: Its hits_df records in rank order; `route == "sibling"` marks restored parts.
        sats: The satellites holding `prompt_parts`.
        budget: Most prompt tokens (instructions + question + passages).
    """
    language = row.get("language")
    chosen = [p for kind in INSTRUCTION_KINDS for p in parts_for(sats, language, kind)]
    intent = "navigational" if is_navigational(row) else "conceptual"
    for target in (str(row.get("answer_shape") or "single"), intent):
        chosen += parts_for(sats, language, "format", target)
    system = "\n\n".join(p["text"] for p in chosen)
    question = row.get("corrected_question") or row.get("original_question") or ""
    head = f"Question: {question}\n\nPassages:"
    groups = _groups([h for h in hits if h.get("route") != "clarify"])
    room = budget - tokens(system) - tokens(head) - 8
    kept, dropped, cut = _fit(groups, room)
    passages, blocks = [], []
    for n, (hit, text) in enumerate(kept, 1):
        passages.append(citation(n, hit))
        blocks.append(f"{label(n, hit)}\n{text}")
    user = "\n\n".join([head] + blocks) if blocks else head + "\n(none)"
    return Prompt(
        [{"role": "system", "content": system}, {"role": "user", "content": user}],
        [p["part_id"] for p in chosen],
        passages,
        tokens(system) + tokens(user),
        dropped,
        cut,
    )


def _groups(hits: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Survivors in rank order, each followed by the siblings restored after it."""
    groups: list[list[dict[str, Any]]] = []
    for hit in hits:
        if hit.get("route") == "sibling" and groups:
            groups[-1].append(hit)
        else:
            groups.append([hit])
    return groups


def _fit(groups, room: int):
    def size(group):
        return sum(tokens(h.get("generation_text") or "") + 12 for h in group)

    groups = [list(g) for g in groups]
    dropped: list[str] = []
    total = sum(size(g) for g in groups)
    for g in reversed(groups):  # 1. siblings, lowest-ranked survivor first
        while total > room and len(g) > 1:
            gone = g.pop()
            total -= tokens(gone.get("generation_text") or "") + 12
            dropped.append(gone.get("chunk_id"))
    while total > room and len(groups) > 1:  # 2. survivors, lowest rank first
        gone = groups.pop()
        total -= size(gone)
        dropped += [h.get("chunk_id") for h in gone]
    kept = [(h, h.get("generation_text") or "") for g in groups for h in g]
    cut = False
    if kept and total > room:  # 3. the top survivor, cut to fit
        hit, text = kept[0]
        limit = max(0, (room - 12) * CHARS_PER_TOKEN)
        short = text[:limit]
        end = max(short.rfind(". "), short.rfind(".\n"))
        kept[0] = (hit, short[: end + 1] if end > limit // 2 else short)
        cut = True
    return kept, dropped, cut
