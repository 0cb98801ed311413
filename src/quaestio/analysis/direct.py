"""Direct keywords: the question's own content tokens, stopwords removed."""

from __future__ import annotations

import unicodedata

from ..types import KeywordSource
from .draft import Draft
from .language import stopwords_for


def direct_keywords(draft: Draft) -> None:
    stop = stopwords_for(draft.sats, draft.language)
    weight = draft.sats.defaults.weight_direct
    for i, tok in enumerate(draft.tokens):
        folded = draft.folded(i)
        if folded in stop or draft.is_protected(tok) or not tok.text[:1].isalnum():
            continue
        if len(folded) < 2 and not tok.has_digit:
            continue
        fix = draft.corrections.get(i)
        text = fix.corrected if fix else unicodedata.normalize("NFKC", tok.text).lower()
        draft.add_keyword(
            text,
            weight,
            KeywordSource.DIRECT,
            span=(tok.start, tok.end),
            rule_id="token",
            language=draft.language,
        )
