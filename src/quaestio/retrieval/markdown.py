"""Markdown into a heading tree: front matter, page markers, headings, nodes with char ranges.

markdown-it-py (CommonMark, tables, the front-matter plugin) reads the structure and PyYAML's
safe loader the front matter; plain text without headings gets its outline from `outline`.

The text the chunks point into is the *clean* text: line endings normalised, front matter and
page-marker lines removed (they become metadata), inline image bytes (`data:` URIs) replaced
by a note. Every other character of the source is kept, and each node is a char range of the
clean text, so a test can prove that no text is lost.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

_PAGE_LINE = re.compile(
    r'^[ \t]*(?:<!--[ \t]*page(?:[ _-]?number)?[ \t]*[:=]?[ \t]*"?(\d+)"?[ \t]*-->'
    r"|\{(\d+)\}-{5,})[ \t]*$",
    re.I | re.M,
)
_DATA_URI = re.compile(r"data:image/[\w.+-]+;base64,[A-Za-z0-9+/=\s]{64,}")
TABLE_SEPARATOR = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$", re.M
)
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
    meta: dict
    nodes: list[Node]
    page_marks: list[tuple[int, int]]  # (offset in clean text, page that starts there)
    _offsets: list[int] = field(default_factory=list, repr=False)

    def page_at(self, offset: int) -> int | None:
        if len(self.page_marks) != len(self._offsets):  # built once: a big file has many
            self._offsets[:] = [o for o, _ in self.page_marks]
        i = bisect.bisect_right(self._offsets, offset) - 1
        return self.page_marks[i][1] if i >= 0 else None


def front_matter(text: str) -> tuple[dict, str]:
    """The YAML front matter between leading `---` fences (PyYAML's safe loader: lists,
    dates and quoted values come out typed), keys lower-cased, and the rest of the text.

    Front matter that is not valid YAML falls back to `key: value` lines, so one bad file
    never stops an ingestion.
    """
    found = _front_token(text)
    if found is None:
        return {}, text
    content, end = found
    import yaml

    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError:
        data = dict(_key_values(content))
    if not isinstance(data, dict):
        data = {}
    return {
        str(k).strip().lower(): _plain_value(v) for k, v in data.items() if str(k).strip()
    }, text[end:]


def _front_token(text: str) -> tuple[str, int] | None:
    if not text.startswith("---"):
        return None
    tokens = _parser().parse(text)
    if not tokens or tokens[0].type != "front_matter" or tokens[0].map is None:
        return None
    lines = text.splitlines(keepends=True)
    end = sum(len(line) for line in lines[: tokens[0].map[1]])
    return tokens[0].content, end


def _key_values(content: str):
    for line in content.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            yield key.strip(), value.strip().strip("\"'")


def _plain_value(value):
    import datetime as dt

    if isinstance(value, (str, list, dt.date)) or value is None:
        return value
    return str(value) if not isinstance(value, dict) else value


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    return MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


def parse_markdown(text: str, *, first_page: int | None = None) -> ParsedDoc:
    """Clean `text` and build its heading tree (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    meta, text = front_matter(text)
    text = _DATA_URI.sub(lambda m: f"data:,(inline image of {len(m.group())} bytes omitted)", text)
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
        out.append(text[pos : m.start()])
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
    # markdown-it-py (CommonMark) finds the headings: ATX and setext, never inside fenced
    # or indented code, HTML blocks or list items; its line map gives each one's offset.
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    tokens = _parser().parse(text)
    nodes: list[Node] = []
    stack: list[int] = []
    first = next((offsets[i] for i, line in enumerate(lines) if line.strip()), None)
    for n, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        start = offsets[token.map[0]]
        if not nodes and first is not None and first < start:
            nodes.append(Node(0, "", first, first))
        _open(nodes, stack, int(token.tag[1]), tokens[n + 1].content.strip(), start)
    if not nodes and first is not None:
        nodes.append(Node(0, "", first, first))
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
