"""The representation field: document summary + a templated description of the piece.

Offline, both are extractive: the document's first sentences, the piece's heading path, what
it holds (table headers, images, part i of n) and its own text up to the token budget, so the
one vector per chunk still sees the piece's words. With `describe=` (an LLM later), the
summary and the description come from that callable instead, from a fixed template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from .markdown import IMAGE, TABLE_SEPARATOR

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_MARKUP = re.compile(r"[#>*_`|]+|!\[[^\]]*\]\([^)]*\)|\[([^\]]*)\]\([^)]*\)|<!--.*?-->", re.S)


class Describe(Protocol):
    """`describe(kind, text, title) -> str`: kind is "document" (a summary of `text`) or
    "chunk" (a description of one piece: what it contains, which question it answers)."""

    def __call__(self, kind: str, text: str, title: str) -> str: ...


def plain(text: str) -> str:
    """Markdown reduced to its words (links keep their label)."""
    return re.sub(r"\s+", " ", _MARKUP.sub(lambda m: m.group(1) or " ", text)).strip()


def summarize(
    title: str, body: str, *, max_words: int = 40, describe: Describe | None = None
) -> str:
    """A document summary: the title and the first sentences, at most `max_words` words."""
    if describe is not None:
        return describe("document", body, title)
    words: list[str] = []
    for line in body.splitlines():
        if line.lstrip().startswith(("#", "|", "<!--", "![")) or not line.strip():
            continue
        words += plain(line).split()
        if len(words) >= max_words:
            break
    return " ".join(words[:max_words])


def table_headers(text: str) -> list[list[str]]:
    """The header cells of each Markdown table in `text`."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if i and TABLE_SEPARATOR.fullmatch(line):
            out.append([c.strip() for c in lines[i - 1].strip().strip("|").split("|")])
    return out


def describe_piece(
    *,
    title: str,
    summary: str,
    breadcrumb: str,
    body: str,
    part: str,
    count: Callable[[list[str]], list[int]],
    budget: int,
    describe: Describe | None = None,
) -> str:
    """The representation text of one piece, kept within `budget` tokens."""
    head = [f"{title}: {summary}" if summary else title, f"Section: {breadcrumb}{part}."]
    tables = table_headers(body)
    for cells in tables:
        rows = sum(1 for ln in body.splitlines() if ln.lstrip().startswith("|")) - 2
        head.append(f"Table with columns {', '.join(c for c in cells if c)} ({rows} rows).")
    images = IMAGE.findall(body)
    if images:
        head.append(f"{len(images)} image(s).")
    if describe is not None:
        head.append(describe("chunk", body, breadcrumb))
        return _within("\n".join(head), budget, count)
    return _within("\n".join(head) + "\n" + plain(body), budget, count)


def _within(text: str, budget: int, count: Callable[[list[str]], list[int]]) -> str:
    # The embedding model would cut the input anyway; cutting here keeps the stored field
    # equal to what was embedded. The generation field is never cut.
    size = count([text])[0]
    if size <= budget:
        return text
    words = text.split(" ")
    keep = max(1, int(len(words) * budget / size * 0.95))
    while keep > 1 and count([" ".join(words[:keep])])[0] > budget:
        keep = int(keep * 0.9)
    return " ".join(words[:keep])
