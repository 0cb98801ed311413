"""Structural hints: pages, slides, sheets, sections (with and without a TOC), layout, document
version, detect/answer context and need_summary, on the bundled `cues.hints.csv` rows."""

import polars as pl
import pytest

from quaestio import load_satellites
from quaestio.analysis.draft import Draft
from quaestio.analysis.hints import match_toc, structural_hints
from quaestio.analysis.language import detect_language
from quaestio.analysis.text import tokenize
from quaestio.errors import SatelliteError


def _hints(sats, question, *, answer_type=None, answer_shape=None, **options):
    draft = Draft(
        question_id="q",
        original=question,
        sats=sats,
        tokens=tokenize(question),
        options={"toc": [], **options},
    )
    detect_language(draft)
    if answer_type:
        draft.columns["answer_type"] = answer_type
    if answer_shape:
        draft.columns["answer_shape"] = answer_shape
    structural_hints(draft)
    return draft


def _column(sats, question, name, **options):
    return _hints(sats, question, **options).columns[name]


@pytest.mark.parametrize(
    "question, pages",
    [
        ("What is on page 3?", [3]),
        ("See pages 5 to 7 of the policy", [5, 6, 7]),
        ("Compare pages 2 and 9", [2, 9]),
        ("The table is on p. 4", [4]),
        ("Read pp. 10-12 first", [10, 11, 12]),
        ("pages 2, 5 to 7 and 9", [2, 5, 6, 7, 9]),
        ("page 3 and page 3 again", [3]),
        ("Que dit la page 3 et 4 ?", [3, 4]),
        ("Voir les pages 12 à 14", [12, 13, 14]),
        ("¿Qué dicen las páginas 5 a 7?", [5, 6, 7]),
        ("Ver la pág. 8 y 10", [8, 10]),
        ("What is the premium?", []),
        ("How many pages does the report have?", []),
    ],
)
def test_pages_single_range_and_list_collapse(bundled, question, pages):
    got = _column(bundled, question, "pages_hint")
    assert got == pages, f"Expected {pages}, got {got}"


@pytest.mark.parametrize(
    "question, pages",
    [
        ("pages 9 to 5", [5, 6, 7, 8, 9]),  # reversed: swapped
        ("page 0 and page 4", [4]),  # out of 1..100000: dropped
        ("page 200000", []),
        ("pages 1 to 99999", []),  # too long to list; bounds go to the scope
        ("pages 3 and 1 to 99999", [3]),
        ("page 99999999999999999999", []),
        ("pages to be read", []),
    ],
)
def test_bad_page_numbers_are_normalized_or_dropped(bundled, question, pages):
    assert _column(bundled, question, "pages_hint") == pages


def test_the_expansion_limit_is_a_defaults_row(sat_folder):
    (sat_folder / "defaults.csv").write_text("key,value\npages_hint_limit,5\n")
    sats = load_satellites(sat_folder)
    assert _column(sats, "pages 1 to 10 and page 12", "pages_hint") == [12]
    assert _column(sats, "pages 1 to 4", "pages_hint") == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "question, slides",
    [
        ("What do slides 7 to 9 say?", [7, 8, 9]),
        ("See slide 4", [4]),
        ("la diapositive 3 et 5", [3, 5]),
        ("las diapositivas 2 a 4", [2, 3, 4]),
        ("slides 4 to 2", [2, 3, 4]),
    ],
)
def test_slides(bundled, question, slides):
    assert _column(bundled, question, "slides_hint") == slides


@pytest.mark.parametrize(
    "question, sheets",
    [
        ("What is the unit cost in the Pricing sheet?", ["Pricing"]),
        ("Check the sheet 'Q3 Forecast'", ["Q3 Forecast"]),
        ("Total on the Summary tab", ["Summary"]),
        ("Quel est le total dans la feuille Tarifs ?", ["Tarifs"]),
        ("¿Cuál es el total en la hoja Precios?", ["Precios"]),
        ("What is in Sheet2?", ["Sheet2"]),
        ("What is the total in the balance sheet?", []),
        ("Fill in the pricing sheet", []),  # no capital, no quotes: not a name
    ],
)
def test_sheets(bundled, question, sheets):
    assert _column(bundled, question, "sheets_hint") == sheets


@pytest.mark.parametrize(
    "question, section",
    [
        ("What does the Exclusions section say about floods?", "Exclusions"),
        ("What does the warranty section cover?", "warranty"),
        ("Is the termination clause enforceable?", "termination"),
        ("What is listed in Schedule A?", "Schedule A"),
        ("Check Annex IV and Schedule B", "Annex IV"),
        ("What does section 4.2 require?", "section 4.2"),
        ("What is in the section on limits of liability for floods?", "limits"),
        ("What does the policy say under Exclusions?", "Exclusions"),
        ("Use the cash flow statement.", "cash flow statement"),
        ("Que dit le chapitre sur la responsabilité ?", "responsabilité"),
        ("Que prévoit l'annexe IV ?", "annexe IV"),
        ("¿Qué dice la sección de exclusiones?", "exclusiones"),
        ("¿Qué dice el capítulo sobre responsabilidad civil?", "responsabilidad civil"),
        ("What is the premium?", None),
        ("What is the scope of the first section?", None),
    ],
)
def test_sections_without_a_toc_are_kept_as_written(bundled, question, section):
    assert _column(bundled, question, "toc_section_hint") == section


TOC = [
    "1. Definitions",
    "2. Coverage",
    "3. Exclusions",
    "4. Limits of Liability",
    "Schedule A – Premium Table",
    "Schedule B – Insured Vehicles",
    "Annex IV: Data Processing Terms",
    "7. Warranties and Representations",
    "8. Discovery",
]


@pytest.mark.parametrize(
    "question, title",
    [
        ("What does the Exclusions section say?", "3. Exclusions"),
        ("What does the warranty section cover?", "7. Warranties and Representations"),
        ("What is in the section on limits of liability?", "4. Limits of Liability"),
        ("See Schedule B", "Schedule B – Insured Vehicles"),
        ("What does Annex IV say?", "Annex IV: Data Processing Terms"),
        ("What does the cover section say?", "2. Coverage"),
        ("What is in Schedule C?", "Schedule C"),  # no such title: kept as written
        ("What does the taxes section say?", "taxes"),
    ],
)
def test_sections_are_matched_to_the_callers_toc(bundled, question, title):
    assert _column(bundled, question, "toc_section_hint", toc=TOC) == title


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Schedule A", "Schedule A – Premium Table"),
        ("schedule b", "Schedule B – Insured Vehicles"),
        ("Schedule D", None),
        ("cover", "2. Coverage"),
        ("", None),
    ],
)
def test_toc_identifiers_must_match_exactly(name, expected):
    assert match_toc(name, TOC, 75.0) == expected


def test_a_toc_title_must_share_a_word_stem_not_just_letters():
    assert match_toc("cover", ["8. Discovery", "9. Recovery of costs"], 75.0) is None
    assert (
        match_toc("recovery", ["8. Discovery", "9. Recovery of costs"], 75.0)
        == "9. Recovery of costs"
    )


def test_toc_with_junk_entries_does_not_crash(bundled):
    toc = [None, "", 3, "3. Exclusions"]
    assert (
        _column(bundled, "the Exclusions section", "toc_section_hint", toc=toc) == "3. Exclusions"
    )


@pytest.mark.parametrize(
    "question, layout",
    [
        ("The rate is usually in an image", "image"),
        ("See the schedule table at the end", "table"),
        ("What is in the table below?", "table"),
        ("It is shown in a bar chart", "image"),
        ("The address is in the header", "header"),
        ("Le taux figure dans le tableau des garanties", "table"),
        ("Le logo est généralement dans une image", "image"),
        ("El dato está en la tabla de tarifas", "table"),
        ("El número está en el encabezado", "header"),
        ("Give me a table of premiums by country", "text"),  # an answer shape, not a location
        ("See the table of contents", "text"),
        ("What is the premium?", "text"),
    ],
)
def test_layout(bundled, question, layout):
    assert _column(bundled, question, "layout_hint") == layout


@pytest.mark.parametrize(
    "question, version",
    [
        ("What changed in version 2.1?", "2.1"),
        ("Is this in v3 of the contract?", "3"),
        ("What does the 2023 edition say?", "2023"),
        ("Quelle est la dernière version du contrat ?", "latest"),
        ("What is in the latest version?", "latest"),
        ("¿Qué dice la última versión?", "latest"),
        ("What did the previous version say?", "previous"),
        ("Que disait la version 1.4 ?", "1.4"),
        ("What is the premium for 2023?", None),
    ],
)
def test_document_version(bundled, question, version):
    assert _column(bundled, question, "document_version") == version


@pytest.mark.parametrize(
    "answer_type, shape, detect, answer",
    [
        (None, None, "paragraph", "paragraph"),  # text, single
        ("amount", "single", "line", "paragraph"),
        ("email", "single", "line", "line"),  # a single answer: the type decides
        ("email", "listing", "line", "section"),  # several: the wider of type and shape
        ("amount", "tree", "line", "chapter"),
        ("unknown_type", "single", "sentence", "paragraph"),
    ],
)
def test_contexts_default_from_type_and_shape_rows(bundled, answer_type, shape, detect, answer):
    cols = _hints(bundled, "What is it?", answer_type=answer_type, answer_shape=shape).columns
    assert (cols["detect_context"], cols["answer_context"]) == (detect, answer)


@pytest.mark.parametrize(
    "question, shape, answer, summary",
    [
        ("Summarize the exclusions", "single", "section", True),
        ("Explain the termination clause in detail", "single", "section", False),
        ("Résumez les garanties", "single", "section", True),
        ("Resuma el contrato", "single", "section", True),
        ("Explique en detalle la cobertura", "single", "section", False),
        ("What does the whole document say about fire?", "single", "document", False),
        ("Explain the procedure", "tree", "chapter", False),  # cues only ever widen
        ("When does coverage resume?", "single", "paragraph", False),
        ("What made him resume the throne?", "single", "paragraph", False),
    ],
)
def test_cues_widen_answer_context_and_ask_for_summaries(
    bundled, question, shape, answer, summary
):
    cols = _hints(bundled, question, answer_shape=shape).columns
    assert (cols["answer_context"], cols["need_summary"]) == (answer, summary)


def test_detect_context_cue_replaces_the_type_default(bundled):
    draft = _hints(bundled, "Which sentence says the policy ends?", answer_type="amount")
    assert draft.columns["detect_context"] == "sentence"
    assert "cues:hint_detect_sentence" in draft.rules_fired


def test_rules_fired_name_the_rows_that_decided(bundled):
    draft = _hints(
        bundled,
        "Summarize pages 5 to 7 of the Exclusions section, in the table",
        answer_type="amount",
    )
    assert draft.rules_fired == [
        "cues:hint_pages_en",
        "cues:hint_section_named_en",
        "cues:hint_layout_table_en",
        "answer_types:amount.detect_context",
        "answer_types:amount.answer_context",
        "cues:hint_context_summary_en",
        "cues:hint_summary_en",
    ]


@pytest.mark.parametrize(
    "question",
    [
        "Is Zoloft Covered Under Medicare?",
        "WHAT IS COVERED UNDER EXCLUSIONS?",
        "What Are The Exclusions In The Policy?",
    ],
)
def test_capitals_say_nothing_in_title_case_questions(bundled, question):
    assert _column(bundled, question, "toc_section_hint") is None


@pytest.mark.parametrize(
    "question",
    [
        "",
        " ",
        "page",
        "pages - to -",
        "p." * 500,
        "pages " + "1, " * 2000 + "2",
        "(" * 300 + "section on" + ")" * 300,
        "\x00\u200bpage 3\ufeff",
    ],
)
def test_odd_input_never_crashes(bundled, question):
    cols = _hints(bundled, question).columns
    assert all(1 <= p <= 100000 for p in cols["pages_hint"])


@pytest.mark.parametrize(
    "row, column",
    [
        ("mine_bad,page,,en,\\bpage\\s+(?P<page>\\d+,1.0", "pattern"),  # unbalanced
        ("mine_bad,layout,spreadsheet,en,\\bcells?\\b,1.0", "target"),  # not a layout
        ("mine_bad,layout,table,en,(?:grid)?,1.0", "pattern"),  # matches anywhere
    ],
)
def test_a_broken_hint_row_is_rejected_at_load_with_its_row(sat_folder, row, column):
    (sat_folder / "cues.mine.csv").write_text(
        "cue_id,family,target,language,pattern,weight\n"
        "mine_ok,layout,table,en,\\bgrid\\b,1.0\n" + row + "\n"
    )
    with pytest.raises(SatelliteError) as caught:
        load_satellites(sat_folder)
    cases = [
        (c["source"].rsplit("/", 1)[-1], c["row"], c["column"]) for c in caught.value.failure_cases
    ]
    assert cases == [("cues.mine.csv", 3, column)], caught.value.failure_cases


def test_an_analyst_row_changes_behaviour(tiny_sats):
    extra = pl.DataFrame(
        {
            "cue_id": ["mine_grid"],
            "family": ["layout"],
            "target": ["table"],
            "language": ["en"],
            "pattern": [r"\bin\s+the\s+grid\b"],
        }
    )
    sats = load_satellites(extra={"cues": extra})
    draft = _hints(sats, "The rate is in the grid")
    assert draft.columns["layout_hint"] == "table"
    assert "cues:mine_grid" in draft.rules_fired
