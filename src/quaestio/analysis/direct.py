"""Direct keywords: the question's own content tokens, stopwords removed."""

from __future__ import annotations

import unicodedata

from ..types import KeywordSource
from .draft import Draft
from .language import stopwords_for


def direct_keywords(draft: Draft) -> None:
    # Most questions have no correction and no protected span: a token's fold is then its
    # matching form, and no token needs a look at either.
    add_direct(draft, plain=not draft.corrections and not draft.has_protected_spans())


def add_direct(draft: Draft, *, plain: bool) -> None:
    """The step's work; `plain` (the draft has no correction nor protected span) skips the
    per-token checks that cannot change anything then."""
    stop = stopwords_for(draft.sats, draft.language)
    weight = draft.sats.defaults.weight_direct
    language = draft.language
    source = KeywordSource.DIRECT  # (an enum member costs a lookup each time it is named)
    for i, tok in enumerate(draft.tokens):
        folded = tok.folded if plain else draft.folded(i)
        if folded in stop or not tok.text[:1].isalnum():
            continue
        if not plain and draft.is_protected(tok):
            continue
        if len(folded) < 2 and not tok.has_digit:
            continue
        fix = None if plain else draft.corrections.get(i)
        draft.add_keyword(
            fix.corrected if fix else _as_typed(tok.text),
            weight,
            source,
            span=(tok.start, tok.end),
            rule_id="token",
            language=language,
        )


def _as_typed(text: str) -> str:
    """The token as typed, NFKC and lower-cased (NFKC leaves ASCII, most tokens, alone)."""
    return text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).lower()
