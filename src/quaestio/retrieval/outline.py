"""Sections of a plain-text document (no Markdown heading): the heading tree contracts,
licences and policies carry in their own conventions.

A line opens a section when it starts a paragraph (after a blank line, a form-feed page
break or another heading) and is one of:
- a keyword and a number: "Section 4", "ARTICLE IV", "Article 12 - Term", "Annex A",
  "Schedule 2", "Clause 7", in EN/FR/ES ("Chapitre 3", "Annexe B", "Artículo 5",
  "Capítulo II", "Anexo 1"); the title may sit on the next line ("ARTICLE IV\\nTERMINATION");
- a numbered clause, "1.", "2.3", "4.1.2 Title": its depth is its nesting; a number is
  accepted only where it continues the numbering (2 after 1, 2.1 under 2), so a list
  item or a stray "7." inside clause 5 stays text;
- a Roman numeral with a short title ("IV. TERMINATION"), in sequence too;
- an ALL-CAPS title line standing alone ("TERMS AND CONDITIONS"), unless it repeats on
  many pages (a running header); or a short line underlined with `===` or `---`.
The result is the same node tree Markdown headings give, so chunk types, breadcrumbs and
stable ids work unchanged. Fewer than two headings: the document keeps no structure.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence

import regex

from .markdown import Node, _open

_WORDS = {
    1: "part|partie|parte|title|titre|t[ií]tulo|chapter|chapitre|cap[ií]tulo|book|livre|libro",
    2: "article|art[ií]culo|section|secci[oó]n|annex|annexe|anexo|appendix|appendice|"
    "ap[eé]ndice|schedule|exhibit|attachment|pi[eè]ce\\s+jointe",
    3: "clause|cl[aá]usula|paragraph|paragraphe|p[aá]rrafo",
}
_KEYWORD = regex.compile(
    r"^[ \t]*(?P<word>" + "|".join(_WORDS.values()) + r")[ \t]+"
    r"(?P<num>\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7}|[A-Z])\b\.?(?P<rest>[^\n]*)$",
    regex.I,
)
_NUMBERED = regex.compile(
    r"^[ \t]{0,8}(?P<num>\d{1,3}(?:\.\d{1,3})*)(?P<dot>[.)])?[ \t]+"
    r"(?P<rest>[\"“'(A-Z\p{Lu}][^\n]*)$"
)
_ROMAN = regex.compile(r"^[ \t]{0,8}(?P<num>[IVXLC]{1,7})[.)][ \t]+(?P<rest>\p{Lu}[^\n]*)$")
_SEPARATOR = regex.compile(r"^[ \t]*[.:)\-–—][ \t]*")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def outline_nodes(text: str, page_starts: Sequence[int] = ()) -> list[Node] | None:
    """The heading nodes of plain `text`, or None when it has fewer than two headings."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    caps_seen = Counter(line.strip() for line in lines if _caps_title(line.strip()))
    state = _Numbering()
    heads: list[tuple[int, int, str]] = []  # (line, level, title)
    skip = -1
    for i, line in enumerate(lines):
        if i <= skip or not line.strip():
            continue
        starts = (
            i == 0
            or not lines[i - 1].strip()
            or _is_page_start(offsets[i], page_starts)
            or (heads and heads[-1][0] == i - 1)
            or _underline(lines[i - 1])
        )
        if not starts:
            continue
        head = _heading(lines, i, state, caps_seen)
        if head is not None:
            level, title, used = head
            heads.append((i, level, title))
            skip = i + used - 1
    if len(heads) < 2:
        return None
    nodes: list[Node] = []
    stack: list[int] = []
    if text[: offsets[heads[0][0]]].strip():
        nodes.append(Node(0, "", 0, 0))
    for i, level, title in heads:
        _open(nodes, stack, level, title, offsets[i])
    for n, node in enumerate(nodes):
        node.end = nodes[n + 1].start if n + 1 < len(nodes) else len(text)
    return nodes


class _Numbering:
    """The clause numbers seen so far: a number is a heading only where it comes next."""

    def __init__(self):
        self.path: list[int] = []
        self.roman = 0

    def accepts(self, numbers: list[int]) -> bool:
        depth = len(numbers)
        if depth > len(self.path) + 1 or numbers[:-1] != self.path[: depth - 1]:
            return False
        last = self.path[depth - 1] if depth <= len(self.path) else None
        if last is None:
            ok = numbers[-1] in (0, 1)
        else:
            ok = numbers[-1] == last + 1
        if ok:
            self.path = numbers
        return ok


def _heading(lines: list[str], i: int, state: _Numbering, caps_seen: Counter):
    line = lines[i].rstrip("\n")
    stripped = line.strip()
    found = _KEYWORD.match(line)
    if found and _title_like(found.group("rest")):
        word = found.group("word").lower()
        level = 1 + next(
            lv for lv, words in _WORDS.items() if regex.fullmatch(words, word, regex.I)
        )
        level += found.group("num").count(".")
        title, used = stripped, 1
        rest = _SEPARATOR.sub("", found.group("rest")).strip()
        follow = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (
            not rest
            and follow
            and len(follow.split()) <= 10
            and (_caps_title(follow) or follow.istitle())
        ):
            title, used = f"{stripped} {follow}", 2
        return level, _short(title), used
    found = _NUMBERED.match(line)
    if found and (found.group("dot") or "." in found.group("num")):
        numbers = [int(n) for n in found.group("num").split(".")]
        if state.accepts(numbers):
            return 4 + len(numbers), _numbered_title(found.group("num"), found.group("rest")), 1
        return None
    found = _ROMAN.match(line)
    if found and len(found.group("rest").split()) <= 8:
        value = _roman(found.group("num"))
        if value == state.roman + 1:
            state.roman = value
            return 2, _short(stripped), 1
        return None
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if nxt and _underline(lines[i + 1]) and len(stripped.split()) <= 12:
        return (1 if nxt[0] == "=" else 2), _short(stripped), 2
    if (
        _caps_title(stripped)
        and not nxt[:1].islower()
        and caps_seen[stripped] < 3
        and (not nxt or _underline(lines[i + 1]) or not _caps_title(nxt))
    ):
        return 1, stripped, 1
    return None


def _title_like(rest: str) -> bool:
    # "Section 6 states terms for..." is prose that starts with a reference, not a heading.
    rest = rest.strip()
    if not rest or _SEPARATOR.match(rest):
        return True
    return len(rest.split()) <= 12 and not rest[:1].islower()


def _caps_title(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    words = line.split()
    return (
        len(letters) >= 4
        and 1 <= len(words) <= 10
        and all(c.isupper() for c in letters)
        and not line.endswith((",", ";"))
        and not regex.fullmatch(r"[\W\d]+", line)
    )


def _underline(line: str) -> bool:
    return bool(regex.fullmatch(r"[ \t]*([-=_*~])\1{2,}[ \t]*\n?", line))


def _numbered_title(number: str, rest: str) -> str:
    sentence = regex.split(r"(?<=[.:;])\s", rest.strip(), maxsplit=1)[0].rstrip(".:;")
    return _short(f"{number}{'' if number.endswith('.') else '.'} {sentence}".replace("..", "."))


def _short(title: str, words: int = 10) -> str:
    parts = title.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[: words - 2]) + " …"


def _roman(numeral: str) -> int:
    total = 0
    for a, b in zip(numeral, numeral[1:] + " "):
        value = _ROMAN_VALUES[a]
        total += -value if b != " " and _ROMAN_VALUES[b] > value else value
    return total


def _is_page_start(offset: int, page_starts) -> bool:
    i = bisect.bisect_left(page_starts, offset)
    return i < len(page_starts) and page_starts[i] == offset
