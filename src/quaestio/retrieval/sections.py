"""The heading tree as sections: which node owns a chunk, what merges into its parent.

A section is a list of char ranges of the clean text plus its heading path. Rules:
- a heading with no text of its own before its first subheading lends its heading line to
  that first child (it stays in every descendant's breadcrumb);
- a subsection with no children whose text is shorter than `min_tokens` merges into its
  parent's section (type "merged");
- text before the first heading is an "orphan" section; a document with no heading at all is
  one orphan section (split later to the model's limit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .markdown import ParsedDoc

Counter = Callable[[list[str]], list[int]]


@dataclass
class Section:
    node: int
    level: int
    titles: list[str]
    ranges: list[tuple[int, int]]
    parent_node: int | None
    kind: str  # section / subsection / orphan / merged
    merged_nodes: list[int] = field(default_factory=list)


def title_node(doc: ParsedDoc) -> int | None:
    """The document's only level-1 heading, when it opens the document: its title."""
    tops = [i for i, n in enumerate(doc.nodes) if n.level == 1]
    return tops[0] if len(tops) == 1 and tops[0] <= 1 else None


def build_sections(doc: ParsedDoc, count: Counter, *, min_tokens: int = 48) -> list[Section]:
    """One `Section` per chunk-owning node of `doc`, in document order.

    Under a title heading (the only level-1 heading, at the top), the level-2 headings are
    the top sections: nothing merges into the title's own text.
    """
    nodes, text = doc.nodes, doc.text
    root = title_node(doc)
    own = count([text[n.start : n.end] for n in nodes]) if nodes else []
    by_node: dict[int, Section] = {}
    out: list[Section] = []
    pending: list[tuple[int, int]] = []
    for i, node in enumerate(nodes):
        body = text[node.start : node.end]
        if node.level and node.children and not body.partition("\n")[2].strip():
            pending.append((node.start, node.end))
            continue
        ranges = _join(pending + [(node.start, node.end)])
        pending = []
        parent = node.parent
        kind = (
            "orphan"
            if node.level == 0
            else "subsection"
            if parent is not None and parent != root
            else "section"
        )
        if (
            kind == "subsection"
            and not node.children
            and own[i] < min_tokens
            and parent in by_node
            and by_node[parent].ranges[-1][1] <= node.start
        ):
            host = by_node[parent]
            host.ranges = _join(host.ranges + ranges)
            host.kind = "merged"
            host.merged_nodes.append(i)
            by_node[i] = host
            continue
        section = Section(i, node.level, _titles(nodes, i), ranges, parent, kind)
        by_node[i] = section
        out.append(section)
    if pending:  # trailing headings with nothing under them
        out.append(
            Section(
                len(nodes) - 1,
                nodes[-1].level,
                _titles(nodes, len(nodes) - 1),
                _join(pending),
                nodes[-1].parent,
                "section",
            )
        )
    return out


def _titles(nodes, i: int | None) -> list[str]:
    path = []
    while i is not None:
        if nodes[i].level:
            path.append(nodes[i].title)
        i = nodes[i].parent
    return path[::-1]


def _join(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out
