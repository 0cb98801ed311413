"""Building full sub-questions from the parts a decomposition row captured.

A sub-question keeps the punctuation habits of the question it came from (the Spanish
opening `¿`, the French space before `?`), so that it reads, and parses, on its own.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from ..satellites import Satellites
from .draft import Draft
from .rules import Rule, cue_rules, search

_SPACES = regex.compile(r"\s{2,}|\s+(?=[,;:](?:\s|$))")
_END_MARK = regex.compile(r"\s*([?.!])\s*$")
_SPACED_MARK = regex.compile(r"\s[?!]")
_STRIP = " \t\n,;:"


def finish(part: str, original: str) -> str:
    """Turn a clause cut from `original` into a full question in the same typography."""
    part = _SPACES.sub(" ", part).strip(_STRIP)
    if not part:
        return part
    end_mark, has_opening, spaced_marks = _typography(original)
    mark = end_mark
    body = part.rstrip("?.! ").strip(_STRIP)
    opening = "¿" if has_opening and not body.startswith("¿") and mark == "?" else ""
    body = _capitalize(opening + body)
    if part[-1] in "?.!":
        mark = part[-1]
    spaced = mark in ("?", "!") and spaced_marks
    return f"{body}{' ' if spaced else ''}{mark}"


@lru_cache(maxsize=256)
def _typography(original: str) -> tuple[str, bool, bool]:
    """The question's closing mark, its `¿`, its space before `?`/`!`: read once per
    question, not once per clause, so that cutting n clauses stays linear in its length."""
    end = _END_MARK.search(original[-64:])
    return (
        end.group(1) if end else "",
        "¿" in original,
        _SPACED_MARK.search(original) is not None,
    )


def _capitalize(text: str) -> str:
    lead = len(text) - len(text.lstrip("¿¡\"'“«( "))
    if lead < len(text) and text[lead].isalpha():
        return text[:lead] + text[lead].upper() + text[lead + 1 :]
    return text


def substitute(text: str, match: regex.Match, item: str) -> str:
    """`text` with group `a` replaced by `item` and every `drop` span removed."""
    edits = [(*match.span("a"), item)] + [(s, e, "") for s, e in match.spans("drop") if s >= 0]
    out, last = [], 0
    for start, end, replacement in sorted(edits):
        if start < last:
            continue
        out += [text[last:start], replacement]
        last = end
    out.append(text[last:])
    return "".join(out)


def wrap(draft: Draft, phrase: str) -> tuple[str, Rule] | None:
    """A plain question about `phrase` from the first `decomposition_template` row that fits.

    Rows are tried by weight, highest first, among those of the question's language; the
    row's `target` holds the question with `{}` where the phrase goes; a `drop` group of
    the row's pattern is cut from the phrase ("du pays" -> "Quel est le {} ?" -> "le pays").
    """
    phrase = _lower_leading_article(draft, phrase.strip(_STRIP + "?"))
    for rule in _templates(draft.sats, draft.language):
        found = search(draft, rule, phrase)
        if found is None:
            continue
        if "drop" in rule.pattern.groupindex and found.start("drop") >= 0:
            phrase = (phrase[: found.start("drop")] + phrase[found.end("drop") :]).strip()
        return rule.required_target().replace("{}", phrase), rule
    return None


def _templates(sats: Satellites, language: str | None) -> tuple[Rule, ...]:
    """The `decomposition_template` rows of a language (and `*`) with a target, heaviest
    first: sorted once, not once per item asked about."""

    def build(s: Satellites) -> tuple[Rule, ...]:
        rows = cue_rules(s, "decomposition_template")
        fits = (r for r in rows if r.language in (language, "*") and r.target)
        return tuple(sorted(fits, key=lambda r: -r.weight))

    return sats.cached(f"decomposition_rules:templates:{language}", build)


def _lower_leading_article(draft: Draft, phrase: str) -> str:
    """ "The director of X" cut from the start of a sentence reads "the director of X"."""
    from .language import stopwords_for

    first = phrase.split(" ", 1)[0]
    if first[:1].isupper() and first.lower() in stopwords_for(draft.sats, draft.language):
        return first.lower() + phrase[len(first) :]
    return phrase
