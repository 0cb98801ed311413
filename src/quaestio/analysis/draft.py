"""The working state a question passes through while the steps fill it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..satellites import Satellites
from ..types import AmbiguousKeyword, Keyword, SpellingCorrection
from .text import Token, fold


@dataclass
class Draft:
    question_id: str
    original: str
    sats: Satellites
    tokens: list[Token]
    language: str | None = None
    # Spans (start, end) that later steps must leave alone: quoted terms, anchors.
    protected: list[tuple[int, int]] = field(default_factory=list)
    keywords: list[Keyword] = field(default_factory=list)
    corrections: dict[int, SpellingCorrection] = field(default_factory=dict)
    concepts: list[str] = field(default_factory=list)
    ambiguous: list[AmbiguousKeyword] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)

    def is_protected(self, token: Token) -> bool:
        return any(s < token.end and token.start < e for s, e in self.protected)

    def folded(self, i: int) -> str:
        """Token i's matching form, after spelling correction."""
        fix = self.corrections.get(i)
        return fold(fix.corrected) if fix is not None else self.tokens[i].folded

    def corrected_text(self) -> str:
        parts, last = [], 0
        for i in sorted(self.corrections):
            tok = self.tokens[i]
            parts += [self.original[last:tok.start], self.corrections[i].corrected]
            last = tok.end
        parts.append(self.original[last:])
        return "".join(parts)
