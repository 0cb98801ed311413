"""Normalization and tokenization shared by every step.

Tokens are found in the original text, so their spans point into what the user typed; each
token also carries its folded form (NFKC, accents removed, casefolded) used for matching.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from .memo import WORD_CHARS, WORDS

# Currency signs are tokens of their own so that "€" or "$" can be dictionary keywords.
TOKEN_RE = regex.compile(r"[\w]+|\p{Sc}")
# The ASCII characters TOKEN_RE takes, for `re`: in ASCII text, its matches cost less to
# find and to read than `regex`'s (with lowering for folding: a third of `tokenize`).
_ASCII_TOKEN_RE = re.compile(r"[0-9A-Za-z_]+|\$")
_CONTROL_RE = regex.compile(r"[\p{Cc}\p{Cf}\p{Co}\p{Cs}--[\n\t]]+", regex.V1)


# Compared and hashed by its fields as a frozen dataclass would be, but not frozen: a frozen
# dataclass sets each field through `object.__setattr__`, which made building a question's
# tokens cost half of `tokenize`. No step assigns to a token. Not a named tuple either: its
# fields read at twice the cost of slots, and the steps read them all the time.
@dataclass(slots=True, unsafe_hash=True)
class Token:
    text: str  # as typed
    folded: str  # NFKC, no accents, casefolded
    start: int
    end: int

    @property
    def is_word(self) -> bool:
        return self.text.isalpha()

    @property
    def has_digit(self) -> bool:
        return any(c.isdigit() for c in self.text)


def fold(text: str) -> str:
    """Matching form of a string: NFKC, accents stripped, casefolded."""
    if text.isascii():  # lowering costs what a memo lookup costs: nothing to remember
        return text.lower()
    return _fold_unicode(text) if len(text) <= WORD_CHARS else _unicode_folded(text)


def _unicode_folded(text: str) -> str:
    return _unicode_stripped(text).casefold()


def strip_accents(text: str) -> str:
    """NFKC with accents removed but case kept: the form case-sensitive codes compare in."""
    if text.isascii():
        return text
    return _strip_unicode(text) if len(text) <= WORD_CHARS else _unicode_stripped(text)


def _unicode_stripped(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


_strip_unicode = lru_cache(maxsize=WORDS)(_unicode_stripped)
_fold_unicode = lru_cache(maxsize=WORDS)(_unicode_folded)


def clean(text: str) -> str:
    """NFKC with control and format characters (zero-width, bidi marks) turned into spaces."""
    return _CONTROL_RE.sub(" ", unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=WORDS)
def fold_word(word: str) -> str:
    """`fold` for one token: the NFKC form of some letters holds a space (U+037A "ͺ",
    U+FDFA "ﷺ", the Arabic presentation forms U+FC5E-FC63 and U+FE70-FE7E), which would
    turn one token into two and shift every token boundary that matching relies on."""
    return "".join(fold(word).split())


def tokenize(text: str) -> list[Token]:
    if text.isascii():  # most questions: `re` finds the words, and folding one is lowering it
        return [
            Token(w := m.group(), w.lower(), m.start(), m.end())
            for m in _ASCII_TOKEN_RE.finditer(text)
        ]
    return _unicode_tokens(text)


def _unicode_tokens(text: str) -> list[Token]:
    """`tokenize` for any text: what its ASCII shortcut must give."""
    return [
        Token(w := m.group(), fold_word(w), m.start(), m.end()) for m in TOKEN_RE.finditer(text)
    ]


def fold_phrase(text: str) -> str:
    """A keyword's matching key: its folded tokens joined by single spaces."""
    return " ".join(fold_word(m.group()) for m in TOKEN_RE.finditer(text))


_SURROGATE_RE = regex.compile(r"[\ud800-\udfff]")


def without_surrogates(text: str) -> tuple[str, int]:
    """`text` with lone surrogates (which no UTF-8 file or Arrow column can hold) replaced
    by U+FFFD, and how many were replaced; a well-formed surrogate pair becomes its
    character."""
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        pass
    paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    fixed, count = _SURROGATE_RE.subn("\ufffd", paired)
    return fixed, count


# Quoted spans: straight or typographic double quotes, guillemets, TeX-style `` '' (as in
# TREC), and single quotes that open after a space (an apostrophe inside a word does not
# open a quote).
_QUOTED = regex.compile(
    r"[\"“«„][^\"”»“\n]{1,200}[\"”»“]|``[^`'\n]{1,200}''"
    r"|(?<![\w])['‘][^'’\n]{1,200}['’](?![\w])"
)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each quoted span of `text`, quote marks included."""
    return [m.span() for m in _QUOTED.finditer(text)]
