"""Value parsers: a match of an `answer_type_patterns` row → a typed value.

The parser is the `value_parser` of the answer type's `answer_types` row. It reads the named
groups of the row's pattern (`num`, `mult`, `cur`, `cents`; `day`, `month`, `year` or `a`, `b`,
`year`; `n`, `unit`; `bp`) and raises `Reject` when the text only looks like a value (a phone
number with 5 digits, an IBAN whose checksum or country layout fails under the `iban_mod97`
validator, 31 February under `date_exists`). A value it cannot compute (a relative date, "a few
days") is kept, with value None: the text is still evidence of the type.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple

import polars as pl
import regex

from .dates import parse_date
from .numbers import parse_number, scale
from .validators import Reject, iban_valid


class Amount(NamedTuple):
    amount: Decimal | None
    currency: str | None  # ISO 4217

    def __str__(self) -> str:
        amount = None if self.amount is None else format(self.amount, "f")
        return " ".join(p for p in (amount, self.currency) if p is not None)


# Symbols and unit words the dictionary leaves out because they name several currencies;
# each is read as the one it means in most documents.
_CURRENCY_FALLBACK = {
    "$": "USD",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "₩": "KRW",
    "₽": "RUB",
    "₺": "TRY",
    "₿": "BTC",
    "元": "CNY",
    "₾": "GEL",
    "₭": "LAK",
    "₡": "CRC",
    "₦": "NGN",
    "₱": "PHP",
    "rmb": "CNY",
    "dollar": "USD",
    "pound": "GBP",
    "yen": "JPY",
    "yuan": "CNY",
    "dólar": "USD",
    "dolar": "USD",
    "libra": "GBP",
    "yene": "JPY",
    "livre": "GBP",
}
_NEGATION = regex.compile(
    r"\b(?:no|not|n['’]t|nope|false|incorrect|falso|incorrecto|non|"
    r"pas|faux|inexact)\b",
    regex.IGNORECASE,
)
# Shapes of other things made of digits: a date, a year range, a US social security number,
# an IPv4 address, a decimal number.
_NOT_PHONE = regex.compile(
    r"^\d{1,2}\s?[/.-]\s?\d{1,2}\s?[/.-]\s?\d{2,4}$|"
    r"^(?:1[5-9]|20)\d\d[/.-]\d{1,2}[/.-]\d{1,2}$|^(?:19|20)\d\d\s?[/-]"
    r"\s?(?:19|20)\d\d$|^\d{3}-\d{2}-\d{4}$|^\d{1,4}(?:\.\d{1,4}){3}$|"
    r"^\d+\.\d+$"
)
_EXTENSION = regex.compile(r"\s?(?:x|ext\.?)\s?(\d{1,6})$", regex.IGNORECASE)
_DURATION_UNITS = (
    ("min", "TM", 1),
    ("mes", "M", 1),
    ("mois", "M", 1),
    ("month", "M", 1),
    ("sec", "TS", 1),
    ("seg", "TS", 1),
    ("sem", "W", 1),
    ("s", "TS", 1),
    ("h", "TH", 1),
    ("y", "Y", 1),
    ("a", "Y", 1),
    ("w", "W", 1),
    ("fortnight", "W", 2),
    ("decade", "Y", 10),
    ("d", "D", 1),
    ("j", "D", 1),
    ("m", "TM", 1),
)


def parse_value(pattern, m: regex.Match, language: str | None, sats) -> tuple[Any, tuple]:
    """(typed value, (start, end)) of a match; the span loses surrounding spaces."""
    start, end = m.span()
    text = m.string
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1] in " \t\n,;:":
        end -= 1
    if start == end:
        raise Reject
    handler = _PARSERS.get(pattern.parser)
    if handler is None:
        if pattern.concepts is not None:
            return pattern.concepts.get(text[start:end].casefold()), (start, end)
        return text[start:end], (start, end)
    return handler(m, text[start:end], (start, end), language, pattern, sats)


def _group(m: regex.Match, name: str) -> str | None:
    return m.group(name) if name in m.re.groupindex else None


def _figure(m: regex.Match, language: str | None) -> Decimal | None:
    raw = _group(m, "num") or ""
    raw += _group(m, "num2") or ""
    number = (
        parse_number(raw.replace(" ", "") if raw.strip("-− ") != raw.strip() else raw, language)
        if raw.strip()
        else None
    )
    if number is None:
        return None
    if not _group(m, "mult"):
        return number
    scaled = number * 10 ** scale(_group(m, "mult"))
    return scaled.quantize(1) if scaled == scaled.to_integral_value() else scaled.normalize()


def _amount(m, text, span, language, pattern, sats):
    figure = _figure(m, language)
    if figure is not None and _group(m, "cents"):  # 45 dollars et 50 cents
        figure += Decimal(m.group("cents")) / 100
    return Amount(figure, currency_code(sats, _group(m, "cur"))), span


def currency_code(sats, text: str | None) -> str | None:
    if not text:
        return None
    table = sats.cached("confirm_currency_codes", _currency_codes)
    key = regex.sub(r"\s+", " ", text.strip().rstrip(".")).casefold()
    for candidate in (
        key,
        key[:-1] if key.endswith("s") else key,
        key.removesuffix("es"),
        key.replace(" ", ""),
        *_symbol_forms(key),
        key.split(" ")[-1].rstrip("s"),
        key[-1:],
    ):
        if candidate in table:
            return table[candidate]
        if candidate in _CURRENCY_FALLBACK:
            return _CURRENCY_FALLBACK[candidate]
    return key.upper() if len(key) == 3 and key.isalpha() and key.isascii() else None


# Country letters written after a symbol in Canadian and French press ("16,4 millions de $ c",
# "$ CAN") that the dictionary spells otherwise ($CA).
_COUNTRY_ALIASES = {"c": "ca", "can": "ca", "cad": "ca", "usd": "us", "aud": "au"}
_SYMBOL_NAMES = {"$": ("dollars", "dólares"), "€": ("euros",), "£": ("livres", "libras")}


def _symbol_forms(key: str) -> list[str]:
    """`$ hk` → `$hk`, `hk$`; `$ c` → `$ca`; `$ canadiens` → `dollars canadiens` (and the
    Spanish `dólares canadienses`);
    `dollars us` → `$us`: the spellings of a symbol and its country the dictionary holds."""
    compact = key.replace(" ", "")
    forms = []
    if compact[:1] in _SYMBOL_NAMES and compact[1:].isalpha():
        country = _COUNTRY_ALIASES.get(compact[1:], compact[1:])
        forms += [
            compact[0] + country,
            country + compact[0],
            *(name + key[1:] for name in _SYMBOL_NAMES[compact[0]]),
        ]
    head, _, country = key.partition(" ")
    if head.rstrip("s") in ("dollar", "euro") and country.isalpha():
        symbol = "$" if head.startswith("dollar") else "€"
        country = _COUNTRY_ALIASES.get(country, country)
        forms += [symbol + country, country + symbol]
    return forms


def _currency_codes(sats) -> dict[str, str]:
    rows = sats.concept_keywords.filter(pl.col("concept").str.starts_with("currency_"))
    return {
        k.casefold(): c.removeprefix("currency_").upper()
        for c, k in rows.select("concept", "keyword").iter_rows()
    }


def _percentage(m, text, span, language, pattern, sats):
    raw = (_group(m, "num") or "").replace(" ", "")
    if "/" in raw:
        top, _, bottom = raw.lstrip("-−").partition("/")
        value = float(top) / float(bottom) if float(bottom) else None
    else:
        number = _figure(m, language)
        value = float(number) if number is not None else None
    if value is not None and _group(m, "bp"):
        value /= 100
    return value, span


def _number(m, text, span, language, pattern, sats):
    if _group(m, "top"):
        if not int(m.group("bottom")):
            raise Reject
        value = Decimal(m.group("top")) / Decimal(m.group("bottom")) + int(_group(m, "whole") or 0)
        return (-value if _group(m, "sign") else value), span
    if "num2" in m.re.groupindex:
        number = _figure(m, language)
        return (-number if number is not None and _group(m, "num") else number), span
    number = parse_number(regex.sub(r"^(?:minus|negative|menos|moins)\s+", "", text), language)
    negative = regex.match(r"(?:minus|negative|menos|moins)\s", text, regex.IGNORECASE)
    return (-number if number is not None and negative else number), span


def _duration(m, text, span, language, pattern, sats):
    unit = (_group(m, "unit") or "").lower()
    raw = (_group(m, "n") or "").lower().strip()
    if (
        raw in ("", "all", "full", "whole")
        or raw.startswith(("a ", "an ", "un"))
        and "half" not in raw
        or raw in ("a", "an", "une", "un", "una")
    ):
        n: Decimal | None = Decimal(1)
    elif "half" in raw or raw in ("medio", "media", "demi"):
        n = Decimal("0.5")
    else:
        n = parse_number(raw, language)
    # "ninety (90) days": the figures restate the words; where they disagree the words
    # prevail, as drafting convention (and the UCC's rule for instruments) has it.
    if n is None and _group(m, "n2"):
        n = Decimal(m.group("n2"))
    if n is None:
        return None, span
    if regex.search(r"(?:and\s+(?:a\s+)?half|y\s+medi[oa]|et\s+demie?)$", text, regex.I):
        n += Decimal("0.5")
    code, factor = next((c, f) for prefix, c, f in _DURATION_UNITS if unit.startswith(prefix))
    amount = format((n * factor).normalize(), "f")
    return (f"PT{amount}{code[1]}" if code.startswith("T") else f"P{amount}{code}"), span


def _phone(m, text, span, language, pattern, sats):
    ext = _EXTENSION.search(text)
    body = text[: ext.start()] if ext else text
    # The national trunk prefix written as (0) after a country code is not dialled.
    digits = "".join(ch for ch in body.replace("(0)", "") if ch.isdigit())
    if not 7 <= len(digits) <= 16 or _NOT_PHONE.match(body.strip()):
        raise Reject
    stripped = body.lstrip("( ")
    if stripped.startswith("+"):
        digits = "+" + digits
    elif stripped.startswith("00"):
        digits = "+" + digits[2:]
    return digits + (f";ext={ext.group(1)}" if ext else ""), span


def _iban(m, text, span, language, pattern, sats):
    groups = list(regex.finditer(r"[^\W_]+", text))
    last = len(groups)
    # Only trailing groups of letters ("EUR", "BIC") may be dropped: trying every shorter
    # prefix would let one in 97 corrupted IBANs pass through a shorter, valid-looking prefix.
    while last > 0:
        candidate = text[: groups[last - 1].end()]
        compact = "".join(g.group() for g in groups[:last]).upper()
        if pattern.validator != "iban_mod97" and 15 <= len(compact) <= 34:
            return compact, (span[0], span[0] + len(candidate))
        if iban_valid(compact):
            return compact, (span[0], span[0] + len(candidate))
        if any(ch.isdigit() for ch in groups[last - 1].group()):
            break
        last -= 1
    raise Reject


_PARSERS = {
    "amount": _amount,
    "percentage": _percentage,
    "number": _number,
    "date": parse_date,
    "duration": _duration,
    "phone": _phone,
    "iban": _iban,
    "email": lambda m, t, s, *_: (t[: t.index("@")] + t[t.index("@") :].lower(), s),
    "url": lambda m, t, s, *_: (t, s),
    "boolean": lambda m, t, s, *_: (not _NEGATION.search(t), s),
    "text": lambda m, t, s, *_: (t, s),
}
