"""French (Quebec) and Spanish value wordings: amounts, percentages, dates, restated durations."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quaestio.confirm import find_values
from quaestio.confirm.dates import RelativeDate, relative_offset, resolve_date


def found(text, answer_type, language, **kw):
    return [(v.text, v.value) for v in find_values(text, answer_type, language=language, **kw)]


def amounts(text, language="fr"):
    return [
        (v.text, v.value.amount, v.value.currency)
        for v in find_values(text, "amount", language=language)
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "un prêt de 75 millions de $ sur dix ans",
            ("75 millions de $", Decimal(75_000_000), "USD"),
        ),
        (
            "entre 16,4 millions de $ CA et plus",
            ("16,4 millions de $ CA", Decimal(16_400_000), "CAD"),
        ),
        (
            "une charge de 300 millions de $ c aux revenus",
            ("300 millions de $ c", Decimal(300_000_000), "CAD"),
        ),
        (
            "à 10,05 milliards de $ hk.",
            ("10,05 milliards de $ hk", Decimal(10_050_000_000), "HKD"),
        ),
        ("une subvention de 750 000 $ CAN", ("750 000 $ CAN", Decimal(750_000), "CAD")),
        ("une indemnité de 10 000 $ US", ("10 000 $ US", Decimal(10_000), "USD")),
        (
            "3 milliards de $ canadiens",
            ("3 milliards de $ canadiens", Decimal(3_000_000_000), "CAD"),
        ),
        ("de 1 milliard de $ dans des coûts", ("1 milliard de $", Decimal(1_000_000_000), "USD")),
        ("un déficit de 1,2 G$", ("1,2 G$", Decimal(1_200_000_000), "USD")),
        ("un plafond de 15 k$", ("15 k$", Decimal(15_000), "USD")),
        ("2 millions de € à Dortmund", ("2 millions de €", Decimal(2_000_000), "EUR")),
        (
            "un chèque de 45 dollars et 50 cents",
            ("45 dollars et 50 cents", Decimal("45.50"), "USD"),
        ),
        ("payer 50 cents plus par baril", ("50 cents", Decimal(50), None)),
        (
            "une amende de deux cent cinquante dollars",
            ("deux cent cinquante dollars", Decimal(250), "USD"),
        ),
        ("quatre-vingt-dix dollars", ("quatre-vingt-dix dollars", Decimal(90), "USD")),
        ("361 millions de livres", ("361 millions de livres", Decimal(361_000_000), "GBP")),
    ],
)
def test_quebec_and_french_amounts(text, expected):
    assert amounts(text) == [expected]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("un crédito de 75 millones de $", ("75 millones de $", Decimal(75_000_000), "USD")),
        (
            "16,4 millones de $ canadienses",
            ("16,4 millones de $ canadienses", Decimal(16_400_000), "CAD"),
        ),
        ("10 millones de € al año", ("10 millones de €", Decimal(10_000_000), "EUR")),
    ],
)
def test_spanish_scale_words_before_a_symbol(text, expected):
    assert amounts(text, "es") == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Il a acheté deux livres à la librairie.",  # books
        "trois cents personnes sont venues",  # 300 people
        "Plus de 3 millions d'habitants",  # a scale word, no currency
        "coûte 10 $ au client",  # "au" is not the Australian dollar
    ],
)
def test_french_lookalikes_are_not_amounts_or_keep_their_currency(text):
    got = amounts(text)
    assert got in ([], [("10 $", Decimal(10), "USD")])


@pytest.mark.parametrize(
    "language, text, expected",
    [
        ("fr", "un taux de 10 pourcents", [("10 pourcents", 10.0)]),
        ("fr", "vingt-deux pour-cent des assurés", [("vingt-deux pour-cent", 22.0)]),
        ("fr", "une couverture de cent pour cent", [("cent pour cent", 100.0)]),
        ("fr", "un rabais de 15 p. 100", [("15 p. 100", 15.0)]),
        ("fr", "trente pourcentage", [("trente pourcentage", 30.0)]),
        ("fr", "pourcentage de vingt", [("pourcentage de vingt", 20.0)]),
        ("fr", "soixante-et-onze pour cent", [("soixante-et-onze pour cent", 71.0)]),
        ("fr", "une hausse de 0,5 point de pourcentage", [("0,5 point de pourcentage", 0.5)]),
        ("es", "veintidós por ciento", [("veintidós por ciento", 22.0)]),
        ("es", "una subida de 2 puntos porcentuales", [("2 puntos porcentuales", 2.0)]),
        ("en", "twenty-two percent", [("twenty-two percent", 22.0)]),
    ],
)
def test_percentages_in_words_and_hyphens(language, text, expected):
    assert found(text, "percentage", language) == expected


def test_the_word_first_form_does_not_swallow_a_figure_before_it():
    assert found("15 pour cent des 20 ans", "percentage", "fr") == [("15 pour cent", 15.0)]
    assert found("le pourcentage de sinistres", "percentage", "fr") == []


def test_pour_cent_is_not_also_the_number_cent():
    assert found("12 pour cent", "number", "fr") == [("12", Decimal(12))]


@pytest.mark.parametrize(
    "language, text, expected",
    [
        ("fr", "Je reviens 1er Jan", [("1er Jan", "--01-01")]),
        ("fr", "signé le 1er févr. 2024", [("1er févr. 2024", dt.date(2024, 2, 1))]),
        ("fr", "à compter du 15 mars.", [("15 mars", "--03-15")]),
        ("fr", "mercredi, le 22 jan", [("mercredi, le 22 jan", "--01-22")]),
        ("fr", "Le paiement est dû le 27.", [("le 27", "---27")]),
        ("fr", "payable le 30 de chaque mois", [("le 30 de chaque mois", "---30")]),
        ("es", "pagadero el día 15", [("el día 15", "---15")]),
        ("en", "payable on the 27th", [("the 27th", "---27")]),
        ("en", "due the twenty-first", [("the twenty-first", "---21")]),
        ("en", "the 5th of next month", [("the 5th of next month", None)]),
    ],
)
def test_day_month_and_day_alone(language, text, expected):
    assert found(text, "date", language) == expected


@pytest.mark.parametrize(
    "language, text",
    [
        ("fr", "Il habite au 3e étage."),
        ("fr", "Il a couru le 100 mètres."),
        ("fr", "Appelez le 514 555 1234."),
        ("fr", "Relisez le 2e paragraphe."),
        ("fr", "le 15 % de la prime"),
        ("es", "el 15 por ciento"),
        ("es", "el 22/04"),
    ],
)
def test_a_number_after_le_or_el_is_not_always_a_day(language, text):
    assert all(
        not v.text.lower().startswith(("le ", "el ", "au "))
        for v in find_values(text, "date", language=language)
    )


@pytest.mark.parametrize(
    "language, text, offset",
    [
        ("fr", "Il a répondu le lendemain.", RelativeDate(days=1)),
        ("fr", "Le dossier a été fermé le surlendemain.", RelativeDate(days=2)),
        ("fr", "envoyée la veille de l'échéance", RelativeDate(days=-1)),
        ("fr", "Deux semaines plus tard, tout était réglé.", RelativeDate(days=14)),
        ("fr", "Un mois plus tard, le chèque est arrivé.", RelativeDate(months=1)),
        ("fr", "Une semaine plus tôt, il avait annulé.", RelativeDate(days=-7)),
        ("fr", "déposée il y a trois jours", RelativeDate(days=-3)),
        ("fr", "Je reviendrai apres demain", RelativeDate(days=2)),
        ("es", "tres días después, pagado", RelativeDate(days=3)),
        ("es", "hace dos semanas", RelativeDate(days=-14)),
        ("en", "Two weeks later, the claim was paid.", RelativeDate(days=14)),
        ("en", "three days ago", RelativeDate(days=-3)),
    ],
)
def test_relative_days_in_three_languages(language, text, offset):
    assert [v.value for v in find_values(text, "date", language=language)] == [offset]


def test_a_reference_date_makes_partial_and_relative_dates_whole():
    text = "Signé le 3 mars. Le lendemain, puis deux semaines plus tard, et le 27."
    got = found(text, "date", "fr", reference_date=dt.date(2024, 3, 3))
    assert got == [
        ("3 mars", dt.date(2024, 3, 3)),
        ("Le lendemain", dt.date(2024, 3, 4)),
        ("deux semaines plus tard", dt.date(2024, 3, 17)),
        ("le 27", dt.date(2024, 3, 27)),
    ]
    assert found("el 27", "date", "es", reference_date="2024-02-10") == [
        ("el 27", dt.date(2024, 2, 27))
    ]


def test_a_reference_date_that_is_not_a_date_names_itself():
    with pytest.raises(ValueError, match="reference_date.*'next week'"):
        find_values("le 27", "date", language="fr", reference_date="next week")


def test_resolve_date_keeps_what_it_cannot_make_whole():
    ref = dt.date(2024, 2, 10)
    assert resolve_date("---30", ref) == "---30"  # no 30 February
    assert resolve_date("--02", ref) == "2024-02"
    assert resolve_date(None, ref) is None
    assert resolve_date(dt.date(2020, 1, 1), ref) == dt.date(2020, 1, 1)
    assert RelativeDate(months=1).resolve(dt.date(2024, 1, 31)) == dt.date(2024, 2, 29)
    assert str(RelativeDate(days=-3)) == "-P3D" and str(RelativeDate()) == "P0D"


def test_a_count_past_year_9999_stays_relative():
    got = find_values("999999 ans plus tard", "date", language="fr", reference_date="2024-01-01")
    assert [v.value for v in got] == [RelativeDate(months=12 * 999999)]


def test_a_weekday_or_a_count_with_no_direction_has_no_offset():
    assert relative_offset("vendredi prochain") is None
    assert relative_offset("deux semaines") is None


@pytest.mark.parametrize(
    "language, text, expected",
    [
        ("en", "within ninety (90) days of notice", [("ninety (90) days", "P90D")]),
        ("en", "a term of twelve (12) months", [("twelve (12) months", "P12M")]),
        (
            "fr",
            "un délai de quatre-vingt-dix (90) jours",
            [("quatre-vingt-dix (90) jours", "P90D")],
        ),
        ("fr", "trente-et-un (31) jours", [("trente-et-un (31) jours", "P31D")]),
        ("es", "un plazo de noventa (90) días", [("noventa (90) días", "P90D")]),
        ("en", "sixty (90) days", [("sixty (90) days", "P60D")]),  # the words prevail
    ],
)
def test_a_written_number_restated_in_figures_is_one_duration(language, text, expected):
    assert found(text, "duration", language) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("vingt-et-un jours", "P21D"),
        ("soixante-dix-neuf jours", "P79D"),
        ("deux-cent-cinquante jours", "P250D"),
    ],
)
def test_french_numbers_hyphenated_all_through(text, expected):
    assert found(text, "duration", "fr") == [(text, expected)]


_PIECES = st.sampled_from(
    [
        "le ",
        "la ",
        "el ",
        "27",
        "1er",
        " mois prochain",
        "lendemain",
        " plus tard",
        " jours",
        "deux",
        "semaines",
        " de $",
        " $ c",
        "millions",
        " pour-cent",
        "(90)",
        " ",
        "-",
        ".",
        "/",
        "il y a ",
        "hace ",
        " días",
        "cents",
        "G$",
        "veille",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.sampled_from(["fr", "es"]))
def test_fuzzed_french_and_spanish_values_stay_inside_the_text(text, language):
    for answer_type in ("amount", "percentage", "date", "duration"):
        for v in find_values(text, answer_type, language=language, reference_date="2024-01-31"):
            assert 0 <= v.start < v.end <= len(text) and text[v.start : v.end] == v.text
