"""find_values: every answer type in English, French and Spanish, parsers and validators."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

import pandas as pd
import pytest

from quaestio.confirm import find_values
from quaestio.confirm.dates import RelativeDate
from quaestio.confirm.numbers import parse_figure, parse_words
from quaestio.confirm.validators import date_exists, iban_mod97, iban_valid, luhn
from quaestio.errors import QuaestioWarning, UnknownNameError
from quaestio.satellites import bundled_satellites, load_satellites


def found(text, answer_type, language=None):
    return [(v.text, v.value) for v in find_values(text, answer_type, language=language)]


def amounts(text, language):
    return [
        (v.text, v.value.amount, v.value.currency)
        for v in find_values(text, "amount", language=language)
    ]


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "en",
            "The premium is €125,000.00 per year.",
            [("€125,000.00", Decimal("125000.00"), "EUR")],
        ),
        ("en", "a USD 1.5 million limit", [("USD 1.5 million", Decimal("1500000"), "USD")]),
        (
            "en",
            "it cost 420 million finnish markka",
            [("420 million finnish markka", Decimal("420000000"), None)],
        ),
        ("en", "pay $ 94,000 now", [("$ 94,000", Decimal("94000"), "USD")]),
        (
            "fr",
            "une franchise de 125 000 € par sinistre",
            [("125 000 €", Decimal("125000"), "EUR")],
        ),
        ("fr", "soit 1.234,56 EUR au total", [("1.234,56 EUR", Decimal("1234.56"), "EUR")]),
        (
            "fr",
            "un plafond de 2 millions d'euros",
            [("2 millions d'euros", Decimal("2000000"), "EUR")],
        ),
        (
            "es",
            "una prima de 323 millones de euros",
            [("323 millones de euros", Decimal("323000000"), "EUR")],
        ),
        ("es", "cuesta 1.234,56 dólares", [("1.234,56 dólares", Decimal("1234.56"), "USD")]),
        # financial tables glue the scale to the code
        (
            "en",
            "| Net income | 142 MEUR | 3.5 MMUSD |",
            [("142 MEUR", Decimal("142000000"), "EUR"), ("3.5 MMUSD", Decimal("3500000"), "USD")],
        ),
        ("en", "12 kEUR, a 5 MB file, 10 MEURO", [("12 kEUR", Decimal("12000"), "EUR")]),
    ],
)
def test_amounts_in_three_languages(language, text, expected):
    assert amounts(text, language) == expected


def test_a_bare_figure_or_an_article_is_not_an_amount():
    assert amounts("He has lost his pen 7 times; a $ sign alone; 75 miles", "en") == []
    assert amounts("won a $48.2 million contract", "en")[0][0] == "$48.2 million"


@pytest.mark.parametrize(
    "language, text, expected",
    [
        ("en", "a rate of 4.5 % or 10 percent", [("4.5 %", 4.5), ("10 percent", 10.0)]),
        ("en", "plus 25 basis points", [("25 basis points", 0.25)]),
        ("fr", "un taux de 3,5 % ou 12 pour cent", [("3,5 %", 3.5), ("12 pour cent", 12.0)]),
        (
            "es",
            "un 15 por ciento y veinte por ciento",
            [("15 por ciento", 15.0), ("veinte por ciento", 20.0)],
        ),
    ],
)
def test_percentages(language, text, expected):
    assert found(text, "percentage", language) == expected


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "en",
            "signed on January 12th, 2016 and 02/22/2016",
            [("January 12th, 2016", dt.date(2016, 1, 12)), ("02/22/2016", dt.date(2016, 2, 22))],
        ),
        ("en", "effective 2024-03-15", [("2024-03-15", dt.date(2024, 3, 15))]),
        (
            "fr",
            "à compter du 1er janvier 2025 ou du 15/03/2024",
            [("1er janvier 2025", dt.date(2025, 1, 1)), ("15/03/2024", dt.date(2024, 3, 15))],
        ),
        ("es", "vence el 15 de marzo de 2024", [("15 de marzo de 2024", dt.date(2024, 3, 15))]),
        ("es", "desde el 3/4/2024", [("3/4/2024", dt.date(2024, 4, 3))]),
        ("en", "from 3/4/2024", [("3/4/2024", dt.date(2024, 3, 4))]),
        ("en", "see you on 22 April", [("22 April", "--04-22")]),
    ],
)
def test_dates_parse_to_iso(language, text, expected):
    assert found(text, "date", language) == expected


def test_dates_that_do_not_exist_are_rejected():
    assert found("on 31/02/2024 or 2023-02-29", "date", "fr") == []
    assert found("on 29/02/2024", "date", "fr") == [("29/02/2024", dt.date(2024, 2, 29))]


def test_relative_dates_carry_their_offset_and_a_weekday_has_none():
    assert found("we meet tomorrow", "date", "en") == [("tomorrow", RelativeDate(days=1))]
    assert found("nos vemos mañana", "date", "es") == [("mañana", RelativeDate(days=1))]
    assert found("rendez-vous vendredi prochain", "date", "fr") == [("vendredi prochain", None)]


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "en",
            "a notice period of 3 months, or two weeks",
            [("3 months", "P3M"), ("two weeks", "P2W")],
        ),
        ("en", "an hour and a half", [("an hour and a half", "PT1.5H")]),
        (
            "fr",
            "un préavis de 30 jours ou une heure et demie",
            [("30 jours", "P30D"), ("une heure et demie", "PT1.5H")],
        ),
        ("es", "un plazo de 3 meses y dos semanas", [("3 meses", "P3M"), ("dos semanas", "P2W")]),
    ],
)
def test_durations_parse_to_iso_8601(language, text, expected):
    assert found(text, "duration", language) == expected


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "en",
            "1,234,567 units and two hundred and six",
            [("1,234,567", Decimal("1234567")), ("two hundred and six", Decimal(206))],
        ),
        (
            "fr",
            "1 234,5 tonnes, quatre-vingt-dix",
            [("1 234,5", Decimal("1234.5")), ("quatre-vingt-dix", Decimal(90))],
        ),
        (
            "es",
            "1.234.567 y cuarenta y siete",
            [("1.234.567", Decimal("1234567")), ("cuarenta y siete", Decimal(47))],
        ),
    ],
)
def test_numbers(language, text, expected):
    assert found(text, "number", language) == expected


def test_numbers_glued_to_units_are_not_bare_numbers():
    assert found("the 180.25ml liquid, 29km", "number", "en") == []


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_email_url_phone_in_every_language(language):
    text = {
        "en": "Write to claims@insurer.example.com or see https://insurer.com/claims.",
        "fr": "Écrivez à claims@insurer.example.com ou voir https://insurer.com/claims.",
        "es": "Escriba a claims@insurer.example.com o vea https://insurer.com/claims.",
    }
    assert found(text[language], "email", language) == [
        ("claims@insurer.example.com", "claims@insurer.example.com")
    ]
    assert found(text[language], "url", language) == [
        ("https://insurer.com/claims", "https://insurer.com/claims")
    ]
    phones = {
        "en": "call (541) 754-3010",
        "fr": "appelez le +33 1 23 45 67 89",
        "es": "llame al +34 912 345 678",
    }
    value = {"en": "5417543010", "fr": "+33123456789", "es": "+34912345678"}[language]
    assert [v for _, v in found(phones[language], "phone", language)] == [value]


def test_phone_lookalikes_are_rejected():
    for text in (
        "on 16/04/2010",
        "-2208960000 seconds",
        "IP 192.168.10.1",
        "ratio 200.38294427",
        "SSN 911-67-0060",
        "code 12345",
    ):
        assert found(text, "phone", "en") == [], text


def test_ibans_are_checked_and_trimmed():
    text = "IBAN: FR14 2004 1010 0505 0001 3M02 606 EUR, or DE89 3704 0044 0532 0130 01."
    assert found(text, "iban") == [
        ("FR14 2004 1010 0505 0001 3M02 606", "FR1420041010050500013M02606")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "DE51 3704 0044 0532 0130 0",  # one digit short of Germany's 22, check digits right
        "GB49 WEST 1234 5698 7654 321",  # one digit too many for the United Kingdom's 22
        "FR80 2004 1010 0505 0001",  # France needs 27 characters
    ],
)
def test_an_iban_of_the_wrong_length_for_its_country_is_rejected(text):
    assert iban_mod97(text)  # the checksum alone would accept it
    assert not iban_valid(text)
    assert found(f"Virement sur l'IBAN {text} avant vendredi", "iban") == []


def test_iban_layout_letters_where_the_country_wants_digits():
    # Germany's BBAN is 18 digits; a letter in it fails the layout even with check digits fixed.
    digits = "".join(str(int(ch, 36)) for ch in "37040044053201300A" + "DE00")
    text = f"DE{98 - int(digits) % 97:02d}37040044053201300A"
    assert iban_mod97(text) and not iban_valid(text)


def test_an_iban_of_a_country_outside_the_registry_is_judged_on_mod97():
    assert iban_valid("AO06 0006 0000 0011 4658 3025 9")  # Angola: national IBAN
    assert not iban_valid("AO06 0006 0000 0011 4658 3025 8")


@pytest.mark.parametrize(
    "language, text, expected",
    [
        ("en", "Yes. Flood is not covered.", [("Yes", True), ("is not covered", False)]),
        ("fr", "Non, le vol n'est pas couvert", [("Non", False), ("n'est pas couvert", False)]),
        ("es", "Sí, está cubierto", [("Sí", True), ("está cubierto", True)]),
    ],
)
def test_boolean_clauses(language, text, expected):
    assert found(text, "boolean", language) == expected


def test_closed_sets_come_from_the_dictionary():
    assert found("Risks in Germany, en Alemania and in FR", "country", "es") == [
        ("Germany", "country_de"),
        ("Alemania", "country_de"),
        ("FR", "country_fr"),
    ]
    assert found("paid in euros or in USD", "currency", "en") == [
        ("euros", "currency_eur"),
        ("USD", "currency_usd"),
    ]


def test_validators():
    assert iban_mod97("GB82 WEST 1234 5698 7654 32")
    assert not iban_mod97("GB82 WEST 1234 5698 7654 33")
    assert not iban_mod97("GB82") and not iban_mod97("1234567890123456")
    assert date_exists(2024, 2, 29) and not date_exists(2023, 2, 29)
    assert not date_exists(None, 4, 31) and date_exists(None, 2, 29)
    assert luhn("4539 1488 0343 6467") and not luhn("4539 1488 0343 6468")


@pytest.mark.parametrize(
    "text, language, expected",
    [
        ("1,234", "en", Decimal(1234)),
        ("1,234", "fr", Decimal("1.234")),
        ("1.234", "es", Decimal(1234)),
        ("1.234,5", None, Decimal("1234.5")),
        ("1 234 567,89", "fr", Decimal("1234567.89")),
        (",25", None, Decimal("0.25")),
        ("1,5", "en", Decimal("1.5")),
    ],
)
def test_figures_follow_the_language(text, language, expected):
    assert parse_figure(text, language) == expected


def test_number_words():
    assert parse_words("three hundred and thirty one") == 331
    assert parse_words("dos mil trescientos cuarenta y siete") == 2347
    assert parse_words("soixante-quinze") == 75
    assert parse_words("twenty apples") is None


def test_unknown_answer_type_names_the_choices():
    with pytest.raises(UnknownNameError, match="Did you mean 'amount'"):
        find_values("x", "amout")


def test_a_catastrophic_analyst_pattern_times_out_and_the_others_still_run():
    bad = pd.DataFrame(
        {
            "pattern_id": ["amount_catastrophic"],
            "answer_type": ["amount"],
            "pattern": [r"Q(a|aa)+$"],
            "description": ["an analyst's mistake"],
        }
    )
    # (a|aa)+$ alone is refused at load; behind a literal the probe strings never reach it.
    limit = pd.DataFrame({"key": ["regex_timeout_ms"], "value": ["20"]})
    sats = load_satellites(extra={"answer_type_patterns": bad, "defaults": limit}, override=True)
    text = "Q" + "a" * 40 + "b, total €300. Q" + "a" * 40 + "b"
    warnings: list[str] = []
    start = time.perf_counter()
    values = find_values(text, "amount", satellites=sats, warnings=warnings)
    assert time.perf_counter() - start < 10  # unbounded, (a|aa)+$ runs for minutes here
    assert [v.text for v in values] == ["€300"]
    assert len(warnings) == 1 and warnings[0].startswith("W101")
    assert "amount_catastrophic" in warnings[0]
    with pytest.warns(QuaestioWarning, match="amount_catastrophic"):
        find_values(text, "amount", satellites=sats)


def test_percent_encoding_in_a_url_is_not_a_percentage():
    text = "rates of 50% and 3.5 %; https://x.com/q?a=30%25%2020%28b%29 and 12%."
    assert found(text, "percentage", "en") == [("50%", 50.0), ("3.5 %", 3.5), ("12%", 12.0)]


GATE_TEXTS = [
    "The premium is €125,000.00 per year, due on 1 March 2024 (see p. 3).",
    "Prime : 125 000 € HT, payable le 1er janvier 2025, soit 12,5 % du total.",
    "Vence el 3 de mayo de 2024; la prima es de 323 millones de euros.",
    "Call +44 20 7946 0958 or write to claims@example.com, https://example.com/x",
    "IBAN DE89 3704 0044 0532 0130 00, within 30 days, 2.5%, 14 days, P3Y",
    "twenty-five dollars and fifty cents, the third quarter, next Tuesday",
    "| Net income | 142 MEUR | 3.5 MMUSD |  FY2023 Q3 2022 31/12/2023 2023-06-15",
]


@pytest.mark.parametrize(
    "answer_type",
    ["amount", "percentage", "date", "duration", "number", "email", "phone", "url", "iban"],
)
def test_the_passage_prefilter_never_skips_a_branch_that_matches(answer_type):
    from quaestio.confirm.patterns import _gate, patterns_for

    sats = bundled_satellites()
    patterns = patterns_for(sats, answer_type, None)
    gate = _gate(sats, patterns)
    for text in GATE_TEXTS:
        kept = {id(b.pattern) for b in gate.candidates(text.casefold())}
        missed = [
            p.pattern_id
            for p in patterns
            for branch in p.branches
            if branch.search(text) and id(branch) not in kept
        ]
        assert missed == [], f"{text!r}: the prefilter skipped {missed}"
