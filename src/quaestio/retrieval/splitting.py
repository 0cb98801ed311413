"""The adaptive second pass: split a section that exceeds the token budget into parts.

Parts break at paragraph boundaries, then sentence boundaries, then (for a sentence longer
than the budget) word boundaries; each part after the first repeats the previous part's last
sentence when it is short (`overlap` tokens), so a fact that straddles a cut is seen whole.
Tables and fenced code blocks are never cut: a table longer than the budget is a part of its
own. Parts are char ranges of the clean text, so nothing can be dropped or truncated.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .markdown import TABLE_SEPARATOR

Counter = Callable[[list[str]], list[int]]
Range = tuple[int, int]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.M)


def split_ranges(
    text: str, ranges: list[Range], budget: int, count: Counter, *, overlap: int = 32
) -> list[list[Range]]:
    """Pack `ranges` into parts of at most `budget` tokens (see the module docstring)."""
    if sum(count([text[s:e] for s, e in ranges])) <= budget:
        return [ranges]
    units = [u for s, e in ranges for u in _paragraphs(text, s, e)]
    units = _fit(text, units, budget, count)
    sizes = count([text[s:e] for s, e in units])
    parts: list[list[Range]] = []
    current: list[Range] = []
    used = 0
    for unit, size in zip(units, sizes):
        if current and used + size > budget:
            parts.append(current)
            current, used = _overlap(text, current[-1], budget - size, count, overlap)
        current.append(unit)
        used += size
    if current:
        parts.append(current)
    return parts


def _paragraphs(text: str, start: int, end: int) -> list[Range]:
    # Paragraphs, with each fenced block kept as one unit even if it holds blank lines.
    cuts, pos = [], start
    fences = [m.start() + start for m in _FENCE.finditer(text, start, end)]
    spans = list(zip(fences[::2], fences[1::2]))
    for m in _PARAGRAPH_BREAK.finditer(text, start, end):
        if any(a < m.start() < b for a, b in spans):
            continue
        cuts.append((pos, m.start()))
        pos = m.end()
    cuts.append((pos, end))
    return [(s, e) for s, e in cuts if text[s:e].strip()]


def _fit(text: str, units: list[Range], budget: int, count: Counter) -> list[Range]:
    sizes = count([text[s:e] for s, e in units])
    out: list[Range] = []
    for (s, e), size in zip(units, sizes):
        chunk = text[s:e]
        if size <= budget or TABLE_SEPARATOR.search(chunk) or _FENCE.match(chunk):
            out.append((s, e))
            continue
        sentences = _sentences(text, s, e)
        if len(sentences) == 1:
            out.extend(_words(text, s, e, budget, size))
        else:
            out.extend(_fit(text, sentences, budget, count))
    return out


def _sentences(text: str, start: int, end: int, language: str | None = None) -> list[Range]:
    return sentence_spans(text, start, end, language)


def sentence_spans(text: str, start: int, end: int, language: str | None = None) -> list[Range]:
    """Sentences of `text[start:end]` as char ranges, by sentencex (Wikimedia's segmenter).

    Measured against pysbd (the issue's suggestion): sentencex keeps "e.g.", "Art. 5",
    "U.S.", "p. ej.", "Sr." and hard-wrapped lines together where pysbd cut Spanish
    abbreviations and every wrapped line of a plain-text licence (GPL-3: 223 sentences vs
    658 pieces), and runs ~60x faster (9 ms vs 560 ms for GPL-3). Neither cuts at ":"/";".
    """
    from sentencex import segment

    out: list[tuple[int, int]] = []
    pos = start
    piece = text[start:end]
    lang = (language or "en").split("-")[0].lower()
    try:
        sentences = list(segment(lang, piece))
    except Exception:  # an unknown language code: the English rules
        sentences = list(segment("en", piece))
    for sentence in sentences:
        body = sentence.strip()
        if not body:
            continue
        at = text.find(body, pos, end)
        if at < 0:  # the segmenter changed the text: keep what is left as one sentence
            break
        if out:
            out[-1] = (out[-1][0], _rstrip(text, out[-1][0], at))
        out.append((at, at + len(body)))
        pos = at + len(body)
    if not out:
        return [(start, end)] if end > start else []
    first, last = out[0], out[-1]
    out[0], out[-1] = (start, first[1]), (last[0], end) if len(out) > 1 else (start, end)
    return [
        (s, _rstrip(text, s, e)) if i < len(out) - 1 else (s, e)
        for i, (s, e) in enumerate(out)
        if e > s
    ]


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _words(text: str, start: int, end: int, budget: int, size: int) -> list[Range]:
    # A "sentence" longer than the budget (a list without stops, a run-on line): cut between
    # words, sizing windows by the measured tokens-per-word ratio with a 10% margin.
    words = [m.span() for m in re.finditer(r"\S+", text[start:end])]
    per_window = max(1, int(len(words) * budget / max(size, 1) * 0.9))
    out = []
    for i in range(0, len(words), per_window):
        chunk = words[i : i + per_window]
        out.append((start + chunk[0][0], start + chunk[-1][1]))
    return out


def _overlap(
    text: str, last: Range, room: int, count: Counter, overlap: int
) -> tuple[list[Range], int]:
    sentences = _sentences(text, *last)
    if len(sentences) < 2 and count([text[last[0] : last[1]]])[0] > overlap:
        return [], 0
    tail = sentences[-1]
    size = count([text[tail[0] : tail[1]]])[0]
    if size > min(overlap, room) or TABLE_SEPARATOR.search(text[tail[0] : tail[1]]):
        return [], 0
    return [tail], size
