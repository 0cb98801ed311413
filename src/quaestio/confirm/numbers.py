"""Figures and number words to Decimal, with the separators of each language.

`1,234` is one thousand two hundred and thirty-four in English and 1.234 in French or
Spanish; a figure that holds both separators, or one separator twice, is read the same way
in every language. Number words cover cardinals in English, French and Spanish.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import regex

_DECIMAL_COMMA = {"fr", "es", "de", "it", "pt", "nl"}
_SPACES = regex.compile(r"[\s\u00a0\u202f]+")

MULTIPLIERS = {
    "thousand": 3,
    "k": 3,
    "mil": 3,
    "mille": 3,
    "lakh": 5,
    "crore": 7,
    "million": 6,
    "millions": 6,
    "m": 6,
    "mm": 6,
    "mn": 6,
    "millones": 6,
    "millón": 6,
    "millon": 6,
    "billion": 9,
    "bn": 9,
    "b": 9,
    "bln": 9,
    "milliard": 9,
    "milliards": 9,
    "mil millones": 9,
    "g": 9,
    "md": 9,
    "mds": 9,
    "trillion": 12,
    "tln": 12,
    "billones": 12,
    "billón": 12,
    "billon": 12,
}


def parse_figure(text: str, language: str | None = None) -> Decimal | None:
    """`1 234,5` / `1,234.5` / `1.234,5` / `,25` → Decimal; None when it is not a figure."""
    s = _SPACES.sub(" ", text.strip()).replace("−", "-")
    sign = -1 if s.startswith("-") else 1
    s = s.lstrip("-+ ")
    if " " in s:
        s = s.replace(" ", "")
    commas, dots = s.count(","), s.count(".")
    if commas and dots:
        decimal_sep = "," if s.rfind(",") > s.rfind(".") else "."
    elif commas + dots == 1:
        sep = "," if commas else "."
        before, after = s.split(sep)
        grouped = len(after) == 3 and 0 < len(before) <= 3
        if grouped and (sep == ",") == (language not in _DECIMAL_COMMA):
            decimal_sep = None  # 1,234 in English, 1.234 in French: a thousands separator
        else:
            decimal_sep = sep
    else:
        decimal_sep = None
    thousands = {",", "."} - {decimal_sep}
    for sep in thousands:
        s = s.replace(sep, "")
    if decimal_sep:
        s = s.replace(decimal_sep, ".")
    try:
        return sign * Decimal(s)
    except InvalidOperation:
        return None


def scale(word: str | None) -> int:
    """Power of ten of a multiplier word (`million` → 6); 0 for none."""
    if not word:
        return 0
    return MULTIPLIERS.get(_SPACES.sub(" ", word.strip().lower()), 0)


_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "a": 1,
    "an": 1,
    "cero": 0,
    "uno": 1,
    "una": 1,
    "un": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "trece": 13,
    "catorce": 14,
    "quince": 15,
    "dieciseis": 16,
    "diecisiete": 17,
    "dieciocho": 18,
    "diecinueve": 19,
    "veinte": 20,
    "veintiuno": 21,
    "veintiun": 21,
    "veintiuna": 21,
    "veintidos": 22,
    "veintitres": 23,
    "veinticuatro": 24,
    "veinticinco": 25,
    "veintiseis": 26,
    "veintisiete": 27,
    "veintiocho": 28,
    "veintinueve": 29,
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "setenta": 70,
    "ochenta": 80,
    "noventa": 90,
    "cien": 100,
    "ciento": 100,
    "doscientos": 200,
    "doscientas": 200,
    "trescientos": 300,
    "trescientas": 300,
    "cuatrocientos": 400,
    "cuatrocientas": 400,
    "quinientos": 500,
    "quinientas": 500,
    "seiscientos": 600,
    "seiscientas": 600,
    "setecientos": 700,
    "setecientas": 700,
    "ochocientos": 800,
    "ochocientas": 800,
    "novecientos": 900,
    "novecientas": 900,
    "zéro": 0,
    "une": 1,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "sept": 7,
    "huit": 8,
    "neuf": 9,
    "dix": 10,
    "onze": 11,
    "douze": 12,
    "treize": 13,
    "quatorze": 14,
    "quinze": 15,
    "seize": 16,
    "vingt": 20,
    "vingts": 20,
    "trente": 30,
    "quarante": 40,
    "cinquante": 50,
    "soixante": 60,
}
_HUNDRED = {"hundred", "cent", "cents"}
_SCALES = {
    "thousand": 3,
    "mil": 3,
    "mille": 3,
    "million": 6,
    "millions": 6,
    "millones": 6,
    "millon": 6,
    "billion": 9,
    "milliard": 9,
    "milliards": 9,
    "trillion": 12,
    "billones": 12,
    "billon": 12,
}
_JOINERS = {"and", "y", "et"}
_ACCENTS = str.maketrans("áéíóúñ", "aeioun")
_WORDS = regex.compile(r"[^\W\d_]+")


def parse_words(text: str) -> Decimal | None:
    """`one hundred and six`, `cuarenta y siete`, `quatre-vingt-dix` → Decimal; None if a
    word is not a cardinal."""
    total, current, seen = 0, 0, False
    for word in _WORDS.findall(text.lower().translate(_ACCENTS)):
        if word in _JOINERS:
            continue
        if word in _UNITS:
            value = _UNITS[word]
            if word.startswith("vingt") and current % 100 == 4:  # quatre-vingt(s) = 80
                current += 76
            else:
                current += value
        elif word in _HUNDRED:
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * 10 ** _SCALES[word]
            current = 0
        else:
            return None
        seen = True
    return Decimal(total + current) if seen else None


def parse_number(text: str, language: str | None = None) -> Decimal | None:
    """A figure or number words, whichever `text` is."""
    if any(ch.isdigit() for ch in text):
        return parse_figure(text, language)
    return parse_words(text)
