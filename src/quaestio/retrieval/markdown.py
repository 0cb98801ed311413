"""Markdown into a heading tree: front matter, page markers, headings, nodes with char ranges.

The text the chunks point into is the *clean* text: line endings normalised, front matter and
page-marker lines removed (they become metadata), inline image bytes (`data:` URIs) replaced
by a note. Every other character of the source is kept, and each node is a char range of the
clean text, so a test can prove that no text is lost.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*\n", re.S)
_PAGE_LINE = re.compile(
    r'^[ \t]*(?:<!--[ \t]*page(?:[ _-]?number)?[ \t]*[:=]?[ \t]*"?(\d+)"?[ \t]*-->'
    r"|\{(\d+)\}-{5,})[ \t]*$", re.I | re.M)
_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_DATA_URI = re.compile(r"data:image/[\w.+-]+;base64,[A-Za-z0-9+/=\s]{64,}")
TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$",
                             re.M)
IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|<img\b[^>\n]*>", re.I)


@dataclass
class Node:
    level: int  # 0: text under no heading; 1-6: heading level
    title: str
    start: int  # the heading line (or the text) starts here in the clean text
    end: int
    parent: int | None = None
    children: list[int] = field(default_factory=list)


@dataclass
class ParsedDoc:
    text: str
    meta: dict[str, str]
    nodes: list[Node]
    page_marks: list[tuple[int, int]]  # (offset in clean text, page that starts there)
    _offsets: list[int] = field(default_factory=list, repr=False)

    def page_at(self, offset: int) -> int | None:
        if len(self.page_marks) != len(self._offsets):  # built once: a big file has many
            self._offsets[:] = [o for o, _ in self.page_marks]
        i = bisect.bisect_right(self._offsets, offset) - 1
        return self.page_marks[i][1] if i >= 0 else None


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """`key: value` lines between leading `---` fences (a YAML subset), and the rest."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    meta = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip().lower()] = value.strip().strip("\"'")
    return meta, text[m.end():]


def parse_markdown(text: str, *, first_page: int | None = None) -> ParsedDoc:
    """Clean `text` and build its heading tree (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    meta, text = front_matter(text)
    text = _DATA_URI.sub(lambda m: f"data:,(inline image of {len(m.group())} bytes omitted)",
                         text)
    text, marks = _pages(text, first_page)
    nodes = _tree(text)
    headings = sum(1 for n in nodes if n.level)
    if headings <= 3:
        # Plain text (or text with a heading or three, as licences underline their title):
        # its own numbering and titles, when they give it much more structure.
        from .outline import outline_nodes

        plain = outline_nodes(text, [offset for offset, _ in marks])
        if plain is not None and (not headings or len(plain) >= 3 * headings):
            nodes = plain
    return ParsedDoc(text, meta, nodes, marks)


def _pages(text: str, first_page: int | None) -> tuple[str, list[tuple[int, int]]]:
    marks = [(0, first_page)] if first_page is not None else []
    if "\f" not in text and not _PAGE_LINE.search(text):
        return text, marks
    out, pos, length = [], 0, 0
    page = first_page or 1
    if not marks and "\f" in text:
        marks = [(0, page)]
    for m in re.finditer(_PAGE_LINE.pattern + r"\n?|\f", text, re.I | re.M):
        out.append(text[pos:m.start()])
        length += m.start() - pos
        pos = m.end()
        if m.group() == "\f":
            page += 1
            out.append("\n")
            length += 1
        else:
            page = int(m.group(1) or m.group(2))
        marks.append((length, page))
    out.append(text[pos:])
    return "".join(out), marks


def _tree(text: str) -> list[Node]:
    nodes: list[Node] = []
    stack: list[int] = []
    fenced, offset, prev = False, 0, ""
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        m = None if fenced else _ATX.match(line.rstrip("\n"))
        if m is None and not fenced and prev.strip() and re.fullmatch(r"(=+|-+)[ \t]*\n?", line) \
                and "|" not in prev and not re.match(r"[ \t]*([-*+]|\d+\.)\s", prev):
            start = offset - len(prev)
            if nodes and nodes[-1].start == start and nodes[-1].level == 0:
                nodes.pop()  # that line opened the text under no heading: it is a title
            if not nodes or nodes[-1].start != start:
                _open(nodes, stack, 1 if line[0] == "=" else 2, prev.strip(), start)
        elif m is not None:
            _open(nodes, stack, len(m.group(1)), m.group(2).strip(), offset)
        elif not nodes and line.strip():
            nodes.append(Node(0, "", offset, offset))
        offset += len(line)
        prev = line
    for i, node in enumerate(nodes):
        node.end = nodes[i + 1].start if i + 1 < len(nodes) else len(text)
    return nodes


def _open(nodes: list[Node], stack: list[int], level: int, title: str, start: int) -> None:
    while stack and nodes[stack[-1]].level >= level:
        stack.pop()
    node = Node(level, title, start, start, parent=stack[-1] if stack else None)
    if node.parent is not None:
        nodes[node.parent].children.append(len(nodes))
    stack.append(len(nodes))
    nodes.append(node)
