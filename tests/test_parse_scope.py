"""Scope filters: date ranges, parties, jurisdictions, sections and page range from the question,
merged with the caller's filters and earlier turns, each value with its origin."""

import datetime as dt

import pytest

from quaestio import load_satellites
from quaestio.analysis.anchors import anchor_keywords
from quaestio.analysis.dates import DateMention, period_of
from quaestio.analysis.dictionary import dictionary_keywords
from quaestio.analysis.draft import Draft
from quaestio.analysis.explicit import explicit_keywords
from quaestio.analysis.language import detect_language
from quaestio.analysis.scope import scope_filters
from quaestio.analysis.text import tokenize
from quaestio.errors import SatelliteError

TODAY = dt.date(2024, 6, 15)
D = dt.date


def _scope(sats, question, **options):
    draft = Draft(
        question_id="q",
        original=question,
        sats=sats,
        tokens=tokenize(question),
        options={"toc": [], "scope": {}, "context": [], "parties": [], "today": TODAY, **options},
    )
    for step in (
        detect_language,
        explicit_keywords,
        anchor_keywords,
        dictionary_keywords,
        scope_filters,
    ):
        step(draft)
    return draft


def _dates(sats, question, **options):
    cols = _scope(sats, question, **options).columns
    return cols["scope_date_from"], cols["scope_date_to"]


def _origins(draft):
    return [(o["name"], o["value"], o["origin"]) for o in draft.columns["scope_origins"]]


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What was paid between 2022 and 2024?", (D(2022, 1, 1), D(2024, 12, 31))),
        ("Claims since January 2023", (D(2023, 1, 1), None)),
        ("Policies signed before 2020", (None, D(2019, 12, 31))),
        ("Policies signed after 2020", (D(2021, 1, 1), None)),
        ("What was the premium in 2021?", (D(2021, 1, 1), D(2021, 12, 31))),
        ("Sales from March to June 2024", (D(2024, 3, 1), D(2024, 6, 30))),
        ("Sales from November to February 2024", (D(2023, 11, 1), D(2024, 2, 29))),
        ("Filing dated 1st July 2022", (D(2022, 7, 1), D(2022, 7, 1))),
        ("As of May 26, 2023, how much may Pepsico borrow?", (None, D(2023, 5, 26))),
        ("What is the FY2018 capital expenditure?", (D(2018, 1, 1), D(2018, 12, 31))),
        ("Average margin FY2015 - FY2017", (D(2015, 1, 1), D(2017, 12, 31))),
        ("In 2022 Q2, which segment earned most?", (D(2022, 4, 1), D(2022, 6, 30))),
        ("Liquidity as of Q2 of FY2023?", (None, D(2023, 6, 30))),
        ("Revenue in the second quarter of 2023", (D(2023, 4, 1), D(2023, 6, 30))),
        ("Revenue in H1 2023", (D(2023, 1, 1), D(2023, 6, 30))),
        ("Legal battles from 2022, 2021 and 2020?", (D(2020, 1, 1), D(2022, 12, 31))),
        ("Payments on 03/25/2023", (D(2023, 3, 25), D(2023, 3, 25))),
        ("Sinistres entre 2022 et 2024", (D(2022, 1, 1), D(2024, 12, 31))),
        ("Chiffre d'affaires du 1er janvier au 31 mars 2024", (D(2024, 1, 1), D(2024, 3, 31))),
        ("Contrats signés depuis février 2023", (D(2023, 2, 1), None)),
        ("Primes payées avant 2020", (None, D(2019, 12, 31))),
        ("Résultat du deuxième trimestre 2023", (D(2023, 4, 1), D(2023, 6, 30))),
        ("Paiements du 05/03/2023", (D(2023, 3, 5), D(2023, 3, 5))),
        ("Siniestros desde enero de 2023", (D(2023, 1, 1), None)),
        ("Primas entre 2022 y 2024", (D(2022, 1, 1), D(2024, 12, 31))),
        ("Ventas de marzo a junio de 2024", (D(2024, 3, 1), D(2024, 6, 30))),
        ("Pagos en 2021", (D(2021, 1, 1), D(2021, 12, 31))),
        ("Contratos anteriores a 2019", (None, D(2018, 12, 31))),
    ],
)
def test_date_ranges(bundled, question, expected):
    got = _dates(bundled, question)
    assert got == expected, f"Expected {expected}, got {got}"


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What did we pay last year?", (D(2023, 1, 1), D(2023, 12, 31))),
        ("Claims since last year", (D(2023, 1, 1), None)),
        ("Sales last month", (D(2024, 5, 1), D(2024, 5, 31))),
        ("Claims this quarter", (D(2024, 4, 1), D(2024, 6, 30))),
        ("Claims in the last 3 years", (D(2021, 6, 15), D(2024, 6, 15))),
        ("Claims over the past 6 months", (D(2023, 12, 15), D(2024, 6, 15))),
        ("Qu'avons-nous payé l'année dernière ?", (D(2023, 1, 1), D(2023, 12, 31))),
        ("Sinistres des 2 dernières années", (D(2022, 6, 15), D(2024, 6, 15))),
        ("¿Qué pagamos el año pasado?", (D(2023, 1, 1), D(2023, 12, 31))),
        ("Siniestros de este año", (D(2024, 1, 1), D(2024, 12, 31))),
        ("Claims since March", (D(2024, 3, 1), None)),  # no year: today's
    ],
)
def test_relative_dates_use_the_today_option(bundled, question, expected):
    assert _dates(bundled, question) == expected


def test_today_may_be_an_iso_string_and_defaults_to_the_system_date(bundled):
    assert _dates(bundled, "last year", today="2030-02-01") == (D(2029, 1, 1), D(2029, 12, 31))
    year = dt.date.today().year - 1
    assert _dates(bundled, "last year", today=None) == (D(year, 1, 1), D(year, 12, 31))


@pytest.mark.parametrize(
    "question",
    [
        "Claims since 31 February 2023",  # does not exist: dropped, nothing else read
        "Payments on 30 February",
        "Payments on 13/13/2023",
        "A premium of 2000 euros",  # an amount, not a year
        "Is it ISO 9001:2015 certified?",
        "The 2023 edition of the policy",  # a version, not a scope
        "What may I claim?",  # the modal, not the month
        "Pendant sept jours",  # seven, not September
        "Revenue 2021 was high",  # a plain year needs a range phrase
        "What are annuities paying today?",
    ],
)
def test_non_dates_and_impossible_dates_give_no_range(bundled, question):
    assert _dates(bundled, question) == (None, None)


def test_reversed_range_is_swapped(bundled):
    assert _dates(bundled, "between 2024 and 2022") == (D(2022, 1, 1), D(2024, 12, 31))
    assert _dates(bundled, "entre 2024 et 2022") == (D(2022, 1, 1), D(2024, 12, 31))


def test_date_rules_are_recorded(bundled):
    draft = _scope(bundled, "Claims since January 2023")
    assert draft.rules_fired == ["cues:scope_range_since_en", "cues:scope_date_month_year"]


@pytest.mark.parametrize(
    "kind, fields, expected",
    [
        ("month-1", {}, (D(2023, 12, 1), D(2023, 12, 31))),
        ("quarter-1", {}, (D(2023, 10, 1), D(2023, 12, 31))),
        ("quarter+1", {}, (D(2024, 4, 1), D(2024, 6, 30))),
        ("week-1", {}, (D(2024, 1, 8), D(2024, 1, 14))),
        ("day-1", {}, (D(2024, 1, 16), D(2024, 1, 16))),
        ("year+1", {}, (D(2025, 1, 1), D(2025, 12, 31))),
        ("past_months", {"n": 1}, (D(2023, 12, 17), D(2024, 1, 17))),
        ("q4", {"year": 2023}, (D(2023, 10, 1), D(2023, 12, 31))),
        ("h2", {}, (D(2024, 7, 1), D(2024, 12, 31))),
        ("date", {"month": 2, "day": 29}, (D(2024, 2, 29), D(2024, 2, 29))),
    ],
)
def test_periods_at_calendar_edges(kind, fields, expected):
    period = period_of(DateMention(0, 1, kind, fields, "r"), D(2024, 1, 17), 2024)
    assert (period.start, period.end) == expected


def test_a_day_that_does_not_exist_has_no_period():
    assert (
        period_of(DateMention(0, 1, "when", {"month": 2, "day": 29}, "r"), D(2024, 1, 17), 2023)
        is None
    )


@pytest.mark.parametrize(
    "question, parties",
    [
        ("Contracts with Acme in Germany", ["Acme"]),
        ("The agreement between Acme Corp and Beta LLC", ["Acme Corp", "Beta LLC"]),
        ("Le contrat avec Globex Industries", ["Globex Industries"]),
        ("El contrato con Acme y Beta", ["Acme", "Beta"]),
        ("What is the premium the insurer charges?", ["insurer"]),  # a party concept
        ("What did we sign with Germany?", []),  # a jurisdiction
        ("Is it compliant with GDPR?", []),  # an anchor
        ("Contracts with acme", []),  # not a name
        ("Is Zoloft Covered With Medicare?", []),  # Title Case: no evidence
    ],
)
def test_parties_from_the_question(bundled, question, parties):
    assert _scope(bundled, question).columns["scope_parties"] == parties


def test_known_parties_are_found_and_keep_the_callers_spelling(bundled):
    draft = _scope(bundled, "what does acme corp owe us?", parties=["ACME Corp", "Globex"])
    assert draft.columns["scope_parties"] == ["ACME Corp"]
    assert _origins(draft) == [("parties", "ACME Corp", "question")]


@pytest.mark.parametrize(
    "question, jurisdictions",
    [
        ("What is the premium in Germany?", ["country_de"]),
        ("Quelle est la prime en France et en Espagne ?", ["country_fr", "country_es"]),
        ("¿Cuál es la prima en Alemania?", ["country_de"]),
        ("What is the premium?", []),
    ],
)
def test_jurisdictions_are_concept_ids(bundled, question, jurisdictions):
    draft = _scope(bundled, question)
    assert draft.columns["scope_jurisdictions"] == jurisdictions
    assert all(f"concepts:{j}.scope_kind" in draft.rules_fired for j in jurisdictions)


@pytest.mark.parametrize(
    "question, pages",
    [
        ("See pages 5 to 7", [5, 7]),
        ("pages 2 and 9", [2, 9]),
        ("pages 1 to 99999", [1, 99999]),  # kept as bounds, never expanded
        ("pages 9 to 5", [5, 9]),
        ("page 0", []),
        ("What is the premium?", []),
    ],
)
def test_page_range(bundled, question, pages):
    assert _scope(bundled, question).columns["scope_page_range"] == pages


def test_sections_scope_with_the_toc(bundled):
    toc = ["3. Exclusions", "Annex IV: Data Processing Terms"]
    draft = _scope(bundled, "Compare the Exclusions section and Annex IV", toc=toc)
    assert draft.columns["scope_sections"] == ["3. Exclusions", "Annex IV: Data Processing Terms"]


def test_caller_filters_merge_with_the_question(bundled):
    draft = _scope(
        bundled,
        "Claims with Acme since 2021 in Germany on page 3",
        scope={
            "jurisdictions": ["FR", "country_de"],
            "date_from": "2022-01-01",
            "date_to": "2024",
            "parties": ["Acme", "Globex"],
            "page_range": [1, 10],
            "sections": ["Cover"],
            "product": ["fleet", "motor"],
        },
    )
    cols = draft.columns
    assert cols["scope_parties"] == ["Acme", "Globex"]
    assert cols["scope_jurisdictions"] == ["country_de", "country_fr"]  # "FR" mapped
    assert (cols["scope_date_from"], cols["scope_date_to"]) == (D(2022, 1, 1), D(2024, 12, 31))
    assert cols["scope_page_range"] == [3, 3]
    assert [(c["name"], c["value"]) for c in cols["scope_custom"]] == [
        ("product", "fleet"),
        ("product", "motor"),
    ]
    assert _origins(draft) == [
        ("sections", "Cover", "caller"),
        ("parties", "Acme", "question"),
        ("parties", "Globex", "caller"),
        ("jurisdictions", "country_de", "question"),
        ("jurisdictions", "country_fr", "caller"),
        ("date_from", "2022-01-01", "caller"),
        ("date_to", "2024-12-31", "caller"),
        ("page_from", "3", "question"),
        ("page_to", "3", "question"),
        ("product", "fleet", "caller"),
        ("product", "motor", "caller"),
    ]


def test_when_ranges_do_not_overlap_the_question_wins(bundled):
    draft = _scope(bundled, "Claims in 2019", scope={"date_from": "2022-01-01"})
    assert (draft.columns["scope_date_from"], draft.columns["scope_date_to"]) == (
        D(2019, 1, 1),
        D(2019, 12, 31),
    )
    assert ("date_from", "2019-01-01", "question") in _origins(draft)


@pytest.mark.parametrize(
    "scope, warning",
    [
        ({"date_from": "garbage"}, "date_from='garbage' is not a date"),
        ({"date_to": "2023-02-31"}, "is not a date"),
        ({"page_range": [5]}, "page_range=[5] is not [from, to]"),
        ({"page_range": [0, 10**9]}, "is not [from, to]"),
        ({"page_range": "a-b"}, "is not [from, to]"),
        ({"date_from": "2024-01-01", "date_to": "2020-01-01"}, "swapped"),
    ],
)
def test_bad_caller_values_are_warnings_not_crashes(bundled, scope, warning):
    draft = _scope(bundled, "What is the premium?", scope=scope)
    assert any(warning in w for w in draft.warnings), draft.warnings


def test_a_scope_that_is_not_a_mapping_is_ignored(bundled):
    draft = _scope(bundled, "What is the premium?", scope=["FR"])
    assert draft.columns["scope_jurisdictions"] == [] and draft.warnings


def test_context_fills_only_what_the_question_leaves_open(bundled):
    context = ["What is the premium for contracts with Acme in Spain in 2022?"]
    draft = _scope(bundled, "And in France?", context=context)
    cols = draft.columns
    assert cols["scope_jurisdictions"] == ["country_fr"]  # replaced, not added
    assert cols["scope_parties"] == ["Acme"]
    assert (cols["scope_date_from"], cols["scope_date_to"]) == (D(2022, 1, 1), D(2022, 12, 31))
    assert ("parties", "Acme", "context") in _origins(draft)
    assert ("jurisdictions", "country_fr", "question") in _origins(draft)


def test_the_latest_turn_wins(bundled):
    context = ["Claims in 2019?", "And in 2021?", "", None]
    assert _dates(bundled, "What about the deductible?", context=context) == (
        D(2021, 1, 1),
        D(2021, 12, 31),
    )


def test_a_bad_date_row_is_rejected_at_load(sat_folder):
    (sat_folder / "cues.mine.csv").write_text(
        "cue_id,family,target,language,pattern,weight\n"
        "mine_month,month,13,en,\\bsmarch\\b,1.0\n"
        "mine_date,date,fortnight-1,en,\\blast\\s+fortnight\\b,1.0\n"
    )
    with pytest.raises(SatelliteError) as caught:
        load_satellites(sat_folder)
    assert {(c["row"], c["column"]) for c in caught.value.failure_cases} == {
        (2, "target"),
        (3, "target"),
    }


def test_month_rows_cover_every_month_name_babel_knows(bundled):
    babel = pytest.importorskip("babel")
    from quaestio.analysis.dates import _date_rules

    _, months = _date_rules(bundled)
    for language in ("en", "fr", "es"):
        locale = babel.Locale.parse(language)
        for width in ("wide", "abbreviated"):
            for number, name in locale.months["format"][width].items():
                text = f"{name} 2023"
                read = {
                    int(r.target)
                    for r in months
                    if (m := r.pattern.match(text)) and m.end() >= len(name.rstrip("."))
                }
                assert read == {number}, f"{language} {width} {name!r}: {read}"


_DOCUMENT_DATE = ("date_applies_to", "document", "question")


@pytest.mark.parametrize(
    "question, rule",
    [
        ("termination notice in contracts signed between 2023 and 2023", "signed_en"),
        ("Which policies were issued since March 2022?", "issued_en"),
        ("documents dated 2021", "signed_en"),
        ("agreements executed in 2020", "signed_en"),
        ("contracts entered into before 2019", "signed_en"),
        ("reports published in 2024", "issued_en"),
        ("contrats signés en 2023", "signed_fr"),
        ("Contrats signés depuis février 2023", "signed_fr"),
        ("rapports publiés en 2024", "issued_fr"),
        ("contratos firmados en 2023", "signed_es"),
        ("pólizas emitidas en 2023", "issued_es"),
    ],
)
def test_a_date_target_cue_says_the_range_qualifies_the_documents_date(bundled, question, rule):
    draft = _scope(bundled, question)
    assert draft.columns["scope_date_from"] or draft.columns["scope_date_to"]
    assert _DOCUMENT_DATE in _origins(draft)
    assert f"cues:scope_date_target_{rule}" in draft.rules_fired


@pytest.mark.parametrize(
    "question",
    [
        "How much net income did Northwind Mutual make in 2024?",  # the period the facts concern
        "revenue between 2021 and 2023",
        "How many shares were issued in 2024?",  # issued, but not a document
        "What was the effective tax rate in 2024?",
        "Gross premiums written in 2024",
        "Résultat net en 2024",
        "Ingresos entre 2021 y 2023",
        "Who signed the contract?",  # no date range to qualify
    ],
)
def test_without_a_date_target_cue_the_range_is_the_facts_period(bundled, question):
    draft = _scope(bundled, question)
    assert not [o for o in _origins(draft) if o[0] == "date_applies_to"]
    assert not [r for r in draft.rules_fired if "date_target" in r]


def test_what_the_range_qualifies_comes_with_the_context_dates(bundled):
    draft = _scope(
        bundled, "And the notice period?", context=["Which contracts were signed in 2023?"]
    )
    assert ("date_applies_to", "document", "context") in _origins(draft)
    assert _dates(bundled, "And with Globex?", context=["Net income in 2024?"]) == (
        D(2024, 1, 1),
        D(2024, 12, 31),
    )
    assert not [
        o
        for o in _origins(_scope(bundled, "And with Globex?", context=["Net income in 2024?"]))
        if o[0] == "date_applies_to"
    ]
