"""The working state a question passes through while the steps fill it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..satellites import Satellites
from ..types import AmbiguousKeyword, KeywordSource, SpellingCorrection
from .text import Token, fold_word


@dataclass
class Draft:
    question_id: str
    original: str
    sats: Satellites
    tokens: list[Token]
    language: str | None = None
    # Characters that later steps must leave alone (quoted terms, anchors), one flag per
    # character, so that checking a span costs its length, not the number of spans.
    _protected: bytearray | None = None
    # Plain dicts with the fields of `Keyword`: the row validates them all at once at the end,
    # which costs a fraction of building one model per keyword.
    keywords: list[dict[str, Any]] = field(default_factory=list)
    # A matched concept's other variants (a `dictionary.VariantBlock`, built once per
    # satellites and shared by every row) wait here, by id of the keyword that brought them,
    # until the record is built: they carry no span, and no default step after the
    # dictionary reads unspanned keywords but `negative_hints`, which puts them in first
    # (`expand_variants`). So a row does not pay one dict per variant at every step.
    expansions: dict[int, tuple[dict[str, Any], Any]] = field(default_factory=dict)
    corrections: dict[int, SpellingCorrection] = field(default_factory=dict)
    concepts: list[str] = field(default_factory=list)
    ambiguous: list[AmbiguousKeyword] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    # Any other question_df column a step fills, by name (answer_type, pages_hint, ...).
    columns: dict[str, Any] = field(default_factory=dict)
    rules_fired: list[str] = field(default_factory=list)
    # Seconds the analyst regexes of this question may still take, all calls together
    # (`defaults.regex_budget_ms`); None until the first call. See `rules.finditer`.
    regex_left: float | None = None

    def add_keyword(
        self,
        text: str,
        weight: float,
        source: KeywordSource,
        *,
        span: tuple[int, int] | None = None,
        rule_id: str | None = None,
        **fields: Any,
    ) -> None:
        """Record one keyword; `fields` are the other `Keyword` fields (concept, language...)."""
        start, end = span if span is not None else (None, None)
        self.keywords.append(
            {
                "text": text,
                "weight": weight,
                "source": source,
                "span_start": start,
                "span_end": end,
                "rule_id": rule_id,
                **fields,
            }
        )

    def expand_variants(self) -> None:
        """Put the waiting variants into `keywords`, right after the keyword that brought
        them, as the steps used to see them: for a step that reads or edits every keyword."""
        if not self.expansions:
            return
        out: list[dict[str, Any]] = []
        for k in self.keywords:
            out.append(k)
            held = self.expansions.get(id(k))
            if held is not None and held[0] is k:
                out += held[1].keywords
        self.keywords[:] = out
        self.expansions.clear()

    def fire(self, rule_id: str) -> None:
        """Record that a rule row decided something, for the `rules_fired` column."""
        if rule_id not in self.rules_fired:
            self.rules_fired.append(rule_id)

    def protect(self, start: int, end: int) -> None:
        if self._protected is None:
            self._protected = bytearray(len(self.original))
        self._protected[start:end] = b"\x01" * (end - start)

    def has_protected_spans(self) -> bool:
        return self._protected is not None

    def is_span_protected(self, start: int, end: int) -> bool:
        return self._protected is not None and 1 in self._protected[start:end]

    def is_protected(self, token: Token) -> bool:
        return self.is_span_protected(token.start, token.end)

    def folded(self, i: int) -> str:
        """Token i's matching form, after spelling correction."""
        fix = self.corrections.get(i)
        return fold_word(fix.corrected) if fix is not None else self.tokens[i].folded

    def corrected_text(self) -> str:
        parts, last = [], 0
        for i in sorted(self.corrections):
            tok = self.tokens[i]
            parts += [self.original[last : tok.start], self.corrections[i].corrected]
            last = tok.end
        parts.append(self.original[last:])
        return "".join(parts)
