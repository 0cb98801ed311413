"""Zones of a passage (line, sentence, paragraph) and the question's keywords inside it.

A zone is found by position: the passage is split once per zone kind (one regex pass), and a
value or keyword goes to the zone whose span holds its start (a binary search), so values
and keywords are each scanned once per passage, whatever the number of zones.
"""

from __future__ import annotations

import bisect
import unicodedata
from functools import lru_cache

import regex

from .windows import finditer_windows

# Where one zone ends and the next begins. Sentences end at . ! ? … before a capital or a
# figure, and wherever a line or paragraph ends in a list, a table or a heading.
_BREAKS = {
    "line": regex.compile(r"\r?\n"),
    "paragraph": regex.compile(r"\n[ \t]*(?:\r?\n[ \t]*)+|\n(?=[ \t]*#)"),
    "sentence": regex.compile(
        r"(?<=[.!?…])[\"'»”’)\]]*[ \t]+(?=[\"'«“‘(\[¿¡]?[\p{Lu}\d])|(?<=[.!?…:|])[ \t]*\r?\n"
        r"|\n[ \t]*(?:\r?\n[ \t]*)+|\n(?=[ \t]*(?:[-*•|#>]|\d{1,3}[.)][ \t]))"
    ),
}


def zones(text: str, kind: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the zones of `text`, separators excluded, in order."""
    spans, last = [], 0
    for m in _BREAKS[kind].finditer(text):
        spans.append((last, m.start()))
        last = m.end()
    spans.append((last, len(text)))
    return spans


def zone_index(starts: list[int], position: int) -> int:
    return max(bisect.bisect_right(starts, position) - 1, 0)


@lru_cache(maxsize=1)
def _fold_table() -> dict[int, str]:
    table = {}
    for code in range(0xC0, 0x250):
        base = unicodedata.normalize("NFKD", chr(code))[0]
        if base != chr(code) and base.isascii():
            table[code] = base
    table.update({ord(c): "'" for c in "’‘ʼ´"} | {ord(c): "-" for c in "‐‑–—"})
    return table


def fold(text: str) -> str:
    """Accents removed and apostrophes and dashes made plain, one character for one, so
    spans in the folded text are spans of the original."""
    return text.translate(_fold_table())


class KeywordMatcher:
    """The keywords of one question as one case- and accent-insensitive regex."""

    def __init__(self, keywords: tuple[tuple[str, float, bool], ...]):
        self.weights: dict[str, float] = {}
        parts = []
        for text, weight, is_regex in sorted(keywords, key=lambda k: -len(k[0])):
            key = fold(text).casefold()
            self.weights[key] = max(weight, self.weights.get(key, 0.0))
            parts.append(f"(?:{text})" if is_regex else regex.escape(fold(text)))
        self.pattern = (
            regex.compile(
                r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", regex.IGNORECASE | regex.V0
            )
            if parts
            else None
        )

    def find(self, folded: str, timeout: float) -> tuple[list[tuple[int, int, str, float]], int]:
        """(start, end, text, weight) of each keyword occurrence, and the number of windows
        of the text that ran out of time (`windows`: a long passage is scanned in pieces)."""
        if self.pattern is None:
            return [], 0
        matches, late = finditer_windows(self.pattern, folded, timeout)
        return [
            (m.start(), m.end(), m.group(), self.weights.get(m.group().casefold(), 1.0))
            for m in matches
        ], late


def proximity_confidence(distance: int | None, weight: float) -> float:
    """Two signals in one zone: 0.5 and up, more for a heavier keyword and a closer value;
    a value alone: 0.25."""
    if distance is None:
        return 0.25
    return round(min(0.99, 0.5 + 0.3 * min(weight, 1.0) + 0.2 / (1 + distance / 40)), 4)
