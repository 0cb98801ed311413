#!/usr/bin/env python3
"""Regenerate the closed-set satellite tables (countries, currencies).

Usage::

    python scripts/generate_closed_sets.py [--out DIR] [--added-at YYYY-MM-DD]

``DIR`` defaults to ``src/quaestio/satellites/data`` under the repository root
(found from this file's location).  Four files are (re)written::

    concepts.countries.csv    concept_keywords.countries.csv
    concepts.currencies.csv   concept_keywords.currencies.csv

Nothing here is typed by hand except the short, documented policy lists below
(skip reasons, deny-lists); every name, code and symbol comes from the data
packages.  Needs the ``generate`` extra: ``pycountry`` and ``babel``.

The output is deterministic for a given pycountry / babel version: rows are
sorted, the ``added_at`` date is fixed (``--added-at`` overrides it), no clock
or locale of the machine is read, and the CSV is written as UTF-8 with ``\\n``
line endings.

Sources and why
---------------
Countries: the set is ISO 3166-1 as shipped by ``pycountry`` (all entries,
including dependent territories, 249 in pycountry 26.x).  Names:

* primary name per language = babel's ``Locale(lang).territories`` (Unicode
  CLDR).  CLDR gives the short everyday name people actually write
  ("Corée du Sud", "Russland", "Laos", "Syrie"), and it is complete for every
  ISO code in en/fr/es/de.  pycountry's own translations (the Debian
  ``iso-codes`` gettext catalogues) give the ISO list form, often inverted
  ("Corée, République de", "Russie, Fédération de", "Korea, Republik") which
  nobody types, and are sometimes stale or misspelt ("Vénézuela",
  "Costa de Marfíl").
* secondary names = pycountry's ``name`` / ``common_name`` / ``official_name``
  in English and their iso-codes translations in fr/es/de (only when a real
  translation exists: gettext returns the English msgid when it has none, and
  English text must not be filed under fr/es/de).  These add the official
  long forms ("Bundesrepublik Deutschland", "République fédérale
  d'Allemagne") and the "and" spellings of CLDR's "&" names.
* ISO list forms inverted around a comma are turned round only when the tail
  ends with a preposition ("Korea, Republic of" -> "Republic of Korea",
  "Iran, République islamique d'" -> "République islamique d'Iran"); other
  inverted forms are skipped because a blind rule garbles them ("Taiwan,
  Province of China", "Virgin Islands, British").  Comma names that are
  enumerations ("Saint Helena, Ascension and Tristan da Cunha") are kept.
* Parentheses: a trailing alias is split off ("Myanmar (Burma)" ->
  "Myanmar" + "Burma", "Holy See (Vatican City State)" -> both parts); a
  qualifier (a word not capitalised, or part / partie / parte / Teil / zona:
  "Sint Maarten (Dutch part)", "Saint-Martin (partie néerlandaise)") is kept
  verbatim because the bare name would denote another territory; a
  space-delimited parenthesis inside the name ("Cocos (Keeling) Islands")
  gives the verbatim form and the form without it.
* alpha-2 and alpha-3 codes, language ``*``, match ``cased``.

Currencies: ISO 4217 codes known to ``pycountry`` that CLDR (via babel's
``territory_currencies``) lists as current legal tender of at least one
territory.  See ``CURRENCY_SKIP_REASONS`` for what that leaves out and why.
Names come from babel (CLDR): the count-"one" form is the primary (the form
used in running text: "euro", "US dollar", "dollar des États-Unis"), the
standalone display name and the other plural forms are secondary, and the
English ISO 4217 name from pycountry ("Pound Sterling", "Yuan Renminbi") is a
secondary English name.  Natural case is kept.

Text normalisation: Unicode NFC, no-break / narrow no-break / thin spaces ->
ordinary space, typographic apostrophes (U+2019, U+2018) -> "'", runs of
whitespace collapsed.  Nothing else is changed (accents and case are kept).

Keyword policy
--------------
* names: ``keyword_priority`` primary (the main name per language) /
  secondary, weight 1.0 / 0.8; ``match`` fuzzy when the name has >= 5
  letters, else exact.
* country codes: language ``*``, secondary, ``cased``, weight 0.7 (alpha-2) /
  0.8 (alpha-3).  Case-sensitive matching keeps "DE" (Germany) apart from the
  Spanish word "de", so codes are kept even when they spell a word.
* currency code and symbol: language ``*``, secondary, ``cased``, weight 0.9.
  A symbol is emitted only when, across every babel locale, it stands for
  one generated currency ("$" is 27 currencies, "£" five, "¥" two: not
  emitted), and when quaestio's tokenizer (word runs, each currency sign a
  token of its own) cannot turn it into something else: "€", "₹", "US$"
  (tokens "US" "$"), "R$", "FCFA" are kept; "Cg." (the token "Cg") and
  "A$" ("A" "$", as in "A $500 deductible") are not.
* ordinary words: see ``COUNTRY_NAME_DENY``, ``COUNTRY_NAME_CASED`` and
  ``CURRENCY_WORD_DENY`` below.
* ``status`` validated, ``source`` closed_set, ``added_by``
  generate_closed_sets.py.
* (concept, language, keyword) is unique, compared the way quaestio matches
  (folded tokens: case, accents and punctuation ignored), so "US dollar" and
  "US Dollar", or "Vénézuela" and "Venezuela", are not both emitted; the
  first (the primary) wins.
* A keyword (folded tokens, any language) that would belong to more than one
  concept is dropped wherever it is only a secondary name; it is kept only
  where it is a primary name of each concept (none in the current data;
  reported on stderr with -v).
"""

from __future__ import annotations

import argparse
import csv
import gettext
import re
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

import pycountry
from babel import Locale, localedata
from babel.core import get_global
from babel.numbers import get_currency_name, get_currency_symbol

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "src" / "quaestio" / "satellites" / "data"
DEFAULT_ADDED_AT = "2026-11-30"
ADDED_BY = "generate_closed_sets.py"
LANGS = ("en", "fr", "es", "de")

CONCEPT_COLUMNS = [
    "concept",
    "definition",
    "doc_family",
    "scope_kind",
    "answer_type",
    "suggested_model",
    "chunk_strategy",
]
KEYWORD_COLUMNS = [
    "concept",
    "language",
    "keyword",
    "keyword_priority",
    "weight",
    "match",
    "status",
    "source",
    "added_by",
    "added_at",
]

# ---------------------------------------------------------------------------
# Currencies left out.  The rule is data-driven (an ISO 4217 code is kept only
# if CLDR lists it as current legal tender somewhere); this table documents
# why each code that the rule drops is not a currency someone asks about.
# A code dropped by the rule but missing here is reported with the generic
# reason, so a new pycountry/babel release cannot drop something silently.
CURRENCY_SKIP_REASONS = {
    # precious metals (one troy ounce), not money in circulation
    "XAU": "precious metal (gold)",
    "XAG": "precious metal (silver)",
    "XPD": "precious metal (palladium)",
    "XPT": "precious metal (platinum)",
    # accounting / bond-market units, not circulating
    "XBA": "bond-market unit (EURCO)",
    "XBB": "bond-market unit (E.M.U.-6)",
    "XBC": "bond-market unit (E.U.A.-9)",
    "XBD": "bond-market unit (E.U.A.-17)",
    "XDR": "IMF special drawing right, a unit of account",
    "XSU": "SUCRE, ALBA clearing unit of account",
    "XUA": "African Development Bank unit of account",
    "XAD": "Arab Monetary Fund accounting dinar",
    # reserved codes
    "XTS": "reserved for testing",
    "XXX": "no currency involved",
    # funds codes: indexed / settlement units beside a real currency
    "BOV": "funds code (Bolivian Mvdol), beside BOB",
    "CHE": "funds code (WIR euro), beside CHF",
    "CHW": "funds code (WIR franc), beside CHF",
    "CLF": "funds code (Chilean Unidad de Fomento), beside CLP",
    "COU": "funds code (Colombian Unidad de Valor Real), beside COP",
    "MXV": "funds code (Mexican Unidad de Inversion), beside MXN",
    "USN": "funds code (US dollar next day), beside USD",
    "UYI": "funds code (Uruguayan indexed units), beside UYU",
    "UYW": "funds code (Uruguayan nominal wage index unit), beside UYU",
    # codes still in ISO 4217 but not legal tender per CLDR
    "SVC": "Salvadoran colón, not circulating since dollarisation (2001)",
    "VED": "Venezuelan digital bolívar, not legal tender per CLDR (VES is)",
}

# ---------------------------------------------------------------------------
# Ordinary words.  quaestio matches every keyword row whatever the question's
# language (the language only ranks the matches), and compares folded tokens
# (case and accents removed).  So a country name that folds to an ordinary
# word of ANY of en/fr/es/de fires on questions that merely use the word, and
# dropping it in one language would not help while another language has the
# same folded text ("Bénin" fr = "Benin" en/de = "Benín" es).  The two lists
# below are therefore keyed on the folded text and apply to every language.
#
# COUNTRY_NAME_DENY: not emitted at all, because even the capitalised form is
# ambiguous.  The country keeps its other names and its codes.
COUNTRY_NAME_DENY = {
    "Granada": "es name of Grenada; Granada is also a Spanish city and "
    "province, and granada = pomegranate / grenade",
}
# COUNTRY_NAME_CASED: the ordinary word is written in lower case, the country
# with a capital, so these names are emitted with match "cased" (the same
# case-sensitive comparison as the ISO codes; accents still ignored) instead
# of being dropped: "Jersey" stays a keyword for the offshore jurisdiction
# while "a jersey" does not fire.
COUNTRY_NAME_CASED = {
    "Jersey": "jersey (garment, fabric) in en/fr/es/de",
    "Réunion": "reunion (en), réunion = meeting (fr), reunión (es)",
    "La Réunion": "la réunion = the meeting (fr)",
    "Bénin": "bénin = benign (fr: accident bénin, sinistre bénin); "
    "folds like en/de Benin, es Benín",
    "Grenade": "fr name of Grenada; grenade = pomegranate, hand grenade (fr, en)",
    "Island": "de name of Iceland; island (en)",
}
# Deliberately left as ordinary fuzzy names (checked against the data): names
# that are first names, or ordinary words rarely met in questions, where users
# often type the country in lower case: "Chad", "China", "Chile", "Cuba",
# "Malta", "Guinea", "Georgia", "Ecuador" / "Équateur", "El Salvador",
# "Chili", "Polen" (de Poland; es polen = pollen), "Maurice", "Dominique".
# Not a deny-list matter but worth knowing: names inside longer place names
# ("Jersey" in "New Jersey", "Georgia" the US state) still match; and CLDR and
# pycountry now give "Türkiye" in English, so "Turkey" is not a keyword.

# Currencies: a single-word name is dropped when (a) the word occurs in the
# names of two or more generated currencies in any of the four languages (a
# generic unit word: "won", "som", "kwacha", ...; detected from the data), or
# (b) it is an ordinary word listed here (compared case- and
# accent-insensitively, whatever the keyword's language, for the reason given
# above).  Only single-word names are affected: "South African rand",
# "Brazilian real", "réal brésilien" are kept.  The first eight are the
# generic / ordinary words named in the brief, kept explicitly even where rule
# (a) already catches them.
CURRENCY_WORD_DENY = {
    "dollar": "generic unit word (many dollars)",
    "peso": "generic unit word; es peso = weight",
    "franc": "generic unit word; fr franc = frank",
    "pound": "generic unit word; pound = weight, to pound",
    "won": "won = past tense of win",
    "real": "real = real (en), real / royal (es)",
    "rand": "rand (en), Rand = edge, border (de)",
    "mark": "mark = ordinary noun / verb",
    "sol": "sol = sun (es), ground / floor (fr)",
    "dong": "dong, English slang",
    "gourde": "gourde = gourd, water bottle (fr)",
    "boliviano": "boliviano = Bolivian (es adjective / demonym)",
    "bolivianos": "bolivianos = Bolivians (es demonym)",
}

# ---------------------------------------------------------------------------
WS_RE = re.compile(r"\s+")
APOSTROPHES = {"\u2019": "'", "\u2018": "'"}
ENUMERATION_RE = re.compile(r",.*\b(and|et|y|und|&)\b")
TRAILING_PAREN_RE = re.compile(r"^(?P<base>.+?)\s*\((?P<inner>[^()]+)\)$")
INNER_PAREN_RE = re.compile(r"\s\([^()]*\)\s")
TAIL_PREPOSITION_RE = re.compile(r"(\b(of|of the|de|de la|del|du|des|von)|\bd')$", re.IGNORECASE)
# Words that mark a parenthesis as a "part of" qualifier rather than an alias
# (German capitalises nouns, so the capitalisation test alone misses "Teil").
PAREN_QUALIFIER_WORDS = {"part", "partie", "parte", "teil", "zona"}
WORD_RE = re.compile(r"\w+")
TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    for src, dst in APOSTROPHES.items():
        text = text.replace(src, dst)
    text = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in text)
    return WS_RE.sub(" ", text).strip()


def fold(text: str) -> str:
    """NFKC, accents stripped, casefolded: as quaestio.analysis.text.fold."""
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).casefold()


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


def tokens(text: str) -> list[str]:
    """Tokens as quaestio finds them: runs of word characters, and each
    currency sign (Unicode category Sc) on its own."""
    return [
        m.group()
        for m in TOKEN_RE.finditer(text)
        if m.group()[0].isalnum() or m.group()[0] == "_" or unicodedata.category(m.group()) == "Sc"
    ]


def match_key(text: str, match: str) -> str:
    """What quaestio compares a keyword on: the folded tokens, or for a
    ``cased`` row the accent-stripped tokens with their case."""
    if match == "cased":
        return " ".join(strip_accents(t) for t in tokens(text))
    return " ".join(fold(t) for t in tokens(text))


def letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def name_match(text: str) -> str:
    return "fuzzy" if letters(text) >= 5 else "exact"


def is_inverted(name: str) -> bool:
    """ISO list form like 'Korea, Republic of' (but not an enumeration)."""
    return "," in name and not ENUMERATION_RE.search(name)


def uninvert(name: str) -> str | None:
    """'Korea, Republic of' -> 'Republic of Korea'; None when not safe.

    Only a single comma whose tail ends with a preposition / article
    ("of", "of the", "de", "d'", "del", "du", "von", ...) is turned round;
    anything else ("Taiwan, Province of China", "Virgin Islands, British",
    "Korea, Republik") is left out rather than guessed.
    """
    if name.count(",") != 1:
        return None
    head, tail = (part.strip() for part in name.split(","))
    if not TAIL_PREPOSITION_RE.search(tail):
        return None
    joiner = "" if tail.endswith("'") else " "
    return f"{tail}{joiner}{head}"


def split_parens(name: str) -> list[str]:
    """Expand parentheses as documented in the module docstring."""
    m = TRAILING_PAREN_RE.match(name)
    if m:
        inner = m.group("inner").strip()
        base = m.group("base").strip()
        words = WORD_RE.findall(inner)
        qualifier = any(not w[0].isupper() or w.casefold() in PAREN_QUALIFIER_WORDS for w in words)
        if words and not qualifier:
            return [base, inner]  # alias: "Myanmar (Burma)"
        return [name]  # qualifier: "Sint Maarten (Dutch part)"
    if INNER_PAREN_RE.search(name):
        return [name, clean(INNER_PAREN_RE.sub(" ", name))]
    return [name]


class Keywords:
    """Collects keyword rows for one file, enforcing the uniqueness rules."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self._seen: set[tuple[str, str, str]] = set()
        self.denied: set[tuple[str, str, str, str]] = set()
        self.cased: set[tuple[str, str, str, str]] = set()

    def add(self, concept, language, keyword, priority, weight, match) -> bool:
        keyword = clean(keyword)
        if not keyword:
            return False
        key = (concept, language, match_key(keyword, "fuzzy"))
        if key in self._seen:
            return False
        self._seen.add(key)
        self.rows.append(
            {
                "concept": concept,
                "language": language,
                "keyword": keyword,
                "keyword_priority": priority,
                "weight": weight,
                "match": match,
            }
        )
        return True

    def resolve_collisions(self) -> list[tuple[str, list[str]]]:
        """Drop secondary rows whose text also names another concept."""
        by_text: dict[str, set[str]] = defaultdict(set)
        for r in self.rows:
            by_text[self._text_key(r)].add(r["concept"])
        shared = {t for t, cs in by_text.items() if len(cs) > 1}
        dropped = []
        kept = []
        for r in self.rows:
            if self._text_key(r) in shared and r["keyword_priority"] == "secondary":
                dropped.append(r)
            else:
                kept.append(r)
        self.rows = kept
        by_text = defaultdict(set)
        for r in self.rows:
            by_text[self._text_key(r)].add(r["concept"])
        remaining = sorted((t, sorted(cs)) for t, cs in by_text.items() if len(cs) > 1)
        self.collision_dropped = sorted(
            (r["keyword"], r["language"], r["concept"]) for r in dropped
        )
        return remaining

    @staticmethod
    def _text_key(r) -> str:
        # Rows of different concepts meet when their folded tokens are equal
        # (a cased row is looked up by its folded tokens too).
        return match_key(r["keyword"], "fuzzy")


# ---------------------------------------------------------------------------
# Countries


def _translator(domain: str, lang: str):
    if lang == "en":
        return None
    return gettext.translation(domain, pycountry.LOCALES_DIR, languages=[lang])


def country_names(country, lang: str, babel_name: str, tr) -> list[tuple[str, str]]:
    """(name, priority) pairs for one country and language, primary first."""
    out: list[tuple[str, str]] = []
    primary, *aliases = split_parens(clean(babel_name))
    out.append((primary, "primary"))
    out.extend((a, "secondary") for a in aliases)
    for attr in ("common_name", "name", "official_name"):
        msgid = getattr(country, attr, None)
        if not msgid:
            continue
        if tr is None:
            text = msgid
        else:
            text = tr.gettext(msgid)
            if text == msgid:
                continue  # untranslated: English text, not a fr/es/de name
        text = clean(text)
        if is_inverted(text):
            text = uninvert(text)
            if text is None:
                continue
        out.extend((n, "secondary") for n in split_parens(text))
    return out


def build_countries():
    concepts = []
    kw = Keywords()
    locales = {lang: Locale(lang) for lang in LANGS}
    translators = {lang: _translator("iso3166-1", lang) for lang in LANGS}
    deny = {match_key(k, "fuzzy"): v for k, v in COUNTRY_NAME_DENY.items()}
    cased = {match_key(k, "fuzzy"): v for k, v in COUNTRY_NAME_CASED.items()}
    for country in sorted(pycountry.countries, key=lambda c: c.alpha_2):
        a2, a3 = country.alpha_2, country.alpha_3
        concept = f"country_{a2.lower()}"
        label = getattr(country, "common_name", None) or country.name
        if is_inverted(label):
            label = uninvert(label) or clean(locales["en"].territories[a2])
        concepts.append(
            {
                "concept": concept,
                "definition": f"{label} (ISO 3166-1 {a2} / {a3}), a country; "
                "as a question scope it names a jurisdiction.",
                "doc_family": "geography",
                "scope_kind": "jurisdiction",
                "answer_type": "",
                "suggested_model": "",
                "chunk_strategy": "",
            }
        )
        for lang in LANGS:
            names = country_names(country, lang, locales[lang].territories[a2], translators[lang])
            for name, prio in names:
                key = match_key(name, "fuzzy")
                if key in deny:
                    kw.denied.add((concept, lang, name, deny[key]))
                    continue
                match = name_match(name)
                if key in cased:
                    kw.cased.add((concept, lang, name, cased[key]))
                    match = "cased"
                weight = "1.0" if prio == "primary" else "0.8"
                kw.add(concept, lang, name, prio, weight, match)
        kw.add(concept, "*", a2, "secondary", "0.7", "cased")
        kw.add(concept, "*", a3, "secondary", "0.8", "cased")
    return concepts, kw


# ---------------------------------------------------------------------------
# Currencies


def active_currency_codes() -> tuple[list[str], dict[str, str]]:
    tender_now: set[str] = set()
    for entries in get_global("territory_currencies").values():
        for code, _start, end, tender in entries:
            if end is None and tender:
                tender_now.add(code)
    keep, skipped = [], {}
    for cur in sorted(pycountry.currencies, key=lambda c: c.alpha_3):
        code = cur.alpha_3
        if code in tender_now:
            keep.append(code)
        else:
            skipped[code] = CURRENCY_SKIP_REASONS.get(
                code, "not current legal tender of any territory per CLDR"
            )
    return keep, skipped


def currency_name_forms(code: str, lang: str, iso_name: str) -> list[tuple[str, str]]:
    """(name, priority) pairs, primary first.

    count=1 gives CLDR's singular running-text form ("US dollar"), count=2
    the plural ("US dollars"), no count the standalone display name
    ("US Dollar"); babel falls back to the display name where CLDR has no
    count forms (often in de).
    """
    out = [(get_currency_name(code, count=1, locale=lang), "primary")]
    out.append((get_currency_name(code, locale=lang), "secondary"))
    out.append((get_currency_name(code, count=2, locale=lang), "secondary"))
    if lang == "en":
        out.append((iso_name, "secondary"))
    return [(clean(n), p) for n, p in out if n and clean(n) != code]


def symbol_owners(codes: set[str]) -> dict[str, set[str]]:
    """symbol (as its token key) -> generated currencies using it, across
    every babel locale."""
    owners: dict[str, set[str]] = defaultdict(set)
    for ident in sorted(localedata.locale_identifiers()):
        try:
            symbols = Locale.parse(ident).currency_symbols
        except Exception:  # pragma: no cover - unparsable locale ids
            continue
        for code, sym in symbols.items():
            if code in codes:
                owners[match_key(clean(sym), "cased")].add(code)
    return owners


def symbol_ok(sym: str, code: str, owners, all_codes: set[str]) -> tuple[bool, str]:
    """Whether a babel symbol is emitted; the reason when it is not."""
    if sym == code:
        return False, "same as the ISO code"
    key = match_key(sym, "cased")
    if not key:
        return False, "no token"
    if len(owners.get(key, ())) > 1:
        return False, "ambiguous: " + " ".join(sorted(owners[key]))
    toks = key.split(" ")
    if any(len(t) == 1 and t.lower() in "aeiouy" for t in toks):
        # "A$" is the tokens "A" "$", which is also "A $500 deductible ..."
        return False, "has a one-letter token that is an ordinary word"
    if any(len(t) == 1 and unicodedata.category(t) == "Sc" for t in toks):
        # "€", "₹", "US$" (tokens "US" "$"), "R$", "£GB": the currency sign
        # is a token of its own, so these never meet a bare code.
        return True, ""
    # only word tokens: "FCFA", "F CFA" are fine; "Cg." would be the token
    # "Cg" alone, and a token that is an ISO code would meet that code.
    if letters(sym) < 3 or any(t in all_codes for t in toks):
        return False, "tokenizes to a short word or an ISO code"
    return True, ""


def build_currencies():
    codes, skipped = active_currency_codes()
    code_set = set(codes)
    country_codes = {c.alpha_2 for c in pycountry.countries} | {
        c.alpha_3 for c in pycountry.countries
    }
    all_codes = code_set | country_codes
    owners = symbol_owners(code_set)

    forms = {
        code: {
            lang: currency_name_forms(code, lang, pycountry.currencies.get(alpha_3=code).name)
            for lang in LANGS
        }
        for code in codes
    }
    # generic unit words: a word occurring in names of >= 2 currencies
    word_codes: dict[str, set[str]] = defaultdict(set)
    for code in codes:
        for lang in LANGS:
            for name, _ in forms[code][lang]:
                for w in WORD_RE.findall(name):
                    word_codes[fold(w)].add(code)
    deny = {fold(k): v for k, v in CURRENCY_WORD_DENY.items()}

    concepts = []
    kw = Keywords()
    symbol_skips = []
    for code in codes:
        concept = f"currency_{code.lower()}"
        label = get_currency_name(code, locale="en")
        concepts.append(
            {
                "concept": concept,
                "definition": f"{label} (ISO 4217 {code}), a currency.",
                "doc_family": "finance",
                "scope_kind": "currency",
                "answer_type": "",
                "suggested_model": "",
                "chunk_strategy": "",
            }
        )
        for lang in LANGS:
            for name, prio in forms[code][lang]:
                words = WORD_RE.findall(name)
                if len(words) == 1:
                    w = fold(words[0])
                    if len(word_codes[w]) > 1:
                        kw.denied.add(
                            (
                                concept,
                                lang,
                                name,
                                "generic unit word shared by " + " ".join(sorted(word_codes[w])),
                            )
                        )
                        continue
                    if w in deny:
                        kw.denied.add((concept, lang, name, deny[w]))
                        continue
                weight = "1.0" if prio == "primary" else "0.8"
                kw.add(concept, lang, name, prio, weight, name_match(name))
        kw.add(concept, "*", code, "secondary", "0.9", "cased")
        seen_syms = set()
        for lang in LANGS:
            sym = clean(get_currency_symbol(code, locale=lang))
            if sym in seen_syms:
                continue
            seen_syms.add(sym)
            ok, why = symbol_ok(sym, code, owners, all_codes)
            if ok:
                kw.add(concept, "*", sym, "secondary", "0.9", "cased")
            elif sym != code:
                symbol_skips.append((code, sym, why))
    return concepts, kw, skipped, symbol_skips


# ---------------------------------------------------------------------------
# Output


def finish_rows(kw: Keywords, added_at: str) -> list[dict]:
    rows = []
    for r in kw.rows:
        rows.append(
            {
                **r,
                "status": "validated",
                "source": "closed_set",
                "added_by": ADDED_BY,
                "added_at": added_at,
            }
        )
    rows.sort(key=lambda r: (r["concept"], r["language"], r["keyword_priority"], r["keyword"]))
    return rows


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output dir")
    parser.add_argument("--added-at", default=DEFAULT_ADDED_AT, help="YYYY-MM-DD")
    parser.add_argument("-v", "--verbose", action="store_true", help="list drops")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.added_at):
        parser.error("--added-at must be YYYY-MM-DD")
    args.out.mkdir(parents=True, exist_ok=True)

    log = lambda *a: print(*a, file=sys.stderr)  # noqa: E731

    c_concepts, c_kw = build_countries()
    u_concepts, u_kw, skipped, symbol_skips = build_currencies()

    for name, concepts, kw in (
        ("countries", c_concepts, c_kw),
        ("currencies", u_concepts, u_kw),
    ):
        shared = kw.resolve_collisions()
        rows = finish_rows(kw, args.added_at)
        concepts = sorted(concepts, key=lambda r: r["concept"])
        write_csv(args.out / f"concepts.{name}.csv", CONCEPT_COLUMNS, concepts)
        write_csv(args.out / f"concept_keywords.{name}.csv", KEYWORD_COLUMNS, rows)
        log(
            f"{name}: {len(concepts)} concepts, {len(rows)} keywords, "
            f"{len(kw.denied)} denied, {len(kw.cased)} names made cased, "
            f"{len(kw.collision_dropped)} dropped as "
            f"shared secondaries, {len(shared)} shared primaries"
        )
        if args.verbose:
            for d in sorted(kw.denied):
                log("  denied", d)
            for d in sorted(kw.cased):
                log("  cased", d)
            for d in kw.collision_dropped:
                log("  shared secondary dropped", d)
            for t, cs in shared:
                log("  shared primary kept", t, cs)
    for table, seen in ((COUNTRY_NAME_DENY, c_kw.denied), (COUNTRY_NAME_CASED, c_kw.cased)):
        hit = {match_key(name, "fuzzy") for _, _, name, _ in seen}
        for name in table:
            if match_key(name, "fuzzy") not in hit:
                log(f"warning: country list entry {name!r} matched nothing")
    hit = {fold(name) for _, _, name, _ in u_kw.denied}
    for word in CURRENCY_WORD_DENY:
        if fold(word) not in hit:
            log(f"note: currency deny word {word!r} matched no single-word name")
    log(f"currencies skipped: {len(skipped)}")
    if args.verbose:
        for code, why in sorted(skipped.items()):
            log("  skipped", code, why)
        for s in sorted(symbol_skips):
            log("  symbol not emitted", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
